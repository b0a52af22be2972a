r"""Certified reference optima: ``solve(problem) -> Reference`` and ``certify(problem, w) -> gap``.

Problem.  φ(w) = F(w) + h(w) with F(w) = ½wᵀQ̄w − b̄ᵀw + c̄ (Q̄ ⪰ 0, ``Problem.quadratic``) and
h = λR + ι_{‖w‖≤ρ} (R = ℓ1, nuclear, or zero; the indicator only when the problem has a radius ρ).  The
certificate is an upper bound on φ(w) − φ*, computed by our own code from a dual point; solver statuses are never
used.

**Fenchel dual with a factor.**  Write Q̄ = MᵀM and F(w) = ½‖Mw − v‖² + κ (Mᵀv = b̄, κ = c̄ − ½‖v‖²).  Then
min_w ½‖Mw − v‖² + h(w) has the Fenchel dual  max_θ D(θ) = −½‖θ‖² − ⟨θ, v⟩ + κ − h*(−Mᵀθ)  and weak duality
φ(w) ≥ φ* ≥ D(θ) for every θ.  At the natural dual point θ = Mw − v (so Mᵀθ = ∇F(w) =: g) the duality gap is
P(w) − D(θ) = ‖θ‖² + ⟨θ, v⟩ + h(w) + h*(−g) = ⟨g, w⟩ + h(w) + h*(−g), because ⟨θ, v⟩ = ⟨g, w⟩ − ‖θ‖².
Without a factor the same bound follows from the convex minorant F(x) ≥ F(w) + ⟨g, x − w⟩:
φ* = min_x F(x) + h(x) ≥ F(w) − ⟨g, w⟩ + min_x ⟨g, x⟩ + h(x) = F(w) − ⟨g, w⟩ − h*(−g), hence
gap_lin(w) = ⟨g, w⟩ + h(w) + h*(−g)  (Fenchel–Young: each of the two inequalities is an equality at the optimum).

*Ball of radius ρ.*  h* is finite: h* = (λR)* □ (ι_ball)* = ι_{R*≤λ} □ ρ‖·‖, i.e.
h*(v) = ρ·dist(v, {R* ≤ λ}) = ρ‖v − Π_{λB_{R*}}(v)‖ = ρ‖S_λ(v)‖ (Moreau), with S_λ the soft threshold (ℓ1),
singular value thresholding (nuclear) or the identity (zero penalty).  No rescaling is needed.

*Unconstrained.*  h* = ι_{R*(·) ≤ λ} (R ≠ 0) or ι_{0} (zero penalty), so the dual point must be rescaled:
θ = s(Mw − v) with s = min(1, λ/R*(g)) (s = 0 for the zero penalty), and
P(w) − D(sθ) = ½(1 + s²)‖θ‖² + s⟨θ, v⟩ + h(w) = s⟨g, w⟩ + h(w) + ½(1 − s)²‖θ‖².

**Factor-free form used in the code.**  For Q̄ ≻ 0 both cases are instances of one identity.  With u := Mᵀθ any
point of ℝ^d (M square invertible, e.g. Mᵀ = Cholesky factor L), −F*(u) − h*(−u) ≤ φ* and, expanding F around w,
F(w) + F*(u) = ⟨u, w⟩ + ½(u − g)ᵀQ̄⁻¹(u − g).  Hence, for every u,

    gap(w; u) = ⟨u, w⟩ + h(w) + h*(−u) + ½‖u − g‖²_{Q̄⁻¹}.                                         (★)

u = g gives gap_lin (ball); u = s·g gives the rescaled dual gap with ‖θ‖² = ‖g‖²_{Q̄⁻¹} (the least-norm θ).

**Subgradient (strong convexity) bound.**  Unconstrained, any d ∈ ∂φ(w) gives φ(x) ≥ φ(w) + ⟨d, x − w⟩ +
½(x − w)ᵀQ̄(x − w); minimising over x: φ(w) − φ* ≤ ½‖d‖²_{Q̄⁻¹} ≤ dist(0, ∂φ(w))²/(2μ), μ = λ_min(Q̄).  Used with
the least-norm subgradient for ℓ1 and zero penalties.  The reported gap is the minimum of the valid bounds.

**Floating point.**  (★) holds for *any* u, so u is taken as the float vector actually computed; the only
inexact ingredient is the true gradient g, and ĝ = fl(Q̄w − b̄) obeys |ĝ − g| ≤ γ_{d+1}(|Q̄||w| + |b̄|)
(γ_n = nu/(1 − nu), any summation order).  Writing u − g = (u − ĝ) + e, the quadratic term is bounded by
½(‖u − ĝ‖_{Q̄⁻¹}(1 + η) + ‖e‖·‖Q̄⁻¹‖₂^{1/2})², where η covers the Cholesky/triangular-solve rounding
(≈ 10(d + 1)u·κ(Q̄)) and ‖Q̄⁻¹‖₂ is bounded by 10× the LAPACK 1-norm estimate.  The linear part
⟨u, w⟩ + h(w) + h*(−u) is summed with ``math.fsum`` (exactly rounded), so its error is that of the products
(≤ 2u·Σ|terms|), plus the backward error of the SVD (8(d1 + d2)u‖·‖₂ per singular value) for the nuclear norm.
All allowances are added, the rescaling s is chosen so that R*(u) ≤ λ holds including the SVD error, and the
result is clipped at 0 only afterwards.  The certificate is exact for the quadratic (Q̄, b̄, c̄) as stored.

*Singular Q̄* (Cholesky fails or κ(Q̄) ≳ 1/(1000du)): only gap_lin is available, with the gradient computed in
extended precision and the allowance ‖e‖(ρ + ‖w‖) (from |⟨e, x − w⟩| on the ball).  Without a ball, when F ≥ 0
(least squares, population and quadratic families are sums of squares) and λ > 0, any minimiser satisfies
‖x*‖₂ ≤ R(x*) ≤ φ(w)/λ =: B, so the ball form applies with ρ = B.

**Target.**  gap ≤ tol·max(1, |φ(ŵ)|) (tol = 1e-11 by default), else :class:`VerificationError`.

The fast path is in :mod:`fedrates.solvers._reference_fast`; the cvxpy path writes the loss as ½‖Mw − v‖² + κ with
Mᵀ = the Cholesky factor of Q̄ (eigen-factor when singular) and solves with Clarabel at tolerances 1e-12; its point
is certified by (★) and, if not good enough, polished by the fast path.
"""

