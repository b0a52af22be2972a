"""A broken variant: heavy ball with Nesterov's momentum constant (√κ − 1)/(√κ + 1) instead of its square, a
confusion of the two tunings that still converges, at the slower rate √((√κ − 1)/(√κ + 1))."""

from __future__ import annotations

import math
from dataclasses import dataclass

from fedrates import BrokenVariant

from .algorithms import HeavyBall


@dataclass(frozen=True, kw_only=True)
class HeavyBallUnsquaredMomentum(HeavyBall):
    """The bug: β = (√κ − 1)/(√κ + 1), not squared."""

    def coefficients(self, mu: float, L: float) -> tuple[float, float]:
        step, _ = super().coefficients(mu, L)
        root = math.sqrt(L / mu)
        return step, (root - 1.0) / (root + 1.0)


VARIANTS = (
    BrokenVariant(id="heavy_ball/unsquared-momentum", target="algorithm",
                  bug="heavy ball's momentum set to (sqrt(kappa) - 1)/(sqrt(kappa) + 1), Nesterov's constant, "
                      "instead of its square",
                  claims=("momentum_rates.hb.contraction", "momentum_rates.hb_bound.*"),
                  apply=lambda claim: claim.with_algorithm(HeavyBallUnsquaredMomentum())),
)
