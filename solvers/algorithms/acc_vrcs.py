"""AccVRCS (Bylinkin et al.: Algorithm 3 of the intended numbering; Theorems 3 and 7).

Iteration k (tuning (24)):

    x_{k+1} = τ z_k + (1 − τ) y_k
    y_{k+1} = VRCS^1ep(p, q, θ, x_{k+1})                  (its anchor round gives ∇(h − h_1)(x_{k+1}))
    t_k     = ∇(h − h_1)(x_{k+1}) − ∇(h − h_1)(y_{k+1})    (∇h(y_{k+1}): one extra round with M_f and with M_g)
    G_{k+1} = q((x_{k+1} − y_{k+1})/θ − t_k)
    z_{k+1} = argmin ‖z − z_k‖²/(2α) + ⟨G_{k+1}, z⟩ + (μ/4)‖z − y_{k+1}‖²
            = (z_k + (μα/2) y_{k+1} − α G_{k+1})/(1 + μα/2)

with θ, p = q from (23), τ = √(θμ/(3q)), α = √(θ/(3μq)).  Two departures from the printed pseudo-code, both
following the proof (App. E): Line 7 prints G = q(t_k + (x − y)/θ), while the proof uses
G = q(∇ψ(x_{k+1}) − ∇ψ(y_{k+1})) with ψ = h_1 − h + ‖·‖²/(2θ), i.e. the sign −t_k implemented here; and the round
needed for ∇h(y_{k+1}) is counted (the paper's count 1 + p/q per iteration omits it: the expected rounds per
iteration are 2 + p/q with M_f and 2 + (1 − p)/q with M_g).  Output: y_K.  One ``round`` of the runner = one
iteration.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from fedrates.solvers.algorithms import _separation as sep
from fedrates.solvers.algorithms.base import register
from fedrates.solvers.algorithms.vrcs import VRCS, epoch

__all__ = ["AccVRCS"]


@register
@dataclass(frozen=True, kw_only=True)
class AccVRCS(VRCS):
    """AccVRCS (see module docstring)."""

    name = "acc_vrcs"
    summary = "AccVRCS: accelerated VRCS with a KatyushaX-type interpolation (Bylinkin et al., Alg. 3)"

    #: sign of t_k in G_{k+1} (−1: the proof's; +1: the printed Line 7)
    tk_sign = -1.0
    #: count the round with both groups that ∇h(y_{k+1}) needs
    count_tk_round = True

    def tuning(self, sp: Any) -> dict[str, float]:
        t = super().tuning(sp)
        t["tau"] = math.sqrt(t["theta"] * sp.mu / (3 * t["q"]))
        t["alpha"] = math.sqrt(t["theta"] / (3 * sp.mu * t["q"]))
        return t

    def init(self, problem: Any, w0: np.ndarray) -> dict[str, Any]:
        y = np.array(w0, dtype=float)
        return {"y": y, "z": y.copy(), **sep.counters(y.shape[0])}

    def output(self, state: dict) -> np.ndarray:
        return state["y"]

    def step(self, state: dict, sp: Any, coins: sep.Coins) -> dict:
        t = self.tuning(sp)
        theta, q, tau, alpha, mu = t["theta"], t["q"], t["tau"], t["alpha"], sp.mu
        y, z = state["y"], state["z"]
        rf, rg = state["rounds_f"].copy(), state["rounds_g"].copy()
        x = tau * z + (1 - tau) * y
        y_new = epoch(x, sp, coins, t["p"], q, theta, self.subproblem, self.accuracy_factor, rf, rg,
                      self.geometric_from_zero)

        def grad_diff(X: np.ndarray) -> np.ndarray:  # ∇(h − h_1)
            return sp.grad_f(X) + sp.grad_g(X) - sp.grad_f1(X) - sp.grad_g1(X)

        tk = grad_diff(x) - grad_diff(y_new)
        if self.count_tk_round:
            rf += 1
            rg += 1
        G = q * ((x - y_new) / theta + self.tk_sign * tk)
        z_new = (z + 0.5 * mu * alpha * y_new - alpha * G) / (1 + 0.5 * mu * alpha)
        out = dict(state)
        out.update(y=y_new, z=z_new, rounds_f=rf, rounds_g=rg)
        return out
