"""Fast path of the reference solver: accelerated proximal gradient on the Gram matrix, then an exact polish.

The problem is φ(w) = F(w) + h(w) with F(w) = ½wᵀQ̄w − b̄ᵀw + c̄ (Q̄ ⪰ 0, from ``Problem.quadratic``) and
h = λR + ι_{‖w‖≤ρ} (R = ℓ1, nuclear or zero; the ball only when the problem has a radius).

1. **FISTA with adaptive restart** (Beck & Teboulle 2009; O'Donoghue & Candès 2015):
   w⁺ = prox_{h/L}(y − ∇F(y)/L),  y⁺ = w⁺ + ((t − 1)/t⁺)(w⁺ − w),  t⁺ = (1 + √(1 + 4t²))/2, momentum reset
   when ⟨y − w⁺, w⁺ − w⟩ > 0.  With λ_min(Q̄) > 0 the restarted scheme converges linearly.  The prox is the
   exact one of :mod:`fedrates.solvers.penalties` (soft thresholding / SVT followed by the radial ball projection).
2. **Active-set Newton polish** (ℓ1 and zero penalties): with S the support of the iterate and σ its signs, the
   optimality conditions restricted to S are linear,
   (Q̄_SS + βI) w_S = b̄_S − λσ_S,  w_{Sᶜ} = 0,
   with β = 0 unless the ball binds; then β > 0 solves ‖w_S(β)‖ = ρ (a 1-D monotone equation solved by the
   Moré–Sorensen Newton iteration on 1/ρ − 1/‖w_S(β)‖).  The candidate is accepted only through the certificate.
3. Smooth problems (zero penalty): the same linear system with S = everything (a trust-region subproblem when the
   ball binds).

This module only proposes points; :mod:`fedrates.solvers.reference` certifies them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from fedrates._lazy import lazy_import
from fedrates.solvers import kernels
from fedrates.solvers.penalties import L1, Nuclear, Penalty, Zero

sla = lazy_import("scipy.linalg")  # scipy is imported on first use, not by listing or argument checks
spla = lazy_import("scipy.sparse.linalg")

__all__ = ["Gram", "solve_fast", "inside_ball", "matvec"]

UNIT = np.finfo(float).eps / 2  # unit roundoff u of float64
#: entries of A per BLAS call in :func:`matvec`; OpenBLAS runs a gemv with m·n < 2304·4 = 9216 (and a gemm with
#: m·n·k ≤ 64³) on the calling thread only
_BLAS_BLOCK = 8192


def matvec(A: np.ndarray, x: np.ndarray) -> np.ndarray:
    """A @ x for A (n, d) and x (d,) or (d, k), computed as one stacked product of row blocks of A.

    Each row block is a separate small BLAS call, which OpenBLAS runs on the calling thread.  One multithreaded
    gemv of a 1024 × 1024 matrix synchronises its threads and, when the cores are busy with other processes,
    waits for the scheduler: measured 8–16 ms instead of 0.18 ms (2 cores, load average 6), a 50× slowdown of
    every iterative solve.  The blocks leave the global thread settings alone.  Each entry of the result is the
    same dot product of a row of A with x (the summation order inside it is the BLAS kernel's).
    """
    n, d = A.shape
    rows = max(1, _BLAS_BLOCK // max(d, 1))
    if n <= rows or not A.flags.c_contiguous:
        return A @ x
    full = n - n % rows
    head = (A[:full].reshape(full // rows, rows, d) @ x).reshape((full,) + x.shape[1:])
    if full == n:
        return head
    return np.concatenate([head, A[full:] @ x])


def inside_ball(w: np.ndarray, radius: float | None) -> np.ndarray:
    """Scale w radially so that its *computed* norm is ≤ radius (changes w by a few ulps at most)."""
    if radius is None:
        return w
    for _ in range(8):
        norm = float(np.sqrt(np.sum(w * w)))
        if norm <= radius:
            return w
        w = w * (radius / norm) * (1 - 4 * UNIT)
    return w * 0.999  # pragma: no cover - never reached for finite inputs


@dataclass(eq=False)
class Gram:
    """The quadratic model (Q̄, b̄, c̄) of a problem with its penalty and domain, plus cached factorizations.

    ``chol`` is the lower Cholesky factor of Q̄ when Q̄ is numerically positive definite (reciprocal 1-norm
    condition estimate above ``1e3·d·u``), else ``None``.
    """

    Q: np.ndarray
    b: np.ndarray
    c: float
    shape: tuple[int, ...]
    penalty: Penalty
    radius: float | None
    smooth_nonnegative: bool = False  # F ≥ 0 on ℝ^d (sums of squares): allows the implied-ball certificate

    @property
    def dim(self) -> int:
        return int(self.b.shape[0])

    @property
    def lam(self) -> float:
        return float(self.penalty.lam)

    @property
    def smooth(self) -> bool:
        """True when the penalty vanishes (h is at most the ball indicator)."""
        return isinstance(self.penalty, Zero) or self.lam == 0.0

    @cached_property
    def abs_Q(self) -> np.ndarray:
        return np.abs(self.Q)

    @cached_property
    def _factor(self) -> tuple[np.ndarray | None, float]:
        """(lower Cholesky factor or None, reciprocal 1-norm condition estimate)."""
        try:
            low = np.linalg.cholesky(self.Q)
        except np.linalg.LinAlgError:
            return None, 0.0
        anorm = float(np.max(np.sum(self.abs_Q, axis=0)))
        # Q̄ = UᵀU with U = Lᵀ: the transpose of the C-ordered factor is Fortran-ordered, so LAPACK reads it uncopied
        rcond, info = sla.lapack.dpocon(low.T, anorm, uplo="U")
        if info != 0 or not rcond > 1e3 * self.dim * UNIT:
            return None, float(rcond)
        return low, float(rcond)

    @property
    def chol(self) -> np.ndarray | None:
        return self._factor[0]

    @property
    def condition(self) -> float:
        """Estimate of κ₁(Q̄) (an upper bound on κ₂ up to the estimator's slack); inf when singular."""
        rcond = self._factor[1]
        return 1.0 / rcond if rcond > 0 else np.inf

    @cached_property
    def inverse_norm_bound(self) -> float:
        """Upper bound on ‖Q̄⁻¹‖₂ (≤ ‖Q̄⁻¹‖₁, estimated by LAPACK, times a safety factor 10)."""
        anorm = float(np.max(np.sum(self.abs_Q, axis=0)))
        return 10.0 * self.condition / anorm

    @cached_property
    def lipschitz(self) -> float:
        """λ_max(Q̄) (Lanczos, inflated by 1%, used as the FISTA step 1/L)."""
        if self.dim <= 64:
            top = float(np.linalg.eigvalsh(self.Q)[-1])
        else:
            op = spla.LinearOperator(self.Q.shape, matvec=lambda x: matvec(self.Q, x), dtype=float)
            try:
                top = float(spla.eigsh(op, k=1, which="LA", tol=1e-6, return_eigenvectors=False)[0])
            except spla.ArpackNoConvergence:  # pragma: no cover - safety net
                top = float(np.max(np.sum(self.abs_Q, axis=0)))
        return max(top, np.finfo(float).tiny) * 1.01

    def qnorm_inv(self, x: np.ndarray) -> float:
        """‖x‖_{Q̄⁻¹} = ‖L⁻¹x‖ (requires ``chol``)."""
        y = sla.solve_triangular(self.chol, x, lower=True, check_finite=False)
        return float(np.sqrt(np.sum(y * y)))

    def prox(self, v: np.ndarray, step: float) -> np.ndarray:
        """prox_{step·h} on flat vectors (exact, with the ball).  One vector per call: the numpy kernels, since loading
        the compiled ones (0.5–1 s in a fresh process) would cost more than a whole reference solve."""
        if isinstance(self.penalty, L1):
            return kernels.soft_ball(v[None, :], step * self.lam, self.radius, backend="numpy")[0]
        if isinstance(self.penalty, Zero):
            return v if self.radius is None else kernels.ball(v[None, :], self.radius, backend="numpy")[0]
        out = self.penalty.prox(v.reshape(self.shape), step, self.radius)
        return out.reshape(-1)


Certifier = Callable[[np.ndarray], float]


def _fista(gram: Gram, w: np.ndarray, iterations: int) -> np.ndarray:
    """``iterations`` steps of FISTA with gradient-based restart from w (see module docstring)."""
    Q, b = gram.Q, gram.b
    step = 1.0 / gram.lipschitz
    y, t = w.copy(), 1.0
    for _ in range(iterations):
        w_new = gram.prox(y - step * (matvec(Q, y) - b), step)
        if np.dot(y - w_new, w_new - w) > 0:  # restart: momentum points uphill
            t, y = 1.0, w_new
        else:
            t_new = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t * t))
            y = w_new + ((t - 1.0) / t_new) * (w_new - w)
            t = t_new
        w = w_new
    return w


