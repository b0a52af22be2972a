"""The verdict model: erratum kinds, errata that must reproduce, margins, informational claims, time budgets."""

import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest

from fedrates.bounds import catalog
from fedrates.bounds.theorem import Note
from fedrates.reports.terminal import summary_line
from fedrates.verify import claims as registry
from fedrates.verify import margins
from fedrates.verify.checks import CheckResult
from fedrates.verify.claims.base import OK_VERDICTS, Claim
from fedrates.verify.errata import ERRATUM_KINDS, HEADLINE_KINDS, Erratum, kind_summary
from fedrates.verify.pipeline import annotate, collect_errata
from fedrates.verify.sweep import run_claims

ERR = Erratum(kind="statement-false", where="Lemma 9", quote="x <= 1", true_statement="x <= 2",
              evidence="a counterexample", prediction="x exceeds 1")


@dataclass(frozen=True)
class Fixed(Claim):
    """Returns a fixed check result; ``spin`` burns CPU seconds per simulated batch."""

    outcome: str = "pass"
    spin: float = 0.0

    def points(self, profile):
        return [{"p": i} for i in range(4)]

    def simulate(self, point, seeds):
        end = time.process_time() + self.spin
        while time.process_time() < end:
            pass
        return pd.DataFrame({"claim": self.id, "seed": list(seeds), "point": point["p"], "metric": "m",
                             "value": 1.0})

    def judge(self, records, profile):
        return self.verdict(CheckResult(self.outcome, "m", "p", "t", "msg"), conditions=[], seeds=[0],
                            constants={})


def fixed(**kw):
    base = dict(id="toy.model/x", theorem="toy", title="t", algorithm="none", problem="none", regime="r", why="w",
                metric="m", x="point", n_seeds={"quick": 2, "standard": 2, "full": 2})
    base.update(kw)
    return Fixed(**base)


def judge(claim, result):
    return claim.verdict(result, conditions=[], seeds=[0], constants={})


@pytest.mark.parametrize("field", ["where", "quote", "true_statement", "evidence"])
def test_erratum_needs_every_descriptive_field(field):
    kwargs = dict(kind="typo", where="w", quote="q", true_statement="t", evidence="e")
    kwargs[field] = " "
    with pytest.raises(ValueError, match=field):
        Erratum(**kwargs)


def test_erratum_kind_must_be_one_of_the_six():
    with pytest.raises(ValueError, match="not one of"):
        Erratum(kind="error", where="w", quote="q", true_statement="t", evidence="e")
    assert len(ERRATUM_KINDS) == 6 and set(HEADLINE_KINDS) == {"statement-false", "constant"}


def test_a_claim_refuses_an_erratum_without_kind():
    with pytest.raises(TypeError, match="Erratum"):
        fixed(erratum="the paper is wrong")


def test_an_erratum_note_needs_its_kind():
    with pytest.raises(ValueError, match="kind"):
        Note("wrong", "fix", "erratum")
    with pytest.raises(ValueError):
        Note("fine", "", "clarification", erratum=ERR)


def test_an_erratum_that_reproduces_is_reported_with_its_kind():
    v = judge(fixed(erratum=ERR), CheckResult("fail", "m", "p", "t", "failed as predicted"))
    assert v["verdict"] == "erratum" and v["erratum_kind"] == "statement-false"
    assert v["erratum"]["where"] == "Lemma 9"


def test_an_erratum_that_does_not_reproduce_is_a_failure():
    v = judge(fixed(erratum=ERR), CheckResult("pass", "m", "p", "t", "held"))
    assert v["verdict"] == "fail" and "did not reproduce" in v["message"] and "x exceeds 1" in v["message"]
    assert v["verdict"] not in OK_VERDICTS


def test_declared_informational_claims_never_count_as_pass_and_still_fail():
    claim = fixed(informational="the bound holds for any algorithm")
    assert judge(claim, CheckResult("pass", "m", "p", "t", "ok"))["verdict"] == "informational"
    assert judge(claim, CheckResult("fail", "m", "p", "t", "no"))["verdict"] == "fail"


@pytest.mark.parametrize(("ratio", "expected"), [(0.5, "pass"), (1 / 9.9, "pass"), (1 / 10.5, "informational"),
                                                 (1e-5, "informational")])
def test_a_bound_more_than_ten_times_above_the_data_is_informational(ratio, expected):
    v = fixed().verdict(CheckResult("pass", "m", "p", "t", "ok"), conditions=[], seeds=[0], constants={},
                        bound_ratio=ratio)
    assert v["verdict"] == expected
    assert v["margin"]["kind"] == "slack" and v["margin"]["value"] == pytest.approx(1 / ratio)


def test_margin_helpers():
    s = margins.slack(np.array([2.0, 30.0, 5.0]), np.array([1.0, 1.0, 0.0]))
    assert s["value"] == pytest.approx(2.0)  # worst point; the zero measurement is ignored
    assert margins.ci(0.1, 0.2)["value"] == pytest.approx(0.5)
    assert margins.resolution(1e-3)["kind"] == "resolution"
    assert margins.cannot_fail({"kind": "slack", "value": 11.0})
    assert not margins.cannot_fail({"kind": "ci", "value": 11.0})


def test_a_pass_whose_figure_shows_a_loose_bound_becomes_informational():
    verdict = {"claim": "toy.model/x", "verdict": "pass", "message": "ok", "x": "point", "bound_ratio": None}
    rows = pd.DataFrame({"claim": "toy.model/x", "seed": [0, 1], "point": [0, 0], "round": [0, 0],
                         "metric": "gap", "value": [1e-3, 1e-3], "bound": [1.0, 1.0], "params": "{}"})
    verdict["metric"] = "gap"
    annotate([verdict], {"toy.model/x": rows}, profile="quick", base_seed=0, timestamp="t")
    if verdict.get("bound_ratio") is None:
        pytest.skip("the figure of this toy record set reports no bound ratio")
    assert verdict["verdict"] == "informational" and verdict["margin"]["value"] > margins.SHARP_SLACK


