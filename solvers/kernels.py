"""Fused kernels of the simulation hot paths, with a pure-numpy fallback that is also their test oracle.

Kernels (rows p = 0..P−1 are the (replica, client) pairs of a step, fused into one call):

* :func:`lsq_rows` — the minibatch least-squares gradient straight from sampled row indices,
  g_p = (1/B) Σ_{i<B} x_{r(p,i)} (x_{r(p,i)}ᵀ w_p − y_{r(p,i)}), one pass over the sampled rows (no gathered copy);
* :func:`soft_ball` — soft thresholding followed by the radial projection onto {‖x‖₂ ≤ ρ} (the exact prox of
  λ‖·‖₁ on a Euclidean ball, :mod:`fedrates.solvers.penalties`), in one pass, optionally in place;
* :func:`ball` — the radial projection alone;
* :func:`floyd` — minibatch indices from uniforms by Floyd's algorithm (integer results, identical across backends);
* :func:`floyd_rows` — the same for a block of steps per pair, offset into the stacked sample matrix, steps leading.

Fused rounds (all local steps of all pairs of a round in one call: ``local_sgd``, ``local_da``, ``local_fast_da``,
``local_cfedda`` in :mod:`fedrates.solvers._kernels_numba`) are driven by :mod:`fedrates.solvers.algorithms._fused`;
their numpy oracle is each algorithm's own step-by-step round, which the numpy backend runs.

Backends: ``numba`` (compiled once and cached on disk, ``cache=True``) and ``numpy``.  The environment variable
``FEDRATES_KERNELS`` selects one (``numba``, ``numpy`` or ``auto``, the default: numba when it is installed).  The
backends agree to rounding (the numba sums are reassociated; agreement to 1e-12 relative is tested), and the
random draws never depend on the backend: kernels only consume indices drawn by :mod:`fedrates.solvers.oracles`.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from types import ModuleType

import numpy as np

from fedrates.solvers.errors import InputError

__all__ = ["BACKENDS", "backend", "lsq_rows", "soft_ball", "ball", "floyd", "floyd_rows"]

BACKENDS = ("numba", "numpy")
_TINY = np.finfo(float).tiny


def _select(value: str | None) -> str:
    want = (value or "auto").strip().lower()
    if want == "auto":
        return "numba" if importlib.util.find_spec("numba") is not None else "numpy"
    if want not in BACKENDS:
        raise InputError(f"FEDRATES_KERNELS={value!r} is not valid; expected auto, numba or numpy")
    if want == "numba" and importlib.util.find_spec("numba") is None:
        raise InputError("FEDRATES_KERNELS=numba but numba is not installed; expected numpy or auto")
    return want


#: the backend chosen at import from ``FEDRATES_KERNELS``
BACKEND = _select(os.environ.get("FEDRATES_KERNELS"))
_numba_module: ModuleType | None = None


def backend() -> str:
    """The active backend name (``numba`` or ``numpy``)."""
    return BACKEND


def _nb() -> ModuleType:
    global _numba_module
    if _numba_module is None:
        _numba_module = importlib.import_module("fedrates.solvers._kernels_numba")
    return _numba_module


def _which(name: str | None) -> str:
    return BACKEND if name is None else _select(name)


# ---------------------------------------------------------------------------------------------------------------
# minibatch least-squares gradient
# ---------------------------------------------------------------------------------------------------------------
def lsq_rows(X: np.ndarray, y: np.ndarray, W: np.ndarray, rows: np.ndarray, out: np.ndarray | None = None, *,
             chunk_bytes: int = 1 << 20, buf: np.ndarray | None = None, backend: str | None = None) -> np.ndarray:
    """g_p = (1/B) X_{r(p)}ᵀ(X_{r(p)} w_p − y_{r(p)}) for X (N, d), y (N,), W (P, d), rows (P, B) -> (P, d).

    The numpy backend gathers the rows into a buffer (``buf``, reused if given) in chunks of at most
    ``chunk_bytes`` and runs two stacked matrix–vector products; the numba backend reads each sampled row once.
    """
    P, B = rows.shape
    d = X.shape[1]
    if out is None:
        out = np.empty((P, d))
    if _which(backend) == "numba":
        _nb().lsq_rows(np.ascontiguousarray(X, dtype=float), np.ascontiguousarray(y, dtype=float),
                       np.ascontiguousarray(W, dtype=float), np.ascontiguousarray(rows, dtype=np.intp), out)
        return out
    chunk = max(1, min(P, chunk_bytes // (B * d * 8)))
    if buf is None or buf.size < chunk * B * d:
        buf = np.empty(chunk * B * d)
    for s in range(0, P, chunk):
        r = rows[s:s + chunk]
        c = r.shape[0]
        # mode="clip" selects numpy's unbuffered path for ``out``; every row index is in range
        Xb = np.take(X, r.reshape(-1), axis=0, out=buf[:c * B * d].reshape(c * B, d), mode="clip").reshape(c, B, d)
        resid = Xb @ W[s:s + chunk, :, None]
        resid[..., 0] -= y[r]
        np.matmul(resid.transpose(0, 2, 1), Xb, out=out[s:s + chunk, None, :])
    out /= B
    return out


# ---------------------------------------------------------------------------------------------------------------
# prox pieces
# ---------------------------------------------------------------------------------------------------------------
def _scale_rows(x: np.ndarray, radius: float, out: np.ndarray) -> np.ndarray:
    norm = np.sqrt(np.einsum("pd,pd->p", x, x))
    scale = np.minimum(1.0, radius / np.maximum(norm, _TINY))
    return np.multiply(x, scale[:, None], out=out)


def soft_ball(V: np.ndarray, kappa: float | np.ndarray, radius: float | None, out: np.ndarray | None = None, *,
              backend: str | None = None) -> np.ndarray:
    """x_p = proj_ρ(sign(v_p)·max(|v_p| − κ_p, 0)) for V (P, d), κ scalar or (P,), ρ > 0 or None -> (P, d).

    ``out`` may be ``V`` (in place)."""
    P, d = V.shape
    kap = np.broadcast_to(np.asarray(kappa, dtype=float), (P,))
    if out is None:
        out = np.empty((P, d))
    if _which(backend) == "numba":
        _nb().soft_ball(np.ascontiguousarray(V, dtype=float), np.ascontiguousarray(kap),
                        -1.0 if radius is None else float(radius), out)
        return out
    x = np.sign(V) * np.maximum(np.abs(V) - kap[:, None], 0.0)
    if radius is None:
        out[...] = x
        return out
    return _scale_rows(x, float(radius), out)


def ball(V: np.ndarray, radius: float, out: np.ndarray | None = None, *, backend: str | None = None) -> np.ndarray:
    """x_p = v_p·min(1, ρ/‖v_p‖) for V (P, d) -> (P, d); ``out`` may be ``V``."""
    if out is None:
        out = np.empty(V.shape)
    if _which(backend) == "numba":
        _nb().ball(np.ascontiguousarray(V, dtype=float), float(radius), out)
        return out
    return _scale_rows(V, float(radius), out)


# ---------------------------------------------------------------------------------------------------------------
# minibatch indices
# ---------------------------------------------------------------------------------------------------------------
def floyd(U: np.ndarray, n: int, *, backend: str | None = None) -> np.ndarray:
    """Uniformly random B-subsets of {0..n−1} from uniforms U (N, B) -> (N, B) indices (Floyd's algorithm): for
    i = 0..B−1 with j = n − B + i, t = min(⌊U_i (j + 1)⌋, j), and the subset gains t, or j if t is already in it.

    Both backends compute the same products and truncations, so the indices are identical."""
    N, B = U.shape
    if _which(backend) == "numba":
        out = np.empty((N, B), dtype=np.intp)
        _nb().floyd(np.ascontiguousarray(U, dtype=float), int(n), out)
        return out
    # Floyd's loop over the B positions, each step on all N subsets at once; the membership test compares t with
    # the i earlier picks stored as contiguous rows of a (B, N) array
    Ut = np.ascontiguousarray(U.T)
    S = np.empty(Ut.shape, dtype=np.intp)
    for i in range(B):
        j = n - B + i
        t = np.minimum((Ut[i] * (j + 1)).astype(np.intp), j)
        if i:
            t = np.where((S[:i] == t).any(axis=0), j, t)
        S[i] = t
    return S.T


def floyd_rows(U: np.ndarray, n: int, offsets: np.ndarray, out: np.ndarray | None = None, start: int = 0, *,
               backend: str | None = None) -> np.ndarray:
    """Rows of F minibatches per pair from uniforms U (P, F, B), offsets (P,) -> (F, P, B), or written into
    ``out[:, start:start + P]`` of a given C-contiguous (F, ≥ start + P, B) intp array:
    out[f, start + p] = offsets[p] + floyd(U[p, f], n) (:func:`floyd`; identical across backends)."""
    P, F, B = U.shape
    if out is None:
        out = np.empty((F, start + P, B), dtype=np.intp)
    offsets = np.ascontiguousarray(offsets, dtype=np.intp)
    if _which(backend) == "numba":
        _nb().floyd_rows(np.ascontiguousarray(U, dtype=float), int(n), offsets, out, int(start))
        return out
    idx = floyd(U.reshape(-1, B), n, backend="numpy").reshape(P, F, B) + offsets[:, None, None]
    out[:, start:start + P] = idx.transpose(1, 0, 2)
    return out
