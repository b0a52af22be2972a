"""records_from_trace: one record per (metric, seed, round), metric-major, with the point's fields."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd

from fedrates.verify.claims.base import records_from_trace

CLAIM = SimpleNamespace(id="p.thm/x", theorem="p.thm", algorithm="fedavg", problem="lasso")
TRACE = pd.DataFrame({"seed": [3, 3, 4, 4], "round": [0, 10, 0, 10], "iterations": [0, 50, 0, 50],
                      "gap": [1.0, 0.25, 2.0, 0.5], "dist": [9.0, 8.0, 7.0, 6.0],
                      "diverged": [False, False, False, True]})


def test_rows_are_metric_major_with_the_point_fields() -> None:
    out = records_from_trace(TRACE, claim=CLAIM, point_index=2, point={"clients": 8, "participating": 4, "E": 1},
                             metrics=["gap", "dist"], bound=lambda d: 10.0 / (1 + d["round"].to_numpy()),
                             problem_dim=5)
    assert list(out.index) == list(range(8))
    assert list(out["metric"]) == ["gap"] * 4 + ["dist"] * 4
    assert list(out["value"]) == [1.0, 0.25, 2.0, 0.5, 9.0, 8.0, 7.0, 6.0]
    assert list(out["seed"]) == [3, 3, 4, 4] * 2 and list(out["round"]) == [0, 10, 0, 10] * 2
    assert list(out["iterations"]) == [0, 50, 0, 50] * 2
    assert np.allclose(out["bound"], [10.0, 10 / 11, 10.0, 10 / 11] * 2)
    assert list(out["diverged"]) == [False, False, False, True] * 2
    assert set(out["claim"]) == {"p.thm/x"} and set(out["point"]) == {2} and set(out["dim"]) == {5}
    assert set(out["clients"]) == {8} and set(out["participating"]) == {4} and set(out["local_steps"]) == {1}
    assert set(out["params"]) == {'{"E": 1, "clients": 8, "participating": 4}'}


def test_without_bound_or_divergence_column() -> None:
    out = records_from_trace(TRACE.drop(columns="diverged"), claim=CLAIM, point_index=0, point={},
                             metrics=["dist"])
    assert list(out["value"]) == [9.0, 8.0, 7.0, 6.0] and out["bound"].isna().all()
    assert not out["diverged"].any() and set(out["participating"]) == {0}
