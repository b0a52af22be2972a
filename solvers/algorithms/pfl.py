"""PFL(β): perturbed local updates with a mutual-similarity graph (Buttaci & Calafiore, "Aiding Global Convergence in
Federated Learning via Local Perturbation and Mutual Similarity Information", Algorithm 1, eqs. (3)–(5)).

Objective: f(w) = Σ_i p_i f_i(w) with p_i the degrees of the similarity graph (the problem's weights; p_in the
symmetric similarity weights in ``problem.extras["similarity_weights"]``, :mod:`fedrates.solvers.similarity`).

Round t (full participation, Assumption 1), for every client i in parallel, from w_{t,0}^i = w̄_{t,0}:

    w̃_{t,k}^i   = β w_{t,k}^i + (1 − β) u_t^i                        (perturbed iterate, (5))
    w_{t,k+1}^i = w_{t,k}^i − γ g_i(w̃_{t,k}^i),   k = 0..E−1          (gradient at w̃, step from w, (3))

then the server forms the neighbour averages and the aggregate

    u_{t+1}^i = (1/p_i) Σ_n p_in w_{t,E}^n,     w̄_{t+1,0} = Σ_i p_i w_{t,E}^i     (Adjacency scheme)

with u_0^i = w̄_{0,0}.  u_t^i uses the neighbours' *last* local iterates of the previous round and stays fixed during
round t.  β = 1 is FedAvg (same trajectory, bit for bit: w̃ = w).  Returned point: the server model w̄_{T,0}.

Partial participation is refused: Algorithm 1's partial branch is undefined (u_{t+1}^i needs w_{t,E}^n of clients
that did not run, and Σ_{i∈S_t} p_i w_{t,E}^i is not normalised), and Lemma 1, on which every result of the paper
for this method rests, needs all clients, symmetric p_in and aggregation weights p_i = Σ_n p_in.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from fedrates.solvers.algorithms.base import Algorithm, RoundContext, hyper, register, weighted_mean
from fedrates.solvers.algorithms.fedavg import smooth_only
from fedrates.solvers.errors import InputError

__all__ = ["PFL", "similarity_weights"]


def similarity_weights(problem: Any) -> np.ndarray | None:
    """The symmetric p_in (C, C) of the problem's similarity graph, or None when it has none."""
    P = getattr(problem, "extras", {}).get("similarity_weights")
    return None if P is None else np.asarray(P, dtype=float)


@register
@dataclass(frozen=True, kw_only=True)
class PFL(Algorithm):
    """PFL(β) (see module docstring)."""

    name = "pfl"
    summary = "perturbed local steps at beta*w + (1-beta)*(neighbour average), similarity-graph weights (full part.)"
    uses_client_streams = False  # draws only through ctx.gradients / ctx.local_rows

    step: float = hyper(0.01, "client step size gamma > 0", low=0.0, strict=True)
    beta: float = hyper(0.5, "perturbation parameter beta in (0, 1] (1 = FedAvg)", low=0.0, strict=True)

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.beta > 1.0:
            raise InputError(f"hyperparameter beta={self.beta!r} of pfl is out of range; expected 0 < beta <= 1")

    def supports(self, problem: Any) -> str | None:
        reason = smooth_only(self.name, problem)
        if reason:
            return reason
        if problem.radius is not None:
            return "pfl is analysed on unconstrained problems; problem has a ball domain"
        P = similarity_weights(problem)
        if P is None:
            return ("pfl needs a similarity graph: problem has no similarity weights (use the similar_quadratic "
                    "family)")
        K = problem.clients
        if P.shape != (K, K):
            return f"pfl: similarity weights have shape {P.shape}; expected ({K}, {K})"
        if not np.allclose(P, P.T, rtol=0, atol=1e-15) or np.any(np.diag(P) != 0) or np.any(P < 0):
            return "pfl: similarity weights must be symmetric, non-negative, with zero diagonal (Lemma 1)"
        if not np.allclose(P.sum(axis=1), problem.weights, rtol=1e-12, atol=1e-15):
            return ("pfl: aggregation weights must be the graph degrees p_i = sum_n p_in (Adjacency scheme, "
                    "Lemma 1)")
        return None

    def init(self, problem: Any, w0: np.ndarray) -> dict[str, np.ndarray]:
        x = np.array(w0, dtype=float)
        K = problem.clients
        # u_0^i = w̄_{0,0} for every client
        return {"x": x, "u": np.repeat(x[:, None], K, axis=1)}

    def neighbour_averages(self, problem: Any, W: np.ndarray) -> np.ndarray:
        """u^i = (1/p_i) Σ_n p_in W^n for client points W (R, K, *shape)."""
        N = similarity_weights(problem) / problem.weights[:, None]
        R, K = W.shape[:2]
        return np.einsum("in,rnd->rid", N, W.reshape(R, K, -1)).reshape(W.shape)

    def round(self, state: dict[str, np.ndarray], problem: Any, ctx: RoundContext) -> dict[str, np.ndarray]:
        x, U = state["x"], state["u"]
        R, m = ctx.clients.shape
        if m != problem.clients:
            raise InputError(f"pfl runs with full participation only (got {m} of {problem.clients} clients per "
                             "round): Algorithm 1's partial branch is undefined and Lemma 1 needs every client")
        W = np.broadcast_to(x[:, None], (R, m) + problem.shape).copy()
        for _ in range(self.local_steps):
            W_tilde = W if self.beta == 1.0 else self.beta * W + (1.0 - self.beta) * U
            W = W - self.step * ctx.gradients(W_tilde)
        return {"x": weighted_mean(ctx.weights, W), "u": self.neighbour_averages(problem, W)}

    def output(self, state: dict[str, np.ndarray]) -> np.ndarray:
        return state["x"]
