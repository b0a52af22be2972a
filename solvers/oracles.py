"""Stochastic gradient oracles, vectorized over replicas (seeds) and clients.

Randomness: a run seed s gives ``SeedSequence(s).spawn(K + 1)``: stream 0 is the server's (client sampling), and
stream 1 + k belongs to client k.  A client draws from its own stream only when it computes a stochastic gradient,
so results do not depend on which other clients participate or in which order they are processed, and equal seeds
give bit-identical results.

Minibatch gradients of client k at its point w_k (batch size B):

* ``empirical``  — B indices of the client's n samples, uniformly **without** replacement (as in Bao et al.'s
  experiments) or with replacement; g = (1/B) Σ_{i∈batch} x_i(x_iᵀw_k − y_i).
* ``population`` — B fresh draws x = m_k + F g (g ~ N(0, I)), y = xᵀw° + σ_ε e (e ~ N(0, 1)); same formula.
* ``gaussian``   — ∇f_k(w_k) + (σ/√d) ζ with ζ ~ N(0, I_d).

All three are unbiased for ∇f_k(w_k) of the problem's objective.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from solvers.problems.base import Problem

__all__ = ["Streams", "make_streams", "minibatch_gradients"]


@dataclass
class Streams:
    """The random streams of one run: one for the server, one per client."""

    server: np.random.Generator
    clients: list[np.random.Generator]


def make_streams(seed: int, clients: int) -> Streams:
    """Streams derived from ``seed``: ``SeedSequence(seed).spawn(clients + 1)`` (server first)."""
    children = np.random.SeedSequence(int(seed)).spawn(clients + 1)
    gens = [np.random.default_rng(c) for c in children]
    return Streams(server=gens[0], clients=gens[1:])


def _draw_indices(rngs: Sequence[np.random.Generator], n: int, batch: int, replace: bool) -> np.ndarray:
    if replace:
        return np.stack([g.integers(0, n, size=batch) for g in rngs])
    return np.stack([g.choice(n, size=batch, replace=False) for g in rngs])


def minibatch_gradients(
    problem: Problem,
    W: np.ndarray,
    client_rngs: Sequence[Sequence[np.random.Generator]],
    clients: np.ndarray,
    batch: int,
    replace: bool = False,
) -> np.ndarray:
    """Stochastic gradients for R replicas and m clients.

    Args:
        problem: the federation.
        W: points, shape (R, m, *shape) — replica r, participating client j.
        client_rngs: ``client_rngs[r][k]`` is the stream of client k in replica r.
        clients: indices of the m participating clients, shape (R, m) (per replica) or (m,).
        batch: minibatch size B ≥ 1 (for ``gaussian`` sampling B only divides the noise variance by B).
        replace: sample the empirical minibatch with replacement.

    Returns:
        array of shape (R, m, *shape).
    """
    R, m = W.shape[:2]
    clients = np.broadcast_to(np.asarray(clients), (R, m))
    Wf = problem.flat(W)
    d = problem.dim
    rngs = [[client_rngs[r][k] for k in clients[r]] for r in range(R)]
    flat_rngs = [g for row in rngs for g in row]
    if problem.sampling == "empirical":
        fit = problem.datafit
        n = fit.X.shape[1]
        if not replace and batch > n:
            raise ValueError(f"batch={batch} exceeds the {n} samples of a client (sampling without replacement)")
        idx = _draw_indices(flat_rngs, n, batch, replace).reshape(R, m, batch)
        kk = clients[..., None]
        Xb = fit.X[kk, idx]  # (R, m, B, d)
        yb = fit.y[kk, idx]
        resid = np.einsum("rmbd,rmd->rmb", Xb, Wf) - yb
        G = np.einsum("rmbd,rmb->rmd", Xb, resid) / batch
    elif problem.sampling == "population":
        pop = problem.population
        draws = np.stack([g.standard_normal((batch, d + 1)) for g in flat_rngs]).reshape(R, m, batch, d + 1)
        Xb = pop.means[clients][:, :, None, :] + draws[..., :d] @ pop.cov_factor.T
        yb = Xb @ pop.truth + pop.noise_std * draws[..., d]
        resid = np.einsum("rmbd,rmd->rmb", Xb, Wf) - yb
        G = np.einsum("rmbd,rmb->rmd", Xb, resid) / batch
    else:  # gaussian
        G = problem.datafit.client_gradients_subset(Wf, clients) if hasattr(
            problem.datafit, "client_gradients_subset") else _exact_subset(problem, Wf, clients)
        if problem.noise_std > 0:
            noise = np.stack([g.standard_normal(d) for g in flat_rngs]).reshape(R, m, d)
            G = G + (problem.noise_std / np.sqrt(d * batch)) * noise
    return problem.unflat(G)


def _exact_subset(problem: Problem, Wf: np.ndarray, clients: np.ndarray) -> np.ndarray:
    """∇f_k at per-(replica, client) points for a subset of clients, shape (R, m, d)."""
    fit = problem.datafit
    Q, b = fit.hessians[clients], fit.linear_terms[clients]
    return np.einsum("rmde,rme->rmd", Q, Wf) - b
