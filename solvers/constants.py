"""Exact assumption constants of a federated instance.

Every datafit of fedrates is a per-client quadratic f_k(w) = ½wᵀQ_kw − b_kᵀw + c_k (flattened model), with
F = Σ_k π_k f_k = ½wᵀQ̄w − b̄ᵀw + c̄.  The constants that the papers assume are then spectral quantities or suprema of
convex quadratics over the domain ball {‖w‖ ≤ ρ}, computed exactly:

* L_k = λ_max(Q_k), μ_k = λ_min(Q_k); L = max_k L_k, μ = min_k μ_k (Bao et al. 2022, Assumption 1);
* Λ = λ_max(Q̄), μ_F = λ_min(Q̄);
* H = max_k sup_{‖w‖≤ρ} ‖∇F(w) − ∇f_k(w)‖ (Assumption 3) — a trust-region subproblem (:mod:`fedrates.solvers._trs`);
* σ² = max_k sup_{‖w‖≤ρ} E‖g_k(w) − ∇f_k(w)‖² for the minibatch oracle of :mod:`solvers.oracles` (Assumption 4);
* Δ_i* = f_i(w*) − min f_i (Das et al.), δ = max_{ij}‖Q_i − Q_j‖₂ (Bylinkin et al.);
* Ψ, λ_opt, τ, ν of Bao et al. §3 (Definition 1, Proposition 3.1, Assumptions 6–7).

Large instances.  Suprema need one eigendecomposition (with vectors) of a d × d matrix per client; above
``dense_limit`` (default 512) that costs minutes, so H and σ² are then replaced by certified upper bounds (Cauchy–
Schwarz: sup q ≤ λ_max(P)ρ² + 2‖b‖ρ + c₀) and feasible-point lower bounds, and the pairwise δ by the interval
[δ_mean, 2δ_mean] (upper end reported); each such replacement is written in ``notes`` and ``intervals`` and
flagged in ``exact``.  Above ``dense_limit`` spectral norms of client matrices use Lanczos iterations run to
machine precision (ARPACK, tol = 0) and population spectra the rank-one secular equation, instead of full
eigenvalue decompositions.  Client spectra of sample least
squares with n < d use the n × n Gram matrix (λ_max(XᵀX/n) = λ_max(XXᵀ/n); λ_min = 0 since rank ≤ n < d).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from dataclasses import fields as dataclasses_fields
from typing import Any, NamedTuple

import numpy as np

from fedrates._lazy import lazy_import
from fedrates.solvers._trs import maximize_on_ball_eig, upper_bound
from fedrates.solvers.certified import CarriesCertificates
from fedrates.solvers.errors import InputError
from fedrates.solvers.penalties import L1, Nuclear
from fedrates.solvers.problems.base import Problem
from fedrates.solvers.problems.datafits import GaussianPopulation, SampleLeastSquares

optimize = lazy_import("scipy.optimize")  # scipy is imported on first use, after the arguments are checked
spla = lazy_import("scipy.sparse.linalg")

__all__ = ["Constants", "Definition", "DEFINITIONS", "compute", "minibatch_variance", "curvature",
           "separation_certificates"]

#: sum of d³ over dense pairwise eigenvalue problems allowed for the exact pairwise δ
PAIR_WORK = 2e9
#: bytes of Hessians materialised at once when streaming over clients
CHUNK_BYTES = 64 * 2**20


class Definition(NamedTuple):
    """Formula of a constant and the paper assumption it instantiates."""

    formula: str
    assumption: str


DEFINITIONS: dict[str, Definition] = {
    "L": Definition("max_k λ_max(Q_k)", "Bao et al. 2022 Assumption 1 (local smoothness); Das et al. L"),
    "mu": Definition("min_k λ_min(Q_k)", "Bao et al. 2022 Assumption 1 (local strong convexity)"),
    "Lambda": Definition("λ_max(Q̄), Q̄ = Σ_k π_k Q_k", "Bao et al. 2022 Assumption 3 (global smoothness)"),
    "mu_F": Definition("λ_min(Q̄)", "strong convexity of F = Σ_k π_k f_k"),
    "L_k": Definition("λ_max(Q_k) per client", "per-client smoothness"),
    "mu_k": Definition("λ_min(Q_k) per client", "per-client strong convexity"),
    "H": Definition("max_k sup_{‖w‖≤ρ} ‖∇F(w) − ∇f_k(w)‖ (trust-region subproblem)",
                    "Bao et al. 2022 Assumption 3 (bounded heterogeneity)"),
    "H_k": Definition("sup_{‖w‖≤ρ} ‖∇F(w) − ∇f_k(w)‖ per client", "Bao et al. 2022 Assumption 3"),
    "sigma2": Definition("max_k sup_{‖w‖≤ρ} E‖g_k(w) − ∇f_k(w)‖² (minibatch B)",
                         "Bao et al. 2022 Assumption 4 (bounded variance)"),
    "sigma2_k": Definition("sup_{‖w‖≤ρ} E‖g_k(w) − ∇f_k(w)‖² per client", "Bao et al. 2022 Assumption 4"),
    "sigma_bar2": Definition("Σ_k π_k² σ_k²", "Bao et al. 2022 Theorem 2.1 (weighted variance σ̄²)"),
    "sigma2_ref": Definition("max_k E‖g_k(ŵ) − ∇f_k(ŵ)‖² at the reference point",
                             "variance at the optimum (Assumption 4 restricted to ŵ)"),
    "Delta_star": Definition("f_i(w*) − min f_i per client (w* minimises F, or the reference point)",
                             "Das et al. Δ_i*"),
    "Delta_star_max": Definition("max_i Δ_i*", "Das et al. tight-regime threshold"),
    "delta": Definition("max_{i,j} ‖Q_i − Q_j‖₂", "Bylinkin et al. Hessian similarity"),
    "delta_mean": Definition("max_i ‖Q_i − Q̄‖₂", "Bylinkin et al. similarity to the mean"),
    "Psi": Definition("√s (ℓ1, s = ‖w°‖₀); √r (nuclear, r = rank W°); 1 (no penalty)",
                      "Bao et al. 2022 Definition 1 (subspace Lipschitz constant)"),
    "Psi_2r": Definition("√(2r) (nuclear; Negahban et al. 2012 M̄ of dimension 2r)",
                         "Bao et al. 2022 Definition 1, alternative subspace"),
    "lam_opt": Definition("2 R*(∇F(w°))", "Bao et al. 2022 Proposition 3.1 / eq. (8)"),
    "tau": Definition("RSC tolerance: 0 when μ ≤ λ_min(Q_k) for all k", "Bao et al. 2022 Assumption 6"),
    "nu": Definition("RSM tolerance: 0 when L ≥ λ_max(Q_k) for all k", "Bao et al. 2022 Assumption 7"),
}


@dataclass(frozen=True, eq=False)
class Constants(CarriesCertificates):
    """The constants of one instance (see :data:`DEFINITIONS`); flat vectors are on the flattened model.

    ``exact[name]`` says whether a value is exact (up to floating point); ``notes[name]`` explains anything that is
    infinite, bounded or undefined; ``intervals[name]`` = (lower, upper) when only bounds are known (the upper
    end, a valid constant for the assumption, is the reported value).
    """

    problem: str
    clients: int
    dim: int
    batch: int
    replace: bool
    radius: float | None
    sampling: str
    L: float
    mu: float
    Lambda: float
    mu_F: float
    L_k: np.ndarray
    mu_k: np.ndarray
    H: float
    H_k: np.ndarray
    sigma2: float
    sigma2_k: np.ndarray
    sigma_bar2: float
    sigma2_ref: float | None
    Delta_star: np.ndarray
    Delta_star_max: float
    delta: float
    delta_mean: float
    Psi: float | None
    Psi_2r: float | None
    lam_opt: float | None
    tau: float
    nu: float
    w_star: np.ndarray
    H_argmax: np.ndarray | None = None
    sigma2_argmax: np.ndarray | None = None
    sigma2_ref_k: np.ndarray | None = None
    exact: Mapping[str, bool] = field(default_factory=dict)
    notes: Mapping[str, str] = field(default_factory=dict)
    intervals: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    seconds: float = 0.0
    #: what attains each value (client index, eigenvector, TRS maximiser, pair ...), see :mod:`fedrates.solvers.certify`
    witnesses: Mapping[str, Mapping[str, Any]] = field(default_factory=dict, repr=False)
    #: the instance the constants belong to (for the certificates); not part of equality or the JSON form
    problem_ref: Any = field(default=None, repr=False)

    def as_dict(self) -> dict[str, Any]:
        """Name → value for every constant of :data:`DEFINITIONS` (per-client values as lists)."""
        out: dict[str, Any] = {}
        for name in DEFINITIONS:
            value = getattr(self, name)
            out[name] = value.tolist() if isinstance(value, np.ndarray) else value
        return out


# ---- helpers ------------------------------------------------------------------------------------------------
def _chunks(problem: Problem) -> Iterator[tuple[slice, np.ndarray]]:
    """Client Hessians Q_k in chunks (never the whole (K, d, d) stack of a large instance)."""
    K, d = problem.clients, problem.dim
    size = max(1, int(CHUNK_BYTES // (8 * d * d)))
    fit = problem.datafit
    for start in range(0, K, size):
        sl = slice(start, min(K, start + size))
        if isinstance(fit, SampleLeastSquares):
            Q = np.swapaxes(fit.X[sl], 1, 2) @ fit.X[sl] / fit.samples
        elif isinstance(fit, GaussianPopulation):
            Q = fit.cov[None] + np.einsum("kd,ke->kde", fit.means[sl], fit.means[sl])
        else:
            Q = np.asarray(fit.hessians[sl])
        yield sl, Q


def _sym(A: np.ndarray) -> np.ndarray:
    return 0.5 * (A + np.swapaxes(A, -1, -2))


def _fourth_moment(fit: GaussianPopulation, sl: slice) -> np.ndarray:
    """E[‖x‖² xxᵀ] for x ~ N(m_k, C) (Isserlis): (‖m‖²+trC)(mmᵀ + C) + 2(mmᵀC + Cmmᵀ) + 2C²."""
    m, C = fit.means[sl], fit.cov
    a = np.einsum("kd,kd->k", m, m) + np.trace(C)
    mm = np.einsum("kd,ke->kde", m, m)
    mC = np.einsum("kd,ke->kde", m, m @ C)  # mmᵀC = m(Cm)ᵀ (C symmetric)
    return a[:, None, None] * (mm + C[None]) + 2 * (mC + np.swapaxes(mC, 1, 2)) + 2 * (C @ C)[None]


def minibatch_variance(problem: Problem, w: np.ndarray, batch: int = 1, replace: bool = False) -> np.ndarray:
    """E‖g_k(w) − ∇f_k(w)‖² of the minibatch oracle of :mod:`fedrates.solvers.oracles` at one point, per client (K,).

    * empirical: with g_i = x_i(x_iᵀw − y_i), s² = (1/n)Σ_i‖g_i‖² − ‖∇f_k(w)‖²; a batch of B without replacement
      has variance s²(n − B)/(B(n − 1)) (finite-population correction), with replacement s²/B;
    * population (x ~ N(m, C), y = xᵀw° + ε): [uᵀ(E‖x‖²xxᵀ − S²)u + σ_ε²(‖m‖² + trC)]/B with u = w − w°,
      S = C + mmᵀ (Isserlis);
    * gaussian: σ²/B (noise N(0, σ²/(dB) I)).
    """
    w = problem.flat(np.asarray(w, dtype=float))
    fit = problem.datafit
    K = problem.clients
    if problem.sampling == "gaussian":
        return np.full(K, problem.noise_std**2 / batch)
    if problem.sampling == "empirical":
        if getattr(fit, "X", None) is None:  # samples held implicitly: the datafit's own closed form, or refused
            if hasattr(fit, "minibatch_variance"):
                return fit.minibatch_variance(w, batch, replace)
            raise InputError(f"problem {problem.family} has no sample matrix X; its minibatch variance is unknown")
        n = fit.samples
        r = np.einsum("kid,d->ki", fit.X, w) - fit.y
        sq = np.einsum("kid,kid->ki", fit.X, fit.X)
        grad = fit.client_gradients(np.broadcast_to(w, (K, problem.dim)))
        s2 = np.mean(r * r * sq, axis=1) - np.einsum("kd,kd->k", grad, grad)
        return np.maximum(s2, 0.0) * _batch_factor(n, batch, replace)
    u = w - fit.truth
    m, C = fit.means, fit.cov
    a = np.einsum("kd,kd->k", m, m) + np.trace(C)
    mu_ = m @ u
    Cu = C @ u
    fourth = a * mu_**2 + 4 * mu_ * (m @ Cu) + a * (u @ Cu) + 2 * (Cu @ Cu)
    Su = Cu[None] + mu_[:, None] * m
    return (fourth - np.einsum("kd,kd->k", Su, Su) + fit.noise_std**2 * a) / batch


def _batch_factor(n: int, batch: int, replace: bool) -> float:
    if replace:
        return 1.0 / batch
    return 0.0 if n == 1 else (n - batch) / (batch * (n - 1))


def _validate(problem: Problem, batch: Any, radius: Any, reference_point: Any) -> tuple[int, float | None]:
    if isinstance(batch, bool) or not isinstance(batch, (int, np.integer)) or batch < 1:
        raise InputError(f"batch={batch!r} is not valid; expected an integer >= 1")
    if problem.sampling == "empirical" and batch > problem.datafit.samples:
        raise InputError(f"batch={batch} exceeds the {problem.datafit.samples} samples per client")
    if problem.sampling == "empirical" and getattr(problem.datafit, "X", None) is None:
        raise InputError(f"problem {problem.family} holds its samples implicitly (no sample matrix X); its constants "
                         "are the closed forms of its own module (exact_constants)")
    rho = problem.radius if radius is None else radius
    if rho is not None:
        if isinstance(rho, bool) or not isinstance(rho, (int, float, np.integer, np.floating)) \
                or not math.isfinite(rho) or rho <= 0:
            raise InputError(f"radius={rho!r} is not valid; expected a finite number > 0")
        rho = float(rho)
    if reference_point is not None and np.shape(reference_point) not in (problem.shape, (problem.dim,)):
        raise InputError(f"reference_point has shape {np.shape(reference_point)}; expected {problem.shape}")
    return int(batch), rho


# ---- main entry -------------------------------------------------------------------------------------------
def compute(problem: Problem, batch: int = 1, replace: bool = False, reference_point: np.ndarray | None = None,
            radius: float | None = None, dense_limit: int = 512, cache: bool = True) -> Constants:
    """Exact constants of ``problem``; see :func:`_compute_or_load`. The result is recorded for
    :func:`fedrates.solvers.certify.observing` (the pipeline checks its certificates after judging a claim)."""
    from fedrates.solvers import certify

    explicit = getattr(problem.datafit, "to_sample_least_squares", None)
    if problem.sampling == "empirical" and getattr(problem.datafit, "X", None) is None and explicit is not None:
        # samples held implicitly: the same federation with its sample matrix formed (refused when too large)
        import dataclasses

        problem = dataclasses.replace(problem, datafit=explicit())
    return certify.observe(_compute_or_load(problem, batch, replace, reference_point, radius, dense_limit, cache))


def _compute_or_load(problem: Problem, batch: int = 1, replace: bool = False,
                     reference_point: np.ndarray | None = None, radius: float | None = None, dense_limit: int = 512,
                     cache: bool = True) -> Constants:
    """Exact constants of ``problem`` (see module docstring and :data:`DEFINITIONS`), with their witnesses; the
    certificates are :attr:`Constants.certificates` (see :mod:`fedrates.solvers.certify`).

    With ``cache`` (default) the result is kept on disk beside the reference cache (``<cache>/constants-exact/``, a
    checksummed document of :mod:`fedrates.solvers._cache`), keyed like a reference by
    :func:`~fedrates.solvers._cache.entry_key` of the problem's fingerprint and the settings (batch, replace,
    radius, dense_limit, the reference point's bytes, the code digest of this module and its helpers — including
    functions replaced at run time): a repeated call returns the same numbers without recomputing them.

    Args:
        problem: the federation.
        batch: minibatch size B of the stochastic oracle (σ² scales with it).
        replace: empirical minibatches drawn with replacement (default: without, as in :mod:`fedrates.solvers.oracles`).
        reference_point: ŵ (e.g. the certified minimiser of φ): σ²(ŵ) is reported and Δ_i* uses w* = ŵ.
        radius: domain radius ρ overriding ``problem.radius`` for H and σ² (which need a bounded domain).
        dense_limit: largest dimension for which the suprema are computed exactly (see module docstring).
        cache: read and write the on-disk cache.
    """
    batch, rho = _validate(problem, batch, radius, reference_point)
    if not cache:
        return _compute(problem, batch, replace, reference_point, rho, dense_limit)
    from fedrates.solvers import _cache

    key = _cache_key(problem, batch, replace, reference_point, rho, dense_limit)
    directory = _cache.cache_dir() / "constants-exact"
    doc = _cache.load_document(key, directory)
    if doc is not None:
        try:
            return _from_document(doc, problem)
        except (KeyError, TypeError, ValueError):
            pass
    const = _compute(problem, batch, replace, reference_point, rho, dense_limit)
    _cache.store_document(key, _to_document(const), directory)  # an unwritable cache only costs the next call
    return const


#: modules whose code decides the constants (see :func:`fedrates.solvers.certify.code_digest`)
_CODE = ("fedrates.solvers.constants", "fedrates.solvers._trs", "fedrates.solvers.problems.datafits",
         "fedrates.solvers.penalties")
_ARRAYS = ("L_k", "mu_k", "H_k", "sigma2_k", "Delta_star", "w_star", "H_argmax", "sigma2_argmax", "sigma2_ref_k")


def _cache_key(problem: Problem, batch: int, replace: bool, reference_point: Any, rho: float | None,
               dense_limit: int) -> str:
    import hashlib

    from fedrates.solvers import _cache
    from fedrates.solvers.certify import code_digest

    ref = None
    if reference_point is not None:
        ref = hashlib.sha256(np.ascontiguousarray(reference_point, dtype=float).tobytes()).hexdigest()
    return _cache.entry_key(problem.fingerprint, {"what": "constants", "batch": batch, "replace": bool(replace),
                                                  "radius": rho, "dense_limit": dense_limit, "reference": ref,
                                                  "code": code_digest(_CODE)})


def _plain(obj: Any) -> Any:
    if isinstance(obj, Mapping):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    if hasattr(obj, "tolist"):
        return _plain(obj.tolist())
    return obj


def _to_document(c: Constants) -> dict[str, Any]:
    out = {f.name: _plain(getattr(c, f.name)) for f in dataclasses_fields(c) if f.name != "problem_ref"}
    out["intervals"] = {k: list(v) for k, v in c.intervals.items()}
    return out


def _from_document(doc: Mapping[str, Any], problem: Problem) -> Constants:
    values = dict(doc)
    for name in _ARRAYS:
        if values.get(name) is not None:
            values[name] = np.asarray(values[name], dtype=float)
    values["intervals"] = {k: (float(v[0]), float(v[1])) for k, v in values["intervals"].items()}
    values["witnesses"] = {k: {n: (np.asarray(x, dtype=float) if isinstance(x, list) and x and
                                   isinstance(x[0], (float, list)) else x) for n, x in w.items()}
                           for k, w in values["witnesses"].items()}
    return Constants(**values, problem_ref=problem)


def _compute(problem: Problem, batch: int, replace: bool, reference_point: np.ndarray | None, rho: float | None,
             dense_limit: int) -> Constants:
    start = time.perf_counter()
    exact: dict[str, bool] = {}
    notes: dict[str, str] = {}
    intervals: dict[str, tuple[float, float]] = {}
    K, d = problem.clients, problem.dim
    fit = problem.datafit
    large = d > dense_limit
    Qbar, bbar, _ = problem.quadratic
    Qbar = _sym(Qbar)

    # ---- spectra ------------------------------------------------------------------------------------------
    gram_path = isinstance(fit, SampleLeastSquares) and fit.samples < d
    if gram_path:
        G = fit.X @ np.swapaxes(fit.X, 1, 2) / fit.samples
        L_k = np.linalg.eigvalsh(G)[:, -1]
        mu_k = np.zeros(K)
        notes["mu_k"] = f"rank Q_k ≤ n = {fit.samples} < d = {d}, so λ_min(Q_k) = 0 exactly"
    elif large and isinstance(fit, GaussianPopulation):
        mu_k, L_k = _rank_one_extremes(fit.cov, fit.means)
    else:
        L_k, mu_k = np.empty(K), np.empty(K)
        for sl, Q in _chunks(problem):
            ev = np.linalg.eigvalsh(_sym(Q))
            L_k[sl], mu_k[sl] = ev[:, -1], ev[:, 0]
    evbar = np.linalg.eigvalsh(Qbar)
    Lambda, mu_F = float(evbar[-1]), float(evbar[0])
    Vbar = np.linalg.eigh(Qbar)[1]  # the witnesses (values above exactly as eigvalsh gives them)
    witnesses: dict[str, dict[str, Any]] = {
        "L": {"client": int(np.argmax(L_k)), "vector": _client_eigvec(problem, int(np.argmax(L_k)), top=True)},
        "mu": {"client": int(np.argmin(mu_k)), "vector": _client_eigvec(problem, int(np.argmin(mu_k)), top=False)},
        "Lambda": {"vector": Vbar[:, -1].copy()}, "mu_F": {"vector": Vbar[:, 0].copy()},
    }

    # ---- w* and Δ_i* --------------------------------------------------------------------------------------
    tol_rank = max(d, 1) * np.finfo(float).eps * max(Lambda, np.finfo(float).tiny)
    if reference_point is not None:
        w_star = problem.flat(np.asarray(reference_point, dtype=float)).reshape(d)
        notes["Delta_star"] = "w* = the given reference point"
    elif mu_F > tol_rank:
        w_star = np.linalg.solve(Qbar, bbar)
    else:
        w_star = np.linalg.lstsq(Qbar, bbar, rcond=None)[0]
        notes["Delta_star"] = "Q̄ is singular: w* = minimum-norm minimiser of F"
    f_min = _client_minima(problem, notes)
    Delta = problem.client_losses(problem.unflat(w_star)) - f_min
    Delta = np.maximum(Delta, 0.0)  # rounding below zero; Δ_i* ≥ 0 by definition of min f_i

    # ---- δ, δ_mean and the eigendecomposition of M_k = Q̄ − Q_k (for H) ------------------------------------
    M_eig = None
    delta_mean_k = np.empty(K)
    if not large:
        Q_all = _sym(np.asarray(fit.hessians))
        M_eig = np.linalg.eigh(Qbar[None] - Q_all)
        delta_mean_k = np.max(np.abs(M_eig[0]), axis=1)
    else:
        for sl, Q in _chunks(problem):
            delta_mean_k[sl] = [_spectral_norm(M) for M in Qbar[None] - _sym(Q)]
    delta_mean = float(delta_mean_k.max())
    k_dm = int(np.argmax(delta_mean_k))
    if M_eig is not None:
        witnesses["delta_mean"] = {"client": k_dm, "vector": M_eig[1][k_dm][:, int(np.argmax(np.abs(M_eig[0][k_dm])))]
                                   .copy()}
    pairs = K * (K - 1) // 2
    if K == 1:
        delta = 0.0
    elif not large and pairs * d**3 <= PAIR_WORK:
        per_row = [np.max(np.abs(np.linalg.eigvalsh(Q_all[i] - Q_all[i + 1:])), axis=1) for i in range(K - 1)]
        i = int(np.argmax([r.max() for r in per_row]))
        j = i + 1 + int(np.argmax(per_row[i]))
        delta = float(per_row[i].max())
        lam_ij, V_ij = np.linalg.eigh(Q_all[i] - Q_all[j])
        witnesses["delta"] = {"pair": [i, j], "vector": V_ij[:, int(np.argmax(np.abs(lam_ij)))].copy()}
    else:
        delta = 2 * delta_mean
        exact["delta"] = False
        intervals["delta"] = (delta_mean, 2 * delta_mean)
        notes["delta"] = (f"pairwise spectral norms skipped ({pairs} pairs, d = {d}); δ ∈ [δ_mean, 2δ_mean], "
                          "upper end reported")

    # ---- H --------------------------------------------------------------------------------------------------
    H_k, H_arg = _heterogeneity(problem, Qbar, bbar, rho, M_eig, delta_mean_k, exact, notes, intervals)

    if H_arg is not None:
        witnesses["H"] = {"client": int(np.argmax(H_k)), "point": H_arg[int(np.argmax(H_k))].copy(), "points": H_arg}
    elif np.all(np.isfinite(H_k)) and exact.get("H", True):
        witnesses["H"] = {"client": int(np.argmax(H_k))}

    # ---- σ² ---------------------------------------------------------------------------------------------------
    s2_k, s2_arg = _variance(problem, batch, replace, rho, large, exact, notes, intervals)
    if s2_arg is not None:
        witnesses["sigma2"] = {"client": int(np.argmax(s2_k)), "point": s2_arg[int(np.argmax(s2_k))].copy(),
                               "points": s2_arg}
    elif problem.sampling == "gaussian":
        witnesses["sigma2"] = {"client": 0}
    sigma_bar2 = float(problem.weights**2 @ s2_k) if np.all(np.isfinite(s2_k)) else math.inf
    s2_ref_k = None if reference_point is None else minibatch_variance(problem, w_star, batch, replace)
    if s2_ref_k is not None:
        witnesses["sigma2_ref"] = {"client": int(np.argmax(s2_ref_k))}
    if np.all(np.isfinite(Delta)):
        witnesses["Delta_star_max"] = {"client": int(np.argmax(Delta))}

    # ---- Ψ, λ_opt, τ, ν ------------------------------------------------------------------------------------
    Psi = Psi_2r = lam_opt = None
    if problem.truth is not None:
        truth = np.asarray(problem.truth, dtype=float)
        grad_truth = np.asarray(problem.gradient(truth), dtype=float)
        if isinstance(problem.penalty, L1):
            Psi = math.sqrt(int(np.count_nonzero(truth)))
            witnesses["Psi"] = {"support": np.flatnonzero(truth.reshape(-1)).tolist()}
            witnesses["lam_opt"] = {"coordinate": int(np.argmax(np.abs(grad_truth.reshape(-1))))}
        elif isinstance(problem.penalty, Nuclear):
            r = int(np.linalg.matrix_rank(truth))
            Psi, Psi_2r = math.sqrt(r), math.sqrt(2 * r)
            witnesses["Psi"] = {"rank": r}
            U_, _, Vt_ = np.linalg.svd(grad_truth)
            witnesses["lam_opt"] = {"left": U_[:, 0].copy(), "right": Vt_[0].copy()}
        else:
            Psi = 1.0
            notes["Psi"] = "no penalty: R is the Euclidean norm, Ψ = 1"
            witnesses["Psi"] = witnesses["lam_opt"] = {}
        lam_opt = 2.0 * float(problem.penalty.dual_norm(grad_truth))
    else:
        notes["Psi"] = notes["lam_opt"] = "no ground truth w° for this problem"
    mu = float(mu_k.min())
    if mu > 0:
        tau = 0.0
    else:
        tau = math.nan
        exact["tau"] = False
        notes["tau"] = ("μ = 0: RSC with μ > 0 needs τ_k > 0 (NP-hard in general); not computed — the paper's "
                        "surrogate is c·log p/n_k")

    return Constants(
        problem=problem.name, clients=K, dim=d, batch=batch, replace=replace, radius=rho, sampling=problem.sampling,
        L=float(L_k.max()), mu=mu, Lambda=Lambda, mu_F=mu_F, L_k=L_k, mu_k=mu_k,
        H=float(H_k.max()), H_k=H_k, sigma2=float(s2_k.max()), sigma2_k=s2_k, sigma_bar2=sigma_bar2,
        sigma2_ref=None if s2_ref_k is None else float(s2_ref_k.max()), sigma2_ref_k=s2_ref_k,
        Delta_star=Delta, Delta_star_max=float(Delta.max()) if np.all(np.isfinite(Delta)) else math.inf,
        delta=delta, delta_mean=delta_mean, Psi=Psi, Psi_2r=Psi_2r, lam_opt=lam_opt, tau=tau, nu=0.0,
        w_star=w_star, H_argmax=H_arg, sigma2_argmax=s2_arg, exact=exact, notes=notes, intervals=intervals,
        seconds=time.perf_counter() - start, witnesses=witnesses, problem_ref=problem,
    )


def _client_eigvec(problem: Problem, k: int, top: bool) -> np.ndarray:
    """The extreme eigenvector of Q_k (top or bottom): the witness of L or μ.  Sample least squares with n < d
    maps the Gram eigenvector u to Xᵀu (top) and takes a null vector of X_k (bottom: λ_min = 0)."""
    fit = problem.datafit
    d = problem.dim
    if isinstance(fit, SampleLeastSquares) and fit.samples < d:
        X = fit.X[k]
        G = X @ X.T / fit.samples
        if top:
            u = np.linalg.eigh(G)[1][:, -1]
            v = X.T @ u
        else:
            z = np.random.default_rng(0).standard_normal(d)
            v = z - X.T @ np.linalg.solve(X @ X.T, X @ z)
            v = v - X.T @ np.linalg.solve(X @ X.T, X @ v)  # one refinement step: ‖X v‖ at rounding level
        return v / np.linalg.norm(v)
    if isinstance(fit, GaussianPopulation):
        Q = fit.cov + np.outer(fit.means[k], fit.means[k])
    else:
        Q = np.asarray(fit.hessians[k])
    V = np.linalg.eigh(_sym(Q))[1]
    return V[:, -1 if top else 0].copy()


def _spectral_norm(A: np.ndarray) -> float:
    """‖A‖₂ of a symmetric matrix: Lanczos (ARPACK, tol = 0, i.e. to machine precision); dense fallback."""
    if A.shape[0] > 2:
        try:
            return float(abs(spla.eigsh(A, k=1, which="LM", tol=0, v0=np.ones(A.shape[0]), maxiter=20 * A.shape[0],
                                   return_eigenvectors=False)[0]))
        except spla.ArpackNoConvergence:
            pass
    return float(np.max(np.abs(np.linalg.eigvalsh(A))))


def _rank_one_extremes(C: np.ndarray, means: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(λ_min, λ_max) of C + m_km_kᵀ for every client from one eigendecomposition C = V diag(λ) Vᵀ.

    With γ = Vᵀm the eigenvalues of C + mmᵀ are λ_j with γ_j = 0 and the roots of the secular equation
    1 + Σ_j γ_j²/(λ_j − t) = 0, one in each gap (λ_1, λ_2), …, and one in (λ_d, λ_d + ‖m‖²] (Golub 1973);
    each root is found with ``brentq``.  A bracket without a sign change falls back to a dense eigensolve.
    """
    lam, V = np.linalg.eigh(_sym(C))
    gam = means @ V
    K = means.shape[0]
    lo, hi = np.empty(K), np.empty(K)
    for k in range(K):  # two scalar root-findings per client
        g2 = gam[k] ** 2
        scale = max(abs(lam[-1]) + float(g2.sum()), np.finfo(float).tiny)
        eps = 1e-13 * scale

        def secular(t: float, g2: np.ndarray = g2) -> float:
            return 1.0 + float(np.sum(g2 / (lam - t)))

        try:
            if lam.size > 1 and lam[1] - lam[0] > 2 * eps and g2[0] > 1e-28 * scale**2:
                lo[k] = optimize.brentq(secular, lam[0] + eps, lam[1] - eps, xtol=1e-15 * scale)
            else:
                lo[k] = lam[0]
            hi[k] = optimize.brentq(secular, lam[-1] + eps, lam[-1] + float(g2.sum()) + eps, xtol=1e-15 * scale) \
                if g2[-1] > 1e-28 * scale**2 else max(lam[-1], _dense_max(C, means[k]))
        except ValueError:
            ev = np.linalg.eigvalsh(C + np.outer(means[k], means[k]))
            lo[k], hi[k] = ev[0], ev[-1]
    return lo, hi


