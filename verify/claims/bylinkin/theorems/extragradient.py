"""Falsifiable claims of Bylinkin, Skorik, Bystrov, Berezin, Avetisyan, Beznosikov, "Accelerated Methods
with Complexity Separation Under Data Similarity for Federated Learning Problems".

The paper's claims are about **communication rounds counted per node group** (M_f, M_g) as functions of the
similarity constants δ_f, δ_g and of μ.  All instances are two-group quadratic federations with exactly prescribed
μ, δ_f, δ_g (:mod:`fedrates.solvers.problems.separation`); their unstated preconditions (h_1 convex; f_1 + g
convex; g convex) are evaluated with the theorem's conditions first.  Gaps are ½(x − x*)ᵀH(x − x*) against the
closed-form optimum (certified gap ‖∇h(x*)‖²/(2μ) passed as ``reference_gap``).

Claims (predictions computed from the instance matrices, independently of the algorithms' code):

* ``bylinkin.thm4/separation-dg``  — C-AccExtragradient: rounds with M_f to reach Ψ_K ≤ εΨ_0 do not depend on δ_g
  (relative spread ≤ 5% over a δ_g grid spanning 1.8 decades) and stay below the exact count of the recursion;
* ``bylinkin.thm4/rate-df``        — the same rounds scale as (δ_f/μ)^{1/2}: fitted exponent 0.5 ± 0.1;
* ``bylinkin.thm4/aeg-baseline``   — the AEG baseline pays δ_g: its M_f rounds scale as ((δ_f + δ_g)/μ)^{1/2}
  over the same δ_g grid and exceed C-AccExtragradient's at every point;
* ``bylinkin.thm4.mg/inner-rounds`` — the inner phase's rounds with M_g over the same grid: exponent ½ in δ_g plus
  the drift of the Õ's log factor (band [0.45, 0.75]), and no outer step needs more inner iterations than Theorem 8's
  sufficient count;
* ``bylinkin.thm4/aeg-ratio``      — R_f(C-AccExtragradient)/R_f(AEG) has exponent −½ in (δ_f + δ_g)/δ_f and is < 1;
* ``bylinkin.thm4/l-free``         — the same M_f rounds over L ∈ [1, 1000] at fixed μ, δ_f, δ_g: exponent 0 ± 0.1 in L
  (no smoothness constant enters the paper's rates; L is only inside the log of Theorem 4's Õ);
* ``bylinkin.thm4/exact-contraction`` — the projection of x_k − x* on the bottom eigenvector of H contracts by
  exactly 1 − ½√(μθ_f) per outer step (inner phase stopped by criterion (6)), and the spectral radius of the outer
  iteration with exact subproblems equals that factor;
* ``bylinkin.thm4/outer-criterion`` — the inner AccExtragradient stops only when criterion (6) holds;
* ``bylinkin.thm8.rate/recursion``  — Theorem 8's recursion with the corrected Lyapunov function, inner
  subproblems stopped exactly at 1/(10θ_g²);
* ``bylinkin.thm5/one-step`` (erratum) and ``bylinkin.thm5.corrected/one-step`` — the worst case over states of
  Φ_{k+1}/Φ_k (σ = 0: the AEG iteration, an exact linear map probed with basis states) against 1 − ½√(μθ);
  the printed Φ = (τ/η)‖x − x*‖² + gap fails it (the missing factor 2), the corrected Φ^c = μ‖x − x*‖² + gap holds;
* ``bylinkin.thm5/inexact-trajectory`` (erratum) and ``bylinkin.thm5.corrected/inexact-trajectory`` — the same
  recursion along the method's own iterates with every server subproblem stopped exactly at criterion (4);
* ``bylinkin.thm5/spectral-radius`` — the AEG iteration's spectral radius equals 1 − ½√(μθ) exactly;
* ``bylinkin.thm1/exact-mean``      — SC-AccExtragradient: the Monte-Carlo mean of two projections of x_K − x*
  equals the exact mean recursion (four coin branches), two-sided;
* ``bylinkin.thm1/second-moment``   — E Φ^c_K equals the exact second-moment recursion Σ_b π_b M_b S M_bᵀ
  (Assumption 4 fails on quadratics; interpolating instance, reduced θ);
* ``bylinkin.thm5.corrected/noise-floor`` and ``bylinkin.thm5/noise-floor`` — with constant θ on a non-interpolating
  instance: the Monte-Carlo E Φ_K equals the exact affine second-moment recursion (two-sided), and the exact
  stationary E Φ^c (E Φ) lies below 4√(θ/μ)σ² (8√(θ/μ)σ²) at four θ, σ² the stationary expected oracle variance;
* ``bylinkin.thm1/split-rounds`` and ``bylinkin.thm1/independent-coins`` — R_f ~ Binomial(2K, p) with
  p = δ_f/(δ_f + δ_g): its mean and its second central moment 2Kp(1 − p) (a shared coin doubles it), two-sided;
* ``bylinkin.thm6/remark1-tradeoff`` (erratum) — Remark 1's O~(√(δ_fδ_g)/μ) for both groups against Theorem 6's
  own (p, q) trade-off;
* ``bylinkin.thm7/printed-line7`` (erratum) — moved to :mod:`fedrates.verify.claims.bylinkin.exact` (deterministic
  form on the branch T = 1), with the other exact-map claims (Theorem 5's counterexample, returned points, the outer
  Lyapunov function of C-AccExtragradient, Theorem 1's rounds to ε);
* ``bylinkin.thm2/rate-df``, ``bylinkin.thm2/separation-dg``, ``bylinkin.thm2.mg/rate-dg`` (VRCS) and
  ``bylinkin.thm3/rate-df``, ``bylinkin.thm3/separation-dg``, ``bylinkin.thm3.mg/rate-dg`` (AccVRCS) — rounds to a
  relative gap ε as scaling laws: exponent fitted over a δ grid with a bootstrap CI over seeds (1 and ½ in δ_f/μ, 0 in
  δ_g for M_f; for M_g the exponent of the theorem's explicit count over the grid); ``bylinkin.thm3/acceleration`` —
  VRCS epochs over AccVRCS iterations grow as (δ_f/μ)^{1/2};
* ``bylinkin.thm2/rate-df-fixed-mu`` and ``bylinkin.thm3/rate-df-fixed-mu`` — the δ_f exponents (1 and ½) over a δ_f
  grid at fixed μ and δ_g (p = q and the epoch length change along it);
* ``bylinkin.thm6/exact-mean`` and ``bylinkin.thm6/epoch-rounds`` — VRCS: exact mean of the epoch operator
  qN(I − (1 − q)N)^{-1} (Geom(q) on {1, 2, ...}) and expected rounds 1 + p/q, 1 + (1 − p)/q per epoch;
  ``bylinkin.thm6/exact-mean-nonconvex`` — the same with non-convex f, g (``components=indefinite``) and
  perturbations whose norm is attained by a negative eigenvalue (``perturbation=mixed``);
* ``bylinkin.thm7/exact-mean``      — AccVRCS: exact mean recursion of (z, y) (sensitive to the sign of t_k);
* ``bylinkin.thm7.mf.corrected/rounds``, ``bylinkin.thm7.mg.corrected/rounds`` — AccVRCS rounds per iteration
  2 + p/q and 2 + (1 − p)/q (the round for t_k counted; the proof's 1 + p/q omitting it is a catalogue note of kind
  proof-gap: a claim comparing the implementation's counter with 1 + p/q would only count what the implementation
  was built to count).
"""

from __future__ import annotations

import dataclasses
import json
import math
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fedrates._lazy import lazy_import
from fedrates.solvers.certify import observed_cache
from fedrates.verify import checks
from fedrates.verify import margins as mg
from fedrates.verify.checks import CheckResult
from fedrates.verify.claims.base import Claim, evaluate_conditions, records_from_trace
from fedrates.verify.errata import Erratum
from fedrates.verify.variants import BrokenVariant

pd = lazy_import("pandas")  # imported on first use: listing and refusing stay fast

__all__ = ["CLAIMS", "VARIANTS", "slope_check", "spread_check", "max_ratio_check"]

PAPER = "Bylinkin et al., Accelerated Methods with Complexity Separation Under Data Similarity"

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


# ---- instances ---------------------------------------------------------------------------------------------------
@observed_cache
def _instance_json(params_json: str) -> tuple[Any, Any]:
    from fedrates.solvers import problems
    from fedrates.solvers.problems.separation import split

    params = json.loads(params_json)
    problem = problems.make("separation", None, **params)
    return problem, split(problem)


def instance(params: dict) -> tuple[Any, Any]:
    """(problem, split) of a separation instance (cached per process)."""
    return _instance_json(json.dumps(params, sort_keys=True))


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

    def points(self, profile: str) -> list[dict]:
        return [{"problem": "separation", **self.params}]


# ---- probes: the exact linear map of one deterministic iteration ------------------------------------------------
def probe_map(alg: Any, problem: Any, sp: Any, keys: tuple[str, str]) -> np.ndarray:
    """The matrix T of one iteration of a linear method in error coordinates (state (e_1, e_2) = (keys) − x*),
    obtained by running the algorithm's own step on the 2d basis states as replicas."""
    from fedrates.solvers.algorithms._separation import coins_for_seeds

    d = problem.dim
    B = np.eye(2 * d)
    state = alg.init(problem, np.zeros((2 * d, d)))
    state[keys[0]] = sp.xstar + B[:, :d]
    state[keys[1]] = sp.xstar + B[:, d:]
    new = alg.step(state, sp, coins_for_seeds(range(2 * d), problem.clients))
    return np.hstack([new[keys[0]] - sp.xstar, new[keys[1]] - sp.xstar]).T


def worst_one_step(T: np.ndarray, P: np.ndarray) -> float:
    """max over states s ≠ 0 of (Ts)ᵀP(Ts)/(sᵀPs): the largest generalized eigenvalue of (TᵀPT, P)."""
    from scipy.linalg import eigh

    return float(eigh(T.T @ P @ T, P, eigvals_only=True)[-1])


def _aeg_tuning(sp: Any, scale: float = 1 / 3) -> dict[str, float]:
    theta = scale / (sp.delta_f + sp.delta_g)
    tau = math.sqrt(sp.mu * theta)
    eta = min(1 / (2 * sp.mu), 0.5 * math.sqrt(theta / sp.mu))
    return {"theta": theta, "tau": tau, "eta": eta, "rho": 1 - 0.5 * math.sqrt(sp.mu * theta)}


@dataclass(frozen=True)
class AEGProbeClaim(_BylinkinClaim):
    """Theorem 5 with σ = 0 (the AEG iteration) as an exact linear map: spectral radius or worst one-step ratio."""

    mode: str = "spectral"  # spectral | printed | corrected

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        problem, sp = self._setup()
        alg = _algorithm(self, "aeg")
        T = probe_map(alg, problem, sp, ("x", "xbar"))
        t = _aeg_tuning(sp)
        d = problem.dim
        Z, I = np.zeros((d, d)), np.eye(d)
        P_printed = np.block([[(t["tau"] / t["eta"]) * I, Z], [Z, 0.5 * sp.H]])
        P_corrected = np.block([[sp.mu * I, Z], [Z, 0.5 * sp.H]])
        values = {"spectral_radius": float(np.max(np.abs(np.linalg.eigvals(T)))),
                  "worst_ratio_printed": worst_one_step(T, P_printed),
                  "worst_ratio_corrected": worst_one_step(T, P_corrected)}
        return _records(self, 0, point, values, list(seeds), problem.dim, bound=t["rho"])

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        problem, sp = self._setup()
        t = _aeg_tuning(sp)
        conds, vals, seeds, early = self._judge_common(records, sp, theta=t["theta"], sigma=0.0,
                                                       Phi_k=1.0, Phic_k=1.0)
        if early:
            return early
        rho = t["rho"]
        if self.mode == "spectral":
            y = _values(records, "spectral_radius")
            res = checks.exact_expectation(y[:1], np.array([rho]), relative=SPECTRAL_RELATIVE)
            ratio = float(y[0, 0]) / rho
        else:
            y = _values(records, f"worst_ratio_{self.mode}")
            ratio = float(y[0, 0]) / rho
            res = max_ratio_check(np.array([ratio]), f"worst one-step Φ_(k+1)/(ρΦ_k) ({self.mode} Φ)")
        return self.verdict(res, conditions=conds, seeds=seeds, constants={**vals, "rho": rho},
                            statement=_theorem(self.theorem).statement, reference_gap=sp.certificate(),
                            smallest_measured=1 - rho, bound_ratio=ratio)


@dataclass(frozen=True)
class AEGTrajectoryClaim(_BylinkinClaim):
    """Theorem 5 with σ = 0 along the method's own trajectory, server subproblems stopped exactly at criterion (4):
    Φ_{k+1} ≤ (1 − ½√(μθ))Φ_k at every step, for the printed Φ (weight τ/η = 2μ) or the corrected Φ^c (weight μ)."""

    mode: str = "corrected"
    iterations: int = 300

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        from fedrates.solvers.algorithms._separation import simulate as run

        problem, sp = self._setup()
        alg = _algorithm(self, "aeg", subproblem="boundary")
        t = _aeg_tuning(sp)
        weight = t["tau"] / t["eta"] if self.mode == "printed" else sp.mu
        phi: list[float] = []

        def record(k: int, st: dict) -> None:
            e = st["x"][0] - sp.xstar
            phi.append(float(weight * e @ e + sp.gap(st["xbar"])[0]))

        run(alg, problem, self.iterations, [0], w0=sp.xstar + np.ones(problem.dim), record=record)
        a = np.asarray(phi)
        values = {"ratio_max": float(np.max(a[1:] / a[:-1]) / t["rho"]), "smallest_phi": float(a.min())}
        return _records(self, 0, point, values, list(seeds), problem.dim, bound=1.0)

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        problem, sp = self._setup()
        t = _aeg_tuning(sp)
        conds, vals, seeds, early = self._judge_common(records, sp, theta=t["theta"], sigma=0.0, Phi_k=1.0,
                                                       Phic_k=1.0)
        if early:
            return early
        worst = _values(records, "ratio_max")[0, 0]
        res = max_ratio_check(np.array([worst]), f"Φ_(k+1)/(ρΦ_k) along {self.iterations} iterations ({self.mode} Φ, "
                                                 "subproblems at criterion (4))")
        return self.verdict(res, conditions=conds, seeds=seeds, constants={**vals, "rho": t["rho"]},
                            statement=_theorem(self.theorem).statement, reference_gap=sp.certificate(),
                            smallest_measured=_values(records, "smallest_phi")[0, 0], bound_ratio=worst)


