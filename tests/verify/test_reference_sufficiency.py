"""A verdict is never pass or fail on a reference whose certified gap is not far below what the claim measures."""

from __future__ import annotations

import pytest

from fedrates.verify import tolerances as tol
from fedrates.verify.checks import CheckResult
from fedrates.verify.claims.base import Claim, reference_check


def _claim() -> Claim:
    return Claim(id="t/x", theorem="t", title="t", algorithm="fedavg", problem="quadratic", regime="r", why="w",
                 metric="objective_gap", x="iterations")


@pytest.mark.parametrize("verdict", ["pass", "fail"])
def test_insufficient_reference_makes_the_verdict_inconclusive(verdict: str) -> None:
    result = CheckResult(verdict, "1e-9", "≤ 1", "—", "measured")
    out = _claim().verdict(result, conditions=[], seeds=[0], constants={}, reference_gap=1e-10,
                           smallest_measured=1e-9)
    assert out["verdict"] == "inconclusive"
    assert out["reference"]["sufficient"] is False
    assert "1e-09" in out["message"] and "1e-10" in out["message"]


def test_sufficient_reference_keeps_the_verdict() -> None:
    result = CheckResult("pass", "1e-6", "≤ 1", "—", "measured")
    gap = 1e-9
    out = _claim().verdict(result, conditions=[], seeds=[0], constants={}, reference_gap=gap,
                           smallest_measured=tol.REFERENCE_MARGIN * gap)
    assert out["verdict"] == "pass" and out["reference"]["sufficient"] is True


def test_boundary_and_missing_values() -> None:
    assert reference_check(1.0, 99.999)["sufficient"] is False
    assert reference_check(1.0, 100.0)["sufficient"] is True
    assert reference_check(0.0, 0.0)["sufficient"] is True  # closed-form optimum, exact zero measured
    assert reference_check(float("nan"), 1.0)["sufficient"] is False
    assert reference_check(None, 1.0)["sufficient"] is None


def test_loose_bound_is_flagged() -> None:
    result = CheckResult("pass", "1e-6", "≤ 1", "—", "measured")
    out = _claim().verdict(result, conditions=[], seeds=[0], constants={}, bound_ratio=0.5 / tol.LOOSE_RATIO)
    assert out["loose"] is True and out["bound_ratio"] == pytest.approx(0.5e-3)
    assert _claim().verdict(result, conditions=[], seeds=[0], constants={}, bound_ratio=0.5)["loose"] is False


def test_reference_free_claim_says_why_it_has_no_check() -> None:
    import dataclasses

    result = CheckResult("pass", "0", "0", "—", "identity")
    claim = dataclasses.replace(_claim(), reference_free="an algebraic identity")
    out = claim.verdict(result, conditions=[], seeds=[0], constants={})
    assert out["verdict"] == "pass" and out["reference"]["message"] == "not applicable: an algebraic identity"
    assert _claim().verdict(result, conditions=[], seeds=[0], constants={})["reference"]["message"] == (
        "reference sufficiency not checked")


def test_every_catalogued_claim_checks_its_reference_or_says_why_not() -> None:
    """Static part of the guarantee: a claim without reference_free must pass reference_gap to Claim.verdict."""
    import inspect

    from fedrates.verify import claims

    missing = []
    for claim in claims.all_claims():
        if claim.reference_free:
            continue
        # the module of the claim's class or of a class it inherits its judge from passes the certified gap
        sources = [inspect.getsource(inspect.getmodule(k)) for k in type(claim).__mro__
                   if k.__module__.startswith("fedrates.verify.claims.") and not k.__module__.endswith(".base")]
        if not any("reference_gap" in source for source in sources):
            missing.append(claim.id)
    assert not missing, missing