def _dense_max(C: np.ndarray, m: np.ndarray) -> float:
    return float(np.linalg.eigvalsh(C + np.outer(m, m))[-1])


def _client_minima(problem: Problem, notes: dict[str, str]) -> np.ndarray:
    """min f_i per client: least squares via the projection onto range(X_i); population ½σ_ε²; dense pinv."""
    fit = problem.datafit
    eps = np.finfo(float).eps
    if isinstance(fit, GaussianPopulation):
        # f_k(w) = ½(w − w°)ᵀS_k(w − w°) + ½σ_ε² with S_k ⪰ 0: minimum ½σ_ε² at w°
        return np.full(problem.clients, 0.5 * fit.noise_std**2)
    if isinstance(fit, SampleLeastSquares) and fit.samples <= fit.dim:
        G = fit.X @ np.swapaxes(fit.X, 1, 2)
        ev, V = np.linalg.eigh(G)
        keep = ev > max(fit.samples, fit.dim) * eps * ev[:, -1:]
        proj = np.einsum("kij,ki->kj", V, fit.y) * keep
        resid = np.einsum("kj,kj->k", fit.y, fit.y) - np.einsum("kj,kj->k", proj, proj)
        return 0.5 * np.maximum(resid, 0.0) / fit.samples
    Q, b, c = _sym(np.asarray(fit.hessians)), fit.linear_terms, fit.offsets
    ev, V = np.linalg.eigh(Q)
    beta = np.einsum("kij,ki->kj", V, b)
    keep = ev > problem.dim * eps * np.maximum(ev[:, -1:], np.finfo(float).tiny)
    safe = np.where(keep, ev, 1.0)
    f_min = c - 0.5 * np.sum(np.where(keep, beta**2 / safe, 0.0), axis=1)
    null = np.sqrt(np.sum(np.where(keep, 0.0, beta**2), axis=1))
    unbounded = null > 1e-9 * np.maximum(np.linalg.norm(b, axis=1), 1.0)
    if np.any(unbounded):
        f_min = np.where(unbounded, -np.inf, f_min)
        notes["Delta_star"] = (f"b_i ∉ range(Q_i) for clients {np.flatnonzero(unbounded).tolist()}: "
                               "f_i is unbounded below, Δ_i* = inf")
    return f_min