def _trust_region(A: np.ndarray, r: np.ndarray, radius: float) -> np.ndarray | None:
    """Solve (A + βI)x = r, β ≥ 0, ‖x‖ ≤ ρ with β(‖x‖ − ρ) = 0, for A ≻ 0 (Moré–Sorensen Newton on β)."""
    beta = 0.0
    eye = np.eye(A.shape[0])
    x = None
    for _ in range(60):
        try:
            low = np.linalg.cholesky(A + beta * eye)
        except np.linalg.LinAlgError:
            return None
        x = sla.cho_solve((low, True), r, check_finite=False)
        norm = float(np.linalg.norm(x))
        if beta == 0.0 and norm <= radius:
            return x
        if abs(norm - radius) <= 4 * UNIT * radius:
            break
        q = sla.solve_triangular(low, x, lower=True, check_finite=False)
        beta_new = beta + (norm / np.linalg.norm(q)) ** 2 * (norm - radius) / radius
        if beta_new == beta:
            break
        beta = max(beta_new, 0.0)
    return x


def _newton(gram: Gram, w: np.ndarray) -> np.ndarray | None:
    """Active-set Newton candidate from the support and signs of w (ℓ1 / zero penalty; see module docstring)."""
    if isinstance(gram.penalty, Nuclear):
        return None
    if gram.smooth:
        support = np.arange(gram.dim)
        rhs = gram.b.copy()
    else:
        support = np.flatnonzero(w)
        if support.size == 0:
            return None
        rhs = gram.b[support] - gram.lam * np.sign(w[support])
    A = gram.Q[np.ix_(support, support)]
    try:
        low = np.linalg.cholesky(A)
    except np.linalg.LinAlgError:
        return None
    x = sla.cho_solve((low, True), rhs, check_finite=False)
    x = x + sla.cho_solve((low, True), rhs - matvec(A, x), check_finite=False)  # one step of iterative refinement
    if gram.radius is not None and np.linalg.norm(x) > gram.radius:
        x = _trust_region(A, rhs, gram.radius)
        if x is None:
            return None
    out = np.zeros(gram.dim)
    out[support] = x
    return inside_ball(out, gram.radius)