from __future__ import annotations

import math
import time
import warnings
import weakref
from dataclasses import dataclass

import numpy as np

from fedrates._lazy import lazy_import, preload
from fedrates.solvers import _cache
from fedrates.solvers._reference_fast import UNIT, Gram, inside_ball, matvec, solve_fast
from fedrates.solvers.errors import InputError, VerificationError, unknown_name
from fedrates.solvers.penalties import L1, Nuclear, Zero, soft_threshold
from fedrates.solvers.problems.base import Problem
from fedrates.solvers.problems.datafits import GaussianPopulation, SampleLeastSquares

__all__ = ["Reference", "solve", "certify", "METHODS", "DEFAULT_TOL"]

sla = lazy_import("scipy.linalg")  # only the cvxpy path and the factorizations need scipy: a cache hit does not

METHODS = ("auto", "fast", "cvxpy")
DEFAULT_TOL = 1e-11
_GRAMS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


@dataclass(frozen=True, eq=False)
class Reference:
    """A certified reference optimum: φ* ∈ [value − gap, value].

    Attributes:
        w: the reference point ŵ (model shape), inside the domain.
        value: φ(ŵ) as computed by ``Problem.objective``.
        gap: certified upper bound on φ(ŵ) − φ*.
        method: the path that produced ŵ (``fast``, ``cvxpy``, ``cvxpy+fast``).
        seconds: wall time of the solve that produced ŵ (the original solve for cached entries).
        cached: whether ŵ was read from the on-disk cache (and re-certified).
        warnings: non-fatal notes (e.g. an unwritable cache directory).
    """

    w: np.ndarray
    value: float
    gap: float
    method: str
    seconds: float
    cached: bool = False
    warnings: tuple[str, ...] = ()