# ---- C-AccExtragradient (A4 + A5) --------------------------------------------------------------------------------
def _a4_tuning(sp: Any, scale: float = 0.5) -> dict[str, float]:
    theta_f = scale / sp.delta_f
    tau_f = 0.5 * math.sqrt(sp.mu * theta_f)
    theta_g = 1 / (2 * sp.delta_g)
    tau_g = 0.5 * math.sqrt(theta_g / theta_f)
    return {"theta_f": theta_f, "tau_f": tau_f, "eta_f": min(1 / (2 * sp.mu), theta_f / (4 * tau_f)),
            "rho_out": 1 - 0.5 * math.sqrt(sp.mu * theta_f), "theta_g": theta_g, "tau_g": tau_g,
            "eta_g": min(theta_f / 2, theta_g / (4 * tau_g)), "rho_in": 1 - 0.5 * math.sqrt(theta_g / theta_f)}


def _check_eps(eps: float) -> None:
    from fedrates.solvers.errors import InputError

    if not (isinstance(eps, (int, float)) and math.isfinite(eps) and 0 < eps < 1):
        raise InputError(f"target eps={eps!r} is not valid; expected a relative accuracy 0 < eps < 1")


def inner_count_bound(sp: Any, t: dict[str, float]) -> int:
    """Theorem 8's sufficient number of inner iterations for criterion (6) from the warm start x̲_k.

    The corrected recursion Ψ_{t+1} + (θ_g/(2τ_g))‖∇A(x̄_{t+1})‖² ≤ ρ_in Ψ_t gives
    ‖∇A(x̄_T)‖² ≤ (2τ_g/θ_g)ρ_in^T Ψ_0 and Ψ_0 ≤ (1/η_g + L_A/τ_g)‖x̲_k − A*‖² (x_0 = x̄_0 = x̲_k, A − A* ≤
    ½L_A‖· − A*‖²), so T = ⌈ln[(6τ_g/(θ_gδ_f²))(1/η_g + L_A/τ_g)]/(−ln ρ_in)⌉ reaches (δ_f²/3)‖x̲_k − A*‖²;
    L_A = 1/θ_f + λ_max(A_f1 + A_g) (the only place where smoothness enters, inside the log of the Õ)."""
    L_A = 1 / t["theta_f"] + float(np.linalg.eigvalsh(sp.A_f1 + sp.A_g)[-1])
    C = 6 * t["tau_g"] / (t["theta_g"] * sp.delta_f**2) * (1 / t["eta_g"] + L_A / t["tau_g"])
    return max(1, math.ceil(math.log(C) / -math.log(t["rho_in"])))


@observed_cache
def _rounds_to_eps(alg: Any, params_json: str, eps: float, baseline: bool) -> tuple[tuple[str, float], ...]:
    from fedrates.solvers.algorithms._separation import coins_for_seeds

    problem, sp = _instance_json(params_json)
    t = _a4_tuning(sp)
    eta, tau = t["eta_f"], t["tau_f"]
    k_bound = math.ceil(math.log(eps) / math.log(t["rho_out"]))
    max_outer = 4 * math.ceil(math.log(eps) / math.log(_aeg_tuning(sp)["rho"])) if baseline else k_bound + 1

    def psi(st: dict) -> float:
        e = st["x"][0] - sp.xstar
        with np.errstate(over="ignore", invalid="ignore"):
            return float(e @ e / eta + 2 / tau * sp.gap(st["xbar"])[0])

    state = alg.init(problem, np.zeros((1, problem.dim)))
    coins = coins_for_seeds([0], problem.clients)
    psi0 = psi(state)
    inner_max = 0.0
    out = {"rounds_f": float("nan"), "rounds_g": float("nan"), "outer": float("nan"), "inner_max": float("nan")}
    for k in range(1, max_outer + 1):
        before = state.get("inner_total")
        with np.errstate(over="ignore", invalid="ignore"):
            state = alg.step(state, sp, coins)
        if before is not None:
            inner_max = max(inner_max, float(state["inner_total"][0] - before[0]))
        value = psi(state)
        if not np.isfinite(value):
            break
        if value <= eps * psi0:
            out = {"rounds_f": float(state["rounds_f"][0]), "rounds_g": float(state["rounds_g"][0]),
                   "outer": float(k), "inner_max": inner_max}
            break
    out.update(psi0=psi0, bound_f=2.0 * k_bound)
    return tuple(out.items())


def rounds_to_eps(alg: Any, params: dict, eps: float, baseline: bool = False) -> dict[str, float]:
    """Run a deterministic method on the separation instance ``params`` from x_0 = x̄_0 = 0 until Ψ_K ≤ εΨ_0 with
    the outer Lyapunov function of C-AccExtragradient's tuning, Ψ = (1/η)‖x − x*‖² + (2/τ)(h(x̄) − h*); rounds with
    M_f and M_g at that K, and the largest number of inner iterations of one outer step (``inner_max``).

    C-AccExtragradient's corrected recursion Ψ_{k+1} ≤ ρ_out Ψ_k bounds K by ⌈ln ε/ln ρ_out⌉, so a run still above
    εΨ_0 one iteration later contradicts it and stops there (NaN counts).  The AEG baseline (``baseline``), whose
    own factor is ρ = 1 − ½√(μθ), θ = 1/(3(δ_f + δ_g)), gets four times its own count (Ψ is not its Lyapunov
    function).  Runs are cached per (algorithm, instance parameters): the δ-grid claims share them."""
    _check_eps(eps)
    return dict(_rounds_to_eps(alg, json.dumps(params, sort_keys=True), float(eps), bool(baseline)))


_A4_BASE = {"dim": 8, "mu": 1e-3, "L": 1.0, "delta_f": 0.02, "delta_g": 0.5, "seed": 3}
_DG_GRID = (0.05, 0.2, 0.8, 3.2)
_DF_GRID = (0.005, 0.02, 0.08, 0.32)
#: smoothness grid (3 decades) at fixed mu, delta_f, delta_g
_L_GRID = (1.0, 10.0, 100.0, 1000.0)
_EPS = 1e-8


@dataclass(frozen=True)
class RoundsGridClaim(_BylinkinClaim):
    """Rounds to reach Ψ_K ≤ εΨ_0 over a δ grid (deterministic runs, shared between the claims).

    ``mode``: ``flat`` (C-AccExtragradient's R_f independent of δ_g), ``slope`` (R_f ∝ (δ_f/μ)^{1/2}),
    ``baseline`` (the AEG baseline's R_f ∝ ((δ_f + δ_g)/μ)^{1/2}), ``inner`` (R_g of the inner phase: exponent ½ in
    δ_g plus the log factor of the Õ, every outer step within Theorem 8's sufficient inner count), ``ratio``
    (R_f(C-AccExtragradient)/R_f(AEG) ∝ (δ_f/(δ_f + δ_g))^{1/2}: exponent −½ in (δ_f + δ_g)/δ_f)."""

    grid_key: str = "delta_g"
    grid: tuple[float, ...] = _DG_GRID
    mode: str = "flat"  # flat | slope | baseline | inner | ratio | l-free
    needs: tuple[str, ...] = ("g", "f1g")
    eps: float = _EPS

    def points(self, profile: str) -> list[dict]:
        return [{"problem": "separation", **self.params, self.grid_key: float(v)} for v in self.grid]

    def _a4_hyper(self) -> dict:
        # the override keeps its own hyperparameters; the registered method runs with boundary inner subproblems
        overridden = getattr(self.algorithm_override, "name", None) == "c_acc_extragradient"
        return {} if overridden else {"subproblem": "boundary"}

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        params = {k: v for k, v in point.items() if k != "problem"}
        problem, sp = self._setup(params)
        index = [float(v) for v in self.grid].index(float(point[self.grid_key]))
        values = rounds_to_eps(_algorithm(self, "c_acc_extragradient", **self._a4_hyper()), params, self.eps)
        if self.mode in ("baseline", "ratio"):
            base = rounds_to_eps(_algorithm(self, "aeg"), params, self.eps, baseline=True)
            values = {**values, "aeg_rounds_f": base["rounds_f"], "aeg_rounds_g": base["rounds_g"]}
        if self.mode == "inner":
            values["inner_bound"] = float(inner_count_bound(sp, _a4_tuning(sp)))
        return _records(self, index, point, values, list(seeds), problem.dim, bound=values["bound_f"])

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        conds: list[dict] = []
        for v in self.grid:
            _, sp_v = self._setup({**self.params, self.grid_key: float(v)})
            c, vals = self._conditions(sp_v)
            conds += [{**ci, "condition": f"[{self.grid_key}={v:g}] {ci['condition']}"} for ci in c]
        seeds = _seeds(records)
        problem, sp = self._setup()
        if any(c["holds"] is False for c in conds):
            return self.conditions_not_met(conds, seeds, vals, _theorem(self.theorem).statement)
        rf = _values(records, "rounds_f")[0]
        bound = _values(records, "bound_f")[0]
        x = np.asarray(self.grid, float)
        if self.mode == "flat":
            res = spread_check(rf, variable="delta_g")
            over = rf > bound
            if res.verdict == "pass" and np.any(over):
                res = CheckResult("fail", res.measured, res.predicted, res.tolerance,
                                  f"R_f exceeds the recursion's count 2⌈ln ε/ln ρ_out⌉ at {int(over.sum())} points")
            elif res.verdict == "pass":
                res.message += f"; every R_f ≤ 2⌈ln ε/ln ρ_out⌉ = {', '.join(f'{b:.0f}' for b in bound)}"
        elif self.mode == "slope":
            res = slope_check(x / sp.mu, rf, 0.5, variable="delta_f/mu")
        elif self.mode == "l-free":
            # L enters no rate of the paper (only the log of Theorem 4's O~): exponent 0 in L, which rejects a
            # count driven by sqrt(L/mu) (exponent 1/2) or by a step tuned with L
            res = slope_check(x, rf, 0.0, variable="L")
        elif self.mode == "inner":
            return self._judge_inner(records, conds, vals, seeds, sp, x)
        elif self.mode == "ratio":
            return self._judge_ratio(records, conds, vals, seeds, sp, x, rf)
        else:
            aeg = _values(records, "aeg_rounds_f")[0]
            res = slope_check((sp.delta_f + x) / sp.mu, aeg, 0.5, variable="(delta_f + delta_g)/mu")
            if res.verdict == "pass" and not np.all(aeg > rf):
                res = CheckResult("fail", res.measured, res.predicted, res.tolerance,
                                  "the AEG baseline does not use more M_f rounds than C-AccExtragradient everywhere")
            elif res.verdict == "pass":
                res.message += ("; AEG/C-AccExtragradient M_f rounds: "
                                + ", ".join(f"{a / b:.2f}" for a, b in zip(aeg, rf, strict=True)))
        finite = np.isfinite(rf)
        ratio = float(np.max(rf[finite] / bound[finite])) if self.mode != "baseline" and finite.any() else None
        return self.verdict(res, conditions=conds, seeds=seeds, constants=vals,
                            statement=_theorem(self.theorem).statement, reference_gap=sp.certificate(),
                            smallest_measured=self.eps * float(np.nanmin(_values(records, "psi0"))),
                            bound_ratio=ratio, extra={"grid": list(self.grid), "grid_variable": self.grid_key,
                                                      "rounds_f": rf.tolist()})


    def _judge_inner(self, records: pd.DataFrame, conds: list[dict], vals: dict, seeds: list[int], sp: Any,
                     x: np.ndarray) -> dict:
        rg = _values(records, "rounds_g")[0]
        outer = _values(records, "outer")[0]
        inner_max = _values(records, "inner_max")[0]
        bound = _values(records, "inner_bound")[0]
        lo, hi = INNER_SLOPE_BAND
        if np.any(~np.isfinite(rg)) or np.any(rg <= 0):
            res = CheckResult("fail", "non-finite counts", f"slope in [{lo:g}, {hi:g}]", "band (deterministic)",
                              "some runs diverged or did not reach the target")
            slope = float("nan")
        else:
            slope = float(np.polyfit(np.log(x), np.log(rg), 1)[0])
            bound_slope = float(np.polyfit(np.log(x), np.log(bound), 1)[0])
            over = inner_max > bound
            ok = lo <= slope <= hi and not np.any(over)
            mean_t = rg / (2 * outer)
            res = CheckResult(
                "pass" if ok else "fail", f"slope {slope:.3f}", f"slope ½ + log drift, in [{lo:g}, {hi:g}]",
                f"band [{lo:g}, {hi:g}] (deterministic); max inner T ≤ Theorem 8's count",
                f"fitted exponent of R_g in delta_g: {slope:.3f} (R_g {', '.join(f'{v:.0f}' for v in rg)}; exponent of "
                f"Theorem 8's sufficient count over the grid {bound_slope:.3f}); mean inner T per outer step "
                f"{', '.join(f'{v:.3g}' for v in mean_t)}, max {', '.join(f'{v:.0f}' for v in inner_max)} vs "
                f"Theorem 8's sufficient count {', '.join(f'{v:.0f}' for v in bound)}"
                + (f"; max inner T exceeds the count at {int(over.sum())} points" if np.any(over) else ""),
                fit={"slope": slope, "intercept": float("nan"), "lo": slope, "hi": slope})
        finite = np.isfinite(inner_max)
        ratio = float(np.max(inner_max[finite] / bound[finite])) if finite.any() else None
        return self.verdict(res, conditions=conds, seeds=seeds, constants=vals,
                            statement=_theorem(self.theorem).statement, reference_gap=sp.certificate(),
                            smallest_measured=self.eps * float(np.nanmin(_values(records, "psi0"))),
                            bound_ratio=ratio, extra={"grid": list(self.grid), "grid_variable": self.grid_key,
                                                      "rounds_g": rg.tolist(), "inner_max": inner_max.tolist(),
                                                      "inner_bound": bound.tolist()})

    def _judge_ratio(self, records: pd.DataFrame, conds: list[dict], vals: dict, seeds: list[int], sp: Any,
                     x: np.ndarray, rf: np.ndarray) -> dict:
        aeg = _values(records, "aeg_rounds_f")[0]
        ratio = rf / aeg
        res = slope_check((sp.delta_f + x) / sp.delta_f, ratio, -0.5, variable="(delta_f + delta_g)/delta_f")
        if res.verdict == "pass" and not np.all(ratio < 1):
            res = CheckResult("fail", res.measured, res.predicted, res.tolerance,
                              "C-AccExtragradient does not use fewer M_f rounds than the AEG baseline everywhere")
        return self.verdict(res, conditions=conds, seeds=seeds, constants=vals,
                            statement="R_f(C-AccExtragradient)/R_f(AEG) = O(sqrt(delta_f/(delta_f + delta_g))) "
                            "(Theorem 4 against Section 7.1's O(sqrt((delta_f + delta_g)/mu)) for AEG)",
                            reference_gap=sp.certificate(),
                            smallest_measured=self.eps * float(np.nanmin(_values(records, "psi0"))),
                            extra={"grid": list(self.grid), "grid_variable": self.grid_key,
                                   "ratio": ratio.tolist()})


