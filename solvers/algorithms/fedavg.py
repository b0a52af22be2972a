"""FedAvg (local SGD) with an optional server step size (McMahan et al. 2017; Reddi et al. 2021 for η_s).

Objective: F(w) = Σ_k π_k f_k(w) (smooth problems only: zero penalty), over ℝ^shape or the ball {‖w‖ ≤ ρ}.

Round r with participants S_r (weights p_k = π_k / Σ_{j∈S_r} π_j):

    w_k^0 = x_r;   w_k^{e+1} = Π(w_k^e − η_c g_k(w_k^e)),  e = 0..E−1   (g_k: minibatch or exact gradient)
    x_{r+1} = Π(x_r + η_s (Σ_{k∈S_r} p_k w_k^E − x_r))

Π is the Euclidean projection onto the ball when the problem has one (projected local SGD; a deviation from plain
FedAvg, which has no domain), the identity otherwise.  With η_s ≤ 1 the server point is a convex combination of
points of the ball and the server projection is inactive.  Returned point: the server iterate x_R.

FedProx (:mod:`fedrates.solvers.algorithms.fedprox`) reuses this round with an extra local proximal term.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from fedrates.solvers.algorithms import _fused
from fedrates.solvers.algorithms.base import Algorithm, RoundContext, hyper, register, weighted_mean
from fedrates.solvers.penalties import project_ball


def smooth_only(name: str, problem: Any) -> str | None:
    """The refusal reason of a smooth-only method on a problem with a non-zero penalty."""
    pen = problem.penalty
    if pen.name != "zero" and pen.lam > 0:
        return f"{name} handles smooth objectives only; problem has an {pen.name} penalty (use fedmid or fedda)"
    return None


@register
@dataclass(frozen=True, kw_only=True)
class FedAvg(Algorithm):
    """FedAvg / local SGD with server step size (see module docstring)."""

    name = "fedavg"
    summary = "local SGD with weighted averaging and server step size (smooth problems)"
    uses_client_streams = False  # draws only through ctx.gradients / ctx.local_rows

    step: float = hyper(0.01, "client step size eta_c > 0", low=0.0, strict=True)
    server_step: float = hyper(1.0, "server step size eta_s > 0", low=0.0, strict=True)

    def supports(self, problem: Any) -> str | None:
        return smooth_only(self.name, problem)

    def init(self, problem: Any, w0: np.ndarray) -> dict[str, np.ndarray]:
        return {"x": np.array(w0, dtype=float)}

    def local_direction(self, G: np.ndarray, W: np.ndarray, x: np.ndarray) -> np.ndarray:
        """The local update direction at client points W (R, m, *shape) from gradients G; server point x."""
        return G

    def round(self, state: dict[str, np.ndarray], problem: Any, ctx: RoundContext) -> dict[str, np.ndarray]:
        x = state["x"]
        R, m = ctx.clients.shape
        ndim = len(problem.shape)
        avg = self._structured_round(problem, ctx, x)
        if avg is None:
            W = self._fused_local_steps(problem, ctx, x)
            if W is None:  # step by step (the reference of the fused kernel)
                xb = x[:, None]
                W = np.broadcast_to(xb, (R, m) + problem.shape).copy()
                for _ in range(self.local_steps):
                    G = ctx.gradients(W)
                    W = project_ball(W - self.step * self.local_direction(G, W, xb), problem.radius, ndim)
            avg = weighted_mean(ctx.weights, W)
        x_new = avg if self.server_step == 1.0 else x + self.server_step * (avg - x)
        return {"x": project_ball(x_new, problem.radius, ndim)}

    def _own_mu_prox(self) -> float | None:
        """μ_p of the local direction when it is FedAvg's (0) or FedProx's own, None for any other direction."""
        direction = type(self).local_direction
        if direction is FedAvg.local_direction:
            return 0.0
        from fedrates.solvers.algorithms.fedprox import FedProx

        return float(self.mu_prox) if direction is FedProx.local_direction else None

    def _structured_round(self, problem: Any, ctx: RoundContext, x: np.ndarray) -> np.ndarray | None:
        """The participants' weighted average after E exact local steps in one pass over a shared-basis quadratic
        (:func:`fedrates.solvers.problems.structured_quadratic.local_average`, O(K·d) whatever E, no (R, m, d)
        array) or over diagonal-plus-rank-one quadratics (:func:`fedrates.solvers.problems.lowrank_quadratic.
        local_average`, O(K·d·E) on one client's rows at a time), or None: another problem, a ball, noisy or
        replaced gradients, or another local direction."""
        from fedrates.solvers.problems import lowrank_quadratic, structured_quadratic

        kind = type(problem.datafit)
        if kind is structured_quadratic.StructuredQuadratic:
            local_average = structured_quadratic.local_average  # looked up at call time: a replaced one is honoured
        elif kind is lowrank_quadratic.LowRankQuadratic:
            local_average = lowrank_quadratic.local_average
        else:
            return None
        if problem.radius is not None or not hasattr(ctx, "closed_form_rounds") or not ctx.closed_form_rounds():
            return None
        mu_prox = self._own_mu_prox()
        if mu_prox is None:
            return None
        R, m = ctx.clients.shape
        ctx.count(self.local_steps, self.local_steps * m)
        return local_average(problem.datafit, ctx.clients, ctx.weights, x, self.local_steps, self.step, mu_prox)

    def _fused_local_steps(self, problem: Any, ctx: RoundContext, x: np.ndarray) -> np.ndarray | None:
        """The clients' points after the E local steps from one fused kernel (:mod:`._fused`), or None when the
        round must go step by step: the local direction is not FedAvg's or FedProx's own, or see ``_fused``."""
        direction = type(self).local_direction
        if direction is FedAvg.local_direction:
            mu_prox = 0.0
        else:
            from fedrates.solvers.algorithms.fedprox import FedProx

            if direction is not FedProx.local_direction:
                return None
            mu_prox = float(self.mu_prox)
        lam = _fused.prox_lambda(problem)
        if lam is None:
            return None
        return _fused.local_sgd(problem, ctx, self.local_steps, x, self.step, mu_prox, -1.0)

    def output(self, state: dict[str, np.ndarray]) -> np.ndarray:
        return state["x"]
