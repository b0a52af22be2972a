"""Catalogue of Bylinkin et al.: values, conditions, exponents and proof implications.

Every expected value is recomputed here with plain floats from the paper's formulas (tunings (9), (23), (24),
(31)), independently of the catalogue's sympy expressions.
"""

from __future__ import annotations

import math

import pytest
import sympy as sp

from fedrates.bounds.catalog import all_theorems, get
from fedrates.bounds.symbols import sym

P = dict(delta_f=0.05, delta_g=0.5, mu=0.01, eps=1e-6, sigma=0.3, theta=0.2, theta_g=0.5, p=0.3, q=0.2,
         Phi_k=2.5, Phic_k=1.7, V_0=3.0, W_0=5.0, D_x_x0=1.1, D_x_xT=0.7, D_x0_xT=0.4)
df, dg, mu, eps, sg, th = P["delta_f"], P["delta_g"], P["mu"], P["eps"], P["sigma"], P["theta"]


def _vr_tuning() -> tuple[float, float, float]:
    """p = q and theta of (23)."""
    p = df**2 / (df**2 + dg**2)
    theta = 0.25 * math.sqrt(p * (1 - p) * p / (p * dg**2 + (1 - p) * df**2))
    return p, p, theta


def _acc_tau_alpha() -> tuple[float, float]:
    """tau and alpha of (24)."""
    _, q, theta = _vr_tuning()
    return math.sqrt(theta * mu / (3 * q)), math.sqrt(theta / (3 * mu * q))


def _thm6_epochs() -> float:
    p, q, theta = _vr_tuning()
    return 6 * q / (mu * theta) * math.log(P["V_0"] / eps)


def _thm7_iters() -> float:
    tau, _ = _acc_tau_alpha()
    return 4 / tau * math.log(P["W_0"] / eps)


_PQ = _vr_tuning()
EXPECTED = {
    "bylinkin.thm1": math.sqrt(df / mu) * math.log(1 / eps) + sg**2 / (mu * eps),
    "bylinkin.thm1.mg": math.sqrt(dg / mu) * math.log(1 / eps) + sg**2 / (mu * eps),
    "bylinkin.thm5": (1 - 0.5 * math.sqrt(mu * th)) * P["Phi_k"] + 4 * th * sg**2,
    "bylinkin.thm5.corrected": (1 - 0.5 * math.sqrt(mu * th)) * P["Phic_k"] + 2 * th * sg**2,
    "bylinkin.lem4": (P["q"] * P["D_x_x0"] - P["q"] * P["D_x_xT"]
                      + 8 * th**2 * (df**2 / P["p"] + dg**2 / (1 - P["p"])) * P["D_x0_xT"]
                      - mu * th / 3 * P["D_x_xT"]),
    "bylinkin.thm2": df / mu * math.log(1 / eps),
    "bylinkin.thm2.mg": (dg / df) * (dg / mu) * math.log(1 / eps),
    "bylinkin.thm6": 1 - mu * _PQ[2] / (6 * _PQ[1]),
    "bylinkin.thm6.mf": _thm6_epochs() * (1 + _PQ[0] / _PQ[1]),
    "bylinkin.thm6.mg": _thm6_epochs() * (1 + (1 - _PQ[0]) / _PQ[1]),
    "bylinkin.thm3": math.sqrt(df / mu) * math.log(1 / eps),
    "bylinkin.thm3.mg": (dg / df) ** 1.5 * math.sqrt(dg / mu) * math.log(1 / eps),
    "bylinkin.thm7": 1 - mu * _acc_tau_alpha()[1] / 4,
    "bylinkin.thm7.mf": _thm7_iters() * (1 + _PQ[0] / _PQ[1]),
    "bylinkin.thm7.mg": _thm7_iters() * (1 + (1 - _PQ[0]) / _PQ[1]),
    "bylinkin.thm7.mf.corrected": _thm7_iters() * (2 + _PQ[0] / _PQ[1]),
    "bylinkin.thm7.mg.corrected": _thm7_iters() * (2 + (1 - _PQ[0]) / _PQ[1]),
    "bylinkin.thm4": math.sqrt(df / mu) * math.log(1 / eps),
    "bylinkin.thm4.mg": math.sqrt(dg / mu) * math.log(1 / eps),
    "bylinkin.thm8": math.sqrt(th * dg) * math.log(1 / eps),
    "bylinkin.thm8.rate": 1 - 0.5 * math.sqrt(P["theta_g"] / th),
}


