"""numba implementations of :mod:`fedrates.solvers.kernels` (imported only when that backend is selected).

Every function is compiled with ``cache=True`` (machine code stored next to this file, or in ``NUMBA_CACHE_DIR``),
so a fresh process loads it instead of compiling.  ``fastmath`` is limited to reassociation and contraction (the
sums vectorise; NaN and inf propagate as in numpy, which divergence detection relies on).  The arithmetic is that
of the numpy oracles in :mod:`fedrates.solvers.kernels` up to the order of summation.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_FM = {"reassoc", "contract"}
_TINY = np.finfo(np.float64).tiny


@njit(cache=True, fastmath=_FM, nogil=True)
def lsq_rows(X, y, W, rows, out):  # pragma: no cover - compiled
    """out[p] = (1/B) Σ_i x_r (x_rᵀ W[p] − y_r), r = rows[p, i], with no gathered copy: the B residuals first (each
    sampled row streamed once from memory), then the update, which finds the B rows (B·d·8 bytes) in cache."""
    P, B = rows.shape
    d = X.shape[1]
    res = np.empty(B)
    for p in range(P):
        w = W[p]
        for i in range(B):
            r = rows[p, i]
            x = X[r]
            s = 0.0
            for j in range(d):
                s += x[j] * w[j]
            res[i] = s - y[r]
        g = out[p]
        for j in range(d):
            g[j] = 0.0
        for i in range(B):
            x = X[rows[p, i]]
            c = res[i]
            for j in range(d):
                g[j] += c * x[j]
        for j in range(d):
            g[j] /= B


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
