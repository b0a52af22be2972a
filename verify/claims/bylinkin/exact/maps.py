"""Deterministic claims on Bylinkin et al. (complexity separation): exact maps, worst-state Lyapunov ratios and
the deterministic counterexample to Theorem 5's printed recursion.

Every claim here runs the project's implementation of the paper's pseudo-code and compares it with a prediction
computed from the instance matrices and the paper's formulas (never from the algorithm's code); the comparisons are
exact up to floating point, so their verdicts do not depend on the base seed.  The two erratum claims below use these
classes and are listed in :mod:`fedrates.verify.claims.bylinkin.errata`.

* ``bylinkin.thm5/counterexample`` (erratum, proof-gap) and ``bylinkin.thm5.corrected/counterexample`` —
  SC-AccExtragradient (Algorithm 1 itself) on a *proportional-split* instance: f = p·h, g = (1 − p)·h,
  f_1 = f + (δ_f/2)‖·‖², g_1 = g + (δ_g/2)‖·‖², p = δ_f/(δ_f + δ_g).  Both coin branches then give the same oracles
  (ξ = ∇(h − h_1), ζ = ∇h), so σ = 0 exactly (Assumption 4 holds) and the method is deterministic.  With
  H = diag(0.3375, 0.01) (μ = 0.01 = λ_min(H) exactly), δ_f = 0.4, δ_g = 0.6, θ = 1/(3(δ_f + δ_g)) = 1/3, exact
  subproblems and x_0 = x̄_0 = e_1 (the second coordinate stays 0: the 1-d iteration on h = 0.3375x²/2,
  h_1 = 1.3375x²/2), the printed Φ_k = (τ/η)‖x_k − x*‖² + h(x̄_k) − h* has Φ_5/Φ_4 = 1.00993ρ, ρ = 1 − ½√(μθ):
  the one-step recursion of App. B fails on an instance satisfying every assumption; the corrected
  Φ^c_k = μ‖x_k − x*‖² + h(x̄_k) − h* contracts at every step (worst over all states of this instance 0.9227ρ).
* ``bylinkin.thm5/exact-iterates`` — AEG (the σ = 0 case of Algorithm 1) and ``bylinkin.thm1/exact-iterates`` —
  SC-AccExtragradient on the proportional split: the returned point after K iterations equals x_K of the
  pseudo-code's recursion (the returned variable is pinned: x_K, not x̄_K).
* ``bylinkin.thm8/exact-iterates`` — C-AccExtragradient with the inner AccExtragradient (inner subproblems exact,
  inner phase stopped by criterion (6)) on the ``bylinkin-separation`` preset: after 6 outer steps from x* + 1 the
  returned x_K, the state x̄_K (the inner phase's returned point) and every inner step count equal those of the
  pseudo-code's recursion, in which each inner step is an affine map; the inner phase returns x̄_T, the point where
  (6) was checked (a recursion whose inner phase returns x_T lands 0.047‖x_0 − x*‖ away, the resolution is 1e-9).
* ``bylinkin.thm1/rounds-to-eps`` — Theorem 1's complexity on the proportional split (σ = 0): the mean rounds
  with M_f (M_g) until Φ^c_K ≤ εΦ^c_0 stay below 2p (2(1 − p)) times K_ε = ⌈ln(1/ε)/(½√(μθ))⌉, the count of the
  corrected recursion, within a factor 10 of it (sharp).
* ``bylinkin.thm4/outer-lyapunov`` — C-AccExtragradient's outer iteration (exact outer subproblem) contracts
  Kovalev et al.'s Ψ = (1/η_f)‖x − x*‖² + (2/τ_f)(h(x̄) − h*) by 1 − ½√(μθ_f) from every state (largest
  generalized eigenvalue), the recursion App. F imports.
* ``bylinkin.thm7/branch-map`` and ``bylinkin.thm7/printed-line7`` (erratum, typo) — AccVRCS on the branch where
  every epoch has length T = 1 (probability q per epoch, inside the support {1, 2, ...} of Geom(q)): the epoch is
  then the exact step y' = argmin ⟨∇(h − h_1)(x), u⟩ + ‖u − x‖²/(2θ) + h_1(u) (the control variate cancels) and the
  iteration is deterministic.  With the proof's G = q(∇ψ(x) − ∇ψ(y')) the output y_K equals the closed-form
  recursion; with Line 7 as printed (+t_k) it does not.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fedrates._lazy import lazy_import
from fedrates.verify import checks
from fedrates.verify import margins as mg
from fedrates.verify.checks import CheckResult
from fedrates.verify.claims.base import Claim
from fedrates.verify.claims.bylinkin._checks import (
    _algorithm,
    _BylinkinClaim,
    _records,
    _theorem,
    _values,
    max_ratio_check,
)
from fedrates.verify.claims.bylinkin.exact.probes import probe_map, worst_one_step
from fedrates.verify.claims.bylinkin.instances import (
    _COMMON,
    _NONCONVEX,
    _PROP,
    _SEP,
    _VR,
    COUNTEREXAMPLE,
    _a4_tuning,
    _counterexample_split,
    instance,
    proportional_split,
)

pd = lazy_import("pandas")  # imported on first use: listing and refusing stay fast

__all__ = ["CLAIMS", "ForcedEpochCoins", "EXACT_RELATIVE", "acc_vrcs_branch"]

#: relative agreement of a deterministic iterate with its closed-form recursion (floating point only: a few
#: iterations of well-conditioned linear maps, about 1e-14 measured)
EXACT_RELATIVE = 1e-9


def _a1_tuning(sp: Any, scale: float = 1 / 3) -> dict[str, float]:
    """Tuning (9) with θ = scale/(δ_f + δ_g), from the paper (independent of the algorithm's code)."""
    theta = scale / (sp.delta_f + sp.delta_g)
    eta = min(1 / (2 * sp.mu), 0.5 * math.sqrt(theta / sp.mu))
    return {"theta": theta, "tau": math.sqrt(sp.mu * theta), "eta": eta,
            "alpha": sp.mu, "rho": 1 - 0.5 * math.sqrt(sp.mu * theta), "p": sp.delta_f / (sp.delta_f + sp.delta_g)}


def a1_full_oracle_step(sp: Any, t: dict[str, float], x: np.ndarray, xb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One iteration of Algorithm 1 with ξ = ∇(h − h_1)(x̲), ζ = ∇h(x̄') and the exact subproblem (the pseudo-code
    written out from the instance matrices)."""
    xl = t["tau"] * x + (1 - t["tau"]) * xb
    grad_r = (sp.H - sp.H1) @ xl - (sp.b - sp.b1)
    d = sp.H.shape[0]
    xb_new = np.linalg.solve(np.eye(d) / t["theta"] + sp.H1, xl / t["theta"] - grad_r + sp.b1)
    zeta = sp.H @ xb_new - sp.b
    x_new = x + t["eta"] * t["alpha"] * (xb_new - x) - t["eta"] * zeta
    return x_new, xb_new


def _run_steps(alg: Any, sp: Any, x0: np.ndarray, iterations: int, seed: int = 0,
               coins: Any = None) -> list[dict]:
    """States (k = 0..iterations) of the implementation's own ``step`` on a split (one replica)."""
    from fedrates.solvers.algorithms._separation import coins_for_seeds

    state = alg.init(None, np.atleast_2d(np.asarray(x0, float)).copy())
    coins = coins if coins is not None else coins_for_seeds([seed], 1)
    out = [state]
    for _ in range(iterations):
        with np.errstate(over="ignore", invalid="ignore"):
            state = alg.step(state, sp, coins)
        out.append(state)
    return out


# ---- Theorem 5: the deterministic counterexample ---------------------------------------------------------------
@dataclass(frozen=True)
class CounterexampleClaim(_BylinkinClaim):
    """Φ_{k+1}/(ρΦ_k) along SC-AccExtragradient's own iterates on the proportional-split instance of
    :data:`COUNTEREXAMPLE` (σ = 0, exact subproblem), for the printed Φ (weight τ/η = 2μ) or the corrected Φ^c
    (weight μ)."""

    mode: str = "printed"  # printed | corrected

    def points(self, profile: str) -> list[dict]:
        return [{"problem": "separation", "instance": "proportional-split", **COUNTEREXAMPLE}]

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        sp = _counterexample_split()
        alg = _algorithm(self, "sc_acc_extragradient")
        t = _a1_tuning(sp)
        weight = t["tau"] / t["eta"] if self.mode == "printed" else sp.mu
        x0 = np.array([1.0, 0.0])
        states = _run_steps(alg, sp, x0, COUNTEREXAMPLE["iterations"])
        phi = np.array([weight * float(np.sum((alg.output(s)[0] - sp.xstar) ** 2)) + float(sp.gap(s["xbar"])[0])
                        for s in states])
        ratios = phi[1:] / (t["rho"] * phi[:-1])
        # the pseudo-code's recursion, for the record: the implementation must follow it exactly
        x, xb, dev = x0.copy(), x0.copy(), 0.0
        for s in states[1:]:
            x, xb = a1_full_oracle_step(sp, t, x, xb)
            dev = max(dev, float(np.max(np.abs(alg.output(s)[0] - x))), float(np.max(np.abs(s["xbar"][0] - xb))))
        values = {"ratio_max": float(ratios.max()), "argmax_step": float(np.argmax(ratios) + 1),
                  "ratio_step5": float(ratios[4]), "smallest_phi": float(phi.min()), "recursion_deviation": dev}
        return _records(self, 0, point, values, list(seeds), 2, bound=1.0)

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        sp = _counterexample_split()
        t = _a1_tuning(sp)
        conds, vals, seeds, early = self._judge_common(records, sp, theta=t["theta"], sigma=0.0, Phi_k=1.0,
                                                       Phic_k=1.0)
        if early:
            return early
        worst = float(_values(records, "ratio_max")[0, 0])
        step = int(_values(records, "argmax_step")[0, 0])
        dev = float(_values(records, "recursion_deviation")[0, 0])
        what = "Φ" if self.mode == "printed" else "Φ^c"
        res = max_ratio_check(np.array([worst]), f"{what}_(k+1)/(ρ{what}_k) over {COUNTEREXAMPLE['iterations']} "
                                                 f"iterations, worst at step {step}")
        if dev > EXACT_RELATIVE:
            res = CheckResult("fail", res.measured, res.predicted, res.tolerance,
                              f"{res.message}; the iterates leave the pseudo-code's recursion by {dev:.3g}")
        return self.verdict(res, conditions=conds, seeds=seeds, constants={**vals, "rho": t["rho"]},
                            statement=_theorem(self.theorem).statement, reference_gap=0.0,
                            smallest_measured=float(_values(records, "smallest_phi")[0, 0]), bound_ratio=worst,
                            extra={"ratio_step5": float(_values(records, "ratio_step5")[0, 0])})


# ---- exact iterates: the returned point pinned ------------------------------------------------------------------
@dataclass(frozen=True)
class ExactIteratesClaim(_BylinkinClaim):
    """The returned point of AEG (``instance="sep"``) or SC-AccExtragradient on the proportional split
    (``instance="proportional"``) after K iterations equals x_K of the pseudo-code's recursion (exact subproblems)."""

    instance_kind: str = "sep"
    iterations: int = 6

    def _split(self) -> tuple[Any, np.ndarray]:
        if self.instance_kind == "sep":
            _, sp = instance(self.params)
            return sp, sp.xstar + np.ones(sp.H.shape[0])
        sp = proportional_split(tuple(np.geomspace(self.params["mu"], self.params["L"], self.params["dim"])),
                                self.params["delta_f"], self.params["delta_g"])
        return sp, np.ones(sp.H.shape[0])

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        sp, x0 = self._split()
        alg = _algorithm(self, self.algorithm)
        out = alg.output(_run_steps(alg, sp, x0, self.iterations, seed=int(seeds[0]))[-1])[0]
        t = _a1_tuning(sp)
        x, xb = x0.copy(), x0.copy()
        for _ in range(self.iterations):
            x, xb = a1_full_oracle_step(sp, t, x, xb)
        scale = float(np.linalg.norm(x0 - sp.xstar))
        values = {"deviation": float(np.linalg.norm(out - x)) / scale,
                  "distance_x_xbar": float(np.linalg.norm(x - xb)) / scale}
        return _records(self, 0, point, values, list(seeds), sp.H.shape[0])

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        sp, _ = self._split()
        conds, vals, seeds, early = self._judge_common(records, sp, theta=_a1_tuning(sp)["theta"], sigma=0.0,
                                                       Phi_k=1.0, Phic_k=1.0)
        if early:
            return early
        dev = float(np.max(_values(records, "deviation")))
        sep_xx = float(np.min(_values(records, "distance_x_xbar")))
        ok = dev <= EXACT_RELATIVE
        res = CheckResult("pass" if ok else "fail", f"‖output − x_K‖/‖x_0 − x*‖ = {dev:.3g}", "x_K of the recursion",
                          f"relative {EXACT_RELATIVE:g} (deterministic)",
                          f"returned point after {self.iterations} iterations "
                          + ("equals" if ok else "differs from") + f" the pseudo-code's x_K (x_K and x̄_K differ by "
                          f"{sep_xx:.3g}, so returning x̄_K would be detected)")
        return self.verdict(res, conditions=conds, seeds=seeds, constants=vals,
                            statement=_theorem(self.theorem).statement, reference_gap=0.0,
                            smallest_measured=sep_xx, margin=mg.resolution(EXACT_RELATIVE))


# ---- C-AccExtragradient with the inner AccExtragradient: both returned points pinned ---------------------------
def a4_a5_recursion(sp: Any, t: dict[str, float], x0: np.ndarray, outer: int,
                    inner_output: str = "xbar") -> dict[str, Any]:
    """C-AccExtragradient (A4) with the inner AccExtragradient (A5, inner subproblems B solved exactly) written out
    from the pseudo-code and the instance matrices (independent of the algorithm's code).  With deterministic
    oracles on a quadratic each inner step is the affine map

        x̲_t = τ_g x_t + (1 − τ_g) x̄_t,   x̄_{t+1} = M_B⁻¹(x̲_t/θ_g − ∇(g − g_1)(x̲_t) + x̲/θ_f − c + b_{f1} + b_{g1}),
        x_{t+1} = x_t + η_g α_g (x̄_{t+1} − x_t) − η_g(M_A x̄_{t+1} − r_A),

    M_B = (1/θ_g + 1/θ_f)I + A_{f1} + A_{g1}, M_A = I/θ_f + A_{f1} + A_g, r_A = x̲/θ_f − c + b_{f1} + b_g
    (∇A^k(x) = M_A x − r_A), started at x_0 = x̄_0 = x̲ and stopped at the first t + 1 with
    ‖∇A^k(x̄_{t+1})‖² ≤ (δ_f²/3)‖x̲ − A^k_*‖² (criterion (6)); the inner phase returns x̄_{t+1} (``inner_output =
    "xbar"``, the point at which (6) was checked) or, for the record, x_{t+1} (``"x"``).  The outer step is
    x_{k+1} = x_k + η_f μ(x̄_{k+1} − x_k) − η_f ∇h(x̄_{k+1}).  Returns the final x, x̄, the inner step counts and
    the smallest relative distance |‖∇A‖²/target − 1| over every stopping test (how far the run is from a tie)."""
    d = sp.H.shape[0]
    I = np.eye(d)
    th_f, th_g, tau_g = t["theta_f"], t["theta_g"], t["tau_g"]
    eta_g, alpha_g = t["eta_g"], 1 / th_f
    MA = I / th_f + sp.A_f1 + sp.A_g
    MB = I * (1 / th_g + 1 / th_f) + sp.A_f1 + sp.A_g1
    x, xb = x0.copy(), x0.copy()
    counts: list[int] = []
    tie = math.inf
    gap_out = 0.0
    for _ in range(outer):
        xl = t["tau_f"] * x + (1 - t["tau_f"]) * xb
        c = (sp.A_f - sp.A_f1) @ xl - (sp.b_f - sp.b_f1)
        rA = xl / th_f - c + sp.b_f1 + sp.b_g
        a_star = np.linalg.solve(MA, rA)
        target = sp.delta_f**2 / 3 * float((xl - a_star) @ (xl - a_star))
        u, ub = xl.copy(), xl.copy()
        steps = 0
        while steps < 100_000:
            steps += 1
            ul = tau_g * u + (1 - tau_g) * ub
            dt = (sp.A_g - sp.A_g1) @ ul - (sp.b_g - sp.b_g1)
            ub_new = np.linalg.solve(MB, ul / th_g - dt + xl / th_f - c + sp.b_f1 + sp.b_g1)
            gA = MA @ ub_new - rA
            u = u + eta_g * alpha_g * (ub_new - u) - eta_g * gA
            ub = ub_new
            g2 = float(gA @ gA)
            tie = min(tie, abs(g2 / target - 1))
            if g2 <= target:
                break
        counts.append(steps)
        gap_out = max(gap_out, float(np.linalg.norm(u - ub) / np.linalg.norm(xl - a_star)))
        xb_new = ub if inner_output == "xbar" else u
        x = x + t["eta_f"] * sp.mu * (xb_new - x) - t["eta_f"] * (sp.H @ xb_new - sp.b)
        xb = xb_new
    return {"x": x, "xbar": xb, "inner_steps": counts, "tie": tie, "inner_pair_distance": gap_out}


@dataclass(frozen=True)
class A4A5IteratesClaim(_BylinkinClaim):
    """C-AccExtragradient (inner AccExtragradient, inner subproblems exact) after K outer steps: the returned point
    equals x_K of :func:`a4_a5_recursion`, the state x̄_K (the inner phase's returned point of the last outer step)
    its x̄_K, and the inner step counts its counts; the recursion whose inner phase returns x_T instead is recorded
    with its distance, so the wrong variable is seen to fail by that margin."""

    outer: int = 6
    needs: tuple[str, ...] = ("g", "f1g")

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        problem, sp = self._setup()
        alg = _algorithm(self, "c_acc_extragradient", subproblem="exact")
        x0 = sp.xstar + np.ones(problem.dim)
        states = _run_steps(alg, sp, x0, self.outer, seed=int(seeds[0]))
        t = _a4_tuning(sp)
        ref = a4_a5_recursion(sp, t, x0, self.outer)
        wrong = a4_a5_recursion(sp, t, x0, self.outer, inner_output="x")
        scale = float(np.linalg.norm(x0 - sp.xstar))
        out, xbar = alg.output(states[-1])[0], states[-1]["xbar"][0]
        counts = [int(s["inner_total"][0] - p["inner_total"][0]) for p, s in zip(states[:-1], states[1:], strict=True)]
        values = {"deviation": float(np.linalg.norm(out - ref["x"])) / scale,
                  "deviation_xbar": float(np.linalg.norm(xbar - ref["xbar"])) / scale,
                  "inner_count_mismatch": float(np.sum(np.abs(np.subtract(counts, ref["inner_steps"])))),
                  "inner_steps": float(np.sum(ref["inner_steps"])),
                  "wrong_variable_distance": float(min(np.linalg.norm(ref["x"] - wrong["x"]),
                                                       np.linalg.norm(ref["xbar"] - wrong["xbar"]))) / scale,
                  "distance_to_wrong": float(np.linalg.norm(out - wrong["x"])) / scale,
                  "distance_x_xbar": float(np.linalg.norm(ref["x"] - ref["xbar"])) / scale,
                  "inner_pair_distance": ref["inner_pair_distance"], "stopping_tie": ref["tie"]}
        return _records(self, 0, point, values, list(seeds), problem.dim)

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        t, conds, vals, seeds, early = self._judge_a4(records)
        if early:
            return early

        def v(name: str) -> float:
            return float(np.max(_values(records, name)))

        dev, dev_xbar, mismatch = v("deviation"), v("deviation_xbar"), v("inner_count_mismatch")
        wrong, x_xbar, tie = v("wrong_variable_distance"), v("distance_x_xbar"), v("stopping_tie")
        ok = dev <= EXACT_RELATIVE and dev_xbar <= EXACT_RELATIVE and mismatch == 0
        res = CheckResult(
            "pass" if ok else "fail", f"‖output − x_K‖ = {dev:.3g}, ‖x̄_K − x̄_K(rec.)‖ = {dev_xbar:.3g} (relative to "
            f"‖x_0 − x*‖), inner step counts off by {mismatch:g}", "x_K, x̄_K and the inner counts of the pseudo-code's "
            "recursion (inner phase returns x̄_T)", f"relative {EXACT_RELATIVE:g}, counts exact (deterministic)",
            f"{self.outer} outer steps ({v('inner_steps'):g} inner steps): the returned point and the inner phase's "
            "returned point " + ("equal" if ok else "differ from") + f" the recursion; the recursion whose inner "
            f"phase returns x_T instead differs by {wrong:.3g} (output at {v('distance_to_wrong'):.3g} from it), x_K "
            f"and x̄_K by {x_xbar:.3g}; closest stopping test to a tie: |‖∇A‖²/target − 1| = {tie:.3g}")
        return self.verdict(res, conditions=conds, seeds=seeds, constants={**vals, **t},
                            statement=_theorem(self.theorem).statement, reference_gap=0.0,
                            smallest_measured=min(wrong, x_xbar), margin=mg.resolution(EXACT_RELATIVE),
                            extra={"wrong_variable_distance": wrong, "stopping_tie": tie,
                                   "inner_pair_distance": v("inner_pair_distance")})


# ---- Theorem 1: rounds to ε on the proportional split (σ = 0) ----------------------------------------------------
@dataclass(frozen=True)
class A1RoundsClaim(_BylinkinClaim):
    """Mean rounds with M_f (``group="f"``) or M_g until Φ^c_K ≤ εΦ^c_0, against 2p·K_ε (2(1 − p)·K_ε),
    K_ε = ⌈ln(1/ε)/(½√(μθ))⌉ (the corrected recursion of Theorem 5 with σ = 0, θ at the maximum of (9))."""

    group: str = "f"
    eps: float = 1e-6
    n_seeds: dict = field(default_factory=lambda: {"quick": 200, "standard": 400, "full": 2000})
    batch: int = 25

    def _split(self) -> Any:
        return proportional_split(tuple(np.geomspace(self.params["mu"], self.params["L"], self.params["dim"])),
                                  self.params["delta_f"], self.params["delta_g"])

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        from fedrates.solvers.algorithms._separation import coins_for_seeds

        sp = self._split()
        d = sp.H.shape[0]
        alg = _algorithm(self, "sc_acc_extragradient")
        reps = self.replicas(seeds)
        state = alg.init(None, np.ones((len(reps), d)))
        coins = coins_for_seeds(reps, 1)

        def phic(st: dict) -> np.ndarray:
            e = alg.output(st) - sp.xstar
            return sp.mu * np.einsum("ri,ri->r", e, e) + sp.gap(st["xbar"])

        phi0 = phic(state)
        t = _a1_tuning(sp)
        cap = 4 * int(math.ceil(math.log(1 / self.eps) / (0.5 * math.sqrt(sp.mu * t["theta"]))))
        hit = np.full(len(reps), np.nan)
        rounds = np.full(len(reps), np.nan)
        for k in range(1, cap + 1):
            with np.errstate(over="ignore", invalid="ignore"):
                state = alg.step(state, sp, coins)
                new = np.isnan(hit) & (phic(state) <= self.eps * phi0)
            hit[new] = k
            rounds[new] = state["rounds_f" if self.group == "f" else "rounds_g"][new]
            if not np.any(np.isnan(hit)):
                break
        values = {"rounds": self.batch_means(rounds), "hit_iterations": self.batch_means(hit)}
        return _records(self, 0, point, values, list(seeds), d)

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        sp = self._split()
        t = _a1_tuning(sp)
        conds, vals, seeds, early = self._judge_common(records, sp, theta=t["theta"], sigma=0.0, Phi_k=1.0,
                                                       Phic_k=1.0, eps=self.eps)
        if early:
            return early
        k_eps = math.ceil(math.log(1 / self.eps) / (0.5 * math.sqrt(sp.mu * t["theta"])))
        share = t["p"] if self.group == "f" else 1 - t["p"]
        bound = 2 * share * k_eps
        y = _values(records, "rounds")
        if np.any(~np.isfinite(y)):
            res = CheckResult("fail", "target not reached", f"≤ {bound:.4g}", "one-sided",
                              f"some runs did not reach Φ^c ≤ {self.eps:g}Φ^c_0 within 4 K_ε iterations")
            ratio = float("inf")
        else:
            res = checks.bound_holds(y, np.array([bound]))
            ratio = float(np.mean(y) / bound)
            hits = float(np.mean(_values(records, "hit_iterations")))
            res.message += (f"; mean rounds with M_{self.group} {np.mean(y):.5g} (iterations {hits:.5g}) against "
                            f"2·{share:.4g}·K_ε = {bound:.5g}, K_ε = {k_eps}")
        return self.verdict(res, conditions=conds, seeds=seeds, constants={**vals, "rho": t["rho"], "K_eps": k_eps},
                            statement=_theorem(self.theorem).statement, reference_gap=0.0,
                            smallest_measured=self.eps, bound_ratio=ratio)


# ---- C-AccExtragradient: the outer recursion from every state ------------------------------------------------
@dataclass(frozen=True)
class OuterLyapunovClaim(_BylinkinClaim):
    """Worst one-step Ψ_{k+1}/Ψ_k of C-AccExtragradient's outer iteration (exact outer subproblem, probed with basis
    states), Ψ = (1/η_f)‖x − x*‖² + (2/τ_f)(h(x̄) − h*), against 1 − ½√(μθ_f)."""

    needs: tuple[str, ...] = ("g", "f1g")

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        problem, sp = self._setup()
        alg = dataclasses.replace(_algorithm(self, "c_acc_extragradient"), inner="exact")
        T = probe_map(alg, problem, sp, ("x", "xbar"))
        t = _a4_tuning(sp)
        d = problem.dim
        Z, I = np.zeros((d, d)), np.eye(d)
        P = np.block([[I / t["eta_f"], Z], [Z, (2 / t["tau_f"]) * 0.5 * sp.H]])
        values = {"worst_ratio": worst_one_step(T, P) / t["rho_out"]}
        return _records(self, 0, point, values, list(seeds), d, bound=1.0)

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        t, conds, vals, seeds, early = self._judge_a4(records)
        if early:
            return early
        worst = float(_values(records, "worst_ratio")[0, 0])
        res = max_ratio_check(np.array([worst]), "worst one-step Ψ_(k+1)/(ρ_out Ψ_k) of the outer iteration")
        return self.verdict(res, conditions=conds, seeds=seeds, constants={**vals, "rho_out": t["rho_out"]},
                            statement=_theorem(self.theorem).statement, reference_gap=0.0,
                            smallest_measured=1 - t["rho_out"], bound_ratio=worst)


# ---- AccVRCS on the branch T = 1 ---------------------------------------------------------------------------------
class ForcedEpochCoins:
    """Coins whose epoch lengths are all T = 1 (the Bernoulli draws stay random: at T = 1 the control variate
    cancels, ξ_0 − ζ_0 = 0, so they change only which group the single inner round goes to)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def uniform(self, draw: np.ndarray | None = None) -> np.ndarray:
        return self.inner.uniform(draw)

    def bernoulli(self, p: float, draw: np.ndarray | None = None) -> np.ndarray:
        return self.inner.bernoulli(p, draw)

    def take(self, counts: np.ndarray) -> np.ndarray:
        return self.inner.take(counts)

    def geometric(self, q: float) -> np.ndarray:
        return np.ones(len(self.inner.gens), dtype=np.int64)


def acc_vrcs_branch(sp: Any, iterations: int, y0: np.ndarray, tk_sign: float = -1.0) -> tuple[np.ndarray, np.ndarray]:
    """(y_K, z_K) of AccVRCS (tuning (24)) when every epoch has T = 1, from the paper's formulas: x = τz + (1 − τ)y,
    y' = argmin ⟨∇(h − h_1)(x), u⟩ + ‖u − x‖²/(2θ) + h_1(u), G = q((x − y')/θ + s·(∇(h − h_1)(x) − ∇(h − h_1)(y')))
    (s = −1: the proof's G = q(∇ψ(x) − ∇ψ(y')); s = +1: Line 7 as printed), z' = (z + (μα/2)y' − αG)/(1 + μα/2)."""
    d = sp.H.shape[0]
    p = sp.delta_f**2 / (sp.delta_f**2 + sp.delta_g**2)
    q = p
    theta = 0.25 * math.sqrt(p * (1 - p) * q / (p * sp.delta_g**2 + (1 - p) * sp.delta_f**2))
    tau = math.sqrt(theta * sp.mu / (3 * q))
    alpha = math.sqrt(theta / (3 * sp.mu * q))
    M = np.eye(d) / theta + sp.H1

    def grad_r(u: np.ndarray) -> np.ndarray:
        return (sp.H - sp.H1) @ u - (sp.b - sp.b1)

    y, z = y0.copy(), y0.copy()
    for _ in range(iterations):
        x = tau * z + (1 - tau) * y
        y_new = np.linalg.solve(M, x / theta - grad_r(x) + sp.b1)
        G = q * ((x - y_new) / theta + tk_sign * (grad_r(x) - grad_r(y_new)))
        z = (z + 0.5 * sp.mu * alpha * y_new - alpha * G) / (1 + 0.5 * sp.mu * alpha)
        y = y_new
    return y, z


@dataclass(frozen=True)
class AccBranchClaim(_BylinkinClaim):
    """AccVRCS's returned point after K iterations on the branch T = 1 against :func:`acc_vrcs_branch` with the
    proof's sign; ``printed_line7`` runs the method with Line 7 as printed instead."""

    iterations: int = 4
    printed_line7: bool = False

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        from fedrates.solvers.algorithms._separation import coins_for_seeds
        from fedrates.verify.claims.bylinkin.variants import variant_algorithm

        problem, sp = self._setup()
        if self.printed_line7 and self.algorithm_override is None:
            alg = variant_algorithm("printed-sign")
        else:
            alg = _algorithm(self, "acc_vrcs")
        y0 = sp.xstar + np.ones(problem.dim)
        coins = ForcedEpochCoins(coins_for_seeds([int(seeds[0])], problem.clients))
        out = alg.output(_run_steps(alg, sp, y0, self.iterations, coins=coins)[-1])[0]
        y_proof, z_proof = acc_vrcs_branch(sp, self.iterations, y0, -1.0)
        y_printed, _ = acc_vrcs_branch(sp, self.iterations, y0, +1.0)
        scale = float(np.linalg.norm(y0 - sp.xstar))
        values = {"deviation": float(np.linalg.norm(out - y_proof)) / scale,
                  "deviation_printed": float(np.linalg.norm(out - y_printed)) / scale,
                  "printed_vs_proof": float(np.linalg.norm(y_printed - y_proof)) / scale,
                  "distance_y_z": float(np.linalg.norm(y_proof - z_proof)) / scale}
        return _records(self, 0, point, values, list(seeds), problem.dim)

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        problem, sp = self._setup()
        conds, vals, seeds, early = self._judge_common(records, sp)
        if early:
            return early
        dev = float(np.max(_values(records, "deviation")))
        dev_printed = float(np.max(_values(records, "deviation_printed")))
        gap = float(_values(records, "printed_vs_proof")[0, 0])
        yz = float(_values(records, "distance_y_z")[0, 0])
        ok = dev <= EXACT_RELATIVE
        res = CheckResult("pass" if ok else "fail", f"‖y_K − y_K(proof)‖/‖y_0 − y*‖ = {dev:.3g}",
                          "y_K of the proof's recursion (G = q(∇ψ(x) − ∇ψ(y)))",
                          f"relative {EXACT_RELATIVE:g} (deterministic)",
                          f"{self.iterations} iterations with every epoch of length T = 1: the returned point "
                          + ("equals" if ok else "differs from") + f" the proof's recursion; distance to the printed "
                          f"Line 7's recursion {dev_printed:.3g} (the two recursions differ by {gap:.3g}; y_K and z_K "
                          f"by {yz:.3g})")
        return self.verdict(res, conditions=conds, seeds=seeds, constants=vals,
                            statement=_theorem(self.theorem).statement, reference_gap=0.0, smallest_measured=gap,
                            margin=mg.resolution(EXACT_RELATIVE),
                            extra={"printed_vs_proof": gap, "deviation_printed": dev_printed})


