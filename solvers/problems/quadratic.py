"""Federated quadratics with exactly known constants.

    f_k(w) = ½(w − c_k)ᵀQ_k(w − c_k),   φ(w) = Σ_k π_k f_k(w) + λ‖w‖₁ (optional) over {‖w‖ ≤ ρ} (optional).

Stochastic gradients: ∇f_k(w) + ζ with ζ ~ N(0, (σ²/d) I), so E‖ζ‖² = σ² exactly.

Structures (``structure``):

* ``random``     — Q_k = V_k diag(λ_k) V_kᵀ, V_k Haar, λ_k log-spaced in [μ, L] (λ_min = μ, λ_max = L exactly);
  c_k ~ N(0, s²I).
* ``factors``    — Das, Hashemi, Sanghavi, Dhillon, "On the Convergence of Differentially Private Federated
  Learning on Non-Lipschitz Objectives", §5.3: Q_k = A_kA_kᵀ with A_k (d × m) i.i.d. N(0, f²) (rank m),
  c_k ~ N(0, s²I).
* ``similar``    — prescribed Hessian similarity (Bylinkin et al., "Accelerated Methods with Complexity Separation
  Under Data Similarity"): a global H = V diag(λ) Vᵀ with λ log-spaced in [μ, L] and Q_k = H + (δ/2) U diag(t_k) Uᵀ
  with t_k ∈ [−1, 1]^d, Σ_k π_k t_k = 0 (clients come in ± pairs; K must be even) and t_0[0] = 1 = −t_{K/2}[0], so
  max_{i,j}‖Q_i − Q_j‖₂ = δ exactly and the mean Hessian is exactly H.
* ``clustered``  — groups of clients with similar Hessians and optima (Buttaci & Calafiore, "Aiding Global
  Convergence in Federated Learning via Local Perturbation and Mutual Similarity Information"): cluster g
  has H_g (Haar, spectrum in [μ, L]) and centre c_g ~ N(0, s²I); client k in cluster g has Q_k = R_k H_g R_kᵀ with
  R_k = exp(θ S_k) a rotation by angle θ (``angle`` degrees; S_k skew-symmetric of spectral norm 1) and
  c_k = c_g + N(0, w²I) (``within``).
* ``realisable`` — every client minimised by the same c (c_k = c for all k), the setting that assumption (5) of
  Dinh et al., "Federated Learning with Proximal Stochastic Variance Reduced Gradient Algorithms" silently
  requires; Q_k as in ``random``.

The default σ = 0 makes stochastic gradients exact (runs with different seeds coincide); ``fedrates run`` says so.
"""

from __future__ import annotations

import numpy as np

from fedrates.solvers.errors import InputError
from fedrates.solvers.penalties import L1, Zero
from fedrates.solvers.problems._params import Family, Param
from fedrates.solvers.problems.base import Problem
from fedrates.solvers.problems.datafits import DenseQuadratic

STRUCTURES = ("random", "factors", "similar", "clustered", "realisable")

PARAMETERS = {
    "structure": Param("random", "choice", "how the client quadratics are drawn", choices=STRUCTURES),
    "clients": Param(8, "int", "number of clients K >= 1", low=1),
    "dim": Param(10, "int", "dimension d >= 1", low=1),
    "mu": Param(0.1, "float", "smallest Hessian eigenvalue mu > 0", low=0.0, low_inclusive=False),
    "L": Param(1.0, "float", "largest Hessian eigenvalue L >= mu", low=0.0, low_inclusive=False),
    "spread": Param(1.0, "float", "std s of the client (or cluster) optima >= 0", low=0.0),
    "delta": Param(0.05, "float", "Hessian similarity max_ij ||Q_i - Q_j|| >= 0 (structure=similar)", low=0.0),
    "clusters": Param(2, "int", "number of clusters >= 1 (structure=clustered)", low=1),
    "within": Param(0.1, "float", "std of client optima around their cluster centre >= 0", low=0.0),
    "angle": Param(5.0, "float", "rotation angle in degrees of client Hessians within a cluster >= 0", low=0.0),
    "inner": Param(20, "int", "rank m >= 1 of Q_k = A_k A_k^T (structure=factors)", low=1),
    "factor_std": Param(0.05, "float", "std of the entries of A_k (structure=factors) > 0", low=0.0,
                        low_inclusive=False),
    "sigma": Param(0.0, "float", "stochastic gradient noise level sigma >= 0 (E||noise||^2 = sigma^2); the default 0 "
                   "makes stochastic gradients exact, so runs with different seeds coincide", low=0.0),
    "lam": Param(0.0, "float", "l1 regularisation lambda >= 0 (0 = smooth problem)", low=0.0),
    "radius": Param(None, "optional_float", "radius rho > 0 of the l2-ball domain (none = unconstrained)",
                    low=0.0, low_inclusive=False),
    "weight_skew": Param(0.0, "float", "client weights pi_k proportional to exp(skew * g_k), g_k ~ N(0,1)",
                         low=0.0),
    "seed": Param(0, "int", "seed of the data generator >= 0", low=0),
}

