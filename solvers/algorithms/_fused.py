"""Fused rounds: all E local steps of all (replica, client) pairs of a round in one compiled kernel.

The algorithms' own step-by-step code (one :meth:`RoundContext.gradients` call and one numpy prox per local step)
is the reference; a fused round computes the same recursion with the numba kernels of
:mod:`fedrates.solvers._kernels_numba` (``local_sgd``, ``local_da``, ``local_fast_da``, ``local_cfedda``) from the
same minibatch rows — drawn from the clients' own streams by :meth:`RoundContext.local_rows` exactly as E gradient
calls would draw them — so the two agree to rounding (sums reassociated; tested to 1e-12 relative) and equal seeds
give bit-identical results with either backend.

A round is fused only when nothing it would call has been replaced: numba kernels selected
(``FEDRATES_KERNELS``), minibatch least squares on vectors with an ℓ1 or zero penalty and the problem's own prox,
the context's and the oracle module's gradient functions unchanged (:meth:`RoundContext.local_rows`), and the
algorithm's own hooks (checked by each algorithm).  Anything else — a broken variant that scales the gradients or
patches the prox, a recording oracle, the numpy backend — runs step by step, so it is honoured exactly.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fedrates.solvers import kernels
from fedrates.solvers.penalties import L1, Zero
from fedrates.solvers.problems.base import Problem

__all__ = ["prox_lambda", "local_rows", "samples"]


def prox_lambda(problem: Any) -> float | None:
    """λ of a prox the kernels compute exactly — soft thresholding by λ·step (ℓ1) or none (zero penalty: −1),
    followed by the radial ball projection — or None when the problem's prox is anything else."""
    if kernels.BACKEND != "numba" or len(getattr(problem, "shape", ())) != 1 or type(problem).prox is not Problem.prox:
        return None
    pen = problem.penalty
    if type(pen) is L1 and type(pen).prox is L1.prox:
        return float(pen.lam)
    if type(pen) is Zero:
        return -1.0
    return None


def radius(problem: Any) -> float:
    """The ball radius, or −1 (no ball) as the kernels take it."""
    return -1.0 if problem.radius is None else float(problem.radius)


def local_rows(ctx: Any, steps: int) -> np.ndarray | None:
    """Rows (E, P, B) of the round's E local steps, P = R·m pairs replica-major, or None (go step by step).

    Consumes the draws: call it only once every other condition of fusing the round holds."""
    take = getattr(ctx, "local_rows", None)
    if take is None:
        return None
    rows = take(steps)
    if rows is None:
        return None
    E, R, m, B = rows.shape
    return rows.reshape(E, R * m, B)


def samples(problem: Any) -> tuple[np.ndarray, np.ndarray]:
    """The stacked sample matrix (K·n, d) and responses (K·n,) (views of the C-ordered client data)."""
    fit = problem.datafit
    return fit.X.reshape(-1, fit.dim), fit.y.reshape(-1)


def pairs(x: np.ndarray, m: int) -> np.ndarray:
    """Per-replica rows x (R, d) repeated for the m clients of each replica: (R·m, d), contiguous."""
    return np.repeat(np.asarray(x, dtype=float), m, axis=0)


def local_sgd(problem: Any, ctx: Any, steps: int, x: np.ndarray, step: float, mu_prox: float,
              lam: float) -> np.ndarray | None:
    """E local (proximal) SGD steps from the server points x (R, d) (FedAvg, FedProx, FedMiD):
    w ← prox(w − η(g(w) + μ_p(w − x))) with soft threshold λη (λ < 0: none) and the ball; -> (R, m, d) or None."""
    rows = local_rows(ctx, steps)
    if rows is None:
        return None
    R, m = ctx.clients.shape
    X, y = samples(problem)
    out = np.empty((R * m, problem.dim))
    kappa = lam * step if lam >= 0 else -1.0
    kernels._nb().local_sgd(X, y, pairs(x, m), rows, float(step), float(mu_prox), float(kappa), radius(problem), out)
    return out.reshape(R, m, problem.dim)


