"""Sweeps: caching, resume after interruption, identical records for any --jobs, error isolation."""

import time
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
    delay: float = 0.0  # seconds each point takes (to make a claim finish after the ones listed after it)

    def points(self, profile):
        return [{"iterations": int(t)} for t in (10, 20, 40)]

    def simulate(self, point, seeds):
        CALLS.append((self.id, point["iterations"], tuple(seeds)))
        if self.fail_at == point["iterations"]:
            raise RuntimeError("boom")
        time.sleep(self.delay)
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


def _summary(claim_id, rows, error):
    """A follow-up task: what it was handed (runs in a worker process)."""
    return claim_id, rows, error


def _follow(claim, rows, error):
    return _summary, (claim.id, rows, error)


def test_follow_ups_run_in_the_pool_with_each_claims_final_records(tmp_path):
    claims = [toy("bad/claim", fail_at=20), toy("good/claim")]
    res = run_claims(claims, "quick", tmp_path, jobs=2, then=_follow)
    assert set(res.followed) == {"bad/claim", "good/claim"}
    good_id, good_rows, good_error = res.followed["good/claim"]
    assert good_id == "good/claim" and good_error is None
    pd.testing.assert_frame_equal(good_rows, res.records["good/claim"])  # the canonical records, not one batch
    bad_id, bad_rows, bad_error = res.followed["bad/claim"]
    assert bad_rows is None and "boom" in bad_error and bad_error == res.errors["bad/claim"]
    # a claim whose points all come from the cache is followed up too (while another claim computes), same records
    again = run_claims([toy("good/claim"), toy("new/claim")], "quick", tmp_path, jobs=2, then=_follow)
    assert again.computed == 3 and again.cached == 3 and set(again.followed) == {"good/claim", "new/claim"}
    pd.testing.assert_frame_equal(again.followed["good/claim"][1], good_rows)


def test_a_serial_sweep_leaves_follow_ups_to_the_caller(tmp_path):
    res = run_claims([toy()], "quick", tmp_path, jobs=1, then=_follow)
    assert res.followed == {} and "toy.claim/rate" in res.records


def test_records_keep_the_order_of_the_claims_whatever_order_they_finish_in(tmp_path):
    claims = [toy("slow/claim", delay=0.3), toy("fast/claim")]
    res = run_claims(claims, "quick", tmp_path, jobs=2, then=_follow)
    assert list(res.records) == ["slow/claim", "fast/claim"]
