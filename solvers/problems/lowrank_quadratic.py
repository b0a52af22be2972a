r"""Federated quadratics with diagonal-plus-rank-one client Hessians: O(K·d) memory, exact constants and optimum.

Client k has

    f_k(w) = ½ (w − c_k)ᵀ Q_k (w − c_k),   Q_k = diag(δ_k) + u_k u_kᵀ   (diagonal plus rank one),

weights π_k = 1/K, and per client only δ_k, u_k and c_k are stored (three K × d arrays; no K × d × d array is formed
except by :attr:`LowRankQuadratic.hessians`, for instances within :data:`DENSE_BUDGET`).  With r = w − c_k and
a_k = u_kᵀr:

    f_k(w) = ½ (Σ_j δ_kj r_j² + a_k²),   ∇f_k(w) = δ_k ⊙ r + a_k u_k   (O(d), no Hessian formed),
    b_k = Q_k c_k = δ_k ⊙ c_k + (u_kᵀc_k) u_k,   f_k(w) = ½wᵀQ_kw − b_kᵀw + ½c_kᵀQ_kc_k.

Data: δ_kj log-uniform in [μ, L] with δ_00 = L and δ_01 = μ (d ≥ 2), clipped to [μ, L]; ‖u_k‖² uniform in
[0, boost] and u_k/‖u_k‖ uniform on the sphere; c_k ~ N(0, s²I).  Stochastic gradients: ∇f_k(w) + ζ,
ζ ~ N(0, (σ²/d) I) (E‖ζ‖² = σ²).

Per-client eigenvalues (secular equation).  For Q = D + uuᵀ, D = diag(δ), every eigenvalue λ ∉ {δ_j} solves
g(λ) = 1 − Σ_j u_j²/(λ − δ_j) = 0, and det(Q − λI) = det(D − λI)·g(λ) (matrix determinant lemma).  Weyl's
inequalities for the positive semidefinite rank-one update give

    λ_max(Q) ∈ [max_j δ_j, max_j δ_j + ‖u‖²],   λ_min(Q) ∈ [δ_(1), min(δ_(2), δ_(1) + u_(1)²)]

(δ_(1) ≤ δ_(2) the two smallest entries, u_(1) the entry of u at δ_(1); δ_(1) + u_(1)² is the Rayleigh quotient at
that coordinate vector).  On each bracket the sign of g decides the side of the root:

* t > max_j δ_j: tI − D ≻ 0, so tI − Q has at most one non-positive eigenvalue and det(tI − Q) = det(tI − D)·g(t);
  hence λ_max(Q) < t ⟺ g(t) > 0;
* δ_(1) < t < δ_(2): D − tI has exactly one negative eigenvalue, Q − tI = (D − tI) + uuᵀ has at most one
  (interlacing) and det(Q − tI) = det(D − tI)·g(t) with det(D − tI) < 0; hence λ_min(Q) > t ⟺ g(t) < 0.

:func:`extreme_eigenvalues` bisects on these predicates, vectorised over clients (chunks of clients, O(K·d) per
iteration, until every bracket is two adjacent floats).  The degenerate cases need no special branch: u = 0, or
u_(1) = 0, or a repeated smallest entry δ_(1) = δ_(2) give the empty bracket λ_min = δ_(1); u_j = 0 at every
largest entry lets the bisection converge to λ_max = max_j δ_j when g > 0 on the whole bracket, and u_(2) = 0 to
λ_min = δ_(2) when g < 0 on it.  The witness eigenvector of an extreme client (:func:`witness_vector`) is
v = (λI − D)⁻¹u with λ recomputed relative to the nearest pole (so that λ − δ_j keeps its relative accuracy when λ
is within a few ulps of a δ_j), or in the degenerate cases a coordinate vector e_j (u_j = 0) or u_b e_a − u_a e_b on
a repeated entry δ_a = δ_b = λ (orthogonal to u).

Constants and optimum (:func:`exact_constants`), with Q̄ = Σ_k π_k Q_k = diag(Σ_k π_kδ_k) + Σ_k π_k u_ku_kᵀ formed
densely in O(K·d²) (Uᵀ diag(π) U on chunks of clients) and b̄ = Σ_k π_k b_k:

    L = max_k λ_max(Q_k),  μ = min_k λ_min(Q_k)  (smoothness / strong convexity of every f_k),
    L_F = λ_max(Q̄),  μ_F = λ_min(Q̄)  (dense symmetric eigendecomposition of Q̄),
    w* = Q̄⁻¹ b̄ (Cholesky),  F* = Σ_k π_k ½(Σ_j δ_kj r_kj² + a_k²),  r_k = w* − c_k,  a_k = u_kᵀr_k,
    ζ*² = Σ_k π_k ‖∇f_k(w*)‖² = Σ_k π_k (Σ_j δ_kj² r_kj² + 2a_k Σ_j δ_kj u_kj r_kj + ‖u_k‖² a_k²),
    Γ = F* − Σ_k π_k min f_k = F*   (min f_k = 0 at c_k; Buttaci & Calafiore Def. 3, Das et al. Δ*).

The certificate of the optimum (:func:`exact_reference`) is ‖∇F(w*)‖ with ∇F(w*) = Σ_k π_k ∇f_k(w*) summed from
every client's gradient (a route independent of the dense solve) and F(w*) − F* ≤ ‖∇F(w*)‖²/(2l), l ≤ μ_F certified
by a Cholesky factorisation of Q̄ − lI.  :func:`fedrates.solvers.certify.for_lowrank` certifies the constants
(witness and second route).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from fedrates.solvers.closed_form import ExactReference, mean_gradient
from fedrates.solvers.errors import InputError
from fedrates.solvers.penalties import Zero
from fedrates.solvers.problems._params import Family, Param
from fedrates.solvers.problems.base import Problem
from fedrates.solvers.problems.datafits import Datafit

__all__ = ["FAMILY", "ExactReference", "LowRankQuadratic", "build", "exact_constants", "exact_reference",
           "extreme_eigenvalues", "footprint", "local_average", "mean_gradient", "witness_vector", "DENSE_BUDGET"]

#: largest number of float64 entries of the dense (K, d, d) Hessian stack that ``hessians`` will form (128 MiB)
DENSE_BUDGET = 1 << 24
#: entries (client rows × d) processed together by the vectorised routines (bounds their temporaries to a few MiB)
_CHUNK = 1 << 19
#: cap on the bisection steps of the secular solver: halving a float bracket reaches two adjacent floats in at most
#: 2·1074 + 53 steps (in practice 53 + log2((hi − lo)/lo), about 55 for the brackets of this family)
_BISECTIONS = 2200
_EPS = float(np.finfo(float).eps)

PARAMETERS = {
    "clients": Param(8, "int", "number of clients K >= 1", low=1),
    "dim": Param(10, "int", "dimension d >= 1", low=1),
    "mu": Param(0.1, "float", "smallest diagonal entry mu > 0", low=0.0, low_inclusive=False),
    "L": Param(1.0, "float", "largest diagonal entry L >= mu", low=0.0, low_inclusive=False),
    "boost": Param(1.0, "float", "largest squared norm of the rank-one terms u_k, boost >= 0", low=0.0),
    "spread": Param(1.0, "float", "std s of the client optima >= 0", low=0.0),
    "sigma": Param(0.0, "float", "stochastic gradient noise level sigma >= 0 (E||noise||^2 = sigma^2)", low=0.0),
    "seed": Param(0, "int", "seed of the data generator >= 0", low=0),
}

#: no presets: instances are built from explicit parameters
PRESETS: dict[str, dict] = {}


def footprint(params: dict) -> float:
    """Bytes an instance may hold: δ, u and c (3·K·d), the clients' points, gradients and temporaries of the
    step-by-step algorithms (4·K·d), the dense mean quadratic, its factor and eigenvectors (3·d²), float64."""
    K, d = params["clients"], params["dim"]
    return 8.0 * (7 * K * d + 3 * d * d)


def _check(p: dict) -> None:
    if p["L"] < p["mu"]:
        raise InputError(f"parameter L={p['L']} is smaller than mu={p['mu']}; expected L >= mu")


def _rows(d: int, lead: int = 1) -> int:
    """Client rows per chunk for arrays of d columns (times ``lead`` leading points)."""
    return max(1, _CHUNK // max(d * max(lead, 1), 1))


@dataclass(eq=False)
class LowRankQuadratic(Datafit):
    """f_k(w) = ½(w − c_k)ᵀ(diag(δ_k) + u_ku_kᵀ)(w − c_k) (see module docstring).

    Attributes: ``delta`` (K, d) diagonals δ_k, ``u`` (K, d) rank-one vectors u_k, ``centres`` (K, d) minimisers
    c_k."""

    delta: np.ndarray
    u: np.ndarray
    centres: np.ndarray
    clients: int = field(init=False)
    dim: int = field(init=False)

    def __post_init__(self) -> None:
        self.clients, self.dim = self.delta.shape

    # ---- values and gradients ----
    def client_values(self, w: np.ndarray) -> np.ndarray:
        """f_k(w) = ½(Σ_j δ_kj r_j² + (u_kᵀr)²), r = w − c_k: (..., d) -> (..., K), chunked over clients."""
        w = np.asarray(w, dtype=float)
        lead = w.shape[:-1]
        out = np.empty(lead + (self.clients,))
        step = _rows(self.dim, math.prod(lead))
        for s in range(0, self.clients, step):
            r = w[..., None, :] - self.centres[s:s + step]
            a = np.einsum("...kd,kd->...k", r, self.u[s:s + step])
            out[..., s:s + step] = 0.5 * (np.einsum("...kd,kd,...kd->...k", r, self.delta[s:s + step], r) + a * a)
        return out

    def client_gradients(self, W: np.ndarray) -> np.ndarray:
        """∇f_k(W_k) = δ_k ⊙ r + (u_kᵀr)u_k, r = W_k − c_k: (..., K, d) -> (..., K, d)."""
        r = np.asarray(W, dtype=float) - self.centres
        a = np.einsum("...kd,kd->...k", r, self.u)
        r *= self.delta
        r += a[..., None] * self.u
        return r

    def pair_gradients(self, Wf: np.ndarray, clients: np.ndarray) -> np.ndarray:
        """∇f_k at per-(replica, client) points: Wf (R, m, d), clients (R, m) -> (R, m, d), O(m·d), chunked over
        the pairs (no Hessian; a run of consecutive clients is read in place, any other set gathered a chunk at a
        time)."""
        Wf = np.asarray(Wf, dtype=float)
        d = self.dim
        ks = np.asarray(clients).reshape(-1)
        X = Wf.reshape(-1, d)
        out = np.empty((ks.size, d))
        step = _rows(d)
        for s in range(0, ks.size, step):
            k = ks[s:s + step]
            if k[-1] - k[0] == k.size - 1 and (k.size == 1 or bool(np.all(np.diff(k) == 1))):
                k = slice(int(k[0]), int(k[-1]) + 1)  # consecutive clients: views, no gather
            u, o = self.u[k], out[s:s + step]
            np.subtract(X[s:s + step], self.centres[k], out=o)
            a = np.einsum("kd,kd->k", o, u)
            o *= self.delta[k]
            o += a[:, None] * u
        return out.reshape(Wf.shape)

    def gradients_at(self, Wf: np.ndarray, clients: np.ndarray) -> np.ndarray:
        """Exact gradients for the oracles (:func:`fedrates.solvers.oracles.exact_gradients`): see
        :meth:`pair_gradients`."""
        return self.pair_gradients(Wf, clients)

    def hvp(self, k: int, v: np.ndarray) -> np.ndarray:
        """Q_k v = δ_k ⊙ v + (u_kᵀv)u_k for one client."""
        v = np.asarray(v, dtype=float)
        return self.delta[k] * v + (v @ self.u[k]) * self.u[k]

    # ---- dense pieces ----
    @cached_property
    def hessians(self) -> np.ndarray:
        """Q_k = diag(δ_k) + u_ku_kᵀ, (K, d, d); refused beyond :data:`DENSE_BUDGET` entries."""
        K, d = self.clients, self.dim
        if K * d * d > DENSE_BUDGET:
            raise InputError(f"the dense Hessians of a lowrank quadratic with clients={K}, dim={d} would need "
                             f"{8 * K * d * d / 2**30:.3g} GiB; use its structured routines")
        Q = np.einsum("ki,kj->kij", self.u, self.u)
        idx = np.arange(d)
        Q[:, idx, idx] += self.delta
        return Q

    @cached_property
    def linear_terms(self) -> np.ndarray:
        """b_k = Q_k c_k = δ_k ⊙ c_k + (u_kᵀc_k)u_k, (K, d), chunked."""
        out = np.empty((self.clients, self.dim))
        step = _rows(self.dim)
        for s in range(0, self.clients, step):
            c, u = self.centres[s:s + step], self.u[s:s + step]
            np.multiply(self.delta[s:s + step], c, out=out[s:s + step])
            out[s:s + step] += np.einsum("kd,kd->k", u, c)[:, None] * u
        return out

    @cached_property
    def offsets(self) -> np.ndarray:
        """½ c_kᵀQ_kc_k = ½(Σ_j δ_kj c_kj² + (u_kᵀc_k)²), (K,)."""
        out = np.empty(self.clients)
        step = _rows(self.dim)
        for s in range(0, self.clients, step):
            c, u = self.centres[s:s + step], self.u[s:s + step]
            a = np.einsum("kd,kd->k", u, c)
            out[s:s + step] = 0.5 * (np.einsum("kd,kd,kd->k", c, self.delta[s:s + step], c) + a * a)
        return out

    def mean_quadratic(self, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
        """(Q̄, b̄, c̄) = Σ_k π_k (Q_k, b_k, ½c_kᵀQ_kc_k): Q̄ = diag(Σ_k π_kδ_k) + Uᵀdiag(π)U accumulated by BLAS
        over chunks of clients (O(K·d²) time, O(d²) memory), symmetrised; b̄ and c̄ in O(K·d)."""
        weights = np.asarray(weights, dtype=float)
        d = self.dim
        Q = np.zeros((d, d))
        b = np.zeros(d)
        cbar = 0.0
        dbar = np.zeros(d)
        step = _rows(d)
        for s in range(0, self.clients, step):
            p, delta = weights[s:s + step], self.delta[s:s + step]
            c, u = self.centres[s:s + step], self.u[s:s + step]
            Q += (u * p[:, None]).T @ u
            dbar += p @ delta
            a = np.einsum("kd,kd->k", u, c)
            b += p @ (delta * c) + (p * a) @ u
            cbar += 0.5 * float(p @ (np.einsum("kd,kd,kd->k", c, delta, c) + a * a))
        Q = 0.5 * (Q + Q.T)
        Q[np.diag_indices(d)] += dbar
        return Q, b, cbar


# ---- the secular equation of a diagonal-plus-rank-one matrix, vectorised over clients --------------------------
def _secular_sum(t: np.ndarray, delta: np.ndarray, u2: np.ndarray, buf: np.ndarray) -> np.ndarray:
    """Σ_j u_j²/(t − δ_j) per row (1 − g(t)); ``buf`` a scratch array of delta's shape."""
    np.subtract(t[:, None], delta, out=buf)
    np.divide(u2, buf, out=buf)
    return buf.sum(axis=1)