def _heterogeneity(problem: Problem, Qbar: np.ndarray, bbar: np.ndarray, rho: float | None,
                   M_eig: tuple[np.ndarray, np.ndarray] | None, norm_M: np.ndarray, exact: dict, notes: dict,
                   intervals: dict) -> tuple[np.ndarray, np.ndarray | None]:
    """H_k = sup_{‖w‖≤ρ} ‖M_kw − c_k‖, M_k = Q̄ − Q_k, c_k = b̄ − b_k: TRS with P = M_k², b = M_kc_k, c₀ = ‖c_k‖²."""
    K = problem.clients
    c = bbar[None] - problem.datafit.linear_terms if not isinstance(problem.datafit, SampleLeastSquares) \
        else bbar[None] - np.einsum("kid,ki->kd", problem.datafit.X, problem.datafit.y) / problem.datafit.samples
    c_norm = np.linalg.norm(c, axis=1)
    scale = max(float(np.max(np.abs(Qbar))), np.finfo(float).tiny)
    if np.all(norm_M <= 1e-12 * scale):
        notes["H"] = "identical client Hessians: ∇F − ∇f_k = −c_k is constant, H_k = ‖b̄ − b_k‖"
        return c_norm, None
    if rho is None:
        notes["H"] = "unbounded domain (no radius): H = inf; pass a radius"
        return np.full(K, math.inf), None
    if M_eig is not None:
        lam, V = M_eig
        order = np.argsort(lam**2, axis=1)
        lam2 = np.take_along_axis(lam**2, order, axis=1)
        V = np.take_along_axis(V, order[:, None, :], axis=2)
        b = np.einsum("kij,kj,kj->ki", V, np.take_along_axis(lam, order, axis=1),
                      np.einsum("kij,ki->kj", V, c))
        values, W = maximize_on_ball_eig(lam2, V, b, c_norm**2, rho)
        return np.sqrt(np.maximum(values, 0.0)), W
    upper = norm_M * rho + c_norm
    lower = _feasible_lower(lambda W: _hetero_at(problem, Qbar, bbar, W), c, rho)
    exact["H"] = False
    intervals["H"] = (float(lower.max()), float(upper.max()))
    notes["H"] = (f"d = {problem.dim} above dense_limit: H_k ≤ ‖Q̄ − Q_k‖ρ + ‖b̄ − b_k‖ (reported), "
                  "lower end from feasible points")
    return upper, None


