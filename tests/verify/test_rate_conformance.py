"""Rate-conformance tests of Bao et al. written with the fedrates pytest plugin (fedrates.verify.conformance), as users
write their own: run a claim's sweep, then assert the rate and the explicit bound on its records."""

import pandas as pd
import pytest

from fedrates.verify.conformance import RateAssertionError, assert_bound, assert_rate

#: one Theorem 2.1 sweep shared by the module (several seconds of CPU): the long step
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def rate_records():
    from fedrates.verify.claims.bao.theorems import CLAIMS
    from fedrates.verify.sweep import run_claims

    claim = next(c for c in CLAIMS if c.id == "bao.thm2.1/rate-T")
    return run_claims([claim], "quick", None).records[claim.id]


def test_fast_fedda_gap_decays_as_one_over_T(rate_records):
    result = assert_rate(rate_records, "iterations", -1.0, metric="objective_gap")
    assert result.fit["lo"] <= -1.0 + 0.25 and result.fit["hi"] >= -1.0 - 0.25


def test_a_wrong_rate_is_rejected_with_measured_and_predicted(rate_records):
    with pytest.raises(RateAssertionError) as info:
        assert_rate(rate_records, "iterations", -2.0, metric="objective_gap")
    text = str(info.value)
    assert "measured slope" in text and "predicted slope -2" in text


def test_explicit_bound_of_theorem_2_1_holds(rate_records):
    # the explicit version of Theorem 2.1 evaluated per point from the theorem itself (no bound column)
    from fedrates.verify.claims.bao.theorems import CLAIMS

    claim = next(c for c in CLAIMS if c.id == "bao.thm2.1/rate-T")
    values = claim._values_at("quick", 1.0)
    records = rate_records.drop(columns=["bound"])
    result = assert_bound(records, "bao.thm2.1.explicit", values=values, var="iterations",
                          metric="objective_gap", symbol_for={"iterations": "T"})
    assert result.verdict == "pass"


def test_assert_bound_fails_when_the_bound_is_violated():
    seeds = [s for s in range(6) for _ in (10, 20)]
    records = pd.DataFrame({"seed": seeds, "iterations": [10, 20] * 6, "metric": "gap",
                            "value": [5.0 + 0.01 * s for s in seeds], "bound": 1.0})
    with pytest.raises(RateAssertionError, match="lower confidence bound"):
        assert_bound(records, "bao.thm2.1.explicit", var="iterations")


def test_order_theorems_are_refused_by_assert_bound():
    records = pd.DataFrame({"seed": [0], "iterations": [10], "metric": "gap", "value": [1.0], "bound": [2.0]})
    with pytest.raises(RateAssertionError, match="hides constants"):
        assert_bound(records, "bao.thm2.1", var="iterations")