CLAIMS: tuple[Claim, ...] = (
    CounterexampleClaim(
        id="bylinkin.thm5.corrected/counterexample", theorem="bylinkin.thm5.corrected", title="Corrected Lyapunov "
        "function on the same deterministic instance", algorithm="sc_acc_extragradient",
        regime="as bylinkin.thm5/counterexample", why="The re-weighted Phic_k = mu||x_k - x*||^2 + h(xbar_k) - h* "
        "contracts by 1 - sqrt(mu theta)/2 at every step (worst over all states of this instance: 0.9227 rho)",
        metric="ratio_max", x="iteration", params={}, mode="corrected", **_COMMON),
    ExactIteratesClaim(
        id="bylinkin.thm5/exact-iterates", theorem="bylinkin.thm5.corrected", title="AEG: the returned point is x_K "
        "of the pseudo-code's recursion", algorithm="aeg", regime="bylinkin-separation-like instance, exact "
        "subproblems, 6 iterations from x* + 1", why="Algorithm 1 outputs x_K (Line 10); with full oracles the "
        "iteration is deterministic and its closed form follows from the pseudo-code",
        metric="deviation", x="iteration", params=dict(_SEP), instance_kind="sep", **_COMMON),
    ExactIteratesClaim(
        id="bylinkin.thm1/exact-iterates", theorem="bylinkin.thm1", title="SC-AccExtragradient on the proportional "
        "split (sigma = 0): the returned point is x_K", algorithm="sc_acc_extragradient", regime="proportional split "
        "of h with spectrum geomspace(1e-3, 1, 8), delta_f = 0.02, delta_g = 0.5, 6 iterations from 1",
        why="Algorithm 1 outputs x_K; on the proportional split both coin branches give the same oracles",
        metric="deviation", x="iteration", params=dict(_PROP), instance_kind="proportional", **_COMMON),
    A4A5IteratesClaim(
        id="bylinkin.thm8/exact-iterates", theorem="bylinkin.thm8", title="C-AccExtragradient with the inner "
        "AccExtragradient: the inner phase returns xbar_T, the method x_K", algorithm="c_acc_extragradient",
        regime="bylinkin-separation preset, inner subproblems exact, inner phase stopped by criterion (6), 6 outer "
        "steps from x* + 1", why="Theorem 8 bounds ||grad A(xbar_{t+1})||, so the inner phase outputs xbar_{t+1}, "
        "the point criterion (6) is checked at; Algorithm 4 outputs x_K. With deterministic oracles on a quadratic "
        "every inner step is an affine map, so both returned points have a closed form",
        metric="deviation", x="iteration", params=dict(_SEP), **_COMMON),
    A1RoundsClaim(
        id="bylinkin.thm1/rounds-to-eps", theorem="bylinkin.thm1", title="SC-AccExtragradient: rounds with M_f to "
        "reach eps (sigma = 0)", algorithm="sc_acc_extragradient", regime="proportional split (sigma = 0), spectrum "
        "geomspace(1e-3, 1, 8), delta_f = 0.02, delta_g = 0.5, theta = 1/(3(delta_f + delta_g)), Phic_K <= 1e-6 "
        "Phic_0", why="Theorem 1: O(sqrt(delta_f/mu) log 1/eps) rounds with M_f; the proof's count (corrected "
        "Lyapunov function, sigma = 0) is 2p K_eps", metric="rounds", x="iteration", params=dict(_PROP), group="f",
        **_COMMON),
    A1RoundsClaim(
        id="bylinkin.thm1.mg/rounds-to-eps", theorem="bylinkin.thm1", title="SC-AccExtragradient: rounds with M_g to "
        "reach eps (sigma = 0)", algorithm="sc_acc_extragradient", regime="as bylinkin.thm1/rounds-to-eps",
        why="Theorem 1: O(sqrt(delta_g/mu) log 1/eps) rounds with M_g; the proof's count is 2(1 - p) K_eps",
        metric="rounds", x="iteration", params=dict(_PROP), group="g", **_COMMON),
    OuterLyapunovClaim(
        id="bylinkin.thm4/outer-lyapunov", theorem="bylinkin.thm4", title="C-AccExtragradient: outer Lyapunov "
        "function contracts from every state", algorithm="c_acc_extragradient", regime="bylinkin-separation-like "
        "instance, exact outer subproblem, worst state (generalized eigenvalue)",
        why="App. F imports Kovalev et al. (2022, Thm 1): Psi_{k+1} <= (1 - sqrt(mu theta_f)/2) Psi_k with "
        "Psi = (1/eta_f)||x - x*||^2 + (2/tau_f)(h(xbar) - h*); the momentum tau_f and the step eta_f enter Psi",
        metric="worst_ratio", x="iteration", params=dict(_SEP), **_COMMON),
    AccBranchClaim(
        id="bylinkin.thm7/branch-map", theorem="bylinkin.thm7", title="AccVRCS: exact iterates on the branch "
        "T = 1 (returned point y_K)", algorithm="acc_vrcs", regime="delta_f = 0.1, delta_g = 0.3, every epoch of "
        "length 1, 4 iterations from x* + 1", why="On the branch T = 1 (probability q per epoch) the epoch is an "
        "exact step and AccVRCS is a deterministic linear recursion; its output is y_K (Line 10)",
        metric="deviation", x="iteration", params=dict(_VR), **_COMMON),
    AccBranchClaim(
        id="bylinkin.thm7/branch-map-nonconvex", theorem="bylinkin.thm7", title="AccVRCS: exact iterates on the "
        "branch T = 1 with non-convex f and g", algorithm="acc_vrcs", regime="as bylinkin.thm7/branch-map, "
        "f = h/2 + S and g = h/2 - S non-convex, server perturbations with eigenvalue -delta (h_1 convex)",
        why="Section 6 allows non-convex f and g; tuning (24) uses delta = the largest modulus of the perturbation's "
        "eigenvalues", metric="deviation", x="iteration", params={**_VR, **_NONCONVEX}, **_COMMON),
)
