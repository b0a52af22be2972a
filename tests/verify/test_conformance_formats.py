"""The conformance helpers accept the long record format and the one-column-per-metric records of run_batch."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fedrates.verify.conformance import RateAssertionError, assert_rate
from fedrates.verify.records import as_long

T = [100, 200, 400, 800, 1600]


def _wide(exponent: float) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    rows = [{"seed": s, "round": t, "iterations": t, "objective_gap": 5.0 * t**exponent * rng.uniform(0.9, 1.1),
             "distance_to_optimum": 1.0, "diverged": False} for s in range(10) for t in T]
    return pd.DataFrame(rows)


@pytest.mark.parametrize("fmt", ["wide", "long"])
def test_assert_rate_accepts_both_formats(fmt: str) -> None:
    records = _wide(-1.0) if fmt == "wide" else as_long(_wide(-1.0))
    result = assert_rate(records, "iterations", -1.0, metric="objective_gap")
    assert result.verdict == "pass"
    with pytest.raises(RateAssertionError, match="rate in iterations"):
        assert_rate(records, "iterations", -2.0, metric="objective_gap")


def test_several_metrics_need_a_metric_argument() -> None:
    with pytest.raises(RateAssertionError, match="pass metric="):
        assert_rate(_wide(-1.0), "iterations", -1.0)


def test_as_long_melts_each_metric_once() -> None:
    long = as_long(_wide(-1.0))
    assert set(long["metric"]) == {"objective_gap", "distance_to_optimum"} and len(long) == 2 * 10 * len(T)
