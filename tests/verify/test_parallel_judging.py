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


@pytest.mark.slow
def test_a_fresh_verify_draws_every_page_in_the_sweeps_pool_paper_figures_included(tmp_path: Path,
                                                                                  monkeypatch) -> None:
    from fedrates.reports import paper_figures
    from fedrates.verify.pipeline import verify_claims

    ids = ("das.fig3/trajectories", "bylinkin.thm4/exact-contraction")
    assert ids[0] in paper_figures.PAPER_FIGURES and ids[1] not in paper_figures.PAPER_FIGURES
    left: list[list] = []
    real = drawing.draw_missing

    def after_the_sweep(records, verdicts, cache, *, jobs, with_pdf=True, digests=None):
        from fedrates.reports import pdf

        # the digests the workers returned are the ones the report computes from the merged records
        assert digests == pdf.page_digests(records, verdicts) and len(digests) == 2
        left.append(drawing.missing(records, verdicts, Path(cache), with_pdf=with_pdf, digests=digests))
        return real(records, verdicts, cache, jobs=jobs, with_pdf=with_pdf, digests=digests)

    monkeypatch.setattr(drawing, "draw_missing", after_the_sweep)
    verify_claims([registry.get(c) for c in ids], profile="quick", out=tmp_path / "out", jobs=2, progress=False)
    assert left == [[]]  # the claim pages and the paper figure's page were all drawn before the report needed them
    timings = json.loads((tmp_path / "out" / "timings.json").read_text())
    assert timings["claims_judged_in_sweep"] == 2
