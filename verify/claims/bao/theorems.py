"""Falsifiable claims of Bao, Crawshaw, Luo, Liu, "Fast Composite Optimization and Statistical Recovery
in Federated Learning" (ICML 2022).

Every claim runs the analysed algorithm (the resolved pseudo-code of :mod:`fedrates.solvers.algorithms.fast_fedda` and
:mod:`fedrates.solvers.algorithms.c_fedda`) on an instance whose assumption constants are exact, evaluates the theorem's
conditions on those constants first, and states the regime its sweep covers:

* ``bao.thm2.1/rate-T``      — Fast-FedDA, E[gap] ∝ 1/T where σ̄²/(μT) dominates (regime from bounds.analysis);
* ``bao.thm2.1/speedup-K``   — Fast-FedDA, gap ∝ 1/K at fixed T on identical clients (σ̄² = σ²/K);
* ``bao.thm2.1/local-steps-E`` — Fast-FedDA, gap(E) within the calibrated constant of the rhs, whose E-dependence
  is the communication terms LEσ²/(μ²T²) + LE²(H+Λρ)²/(μ²T²);
* ``bao.thm2.1.explicit/bound`` — the explicit-constant version holds at every point (upper confidence bound);
* ``bao.thm3.2.err/precision`` and ``bao.thm3.2.err_proven/precision`` — MC-FedDA reaches the statistical
  precision ‖ŵ − w°‖ ≤ 4Ψλ_opt/μ (as stated) and (3+√15)Ψλ_opt/μ (what the proof supports), tested separately
  in the regime where both are within a few times the data.  The proof only bounds ‖ŵ − ŵ_opt‖ (a proof gap,
  recorded on the catalogue note); the printed statement is tested as a claim and holds;
* ``bao.fig1/comparison`` and ``bao.fig2/comparison`` — the §4 comparisons: Fast-FedDA, C-FedDA and MC-FedDA
  reach a lower ℓ2 (Frobenius) error to w° than FedDA and FedMiD at equal rounds, paired over seeds.

Quadratic instances (``quadratic`` family) have population-exact constants: gradients are exact plus Gaussian
noise with E‖ζ‖² = σ² (Assumption 4 holds with equality), Hessians have spectra exactly in [μ, L], and H is the
exact sup over the ball (trust-region subproblem).  Statistical claims use Lasso instances with n_k ≥ p, so every
local Hessian is positive definite and the RSC/RSM tolerances are exactly τ = ν = 0 ("regime R").
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
from fedrates.verify import tolerances as tol
from fedrates.verify.claims.bao.instances import instance
from fedrates.verify.claims.base import Claim, evaluate_conditions, matrix, records_from_trace

pd = lazy_import("pandas")  # imported on first use: listing and refusing stay fast

__all__ = ["CLAIMS"]

_TINY = float(np.finfo(float).tiny)


def _theorem(theorem_id: str) -> Any:
    from fedrates.bounds import catalog

    return catalog.get(theorem_id)


def rederived_curvature(problem: Any) -> tuple[float, float]:
    """(L, μ) = (max_k λ_max(Q_k), min_k λ_min(Q_k)) recomputed at check time from the client Hessians themselves,
    independently of :mod:`fedrates.solvers.constants` (a wrong constant used for both the run and the conditions
    would otherwise hide its own condition violation)."""
    ev = np.linalg.eigvalsh(np.asarray(problem.datafit.hessians, dtype=float))
    return float(ev[:, -1].max()), float(max(ev[:, 0].min(), 0.0))


def constants_check(problem: Any, consts: Any) -> dict:
    """A condition dict: the constants the claim uses agree with (L, μ) re-derived from the spectra (rel. 1e-9)."""
    L, mu = rederived_curvature(problem)
    ok = bool(abs(consts.L - L) <= 1e-9 * L and abs(consts.mu - mu) <= 1e-9 * max(mu, _TINY))
    return {"condition": "constants re-derived from the client spectra agree (L, μ)", "holds": ok,
            "value": f"used L = {consts.L:.6g}, μ = {consts.mu:.6g}; re-derived L = {L:.6g}, μ = {mu:.6g}"}


def constants_mismatch(claim: Claim, check: dict, seeds: list, values: dict, statement: str) -> dict:
    """The verdict when the constants the run used are wrong: a fail (the claim's inputs are wrong), never a pass."""
    res = checks.CheckResult("fail", check["value"], "constants re-derived from the instance", "relative 1e-9",
                             "the constants used by the run differ from those re-derived from the instance's spectra")
    return claim.verdict(res, conditions=[check], seeds=seeds, constants=values, statement=statement)


def recertified_gap(problem: Any, ref: Any) -> float:
    """The certified gap of the reference the claim measures against, recomputed now (never read from the cache
    or the solver's own report)."""
    from fedrates.solvers import reference

    return float(reference.certify(problem, np.asarray(ref.w, dtype=float)))


def _algorithm(claim: Claim, name: str | None = None, **hyper: Any) -> Any:
    from fedrates.solvers import algorithms

    if isinstance(claim.algorithm_override, type) and (name is None or name == claim.algorithm):
        # a broken variant's class, built with the claim's own hyperparameters
        return claim.algorithm_override(**hyper)
    if claim.algorithm_override is not None and (name is None or name == claim.algorithm):
        # the override keeps its own hyperparameters except the sweep's local steps and batch
        sweep = {k: hyper[k] for k in ("local_steps", "batch") if k in hyper}
        return dataclasses.replace(claim.algorithm_override, **sweep)
    return algorithms.make(name or claim.algorithm, **hyper)


def _fast_values(problem: Any, ref: Any, consts: Any, *, T: float, E: int, a: float) -> dict[str, float]:
    """Theorem 2.1's symbols on an instance.

    σ² is the per-client minibatch variance.  The catalogue writes σ̄² = Σ_k π_k²σ² as σ²/K (equal weights); with
    unequal weights K is the effective number of clients 1/Σ_k π_k², so that σ²/K = σ̄² exactly.
    """
    w0 = np.zeros(problem.shape)
    return {
        # H = 0 exactly for identical clients; the catalogue's symbols are positive, so the limit H -> 0+ is
        # evaluated at the smallest positive double (the rhs is continuous in H)
        "mu": consts.mu, "L": consts.L, "Lam": consts.Lambda, "H": max(consts.H, _TINY),
        "rho": float(problem.radius),
        "sigma": math.sqrt(consts.sigma2), "B": float(np.sum((w0 - ref.w) ** 2)), "a": float(a),
        "T": float(T), "E": float(E), "K": float(1.0 / np.sum(problem.weights**2)),
    }


def slope_margin(result: Any) -> dict | None:
    """The CI margin of a slope check: the half-width of the slope's CI against the tolerance half-band
    (:data:`tolerances.SLOPE_TOLERANCE`); below 1 the interval resolves the band."""
    if not result.fit:
        return None
    return mg.ci((result.fit["hi"] - result.fit["lo"]) / 2, tol.SLOPE_TOLERANCE)


def _noise_regime_start(values: dict[str, float]) -> tuple[float, str]:
    """Start of the interval of T where σ̄²/(μT) is the largest term of Theorem 2.1's rhs."""
    from fedrates.bounds import analysis

    regimes = analysis.dominant_regimes(_theorem("bao.thm2.1"), "T", {k: v for k, v in values.items() if k != "T"},
                                        lo=1.0, hi=1e12)
    last = regimes[-1]
    text = "; ".join(f"{r.term} on [{r.lo:.3g}, {r.hi:.3g}]" for r in regimes)
    return last.lo, text


# ---- Fast-FedDA on quadratics ----------------------------------------------------------------------------------
FAST_PROBLEM = {"structure": "random", "clients": 8, "dim": 10, "mu": 0.5, "L": 2.0, "spread": 0.3,
                "sigma": 4.0, "lam": 0.05, "radius": 2.0, "weight_skew": 0.5, "seed": 1}


@dataclass(frozen=True)
class _FastFedDAClaim(Claim):
    problem_params: dict = field(default_factory=lambda: dict(FAST_PROBLEM))
    local_steps: int = 1
    #: how far past the start of the noise-dominated regime the sweep starts (×)
    regime_margin: float = 5.0
    grid_points: dict = field(default_factory=lambda: {"quick": 4, "standard": 5, "full": 6})

    def _setup(self, params: dict | None = None, E: int | None = None) -> tuple[Any, Any, Any, float]:
        problem, ref, consts = instance("quadratic", params or self.problem_params, 1)
        a = 4.0 * consts.L / consts.mu
        return problem, ref, consts, a

    def _grid(self, profile: str, params: dict | None = None, E: int | None = None) -> tuple[list[int], str]:
        E = E or self.local_steps
        problem, ref, consts, a = self._setup(params)
        base, text = self.horizon(_fast_values(problem, ref, consts, T=1.0, E=E, a=a), E)
        return [base * 2**j for j in range(self.grid_points[profile])], text

    def horizon(self, values: dict[str, float], E: int) -> tuple[int, str]:
        """(first T of the sweep, the regimes of Theorem 2.1 in T) at the symbols ``values`` (:func:`_fast_values`):
        ``regime_margin`` × the start of the σ̄²/(μT)-dominated regime, at least 10a, rounded up to a multiple of E."""
        start, text = _noise_regime_start(values)
        return int(math.ceil(max(self.regime_margin * start, 10 * values["a"]) / E)) * E, text

    def _run(self, problem: Any, ref: Any, consts: Any, a: float, E: int, T_grid: list[int],
             seeds: list[int]) -> pd.DataFrame:
        from fedrates.solvers.algorithms import run_batch

        alg = _algorithm(self, mu=consts.mu, a=a, local_steps=E, batch=1)
        rounds = T_grid[-1] // E
        trace = run_batch(alg, problem, rounds, seeds=seeds, record_every=T_grid[0] // E, reference=ref)
        df = trace.records
        return df[df["iterations"].isin(T_grid)]

    def _simulate_grid(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        """One run to the end of the T grid, recorded at every grid point, with the claim theorem's rhs as bound."""
        problem, ref, consts, a = self._setup()
        df = self._run(problem, ref, consts, a, self.local_steps, point["T_grid"], list(seeds))
        thm = _theorem(self.theorem)
        # the records' bound column holds the rhs only when its constants are explicit (schema: NaN otherwise)
        bound = None if thm.kind != "explicit" else (
            lambda d: np.array([thm.evaluate(self._values_at("", t)) for t in d["iterations"]]))
        return records_from_trace(df, claim=self, point_index=0, point=point, metrics=[self.metric],
                                  bound=bound, problem_dim=problem.dim)

    def _values_at(self, profile: str, T: float, params: dict | None = None, E: int | None = None) -> dict:
        problem, ref, consts, a = self._setup(params)
        return _fast_values(problem, ref, consts, T=T, E=E or self.local_steps, a=a)


@dataclass(frozen=True)
class _TGridClaim(_FastFedDAClaim):
    """A sweep over iterations T: one run per seed to the end of the grid, recorded at every grid point."""

    def points(self, profile: str) -> list[dict]:
        grid, _ = self._grid(profile)
        return [{"problem": "quadratic", **self.problem_params, "local_steps": self.local_steps, "T_grid": grid,
                 "batch": 1}]

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        return self._simulate_grid(point, seeds)


@dataclass(frozen=True)
class FastFedDARate(_TGridClaim):
    """E[φ(ŵ_FF) − φ(ŵ)] ∝ T^{-1} in the σ̄²/(μT)-dominated regime (Theorem 2.1, (4))."""

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        from fedrates.bounds import analysis

        thm = _theorem("bao.thm2.1")
        grid, regime_text = self._grid(profile)
        values = self._values_at(profile, grid[0])
        conditions = evaluate_conditions(thm, values)
        seeds = sorted(records["seed"].unique().tolist()) if len(records) else []
        if any(c["holds"] is False for c in conditions):
            return self.conditions_not_met(conditions, seeds, values, thm.statement)
        problem, ref, consts, _ = self._setup()
        check = constants_check(problem, consts)
        if not check["holds"]:
            return constants_mismatch(self, check, seeds, values, thm.statement)
        expected = float(analysis.exponent(thm, "T"))
        x, y = matrix(records, self.metric, "iterations")
        result = checks.rate_exponent(x, y, expected, variable="T")
        return self.verdict(result, conditions=conditions + [check], seeds=seeds, constants=values,
                            margin=slope_margin(result),
                            statement=thm.statement, reference_gap=recertified_gap(problem, ref),
                            smallest_measured=float(np.min(np.nanmean(y, axis=0))),
                            extra={"regime": f"{self.regime} Sweep T ∈ [{grid[0]}, {grid[-1]}]; dominant terms "
                                             f"(hidden constants 1): {regime_text}."})


@dataclass(frozen=True)
class FastFedDASpeedup(_FastFedDAClaim):
    """At fixed T in the noise regime, gap ∝ 1/K (σ̄² = σ²/K, linear speedup; Remark 2.1)."""

    clients_grid: tuple[int, ...] = (2, 4, 8, 16, 32)

    def _params(self, K: int) -> dict:
        return {**self.problem_params, "clients": int(K)}

    def _T(self, profile: str) -> int:
        # the largest noise-regime start over all K, times the margin (K = max has the smallest sigma_bar)
        return max(self._grid(profile, self._params(K))[0][0] for K in self.clients_grid)

    def points(self, profile: str) -> list[dict]:
        T = self._T(profile)
        return [{"problem": "quadratic", **self._params(K), "local_steps": self.local_steps, "T": T, "batch": 1}
                for K in self.clients_grid]

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        params = self._params(point["clients"])
        problem, ref, consts, a = self._setup(params)
        df = self._run(problem, ref, consts, a, self.local_steps, [point["T"]], list(seeds))
        idx = self.clients_grid.index(point["clients"])
        return records_from_trace(df, claim=self, point_index=idx, point=point, metrics=[self.metric],
                                  problem_dim=problem.dim)

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        thm = _theorem("bao.thm2.1")
        T = self._T(profile)
        conditions: list[dict] = []
        for K in self.clients_grid:
            vals = self._values_at(profile, T, self._params(K))
            for c in evaluate_conditions(thm, vals):
                conditions.append({**c, "condition": f"K={K}: {c['condition']}"})
        values = self._values_at(profile, T, self._params(self.clients_grid[-1]))
        seeds = sorted(records["seed"].unique().tolist()) if len(records) else []
        if any(c["holds"] is False for c in conditions):
            return self.conditions_not_met(conditions, seeds, values, thm.statement)
        gaps = []
        for K in self.clients_grid:
            problem, ref, consts, _ = self._setup(self._params(K))
            check = constants_check(problem, consts)
            if not check["holds"]:
                return constants_mismatch(self, check, seeds, values, thm.statement)
            gaps.append(recertified_gap(problem, ref))
        x, y = matrix(records, self.metric, "clients")
        result = checks.linear_speedup(x, y)
        return self.verdict(result, conditions=conditions + [check], seeds=seeds, constants=values,
                            margin=slope_margin(result),
                            statement=thm.statement, reference_gap=max(gaps),
                            smallest_measured=float(np.min(np.nanmean(y, axis=0))),
                            extra={"regime": f"{self.regime} T = {T} (≥ {self.regime_margin:g}× the start of the "
                                             f"σ̄²/(μT) regime for every K)."})


@dataclass(frozen=True)
class FastFedDALocalSteps(_FastFedDAClaim):
    """gap(E) ≤ C(1 + margin)·rhs(E): the E-dependence of the measured gap is within that of the communication
    terms LEσ²/(μ²T²) + LE²(H+Λρ)²/(μ²T²) (C calibrated on the two smallest E)."""

    steps_grid: tuple[int, ...] = (1, 2, 4, 8, 16)

    def _T(self, profile: str) -> int:
        # T is fixed at the start of the E = 1 sweep of the rate claim: there the E-dependent drift terms of (4)
        # are visible for E > 1 (they dominate (4) for E >= 4), which is what this claim is about
        lcm = math.lcm(*self.steps_grid)
        T = self._grid(profile, None, 1)[0][0]
        return int(math.ceil(T / lcm)) * lcm

    def points(self, profile: str) -> list[dict]:
        T = self._T(profile)
        return [{"problem": "quadratic", **self.problem_params, "local_steps": E, "T": T, "batch": 1}
                for E in self.steps_grid]

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        problem, ref, consts, a = self._setup()
        E = point["local_steps"]
        df = self._run(problem, ref, consts, a, E, [point["T"]], list(seeds))
        # Theorem 2.1 hides its constants: the bound column stays NaN (the check calibrates C in judge)
        return records_from_trace(df, claim=self, point_index=self.steps_grid.index(E), point=point,
                                  metrics=[self.metric], problem_dim=problem.dim)

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        thm = _theorem("bao.thm2.1")
        T = self._T(profile)
        values = self._values_at(profile, T, None, self.steps_grid[-1])
        conditions = evaluate_conditions(thm, values)
        seeds = sorted(records["seed"].unique().tolist()) if len(records) else []
        if any(c["holds"] is False for c in conditions):
            return self.conditions_not_met(conditions, seeds, values, thm.statement)
        problem, ref, consts, _ = self._setup()
        check = constants_check(problem, consts)
        if not check["holds"]:
            return constants_mismatch(self, check, seeds, values, thm.statement)
        x, y = matrix(records, self.metric, "local_steps")
        rhs = np.array([thm.evaluate(self._values_at(profile, T, None, int(E))) for E in x])
        result = checks.within_constant(x, y, rhs, calibrate=2)
        # slack of the tested bound C(1 + margin)·rhs on the held-out E (C calibrated on the two smallest E)
        held = slice(2, None)
        bound_held = result.calibrated_constant * (1 + tol.CONSTANT_MARGIN) * rhs[held]
        return self.verdict(result, conditions=conditions + [check], seeds=seeds, constants=values,
                            margin=mg.slack(bound_held, np.nanmean(y, axis=0)[held]),
                            statement=thm.statement, reference_gap=recertified_gap(problem, ref),
                            smallest_measured=float(np.min(np.nanmean(y, axis=0))),
                            extra={"regime": f"{self.regime} T = {T}, E ∈ {list(self.steps_grid)}."})


@dataclass(frozen=True)
class FastFedDAExplicit(_TGridClaim):
    """E[gap] ≤ the explicit bound of App. B.2 at every T (upper confidence bound over seeds)."""

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        thm = _theorem(self.theorem)
        grid, _ = self._grid(profile)
        values = self._values_at(profile, grid[0])
        conditions = evaluate_conditions(thm, values)
        seeds = sorted(records["seed"].unique().tolist()) if len(records) else []
        if any(c["holds"] is False for c in conditions):
            return self.conditions_not_met(conditions, seeds, values, thm.statement)
        problem, ref, consts, _ = self._setup()
        check = constants_check(problem, consts)
        if not check["holds"]:
            return constants_mismatch(self, check, seeds, values, thm.statement)
        x, y = matrix(records, self.metric, "iterations")
        bound = np.array([thm.evaluate(self._values_at(profile, t)) for t in x])
        result = checks.bound_holds(y, bound)
        mean = np.nanmean(y, axis=0)
        return self.verdict(result, conditions=conditions + [check], seeds=seeds, constants=values,
                            statement=thm.statement, reference_gap=recertified_gap(problem, ref),
                            smallest_measured=float(np.min(mean)), bound_ratio=float(np.max(mean / bound)),
                            extra={"regime": f"{self.regime} T ∈ {[int(t) for t in x]}."})


# ---- MC-FedDA statistical precision -------------------------------------------------------------------------------
STAT_PROBLEM = {"clients": 8, "samples": 40, "dim": 20, "sparsity": 3, "correlation": 0.5, "heterogeneity": 0.5,
                "noise": 1.0, "radius": 20.0, "seed": 3}
#: the regime where Proposition 3.1's 3Ψλ_opt/μ (and Theorem 3.2's 4Ψλ_opt/μ) is within a few times the data: a
#: dense truth s = p (Ψ = √p, the largest value Definition 1 allows: every coordinate is on the support) and
#: near-isotropic clients (n_k = 400 ≫ p, no correlation, no client shift), so the RSC constant μ is close to the
#: average curvature.  There ŵ_opt − w° ≈ (∇F(w°) − λ_opt·sign(w°))/μ has norm between Ψλ_opt/(2μ) and
#: 3Ψλ_opt/(2μ) (λ_opt = 2‖∇F(w°)‖∞); with a sparse, correlated truth the bound sits ~80× above the distance.
SHARP_STAT_PROBLEM = {**STAT_PROBLEM, "samples": 400, "dim": 4, "sparsity": 4, "correlation": 0.0,
                      "heterogeneity": 0.0}


@dataclass(frozen=True)
class MCFedDAPrecision(Claim):
    """w.p. ≥ 1 − δ, ‖ŵ_MC − w°‖ ≤ c·Ψλ_opt/μ (Theorem 3.2), checked on the empirical (1 − δ)-quantile."""

    delta: float = 0.1
    problem_params: dict = field(default_factory=lambda: dict(SHARP_STAT_PROBLEM))
    rounds: dict = field(default_factory=lambda: {"quick": 150, "standard": 300, "full": 1000})
    stages: int = 3
    local_steps: int = 5
    batch: int = 5

    def _setup(self) -> tuple[Any, Any, Any]:
        # λ of the problem is replaced by λ_opt = 2 R*(∇F(w°)) computed exactly on the instance
        problem, _, consts = instance("lasso", {**self.problem_params, "lam": 0.0}, self.batch)
        params = {**self.problem_params, "lam": float(consts.lam_opt)}
        return instance("lasso", params, self.batch)

    def points(self, profile: str) -> list[dict]:
        return [{"problem": "lasso", **self.problem_params, "rounds": self.rounds[profile],
                 "local_steps": self.local_steps, "batch": self.batch, "stages": self.stages}]

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        from fedrates.solvers.algorithms import run_batch

        problem, ref, consts = self._setup()
        alg = _algorithm(self, mu=consts.mu, local_steps=self.local_steps, batch=self.batch, stages=self.stages,
                         stage_rounds=max(1, point["rounds"] // self.stages))
        trace = run_batch(alg, problem, point["rounds"], seeds=list(seeds), record_every=point["rounds"],
                          reference=ref)
        df = trace.records[trace.records["round"] == trace.records["round"].max()]
        return records_from_trace(df, claim=self, point_index=0, point=point, metrics=[self.metric],
                                  problem_dim=problem.dim)

    def _values(self) -> dict[str, float]:
        problem, ref, consts = self._setup()
        return {"Psi": float(consts.Psi), "lam_opt": float(consts.lam_opt), "mu": float(consts.mu),
                "lam0": float(consts.lam_opt) * 2 ** (self.stages - 1), "delta": self.delta,
                # τ = ν = 0 exactly in regime R; the catalogue's symbols are positive, so the limit 0+ is taken
                # at the smallest positive double (conditions and bounds are continuous there)
                "tau": max(float(consts.tau), _TINY), "nu": max(float(consts.nu), _TINY)}

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        thm = _theorem(self.theorem)
        values = self._values()
        conditions = evaluate_conditions(thm, values)
        seeds = sorted(records["seed"].unique().tolist()) if len(records) else []
        if any(c["holds"] is False for c in conditions):
            return self.conditions_not_met(conditions, seeds, values, thm.statement)
        problem, _, consts = self._setup()
        check = constants_check(problem, consts)
        if not check["holds"]:
            return constants_mismatch(self, check, seeds, values, thm.statement)
        conditions = conditions + [check]
        sub = records[records["metric"] == self.metric].sort_values("seed")
        bound = thm.evaluate(values)
        result = checks.statistical_precision(sub["value"].to_numpy(), bound, self.delta)
        quantile = float(np.quantile(sub["value"], 1 - self.delta))
        ratio = quantile * values["mu"] / (values["Psi"] * values["lam_opt"])
        result.measured = f"{result.measured}; (1−δ)-quantile·μ/(Ψλ_opt) = {ratio:.3g}"
        # the distance is to the known ground truth w° (exact: reference gap 0)
        return self.verdict(result, conditions=conditions, seeds=seeds, constants=values, statement=thm.statement,
                            reference_gap=0.0, smallest_measured=float(sub["value"].min()),
                            bound_ratio=quantile / bound)


# ---- Proposition 3.1 on the certified M-estimator ------------------------------------------------------------------
@dataclass(frozen=True)
class EstimatorPrecision(Claim):
    """‖ŵ_opt − w°‖ ≤ 3Ψλ_opt/μ for the certified minimiser ŵ_opt of the empirical objective with
    λ_opt = 2R*(∇F(w°)) (Proposition 3.1): deterministic given the data, so it must hold on every data draw.

    Here a "seed" is the seed of the data generator: each seed is a new federation drawn from the same model.
    """

    problem_params: dict = field(default_factory=lambda: dict(SHARP_STAT_PROBLEM))

    def points(self, profile: str) -> list[dict]:
        return [{"problem": "lasso", **self.problem_params}]

    def _instance(self, seed: int) -> tuple[Any, Any, Any]:
        params = {**self.problem_params, "seed": int(seed)}
        _, _, consts = instance("lasso", {**params, "lam": 0.0})
        return instance("lasso", {**params, "lam": float(consts.lam_opt)})

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        rows = []
        for seed in seeds:
            problem, ref, consts = self._instance(seed)
            dist = float(np.linalg.norm(ref.w - problem.truth))
            bound = _theorem(self.theorem).evaluate(self._values(consts))
            rows.append({"seed": int(seed), "round": 0, "iterations": 0, self.metric: dist, "diverged": False,
                         "bound": bound})
        df = pd.DataFrame(rows)
        return records_from_trace(df, claim=self, point_index=0, point=point, metrics=[self.metric],
                                  bound=lambda d: d["bound"].to_numpy(), problem_dim=self.problem_params["dim"])

    @staticmethod
    def _values(consts: Any) -> dict[str, float]:
        # τ = 0 exactly (n_k ≥ p); gstar = R*(∇F(w°)) = λ_opt/2 by construction of λ_opt
        return {"Psi": float(consts.Psi), "lam_opt": float(consts.lam_opt), "mu": float(consts.mu),
                "tau": _TINY, "gstar": float(consts.lam_opt) / 2}

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        thm = _theorem(self.theorem)
        sub = records[records["metric"] == self.metric].sort_values("seed")
        seeds = sub["seed"].astype(int).tolist()
        conditions: list[dict] = []
        for seed in seeds:
            _, _, consts = self._instance(seed)
            for c in evaluate_conditions(thm, self._values(consts)):
                conditions.append({**c, "condition": f"data seed {seed}: {c['condition']}"})
        values = self._values(self._instance(seeds[0])[2]) if seeds else {}
        if any(c["holds"] is False for c in conditions):
            return self.conditions_not_met(conditions, seeds, values, thm.statement)
        for seed in seeds:
            problem, _, consts = self._instance(seed)
            check = constants_check(problem, consts)
            if not check["holds"]:
                return constants_mismatch(self, check, seeds, values, thm.statement)
        y = sub["value"].to_numpy()[None, :]
        bound = sub["bound"].to_numpy()
        result = checks.bound_holds(y, bound)
        ratio = y[0] / bound * 3.0
        result.measured = f"{result.measured}; μ‖ŵ − w°‖/(Ψλ_opt) ∈ [{ratio.min():.3g}, {ratio.max():.3g}]"
        # the measured distance is the reference's own: its certified gap bounds ‖ŵ − ŵ_opt‖ ≤ √(2 gap/μ)
        ref_dist = 0.0
        for seed in seeds:
            problem, ref, consts = self._instance(seed)
            ref_dist = max(ref_dist, math.sqrt(2 * max(recertified_gap(problem, ref), 0.0) / float(consts.mu)))
        return self.verdict(result, conditions=conditions, seeds=seeds, constants=values, statement=thm.statement,
                            reference_gap=ref_dist, smallest_measured=float(np.min(y)),
                            bound_ratio=float(np.max(y[0] / bound)))


_FAST_REGIME = ("Quadratic federation (K = 8 with unequal weights π_k, d = 10, spectra in [0.5, 2]) with exact "
                "gradients plus Gaussian noise "
                "E‖ζ‖² = σ² = 16: Assumptions 1–4 hold with the exact constants L, μ, Λ, H (TRS over the ball "
                "ρ = 2) and σ²; ℓ1 penalty λ = 0.05; a = 4L/μ, γ = 2μa³.")

_STAT_REGIME = ("Lasso with n_k = 400 ≥ p = 4 (regime R: τ = ν = 0 exactly), K = 8, dense truth s = p = 4 "
                "(Ψ = √s = 2), isotropic covariates without client shift, λ_opt = 2‖∇F(w°)‖∞ computed exactly, "
                "δ = 0.1: the regime where the bound is within a few times the distance (a sparse correlated "
                "truth leaves it ~80× above).")
_STAT_WHY = ("n_k ≥ p makes every local Hessian positive definite, so the RSC constant μ is exact with τ = 0; the "
             "dense near-isotropic truth is the worst case of Ψλ_opt/μ, so the bound is sharp")

CLAIMS: tuple[Claim, ...] = (
    FastFedDARate(
        id="bao.thm2.1/rate-T", theorem="bao.thm2.1", algorithm="fast_fedda", problem="quadratic",
        title="Fast-FedDA: E[gap] decays as T^-1 in the noise-dominated regime",
        regime=_FAST_REGIME + " E = 1.", metric="objective_gap", x="iterations",
        why="population-exact constants; the sweep starts 5× past the last crossover of Theorem 2.1's terms",
        n_seeds={"quick": 24, "standard": 40, "full": 100},
        # the pass rule needs the whole slope CI inside −1 ± 0.25: a 16× sweep pins it down, an 8× one does not
        grid_points={"quick": 5, "standard": 5, "full": 6},
    ),
    FastFedDASpeedup(
        id="bao.thm2.1/speedup-K", theorem="bao.thm2.1", algorithm="fast_fedda", problem="quadratic",
        title="Fast-FedDA: linear speedup, gap ∝ 1/K at fixed T",
        regime=_FAST_REGIME.replace("K = 8 with unequal weights π_k, ", "")
        + " Identical clients with equal weights (H = 0; L, μ, Λ independent of K); E = 1.",
        metric="objective_gap", x="clients",
        why="identical clients isolate σ̄² = σ²/K; T is past the noise-regime start for every K",
        problem_params={**FAST_PROBLEM, "structure": "clustered", "clusters": 1, "angle": 0.0, "within": 0.0,
                        "weight_skew": 0.0},
        # 24 quick seeds left the slope CI straddling the band's edge at one base seed of ten (CI [−1.28, −1.06]):
        # 48 narrow it by √2 (half-width ≈ 0.08 against the 0.25 band)
        n_seeds={"quick": 48, "standard": 64, "full": 100}, regime_margin=3.0,
    ),
    FastFedDALocalSteps(
        id="bao.thm2.1/local-steps-E", theorem="bao.thm2.1", algorithm="fast_fedda", problem="quadratic",
        title="Fast-FedDA: the gap's dependence on local steps E stays within the communication terms",
        regime=_FAST_REGIME + " Heterogeneous clients.", metric="objective_gap", x="local_steps",
        why="heterogeneous clients make the E-dependent drift terms of (4) non-zero",
        n_seeds={"quick": 6, "standard": 12, "full": 40}, regime_margin=2.0,
    ),
    FastFedDAExplicit(
        id="bao.thm2.1.explicit/bound", theorem="bao.thm2.1.explicit", algorithm="fast_fedda", problem="quadratic",
        title="Fast-FedDA: the explicit-constant bound of App. B.2 holds at every T",
        regime=_FAST_REGIME + " E = 4.", metric="objective_gap", x="iterations", local_steps=4,
        why="explicit constants are checked as an upper bound with a 95% upper confidence bound of the mean",
        n_seeds={"quick": 8, "standard": 16, "full": 40}, regime_margin=1.0,
        grid_points={"quick": 3, "standard": 4, "full": 6},
        informational=("the explicit constants of App. B.2 (5T(T+1)σ̄²/μ for the noise, 36(T+1)/μ² times "
                       "4(3L+μ)/2·(Eσ² + E²(H² + Λ²ρ²)) for the drift, H and Λρ taken over the whole ball) put the "
                       "bound about 400× above the measured gap here; the sharp forms of Theorem 2.1 are the rate, "
                       "speedup and local-steps claims and bao.limit/fast-fedda"),
    ),
    EstimatorPrecision(
        id="bao.prop3.1/estimator", theorem="bao.prop3.1", algorithm="reference", problem="lasso",
        title="Proposition 3.1: the certified M-estimator satisfies ‖ŵ_opt − w°‖ ≤ 3Ψλ_opt/μ on every data draw",
        regime=("Lasso with n_k = 400 ≥ p = 4 (τ = 0 exactly), dense truth s = p = 4 (Ψ = √s = 2), isotropic "
                "covariates without client shift (the worst case of Ψλ_opt/μ: the bound is within ~3× of the "
                "distance), λ_opt = 2‖∇F(w°)‖∞ computed exactly from the known noise; one federation per data "
                "seed."),
        metric="distance_to_truth", x="seed",
        why="deterministic statement given the data: it is checked on every draw, not on average",
        n_seeds={"quick": 5, "standard": 10, "full": 40},
    ),
    MCFedDAPrecision(
        id="bao.thm3.2.err/precision", theorem="bao.thm3.2.err", algorithm="mc_fedda", problem="lasso",
        title="MC-FedDA: ‖ŵ − w°‖ ≤ 4Ψλ_opt/μ w.p. ≥ 1 − δ (as stated)",
        regime=_STAT_REGIME, metric="distance_to_truth", x="round", why=_STAT_WHY,
        n_seeds={"quick": 30, "standard": 30, "full": 100},
        # the proof-gap of the catalogue note of bao.thm3.2.err (the proof bounds ‖ŵ − ŵ_opt‖, not ‖ŵ − w°‖) is not
        # a counterexample: the statement as printed is tested here and holds on this instance
    ),
    MCFedDAPrecision(
        id="bao.thm3.2.err_proven/precision", theorem="bao.thm3.2.err_proven", algorithm="mc_fedda",
        problem="lasso", title="MC-FedDA: ‖ŵ − w°‖ ≤ (3+√15)Ψλ_opt/μ w.p. ≥ 1 − δ (proof-consistent constant)",
        regime=_STAT_REGIME, metric="distance_to_truth", x="round", why=_STAT_WHY,
        n_seeds={"quick": 30, "standard": 30, "full": 100},
    ),
)