def _hetero_at(problem: Problem, Qbar: np.ndarray, bbar: np.ndarray, W: np.ndarray) -> np.ndarray:
    """‖∇F(w_k) − ∇f_k(w_k)‖ at per-client points W (K, d)."""
    G = problem.datafit.client_gradients(W)
    return np.linalg.norm(W @ Qbar - bbar - G, axis=1)


def _feasible_lower(value_at, directions: np.ndarray, rho: float) -> np.ndarray:
    """Max of ``value_at`` over ±ρ·(per-client direction) and ±ρ·e_1 — feasible points, hence lower bounds."""
    norms = np.linalg.norm(directions, axis=1, keepdims=True)
    unit = np.where(norms > 0, directions / np.where(norms > 0, norms, 1.0), 0.0)
    unit[norms[:, 0] == 0, 0] = 1.0
    return np.max([value_at(s * rho * unit) for s in (1.0, -1.0)], axis=0)


def _variance(problem: Problem, batch: int, replace: bool, rho: float | None, large: bool, exact: dict,
              notes: dict, intervals: dict) -> tuple[np.ndarray, np.ndarray | None]:
    """σ_k² = sup_{‖w‖≤ρ} of the minibatch variance (see :func:`minibatch_variance`)."""
    K, fit = problem.clients, problem.datafit
    if problem.sampling == "gaussian":
        notes["sigma2"] = f"additive Gaussian noise: E‖ζ‖² = σ²/B = {problem.noise_std}²/{batch} at every w"
        return np.full(K, problem.noise_std**2 / batch), None
    if rho is None:
        notes["sigma2"] = "unbounded domain (no radius): the minibatch variance grows with ‖w‖, σ² = inf"
        return np.full(K, math.inf), None
    if problem.sampling == "empirical":
        factor = _batch_factor(fit.samples, batch, replace)
        X, y, n = fit.X, fit.y, fit.samples
        sq = np.einsum("kid,kid->ki", X, X)
        b_k = np.einsum("kid,ki->kd", X, y) / n
        b_trs_raw = np.einsum("ki,ki,kid->kd", sq, y, X) / n  # (1/n)Σ‖x_i‖²y_ix_i
        c0 = np.mean(y * y * sq, axis=1) - np.einsum("kd,kd->k", b_k, b_k)
        if not large:
            Q = _sym(np.asarray(fit.hessians))
            P = np.einsum("ki,kid,kie->kde", sq, X, X) / n - Q @ Q
            b = b_trs_raw - np.einsum("kde,ke->kd", Q, b_k)
            values, W = maximize_on_ball_eig(*np.linalg.eigh(_sym(P)), b, c0, rho)
            return factor * np.maximum(values, 0.0), W
        Xt = X * np.sqrt(sq)[..., None]
        if n < problem.dim:
            lam_A = np.linalg.eigvalsh(Xt @ np.swapaxes(Xt, 1, 2) / n)[:, -1]
        else:
            lam_A = np.array([_spectral_norm(A) for A in np.swapaxes(Xt, 1, 2) @ Xt / n])
        # P = A − Q_k² ⪯ A; ‖b‖ ≤ ‖(1/n)Σ‖x_i‖²y_ix_i‖ + ‖Q_kb_k‖, Q_kb_k = Xᵀ(Xb_k)/n
        Qb = np.einsum("kid,ki->kd", X, np.einsum("kid,kd->ki", X, b_k)) / n
        b_norm = np.linalg.norm(b_trs_raw - Qb, axis=1)
        upper = factor * upper_bound(lam_A, b_norm, c0, rho)
    else:  # population
        pop: GaussianPopulation = fit
        a = np.einsum("kd,kd->k", pop.means, pop.means) + np.trace(pop.cov)
        if not large:
            S = _sym(np.asarray(pop.hessians))
            Qi = _sym(_fourth_moment(pop, slice(None)) - S @ S)
            b = Qi @ pop.truth
            c0 = np.einsum("kd,kd->k", b, np.broadcast_to(pop.truth, b.shape)) + pop.noise_std**2 * a
            values, W = maximize_on_ball_eig(*np.linalg.eigh(Qi), b, c0, rho)
            return np.maximum(values, 0.0) / batch, W
        lam4 = np.empty(K)
        for start in range(0, K, 8):
            sl = slice(start, min(K, start + 8))
            lam4[sl] = [_spectral_norm(A) for A in _sym(_fourth_moment(pop, sl))]  # PSD: ‖A‖₂ = λ_max
        reach = rho + float(np.linalg.norm(pop.truth))
        upper = (lam4 * reach**2 + pop.noise_std**2 * a) / batch
    direction = np.ones(problem.dim) if problem.truth is None else problem.flat(problem.truth).reshape(-1)
    direction = direction / max(float(np.linalg.norm(direction)), np.finfo(float).tiny)
    lower = np.max([minibatch_variance(problem, s * rho * direction, batch, replace) for s in (1.0, -1.0)], axis=0)
    exact["sigma2"] = False
    intervals["sigma2"] = (float(lower.max()), float(upper.max()))
    notes["sigma2"] = (f"d = {problem.dim} above dense_limit: certified upper bound λ_max(P)ρ² + 2‖b‖ρ + c₀ "
                       "(reported), lower end from feasible points")
    return upper, None


