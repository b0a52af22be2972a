"""The Claim contract as a user's claim meets it: a judge that does not return ``self.verdict(...)`` ends that claim
as ``error`` with one line, and records built without the claim's id (``records.to_long``, wide ``run_batch``
records) still belong to the claim in the report."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from fedrates.solvers import problems
from fedrates.solvers.algorithms import run_batch
from fedrates.verify import checks
from fedrates.verify import records as rec
from fedrates.verify.claims.base import Claim, matrix
from fedrates.verify.pipeline import judge_all, verify_claims
from fedrates.verify.sweep import run_claims


@dataclass(frozen=True)
class External(Claim):
    """A claim written as a user would: FedAvg on a tiny quadratic, its records from ``records.to_long``."""

    judge_returns: str = "verdict"
    records_as: str = "to_long"

    def points(self, profile):
        return [{"rounds": 12}]

    def simulate(self, point, seeds):
        problem = problems.make("quadratic", clients=2, dim=3, sigma=0.5)
        trace = run_batch("fedavg", problem, point["rounds"], seeds=seeds, step=0.1)
        if self.records_as == "wide":
            return trace.records
        if self.records_as == "list":
            return [1, 2]
        return rec.to_long(trace.records, trace.params, problem)

    def judge(self, records, profile):
        x, y = matrix(records, self.metric, self.x)
        result = checks.CheckResult("pass" if y[:, -1].mean() < y[:, 0].mean() else "fail", "m", "p", "t", "ok")
        verdict = self.verdict(result, conditions=[], seeds=sorted(records["seed"].unique()), constants={})
        if self.judge_returns == "dict":
            return {"verdict": "pass", "message": "mine"}
        if self.judge_returns == "result":
            return result
        if self.judge_returns == "other-claim":
            return {**verdict, "claim": "mine.other"}
        return verdict


def external(**kw):
    return External(id="mine.c1", theorem="mine.thm1", title="t", algorithm="fedavg", problem="quadratic",
                    regime="r", why="w", metric="objective_gap", x="round", n_seeds={"quick": 2}, **kw)


@pytest.mark.parametrize(("returns", "what"), [("dict", "a plain dict (message, verdict)"), ("result", "a CheckResult"),
                                               ("other-claim", "a dict for claim 'mine.other'")])
def test_a_judge_not_returning_self_verdict_is_one_error_line(returns, what):
    claim = external(judge_returns=returns)
    sweep = run_claims([claim], "quick", None)
    (verdict,) = judge_all([claim], sweep.records, sweep.errors, "quick")
    assert verdict["verdict"] == "error" and verdict["claim"] == "mine.c1"
    assert verdict["message"] == f"judge of mine.c1 returned {what}, expected self.verdict(...)"
    assert "\n" not in verdict["message"]


def test_a_simulate_not_returning_a_dataframe_is_an_error_of_that_claim_only():
    bad, good = external(records_as="list"), external()
    good = type(good)(**{**good.__dict__, "id": "mine.c2"})
    sweep = run_claims([bad, good], "quick", None)
    assert "returned a list, expected a DataFrame" in sweep.errors["mine.c1"]
    assert "mine.c2" in sweep.records


@pytest.mark.parametrize("records_as", ["to_long", "wide"])
def test_records_without_the_claim_id_are_shown_in_the_report(tmp_path: Path, records_as):
    claim = external(records_as=records_as)
    result = verify_claims([claim], profile="quick", out=tmp_path, progress=False, write_pdf=False)
    (verdict,) = result["verdicts"]
    assert verdict["verdict"] == "pass", verdict["message"]
    stored = rec.read_records(tmp_path / "records.parquet")[0]
    assert len(stored) and set(stored["claim"]) == {"mine.c1"}
    assert set(stored["algorithm"]) == {"fedavg"} and set(stored["theorem"]) == {"mine.thm1"}
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "No records were stored for this claim" not in html
    assert verdict["plot"] is not None


def test_selfcheck_reports_a_judge_not_returning_self_verdict_as_error():
    from fedrates.verify.commands.selfcheck import _judge

    out = _judge(external(judge_returns="dict"), "quick", 0)
    assert out["verdict"] == "error"
    assert out["message"] == "judge of mine.c1 returned a plain dict (message, verdict), expected self.verdict(...)"


def _own_values(inst, point):
    return {}


def test_the_cache_key_covers_the_modules_of_a_claim_s_functions():
    import dataclasses

    from fedrates.verify import builders, records
    from fedrates.verify.sweep import code_version

    claim = builders.LimitClaim(id="mine.limit", theorem="mine.thm1", title="t", algorithm="fedavg",
                                problem="quadratic", regime="r", rounds=5, values=_own_values)
    other = dataclasses.replace(claim, values=records.empty_records)  # same claim, function of another module
    assert code_version(claim) != code_version(other)
    assert code_version(claim) == code_version(dataclasses.replace(claim, rounds=6))
