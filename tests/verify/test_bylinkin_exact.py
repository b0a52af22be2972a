"""The deterministic Bylinkin et al. claims (:mod:`fedrates.verify.claims.bylinkin.exact.maps`): correct code passes (or
gives the documented erratum) at every base seed, the erratum claims fail the way they predict, the predictions
agree with independent scalar re-derivations, and the broken variants aimed at them fail.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np
import pandas as pd
import pytest

from fedrates.verify import records as rec
from fedrates.verify.claims import get as get_claim
from fedrates.verify.claims.bylinkin import errata, instances, variants
from fedrates.verify.claims.bylinkin.exact import maps as exact_maps

#: the claims built on the deterministic maps of exact/maps.py (its two erratum claims are listed in errata.py)
EXACT_CLAIMS = exact_maps.CLAIMS + tuple(c for c in errata.CLAIMS if type(c).__module__ == exact_maps.__name__)

PROFILE = "quick"
ERRATA = {"bylinkin.thm5/counterexample", "bylinkin.thm7/printed-line7"}


def _run(claim, base_seed: int = 0) -> tuple[dict, pd.DataFrame]:
    seeds = claim.seeds(PROFILE, base_seed)
    records = pd.concat([claim.simulate(pt, seeds) for pt in claim.points(PROFILE)], ignore_index=True)
    return claim.judge(records, PROFILE), records


@cache
def _verdict(claim_id: str, base_seed: int = 0) -> tuple[dict, pd.DataFrame]:
    return _run(get_claim(claim_id), base_seed)


def _metric(records: pd.DataFrame, name: str) -> float:
    return float(records.loc[records["metric"] == name, "value"].iloc[0])


@pytest.mark.parametrize("claim_id", [c.id for c in EXACT_CLAIMS])
def test_correct_algorithms_pass(claim_id):
    verdict, records = _verdict(claim_id)
    rec.validate(records)
    assert verdict["verdict"] == ("erratum" if claim_id in ERRATA else "pass"), verdict["message"]


@pytest.mark.parametrize("claim_id", ["bylinkin.thm7/printed-line7", "bylinkin.thm7/branch-map",
                                      "bylinkin.thm1/exact-iterates"])
def test_deterministic_claims_do_not_depend_on_the_base_seed(claim_id):
    a, b = _verdict(claim_id, 0)[0], _verdict(claim_id, 7)[0]
    assert a["verdict"] == b["verdict"]
    assert a["measured"] == b["measured"]


def _scalar_counterexample(weight_of_mu: float) -> list[float]:
    """Φ_{k+1}/(ρΦ_k) of the 1-d iteration h = 0.3375x²/2, h_1 = 1.3375x²/2 (μ = 0.01, θ = 1/3, exact subproblem),
    written out by hand: x̲ = τx + (1 − τ)x̄, x̄' = (x̲/θ + x̲)/(1/θ + 1.3375), x' = x + ημ(x̄' − x) − η·0.3375x̄'."""
    mu, theta, a, a1 = 0.01, 1 / 3, 0.3375, 1.3375
    tau, eta = math.sqrt(mu * theta), 0.5 * math.sqrt(theta / mu)
    rho = 1 - 0.5 * math.sqrt(mu * theta)
    x = xb = 1.0
    out = []
    for _ in range(12):
        xl = tau * x + (1 - tau) * xb
        xb_new = (xl / theta - (a - a1) * xl) / (1 / theta + a1)
        x_new = x + eta * mu * (xb_new - x) - eta * a * xb_new
        phi0 = weight_of_mu * mu * x * x + a * xb * xb / 2
        phi1 = weight_of_mu * mu * x_new * x_new + a * xb_new * xb_new / 2
        out.append(phi1 / (rho * phi0))
        x, xb = x_new, xb_new
    return out


def test_counterexample_matches_the_scalar_recursion_and_fails_at_step_5():
    printed = _scalar_counterexample(2.0)  # tau/eta = 2 mu under (9)
    corrected = _scalar_counterexample(1.0)
    assert printed[4] > 1 and max(printed[:4]) < 1  # the printed recursion fails first at Φ_5/Φ_4
    assert max(corrected) < 1
    verdict, records = _verdict("bylinkin.thm5/counterexample")
    assert verdict["verdict"] == "erratum"
    assert abs(_metric(records, "ratio_step5") - printed[4]) <= 1e-9
    assert abs(_metric(records, "ratio_max") - max(printed)) <= 1e-9
    assert _metric(records, "recursion_deviation") <= 1e-12
    _, rc = _verdict("bylinkin.thm5.corrected/counterexample")
    assert abs(_metric(rc, "ratio_max") - max(corrected)) <= 1e-9


def test_counterexample_instance_satisfies_every_assumption():
    sp = instances._counterexample_split()
    assert sp.mu == pytest.approx(0.01, rel=1e-12)
    assert sp.delta_f == pytest.approx(0.4, rel=1e-12) and sp.delta_g == pytest.approx(0.6, rel=1e-12)
    assert sp.mu < sp.delta_f < sp.delta_g and sp.lambda_min_h1 > 0
    # both coin branches give the same oracles: sigma = 0
    X = np.array([[0.7, -1.3]])
    p = sp.delta_f / (sp.delta_f + sp.delta_g)
    np.testing.assert_allclose((sp.grad_f(X) - sp.grad_f1(X)) / p, (sp.grad_g(X) - sp.grad_g1(X)) / (1 - p),
                               rtol=1e-14)
    np.testing.assert_allclose(sp.grad_f(X) / p, sp.grad_g(X) / (1 - p), rtol=1e-14)


def test_printed_line7_follows_the_printed_recursion():
    # the erratum predicts that the printed method is the +t_k recursion, not the proof's: measured both ways
    verdict, records = _verdict("bylinkin.thm7/printed-line7")
    assert verdict["verdict"] == "erratum"
    assert _metric(records, "deviation_printed") <= 1e-9
    assert _metric(records, "deviation") >= 1e-4


@pytest.mark.parametrize("variant_id", ["c_acc_extragradient/tau-f-double", "acc_vrcs/alpha-sqrt3",
                                        "acc_vrcs/tau-double", "sc_acc_extragradient/returns-xbar",
                                        "aeg/returns-xbar", "c_acc_extragradient/returns-xbar", "acc_vrcs/returns-z",
                                        "acc_vrcs/printed-sign", "sc_acc_extragradient/eta-double",
                                        "sc_acc_extragradient/no-interpolation",
                                        "c_acc_extragradient/inner-returns-x"])
def test_new_variants_fail_their_first_claim(variant_id):
    variant = next(v for v in variants.VARIANTS if v.id == variant_id)
    claim = variant.apply(get_claim(variant.claims[0]))
    assert _run(claim)[0]["verdict"] == "fail"


def test_inner_returned_point_is_pinned_with_a_wide_margin():
    # the recursion whose inner phase returns x_T instead of xbar_T is far from the correct one (relative to the
    # claim's 1e-9 resolution), and the variant returning x_T follows exactly that recursion
    verdict, records = _verdict("bylinkin.thm8/exact-iterates")
    assert verdict["verdict"] == "pass"
    assert _metric(records, "wrong_variable_distance") >= 1e-2
    assert _metric(records, "stopping_tie") >= 1e-3  # no stopping test is near a tie
    variant = next(v for v in variants.VARIANTS if v.id == "c_acc_extragradient/inner-returns-x")
    broken, broken_records = _run(variant.apply(get_claim("bylinkin.thm8/exact-iterates")))
    assert broken["verdict"] == "fail"
    assert _metric(broken_records, "distance_to_wrong") <= 1e-9
    assert _metric(broken_records, "deviation") >= 1e-2


def test_inner_recursion_one_outer_step_by_hand():
    # one outer step of a4_a5_recursion on a 1-d split, against the scalar iteration written out by hand
    from fedrates.solvers.problems.separation import Split

    af, ag, af1, ag1, bf, bg, bf1, bg1 = 0.3, 0.7, 0.35, 1.2, 0.1, -0.2, 0.05, 0.3
    sp = Split(A_f=np.array([[af]]), b_f=np.array([bf]), A_g=np.array([[ag]]), b_g=np.array([bg]),
               A_f1=np.array([[af1]]), b_f1=np.array([bf1]), A_g1=np.array([[ag1]]), b_g1=np.array([bg1]))
    t = instances._a4_tuning(sp)
    x0 = 2.0
    xl = x0  # x = xbar at the start
    c = (af - af1) * xl - (bf - bf1)
    ma, ra = 1 / t["theta_f"] + af1 + ag, xl / t["theta_f"] - c + bf1 + bg
    target = sp.delta_f**2 / 3 * (xl - ra / ma) ** 2
    u = ub = xl
    steps = 0
    while True:
        steps += 1
        ul = t["tau_g"] * u + (1 - t["tau_g"]) * ub
        d = (ag - ag1) * ul - (bg - bg1)
        ub_new = (ul / t["theta_g"] - d + xl / t["theta_f"] - c + bf1 + bg1) / (
            1 / t["theta_g"] + 1 / t["theta_f"] + af1 + ag1)
        ga = ma * ub_new - ra
        u, ub = u + t["eta_g"] * (ub_new - u) / t["theta_f"] - t["eta_g"] * ga, ub_new
        if ga * ga <= target:
            break
    x1 = x0 + t["eta_f"] * sp.mu * (ub - x0) - t["eta_f"] * ((af + ag) * ub - (bf + bg))
    out = exact_maps.a4_a5_recursion(sp, t, np.array([x0]), 1)
    assert out["inner_steps"] == [steps] and steps > 1
    np.testing.assert_allclose(out["xbar"], [ub], rtol=1e-13)
    np.testing.assert_allclose(out["x"], [x1], rtol=1e-13)
