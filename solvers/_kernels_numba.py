"""numba implementations of :mod:`fedrates.solvers.kernels` (imported only when that backend is selected).

Every function is compiled with ``cache=True`` (machine code stored next to this file, or in ``NUMBA_CACHE_DIR``),
so a fresh process loads it instead of compiling.  ``fastmath`` is limited to reassociation and contraction (the
sums vectorise; NaN and inf propagate as in numpy, which divergence detection relies on).  The arithmetic is that
of the numpy oracles in :mod:`fedrates.solvers.kernels` up to the order of summation.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

_FM = {"reassoc", "contract"}
_TINY = np.finfo(np.float64).tiny


@njit(cache=True, fastmath=_FM, nogil=True)
def lsq_rows(X, y, W, rows, out):  # pragma: no cover - compiled
    """out[p] = (1/B) Σ_i x_r (x_rᵀ W[p] − y_r), r = rows[p, i], with no gathered copy (:func:`_grad`: the B residuals
    first, each sampled row streamed once from memory, then the update, which finds the rows in cache)."""
    P, B = rows.shape
    res = np.empty(B)
    for p in range(P):
        _grad(X, y, W[p], rows[p], res, out[p])


@njit(cache=True, fastmath=_FM, nogil=True)
def soft_ball(V, kappa, radius, out):  # pragma: no cover - compiled
    """out[p] = s·proj(soft(V[p], κ_p)) with the radial scale min(1, ρ/‖·‖) (ρ ≤ 0: no ball); out may be V."""
    P, d = V.shape
    for p in range(P):
        k = kappa[p]
        ss = 0.0
        for j in range(d):
            v = V[p, j]
            a = abs(v) - k
            x = 0.0
            if a > 0.0:
                x = a if v > 0.0 else -a
            elif a != a:  # NaN in, NaN out
                x = a
            out[p, j] = x
            ss += x * x
        if radius > 0.0:
            n = np.sqrt(ss)
            scale = radius / (n if n > _TINY else _TINY) if n == n else n
            if not (scale >= 1.0):  # scale < 1, or NaN (propagated like numpy's x * nan)
                for j in range(d):
                    out[p, j] *= scale


@njit(cache=True, fastmath=_FM, nogil=True)
def ball(V, radius, out):  # pragma: no cover - compiled
    """out[p] = V[p]·min(1, ρ/‖V[p]‖); out may be V."""
    P, d = V.shape
    for p in range(P):
        ss = 0.0
        for j in range(d):
            ss += V[p, j] * V[p, j]
        n = np.sqrt(ss)
        scale = radius / (n if n > _TINY else _TINY) if n == n else n
        if not (scale >= 1.0):  # scale < 1, or NaN (propagated like numpy's x * nan)
            for j in range(d):
                out[p, j] = V[p, j] * scale
        else:
            for j in range(d):
                out[p, j] = V[p, j]


@njit(cache=True, nogil=True)
def floyd(U, n, out):  # pragma: no cover - compiled
    """Floyd's B-subsets of {0..n−1} from uniforms U (N, B) (exact: the same products and truncations as numpy)."""
    N, B = U.shape
    for p in range(N):
        for i in range(B):
            j = n - B + i
            t = int(U[p, i] * (j + 1))
            if t > j:
                t = j
            for q in range(i):
                if out[p, q] == t:
                    t = j
                    break
            out[p, i] = t


# ---------------------------------------------------------------------------------------------------------------
# fused rounds: every local step of every (replica, client) pair in one call
# ---------------------------------------------------------------------------------------------------------------
@njit(cache=True, fastmath=_FM, nogil=True, inline="always")
def _grad(X, y, w, r, res, g):  # pragma: no cover - compiled
    """g = (1/B) Σ_i x_{r_i}(x_{r_i}ᵀw − y_{r_i}) for one pair (rows r (B,), scratch res (B,)): :func:`_residuals`
    then :func:`_accumulate` over all B rows.  Inlined into each fused round, so that a step costs no call (at
    dim 64 the call was a fifth of a step)."""
    _residuals(X, y, w, r, res)
    _accumulate(X, r, res, g, r.shape[0])


