"""Analysis of theorem right-hand sides: exponents, leading terms, regimes, verified roots, communication."""

from __future__ import annotations

import math

import pytest
import sympy as sp

from fedrates.bounds import analysis
from fedrates.bounds.catalog import get
from fedrates.solvers.errors import InputError

x = sp.Symbol("x", positive=True)
VALS = dict(K=4.0, E=2.0, mu=0.5, L=1.0, Lam=1.0, H=1.0, rho=1.0, sigma=1.0, B=1.0, a=8.0)


def test_thm21_exponents():
    th = get("bao.thm2.1")
    assert analysis.exponent(th, "T") == -1
    assert analysis.exponent(th, "E") == 2
    assert analysis.exponent(th, "B") == 1
    details = analysis.exponent_details(th, "T")
    assert not details.log_factor and details.numeric == pytest.approx(-1, abs=1e-3)


def test_speedup_in_k_is_visible_in_the_leading_term():
    lead = analysis.leading_term(get("bao.thm2.1"), "T")
    assert lead.exponent == -1
    assert analysis.exponent(lead.term, "K") == -1  # linear speedup of the sigma^2/(mu K T) term
    sigma, K, mu = sp.symbols("sigma K mu", positive=True)
    assert sp.simplify(lead.coefficient - sigma**2 / (K * mu)) == 0


def test_log_factor_reported_with_the_power():
    d = analysis.exponent_details(sp.log(x) / x, x)
    assert d.value == -1 and d.log_factor
    assert analysis.exponent_details(1 / x + 5 / x**2, x).log_factor is False


def test_thm32_iterations_scale_as_inverse_square_of_lambda_up_to_logs():
    d = analysis.exponent_details(get("bao.thm3.2"), "lam_opt", at=0)
    assert d.value == -2 and d.log_factor
    assert analysis.exponent(get("bao.thm3.2"), "K") == -1


def test_thm31_floor_and_rem21_sqrt_tk():
    assert analysis.exponent(get("bao.thm3.1"), "T") == 0  # (tau + nu) eps0^2 floor
    th = get("bao.rem2.1")
    assert analysis.exponent(th, "T") == sp.Rational(1, 2)
    assert analysis.exponent(th, "K") == sp.Rational(1, 2)


def test_unknown_variable_suggests():
    with pytest.raises(InputError, match="did you mean 'T'"):
        analysis.exponent(get("bao.thm2.1"), "TT")


def test_terms_distributes_over_one_sum():
    u, v, w = sp.symbols("u v w", positive=True)
    assert set(analysis.terms((u + v) / w + x)) == {u / w, v / w, x}


def test_dominant_regimes_thm21_hand_computed_crossovers():
    # init term mu a^3 B/T^3 = 256/T^3; het drift L E^2 (H+Lam rho)^2/(mu^2 T^2) = 64/T^2;
    # noise-drift 8/T^2 (never largest); noise sigma^2/(mu K T) = 1/(2T).
    # crossings: 256/T^3 = 64/T^2 at T = 4; 64/T^2 = 1/(2T) at T = 128.
    reg = analysis.dominant_regimes(get("bao.thm2.1"), "T", VALS, lo=1.0, hi=1e9)
    assert [r.term for r in reg] == ["B*a**3*mu/T**3", "E**2*L*(H + Lam*rho)**2/(T**2*mu**2)",
                                     "sigma**2/(K*T*mu)"]
    assert reg[0].lo == 1.0 and reg[-1].hi == 1e9
    assert reg[0].hi == pytest.approx(4.0, rel=1e-9)
    assert reg[1].hi == pytest.approx(128.0, rel=1e-9)


def test_dominant_regimes_need_values():
    with pytest.raises(InputError, match="need values for: B"):
        analysis.dominant_regimes(get("bao.thm2.1"), "T", {k: v for k, v in VALS.items() if k != "B"})


def test_solve_for_lambertw_both_branches():
    eps = 0.1
    roots = analysis.solve_for(sp.log(x) / x, x, eps)
    # x = -W_0(-eps)/eps and x = -W_{-1}(-eps)/eps (values from the fixed points x = exp(eps x))
    assert len(roots) == 2
    for r in roots:
        assert math.log(r) / r == pytest.approx(eps, rel=1e-10)
    assert roots[0] == pytest.approx(1.1183255915896297, rel=1e-9)
    assert roots[1] == pytest.approx(35.77152063957297, rel=1e-9)


def test_solve_for_rejects_spurious_roots():
    # 2/x + 3/sqrt(x) = 1/2 <=> with s = sqrt(x): s^2/2 - 3 s - 2 = 0, s = 3 + sqrt(13); the other root of the
    # quadratic is negative, so exactly one positive x.
    roots = analysis.solve_for(2 / x + 3 / sp.sqrt(x), x, 0.5)
    assert roots == [pytest.approx((3 + math.sqrt(13)) ** 2, rel=1e-10)]


