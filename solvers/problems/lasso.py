"""Federated sparse linear regression (Lasso), Bao et al. 2022, Example 3.1 and §4 (Figure 1).

Model: y = xᵀw° + ε with w° = (1_s, 0_{p−s}) (times ``signal``), client covariates x = δ_k + z, δ_k ~ N(0, h²I)
drawn once per client (heterogeneity), z ~ N(0, Σ) with Σ_ij = ρ_c^{|i−j|}, ε ~ N(0, σ_ε²).

Objective (empirical):  φ(w) = Σ_k π_k (1/2n)‖X_k w − y_k‖² + λ‖w‖₁ over {‖w‖₂ ≤ ρ}, π_k = n_k/N (equal n).
Objective (population): φ(w) = Σ_k π_k ½(w − w°)ᵀ(Σ + δ_kδ_kᵀ)(w − w°) + ½σ_ε² + λ‖w‖₁.

Preset ``bao-lasso`` reproduces §4: 64 clients × 128 samples, p = 1024, s = 512, ρ_c = 0.5, h = 1, σ_ε = 1,
λ = 0.5⁵.
"""

from __future__ import annotations

import numpy as np

from fedrates.solvers.errors import InputError
from fedrates.solvers.penalties import L1
from fedrates.solvers.problems._params import Family, Param
from fedrates.solvers.problems.base import Problem
from fedrates.solvers.problems.datafits import GaussianPopulation, SampleLeastSquares

PARAMETERS = {
    "clients": Param(8, "int", "number of clients K >= 1", low=1),
    "samples": Param(64, "int", "samples per client n_k >= 1", low=1),
    "dim": Param(32, "int", "dimension p >= 1", low=1),
    "sparsity": Param(8, "int", "number s of nonzero entries of the ground truth, 0 <= s <= dim", low=0),
    "signal": Param(1.0, "float", "value of the nonzero entries of the ground truth"),
    "correlation": Param(0.5, "float", "AR(1) correlation of the covariates, 0 <= c < 1", low=0.0),
    "heterogeneity": Param(1.0, "float", "std h of the per-client covariate shift delta_k >= 0", low=0.0),
    "noise": Param(1.0, "float", "std of the observation noise >= 0", low=0.0),
    "lam": Param(0.5**5, "float", "regularisation lambda >= 0", low=0.0),
    "radius": Param(None, "optional_float", "radius rho > 0 of the l2-ball domain (none = unconstrained)",
                    low=0.0, low_inclusive=False),
    "sampling": Param("empirical", "choice", "stochastic gradient sampling", choices=("empirical", "population")),
    "seed": Param(0, "int", "seed of the data generator >= 0", low=0),
}

PRESETS = {
    "bao-lasso": {"clients": 64, "samples": 128, "dim": 1024, "sparsity": 512, "correlation": 0.5,
                  "heterogeneity": 1.0, "noise": 1.0, "lam": 0.5**5},
}


def _check(p: dict) -> None:
    if p["sparsity"] > p["dim"]:
        raise InputError(f"parameter sparsity={p['sparsity']} exceeds dim={p['dim']}; expected sparsity <= dim")
    if p["correlation"] >= 1:
        raise InputError(f"parameter correlation={p['correlation']} must be < 1")


def _ar1_powers(dim: int, correlation: float) -> np.ndarray:
    """c^k for k = 0..dim−1 (``correlation ** k`` elementwise, the same values as the power of each lag)."""
    return correlation ** np.arange(dim)


def ar1_covariance(dim: int, correlation: float) -> np.ndarray:
    """Σ_ij = c^{|i−j|} (the powers are computed once per lag and gathered)."""
    idx = np.arange(dim)
    return _ar1_powers(dim, correlation)[np.abs(idx[:, None] - idx[None, :])]


def ar1_factor(dim: int, correlation: float) -> np.ndarray:
    """The lower Cholesky factor L of Σ_ij = c^{|i−j|} in closed form (LLᵀ = Σ):
    L_ij = c^{i−j} for j = 0 and c^{i−j}√(1 − c²) for 1 ≤ j ≤ i (the AR(1) recursion below, written as a matrix)."""
    idx = np.arange(dim)
    lag = idx[:, None] - idx[None, :]
    factor = np.where(lag >= 0, _ar1_powers(dim, correlation)[np.maximum(lag, 0)], 0.0)
    factor[:, 1:] *= np.sqrt(1.0 - correlation**2)
    return factor


