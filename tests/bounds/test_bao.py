"""Every Bao et al. theorem re-derived at one parameter point from the paper's formula, written here
independently with plain floats (not from the catalogue expression)."""

from __future__ import annotations

import math

import pytest

from fedrates.bounds.catalog import get

# a generic point satisfying the conditions of Theorems 2.1/3.1 (a = 4L/mu = 40, T >= E(a+1))
P = dict(T=5000.0, K=8.0, E=5.0, R=999.0, mu=1 / 3, L=10 / 3, Lam=5.0, H=3.0, rho=5.0, sigma=2.0, B=4.0, a=40.0,
         delta=0.05, eps0=1.0, tau=1e-4, nu=2e-4, Psi=2.0, lam_opt=0.01, lam0=0.08, lam_m=0.02, Tm=3e5,
         eps_m=0.5, gstar=0.004, d=0.3, dhat=0.2, eta=1e-3, t=120.0, r=7.0)


def A(n: float, a: float) -> float:
    """sum_{i=0}^n (i + a)^2 by direct summation (n integer)."""
    return sum((i + a) ** 2 for i in range(int(n) + 1))


def close(theorem_id: str, expected: float, **override: float) -> None:
    values = {**P, **override}
    got = get(theorem_id).evaluate(values)
    assert got == pytest.approx(expected, rel=1e-10), theorem_id


def test_thm21_order_eq4():
    T, K, E, mu, L, Lam, H, rho, s, B, a = (P[k] for k in "T K E mu L Lam H rho sigma B a".split())
    sb2 = s * s / K
    expected = (mu * a**3 * B / T**3 + sb2 / (mu * T) + L * E * s * s / (mu * mu * T * T)
                + L * E * E * (H + Lam * rho) ** 2 / (mu * mu * T * T))
    close("bao.thm2.1", expected)


def test_thm21_explicit_app_b2():
    T, K, E, mu, L, Lam, H, rho, s, B, a = (P[k] for k in "T K E mu L Lam H rho sigma B a".split())
    gamma = 2 * mu * a**3
    sb2 = s * s / K
    num = (gamma * B + 5 * T * (T + 1) * sb2 / mu
           + (3 * L + mu) / 2 * (36 * (T + 1) / mu**2) * 4 * (E * s * s + E * E * (H * H + Lam * Lam * rho * rho)))
    close("bao.thm2.1.explicit", num / A(T, a))


def test_thm21_reference_sanity_value():
    # independent sanity values (mu=1/3, L=30, a=360, ... T=5000): thm21_main = 0.213
    v = dict(P, L=30.0, a=360.0)
    assert get("bao.thm2.1").evaluate(v) == pytest.approx(0.213, abs=5e-4)


def test_lemb5_drift():
    t, E, mu, Lam, H, rho, s, a = (P[k] for k in "t E mu Lam H rho sigma a".split())
    gamma = 2 * mu * a**3
    alpha = (t + a) ** 2
    numerator = (4 * E * s * s + 4 * E * E * (H * H + Lam * Lam * rho * rho)) * alpha**2
    expected = numerator / (mu * A(t, a) / 2 + gamma) ** 2
    close("bao.lemB.5", expected)


def test_rem21_rounds():
    T, K, mu, L, Lam, H, rho, s = (P[k] for k in "T K mu L Lam H rho sigma".split())
    e_max = math.sqrt(s * s * mu * T / (L * K * (H + Lam * rho) ** 2))
    close("bao.rem2.1", T / e_max)


def test_prop31_both_norms():
    close("bao.prop3.1", 3 * P["Psi"] * P["lam_opt"] / P["mu"])
    close("bao.prop3.1.R", 12 * P["Psi"] ** 2 * P["lam_opt"] / P["mu"])


def test_thm31_order_eq9():
    T, K, E, mu, L, Lam, H, rho, s, a = (P[k] for k in "T K E mu L Lam H rho sigma a".split())
    d, e0, tau, nu = P["delta"], P["eps0"], P["tau"], P["nu"]
    sb2 = s * s / K
    lg = math.log(1 / d)
    expected = (mu * a**3 * E**3 * e0**2 / T**3 + sb2 * lg / (mu * T) + L * E * s * s * lg**2 / (mu**2 * T**2)
                + L * E**2 * (Lam * rho + H) ** 2 / (mu**2 * T**2) + e0 * math.sqrt(sb2) * math.sqrt(lg) / math.sqrt(T)
                + (tau + nu) * e0**2)
    close("bao.thm3.1", expected)


def test_thm31_explicit_app_b3():
    R, K, E, mu, L, Lam, H, rho, s, a = (P[k] for k in "R K E mu L Lam H rho sigma a".split())
    d, e0, tau, nu = P["delta"], P["eps0"], P["tau"], P["nu"]
    gamma = 2 * mu * a**3
    sb2 = s * s / K
    AR = A(R, a)
    S4 = sum((r + a) ** 4 for r in range(int(R) + 1))
    expected = (2 * gamma * e0**2 / AR
                + 32 * sb2 * math.log(6 / d) * (1 + 8 * math.sqrt(math.log(6 / d) / E)) * R * (R + 1) / (mu * E * AR)
                + 144 * (3 * L + 2 * mu) * (R + 1) / (mu**2 * AR)
                * (32 / E * s * s * math.log(2 / d) ** 2 + 2 * (Lam * rho + H) ** 2)
                + 8 * e0 * math.sqrt(sb2) * math.sqrt(3 * math.log(3 / d) * E * S4) / (E * AR)
                + 20 * (tau + nu) * e0**2)
    close("bao.thm3.1.explicit", expected)