@dataclass(frozen=True)
class A4ExactClaim(_BylinkinClaim):
    """Exact per-step contraction along the bottom eigenvector, and the spectral radius with exact subproblems."""

    outer_steps: int = 40
    needs: tuple[str, ...] = ("g", "f1g")

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        from fedrates.solvers.algorithms._separation import simulate as run

        problem, sp = self._setup()
        alg = _algorithm(self, "c_acc_extragradient", subproblem="boundary")
        proj: list[float] = []
        run(alg, problem, self.outer_steps, [0], record=lambda k, st: proj.append(float((alg.output(st)[0] - sp.xstar)
                                                                                       @ sp.bottom)))
        p = np.asarray(proj)
        ratios = p[1:] / p[:-1]
        exact = dataclasses.replace(alg, inner="exact")
        T = probe_map(exact, problem, sp, ("x", "xbar"))
        values = {"projection_ratio_min": float(ratios.min()), "projection_ratio_max": float(ratios.max()),
                  "spectral_radius": float(np.max(np.abs(np.linalg.eigvals(T)))),
                  "smallest_projection": float(np.min(np.abs(p)))}
        return _records(self, 0, point, values, list(seeds), problem.dim)

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        problem, sp = self._setup()
        t = _a4_tuning(sp)
        conds, vals, seeds, early = self._judge_common(records, sp)
        if early:
            return early
        rho = t["rho_out"]
        lo, hi = _values(records, "projection_ratio_min")[0, 0], _values(records, "projection_ratio_max")[0, 0]
        sr = _values(records, "spectral_radius")[0, 0]
        proj_ok = abs(lo - rho) <= PROJECTION_RELATIVE * rho and abs(hi - rho) <= PROJECTION_RELATIVE * rho
        sr_ok = abs(sr - rho) <= SPECTRAL_RELATIVE * rho
        measured = f"projection ratios [{lo:.12g}, {hi:.12g}], spectral radius {sr:.12g}"
        res = CheckResult("pass" if proj_ok and sr_ok else "fail", measured, f"1 − ½√(μθ_f) = {rho:.12g}",
                          f"relative {PROJECTION_RELATIVE:g} (projection), {SPECTRAL_RELATIVE:g} (spectral radius)",
                          ("both equal" if proj_ok and sr_ok else "differs from") + f" the exact factor {rho:.12g} "
                          f"({self.outer_steps} outer steps, inner phase stopped by (6))")
        return self.verdict(res, conditions=conds, seeds=seeds, constants={**vals, "rho_out": rho},
                            statement=_theorem(self.theorem).statement, reference_gap=sp.certificate(),
                            smallest_measured=_values(records, "smallest_projection")[0, 0] ** 2 * sp.mu)


@dataclass(frozen=True)
class A4CriterionClaim(_BylinkinClaim):
    """Each outer subproblem returned by the inner phase meets criterion (6) (recomputed independently)."""

    outer_steps: int = 30
    needs: tuple[str, ...] = ("g", "f1g")

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        from fedrates.solvers.algorithms._separation import simulate as run

        problem, sp = self._setup()
        t = _a4_tuning(sp)
        alg = _algorithm(self, "c_acc_extragradient", subproblem="boundary")
        states: list[dict] = []
        run(alg, problem, self.outer_steps, [0], record=lambda k, st: states.append({"x": st["x"].copy(),
                                                                                      "xbar": st["xbar"].copy()}))
        d = problem.dim
        MA = np.eye(d) / t["theta_f"] + sp.A_f1 + sp.A_g
        ratios, dist = [], []
        for old, new in zip(states[:-1], states[1:], strict=True):
            xl = t["tau_f"] * old["x"][0] + (1 - t["tau_f"]) * old["xbar"][0]
            ck = (sp.A_f - sp.A_f1) @ xl - (sp.b_f - sp.b_f1)
            Astar = np.linalg.solve(MA, xl / t["theta_f"] - ck + sp.b_f1 + sp.b_g)
            g = MA @ (new["xbar"][0] - Astar)
            r2 = float((xl - Astar) @ (xl - Astar))
            ratios.append(float(g @ g) / (sp.delta_f**2 / 3 * r2))
            dist.append(r2)
        values = {"criterion_ratio_max": max(ratios), "criterion_ratio_min": min(ratios),
                  "smallest_distance": min(dist)}
        return _records(self, 0, point, values, list(seeds), problem.dim, bound=1.0)

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        problem, sp = self._setup()
        conds, vals, seeds, early = self._judge_common(records, sp)
        if early:
            return early
        worst = _values(records, "criterion_ratio_max")[0, 0]
        res = max_ratio_check(np.array([worst]), "‖∇A(x̄_{k+1})‖²/((δ_f²/3)‖x̲_k − argmin A‖²) per outer step")
        return self.verdict(res, conditions=conds, seeds=seeds, constants=vals,
                            statement=_theorem(self.theorem).statement, reference_gap=sp.certificate(),
                            smallest_measured=_values(records, "smallest_distance")[0, 0], bound_ratio=worst)


@dataclass(frozen=True)
class InnerRecursionClaim(_BylinkinClaim):
    """Theorem 8: Ψ_{t+1} + (θ_g/(2τ_g))‖∇A(x̄_{t+1})‖² ≤ (1 − ½√(θ_g/θ_f))Ψ_t at every inner step,
    Ψ_t = (1/η_g)‖x_t − A*‖² + (w/τ_g)(A(x̄_t) − A*) with w = 2 (corrected) or 1 (printed proof)."""

    outer_steps: int = 6
    gap_weight: float = 2.0
    needs: tuple[str, ...] = ("g", "f1g")

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        from fedrates.solvers.algorithms._separation import simulate as run

        problem, sp = self._setup()
        t = _a4_tuning(sp)
        alg = _algorithm(self, "c_acc_extragradient", subproblem="boundary")
        log: list[dict] = []
        state_holder: dict = {}

        def hook(k: int, st: dict) -> None:
            st["_inner_log"] = log
            state_holder["s"] = st

        run(alg, problem, self.outer_steps, [0], record=hook)
        eta_g, tau_g, theta_g, rho_in = t["eta_g"], t["tau_g"], t["theta_g"], t["rho_in"]
        w = self.gap_weight
        ratios, psis = [], []
        for e in log:
            if not e["active"][0]:
                continue
            Astar, MA = e["A_star"][0], e["M_A"]

            def psi(x: np.ndarray, xb: np.ndarray, Astar: np.ndarray = Astar, MA: np.ndarray = MA) -> float:
                dx, db = x - Astar, xb - Astar
                return float(dx @ dx / eta_g + w / tau_g * 0.5 * db @ MA @ db)

            p0 = psi(e["x"][0], e["xbar"][0])
            g = MA @ (e["xbar_next"][0] - Astar)
            p1 = psi(e["x_next"][0], e["xbar_next"][0]) + theta_g / (2 * tau_g) * float(g @ g)
            ratios.append(p1 / (rho_in * p0))
            psis.append(p0)
        values = {"recursion_ratio_max": max(ratios), "smallest_psi": min(psis), "inner_steps": float(len(ratios))}
        return _records(self, 0, point, values, list(seeds), problem.dim, bound=1.0)

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        problem, sp = self._setup()
        t = _a4_tuning(sp)
        conds, vals, seeds, early = self._judge_common(records, sp, theta=t["theta_f"], theta_g=t["theta_g"])
        if early:
            return early
        worst = _values(records, "recursion_ratio_max")[0, 0]
        n = int(_values(records, "inner_steps")[0, 0])
        res = max_ratio_check(np.array([worst]), f"Theorem 8 recursion (gap weight {self.gap_weight:g}/τ_g) over "
                                                 f"{n} inner steps")
        return self.verdict(res, conditions=conds, seeds=seeds, constants={**vals, "rho_in": t["rho_in"]},
                            statement=_theorem(self.theorem).statement, reference_gap=0.0,
                            smallest_measured=_values(records, "smallest_psi")[0, 0], bound_ratio=worst)


# ---- Monte-Carlo exact means ----------------------------------------------------------------------------------
def _a1_mean_operator(sp: Any, theta: float, p: float) -> np.ndarray:
    """E[s_{k+1}] = M̄ E[s_k] for SC-AccExtragradient with exact subproblems, s = (x − x*, x̄ − x*): the four
    branches (ξ coin × ζ coin, independent) averaged, built from the instance matrices."""
    d = sp.H.shape[0]
    I = np.eye(d)
    tau = math.sqrt(sp.mu * theta)
    eta = min(1 / (2 * sp.mu), 0.5 * math.sqrt(theta / sp.mu))
    alpha = sp.mu
    Minv = np.linalg.inv(I / theta + sp.H1)
    Df, Dg = sp.A_f - sp.A_f1, sp.A_g - sp.A_g1
    # interpolating instance: every gradient vanishes at x*, so ξ = Ξ_branch e_low and x̄' − x* = Minv(I/θ − Ξ)e_low
    Xi_mean = Df + Dg  # p·Df/p + (1−p)·Dg/(1−p)
    B = Minv @ (I / theta - Xi_mean)  # mean map e_low -> ē'
    Z_mean = sp.A_f + sp.A_g  # E ζ-slope
    L = np.hstack([tau * I, (1 - tau) * I])  # e_low = τ e + (1 − τ) ē
    Ebar = B @ L
    Ex = np.hstack([(1 - eta * alpha) * I, np.zeros((d, d))]) + (eta * alpha * I - eta * Z_mean) @ Ebar
    return np.vstack([Ex, Ebar])


@dataclass(frozen=True)
class A1MeanClaim(_BylinkinClaim):
    """E[u·(x_K − x*)] for two directions u (bottom eigenvector of H, and a fixed generic one) equals the exact mean
    recursion; SC-AccExtragradient on an interpolating instance at θ = 0.1/(3(δ_f + δ_g))."""

    iterations: int = 12
    theta_scale: float = 0.1
    n_seeds: dict = field(default_factory=lambda: {"quick": 6000, "standard": 10000, "full": 40000})
    batch: int = 100

    def _directions(self, d: int, sp: Any) -> np.ndarray:
        u = np.random.default_rng(7).standard_normal(d)
        return np.stack([sp.bottom, u / np.linalg.norm(u)])

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        from fedrates.solvers.algorithms._separation import simulate as run

        problem, sp = self._setup()
        alg = _algorithm(self, "sc_acc_extragradient", theta_scale=self.theta_scale)
        x0 = sp.xstar + np.ones(problem.dim)
        st = run(alg, problem, self.iterations, self.replicas(seeds), w0=x0)
        U = self._directions(problem.dim, sp)
        proj = self.batch_means((alg.output(st) - sp.xstar) @ U.T)
        frames = [_records(self, j, point, {"projection": proj[:, j]}, list(seeds), problem.dim) for j in range(2)]
        return pd.concat(frames, ignore_index=True)

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        problem, sp = self._setup()
        theta = self.theta_scale / (sp.delta_f + sp.delta_g)
        p = sp.delta_f / (sp.delta_f + sp.delta_g)
        conds, vals, seeds, early = self._judge_common(records, sp, theta=theta, sigma=0.0)
        if early:
            return early
        M = _a1_mean_operator(sp, theta, p)
        d = problem.dim
        s0 = np.concatenate([np.ones(d), np.ones(d)])
        sK = np.linalg.matrix_power(M, self.iterations) @ s0
        expected = self._directions(d, sp) @ sK[:d]
        y = _values(records, "projection")
        res = checks.exact_expectation(y, expected)
        return self.verdict(res, conditions=conds, seeds=seeds, constants={**vals, "p": p},
                            statement=_theorem(self.theorem).statement, reference_gap=sp.certificate(),
                            smallest_measured=float(np.min(np.abs(expected))) ** 2 * sp.mu)


