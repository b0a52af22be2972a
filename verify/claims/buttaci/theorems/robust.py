"""Theorems 2 and 4 of Buttaci & Calafiore ("Aiding Global Convergence in Federated Learning via Local Perturbation
and Mutual Similarity Information") on a non-quadratic nonconvex federation: Cauchy-loss regression
(:mod:`fedrates.verify.claims.buttaci.cauchy`).

The nonconvex theorems assume only Assumptions 1–4 and 6 (full participation, bounded variance and second moment of
the stochastic gradients, L-smooth f_i, f bounded below).  The quadratic instances of :mod:`.core` satisfy them with a
strongly convex average; here every f_i and f itself are nonconvex, the Hessians vary with the point, the gradients
are bounded on all of ℝ^d (Assumption 3 holds globally), and L is certified (witness at a client's optimum, upper
side sup|ρ''| · max_i ‖X_iᵀX_i/n‖₂).  The claims are those of :class:`.core.NonconvexValidity` on this instance:
E‖∇f(ŵ_T)‖² = (1/(TE))Σ_{t,k}‖∇f(w̄_{t,k})‖² ≤ Theorem 4 (PFL) / Theorem 2 (FedProx) with Δ = f(w̄_{0,0}) − 0 and
G² a posteriori along the run, and Lemma B.4 / A.4 at every round; each point also records the smallest eigenvalue
of ∇²f at the visited virtual averages (negative: the runs cross the nonconvex region), and checks Assumption 2 as
the runs use it (exact gradients: g_i = ∇f_i, by central differences of the loss values at sampled query points), so
an oracle of another loss is caught.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from fedrates.solvers.certify import check_certified
from fedrates.verify.checks import CheckResult
from fedrates.verify.claims.base import Claim
from fedrates.verify.claims.buttaci import cauchy
from fedrates.verify.claims.buttaci.theorems.core import NonconvexValidity

__all__ = ["CLAIMS"]

#: Assumption 2 with exact gradients, g_i(w) = ∇f_i(w), checked by central differences of f_i at the query points
#: (truncation and rounding errors ~1e-10 relative at h = 1e-5)
ORACLE_RTOL = 1e-6


@dataclass(frozen=True)
class CauchyValidity(NonconvexValidity):
    """Theorem 4 / 2 and Lemma B.4 / A.4 on the Cauchy-loss federation (module docstring)."""

    def _load(self) -> tuple[Any, dict]:
        return cauchy.cauchy_instance()

    def _base(self) -> dict:
        return {"instance": "cauchy", **cauchy.CAUCHY_INSTANCE}

    def _extra_items(self, problem: Any, consts: dict, visited: list, seed: int) -> list[tuple]:
        if not visited or not np.all(np.isfinite(visited[0])):
            return []
        return [("min_curvature_f", seed, 0, cauchy.min_curvature(problem, visited[0][:, 0]), np.nan),
                ("oracle_fd_error", seed, 0, cauchy.oracle_error(problem, visited[1]), ORACLE_RTOL)]

    def _certificate_disagreements(self, problem: Any, consts: dict) -> list[str]:
        return check_certified(cauchy.certificates(problem, consts))

    def _constants(self, consts: dict) -> dict[str, float]:
        return {"L": consts["L"], "S": consts["S"], "curvature_low": consts["curvature_low"],
                "G2_global": consts["G2_global"]}

    def judge(self, records: Any, profile: str) -> dict:
        fd = records[records["metric"] == "oracle_fd_error"]["value"]
        worst = float(fd.max()) if len(fd) else float("inf")
        if not worst <= ORACLE_RTOL:
            res = CheckResult("fail", f"max relative error of the gradients used {worst:.3g}",
                              "central differences of f_i at the query points", f"relative {ORACLE_RTOL:g}",
                              f"Assumption 2: the gradients the run used are not ∇f_i (relative error {worst:.3g})")
            return self.verdict(res, conditions=[], seeds=sorted(int(s) for s in records["seed"].unique()),
                                constants=self._constants(self._load()[1]))
        out = super().judge(records, profile)
        curv = records[records["metric"] == "min_curvature_f"]["value"]
        if len(curv):
            out["measured"] = (f"{out['measured']}; min λ_min(∇²f) at the visited w̄_(t,0) = {float(curv.min()):.3g} "
                               f"(f nonconvex there); gradients used = ∇f_i by central differences to {worst:.2g}")
        return out


_REGIME = cauchy.CAUCHY_REGIME + " (E, T) ∈ {(1, 100), (4, 100), (4, 400), (8, 200)}; Δ = f(w0) − 0."

CLAIMS: tuple[Claim, ...] = (
    CauchyValidity(
        id="buttaci.thm4/cauchy", theorem="buttaci.thm4", algorithm="pfl", problem="similar_quadratic",
        title="Theorem 4 and Lemma B.4 on a non-quadratic nonconvex federation (Cauchy-loss regression, PFL)",
        regime=_REGIME + " β = 0.5.", metric="grad_norm_sq_round", x="round",
        why="Theorem 4 assumes smoothness and a lower bound only; on a loss whose Hessian varies with the point and "
            "whose average is nonconvex the per-round lemma still has to hold at every round"),
    CauchyValidity(
        id="buttaci.thm2/cauchy", theorem="buttaci.thm2", algorithm="fedprox", problem="similar_quadratic",
        title="Theorem 2 and Lemma A.4 on a non-quadratic nonconvex federation (Cauchy-loss regression, FedProx)",
        regime=_REGIME + " α = 0.5L.", metric="grad_norm_sq_round", x="round",
        why="Theorem 2 assumes smoothness and a lower bound only; on a loss whose Hessian varies with the point and "
            "whose average is nonconvex the per-round lemma still has to hold at every round"),
)