def _at(expr: sp.Basic, point: dict[str, float]) -> sp.Basic:
    return expr.subs({sym(k): v for k, v in point.items()})


def test_every_theorem_has_an_expected_value():
    assert sorted(t.id for t in all_theorems("bylinkin")) == sorted(EXPECTED)


@pytest.mark.parametrize("theorem_id", sorted(EXPECTED))
def test_rhs_value(theorem_id):
    theorem = get(theorem_id)
    assert float(_at(theorem.rhs, P)) == pytest.approx(EXPECTED[theorem_id], rel=1e-12)


# violating points: (changed parameters, the condition expected to fail)
_VIOLATE_MU = ({"mu": 0.1}, sp.Lt(sym("mu"), sym("delta_f")))
VIOLATIONS = {
    "bylinkin.thm5": ({"theta": 0.7}, sp.Le(sym("theta"), 1 / (3 * (sym("delta_f") + sym("delta_g"))))),
    "bylinkin.thm5.corrected": ({"theta": 0.7}, sp.Le(sym("theta"), 1 / (3 * (sym("delta_f") + sym("delta_g"))))),
    "bylinkin.lem4": ({"theta": 0.95}, sp.Le(sym("theta"), 1 / (2 * (sym("delta_f") + sym("delta_g"))))),
    "bylinkin.thm8": ({"theta_g": 1.2}, sp.Le(sym("theta_g"), 1 / (2 * sym("delta_g")))),
    "bylinkin.thm8.rate": ({"theta_g": 0.9}, sp.Lt(sym("theta_g"), 4 * sym("theta"))),
}


@pytest.mark.parametrize("theorem_id", sorted(EXPECTED))
def test_conditions_hold_at_admissible_point_and_fail_outside(theorem_id):
    theorem = get(theorem_id)
    assert theorem.conditions, "every theorem of this paper is proved under conditions"
    assert all(bool(_at(c, P)) for c in theorem.conditions)
    change, failing = VIOLATIONS.get(theorem_id, _VIOLATE_MU)
    assert failing in theorem.conditions
    bad = {**P, **change}
    assert not bool(_at(failing, bad))
    assert not all(bool(_at(c, bad)) for c in theorem.conditions)


def _exponent(expr: sp.Expr, var: str) -> sp.Expr:
    x = sym(var)
    others = {sym(k): v for k, v in P.items() if k != var}
    return sp.limit(sp.log(expr.subs(others)) / sp.log(x), x, sp.oo)


# (variable, exponent stated by the paper's O(.)): sqrt(delta/mu) -> 1/2, (delta_g/delta_f) delta_g/mu -> 2, ...
EXPONENTS = {
    "bylinkin.thm1": ("delta_f", sp.Rational(1, 2)),
    "bylinkin.thm1.mg": ("delta_g", sp.Rational(1, 2)),
    "bylinkin.thm2": ("delta_f", 1),
    "bylinkin.thm2.mg": ("delta_g", 2),
    "bylinkin.thm3": ("delta_f", sp.Rational(1, 2)),
    "bylinkin.thm3.mg": ("delta_g", 2),
    "bylinkin.thm4": ("delta_f", sp.Rational(1, 2)),
    "bylinkin.thm4.mg": ("delta_g", sp.Rational(1, 2)),
    "bylinkin.thm6.mf": ("delta_f", 1),
    "bylinkin.thm6.mg": ("delta_g", 2),
    "bylinkin.thm7.mf": ("delta_f", sp.Rational(1, 2)),
    "bylinkin.thm7.mg": ("delta_g", 2),
    "bylinkin.thm7.mf.corrected": ("delta_f", sp.Rational(1, 2)),
    "bylinkin.thm7.mg.corrected": ("delta_g", 2),
    "bylinkin.thm8": ("delta_g", sp.Rational(1, 2)),
    "bylinkin.lem4": ("D_x_x0", 1),
}


@pytest.mark.parametrize("theorem_id", sorted(EXPONENTS))
def test_exponent_in_sweep_variable(theorem_id):
    var, expected = EXPONENTS[theorem_id]
    assert sp.simplify(_exponent(get(theorem_id).rhs, var) - expected) == 0