# ---------------------------------------------------------------------------------------------- the quadratic
def _gram(problem: Problem) -> Gram:
    gram = _GRAMS.get(problem)
    if gram is None:
        Q, b, c = problem.quadratic
        nonnegative = isinstance(problem.datafit, (SampleLeastSquares, GaussianPopulation)) or (
            problem.family == "quadratic")
        gram = Gram(Q=np.ascontiguousarray(Q, dtype=float), b=np.asarray(b, float), c=float(c),
                    shape=tuple(problem.shape), penalty=problem.penalty, radius=problem.radius,
                    smooth_nonnegative=nonnegative)
        _GRAMS[problem] = gram
    return gram


def _gamma(n: int, unit: float = UNIT) -> float:
    return n * unit / (1 - n * unit)


# ------------------------------------------------------------------------------- ⟨u, w⟩ + h(w) + h*(−u) pieces
def _svd_error(shape: tuple[int, ...]) -> float:
    """Relative backward error allowance of a float64 SVD, per singular value, in units of ‖·‖₂."""
    return 8.0 * sum(shape) * UNIT


def _linear_part(gram: Gram, w: np.ndarray, u: np.ndarray, radius: float | None) -> float:
    """Upper bound on ⟨u, w⟩ + λR(w) + h_ρ*(−u) (h_ρ = λR + ball of ``radius``), or inf if h*(−u) = +inf."""
    pen, lam = gram.penalty, gram.lam
    prod = u * w
    parts = [prod]
    allowance = 2 * UNIT * float(np.sum(np.abs(prod)))
    if isinstance(pen, Nuclear):
        W, Um = w.reshape(gram.shape), u.reshape(gram.shape)
        kappa = _svd_error(gram.shape)
        sw = np.linalg.svd(W, compute_uv=False)
        su = np.linalg.svd(Um, compute_uv=False)
        parts.append(lam * sw)
        allowance += lam * (sw.size * kappa * sw[0] + 2 * UNIT * float(np.sum(sw)))
        if radius is None:
            if su[0] * (1 + kappa) > lam:
                return math.inf
        else:
            excess = np.maximum(su - lam, 0.0)
            conj = radius * math.sqrt(math.fsum(excess * excess))
            parts.append(np.array([conj]))
            allowance += radius * math.sqrt(su.size) * kappa * su[0] + 8 * UNIT * conj
    else:
        if isinstance(pen, L1) and lam > 0:
            absw = lam * np.abs(w)
            parts.append(absw)
            allowance += 2 * UNIT * float(np.sum(absw))
        if radius is None:
            if (float(np.max(np.abs(u))) > lam) if isinstance(pen, L1) else np.any(u != 0):
                return math.inf
        else:
            excess = soft_threshold(-u, lam) if isinstance(pen, L1) else -u
            conj = radius * math.sqrt(math.fsum(excess * excess))
            parts.append(np.array([conj]))
            allowance += 8 * UNIT * conj
    total = math.fsum(np.concatenate([p.ravel() for p in parts]))
    return total + allowance + UNIT * abs(total)


def _rescaled(gram: Gram, g: np.ndarray) -> np.ndarray:
    """u = s·g with s = min(1, λ/R*(g)) chosen so that R*(u) ≤ λ holds for the computed u (0 if λ = 0)."""
    pen, lam = gram.penalty, gram.lam
    if isinstance(pen, Zero) or lam == 0:
        return np.zeros_like(g)
    if isinstance(pen, Nuclear):
        # margin 2κ: the SVD of the scaled matrix must also pass the check σ̂₁(u)(1 + κ) ≤ λ
        dual = float(np.linalg.svd(g.reshape(gram.shape), compute_uv=False)[0]) * (1 + 3 * _svd_error(gram.shape))
    else:
        dual = float(np.max(np.abs(g)))
    s = 1.0 if dual <= lam else lam / dual * (1 - 4 * UNIT)
    u = s * g
    for _ in range(4):
        if isinstance(pen, Nuclear) or float(np.max(np.abs(u))) <= lam:
            break
        s *= 1 - 4 * UNIT  # pragma: no cover - rounding guard
        u = s * g  # pragma: no cover
    return u


