"""Catalogue of Dinh et al.: values, conditions, exponents and proof implications.

Expected values are recomputed with plain floats from the paper's formulas ((13)-(18), (36), (53)-(55), Lemma 3).
"""

from __future__ import annotations

import math

import pytest
import sympy as sp

from fedrates.bounds.catalog import all_theorems, get
from fedrates.bounds.symbols import sym

# a point inside the theory regime: L = 1, lambda = 0.5, mu = 10, theta = 0.3 (Theta > 0, beta_min ~ 12.70)
P = dict(L=1.0, lam=0.5, mu=10.0, theta=0.3, sigma_bar_sq=0.05, beta=13.0, tau=96.0, a=30.0, eta=0.07,
         G_sq=2.0, gradF_sq=0.8, Delta=2.0, T=100.0, eps=1e-3, m=0.2, gamma=0.01, dw_sq=0.3, M_exact=0.7,
         gap_sgd=0.4)
L, lam, mu, th, s2, beta, tau = (P[k] for k in ("L", "lam", "mu", "theta", "sigma_bar_sq", "beta", "tau"))
mut = mu - lam


def _big_theta(L=L, mu=mu, lam=lam, th=th, s2=s2) -> float:
    mut = mu - lam
    q = (1 + th**2) * (1 + s2)
    return (1 - th * math.sqrt(2 * (1 + s2)) - 2 * L / mut * math.sqrt(q) - 2 * L * mu / mut**2 * q) / mu


TAU_LOWER = 3 * (beta**2 * L**2 + mu**2) / (th**2 * mut * L * (beta - 3))
EXPECTED = {
    "dinh.lem1": TAU_LOWER,
    "dinh.lem1.svrg": TAU_LOWER,
    "dinh.lem1.eq53": 3 * (beta**2 * L**2 + mu**2) / (mut * L * (beta - 3)) / (tau + 1),
    "dinh.lem1.eq54": 3 * (beta**2 * L**2 + mu**2) / (mut * L * (beta - 3)) / tau,
    "dinh.lem2": 2 * (mu**2 * P["eta"] ** 2 + 1) * P["G_sq"],
    "dinh.lem3": 4 * (1 + th**2) * (1 + s2) / mut**2 * P["gradF_sq"],
    "dinh.thm1": P["Delta"] / (_big_theta() * P["T"]),
    "dinh.thm1.corrected": P["Delta"] / (_big_theta() * P["T"]),
    "dinh.thm1.eq86": -_big_theta() * P["gradF_sq"],
    "dinh.cor1": P["Delta"] / (_big_theta() * P["eps"]),
    # statements added with the Dinh et al. verification: (16), (22)-(23), (33)/(35), the PL corollary, identities
    "dinh.rem1.3": (5 * beta**2 - 4 * beta) / 8,
    "dinh.sec4.3": (1 + P["gamma"] * (5 * beta**2 - 4 * beta) / 8) / _big_theta(
        th=math.sqrt(24 * (beta**2 * L**2 + mu**2) / (mut * L * (5 * beta**2 - 4 * beta) * (beta - 3)))),
    "dinh.eq35": L**2 * P["dw_sq"],
    "dinh.pl": (1 - 2 * P["m"] * _big_theta()) ** P["T"] * P["Delta"],
    "dinh.alg1": P["M_exact"],
    "dinh.sec5": P["gap_sgd"],
    "dinh.eq22": 24 * (beta**2 * L**2 + mu**2) / (mut * L * (5 * beta**2 - 4 * beta) * (beta - 3)),
    "dinh.eq20": (1 + P["gamma"] * tau) / _big_theta(),
}


def _at(expr: sp.Basic, point: dict[str, float]) -> sp.Basic:
    return expr.subs({sym(k): v for k, v in point.items()})


def test_every_theorem_has_an_expected_value():
    assert sorted(t.id for t in all_theorems("dinh")) == sorted(EXPECTED)


def test_reference_point_is_in_the_theory_regime():
    assert _big_theta() > 0
    assert TAU_LOWER <= tau <= (5 * beta**2 - 4 * beta) / 8


@pytest.mark.parametrize("theorem_id", sorted(EXPECTED))
def test_rhs_value(theorem_id):
    assert float(_at(get(theorem_id).rhs, P)) == pytest.approx(EXPECTED[theorem_id], rel=1e-12)


def _svrg_point(beta_: float, tau_: float) -> dict[str, float]:
    """The smallest admissible a of (65), a_min = 4(sqrt(tau+1) + sqrt(tau+2))^2, slightly enlarged."""
    a_min = 4 * (math.sqrt(tau_ + 1) + math.sqrt(tau_ + 2)) ** 2
    return {**P, "beta": beta_, "tau": tau_, "a": a_min * (1 + 1e-9), "theta": 0.01}


