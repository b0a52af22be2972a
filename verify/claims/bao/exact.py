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
import json
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fedrates._lazy import lazy_import
from fedrates.solvers.certify import observed_cache
from fedrates.verify import checks, exact
from fedrates.verify import margins as mg
from fedrates.verify import tolerances as tol
from fedrates.verify.claims.base import Claim, records_from_trace

pd = lazy_import("pandas")  # imported on first use: listing and refusing stay fast

__all__ = ["CLAIMS", "LIMIT_FRACTION"]

#: an exact-limit claim passes when gap(T)/gap(w₀) ≤ this (the correct methods reach ≤ 1e-9 on these instances;
#: a wrong limit point leaves a relative gap ≥ 1e-4 for every variant of the catalogue)
LIMIT_FRACTION = tol.LIMIT_FRACTION


# ---- instances ----------------------------------------------------------------------------------------------------
@observed_cache
def _problem(family: str, params_json: str, weights_json: str) -> Any:
    from fedrates.solvers import problems

    params = json.loads(params_json)
    problem = problems.make(family, None, **params)
    weights = json.loads(weights_json)
    if weights:
        problem = dataclasses.replace(problem, weights=np.asarray(weights, dtype=float))
    return problem


def problem_of(family: str, params: dict, weights: tuple[float, ...] = ()) -> Any:
    """The claim's instance (``weights``: client weights π_k replacing the family's, for minibatch federations)."""
    return _problem(family, json.dumps(params, sort_keys=True), json.dumps(list(weights)))


def closed_form_optimum(problem: Any) -> np.ndarray:
    """argmin Σπ_kf_k of an unconstrained smooth quadratic federation: Q̄w = b̄ with Q̄ = Σπ_kQ_k, b̄ = Σπ_kb_k built
    here from the client data (not from the solver's reference)."""
    Q, b = client_quadratics(problem)
    w = problem.weights
    return np.linalg.solve(np.einsum("k,kij->ij", w, Q), np.einsum("k,ki->i", w, b))


def client_quadratics(problem: Any) -> tuple[np.ndarray, np.ndarray]:
    """(Q_k, b_k) with ∇f_k(w) = Q_kw − b_k, built here from the client data: Q_k itself (Gaussian-noise
    quadratics), X_kᵀX_k/n and X_kᵀy_k/n (samples), or C + m_km_kᵀ and Q_kw° (population least squares with
    x ~ N(m_k, C), y = xᵀw° + ε, Bao et al. §2)."""
    fit = problem.datafit
    if hasattr(fit, "Q"):
        return np.asarray(fit.Q), np.asarray(fit.b)
    if hasattr(fit, "means"):
        m, C = np.asarray(fit.means, dtype=float), np.asarray(fit.cov, dtype=float)
        Q = C[None] + np.einsum("kd,ke->kde", m, m)
        return Q, Q @ np.asarray(fit.truth, dtype=float).reshape(-1)
    X, y = np.asarray(fit.X), np.asarray(fit.y)
    return np.einsum("kni,knj->kij", X, X) / X.shape[1], np.einsum("kni,kn->ki", X, y) / X.shape[1]


def spectra(problem: Any) -> tuple[float, float, float, float]:
    """(L_max, µ_min) over clients and (L, µ) of the mean Hessian, from the client data at check time."""
    Q, _ = client_quadratics(problem)
    ev = np.linalg.eigvalsh(Q)
    evm = np.linalg.eigvalsh(np.einsum("k,kij->ij", problem.weights, Q))
    return float(ev[:, -1].max()), float(ev[:, 0].min()), float(evm[-1]), float(evm[0])


def _certified_distance2(problem: Any, w: np.ndarray) -> float:
    """A certified bound on ‖w − w_opt‖² (the reference's gap in the units of a squared distance): 2·gap/µ̄."""
    from fedrates.solvers import reference

    gap = float(reference.certify(problem, w))
    _, _, _, mu_bar = spectra(problem)
    return 2.0 * max(gap, 0.0) / mu_bar


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
        table = sub.pivot_table(index="seed", columns="round", values="value", aggfunc="last").sort_index()
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
        ref_gap = _certified_distance2(problem, w_star.reshape(problem.shape))
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
            table = sub.pivot_table(index="seed", columns="round", values="value", aggfunc="last").sort_index()
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
            ref = _reference(problem)
            h["eps0"] = EPS0_FACTOR * float(problem.penalty.norm(self._w0(problem) - ref.w))
        return h

    def points(self, profile: str) -> list[dict]:
        return [{"problem": self.family, **self.problem_params, **{k: str(v) for k, v in self.hyper.items()},
                 "rounds": self.rounds, "start": self.start}]

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        problem = self.instance()
        ref = _reference(problem)
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
        ref = _reference(problem)
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