def _bisect(lo: np.ndarray, hi: np.ndarray, delta: np.ndarray, u2: np.ndarray, largest: bool) -> np.ndarray:
    """Bisection on the sign of g over the brackets [lo, hi] (see module docstring): for λ_max, g(t) > 0 (λ_max < t)
    moves hi down to t; for λ_min, g(t) ≥ 0 (λ_min ≤ t) moves hi down to t; otherwise lo moves up.  Inside a
    bracket no t equals a δ_j (the brackets hold no pole in their interior), so every division is by a non-zero
    number.  Stops when every bracket is two adjacent floats (about 53 + log2((hi − lo)/lo) steps); returns the
    midpoint of the final bracket.  The numba backend bisects one client at a time, its row in cache for all the
    halvings (:func:`fedrates.solvers._kernels_numba.secular_bisect`; its sums are reassociated, so a root may end
    a few floats apart: the certificates check the values returned, whichever backend computed them)."""
    from fedrates.solvers import kernels

    if kernels.BACKEND == "numba":
        out = np.empty(delta.shape[0])
        kernels._nb().secular_bisect(np.ascontiguousarray(lo, dtype=float), np.ascontiguousarray(hi, dtype=float),
                                     np.ascontiguousarray(delta), np.ascontiguousarray(u2), bool(largest),
                                     _BISECTIONS, out)
        return out
    buf = np.empty_like(delta)
    for _ in range(_BISECTIONS):
        mid = 0.5 * (lo + hi)
        active = (mid > lo) & (mid < hi)
        if not active.any():
            break
        with np.errstate(divide="ignore", invalid="ignore"):  # a collapsed bracket (inactive) may sit on a pole
            S = _secular_sum(mid, delta, u2, buf)  # g(mid) = 1 − S
        down = active & ((S < 1.0) if largest else ~(S > 1.0))
        hi = np.where(down, mid, hi)
        lo = np.where(active & ~down, mid, lo)
    return 0.5 * (lo + hi)


