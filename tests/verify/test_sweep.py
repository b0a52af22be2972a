"""Sweeps: caching, resume after interruption, identical records for any --jobs, error isolation."""

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest

from fedrates.verify.claims.base import Claim
from fedrates.verify.sweep import run_claims

CALLS: list[tuple] = []


@dataclass(frozen=True)
class ToyClaim(Claim):
    """Synthetic 'measurements' value = x^-1 · lognormal noise drawn from the seed: no algorithm involved."""

    fail_at: int | None = None

    def points(self, profile):
        return [{"iterations": int(t)} for t in (10, 20, 40)]

    def simulate(self, point, seeds):
        CALLS.append((self.id, point["iterations"], tuple(seeds)))
        if self.fail_at == point["iterations"]:
            raise RuntimeError("boom")
        rows = []
        for s in seeds:
            rng = np.random.default_rng(s)
            rows.append({"claim": self.id, "seed": s, "iterations": point["iterations"], "metric": "gap",
                         "value": float(np.exp(0.1 * rng.standard_normal()) / point["iterations"])})
        return pd.DataFrame(rows)

    def judge(self, records, profile):
        return {"claim": self.id, "verdict": "pass"}


def toy(name="toy.claim/rate", **kw):
    return ToyClaim(id=name, theorem="toy", title="toy", algorithm="none", problem="none", regime="r",
                    why="w", metric="gap", x="iterations", n_seeds={"quick": 3, "standard": 3, "full": 3}, **kw)


def _sorted(df):
    return df.sort_values(["iterations", "seed"]).reset_index(drop=True)


def test_cache_makes_a_rerun_free_and_identical(tmp_path):
    CALLS.clear()
    first = run_claims([toy()], "quick", tmp_path)
    assert first.computed == 3 and len(CALLS) == 3
    second = run_claims([toy()], "quick", tmp_path)
    assert second.computed == 0 and second.cached == 3 and len(CALLS) == 3
    pd.testing.assert_frame_equal(_sorted(first.records["toy.claim/rate"]), _sorted(second.records["toy.claim/rate"]))


def test_resume_recomputes_only_missing_points(tmp_path):
    run_claims([toy()], "quick", tmp_path)
    # simulate an interruption that lost one point
    victim = next(tmp_path.rglob("records.parquet"))
    victim.unlink()
    CALLS.clear()
    res = run_claims([toy()], "quick", tmp_path)
    assert res.computed == 1 and res.cached == 2 and len(CALLS) == 1


def test_corrupt_cache_entry_is_recomputed(tmp_path):
    run_claims([toy()], "quick", tmp_path)
    victim = next(tmp_path.rglob("records.parquet"))
    victim.write_bytes(b"not parquet")
    res = run_claims([toy()], "quick", tmp_path)
    assert res.computed == 1


@pytest.mark.parametrize("jobs", [1, 2])
def test_records_do_not_depend_on_jobs(tmp_path, jobs):
    base = run_claims([toy()], "quick", None, jobs=1).records["toy.claim/rate"]
    other = run_claims([toy()], "quick", tmp_path / str(jobs), jobs=jobs).records["toy.claim/rate"]
    pd.testing.assert_frame_equal(_sorted(base), _sorted(other))


def test_a_crashing_claim_does_not_stop_the_others(tmp_path):
    res = run_claims([toy("bad/claim", fail_at=20), toy("good/claim")], "quick", tmp_path)
    assert "bad/claim" in res.errors and "boom" in res.errors["bad/claim"]
    assert "good/claim" in res.records and "bad/claim" not in res.records


def test_base_seed_changes_the_seeds():
    assert toy().seeds("quick", 0) != toy().seeds("quick", 1)
    assert len(set(toy().seeds("quick", 0)) | set(toy().seeds("quick", 1))) == 6
