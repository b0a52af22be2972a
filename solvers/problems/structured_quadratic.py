r"""Federated quadratics in a shared eigenbasis: O(K·d) memory and O(K·d) work per round, exact constants.

Client k has

    f_k(w) = ½ (Vᵀw − c̃_k)ᵀ Λ_k (Vᵀw − c̃_k),   Q_k = V Λ_k Vᵀ,  Λ_k = diag(λ_k),  c_k = V c̃_k,

with one orthogonal basis V shared by every client and stored once, and per client only the eigenvalues
λ_k ∈ [μ, L]^d and the centre c̃_k (two K × d arrays; no K × d × d array is ever formed):

* ``structure=diagonal`` — V = I (diagonal client Hessians);
* ``structure=basis``    — V = H₁H₂⋯H_r, a product of r = ``reflections`` Householder reflections
  H_i = I − 2u_iu_iᵀ (‖u_i‖ = 1): orthogonal, stored as r vectors, applied in O(r·d).

Eigenvalues: ``spectra=random`` draws λ_kj log-uniform in [μ, L] and sets λ_00 = L and λ_01 = μ (d ≥ 2), so
max_kj λ_kj = L and min_kj λ_kj = μ exactly; ``spectra=common`` gives every client the log-spaced spectrum of
:func:`~fedrates.solvers.problems.quadratic.spectrum` (only the centres differ).  Centres c̃_k ~ N(0, s²I).
Weights π_k = 1/K.  Stochastic gradients: ∇f_k(w) + ζ, ζ ~ N(0, (σ²/d) I) (E‖ζ‖² = σ²).

Everything is closed form in the basis (z = Vᵀw), with λ̄ = Σ_k π_k λ_k:

    F(w) = Σ_k π_k f_k(w),  ∇F(w) = V(λ̄ ⊙ z − Σ_k π_k λ_k ⊙ c̃_k),
    z* = (Σ_k π_k λ_k ⊙ c̃_k) / λ̄,  w* = V z*,  F* = Σ_k π_k ½ Σ_j λ_kj (z*_j − c̃_kj)²,
    L = max_kj λ_kj,  μ = min_kj λ_kj (Assumptions of smoothness / strong convexity of every f_k),
    L_F = max_j λ̄_j,  μ_F = min_j λ̄_j,
    ζ*² = Σ_k π_k ‖∇f_k(w*)‖² = Σ_k π_k Σ_j λ_kj² (z*_j − c̃_kj)²  (heterogeneity at the optimum),
    Γ = F* − Σ_k π_k min f_k = F*   (min f_k = 0 at c_k; Buttaci & Calafiore Def. 3, Das et al. Δ*).

The certificate of the optimum (:func:`exact_reference`) is ‖∇F(w*)‖ evaluated from the dense mean quadratic
(Q̄ = V diag(λ̄) Vᵀ formed by applying V, a route independent of the closed form) with the strong-convexity bound
F(w*) − F* ≤ ‖∇F(w*)‖²/(2μ_F), μ_F certified from below by a Cholesky factorisation of Q̄ − lI.
:func:`fedrates.solvers.certify.for_structured` certifies the constants (witness and second route).

FedAvg and FedProx run a whole round of E local steps of every client in one pass over (λ_k, c̃_k)
(:func:`local_average`): in the basis the local recursion z ← z − η(λ_k ⊙ (z − c̃_k) + μ_p(z − x̃)) is
coordinatewise, so a round costs O(K·d) whatever E.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from fedrates.solvers.closed_form import ExactReference
from fedrates.solvers.errors import InputError
from fedrates.solvers.penalties import Zero
from fedrates.solvers.problems._params import Family, Param
from fedrates.solvers.problems.base import Problem
from fedrates.solvers.problems.datafits import Datafit
from fedrates.solvers.problems.quadratic import spectrum

__all__ = ["FAMILY", "StructuredQuadratic", "build", "exact_constants", "exact_reference", "footprint",
           "local_average", "DENSE_BUDGET"]

#: largest number of float64 entries of the dense (K, d, d) Hessian stack that ``hessians`` will form (128 MiB)
DENSE_BUDGET = 1 << 24
#: client rows processed together by the vectorised routines (bounds their temporaries to a few MiB)
_CHUNK = 1 << 19

STRUCTURES = ("diagonal", "basis")
SPECTRA = ("random", "common")

PARAMETERS = {
    "structure": Param("basis", "choice", "client Hessians: diagonal, or diagonal in one shared orthogonal basis",
                       choices=STRUCTURES),
    "spectra": Param("random", "choice", "client eigenvalues: log-uniform in [mu, L] per client (random) or one "
                     "common spectrum", choices=SPECTRA),
    "clients": Param(8, "int", "number of clients K >= 1", low=1),
    "dim": Param(10, "int", "dimension d >= 1", low=1),
    "mu": Param(0.1, "float", "smallest Hessian eigenvalue mu > 0", low=0.0, low_inclusive=False),
    "L": Param(1.0, "float", "largest Hessian eigenvalue L >= mu", low=0.0, low_inclusive=False),
    "spread": Param(1.0, "float", "std s of the client optima >= 0", low=0.0),
    "reflections": Param(2, "int", "Householder reflections r >= 1 whose product is the shared basis "
                         "(structure=basis)", low=1),
    "sigma": Param(0.0, "float", "stochastic gradient noise level sigma >= 0 (E||noise||^2 = sigma^2)", low=0.0),
    "seed": Param(0, "int", "seed of the data generator >= 0", low=0),
}

#: no presets: the standard claims build small instances from explicit parameters, and the sizes of 10⁵–10⁶
#: clients are explicit parameter sets of ``benchmarks/scale_clients.py`` (no claim of any profile builds them)
PRESETS: dict[str, dict] = {}


def footprint(params: dict) -> float:
    """Bytes an instance may hold: λ and c̃ (2·K·d), a working copy of the clients' points and gradients for the
    step-by-step algorithms (2·K·d), the dense mean quadratic and its factor for the reference (3·d²), float64."""
    K, d = params["clients"], params["dim"]
    return 8.0 * (4 * K * d + 3 * d * d)


def _check(p: dict) -> None:
    if p["L"] < p["mu"]:
        raise InputError(f"parameter L={p['L']} is smaller than mu={p['mu']}; expected L >= mu")


# ---- the shared basis --------------------------------------------------------------------------------------------
def _reflect(x: np.ndarray, u: np.ndarray) -> np.ndarray:
    """(I − 2uuᵀ)x along the last axis (in place on a fresh array)."""
    return x - 2.0 * (x @ u)[..., None] * u


@dataclass(eq=False)
class StructuredQuadratic(Datafit):
    """f_k(w) = ½(Vᵀw − c̃_k)ᵀ diag(λ_k)(Vᵀw − c̃_k) with V = H₁⋯H_r (see module docstring).

    Attributes: ``lam`` (K, d) eigenvalues, ``ctil`` (K, d) centres in the basis, ``reflectors`` (r, d) unit
    vectors u_i (r = 0: V = I)."""

    lam: np.ndarray
    ctil: np.ndarray
    reflectors: np.ndarray
    clients: int = field(init=False)
    dim: int = field(init=False)

    def __post_init__(self) -> None:
        self.clients, self.dim = self.lam.shape

    # ---- the basis ----
    def to_basis(self, w: np.ndarray) -> np.ndarray:
        """z = Vᵀw = H_r⋯H₁w along the last axis."""
        z = np.asarray(w, dtype=float)
        for u in self.reflectors:
            z = _reflect(z, u)
        return z

    def from_basis(self, z: np.ndarray) -> np.ndarray:
        """w = Vz = H₁⋯H_r z along the last axis."""
        w = np.asarray(z, dtype=float)
        for u in self.reflectors[::-1]:
            w = _reflect(w, u)
        return w

    @cached_property
    def basis(self) -> np.ndarray:
        """V as a dense d × d matrix (columns V e_j), formed by applying the reflections to the identity."""
        return self.from_basis(np.eye(self.dim)).T

    # ---- values and gradients ----
    def client_values(self, w: np.ndarray) -> np.ndarray:
        z = self.to_basis(w)  # (..., d)
        lead = z.shape[:-1]
        out = np.empty(lead + (self.clients,))
        step = max(1, _CHUNK // max(self.dim * max(math.prod(lead), 1), 1))
        for s in range(0, self.clients, step):
            diff = z[..., None, :] - self.ctil[s:s + step]
            out[..., s:s + step] = 0.5 * np.einsum("...kd,kd,...kd->...k", diff, self.lam[s:s + step], diff)
        return out

    def client_gradients(self, W: np.ndarray) -> np.ndarray:
        W = np.asarray(W, dtype=float)
        return self.from_basis(self.lam * (self.to_basis(W) - self.ctil))

    def pair_gradients(self, Wf: np.ndarray, clients: np.ndarray) -> np.ndarray:
        """∇f_k at per-(replica, client) points: Wf (R, m, d), clients (R, m) -> (R, m, d)."""
        return self.from_basis(self.lam[clients] * (self.to_basis(Wf) - self.ctil[clients]))

    def gradients_at(self, Wf: np.ndarray, clients: np.ndarray) -> np.ndarray:
        """Exact gradients at per-(replica, client) points: see :meth:`pair_gradients`."""
        return self.pair_gradients(Wf, clients)

    def hvp(self, k: int, v: np.ndarray) -> np.ndarray:
        """Q_k v = V(λ_k ⊙ Vᵀv) for one client."""
        return self.from_basis(self.lam[k] * self.to_basis(v))

    # ---- dense pieces (small instances only) ----
    @cached_property
    def hessians(self) -> np.ndarray:
        K, d = self.clients, self.dim
        if K * d * d > DENSE_BUDGET:
            raise InputError(f"the dense Hessians of a structured quadratic with clients={K}, dim={d} would need "
                             f"{8 * K * d * d / 2**30:.3g} GiB; use its structured routines")
        V = self.basis
        return np.einsum("ij,kj,lj->kil", V, self.lam, V)

    @cached_property
    def linear_terms(self) -> np.ndarray:
        """b_k = Q_k c_k = V(λ_k ⊙ c̃_k), (K, d)."""
        return self.from_basis(self.lam * self.ctil)

    @cached_property
    def offsets(self) -> np.ndarray:
        """c_k = ½ c̃_kᵀ Λ_k c̃_k, (K,)."""
        return 0.5 * np.einsum("kd,kd,kd->k", self.ctil, self.lam, self.ctil)

    def weighted_sums(self, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
        """(λ̄, Σ_k π_k λ_k ⊙ c̃_k, Σ_k π_k c_k) in O(K·d), chunked over clients."""
        lbar, lc, cbar = np.zeros(self.dim), np.zeros(self.dim), 0.0
        step = max(1, _CHUNK // self.dim)
        for s in range(0, self.clients, step):
            lam, ct, p = self.lam[s:s + step], self.ctil[s:s + step], weights[s:s + step]
            lc_rows = lam * ct
            lbar += p @ lam
            lc += p @ lc_rows
            cbar += 0.5 * float(p @ np.einsum("kd,kd->k", lc_rows, ct))
        return lbar, lc, cbar

    def mean_quadratic(self, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
        lbar, lc, cbar = self.weighted_sums(weights)
        V = self.basis
        Q = (V * lbar) @ V.T
        return 0.5 * (Q + Q.T), self.from_basis(lc), cbar


# ---- one round of local (proximal) gradient steps of every client, fused -----------------------------------------
def local_average(fit: StructuredQuadratic, clients: np.ndarray, weights: np.ndarray, x: np.ndarray, steps: int,
                  step: float, mu_prox: float = 0.0) -> np.ndarray:
    """Σ_j p_j w_j^E of E exact local steps w ← w − η(∇f_k(w) + μ_p(w − x)) from the server points x (R, d), in the
    basis, one pass over (λ_k, c̃_k): clients, weights (R, m) -> (R, d).  Coordinatewise the recursion is affine,
    z ← ρz + η(λc̃ + μ_p x̃) with ρ = 1 − η(λ + μ_p), so z_E = a + ρ^E(x̃ − a), a = (λc̃ + μ_p x̃)/(λ + μ_p) (equal
    to the step-by-step recursion up to rounding).  numba when available, else numpy over chunks
    of clients (same formula)."""
    xt = np.ascontiguousarray(fit.to_basis(x), dtype=float)
    clients = np.ascontiguousarray(clients, dtype=np.int64)
    weights = np.ascontiguousarray(weights, dtype=float)
    R, m = clients.shape
    out = np.zeros((R, fit.dim))
    from fedrates.solvers import kernels

    if kernels.BACKEND == "numba":
        kernels._nb().structured_local_average(fit.lam, fit.ctil, clients, weights, xt, int(steps), float(step),
                                               float(mu_prox), out)
    else:
        chunk = max(1, _CHUNK // fit.dim)
        for r in range(R):
            for s in range(0, m, chunk):
                ks = clients[r, s:s + chunk]
                lam, ct = fit.lam[ks], fit.ctil[ks]
                a = (lam * ct + mu_prox * xt[r]) / (lam + mu_prox)
                z = a + (1.0 - step * (lam + mu_prox)) ** steps * (xt[r] - a)
                out[r] += weights[r, s:s + chunk] @ z
    return fit.from_basis(out)


# ---- construction ------------------------------------------------------------------------------------------------
def build(params: dict, preset: str | None = None) -> Problem:
    K, d = params["clients"], params["dim"]
    mu, L = params["mu"], params["L"]
    rng = np.random.default_rng(np.random.SeedSequence(params["seed"]))
    r = params["reflections"] if params["structure"] == "basis" else 0
    U = rng.standard_normal((r, d))
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    lam = np.empty((K, d))
    ctil = np.empty((K, d))
    step = max(1, _CHUNK // d)
    common = spectrum(mu, L, d)
    lo, span = math.log(mu), math.log(L / mu)
    for s in range(0, K, step):  # in place, chunk by chunk: no K × d temporary
        block = lam[s:s + step]
        if params["spectra"] == "common":
            block[:] = common
        else:
            rng.random(out=block)
            np.multiply(block, span, out=block)
            np.add(block, lo, out=block)
            np.exp(block, out=block)
        rng.standard_normal(out=ctil[s:s + step])
    if params["spectra"] == "random":
        lam[0, 0] = L
        if d > 1:
            lam[0, 1] = mu
    np.clip(lam, mu, L, out=lam)  # exp/log rounding must not leave [μ, L]
    ctil *= params["spread"]
    fit = StructuredQuadratic(lam=lam, ctil=ctil, reflectors=U)
    return Problem(
        family="structured_quadratic", preset=preset, params=params, shape=(d,), weights=np.full(K, 1.0 / K),
        datafit=fit, penalty=Zero(), radius=None, sampling="gaussian", noise_std=params["sigma"],
        description=f"federated quadratics in a shared eigenbasis ({params['structure']}, {params['spectra']} "
                    "spectra)",
    )


# ---- exact optimum and constants ---------------------------------------------------------------------------------
def _optimum(problem: Problem) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(z*, λ̄, w*) in closed form."""
    fit = problem.datafit
    lbar, lc, _ = fit.weighted_sums(problem.weights)
    z = lc / lbar
    return z, lbar, fit.from_basis(z)


