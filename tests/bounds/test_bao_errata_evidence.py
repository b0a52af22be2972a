"""The evidence behind the errata of Bao et al. (catalogue notes of :mod:`fedrates.bounds.catalog.bao`), in exact
arithmetic: each test reproduces the failure the erratum states and the fact it says still holds.

* App. B.2 (proof of Theorem 2.1): μA_t + 2γ − 2Lα_t ≥ μt³/3 + μa³ "with a ≥ 2L/μ" (γ = 2μa³, α_t = (t + a)²,
  A_t = Σ_{s≤t} α_s) fails at μ = 1, a = 7 = 2L/μ, t = 26; under the theorem's own a ≥ 4L/μ it holds at every
  integer a ∈ [4, 1000] and t ∈ [0, 20000] (μ = 1, L = a/4, the smallest admissible a for that L).
* App. B.4 (proof of Theorem 3.2): at the printed T_m = 8·54²Ψ⁴σ̄²log(2M/δ)/(μ²ε_m²) with ε_m = 108Ψ²λ_m/μ, the
  term σ̄ε_m√(log(2M/δ)/T_m) equals (216/√8)Ψ²λ_m²/μ ≈ 76.4Ψ²λ_m²/μ, not ≤ Ψ²λ_m²/μ; with T_m =
  (8·54²)²Ψ⁴σ̄²log(2M/δ)/(μ²ε_m²) it is ≤ Ψ²λ_m²/(2μ).
* End of App. B.4: the two bounds the proof establishes, ‖ŵ_M − ŵ_opt‖ ≤ √15Ψλ/μ and Proposition 3.1's
  ‖ŵ_opt − w*‖ ≤ 3Ψλ/μ, are attained together by aligned points at distance (3 + √15)Ψλ/μ > 4Ψλ/μ from w*: the
  printed 4Ψλ/μ does not follow from them (a proof gap, not a counterexample to the statement).
"""

from __future__ import annotations

import math

import numpy as np


def _sides(a: int, t: np.ndarray, six_times_2L: int) -> tuple[np.ndarray, np.ndarray]:
    """6·lhs and 6·rhs of μA_t + 2γ − 2Lα_t ≥ μt³/3 + μa³ with μ = 1, in int64 (exact: every value < 2⁵³ here);
    ``six_times_2L`` = 6·2L (an integer for the values used)."""
    t = t.astype(np.int64)
    A6 = 6 * (t + 1) * a * a + 6 * a * t * (t + 1) + t * (t + 1) * (2 * t + 1)  # 6·Σ_{s=0}^t (s + a)²
    lhs6 = A6 + 24 * a**3 - (t + a) ** 2 * six_times_2L
    rhs6 = 2 * t**3 + 6 * a**3
    return lhs6, rhs6


def test_b2_step_fails_with_a_equal_2L_over_mu():
    lhs6, rhs6 = _sides(7, np.array([26]), 6 * 7)  # a = 7 = 2L/μ
    assert lhs6[0] == 6 * 6187 and rhs6[0] == 6 * 6201 + 4  # 6187 < 6201.67
    assert lhs6[0] < rhs6[0]


def test_b2_step_holds_with_the_theorems_a_4L_over_mu():
    t = np.arange(0, 20001)
    worst = np.inf
    for a in range(4, 1001):
        lhs6, rhs6 = _sides(a, t, 3 * a)  # a = 4L/μ: 2L = a/2, so 6·2L = 3a
        assert np.all(lhs6 >= rhs6), a
        worst = min(worst, float(np.min(lhs6 / rhs6)))
    assert worst > 1.0


def test_b4_stage_budget_misses_by_76():
    Psi, mu, lam, sbar, log = 1.7, 0.3, 0.02, 0.9, 2.3  # any positive values: the ratio is exact
    eps = 108 * Psi**2 * lam / mu
    T_printed = 8 * 54**2 * Psi**4 * sbar**2 * log / (mu**2 * eps**2)
    first = sbar * eps * math.sqrt(log / T_printed)
    assert math.isclose(first / (Psi**2 * lam**2 / mu), 216 / math.sqrt(8), rel_tol=1e-12)
    assert 76.3 < 216 / math.sqrt(8) < 76.4
    T_fixed = (8 * 54**2) ** 2 * Psi**4 * sbar**2 * log / (mu**2 * eps**2)
    assert sbar * eps * math.sqrt(log / T_fixed) <= Psi**2 * lam**2 / (2 * mu)


def test_b4_final_bound_does_not_follow():
    # ŵ_opt at 3 from w*, ŵ_M at √15 from ŵ_opt on the same ray: both proven bounds hold with equality
    w_star, w_opt = np.zeros(2), np.array([3.0, 0.0])
    w_M = w_opt + np.array([math.sqrt(15), 0.0])
    assert np.linalg.norm(w_M - w_opt) <= math.sqrt(15) + 1e-12 and np.linalg.norm(w_opt - w_star) <= 3
    assert np.linalg.norm(w_M - w_star) > 4
    assert math.isclose(np.linalg.norm(w_M - w_star), 3 + math.sqrt(15))