def test_a_claim_over_its_time_budget_ends_in_error_and_skips_its_remaining_points(tmp_path):
    slow = fixed(id="toy.model/slow", spin=0.05, budget={"quick": 0.01, "standard": 10, "full": 10})
    other = fixed(id="toy.model/fast")
    result = run_claims([slow, other], "quick", None)
    assert "time budget exceeded" in result.errors["toy.model/slow"]
    assert "toy.model/slow" not in result.records  # nothing judged from a partial sweep
    assert "toy.model/fast" in result.records and "toy.model/fast" not in result.errors


def test_every_catalogued_and_claimed_erratum_has_a_kind_and_a_location():
    for tid in catalog.ids():
        for note in catalog.get(tid).errata:
            assert note.erratum.kind in ERRATUM_KINDS and note.erratum.where.strip(), tid
    entries = collect_errata(registry.all_claims())
    assert entries
    for e in entries:
        assert e["kind"] in ERRATUM_KINDS and e["where"] and e["quote"] and e["true_statement"] and e["evidence"]
    keys = [(e["theorem"].split(".")[0], e["where"].lower()) for e in entries]
    assert len(keys) == len(set(keys)), "one entry per erratum"


def test_terminal_summary_counts_erratum_kinds_and_headline_errors():
    verdicts = [{"verdict": "pass"}, {"verdict": "erratum", "erratum_kind": "proof-gap"},
                {"verdict": "erratum", "erratum_kind": "statement-false"},
                {"verdict": "erratum", "erratum_kind": "typo"}, {"verdict": "informational"}]
    line = summary_line(verdicts)
    assert "1 pass" in line and "1 informational" in line
    assert "3 erratum (1 paper error (statement-false 1); also proof-gap 1, typo 1)" in line
    assert kind_summary([]) == ""


def test_a_rate_claim_gets_a_ci_margin_and_is_not_demoted_by_its_bound_ratio():
    result = CheckResult("pass", "slope 1.04 [1.00, 1.09]", "slope 1", "± 0.15", "ok",
                         fit={"slope": 1.04, "lo": 1.0, "hi": 1.09})
    v = fixed().verdict(result, conditions=[], seeds=[0], constants={}, bound_ratio=1 / 29.4)
    assert v["verdict"] == "pass"
    assert v["margin"]["kind"] == "ci" and v["margin"]["value"] == pytest.approx(0.09 / 0.3)


def _certificate(value, witness_value, upper):
    from fedrates.solvers.certify import CertifiedConstant

    return CertifiedConstant(name="L", value=value, witness_value=witness_value, upper=upper, witness={"client": 0},
                             lower_method="Rayleigh quotient", upper_method="Cholesky test", definition="max_k L_k",
                             assumption="smoothness")


@pytest.mark.parametrize("verdict", ["pass", "fail", "informational"])
def test_constants_whose_two_routes_disagree_make_the_verdict_inconclusive(verdict):
    from fedrates.verify.pipeline import certify_constants

    class Source:
        certificates = {"L": _certificate(2.0, 1.0, 1.0)}  # the value read is twice what the definition gives

    v = {"verdict": verdict, "message": "m"}
    certify_constants(v, [Source()])
    assert v["verdict"] == "inconclusive" and "disagree" in v["message"]
    assert v["certified"]["disagreements"] and v["certified"]["checked"] == 1


def test_certified_constants_leave_the_verdict_alone():
    from fedrates.verify.pipeline import certify_constants

    class Source:
        certificates = {"L": _certificate(1.0, 1.0, 1.0)}

    v = {"verdict": "pass", "message": "m"}
    certify_constants(v, [Source()])
    assert v["verdict"] == "pass" and v["certified"] == {"sources": 1, "checked": 1, "disagreements": []}


def test_constants_computed_while_judging_are_observed():
    from fedrates.solvers import certify, problems
    from fedrates.solvers import constants as C

    problem = problems.make("quadratic", clients=3, dim=4, seed=0)
    with certify.observing() as seen:
        const = C.compute(problem, cache=False)
    assert any(s is const for s in seen)
    assert certify.check_certified(*seen) == []


@dataclass(frozen=True)
class NoRecords(Fixed):
    """A claim whose run produces no records; its check would fail (as an erratum claim's reproduced failure)."""

    def simulate(self, point, seeds):
        return pd.DataFrame({"claim": [], "seed": [], "point": [], "metric": [], "value": []})


@pytest.mark.parametrize("erratum", [None, ERR])
def test_a_claim_without_records_is_an_error_never_a_reproduced_erratum(erratum):
    import dataclasses

    from fedrates.verify.commands.selfcheck import _judge as selfcheck_judge
    from fedrates.verify.pipeline import judge_all

    base = fixed(outcome="fail", erratum=erratum)
    claim = NoRecords(**{f.name: getattr(base, f.name) for f in dataclasses.fields(base)})
    sweep = run_claims([claim], "quick", None)
    (v,) = judge_all([claim], sweep.records, sweep.errors, "quick")
    assert v["verdict"] == "error" and "no records" in v["message"], v
    # selfcheck judges the same way: a variant whose run produces nothing is caught as an error, not an erratum
    assert selfcheck_judge(claim, "quick", 0)["verdict"] == "error"
