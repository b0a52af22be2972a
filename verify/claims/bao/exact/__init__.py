"""Exactness claims of Bao et al. (Bao, Crawshaw, Luo, Liu, "Fast Composite Optimization and Statistical Recovery in
Federated Learning", ICML 2022): predictions sharp enough that a wrong implementation fails even when its rate is
right, computed independently of the algorithms' code.

* ``bao.exact/<method>-moments`` — *exact expectations*. On quadratic federations without prox (zero penalty, no
  ball, or a constraint far away), FedAvg, FedProx, FedDA, FedMiD, Fast-FedDA and C-FedDA are random affine
  recursions; :mod:`fedrates.verify.exact` propagates the exact mean and covariance of the returned point in closed
  form (a matrix transcription of the pseudo-code, sharing no code with :mod:`fedrates.solvers.algorithms`). The
  Monte-Carlo mean of ‖w_r − w*‖² over seeds must equal the exact E‖w_r − w*‖² at every recorded round within a
  two-sided family-wise 99.9% interval (:func:`fedrates.verify.checks.exact_expectation`), so "too good" fails as well
  as "too bad". The sweeps use E > 1 local steps, unequal client weights π_k, a server step η_s ≠ 1 where the
  method has one, Gaussian gradient noise and minibatch sampling (with and without replacement).
* ``bao.exact/fedavg-fixed-point`` — exact gradients, E = 3: the deterministic trajectory and FedAvg's biased fixed
  point x∞ (computed by a linear solve of the mean round map) must be reproduced to 1e-8.
* ``bao.limit/<method>`` — *exact limits* of the composite methods (ℓ1 penalty and an ℓ2 ball that binds): with
  exact gradients the objective gap to the *certified* optimum must fall below ``LIMIT_FRACTION`` = 1e-6 of its
  initial value within the claim's budget (C-FedDA: 1e-3, see its ``why``); a wrong limit point — wrong threshold,
  prox dropped, inexact constrained prox, a λ schedule that stops early — plateaus above it.  For FedMiD on
  identical clients (proximal gradient over E·R steps) the gap must also be below the exact contraction bound
  max(|1 − ηµ̄|, |1 − ηL̄|)^{2ER}·(L̄/µ̄)·gap₀.  FedDA and FedMiD run on identical clients (their limit with client
  drift is not the optimum); Fast-FedDA, C-FedDA (off-centre, ε₀ binding early) and MC-FedDA on heterogeneous
  clients with unequal weights.

Every verdict carries the reference-sufficiency check: the closed-form or certified optimum is re-certified at
judge time (:func:`fedrates.solvers.reference.certify`) and its certified gap (converted to the measured units) must
be 100× below the smallest measured quantity.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fedrates._lazy import lazy_import
from fedrates._tables import pivot_last
from fedrates.verify import checks, exact
from fedrates.verify import margins as mg
from fedrates.verify import tolerances as tol
from fedrates.verify.claims.bao.instances import (
    COMPOSITE,
    IDENTICAL,
    LASSO,
    POP_LASSO,
    POP_TRACE,
    QUAD,
    SKEWED,
    certified_distance2,
    client_quadratics,
    closed_form_optimum,
    problem_of,
    reference_of,
    spectra,
)
from fedrates.verify.claims.base import Claim, records_from_trace

pd = lazy_import("pandas")  # imported on first use: listing and refusing stay fast

__all__ = ["CLAIMS", "LIMIT_FRACTION"]

#: an exact-limit claim passes when gap(T)/gap(w₀) ≤ this (the correct methods reach ≤ 1e-9 on these instances;
#: a wrong limit point leaves a relative gap ≥ 1e-4 for every variant of the catalogue)
LIMIT_FRACTION = tol.LIMIT_FRACTION


def _algorithm(claim: Claim, **hyper: Any) -> Any:
    from fedrates.solvers import algorithms

    if isinstance(claim.algorithm_override, type):  # a broken variant's class, built with the claim's settings
        return claim.algorithm_override(**hyper)
    if claim.algorithm_override is not None:
        # an algorithm object (e.g. a user's implementation) runs with the claim's hyperparameters: the exact
        # prediction is computed for those
        known = {f.name for f in dataclasses.fields(claim.algorithm_override)}
        return dataclasses.replace(claim.algorithm_override, **{k: v for k, v in hyper.items() if k in known})
    return algorithms.make(claim.algorithm, **hyper)


class _Fixed:
    """A reference object for the runner (w, value, gap) at a given point (metrics are recomputed by the claims)."""

    def __init__(self, problem: Any, w: np.ndarray, gap: float) -> None:
        self.w = np.asarray(w, dtype=float).reshape(problem.shape)
        self.value = float(problem.objective(self.w))
        self.gap = float(gap)


def _collect(alg: Any, problem: Any, rounds: list[int], seeds: list[int], *, gradients: str, replace: bool,
             reference: Any, w0: np.ndarray | None = None) -> dict[int, np.ndarray]:
    """The returned point of every replica after each round in ``rounds`` ({round: (S, *shape)})."""
    from fedrates.solvers.algorithms import run_batch

    wanted = set(rounds)
    out: dict[int, np.ndarray] = {}

    def callback(r: int, state: Any) -> None:
        if r in wanted:
            out[r] = np.array(alg.output(state), dtype=float)

    trace = run_batch(alg, problem, max(rounds), seeds=seeds, gradients=gradients, replace=replace,
                      record_every=max(rounds), reference=reference, callback=callback, w0=w0)
    if trace.diverged.any():
        for r in out:
            out[r] = np.where(trace.diverged.reshape((-1,) + (1,) * len(problem.shape)), np.nan, out[r])
    return out


# ---- exact expectations ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ExactMoments(Claim):
    """E‖w_r − w*‖² over seeds equals the closed-form value of the linear-Gaussian (or minibatch) recursion."""

    family: str = "quadratic"
    problem_params: dict = field(default_factory=dict)
    weights: tuple[float, ...] = ()
    hyper: dict = field(default_factory=dict)
    #: builder in :mod:`fedrates.verify.exact` and its arguments from the hyperparameters
    builder: str = "fedavg_like"
    rounds: tuple[int, ...] = (1, 3, 8)
    batch: int = 2
    replace: bool = False
    gradients: str = "stochastic"
    #: replicas per recorded seed: a record is the mean over ``block`` independent runs (replica seeds
    #: seed·BLOCK_STRIDE + j), so thousands of runs enter the check through a few dozen records
    block: int = 40

    def instance(self) -> Any:
        return problem_of(self.family, self.problem_params, self.weights)

    def points(self, profile: str) -> list[dict]:
        return [{"problem": self.family, **self.problem_params, "weights": list(self.weights), **self.hyper,
                 "rounds": list(self.rounds), "batch": self.batch, "replace": self.replace,
                 "gradients": self.gradients}]

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        problem = self.instance()
        w_star = closed_form_optimum(problem)
        alg = _algorithm(self, batch=self.batch, **self.hyper)
        ref = _Fixed(problem, w_star, 0.0)
        block = 1 if self.gradients == "exact" else self.block
        replicas = [int(s) * BLOCK_STRIDE + j for s in seeds for j in range(block)]
        outs = _collect(alg, problem, list(self.rounds), replicas, gradients=self.gradients,
                        replace=self.replace, reference=ref)
        rows = []
        E = int(self.hyper.get("local_steps", 1))
        for r in self.rounds:
            # one record per seed: the mean of ‖w_r − w*‖² over the seed's block of independent replicas
            dist2 = np.sum((problem.flat(outs[r]) - w_star) ** 2, axis=-1).reshape(len(seeds), block).mean(axis=1)
            rows.append(pd.DataFrame({"seed": seeds, "round": r, "iterations": r * E, self.metric: dist2,
                                      "diverged": ~np.isfinite(dist2)}))
        return records_from_trace(pd.concat(rows, ignore_index=True), claim=self, point_index=0,
                                  point=point, metrics=[self.metric], problem_dim=problem.dim)

    def _method(self, problem: Any) -> exact.LinearMethod:
        h = self.hyper
        E = int(h.get("local_steps", 1))
        d = problem.dim
        if self.builder == "fedavg_like":
            return exact.fedavg_like(d, step=h["step"], local_steps=E, server_step=h.get("server_step", 1.0),
                                     mu_prox=h.get("mu_prox", 0.0))
        L, mu, _, _ = spectra(problem)
        mu_m = h.get("mu") or mu
        a = h.get("a") or 4 * L / mu_m
        gamma = h.get("gamma") or 2 * mu_m * a**3
        build = exact.fast_fedda if self.builder == "fast_fedda" else exact.c_fedda
        return build(d, mu=mu_m, a=a, gamma=gamma, local_steps=E)

    def expected(self) -> tuple[np.ndarray, np.ndarray | None, dict]:
        """(E‖w_r − w*‖² per recorded round, exact sd or None, facts) from the closed-form recursion."""
        problem = self.instance()
        gaussian = problem.sampling == "gaussian"
        oracle = (exact.quadratic_oracle(problem, self.batch, exact=self.gradients == "exact") if gaussian
                  else exact.sample_oracle(problem, self.batch, self.replace, exact=self.gradients == "exact"))
        m = exact.moments(self._method(problem), oracle, problem.weights, max(self.rounds))
        w_star = closed_form_optimum(problem)
        mean, sd = exact.squared_distance(m, w_star, gaussian)
        idx = list(self.rounds)
        facts = {"bias2": float(np.sum((m.mean[-1] - w_star) ** 2)), "trace_cov": float(np.trace(m.cov[-1]))}
        return mean[idx], None if sd is None else sd[idx], facts

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        problem = self.instance()
        sub = records[records["metric"] == self.metric]
        table = pivot_last(sub, "seed", "round")
        seeds = [int(s) for s in table.index]
        expected, sd, facts = self.expected()
        L, mu, Lbar, mubar = spectra(problem)
        constants = {"L": L, "mu": mu, "L_mean": Lbar, "mu_mean": mubar, "K": problem.clients, "d": problem.dim,
                     "sigma": float(problem.noise_std), **facts}
        conditions = [{"condition": "no prox: zero penalty and no ball (the recursion is affine)",
                       "holds": bool(problem.penalty.lam == 0 and problem.radius is None), "value": ""}]
        if any(c["holds"] is False for c in conditions):
            return self.conditions_not_met(conditions, seeds, constants, self.title)
        y = table.to_numpy(dtype=float)
        if self.gradients == "exact":
            y = y[:1]
            sd = np.zeros_like(expected)
        elif sd is not None:
            sd = sd / math.sqrt(self.block)  # the exact deviation of a block mean
        result = checks.exact_expectation(y, expected, sd)
        w_star = closed_form_optimum(problem)
        ref_gap = certified_distance2(problem, w_star.reshape(problem.shape))
        result.measured = (f"{result.measured}; mean ‖w_r − w*‖² at rounds {list(self.rounds)}: "
                           + ", ".join(f"{v:.5g}" for v in np.nanmean(y, axis=0)))
        result.predicted = "exact " + ", ".join(f"{v:.5g}" for v in expected)
        return self.verdict(result, conditions=conditions, seeds=seeds, constants=constants, statement=self.title,
                            reference_gap=ref_gap, smallest_measured=float(np.min(expected)),
                            margin=moments_resolution(result))


@dataclass(frozen=True)
class FedAvgFixedPoint(ExactMoments):
    """Exact gradients: the deterministic trajectory, and the limit equals FedAvg's computed biased fixed point."""

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        v = super().judge(records, profile)
        problem = self.instance()
        oracle = exact.quadratic_oracle(problem, self.batch, exact=True)
        x_inf = exact.fixed_point(self._method(problem), oracle, problem.weights)
        w_star = closed_form_optimum(problem)
        v["message"] += (f"; FedAvg's fixed point x∞ (E = {self.hyper['local_steps']}) is at ‖x∞ − w*‖² = "
                         f"{float(np.sum((x_inf - w_star) ** 2)):.4g} from the optimum")
        if v["verdict"] == "pass":
            sub = records[(records["metric"] == self.metric) & (records["round"] == max(self.rounds))]
            last = float(sub["value"].iloc[0])
            bias2 = float(np.sum((x_inf - w_star) ** 2))
            if abs(last - bias2) > 1e-6 * bias2:
                v["verdict"] = "fail"
                v["message"] += f"; but the last iterate is at {last:.6g}, not at the fixed point ({bias2:.6g})"
        return v