# ---- Bylinkin et al.: two-group federations h = f + g with a server h_1 = f_1 + g_1 ------------------
#: constants of a ``separation`` problem (group means f, g; server f_1, g_1), see :func:`separation_constants`
SEPARATION_DEFINITIONS: dict[str, Definition] = {
    "mu": Definition("λ_min(A_f + A_g)", "Bylinkin et al. Assumption 1 (h μ-strongly convex)"),
    "L": Definition("λ_max(A_f + A_g)", "smoothness of h (enters only logarithmic factors)"),
    "L_f": Definition("λ_max(A_f)", "smoothness of f (the paper's δ_f = L_f for unrelated data)"),
    "L_g": Definition("λ_max(A_g)", "smoothness of g"),
    "delta_f": Definition("‖A_f1 − A_f‖₂", "Bylinkin et al. Assumption 2 (f_1 δ_f-related to f)"),
    "delta_g": Definition("‖A_g1 − A_g‖₂", "Bylinkin et al. Assumption 2 (g_1 δ_g-related to g)"),
    "lambda_min_g": Definition("λ_min(A_g) ≥ 0", "Bylinkin et al. Assumption 3 (g convex)"),
    "lambda_min_h1": Definition("λ_min(A_f1 + A_g1) ≥ 0", "implicit: h_1 convex (App. B, C)"),
    "lambda_min_f1_plus_g": Definition("λ_min(A_f1 + A_g) ≥ 0", "implicit: f_1 + g convex (Section 7, Thm 8)"),
}