def solve_fast(gram: Gram, certify: Certifier, target: float, w0: np.ndarray | None = None,
               max_iterations: int = 20000, batch: int = 50) -> tuple[np.ndarray, float]:
    """Best certified point found: (w, gap).  Stops as soon as gap ≤ target or after ``max_iterations``."""
    if not isinstance(gram.penalty, (L1, Nuclear, Zero)):  # pragma: no cover - closed set of penalties
        raise TypeError(f"unsupported penalty {gram.penalty!r}")
    w = inside_ball(np.zeros(gram.dim) if w0 is None else np.asarray(w0, float).reshape(-1).copy(), gram.radius)
    best_w, best_gap = w, certify(w)
    if best_gap <= target:
        return best_w, best_gap
    if gram.smooth:
        candidate = _newton(gram, w)
        if candidate is not None:
            gap = certify(candidate)
            if gap < best_gap:
                best_w, best_gap = candidate, gap
            if best_gap <= target:
                return best_w, best_gap
    done, size = 0, batch
    while done < max_iterations:
        w = _fista(gram, w, size)
        done += size
        for candidate in (w, _newton(gram, w)):
            if candidate is None:
                continue
            gap = certify(candidate)
            if gap < best_gap:
                best_w, best_gap = candidate, gap
        if best_gap <= target:
            break
        size = min(int(1.5 * size), 1000)
    return best_w, best_gap
