"""Bylinkin et al.: the claims whose purpose is an erratum of the paper — Theorem 5's printed Lyapunov function
(worst state, along the trajectory, and the deterministic counterexample), Line 7 of AccVRCS as printed, and Remark
1's trade-off against Theorem 6.  The classes are those of the claims' other modules (the printed and corrected forms
of a statement share their code); only Remark 1's trade-off is computed here.

* ``bylinkin.thm5/one-step``, ``bylinkin.thm5/inexact-trajectory`` — Theorem 5's recursion with the printed
  Φ = (τ/η)‖x − x*‖² + gap, worst state and along the trajectory (corrected forms in :mod:`.exact.probes` and
  :mod:`.theorems.extragradient`);
* ``bylinkin.thm5/counterexample`` — the deterministic counterexample to the printed recursion (see
  :mod:`.exact.maps`);
* ``bylinkin.thm6/remark1-tradeoff`` (over-claim) — Remark 1's O~(√(δ_fδ_g)/μ) for both groups against Theorem
  6's own (p, q) trade-off;
* ``bylinkin.thm7/printed-line7`` (typo) — AccVRCS with Line 7 as printed (+t_k) against the proof's recursion on
  the branch T = 1 (deterministic form; see :mod:`.exact.maps`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fedrates._lazy import lazy_import
from fedrates.verify.claims.base import Claim
from fedrates.verify.claims.bylinkin._checks import _BylinkinClaim, _records, _values, slope_check
from fedrates.verify.claims.bylinkin.exact.maps import AccBranchClaim, CounterexampleClaim
from fedrates.verify.claims.bylinkin.exact.probes import AEGProbeClaim
from fedrates.verify.claims.bylinkin.instances import _A4_BASE, _COMMON, _SEP, _VR
from fedrates.verify.claims.bylinkin.theorems.extragradient import AEGTrajectoryClaim
from fedrates.verify.errata import Erratum

pd = lazy_import("pandas")  # imported on first use: listing and refusing stay fast

__all__ = ["CLAIMS", "vrcs_tradeoff", "RemarkOneClaim"]


# ---- Remark 1 (App. D): the (p, q) trade-off of VRCS --------------------------------------------------------------
def vrcs_tradeoff(delta_f: float, delta_g: float, mu: float, n: int = 199) -> dict[str, float]:
    """min over a (p, q) grid in (0, 1)² of max(R_f, R_g)/ln(V_0/ε) from Theorem 6's analysis:
    θ(p, q) = min{1/(2(δ_f + δ_g)), ¼√(p(1 − p)q/(pδ_g² + (1 − p)δ_f²))} (Lemma 4 and (23)), K = 6q/(μθ) epochs,
    R_f = K(1 + p/q), R_g = K(1 + (1 − p)/q)."""
    grid = (np.arange(1, n + 1) / (n + 1))
    P, Q = np.meshgrid(grid, grid, indexing="ij")
    theta = np.minimum(1 / (2 * (delta_f + delta_g)),
                       0.25 * np.sqrt(P * (1 - P) * Q / (P * delta_g**2 + (1 - P) * delta_f**2)))
    K = 6 * Q / (mu * theta)
    worst = np.maximum(K * (1 + P / Q), K * (1 + (1 - P) / Q))
    i = np.unravel_index(int(np.argmin(worst)), worst.shape)
    return {"minmax": float(worst[i]), "p": float(P[i]), "q": float(Q[i])}


@dataclass(frozen=True)
class RemarkOneClaim(_BylinkinClaim):
    """Remark 1: some (p, q) give O~(√(δ_fδ_g)/μ) rounds with both groups, i.e. min_{p,q} max(R_f, R_g) divided by
    √(δ_fδ_g)/μ stays bounded along a δ_g grid (exponent 0 in δ_g)."""

    grid: tuple[float, ...] = (0.05, 0.2, 0.8, 3.2)

    def points(self, profile: str) -> list[dict]:
        return [{"problem": "separation", **self.params, "delta_g": float(v)} for v in self.grid]

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        df, dg, mu = float(point["delta_f"]), float(point["delta_g"]), float(point["mu"])
        out = vrcs_tradeoff(df, dg, mu)
        values = {"ratio": out["minmax"] / (math.sqrt(df * dg) / mu), "minmax": out["minmax"],
                  "floor_12_dg_over_mu": 12 * dg / mu, "p": out["p"], "q": out["q"]}
        index = [float(v) for v in self.grid].index(dg)
        return _records(self, index, point, values, list(seeds), int(point.get("dim", 0)))

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        problem, sp = self._setup()
        conds, vals, seeds, early = self._judge_common(records, sp)
        if early:
            return early
        ratio = _values(records, "ratio")[0]
        res = slope_check(np.asarray(self.grid), ratio, 0.0, variable="delta_g")
        return self.verdict(res, conditions=conds, seeds=seeds, constants=vals,
                            statement="Remark 1: O~(sqrt(delta_f delta_g)/mu) rounds with both groups for some (p, q)",
                            reference_gap=0.0, smallest_measured=float(np.min(ratio)),
                            extra={"minmax": _values(records, "minmax")[0].tolist()})


CLAIMS: tuple[Claim, ...] = (
    AEGProbeClaim(
        id="bylinkin.thm5/one-step", theorem="bylinkin.thm5", title="Theorem 5 recursion, printed Lyapunov "
        "function, worst state", algorithm="aeg", regime="sigma = 0, worst case over (x_k, xbar_k)",
        why="The printed recursion E Phi_{k+1} <= (1 - sqrt(mu theta)/2) Phi_k holds for every state if the proof "
        "is right", metric="worst_ratio_printed", x="iteration", params=dict(_SEP), mode="printed",
        erratum=(Erratum(
            kind='proof-gap',
            where='Theorem 5, Appendix B (one-step recursion after (11))',
            quote='Phi_{k+1} <= (1 - sqrt(mu theta)/2) Phi_k with Phi = (tau/eta)||x - x*||^2 + h(xbar) - h*',
            true_statement=(
                'the one-step recursion is false; the re-weighted Phi^c = mu||x - x*||^2 + h(xbar) - h* contracts, '
                "and Theorem 5's complexity holds with a factor 2 inside the log"
            ),
            prediction='the worst one-step ratio of the printed Phi exceeds 1 - sqrt(mu theta)/2',
            evidence="The printed Lyapunov function Phi = (tau/eta)||x - x*||^2 + h(xbar) - h* does not contract by "
                 "1 - sqrt(mu theta)/2 from every state: the strong-convexity step after (11) drops a factor 2 on "
                 "h(x) - h(xbar). Measured worst one-step ratio ~1.047 rho on the bylinkin-separation-like instance "
                 "(exact generalized eigenvalue); the corrected Phi^c = mu||x - x*||^2 + gap holds")),
        **_COMMON),
    AEGTrajectoryClaim(
        id="bylinkin.thm5/inexact-trajectory", theorem="bylinkin.thm5", title="Theorem 5 recursion along the "
        "trajectory, subproblems stopped at criterion (4) (printed Lyapunov function)", algorithm="aeg",
        regime="as bylinkin.thm5.corrected/inexact-trajectory", why="The printed recursion on the method's own "
        "iterates", metric="ratio_max", x="iteration", params=dict(_SEP), mode="printed",
        erratum=(Erratum(
            kind='proof-gap',
            where='Theorem 5, Appendix B (one-step recursion after (11))',
            quote='Phi_{k+1} <= (1 - sqrt(mu theta)/2) Phi_k with Phi = (tau/eta)||x - x*||^2 + h(xbar) - h*',
            true_statement=(
                'the one-step recursion is false; the re-weighted Phi^c contracts along the same iterates, and '
                "Theorem 5's complexity holds with a factor 2 inside the log"
            ),
            prediction=("max_k Phi_{k+1}/Phi_k of the printed Phi exceeds 1 - sqrt(mu theta)/2 on the method's "
                        "own iterates"),
            evidence="With the printed Phi = (tau/eta)||x - x*||^2 + gap the recursion fails on the method's own "
                 "iterates (measured max Phi_(k+1)/Phi_k = 1.037 rho with subproblems at criterion (4), instance "
                 "mu = 1e-3, delta_f = 0.02, delta_g = 0.5); the corrected Phi^c holds (0.986 rho)")),
        **_COMMON),
    RemarkOneClaim(
        id="bylinkin.thm6/remark1-tradeoff", theorem="bylinkin.thm6", title="VRCS Remark 1: O~(sqrt(delta_f "
        "delta_g)/mu) rounds for both groups", algorithm="vrcs", regime="delta_f = 0.02, mu = 1e-3, delta_g in "
        "[0.05, 3.2]; (p, q) on a 199 x 199 grid of (0, 1)^2", why="Remark 1 claims the (p, q) trade-off reaches "
        "sqrt(delta_f delta_g)/mu for both groups", metric="ratio", x="delta_g", params=dict(_A4_BASE),
        erratum=(Erratum(
            kind='over-claim',
            where='Remark 1 (Appendix D)',
            quote='some (p, q) give O~(sqrt(delta_f delta_g)/mu) rounds for both groups',
            true_statement="Theorem 6's bound gives max(R_f, R_g) >= 12 (delta_g/mu) ln(V_0/eps) for every (p, q)",
            prediction='the best ratio over the (p, q) grid grows with delta_g instead of staying bounded',
            evidence="Remark 1 contradicts Theorem 6's analysis: for every (p, q), max(R_f, R_g) >= 12 (delta_g/mu) "
                 "ln(V_0/eps) (theta <= 1/(4 delta_g) and K(1 + max(p, 1-p)/q) >= 3/(mu theta)), so the best "
                 "max(R_f, R_g)/(sqrt(delta_f delta_g)/mu) grows like sqrt(delta_g/delta_f) instead of staying "
                 "bounded")), **_COMMON),
    CounterexampleClaim(
        id="bylinkin.thm5/counterexample", theorem="bylinkin.thm5", title="Theorem 5's printed one-step recursion "
        "on a deterministic instance (proportional split, sigma = 0)", algorithm="sc_acc_extragradient",
        regime="h = diag(0.3375, 0.01)/2, f = 0.4h, g = 0.6h, f_1 = f + 0.2||x||^2, g_1 = g + 0.3||x||^2 (mu = 0.01, "
        "delta_f = 0.4, delta_g = 0.6), theta = 1/3, exact subproblem, x_0 = xbar_0 = e_1, 12 iterations",
        why="App. B's recursion E Phi_{k+1} <= (1 - sqrt(mu theta)/2) Phi_k + 4 theta sigma^2 must hold at every "
        "step of every instance of the class; here sigma = 0 exactly and the method is deterministic",
        metric="ratio_max", x="iteration", params={}, mode="printed",
        erratum=Erratum(
            kind="proof-gap",
            where="Appendix B, the recursion after (11) (Theorem 5's proof)",
            quote="E[Phi_{k+1}] <= (1 - sqrt(mu theta)/2) Phi_k + 4 theta sigma^2, Phi_k = (tau/eta)||x_k - x*||^2 + "
                  "[h(xbar_k) - h(x*)]",
            true_statement="the one-step recursion of the proof is false (the strong-convexity step after (11) "
                           "drops a factor 2 on h(x) - h(xbar)); Theorem 5 itself is not refuted: the re-weighted "
                           "Phic_k = mu||x_k - x*||^2 + h(xbar_k) - h* contracts by the same factor (re-derived "
                           "step, catalogue note; certified for sigma = 0 by the PEP case "
                           "bylinkin.thm5.corrected/aeg-exact), and since Phi <= 2 Phic <= 2 Phi the complexity "
                           "O(sqrt(delta/mu) log(1/eps) + sigma^2/(mu eps)) keeps its form with a factor 2 inside "
                           "the log",
            evidence="SC-AccExtragradient on a proportional split (f = 0.4h, g = 0.6h, h = diag(0.3375, 0.01)/2, "
                     "f_1 = f + 0.2||x||^2, g_1 = g + 0.3||x||^2: mu = 0.01, delta_f = 0.4, delta_g = 0.6, h_1 "
                     "convex, sigma = 0 exactly), theta = 1/3, exact subproblem, x_0 = xbar_0 = e_1: "
                     "Phi_5/Phi_4 = 1.00993 rho (deterministic; the corrected Phic stays <= 0.9223 rho)",
            prediction="some step k of the deterministic run has Phi_{k+1} > (1 - sqrt(mu theta)/2) Phi_k"),
        **_COMMON),
    AccBranchClaim(
        id="bylinkin.thm7/printed-line7", theorem="bylinkin.thm7", title="AccVRCS as printed (Line 7 sign of t_k) "
        "against the proof's recursion on the branch T = 1", algorithm="acc_vrcs", regime="as "
        "bylinkin.thm7/branch-map", why="Line 7 prints G = q(t_k + (x - y)/theta); the proof analyses "
        "G = q(grad psi(x) - grad psi(y)), which on the branch T = 1 is q grad h(y)", metric="deviation",
        x="iteration", params=dict(_VR), printed_line7=True,
        erratum=Erratum(
            kind="typo",
            where="Algorithm AccVRCS (Algorithm 3 of the intended numbering), Line 7",
            quote="G_{k+1} = q(t_k + (x_{k+1} - y_{k+1})/theta)",
            true_statement="the proof (App. E, from (29) on) analyses G_{k+1} = q(grad psi(x_{k+1}) - "
                           "grad psi(y_{k+1})) = q((x_{k+1} - y_{k+1})/theta - t_k); Theorems 3 and 7 are proved "
                           "for that sign (implemented by fedrates); whether the printed sign converges at the same "
                           "rate is not claimed either way",
            evidence="on the branch where every epoch has length T = 1 the iteration is deterministic: AccVRCS with "
                     "the printed sign follows the +t_k recursion to 1e-15 and leaves the proof's recursion by "
                     "1.0% of ||y_0 - y*|| after 4 iterations (delta_f = 0.1, delta_g = 0.3)",
            prediction="the printed method's y_K differs from the proof's recursion on the branch T = 1"),
        **_COMMON),
)