def a1_branches(sp: Any, theta: float, p: float) -> list[tuple[float, np.ndarray]]:
    """(probability, matrix) of the four coin branches of one SC-AccExtragradient iteration with exact subproblems on
    an interpolating instance, in error coordinates s = (x − x*, x̄ − x*)."""
    d = sp.H.shape[0]
    I = np.eye(d)
    tau = math.sqrt(sp.mu * theta)
    eta = min(1 / (2 * sp.mu), 0.5 * math.sqrt(theta / sp.mu))
    alpha = sp.mu
    Minv = np.linalg.inv(I / theta + sp.H1)
    L = np.hstack([tau * I, (1 - tau) * I])
    xi = {True: (sp.A_f - sp.A_f1) / p, False: (sp.A_g - sp.A_g1) / (1 - p)}
    zeta = {True: sp.A_f / p, False: sp.A_g / (1 - p)}
    out = []
    for c1 in (True, False):
        Ebar = Minv @ (I / theta - xi[c1]) @ L
        for c2 in (True, False):
            Ex = np.hstack([(1 - eta * alpha) * I, np.zeros((d, d))]) + (eta * alpha * I - eta * zeta[c2]) @ Ebar
            prob = (p if c1 else 1 - p) * (p if c2 else 1 - p)
            out.append((prob, np.vstack([Ex, Ebar])))
    return out


def second_moment_operator(branches: list[tuple[float, np.ndarray]]) -> np.ndarray:
    """Σ_b π_b M_b ⊗ M_b: vec(E[s sᵀ]) evolves by this operator (coins independent of the state)."""
    return sum(prob * np.kron(M, M) for prob, M in branches)


@dataclass(frozen=True)
class A1SecondMomentClaim(_BylinkinClaim):
    """E Φ^c_K (corrected Lyapunov function, x_K and x̄_K) equals the exact second-moment recursion
    S_{k+1} = Σ_b π_b M_b S_k M_bᵀ; interpolating instance, reduced θ (the second moment diverges at the maximal θ
    of (9) on this instance: its operator's spectral radius is reported)."""

    iterations: int = 12
    theta_scale: float = 0.1
    n_seeds: dict = field(default_factory=lambda: {"quick": 6000, "standard": 10000, "full": 40000})
    batch: int = 100

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        from fedrates.solvers.algorithms._separation import simulate as run

        problem, sp = self._setup()
        alg = _algorithm(self, "sc_acc_extragradient", theta_scale=self.theta_scale)
        st = run(alg, problem, self.iterations, self.replicas(seeds), w0=sp.xstar + np.ones(problem.dim))
        e = st["x"] - sp.xstar
        phi = self.batch_means(sp.mu * np.einsum("ri,ri->r", e, e) + sp.gap(st["xbar"]))
        return _records(self, 0, point, {"lyapunov": phi}, list(seeds), problem.dim)

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        problem, sp = self._setup()
        d = problem.dim
        theta = self.theta_scale / (sp.delta_f + sp.delta_g)
        p = sp.delta_f / (sp.delta_f + sp.delta_g)
        conds, vals, seeds, early = self._judge_common(records, sp, theta=theta, sigma=0.0, Phi_k=1.0, Phic_k=1.0)
        if early:
            return early
        op = second_moment_operator(a1_branches(sp, theta, p))
        s0 = np.ones(2 * d)
        S = np.linalg.matrix_power(op, self.iterations) @ np.outer(s0, s0).reshape(-1)
        P = np.block([[sp.mu * np.eye(d), np.zeros((d, d))], [np.zeros((d, d)), 0.5 * sp.H]])
        expected = float(np.sum(P * S.reshape(2 * d, 2 * d)))
        res = checks.exact_expectation(_values(records, "lyapunov"), np.array([expected]))
        radius = {scale: float(np.max(np.abs(np.linalg.eigvals(second_moment_operator(
            a1_branches(sp, scale / (sp.delta_f + sp.delta_g), p)))))) for scale in (self.theta_scale, 1 / 3)}
        return self.verdict(res, conditions=conds, seeds=seeds, constants={**vals, "p": p},
                            statement=_theorem(self.theorem).statement, reference_gap=sp.certificate(),
                            smallest_measured=expected,
                            extra={"second_moment_radius": {f"{k:.4g}": v for k, v in radius.items()},
                                   "rho_squared": (1 - 0.5 * math.sqrt(sp.mu * theta)) ** 2})


def a1_affine_branches(sp: Any, theta: float, p: float) -> list[tuple[float, np.ndarray, np.ndarray]]:
    """(π_b, M_b, c_b) of the four coin branches of one SC-AccExtragradient iteration with exact subproblems on a
    general instance: s_{k+1} = M_b s_k + c_b in error coordinates s = (x − x*, x̄ − x*), built from the instance
    matrices (c_b ≠ 0 when the oracle variance at x* is positive; Σ_b π_b c_b = 0 for unbiased oracles)."""
    d = sp.H.shape[0]
    I = np.eye(d)
    tau = math.sqrt(sp.mu * theta)
    eta = min(1 / (2 * sp.mu), 0.5 * math.sqrt(theta / sp.mu))
    alpha = sp.mu
    Minv = np.linalg.inv(I / theta + sp.H1)
    xs = sp.xstar
    L = np.hstack([tau * I, (1 - tau) * I])
    Df, Dg = sp.A_f - sp.A_f1, sp.A_g - sp.A_g1
    # ∇(f − f_1)(x* + e) = Df e + gf0, ∇f(x* + e) = A_f e + f0, likewise for g
    gf0, gg0 = Df @ xs - (sp.b_f - sp.b_f1), Dg @ xs - (sp.b_g - sp.b_g1)
    f0, g0 = sp.A_f @ xs - sp.b_f, sp.A_g @ xs - sp.b_g
    xi = {True: (Df / p, gf0 / p), False: (Dg / (1 - p), gg0 / (1 - p))}
    zeta = {True: (sp.A_f / p, f0 / p), False: (sp.A_g / (1 - p), g0 / (1 - p))}
    keep = np.hstack([(1 - eta * alpha) * I, np.zeros((d, d))])
    out = []
    for c1 in (True, False):
        Xi, xi0 = xi[c1]
        Ebar = Minv @ (I / theta - Xi) @ L
        ebar0 = Minv @ (sp.b1 - sp.H1 @ xs - xi0)
        for c2 in (True, False):
            Z, z0 = zeta[c2]
            Ex = keep + (eta * alpha * I - eta * Z) @ Ebar
            ex0 = (eta * alpha * I - eta * Z) @ ebar0 - eta * z0
            prob = (p if c1 else 1 - p) * (p if c2 else 1 - p)
            out.append((prob, np.vstack([Ex, Ebar]), np.concatenate([ex0, ebar0])))
    return out


def a1_second_moment(branches: list[tuple[float, np.ndarray, np.ndarray]], K: int | None) -> np.ndarray:
    """E[s_K s_Kᵀ] from s_0 = 0 (x_0 = x̄_0 = x*) by the exact affine recursion (augmented state (s, 1)), or the
    stationary second moment (``K=None``: S = Σ_b π_b(M_b S M_bᵀ + c_b c_bᵀ), a linear solve; the stationary mean
    is 0 because Σ_b π_b c_b = 0 and the mean map is a contraction)."""
    n = branches[0][1].shape[0]
    if K is None:
        op = sum(pb * np.kron(M, M) for pb, M, _ in branches)
        rhs = sum(pb * np.outer(c, c) for pb, _, c in branches).reshape(-1)
        return np.linalg.solve(np.eye(n * n) - op, rhs).reshape(n, n)
    aug = []
    for pb, M, c in branches:
        A = np.zeros((n + 1, n + 1))
        A[:n, :n], A[:n, n], A[n, n] = M, c, 1.0
        aug.append((pb, A))
    S = np.zeros((n + 1, n + 1))
    S[n, n] = 1.0
    for _ in range(K):
        S = sum(pb * A @ S @ A.T for pb, A in aug)
    return S[:n, :n]


def a1_stationary_variances(sp: Any, theta: float, p: float, S: np.ndarray) -> tuple[float, float]:
    """Expected oracle variances E‖ξ_k − ∇(h − h_1)(x̲_k)‖², E‖ζ_k − ∇h(x̄_{k+1})‖² under the (mean-zero) state
    second moment S, from the exact conditional variance ‖(1 − p)a − pb‖²/(p(1 − p)) of a two-point estimator."""
    d = sp.H.shape[0]
    I = np.eye(d)
    tau = math.sqrt(sp.mu * theta)
    L = np.hstack([tau * I, (1 - tau) * I])
    Df, Dg = sp.A_f - sp.A_f1, sp.A_g - sp.A_g1
    xs = sp.xstar
    gf0, gg0 = Df @ xs - (sp.b_f - sp.b_f1), Dg @ xs - (sp.b_g - sp.b_g1)
    f0, g0 = sp.A_f @ xs - sp.b_f, sp.A_g @ xs - sp.b_g
    pq = p * (1 - p)
    U, u0 = ((1 - p) * Df - p * Dg) @ L, (1 - p) * gf0 - p * gg0
    var_xi = (u0 @ u0 + np.trace(U.T @ U @ S)) / pq
    W, w0 = (1 - p) * sp.A_f - p * sp.A_g, (1 - p) * f0 - p * g0
    Minv = np.linalg.inv(I / theta + sp.H1)
    var_zeta = 0.0
    for c1, prob in ((True, p), (False, 1 - p)):
        Xi, xi0 = (Df / p, gf0 / p) if c1 else (Dg / (1 - p), gg0 / (1 - p))
        E = Minv @ (I / theta - Xi) @ L
        e0 = Minv @ (sp.b1 - sp.H1 @ xs - xi0)
        v0, V = W @ e0 + w0, W @ E
        var_zeta += prob * (v0 @ v0 + np.trace(V.T @ V @ S)) / pq
    return float(var_xi), float(var_zeta)


@observed_cache
def _a1_from_optimum(alg: Any, params_json: str, iterations: int, replicas: tuple[int, ...]) -> tuple[np.ndarray, ...]:
    """‖x_K − x*‖² and the gap of x̄_K per replica, SC-AccExtragradient from x_0 = x̄_0 = x* (shared by the printed and
    the corrected noise-floor claims)."""
    from fedrates.solvers.algorithms._separation import simulate as run

    problem, sp = _instance_json(params_json)
    st = run(alg, problem, iterations, list(replicas), w0=sp.xstar)
    e = st["x"] - sp.xstar
    return np.einsum("ri,ri->r", e, e), sp.gap(st["xbar"])