def separation_certificates(problem: Problem) -> dict[str, Any]:
    """name → :class:`~fedrates.solvers.certify.CertifiedConstant` for every key of :data:`SEPARATION_DEFINITIONS`
    (witness eigenvector applied through the node datafits; Cholesky tests of both signs for δ_f, δ_g); pass the
    result to :func:`fedrates.solvers.certify.check_certified`."""
    from fedrates.solvers.certify import for_separation

    return for_separation(problem)


def curvature(problem: Problem) -> tuple[float, float]:
    """(L, μ) = (max_k λ_max(Q_k), max(min_k λ_min(Q_k), 0)) (Bao et al. Assumption 1), cached in memory and on disk
    beside the reference (``<cache>/curvature/``, checksummed, keyed by the problem's fingerprint and this
    module's code), so that every ``fedrates run`` of the FedDA family does not recompute the client spectra.
    Sample least squares with n < d uses the n × n Gram matrices (same nonzero spectrum; λ_min = 0)."""
    from fedrates.solvers import _cache
    from fedrates.solvers.certify import code_digest

    key = _cache.entry_key(problem.fingerprint, {"what": "curvature", "code": code_digest(("fedrates.solvers.constants",
                                                                                         ))})
    if key in _CURVATURE:
        return _CURVATURE[key]
    directory = _cache.cache_dir() / "curvature"
    doc = _cache.load_document(key, directory)
    if doc is not None and isinstance(doc.get("L"), float) and isinstance(doc.get("mu"), float):
        _CURVATURE[key] = (doc["L"], doc["mu"])
        return _CURVATURE[key]
    X = getattr(problem.datafit, "X", None)
    if X is not None and X.shape[1] < X.shape[2]:
        ev = np.linalg.eigvalsh(X @ np.swapaxes(X, 1, 2) / X.shape[1])
        value = (float(ev[:, -1].max()), 0.0)
    else:
        ev = np.linalg.eigvalsh(problem.datafit.hessians)
        value = (float(ev[:, -1].max()), float(max(ev[:, 0].min(), 0.0)))
    _cache.store_document(key, {"L": value[0], "mu": value[1]}, directory)
    _CURVATURE[key] = value
    return value


