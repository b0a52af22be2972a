"""Claims that check different statements on the same runs (``Claim.shared_runs``) are computed once per run and
hand their records to each other relabelled; every such group of the catalogue really writes the same records."""

from __future__ import annotations

import collections
import json
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest

from fedrates.verify.claims.base import Claim
from fedrates.verify.sweep import _stable, relabelled, run_claims

CALLS: collections.Counter = collections.Counter()


@dataclass(frozen=True)
class Sharing(Claim):
    """value = seed-noise / (1 + t); ``key`` None: runs of its own."""

    key: str | None = "toy-runs"

    def points(self, profile):
        return [{"iterations": t} for t in (10, 20)]

    def shared_runs(self):
        return self.key

    def simulate(self, point, seeds):
        CALLS[self.id] += 1
        return pd.DataFrame([{"claim": self.id, "theorem": self.theorem, "point": point["iterations"] // 10,
                              "seed": s, "round": 1, "iterations": point["iterations"], "metric": "gap",
                              "value": float(np.random.default_rng(s).random()) / (1 + point["iterations"])}
                             for s in seeds])

    def judge(self, records, profile):
        return {"claim": self.id, "verdict": "pass"}


def _claim(cid: str, theorem: str = "toy.thm", **kw) -> Sharing:
    return Sharing(id=cid, theorem=theorem, title=cid, algorithm="none", problem="none", regime="r", why="w",
                   metric="gap", x="iterations", n_seeds={"quick": 3, "standard": 3, "full": 3}, **kw)


@pytest.mark.parametrize("jobs", [1, 2])
def test_claims_sharing_runs_are_computed_once_and_get_the_same_records(tmp_path, jobs: int) -> None:
    CALLS.clear()
    claims = [_claim("toy.a/x"), _claim("toy.b/y", theorem="toy.other"), _claim("toy.c/z", key=None)]
    judged = {}

    def then(claim, records, error):
        return (len, ([] if records is None else [1] * len(records),))

    result = run_claims(claims, "quick", tmp_path / "cache", jobs=jobs, then=then if jobs > 1 else None)
    if jobs > 1:
        judged = result.followed
    # one run per point (in the workers with two jobs: counted by the sweep); toy.b/y took toy.a/x's runs
    assert result.computed == 4 and (jobs > 1 or CALLS == {"toy.a/x": 2, "toy.c/z": 2})
    a, b = result.records["toy.a/x"], result.records["toy.b/y"]
    assert set(b["claim"]) == {"toy.b/y"} and set(b["theorem"]) == {"toy.other"}
    pd.testing.assert_frame_equal(b.drop(columns=["claim", "theorem"]), a.drop(columns=["claim", "theorem"]))
    assert list(result.records) == ["toy.a/x", "toy.b/y", "toy.c/z"]
    if jobs > 1:  # the sharing claim is followed up (judged) like the others
        assert set(judged) == {"toy.a/x", "toy.b/y", "toy.c/z"} and judged["toy.b/y"] == len(b)
    # a resume finds the computing claim's runs cached and still hands them over
    again = run_claims(claims, "quick", tmp_path / "cache", jobs=jobs)
    assert again.computed == 0 and again.cached == 4
    pd.testing.assert_frame_equal(again.records["toy.b/y"], b)


def test_a_claim_whose_runs_are_shared_alone_computes_them_itself(tmp_path) -> None:
    CALLS.clear()
    result = run_claims([_claim("toy.b/y")], "quick", None)
    assert CALLS == {"toy.b/y": 2} and len(result.records["toy.b/y"]) == 6


@pytest.mark.slow  # one Theorem 1 run of Dinh et al. (seconds): the long step
def test_every_group_of_the_catalogue_sharing_runs_writes_the_same_records() -> None:
    """Each claim of a group simulates its first quick point for one seed: the records are the first claim's,
    relabelled — what the sweep hands it instead of running it."""
    from fedrates.verify.claims import all_claims

    groups: dict[str, list[Claim]] = collections.defaultdict(list)
    for claim in all_claims():
        key = claim.shared_runs()
        if key is not None:
            groups[json.dumps([key, _stable(claim.points("quick")), claim.seeds("quick")], default=str)].append(claim)
    shared = [g for g in groups.values() if len(g) > 1]
    assert shared, "no claims of the catalogue share runs any more: this test checks nothing"
    for group in shared:
        first = group[0]
        point, seed = first.points("quick")[0], first.seeds("quick")[:1]
        expected = first.simulate(point, seed)
        for other in group[1:]:
            got = other.simulate(point, seed)
            pd.testing.assert_frame_equal(got, relabelled(expected, other))


def _touch(path: str) -> None:
    from pathlib import Path

    Path(path).write_text("drawn")


def _fail() -> None:
    raise RuntimeError("a task queued beside the points fails")


def test_tasks_queued_beside_the_points_run_in_the_pool_and_never_stop_the_sweep(tmp_path) -> None:
    claims = [_claim("toy.a/x", key=None), _claim("toy.b/y", key=None)]
    marker = tmp_path / "drawn"
    result = run_claims(claims, "quick", None, jobs=2, then=lambda c, r, e: (len, ([],)),
                        also=[(_touch, (str(marker),)), (_fail, ())])
    assert marker.read_text() == "drawn"
    assert not result.errors and set(result.records) == {"toy.a/x", "toy.b/y"}
    assert set(result.followed) == {"toy.a/x", "toy.b/y"}  # only the claims' follow-ups are kept