def test_sublinear_term_of_theorem1_is_one_over_eps():
    x = sp.Symbol("x", positive=True)
    rhs = get("bylinkin.thm1").rhs.subs(sym("eps"), 1 / x)
    others = {sym(k): v for k, v in P.items() if k != "eps"}
    assert sp.limit(sp.log(rhs.subs(others)) / sp.log(x), x, sp.oo) == 1


@pytest.mark.parametrize("theorem_id", ["bylinkin.thm6", "bylinkin.thm7", "bylinkin.thm8.rate"])
def test_contraction_factor_in_unit_interval(theorem_id):
    rhs = get(theorem_id).rhs
    assert (rhs - 1).is_negative  # strictly below 1 for all positive parameters
    # at the admissible point and at the extreme mu -> delta_f (thm6/thm7) or theta_g -> 4 theta (thm8)
    assert 0 < float(_at(rhs, P)) < 1
    edge = {**P, "mu": P["delta_f"], "theta_g": 4 * P["theta"]}
    assert 0 <= float(_at(rhs, edge)) < 1


def test_theorem5_contraction_and_noise_floor():
    """Phi_{k+1} <= rho Phi_k + c: rho < 1 under (9) and the floor c/(1 - rho) = 8 sqrt(theta/mu) sigma^2."""
    for tid, floor_coeff in (("bylinkin.thm5", 8.0), ("bylinkin.thm5.corrected", 4.0)):
        theorem = get(tid)
        lyap = next(s for s in theorem.rhs.free_symbols if s.name.startswith("Phi"))
        rho = theorem.rhs.coeff(lyap)
        additive = theorem.rhs.subs(lyap, 0)
        # the largest admissible theta gives the smallest rho; mu < delta_f keeps mu theta < 1/3
        worst = {**P, "mu": P["delta_f"], "theta": 1 / (3 * (P["delta_f"] + P["delta_g"]))}
        assert 0 < float(_at(rho, worst)) < 1
        floor = float(_at(additive / (1 - rho), P))
        assert floor == pytest.approx(floor_coeff * math.sqrt(th / mu) * sg**2, rel=1e-12)
        x = sym("theta")
        limit = sp.limit(sp.log(_at(additive / (1 - rho), {k: v for k, v in P.items() if k != "theta"}))
                         / sp.log(x), x, sp.oo)
        assert limit == sp.Rational(1, 2)


def test_tuning9_gives_tau_over_eta_two_mu():
    """Phi_k of Theorem 5 is 2 mu||x - x*||^2 + gap: tau/eta = 2 mu when eta = sqrt(theta/mu)/2 < 1/(2 mu)."""
    m, t = sym("mu"), sym("theta")
    tau, eta = sp.sqrt(m * t), sp.sqrt(t / m) / 2
    assert sp.simplify(tau / eta - 2 * m) == 0
    # eta = sqrt(theta/mu)/2 is the minimum in (9) because mu theta < 1 under the conditions
    worst = {"mu": P["delta_f"], "theta": 1 / (3 * (P["delta_f"] + P["delta_g"]))}
    assert math.sqrt(worst["theta"] / worst["mu"]) / 2 < 1 / (2 * worst["mu"])


def test_lemma4_implies_theorem6_under_tuning23():
    """16 theta^2 (delta_f^2/p + delta_g^2/(1-p)) = q, so the D_psi(x_k, x_{k+1}) term of App. D vanishes."""
    f, g, p, q = sym("delta_f"), sym("delta_g"), sym("p"), sym("q")
    theta23 = sp.sqrt(p * (1 - p) * q / (p * g**2 + (1 - p) * f**2)) / 4
    lem4 = get("bylinkin.lem4")
    coeff = lem4.rhs.coeff(sym("D_x0_xT"))
    assert sp.simplify(2 * coeff.subs(sym("theta"), theta23) - q) == 0
    # (23) also satisfies Lemma 4's condition theta <= 1/(2(delta_f + delta_g)):
    # 4 sqrt2 (f^2 + g^2) - 2 f (f + g) is a positive-definite quadratic form in (f, g)
    pq = f**2 / (f**2 + g**2)
    theta_star = sp.simplify(theta23.subs({p: pq, q: pq}))
    assert sp.simplify(theta_star - sp.sqrt(2) * f / (8 * (f**2 + g**2))) == 0
    form = sp.expand(4 * sp.sqrt(2) * (f**2 + g**2) - 2 * f * (f + g))
    poly = sp.Poly(form.subs(f, 1), g)
    assert poly.LC() > 0 and sp.discriminant(poly) < 0
    # Theorem 6's factor is 1 - mu theta/(6 q) at (23)
    factor = 1 - sym("mu") * theta_star / (6 * pq)
    assert sp.simplify(get("bylinkin.thm6").rhs - factor) == 0