_CURVATURE: dict[str, tuple[float, float]] = {}


def separation_constants(problem: Problem) -> dict[str, float]:
    """Exact constants of a two-group ``separation`` problem (keys of :data:`SEPARATION_DEFINITIONS`)."""
    from fedrates.solvers.problems.separation import split

    consts = split(problem).constants()
    return {name: float(consts[name]) for name in SEPARATION_DEFINITIONS}
# ---- differential privacy calibration (Das, Hashemi, Sanghavi, Dhillon) ---------------------------------
def _dp_positive(name: str, value: Any, what: str) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{name}={value!r} is not a number; expected {what}") from None
    if not math.isfinite(v) or v <= 0:
        raise InputError(f"{name}={value!r} is out of range; expected {what}")
    return v


def _dp_delta(delta: Any) -> float:
    try:
        v = float(delta)
    except (TypeError, ValueError):
        raise InputError(f"delta={delta!r} is not a number; expected 0 < delta < 1") from None
    if not (0.0 < v < 1.0):
        raise InputError(f"delta={delta!r} is out of range; expected 0 < delta < 1")
    return v


def dp_sigma(eps: float, delta: float, q: float, rounds: int, clip: float, clients: int) -> float:
    """Std σ of the server-averaged privacy noise of Das et al.'s Theorem 1 (eq. 5):

        σ² = q K C² log(1/δ) / (n² ε²),

    with K rounds, clipping threshold (normalisation scale) C, n clients and the paper's absolute constant q > 0 of
    the moments accountant (the paper never gives its value).  Each client adds N(0, rσ²I), so the average over r
    clients is N(0, σ²I); σ² does not depend on r (subsampling amplification is built into eq. 5)."""
    eps = _dp_positive("eps", eps, "eps > 0")
    delta = _dp_delta(delta)
    q = _dp_positive("q", q, "q > 0 (the absolute constant of eq. 5)")
    K = _dp_positive("rounds", rounds, "rounds K >= 1")
    C = _dp_positive("clip", clip, "clip C > 0")
    n = _dp_positive("clients", clients, "clients n >= 1")
    return math.sqrt(q * K * math.log(1.0 / delta)) * C / (n * eps)