def moments_resolution(result: checks.CheckResult) -> dict:
    """Resolution margin of :func:`checks.exact_expectation`: the largest half-width relative to the exact value
    (a deviation of that relative size is detected), or the relative tolerance of a deterministic comparison."""
    d = result.details or {}
    if "half_width" in d:
        half, expected = np.asarray(d["half_width"], dtype=float), np.asarray(d["expected"], dtype=float)
        return mg.resolution(float(np.max(half / np.maximum(np.abs(expected), np.finfo(float).tiny))))
    return mg.resolution(tol.EXACT_RELATIVE)


# ---- the law of the returned point --------------------------------------------------------------------------------
def returned_point_check(y: np.ndarray, mean: np.ndarray, cov: np.ndarray | None, replicas: int, scale: np.ndarray,
                         alternatives: dict[str, np.ndarray] | None = None,
                         confidence: float = tol.EXACT_CONFIDENCE,
                         resolution: float = tol.EXACT_RESOLUTION) -> checks.CheckResult:
    """E[ŵ_r] = m_r at every recorded round r, two-sided, for the vector ŵ_r the method returns.

    ``y`` (S, P, d) are per-seed means of ``replicas`` independent returned points, ``mean`` (P, d) and ``cov``
    (P, d, d) the exact mean and covariance of one returned point.  The grand mean ȳ_r of N = S·replicas points
    has covariance Σ_r/N, so Q_r = N(ȳ_r − m_r)ᵀΣ_r⁻¹(ȳ_r − m_r) is χ²_k with k = rank Σ_r (exactly for Gaussian
    iterates, by the CLT for minibatch ones); the check fails when Q_r exceeds the χ²_k quantile at family-wise
    ``confidence`` over the P rounds (Bonferroni), or when ȳ_r leaves the null space of Σ_r (a deterministic
    direction) by more than 1e-9·(1 + scale).  It is ``inconclusive`` when the acceptance ellipsoid's longest
    semi-axis √(χ²_crit λ_max/N) exceeds ``resolution``·scale_r (scale: how far the exact mean moves from the start).
    ``alternatives`` (name → exact mean (P, d) of another point the method could return) give the power: the
    probability that the check rejects when the method returns that point instead, P(χ²_k(nc) > χ²_crit) at the
    round where it is largest.  ``cov`` None (population sampling): Hotelling's T² with the covariance estimated
    from the per-seed means (:func:`_hotelling_check`)."""
    from scipy.stats import chi2, ncx2

    y = np.asarray(y, dtype=float)
    S, P, d = y.shape
    if cov is None:
        return _hotelling_check(y, mean, scale, alternatives or {}, confidence, resolution)
    N = S * int(replicas)
    ybar = y.mean(axis=0)
    level = 1 - (1 - confidence) / P
    worst_q, worst_p, worst_excess = 0.0, 0, 0.0
    semi = np.zeros(P)
    power: dict[str, float] = {}
    crits, invs = [], []
    fails = []
    for p in range(P):
        ev, V = np.linalg.eigh(0.5 * (cov[p] + cov[p].T))
        keep = ev > 1e-12 * max(float(ev.max()), np.finfo(float).tiny)
        k = int(keep.sum())
        delta = ybar[p] - mean[p]
        proj = V.T @ delta
        null_err = float(np.max(np.abs(proj[~keep]))) if (~keep).any() else 0.0
        if null_err > 1e-9 * (1 + scale[p]):
            fails.append(f"round index {p}: off the exact mean by {null_err:.3g} along a deterministic direction")
        crit = float(chi2.ppf(level, k)) if k else 0.0
        Q = float(N * np.sum(proj[keep] ** 2 / ev[keep])) if k else 0.0
        crits.append((crit, k))
        invs.append((V[:, keep], ev[keep]))
        semi[p] = math.sqrt(crit * float(ev.max()) / N) if k else 0.0
        if k and Q / crit > worst_excess:
            worst_q, worst_p, worst_excess = Q, p, Q / crit
        if k and Q > crit:
            fails.append(f"round index {p}: Q = {Q:.4g} > χ²_{k} quantile {crit:.4g}")
    for name, alt in (alternatives or {}).items():
        best = 0.0
        for p in range(P):
            crit, k = crits[p]
            Vk, evk = invs[p]
            shift = np.asarray(alt[p], dtype=float) - mean[p]
            if not k:
                best = max(best, float(np.linalg.norm(shift) > 1e-9 * (1 + scale[p])))
                continue
            nc = float(N * np.sum((Vk.T @ shift) ** 2 / evk))
            best = max(best, float(ncx2.sf(crit, k, nc)) if nc > 0 else 1 - level)
        power[name] = best
    rel = semi / np.maximum(scale, np.finfo(float).tiny)
    measured = (f"max Q/χ²_crit = {worst_excess:.3g} (Q = {worst_q:.4g} at round index {worst_p}); "
                f"‖ȳ − m‖ at the last round = {float(np.linalg.norm(ybar[-1] - mean[-1])):.3g}")
    predicted = "exact mean " + "; ".join("(" + ", ".join(f"{v:.4g}" for v in mean[p][:3]) + (", …)" if d > 3 else ")")
                                          for p in range(P))
    tolerance = (f"χ²_k quantile at {confidence * 100:g}% family-wise over {P} rounds, N = {N} returned points; "
                 f"relative resolution {float(rel.max()):.2%}")
    details = {"mean": ybar.tolist(), "expected": mean.tolist(), "semi_axis": semi.tolist(), "power": power,
               "resolution": float(rel.max())}
    if not np.all(np.isfinite(ybar)):
        return checks.CheckResult("fail", measured, predicted, tolerance, "non-finite returned points",
                                  details=details)
    if fails:
        return checks.CheckResult("fail", measured, predicted, tolerance,
                                  "the returned point's mean differs from the exact mean: " + "; ".join(fails),
                                  details=details)
    if float(rel.max()) > resolution:
        return checks.CheckResult("inconclusive", measured, predicted, tolerance,
                                  f"the acceptance ellipsoid's semi-axis is {float(rel.max()):.1%} of the distance the "
                                  f"mean moves (> {resolution:.0%}): too few replicas", details=details)
    text = "; ".join(f"{name}: {pw:.4f}" for name, pw in power.items())
    return checks.CheckResult("pass", measured, predicted, tolerance,
                              f"the returned point's Monte-Carlo mean matches the exact mean at all {P} rounds"
                              + (f"; power against returning the {text}" if power else ""), details=details)