def test_solve_for_thm21_root_is_verified_and_none_when_impossible():
    th = get("bao.thm2.1")
    roots = analysis.solve_for(th, "T", 1e-3, VALS)
    assert len(roots) == 1
    assert th.evaluate({**VALS, "T": roots[0]}) == pytest.approx(1e-3, rel=1e-8)
    assert analysis.solve_for(get("bao.prop3.1"), "lam_opt", -1.0, {"Psi": 1.0, "mu": 1.0}) == []


def test_communication_remark21():
    com = analysis.communication(get("bao.thm2.1"))
    T, K, mu, L, Lam, H, rho, sigma = sp.symbols("T K mu L Lam H rho sigma", positive=True)
    assert sp.simplify(com.e_max - sp.sqrt(sigma**2 * mu * T / (L * K * (H + Lam * rho) ** 2))) == 0
    assert com.rounds_exponents == {"T": sp.Rational(1, 2), "K": sp.Rational(1, 2)}
    # and it agrees with the catalogued Remark 2.1
    assert sp.simplify(com.rounds - get("bao.rem2.1").rhs) == 0


def test_latex_of_theorem():
    text = analysis.to_latex(get("bao.thm2.1"))
    assert r"\lesssim" in text and r"\frac{\sigma^{2}}{K T \mu}" in text


# ---- lemma-implies-theorem and erratum evidence (exact arithmetic, independent of the catalogue) ----

def _A(n: int, a: float) -> float:
    return sum((i + a) ** 2 for i in range(n + 1))


@pytest.mark.parametrize("a,T", [(8.0, 8), (8.0, 200), (40.0, 400), (100.0, 3000)])
def test_b2_sum_bounds_imply_explicit_thm21(a, T):
    """App. B.2: with gamma = 2 mu a^3, a >= 4L/mu, T >= a the noise and drift sums are below the closed forms
    5T(T+1)/mu and 36(T+1)/mu^2 used by bao.thm2.1.explicit (and the key inequality holds termwise)."""
    mu = 1.0
    L = a * mu / 4
    gamma = 2 * mu * a**3
    noise = drift = 0.0
    for t in range(T + 1):
        alpha, At = (t + a) ** 2, _A(t, a)
        den = mu * At + 2 * gamma - 2 * L * alpha
        assert den >= mu * t**3 / 3 + mu * a**3 - 1e-9 * den
        noise += alpha**2 / (2 * den)
        drift += alpha**3 / (mu * At / 2 + gamma) ** 2
    assert noise <= 5 * T * (T + 1) / mu
    assert drift <= 36 * (T + 1) / mu**2


def test_b2_key_inequality_fails_with_a_equal_2L_over_mu():
    """The erratum recorded on bao.thm2.1.explicit: a = 2L/mu (mu = 1, a = 7) breaks the inequality at t = 26."""
    a, mu = 7.0, 1.0
    L = a * mu / 2
    t = 26
    lhs = mu * _A(t, a) + 2 * (2 * mu * a**3) - 2 * L * (t + a) ** 2
    assert lhs < mu * t**3 / 3 + mu * a**3


def test_b4_stage_budget_simplifies_and_misses_by_76():
    Psi, mu, lam, sb, lg = sp.symbols("Psi mu lam sb lg", positive=True)
    eps = 108 * Psi**2 * lam / mu
    printed = 8 * 54**2 * Psi**4 * sb**2 * lg / (mu**2 * eps**2)
    assert sp.simplify(printed - 2 * sb**2 * lg / lam**2) == 0
    first_term = sb * eps * sp.sqrt(lg) / sp.sqrt(printed)
    ratio = sp.simplify(first_term / (Psi**2 * lam**2 / mu))
    assert ratio == 216 / sp.sqrt(8) and float(ratio) == pytest.approx(76.37, abs=0.01)
    corrected = (8 * 54**2) ** 2 * Psi**4 * sb**2 * lg / (mu**2 * eps**2)
    assert sp.simplify(corrected - 46656 * sb**2 * lg / lam**2) == 0
    assert sp.simplify(sb * eps * sp.sqrt(lg) / sp.sqrt(corrected) - Psi**2 * lam**2 / (2 * mu)) == 0
    b4 = get("bao.thm3.2.stage_corrected").rhs / get("bao.thm3.2.stage").rhs
    assert sp.simplify(b4) == 23328


def test_remark21_emax_balances_drift_and_noise_terms():
    th = get("bao.thm2.1")
    E, T = analysis.symbol(th, "E"), analysis.symbol(th, "T")
    parts = analysis.terms(th.rhs)
    het = [p for p in parts if p.has(analysis.symbol(th, "H"))][0]
    noise = analysis.leading_term(th, "T").term
    e_max = T / get("bao.rem2.1").rhs
    assert sp.simplify(het.subs(E, e_max) - noise) == 0