# ---------------------------------------------------------------------------------------------- certificates
def _dual_gaps(gram: Gram, w: np.ndarray, g: np.ndarray, e_norm: float) -> list[float]:
    """(★) at u = g (ball) and u = s·g, plus the subgradient bound (unconstrained ℓ1/zero); Q̄ ≻ 0."""
    d = gram.dim
    eta = 10 * (d + 1) * UNIT * gram.condition + 4 * UNIT
    e_term = e_norm * math.sqrt(gram.inverse_norm_bound)
    out = []
    points = [_rescaled(gram, g)] + ([g] if gram.radius is not None else [])
    for u in points:
        lin = _linear_part(gram, w, u, gram.radius)
        if not math.isfinite(lin):
            continue
        quad = 0.5 * (gram.qnorm_inv(u - g) * (1 + eta) + e_term) ** 2
        out.append(lin + quad)
    if gram.radius is None and not isinstance(gram.penalty, Nuclear):
        lam = gram.lam if isinstance(gram.penalty, L1) else 0.0
        # least-norm subgradient g + λz, z ∈ ∂‖w‖₁: z = sign(w) on the support, −clip(g/λ) elsewhere
        z = np.where(w != 0, np.sign(w), -np.clip(g / lam, -1.0, 1.0)) if lam > 0 else np.zeros_like(g)
        sub = g + lam * z
        r_norm = 2 * UNIT * float(np.linalg.norm(np.abs(g) + lam))
        out.append(0.5 * (gram.qnorm_inv(sub) * (1 + eta) + (e_norm + r_norm) * math.sqrt(
            gram.inverse_norm_bound)) ** 2)
    return out


def _linear_gap_singular(gram: Gram, w: np.ndarray) -> float:
    """gap_lin with an extended-precision gradient, for singular Q̄ (see module docstring)."""
    ext = np.longdouble
    unit = float(np.finfo(ext).eps) / 2
    g_ext = gram.Q.astype(ext) @ w.astype(ext) - gram.b.astype(ext)
    g = np.asarray(g_ext, dtype=float)
    e_bound = _gamma(gram.dim + 2, unit) * (matvec(gram.abs_Q, np.abs(w)) + np.abs(gram.b)) + UNIT * np.abs(g)
    e_norm = float(np.linalg.norm(e_bound)) * (1 + 1e-10)
    radius = gram.radius
    if radius is None:
        if gram.smooth or not gram.smooth_nonnegative:
            return math.inf
        Qw = matvec(gram.Q, w)
        F = 0.5 * float(w @ Qw) - float(gram.b @ w) + gram.c
        F_err = _gamma(gram.dim + 4) * (0.5 * float(np.abs(w) @ matvec(gram.abs_Q, np.abs(w)))
                                          + float(np.abs(gram.b) @ np.abs(w)) + abs(gram.c))
        h = float(gram.penalty.value(w.reshape(gram.shape)))
        radius = (F + F_err + h * (1 + 1e-9)) / gram.lam * (1 + 1e-9)
    lin = _linear_part(gram, w, g, radius)
    return lin + e_norm * (radius + float(np.linalg.norm(w)))


def _certify_flat(gram: Gram, w: np.ndarray) -> float:
    if not np.all(np.isfinite(w)):
        return math.inf
    if gram.radius is not None and float(np.sqrt(np.sum(w * w))) > gram.radius:
        return math.inf
    if gram.chol is None:
        gap = _linear_gap_singular(gram, w)
    else:
        g = matvec(gram.Q, w) - gram.b
        e_bound = _gamma(gram.dim + 2) * (matvec(gram.abs_Q, np.abs(w)) + np.abs(gram.b))
        gaps = _dual_gaps(gram, w, g, float(np.linalg.norm(e_bound)) * (1 + 1e-10))
        gap = min(gaps) if gaps else math.inf
    return max(gap, 0.0) if not math.isnan(gap) else math.inf


