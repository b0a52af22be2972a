"""Judging after the sweep in worker processes (``judge_claims`` with jobs > 1): the same verdicts as in one
process, and the figures the workers draw are the ones the report looks up (same digests), so nothing is redrawn."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from fedrates.reports import drawing
from fedrates.verify import claims as registry
from fedrates.verify.pipeline import judge_all, judge_claims
from fedrates.verify.sweep import run_claims

# deterministic and cheap on the quick profile; neither has a paper figure, so the workers draw both
CLAIMS = ("bylinkin.thm4/exact-contraction", "das.eq8/exact-poisson-noise")


@pytest.mark.slow
def test_judged_in_workers_as_in_one_process_and_figures_drawn_where_the_report_looks(tmp_path: Path) -> None:
    claims = [registry.get(c) for c in CLAIMS]
    sweep = run_claims(claims, "quick", None, jobs=1)
    assert set(sweep.records) == set(CLAIMS)
    errors = {"bylinkin.thm4/exact-contraction": "a failed sweep"}  # an errored claim stays errored in workers
    kwargs = {"base_seed": 0, "timestamp": "2000-01-01T00:00:00+00:00"}
    one = judge_claims(claims, sweep.records, errors, "quick", jobs=1, **kwargs)
    cache = tmp_path / "figures"
    two = judge_claims(claims, sweep.records, errors, "quick", jobs=2, figures=(cache, True), **kwargs)
    assert json.dumps(one, sort_keys=True, default=str) == json.dumps(two, sort_keys=True, default=str)
    assert [v["verdict"] for v in two][0] == "error" and two[1]["verdict"] == judge_all(
        claims[1:], sweep.records, {}, "quick")[0]["verdict"]
    assert two[1]["plot"] is not None and two[1]["run_at"] == kwargs["timestamp"]
    # the worker drew the judged claim's pages under the digest the report computes from the merged records
    records = pd.concat(list(sweep.records.values()), ignore_index=True)
    assert len(list(cache.glob("*.page.json"))) == 2
    assert drawing.missing(records, two, cache, with_pdf=True) == []
