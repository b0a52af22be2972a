"""Maximum of a convex quadratic over a Euclidean ball (the trust-region subproblem, maximisation form).

    sup_{‖w‖ ≤ ρ} q(w),   q(w) = wᵀPw − 2bᵀw + c₀,   P = V diag(λ) Vᵀ ⪰ 0.

Because q is convex the supremum is attained on the sphere ‖w‖ = ρ.  Stationarity of the Lagrangian gives
(θI − P)w = −b, and the global maximiser has θ ≥ λ₁ = λ_max(P) (second-order condition).  In the eigenbasis,
z = Vᵀw and β = Vᵀb:

    z_i(θ) = −β_i / (θ − λ_i),   secular equation  Σ_i β_i² / (θ − λ_i)² = ρ²,

whose left side decreases on (λ₁, ∞); its root is bracketed by θ_lo = λ₁ + |β₁|/ρ (the top term alone is ρ²) and
θ_hi = λ₁ + ‖b‖/ρ (every term is at most β_i²/(θ − λ₁)²; equality when all λ_i are equal, so θ_hi is doubled
away from λ₁ while rounding leaves the excess non-negative there), and found with ``brentq``.
Hard case (β₁ ≈ 0 and ‖z(λ₁⁺)‖ < ρ): θ = λ₁ and the free top-eigenvector component fills the sphere.
Both candidates are feasible points, so the larger of their values is a lower bound on the supremum that equals it
whenever either candidate is the maximiser (Moré & Sorensen 1983).
"""

from __future__ import annotations

import numpy as np

from fedrates._lazy import lazy_import

optimize = lazy_import("scipy.optimize")  # imported on first use

__all__ = ["maximize_on_ball", "maximize_on_ball_eig", "upper_bound"]


def _q(lam: np.ndarray, beta: np.ndarray, c0: float, z: np.ndarray) -> float:
    return float(np.sum(lam * z * z) - 2.0 * np.dot(beta, z) + c0)


def _single(lam: np.ndarray, beta: np.ndarray, c0: float, radius: float) -> tuple[float, np.ndarray]:
    """One TRS in the eigenbasis (``lam`` ascending); returns (value, z)."""
    l1 = float(lam[-1])
    bnorm = float(np.linalg.norm(beta))
    scale = max(abs(l1), bnorm / radius, np.finfo(float).tiny)
    candidates: list[np.ndarray] = []

    # hard-case candidate: θ = λ₁, components outside the top eigenspace, then fill the sphere along v₁
    gap = l1 - lam
    rest = gap > 1e-12 * scale
    z = np.zeros_like(beta)
    z[rest] = -beta[rest] / gap[rest]
    znorm = float(np.linalg.norm(z))
    if znorm <= radius:
        z[-1] += (-1.0 if beta[-1] > 0 else 1.0) * np.sqrt(radius**2 - znorm**2)
    else:
        z *= radius / znorm
    candidates.append(z)

    # regular case: root of ‖z(θ)‖ = ρ on (λ₁, ∞)
    if bnorm > 0:
        def excess(theta: float) -> float:
            with np.errstate(divide="ignore", invalid="ignore"):
                terms = np.where(beta == 0, 0.0, beta / (theta - lam))
            return float(np.linalg.norm(terms)) - radius

        lo = l1 + max(abs(float(beta[-1])) / radius, 1e-15 * scale)
        hi = l1 + bnorm / radius
        # excess(hi) ≤ 0 in exact arithmetic, with equality when every λ_i equals λ₁ (e.g. P = a²I); rounding can
        # then make it slightly positive, so the bracket end is moved away from λ₁ until the sign is certain
        for _ in range(60):
            if not excess(hi) >= 0:
                break
            hi = l1 + 2.0 * (hi - l1)
        f_lo = excess(lo)
        if np.isfinite(f_lo) and f_lo > 0 and hi > lo:
            theta = optimize.brentq(excess, lo, hi, xtol=1e-15 * max(1.0, abs(hi)), rtol=4 * np.finfo(float).eps,
                           maxiter=500)
            z = -beta / (theta - lam)
            z *= radius / float(np.linalg.norm(z))
            candidates.append(z)
        elif np.isfinite(f_lo) and f_lo == 0:
            z = -beta / (lo - lam)
            candidates.append(z * radius / float(np.linalg.norm(z)))
    values = [_q(lam, beta, c0, z) for z in candidates]
    best = int(np.argmax(values))
    return values[best], candidates[best]


def maximize_on_ball_eig(evals: np.ndarray, evecs: np.ndarray, b: np.ndarray, c0: np.ndarray | float,
                         radius: float) -> tuple[np.ndarray, np.ndarray]:
    """Batched TRS from eigendecompositions P_k = V_k diag(λ_k) V_kᵀ (ascending, as ``numpy.linalg.eigh``).

    Args:
        evals: (..., d); evecs: (..., d, d); b: (..., d); c0: (...) or scalar; radius: ρ > 0.

    Returns:
        (values (...), maximisers (..., d)).
    """
    evals = np.asarray(evals, dtype=float)
    lead = evals.shape[:-1]
    d = evals.shape[-1]
    lam = evals.reshape(-1, d)
    V = np.asarray(evecs, dtype=float).reshape(-1, d, d)
    B = np.asarray(b, dtype=float).reshape(-1, d)
    C = np.broadcast_to(np.asarray(c0, dtype=float), lead).reshape(-1)
    beta = np.einsum("kij,ki->kj", V, B)
    values = np.empty(lam.shape[0])
    Z = np.empty_like(beta)
    for k in range(lam.shape[0]):  # one scalar root-finding per problem (brentq is scalar)
        values[k], Z[k] = _single(lam[k], beta[k], float(C[k]), float(radius))
    W = np.einsum("kij,kj->ki", V, Z)
    return values.reshape(lead), W.reshape(lead + (d,))


def maximize_on_ball(P: np.ndarray, b: np.ndarray, c0: np.ndarray | float,
                     radius: float) -> tuple[np.ndarray, np.ndarray]:
    """sup_{‖w‖≤ρ} wᵀPw − 2bᵀw + c₀ for symmetric P ⪰ 0, batched over leading axes: (values, maximisers)."""
    P = np.asarray(P, dtype=float)
    evals, evecs = np.linalg.eigh(0.5 * (P + np.swapaxes(P, -1, -2)))
    return maximize_on_ball_eig(evals, evecs, b, c0, radius)


def upper_bound(lam_max: np.ndarray, b_norm: np.ndarray, c0: np.ndarray, radius: float) -> np.ndarray:
    """Certified bound sup_{‖w‖≤ρ} q(w) ≤ max(λ_max, 0)ρ² + 2‖b‖ρ + c₀ (Cauchy–Schwarz), batched."""
    return np.maximum(lam_max, 0.0) * radius**2 + 2.0 * b_norm * radius + c0