def _hotelling_check(y: np.ndarray, mean: np.ndarray, scale: np.ndarray, alternatives: dict[str, np.ndarray],
                     confidence: float, resolution: float) -> checks.CheckResult:
    """:func:`returned_point_check` when only the exact mean is known (population sampling: the oracle's fourth
    moments are not propagated): Hotelling's T² = S(ȳ − m)ᵀŜ⁻¹(ȳ − m) with Ŝ the sample covariance of the S
    per-seed means; (S − d)T²/(d(S − 1)) is F(d, S − d) for Gaussian means (CLT: each is a mean of many runs)."""
    from scipy.stats import f as fdist
    from scipy.stats import ncf

    S, P, d = y.shape
    if S <= d + 1:
        raise ValueError(f"Hotelling's test needs more seeds ({S}) than dimensions + 1 ({d + 1})")
    level = 1 - (1 - confidence) / P
    crit = d * (S - 1) / (S - d) * float(fdist.ppf(level, d, S - d))
    ybar = y.mean(axis=0)
    fails, semi, power, worst = [], np.zeros(P), {}, (0.0, 0)
    covs = []
    for p in range(P):
        Sh = np.cov(y[:, p, :].T, ddof=1).reshape(d, d)
        covs.append(Sh)
        delta = ybar[p] - mean[p]
        T2 = float(S * delta @ np.linalg.solve(Sh, delta))
        semi[p] = math.sqrt(crit * float(np.linalg.eigvalsh(Sh)[-1]) / S)
        worst = max(worst, (T2 / crit, p))
        if T2 > crit:
            fails.append(f"round index {p}: T² = {T2:.4g} > {crit:.4g}")
    for name, alt in alternatives.items():
        best = 0.0
        for p in range(P):
            shift = np.asarray(alt[p], dtype=float) - mean[p]
            nc = float(S * shift @ np.linalg.solve(covs[p], shift))
            fcrit = crit * (S - d) / (d * (S - 1))
            best = max(best, float(ncf.sf(fcrit, d, S - d, nc)) if nc > 0 else 1 - level)
        power[name] = best
    rel = semi / np.maximum(scale, np.finfo(float).tiny)
    measured = (f"max T²/crit = {worst[0]:.3g} at round index {worst[1]}; ‖ȳ − m‖ at the last round = "
                f"{float(np.linalg.norm(ybar[-1] - mean[-1])):.3g}")
    predicted = "exact mean " + "; ".join("(" + ", ".join(f"{v:.4g}" for v in mean[p][:3]) + (", …)" if d > 3 else ")")
                                          for p in range(P))
    tolerance = (f"Hotelling T² at {confidence * 100:g}% family-wise over {P} rounds, {S} per-seed means "
                 f"(covariance estimated); relative resolution {float(rel.max()):.2%}")
    details = {"mean": ybar.tolist(), "expected": mean.tolist(), "semi_axis": semi.tolist(), "power": power,
               "resolution": float(rel.max())}
    if not np.all(np.isfinite(ybar)):
        return checks.CheckResult("fail", measured, predicted, tolerance, "non-finite returned points",
                                  details=details)
    if fails:
        return checks.CheckResult("fail", measured, predicted, tolerance,
                                  "the returned point's mean differs from the exact mean: " + "; ".join(fails),
                                  details=details)
    if float(rel.max()) > resolution:
        return checks.CheckResult("inconclusive", measured, predicted, tolerance,
                                  f"the acceptance ellipsoid's semi-axis is {float(rel.max()):.1%} of the distance the "
                                  f"mean moves (> {resolution:.0%}): too few replicas", details=details)
    return checks.CheckResult("pass", measured, predicted, tolerance,
                              f"the returned point's Monte-Carlo mean matches the exact mean at all {P} rounds",
                              details=details)