_THETA_POS = sp.Gt(sym("mu"), sym("lam"))
VIOLATIONS = {
    # beta = 12.6 < beta_min(L=1, lambda=0.5, mu=10, theta=0.3) = 12.70376: lower bound above upper bound
    "dinh.lem1": ({"beta": 12.6, "tau": 93.7}, None),
    "dinh.lem1.eq53": ({"tau": 120.0}, sp.Le(sym("tau"), (5 * sym("beta") ** 2 - 4 * sym("beta")) / 8)),
    "dinh.lem1.eq54": ({"beta": 2.5}, sp.Gt(sym("beta"), 3)),
    "dinh.lem3": ({"lam": 11.0}, _THETA_POS),
}
THEOREM1_LIKE = ("dinh.thm1", "dinh.thm1.corrected", "dinh.thm1.eq86", "dinh.cor1")


ADDED = {"dinh.rem1.3", "dinh.sec4.3", "dinh.eq35", "dinh.pl", "dinh.alg1", "dinh.sec5", "dinh.eq22", "dinh.eq20"}


@pytest.mark.parametrize("theorem_id, change", [("dinh.rem1.3", {"beta": 2.5}), ("dinh.sec4.3", {"mu": 3.0}),
                                                ("dinh.pl", {"mu": 3.0}), ("dinh.eq22", {"beta": 2.5}),
                                                ("dinh.eq20", {"tau": 90.0}), ("dinh.eq20", {"tau": 106.0})])
def test_added_statements_conditions(theorem_id, change):
    theorem = get(theorem_id)
    assert all(bool(_at(c, P)) for c in theorem.conditions)
    assert not all(bool(_at(c, {**P, **change})) for c in theorem.conditions)


@pytest.mark.parametrize("theorem_id", sorted(set(EXPECTED) - {"dinh.lem2", "dinh.lem1.svrg"} - ADDED))
def test_conditions_hold_at_admissible_point_and_fail_outside(theorem_id):
    theorem = get(theorem_id)
    assert all(bool(_at(c, P)) for c in theorem.conditions)
    if theorem_id in THEOREM1_LIKE:
        change = {"mu": 3.0}  # Theta < 0 at mu = 3 (mu_tilde = 2.5 < 4L)
        assert _big_theta(mu=3.0) < 0
        failing = theorem.conditions[0]
        assert failing.lhs.has(sym("sigma_bar_sq"))  # the Theta > 0 condition comes first
    else:
        change, failing = VIOLATIONS[theorem_id]
    bad = {**P, **change}
    if theorem_id == "dinh.lem1":
        assert float(_at(theorem.rhs, bad)) > (5 * 12.6**2 - 4 * 12.6) / 8  # lower bound above upper bound
    if failing is not None:
        assert failing in theorem.conditions
        assert not bool(_at(failing, bad))
    assert not all(bool(_at(c, bad)) for c in theorem.conditions)


def test_lemma1_sarah_conditions_match_beta_min():
    """At beta slightly above beta_min the integer tau = ceil(lower) fits under the SARAH upper bound."""
    lem1 = get("dinh.lem1")
    good = {**P, "beta": 12.8}
    lower = float(_at(lem1.rhs, good))
    good["tau"] = float(math.ceil(lower))
    assert good["tau"] <= (5 * 12.8**2 - 4 * 12.8) / 8
    assert all(bool(_at(c, good)) for c in lem1.conditions)


def test_lemma1_svrg_feasibility_matches_direct_check():
    """(14) with a = a_min: at beta = 10 only tau = 0 is admissible (erratum on Remark 1(1))."""
    lem1 = get("dinh.lem1.svrg")
    assert all(bool(_at(c, _svrg_point(10.0, 0.0))) for c in lem1.conditions)
    bad = _svrg_point(10.0, 1.0)
    assert 460 / (8 * bad["a"]) - 2 < 1  # direct: (5 beta^2 - 4 beta)/(8a) - 2 < tau
    assert not all(bool(_at(c, bad)) for c in lem1.conditions)
    # an a below a_min violates (65)
    low_a = {**_svrg_point(10.0, 0.0), "a": 20.0}
    assert not bool(_at(lem1.conditions[-1], low_a))
    assert lem1.errata


def test_lemma2_has_no_conditions():
    assert get("dinh.lem2").conditions == ()


def _exponent(expr: sp.Expr, var: str) -> sp.Expr:
    x = sym(var)
    others = {sym(k): v for k, v in P.items() if k != var}
    return sp.limit(sp.log(expr.subs(others)) / sp.log(x), x, sp.oo)


