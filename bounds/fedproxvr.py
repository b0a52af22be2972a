"""Numeric forms of the quantities of Dinh et al. (ICPP 2020), FedProxVR: Lemma 1's bounds on τ, β_min of (15)/(16),
the SVRG feasibility of (14), Theorem 1's Θ, and the §4.3 training-time optimisation (19)–(24).

All functions take plain floats (vectorised where noted).  Symbols: L smoothness (3), λ weak convexity (4),
μ̃ = μ − λ, θ local accuracy (11), σ̄² = Σ p_n σ_n² (5), β step parameter (η = 1/(βL)), τ local iterations.

* Lemma 1 (13)/(14): τ_lower = 3(β²L² + μ²)/(θ²μ̃L(β − 3)); SARAH τ ≤ (5β² − 4β)/8; SVRG τ ≤ (5β² − 4β)/(8a) − 2
  with a − 4 ≥ 4√(a(τ + 1)).  The smallest admissible a is a_min(τ) = 4(√(τ+1) + √(τ+2))² (equality in (65)),
  so SVRG's (14) is 8(τ + 2)a_min(τ) ≤ 5β² − 4β.
* (15)/(16): β_min is the root in (3, ∞) of c(5β³ − 19β² + 12β) − 24L²β² − 24μ² = 0, c = θ²μ̃L ((15) times
  8c(β − 3)); the cubic is negative at β = 3 and has at most one critical point on (3, ∞), so the root is unique.
* Theorem 1: Θ = (1/μ)(1 − θ√(2(1+σ̄²)) − (2L/μ̃)√q − (2Lμ/μ̃²)q), q = (1 + θ²)(1 + σ̄²).
* §4.3: total time 𝒯 = T(d_com + d_cmp τ) with T = Δ/(Θε); (20) minimise (1 + γτ)/Θ over (μ, θ, β, τ) subject to
  (15), (16), Θ > 0; eliminating θ by (22) θ² = 24(β²L² + μ²)/(μ̃L(5β² − 4β)(β − 3)) gives (23):
  minimise (1 + γ(5β² − 4β)/8)/Θ(μ, θ(μ, β)) over β > 3, μ > λ with Θ > 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fedrates.solvers.errors import InputError

__all__ = [
    "validate", "tau_lower", "tau_upper_sarah", "a_min", "svrg_feasible", "tau_max_svrg", "Theta", "beta_min",
    "beta_min_svrg", "theta_sq_22", "objective_23", "Design", "optimise_training_time",
]

#: √(5/128): τ_max^SVRG(β)/β → this as β → ∞ (from 32τ·4 ~ 5β² with a_min ~ 16τ)
SVRG_SLOPE = math.sqrt(5.0 / 128.0)


def validate(*, beta: float | None = None, tau: float | None = None, theta: float | None = None,
             mu: float | None = None, lam: float | None = None) -> None:
    """One-line InputError for values outside the paper's ranges (β > 3, τ ≥ 1, θ ∈ (0, 1), μ > λ)."""
    if beta is not None and not beta > 3:
        raise InputError(f"beta={beta!r} is out of range; expected beta > 3 (Lemma 1, sign of (46))")
    if tau is not None and not tau >= 1:
        raise InputError(f"tau={tau!r} is out of range; expected tau >= 1 local iterations")
    if theta is not None and not 0 < theta < 1:
        raise InputError(f"theta={theta!r} is out of range; expected 0 < theta < 1 (local accuracy (11))")
    if mu is not None and lam is not None and not mu > lam:
        raise InputError(f"mu={mu!r} is out of range; expected mu > lambda = {lam:g} (J_n strongly convex)")


def tau_lower(beta: float, L: float, mu: float, lam: float, theta: float) -> float:
    """Lower bound (13)/(14)/(55) on τ."""
    return 3 * (beta**2 * L**2 + mu**2) / (theta**2 * (mu - lam) * L * (beta - 3))