@njit(cache=True, fastmath=_FM, nogil=True, inline="always")
def _residuals(X, y, w, r, res):  # pragma: no cover - compiled
    """res_i = (x_{r_i}ᵀw − y_{r_i})/B for the B rows r: the rows' first pass, eight at a time (then four, two,
    one), several independent streams from memory at once (the rows are scattered)."""
    B = r.shape[0]
    i = 0
    while i + 7 < B:
        _dots8(X, r, i, w, res)
        i += 8
    if i + 3 < B:
        _dots4(X, r, i, w, res)
        i += 4
    if i + 1 < B:
        x0, x1 = X[r[i]], X[r[i + 1]]
        s0 = s1 = 0.0
        for j in range(w.shape[0]):
            wj = w[j]
            s0 += x0[j] * wj
            s1 += x1[j] * wj
        res[i], res[i + 1] = s0, s1
        i += 2
    if i < B:
        x0 = X[r[i]]
        s0 = 0.0
        for j in range(w.shape[0]):
            s0 += x0[j] * w[j]
        res[i] = s0
    for i in range(B):
        res[i] = (res[i] - y[r[i]]) / B


@njit(cache=True, fastmath=_FM, nogil=True, inline="always")
def _accumulate(X, r, c, g, n, add=False):  # pragma: no cover - compiled
    """g = Σ_{i<n} c_i x_{r_i} (with ``add``: g += that sum): the rows' second pass (from cache), eight rows at a
    time (then four, two, one), the first block writing g instead of adding to zeros; n = 0 gives g = 0 (with
    ``add``: g unchanged)."""
    i = 0
    first = not add  # the first pass writes g, the others add to it
    while i + 7 < n:
        _axpy8(X, r, i, c, g, first)
        first = False
        i += 8
    if i + 3 < n:
        x0, x1, x2, x3 = X[r[i]], X[r[i + 1]], X[r[i + 2]], X[r[i + 3]]
        c0, c1, c2, c3 = c[i], c[i + 1], c[i + 2], c[i + 3]
        if first:
            for j in range(g.shape[0]):
                g[j] = (c0 * x0[j] + c1 * x1[j]) + (c2 * x2[j] + c3 * x3[j])
        else:
            for j in range(g.shape[0]):
                g[j] += (c0 * x0[j] + c1 * x1[j]) + (c2 * x2[j] + c3 * x3[j])
        first = False
        i += 4
    if i + 1 < n:
        x0, x1 = X[r[i]], X[r[i + 1]]
        c0, c1 = c[i], c[i + 1]
        if first:
            for j in range(g.shape[0]):
                g[j] = c0 * x0[j] + c1 * x1[j]
        else:
            for j in range(g.shape[0]):
                g[j] += c0 * x0[j] + c1 * x1[j]
        first = False
        i += 2
    if i < n:
        x0 = X[r[i]]
        c0 = c[i]
        if first:
            for j in range(g.shape[0]):
                g[j] = c0 * x0[j]
        else:
            for j in range(g.shape[0]):
                g[j] += c0 * x0[j]
    elif first:  # no rows: the gradient of an empty batch is zero
        for j in range(g.shape[0]):
            g[j] = 0.0


@njit(cache=True, fastmath=_FM, nogil=True, inline="always")
def _last_pair(X, r, res):  # pragma: no cover - compiled
    """(x_a, x_b, c_a, c_b): the last two rows of r and their coefficients, left out by
    ``_accumulate(X, r, res, g, max(B − 2, 0))`` so that g + c_a·x_a + c_b·x_b is the whole gradient (one row:
    c_b = 0; no row: both 0)."""
    B = r.shape[0]
    if B >= 2:
        return X[r[B - 2]], X[r[B - 1]], res[B - 2], res[B - 1]
    if B == 1:
        return X[r[0]], X[r[0]], res[0], 0.0
    return X[0], X[0], 0.0, 0.0


