"""C-AccExtragradient with the inner AccExtragradient (Bylinkin et al.: Algorithms 4 and 5 of the intended
numbering; Theorems 4 and 8).

Outer phase (A4), iteration k:

    x̲_k     = τ_f x_k + (1 − τ_f) x̄_k
    c_k     = ∇(f − f_1)(x̲_k)                                            (1 round with M_f)
    x̄_{k+1} ≈ argmin A^k(x) = ⟨c_k, x⟩ + ‖x − x̲_k‖²/(2θ_f) + f_1(x) + g(x)  (inner phase, rounds with M_g only)
              accuracy (6): ‖∇A^k(x̄_{k+1})‖² ≤ (δ_f²/3)‖x̲_k − argmin A^k‖²   (the paper prints it without ∇)
    x_{k+1} = x_k + η_f α_f (x̄_{k+1} − x_k) − η_f ∇h(x̄_{k+1})          (∇f: 1 round with M_f; ∇g reused from A5)

Inner phase (A5) on A = q_g + p_g, q_g = ⟨c_k, ·⟩ + ‖· − x̲_k‖²/(2θ_f) + f_1 + g_1 (server), p_g = g − g_1,
warm-started at x_0 = x̄_0 = x̲_k, step t:

    x̲_t     = τ_g x_t + (1 − τ_g) x̄_t
    d_t     = ∇(g − g_1)(x̲_t)                                            (1 round with M_g)
    x̄_{t+1} ≈ argmin B^t(x) = ⟨d_t, x⟩ + ‖x − x̲_t‖²/(2θ_g) + q_g(x),
              accuracy ‖∇B^t(x̄_{t+1})‖² ≤ ‖x̲_t − argmin B^t‖²/(10θ_g²)   (the proof's 1/10; Theorem 8 prints 2/10)
    x_{t+1} = x_t + η_g α_g (x̄_{t+1} − x_t) − η_g ∇A(x̄_{t+1})            (∇g(x̄_{t+1}): 1 round with M_g)
    stop at the first t + 1 ≥ 1 where criterion (6) holds (or ∇A is at its rounding level); output x̄_{t+1}

Tuning.  The text applies Kovalev et al. (2022, Thm 1) "with θ = 1/δ_f"; that theorem needs θ = 1/(2L_p) with
L_p = δ_f, so θ_f = ``theta_scale``/δ_f with default 1/2, τ_f = ½√(μθ_f), α_f = μ, η_f = min{1/(2μ), θ_f/(4τ_f)}
(App. F's argument redone with F = h, Q = f_1 + g, P = f − f_1).  Inner (31): θ_g = 1/(2δ_g), τ_g = ½√(θ_g/θ_f),
α_g = 1/θ_f, η_g = min{θ_f/2, θ_g/(4τ_g)}.  Stopping uses argmin A^k computed by a server-side linear solve (exact
on quadratics).  ``inner="exact"`` replaces the inner phase by the exact minimiser (an idealisation whose
communication is not counted; ∇g(x̄_{k+1}) still costs one round with M_g).
Rounds: 2 with M_f per outer iteration, 2 with M_g per inner iteration.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from fedrates.solvers.algorithms import _separation as sep
from fedrates.solvers.algorithms.base import Algorithm, RoundContext, hyper, register

__all__ = ["CAccExtragradient", "ROUNDOFF"]

#: relative rounding level of a gradient evaluation ∇A(x) = M_A x − r_A (64 ulps)
ROUNDOFF = 64 * np.finfo(float).eps


@register
@dataclass(frozen=True, kw_only=True)
class CAccExtragradient(Algorithm):
    """C-AccExtragradient with the inner AccExtragradient (see module docstring)."""

    name = "c_acc_extragradient"
    summary = "C-AccExtragradient + inner AccExtragradient: separated rounds (Bylinkin et al., Alg. 4-5)"

    theta_scale: float = hyper(0.5, "theta_f = theta_scale/delta_f, 0 < scale <= 1/2 (Kovalev et al., Thm 1)",
                               low=0.0, strict=True)
    inner: str = hyper("accextragradient", "outer subproblem: accextragradient (A5) or exact (idealised)",
                       choices=("accextragradient", "exact"))
    subproblem: str = hyper("exact", "inner subproblem B: exact or boundary (stopped exactly at 1/(10 theta_g^2))",
                            choices=sep.SUBPROBLEM_MODES)
    accuracy_factor: float = hyper(1.0, "multiplies the outer accuracy constant delta_f^2/3 of (6)", low=0.0,
                                   strict=True)
    inner_accuracy_factor: float = hyper(1.0, "multiplies the inner accuracy constant 1/(10 theta_g^2)", low=0.0,
                                         strict=True)

    def check(self, problem: Any) -> list[str]:
        return sep.precondition_warnings(problem, ("ass2", "g", "f1g"))

    def supports(self, problem: Any) -> str | None:
        reason = sep.supports_separation(self.name, problem)
        if reason is None and self.theta_scale > 0.5 * (1 + 1e-12):
            reason = (f"hyperparameter theta_scale={self.theta_scale!r} of {self.name} exceeds Kovalev et al.'s "
                      f"bound; expected theta_scale <= 0.5 (theta_f <= 1/(2 delta_f))")
        return reason

    def tuning(self, sp: Any) -> dict[str, float]:
        mu = sp.mu
        theta_f = self.theta_scale / sp.delta_f
        tau_f = 0.5 * math.sqrt(mu * theta_f)
        theta_g = 1 / (2 * sp.delta_g)
        tau_g = 0.5 * math.sqrt(theta_g / theta_f)
        return {"theta_f": theta_f, "tau_f": tau_f, "alpha_f": mu, "eta_f": min(1 / (2 * mu), theta_f / (4 * tau_f)),
                "theta_g": theta_g, "tau_g": tau_g, "alpha_g": 1 / theta_f,
                "eta_g": min(theta_f / 2, theta_g / (4 * tau_g))}

    def init(self, problem: Any, w0: np.ndarray) -> dict[str, Any]:
        x = np.array(w0, dtype=float)
        R = x.shape[0]
        return {"x": x, "xbar": x.copy(), "inner_total": np.zeros(R, dtype=np.int64),
                "inner_failed": np.zeros(R, dtype=bool), **sep.counters(R)}

    def round(self, state: dict, problem: Any, ctx: RoundContext) -> dict:
        coins = sep.coins_from_context(state, ctx)
        new = self.step(state, sep.split(problem), coins)
        new["_coins"] = coins
        return new

    def output(self, state: dict) -> np.ndarray:
        return state["x"]

    # ---- inner phase ----
    def inner_solve(self, sp: Any, t: dict, xl: np.ndarray, ck: np.ndarray, rounds_g: np.ndarray,
                    log: list | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """A5 on A^k per replica; returns (x̄_T, ∇g(x̄_T), T per replica, failed mask)."""
        R, d = xl.shape
        I = np.eye(d)
        theta_f, theta_g, tau_g, alpha_g, eta_g = t["theta_f"], t["theta_g"], t["tau_g"], t["alpha_g"], t["eta_g"]
        MA = I / theta_f + sp.A_f1 + sp.A_g
        rA = xl / theta_f - ck + sp.b_f1 + sp.b_g
        Astar = np.linalg.solve(MA, rA.T).T
        target = self.accuracy_factor * sp.delta_f**2 / 3 * np.einsum("ri,ri->r", xl - Astar, xl - Astar)
        norm_MA = float(np.linalg.norm(MA, 2))
        MB = I / theta_g + I / theta_f + sp.A_f1 + sp.A_g1
        crit_B = 1 / (10 * theta_g**2)
        MBinv = np.linalg.inv(MB)

        def grad_A(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            gg = sp.grad_g(X)
            return ck + (X - xl) / theta_f + sp.grad_f1(X) + gg, gg

        x, xbar = xl.copy(), xl.copy()
        gg_out = np.zeros_like(xl)
        T = np.zeros(R, dtype=np.int64)
        active = np.ones(R, dtype=bool)
        for _ in range(sep.MAX_INNER):
            xlow = tau_g * x + (1 - tau_g) * xbar
            dt = sp.grad_g(xlow) - sp.grad_g1(xlow)
            rB = xlow / theta_g - dt + xl / theta_f - ck + sp.b_f1 + sp.b_g1
            xb_new, _ = sep.solve_subproblem(MB, rB, xlow, self.subproblem, crit_B,
                                              self.inner_accuracy_factor, MBinv)
            gA, gg = grad_A(xb_new)
            x_new = x + eta_g * alpha_g * (xb_new - x) - eta_g * gA
            if log is not None:
                log.append({"x": x, "xbar": xbar, "x_next": x_new, "xbar_next": xb_new, "grad_A_next": gA,
                            "A_star": Astar, "M_A": MA, "active": active.copy()})
            rounds_g += 2 * active
            T += active
            x = np.where(active[:, None], x_new, x)
            xbar = np.where(active[:, None], xb_new, xbar)
            gg_out = np.where(active[:, None], gg, gg_out)
            # roundoff floor: near x* the relative criterion can ask for a gradient below what floating point
            # resolves; a gradient at the rounding level of its own evaluation counts as meeting it
            floor = (ROUNDOFF * (norm_MA * np.linalg.norm(xb_new, axis=1) + np.linalg.norm(rA, axis=1))) ** 2
            done = np.einsum("ri,ri->r", gA, gA) <= np.maximum(target, floor)
            active = active & ~done
            if not active.any():
                break
        return xbar, gg_out, T, active

    def step(self, state: dict, sp: Any, coins: sep.Coins) -> dict:
        t = self.tuning(sp)
        x, xbar = state["x"], state["xbar"]
        rf, rg = state["rounds_f"].copy(), state["rounds_g"].copy()
        xl = t["tau_f"] * x + (1 - t["tau_f"]) * xbar
        ck = sp.grad_f(xl) - sp.grad_f1(xl)
        rf += 1
        if self.inner == "exact":
            MA = np.eye(xl.shape[1]) / t["theta_f"] + sp.A_f1 + sp.A_g
            xb_new = np.linalg.solve(MA, (xl / t["theta_f"] - ck + sp.b_f1 + sp.b_g).T).T
            gg = sp.grad_g(xb_new)
            rg += 1
            T = np.zeros(x.shape[0], dtype=np.int64)
            failed = np.zeros(x.shape[0], dtype=bool)
        else:
            xb_new, gg, T, failed = self.inner_solve(sp, t, xl, ck, rg, state.get("_inner_log"))
        grad_h = sp.grad_f(xb_new) + gg
        rf += 1
        x_new = x + t["eta_f"] * t["alpha_f"] * (xb_new - x) - t["eta_f"] * grad_h
        x_new = np.where(failed[:, None], np.nan, x_new)
        out = dict(state)
        out.update(x=x_new, xbar=xb_new, rounds_f=rf, rounds_g=rg, inner_total=state["inner_total"] + T,
                   inner_failed=state["inner_failed"] | failed)
        return out