def tau_upper_sarah(beta: float) -> float:
    """SARAH upper bound (13)/(48): (5β² − 4β)/8."""
    return (5 * beta**2 - 4 * beta) / 8


def a_min(tau: float) -> float:
    """Smallest a > 4 with a − 4 ≥ 4√(a(τ + 1)) (65): a = 4(√(τ+1) + √(τ+2))²."""
    return 4 * (math.sqrt(tau + 1) + math.sqrt(tau + 2)) ** 2


def svrg_feasible(tau: float, beta: float) -> bool:
    """Whether some a satisfies (65) and (66) at (τ, β): 8(τ + 2)a_min(τ) ≤ 5β² − 4β."""
    return 8 * (tau + 2) * a_min(tau) <= 5 * beta**2 - 4 * beta


def tau_max_svrg(beta: float) -> float:
    """Largest real τ ≥ 0 with 8(τ + 2)a_min(τ) ≤ 5β² − 4β (bisection; −inf if even τ = 0 is infeasible)."""
    from scipy.optimize import brentq

    rhs = 5 * beta**2 - 4 * beta
    g = lambda t: 8 * (t + 2) * a_min(t) - rhs  # noqa: E731 - increasing in t
    if g(0.0) > 0:
        return -math.inf
    hi = 1.0
    while g(hi) <= 0:
        hi *= 2
    return float(brentq(g, 0.0, hi, xtol=1e-14, rtol=1e-15, maxiter=500))


def Theta(L: float, lam: float, mu: float, theta: float, sigma_bar_sq: float) -> float:
    """Θ of Theorem 1 (−inf when σ̄² is infinite, i.e. assumption (5) fails)."""
    if not np.isfinite(sigma_bar_sq):
        return -math.inf
    mt = mu - lam
    q = (1 + theta**2) * (1 + sigma_bar_sq)
    return (1 - theta * math.sqrt(2 * (1 + sigma_bar_sq)) - 2 * L / mt * math.sqrt(q) - 2 * L * mu / mt**2 * q) / mu


def _cubic_root(L: float, mu: float, lam: float, theta: float) -> float:
    c = theta**2 * (mu - lam) * L
    coeffs = [5 * c, -19 * c - 24 * L**2, 12 * c, -24 * mu**2]
    roots = [r.real for r in np.roots(coeffs) if abs(r.imag) < 1e-9 * max(1.0, abs(r)) and r.real > 3]
    if len(roots) != 1:
        raise ArithmeticError(f"expected exactly one root of the beta_min cubic in (3, inf), got {roots}")
    # polish with bisection on the sign change (np.roots is accurate to ~1e-12 relative here)
    f = lambda b: c * (5 * b**3 - 19 * b**2 + 12 * b) - 24 * L**2 * b**2 - 24 * mu**2  # noqa: E731
    lo, hi = 3.0, roots[0] * 2 + 1
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if f(mid) < 0 else (lo, mid)
    return 0.5 * (lo + hi)


def beta_min(L: float, mu: float, lam: float, theta: float) -> tuple[float, float]:
    """(β_min, τ(β_min)) of (15)/(16) for SARAH: the unique β > 3 where τ_lower = τ_upper_sarah."""
    validate(theta=theta, mu=mu, lam=lam)
    b = _cubic_root(L, mu, lam, theta)
    return b, tau_upper_sarah(b)


def beta_min_svrg(L: float, mu: float, lam: float, theta: float, beta_max: float = 1e7) -> tuple[float, float]:
    """(β_min, τ) for SVRG: the smallest β with τ_lower(β) ≤ τ_max^SVRG(β), and τ = τ_lower there.

    (nan, nan) when no β ≤ ``beta_max`` is feasible (Remark 1(1) fails for SVRG: see dinh.lem1.svrg's notes)."""
    validate(theta=theta, mu=mu, lam=lam)
    gap = lambda b: tau_max_svrg(b) - tau_lower(b, L, mu, lam, theta)  # noqa: E731
    grid = np.geomspace(3.0 + 1e-6, beta_max, 600)
    ok = [b for b in grid if gap(b) >= 0]
    if not ok:
        return math.nan, math.nan
    hi = ok[0]
    i = int(np.searchsorted(grid, hi))
    lo = grid[i - 1] if i > 0 else 3.0 + 1e-9
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if gap(mid) >= 0 else (mid, hi)
    return hi, tau_lower(hi, L, mu, lam, theta)