@dataclass(frozen=True)
class _InverseBound:
    """The parts of :class:`Gram` that (★) uses, with ‖z‖_{Q̄⁻¹} ≤ ‖z‖·‖Q̄⁻¹‖₂^{1/2} in place of the Cholesky factor
    (exact, with no factorization rounding: ``condition`` 0 makes η = 4u)."""

    shape: tuple[int, ...]
    penalty: object
    radius: float | None
    inverse_norm_bound: float
    condition: float = 0.0

    @property
    def dim(self) -> int:
        return int(np.prod(self.shape))

    @property
    def lam(self) -> float:
        return float(self.penalty.lam)

    def qnorm_inv(self, z: np.ndarray) -> float:
        norm = float(np.sqrt(np.sum(z * z))) * math.sqrt(self.inverse_norm_bound)
        return norm * (1 + _gamma(z.size + 8))


def _certify_samples(problem: Problem, w: np.ndarray, inverse_norm_bound: float) -> float:
    """(★) for least squares on samples without forming Q̄: O(N·d) instead of O(N·d²) (N samples, d = dim).

    F(w) = Σ_i a_i/2 (x_iᵀw − y_i)² with a_i = π_k/n_k, so g = ∇F(w) = Xᵀ(a∘r), r = Xw − y.  The gradient is computed
    from the data: the residual in extended precision (unit roundoff u_e; u_e = u where long double is float64),
    r̂ = fl(fl_e(Xw − y)), then v = fl(a∘r̂) and ĝ = fl(Xᵀv) (any summation order).  With m = max|x_ij|:
    |r̂ − r| ≤ δ := γ^e_{d+1}·m‖w‖₁ + u_e|y| + u|r̂|,  |v − a∘r| ≤ γ_2 a|r̂| + aδ,  hence every coordinate of ĝ − g
    is at most m·Σ_i (γ_N|v_i| + γ_2 a_i|r̂_i| + a_iδ_i), and (★) gives the gap with ‖Q̄⁻¹‖₂ ≤ ``inverse_norm_bound``
    (the gradient error enters squared, so the crude m-bounds cost nothing measurable).

    The bound on ‖Q̄⁻¹‖₂ is the one computed from Q̄ when the reference was first certified (stored with it).  It is
    checked against the data: ‖Q̄⁻¹‖₂ ≥ ‖z‖²/zᵀQ̄z for every z ≠ 0, tested at z = w and z = ĝ (zᵀQ̄z = Σ a_i(x_iᵀz)²);
    a stored bound below either value is impossible and the certificate is refused (+inf)."""
    if not (math.isfinite(inverse_norm_bound) and inverse_norm_bound > 0) or not np.all(np.isfinite(w)):
        return math.inf
    if problem.radius is not None and float(np.sqrt(np.sum(w * w))) > problem.radius:
        return math.inf
    fit = problem.datafit
    K, n, d = fit.X.shape
    N = K * n
    X, y = fit.X.reshape(N, d), fit.y.reshape(N)
    ext = np.longdouble
    unit_e = float(np.finfo(ext).eps) / 2
    r_ext = np.einsum("ij,j->i", X, w.astype(ext)) - y.astype(ext)  # x_iᵀw − y_i accumulated in long double
    r = np.asarray(r_ext, dtype=float)
    a = np.repeat(problem.weights / n, n)  # a_i = fl(π_k/n): its rounding is inside γ_4 below
    v = a * r
    g = X.T @ v
    m = max(float(np.max(X)), -float(np.min(X)))
    w1 = math.fsum(np.abs(w)) * (1 + _gamma(d))
    delta = (_gamma(d + 2, unit_e) * m * w1 + unit_e * np.abs(y)) * (1 + _gamma(4)) + UNIT * np.abs(r)
    terms = _gamma(N + 4) * np.abs(v) + _gamma(4) * a * np.abs(r) + a * delta
    e_coord = m * math.fsum(terms) * (1 + _gamma(N + 8))
    e_norm = e_coord * math.sqrt(d) * (1 + 1e-10)
    t = np.asarray(r_ext + y.astype(ext), dtype=float)  # X w, for the consistency check below
    for direction, image in ((w, t), (g, None)):  # the stored ‖Q̄⁻¹‖₂ bound must exceed ‖z‖²/zᵀQ̄z
        norm2 = float(direction @ direction)
        if norm2 > 0:
            image = X @ direction if image is None else image
            curvature = float(a @ np.square(image))
            if curvature <= 0 or inverse_norm_bound * (1 + 1e-6) < norm2 / curvature:
                return math.inf
    bound = _InverseBound(shape=tuple(problem.shape), penalty=problem.penalty, radius=problem.radius,
                          inverse_norm_bound=float(inverse_norm_bound))
    gaps = _dual_gaps(bound, w, g, e_norm)  # type: ignore[arg-type]
    gap = min(gaps) if gaps else math.inf
    return max(gap, 0.0) if not math.isnan(gap) else math.inf


