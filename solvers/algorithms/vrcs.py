"""VRCS^1ep and VRCS (Bylinkin et al.: Algorithm 2 (one epoch) and the outer loop of Appendix D;
Lemma 4, Theorems 2 and 6).

One epoch VRCS^1ep(p, q, θ, x_0):

    anchor: ∇(h − h_1)(x_0)                               (1 round with M_f and 1 with M_g)
    T ~ Geom(q) on {1, 2, ...}
    for t = 0..T−1:
        i_t ~ Be(p)  (one coin for ξ_t and ζ_t)
        ξ_t − ζ_t = [∇(f − f_1)(x_t) − ∇(f − f_1)(x_0)]/p        if i_t = 1   (1 round with M_f)
                    [∇(g − g_1)(x_t) − ∇(g − g_1)(x_0)]/(1 − p)  if i_t = 0   (1 round with M_g)
        e_t = ξ_t − ζ_t + ∇(h − h_1)(x_0)
        x_{t+1} ≈ argmin A_θ^t(x) = ⟨e_t, x⟩ + ‖x − x_t‖²/(2θ) + h_1(x),
                  accuracy (5): ‖∇A_θ^t(x_{t+1})‖² ≤ (μ/(17θ))‖x_t − argmin A_θ^t‖²
    output x_T

VRCS: x_{k+1} = VRCS^1ep(p, q, θ, x_k).  Tuning (23): p = q = δ_f²/(δ_f² + δ_g²),
θ = ¼√(p(1 − p)q/(pδ_g² + (1 − p)δ_f²)) (= √2 δ_f/(8(δ_f² + δ_g²)); Lemma 4 needs θ ≤ 1/(2(δ_f + δ_g))).
Expected rounds per epoch: 1 + p/q with M_f and 1 + (1 − p)/q with M_g.  One ``round`` of the runner = one epoch.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from fedrates.solvers.algorithms import _separation as sep
from fedrates.solvers.algorithms.base import Algorithm, RoundContext, hyper, register

__all__ = ["VRCS", "vrcs_tuning", "epoch"]


def vrcs_tuning(sp: Any, p: float = 0.0, q: float = 0.0, theta_scale: float = 1.0) -> dict[str, float]:
    """Tuning (23) (p, q override the paper's values when non-zero)."""
    p23 = sp.delta_f**2 / (sp.delta_f**2 + sp.delta_g**2)
    p, q = p or p23, q or p23
    theta = 0.25 * math.sqrt(p * (1 - p) * q / (p * sp.delta_g**2 + (1 - p) * sp.delta_f**2))
    return {"p": p, "q": q, "theta": theta_scale * theta}


def epoch(x0: np.ndarray, sp: Any, coins: sep.Coins, p: float, q: float, theta: float, mode: str,
          factor: float, rounds_f: np.ndarray, rounds_g: np.ndarray,
          geometric_support_from_zero: bool = False) -> np.ndarray:
    """One VRCS^1ep epoch per replica (x0: (R, d)); adds its rounds to the counters in place; returns x_T."""
    R, d = x0.shape
    anchor_f = sp.grad_f(x0) - sp.grad_f1(x0)
    anchor_g = sp.grad_g(x0) - sp.grad_g1(x0)
    anchor = anchor_f + anchor_g
    rounds_f += 1
    rounds_g += 1
    T = coins.geometric(q)
    if geometric_support_from_zero:  # a plausible bug (variant): Geom on {0, 1, ...}
        T = T - 1
    M = np.eye(d) / theta + sp.H1
    Minv = np.linalg.inv(M)
    crit = sp.mu / (17 * theta)
    x = x0.copy()
    U = coins.take(T)  # replica r's T_r coins of the epoch (NaN after them: a replica whose epoch has ended draws none)
    if mode == "exact":
        return _exact_epoch(x, sp, U, T, p, theta, Minv, anchor_f, anchor_g, anchor, rounds_f, rounds_g)
    for t in range(int(T.max(initial=0))):
        active = T > t
        c = U[:, t] < p
        diff = np.where(c[:, None], (sp.grad_f(x) - sp.grad_f1(x) - anchor_f) / p,
                        (sp.grad_g(x) - sp.grad_g1(x) - anchor_g) / (1 - p))
        e = diff + anchor
        r = x / theta - e + sp.b1
        x_new, _ = sep.solve_subproblem(M, r, x, mode, crit, factor, Minv)
        x = np.where(active[:, None], x_new, x)
        rounds_f += active & c
        rounds_g += active & ~c
    return x


def _exact_epoch(x: np.ndarray, sp: Any, U: np.ndarray, T: np.ndarray, p: float, theta: float, Minv: np.ndarray,
                 anchor_f: np.ndarray, anchor_g: np.ndarray, anchor: np.ndarray, rounds_f: np.ndarray,
                 rounds_g: np.ndarray) -> np.ndarray:
    """The inner loop of :func:`epoch` with exact subproblems, where each step is affine in x_t: with
    ξ_t − ζ_t = (x_t(A_f − A_f1) − (b_f − b_f1) − ∇(f − f_1)(x_0))/p for the coin i_t = 1 (g and 1 − p for i_t = 0),
    x_{t+1} = (x_t/θ − e_t + b_1)M⁻¹ = x_t P_f + q_f with P_f = (I/θ − (A_f − A_f1)/p)M⁻¹ and
    q_f = ((b_f − b_f1 + ∇(f − f_1)(x_0))/p − ∇(h − h_1)(x_0) + b_1)M⁻¹ (per replica).  One product with [P_f P_g]
    per step instead of four gradients and a solve; the round counters from the coins at once."""
    d = x.shape[1]
    eye = np.eye(d) / theta
    P = np.concatenate([(eye - (sp.A_f - sp.A_f1) / p) @ Minv, (eye - (sp.A_g - sp.A_g1) / (1 - p)) @ Minv], axis=1)
    q_f = ((sp.b_f - sp.b_f1 + anchor_f) / p - anchor + sp.b1) @ Minv
    q_g = ((sp.b_g - sp.b_g1 + anchor_g) / (1 - p) - anchor + sp.b1) @ Minv
    C = U < p  # False past a replica's T_r coins (NaN)
    for t in range(U.shape[1]):
        Y = x @ P
        step = np.where(C[:, t, None], Y[:, :d] + q_f, Y[:, d:] + q_g)
        x = np.where((T > t)[:, None], step, x)
    with_f = C.sum(axis=1)
    rounds_f += with_f
    rounds_g += T - with_f
    return x


@register
@dataclass(frozen=True, kw_only=True)
class VRCS(Algorithm):
    """VRCS: epochs of VRCS^1ep (see module docstring)."""

    name = "vrcs"
    summary = "VRCS: variance-reduced complexity separation, epochs of VRCS^1ep (Bylinkin et al., App. D)"

    p: float = hyper(0.0, "probability of M_f in (0, 1); 0 = tuning (23)", low=0.0)
    q: float = hyper(0.0, "parameter of the epoch length T ~ Geom(q), in (0, 1); 0 = tuning (23)", low=0.0)
    theta_scale: float = hyper(1.0, "multiplies theta of tuning (23) (> 1 leaves the tuning)", low=0.0, strict=True)
    subproblem: str = hyper("exact", "server subproblem: exact or boundary (stopped exactly at criterion (5))",
                            choices=sep.SUBPROBLEM_MODES)
    accuracy_factor: float = hyper(1.0, "multiplies the accuracy constant mu/(17 theta) (1 = the paper's)",
                                   low=0.0, strict=True)

    def __post_init__(self) -> None:
        super().__post_init__()
        sep.check_fraction("p", self.p)
        sep.check_fraction("q", self.q)

    def check(self, problem: Any) -> list[str]:
        return sep.precondition_warnings(problem, ("ass2", "h1"))

    def supports(self, problem: Any) -> str | None:
        reason = sep.supports_separation(self.name, problem)
        if reason is None:
            sp = sep.split(problem)
            theta = self.tuning(sp)["theta"]
            cap = 1 / (2 * (sp.delta_f + sp.delta_g))
            if theta > cap * (1 + 1e-12):
                reason = (f"theta={theta:.6g} of {self.name} exceeds Lemma 4's bound; expected theta <= "
                          f"1/(2(delta_f + delta_g)) = {cap:.6g} (lower theta_scale)")
        return reason

    def tuning(self, sp: Any) -> dict[str, float]:
        return vrcs_tuning(sp, self.p, self.q, self.theta_scale)

    def init(self, problem: Any, w0: np.ndarray) -> dict[str, Any]:
        x = np.array(w0, dtype=float)
        return {"x": x, **sep.counters(x.shape[0])}

    def round(self, state: dict, problem: Any, ctx: RoundContext) -> dict:
        coins = sep.coins_from_context(state, ctx)
        new = self.step(state, sep.split(problem), coins)
        new["_coins"] = coins
        return new

    def output(self, state: dict) -> np.ndarray:
        return state["x"]

    #: Geom(q) support {1, 2, ...} (Lemma 2); True models the bug of a support starting at 0
    geometric_from_zero = False

    def step(self, state: dict, sp: Any, coins: sep.Coins) -> dict:
        t = self.tuning(sp)
        rf, rg = state["rounds_f"].copy(), state["rounds_g"].copy()
        x = epoch(state["x"], sp, coins, t["p"], t["q"], t["theta"], self.subproblem, self.accuracy_factor, rf, rg,
                  self.geometric_from_zero)
        out = dict(state)
        out.update(x=x, rounds_f=rf, rounds_g=rg)
        return out