@dataclass(frozen=True)
class A1NoiseFloorClaim(_BylinkinClaim):
    """Theorem 5's noise floor: with constant θ, lim sup E Φ_k ≤ 8√(θ/μ)σ² (printed Φ = (τ/η)‖x − x*‖² + gap,
    additive 4θσ²) or E Φ^c ≤ 4√(θ/μ)σ² (corrected Φ^c = μ‖x − x*‖² + gap, additive 2θσ²).

    Assumption 4's σ² is unbounded on quadratics (the oracle variance grows with ‖x − x*‖²), so σ² is read as the
    largest of the two *expected* oracle variances under the stationary distribution: the proof (App. B) uses
    Assumption 4 only inside expectations and linearly (2ησ² from ζ_k, 3θσ² from ξ_k), so the recursion holds with
    E[Var] in place of σ² — a smaller σ² than any sup, hence a sharper test.  Measured: (1) the method's Monte-Carlo
    E Φ_K from x_0 = x̄_0 = x* equals the exact affine second-moment recursion (four coin branches, two-sided); (2)
    the exact stationary E Φ (linear solve) lies below the floor at the claim's θ and at every θ of ``theta_grid``
    (scales of 1/(δ_f + δ_g))."""

    mode: str = "corrected"  # corrected | printed
    iterations: int = 60
    theta_scale: float = 0.1
    theta_grid: tuple[float, ...] = (0.1, 0.03, 0.01, 0.003)
    #: Φ is heavy-tailed (multiplicative oracle noise): 6000 replicas resolve 10% at the exact-expectation confidence
    n_seeds: dict = field(default_factory=lambda: {"quick": 6000, "standard": 12000, "full": 40000})
    batch: int = 100

    def _weight(self, sp: Any, theta: float) -> float:
        tau = math.sqrt(sp.mu * theta)
        eta = min(1 / (2 * sp.mu), 0.5 * math.sqrt(theta / sp.mu))
        return tau / eta if self.mode == "printed" else sp.mu

    def _floor_factor(self) -> float:
        return 8.0 if self.mode == "printed" else 4.0

    def _P(self, sp: Any, theta: float) -> np.ndarray:
        d = sp.H.shape[0]
        Z = np.zeros((d, d))
        return np.block([[self._weight(sp, theta) * np.eye(d), Z], [Z, 0.5 * sp.H]])

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        problem, sp = self._setup()
        alg = _algorithm(self, "sc_acc_extragradient", theta_scale=self.theta_scale)
        theta = self.theta_scale / (sp.delta_f + sp.delta_g)
        dist2, gap = _a1_from_optimum(alg, json.dumps(self.params, sort_keys=True), self.iterations,
                                      tuple(self.replicas(seeds)))
        phi = self.batch_means(self._weight(sp, theta) * dist2 + gap)
        return _records(self, 0, point, {"lyapunov": phi}, list(seeds), problem.dim)

    def floors(self, sp: Any) -> list[dict[str, float]]:
        """Exact stationary E Φ, σ̄² and the floor for every θ scale of ``theta_grid`` (and the claim's)."""
        p = sp.delta_f / (sp.delta_f + sp.delta_g)
        out = []
        for scale in sorted({self.theta_scale, *self.theta_grid}, reverse=True):
            theta = scale / (sp.delta_f + sp.delta_g)
            S = a1_second_moment(a1_affine_branches(sp, theta, p), None)
            vx, vz = a1_stationary_variances(sp, theta, p, S)
            sigma2 = max(vx, vz)
            out.append({"scale": scale, "theta": theta, "stationary": float(np.sum(self._P(sp, theta) * S)),
                        "sigma2": sigma2, "var_xi": vx, "var_zeta": vz,
                        "floor": self._floor_factor() * math.sqrt(theta / sp.mu) * sigma2})
        return out

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        problem, sp = self._setup()
        theta = self.theta_scale / (sp.delta_f + sp.delta_g)
        p = sp.delta_f / (sp.delta_f + sp.delta_g)
        conds, vals, seeds, early = self._judge_common(records, sp, theta=theta, sigma=1.0, Phi_k=1.0, Phic_k=1.0)
        if early:
            return early
        branches = a1_affine_branches(sp, theta, p)
        radius = float(np.max(np.abs(np.linalg.eigvals(sum(pb * np.kron(M, M) for pb, M, _ in branches)))))
        if radius >= 1:
            conds = conds + [{"condition": "second-moment operator of the four coin branches contracts (spectral "
                              "radius < 1; otherwise E Phi diverges: Assumption 4 fails on quadratics)",
                              "holds": False, "value": f"{radius:.6g}"}]
            return self.conditions_not_met(conds, seeds, vals, _theorem(self.theorem).statement)
        expected = float(np.sum(self._P(sp, theta) * a1_second_moment(branches, self.iterations)))
        res = checks.exact_expectation(_values(records, "lyapunov"), np.array([expected]))
        table = self.floors(sp)
        ratios = np.array([r["stationary"] / r["floor"] for r in table])
        scales = np.array([r["scale"] for r in table])
        stationary = np.array([r["stationary"] for r in table])
        slope = float(np.polyfit(np.log(scales), np.log(stationary), 1)[0])
        name = "Phi" if self.mode == "printed" else "Phi^c"
        floor_txt = (f"stationary E {name} / ({self._floor_factor():g} sqrt(theta/mu) sigma^2) = "
                     + ", ".join(f"{r:.4g}" for r in ratios) + " at theta scales " + ", ".join(f"{s:g}" for s in scales)
                     + f" (exponent of the stationary value in theta: {slope:.3f}; the floor's: 0.5)")
        over = ratios > 1 + RATIO_SLACK
        if res.verdict == "pass" and np.any(over):
            res = CheckResult("fail", res.measured, res.predicted, res.tolerance,
                              f"{res.message}; the exact stationary E {name} exceeds the noise floor: {floor_txt}")
        else:
            res.message += f"; {floor_txt}"
        return self.verdict(res, conditions=conds, seeds=seeds, constants={**vals, "p": p},
                            statement=_theorem(self.theorem).statement, reference_gap=sp.certificate(),
                            smallest_measured=expected, bound_ratio=float(ratios.max()),
                            extra={"noise_floor": table, "second_moment_radius": radius,
                                   "stationary_theta_exponent": slope})


def _epoch_operator(sp: Any, theta: float, q: float) -> np.ndarray:
    """E[x_T − x*] = qN(I − (1 − q)N)^{-1}(x_0 − x*), N = (I/θ + H_1)^{-1}(I/θ − (H − H_1)), T ~ Geom(q) ≥ 1."""
    d = sp.H.shape[0]
    I = np.eye(d)
    N = np.linalg.solve(I / theta + sp.H1, I / theta - (sp.H - sp.H1))
    return q * N @ np.linalg.inv(I - (1 - q) * N)


@dataclass(frozen=True)
class VRMeanClaim(_BylinkinClaim):
    """VRCS (A6) or AccVRCS (A3): the Monte-Carlo mean of two projections of the output error equals the exact mean
    recursion built from the epoch operator (AccVRCS: with the proof's sign −t_k)."""

    iterations: int = 3
    n_seeds: dict = field(default_factory=lambda: {"quick": 400, "standard": 800, "full": 3200})
    batch: int = 10
    #: projections measured: bottom and top eigenvectors of H, and a fixed generic unit vector
    directions: tuple[str, ...] = ("bottom", "generic")
    #: run AccVRCS exactly as printed (Line 7: G = q(t_k + (x − y)/θ)) instead of the proof's sign
    printed_line7: bool = False
    #: sign of t_k in the predicted mean recursion (−1: the proof's G = q(∇ψ(x) − ∇ψ(y)))
    predicted_tk_sign: float = -1.0

    def _directions(self, d: int, sp: Any) -> np.ndarray:
        u = np.random.default_rng(11).standard_normal(d)
        table = {"bottom": sp.bottom, "top": np.linalg.eigh(sp.H)[1][:, -1], "generic": u / np.linalg.norm(u)}
        return np.stack([table[k] for k in self.directions])

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        from fedrates.solvers.algorithms._separation import simulate as run

        problem, sp = self._setup()
        if self.printed_line7 and self.algorithm_override is None:
            alg = variant_algorithm("printed-sign")
        else:
            alg = _algorithm(self, self.algorithm)
        x0 = sp.xstar + np.ones(problem.dim)
        st = run(alg, problem, self.iterations, self.replicas(seeds), w0=x0)
        proj = self.batch_means((alg.output(st) - sp.xstar) @ self._directions(problem.dim, sp).T)
        frames = [_records(self, j, point, {"projection": proj[:, j]}, list(seeds), problem.dim)
                  for j in range(proj.shape[1])]
        return pd.concat(frames, ignore_index=True)

    def expected(self, sp: Any) -> np.ndarray:
        d = sp.H.shape[0]
        p = sp.delta_f**2 / (sp.delta_f**2 + sp.delta_g**2)
        q = p
        theta = 0.25 * math.sqrt(p * (1 - p) * q / (p * sp.delta_g**2 + (1 - p) * sp.delta_f**2))
        E = _epoch_operator(sp, theta, q)
        e0 = np.ones(d)
        if self.algorithm == "vrcs":
            eK = np.linalg.matrix_power(E, self.iterations) @ e0
        else:
            tau = math.sqrt(theta * sp.mu / (3 * q))
            alpha = math.sqrt(theta / (3 * sp.mu * q))
            I = np.eye(d)
            Gm = q * (I / theta + self.predicted_tk_sign * (sp.H - sp.H1))  # G = Gm (e_x − e_y')
            c = 1 + 0.5 * sp.mu * alpha
            # state (e_z, e_y); e_x = τ e_z + (1 − τ) e_y; E e_y' = E e_x
            Ex = np.hstack([tau * I, (1 - tau) * I])
            Ey = E @ Ex
            Ez = (np.hstack([I, np.zeros((d, d))]) + 0.5 * sp.mu * alpha * Ey - alpha * Gm @ (Ex - Ey)) / c
            M = np.vstack([Ez, Ey])
            eK = (np.linalg.matrix_power(M, self.iterations) @ np.concatenate([e0, e0]))[d:]
        return self._directions(d, sp) @ eK

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        problem, sp = self._setup()
        conds, vals, seeds, early = self._judge_common(records, sp)
        if early:
            return early
        expected = self.expected(sp)
        res = checks.exact_expectation(_values(records, "projection"), expected)
        return self.verdict(res, conditions=conds, seeds=seeds, constants=vals,
                            statement=_theorem(self.theorem).statement, reference_gap=sp.certificate(),
                            smallest_measured=float(np.min(np.abs(expected))) ** 2 * sp.mu)


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
        # (mean rounds over the count: Theorems 6/7's constants sit 12-33x above the measured rounds) but not judged
        fit = res.fit or {}
        margin = (mg.ci(float(fit["hi"]) - float(fit["lo"]), self.tolerance)
                  if fit.get("hi") is not None and np.isfinite(fit.get("hi", np.nan)) else None)
        if ratio is not None:
            extra["explicit_count_slack"] = 1.0 / ratio if ratio > 0 else None
        return self.verdict(res, conditions=conds, seeds=seeds, constants={**vals, "eps": self.eps},
                            statement=_theorem(self.theorem).statement, reference_gap=max(s.certificate() for s in sps),
                            smallest_measured=self.eps * float(np.min(_values(records, "gap0"))),
                            bound_ratio=ratio, margin=margin, extra=extra)


# ---- exact expected round counts -----------------------------------------------------------------------------
@dataclass(frozen=True)
class RoundsClaim(_BylinkinClaim):
    """Expected rounds per iteration with one group, checked two-sided with the exact standard deviation.

    ``kind``: ``a1`` (SC-AccExtragradient, E R_f = 2p per iteration, binomial), ``vrcs_f``/``vrcs_g`` (per epoch
    1 + p/q, 1 + (1 − p)/q), ``acc_paper_f`` (the paper's 1 + p/q per AccVRCS iteration), ``acc_f``/``acc_g``
    (2 + p/q, 2 + (1 − p)/q: the round for t_k counted)."""

    kind: str = "a1"
    iterations: int = 40
    n_seeds: dict = field(default_factory=lambda: {"quick": 200, "standard": 400, "full": 1600})
    batch: int = 5

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        from fedrates.solvers.algorithms._separation import simulate as run

        problem, sp = self._setup()
        alg = _algorithm(self, self.algorithm)
        st = run(alg, problem, self.iterations, self.replicas(seeds))
        group = "rounds_g" if self.kind.endswith("_g") else "rounds_f"
        values = {"rounds_per_iteration": self.batch_means(st[group] / self.iterations)}
        if self.kind == "a1_var":
            p = sp.delta_f / (sp.delta_f + sp.delta_g)
            values = {"squared_deviation": self.batch_means((st[group] - 2 * self.iterations * p) ** 2)}
        return _records(self, 0, point, values, list(seeds), problem.dim)

    def prediction(self, sp: Any) -> tuple[float, float, dict]:
        """(mean, sd of one replica's value, values)."""
        K = self.iterations
        if self.kind == "a1_var":
            # R_f ~ Binomial(2K, p) when the two coins of an iteration are independent: E(R_f − 2Kp)² = 2Kp(1 − p),
            # Var = μ4 − σ⁴ with μ4 = nπ(1 + 3(n − 2)π), π = p(1 − p), n = 2K
            p = sp.delta_f / (sp.delta_f + sp.delta_g)
            n, pi = 2 * K, p * (1 - p)
            mu4 = n * pi * (1 + 3 * (n - 2) * pi)
            return n * pi, math.sqrt(mu4 - (n * pi) ** 2), {"p": p}
        if self.kind == "a1":
            p = sp.delta_f / (sp.delta_f + sp.delta_g)
            return 2 * p, math.sqrt(2 * K * p * (1 - p)) / K, {"p": p}
        p = sp.delta_f**2 / (sp.delta_f**2 + sp.delta_g**2)
        q = p
        pg = p if self.kind.endswith("_f") else 1 - p
        extra = 1.0 if self.kind in ("acc_f", "acc_g") else 0.0
        # N = Σ_{t<T} Be(pg), T ~ Geom(q) ≥ 1: E N = pg/q, Var N = pg(1 − pg)/q + pg²(1 − q)/q²
        var = pg * (1 - pg) / q + pg**2 * (1 - q) / q**2
        return 1 + extra + pg / q, math.sqrt(var / K), {"p": p, "q": q}

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        problem, sp = self._setup()
        conds, vals, seeds, early = self._judge_common(records, sp, eps=0.5, V_0=1.0, W_0=1.0)
        if early:
            return early
        mean, sd, extra = self.prediction(sp)
        metric = "squared_deviation" if self.kind == "a1_var" else "rounds_per_iteration"
        res = checks.exact_expectation(_values(records, metric), np.array([mean]),
                                       sd=np.array([sd / math.sqrt(self.batch)]))  # sd of a batch mean
        return self.verdict(res, conditions=conds, seeds=seeds, constants={**vals, **extra},
                            statement=_theorem(self.theorem).statement, reference_gap=0.0, smallest_measured=mean)


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


# ---- the catalogue -----------------------------------------------------------------------------------------------
_SEP = {"dim": 8, "mu": 1e-3, "L": 1.0, "delta_f": 0.02, "delta_g": 0.5, "seed": 0}
_INTERP = {"dim": 8, "mu": 1e-2, "L": 1.0, "delta_f": 0.05, "delta_g": 0.5, "linear": "shared", "seed": 0}
_NOISE = {"dim": 8, "mu": 1e-2, "L": 1.0, "delta_f": 0.05, "delta_g": 0.5, "seed": 0}
_VR = {"dim": 6, "mu": 1e-2, "L": 1.0, "delta_f": 0.1, "delta_g": 0.3, "seed": 0}

#: VRCS/AccVRCS grids: δ_f/μ ∈ {2, 6.25, 20, 62.5} (1.5 decades, μ varied so that p = q and the epoch length stay
#: fixed); δ_g/δ_f ∈ {1.5, 3, 6, 12} at δ_f/μ = 5
_VR_DF = {"dim": 6, "mu": 0.01, "L": 1.0, "delta_f": 0.05, "delta_g": 0.1, "seed": 0}
_VR_MU_GRID = (0.025, 0.008, 0.0025, 0.0008)
#: δ_f grid at fixed μ = 0.005, δ_g = 0.3: δ_f/μ ∈ {5, 10, 20, 40} (p = q and the epoch length change with δ_f)
_VR_DFF = {"dim": 6, "mu": 0.005, "L": 1.0, "delta_f": 0.05, "delta_g": 0.3, "seed": 0}
_VR_DFF_GRID = (0.025, 0.05, 0.1, 0.2)
_VR_DG = {"dim": 6, "mu": 0.01, "L": 1.0, "delta_f": 0.05, "delta_g": 0.1, "seed": 0}
_VR_DG_GRID = (0.075, 0.15, 0.3, 0.6)

