"""Bylinkin et al.: the tolerances, the deterministic checks and the base class shared by the paper's claims
(round counts, exact maps and Monte-Carlo means on two-group quadratic federations)."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fedrates._lazy import lazy_import
from fedrates.verify.checks import CheckResult
from fedrates.verify.claims.base import Claim, evaluate_conditions, records_from_trace
from fedrates.verify.claims.bylinkin.instances import _a4_tuning, instance

pd = lazy_import("pandas")  # imported on first use: listing and refusing stay fast

__all__ = ["RATIO_SLACK", "SPECTRAL_RELATIVE", "PROJECTION_RELATIVE", "SEPARATION_SPREAD",
           "DETERMINISTIC_SLOPE_TOLERANCE", "INNER_SLOPE_BAND", "preconditions", "slope_check", "spread_check",
           "max_ratio_check"]

#: relative slack of deterministic inequalities (floating point only; the quantities are O(1) ratios)
RATIO_SLACK = 1e-9
#: spectral radii of possibly defective iteration matrices are accurate to about √eps·‖T‖ ≈ 1e-8; 1e-6 is the margin
SPECTRAL_RELATIVE = 1e-6
#: relative roundoff of a projection ratio v·e_{k+1}/v·e_k: about 1e-14·‖x̄‖/|v·e|, below 1e-9 on these instances
PROJECTION_RELATIVE = 1e-8
#: separation: the paper's O(√(δ_f/μ) log 1/ε) for M_f has no δ_g; a deterministic count may move by one outer
#: iteration (2 rounds) between grid points because the initial Lyapunov value changes with the instance: 5%
SEPARATION_SPREAD = 0.05
#: exponent of a deterministic round count over a δ grid: ceil() and the instance-dependent log factor move the
#: local slope by a few hundredths over 1.8 decades; 0.1 rejects slopes 0 and 1
DETERMINISTIC_SLOPE_TOLERANCE = 0.1
#: exponent of the inner phase's total R_g in δ_g (Theorem 4's Õ(√(δ_g/μ) log 1/ε)): ½ from Theorem 8's per-step
#: factor 1 − ½√(θ_g/θ_f) = 1 − ½√(δ_f/δ_g), plus the drift of the log factor of the Õ (its sufficient count
#: 2K·T_in has exponent ≈ 0.64 over the δ_g/δ_f ∈ [2.5, 160] grid; measured ≈ 0.57); a non-accelerated inner phase
#: has exponent 1, a fixed inner budget 0
INNER_SLOPE_BAND = (0.45, 0.75)


#: seed stride between base seeds (as in :meth:`Claim.seeds`); replica indices stay below it (n_seeds ≤ 100003)
_SEED_STRIDE = 100_003


def _theorem(theorem_id: str) -> Any:
    from fedrates.bounds import catalog

    return catalog.get(theorem_id)


def preconditions(sp: Any, needs: tuple[str, ...]) -> list[dict]:
    """The unstated preconditions used by the proofs, evaluated on the exact constants."""
    table = {
        "h1": ("h_1 = f_1 + g_1 convex: lambda_min(A_f1 + A_g1) >= 0 (App. B, C: A_theta 1/theta-strongly convex)",
               sp.lambda_min_h1),
        "f1g": ("f_1 + g convex: lambda_min(A_f1 + A_g) >= 0 (Kovalev et al. 2022, Thm 1; Theorem 8)",
                sp.lambda_min_f1_plus_g),
        "g": ("g convex: lambda_min(A_g) >= 0 (Assumption 3)", sp.lambda_min_g),
    }
    return [{"condition": table[n][0], "holds": bool(table[n][1] >= 0), "value": f"{table[n][1]:.6g}"}
            for n in needs]


def _algorithm(claim: Claim, name: str, **hyper: Any) -> Any:
    from fedrates.solvers import algorithms

    override = claim.algorithm_override
    if override is not None and (name == claim.algorithm or getattr(override, "name", None) == name):
        return dataclasses.replace(claim.algorithm_override, **hyper) if hyper else claim.algorithm_override
    return algorithms.make(name, **hyper)


def _records(claim: Claim, point_index: int, point: dict, values: dict[str, np.ndarray], seeds: list[int],
             dim: int, bound: float = float("nan")) -> pd.DataFrame:
    S = len(seeds)
    df = pd.DataFrame({"seed": np.asarray(seeds, dtype=np.int64), "round": np.zeros(S, np.int64),
                       "iterations": np.zeros(S, np.int64), "diverged": np.zeros(S, bool),
                       **{k: np.broadcast_to(np.asarray(v, float), (S,)) for k, v in values.items()}})
    return records_from_trace(df, claim=claim, point_index=point_index, point=point, metrics=list(values),
                              bound=lambda d: np.full(len(d), bound), problem_dim=dim)


def _values(records: pd.DataFrame, metric: str) -> np.ndarray:
    """(S, P) values of ``metric``, rows = seeds, columns = sweep points."""
    sub = records[records["metric"] == metric]
    return sub.pivot(index="seed", columns="point", values="value").sort_index().to_numpy()  # keeps NaN


def _seeds(records: pd.DataFrame) -> list[int]:
    return sorted(int(s) for s in records["seed"].unique()) if len(records) else []


def _check_eps(eps: float) -> None:
    from fedrates.solvers.errors import InputError

    if not (isinstance(eps, (int, float)) and math.isfinite(eps) and 0 < eps < 1):
        raise InputError(f"target eps={eps!r} is not valid; expected a relative accuracy 0 < eps < 1")


# ---- generic deterministic checks (this paper's claims are about round counts, not rates in T) ------------------
def slope_check(x: np.ndarray, y: np.ndarray, expected: float,
                tolerance: float = DETERMINISTIC_SLOPE_TOLERANCE, variable: str = "x") -> CheckResult:
    """Deterministic scaling law: least-squares slope of log y on log x equals ``expected`` ± ``tolerance``."""
    x, y = np.asarray(x, float), np.asarray(y, float).reshape(-1)
    if np.any(~np.isfinite(y)) or np.any(y <= 0):
        return CheckResult("fail", "non-finite or non-positive counts", f"slope {expected:g}", f"± {tolerance:g}",
                           "some runs diverged or did not reach the target")
    slope, intercept = np.polyfit(np.log(x), np.log(y), 1)
    ok = abs(slope - expected) <= tolerance
    measured = f"slope {slope:.3f}"
    return CheckResult("pass" if ok else "fail", measured, f"slope {expected:g}", f"± {tolerance:g} (deterministic)",
                       f"fitted exponent of the round count in {variable}: {slope:.3f} vs {expected:g} "
                       f"(values {', '.join(f'{v:.4g}' for v in y)})",
                       fit={"slope": float(slope), "intercept": float(intercept), "lo": float(slope),
                            "hi": float(slope)})


def spread_check(y: np.ndarray, tolerance: float = SEPARATION_SPREAD, variable: str = "x") -> CheckResult:
    """Flatness: (max − min)/mean of a deterministic count over a grid is at most ``tolerance``."""
    y = np.asarray(y, float).reshape(-1)
    if np.any(~np.isfinite(y)):
        return CheckResult("fail", "non-finite counts", "constant", f"spread ≤ {tolerance:.0%}", "runs diverged")
    spread = float((y.max() - y.min()) / y.mean())
    ok = spread <= tolerance
    return CheckResult("pass" if ok else "fail", f"relative spread {spread:.3%}", f"independent of {variable}",
                       f"≤ {tolerance:.0%}", f"counts {', '.join(f'{v:.6g}' for v in y)} over the {variable} grid")


def max_ratio_check(ratios: np.ndarray, what: str, slack: float = RATIO_SLACK) -> CheckResult:
    """Deterministic inequality: every ratio measured/bound ≤ 1 + slack."""
    r = np.asarray(ratios, float).reshape(-1)
    if r.size == 0 or np.any(~np.isfinite(r)):
        return CheckResult("fail", "non-finite ratio", "≤ 1", f"1 + {slack:g}", f"{what}: non-finite values")
    worst = float(r.max())
    ok = worst <= 1 + slack
    return CheckResult("pass" if ok else "fail", f"max ratio {worst:.9g}", "≤ 1", f"1 + {slack:g} (deterministic)",
                       f"{what}: max measured/bound = {worst:.9g} over {r.size} steps")


# ---- base ----------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _BylinkinClaim(Claim):
    params: dict = field(default_factory=dict)
    needs: tuple[str, ...] = ("h1",)
    n_seeds: dict = field(default_factory=lambda: {"quick": 1, "standard": 1, "full": 1})
    #: Monte-Carlo replicas per claim seed: claim seed s = b·100003 + i (base seed b, batch i) runs the replicas
    #: b·100003 + i·batch + j (j < batch) — the seeds an unbatched claim would use — and records their mean, so
    #: n_seeds replicas make n_seeds/batch independent batch means (one cached record set per batch)
    batch: int = 1

    def seeds(self, profile: str, base_seed: int = 0) -> list[int]:
        return [int(base_seed) * _SEED_STRIDE + i for i in range(max(1, self.n_seeds[profile] // self.batch))]

    def replicas(self, seeds: list[int]) -> list[int]:
        out = []
        for s in seeds:
            base, index = divmod(int(s), _SEED_STRIDE)
            out.extend(base * _SEED_STRIDE + index * self.batch + j for j in range(self.batch))
        return out

    def batch_means(self, values: np.ndarray) -> np.ndarray:
        """(S·batch, ...) replica values -> (S, ...) batch means."""
        v = np.asarray(values, float)
        return v.reshape((-1, self.batch) + v.shape[1:]).mean(axis=1)

    def _setup(self, params: dict | None = None) -> tuple[Any, Any]:
        return instance(params or self.params)

    def _conditions(self, sp: Any, **values: float) -> tuple[list[dict], dict]:
        thm = _theorem(self.theorem)
        vals = {"mu": sp.mu, "delta_f": sp.delta_f, "delta_g": sp.delta_g, "eps": 1e-8, **values}
        conds = evaluate_conditions(thm, vals) + preconditions(sp, self.needs)
        return conds, vals

    def _judge_common(self, records: pd.DataFrame, sp: Any, **values: float) -> tuple[list[dict], dict, list[int],
                                                                                     dict | None]:
        conds, vals = self._conditions(sp, **values)
        seeds = _seeds(records)
        early = None
        if any(c["holds"] is False for c in conds):
            early = self.conditions_not_met(conds, seeds, vals, _theorem(self.theorem).statement)
        return conds, vals, seeds, early

    def _judge_a4(self, records: pd.DataFrame) -> tuple[dict, list[dict], dict, list[int], dict | None]:
        """:meth:`_judge_common` with Algorithm 4's tuning θ_f, θ_g of the claim's instance: (tuning, conditions,
        values, seeds, the early verdict when a condition fails)."""
        _, sp = self._setup()
        t = _a4_tuning(sp)
        return (t, *self._judge_common(records, sp, theta=t["theta_f"], theta_g=t["theta_g"]))

    def points(self, profile: str) -> list[dict]:
        return [{"problem": "separation", **self.params}]