@observed_cache
def _reference_cached(fingerprint: str, family: str, params_json: str) -> Any:
    from fedrates.solvers import reference

    return reference.solve(problem_of(family, json.loads(params_json)))


def _reference(problem: Any) -> Any:
    params = dict(problem.params)
    return _reference_cached(problem.fingerprint, problem.family, json.dumps(params, sort_keys=True))


#: C-FedDA's ε₀ as a multiple of R(w₀ − ŵ): the certified optimum is feasible (so it is the limit) while the
#: constraint R(w − w₀) ≤ ε₀ binds at early iterates, where the constrained prox must be solved off-centre
EPS0_FACTOR = 1.02

# ---- the catalogue ----------------------------------------------------------------------------------------------
QUAD = {"structure": "random", "clients": 4, "dim": 6, "mu": 0.5, "L": 2.0, "spread": 1.0, "sigma": 2.0,
        "weight_skew": 1.0, "seed": 3}
LASSO = {"clients": 4, "samples": 12, "dim": 5, "sparsity": 2, "lam": 0.0, "heterogeneity": 1.0, "seed": 2}
SKEWED = (0.1, 0.2, 0.3, 0.4)
COMPOSITE = {"structure": "random", "clients": 4, "dim": 6, "mu": 0.5, "L": 2.0, "spread": 2.0, "sigma": 0.0,
             "weight_skew": 1.0, "lam": 0.3, "radius": 1.0, "seed": 5}

#: identical clients (one cluster, no rotation, no spread): FedMiD with the server prox off is then E·R steps of
#: proximal gradient on F + λ‖·‖₁ over the ball
IDENTICAL = {"structure": "clustered", "clusters": 1, "angle": 0.0, "within": 0.0, "clients": 4, "dim": 6, "mu": 0.5,
             "L": 2.0, "spread": 2.0, "sigma": 0.0, "lam": 0.3, "radius": 1.0, "seed": 5}

#: recorded seeds (blocks of ``ExactMoments.block`` = 40 replicas): 1200 / 3000 / 10000 runs
_SEEDS = {"quick": 30, "standard": 75, "full": 250}
#: replica seeds of a block: seed·BLOCK_STRIDE + j, j < block (distinct across seeds and base seeds)
BLOCK_STRIDE = 1000
_QUAD_REGIME = ("Quadratic federation K = 4, d = 6, spectra in [0.5, 2], unequal weights π_k (skew 1), Gaussian "
                "gradient noise E‖ζ‖² = σ²/B = 4/B, no penalty and no ball; full participation.")
_LASSO_REGIME = ("Least squares on K = 4 clients × n = 12 samples, d = 5, λ = 0, weights π = (0.1, 0.2, 0.3, 0.4); "
                 "minibatches of B = 3 samples; full participation.")
_COMP_REGIME = ("Quadratic federation K = 4, d = 6, unequal weights, ℓ1 penalty λ = 0.3 and an ℓ2 ball ρ = 1 that "
                "binds at the optimum; exact gradients; certified reference re-certified at judge time.")


def _moments(cid: str, alg: str, title: str, regime: str, seeds_override: dict | None = None,
             **kw: Any) -> ExactMoments:
    return ExactMoments(id=cid, theorem="exact", algorithm=alg, problem=kw.get("family", "quadratic"), title=title,
                        regime=regime, why="closed-form mean/covariance recursion; two-sided, so too good fails too",
                        metric="distance_to_optimum", x="round", n_seeds=dict(seeds_override or _SEEDS), **kw)


POP_LASSO = {"clients": 4, "dim": 5, "sparsity": 2, "lam": 0.0, "heterogeneity": 1.0, "correlation": 0.5,
             "sampling": "population", "seed": 4}
POP_TRACE = {"clients": 4, "rows": 2, "cols": 3, "rank": 1, "lam": 0.0, "heterogeneity": 1.0,
             "sampling": "population", "seed": 4}
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


# ---- broken variants ------------------------------------------------------------------------------------------
def _with(cls: type) -> Any:
    """``apply``: run the claim with the broken class (built with the claim's own hyperparameters)."""
    return lambda claim: claim.with_algorithm(cls)