def local_da(problem: Any, ctx: Any, steps: int, z: np.ndarray, step: float, thresholds: list[float],
             lam: float) -> np.ndarray | None:
    """FedDA's E local dual steps from the server dual points z (R, d): w = prox_{t_e}(z), z ← z − ηg(w);
    thresholds t_e (prox steps, multiplied by λ; λ < 0: no threshold); -> the clients' z (R, m, d) or None."""
    rows = local_rows(ctx, steps)
    if rows is None:
        return None
    R, m = ctx.clients.shape
    X, y = samples(problem)
    out = np.empty((R * m, problem.dim))
    kappas = np.array([t * lam if lam >= 0 else -1.0 for t in thresholds], dtype=float)
    kernels._nb().local_da(X, y, pairs(z, m), rows, float(step), kappas, radius(problem), out)
    return out.reshape(R, m, problem.dim)


def local_fast_da(problem: Any, ctx: Any, g: np.ndarray, wt: np.ndarray, w: np.ndarray, centre: np.ndarray,
                  alphas: list[float], inv_c: list[float], kappas: list[float], half_mu: float,
                  gamma: float) -> tuple[np.ndarray, np.ndarray] | None:
    """Fast-FedDA's E = len(inv_c) local steps from the server state (g, w̃, w) (R, d) each; -> the π-weighted
    client averages (ḡ_e, w̃̄_e) of every step, two (R, E, d) arrays, or None."""
    E = len(inv_c)
    rows = local_rows(ctx, E)
    if rows is None:
        return None
    R, m = ctx.clients.shape
    X, y = samples(problem)
    gbar = np.zeros((R, E, problem.dim))
    wtbar = np.zeros((R, E, problem.dim))
    rep = np.repeat(np.arange(R), m)
    weights = np.ascontiguousarray(ctx.weights, dtype=float).reshape(-1)
    c = lambda a: np.ascontiguousarray(a, dtype=float)  # noqa: E731
    kernels._nb().local_fast_da(X, y, c(g), c(wt), c(w), c(centre), rows, rep, weights, c(alphas), c(inv_c),
                                c(kappas), float(half_mu), float(gamma), radius(problem), gbar, wtbar)
    return gbar, wtbar


def fast_da_server(problem: Any, gbar: np.ndarray, wtbar: np.ndarray, centre: np.ndarray, cs: list[float],
                   kappas: list[float], half_mu: float, gamma: float, alphas: list[float],
                   num: np.ndarray) -> np.ndarray:
    """Fast-FedDA's server points prox_{κ_e}((γw₀ − (ḡ_e − (μ/2)w̃̄_e))/c_e) of the E steps (R, E, d), adding
    Σ_e α_e·(point e) to ``num`` (R, d) in place, in one compiled pass: bit for bit ``Problem.prox`` of the numpy
    expression (κ_e = (A_e/c_e)·λ, or −1 for no threshold, as the round's kernel takes them)."""
    out = np.empty(gbar.shape)
    c = lambda a: np.ascontiguousarray(a, dtype=float)  # noqa: E731
    kernels._nb().fast_da_server(gbar, wtbar, c(centre), c(cs), c(kappas), radius(problem), float(half_mu),
                                 float(gamma), c(alphas), num, out)
    return out


def local_cfedda(problem: Any, ctx: Any, steps: int, g: np.ndarray, wbar: np.ndarray, centre: np.ndarray,
                 shift: np.ndarray, alpha: float, scale_c: float, inv_ec: float, kappa: float, eps: float,
                 l1: bool) -> tuple[np.ndarray | None, np.ndarray] | None:
    """C-FedDA's E local steps from the server state (g, w̄) (R, d) with CProx in closed form (see the kernel);
    -> (clients' G (R, m, d), rows) when every pair stayed inside its R-ball, (None, rows) when some pair left it
    (the caller replays ``rows`` step by step with the exact CProx), or None."""
    rows = local_rows(ctx, steps)
    if rows is None:
        return None
    R, m = ctx.clients.shape
    X, y = samples(problem)
    outG = np.empty((R * m, problem.dim))
    failed = np.zeros(R * m, dtype=np.bool_)
    c = lambda a: np.ascontiguousarray(a, dtype=float)  # noqa: E731
    kernels._nb().local_cfedda(X, y, c(g), c(wbar), c(centre), c(shift), rows, np.repeat(np.arange(R), m),
                               float(alpha), float(scale_c), float(inv_ec), float(kappa), radius(problem),
                               float(eps), bool(l1), outG, failed)
    full = rows.reshape((steps,) + ctx.clients.shape + rows.shape[-1:])
    if failed.any():
        return None, full
    return outG.reshape(R, m, problem.dim), full