def test_theorem6_rounds_follow_from_the_factor():
    f, g, m, v0, e = sym("delta_f"), sym("delta_g"), sym("mu"), sym("V_0"), sym("eps")
    pq = f**2 / (f**2 + g**2)
    theta_star = sp.sqrt(2) * f / (8 * (f**2 + g**2))
    epochs = sp.log(v0 / e) / (m * theta_star / (6 * pq))  # -ln(1 - x) >= x
    assert sp.simplify(get("bylinkin.thm6.mf").rhs - epochs * (1 + pq / pq)) == 0
    assert sp.simplify(get("bylinkin.thm6.mg").rhs - epochs * (1 + (1 - pq) / pq)) == 0


def test_tuning24_identities_used_by_theorem7():
    """mu alpha = tau and 3 alpha q tau/theta = 1 under (24); Theorem 7's factor is 1 - mu alpha/4."""
    f, g, m = sym("delta_f"), sym("delta_g"), sym("mu")
    pq = f**2 / (f**2 + g**2)
    theta_star = sp.sqrt(pq * (1 - pq) * pq / (pq * g**2 + (1 - pq) * f**2)) / 4
    tau = sp.sqrt(theta_star * m / (3 * pq))
    alpha = sp.sqrt(theta_star / (3 * m * pq))
    assert sp.simplify(m * alpha - tau) == 0
    assert sp.simplify(3 * alpha * pq * tau / theta_star - 1) == 0
    assert sp.simplify(get("bylinkin.thm7").rhs - (1 - m * alpha / 4)) == 0
    # the exact factor (1 + tau/2)^-1 is below the printed 1 - tau/4 for tau in (0, 1]
    t = sp.Symbol("t", positive=True)
    assert sp.simplify((1 - t / 4) * (1 + t / 2) - (1 + t / 4 - t**2 / 8)) == 0  # >= 1 when t <= 2


def test_corrected_accvrcs_count_exceeds_printed_count():
    for group in ("mf", "mg"):
        printed = get(f"bylinkin.thm7.{group}").rhs
        corrected = get(f"bylinkin.thm7.{group}.corrected").rhs
        assert (sp.simplify(corrected - printed) - _thm7_symbolic_iters()).equals(0)


def _thm7_symbolic_iters() -> sp.Expr:
    f, m = sym("delta_f"), sym("mu")
    return 4 / sp.sqrt(m / (12 * sp.sqrt(2) * f)) * sp.log(sym("W_0") / sym("eps"))


def test_remark1_sqrt_claim_contradicts_the_bound():
    """max(R_f, R_g) >= 12 delta_g/mu ln for every (p, q) (erratum on Remark 1), on a grid."""
    f, g, m = 0.01, 1.0, 1e-3
    best = math.inf
    for i in range(1, 40):
        for j in range(1, 40):
            p, q = i / 40, j / 40
            theta = min(1 / (2 * (f + g)), math.sqrt(p * (1 - p) * q) / (4 * math.sqrt(p * g**2 + (1 - p) * f**2)))
            best = min(best, max(6 / (m * theta) * (q + p), 6 / (m * theta) * (q + 1 - p)))
    assert best >= 12 * g / m
    assert best > 10 * math.sqrt(f * g) / m
    assert any(n.kind == "erratum" and "Remark 1" in n.text for n in get("bylinkin.thm6").notes)


def test_errata_recorded():
    for tid in ("bylinkin.thm5", "bylinkin.thm6", "bylinkin.thm7.mf", "bylinkin.thm4", "bylinkin.thm8"):
        assert get(tid).errata, tid
    assert {"bylinkin.thm5.corrected", "bylinkin.thm7.mf.corrected", "bylinkin.thm7.mg.corrected"} <= {
        t.id for t in all_theorems("bylinkin")}


def test_metadata_consistent():
    for theorem in all_theorems("bylinkin"):
        assert theorem.paper == "bylinkin" and theorem.statement and theorem.equation
        assert set(theorem.algorithms) <= {"sc_acc_extragradient", "vrcs", "acc_vrcs", "c_acc_extragradient"}
        assert all(s.is_positive for s in theorem.free_symbols)