@njit(cache=True, fastmath=_FM, nogil=True, inline="always")
def _dots8(X, r, i, w, res):  # pragma: no cover - compiled
    """res[i:i+8] = X[r[i:i+8]] @ w, eight rows streamed together."""
    x0, x1, x2, x3 = X[r[i]], X[r[i + 1]], X[r[i + 2]], X[r[i + 3]]
    x4, x5, x6, x7 = X[r[i + 4]], X[r[i + 5]], X[r[i + 6]], X[r[i + 7]]
    s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0.0
    for j in range(w.shape[0]):
        wj = w[j]
        s0 += x0[j] * wj
        s1 += x1[j] * wj
        s2 += x2[j] * wj
        s3 += x3[j] * wj
        s4 += x4[j] * wj
        s5 += x5[j] * wj
        s6 += x6[j] * wj
        s7 += x7[j] * wj
    res[i], res[i + 1], res[i + 2], res[i + 3] = s0, s1, s2, s3
    res[i + 4], res[i + 5], res[i + 6], res[i + 7] = s4, s5, s6, s7


@njit(cache=True, fastmath=_FM, nogil=True, inline="always")
def _dots4(X, r, i, w, res):  # pragma: no cover - compiled
    """res[i:i+4] = X[r[i:i+4]] @ w."""
    x0, x1, x2, x3 = X[r[i]], X[r[i + 1]], X[r[i + 2]], X[r[i + 3]]
    s0 = s1 = s2 = s3 = 0.0
    for j in range(w.shape[0]):
        wj = w[j]
        s0 += x0[j] * wj
        s1 += x1[j] * wj
        s2 += x2[j] * wj
        s3 += x3[j] * wj
    res[i], res[i + 1], res[i + 2], res[i + 3] = s0, s1, s2, s3


@njit(cache=True, fastmath=_FM, nogil=True, inline="always")
def _axpy8(X, r, i, c, g, assign):  # pragma: no cover - compiled
    """g += Σ_{q<8} c[i+q]·X[r[i+q]] (with ``assign``: g = that sum)."""
    x0, x1, x2, x3 = X[r[i]], X[r[i + 1]], X[r[i + 2]], X[r[i + 3]]
    x4, x5, x6, x7 = X[r[i + 4]], X[r[i + 5]], X[r[i + 6]], X[r[i + 7]]
    c0, c1, c2, c3 = c[i], c[i + 1], c[i + 2], c[i + 3]
    c4, c5, c6, c7 = c[i + 4], c[i + 5], c[i + 6], c[i + 7]
    if assign:
        for j in range(g.shape[0]):
            g[j] = (((c0 * x0[j] + c1 * x1[j]) + (c2 * x2[j] + c3 * x3[j]))
                    + ((c4 * x4[j] + c5 * x5[j]) + (c6 * x6[j] + c7 * x7[j])))
    else:
        for j in range(g.shape[0]):
            g[j] += (((c0 * x0[j] + c1 * x1[j]) + (c2 * x2[j] + c3 * x3[j]))
                     + ((c4 * x4[j] + c5 * x5[j]) + (c6 * x6[j] + c7 * x7[j])))


@njit(cache=True, fastmath=_FM, nogil=True)
def _prox_row(v, kappa, radius, out):  # pragma: no cover - compiled
    """out = proj_ρ(soft(v, κ)) for one row: κ < 0 skips the threshold, ρ ≤ 0 the ball; out may be v (as
    :func:`soft_ball` and :func:`ball`, NaN propagated)."""
    ss = 0.0
    if kappa >= 0.0:
        for j in range(v.shape[0]):
            o = _soft(v[j], kappa)
            out[j] = o
            ss += o * o
    else:
        for j in range(v.shape[0]):
            o = v[j]
            out[j] = o
            ss += o * o
    if radius > 0.0:
        _scale_into_ball(out, ss, radius)


