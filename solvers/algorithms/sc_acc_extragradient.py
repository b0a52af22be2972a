"""SC-AccExtragradient (Bylinkin et al., Algorithm 1 of the paper's intended numbering; Theorems 1, 5).

Problem (2): min_x h(x) = f(x) + g(x), server function h_1 = f_1 + g_1.  Iteration k (tuning (9)):

    x̲_k     = τ x_k + (1 − τ) x̄_k
    ξ_k     = ∇(f − f_1)(x̲_k)/p  w.p. p  (1 round with M_f),   ∇(g − g_1)(x̲_k)/(1 − p)  otherwise (1 round with M_g)
    x̄_{k+1} ≈ argmin A_θ^k(x) = ⟨ξ_k, x⟩ + ‖x − x̲_k‖²/(2θ) + h_1(x),
              accuracy (4): ‖∇A_θ^k(x̄_{k+1})‖² ≤ ‖x̲_k − argmin A_θ^k‖²/(11θ²)
    ζ_k     = ∇f(x̄_{k+1})/p      w.p. p  (1 round with M_f),   ∇g(x̄_{k+1})/(1 − p)  otherwise (1 round with M_g)
    x_{k+1} = x_k + ηα(x̄_{k+1} − x_k) − η ζ_k

θ = ``theta_scale``/(δ_f + δ_g) (tuning (9): scale ≤ 1/3), τ = √(μθ), η = min{1/(2μ), ½√(θ/μ)}, α = μ, and
p = δ_f/(δ_f + δ_g) (fixed in the proof, App. B).  The coins of ξ_k and ζ_k are **independent**: the proof takes
E[ζ_k | x̄_{k+1}] = ∇h(x̄_{k+1}) (the text's "the same scheme" is ambiguous).  Theorem 5 prints the accuracy as
θ²/11; the proof needs 1/(11θ²), as in eq. (4) — the latter is implemented.  Output: x_K (the Lyapunov function
also involves x̄_K).  One ``round`` of the runner = one iteration = 2 communication rounds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from fedrates.solvers.algorithms import _separation as sep
from fedrates.solvers.algorithms.base import Algorithm, RoundContext, hyper, register

__all__ = ["SCAccExtragradient", "THETA_MAX_SCALE"]

#: tuning (9): θ ≤ 1/(3(δ_f + δ_g))
THETA_MAX_SCALE = 1.0 / 3.0


@register
@dataclass(frozen=True, kw_only=True)
class SCAccExtragradient(Algorithm):
    """SC-AccExtragradient (see module docstring)."""

    name = "sc_acc_extragradient"
    summary = "SC-AccExtragradient: randomized choice of M_f or M_g per oracle call (Bylinkin et al., Alg. 1)"

    theta_scale: float = hyper(THETA_MAX_SCALE, "theta = theta_scale/(delta_f + delta_g), 0 < scale <= 1/3",
                               low=0.0, strict=True)
    p: float = hyper(0.0, "probability of M_f in (0, 1); 0 = delta_f/(delta_f + delta_g)", low=0.0)
    subproblem: str = hyper("exact", "server subproblem: exact or boundary (stopped exactly at criterion (4))",
                            choices=sep.SUBPROBLEM_MODES)
    accuracy_factor: float = hyper(1.0, "multiplies the accuracy constant 1/(11 theta^2) (1 = the paper's)",
                                   low=0.0, strict=True)
    #: oracles: randomized (Algorithm 1) or full (both groups every call: the AEG baseline)
    full_oracles = False

    def __post_init__(self) -> None:
        super().__post_init__()
        sep.check_fraction("p", self.p)

    def check(self, problem: Any) -> list[str]:
        return sep.precondition_warnings(problem, ("ass2", "h1"))

    def supports(self, problem: Any) -> str | None:
        reason = sep.supports_separation(self.name, problem)
        if reason is None and self.theta_scale > THETA_MAX_SCALE * (1 + 1e-12):
            reason = (f"hyperparameter theta_scale={self.theta_scale!r} of {self.name} exceeds tuning (9); expected "
                      f"theta_scale <= 1/3 (theta <= 1/(3(delta_f + delta_g)))")
        return reason

    # ---- tuning ----
    def tuning(self, sp: Any) -> dict[str, float]:
        theta = self.theta_scale / (sp.delta_f + sp.delta_g)
        mu = sp.mu
        return {"theta": theta, "tau": math.sqrt(mu * theta), "eta": min(1 / (2 * mu), 0.5 * math.sqrt(theta / mu)),
                "alpha": mu, "p": self.p or sp.delta_f / (sp.delta_f + sp.delta_g)}

    # ---- protocol ----
    def init(self, problem: Any, w0: np.ndarray) -> dict[str, Any]:
        x = np.array(w0, dtype=float)
        return {"x": x, "xbar": x.copy(), **sep.counters(x.shape[0])}

    def round(self, state: dict, problem: Any, ctx: RoundContext) -> dict:
        coins = sep.coins_from_context(state, ctx)
        new = self.step(state, sep.split(problem), coins)
        new["_coins"] = coins
        return new

    def output(self, state: dict) -> np.ndarray:
        return state["x"]

    # ---- one iteration ----
    def oracle_xi(self, sp: Any, xl: np.ndarray, p: float, coins: sep.Coins) -> tuple[np.ndarray, np.ndarray]:
        """ξ_k and the coin (True = M_f)."""
        c = coins.bernoulli(p)
        a = (sp.grad_f(xl) - sp.grad_f1(xl)) / p
        b = (sp.grad_g(xl) - sp.grad_g1(xl)) / (1 - p)
        return np.where(c[:, None], a, b), c

    def oracle_zeta(self, sp: Any, xb: np.ndarray, p: float, coins: sep.Coins,
                    first: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """ζ_k and its coin, drawn independently of the coin ``first`` of ξ_k."""
        c = coins.bernoulli(p)
        return np.where(c[:, None], sp.grad_f(xb) / p, sp.grad_g(xb) / (1 - p)), c

    def step(self, state: dict, sp: Any, coins: sep.Coins) -> dict:
        t = self.tuning(sp)
        theta, tau, eta, alpha, p = t["theta"], t["tau"], t["eta"], t["alpha"], t["p"]
        x, xbar = state["x"], state["xbar"]
        rf, rg = state["rounds_f"].copy(), state["rounds_g"].copy()
        xl = tau * x + (1 - tau) * xbar
        if self.full_oracles:
            xi = sp.grad_f(xl) + sp.grad_g(xl) - sp.grad_f1(xl) - sp.grad_g1(xl)
            rf += 1
            rg += 1
        else:
            xi, c = self.oracle_xi(sp, xl, p, coins)
            rf += c
            rg += ~c
        M = np.eye(sp.H.shape[0]) / theta + sp.H1
        r = xl / theta - xi + sp.b1
        xb_new, _ = sep.solve_subproblem(M, r, xl, self.subproblem, 1 / (11 * theta**2), self.accuracy_factor)
        if self.full_oracles:
            zeta = sp.grad_f(xb_new) + sp.grad_g(xb_new)
            rf += 1
            rg += 1
        else:
            zeta, c2 = self.oracle_zeta(sp, xb_new, p, coins, c)
            rf += c2
            rg += ~c2
        x_new = x + eta * alpha * (xb_new - x) - eta * zeta
        out = dict(state)
        out.update(x=x_new, xbar=xb_new, rounds_f=rf, rounds_g=rg)
        return out