_COMMON = dict(problem="separation")
#: why the noise-floor claims cannot fail on their bound: Assumption 4 fails on quadratics, so σ² is read as the
#: stationary expected oracle variance, and the floor then sits about 50× above the exact stationary E Φ.  The
#: two-sided Monte-Carlo check against the exact affine second-moment recursion can still fail (a fail stays fail).
_NOISE_FLOOR_INFO = ("the floor 4 sqrt(theta/mu) sigma^2 (8 for the printed Phi), with sigma^2 the stationary expected "
                     "oracle variance (Assumption 4 fails on quadratics), lies about 50x above the exact stationary "
                     "E Phi; only the Monte-Carlo agreement with the exact second-moment recursion can fail")
#: non-convex components (§5-6 allow them) and perturbations whose modulus is attained by a negative eigenvalue
_NONCONVEX = {"components": "indefinite", "perturbation": "mixed"}

#: seeds of the δ_g-separation claims of VRCS/AccVRCS.  The fitted exponent of the hitting rounds in δ_g sits at
#: −0.06 … +0.03 (the instance-dependent log factor) and its 95% bootstrap CI over 8 seeds was ±0.07 … ±0.11 wide,
#: so at 8 seeds a base seed could push one end past the ±0.15 band (inconclusive at quick base seeds 1 and 4).
#: With 32 seeds the half-width is ≈ ±0.025: over quick base seeds 0..9 the widest excursion is [−0.082, −0.034]
#: (VRCS, seed 9) and [0.007, 0.056] (AccVRCS, seed 8), 0.07 inside the band.
_SEPARATION_SEEDS = {"quick": 32, "standard": 48, "full": 96}

CLAIMS: tuple[Claim, ...] = (
    RoundsGridClaim(
        id="bylinkin.thm4/separation-dg", theorem="bylinkin.thm4", title="C-AccExtragradient: M_f rounds "
        "independent of delta_g", algorithm="c_acc_extragradient", regime="delta_f = 0.02, mu = 1e-3, delta_g in "
        "[0.05, 3.2]; inner phase stopped by (6), inner subproblems at 1/(10 theta_g^2)",
        why="Complexity separation, the paper's headline: O(sqrt(delta_f/mu) log 1/eps) rounds with M_f whatever "
        "delta_g", metric="rounds_f", x="delta_g", params=dict(_A4_BASE), **_COMMON),
    RoundsGridClaim(
        id="bylinkin.thm4/rate-df", theorem="bylinkin.thm4", title="C-AccExtragradient: M_f rounds scale as "
        "sqrt(delta_f/mu)", algorithm="c_acc_extragradient", regime="delta_g = 1, mu = 1e-3, delta_f in "
        "[0.005, 0.32]", why="Theorem 4's O(sqrt(delta_f/mu) log 1/eps) for M_f (lower bound of Arjevani-Shamir)",
        metric="rounds_f", x="delta_f", params={**_A4_BASE, "delta_g": 1.0}, grid_key="delta_f", grid=_DF_GRID,
        mode="slope", **_COMMON),
    RoundsGridClaim(
        id="bylinkin.thm4/aeg-baseline", theorem="bylinkin.thm4", title="AEG baseline pays delta_g on M_f",
        algorithm="aeg", regime="as bylinkin.thm4/separation-dg",
        why="Section 7.1: AEG needs O(sqrt((delta_f + delta_g)/mu)) rounds with each group; C-AccExtragradient "
        "removes delta_g from the M_f count", metric="aeg_rounds_f", x="delta_g", params=dict(_A4_BASE),
        mode="baseline", **_COMMON),
    RoundsGridClaim(
        id="bylinkin.thm4.mg/inner-rounds", theorem="bylinkin.thm4.mg", title="C-AccExtragradient: M_g rounds of "
        "the inner phase scale as sqrt(delta_g) (up to the log of the O~)", algorithm="c_acc_extragradient",
        regime="as bylinkin.thm4/separation-dg (delta_g/delta_f in [2.5, 160])",
        why="Theorems 4 and 8: the inner AccExtragradient needs O(sqrt(theta_f delta_g) log) rounds with M_g per "
        "outer step, O~(sqrt(delta_g/mu) log 1/eps) in total", metric="rounds_g", x="delta_g",
        params=dict(_A4_BASE), mode="inner", **_COMMON),
    RoundsGridClaim(
        id="bylinkin.thm4/aeg-ratio", theorem="bylinkin.thm4", title="C-AccExtragradient over the AEG baseline: "
        "M_f round ratio scales as sqrt(delta_f/(delta_f + delta_g))", algorithm="c_acc_extragradient",
        regime="as bylinkin.thm4/separation-dg", why="Theorem 4's O(sqrt(delta_f/mu)) against Section 7.1's "
        "O(sqrt((delta_f + delta_g)/mu)) for AEG: the saving grows as sqrt((delta_f + delta_g)/delta_f)",
        metric="ratio", x="delta_g", params=dict(_A4_BASE), mode="ratio", **_COMMON),
    RoundsGridClaim(
        id="bylinkin.thm4/l-free", theorem="bylinkin.thm4", title="C-AccExtragradient: M_f rounds do not depend on "
        "the smoothness L", algorithm="c_acc_extragradient", regime="delta_f = 0.02, delta_g = 0.5, mu = 1e-3, "
        "L in [1, 1000]; inner phase stopped by (6)", why="No smoothness constant appears in Assumptions 1-4 or in "
        "the rates; in Theorem 4 L enters only the log factor of the O~", metric="rounds_f", x="L",
        params=dict(_A4_BASE), grid_key="L", grid=_L_GRID, mode="l-free", **_COMMON),
    A4ExactClaim(
        id="bylinkin.thm4/exact-contraction", theorem="bylinkin.thm4", title="C-AccExtragradient: exact outer "
        "contraction 1 - sqrt(mu theta_f)/2", algorithm="c_acc_extragradient", regime="bylinkin-separation-like "
        "instance, theta_f = 1/(2 delta_f)", why="On quadratics the outer update contracts the bottom-eigenvector "
        "component by exactly 1 - eta_f mu whatever the inner accuracy; the exact-subproblem iteration has this "
        "spectral radius", metric="projection_ratio_max", x="iteration", params=dict(_SEP), **_COMMON),
    A4CriterionClaim(
        id="bylinkin.thm4/outer-criterion", theorem="bylinkin.thm4", title="Inner AccExtragradient meets "
        "criterion (6)", algorithm="c_acc_extragradient", regime="bylinkin-separation-like instance",
        why="Theorem 4 composes Kovalev et al.'s outer theorem with criterion (6) delivered by the inner phase",
        metric="criterion_ratio_max", x="iteration", params=dict(_SEP),
        informational="it recomputes criterion (6), the inner loop's own stopping test, on the returned points: it "
        "can only fail if the loop stops before its test holds (it still kills an inner phase cut to one step or "
        "stopped at 10x the constant)", **_COMMON),
    InnerRecursionClaim(
        id="bylinkin.thm8.rate/recursion", theorem="bylinkin.thm8.rate", title="Inner AccExtragradient: Theorem 8 "
        "recursion (corrected Lyapunov function)", algorithm="c_acc_extragradient", regime="inner subproblems "
        "stopped exactly at 1/(10 theta_g^2)", why="Theorem 8's linear convergence in the gradient norm, with the "
        "weight 2/tau_g on the gap that the proof supports", metric="recursion_ratio_max", x="iteration",
        params=dict(_SEP), **_COMMON),
    AEGProbeClaim(
        id="bylinkin.thm5/spectral-radius", theorem="bylinkin.thm5", title="AEG iteration: spectral radius "
        "1 - sqrt(mu theta)/2", algorithm="aeg", regime="sigma = 0 (full oracles), theta = 1/(3(delta_f+delta_g))",
        why="The rate of Theorem 5 is attained exactly on quadratics (tightness)", metric="spectral_radius",
        x="iteration", params=dict(_SEP), mode="spectral", **_COMMON),
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
    AEGProbeClaim(
        id="bylinkin.thm5.corrected/one-step", theorem="bylinkin.thm5.corrected", title="Theorem 5 recursion, "
        "corrected Lyapunov function, worst state", algorithm="aeg", regime="sigma = 0, worst case over states",
        why="The redone proof: Phi^c_{k+1} <= (1 - sqrt(mu theta)/2) Phi^c_k from every state",
        metric="worst_ratio_corrected", x="iteration", params=dict(_SEP), mode="corrected", **_COMMON),
    AEGTrajectoryClaim(
        id="bylinkin.thm5.corrected/inexact-trajectory", theorem="bylinkin.thm5.corrected", title="Theorem 5 "
        "recursion along the trajectory, subproblems stopped at criterion (4) (corrected Lyapunov function)",
        algorithm="aeg", regime="sigma = 0, 300 iterations from x* + 1, every subproblem exactly on criterion (4)",
        why="The accuracy criterion (4) is what the proof needs: the recursion must survive subproblems solved no "
        "better than it", metric="ratio_max", x="iteration", params=dict(_SEP), mode="corrected", **_COMMON),
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
    A1MeanClaim(
        id="bylinkin.thm1/exact-mean", theorem="bylinkin.thm5.corrected", title="SC-AccExtragradient: exact mean "
        "of the iterates", algorithm="sc_acc_extragradient", regime="interpolation instance, theta = "
        "0.1/(3(delta_f + delta_g)), 12 iterations from x* + 1",
        why="Unbiased oracles with independent coins make the mean follow the AEG recursion exactly (the proof's "
        "E[zeta_k | xbar_{k+1}] = grad h(xbar_{k+1}))", metric="projection", x="direction", params=dict(_INTERP),
        **_COMMON),
    A1SecondMomentClaim(
        id="bylinkin.thm1/second-moment", theorem="bylinkin.thm5.corrected", title="SC-AccExtragradient: exact "
        "expected Lyapunov value (second-moment recursion)", algorithm="sc_acc_extragradient",
        regime="interpolation instance (sigma(x*) = 0), theta = 0.1/(delta_f + delta_g), 12 iterations from x* + 1",
        why="Assumption 4 fails on quadratics (the oracle variance grows with ||x - x*||^2); the exact E Phi^c_k "
        "follows the second-moment operator of the four coin branches", metric="lyapunov", x="iteration",
        params=dict(_INTERP), **_COMMON),
    A1NoiseFloorClaim(
        id="bylinkin.thm5.corrected/noise-floor", theorem="bylinkin.thm5.corrected", title="SC-AccExtragradient: "
        "noise floor 4 sqrt(theta/mu) sigma^2 of the corrected Lyapunov function", algorithm="sc_acc_extragradient",
        regime="non-interpolating instance (sigma(x*) > 0), constant theta = 0.1/(delta_f + delta_g); floor also at "
        "theta scales 0.03, 0.01, 0.003", why="With a constant step, Theorem 5's recursion leaves E Phi^c at most "
        "2 theta sigma^2/(sqrt(mu theta)/2) above 0: the neighbourhood the sigma^2/(mu eps) term of Theorem 1 pays "
        "for", metric="lyapunov", x="iteration", params=dict(_NOISE), mode="corrected",
        informational=_NOISE_FLOOR_INFO, **_COMMON),
    A1NoiseFloorClaim(
        id="bylinkin.thm5/noise-floor", theorem="bylinkin.thm5", title="SC-AccExtragradient: noise floor "
        "8 sqrt(theta/mu) sigma^2 of the printed Lyapunov function", algorithm="sc_acc_extragradient",
        regime="as bylinkin.thm5.corrected/noise-floor", why="The printed recursion E Phi_{k+1} <= (1 - "
        "sqrt(mu theta)/2) Phi_k + 4 theta sigma^2 implies a stationary E Phi <= 8 sqrt(theta/mu) sigma^2; the "
        "one-step form fails (bylinkin.thm5/one-step), but Phi <= 2 Phi^c and 8 = 2 x 4, so the printed floor "
        "follows from the corrected one", metric="lyapunov", x="iteration", params=dict(_NOISE), mode="printed",
        informational=_NOISE_FLOOR_INFO, **_COMMON),
    RoundsClaim(
        id="bylinkin.thm1/split-rounds", theorem="bylinkin.thm1", title="SC-AccExtragradient: E R_f = 2p per "
        "iteration, p = delta_f/(delta_f + delta_g)", algorithm="sc_acc_extragradient", regime="40 iterations",
        why="The separation of Theorem 1 comes from contacting M_f with probability p = delta_f/(delta_f+delta_g)",
        metric="rounds_per_iteration", x="iteration", params=dict(_SEP), kind="a1", iterations=400, **_COMMON),
    RoundsClaim(
        id="bylinkin.thm1/independent-coins", theorem="bylinkin.thm1", title="SC-AccExtragradient: the two oracle "
        "calls of an iteration choose their group independently", algorithm="sc_acc_extragradient",
        regime="100 iterations", why="The proof takes E[zeta_k | xbar_{k+1}] = grad h(xbar_{k+1}), which needs a "
        "coin for zeta_k independent of xi_k's: then R_f ~ Binomial(2K, p) and E(R_f - 2Kp)^2 = 2Kp(1-p) (a shared "
        "coin doubles it)", metric="squared_deviation", x="iteration", params=dict(_SEP), kind="a1_var",
        iterations=100, n_seeds={"quick": 4000, "standard": 6000, "full": 16000}, batch=40, **_COMMON),
    VRMeanClaim(
        id="bylinkin.thm6/exact-mean", theorem="bylinkin.thm6", title="VRCS: exact mean of the epoch output",
        algorithm="vrcs", regime="delta_f = 0.1, delta_g = 0.3, one epoch from x* + 1",
        why="e_t is unbiased for grad(h - h_1)(x_t) and T ~ Geom(q) on {1, 2, ...}: the mean epoch map is "
        "qN(I - (1-q)N)^{-1}", metric="projection", x="direction", params=dict(_VR), iterations=1,
        directions=("top", "generic"), n_seeds={"quick": 2400, "standard": 4800, "full": 19200}, batch=40,
        **_COMMON),
    VRMeanClaim(
        id="bylinkin.thm6/exact-mean-nonconvex", theorem="bylinkin.thm6", title="VRCS: exact mean of the epoch "
        "output with non-convex f and g", algorithm="vrcs", regime="delta_f = 0.1, delta_g = 0.3, f = h/2 + S and "
        "g = h/2 - S non-convex, server perturbations with eigenvalue -delta (h_1 convex), one epoch from x* + 1",
        why="Section 6 makes no convexity assumption on f and g (only on h, and the proof's h_1); delta is the "
        "largest modulus of the perturbation's eigenvalues", metric="projection", x="direction",
        params={**_VR, **_NONCONVEX}, iterations=1, directions=("top", "generic"),
        n_seeds={"quick": 2400, "standard": 4800, "full": 19200}, batch=40, **_COMMON),
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
    VRScalingClaim(
        id="bylinkin.thm2/rate-df", theorem="bylinkin.thm2", title="VRCS: M_f rounds to reach eps scale as "
        "delta_f/mu", algorithm="vrcs", regime="delta_f = 0.05, delta_g = 0.1, delta_f/mu in [2, 62.5]; relative gap "
        "1e-3", why="Theorem 2: O((delta_f/mu) log 1/eps) rounds with M_f", metric="rounds_f", x="delta_f/mu",
        params=dict(_VR_DF), grid=_VR_MU_GRID, expected=1.0, **_COMMON),
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
        params=dict(_VR_DF), grid=_VR_MU_GRID, expected=0.5, **_COMMON),
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
        metric="ratio", x="delta_f/mu", params=dict(_VR_DF), grid=_VR_MU_GRID, quantity="acceleration", **_COMMON),
    RoundsClaim(
        id="bylinkin.thm6/epoch-rounds", theorem="bylinkin.thm6.mf", title="VRCS: E R_f per epoch = 1 + p/q",
        algorithm="vrcs", regime="40 epochs", why="Theorem 6's round count (1 + p/q) per epoch with M_f",
        metric="rounds_per_iteration", x="epoch", params=dict(_VR), kind="vrcs_f", **_COMMON),
    RoundsClaim(
        id="bylinkin.thm6.mg/epoch-rounds", theorem="bylinkin.thm6.mg", title="VRCS: E R_g per epoch = "
        "1 + (1-p)/q", algorithm="vrcs", regime="40 epochs", why="Theorem 6's round count with M_g",
        metric="rounds_per_iteration", x="epoch", params=dict(_VR), kind="vrcs_g", **_COMMON),
    VRMeanClaim(
        id="bylinkin.thm7/exact-mean", theorem="bylinkin.thm7", title="AccVRCS: exact mean of the iterates",
        algorithm="acc_vrcs", regime="delta_f = 0.1, delta_g = 0.3, 3 iterations from x* + 1",
        why="With the proof's G = q(grad psi(x) - grad psi(y)) the mean of (z, y) follows an exact linear recursion",
        metric="projection", x="direction", params=dict(_VR), **_COMMON),
    RoundsClaim(
        id="bylinkin.thm7.mf.corrected/rounds", theorem="bylinkin.thm7.mf.corrected", title="AccVRCS: rounds with "
        "M_f per iteration, t_k round counted", algorithm="acc_vrcs", regime="40 iterations",
        why="Expected rounds 2 + p/q with M_f per iteration", metric="rounds_per_iteration", x="iteration",
        params=dict(_VR), kind="acc_f", **_COMMON),
    RoundsClaim(
        id="bylinkin.thm7.mg.corrected/rounds", theorem="bylinkin.thm7.mg.corrected", title="AccVRCS: rounds with "
        "M_g per iteration, t_k round counted", algorithm="acc_vrcs", regime="40 iterations",
        why="Expected rounds 2 + (1-p)/q with M_g per iteration", metric="rounds_per_iteration", x="iteration",
        params=dict(_VR), kind="acc_g", **_COMMON),
)


