"""Exact constrained proximal operator of C-FedDA (Bao et al., ICML 2022, §3.3), with a certificate.

Problem (the reduced form of CProx_r; see :func:`cfedda_prox_arguments`):

    P(w) = ½‖w − v‖² + κ R(w)   minimised over   {‖w‖₂ ≤ ρ} ∩ {R(w − c) ≤ ε},

with R the penalty's norm (ℓ1, nuclear, or the Euclidean norm for the ``Zero`` penalty, where κ = 0), centre c
with ‖c‖ ≤ ρ and ε > 0.  ρ = ``None`` drops the ball.  There is no closed form when c ≠ 0.

Methods
-------
* **ℓ1 and Euclidean R — KKT with two multipliers.**  With θ ≥ 0 for R(w − c) ≤ ε and β/2 ≥ 0 for ‖w‖² ≤ ρ²,
  the Lagrangian minimiser for fixed (θ, β) is, with a = 1 + β and u = v/a,

      w(θ, β) = argmin_w (a/2)‖w − u‖² + κR(w) + θR(w − c),

  which is closed-form: for ℓ1 a per-coordinate clip formula (below); for the Euclidean norm (κ = 0) a block
  shrinkage of u − c.  Monotonicity (proved, not assumed): if w_s minimises f + s·q over a convex set and
  s₁ < s₂, adding the two optimality inequalities gives (s₁ − s₂)(q(w_{s₁}) − q(w_{s₂})) ≤ 0, so q(w_s) is
  non-increasing in s.  Hence R(w(θ, β) − c) is non-increasing in θ, and ‖w_β‖² is non-increasing in β where w_β
  is the minimiser with the R-ball kept as a hard constraint.  θ*(β) is found exactly: for ℓ1, θ ↦ ‖w(θ,β) − c‖₁
  is a signed sum of hinges (K_j − θ)₊ (:func:`_l1_theta`), so one sort of the knots and cumulative sums locate
  the linear piece holding the root and one linear interpolation gives it; for the Euclidean norm
  θ* = a(‖u − c‖ − ε)₊.  β is found by bisection on ‖w_β‖ = ρ.  Complementary slackness holds by construction,
  so (w, θ, β) is a KKT point.
* **Closed-form shortcut.**  First the ball-only solution w(0, β₀) = w(0, 0)/(1 + β₀), β₀ = (‖w(0, 0)‖/ρ − 1)₊
  (the radial projection of the soft threshold / SVT) is formed; where R(w(0, β₀) − c) ≤ ε it is the KKT point
  with θ = 0 and no search is run.  ``method="bisect"`` skips the shortcut and finds θ by a binary search over the
  sorted knots with one pass over the data per probe (the slower reference the fast path is tested against).
* **Nuclear norm.**  If c = 0 the problem is SVD-separable (von Neumann's trace inequality): the singular values
  solve the ℓ1 problem above with centre 0 and the singular vectors of v are kept.  Otherwise ADMM on the split
  w = y, f(w) = ½‖w − v‖² + κR(w) + ι{‖w‖ ≤ ρ} (prox: SVT then radial scaling, exact) and
  g(y) = ι{R(y − c) ≤ ε} (projection: singular values of y − c projected onto the ℓ1 ball).  ADMM converges for
  any penalty parameter (convex f, g; Boyd et al. 2011, §3.2).  ADMM is also the fallback for the other norms
  if the KKT path fails its certificate.

Certificate (every method): a feasible point is restored by moving toward the feasible centre,
w_f = c + t(w − c) with the largest t ∈ [0, 1] meeting both constraints, and a dual value d ≤ P* is computed
exactly (Lagrangian dual in (θ, β) for the KKT path; for ADMM with multiplier Λ of w = y,
d(Λ) = min_{‖w‖≤ρ} [½‖w − (v − Λ)‖² + κR(w)] − ½‖v − Λ‖² + ½‖v‖² − ⟨Λ, c⟩ − εR*(Λ)).  ``gap = P(w_f) − d`` bounds
P(w_f) − P*, and since P is 1-strongly convex ‖w_f − w*‖ ≤ √(2·gap).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fedrates.solvers.errors import InputError
from fedrates.solvers.penalties import (
    L1,
    Nuclear,
    Penalty,
    Zero,
    project_ball,
    singular_value_threshold,
    soft_threshold,
)

__all__ = ["CProxResult", "cprox", "cfedda_prox_arguments", "soft_then_project", "project_l1_ball"]

_BISECT_STEPS = 100
_ADMM_MAX_ITER = 20000


@dataclass(frozen=True)
class CProxResult:
    """Minimiser ``w`` (shape of ``v``), certified ``gap`` ≥ P(w) − P* per batch row, method name, iterations."""

    w: np.ndarray
    gap: np.ndarray
    method: str
    iterations: int


# ---------------------------------------------------------------------------------------------------------------
# building blocks (flattened vectors, batch axis first)
# ---------------------------------------------------------------------------------------------------------------
def project_l1_ball(x: np.ndarray, radius: float) -> np.ndarray:
    """Euclidean projection onto {‖y‖₁ ≤ radius} along the last axis (sort-based; Duchi et al. 2008)."""
    x = np.asarray(x, dtype=float)
    a = np.abs(x)
    inside = a.sum(axis=-1) <= radius
    s = -np.sort(-a, axis=-1)
    cs = np.cumsum(s, axis=-1) - radius
    j = np.arange(1, x.shape[-1] + 1)
    cond = s - cs / j > 0
    rho_idx = x.shape[-1] - 1 - np.argmax(cond[..., ::-1], axis=-1)
    tau = np.take_along_axis(cs, rho_idx[..., None], axis=-1) / (rho_idx[..., None] + 1)
    y = np.sign(x) * np.maximum(a - np.maximum(tau, 0.0), 0.0)
    return np.where(inside[..., None], x, y)


def _l1_inner(u, a, kappa, theta, c):
    """argmin_x (a/2)(x − u)² + κ|x| + θ|x − c| per coordinate.

    The objective's subgradient slope is s0 = −(κ+θ) left of p1 = min(0, c), s2 = κ+θ right of p2 = max(0, c) and
    s1 = κ − θ (c ≥ 0) or θ − κ (c < 0) in between; with s0 ≤ s1 ≤ s2 the minimiser is
    max(u − s2/a, min(u − s0/a, clip(u − s1/a, p1, p2))) (check region by region).
    """
    p1, p2 = np.minimum(0.0, c), np.maximum(0.0, c)
    s1 = np.where(c >= 0, kappa - theta, theta - kappa)
    mid = np.clip(u - s1 / a, p1, p2)
    return np.maximum(u - (kappa + theta) / a, np.minimum(u + (kappa + theta) / a, mid))


def _l1_breakpoints(u, a, kappa, c):
    """Values of θ where some coordinate of θ ↦ _l1_inner changes linear piece (clipped at 0)."""
    pos = np.stack([-a * u - kappa, kappa - a * u, kappa + a * (c - u), a * (u - c) - kappa], axis=-1)
    neg = np.stack([a * (c - u) - kappa, a * (u - c) + kappa, a * u + kappa, a * u - kappa], axis=-1)
    bp = np.where((c >= 0)[..., None], pos, neg)
    return np.maximum(bp.reshape(bp.shape[0], -1), 0.0)


def _l1_theta_bisect(u, a, kappa, c, eps):
    """Reference θ*(β): binary search over the sorted breakpoints with one pass over the data per probe, then one
    linear interpolation (≈ log₂(4p) + 3 passes); rows independent; returns θ, w.  Used by ``method="bisect"``
    and as the fallback of :func:`_l1_theta`."""
    g = lambda th: np.abs(_l1_inner(u, a, kappa, th[:, None], c) - c).sum(axis=1)  # noqa: E731
    B = u.shape[0]
    zero = np.zeros(B)
    g0 = g(zero)
    knots = np.sort(np.concatenate([zero[:, None], _l1_breakpoints(u, a, kappa, c)], axis=1), axis=1)
    lo = np.zeros(B, dtype=int)  # g(knots[lo]) > eps
    hi = np.full(B, knots.shape[1] - 1)  # g(knots[hi]) <= eps (g = 0 beyond the last knot)
    rows = np.arange(B)
    while np.any(hi - lo > 1):
        mid = (lo + hi) // 2
        gm = g(knots[rows, mid])
        big = gm > eps
        lo = np.where(big, mid, lo)
        hi = np.where(big, hi, mid)
    t_lo, t_hi = knots[rows, lo], knots[rows, hi]
    g_lo, g_hi = g(t_lo), g(t_hi)
    denom = np.where(g_lo > g_hi, g_lo - g_hi, 1.0)
    theta = np.clip(t_lo + (g_lo - eps) * (t_hi - t_lo) / denom, t_lo, t_hi)
    theta = np.where(g0 <= eps, 0.0, theta)
    return theta, _l1_inner(u, a, kappa, theta[:, None], c)


def _rows(x, idx, n):
    """x[idx] without a copy when idx is every row 0..n−1 (``flatnonzero`` output)."""
    return x if idx.size == n else x[idx]


def _l1_evaluator(u, a, kappa, c, zero_centre):
    """θ ↦ (w(θ), ‖w(θ) − c‖₁) for fixed rows u, a, c (θ scalar or one per row).

    The minimiser of :func:`_l1_inner`, written after the symmetry x → −x that makes the centre non-negative
    (s = sign(c), sign(0) = 1, u' = su, c' = |c|): w = s·max(u' − t, min(u' + t, clip(u' − (κ − θ)/a, 0, c'))) with
    t = (κ + θ)/a; with c = 0 it is soft(u, t).
    """
    if zero_centre:
        au, su = np.abs(u), np.sign(u)

        def at(theta):
            m = np.maximum(au - (kappa + theta) / a, 0.0)
            return su * m, m.sum(axis=1)
        return at
    s = np.where(c >= 0, 1.0, -1.0)
    us, cs = s * u, np.abs(c)

    def at(theta):
        t = (kappa + theta) / a
        mid = np.minimum(np.maximum(us + (theta - kappa) / a, 0.0), cs)
        x = np.maximum(us - t, np.minimum(us + t, mid))
        return s * x, np.abs(x - cs).sum(axis=1)
    return at


def _l1_theta(u, a, kappa, c, eps, start=None):
    """Exact θ*(β) ≥ 0 with ‖w(θ) − c‖₁ = ε (θ = 0 if already ‖w(0) − c‖₁ ≤ ε), rows independent; returns θ, w.

    Per coordinate, after the symmetry x → −x that makes c ≥ 0 (U = a·sign(c)·u, C = a|c|, sign(0) = 1), the
    regions x > c, x = c, 0 < x < c, x = 0, x < 0 of :func:`_l1_inner` give, for θ ≥ 0,

        a·|x(θ) − c| = (|p₂| − θ)₊ − (p₃ − θ)₊ + (p₄ − θ)₊,   p₂ = C + κ − U,  p₃ = κ − U,  p₄ = −U − κ

    (x > c iff θ < −p₂; otherwise it is min(C, (p₂ − θ)₊) + (p₄ − θ)₊ and min(C, (p₂ − θ)₊) = (p₂ − θ)₊ − (p₃ − θ)₊
    as p₂ − p₃ = C ≥ 0; when c = 0 it is (|U| − κ − θ)₊, one knot, and the other two are kept only for columns
    where some row has c ≠ 0).  So g(θ) = ‖w(θ) − c‖₁ = (1/a) Σ_j σ_j (K_j − θ)₊
    over the knots K_j = (p)₊ with signs σ_j = ±1.  One descending sort and cumulative sums T_n = Σ_{j≤n} σ_j K_j,
    M_n = Σ_{j≤n} σ_j give a·g(K_n) = T_n − K_n M_n at every knot, hence the piece [K_n, K_{n−1}] (or [K_n, ∞))
    on which g crosses ε.  g is evaluated directly at the two ends and interpolated linearly (g is linear there).
    With signs of both kinds the sort key is the knot's bit pattern (order-preserving for non-negative doubles)
    with σ stored in the last mantissa bit, which moves a bracket end by at most one ulp before the direct
    evaluation.  Rows whose directly evaluated bracket does not enclose ε (rounding at a knot) are solved by
    :func:`_l1_theta_bisect`.  ``start`` = (w(0), g(0)) if the caller has them.
    """
    B = u.shape[0]
    a = np.broadcast_to(a, (B, 1))
    zc = not np.any(c)
    w, g0 = _l1_evaluator(u, a, kappa, c, zc)(0.0) if start is None else (start[0].copy(), start[1])
    theta = np.zeros(B)
    act = np.flatnonzero(g0 > eps)
    if act.size == 0:
        return theta, w
    ua, aa, ca = _rows(u, act, B), _rows(a, act, B), _rows(c, act, B)
    if not zc:
        U = aa * np.where(ca >= 0, ua, -ua)
        C = aa * np.abs(ca)
        p3 = kappa - U
        nz = C != 0
        first = np.where(nz, np.abs(C + p3), np.abs(U) - kappa)  # c = 0: the three terms are (|U| − κ − θ)₊
        cols = np.flatnonzero(np.any(nz, axis=0))  # elsewhere the other two knots are 0 in every row
        nzc, Uc, p3c = nz[:, cols], U[:, cols], p3[:, cols]
        plus = np.concatenate([first, np.where(nzc, -Uc - kappa, 0.0)], axis=1)
        minus = np.where(nzc, p3c, 0.0)
        plus = np.maximum(plus, 0.0) + 0.0  # + 0.0 turns −0.0 into +0.0 for the bit-pattern key
        minus = np.maximum(minus, 0.0) + 0.0
        one = np.int64(1)
        key = np.concatenate([plus.view(np.int64) & ~one, minus.view(np.int64) | one], axis=1)
        key = -np.sort(-key, axis=1)  # descending
        K = (key & ~one).view(np.float64)
        tag = (key & one).astype(np.int32)
        M = np.arange(1, K.shape[1] + 1, dtype=np.int32) - 2 * np.cumsum(tag, axis=1, dtype=np.int32)
        T = np.cumsum(K - 2.0 * tag * K, axis=1)
    else:
        K = -np.sort(-np.maximum(aa * np.abs(ua) - kappa, 0.0), axis=1)
        M = np.arange(1, K.shape[1] + 1)
        T = np.cumsum(K, axis=1)
    lo = np.argmax(T - K * M > aa * eps, axis=1)  # exists: the last knots are 0 (or g(0) > ε beyond them)
    lo = np.where(T[:, -1] - K[:, -1] * M[..., -1] > aa[:, 0] * eps, lo, K.shape[1])
    rows = np.arange(act.size)
    t_lo = np.where(lo < K.shape[1], K[rows, np.minimum(lo, K.shape[1] - 1)], 0.0)  # g(t_lo) > ε
    t_hi = np.where(lo > 0, K[rows, np.maximum(lo - 1, 0)], t_lo)  # g(t_hi) ≤ ε
    at = _l1_evaluator(ua, aa, kappa, ca, zc)
    _, g_lo = at(t_lo[:, None])
    _, g_hi = at(t_hi[:, None])
    denom = np.where(g_lo > g_hi, g_lo - g_hi, 1.0)
    th = np.clip(t_lo + (g_lo - eps) * (t_hi - t_lo) / denom, t_lo, t_hi)
    bad = ~((g_lo > eps) & (g_hi <= eps))
    if np.any(bad):
        th[bad], _ = _l1_theta_bisect(ua[bad], aa[bad], kappa, ca[bad], eps)
    theta[act] = th
    if act.size == B:
        w, _ = at(th[:, None])
    else:
        w[act], _ = at(th[:, None])
    return theta, w


def _l2_theta(u, a, kappa, c, eps, start=None):
    """Euclidean R, κ = 0: w(θ) = c + (u − c)(1 − θ/(a‖u − c‖))₊, so θ* = a(‖u − c‖ − ε)₊ exactly."""
    d = u - c
    nd = np.linalg.norm(d, axis=1)
    theta = np.maximum(a[:, 0] * (nd - eps), 0.0)
    scale = np.where(nd > eps, eps / np.maximum(nd, np.finfo(float).tiny), 1.0)
    return theta, c + d * scale[:, None]


def _restore(w, c, eps, radius, rnorm):
    """Largest t ∈ [0, 1] with c + t(w − c) in both sets (c is feasible); returns the moved point."""
    d = w - c
    rd = rnorm(d)
    t = np.where(rd > eps, eps / np.maximum(rd, np.finfo(float).tiny), 1.0)
    if radius is not None:
        dd = np.sum(d * d, axis=1)
        cd = np.sum(c * d, axis=1)
        cc = np.sum(c * c, axis=1)
        disc = np.maximum(cd * cd - dd * (cc - radius**2), 0.0)
        t2 = np.where(dd > 0, (-cd + np.sqrt(disc)) / np.maximum(dd, np.finfo(float).tiny), 1.0)
        t = np.minimum(t, np.minimum(t2, 1.0))
    if np.all(t == 1.0):
        return w
    return c + t[:, None] * d


def _kkt_solve(v, kappa, c, eps, radius, theta_fn, rnorm, pen_value, free=None):
    """Nested exact-θ / bisection-β KKT solver (rows independent).  Returns w, dual value, steps.

    ``free`` (optional) is w(0, 0), the minimiser with both multipliers 0.  Given, the ball-only solution is
    tried first in closed form: w(0, β) = w(0, 0)/(1 + β), so β₀ = (‖w(0, 0)‖/ρ − 1)₊ and w(0, β₀) is the radial
    projection.  Rows with R(w(0, β₀) − c) ≤ ε are KKT points with θ = 0 and are returned at once; for the others
    the R-ball is active at the optimum (else the ball-only solution would be optimal and feasible), so θ > 0.
    """
    B = v.shape[0]
    one = np.ones((B, 1))
    beta = np.zeros(B)
    steps = 1
    if free is None:
        theta, w = theta_fn(v, one, kappa, c, eps)
        rest = np.arange(B)
    else:
        theta, w = np.zeros(B), free.copy()
        if radius is not None:
            beta = np.maximum(np.linalg.norm(free, axis=1) / radius - 1.0, 0.0)
            w = free / (1.0 + beta)[:, None]
        dist = rnorm(w - c)
        rest = np.flatnonzero(dist > eps)
        if rest.size:
            # without the ℓ2 ball, w(0, 0) and its distance are already known
            start = None if radius is not None else (_rows(free, rest, B), _rows(dist, rest, B))
            th, ww = theta_fn(_rows(v, rest, B), _rows(one, rest, B), kappa, _rows(c, rest, B), eps, start)
            if rest.size == B:
                theta, w = th, ww
            else:
                theta[rest], w[rest] = th, ww
            beta[rest] = 0.0
    if radius is not None and rest.size:
        need = np.zeros(B, dtype=bool)
        need[rest] = np.linalg.norm(w[rest], axis=1) > radius
        if np.any(need):
            idx = np.flatnonzero(need)
            vb, cb = v[idx], c[idx]

            def at(b):
                a = (1.0 + b)[:, None]
                th, ww = theta_fn(vb / a, a, kappa, cb, eps)
                return th, ww

            lo = np.zeros(idx.size)
            hi = np.ones(idx.size)
            for _ in range(200):  # grow the bracket until ‖w_β‖ ≤ ρ
                _, ww = at(hi)
                bad = np.linalg.norm(ww, axis=1) > radius
                if not np.any(bad):
                    break
                lo = np.where(bad, hi, lo)
                hi = np.where(bad, 2 * hi, hi)
            for _ in range(_BISECT_STEPS):
                mid = 0.5 * (lo + hi)
                _, ww = at(mid)
                big = np.linalg.norm(ww, axis=1) > radius
                lo = np.where(big, mid, lo)
                hi = np.where(big, hi, mid)
                steps += 1
                if np.all(hi - lo <= 4 * np.finfo(float).eps * np.maximum(hi, 1e-300)):
                    break
            th, ww = at(hi)
            beta[idx], theta[idx], w[idx] = hi, th, ww
    # dual value: Lagrangian at its minimiser w(θ, β)
    lag = (0.5 * np.sum((w - v) ** 2, axis=1) + kappa * pen_value(w) + theta * (rnorm(w - c) - eps))
    if radius is not None:
        lag = lag + 0.5 * beta * (np.sum(w * w, axis=1) - radius**2)
    return w, lag, steps


# ---------------------------------------------------------------------------------------------------------------
# nuclear norm helpers (batch of matrices)
# ---------------------------------------------------------------------------------------------------------------
def _nuc(x):
    return np.linalg.svd(x, compute_uv=False).sum(axis=-1)


def _op(x):
    return np.linalg.svd(x, compute_uv=False)[..., 0]


def _project_nuclear_ball(y, c, eps):
    u, s, vt = np.linalg.svd(y - c, full_matrices=False)
    s = project_l1_ball(s, eps)
    return c + (u * s[..., None, :]) @ vt


class _NormOps:
    """Norm-specific operations on a batch (B, *shape)."""

    def __init__(self, penalty: Penalty, shape: tuple[int, ...]):
        self.shape = shape
        if isinstance(penalty, Nuclear):
            self.kind = "nuclear"
        elif isinstance(penalty, L1):
            self.kind = "l1"
        elif isinstance(penalty, Zero):
            self.kind = "l2"
        else:
            raise InputError(f"penalty '{penalty.name}' has no constrained prox; expected l1, nuclear or zero")

    def R(self, x):
        if self.kind == "nuclear":
            return _nuc(x)
        x = x.reshape(x.shape[0], -1)
        return np.abs(x).sum(axis=1) if self.kind == "l1" else np.linalg.norm(x, axis=1)

    def Rdual(self, x):
        if self.kind == "nuclear":
            return _op(x)
        x = x.reshape(x.shape[0], -1)
        return np.abs(x).max(axis=1) if self.kind == "l1" else np.linalg.norm(x, axis=1)

    def prox_ball(self, x, k, radius, with_R=False):
        """argmin ½‖w − x‖² + k R(w) s.t. ‖w‖ ≤ ρ (exact: prox then radial scaling).

        ``with_R`` also returns R(w); for the nuclear norm it is the sum of the thresholded, scaled singular
        values that built w (one SVD, never a second one of w)."""
        if self.kind == "nuclear":
            w, s = singular_value_threshold(x, k, radius, return_singular_values=True)
            return (w, s.sum(axis=-1)) if with_R else w
        if self.kind == "l1":
            w = project_ball(soft_threshold(x, k), radius, x.ndim - 1)
        else:
            w = project_ball(x, radius, x.ndim - 1)
        return (w, self.R(w)) if with_R else w

    def project_R_ball(self, y, c, eps):
        if self.kind == "nuclear":
            return _project_nuclear_ball(y, c, eps)
        B = y.shape[0]
        d = (y - c).reshape(B, -1)
        if self.kind == "l1":
            p = project_l1_ball(d, eps)
        else:
            p = project_ball(d, eps, 1)
        return c + p.reshape(y.shape)


def _admm(v, kappa, c, eps, radius, ops: _NormOps, tol, max_iter):
    """ADMM on w = y with a duality-gap stopping rule; returns feasible w, gap, iterations."""
    B = v.shape[0]
    flat = lambda x: x.reshape(B, -1)  # noqa: E731
    pen = 1.0
    y = ops.project_R_ball(ops.prox_ball(v, kappa, radius), c, eps)
    lam = np.zeros_like(v)
    best_w, best_gap = None, np.full(B, np.inf)
    it = 0
    for it in range(1, max_iter + 1):
        w = ops.prox_ball((v + pen * (y - lam / pen)) / (1 + pen), kappa / (1 + pen), radius)
        y = ops.project_R_ball(w + lam / pen, c, eps)
        lam = lam + pen * (w - y)
        if it % 10 == 0 or it == max_iter:
            wf, gap = _admm_certificate(v, kappa, c, eps, radius, ops, w, lam, flat)
            better = gap < best_gap
            best_w = wf if best_w is None else np.where(better.reshape((B,) + (1,) * (v.ndim - 1)), wf, best_w)
            best_gap = np.minimum(gap, best_gap)
            if np.all(best_gap <= tol):
                break
    return best_w, best_gap, it


def _admm_certificate(v, kappa, c, eps, radius, ops, w, lam, flat):
    B = v.shape[0]
    wf = _restore(flat(w), flat(c), eps, radius, lambda d: ops.R(d.reshape((B,) + v.shape[1:])))
    wf = wf.reshape(v.shape)
    primal = 0.5 * np.sum(flat(wf - v) ** 2, axis=1) + kappa * ops.R(wf)
    x = v - lam
    wl, Rwl = ops.prox_ball(x, kappa, radius, with_R=True)
    dual = (0.5 * np.sum(flat(wl - x) ** 2, axis=1) + kappa * Rwl - 0.5 * np.sum(flat(x) ** 2, axis=1)
            + 0.5 * np.sum(flat(v) ** 2, axis=1) - np.sum(flat(lam * c), axis=1) - eps * ops.Rdual(lam))
    return wf, np.maximum(primal - dual, 0.0)


# ---------------------------------------------------------------------------------------------------------------
# public entry points
# ---------------------------------------------------------------------------------------------------------------
def cprox(
    penalty: Penalty,
    v: np.ndarray,
    kappa: float,
    center: np.ndarray,
    eps: float,
    radius: float | None,
    tol: float = 1e-15,
    max_iter: int = _ADMM_MAX_ITER,
    method: str = "auto",
) -> CProxResult:
    """argmin ½‖w − v‖² + κR(w) s.t. ‖w‖ ≤ ρ, R(w − c) ≤ ε (see module docstring), batched over leading axes.

    Args:
        penalty: supplies R (``L1``: ℓ1; ``Nuclear``: nuclear norm; ``Zero``: Euclidean norm, κ must be 0).
        v: points, shape (..., *model_shape) with model_shape of length ``penalty.ndim``.
        kappa: κ ≥ 0 (the penalty's own λ is not used).
        center: c, broadcastable to ``v``, with ‖c‖ ≤ ρ.
        eps: ε > 0.
        radius: ρ > 0 or ``None``.
        tol: target certified gap, relative to max(1, ½‖v‖²).
        max_iter: ADMM iteration cap.
        method: ``auto`` (closed form when the R-ball is inactive at the ball-only solution, else KKT with the
            sort-based θ search / SVD path where available, ADMM otherwise), ``bisect`` (the same KKT path without
            the closed-form shortcut and with the per-probe binary search for θ; a slower reference) or
            ``admm`` (always ADMM).  Both are kept to cross-check ``auto``.
    """
    if method not in ("auto", "bisect", "admm"):
        raise InputError(f"CProx method {method!r} is not valid; expected auto, bisect or admm")
    v = np.asarray(v, dtype=float)
    ndim = penalty.ndim
    mshape = v.shape[v.ndim - ndim:]
    lead = v.shape[: v.ndim - ndim]
    c = np.broadcast_to(np.asarray(center, dtype=float), v.shape)
    if not eps > 0:
        raise InputError(f"CProx radius eps={eps!r} must be > 0")
    if kappa < 0:
        raise InputError(f"CProx threshold kappa={kappa!r} must be >= 0")
    ops = _NormOps(penalty, mshape)
    if ops.kind == "l2" and kappa != 0:
        raise InputError(f"CProx with the zero penalty needs kappa=0, got {kappa!r}")
    Vb = v.reshape((-1,) + mshape)
    Cb = c.reshape((-1,) + mshape)
    B = Vb.shape[0]
    flat = lambda x: x.reshape(x.shape[0], -1)  # noqa: E731
    if radius is not None:
        cn = np.linalg.norm(flat(Cb), axis=1)
        if np.any(cn > radius * (1 + 1e-12)):
            raise InputError(f"CProx centre has norm {cn.max():.6g} > radius {radius:.6g}; "
                             "expected a centre in the ball")
    scale = np.maximum(1.0, 0.5 * np.sum(flat(Vb) ** 2, axis=1))
    # below a few dozen ulps of the objective's magnitude the certificate is rounding noise
    target = np.maximum(tol, 32 * np.finfo(float).eps) * scale

    def l1_value(x):
        return np.abs(x).sum(axis=1)

    if method != "admm" and (ops.kind in ("l1", "l2") or (ops.kind == "nuclear" and not np.any(Cb))):
        fast = method == "auto"
        if ops.kind == "nuclear":
            U, s, Vt = np.linalg.svd(Vb, full_matrices=False)
            vv, cc = s, np.zeros_like(s)
        else:
            vv, cc = flat(Vb), flat(Cb)
        if ops.kind == "l2":
            theta_fn = _l2_theta
            rnorm = lambda x: np.linalg.norm(x, axis=1)  # noqa: E731
            pval = lambda x: np.zeros(x.shape[0])  # noqa: E731
            free = vv
        else:
            theta_fn, rnorm, pval = (_l1_theta if fast else _l1_theta_bisect), l1_value, l1_value
            free = _l1_inner(vv, 1.0, kappa, 0.0, cc)  # soft threshold (SVT on singular values)
        w, dual, steps = _kkt_solve(vv, kappa, cc, eps, radius, theta_fn, rnorm, pval, free if fast else None)
        wf = _restore(w, cc, eps, radius, rnorm)
        primal = 0.5 * np.sum((wf - vv) ** 2, axis=1) + kappa * pval(wf)
        gap = np.maximum(primal - dual, 0.0)
        if ops.kind == "nuclear":
            wf = (U * wf[..., None, :]) @ Vt
            method = "svd-kkt"
        else:
            wf = wf.reshape(Vb.shape)
            method = "kkt"
        ok = gap <= target
        if np.all(ok):
            return CProxResult(wf.reshape(v.shape), gap.reshape(lead), method, steps)
        bad = np.flatnonzero(~ok)
        wa, ga, it = _admm(Vb[bad], kappa, Cb[bad], eps, radius, ops, target[bad], max_iter)
        better = ga < gap[bad]
        wf[bad[better]] = wa[better]
        gap[bad[better]] = ga[better]
        return CProxResult(wf.reshape(v.shape), gap.reshape(lead), method + "+admm", steps + it)
    # θ = 0 candidate (closed form): optimal whenever it already satisfies R(w − c) ≤ ε (KKT with θ = 0)
    w, Rw = ops.prox_ball(Vb, kappa, radius, with_R=True)
    if ops.kind == "nuclear":
        # R(w − c) ≤ R(w) + R(c) settles most rows without decomposing w − c; R(c) is computed once per distinct
        # centre (the centre is usually shared by all clients of a replica) and R(w) comes from the prox's SVD
        Rc = np.broadcast_to(ops.R(_distinct(np.asarray(center, dtype=float), mshape)).reshape(
            _distinct_shape(np.asarray(center).shape, v.shape, mshape)), lead).reshape(-1)
        easy = Rw + Rc <= eps
        rest = np.flatnonzero(~easy)
        if rest.size:
            easy[rest] = ops.R(w[rest] - Cb[rest]) <= eps
    else:
        easy = ops.R(w - Cb) <= eps
    gap = np.zeros(B)
    iters = 0
    if not np.all(easy):
        hard = np.flatnonzero(~easy)
        wa, ga, iters = _admm(Vb[hard], kappa, Cb[hard], eps, radius, ops, target[hard], max_iter)
        w[hard], gap[hard] = wa, ga
    return CProxResult(w.reshape(v.shape), gap.reshape(lead), "admm" if iters else "closed-form", iters)


def _distinct_shape(cshape: tuple[int, ...], vshape: tuple[int, ...], mshape: tuple[int, ...]) -> tuple[int, ...]:
    """Leading shape of the centre as given, left-padded with ones to the leading shape of v."""
    lead_v = vshape[: len(vshape) - len(mshape)]
    lead_c = cshape[: max(0, len(cshape) - len(mshape))]
    return (1,) * (len(lead_v) - len(lead_c)) + tuple(lead_c)


def _distinct(center: np.ndarray, mshape: tuple[int, ...]) -> np.ndarray:
    """The centre's own matrices (B_c, *mshape), before broadcasting against v."""
    c = np.broadcast_to(center, center.shape[: max(0, center.ndim - len(mshape))] + mshape)
    return c.reshape((-1,) + mshape)


def cfedda_prox_arguments(z: np.ndarray, center: np.ndarray, *, mu: float, gamma: float, A: float, E: int,
                          lam: float) -> tuple[np.ndarray, float]:
    """Reduce CProx_r(z; w₀, ε₀, λ) of Bao et al. (§3.3) to (v, κ) of :func:`cprox`.

    CProx_r(z) = argmin_{w ∈ 𝒲(ε₀; w₀)} ⟨w, z − γE w₀⟩ + (μA_r/2 + γ)E‖w‖²/2 + A_r E λ R(w).  Dividing by E·c with
    c = μA_r/2 + γ and completing the square: v = (γE w₀ − z)/(E c), κ = A_r λ / c.
    """
    c = mu * A / 2 + gamma
    return (gamma * E * np.asarray(center) - np.asarray(z)) / (E * c), A * lam / c


def soft_then_project(penalty: Penalty, v: np.ndarray, kappa: float, center: np.ndarray, eps: float) -> np.ndarray:
    """The authors' released approximation of CProx (MATLAB ``l1_soft_cs`` / ``nuc_prox_cs``, bugs fixed).

    u = prox_{κR}(v); if R(u − c) > ε then u ← c + Proj_{R-ball(ε)}(u − c).  The ℓ2 ball is ignored.  Exact only
    when c = 0; kept to measure its error against :func:`cprox`, never used by the algorithms.
    """
    v = np.asarray(v, dtype=float)
    mshape = v.shape[v.ndim - penalty.ndim:]
    ops = _NormOps(penalty, mshape)
    Vb = v.reshape((-1,) + mshape)
    Cb = np.broadcast_to(np.asarray(center, dtype=float), v.shape).reshape(Vb.shape)
    u = ops.prox_ball(Vb, kappa, None)
    out = np.where((ops.R(u - Cb) > eps).reshape((-1,) + (1,) * len(mshape)), ops.project_R_ball(u, Cb, eps), u)
    return out.reshape(v.shape)