def _recertify(problem: Problem, w: np.ndarray, meta: dict, target: float) -> float:
    """The certificate of a cached point: from the data and the stored ‖Q̄⁻¹‖₂ bound when that reaches the target
    (sample least squares), else the full certificate (which forms Q̄)."""
    bound = meta.get("inverse_norm_bound")
    if isinstance(problem.datafit, SampleLeastSquares) and isinstance(bound, float):
        gap = _certify_samples(problem, w.reshape(-1), bound)
        if gap <= target:
            return gap
    return certify(problem, w)


def certify(problem: Problem, w: np.ndarray) -> float:
    """Rigorous upper bound on φ(w) − φ* (see module docstring); +inf outside the domain or when unavailable."""
    w = np.asarray(w, dtype=float)
    if w.shape != tuple(problem.shape):
        raise InputError(f"point of shape {w.shape} does not match the model shape {tuple(problem.shape)}")
    return _certify_flat(_gram(problem), w.reshape(-1).copy())


# ------------------------------------------------------------------------------------------------- solvers
def _scaled_certifier(gram: Gram):
    """gap / max(1, |φ(w)|) with φ from the quadratic form (only used as a stopping rule)."""

    def check(w: np.ndarray) -> float:
        gap = _certify_flat(gram, w)
        value = 0.5 * float(w @ matvec(gram.Q, w)) - float(gram.b @ w) + gram.c
        value += float(gram.penalty.value(w.reshape(gram.shape)))
        return gap / max(1.0, abs(value))

    return check


def _solve_cvxpy(gram: Gram) -> np.ndarray:
    """Clarabel on ½‖Mw − v‖² + λR(w) (+ ball), M from a Cholesky or eigen factor of Q̄; returns the raw point."""
    import cvxpy as cp

    if gram.chol is not None:
        M = gram.chol.T
        v = sla.solve_triangular(gram.chol, gram.b, lower=True)
    else:
        vals, vecs = np.linalg.eigh(gram.Q)
        keep = vals > 1e-12 * max(float(vals[-1]), np.finfo(float).tiny)
        root = np.sqrt(vals[keep])
        M = root[:, None] * vecs[:, keep].T
        v = (vecs[:, keep].T @ gram.b) / root
    x = cp.Variable(gram.dim)
    objective = 0.5 * cp.sum_squares(M @ x - v)
    if isinstance(gram.penalty, L1) and gram.lam > 0:
        objective = objective + gram.lam * cp.norm1(x)
    elif isinstance(gram.penalty, Nuclear) and gram.lam > 0:
        objective = objective + gram.lam * cp.normNuc(cp.reshape(x, gram.shape, order="C"))
    constraints = [cp.norm(x, 2) <= gram.radius] if gram.radius is not None else []
    problem = cp.Problem(cp.Minimize(objective), constraints)
    with warnings.catch_warnings():  # "solution may be inaccurate": the status is never trusted anyway
        warnings.simplefilter("ignore", UserWarning)
        try:
            problem.solve(solver=cp.CLARABEL, tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12,
                          max_iter=400)
        except cp.error.SolverError:
            pass  # a point, if any, is certified by the caller
    if x.value is None:
        raise VerificationError("cvxpy/Clarabel returned no point for the reference problem")
    return inside_ball(np.asarray(x.value, dtype=float).reshape(-1), gram.radius)