# ---- broken variants ---------------------------------------------------------------------------------------------
def _variant_classes() -> dict[str, Any]:
    from fedrates.solvers.algorithms.acc_vrcs import AccVRCS
    from fedrates.solvers.algorithms.aeg import AEG
    from fedrates.solvers.algorithms.c_acc_extragradient import CAccExtragradient
    from fedrates.solvers.algorithms.sc_acc_extragradient import SCAccExtragradient
    from fedrates.solvers.algorithms.vrcs import VRCS

    @dataclass(frozen=True, kw_only=True)
    class SharedCoin(SCAccExtragradient):
        def oracle_zeta(self, sp, xb, p, coins, first):  # noqa: ANN001, ANN202 - variant
            c = first
            return np.where(c[:, None], sp.grad_f(xb) / p, sp.grad_g(xb) / (1 - p)), c

    @dataclass(frozen=True, kw_only=True)
    class NoImportanceWeight(SCAccExtragradient):
        def oracle_xi(self, sp, xl, p, coins):  # noqa: ANN001, ANN202 - variant
            c = coins.bernoulli(p)
            return np.where(c[:, None], sp.grad_f(xl) - sp.grad_f1(xl), sp.grad_g(xl) - sp.grad_g1(xl)), c

    @dataclass(frozen=True, kw_only=True)
    class AEGDoubleEta(AEG):
        def tuning(self, sp):  # noqa: ANN001, ANN202 - variant
            t = super().tuning(sp)
            t["eta"] *= 2
            return t

    @dataclass(frozen=True, kw_only=True)
    class AEGThetaFromDf(AEG):
        def tuning(self, sp):  # noqa: ANN001, ANN202 - variant
            t = super().tuning(sp)
            theta = 1 / (3 * sp.delta_f)
            eta = min(1 / (2 * sp.mu), 0.5 * math.sqrt(theta / sp.mu))
            t.update(theta=theta, tau=math.sqrt(sp.mu * theta), eta=eta)
            return t

    @dataclass(frozen=True, kw_only=True)
    class NoAcceleration(CAccExtragradient):
        def tuning(self, sp):  # noqa: ANN001, ANN202 - variant
            t = super().tuning(sp)
            t.update(tau_f=1.0, eta_f=t["theta_f"] / 2)
            return t

    @dataclass(frozen=True, kw_only=True)
    class TauGDouble(CAccExtragradient):
        def tuning(self, sp):  # noqa: ANN001, ANN202 - variant
            t = super().tuning(sp)
            t["tau_g"] = math.sqrt(t["theta_g"] / t["theta_f"])
            return t

    @dataclass(frozen=True, kw_only=True)
    class InnerNoAcceleration(CAccExtragradient):
        def tuning(self, sp):  # noqa: ANN001, ANN202 - variant
            t = super().tuning(sp)
            t.update(tau_g=1.0, eta_g=t["theta_g"] / 2)
            return t

    @dataclass(frozen=True, kw_only=True)
    class NoControlVariate(VRCS):
        def step(self, state, sp, coins):  # noqa: ANN001, ANN202 - variant: e_t = xi_t, no anchor correction
            t = self.tuning(sp)
            p, q, theta = t["p"], t["q"], t["theta"]
            x, rf, rg = state["x"].copy(), state["rounds_f"].copy(), state["rounds_g"].copy()
            rf += 1
            rg += 1
            T = coins.geometric(q)
            M = np.eye(x.shape[1]) / theta + sp.H1
            for i in range(int(T.max(initial=0))):
                c = coins.bernoulli(p)
                e = np.where(c[:, None], (sp.grad_f(x) - sp.grad_f1(x)) / p, (sp.grad_g(x) - sp.grad_g1(x)) / (1 - p))
                x_new = np.linalg.solve(M, (x / theta - e + sp.b1).T).T
                x = np.where((T > i)[:, None], x_new, x)
                rf += (T > i) & c
                rg += (T > i) & ~c
            out = dict(state)
            out.update(x=x, rounds_f=rf, rounds_g=rg)
            return out

    @dataclass(frozen=True, kw_only=True)
    class AccTauSquared(AccVRCS):
        def tuning(self, sp):  # noqa: ANN001, ANN202 - variant
            t = super().tuning(sp)
            t["tau"] = t["theta"] * sp.mu / (3 * t["q"])
            return t

    @dataclass(frozen=True, kw_only=True)
    class GeomFromZero(VRCS):
        geometric_from_zero = True

    @dataclass(frozen=True, kw_only=True)
    class AccGeomFromZero(AccVRCS):
        geometric_from_zero = True

    @dataclass(frozen=True, kw_only=True)
    class NoTkRound(AccVRCS):
        count_tk_round = False

    @dataclass(frozen=True, kw_only=True)
    class PrintedSign(AccVRCS):
        tk_sign = 1.0

    @dataclass(frozen=True, kw_only=True)
    class Unchecked(CAccExtragradient):
        def supports(self, problem):  # noqa: ANN001, ANN202 - variant: no admissibility check
            return None

    @dataclass(frozen=True, kw_only=True)
    class OuterThetaFromSum(CAccExtragradient):
        def tuning(self, sp):  # noqa: ANN001, ANN202 - variant
            t = super().tuning(sp)
            theta_f = 0.5 / (sp.delta_f + sp.delta_g)
            tau_f = 0.5 * math.sqrt(sp.mu * theta_f)
            t.update(theta_f=theta_f, tau_f=tau_f, eta_f=min(1 / (2 * sp.mu), theta_f / (4 * tau_f)))
            t.update(tau_g=0.5 * math.sqrt(t["theta_g"] / theta_f), alpha_g=1 / theta_f)
            t["eta_g"] = min(theta_f / 2, t["theta_g"] / (4 * t["tau_g"]))
            return t

    @dataclass(frozen=True, kw_only=True)
    class OuterThetaFromLf(CAccExtragradient):
        def tuning(self, sp):  # noqa: ANN001, ANN202 - variant: L_p read as the smoothness of f
            t = super().tuning(sp)
            theta_f = 0.5 / max(sp.L_f, sp.delta_f)
            tau_f = 0.5 * math.sqrt(sp.mu * theta_f)
            t.update(theta_f=theta_f, tau_f=tau_f, eta_f=min(1 / (2 * sp.mu), theta_f / (4 * tau_f)))
            t.update(tau_g=0.5 * math.sqrt(t["theta_g"] / theta_f), alpha_g=1 / theta_f)
            t["eta_g"] = min(theta_f / 2, t["theta_g"] / (4 * t["tau_g"]))
            return t

    @dataclass(frozen=True, kw_only=True)
    class SCEtaDouble(SCAccExtragradient):
        def tuning(self, sp):  # noqa: ANN001, ANN202 - variant: eta = sqrt(theta/mu) (the 1/2 of (9) dropped)
            t = super().tuning(sp)
            t["eta"] = 2 * t["eta"]
            return t

    @dataclass(frozen=True, kw_only=True)
    class SCNoInterpolation(SCAccExtragradient):
        def tuning(self, sp):  # noqa: ANN001, ANN202 - variant: x_under = x_k (tau = 1)
            t = super().tuning(sp)
            t["tau"] = 1.0
            return t

    @dataclass(frozen=True, kw_only=True)
    class TauFDouble(CAccExtragradient):
        def tuning(self, sp):  # noqa: ANN001, ANN202 - variant
            t = super().tuning(sp)
            t["tau_f"] = 2 * t["tau_f"]
            return t

    @dataclass(frozen=True, kw_only=True)
    class AccAlphaSqrt3(AccVRCS):
        def tuning(self, sp):  # noqa: ANN001, ANN202 - variant: alpha = sqrt(theta/(mu q)), the 3 of (24) dropped
            t = super().tuning(sp)
            t["alpha"] = math.sqrt(3) * t["alpha"]
            return t

    @dataclass(frozen=True, kw_only=True)
    class AccTauDouble(AccVRCS):
        def tuning(self, sp):  # noqa: ANN001, ANN202 - variant: tau = 2 sqrt(theta mu/(3q))
            t = super().tuning(sp)
            t["tau"] = 2 * t["tau"]
            return t

    @dataclass(frozen=True, kw_only=True)
    class SCReturnsXbar(SCAccExtragradient):
        def output(self, state):  # noqa: ANN001, ANN202 - variant: the other variable of the pair
            return state["xbar"]

    @dataclass(frozen=True, kw_only=True)
    class AEGReturnsXbar(AEG):
        def output(self, state):  # noqa: ANN001, ANN202 - variant
            return state["xbar"]

    @dataclass(frozen=True, kw_only=True)
    class CAccReturnsXbar(CAccExtragradient):
        def output(self, state):  # noqa: ANN001, ANN202 - variant
            return state["xbar"]

    @dataclass(frozen=True, kw_only=True)
    class AccReturnsZ(AccVRCS):
        def output(self, state):  # noqa: ANN001, ANN202 - variant: z_K instead of y_K
            return state["z"]

    return {k: v for k, v in locals().items() if isinstance(v, type)}