PRESETS = {
    "das-quadratic": {"structure": "factors", "clients": 100, "dim": 200, "inner": 20, "factor_std": 1 / 20,
                      "spread": 1.0},
    "similar-quadratic": {"structure": "similar", "clients": 10, "dim": 20, "mu": 0.01, "L": 2.0, "delta": 0.05},
    "realisable-quadratic": {"structure": "realisable", "clients": 10, "dim": 10, "mu": 0.5, "L": 5.0},
}


def _check(p: dict) -> None:
    if p["L"] < p["mu"]:
        raise InputError(f"parameter L={p['L']} is smaller than mu={p['mu']}; expected L >= mu")
    if p["structure"] == "similar" and p["clients"] % 2:
        raise InputError(f"parameter clients={p['clients']} must be even for structure=similar")
    if p["structure"] == "similar" and p["weight_skew"]:
        raise InputError("parameter weight_skew must be 0 for structure=similar (the mean Hessian must be exact)")
    if p["structure"] == "clustered" and p["clusters"] > p["clients"]:
        raise InputError(f"parameter clusters={p['clusters']} exceeds clients={p['clients']}")


def haar_orthogonal(rng: np.random.Generator, d: int) -> np.ndarray:
    """A Haar-distributed orthogonal matrix (QR of a Gaussian matrix with the sign convention of Mezzadri)."""
    q, r = np.linalg.qr(rng.standard_normal((d, d)))
    return q * np.sign(np.diag(r))


def spectrum(mu: float, L: float, d: int) -> np.ndarray:
    """d eigenvalues log-spaced from mu to L (both attained exactly)."""
    return np.geomspace(mu, L, d) if d > 1 else np.array([mu])


def _random_hessian(rng: np.random.Generator, mu: float, L: float, d: int) -> np.ndarray:
    V = haar_orthogonal(rng, d)
    H = (V * spectrum(mu, L, d)) @ V.T
    return 0.5 * (H + H.T)


def _hessians_and_centres(p: dict, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    K, d, s = p["clients"], p["dim"], p["spread"]
    kind = p["structure"]
    if kind == "random":
        Q = np.stack([_random_hessian(rng, p["mu"], p["L"], d) for _ in range(K)])
        return Q, s * rng.standard_normal((K, d))
    if kind == "realisable":
        Q = np.stack([_random_hessian(rng, p["mu"], p["L"], d) for _ in range(K)])
        return Q, np.broadcast_to(s * rng.standard_normal(d), (K, d)).copy()
    if kind == "factors":
        A = p["factor_std"] * rng.standard_normal((K, d, p["inner"]))
        return np.einsum("kim,kjm->kij", A, A), s * rng.standard_normal((K, d))
    if kind == "similar":
        H = _random_hessian(rng, p["mu"], p["L"], d)
        U = haar_orthogonal(rng, d)
        half = rng.uniform(-1.0, 1.0, (K // 2, d))
        half[0, 0] = 1.0
        t = np.concatenate([half, -half])
        Q = H[None] + 0.5 * p["delta"] * np.einsum("ij,kj,lj->kil", U, t, U)
        return 0.5 * (Q + np.swapaxes(Q, 1, 2)), s * rng.standard_normal((K, d))
    # clustered
    G = p["clusters"]
    labels = np.arange(K) % G
    Hg = np.stack([_random_hessian(rng, p["mu"], p["L"], d) for _ in range(G)])
    centres = s * rng.standard_normal((G, d))
    from scipy.linalg import expm  # lazy: keeps the command line fast

    theta = np.deg2rad(p["angle"])
    Q = np.empty((K, d, d))
    for k in range(K):
        S = rng.standard_normal((d, d))
        S = S - S.T
        norm = np.linalg.norm(S, 2)
        R = expm(theta * S / norm) if norm > 0 else np.eye(d)
        Q[k] = R @ Hg[labels[k]] @ R.T
    Q = 0.5 * (Q + np.swapaxes(Q, 1, 2))
    return Q, centres[labels] + p["within"] * rng.standard_normal((K, d))


def build(params: dict, preset: str | None = None) -> Problem:
    K, d = params["clients"], params["dim"]
    rng = np.random.default_rng(np.random.SeedSequence(params["seed"]))
    Q, centres = _hessians_and_centres(params, rng)
    if params["weight_skew"] > 0:
        raw = np.exp(params["weight_skew"] * rng.standard_normal(K))
        weights = raw / raw.sum()
    else:
        weights = np.full(K, 1.0 / K)
    b = np.einsum("kij,kj->ki", Q, centres)
    c = 0.5 * np.einsum("ki,ki->k", b, centres)
    penalty = L1(lam=params["lam"]) if params["lam"] > 0 else Zero()
    extras = {"centres": centres}
    if params["structure"] == "clustered":
        extras["labels"] = np.arange(K) % params["clusters"]
    return Problem(
        family="quadratic", preset=preset, params=params, shape=(d,), weights=weights,
        datafit=DenseQuadratic(Q=Q, b=b, c=c), penalty=penalty, radius=params["radius"],
        truth=centres[0].copy() if params["structure"] == "realisable" else None,
        sampling="gaussian", noise_std=params["sigma"],
        description=f"federated quadratics ({params['structure']})", extras=extras,
    )


FAMILY = Family("quadratic", "quadratics with exactly known constants (the papers' presets)", PARAMETERS, PRESETS,
                build, (_check,))