@njit(cache=True, fastmath=_FM, nogil=True)
def local_sgd(X, y, S, rows, step, mu_prox, kappa, radius, out):  # pragma: no cover - compiled
    """E local (proximal) SGD steps per pair from S[p] (also the proximal anchor), rows (E, P, B) -> out (P, d):

        w ← prox(w − η(g(w) + μ_p(w − s)))   (μ_p = 0: w − ηg(w)),   prox = proj_ρ ∘ soft_κ (κ < 0, ρ ≤ 0: off)

    FedAvg (κ < 0), FedProx (μ_p > 0), FedMiD (κ = λη)."""
    E, P, B = rows.shape
    d = X.shape[1]
    res = np.empty(B)
    g = np.empty(d)
    for p in range(P):
        w = out[p]
        s = S[p]
        for j in range(d):
            w[j] = s[j]
        for e in range(E):
            _grad(X, y, w, rows[e, p], res, g)
            ss = 0.0
            for j in range(d):
                if mu_prox == 0.0:
                    v = w[j] - step * g[j]
                else:
                    v = w[j] - step * (g[j] + mu_prox * (w[j] - s[j]))
                if kappa >= 0.0:
                    v = _soft(v, kappa)
                w[j] = v
                ss += v * v
            if radius > 0.0:
                _scale_into_ball(w, ss, radius)


@njit(cache=True, fastmath=_FM, nogil=True)
def local_da(X, y, S, rows, step, kappas, radius, out):  # pragma: no cover - compiled
    """FedDA's local dual steps per pair from z = S[p]: for e, w = prox(z, κ_e), z ← z − ηg(w); out (P, d) = z."""
    E, P, B = rows.shape
    d = X.shape[1]
    res = np.empty(B)
    g = np.empty(d)
    w = np.empty(d)
    for p in range(P):
        z = out[p]
        s = S[p]
        for j in range(d):
            z[j] = s[j]
        _prox_row(z, kappas[0], radius, w)
        for e in range(E):
            _grad(X, y, w, rows[e, p], res, g)
            if e == E - 1:
                for j in range(d):
                    z[j] = z[j] - step * g[j]
                break
            k = kappas[e + 1]  # the next step's point w = prox(z) in the same pass
            ss = 0.0
            for j in range(d):
                zj = z[j] - step * g[j]
                z[j] = zj
                o = _soft(zj, k) if k >= 0.0 else zj
                w[j] = o
                ss += o * o
            if radius > 0.0:
                _scale_into_ball(w, ss, radius)


@njit(cache=True, fastmath=_FM, nogil=True)
def local_fast_da(X, y, G0, WT0, W0, centre, rows, rep, weights, alphas, inv_c, kappas, half_mu, gamma, radius,
                  gbar, wtbar):  # pragma: no cover - compiled
    """Fast-FedDA's local steps (Bao et al. Alg. 1 lines 6–10) per pair p of replica r = rep[p], from the server
    state (G0, WT0, W0)[r]; accumulates the π-weighted client averages of every step into gbar, wtbar (R, E, d):

        G ← G + α_e g(W);  gbar[r, e] += π_p G,  wtbar[r, e] += π_p W̃;
        (e < E − 1)  W ← prox_{κ_e}((γw₀ − (G − (μ/2)W̃))·(1/c_e)),  W̃ ← W̃ + α_{e+1} W.

    α_e g(W) goes into G in two parts: the rows but the last two in their own pass (:func:`_accumulate`), the last
    two in the update loop, so that their pass (from cache) and the update are one pass over the vectors (two with
    an active ball); the averages and the thresholded point are formed in it too."""
    E, P, B = rows.shape
    d = X.shape[1]
    res = np.empty(B)
    G = np.empty(d)
    WT = np.empty(d)
    W = np.empty(d)
    ball = radius > 0.0
    for p in range(P):
        r = rep[p]
        pi = weights[p]
        c0 = centre[r]
        for j in range(d):
            G[j] = G0[r, j]
            WT[j] = WT0[r, j]
            W[j] = W0[r, j]
        for e in range(E):
            rr = rows[e, p]
            _residuals(X, y, W, rr, res)
            a = alphas[e]
            for i in range(B):
                res[i] *= a
            _accumulate(X, rr, res, G, max(B - 2, 0), True)  # G += α_e·(the other rows' part of g)
            xa, xb, ca, cb = _last_pair(X, rr, res)
            gb = gbar[r, e]
            wb = wtbar[r, e]
            if e == E - 1:
                for j in range(d):
                    Gj = G[j] + (ca * xa[j] + cb * xb[j])
                    G[j] = Gj
                    gb[j] += pi * Gj
                    wb[j] += pi * WT[j]
                break
            ic = inv_c[e]
            k = kappas[e]
            a1 = alphas[e + 1]
            ss = 0.0
            for j in range(d):
                Gj = G[j] + (ca * xa[j] + cb * xb[j])
                G[j] = Gj
                wtj = WT[j]
                gb[j] += pi * Gj
                wb[j] += pi * wtj
                v = (gamma * c0[j] - (Gj - half_mu * wtj)) * ic
                if k >= 0.0:
                    v = _soft(v, k)
                W[j] = v
                if ball:
                    ss += v * v
                else:
                    WT[j] = wtj + a1 * v
            if ball:
                _scale_into_ball(W, ss, radius)
                for j in range(d):
                    WT[j] += a1 * W[j]