def theta_sq_22(beta: float, mu: float, L: float, lam: float) -> float:
    """θ² of (22): the accuracy at which τ_lower = τ_upper_sarah."""
    return 24 * (beta**2 * L**2 + mu**2) / ((mu - lam) * L * (5 * beta**2 - 4 * beta) * (beta - 3))


def objective_23(beta: float, mu: float, L: float, lam: float, sigma_bar_sq: float, gamma: float) -> float:
    """(23): (1 + γ(5β² − 4β)/8)/Θ(μ, θ(μ, β)); +inf where Θ ≤ 0, θ ≥ 1, β ≤ 3 or μ ≤ λ."""
    if beta <= 3 or mu <= lam:
        return math.inf
    t2 = theta_sq_22(beta, mu, L, lam)
    if not 0 < t2 < 1:
        return math.inf
    th = Theta(L, lam, mu, math.sqrt(t2), sigma_bar_sq)
    if not th > 0:
        return math.inf
    return (1 + gamma * tau_upper_sarah(beta)) / th


@dataclass(frozen=True)
class Design:
    """Solution of (23): β*, μ*, θ* (by (22)), τ* = (5β*² − 4β*)/8, Θ*, and the objective (1 + γτ*)/Θ*."""

    beta: float
    mu: float
    theta: float
    tau: float
    Theta: float
    objective: float


def optimise_training_time(L: float, lam: float, sigma_bar_sq: float, gamma: float, grid: int = 300) -> Design:
    """Solve (23) numerically: a log-grid over β ∈ (3, 3000] and μ − λ ∈ [1e-2, 1e4], then Nelder–Mead in
    (log(β − 3), log(μ − λ)) from the best grid point (the paper solves (23) "numerically" too)."""
    from scipy.optimize import minimize

    if not gamma > 0:
        raise InputError(f"gamma={gamma!r} is out of range; expected gamma = d_cmp/d_com > 0")
    if not np.isfinite(sigma_bar_sq) or sigma_bar_sq < 0:
        raise InputError(f"sigma_bar_sq={sigma_bar_sq!r} is not valid; expected a finite value >= 0 (assumption (5))")
    xs = np.linspace(math.log(1e-2), math.log(3000.0), grid)
    ys = np.linspace(math.log(1e-2), math.log(1e4), grid)
    f = lambda p: objective_23(3 + math.exp(p[0]), lam + math.exp(p[1]), L, lam, sigma_bar_sq, gamma)  # noqa: E731
    vals = np.array([[f((x, y)) for y in ys] for x in xs])
    i, j = np.unravel_index(np.argmin(vals), vals.shape)
    if not np.isfinite(vals[i, j]):
        raise ArithmeticError("no (beta, mu) with Theta > 0 on the search grid")
    res = minimize(f, np.array([xs[i], ys[j]]), method="Nelder-Mead", options={"xatol": 1e-10, "fatol": 1e-12,
                                                                                 "maxiter": 4000})
    p = res.x if res.fun <= vals[i, j] else np.array([xs[i], ys[j]])
    b, m = 3 + math.exp(p[0]), lam + math.exp(p[1])
    th = math.sqrt(theta_sq_22(b, m, L, lam))
    return Design(beta=b, mu=m, theta=th, tau=tau_upper_sarah(b), Theta=Theta(L, lam, m, th, sigma_bar_sq),
                  objective=f(p))