@dataclass(frozen=True)
class ReturnedPointLaw(ExactMoments):
    """The mean of the point ``run`` returns equals the exact mean of the estimator the theorem bounds (FedAvg,
    FedProx, FedMiD, FedDA: the last server iterate; Fast-FedDA: (1/A_T)Σ_{t=0}^{T} α_t w_{t+1} over the virtual
    sequence (12), Theorem 2.1; C-FedDA: (1/A_R)Σ_{r=0}^{R} α_r w̄_{r+1}, Theorem 3.1 and §3.3; MC-FedDA: the last
    stage's C-FedDA output, Algorithm 3), at every recorded round, two-sided (:func:`returned_point_check`).

    The start w₀ is ``offset`` away from the optimum so that the candidate outputs (last iterate, weighted average,
    average with the weights shifted by one index) have exact means far apart; their power is reported."""

    participating: int | None = None
    #: initial point w* + offset·(1, −1, 1, …)/√d (the candidates differ most when the start is far away)
    offset: float = 10.0
    stage_rounds: int = 0
    stages: int = 0

    def points(self, profile: str) -> list[dict]:
        return [{**super().points(profile)[0], "participating": self.participating, "offset": self.offset}]

    def _w0(self, problem: Any) -> np.ndarray:
        d = problem.dim
        sign = np.where(np.arange(d) % 2 == 0, 1.0, -1.0)
        return closed_form_optimum(problem) + self.offset * sign / math.sqrt(d)

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        from fedrates.solvers.algorithms import run_batch

        problem = self.instance()
        w_star = closed_form_optimum(problem)
        alg = _algorithm(self, batch=self.batch, **self.hyper)
        ref = _Fixed(problem, w_star, 0.0)
        w0 = self._w0(problem).reshape(problem.shape)
        replicas = [int(s) * BLOCK_STRIDE + j for s in seeds for j in range(self.block)]
        wanted, outs = set(self.rounds), {}

        def callback(r: int, state: Any) -> None:
            if r in wanted:
                outs[r] = problem.flat(np.array(alg.output(state), dtype=float))

        run_batch(alg, problem, max(self.rounds), seeds=replicas, gradients=self.gradients, replace=self.replace,
                  record_every=max(self.rounds), reference=ref, callback=callback,
                  w0=np.broadcast_to(w0, (len(replicas),) + problem.shape).copy(),
                  participating=self.participating)
        E = int(self.hyper.get("local_steps", 1))
        frames = []
        for r in self.rounds:
            block_mean = outs[r].reshape(len(seeds), self.block, problem.dim).mean(axis=1)
            data = {"seed": seeds, "round": r, "iterations": r * E, "diverged": ~np.isfinite(block_mean).all(axis=1)}
            data.update({f"returned_point[{j}]": block_mean[:, j] for j in range(problem.dim)})
            frames.append(pd.DataFrame(data))
        df = pd.concat(frames, ignore_index=True)
        return records_from_trace(df, claim=self, point_index=0, point=point,
                                  metrics=[f"returned_point[{j}]" for j in range(problem.dim)],
                                  problem_dim=problem.dim)

    def _method(self, problem: Any) -> exact.LinearMethod:
        h = self.hyper
        E = int(h.get("local_steps", 1))
        d = problem.dim
        w0 = self._w0(problem)
        if self.builder == "fedavg_like":
            return exact.fedavg_like(d, step=h["step"], local_steps=E, server_step=h.get("server_step", 1.0),
                                     mu_prox=h.get("mu_prox", 0.0), w0=w0)
        L, mu, _, _ = spectra(problem)
        mu_m = h.get("mu") or mu
        a = h.get("a") or 4 * L / mu_m
        gamma = h.get("gamma") or 2 * mu_m * a**3
        if self.builder == "mc_fedda":
            return exact.mc_fedda(d, mu=mu_m, a=a, gamma=gamma, local_steps=E, stage_rounds=h["stage_rounds"],
                                  stages=h["stages"], w0=w0)
        build = exact.fast_fedda if self.builder == "fast_fedda" else exact.c_fedda
        return build(d, mu=mu_m, a=a, gamma=gamma, local_steps=E, w0=w0)

    def exact_law(self) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray], np.ndarray]:
        """(mean (P, d), covariance (P, d, d), alternatives' means, scale (P,)) at the recorded rounds."""
        problem = self.instance()
        population = problem.sampling == "population"
        if population:
            # unbiased gradients drawn independently of the iterate: the mean follows the exact-gradient recursion
            Q, b = client_quadratics(problem)
            oracle = exact.Oracle(Q=Q, b=b, exact=True)
        elif problem.sampling == "gaussian":
            oracle = exact.quadratic_oracle(problem, self.batch, exact=self.gradients == "exact")
        else:
            oracle = exact.sample_oracle(problem, self.batch, self.replace, exact=self.gradients == "exact")
        m = exact.moments(self._method(problem), oracle, problem.weights, max(self.rounds),
                          participating=self.participating)
        idx = list(self.rounds)
        scale = np.linalg.norm(m.mean[idx] - m.mean[0][None], axis=1)
        cov = None if population else m.cov[idx]
        return m.mean[idx], cov, {k: v[idx] for k, v in m.alternatives.items()}, scale

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        problem = self.instance()
        d = problem.dim
        seeds = sorted(int(s) for s in records["seed"].unique())
        y = np.empty((len(seeds), len(self.rounds), d))
        for j in range(d):
            sub = records[records["metric"] == f"returned_point[{j}]"]
            table = pivot_last(sub, "seed", "round")
            y[:, :, j] = table.reindex(index=seeds, columns=list(self.rounds)).to_numpy(dtype=float)
        mean, cov, alts, scale = self.exact_law()
        L, mu, Lbar, mubar = spectra(problem)
        constants = {"L": L, "mu": mu, "L_mean": Lbar, "mu_mean": mubar, "K": problem.clients, "d": d,
                     "participating": float(self.participating or problem.clients),
                     "weight_min": float(problem.weights.min()), "weight_max": float(problem.weights.max())}
        lam, kappa_max = float(problem.penalty.lam), 2.0 * float(problem.penalty.lam) / mu
        conditions = [{"condition": "affine recursion: no ball, and no penalty or one whose thresholds (≤ 2λ/µ) are "
                                    "1e-6 below the check's resolution",
                       "holds": bool(problem.radius is None and kappa_max <= 1e-6 * tol.EXACT_RESOLUTION
                                     * float(scale.min())), "value": f"λ = {lam:g}, 2λ/µ = {kappa_max:.3g}"}]
        if any(c["holds"] is False for c in conditions):
            return self.conditions_not_met(conditions, seeds, constants, self.title)
        result = returned_point_check(y, mean, cov, self.block, scale, alts)
        power = result.details.get("power", {}) if result.details else {}
        extra = {"power": power, "resolution": result.details.get("resolution") if result.details else None}
        margin = mg.resolution(extra["resolution"]) if extra["resolution"] is not None else None
        if margin is not None and power:
            margin["text"] += ("; power against returning the " + ", ".join(f"{k} {v:.3f}" for k, v in power.items()))
        return self.verdict(result, conditions=conditions, seeds=seeds, constants=constants, statement=self.title,
                            extra=extra, margin=margin)