@njit(cache=True, nogil=True)
def fast_da_server(gbar, wtbar, centre, c, kappas, radius, half_mu, gamma, alphas, num, out):  # pragma: no cover
    """Fast-FedDA's server points of a round's E steps (Bao et al. Alg. 1 line 12, eq. (12)) from the client
    averages (ḡ, w̃̄) (R, E, d), and the output's running sum:

        out[r, e] = prox_{κ_e}((γw₀[r] − (ḡ[r, e] − (μ/2)·w̃̄[r, e])) / c_e),   num[r] += α_e·out[r, e] (e = 0, 1, …)

    with prox = the ball projection ∘ soft threshold κ_e (κ_e < 0: no threshold; ρ ≤ 0: no ball).  Compiled
    without fastmath: no contraction and numpy's order of operations, so every value is the one the numpy expression
    of :meth:`FastFedDA._fused_round` computes, bit for bit; the prox is :func:`soft_ball` / :func:`ball`, which
    ``Problem.prox`` calls.  One pass over the averages instead of one per numpy operation: after a round's
    kernel has streamed the clients' rows, these arrays are no longer in cache."""
    R, E, d = gbar.shape
    threshold = kappas[0] >= 0.0
    z = np.empty((E, d))  # the prox's argument, apart from its output: an in-place prox sums ‖·‖² in another order
    for r in range(R):
        w0 = centre[r]
        for e in range(E):
            ce = c[e]
            g, wt, o = gbar[r, e], wtbar[r, e], z[e]
            for j in range(d):
                o[j] = (gamma * w0[j] - (g[j] - half_mu * wt[j])) / ce
        if threshold:
            soft_ball(z, kappas, radius, out[r])
        elif radius > 0.0:
            ball(z, radius, out[r])
        else:
            out[r] = z
        acc = num[r]
        for e in range(E):
            a = alphas[e]
            o = out[r, e]
            for j in range(d):
                acc[j] += a * o[j]


@njit(cache=True, fastmath=_FM, nogil=True, inline="always")
def _soft(v, k):  # pragma: no cover - compiled
    """sign(v)·max(|v| − κ, 0), branch-free (vectorises); NaN in, NaN out."""
    a = abs(v) - k
    return math.copysign(a if not (a <= 0.0) else 0.0, v)


@njit(cache=True, fastmath=_FM, nogil=True, inline="always")
def _scale_into_ball(w, ss, radius):  # pragma: no cover - compiled
    """w ← w·min(1, ρ/‖w‖) given ss = ‖w‖² (NaN propagated as numpy's w * nan)."""
    n = np.sqrt(ss)
    scale = radius / (n if n > _TINY else _TINY) if n == n else n
    if not (scale >= 1.0):
        for j in range(w.shape[0]):
            w[j] *= scale