def _per_client(problem: Problem, z: np.ndarray) -> tuple[float, float]:
    """(F(Vz), Σ_k π_k ‖∇f_k(Vz)‖²) in the basis, O(K·d), chunked."""
    fit, p = problem.datafit, problem.weights
    val, het = 0.0, 0.0
    step = max(1, _CHUNK // fit.dim)
    for s in range(0, fit.clients, step):
        diff = z - fit.ctil[s:s + step]
        g = fit.lam[s:s + step] * diff
        val += 0.5 * float(p[s:s + step] @ np.einsum("kd,kd->k", g, diff))
        het += float(p[s:s + step] @ np.einsum("kd,kd->k", g, g))
    return val, het


def exact_constants(problem: Problem) -> dict[str, Any]:
    """The closed forms of the module docstring: L, μ (every f_k), L_F, μ_F (of F), w*, F*, ζ*² and Γ, with the
    witnesses (client, coordinate of the basis) of L and μ."""
    fit = problem.datafit
    z, lbar, w = _optimum(problem)
    f_star, zeta2 = _per_client(problem, z)
    kL, jL = np.unravel_index(int(np.argmax(fit.lam)), fit.lam.shape)
    km, jm = np.unravel_index(int(np.argmin(fit.lam)), fit.lam.shape)
    return {"L": float(fit.lam[kL, jL]), "mu": float(fit.lam[km, jm]), "L_F": float(lbar.max()),
            "mu_F": float(lbar.min()), "w_star": w, "z_star": z, "f_star": f_star, "zeta2": zeta2,
            "Gamma": f_star, "sigma2": float(problem.noise_std) ** 2,
            "witness_L": (int(kL), int(jL)), "witness_mu": (int(km), int(jm)),
            "witness_L_F": int(np.argmax(lbar)), "witness_mu_F": int(np.argmin(lbar))}


def exact_reference(problem: Problem) -> ExactReference:
    """w* in closed form with its certificate: g = Q̄w* − b̄ from the dense mean quadratic (independent of the
    closed form), μ_F ≥ l certified by a Cholesky factorisation of Q̄ − lI, gap ≤ ‖g‖²/(2l)."""
    from fedrates.solvers.certify import lambda_min_lower

    z, lbar, w = _optimum(problem)
    Q, b, _ = problem.quadratic
    g = Q @ w - b
    l_low = lambda_min_lower(Q[None], float(lbar.min()))
    gnorm = float(np.linalg.norm(g))
    gap = gnorm**2 / (2 * l_low) if l_low > 0 else math.inf
    value, _ = _per_client(problem, z)
    return ExactReference(w=w, value=value, gap=gap, gradient_norm=gnorm, mu_lower=l_low,
                          method="closed form (shared basis)")


def closed_form(problem: Problem, batch: int = 1, replace: bool = False, radius: float | None = None) -> Any:
    """The constants of ``fedrates constants`` in closed form (:class:`fedrates.solvers.closed_form.ClosedForm`) for
    the instances whose dense Hessian stack exceeds :data:`DENSE_BUDGET` (None otherwise: the dense route gives
    every constant). In the basis every Q_k = V diag(λ_k) Vᵀ, so L_k = max_j λ_kj, μ_k = min_j λ_kj, Q_i − Q_j =
    V diag(λ_i − λ_j) Vᵀ gives δ = max_j (max_k λ_kj − min_k λ_kj) and δ_mean = max_kj |λ_kj − λ̄_j|; the noise is
    additive, E‖ζ‖² = σ²/B at every w; Δ_k* = f_k(w*) (min f_k = 0 at c_k). Certificates:
    :func:`fedrates.solvers.certify_structured.for_structured`."""
    from fedrates.solvers import closed_form as cf
    from fedrates.solvers.certify_structured import for_structured

    fit = problem.datafit
    if fit.clients * fit.dim**2 <= DENSE_BUDGET:
        return None

    def make() -> Any:
        exact = exact_constants(problem)
        delta, delta_mean = cf.similarity(fit.lam, problem.weights)
        noise, noise_k, notes = cf.additive_noise(problem.noise_std, batch, problem.weights)
        delta_k = fit.client_values(exact["w_star"])
        scalars = {"L": exact["L"], "mu": exact["mu"], "Lambda": exact["L_F"], "mu_F": exact["mu_F"], **noise,
                   "Delta_star_max": float(delta_k.max()), "delta": delta, "delta_mean": delta_mean, "tau": 0.0,
                   "nu": 0.0}
        per_client = {"L_k": fit.lam.max(axis=1), "mu_k": fit.lam.min(axis=1), **noise_k, "Delta_star": delta_k}
        notes |= cf.NO_TRUTH
        uncertified = {"delta": "closed form in the shared basis (no second route)",
                       "delta_mean": "closed form in the shared basis (no second route)"}
        return cf.assemble("closed form in the shared basis", scalars, per_client, notes, for_structured(problem),
                           uncertified)

    return cf.timed(make)


FAMILY = Family("structured_quadratic", "quadratics in a shared eigenbasis, O(K d) memory (many clients)",
                PARAMETERS, PRESETS, build, (_check,), footprint=footprint, closed_form=closed_form)