# ---- exact limits of the composite methods ------------------------------------------------------------------------
@dataclass(frozen=True)
class ExactLimit(Claim):
    """With exact gradients the composite method's objective gap to the certified optimum falls below
    ``LIMIT_FRACTION``·gap(w₀) within ``rounds`` rounds (and, for proximal gradient, below its exact contraction
    bound)."""

    family: str = "quadratic"
    problem_params: dict = field(default_factory=dict)
    hyper: dict = field(default_factory=dict)
    rounds: int = 200
    #: initial point: "zero" or "offset" (a fixed point inside the ball, so the CProx centre is off the origin)
    start: str = "zero"
    contraction: bool = False
    #: the relative gap the method must reach (``LIMIT_FRACTION`` unless the claim says why not)
    fraction: float = LIMIT_FRACTION

    def instance(self) -> Any:
        return problem_of(self.family, self.problem_params)

    def _w0(self, problem: Any) -> np.ndarray:
        if self.start == "zero":
            return np.zeros(problem.shape)
        rng = np.random.default_rng(7)
        w = rng.standard_normal(problem.shape)
        return 0.5 * problem.radius * w / np.linalg.norm(w)

    def _hyper(self, problem: Any) -> dict:
        h = dict(self.hyper)
        if self.algorithm in ("fast_fedda", "c_fedda", "mc_fedda"):
            L, mu, _, _ = spectra(problem)
            h.setdefault("mu", mu)
        if self.algorithm == "c_fedda" and h.get("eps0") == "binding":
            ref = reference_of(problem)
            h["eps0"] = EPS0_FACTOR * float(problem.penalty.norm(self._w0(problem) - ref.w))
        return h

    def points(self, profile: str) -> list[dict]:
        return [{"problem": self.family, **self.problem_params, **{k: str(v) for k, v in self.hyper.items()},
                 "rounds": self.rounds, "start": self.start}]

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        problem = self.instance()
        ref = reference_of(problem)
        alg = _algorithm(self, **self._hyper(problem))
        w0 = self._w0(problem)
        grid = sorted({max(1, self.rounds // 4), self.rounds // 2, self.rounds})
        outs = _collect(alg, problem, grid, list(seeds)[:1], gradients="exact", replace=False, reference=ref,
                        w0=w0)
        rows = []
        E = int(self.hyper.get("local_steps", 1))
        for r in grid:
            gap = np.asarray(problem.objective(outs[r]), dtype=float) - float(ref.value)
            rows.append(pd.DataFrame({"seed": list(seeds)[:1], "round": r, "iterations": r * E, self.metric: gap,
                                      "diverged": ~np.isfinite(gap)}))
        return records_from_trace(pd.concat(rows, ignore_index=True), claim=self, point_index=0, point=point,
                                  metrics=[self.metric], problem_dim=problem.dim)

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        from fedrates.solvers import reference

        problem = self.instance()
        ref = reference_of(problem)
        sub = records[records["metric"] == self.metric].sort_values("round")
        seeds = sorted(int(s) for s in sub["seed"].unique())
        gaps = sub["value"].to_numpy(dtype=float)
        w0 = self._w0(problem)
        gap0 = float(problem.objective(w0)) - float(ref.value)
        ref_gap = float(reference.certify(problem, np.asarray(ref.w)))  # re-certified now, not trusted
        L, mu, Lbar, mubar = spectra(problem)
        constants = {"L": L, "mu": mu, "L_mean": Lbar, "mu_mean": mubar, "gap0": gap0, "lam": problem.penalty.lam,
                     "rho": float(problem.radius or 0.0)}
        conditions = [{"condition": "the ℓ2 ball binds at the optimum or the penalty is active",
                       "holds": bool(problem.penalty.lam > 0), "value": f"λ = {problem.penalty.lam:g}"}]
        threshold = self.fraction * gap0
        if self.contraction:
            eta = float(self.hyper["step"])
            q = max(abs(1 - eta * mubar), abs(1 - eta * Lbar))
            # ‖x_R − x*‖ ≤ q^R‖x₀ − x*‖ (prox is nonexpansive), gap ≤ (L̄/2)‖·‖² and ‖x₀ − x*‖² ≤ 2 gap₀/µ̄
            steps = self.rounds * int(self.hyper.get("local_steps", 1))
            threshold = min(threshold, q ** (2 * steps) * Lbar / mubar * gap0)
        last = float(gaps[-1])
        measured = f"gap at rounds {sorted(sub['round'].unique().tolist())}: " + ", ".join(f"{g:.3g}" for g in gaps)
        if not np.all(np.isfinite(gaps)):
            res = checks.CheckResult("fail", measured, f"gap ≤ {threshold:.3g}", "—", "non-finite iterates")
        elif last <= threshold:
            res = checks.CheckResult("pass", measured, f"gap(R) ≤ {threshold:.3g}", f"relative {self.fraction:g}",
                                     f"converges to the certified optimum: gap {last:.3g} ≤ {threshold:.3g}")
        else:
            res = checks.CheckResult("fail", measured, f"gap(R) ≤ {threshold:.3g}", f"relative {self.fraction:g}",
                                     f"the limit is not the certified optimum: gap {last:.3g} > {threshold:.3g} "
                                     f"after {self.rounds} rounds")
        # the smallest quantity measured is the threshold the gap is compared with (or the gap when it is larger);
        # the margin: a limit whose gap exceeds threshold/gap₀ of the initial gap is detected
        return self.verdict(res, conditions=conditions, seeds=seeds, constants=constants, statement=self.title,
                            reference_gap=ref_gap, smallest_measured=threshold,
                            margin=mg.resolution(threshold / gap0 if gap0 > 0 else self.fraction))



#: C-FedDA's ε₀ as a multiple of R(w₀ − ŵ): the certified optimum is feasible (so it is the limit) while the
#: constraint R(w − w₀) ≤ ε₀ binds at early iterates, where the constrained prox must be solved off-centre
EPS0_FACTOR = 1.02

# ---- the catalogue ----------------------------------------------------------------------------------------------
#: recorded seeds (blocks of ``ExactMoments.block`` = 40 replicas): 1200 / 3000 / 10000 runs
_SEEDS = {"quick": 30, "standard": 75, "full": 250}
#: replica seeds of a block: seed·BLOCK_STRIDE + j, j < block (distinct across seeds and base seeds)
BLOCK_STRIDE = 1000
_QUAD_REGIME = ("Quadratic federation K = 4, d = 6, spectra in [0.5, 2], unequal weights π_k (skew 1), Gaussian "
                "gradient noise E‖ζ‖² = σ²/B = 4/B, no penalty and no ball; full participation.")
_LASSO_REGIME = ("Least squares on K = 4 clients × n = 12 samples, d = 5, λ = 0, weights π = (0.1, 0.2, 0.3, 0.4); "
                 "minibatches of B = 3 samples; full participation.")
_IMPLICIT_REGIME = ("Least squares with implicit features (scaled rows of the orthonormal DCT, never stored) on "
                    "K = 6 clients × n = 10 samples, d = 5 (every coordinate seen twice per client), weights π = "
                    "(0.1, 0.12, 0.15, 0.18, 0.2, 0.25); minibatches of B = 2 real samples drawn without replacement "
                    "by the oracle; 3 of 6 clients sampled per round.")
#: the implicit-feature federation of ``bao.returned/fedavg-implicit`` and its client weights
IMPLICIT = {"clients": 6, "dim": 5, "samples": 10, "mu": 0.2, "L": 1.0, "heterogeneity": 1.0, "noise": 0.5,
            "seed": 15}
IMPLICIT_WEIGHTS = (0.1, 0.12, 0.15, 0.18, 0.2, 0.25)
_COMP_REGIME = ("Quadratic federation K = 4, d = 6, unequal weights, ℓ1 penalty λ = 0.3 and an ℓ2 ball ρ = 1 that "
                "binds at the optimum; exact gradients; certified reference re-certified at judge time.")


def _moments(cid: str, alg: str, title: str, regime: str, seeds_override: dict | None = None,
             **kw: Any) -> ExactMoments:
    return ExactMoments(id=cid, theorem="exact", algorithm=alg, problem=kw.get("family", "quadratic"), title=title,
                        regime=regime, why="closed-form mean/covariance recursion; two-sided, so too good fails too",
                        metric="distance_to_optimum", x="round", n_seeds=dict(seeds_override or _SEEDS), **kw)


_POP_REGIME = ("{family} with population sampling ({d}, K = 4, equal weights, fresh Gaussian covariates and noise "
               "per gradient, minibatch B = 8), λ = 0 and no ball; full participation.  Exact mean by the "
               "exact-gradient recursion (unbiased gradients independent of the iterate); covariance estimated "
               "(Hotelling T²).")
_START = " Start w₀ = w* + 10·(1, −1, 1, …)/√d, so the candidate outputs have far-apart means."


def _returned(cid: str, alg: str, title: str, regime: str, **kw: Any) -> ReturnedPointLaw:
    return ReturnedPointLaw(
        id=cid, theorem="exact", algorithm=alg, problem=kw.get("family", "quadratic"), title=title, regime=regime,
        why="the point run returns is pinned by the exact mean of the estimator the theorem bounds; a wrong output "
            "(last iterate, wrong weights, wrong index range) moves that mean",
        metric="returned_point", x="round", n_seeds=dict(_SEEDS),
        reference_free="the returned point is compared with its exact law, not with an optimum", **kw)


CLAIMS: tuple[Claim, ...] = (
    _moments("bao.exact/fedavg-moments", "fedavg", "FedAvg: E‖x_r − w*‖² equals its exact value (E = 3, η_s = 0.7)",
             _QUAD_REGIME, problem_params=QUAD, hyper={"step": 0.3, "server_step": 0.7, "local_steps": 3}),
    FedAvgFixedPoint(
        id="bao.exact/fedavg-fixed-point", theorem="exact", algorithm="fedavg", problem="quadratic",
        title="FedAvg with exact gradients: exact trajectory and the biased fixed point x∞ ≠ w* for E = 3",
        regime=_QUAD_REGIME.replace("Gaussian gradient noise E‖ζ‖² = σ²/B = 4/B", "exact gradients"),
        why="the fixed point of the mean round map is computed by a linear solve, independently of the code",
        metric="distance_to_optimum", x="round", n_seeds={"quick": 1, "standard": 1, "full": 1},
        problem_params=QUAD, hyper={"step": 0.3, "server_step": 1.0, "local_steps": 3}, rounds=(1, 2, 5, 300),
        gradients="exact"),
    _moments("bao.exact/fedprox-moments", "fedprox",
             "FedProx: E‖x_r − w*‖² equals its exact value under minibatch sampling (E = 3, µ_prox = 0.5)",
             _LASSO_REGIME + " Without replacement.", family="lasso", problem_params=LASSO, weights=SKEWED,
             hyper={"step": 0.1, "mu_prox": 0.5, "local_steps": 3}, batch=3,
             # the sample deviation decides the resolution (≈ 9.6% at 30 seeds, against the 10% limit): 60 seeds
             # keep it near 7% at every base seed
             seeds_override={"quick": 60, "standard": 120, "full": 250}),
    _moments("bao.exact/fedda-moments", "fedda", "FedDA (no prox): E‖w_r − w*‖² equals its exact value (E = 2, "
             "η_s = 0.8)", _QUAD_REGIME, problem_params=QUAD,
             hyper={"step": 0.3, "server_step": 0.8, "local_steps": 2}),
    _moments("bao.exact/fedmid-moments", "fedmid",
             "FedMiD (no penalty): E‖x_r − w*‖² equals its exact value under minibatch sampling with replacement",
             _LASSO_REGIME + " With replacement.", family="lasso", problem_params=LASSO, weights=SKEWED,
             hyper={"step": 0.1, "local_steps": 2}, batch=3, replace=True),
    _moments("bao.exact/fast-fedda-moments", "fast_fedda",
             "Fast-FedDA (no prox): E‖ŵ_T − w*‖² of the weighted virtual average equals its exact value (E = 3)",
             _QUAD_REGIME + " a = 4L/µ, γ = 2µa³.", problem_params=QUAD, hyper={"local_steps": 3},
             builder="fast_fedda", rounds=(1, 4, 12)),
    _moments("bao.exact/c-fedda-moments", "c_fedda",
             "C-FedDA (constraint far away, no penalty): E‖ŵ_R − w*‖² equals its exact value (E = 2)",
             _QUAD_REGIME + " ε₀ = 1e6 (never binds), a = 4L/µ, γ = 2µa³.", problem_params=QUAD,
             hyper={"local_steps": 2, "eps0": 1e6}, builder="c_fedda", rounds=(1, 4, 12)),
    _returned("bao.returned/fedavg", "fedavg",
              "FedAvg returns the last server iterate x_R: its mean equals the exact mean (2 of 4 clients sampled "
              "per round, unequal π_k, η_s = 0.7, E = 3)",
              _QUAD_REGIME.replace("full participation", "2 of 4 clients sampled per round") + _START,
              problem_params=QUAD, hyper={"step": 0.3, "server_step": 0.7, "local_steps": 3}, participating=2),
    _returned("bao.returned/fedprox", "fedprox",
              "FedProx returns the last server iterate: its mean equals the exact mean (3 of 4 clients sampled, "
              "minibatches without replacement, µ_prox = 0.5)",
              _LASSO_REGIME.replace("full participation", "3 of 4 clients sampled per round") + _START,
              family="lasso", problem_params=LASSO, weights=SKEWED,
              hyper={"step": 0.1, "mu_prox": 0.5, "local_steps": 3}, batch=3, participating=3),
    _returned("bao.returned/fedavg-implicit", "fedavg",
              "FedAvg on least squares with implicit features (real minibatches of B = 2 samples, 3 of 6 clients "
              "sampled per round, E = 3): the returned point's mean equals the exact mean",
              _IMPLICIT_REGIME + _START, family="implicit_least_squares", problem_params=IMPLICIT,
              weights=IMPLICIT_WEIGHTS, hyper={"step": 0.3, "local_steps": 3}, batch=2, participating=3),
    _returned("bao.returned/fedmid", "fedmid",
              "FedMiD (no penalty) returns the last server iterate: its mean equals the exact mean (2 of 4 sampled)",
              _QUAD_REGIME.replace("full participation", "2 of 4 clients sampled per round") + _START,
              problem_params=QUAD, hyper={"step": 0.3, "local_steps": 2}, participating=2),
    _returned("bao.returned/fedda", "fedda",
              "FedDA (no prox) returns the last primal point w_R: its mean equals the exact mean (2 of 4 sampled, "
              "η_s = 0.8)",
              _QUAD_REGIME.replace("full participation", "2 of 4 clients sampled per round") + _START,
              problem_params=QUAD, hyper={"step": 0.3, "server_step": 0.8, "local_steps": 2}, participating=2),
    _returned("bao.returned/fast-fedda-population", "fast_fedda",
              "Fast-FedDA under population sampling (Theorem 2.1's 𝒫_k: a fresh sample per gradient) returns the "
              "α-weighted virtual average: its mean equals the exact mean (E = 2)",
              _POP_REGIME.format(family="Lasso", d="p = 5") + " a = 4L/µ, γ = 2µa³." + _START,
              family="lasso", problem_params=POP_LASSO, hyper={"local_steps": 2}, builder="fast_fedda", batch=8,
              rounds=(1, 2, 5, 10)),
    _returned("bao.returned/fedmid-trace-population", "fedmid",
              "FedMiD (λ = 0) on population trace regression returns the last server iterate: its mean equals the "
              "exact mean (2 of 4 clients sampled per round, E = 2)",
              _POP_REGIME.format(family="Trace regression", d="2 × 3 matrices").replace(
                  "full participation", "2 of 4 clients sampled per round") + _START,
              family="trace", problem_params=POP_TRACE, hyper={"step": 0.1, "local_steps": 2}, batch=8,
              rounds=(2, 5, 10), participating=2),
    _returned("bao.returned/fast-fedda", "fast_fedda",
              "Fast-FedDA returns (1/A_T)Σ_{t=0}^{T} α_t w_{t+1} over the virtual sequence (Theorem 2.1): its mean "
              "equals the exact mean (E = 3)",
              _QUAD_REGIME + " a = 4L/µ, γ = 2µa³." + _START, problem_params=QUAD, hyper={"local_steps": 3},
              builder="fast_fedda", rounds=(1, 2, 4, 12)),
    _returned("bao.returned/c-fedda", "c_fedda",
              "C-FedDA returns (1/A_R)Σ_{r=0}^{R} α_r w̄_{r+1} (Theorem 3.1): its mean equals the exact mean (E = 2)",
              _QUAD_REGIME + " ε₀ = 1e6 (never binds), a = 4L/µ, γ = 2µa³." + _START, problem_params=QUAD,
              hyper={"local_steps": 2, "eps0": 1e6}, builder="c_fedda", rounds=(1, 2, 4, 12)),
    _returned("bao.returned/fast-fedda-sampled", "fast_fedda",
              "Fast-FedDA with 2 of 4 clients sampled per round (the §4 runs sample; not analysed): the averages of "
              "g and w̃ over the participants with renormalised π_k, and the returned α-weighted virtual average, "
              "have the exact mean",
              _QUAD_REGIME.replace("full participation", "2 of 4 clients sampled per round")
              + " a = 4L/µ, γ = 2µa³." + _START, problem_params=QUAD, hyper={"local_steps": 3},
              builder="fast_fedda", rounds=(1, 2, 4, 12), participating=2),
    _returned("bao.returned/c-fedda-sampled", "c_fedda",
              "C-FedDA with 2 of 4 clients sampled per round (the §4 runs sample; not analysed): the returned "
              "α_r-weighted average of the server points has the exact mean",
              _QUAD_REGIME.replace("full participation", "2 of 4 clients sampled per round")
              + " ε₀ = 1e6 (never binds), a = 4L/µ, γ = 2µa³." + _START, problem_params=QUAD,
              hyper={"local_steps": 2, "eps0": 1e6}, builder="c_fedda", rounds=(1, 2, 4, 12), participating=2),
    _returned("bao.returned/mc-fedda", "mc_fedda",
              "MC-FedDA returns the last stage's C-FedDA output, stage m + 1 centred at stage m's output "
              "(Algorithm 3): its mean equals the exact mean (3 stages of 3 rounds, E = 2)",
              _QUAD_REGIME.replace("no penalty", "ℓ1 penalty λ = 1e-10 (thresholds ≤ 2λ/µ = 4e-10, below the "
                                   "resolution by > 1e6)")
              + " Ψ = 1e7 so that ε_m = 108Ψ²λ_m/µ ≥ 1e6 never binds; a = 4L/µ, γ = 2µa³." + _START,
              problem_params={**QUAD, "lam": 1e-10},
              hyper={"local_steps": 2, "stages": 3, "stage_rounds": 3, "psi": 1e7}, builder="mc_fedda",
              rounds=(2, 3, 4, 6, 7, 10)),
    ExactLimit(
        id="bao.limit/fedmid-prox-gradient", theorem="exact", algorithm="fedmid", problem="quadratic",
        title="FedMiD (E = 2, identical clients, server prox off): proximal gradient reaches the certified "
              "optimum at its exact contraction rate",
        regime=_COMP_REGIME.replace("unequal weights", "identical clients"),
        why="the contraction max(|1−ηµ|,|1−ηL|) of proximal gradient is exact",
        metric="objective_gap", x="round", n_seeds={"quick": 1, "standard": 1, "full": 1},
        problem_params=IDENTICAL, hyper={"step": 0.4, "local_steps": 2, "server_prox": "none"}, rounds=20,
        contraction=True),
    ExactLimit(
        id="bao.limit/fedda", theorem="exact", algorithm="fedda", problem="quadratic",
        title="FedDA (E = 2, identical clients): dual averaging reaches the certified composite optimum",
        regime=_COMP_REGIME.replace("unequal weights", "identical clients"),
        why="with identical clients FedDA is centralised regularised dual averaging over E·R steps (threshold "
            "η_c·t at step t), whose limit is the optimum",
        metric="objective_gap", x="round", n_seeds={"quick": 1, "standard": 1, "full": 1},
        problem_params=IDENTICAL, hyper={"step": 0.5, "local_steps": 2}, rounds=1500),
    ExactLimit(
        id="bao.limit/fast-fedda", theorem="bao.thm2.1", algorithm="fast_fedda", problem="quadratic",
        title="Fast-FedDA (E = 2, exact gradients): the weighted average reaches the certified composite optimum",
        regime=_COMP_REGIME, why="Theorem 2.1 with σ = 0: every term vanishes as T grows, so the limit is the optimum",
        metric="objective_gap", x="round", n_seeds={"quick": 1, "standard": 1, "full": 1},
        problem_params=COMPOSITE, hyper={"local_steps": 2}, rounds=1500),
    ExactLimit(
        id="bao.limit/c-fedda-offcentre", theorem="bao.thm3.1", algorithm="c_fedda", problem="quadratic",
        title="C-FedDA (E = 2, w₀ off-centre, ε₀ binding early): reaches the certified composite optimum",
        regime=_COMP_REGIME + " w₀ ≠ 0 (‖w₀‖ = ρ/2) and ε₀ = 1.02·R(w₀ − ŵ): the constrained prox binds "
               "off-centre at early iterates while ŵ stays feasible.",
        why="the off-centre constrained prox binds; an inexact CProx moves the limit. Relative gap 1e-3 (not 1e-6): "
            "each round solves constrained prox problems, and C-FedDA's gap decays as R^-2.6 here (1e-3 at R = "
            "150, 1e-6 would need ~2000 rounds); the inexact CProx of the catalogue plateaus at ≈ 2.5e-2",
        metric="objective_gap", x="round", n_seeds={"quick": 1, "standard": 1, "full": 1},
        problem_params=COMPOSITE, hyper={"local_steps": 2, "eps0": "binding"}, rounds=150, start="offset",
        fraction=1e-3),
    ExactLimit(
        id="bao.limit/mc-fedda", theorem="bao.thm3.2", algorithm="mc_fedda", problem="quadratic",
        title="MC-FedDA (3 stages, E = 2, exact gradients): the last stage reaches the certified optimum for λ_opt",
        regime=_COMP_REGIME + " λ₀ = 4λ, stages of 40 rounds, Ψ = 1 (ε_m = 108Ψ²λ_m/µ).",
        why="the homotopy must end at the problem's own λ; every stage is a warm-started C-FedDA run",
        metric="objective_gap", x="round", n_seeds={"quick": 1, "standard": 1, "full": 1},
        problem_params=COMPOSITE, hyper={"local_steps": 2, "stages": 3, "stage_rounds": 40, "psi": 1.0},
        rounds=800),
)


# the shared-basis claims (a module of this package: it builds on the classes above)
from fedrates.verify.claims.bao.exact import structured as _structured  # noqa: E402

CLAIMS = CLAIMS + _structured.CLAIMS