def _variants() -> tuple[Any, ...]:
    from fedrates.verify.claims.bao import variants as bb
    from fedrates.verify.variants import BrokenVariant as V

    fedavg = ("bao.exact/fedavg-moments", "bao.exact/fedavg-fixed-point", "bao.returned/fedavg")
    fedprox = ("bao.exact/fedprox-moments", "bao.returned/fedprox")
    fedda = ("bao.exact/fedda-moments", "bao.limit/fedda", "bao.returned/fedda")
    fedmid = ("bao.exact/fedmid-moments", "bao.limit/fedmid-prox-gradient", "bao.returned/fedmid",
              "bao.returned/fedmid-trace-population")
    fast = ("bao.exact/fast-fedda-moments", "bao.limit/fast-fedda", "bao.returned/fast-fedda",
            "bao.returned/fast-fedda-population", "bao.returned/fast-fedda-sampled")
    cfd = ("bao.exact/c-fedda-moments", "bao.limit/c-fedda-offcentre", "bao.returned/c-fedda",
           "bao.returned/c-fedda-sampled")
    mcf = ("bao.limit/mc-fedda", "bao.returned/mc-fedda")
    moments = tuple(c.id for c in CLAIMS if c.id.endswith("-moments"))
    gaussian = tuple(c.id for c in CLAIMS if c.id.endswith("-moments") and getattr(c, "family", "") == "quadratic")
    sampled = tuple(c.id for c in CLAIMS if c.id.endswith("-moments") and getattr(c, "family", "") == "lasso")
    limits = tuple(c.id for c in CLAIMS if c.id.startswith("bao.limit/"))
    return (
        V("fedavg/uniform-weights", "algorithm", "the server averages with 1/m instead of π_k", fedavg,
          apply=_with(bb.FedAvgUniformWeights)),
        V("fedavg/server-step-ignored", "algorithm", "the server step size η_s is ignored (x ← average)", fedavg,
          apply=_with(bb.FedAvgNoServerStep)),
        V("fedavg/local-steps-off-by-one", "algorithm", "E − 1 local steps per round", fedavg,
          apply=_with(bb.FedAvgOneStepShort)),
        V("fedavg/first-client-returned", "algorithm", "the server keeps the first client's model", fedavg,
          apply=_with(bb.FedAvgFirstClient)),
        V("fedprox/prox-sign", "algorithm", "proximal term with the wrong sign", fedprox,
          apply=_with(bb.FedProxWrongSign)),
        V("fedprox/local-anchor", "algorithm", "proximal term anchored at the local iterate (no effect)", fedprox,
          apply=_with(bb.FedProxLocalAnchor)),
        V("fedda/uniform-weights", "algorithm", "dual states averaged with 1/m instead of π_k", fedda,
          apply=_with(bb.FedDAUniformWeights)),
        V("fedda/primal-average", "algorithm", "the server averages primal points instead of dual states", fedda,
          apply=_with(bb.FedDAPrimalAverage)),
        V("fedda/threshold-per-round", "algorithm", "dual-averaging threshold grows per round, not per step",
          fedda, apply=_with(bb.FedDAThresholdPerRound)),
        V("fedda/gradient-at-dual", "algorithm", "gradients taken at the dual state instead of prox(z)", fedda,
          apply=_with(bb.FedDAGradientAtDual)),
        V("fedmid/double-threshold", "algorithm", "local prox threshold 2η_c instead of η_c", fedmid,
          apply=_with(bb.FedMiDDoubleThreshold)),
        V("fedmid/uniform-weights", "algorithm", "server averages with 1/m instead of π_k", fedmid,
          apply=_with(bb.FedMiDUniformWeights)),
        V("fast_fedda/alpha-off-by-one", "algorithm", "α_t = (t + 1 + a)² (1-based t)", fast,
          apply=_with(bb.FastFedDAAlphaShift)),
        V("fast_fedda/last-server-point", "algorithm", "returns the last server point, not the weighted average",
          fast, apply=_with(bb.FastFedDALastServerPoint)),
        V("fast_fedda/uniform-weights", "algorithm", "server averages with 1/m instead of π_k", fast,
          apply=_with(bb.FastFedDAUniformWeights)),
        V("fast_fedda/half-gamma", "algorithm", "γ = µa³ instead of 2µa³", fast, apply=_with(bb.FastFedDAHalfGamma)),
        V("fast_fedda/prox-dropped", "algorithm", "Prox_t without the penalty (projection only)", fast,
          apply=_with(bb.FastFedDAProxDropped)),
        V("fast_fedda/threshold-per-step", "algorithm", "Prox_t threshold from the last weight, not A_t", fast,
          apply=_with(bb.FastFedDAThresholdPerStep)),
        V("fast_fedda/plus-sign", "algorithm", "the estimator as printed in Theorem 2.1: Prox(ḡ + µw̃/2)", fast,
          apply=_with(bb.FastFedDAPlusSign)),
        V("c_fedda/inexact-cprox", "algorithm", "CProx by soft-threshold then projection (inexact off-centre)",
          cfd + mcf, patch=bb.inexact_cprox),
        V("c_fedda/gradient-weight-per-round", "algorithm", "the local gradient sum divided by E", cfd,
          apply=_with(bb.CFedDAStepWeights)),
        V("c_fedda/last-server-point", "algorithm", "returns w̄_R instead of the α-weighted average", cfd,
          apply=_with(bb.CFedDALastServerPoint)),
        V("c_fedda/uniform-weights", "algorithm", "server averages with 1/m instead of π_k", cfd,
          apply=_with(bb.CFedDAUniformWeights)),
        V("mc_fedda/stage-off-by-one", "algorithm", "the λ schedule stops one halving before λ_opt", mcf,
          apply=_with(bb.MCFedDANoHalving)),
        # wrong returned points: each is run against the returned-point claim of its method only
        V("fedavg/polyak-output", "algorithm", "returns the average of the server iterates x_1..x_R, not x_R",
          ("bao.returned/fedavg",), apply=_with(bb.FedAvgPolyakOutput)),
        V("fedavg/client-average-output", "algorithm",
          "returns the participants' average before the server step η_s, not the server iterate",
          ("bao.returned/fedavg",), apply=_with(bb.FedAvgClientAverageOutput)),
        V("fedprox/polyak-output", "algorithm", "returns the average of the server iterates, not the last one",
          ("bao.returned/fedprox",), apply=_with(bb.FedProxPolyakOutput)),
        V("fedmid/polyak-output", "algorithm", "returns the average of the server iterates, not the last one",
          ("bao.returned/fedmid", "bao.returned/fedmid-trace-population"), apply=_with(bb.FedMiDPolyakOutput)),
        V("fedda/polyak-output", "algorithm", "returns the average of the primal points w_1..w_R, not w_R",
          ("bao.returned/fedda",), apply=_with(bb.FedDAPolyakOutput)),
        V("fast_fedda/index-shift-output", "algorithm",
          "returns Σ_{t≤T} α_t w_t/A_T (w₀ in, w_{T+1} out) instead of Σ_{t≤T} α_t w_{t+1}/A_T",
          ("bao.returned/fast-fedda", "bao.returned/fast-fedda-population"), apply=_with(bb.FastFedDAIndexShift)),
        V("fast_fedda/wtilde-output", "algorithm", "returns the running sum w̃_{T+1}/A_{T+1} (w₀ included)",
          ("bao.returned/fast-fedda",), apply=_with(bb.FastFedDAWtildeOutput)),
        V("fast_fedda/server-points-only", "algorithm",
          "α-weighted average over the server points only, not over every virtual point",
          ("bao.returned/fast-fedda", "bao.returned/fast-fedda-population"),
          apply=_with(bb.FastFedDAServerPointsOnly)),
        V("c_fedda/index-shift-output", "algorithm",
          "returns Σ_{r≤R} α_r w̄_r/A_R (centre in, w̄_{R+1} out) instead of Σ_{r≤R} α_r w̄_{r+1}/A_R",
          ("bao.returned/c-fedda",), apply=_with(bb.CFedDAIndexShift)),
        V("c_fedda/uniform-average-output", "algorithm", "uniform average of the server points, not α_r-weighted",
          ("bao.returned/c-fedda",), apply=_with(bb.CFedDAUniformAverage)),
        V("mc_fedda/last-server-point", "algorithm", "returns the stage's last server point, not its average",
          ("bao.returned/mc-fedda",), apply=_with(bb.MCFedDALastServerPoint)),
        V("mc_fedda/stage-centre-output", "algorithm",
          "returns the current stage's centre ŵ_m (previous stage output) instead of ŵ_{m+1}",
          ("bao.returned/mc-fedda",), apply=_with(bb.MCFedDAStageCentre)),
        V("oracle/noise-ignores-batch", "oracle", "Gaussian noise σ/√d instead of σ/√(dB)", gaussian,
          patch=bb.noise_not_divided_by_batch),
        V("oracle/minibatch-divides-by-B+1", "oracle", "minibatch gradient divided by B + 1", sampled,
          patch=bb.minibatch_mean_off_by_one),
        V("oracle/biased-gradient", "oracle", "every gradient multiplied by 1.05", moments + limits,
          patch=bb.biased_gradient),
        V("oracle/shared-client-streams", "oracle", "all clients draw from identically seeded streams", moments,
          patch=bb.shared_client_streams),
        V("oracle/replace-ignored", "oracle", "minibatches always drawn without replacement",
          ("bao.exact/fedmid-moments",), patch=bb.sampling_ignores_replace),
        V("reference/uncertified", "reference", "reference solved to ~1e-4 and reported as certified", limits,
          patch=bb.uncertified_reference),
        V("constants/half-L", "constants", "the constants layer reports L/2", ("bao.thm2.1/rate-T",),
          patch=bb.halved_smoothness),
        V("constants/mu-of-mean-hessian", "constants", "µ taken from the mean Hessian instead of per client",
          ("bao.thm2.1/rate-T",), patch=bb.mu_of_mean_hessian),
    )


VARIANTS: tuple[Any, ...] = _variants()