@njit(cache=True, fastmath=_FM, nogil=True)
def local_cfedda(X, y, G0, W0, centre, shift, rows, rep, alpha, scale_c, inv_ec, kappa, radius, eps, l1,
                 outG, failed):  # pragma: no cover - compiled
    """C-FedDA's local steps (Bao et al. Alg. 2) per pair p of replica r = rep[p] from (G0, W0)[r], with CProx_r
    solved by its closed form: w = ball(soft_κ(v)) with v = (γE·w₀ − (G − shift))/(Ec), the radial step written
    as CProx's w/(1 + β), β = (‖w‖/ρ − 1)₊.  It is CProx's answer whenever R(w − w₀) ≤ ε (R = ℓ1 if ``l1`` else
    ℓ2); where it is not, ``failed[p]`` is set and the pair stops (the caller redoes the round exactly).
    outG (P, d) receives the pair's accumulated gradient G."""
    E, P, B = rows.shape
    d = X.shape[1]
    res = np.empty(B)
    g = np.empty(d)
    W = np.empty(d)
    for p in range(P):
        r = rep[p]
        G = outG[p]
        c0 = centre[r]
        sh = shift[r]
        failed[p] = False
        for j in range(d):
            G[j] = G0[r, j]
            W[j] = W0[r, j]
        for e in range(E):
            _grad(X, y, W, rows[e, p], res, g)
            if e == E - 1:
                for j in range(d):
                    G[j] += alpha * g[j]
            else:
                ss = 0.0
                dist = 0.0
                for j in range(d):
                    Gj = G[j] + alpha * g[j]
                    G[j] = Gj
                    v = (scale_c * c0[j] - (Gj - sh[j])) * inv_ec
                    if l1:
                        v = _soft(v, kappa)
                    W[j] = v
                    ss += v * v
                    t = v - c0[j]
                    dist += abs(t) if l1 else t * t
                if radius > 0.0:
                    beta = np.sqrt(ss) / radius - 1.0
                    if beta > 0.0:  # the radial step moves w: its distance to the centre again
                        dist = 0.0
                        for j in range(d):
                            v = W[j] / (1.0 + beta)
                            W[j] = v
                            t = v - c0[j]
                            dist += abs(t) if l1 else t * t
                if not l1:
                    dist = np.sqrt(dist)
                if not (dist <= eps):
                    failed[p] = True
                    break


# ---------------------------------------------------------------------------------------------------------------
# minibatch rows of a block of steps drawn ahead
# ---------------------------------------------------------------------------------------------------------------
@njit(cache=True, nogil=True)
def floyd_rows(U, n, offsets, out, start):  # pragma: no cover - compiled
    """out[f, start + p] = offsets[p] + floyd(U[p, f]) for uniforms U (P, F, B) of F steps per pair, out
    (F, ≥ start + P, B) (steps leading).

    The indices are those of :func:`floyd` (same products and truncations); the membership test of an earlier pick
    is a 64-bit mask when n ≤ 64 (branch-free) and a scan of the earlier picks otherwise."""
    P, F, B = U.shape
    one = np.uint64(1)
    for f in range(F):  # steps outer: the writes of a step are contiguous
        for p in range(P):
            off = offsets[p]
            o = out[f, start + p]
            u = U[p, f]
            if n <= 64:
                mask = np.uint64(0)
                for i in range(B):
                    j = n - B + i
                    t = min(int(u[i] * (j + 1)), j)
                    t = j if (mask >> np.uint64(t)) & one else t
                    mask |= one << np.uint64(t)
                    o[i] = off + t
            else:
                for i in range(B):
                    j = n - B + i
                    t = min(int(u[i] * (j + 1)), j)
                    for q in range(i):
                        if o[q] == off + t:
                            t = j
                            break
                    o[i] = off + t


