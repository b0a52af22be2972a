"""A claim that writes records for only some seeds of its batch (one deterministic run, say) is found in the cache
on the next run: it is not recomputed at every resume, and its records are the same."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from fedrates.verify.claims.base import Claim
from fedrates.verify.sweep import run_claims

CALLS: list[tuple] = []


@dataclass(frozen=True)
class FirstSeedOnly(Claim):
    """A deterministic measurement recorded under the first seed of each batch only."""

    def points(self, profile):
        return [{"iterations": t} for t in (10, 20)]

    def simulate(self, point, seeds):
        CALLS.append((point["iterations"], tuple(seeds)))
        return pd.DataFrame([{"claim": self.id, "point": point["iterations"] // 10, "seed": int(seeds[0]),
                              "round": 0, "iterations": point["iterations"], "metric": "gap",
                              "value": 1.0 / point["iterations"]}])

    def judge(self, records, profile):
        return {"claim": self.id, "verdict": "pass"}


def test_batches_with_records_for_some_seeds_are_cached(tmp_path):
    claim = FirstSeedOnly(id="toy.partial/seeds", theorem="toy", title="toy", algorithm="none", problem="none",
                          regime="r", why="w", metric="gap", x="iterations",
                          n_seeds={"quick": 3, "standard": 3, "full": 3})
    CALLS.clear()
    first = run_claims([claim], "quick", tmp_path)
    assert first.computed == 2 and len(CALLS) == 2
    second = run_claims([claim], "quick", tmp_path)
    assert second.computed == 0 and second.cached == 2 and len(CALLS) == 2
    pd.testing.assert_frame_equal(first.records[claim.id], second.records[claim.id])
