r"""Federated least squares with implicit features: O(K·n) memory, real minibatches of samples, exact constants.

C is the orthonormal DCT-II matrix of size d (z = Cw is ``scipy.fft.dct(w, norm="ortho")``, w = Cᵀz its inverse
``idct``, O(d log d) along the last axis; C is formed densely only for small instances).  Client k holds n ≥ d
samples; sample i has the feature a_ki = s_ki Cᵀe_{j_ki} (a scaled row of C, so a_kiᵀw = s_ki (Cw)_{j_ki}) and the
label y_ki = a_kiᵀw♮_k + ε_ki.  Only j_ki (int32), s_ki and y_ki are stored: three K × n arrays.

Data (one generator ``default_rng(SeedSequence(seed))``, clients drawn in chunks):

* j_k = a random permutation of (i mod d)_{i<n} per client, so every coordinate is seen ⌊n/d⌋ or ⌈n/d⌉ times;
* s_ki = √(d·t_ki) with t_ki log-uniform in [μ₀, L₀] (parameters ``mu``, ``L``): the per-sample curvature
  s_ki²/n summed over the ≈ n/d samples of a coordinate gives λ_kj ∈ [μ₀⌊n/d⌋d/n, L₀⌈n/d⌉d/n] (⊂ [μ₀, L₀] when d
  divides n);
* w♮ ~ N(0, I/d), w♮_k = w♮ + h·N(0, I/d) (h = ``heterogeneity``), ε_ki ~ N(0, σ_ε²) (σ_ε = ``noise``).

Closed forms, in coefficients z = Cw (per client k, I_kj = {i : j_ki = j}):

    f_k(w) = (1/2n) Σ_i (s_ki z_{j_ki} − y_ki)² = ½ zᵀdiag(λ_k)z − β_kᵀz + c_k,
    λ_kj = (1/n) Σ_{i∈I_kj} s_ki²,  β_kj = (1/n) Σ_{i∈I_kj} s_ki y_ki,  c_k = (1/2n) Σ_i y_ki²,
    Q_k = Cᵀdiag(λ_k)C,  b_k = Cᵀβ_k,  ∇f_k(w) = Cᵀ(λ_k ⊙ z − β_k);

with π_k = 1/K, λ̄ = Σ_k π_k λ_k and β̄ = Σ_k π_k β_k:

    z* = β̄ / λ̄,  w* = Cᵀz*,  F* = Σ_k π_k f_k(w*),
    L = max_kj λ_kj,  μ = min_kj λ_kj  (smoothness / strong convexity of every f_k),  L_F = max_j λ̄_j,  μ_F = min_j λ̄_j,
    ζ*² = Σ_k π_k ‖∇f_k(w*)‖² = Σ_k π_k ‖λ_k ⊙ z* − β_k‖²,
    min f_k = c_k − ½ Σ_j β_kj²/λ_kj  (at z = β_k/λ_k),  Γ = F* − Σ_k π_k min f_k.

Minibatch oracle (:mod:`fedrates.solvers.oracles`, ``empirical`` sampling): g_k(w) = (1/B) Σ_{i∈batch} a_ki(a_kiᵀw −
y_ki) over B distinct samples drawn uniformly without replacement (or B independent uniform draws with
``replace``).  With ∇ℓ_ki(w) = a_ki(a_kiᵀw − y_ki), ‖∇ℓ_ki(w)‖² = s_ki²(s_ki z_{j_ki} − y_ki)² (C orthonormal), and
its variance is the finite-population formula

    V_k(w) = E‖g_k(w) − ∇f_k(w)‖² = φ(n, B) [(1/n) Σ_i ‖∇ℓ_ki(w)‖² − ‖∇f_k(w)‖²],
    φ = (n − B)/(B(n − 1)) without replacement, 1/B with replacement.

In coefficients V_k is a quadratic with a diagonal matrix: with ν_kj = (1/n)Σ_{I_kj} s⁴, γ_kj = (1/n)Σ_{I_kj} s³y and
κ_k = (1/n)Σ_i s²y²,

    V_k(w)/φ = Σ_j p_kj z_j² − 2 Σ_j q_kj z_j + r_k,   p = ν − λ² ⪰ 0 (Cauchy–Schwarz),  q = γ − λ ⊙ β,  r = κ − ‖β‖².

σ²_ref = max_k V_k(w*); on a problem with a ``radius`` ρ, σ² = max_k sup_{‖w‖≤ρ} V_k(w) is a trust-region
problem with a diagonal matrix (‖z‖ = ‖w‖): on the sphere z_j = −q_j/(θ − p_j) with Σ_j q_j²/(θ − p_j)² = ρ²,
θ > max_j p_j (solved by bisection for all clients at once, :func:`ball_sup_diagonal`; the hard case θ = max p
is a second candidate), and σ̄² = Σ_k π_k² σ_k².

The optimum's certificate (:func:`exact_reference`) is ‖∇F(w*)‖ from the dense mean quadratic Q̄ = Cᵀdiag(λ̄)C
with F(w*) − F* ≤ ‖∇F(w*)‖²/(2μ_F), μ_F certified by a Cholesky factorisation; :func:`fedrates.solvers.certify.
for_implicit` certifies the constants (witness and second route).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from fedrates._lazy import lazy_import
from fedrates.solvers.closed_form import ExactReference
from fedrates.solvers.errors import InputError
from fedrates.solvers.penalties import Zero
from fedrates.solvers.problems._params import Family, Param
from fedrates.solvers.problems.base import Problem
from fedrates.solvers.problems.datafits import Datafit, SampleLeastSquares

__all__ = ["FAMILY", "ImplicitLeastSquares", "build", "exact_constants", "exact_reference", "footprint",
           "batch_factor", "ball_sup_diagonal", "certified_gap", "client_minima", "coefficient_sums", "DENSE_BUDGET"]

fft = lazy_import("scipy.fft")  # imported on first use: building the family list must not load scipy

#: largest number of float64 entries of a dense (K, d, d) Hessian stack or (K, n, d) sample array formed (128 MiB)
DENSE_BUDGET = 1 << 24
#: entries of the temporaries of the vectorised routines processed together (a few MiB)
_CHUNK = 1 << 19

PARAMETERS = {
    "clients": Param(8, "int", "number of clients K >= 1", low=1),
    "dim": Param(16, "int", "dimension d >= 1", low=1),
    "samples": Param(32, "int", "samples per client n >= dim", low=1),
    "mu": Param(0.1, "float", "smallest per-sample curvature t = s^2/d > 0 (log-uniform in [mu, L])", low=0.0,
                low_inclusive=False),
    "L": Param(1.0, "float", "largest per-sample curvature t = s^2/d >= mu", low=0.0, low_inclusive=False),
    "heterogeneity": Param(0.5, "float", "std h of the client truths around the common one, w_k = w + h N(0, I/d)",
                           low=0.0),
    "noise": Param(0.1, "float", "std of the label noise >= 0", low=0.0),
    "radius": Param(None, "optional_float", "radius rho > 0 of the l2-ball domain (none = unconstrained)", low=0.0,
                    low_inclusive=False),
    "seed": Param(0, "int", "seed of the data generator >= 0", low=0),
}

#: no presets: instances are built from explicit parameters
PRESETS: dict[str, dict] = {}


def footprint(params: dict) -> float:
    """Bytes an instance may hold: j (int32), s and y per sample (20·K·n), λ, β and a working copy of the clients'
    points and gradients (4·K·d float64), the dense mean quadratic and its factor (3·d² float64)."""
    K, d, n = params["clients"], params["dim"], params["samples"]
    return 20.0 * K * n + 8.0 * (4 * K * d + 3 * d * d)


def _check(p: dict) -> None:
    if p["samples"] < p["dim"]:
        raise InputError(f"parameter samples={p['samples']} is smaller than dim={p['dim']}; expected samples >= dim")
    if p["L"] < p["mu"]:
        raise InputError(f"parameter L={p['L']} is smaller than mu={p['mu']}; expected L >= mu")


def batch_factor(n: int, batch: int, replace: bool) -> float:
    """φ(n, B): (n − B)/(B(n − 1)) for B distinct samples (0 when n = 1), 1/B with replacement."""
    if replace:
        return 1.0 / batch
    return 0.0 if n == 1 else (n - batch) / (batch * (n - 1))


def coefficient_sums(index: np.ndarray, scale: np.ndarray, y: np.ndarray, dim: int,
                     powers: tuple[tuple[int, int], ...]) -> list[np.ndarray]:
    """(1/n) Σ_{i: j_ki = j} s_ki^a y_ki^b per (client, coordinate), (c, d) each, for every (a, b) in ``powers``:
    one ``bincount`` per sum over the flattened (client, coordinate) indices k·d + j of the c clients given."""
    c, n = index.shape
    flat = (np.arange(c, dtype=np.int64)[:, None] * dim + index).reshape(-1)
    out = []
    for a, b in powers:
        weights = (scale**a) * (y**b) if b else scale**a
        out.append(np.bincount(flat, weights=weights.reshape(-1), minlength=c * dim).reshape(c, dim) / n)
    return out


@dataclass(eq=False)
class ImplicitLeastSquares(Datafit):
    """f_k(w) = (1/2n) Σ_i (s_ki (Cw)_{j_ki} − y_ki)² with C the orthonormal DCT-II (see module docstring).

    Attributes: ``index`` (K, n) int32 coordinates j_ki, ``scale`` (K, n) scales s_ki, ``y`` (K, n) labels, ``dim``
    d; derived once, O(K·n): ``lam`` (K, d) λ_kj, ``beta`` (K, d) β_kj, ``offset`` (K,) c_k."""

    index: np.ndarray
    scale: np.ndarray
    y: np.ndarray
    dim: int
    lam: np.ndarray = None  # type: ignore[assignment]
    beta: np.ndarray = None  # type: ignore[assignment]
    offset: np.ndarray = None  # type: ignore[assignment]
    clients: int = field(init=False)
    samples: int = field(init=False)

    def __post_init__(self) -> None:
        self.index = np.ascontiguousarray(self.index, dtype=np.int32)
        self.scale = np.ascontiguousarray(self.scale, dtype=float)
        self.y = np.ascontiguousarray(self.y, dtype=float)
        self.clients, self.samples = self.index.shape
        if self.lam is None or self.beta is None or self.offset is None:
            K, d = self.clients, self.dim
            self.lam, self.beta, self.offset = np.empty((K, d)), np.empty((K, d)), np.empty(K)
            for s in range(0, K, self._client_step()):
                self._fill(slice(s, s + self._client_step()))

    def _client_step(self) -> int:
        return max(1, _CHUNK // max(self.samples, self.dim))

    def _fill(self, sl: slice) -> None:
        """λ, β, c of the clients ``sl`` from their (j, s, y)."""
        self.lam[sl], self.beta[sl] = coefficient_sums(self.index[sl], self.scale[sl], self.y[sl], self.dim,
                                                       ((2, 0), (1, 1)))
        self.offset[sl] = 0.5 * np.mean(self.y[sl] ** 2, axis=1)

    # ---- the basis ----
    @staticmethod
    def to_coeff(w: np.ndarray) -> np.ndarray:
        """z = Cw along the last axis (orthonormal DCT-II)."""
        return fft.dct(np.asarray(w, dtype=float), type=2, norm="ortho", axis=-1)

    @staticmethod
    def from_coeff(z: np.ndarray) -> np.ndarray:
        """w = Cᵀz along the last axis (its inverse, the orthonormal DCT-III)."""
        return fft.idct(np.asarray(z, dtype=float), type=2, norm="ortho", axis=-1)

    @cached_property
    def basis(self) -> np.ndarray:
        """C as a dense d × d matrix (column i is C e_i, the transform of the unit vector)."""
        return self.to_coeff(np.eye(self.dim)).T

    # ---- values and gradients ----
    def client_values(self, w: np.ndarray) -> np.ndarray:
        """f_k(w) = (1/2n) Σ_i (s_ki z_{j_ki} − y_ki)² from the residuals, chunked: (..., d) -> (..., K)."""
        z = self.to_coeff(w)
        lead = z.shape[:-1]
        out = np.empty(lead + (self.clients,))
        step = max(1, _CHUNK // (self.samples * max(math.prod(lead), 1)))
        for s in range(0, self.clients, step):
            J, S, Y = self.index[s:s + step], self.scale[s:s + step], self.y[s:s + step]
            r = S * z[..., J] - Y
            out[..., s:s + step] = 0.5 * np.mean(r * r, axis=-1)
        return out

    def client_gradients(self, W: np.ndarray) -> np.ndarray:
        """∇f_k(W_k) = Cᵀ(λ_k ⊙ CW_k − β_k): (..., K, d) -> (..., K, d)."""
        return self.from_coeff(self.lam * self.to_coeff(W) - self.beta)

    def gradients_at(self, Wf: np.ndarray, clients: np.ndarray) -> np.ndarray:
        """∇f_k at per-(replica, client) points: Wf (R, m, d), clients (R, m) -> (R, m, d), O(m·d log d)."""
        return self.from_coeff(self.lam[clients] * self.to_coeff(Wf) - self.beta[clients])

    def rows_gradients(self, Wf: np.ndarray, rows: np.ndarray, batch: int) -> np.ndarray:
        """Minibatch gradients (1/B) Σ_{r∈rows} a_r(a_rᵀw − y_r) for rows of the stacked (K·n) sample index space
        (row k·n + i is sample i of client k): Wf (R, m, d), rows (R, m, B) -> (R, m, d).

        In coefficients the gradient of pair p is Σ_r s_r(s_r z_{j_r} − y_r)/B e_{j_r}: gathered at the rows,
        scattered with one ``bincount`` over the flattened (pair, coordinate) indices, mapped back by one idct."""
        R, m, d = Wf.shape
        P = R * m
        rows = np.asarray(rows).reshape(P, batch)
        W = Wf.reshape(P, d)
        J_all, S_all, Y_all = self.index.reshape(-1), self.scale.reshape(-1), self.y.reshape(-1)
        out = np.empty((P, d))
        step = max(1, _CHUNK // (d + batch))
        for a in range(0, P, step):
            r = rows[a:a + step]
            c = r.shape[0]
            J, S, Y = J_all[r], S_all[r], Y_all[r]
            z = self.to_coeff(W[a:a + step])
            coef = S * (S * np.take_along_axis(z, J, axis=1) - Y) / batch
            flat = (np.arange(c, dtype=np.int64)[:, None] * d + J).reshape(-1)
            G = np.bincount(flat, weights=coef.reshape(-1), minlength=c * d).reshape(c, d)
            out[a:a + c] = self.from_coeff(G)
        return out.reshape(R, m, d)

    # ---- dense pieces (small instances only) ----
    def _refuse(self, what: str, entries: int) -> None:
        if entries > DENSE_BUDGET:
            raise InputError(f"the dense {what} of an implicit least-squares problem with clients={self.clients}, "
                             f"samples={self.samples}, dim={self.dim} would need {8 * entries / 2**30:.3g} GiB; "
                             "use its implicit routines")

    @cached_property
    def hessians(self) -> np.ndarray:
        """Q_k = Cᵀdiag(λ_k)C, (K, d, d) (small instances only)."""
        self._refuse("Hessians", self.clients * self.dim**2)
        C = self.basis
        return np.einsum("ji,kj,jl->kil", C, self.lam, C)

    @cached_property
    def linear_terms(self) -> np.ndarray:
        """b_k = Cᵀβ_k, (K, d)."""
        return self.from_coeff(self.beta)

    @cached_property
    def offsets(self) -> np.ndarray:
        """c_k = (1/2n)‖y_k‖², (K,)."""
        return self.offset

    def weighted_sums(self, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
        """(λ̄, β̄, c̄) = Σ_k π_k (λ_k, β_k, c_k), O(K·d)."""
        return weights @ self.lam, weights @ self.beta, float(weights @ self.offset)

    def mean_quadratic(self, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
        """(Q̄, b̄, c̄) = (Cᵀdiag(λ̄)C, Cᵀβ̄, c̄): C formed densely (d × d), the clients summed in coefficients."""
        lbar, bbar, cbar = self.weighted_sums(weights)
        C = self.basis
        Q = (C.T * lbar) @ C
        return 0.5 * (Q + Q.T), self.from_coeff(bbar), cbar

    # ---- minibatch variance ----
    def minibatch_variance(self, w: np.ndarray, batch: int = 1, replace: bool = False) -> np.ndarray:
        """V_k(w) = φ(n, B)[(1/n)Σ_i s_ki²(s_ki z_{j_ki} − y_ki)² − ‖λ_k ⊙ z − β_k‖²] per client at one point w
        (the per-sample residual route, chunked), (K,)."""
        z = self.to_coeff(np.asarray(w, dtype=float).reshape(self.dim))
        out = np.empty(self.clients)
        for s in range(0, self.clients, self._client_step()):
            sl = slice(s, s + self._client_step())
            S = self.scale[sl]
            r = S * z[self.index[sl]] - self.y[sl]
            g = self.lam[sl] * z - self.beta[sl]
            out[sl] = np.mean(S * S * r * r, axis=1) - np.einsum("kd,kd->k", g, g)
        return np.maximum(out, 0.0) * batch_factor(self.samples, batch, replace)

    def variance_quadratic(self, sl: slice) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(p, q, r) of V_k(w)/φ = Σ_j p_j z_j² − 2 Σ_j q_j z_j + r for the clients ``sl`` (module docstring)."""
        J, S, Y = self.index[sl], self.scale[sl], self.y[sl]
        nu, gam = coefficient_sums(J, S, Y, self.dim, ((4, 0), (3, 1)))
        lam, beta = self.lam[sl], self.beta[sl]
        kappa = np.mean(S * S * Y * Y, axis=1)
        return np.maximum(nu - lam * lam, 0.0), gam - lam * beta, kappa - np.einsum("kd,kd->k", beta, beta)

    # ---- the explicit equivalent ----
    def to_sample_least_squares(self) -> SampleLeastSquares:
        """The same federation with explicit features X_ki = s_ki Cᵀe_{j_ki} (rows of C), small instances only."""
        self._refuse("sample matrix", self.clients * self.samples * self.dim)
        C = self.basis
        return SampleLeastSquares(X=self.scale[..., None] * C[self.index], y=self.y.copy())