def dp_rho(eps: float, delta: float, q: float, dim: int, clients: int) -> float:
    """ρ = sqrt(q d log(1/δ)) / (n ε) (Das et al., Definition 5, eq. 3)."""
    eps = _dp_positive("eps", eps, "eps > 0")
    delta = _dp_delta(delta)
    q = _dp_positive("q", q, "q > 0 (the absolute constant of eq. 5)")
    d = _dp_positive("dim", dim, "dim d >= 1")
    n = _dp_positive("clients", clients, "clients n >= 1")
    return math.sqrt(q * d * math.log(1.0 / delta)) / (n * eps)


def dp_rho_effective(sigma: float, clip: float, rounds: int, dim: int) -> float:
    """The q-free ρ of a run with averaged-noise std σ: ρ = sqrt(d) σ / (C sqrt(K)), from d σ² = K C² ρ²."""
    if not (isinstance(sigma, (int, float, np.floating, np.integer)) and math.isfinite(float(sigma))
            and float(sigma) >= 0):
        raise InputError(f"sigma={sigma!r} is out of range; expected sigma >= 0")
    C = _dp_positive("clip", clip, "clip C > 0")
    K = _dp_positive("rounds", rounds, "rounds K >= 1")
    d = _dp_positive("dim", dim, "dim d >= 1")
    return math.sqrt(d) * float(sigma) / (C * math.sqrt(K))


def dp_noise_multiplier(sigma: float, clip: float, rate: float, clients: int) -> float:
    """Noise multiplier z = (std of the summed noise)/(sensitivity C) = r σ / C with r = rate·n expected
    participants (rate = r/n ∈ (0, 1]); with σ from eq. (5), z = (r/n) sqrt(q K log(1/δ))/ε."""
    C = _dp_positive("clip", clip, "clip C > 0")
    rate = _dp_positive("rate", rate, "participation rate r/n in (0, 1]")
    if rate > 1:
        raise InputError(f"rate={rate!r} is out of range; expected participation rate r/n in (0, 1]")
    n = _dp_positive("clients", clients, "clients n >= 1")
    if not math.isfinite(float(sigma)) or float(sigma) < 0:
        raise InputError(f"sigma={sigma!r} is out of range; expected sigma >= 0")
    return rate * n * float(sigma) / C