def test_lemb7_drift_hp():
    r, E, mu, Lam, H, rho, s, a, d = (P[k] for k in "r E mu Lam H rho sigma a delta".split())
    gamma = 2 * mu * a**3
    expected = 4 * (r + a) ** 2 / (E * mu * A(r, a) / 2 + gamma * E) * (
        4 * math.sqrt(E) * s * math.log(2 / d) + E * (H + Lam * rho))
    close("bao.lemB.7", expected)


def test_corb1_stage():
    sb = P["sigma"] / math.sqrt(P["K"])
    expected = sb * P["eps_m"] * math.sqrt(math.log(1 / P["delta"])) / math.sqrt(P["Tm"]) + (
        P["tau"] + P["nu"]) * P["eps_m"] ** 2
    close("bao.corB.1", expected)


def test_lemb8_both_parts():
    Psi, lam, eta, mu, tau = P["Psi"], P["lam_opt"], P["eta"], P["mu"], P["tau"]
    close("bao.lemB.8", 4 * Psi * P["d"] + 2 * eta / lam)
    v = 8 * Psi * P["dhat"] + 2 * eta / lam
    close("bao.lemB.8.b", (2 * tau * v * v + eta) / (mu / 2 - 32 * Psi**2 * tau))


def test_thm32_iterations_eq10_and_explicit():
    M = math.log2(P["lam0"] / P["lam_opt"]) + 1  # = 4 stages
    assert M == pytest.approx(4.0)
    sb2 = P["sigma"] ** 2 / P["K"]
    close("bao.thm3.2", sb2 * M / P["lam_opt"] ** 2 * math.log(M / P["delta"]))
    close("bao.thm3.2.explicit", 4 * sb2 * M / P["lam_opt"] ** 2 * math.log(2 * M / P["delta"]))


def test_thm32_accuracy_bounds():
    Psi, lam, mu = P["Psi"], P["lam_opt"], P["mu"]
    close("bao.thm3.2.gap", Psi**2 * lam**2 / mu)
    close("bao.thm3.2.err", 4 * Psi * lam / mu)
    close("bao.thm3.2.err_opt", math.sqrt(15) * Psi * lam / mu)
    close("bao.thm3.2.err_proven", (3 + math.sqrt(15)) * Psi * lam / mu)


def test_thm32_stage_budgets_printed_and_corrected():
    Psi, mu, lam_m, d = P["Psi"], P["mu"], P["lam_m"], P["delta"]
    M = math.log2(P["lam0"] / P["lam_opt"]) + 1
    sb2 = P["sigma"] ** 2 / P["K"]
    eps_m = 108 * Psi**2 * lam_m / mu
    printed = 8 * 54**2 * Psi**4 * sb2 * math.log(2 * M / d) / (mu**2 * eps_m**2)
    close("bao.thm3.2.stage", printed)
    close("bao.thm3.2.stage_corrected", (8 * 54**2) ** 2 * Psi**4 * sb2 * math.log(2 * M / d) / (mu**2 * eps_m**2))


def test_every_bao_theorem_has_a_numeric_test():
    import sys

    from fedrates.bounds.catalog import all_theorems

    source = open(sys.modules[__name__].__file__).read()
    untested = [t.id for t in all_theorems("bao") if f'"{t.id}"' not in source]
    assert not untested, f"bao theorems without an independent numeric test: {untested}"


def test_conditions_at_point_hold_and_a_violation_is_named():
    th = get("bao.thm2.1")
    assert all(c.holds for c in th.check_conditions(P))
    bad = th.check_conditions({**P, "a": 20.0})  # a < 4L/mu = 40
    assert [c.text for c in bad if c.holds is False] == ["a >= 4*L/mu"]
    missing = th.check_conditions({"T": 10.0})
    assert missing[0].holds is None and set(missing[0].missing) == {"L", "a", "mu"}


def test_evaluate_errors_name_the_problem():
    from fedrates.solvers.errors import InputError

    th = get("bao.thm2.1")
    with pytest.raises(InputError, match="needs values for: B"):
        th.evaluate({k: v for k, v in P.items() if k != "B"})
    with pytest.raises(InputError, match="'mu'"):
        th.evaluate({**P, "mu": -1.0})


def test_errata_are_recorded():
    assert any("a >= 2L/mu" in n.text for n in get("bao.thm2.1.explicit").errata)
    assert any("sqrt(15)" in n.resolution for n in get("bao.thm3.2.err").errata)
    assert any("76.4" in n.text for n in get("bao.thm3.2.gap").errata)