def _brackets(delta: np.ndarray, u: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                                         np.ndarray]:
    """(u², [lo, hi] of λ_max, [lo, hi] of λ_min) of a chunk of clients (Weyl brackets of the module docstring,
    the upper ends widened by a few rounding errors of their sums)."""
    d = delta.shape[1]
    u2 = u * u
    rows = np.arange(delta.shape[0])
    dmax = delta.max(axis=1)
    s = u2.sum(axis=1)
    hi_max = np.where(s > 0, (dmax + s * (1 + (d + 2) * _EPS)) * (1 + 2 * _EPS), dmax)
    j1 = np.argmin(delta, axis=1)
    d1 = delta[rows, j1]
    d2 = np.partition(delta, 1, axis=1)[:, 1] if d >= 2 else np.full_like(d1, np.inf)
    ray = d1 + u2[rows, j1]
    hi_min = np.minimum(d2, np.where(ray > d1, ray * (1 + 2 * _EPS), d1))
    return u2, dmax, hi_max, d1, hi_min


def extreme_eigenvalues(delta: np.ndarray, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(λ_min(Q_k), λ_max(Q_k)) of Q_k = diag(δ_k) + u_ku_kᵀ for every row k of δ, u (K, d), by bisection on the
    secular equation (module docstring), chunked over clients: O(K·d) memory and work per bisection step."""
    delta = np.asarray(delta, dtype=float)
    u = np.asarray(u, dtype=float)
    K, d = delta.shape
    lam_min, lam_max = np.empty(K), np.empty(K)
    step = _rows(d)
    for s in range(0, K, step):
        D, U = delta[s:s + step], u[s:s + step]
        u2, dmax, hi_max, d1, hi_min = _brackets(D, U)
        lam_max[s:s + step] = _bisect(dmax, hi_max, D, u2, largest=True)
        lam_min[s:s + step] = _bisect(d1, hi_min, D, u2, largest=False)
    return lam_min, lam_max


def witness_vector(delta: np.ndarray, u: np.ndarray, lam: float, largest: bool) -> np.ndarray:
    """A unit eigenvector of Q = diag(δ) + uuᵀ for its extreme eigenvalue ``lam`` (one client).

    The root is recomputed relative to the nearest pole o (max_j δ_j for λ_max; δ_(1) or δ_(2), whichever is nearer
    to ``lam``, for λ_min): τ = λ − o by bisection on g(o + τ) = 1 − Σ_j u_j²/(τ − (δ_j − o)), so that the
    denominators δ_j − λ = (δ_j − o) − τ of v = (λI − D)⁻¹u keep their relative accuracy when λ is within a few
    ulps of a pole.  Among that v (when no denominator vanishes), the coordinate vectors e_j of the extreme
    diagonal entries and u_b e_a − u_a e_b on a repeated extreme entry δ_a = δ_b (orthogonal to u), the one of
    smallest residual ‖(D − λI)v + u(uᵀv)‖ (in the shifted coordinates) is returned."""
    delta = np.asarray(delta, dtype=float)
    u = np.asarray(u, dtype=float)
    d = delta.size
    u2 = u * u
    if largest:
        o = float(delta.max())
        lo = 0.0
        hi = float(u2.sum()) * (1 + (d + 2) * _EPS) * (1 + 2 * _EPS)
        values = [o]
    else:
        j1 = int(np.argmin(delta))
        d1 = float(delta[j1])
        d2 = float(np.partition(delta, 1)[1]) if d >= 2 else math.inf
        top = min(d2, d1 + float(u2[j1]) * (1 + 2 * _EPS))
        if math.isfinite(d2) and lam - d1 > d2 - lam:
            o, lo, hi = d2, d1 - d2, min(0.0, top - d2)
        else:
            o, lo, hi = d1, 0.0, top - d1
        values = [d1, d2] if math.isfinite(d2) else [d1]
    shift = delta - o
    for _ in range(_BISECTIONS):
        mid = 0.5 * (lo + hi)
        if not lo < mid < hi:
            break
        S = float(np.sum(u2 / (mid - shift)))
        if (S < 1.0) if largest else not (S > 1.0):
            hi = mid
        else:
            lo = mid
    tau = 0.5 * (lo + hi)
    den = tau - shift
    candidates = [u / den] if np.all(den != 0) else []
    for val in values:
        J = np.flatnonzero(delta == val)
        for j in J:
            e = np.zeros(d)
            e[j] = 1.0
            candidates.append(e)
        if J.size >= 2:
            a, b = J[0], J[1]
            v = np.zeros(d)
            v[a], v[b] = u[b], -u[a]
            candidates.append(v)
    best, best_res = None, math.inf
    for v in candidates:
        n = float(np.linalg.norm(v))
        if not (math.isfinite(n) and n > 0):
            continue
        v = v / n
        res = float(np.linalg.norm((shift - tau) * v + (u @ v) * u))
        if res < best_res:
            best, best_res = v, res
    return best


# ---- one round of local (proximal) gradient steps of every client, fused -----------------------------------------
def local_average(fit: LowRankQuadratic, clients: np.ndarray, weights: np.ndarray, x: np.ndarray, steps: int,
                  step: float, mu_prox: float = 0.0) -> np.ndarray:
    """Σ_j p_j w_j^E after E exact local steps w ← w − η(∇f_k(w) + μ_p(w − x)) from the server points x (R, d), one
    pass over (δ_k, u_k, c_k) per client: clients, weights (R, m) -> (R, d).  In e = w − c_k the step is
    e ← e − η(δ_k ⊙ e + (u_kᵀe)u_k + μ_p(e − e₀)), e₀ = x − c_k: O(E·d) per client on one client's rows at a time
    (held in cache for the E steps) instead of E passes over the (R, m, d) points; equal to the step-by-step round
    up to rounding.  numba when available, else numpy over chunks of clients (same recursion)."""
    x = np.ascontiguousarray(x, dtype=float)
    clients = np.ascontiguousarray(clients, dtype=np.int64)
    weights = np.ascontiguousarray(weights, dtype=float)
    R, m = clients.shape
    out = np.zeros((R, fit.dim))
    from fedrates.solvers import kernels

    if kernels.BACKEND == "numba":
        kernels._nb().lowrank_local_average(fit.delta, fit.u, fit.centres, clients, weights, x, int(steps),
                                            float(step), float(mu_prox), out)
        return out
    chunk = _rows(fit.dim)
    for r in range(R):
        for s in range(0, m, chunk):
            ks = clients[r, s:s + chunk]
            delta, u, centres = fit.delta[ks], fit.u[ks], fit.centres[ks]
            e0 = x[r] - centres
            e = e0.copy()
            for _ in range(steps):
                a = np.einsum("kd,kd->k", u, e)
                e -= step * (delta * e + a[:, None] * u + mu_prox * (e - e0))
            out[r] += weights[r, s:s + chunk] @ (centres + e)
    return out


# ---- construction ------------------------------------------------------------------------------------------------
def build(params: dict, preset: str | None = None) -> Problem:
    K, d = params["clients"], params["dim"]
    mu, L = params["mu"], params["L"]
    rng = np.random.default_rng(np.random.SeedSequence(params["seed"]))
    delta = np.empty((K, d))
    u = np.empty((K, d))
    centres = np.empty((K, d))
    step = _rows(d)
    lo, span = math.log(mu), math.log(L / mu)
    boost = params["boost"]
    for s in range(0, K, step):  # in place, chunk by chunk: no K × d temporary
        block = delta[s:s + step]
        rng.random(out=block)
        np.multiply(block, span, out=block)
        np.add(block, lo, out=block)
        np.exp(block, out=block)
        ub = u[s:s + step]
        rng.standard_normal(out=ub)
        norms2 = np.einsum("kd,kd->k", ub, ub)
        scale = np.sqrt(rng.random(ub.shape[0]) * boost / np.where(norms2 > 0, norms2, 1.0))
        ub *= scale[:, None]
        rng.standard_normal(out=centres[s:s + step])
    delta[0, 0] = L
    if d > 1:
        delta[0, 1] = mu
    np.clip(delta, mu, L, out=delta)  # exp/log rounding must not leave [μ, L]
    centres *= params["spread"]
    fit = LowRankQuadratic(delta=delta, u=u, centres=centres)
    return Problem(
        family="lowrank_quadratic", preset=preset, params=params, shape=(d,), weights=np.full(K, 1.0 / K),
        datafit=fit, penalty=Zero(), radius=None, sampling="gaussian", noise_std=params["sigma"],
        description="federated quadratics with diagonal-plus-rank-one Hessians",
    )


# ---- exact optimum and constants ---------------------------------------------------------------------------------
def _optimum(problem: Problem) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(Q̄, b̄, w*) with w* = Q̄⁻¹b̄ by a Cholesky factorisation."""
    from scipy.linalg import cho_factor, cho_solve

    Q, b, _ = problem.quadratic
    return Q, b, cho_solve(cho_factor(Q, lower=True), b)


def _per_client(problem: Problem, w: np.ndarray) -> tuple[float, float]:
    """(F(w), Σ_k π_k ‖∇f_k(w)‖²) by the expanded forms of the module docstring, O(K·d), chunked."""
    fit, p = problem.datafit, problem.weights
    val, het = 0.0, 0.0
    step = _rows(fit.dim)
    for s in range(0, fit.clients, step):
        r = w - fit.centres[s:s + step]
        delta, u = fit.delta[s:s + step], fit.u[s:s + step]
        a = np.einsum("kd,kd->k", u, r)
        dr = delta * r
        val += 0.5 * float(p[s:s + step] @ (np.einsum("kd,kd->k", dr, r) + a * a))
        het += float(p[s:s + step] @ (np.einsum("kd,kd->k", dr, dr) + 2 * a * np.einsum("kd,kd->k", dr, u)
                                      + np.einsum("kd,kd->k", u, u) * a * a))
    return val, het


def exact_constants(problem: Problem) -> dict[str, Any]:
    """The constants of the module docstring: L, μ (every f_k) from the secular equation with their witness clients
    and eigenvectors, L_F, μ_F (of F) with the eigenvectors of Q̄, w*, F*, ζ*², Γ and σ², and the per-client
    extreme eigenvalues ``client_lambda_min``/``client_lambda_max``."""
    fit = problem.datafit
    lam_min, lam_max = extreme_eigenvalues(fit.delta, fit.u)
    kL, km = int(np.argmax(lam_max)), int(np.argmin(lam_min))
    Q, _, w = _optimum(problem)
    ev, V = np.linalg.eigh(Q)
    f_star, zeta2 = _per_client(problem, w)
    return {"L": float(lam_max[kL]), "mu": float(lam_min[km]), "L_F": float(ev[-1]), "mu_F": float(ev[0]),
            "w_star": w, "f_star": f_star, "zeta2": zeta2, "Gamma": f_star, "sigma2": float(problem.noise_std) ** 2,
            "witness_L": kL, "witness_mu": km,
            "witness_L_vector": witness_vector(fit.delta[kL], fit.u[kL], float(lam_max[kL]), largest=True),
            "witness_mu_vector": witness_vector(fit.delta[km], fit.u[km], float(lam_min[km]), largest=False),
            "witness_L_F_vector": V[:, -1].copy(), "witness_mu_F_vector": V[:, 0].copy(),
            "client_lambda_min": lam_min, "client_lambda_max": lam_max}


def exact_reference(problem: Problem) -> ExactReference:
    """w* with its certificate: g = ∇F(w*) from every client's gradient (independent of the dense solve), μ_F ≥ l
    certified by a Cholesky factorisation of Q̄ − lI, gap ≤ ‖g‖²/(2l)."""
    from fedrates.solvers.certify import lambda_min_lower

    Q, _, w = _optimum(problem)
    g = mean_gradient(problem, w)
    l_low = lambda_min_lower(Q[None], float(np.linalg.eigvalsh(Q)[0]))
    gnorm = float(np.linalg.norm(g))
    gap = gnorm**2 / (2 * l_low) if l_low > 0 else math.inf
    value, _ = _per_client(problem, w)
    return ExactReference(w=w, value=value, gap=gap, gradient_norm=gnorm, mu_lower=l_low,
                          method="Cholesky solve of the mean quadratic (diagonal plus rank one)")


def closed_form(problem: Problem, batch: int = 1, replace: bool = False, radius: float | None = None) -> Any:
    """The constants of ``fedrates constants`` in closed form (:class:`fedrates.solvers.closed_form.ClosedForm`) for
    the instances whose dense Hessian stack exceeds :data:`DENSE_BUDGET` (None otherwise: the dense route gives
    every constant): L_k = λ_max(Q_k) and μ_k = λ_min(Q_k) from the secular equation (:func:`extreme_eigenvalues`),
    Λ and μ_F of the dense mean Hessian, E‖ζ‖² = σ²/B at every w (additive noise), Δ_k* = f_k(w*) (min f_k = 0 at
    c_k). The pairwise δ has no closed form without a shared basis and is not computed. Certificates:
    :func:`fedrates.solvers.certify_lowrank.for_lowrank`."""
    from fedrates.solvers import closed_form as cf
    from fedrates.solvers.certify_lowrank import for_lowrank

    fit = problem.datafit
    if fit.clients * fit.dim**2 <= DENSE_BUDGET:
        return None

    def make() -> Any:
        exact = exact_constants(problem)
        noise, noise_k, notes = cf.additive_noise(problem.noise_std, batch, problem.weights)
        delta_k = fit.client_values(exact["w_star"])
        scalars = {"L": exact["L"], "mu": exact["mu"], "Lambda": exact["L_F"], "mu_F": exact["mu_F"], **noise,
                   "Delta_star_max": float(delta_k.max()), "tau": 0.0, "nu": 0.0}
        per_client = {"L_k": exact["client_lambda_max"], "mu_k": exact["client_lambda_min"], **noise_k,
                      "Delta_star": delta_k}
        notes |= cf.NO_TRUTH
        return cf.assemble("closed form of the diagonal-plus-rank-one Hessians (secular equation)", scalars,
                           per_client, notes, for_lowrank(problem))

    return cf.timed(make)


FAMILY = Family("lowrank_quadratic", "quadratics with diagonal-plus-rank-one Hessians, O(K d) memory (many clients)",
                PARAMETERS, PRESETS, build, (_check,), footprint=footprint, closed_form=closed_form)