EXPONENTS = {
    "dinh.thm1": ("T", -1),                 # O(1/T) (17)
    "dinh.thm1.corrected": ("T", -1),
    "dinh.cor1": ("eps", -1),               # T = O(1/(Theta eps)) (18)
    "dinh.lem1": ("theta", -2),             # tau = Omega(1/theta^2), Remark 1(2)
    "dinh.lem1.svrg": ("beta", 1),          # lower bound Omega(beta), Remark 1(1)
    "dinh.lem1.eq53": ("tau", -1),
    "dinh.lem1.eq54": ("tau", -1),
    "dinh.lem2": ("eta", 2),
    "dinh.lem3": ("theta", 2),
    "dinh.thm1.eq86": ("gradF_sq", 1),
}


@pytest.mark.parametrize("theorem_id", sorted(EXPONENTS))
def test_exponent_in_sweep_variable(theorem_id):
    var, expected = EXPONENTS[theorem_id]
    rhs = get(theorem_id).rhs
    if theorem_id == "dinh.thm1.eq86":
        rhs = -rhs  # a decrease: exponent of its magnitude
    assert sp.simplify(_exponent(rhs, var) - expected) == 0


def test_lower_bound_grows_linearly_in_mu():
    """Remark 1(4): the lower bound of tau is Omega(mu)."""
    assert _exponent(get("dinh.lem1").rhs, "mu") == 1


def test_lemma1_bound54_at_lower_tau_equals_theta_squared():
    """(54) <= theta^2 exactly when tau >= (55): Lemma 1 delivers the second-moment criterion."""
    t = sym("tau")
    eq54 = get("dinh.lem1.eq54").rhs
    assert sp.simplify(eq54.subs(t, get("dinh.lem1").rhs) - sym("theta") ** 2) == 0
    assert sp.simplify(get("dinh.lem1.eq53").rhs / eq54 - t / (t + 1)) == 0  # (53) is tighter


def test_lemma3_and_bounds83_84_imply_descent86():
    """(83) + (84) - 1/mu + (L/2) Lemma 3 = -Theta, coefficient of ||grad Fbar||^2."""
    Ls, m, lm, t, s = sym("L"), sym("mu"), sym("lam"), sym("theta"), sym("sigma_bar_sq")
    g2 = sym("gradF_sq")
    eq83 = Ls / m * 2 / (m - lm) * sp.sqrt((1 + t**2) * (1 + s)) * g2
    eq84 = t * sp.sqrt(2 * (1 + s)) / m * g2
    total = eq83 + eq84 - g2 / m + Ls / 2 * get("dinh.lem3").rhs
    assert sp.simplify(total - get("dinh.thm1.eq86").rhs) == 0


def test_descent_telescopes_to_theorem1_and_corollary1():
    T, e, D = sym("T"), sym("eps"), sym("Delta")
    theta_big = -get("dinh.thm1.eq86").rhs / sym("gradF_sq")
    thm1 = get("dinh.thm1.corrected").rhs
    assert sp.simplify(thm1 * T * theta_big - D) == 0
    roots = sp.solve(sp.Eq(thm1, e), T)
    assert len(roots) == 1 and sp.simplify(roots[0] - get("dinh.cor1").rhs) == 0
    assert sp.simplify(get("dinh.thm1").rhs - thm1) == 0  # same rhs; the erratum is the index range
    assert get("dinh.thm1").lhs != get("dinh.thm1.corrected").lhs


def test_theta_positive_needs_mu_above_4L():
    """Necessary condition (Remark 2): Theta > 0 implies mu_tilde > 4L; checked on a grid."""
    positive = get("dinh.thm1").conditions[0]
    for mu_ in (1.0, 2.0, 3.0, 4.4, 4.5):
        for th_ in (0.01, 0.1, 0.3, 0.6):
            point = {**P, "mu": mu_, "lam": 0.5, "theta": th_, "sigma_bar_sq": 1e-12}
            if bool(_at(positive, point)):
                assert mu_ - 0.5 > 4.0
    assert not bool(_at(positive, {**P, "theta": 0.71, "sigma_bar_sq": 1e-12}))  # theta >= 1/sqrt2


def test_metadata_consistent():
    for theorem in all_theorems("dinh"):
        assert theorem.paper == "dinh" and theorem.statement and theorem.equation
        assert set(theorem.algorithms) <= {"fedproxvr_sarah", "fedproxvr_svrg", "fedprox_sgd"}
        assert all(s.is_positive for s in theorem.free_symbols)
    assert get("dinh.thm1").vocabulary() == {"T": "rounds", "tau": "local_steps"}
    assert get("dinh.thm1").errata