@njit(cache=True, nogil=True)
def structured_local_average(lam, ctil, clients, weights, xt, steps, step, mu_prox,  # pragma: no cover - compiled
                             out):
    """out[r] += Σ_j weights[r, j] z_E of the shared-basis quadratics, coordinatewise in the basis:
    z_E = a + ρ^E(x̃ − a), a = (λc̃ + μ_p x̃)/(λ + μ_p), ρ = 1 − η(λ + μ_p), client k =
    clients[r, j] (:func:`fedrates.solvers.problems.structured_quadratic.local_average`)."""
    R, m = clients.shape
    d = lam.shape[1]
    a = np.empty(d)
    base = np.empty(d)
    power = np.empty(d)
    for r in range(R):
        x0 = xt[r]
        for j in range(m):
            k = clients[r, j]
            p = weights[r, j]
            lk = lam[k]
            ck = ctil[k]
            # contiguous loops over coordinates (vectorised): fixed point a, factor ρ = 1 − η(λ + μ_p)
            if mu_prox == 0.0:  # FedAvg: a = c̃ (no division)
                for i in range(d):
                    a[i] = ck[i]
                    base[i] = 1.0 - step * lk[i]
                    power[i] = 1.0
            else:
                for i in range(d):
                    a[i] = (lk[i] * ck[i] + mu_prox * x0[i]) / (lk[i] + mu_prox)
                    base[i] = 1.0 - step * (lk[i] + mu_prox)
                    power[i] = 1.0
            for _ in range(steps):  # ρ^E
                for i in range(d):
                    power[i] *= base[i]
            for i in range(d):
                out[r, i] += p * (a[i] + power[i] * (x0[i] - a[i]))


@njit(cache=True, fastmath=_FM, nogil=True)
def lowrank_local_average(delta, u, centres, clients, weights, x, steps, step, mu_prox,  # pragma: no cover - compiled
                          out):
    """out[r] += Σ_j weights[r, j] (c_k + e_E) of the diagonal-plus-rank-one quadratics, k = clients[r, j]:
    e₀ = x_r − c_k, e ← e − η(δ_k ⊙ e + (u_kᵀe)u_k + μ_p(e − e₀)) E times, one client's rows at a time
    (:func:`fedrates.solvers.problems.lowrank_quadratic.local_average`)."""
    R, m = clients.shape
    d = delta.shape[1]
    e = np.empty(d)
    e0 = np.empty(d)
    for r in range(R):
        for j in range(m):
            k = clients[r, j]
            p = weights[r, j]
            dk = delta[k]
            uk = u[k]
            ck = centres[k]
            for i in range(d):
                e0[i] = x[r, i] - ck[i]
                e[i] = e0[i]
            for _ in range(steps):
                a = 0.0
                for i in range(d):  # reassociated (fastmath): the sum vectorises
                    a += uk[i] * e[i]
                if mu_prox == 0.0:  # FedAvg
                    for i in range(d):
                        e[i] -= step * (dk[i] * e[i] + a * uk[i])
                else:
                    for i in range(d):
                        e[i] -= step * (dk[i] * e[i] + a * uk[i] + mu_prox * (e[i] - e0[i]))
            for i in range(d):
                out[r, i] += p * (ck[i] + e[i])


@njit(cache=True, fastmath=_FM, nogil=True, error_model="numpy")
def secular_bisect(lo, hi, delta, u2, largest, iterations, out):  # pragma: no cover - compiled
    """out[k] = the midpoint of [lo_k, hi_k] bisected on the sign of 1 − Σ_j u2[k, j]/(t − δ[k, j]) until the bracket
    is two adjacent floats (or ``iterations`` halvings): the largest root moves hi down where the sum is below 1,
    the smallest where it is not above 1 (:func:`fedrates.solvers.problems.lowrank_quadratic._bisect`, one client's
    row held in cache for all its halvings)."""
    K, d = delta.shape
    for k in range(K):
        a = lo[k]
        b = hi[k]
        for _ in range(iterations):
            mid = 0.5 * (a + b)
            if not (mid > a and mid < b):
                break
            s = 0.0
            for j in range(d):
                s += u2[k, j] / (mid - delta[k, j])
            down = s < 1.0 if largest else not (s > 1.0)
            if down:
                b = mid
            else:
                a = mid
        out[k] = 0.5 * (a + b)