@observed_cache
def variant_algorithm(key: str) -> Any:
    """The broken algorithm objects of :data:`VARIANTS` (built lazily)."""
    from fedrates.solvers import algorithms

    cls = _variant_classes()
    table = {
        "shared-coin": lambda: cls["SharedCoin"](),
        "no-importance-weight": lambda: cls["NoImportanceWeight"](),
        "p-uniform": lambda: algorithms.make("sc_acc_extragradient", p=0.5),
        "aeg-double-eta": lambda: cls["AEGDoubleEta"](),
        "geom-from-zero": lambda: cls["GeomFromZero"](),
        "acc-geom-from-zero": lambda: cls["AccGeomFromZero"](),
        "no-tk-round": lambda: cls["NoTkRound"](),
        "printed-sign": lambda: cls["PrintedSign"](),
        "theta-2-over-df": lambda: cls["Unchecked"](theta_scale=2.0, subproblem="boundary"),
        "inner-10x": lambda: algorithms.make("c_acc_extragradient", accuracy_factor=10.0, subproblem="boundary"),
        "outer-theta-from-sum": lambda: cls["OuterThetaFromSum"](subproblem="boundary"),
        "aeg-theta-from-df": lambda: cls["AEGThetaFromDf"](),
        "aeg-inexact-100x": lambda: algorithms.make("aeg", subproblem="boundary", accuracy_factor=100.0),
        "tau-g-double": lambda: cls["TauGDouble"](subproblem="boundary"),
        "no-acceleration": lambda: cls["NoAcceleration"](subproblem="boundary"),
        "inner-no-acceleration": lambda: cls["InnerNoAcceleration"](subproblem="boundary"),
        "vrcs-p-uniform": lambda: algorithms.make("vrcs", p=0.5, q=0.5),
        "acc-p-uniform": lambda: algorithms.make("acc_vrcs", p=0.5, q=0.5),
        "acc-tau-squared": lambda: cls["AccTauSquared"](),
        "no-control-variate": lambda: cls["NoControlVariate"](),
        "inner-one-step": lambda: algorithms.make("c_acc_extragradient", accuracy_factor=1e12, subproblem="boundary"),
        "tau-f-double": lambda: cls["TauFDouble"](subproblem="boundary"),
        "sc-eta-double": lambda: cls["SCEtaDouble"](),
        "sc-no-interpolation": lambda: cls["SCNoInterpolation"](),
        "outer-theta-from-lf": lambda: cls["OuterThetaFromLf"](subproblem="boundary"),
        "acc-alpha-sqrt3": lambda: cls["AccAlphaSqrt3"](),
        "acc-tau-double": lambda: cls["AccTauDouble"](),
        "sc-returns-xbar": lambda: cls["SCReturnsXbar"](),
        "aeg-returns-xbar": lambda: cls["AEGReturnsXbar"](),
        "c-acc-returns-xbar": lambda: cls["CAccReturnsXbar"](subproblem="boundary"),
        "acc-returns-z": lambda: cls["AccReturnsZ"](),
    }
    return table[key]()


@contextmanager
def _signed_delta() -> Any:
    """δ_f, δ_g computed as the largest *signed* eigenvalue of A_f1 − A_f, A_g1 − A_g instead of the largest modulus
    (identical on PSD perturbations; smaller when the modulus is attained by a negative eigenvalue)."""
    from fedrates.solvers.problems import separation as sep_problem

    original = sep_problem.Split.__post_init__

    def patched(self: Any) -> None:
        original(self)
        ev = np.linalg.eigvalsh
        object.__setattr__(self, "delta_f", float(ev(sep_problem._sym(self.A_f1 - self.A_f))[-1]))
        object.__setattr__(self, "delta_g", float(ev(sep_problem._sym(self.A_g1 - self.A_g))[-1]))

    sep_problem.Split.__post_init__ = patched
    sep_problem._SPLITS.clear()
    _instance_json.cache_clear()
    try:
        yield
    finally:
        sep_problem.Split.__post_init__ = original
        sep_problem._SPLITS.clear()
        _instance_json.cache_clear()


def _swap(key: str) -> Any:
    return lambda claim: claim.with_algorithm(variant_algorithm(key))


VARIANTS: tuple[BrokenVariant, ...] = (
    BrokenVariant("sc_acc_extragradient/shared-coin", "algorithm",
                  "one coin decides both xi_k and zeta_k (the text's 'same scheme' read as the same draw)",
                  ("bylinkin.thm1/exact-mean", "bylinkin.thm1/independent-coins", "bylinkin.thm1/second-moment",
                   "bylinkin.thm5.corrected/noise-floor", "bylinkin.thm5/noise-floor"),
                  apply=_swap("shared-coin")),
    BrokenVariant("sc_acc_extragradient/no-importance-weight", "algorithm",
                  "xi_k drops the 1/p, 1/(1-p) normalisation (biased oracle)",
                  ("bylinkin.thm1/exact-mean", "bylinkin.thm1/second-moment", "bylinkin.thm5.corrected/noise-floor",
                   "bylinkin.thm5/noise-floor"), apply=_swap("no-importance-weight")),
    BrokenVariant("sc_acc_extragradient/p-uniform", "algorithm",
                  "M_f and M_g chosen with probability 1/2 instead of p = delta_f/(delta_f + delta_g)",
                  ("bylinkin.thm1/split-rounds",), apply=_swap("p-uniform")),
    BrokenVariant("aeg/double-eta", "algorithm", "step eta twice the tuning (9)",
                  ("bylinkin.thm5/spectral-radius", "bylinkin.thm5.corrected/one-step"),
                  apply=_swap("aeg-double-eta")),
    BrokenVariant("aeg/inexact-100x", "algorithm",
                  "server subproblems stopped at 100x the accuracy constant 1/(11 theta^2) of criterion (4)",
                  ("bylinkin.thm5.corrected/inexact-trajectory",), apply=_swap("aeg-inexact-100x")),
    BrokenVariant("vrcs/geom-from-zero", "algorithm", "epoch length T ~ Geom(q) drawn on {0, 1, ...}",
                  ("bylinkin.thm6/exact-mean", "bylinkin.thm6/epoch-rounds", "bylinkin.thm6.mg/epoch-rounds"),
                  apply=_swap("geom-from-zero")),
    BrokenVariant("acc_vrcs/geom-from-zero", "algorithm", "AccVRCS epochs with T ~ Geom(q) on {0, 1, ...}",
                  ("bylinkin.thm7/exact-mean", "bylinkin.thm7.mf.corrected/rounds"),
                  apply=_swap("acc-geom-from-zero")),
    BrokenVariant("acc_vrcs/no-tk-round", "algorithm", "the round for grad h(y_{k+1}) (t_k) is not counted",
                  ("bylinkin.thm7.mf.corrected/rounds", "bylinkin.thm7.mg.corrected/rounds"),
                  apply=_swap("no-tk-round")),
    BrokenVariant("acc_vrcs/printed-sign", "algorithm", "G_{k+1} = q(t_k + (x - y)/theta) as printed in Line 7",
                  ("bylinkin.thm7/branch-map", "bylinkin.thm7/exact-mean"), apply=_swap("printed-sign")),
    BrokenVariant("c_acc_extragradient/theta-2-over-df", "algorithm", "outer step theta_f = 2/delta_f",
                  ("bylinkin.thm4/exact-contraction",), apply=_swap("theta-2-over-df")),
    BrokenVariant("c_acc_extragradient/inner-10x", "algorithm",
                  "inner phase stopped at 10x the accuracy constant of criterion (6)",
                  ("bylinkin.thm4/outer-criterion",), apply=_swap("inner-10x")),
    BrokenVariant("aeg/theta-from-df", "algorithm",
                  "the baseline tuned with delta_f only, theta = 1/(3 delta_f), ignoring g_1's dissimilarity",
                  ("bylinkin.thm4/aeg-baseline", "bylinkin.thm4/aeg-ratio"), apply=_swap("aeg-theta-from-df")),
    BrokenVariant("c_acc_extragradient/tau-g-double", "algorithm",
                  "inner momentum tau_g = sqrt(theta_g/theta_f) (the factor 1/2 of (31) dropped)",
                  ("bylinkin.thm8.rate/recursion",), apply=_swap("tau-g-double")),
    BrokenVariant("c_acc_extragradient/no-acceleration", "algorithm",
                  "outer phase without the interpolation: tau_f = 1 (x_under = x_k) and eta_f = theta_f/2",
                  ("bylinkin.thm4/rate-df",), apply=_swap("no-acceleration")),
    BrokenVariant("c_acc_extragradient/outer-theta-from-sum", "algorithm",
                  "outer step theta_f = 1/(2(delta_f + delta_g)) (the AEG similarity constant in the outer phase)",
                  ("bylinkin.thm4/separation-dg", "bylinkin.thm4/aeg-ratio"), apply=_swap("outer-theta-from-sum")),
    BrokenVariant("c_acc_extragradient/inner-no-acceleration", "algorithm",
                  "inner phase without the interpolation: tau_g = 1 (x_under_t = x_t) and eta_g = theta_g/2",
                  ("bylinkin.thm4.mg/inner-rounds",), apply=_swap("inner-no-acceleration")),
    BrokenVariant("c_acc_extragradient/inner-one-step", "algorithm",
                  "inner phase cut to a single AccExtragradient step per outer iteration (criterion (6) not checked)",
                  ("bylinkin.thm4.mg/inner-rounds", "bylinkin.thm4/outer-criterion"), apply=_swap("inner-one-step")),
    BrokenVariant("vrcs/p-uniform", "algorithm", "VRCS with p = q = 1/2 instead of tuning (23)",
                  ("bylinkin.thm2/separation-dg", "bylinkin.thm2.mg/rate-dg"), apply=_swap("vrcs-p-uniform")),
    BrokenVariant("vrcs/no-control-variate", "algorithm",
                  "VRCS^1ep without the SVRG control variate: e_t = xi_t (the anchor gradients never used)",
                  ("bylinkin.thm2/rate-df", "bylinkin.thm2/separation-dg", "bylinkin.thm2/rate-df-fixed-mu"),
                  apply=_swap("no-control-variate")),
    BrokenVariant("acc_vrcs/p-uniform", "algorithm", "AccVRCS with p = q = 1/2 instead of tuning (24)",
                  ("bylinkin.thm3/separation-dg", "bylinkin.thm3.mg/rate-dg"), apply=_swap("acc-p-uniform")),
    BrokenVariant("acc_vrcs/tau-squared", "algorithm",
                  "AccVRCS interpolation tau = theta mu/(3q) (the square root of (24) dropped)",
                  ("bylinkin.thm3/rate-df", "bylinkin.thm3/acceleration", "bylinkin.thm3/rate-df-fixed-mu"),
                  apply=_swap("acc-tau-squared")),
    BrokenVariant("separation/delta-signed-eigenvalue", "constants",
                  "delta_f, delta_g computed as the largest signed eigenvalue of A_f1 - A_f, A_g1 - A_g instead of the "
                  "largest modulus (Definition 1's spectral norm)",
                  ("bylinkin.thm7/branch-map-nonconvex", "bylinkin.thm6/exact-mean-nonconvex"), patch=_signed_delta),
    BrokenVariant("c_acc_extragradient/outer-theta-from-lf", "algorithm",
                  "outer step theta_f = 1/(2 L_f) (Kovalev et al.'s L_p read as the smoothness of f, not delta_f)",
                  ("bylinkin.thm4/l-free",), apply=_swap("outer-theta-from-lf")),
    BrokenVariant("sc_acc_extragradient/eta-double", "algorithm", "step eta = sqrt(theta/mu), twice tuning (9)",
                  ("bylinkin.thm5.corrected/counterexample",), apply=_swap("sc-eta-double")),
    BrokenVariant("sc_acc_extragradient/no-interpolation", "algorithm",
                  "SC-AccExtragradient without the interpolation: tau = 1 (x_under_k = x_k)",
                  ("bylinkin.thm1/rounds-to-eps", "bylinkin.thm1.mg/rounds-to-eps"),
                  apply=_swap("sc-no-interpolation")),
    BrokenVariant("c_acc_extragradient/tau-f-double", "algorithm",
                  "outer momentum tau_f = sqrt(mu theta_f) (the factor 1/2 of Kovalev et al.'s tuning dropped)",
                  ("bylinkin.thm4/outer-lyapunov",), apply=_swap("tau-f-double")),
    BrokenVariant("acc_vrcs/alpha-sqrt3", "algorithm",
                  "AccVRCS prox weight alpha = sqrt(theta/(mu q)) (the 3 of (24) dropped: alpha x sqrt3)",
                  ("bylinkin.thm7/branch-map",), apply=_swap("acc-alpha-sqrt3")),
    BrokenVariant("acc_vrcs/tau-double", "algorithm", "AccVRCS interpolation tau = 2 sqrt(theta mu/(3q))",
                  ("bylinkin.thm7/branch-map",), apply=_swap("acc-tau-double")),
    BrokenVariant("sc_acc_extragradient/returns-xbar", "algorithm",
                  "SC-AccExtragradient returns xbar_K (the other variable of the extragradient pair) instead of x_K",
                  ("bylinkin.thm1/exact-iterates", "bylinkin.thm1/exact-mean"), apply=_swap("sc-returns-xbar")),
    BrokenVariant("aeg/returns-xbar", "algorithm", "AEG returns xbar_K instead of x_K",
                  ("bylinkin.thm5/exact-iterates",), apply=_swap("aeg-returns-xbar")),
    BrokenVariant("c_acc_extragradient/returns-xbar", "algorithm",
                  "C-AccExtragradient returns the outer xbar_K instead of x_K",
                  ("bylinkin.thm4/exact-contraction",), apply=_swap("c-acc-returns-xbar")),
    BrokenVariant("acc_vrcs/returns-z", "algorithm", "AccVRCS returns z_K instead of y_K",
                  ("bylinkin.thm7/branch-map", "bylinkin.thm7/exact-mean"), apply=_swap("acc-returns-z")),
)