# ---- the trust-region problem with a diagonal matrix -------------------------------------------------------------
def ball_sup_diagonal(p: np.ndarray, q: np.ndarray, r: np.ndarray,
                      radius: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """sup_{‖z‖≤ρ} Σ_j p_j z_j² − 2 Σ_j q_j z_j + r for every row (p ⪰ 0): (values, maximisers z, multipliers θ).

    The supremum of a convex quadratic is on the sphere, where stationarity gives z_j = −q_j/(θ − p_j) with θ ≥ p₁ =
    max_j p_j.  Regular candidate: the root of ‖z(θ)‖ = ρ on (p₁, ∞), bracketed by p₁ + |q_top|/ρ (the top term alone
    is ρ²; q_top = the q of the coordinates with p = p₁) and p₁ + ‖q‖/ρ, found by bisection for all rows at once.
    Hard-case candidate: θ = p₁, the coordinates below p₁ at −q_j/(p₁ − p_j), the sphere filled along a top
    coordinate.  Both are feasible points (scaled onto the sphere), so the larger value is a lower bound on the
    supremum that equals it when either candidate is the maximiser (Moré & Sorensen 1983)."""
    p, q = np.asarray(p, float), np.asarray(q, float)
    rows = np.arange(p.shape[0])
    p1 = p.max(axis=1)
    top = np.argmax(p, axis=1)
    qn = np.linalg.norm(q, axis=1)
    scale = np.maximum(np.maximum(np.abs(p1), qn / radius), np.finfo(float).tiny)
    gap = p1[:, None] - p
    is_top = gap <= 1e-12 * scale[:, None]

    # hard case: θ = p₁
    with np.errstate(divide="ignore", invalid="ignore"):
        zh = np.where(is_top, 0.0, -q / np.where(is_top, 1.0, gap))
    zn = np.linalg.norm(zh, axis=1)
    inside = zn <= radius
    fill = np.sqrt(np.maximum(radius**2 - zn**2, 0.0))
    zh[rows, top] += np.where(inside, np.where(q[rows, top] > 0, -1.0, 1.0) * fill, 0.0)
    zh *= np.where(inside, 1.0, radius / np.where(zn > 0, zn, 1.0))[:, None]

    # regular case: bisection on θ ∈ (p₁ + |q_top|/ρ, p₁ + ‖q‖/ρ]
    qtop = np.sqrt(np.sum(np.where(is_top, q * q, 0.0), axis=1))

    def excess(theta: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(q == 0, 0.0, q / (theta[:, None] - p))
        return np.linalg.norm(terms, axis=1) - radius

    lo = p1 + np.maximum(qtop / radius, 1e-15 * scale)
    hi = p1 + qn / radius
    for _ in range(60):  # ‖z(hi)‖ ≤ ρ in exact arithmetic; rounding may need the end moved away from p₁
        bad = excess(hi) >= 0
        if not bad.any():
            break
        hi = np.where(bad, p1 + 2.0 * (hi - p1), hi)
    f_lo = excess(lo)
    regular = (qn > 0) & np.isfinite(f_lo) & (f_lo >= 0) & (hi >= lo)
    hi = np.where(f_lo == 0, lo, hi)
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        width = hi - lo
        if not np.any(regular & (width > 4 * np.finfo(float).eps * np.abs(hi))):
            break
        up = excess(mid) > 0
        lo = np.where(up, mid, lo)
        hi = np.where(up, hi, mid)
    theta = np.where(regular, hi, p1)
    with np.errstate(divide="ignore", invalid="ignore"):
        zr = np.where(q == 0, 0.0, -q / (theta[:, None] - p))
    zrn = np.linalg.norm(zr, axis=1)
    zr *= (radius / np.where(zrn > 0, zrn, 1.0))[:, None]

    def value(z: np.ndarray) -> np.ndarray:
        return np.einsum("kd,kd->k", p * z - 2.0 * q, z) + r

    vh, vr = value(zh), np.where(regular, value(zr), -np.inf)
    use_r = vr >= vh
    return np.where(use_r, vr, vh), np.where(use_r[:, None], zr, zh), np.where(use_r, theta, p1)


# ---- construction ------------------------------------------------------------------------------------------------
def build(params: dict, preset: str | None = None) -> Problem:
    K, d, n = params["clients"], params["dim"], params["samples"]
    mu, L, h, noise = params["mu"], params["L"], params["heterogeneity"], params["noise"]
    rng = np.random.default_rng(np.random.SeedSequence(params["seed"]))
    truth = rng.standard_normal(d) / math.sqrt(d)
    index = np.empty((K, n), dtype=np.int32)
    scale = np.empty((K, n))
    y = np.empty((K, n))
    base = np.broadcast_to((np.arange(n) % d).astype(np.int32), (max(1, _CHUNK // max(n, d)), n))
    lo, span = math.log(mu), math.log(L / mu)
    step = base.shape[0]
    for s in range(0, K, step):  # chunk by chunk: temporaries of (step, n) and (step, d)
        c = min(step, K - s)
        index[s:s + c] = rng.permuted(base[:c], axis=1)
        t = np.exp(lo + span * rng.random((c, n)))
        np.clip(t, mu, L, out=t)  # exp/log rounding must not leave [mu, L]
        scale[s:s + c] = np.sqrt(d * t)
        z = ImplicitLeastSquares.to_coeff(truth + h * rng.standard_normal((c, d)) / math.sqrt(d))
        y[s:s + c] = scale[s:s + c] * np.take_along_axis(z, index[s:s + c], axis=1) + noise * rng.standard_normal(
            (c, n))
    fit = ImplicitLeastSquares(index=index, scale=scale, y=y, dim=d)
    return Problem(
        family="implicit_least_squares", preset=preset, params=params, shape=(d,), weights=np.full(K, 1.0 / K),
        datafit=fit, penalty=Zero(), radius=params["radius"], sampling="empirical",
        description="federated least squares with implicit DCT features (minibatches of samples)",
        extras={"common_truth": truth},
    )


# ---- exact optimum and constants ---------------------------------------------------------------------------------
def _optimum(problem: Problem) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(z*, λ̄, w*) in closed form."""
    fit = problem.datafit
    lbar, bbar, _ = fit.weighted_sums(problem.weights)
    z = bbar / lbar
    return z, lbar, fit.from_coeff(z)


def client_minima(fit: ImplicitLeastSquares) -> np.ndarray:
    """min f_k = c_k − ½ Σ_j β_kj²/λ_kj (f_k is separable in coefficients), (K,)."""
    return fit.offset - 0.5 * np.einsum("kd,kd->k", fit.beta, fit.beta / fit.lam)


def exact_constants(problem: Problem, batch: int = 1, replace: bool = False) -> dict[str, Any]:
    """The closed forms of the module docstring: L, μ (every f_k), L_F, μ_F (of F), w*, F*, ζ*², Γ, the minibatch
    variance at w* (σ²_ref, per client and its maximum) and, on a problem with a radius, its supremum over the ball
    (σ², per client, σ̄² = Σ_k π_k² σ_k²), with the witnesses (client, basis coordinate, ball multipliers)."""
    fit = problem.datafit
    if isinstance(batch, bool) or not isinstance(batch, (int, np.integer)) or not 1 <= batch:
        raise InputError(f"batch={batch!r} is not valid; expected an integer >= 1")
    if not replace and batch > fit.samples:
        raise InputError(f"batch={batch} exceeds the {fit.samples} samples per client")
    z, lbar, w = _optimum(problem)
    p = problem.weights
    f_star = float(fit.client_values(w) @ p)
    G = fit.lam * z - fit.beta
    zeta2 = float(p @ np.einsum("kd,kd->k", G, G))
    gamma = f_star - float(p @ client_minima(fit))
    kL, jL = np.unravel_index(int(np.argmax(fit.lam)), fit.lam.shape)
    km, jm = np.unravel_index(int(np.argmin(fit.lam)), fit.lam.shape)
    ref_k = fit.minibatch_variance(w, batch, replace)
    out: dict[str, Any] = {
        "L": float(fit.lam[kL, jL]), "mu": float(fit.lam[km, jm]), "L_F": float(lbar.max()),
        "mu_F": float(lbar.min()), "w_star": w, "z_star": z, "f_star": f_star, "zeta2": zeta2, "Gamma": gamma,
        "sigma2_ref": float(ref_k.max()), "sigma2_ref_k": ref_k, "batch": int(batch), "replace": bool(replace),
        "witness_L": (int(kL), int(jL)), "witness_mu": (int(km), int(jm)),
        "witness_L_F": int(np.argmax(lbar)), "witness_mu_F": int(np.argmin(lbar)),
        "witness_sigma2_ref": int(np.argmax(ref_k)), "notes": {},
    }
    rho = problem.radius
    if rho is not None and float(np.linalg.norm(w)) > rho:
        out["notes"]["w_star"] = (f"‖w*‖ = {np.linalg.norm(w):.6g} > radius {rho}: w*, F*, ζ*², Γ and σ²_ref are those "
                                  "of the unconstrained minimiser")
    if rho is None:
        out.update(sigma2=math.inf, sigma2_k=np.full(fit.clients, math.inf), sigma_bar2=math.inf)
        out["notes"]["sigma2"] = "unbounded domain (no radius): the minibatch variance grows with ‖w‖, σ² = inf"
        return out
    factor = batch_factor(fit.samples, batch, replace)
    sup_k, theta = np.empty(fit.clients), np.empty(fit.clients)
    best = (-math.inf, 0, np.zeros(fit.dim))
    for s in range(0, fit.clients, fit._client_step()):
        sl = slice(s, s + fit._client_step())
        values, Z, th = ball_sup_diagonal(*fit.variance_quadratic(sl), float(rho))
        sup_k[sl], theta[sl] = factor * np.maximum(values, 0.0), th
        i = int(np.argmax(values))
        if factor * values[i] > best[0]:
            best = (factor * float(values[i]), s + i, Z[i])
    k = best[1]
    out.update(sigma2=float(sup_k.max()), sigma2_k=sup_k, sigma_bar2=float(p**2 @ sup_k), sigma2_theta=theta,
               witness_sigma2=(k, fit.from_coeff(best[2])))
    return out


def certified_gap(problem: Problem, w: np.ndarray, mu_estimate: float) -> tuple[float, float, float]:
    """(‖g‖, l, ‖g‖²/(2l)) with g = Q̄w − b̄ from the dense mean quadratic and μ_F ≥ l certified by a Cholesky
    factorisation of Q̄ − lI (started at ``mu_estimate``): F(w) − min F ≤ ‖g‖²/(2l) by strong convexity."""
    from fedrates.solvers.certify import lambda_min_lower

    Q, b, _ = problem.quadratic
    g = Q @ w - b
    l_low = lambda_min_lower(Q[None], float(mu_estimate))
    gnorm = float(np.linalg.norm(g))
    return gnorm, l_low, (gnorm**2 / (2 * l_low) if l_low > 0 else math.inf)


def exact_reference(problem: Problem) -> ExactReference:
    """w* = Cᵀ(β̄/λ̄) with its certificate (:func:`certified_gap`); a ball of radius ρ must contain w* (it is then
    the constrained optimum too)."""
    z, lbar, w = _optimum(problem)
    if problem.radius is not None and float(np.linalg.norm(w)) > problem.radius:
        raise InputError(f"the unconstrained minimiser has norm {np.linalg.norm(w):.6g} > radius={problem.radius}; "
                         "the closed form is not the constrained optimum")
    gnorm, l_low, gap = certified_gap(problem, w, float(lbar.min()))
    value = float(problem.datafit.client_values(w) @ problem.weights)
    return ExactReference(w=w, value=value, gap=gap, gradient_norm=gnorm, mu_lower=l_low,
                          method="closed form (DCT coefficients)")


def closed_form(problem: Problem, batch: int = 1, replace: bool = False, radius: float | None = None) -> Any:
    """The constants of ``fedrates constants`` in closed form (:class:`fedrates.solvers.closed_form.ClosedForm`) for
    the instances whose explicit sample matrix or dense Hessian stack exceeds :data:`DENSE_BUDGET` (None otherwise:
    the dense route runs on the explicit equivalent, :meth:`ImplicitLeastSquares.to_sample_least_squares`). In
    coefficients Q_k = Cᵀdiag(λ_k)C: L_k = max_j λ_kj, μ_k = min_j λ_kj, δ and δ_mean as for any shared basis
    (:func:`fedrates.solvers.closed_form.similarity`); σ², σ_k², σ̄² and σ²_ref are the finite-population variances
    of :func:`exact_constants` (σ² on the ball of radius ``radius``, default the problem's); Δ_k* = f_k(w*) − min
    f_k with min f_k in closed form (:func:`client_minima`). Certificates:
    :func:`fedrates.solvers.certify_implicit.for_implicit`."""
    import dataclasses

    from fedrates.solvers import closed_form as cf
    from fedrates.solvers.certify_implicit import for_implicit

    fit = problem.datafit
    if max(fit.clients * fit.dim**2, fit.clients * fit.samples * fit.dim) <= DENSE_BUDGET:
        return None
    if radius is not None:
        problem = dataclasses.replace(problem, radius=float(radius))

    def make() -> Any:
        exact = exact_constants(problem, batch, replace)
        delta, delta_mean = cf.similarity(fit.lam, problem.weights)
        delta_k = fit.client_values(exact["w_star"]) - client_minima(fit)
        scalars = {name: exact[name] for name in ("L", "mu", "mu_F", "sigma2", "sigma_bar2", "sigma2_ref")}
        scalars |= {"Lambda": exact["L_F"], "Delta_star_max": float(delta_k.max()), "delta": delta,
                    "delta_mean": delta_mean, "tau": 0.0, "nu": 0.0}
        per_client = {"L_k": fit.lam.max(axis=1), "mu_k": fit.lam.min(axis=1), "sigma2_k": exact["sigma2_k"],
                      "Delta_star": delta_k}
        notes = {**exact["notes"], **cf.NO_TRUTH}
        uncertified = {"delta": "closed form in the DCT basis (no second route)",
                       "delta_mean": "closed form in the DCT basis (no second route)"}
        return cf.assemble("closed form in the DCT coefficients", scalars, per_client, notes,
                           for_implicit(problem, batch=batch, replace=replace), uncertified)

    return cf.timed(make)


FAMILY = Family("implicit_least_squares", "least squares with implicit DCT features, O(K n) memory, sample minibatches",
                PARAMETERS, PRESETS, build, (_check,), footprint=footprint, closed_form=closed_form)
