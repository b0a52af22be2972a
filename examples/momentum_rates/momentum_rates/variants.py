"""Broken variants: plausible implementation errors that the claims must catch (``fedrates selfcheck``).

* heavy ball with Nesterov's momentum constant (√κ − 1)/(√κ + 1) instead of its square, a confusion of the two
  tunings that still converges, at the slower rate √((√κ − 1)/(√κ + 1));
* heavy ball whose momentum term is dropped (gradient descent with Polyak's step): it needs O(κ) rounds, not O(√κ);
* Nesterov's method with the gradient taken at w_t instead of the extrapolated point y_t (heavy ball with step 1/L).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from fedrates import BrokenVariant, RoundContext

from .algorithms import HeavyBall, Nesterov


@dataclass(frozen=True, kw_only=True)
class HeavyBallUnsquaredMomentum(HeavyBall):
    """The bug: β = (√κ − 1)/(√κ + 1), not squared."""

    def coefficients(self, mu: float, L: float) -> tuple[float, float]:
        step, _ = super().coefficients(mu, L)
        root = math.sqrt(L / mu)
        return step, (root - 1.0) / (root + 1.0)


@dataclass(frozen=True, kw_only=True)
class HeavyBallNoMomentum(HeavyBall):
    """The bug: the momentum coefficient is computed and never used (β = 0)."""

    def coefficients(self, mu: float, L: float) -> tuple[float, float]:
        return super().coefficients(mu, L)[0], 0.0


@dataclass(frozen=True, kw_only=True)
class NesterovGradientAtIterate(Nesterov):
    """The bug: w_{t+1} = y_t − α∇F(w_t), the gradient at the iterate instead of the extrapolated point."""

    def round(self, state: dict[str, Any], problem: Any, ctx: RoundContext) -> dict[str, Any]:
        x, prev = state["x"], state["prev"]
        y = x + state["momentum"] * (x - prev)
        return {**state, "x": y - state["step"] * self.gradient(ctx, x), "prev": x}


VARIANTS = (
    BrokenVariant(id="heavy_ball/unsquared-momentum", target="algorithm",
                  bug="heavy ball's momentum set to (sqrt(kappa) - 1)/(sqrt(kappa) + 1), Nesterov's constant, "
                      "instead of its square",
                  claims=("momentum_rates.hb.contraction", "momentum_rates.hb_bound.*"),
                  apply=lambda claim: claim.with_algorithm(HeavyBallUnsquaredMomentum())),
    BrokenVariant(id="heavy_ball/momentum-dropped", target="algorithm",
                  bug="heavy ball's momentum term is left out of the update (gradient descent with Polyak's step)",
                  claims=("momentum_rates.hb.sqrt_kappa",),
                  apply=lambda claim: claim.with_algorithm(HeavyBallNoMomentum())),
    BrokenVariant(id="nesterov/gradient-at-iterate", target="algorithm",
                  bug="Nesterov's gradient evaluated at w_t instead of the extrapolated point y_t",
                  claims=("momentum_rates.nesterov.contraction",),
                  apply=lambda claim: claim.with_algorithm(NesterovGradientAtIterate())),
)