def _compute(problem: Problem, method: str, tol: float) -> tuple[np.ndarray, str]:
    # the factorizations below need scipy (0.15–0.2 s to import): import it while Q̄ is formed (BLAS, GIL released)
    preload("scipy.linalg", "scipy.sparse.linalg")
    gram = _gram(problem)
    check = _scaled_certifier(gram)
    if method in ("auto", "fast"):
        w, scaled = solve_fast(gram, check, tol)
        if scaled <= tol or method == "fast":
            return w, "fast"
    w = _solve_cvxpy(gram)
    if check(w) <= tol:
        return w, "cvxpy"
    w, _ = solve_fast(gram, check, tol, w0=w)
    return w, "cvxpy+fast"


def _validate(method: str, tol: float) -> None:
    if method not in METHODS:
        raise unknown_name("reference method", method, METHODS)
    if not (isinstance(tol, (int, float)) and math.isfinite(tol) and tol > 0):
        raise InputError(f"reference tolerance tol={tol!r} must be a positive finite number")


def solve(problem: Problem, method: str = "auto", tol: float = DEFAULT_TOL, cache: bool = True) -> Reference:
    """Certified minimiser of φ: ``Reference(w, value, gap, method, seconds)`` with gap ≤ tol·max(1, |value|).

    ``method``: ``fast`` (FISTA + active-set Newton, :mod:`solvers._reference_fast`), ``cvxpy`` (Clarabel on the
    factored loss, certified and polished if needed) or ``auto`` (fast, falling back to cvxpy).  With ``cache``
    the result is stored on disk (:mod:`fedrates.solvers._cache`); a cached entry is re-certified before use.
    Raises :class:`VerificationError` when the certified gap stays above the target.
    """
    _validate(method, tol)
    key = _cache.entry_key(problem.fingerprint, {"method": method, "tol": float(tol)}) if cache else None
    if key is not None:
        hit = _cache.load(key, tuple(problem.shape))
        if hit is not None:
            w, meta = hit
            value = float(problem.objective(w))
            target = tol * max(1.0, abs(value))
            gap = _recertify(problem, w, meta, target)  # re-certified from the problem's data, never trusted
            if gap <= target and abs(value - meta["value"]) <= 1e-12 * max(1.0, abs(value)):
                gram = _GRAMS.get(problem)
                if "inverse_norm_bound" not in meta and gram is not None and gram.chol is not None:
                    # an entry written before the bound was stored: add it, so that the next hit skips Q̄
                    meta = {k: v for k, v in meta.items() if k in ("value", "gap", "method", "seconds")}
                    _cache.store(key, w, {**meta, "inverse_norm_bound": float(gram.inverse_norm_bound)})
                return Reference(w=w, value=value, gap=gap, method=str(meta["method"]), seconds=meta["seconds"],
                                 cached=True)
            _cache.remove(key)
    start = time.perf_counter()
    w_flat, used = _compute(problem, method, tol)
    w = problem.unflat(w_flat)
    value, gap = float(problem.objective(w)), certify(problem, w)
    seconds = time.perf_counter() - start
    target = tol * max(1.0, abs(value))
    if not gap <= target:
        raise VerificationError(f"reference for {problem.name} not certified: gap {gap:.3g} > target {target:.3g} "
                                f"(method {used})")
    warnings: tuple[str, ...] = ()
    if key is not None:
        meta = {"value": value, "gap": gap, "method": used, "seconds": seconds}
        gram = _GRAMS.get(problem)
        if gram is not None and gram.chol is not None and math.isfinite(gram.inverse_norm_bound):
            meta["inverse_norm_bound"] = float(gram.inverse_norm_bound)  # lets a cache hit skip forming Q̄
        note = _cache.store(key, w, meta)
        warnings = (note,) if note else ()
    return Reference(w=w, value=value, gap=gap, method=used, seconds=seconds, warnings=warnings)
