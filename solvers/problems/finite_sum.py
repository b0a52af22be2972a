"""Finite-sum federations for Dinh et al., "Federated Learning with Proximal Stochastic Variance Reduced Gradient
Algorithms" (ICPP 2020): every device holds D_n samples with per-sample losses f_i, so that the SVRG and SARAH
estimators (8a)/(8b) can evaluate the *same* sample at two points.

Per-sample loss of sample i of device n (model w ∈ ℝ^d, shared centre c):

    f_i(w) = ½(x_iᵀw − y_i)² + ½(w − c)ᵀE_n(w − c),     F_n = (1/D_n) Σ_i f_i,   F̄ = Σ_n (D_n/D) F_n  (2).

Families (by default equal D_n = ``samples`` on every device, so p_n = D_n/D = 1/N; ``size_levels`` = k > 0 gives
unequal sizes D_n = ``samples``/2^(n mod (k+1)), p_n = D_n/D, so that the server average of line 12 and the objective
(2) weight the devices differently.  A device of D_n distinct samples is stored as ``samples`` rows, each distinct
sample repeated ``samples``/D_n times: F_n, its sample Hessians and the uniform law of a drawn sample are exactly those
of the D_n distinct samples):

* ``dinh_ls``  — realisable least squares (E_n = 0): y_i = x_iᵀw* with the *same* w* on every device and
  heterogeneous covariances x_i = S_n z_i, S_n = diag(exp(s·g_n)), g_n, z_i ~ N(0, I).  Every sample gradient
  vanishes at w*, so assumption (5) holds with the finite σ_n = ‖(A_n − Ā)Ā⁻¹‖₂.  ``noise`` > 0 adds label noise
  y_i = x_iᵀw* + noise·ε_i: then the devices' minimisers differ and σ_n = ∞ (the theory does not apply).
* ``dinh_nc``  — non-convex quadratics: E_n = ±e·(u uᵀ − ½ v vᵀ)·(−1)^n with orthonormal u, v and devices in
  ± pairs (Σ_n p_n E_n = 0, N even), so that Ā = Σ_n p_n X_nᵀX_n/D_n ≻ 0 while the A_n of the "−" devices are
  indefinite for e large enough; y_i = x_iᵀc so every sample gradient vanishes at c = w* (assumption (5) finite).

``dinh_ls`` is stored as a :class:`ShiftedSampleLeastSquares` with E = 0 (exactly a
:class:`~fedrates.solvers.problems.datafits.SampleLeastSquares`: every generic tool sees its samples).  ``dinh_nc``
is stored as the exact per-device quadratics (a :class:`~fedrates.solvers.problems.datafits.DenseQuadratic` with
Q_n = A_n, so generic constants, references and oracles are exact; its ``sampling`` is ``gaussian`` with σ = 0, i.e.
generic algorithms get exact gradients) and its per-sample structure in ``problem.extras["finite_sum"]``, from which
the FedProxVR algorithms draw samples through :func:`sample_gradients` (shift included).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from fedrates.solvers.errors import InputError
from fedrates.solvers.penalties import Zero
from fedrates.solvers.problems._params import Family, Param
from fedrates.solvers.problems.base import Problem
from fedrates.solvers.problems.datafits import DenseQuadratic, SampleLeastSquares

__all__ = ["ShiftedSampleLeastSquares", "FiniteSum", "finite_sum", "sample_gradients", "device_sizes", "LS_FAMILY",
           "NC_FAMILY"]


@dataclass(eq=False)
class ShiftedSampleLeastSquares(SampleLeastSquares):
    """f_k(w) = (1/2n)‖X_k w − y_k‖² + ½(w − c)ᵀE_k(w − c): X (K, n, d), y (K, n), E (K, d, d), c (d,)."""

    E: np.ndarray = None  # type: ignore[assignment]
    centre: np.ndarray = None  # type: ignore[assignment]

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.E is None:
            self.E = np.zeros((self.clients, self.dim, self.dim))
        if self.centre is None:
            self.centre = np.zeros(self.dim)

    def client_values(self, w: np.ndarray) -> np.ndarray:
        u = w - self.centre
        shift = 0.5 * np.einsum("...d,kde,...e->...k", u, self.E, u)
        return super().client_values(w) + shift

    def client_gradients(self, W: np.ndarray) -> np.ndarray:
        return super().client_gradients(W) + np.einsum("kde,...ke->...kd", self.E, W - self.centre)

    @cached_property
    def hessians(self) -> np.ndarray:
        return np.einsum("kid,kie->kde", self.X, self.X) / self.samples + self.E

    @cached_property
    def linear_terms(self) -> np.ndarray:
        return np.einsum("kid,ki->kd", self.X, self.y) / self.samples + self.E @ self.centre

    @cached_property
    def offsets(self) -> np.ndarray:
        return 0.5 * np.mean(self.y * self.y, axis=-1) + 0.5 * np.einsum("d,kde,e->k", self.centre, self.E,
                                                                         self.centre)

    def mean_quadratic(self, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
        return (np.einsum("k,kij->ij", weights, self.hessians), weights @ self.linear_terms,
                float(weights @ self.offsets))


@dataclass(frozen=True)
class FiniteSum:
    """Per-sample structure of a federation: f_i(w) = ½(x_iᵀw − y_i)² + ½(w − c)ᵀE_n(w − c).

    X (K, n, d), y (K, n), E (K, d, d) (zeros for plain least squares), c (d,)."""

    X: np.ndarray
    y: np.ndarray
    E: np.ndarray
    c: np.ndarray
    shifted: bool = field(default=False)

    @property
    def samples(self) -> int:
        return int(self.X.shape[1])

    @cached_property
    def sample_hessians(self) -> np.ndarray:
        """Q_i = x_i x_iᵀ + E_n, shape (K, n, d, d)."""
        return np.einsum("kid,kie->kide", self.X, self.X) + self.E[:, None]


def finite_sum(problem: Problem) -> Any:
    """The per-sample structure of ``problem`` (empirical least squares, optionally shifted, or the softmax losses
    of :mod:`fedrates.solvers.problems.dinh_synthetic`), or None."""
    extra = problem.extras.get("finite_sum")
    if isinstance(extra, FiniteSum) or hasattr(extra, "sample_gradients"):
        return extra
    fit = problem.datafit
    if not isinstance(fit, SampleLeastSquares) or len(problem.shape) != 1:
        return None
    if isinstance(fit, ShiftedSampleLeastSquares):
        return FiniteSum(fit.X, fit.y, fit.E, fit.centre, shifted=bool(np.any(fit.E)))
    return FiniteSum(fit.X, fit.y, np.zeros((fit.clients, fit.dim, fit.dim)), np.zeros(fit.dim))


def sample_gradients(fs: FiniteSum, W: np.ndarray, clients: np.ndarray, idx: np.ndarray,
                     *others: np.ndarray) -> np.ndarray | tuple[np.ndarray, ...]:
    """(1/B) Σ_{i∈I} ∇f_i(W) per (replica, client): W (R, m, d), clients (R, m), idx (R, m, B) -> (R, m, d).

    With further points ``others`` (same shape as W), the gradients of the *same* minibatch at every point are
    returned as a tuple (the rows are gathered once).  Structures with their own ``sample_gradients`` (softmax losses)
    compute it themselves."""
    if not isinstance(fs, FiniteSum):
        return fs.sample_gradients(W, clients, idx, *others)
    Xb = fs.X[clients[..., None], idx]  # (R, m, B, d)
    yb = fs.y[clients[..., None], idx]
    B = idx.shape[-1]
    E = fs.E[clients] if fs.shifted else None
    out = []
    for P in (W, *others):
        resid = (Xb @ P[..., None])[..., 0] - yb
        G = (resid[..., None, :] @ Xb)[..., 0, :] / B
        if E is not None:
            G += (E @ (P - fs.c)[..., None])[..., 0]
        out.append(G)
    return out[0] if not others else tuple(out)


# ---------------------------------------------------------------------------------------------- families
_COMMON = {
    "clients": Param(4, "int", "number of devices N >= 1", low=1),
    "samples": Param(8, "int", "samples per device D_n >= 1", low=1),
    "dim": Param(3, "int", "dimension d >= 1", low=1),
    "seed": Param(0, "int", "seed of the data generator >= 0", low=0),
    "size_levels": Param(0, "int", "unequal sizes: device n holds D_n = samples/2^(n mod (k+1)) distinct samples, "
                         "p_n = D_n/D (k = size_levels >= 0; samples divisible by 2^k)", low=0),
}

LS_PARAMETERS = {
    **_COMMON,
    "scale_spread": Param(0.5, "float", "std s of the log covariate scales per device (heterogeneity) >= 0", low=0.0),
    "noise": Param(0.0, "float", "label noise std >= 0 (> 0 breaks assumption (5): sigma_n = inf)", low=0.0),
}

NC_PARAMETERS = {
    **_COMMON,
    "clients": Param(4, "int", "number of devices N >= 2, even (devices come in +/- pairs)", low=2),
    "shift": Param(1.5, "float", "size e >= 0 of the +/- Hessian shifts E_n (indefinite A_n for e large)", low=0.0),
}


def _check_sizes(p: dict) -> None:
    k = p.get("size_levels", 0)
    if p["samples"] % (2**k):
        raise InputError(f"parameter samples={p['samples']} must be divisible by 2^size_levels = {2**k}")


def device_sizes(params: dict) -> np.ndarray:
    """D_n = samples/2^(n mod (k+1)), k = ``size_levels`` (all equal to ``samples`` when k = 0)."""
    K, n, k = params["clients"], params["samples"], params.get("size_levels", 0)
    return n // 2 ** (np.arange(K) % (k + 1))


def _weights(params: dict) -> np.ndarray:
    sizes = device_sizes(params).astype(float)
    return sizes / sizes.sum()


def _draw(params: dict, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    K, n, d = params["clients"], params["samples"], params["dim"]
    scales = np.exp(params.get("scale_spread", 0.5) * rng.standard_normal((K, d)))
    X = rng.standard_normal((K, n, d)) * scales[:, None, :]
    w_star = rng.standard_normal(d)
    if params.get("size_levels", 0):
        # device n keeps its first D_n samples, each repeated n/D_n times (same F_n, same uniform sample law)
        for k, size in enumerate(device_sizes(params)):
            X[k] = np.repeat(X[k, :size], n // size, axis=0)
    return X, w_star


def build_ls(params: dict, preset: str | None = None) -> Problem:
    K, n, d = params["clients"], params["samples"], params["dim"]
    data_rng, noise_rng = (np.random.default_rng(s) for s in np.random.SeedSequence(params["seed"]).spawn(2))
    X, w_star = _draw(params, data_rng)
    noise = noise_rng.standard_normal((K, n))
    for k, size in enumerate(device_sizes(params)):
        noise[k] = np.repeat(noise[k, :size], n // size)  # a repeated sample keeps its label (no-op when D_n = n)
    y = X @ w_star + params["noise"] * noise
    fit = ShiftedSampleLeastSquares(X=X, y=y, centre=w_star)  # E = 0: the centre only records w*
    return Problem(family="dinh_ls", preset=preset, params=params, shape=(d,), weights=_weights(params),
                   datafit=fit, penalty=Zero(lam=0.0), truth=w_star, sampling="empirical",
                   description="realisable least squares with heterogeneous covariances (Dinh et al. 2020, (5))")


def _check_nc(p: dict) -> None:
    if p["clients"] % 2:
        raise InputError(f"parameter clients={p['clients']} must be even (devices come in +/- pairs)")
    if p["dim"] < 2:
        raise InputError(f"parameter dim={p['dim']} must be >= 2 (the shifts use two orthonormal directions)")
    if min(device_sizes(p)) < p["dim"]:
        raise InputError(f"parameter samples={p['samples']} must be >= dim={p['dim']} on every device (D_n = "
                         f"{min(device_sizes(p))} with size_levels={p.get('size_levels', 0)})")


def build_nc(params: dict, preset: str | None = None) -> Problem:
    K, d = params["clients"], params["dim"]
    rng = np.random.default_rng(np.random.SeedSequence(params["seed"]).spawn(1)[0])
    X, w_star = _draw({**params, "scale_spread": 0.0}, rng)
    q, _ = np.linalg.qr(rng.standard_normal((d, 2)))
    u, v = q[:, 0], q[:, 1]
    base = params["shift"] * (np.outer(u, u) - 0.5 * np.outer(v, v))
    signs = np.where(np.arange(K) < K // 2, -1.0, 1.0)
    E = signs[:, None, None] * base[None]
    samples = ShiftedSampleLeastSquares(X=X, y=X @ w_star, E=E, centre=w_star)
    if np.linalg.eigvalsh(samples.mean_quadratic(_weights(params))[0]).min() <= 0:
        raise InputError("the drawn average Hessian is not positive definite; increase samples or change seed")
    fit = DenseQuadratic(Q=samples.hessians, b=samples.linear_terms, c=samples.offsets)
    return Problem(family="dinh_nc", preset=preset, params=params, shape=(d,), weights=_weights(params),
                   datafit=fit, penalty=Zero(lam=0.0), truth=w_star, sampling="gaussian", noise_std=0.0,
                   description="non-convex quadratics with indefinite device Hessians and PD average (Dinh et al.)",
                   extras={"finite_sum": FiniteSum(X, X @ w_star, E, w_star, shifted=True)})


LS_FAMILY = Family(
    name="dinh_ls", description="realisable finite-sum least squares, heterogeneous covariances (Dinh et al. 2020)",
    parameters=LS_PARAMETERS,
    presets={"dinh-tiny": {"clients": 3, "samples": 4, "dim": 2},
             "dinh-noisy": {"clients": 4, "samples": 16, "dim": 4, "noise": 0.5}},
    builder=build_ls, checks=(_check_sizes,),
)
NC_FAMILY = Family(
    name="dinh_nc", description="non-convex finite-sum quadratics, indefinite A_n, PD average (Dinh et al. 2020)",
    parameters=NC_PARAMETERS, presets={}, builder=build_nc, checks=(_check_nc, _check_sizes),
)