#: rows per tile of the blocked transposes in :func:`ar1_transform` (a tile of 32 rows × p columns stays in cache)
_TILE = 32


def _transpose_into(out: np.ndarray, src: np.ndarray) -> None:
    """out[...] = src.T for 2-d arrays, tile by tile: numpy's one-shot transposed copy walks memory with a large
    stride and is 3–6× slower on a (8192 × 1024) array."""
    for i in range(0, src.shape[0], _TILE):
        out[:, i:i + _TILE] = src[i:i + _TILE].T


def _ar1_columns(noise: np.ndarray, correlation: float) -> np.ndarray:
    """The AR(1) recursion of :func:`ar1_transform` on noise of shape (rows, p), returned transposed: (p, rows).

    Each step is one vectorized update over all rows of a contiguous (p, rows) copy made by a blocked transpose."""
    z = np.empty((noise.shape[1], noise.shape[0]))
    _transpose_into(z, noise)
    scale = np.sqrt(1.0 - correlation**2)
    for j in range(1, z.shape[0]):
        z[j] *= scale
        z[j] += correlation * z[j - 1]
    return z


def ar1_transform(noise: np.ndarray, correlation: float) -> np.ndarray:
    """``noise @ L.T`` for the factor :func:`ar1_factor`, by the AR(1) recursion along the last axis:
    z_0 = e_0, z_j = c·z_{j−1} + √(1 − c²)·e_j — O(size) instead of a dense (p × p) product (the bao-lasso preset's
    64 × 128 × 1024 draws take milliseconds instead of seconds).  The result is C-contiguous."""
    flat = noise.reshape(-1, noise.shape[-1])
    out = np.empty(flat.shape)
    _transpose_into(out, _ar1_columns(flat, correlation))
    return out.reshape(noise.shape)


def _covariates(noise: np.ndarray, correlation: float, deltas: np.ndarray,
                truth: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(X, X @ truth) with X_k = δ_k + AR(1)(noise_k): X C-contiguous of shape (K, n, p) (written over ``noise``, a
    C-contiguous array the caller gives up), X @ truth of shape (K, n).

    Bit-for-bit the values of ``deltas[:, None, :] + ar1_transform(noise)`` and of its product with the truth as
    computed in the (p, n) client layout (one BLAS matrix-vector product per client), which is the layout the
    recursion leaves: the generated data, and so every cache key derived from it, do not depend on how fast the
    generator is."""
    K, n, p = noise.shape
    cols = _ar1_columns(noise.reshape(K * n, p), correlation).reshape(p, K, n)
    cols += deltas.T[:, :, None]
    signal = np.matmul(cols.transpose(1, 2, 0), truth)  # per client: x_iᵀw° with the client's (p, n) block
    X = noise.reshape(K * n, p)  # the draws are no longer needed: their buffer receives X
    _transpose_into(X, cols.reshape(p, K * n))
    return X.reshape(K, n, p), signal


def build(params: dict, preset: str | None = None) -> Problem:
    K, n, p = params["clients"], params["samples"], params["dim"]
    data_rng, shift_rng = (np.random.default_rng(s) for s in np.random.SeedSequence(params["seed"]).spawn(2))
    truth = np.zeros(p)
    truth[: params["sparsity"]] = params["signal"]
    cov = ar1_covariance(p, params["correlation"])
    factor = ar1_factor(p, params["correlation"])
    deltas = params["heterogeneity"] * shift_rng.standard_normal((K, p))
    weights = np.full(K, 1.0 / K)  # π_k = n_k / N with equal n_k
    if params["sampling"] == "population":
        datafit = GaussianPopulation(means=deltas, cov=cov, cov_factor=factor, truth=truth,
                                     noise_std=params["noise"])
    else:
        X, signal = _covariates(data_rng.standard_normal((K, n, p)), params["correlation"], deltas, truth)
        y = signal + params["noise"] * data_rng.standard_normal((K, n))
        datafit = SampleLeastSquares(X=X, y=y)
    return Problem(
        family="lasso", preset=preset, params=params, shape=(p,), weights=weights, datafit=datafit,
        penalty=L1(lam=params["lam"]), radius=params["radius"], truth=truth, sampling=params["sampling"],
        description="federated sparse linear regression (Bao et al. 2022, Example 3.1)",
        extras={"deltas": deltas, "covariance": cov, "covariance_factor": factor},
    )


FAMILY = Family("lasso", "sparse linear regression with an l1 penalty (Bao et al. 2022 §4)", PARAMETERS, PRESETS,
                build, (_check,))
