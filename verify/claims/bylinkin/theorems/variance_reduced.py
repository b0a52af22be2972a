"""Bylinkin et al.: Theorems 2 and 3 — VRCS and AccVRCS rounds to a relative gap ε as scaling laws over δ grids
(exponents fitted with a bootstrap CI over seeds)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fedrates._lazy import lazy_import
from fedrates.solvers.certify import observed_cache
from fedrates.verify import checks
from fedrates.verify import margins as mg
from fedrates.verify.checks import CheckResult
from fedrates.verify.claims.base import Claim
from fedrates.verify.claims.bylinkin._checks import (
    _algorithm,
    _BylinkinClaim,
    _check_eps,
    _records,
    _seeds,
    _theorem,
    _values,
)
from fedrates.verify.claims.bylinkin.instances import (
    _COMMON,
    _SEPARATION_SEEDS,
    _VR_DF,
    _VR_DFF,
    _VR_DFF_GRID,
    _VR_DG,
    _VR_DG_GRID,
    _VR_MU_GRID,
    _instance_json,
)

pd = lazy_import("pandas")  # imported on first use: listing and refusing stay fast

__all__ = ["CLAIMS", "VRScalingClaim", "vr_rounds_to_eps", "vr_tuning"]


# ---- VRCS and AccVRCS: round counts to reach ε as scaling laws over δ grids ----------------------------------
#: exponent tolerance of the variance-reduced methods' round counts (Monte-Carlo hitting times, whole bootstrap CI over
#: seeds inside the band): the log factor ln(V_0/(ε gap_0)) drifts with the instance by a few hundredths over the
#: grids and the hitting time is a noisy proxy of the expected Lyapunov decay; 0.15 still separates the exponents the
#: variants produce (1 vs ½ for the acceleration, ≥ 0.4 for δ_g-dependence instead of 0)
VR_SLOPE_TOLERANCE = 0.15
#: relative gap ½(x − x*)ᵀH(x − x*) ≤ ε·gap_0 that defines "reached ε" for the variance-reduced methods
_VR_EPS = 1e-3


def vr_tuning(sp: Any, name: str) -> dict[str, float]:
    """Tunings (23)/(24) recomputed from the instance (independently of the algorithms' code)."""
    p = sp.delta_f**2 / (sp.delta_f**2 + sp.delta_g**2)
    theta = 0.25 * math.sqrt(p * (1 - p) * p / (p * sp.delta_g**2 + (1 - p) * sp.delta_f**2))
    out = {"p": p, "q": p, "theta": theta}
    if name == "acc_vrcs":
        out["tau"] = math.sqrt(theta * sp.mu / (3 * p))
    return out


def vr_iteration_bound(sp: Any, name: str) -> float:
    """The proofs' iteration counts per ln(1/ε): VRCS 6q/(μθ) epochs (Theorem 6), AccVRCS 4/τ (Theorem 7)."""
    t = vr_tuning(sp, name)
    return 6 * t["q"] / (sp.mu * t["theta"]) if name == "vrcs" else 4 / t["tau"]


def vr_predicted_rounds(sp: Any, name: str, group: str) -> float:
    """The proofs' explicit expected rounds per ln(1/ε): VRCS K = 6q/(μθ) epochs with 1 + p/q (M_f),
    1 + (1 − p)/q (M_g) rounds each; AccVRCS K = 4/τ iterations with 2 + p/q, 2 + (1 − p)/q (the round for t_k
    counted)."""
    t = vr_tuning(sp, name)
    p, q = t["p"], t["q"]
    share = p / q if group == "f" else (1 - p) / q
    if name == "vrcs":
        return 6 * q / (sp.mu * t["theta"]) * (1 + share)
    return 4 / t["tau"] * (2 + share)


@observed_cache
def _vr_hitting(alg: Any, params_json: str, eps: float, seeds: tuple[int, ...], max_iterations: int) -> dict:
    from fedrates.solvers.algorithms._separation import coins_for_seeds

    problem, sp = _instance_json(params_json)
    R = len(seeds)
    state = alg.init(problem, np.zeros((R, problem.dim)))
    coins = coins_for_seeds(seeds, problem.clients)
    gap0 = float(sp.gap(np.zeros((1, problem.dim)))[0])
    out = {k: np.full(R, np.nan) for k in ("iterations", "rounds_f", "rounds_g")}
    for k in range(1, max_iterations + 1):
        with np.errstate(over="ignore", invalid="ignore"):
            state = alg.step(state, sp, coins)
            new = np.isnan(out["iterations"]) & (sp.gap(alg.output(state)) <= eps * gap0)
        out["iterations"][new] = k
        out["rounds_f"][new] = state["rounds_f"][new]
        out["rounds_g"][new] = state["rounds_g"][new]
        if not np.isnan(out["iterations"]).any():
            break
    out["gap0"] = gap0
    return out


def vr_rounds_to_eps(alg: Any, params: dict, eps: float, seeds: list[int], max_iterations: int) -> dict:
    """Per replica (seed): the first iteration (VRCS: epoch) at which ½(y − x*)ᵀH(y − x*) ≤ ε·gap_0 from y_0 = 0, and
    the rounds with M_f and M_g spent until then (NaN if not reached within ``max_iterations``).  Cached per
    (algorithm, instance, ε, seeds): the δ-grid claims of one method share their runs."""
    _check_eps(eps)
    out = _vr_hitting(alg, json.dumps(params, sort_keys=True), float(eps), tuple(int(s) for s in seeds),
                      int(max_iterations))
    return {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in out.items()}


@dataclass(frozen=True)
class VRScalingClaim(_BylinkinClaim):
    """Round counts of VRCS (A6) or AccVRCS (A3) to reach ε over a δ grid, with a bootstrap CI over seeds.

    ``quantity``: ``rounds_f``/``rounds_g`` of ``algorithm``, or ``acceleration`` (mean VRCS epochs over mean
    AccVRCS iterations).  ``variable``: ``delta_f/mu`` (grid over μ at fixed δ_f, δ_g: p, q and the epoch length
    stay fixed) or ``delta_g`` (δ_f, μ fixed).  ``expected``: the exponent, or ``None`` for the exponent of the
    theorem's explicit count over the same grid (:func:`vr_predicted_rounds`; e.g. AccVRCS's R_g ∝ 2 + δ_g²/δ_f²)."""

    quantity: str = "rounds_f"
    variable: str = "delta_f/mu"
    grid: tuple[float, ...] = ()
    expected: float | None = 0.5
    tolerance: float = VR_SLOPE_TOLERANCE
    eps: float = _VR_EPS
    #: iteration cap as a multiple of the theorem's bound on the expected count, 6q/(μθ)·ln(1/ε) epochs (VRCS) or
    #: (4/τ)·ln(1/ε) iterations (AccVRCS): correct runs need 3-8% of it; a run beyond it is reported as not reached
    cap: float = 1.0
    n_seeds: dict = field(default_factory=lambda: {"quick": 8, "standard": 16, "full": 40})
    #: hitting times over 4 grid points × up to 32 seeds (VRCS epochs of mean length 1/q up to 145): 20-60 s each
    #: at quick on a loaded 2-core machine, so twice the default budget
    budget: dict = field(default_factory=lambda: {"quick": 300.0, "standard": 900.0, "full": 3600.0})

    def _key(self) -> str:
        return {"delta_f/mu": "mu", "delta_f": "delta_f"}.get(self.variable, "delta_g")

    def _params(self, v: float) -> dict:
        return {**self.params, self._key(): float(v)}

    def points(self, profile: str) -> list[dict]:
        return [{"problem": "separation", **self._params(v)} for v in self.grid]

    def _x(self, sp_list: list[Any]) -> np.ndarray:
        return np.array([s.delta_g if self.variable == "delta_g" else s.delta_f / s.mu for s in sp_list])

    def _run(self, name: str, params: dict, seeds: list[int]) -> dict:
        problem, sp = self._setup(params)
        cap = int(math.ceil(self.cap * vr_iteration_bound(sp, name) * math.log(1 / self.eps))) + 10
        return vr_rounds_to_eps(_algorithm(self, name), params, self.eps, seeds, cap)

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        params = {k: v for k, v in point.items() if k != "problem"}
        problem, sp = self._setup(params)
        index = [float(v) for v in self.grid].index(float(point[self._key()]))
        if self.quantity == "acceleration":
            slow, fast = self._run("vrcs", params, seeds), self._run("acc_vrcs", params, seeds)
            values = {"vrcs_iterations": slow["iterations"], "acc_vrcs_iterations": fast["iterations"],
                      "gap0": slow["gap0"]}
        else:
            r = self._run(self.algorithm, params, seeds)
            values = {self.quantity: r[self.quantity], "hit_iterations": r["iterations"], "gap0": r["gap0"],
                      "predicted": vr_predicted_rounds(sp, self.algorithm, self.quantity[-1]) * math.log(1 / self.eps)}
        return _records(self, index, point, values, list(seeds), problem.dim)

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        conds: list[dict] = []
        sps = []
        for v in self.grid:
            _, sp_v = self._setup(self._params(v))
            sps.append(sp_v)
            c, vals = self._conditions(sp_v)
            conds += [{**ci, "condition": f"[{self._key()}={v:g}] {ci['condition']}"} for ci in c]
        seeds = _seeds(records)
        if any(c["holds"] is False for c in conds):
            return self.conditions_not_met(conds, seeds, vals, _theorem(self.theorem).statement)
        x = self._x(sps)
        extra: dict[str, Any] = {"grid": list(self.grid), "grid_variable": self.variable}
        ratio = None
        if self.quantity == "acceleration":
            slow, fast = _values(records, "vrcs_iterations"), _values(records, "acc_vrcs_iterations")
            # per-seed ratios on common seeds (the same coins' streams): the seed bootstrap covers both methods
            y = slow / fast
            expected = 0.5
            extra["epochs_vrcs"] = np.mean(slow, axis=0).tolist()
            extra["iterations_acc_vrcs"] = np.mean(fast, axis=0).tolist()
        else:
            y = _values(records, self.quantity)
            predicted = _values(records, "predicted")[0]
            expected = (float(np.polyfit(np.log(x), np.log(predicted), 1)[0]) if self.expected is None
                        else self.expected)
            extra["mean_rounds"] = [float(np.mean(c[np.isfinite(c)])) if np.isfinite(c).any() else None
                                    for c in y.T]
            extra["predicted_rounds"] = predicted.tolist()
            if np.all(np.isfinite(y)):
                ratio = float(np.max(y.mean(axis=0) / predicted))
        res = checks.rate_exponent(x, y, expected, tolerance=self.tolerance, variable=self.variable)
        if np.any(~np.isfinite(y)):
            res = CheckResult("fail", "target not reached", f"slope {expected:.3g}", f"± {self.tolerance:g}",
                              f"{int(np.sum(~np.isfinite(y)))} runs did not reach relative gap {self.eps:g} within "
                              f"{self.cap:g}x the theorem's bound on the expected count")
        else:
            res.message += "; means " + ", ".join(f"{v:.4g}" for v in np.mean(y, axis=0))
        # the claim is the exponent (CI against the band); the theorem's explicit count is recorded as bound_ratio
        # (mean rounds over the count: Theorems 6/7's constants sit 12-33x above the measured rounds) and judged by
        # bylinkin.thm6/explicit-rate, bylinkin.thm7/explicit-rate (the per-step factor against the exact worst-state
        # factor of the expected Lyapunov function; the rounds per step are pinned by the epoch-rounds claims)
        fit = res.fit or {}
        margin = (mg.ci(float(fit["hi"]) - float(fit["lo"]), self.tolerance)
                  if fit.get("hi") is not None and np.isfinite(fit.get("hi", np.nan)) else None)
        if ratio is not None:
            extra["explicit_count_slack"] = 1.0 / ratio if ratio > 0 else None
        return self.verdict(res, conditions=conds, seeds=seeds, constants={**vals, "eps": self.eps},
                            statement=_theorem(self.theorem).statement, reference_gap=max(s.certificate() for s in sps),
                            smallest_measured=self.eps * float(np.min(_values(records, "gap0"))),
                            bound_ratio=ratio, margin=margin, extra=extra)


#: seeds of the μ-grid claims (VRCS and AccVRCS exponents in δ_f/μ and the acceleration, common seeds).  The AccVRCS
#: exponent sits at 0.58-0.61 on this grid (the log factor's drift), 0.04-0.07 below the band's upper end 0.65; with
#: 8 seeds its 95% bootstrap CI was about ±0.04 wide and reached 0.658 at quick base seed 5 (inconclusive), and the
#: acceleration's lower end came to 0.369 (band 0.35).  With 16 seeds, over quick base seeds 0..9: AccVRCS
#: [0.561, 0.629] at worst, VRCS [0.999, 1.074], acceleration [0.398, 0.495] (all 0.02-0.05 inside the band or more)
_VR_DF_SEEDS = {"quick": 16, "standard": 16, "full": 40}

CLAIMS: tuple[Claim, ...] = (
    VRScalingClaim(
        id="bylinkin.thm2/rate-df", theorem="bylinkin.thm2", title="VRCS: M_f rounds to reach eps scale as "
        "delta_f/mu", algorithm="vrcs", regime="delta_f = 0.05, delta_g = 0.1, delta_f/mu in [2, 62.5]; relative gap "
        "1e-3", why="Theorem 2: O((delta_f/mu) log 1/eps) rounds with M_f", metric="rounds_f", x="delta_f/mu",
        params=dict(_VR_DF), grid=_VR_MU_GRID, expected=1.0, n_seeds=dict(_VR_DF_SEEDS), **_COMMON),
    VRScalingClaim(
        id="bylinkin.thm2/rate-df-fixed-mu", theorem="bylinkin.thm2", title="VRCS: M_f rounds scale as delta_f/mu "
        "over a delta_f grid at fixed mu", algorithm="vrcs", regime="mu = 0.005, delta_g = 0.3, delta_f in "
        "[0.025, 0.2]; relative gap 1e-3", why="Theorem 2: O((delta_f/mu) log 1/eps) rounds with M_f; tuning (23) "
        "gives q/(mu theta) = 4 sqrt2 delta_f/mu whatever delta_g, so varying delta_f (not only mu) must give "
        "exponent 1", metric="rounds_f", x="delta_f/mu", params=dict(_VR_DFF), grid=_VR_DFF_GRID, variable="delta_f",
        expected=1.0, n_seeds={"quick": 16, "standard": 32, "full": 64}, **_COMMON),
    VRScalingClaim(
        id="bylinkin.thm3/rate-df-fixed-mu", theorem="bylinkin.thm3", title="AccVRCS: M_f rounds scale as "
        "sqrt(delta_f/mu) over a delta_f grid at fixed mu", algorithm="acc_vrcs",
        regime="mu = 0.00125, delta_g = 0.3, delta_f in [0.025, 0.2] (delta_f/mu in [20, 160]: the local exponent "
        "falls from 0.62 to 0.56 over [5, 40] at mu = 0.005, so the grid sits further out); relative gap 1e-3",
        why="Theorem 3: O(sqrt(delta_f/mu) log 1/eps) rounds with M_f",
        metric="rounds_f", x="delta_f/mu", params={**_VR_DFF, "mu": 0.00125}, grid=_VR_DFF_GRID, variable="delta_f",
        expected=0.5, n_seeds=dict(_SEPARATION_SEEDS), **_COMMON),
    VRScalingClaim(
        id="bylinkin.thm2/separation-dg", theorem="bylinkin.thm2", title="VRCS: M_f rounds independent of delta_g",
        algorithm="vrcs", regime="delta_f = 0.05, mu = 0.01, delta_g/delta_f in [1.5, 12]; relative gap 1e-3",
        why="Theorem 2's M_f count has no delta_g: tuning (23) makes q/(mu theta) = 4 sqrt2 delta_f/mu",
        metric="rounds_f", x="delta_g", params=dict(_VR_DG), grid=_VR_DG_GRID, variable="delta_g", expected=0.0,
        n_seeds=dict(_SEPARATION_SEEDS), **_COMMON),
    VRScalingClaim(
        id="bylinkin.thm2.mg/rate-dg", theorem="bylinkin.thm2.mg", title="VRCS: M_g rounds scale as "
        "(delta_f^2 + delta_g^2)/(delta_f mu)", algorithm="vrcs", regime="as bylinkin.thm2/separation-dg",
        why="Theorem 2/6: K(1 + (1-p)/q) rounds with M_g, K independent of delta_g: exponent of 1 + delta_g^2/"
        "delta_f^2 over the grid", metric="rounds_g", x="delta_g", params=dict(_VR_DG), grid=_VR_DG_GRID,
        variable="delta_g", quantity="rounds_g", expected=None, **_COMMON),
    VRScalingClaim(
        id="bylinkin.thm3/rate-df", theorem="bylinkin.thm3", title="AccVRCS: M_f rounds to reach eps scale as "
        "sqrt(delta_f/mu)", algorithm="acc_vrcs", regime="as bylinkin.thm2/rate-df",
        why="Theorem 3: O(sqrt(delta_f/mu) log 1/eps) rounds with M_f", metric="rounds_f", x="delta_f/mu",
        params=dict(_VR_DF), grid=_VR_MU_GRID, expected=0.5, n_seeds=dict(_VR_DF_SEEDS), **_COMMON),
    VRScalingClaim(
        id="bylinkin.thm3/separation-dg", theorem="bylinkin.thm3", title="AccVRCS: M_f rounds independent of "
        "delta_g", algorithm="acc_vrcs", regime="as bylinkin.thm2/separation-dg", why="Theorem 3's M_f count has "
        "no delta_g (tau = sqrt(mu/(12 sqrt2 delta_f)))", metric="rounds_f", x="delta_g", params=dict(_VR_DG),
        grid=_VR_DG_GRID, variable="delta_g", expected=0.0, n_seeds=dict(_SEPARATION_SEEDS), **_COMMON),
    VRScalingClaim(
        id="bylinkin.thm3.mg/rate-dg", theorem="bylinkin.thm3.mg", title="AccVRCS: M_g rounds scale as "
        "(delta_f^2 + delta_g^2)/(delta_f^(3/2) sqrt(mu))", algorithm="acc_vrcs",
        regime="as bylinkin.thm2/separation-dg", why="Theorem 3/7: (4/tau)(2 + (1-p)/q) rounds with M_g (the round "
        "for t_k counted): exponent of 2 + delta_g^2/delta_f^2 over the grid", metric="rounds_g", x="delta_g",
        params=dict(_VR_DG), grid=_VR_DG_GRID, variable="delta_g", quantity="rounds_g", expected=None, **_COMMON),
    VRScalingClaim(
        id="bylinkin.thm3/acceleration", theorem="bylinkin.thm3", title="AccVRCS accelerates VRCS: iteration "
        "ratio grows as sqrt(delta_f/mu)", algorithm="acc_vrcs", regime="as bylinkin.thm2/rate-df (common seeds)",
        why="Theorems 2 and 3: O(delta_f/mu) VRCS epochs against O(sqrt(delta_f/mu)) AccVRCS iterations",
        metric="ratio", x="delta_f/mu", params=dict(_VR_DF), grid=_VR_MU_GRID, quantity="acceleration",
        n_seeds=dict(_VR_DF_SEEDS), **_COMMON),
)
