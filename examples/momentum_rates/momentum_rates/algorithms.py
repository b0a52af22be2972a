"""Heavy ball and Nesterov's method as server-side methods on a federation: every round the server gathers the
exact (or stochastic) gradients of all K clients at one point, averages them with the client weights π_k into
∇F = Σ_k π_k ∇f_k, and takes one momentum step.  Both tune themselves to the exact curvature of F: μ and L are the
extreme eigenvalues of the mean Hessian Q̄ = Σ_k π_k Q_k of the quadratic, κ = L/μ.

* Heavy ball (Polyak 1964):  w_{t+1} = w_t − α ∇F(w_t) + β (w_t − w_{t−1}),
  α = 4/(√L + √μ)²,  β = ((√κ − 1)/(√κ + 1))².
* Nesterov (2004, §2.2, constant momentum):  y_t = w_t + β (w_t − w_{t−1}),  w_{t+1} = y_t − α ∇F(y_t),
  α = 1/L,  β = (√κ − 1)/(√κ + 1).

Both start with w_{−1} = w_0 and return w_t.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from fedrates import Algorithm, RoundContext, register


def curvature(problem: Any) -> tuple[float, float]:
    """(μ, L): the extreme eigenvalues of the mean Hessian Q̄ = Σ_k π_k Q_k of a quadratic federation."""
    eig = np.linalg.eigvalsh(problem.quadratic[0])
    return float(eig[0]), float(eig[-1])


class _Momentum(Algorithm):
    """Shared state and checks: the server iterate ``x`` and the previous one ``prev``."""

    uses_client_streams = False  # draws nothing but through ctx.gradients

    def coefficients(self, mu: float, L: float) -> tuple[float, float]:  # pragma: no cover - abstract
        """(step α, momentum β) for curvature bounds μ ≤ L."""
        raise NotImplementedError

    def supports(self, problem: Any) -> str | None:
        if self.local_steps != 1:
            return f"{self.name} is a server-side method: local_steps must be 1, got {self.local_steps}"
        if problem.penalty.lam > 0 or problem.radius is not None:
            return f"{self.name} handles unconstrained smooth problems only"
        if curvature(problem)[0] <= 0:
            return f"{self.name} needs a strongly convex objective (mean Hessian with smallest eigenvalue > 0)"
        return None

    def init(self, problem: Any, w0: np.ndarray) -> dict[str, Any]:
        step, momentum = self.coefficients(*curvature(problem))
        x = np.array(w0, dtype=float)
        return {"x": x, "prev": x.copy(), "step": step, "momentum": momentum}

    @staticmethod
    def gradient(ctx: RoundContext, w: np.ndarray) -> np.ndarray:
        """∇F(w) = Σ_k π_k ∇f_k(w) from the K clients' gradients at the server point w (R, d)."""
        m = ctx.clients.shape[1]
        return np.einsum("rm,rmd->rd", ctx.weights, ctx.gradients(np.repeat(w[:, None], m, axis=1)))

    def output(self, state: dict[str, Any]) -> np.ndarray:
        return state["x"]


@register
@dataclass(frozen=True, kw_only=True)
class HeavyBall(_Momentum):
    """Polyak's heavy ball with its optimal constant tuning (see the module docstring)."""

    name = "heavy_ball"
    summary = "Polyak's heavy ball on the averaged client gradient, tuned to the exact mu and L"

    def coefficients(self, mu: float, L: float) -> tuple[float, float]:
        """α = 4/(√L + √μ)², β = ((√κ − 1)/(√κ + 1))² (Polyak 1964; Lessard et al. 2016, §2.3)."""
        root = math.sqrt(L / mu)
        return 4.0 / (math.sqrt(L) + math.sqrt(mu)) ** 2, ((root - 1.0) / (root + 1.0)) ** 2

    def round(self, state: dict[str, Any], problem: Any, ctx: RoundContext) -> dict[str, Any]:
        x, prev = state["x"], state["prev"]
        new = x - state["step"] * self.gradient(ctx, x) + state["momentum"] * (x - prev)
        return {**state, "x": new, "prev": x}


@register
@dataclass(frozen=True, kw_only=True)
class Nesterov(_Momentum):
    """Nesterov's accelerated gradient with constant momentum (see the module docstring)."""

    name = "nesterov"
    summary = "Nesterov's accelerated gradient on the averaged client gradient, step 1/L, constant momentum"

    def coefficients(self, mu: float, L: float) -> tuple[float, float]:
        """α = 1/L, β = (√κ − 1)/(√κ + 1) (Nesterov 2004, scheme (2.2.19) with constant momentum)."""
        root = math.sqrt(L / mu)
        return 1.0 / L, (root - 1.0) / (root + 1.0)

    def round(self, state: dict[str, Any], problem: Any, ctx: RoundContext) -> dict[str, Any]:
        x, prev = state["x"], state["prev"]
        y = x + state["momentum"] * (x - prev)
        return {**state, "x": y - state["step"] * self.gradient(ctx, y), "prev": x}
