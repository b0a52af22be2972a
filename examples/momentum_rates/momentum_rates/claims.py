"""The claims: the closed forms of :mod:`momentum_rates.theory` against runs of the registered algorithms on
federated quadratics whose mean Hessian has its spectrum exactly in [μ, L] (fedrates' ``quadratic`` family,
structure ``similar``: 4 clients with different Hessians and optima, d = 6, eigenvalues of Q̄ log-spaced from μ to
L = 1).  Every run uses exact gradients; the seeds draw the starting points w_0 = w* + N(0, I).

* exact — the contraction factor measured from the run: the iteration matrix T̂ identified from the run's iterates
  (least squares of z_{t+1} = T̂ z_t, z_t = (w_t − w*, w_{t−1} − w*), over rounds 1..3 of 2d + 2 starts per seed)
  has spectral radius equal to the closed form; so does the iteration matrix built from Q̄, α and β (the closed
  form checked numerically);
* rate — rounds to reach ‖w_t − w*‖ ≤ 10⁻⁶ ‖w_0 − w*‖ grow as √κ (log–log slope ½ in κ);
* bound — ‖w_t − w*‖ ≤ (1 + (1 + ρ)t) ρ^t ‖w_0 − w*‖ at every round, with its constant.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np
import pandas as pd

from fedrates.solvers import algorithms, problems
from fedrates.verify import checks
from fedrates.verify.checks import CheckResult
from fedrates.verify.claims.base import Claim, evaluate_conditions

from .algorithms import curvature
from .theory import HEAVY_BALL, HEAVY_BALL_BOUND, NESTEROV

DIM = 6
#: relative tolerance of a measured spectral radius: both radii are defective double eigenvalues (a Jordan block at
#: λ = μ), which a perturbation ε of the matrix moves by O(√ε); identification errors of ~1e-15 give ~1e-8..1e-7
#: (measured ≤ 2e-7, at κ = 1000), so 1e-5 leaves a factor 50, while a wrong tuning changes the radius by more than
#: 1e-2 (the unsquared momentum: 0.39 at κ = 10)
RADIUS_RTOL = 1e-5
#: the rate claim: slope ½ ± 0.1 (the log t factor of the double roots adds ≈ +0.02 over κ = 16..1024)
SLOPE, SLOPE_TOL = 0.5, 0.1
EPS = 1e-6


@cache
def instance(kappa: float) -> tuple[Any, dict[str, float], np.ndarray]:
    """(problem, exact constants {mu, L, kappa, gap}, w*) with L = 1, μ = 1/κ; δ = μ keeps every client convex.

    w* = Q̄⁻¹b̄ by a linear solve; ``gap`` = ‖Q̄w* − b̄‖/μ bounds its distance to the exact optimum."""
    problem = problems.make("quadratic", None, structure="similar", clients=4, dim=DIM, mu=1.0 / kappa, L=1.0,
                            delta=1.0 / kappa)
    Q, b, _ = problem.quadratic
    mu, L = curvature(problem)
    w_star = np.linalg.solve(Q, b)
    gap = float(np.linalg.norm(Q @ w_star - b)) / mu
    return problem, {"mu": mu, "L": L, "kappa": L / mu, "gap": gap}, w_star


def starts(w_star: np.ndarray, seed: int, n: int = 1) -> np.ndarray:
    """n starting points w_0 = w* + N(0, I) from the seed's own generator, shape (n, d)."""
    return w_star + np.random.default_rng(seed).standard_normal((n, w_star.size))


def errors(claim: Claim, kappa: float, w0: np.ndarray, rounds: int) -> np.ndarray:
    """e_t = w_t − w* for t = 0..rounds, shape (starts, rounds + 1, d): a run of the claim's algorithm from each
    start of ``w0`` (starts, d)."""
    problem, _, w_star = instance(kappa)
    alg = claim.algorithm_override or algorithms.make(claim.algorithm)
    iterates = [w0]
    algorithms.run_batch(alg, problem, rounds, seeds=range(len(w0)), gradients="exact", w0=w0,
                         reference=_Reference(w_star, problem),
                         callback=lambda _r, state: iterates.append(alg.output(state).copy()))
    return np.stack(iterates, axis=1) - w_star


@dataclass(frozen=True)
class _Reference:
    """The closed-form optimum w* = Q̄⁻¹b̄ as the run's reference."""

    w: np.ndarray
    problem: Any

    @property
    def value(self) -> float:
        return float(self.problem.objective(self.w))


def rows(claim: Claim, point_index: int, point: dict, seeds: Any, rounds: Any, metric: str, values: Any,
         bounds: Any) -> pd.DataFrame:
    """Tidy records (fedrates' schema) for one point, plus a ``kappa`` column."""
    values = np.asarray(values, dtype=float).ravel()
    n = values.size
    return pd.DataFrame({
        "claim": claim.id, "theorem": claim.theorem, "algorithm": claim.algorithm, "problem": claim.problem,
        "preset": "", "point": point_index, "seed": np.broadcast_to(np.asarray(seeds, dtype="int64"), n),
        "round": np.broadcast_to(np.asarray(rounds, dtype="int64"), n),
        "iterations": np.broadcast_to(np.asarray(rounds, dtype="int64"), n), "clients": 4, "local_steps": 1,
        "batch": 0, "participating": 4, "dim": DIM, "metric": metric, "value": values,
        "bound": np.broadcast_to(np.asarray(bounds, dtype=float), n), "params": json.dumps(point, sort_keys=True),
        "diverged": ~np.isfinite(values), "kappa": float(point["kappa"]),
    })


def spectral_radius_of_run(e: np.ndarray) -> float:
    """ρ(T̂), T̂ the least-squares solution of z_{t+1} = T̂ z_t over runs' errors e (starts, rounds + 1, d)."""
    z = np.concatenate([e[:, 1:], e[:, :-1]], axis=2)  # z_t = (e_t, e_{t-1}) for t = 1..rounds
    before = z[:, :-1].reshape(-1, z.shape[2]).T
    after = z[:, 1:].reshape(-1, z.shape[2]).T
    T_hat = after @ np.linalg.pinv(before)
    return float(np.max(np.abs(np.linalg.eigvals(T_hat))))


def iteration_matrix(name: str, Q: np.ndarray, step: float, momentum: float) -> np.ndarray:
    """The iteration matrix T of :mod:`momentum_rates.theory` built from Q̄, α, β."""
    eye, zero = np.eye(Q.shape[0]), np.zeros_like(Q)
    if name == "nesterov":
        A = eye - step * Q
        return np.block([[(1 + momentum) * A, -momentum * A], [eye, zero]])
    return np.block([[(1 + momentum) * eye - step * Q, -momentum * eye], [eye, zero]])


class _Checked(Claim):
    """The theorem's conditions on the exact constants first (a failure gives ``conditions-not-met``)."""

    def theorem_object(self) -> Any:
        return {t.id: t for t in (HEAVY_BALL, NESTEROV, HEAVY_BALL_BOUND)}[self.theorem]

    def conditions(self, kappas: list[float]) -> list[dict]:
        theorem = self.theorem_object()
        return [c for k in kappas for c in evaluate_conditions(theorem, {"kappa": instance(k)[1]["kappa"]})]


@dataclass(frozen=True)
class Contraction(_Checked):
    """Measured spectral radius of the run's iteration matrix = the closed form (module docstring)."""

    kappas: tuple[float, ...] = (10.0, 100.0, 1000.0)
    n_seeds: dict = field(default_factory=lambda: {"quick": 2, "standard": 3, "full": 5})

    def points(self, profile: str) -> list[dict]:
        return [{"kappa": k} for k in self.kappas]

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        problem, consts, _ = instance(point["kappa"])
        rounds, n = 3, 2 * DIM + 2
        radius = [spectral_radius_of_run(errors(self, point["kappa"], starts(instance(point["kappa"])[2], s, n),
                                                rounds)) for s in seeds]
        predicted = self.theorem_object().evaluate(consts)
        alg = self.algorithm_override or algorithms.make(self.algorithm)
        state = alg.init(problem, problem.zeros(1))
        T = iteration_matrix(self.algorithm, problem.quadratic[0], state["step"], state["momentum"])
        built = float(np.max(np.abs(np.linalg.eigvals(T))))
        index = self.kappas.index(point["kappa"])
        return pd.concat([rows(self, index, point, seeds, rounds, "spectral_radius", radius, predicted),
                          rows(self, index, point, seeds[0], 0, "spectral_radius_of_matrix", built, predicted)])

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        seeds = sorted(int(s) for s in records["seed"].unique())
        conditions = self.conditions(list(self.kappas))
        consts = {f"kappa[{k:g}]": instance(k)[1]["kappa"] for k in self.kappas}
        if any(c["holds"] is False for c in conditions):
            return self.conditions_not_met(conditions, seeds, consts, self.theorem_object().statement)
        rel = np.abs(records["value"] / records["bound"] - 1.0).fillna(np.inf).to_numpy()
        worst = int(np.argmax(rel))
        row = records.iloc[worst]
        measured = (f"max relative error {rel[worst]:.2g} ({row['metric']} {row['value']:.9f} at kappa "
                    f"{row['kappa']:g})")
        ok = bool(rel[worst] <= RADIUS_RTOL)
        result = CheckResult("pass" if ok else "fail", measured, "the closed form at every kappa",
                             f"relative {RADIUS_RTOL:g}",
                             "spectral radii of the run and of the built matrix equal the closed form" if ok else
                             f"spectral radius {row['value']:.6g} differs from the closed form {row['bound']:.6g}")
        return self.verdict(result, conditions=conditions, seeds=seeds, constants=consts,
                            statement=self.theorem_object().statement)


@dataclass(frozen=True)
class RoundsGrowLikeSqrtKappa(_Checked):
    """Rounds to reduce the distance by ``EPS`` grow as √κ: log–log slope ½ in κ (module docstring)."""

    kappas: tuple[float, ...] = (16.0, 64.0, 256.0, 1024.0)
    n_seeds: dict = field(default_factory=lambda: {"quick": 6, "standard": 10, "full": 20})

    def points(self, profile: str) -> list[dict]:
        return [{"kappa": k} for k in self.kappas]

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        rounds = int(30 * math.sqrt(point["kappa"]))  # (√κ/2)·ln(1e6) ≈ 7√κ rounds suffice with the t factor
        w0 = np.concatenate([starts(instance(point["kappa"])[2], s) for s in seeds])
        dist = np.linalg.norm(errors(self, point["kappa"], w0, rounds), axis=-1)
        reached = dist <= EPS * dist[:, :1]
        first = np.where(reached.any(axis=1), reached.argmax(axis=1), np.nan)
        index = self.kappas.index(point["kappa"])
        return rows(self, index, point, seeds, rounds, "rounds_to_eps", first, np.nan)

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        seeds = sorted(int(s) for s in records["seed"].unique())
        conditions = self.conditions(list(self.kappas))
        consts = {f"kappa[{k:g}]": instance(k)[1]["kappa"] for k in self.kappas}
        table = records.pivot(index="seed", columns="kappa", values="value")
        result = checks.rate_exponent(table.columns.to_numpy(dtype=float), table.to_numpy(), SLOPE, SLOPE_TOL,
                                      variable="kappa")
        return self.verdict(result, conditions=conditions, seeds=seeds, constants=consts,
                            statement=r"T_\varepsilon \propto \sqrt{\kappa}")


@dataclass(frozen=True)
class DistanceBound(_Checked):
    """‖w_t − w*‖ ≤ (1 + (1 + ρ)t) ρ^t ‖w_0 − w*‖ at every round, for every start (module docstring)."""

    kappas: tuple[float, ...] = (10.0, 1000.0)
    #: rounds are run while the bound is above this fraction of ‖w_0 − w*‖ (far above the optimum's rounding)
    floor: float = 1e-8
    n_seeds: dict = field(default_factory=lambda: {"quick": 4, "standard": 8, "full": 20})

    def points(self, profile: str) -> list[dict]:
        return [{"kappa": k} for k in self.kappas]

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        _, consts, w_star = instance(point["kappa"])
        rhs = [1.0]
        while rhs[-1] > self.floor:
            rhs.append(HEAVY_BALL_BOUND.evaluate({"kappa": consts["kappa"], "t": len(rhs), "D0": 1.0}))
        rhs = np.array(rhs)
        t = np.arange(rhs.size)
        w0 = np.concatenate([starts(w_star, s) for s in seeds])
        dist = np.linalg.norm(errors(self, point["kappa"], w0, t.size - 1), axis=-1)
        index = self.kappas.index(point["kappa"])
        seed_grid, round_grid = np.meshgrid(seeds, t, indexing="ij")
        return rows(self, index, point, seed_grid.ravel(), round_grid.ravel(), "distance_to_optimum", dist,
                    (rhs * dist[:, :1]).ravel())

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        seeds = sorted(int(s) for s in records["seed"].unique())
        conditions = self.conditions(list(self.kappas))
        consts = {f"kappa[{k:g}]": instance(k)[1]["kappa"] for k in self.kappas}
        if any(c["holds"] is False for c in conditions):
            return self.conditions_not_met(conditions, seeds, consts, HEAVY_BALL_BOUND.statement)
        # deterministic runs: the bound holds for every start, so the worst seed is compared (one row)
        ratio = (records["value"] / records["bound"]).where(np.isfinite(records["value"]), np.inf)
        worst = ratio.groupby([records["kappa"], records["round"]]).max().to_numpy()[None, :]
        result = checks.bound_holds(worst, np.ones(worst.shape[1]))
        later = ratio[records["round"] > 0]  # at t = 0 the bound is ‖w_0 − w*‖ itself: sharpness is read after it
        return self.verdict(result, conditions=conditions, seeds=seeds, constants=consts,
                            statement=HEAVY_BALL_BOUND.statement, bound_ratio=float(later.max()),
                            reference_gap=max(instance(k)[1]["gap"] for k in self.kappas),
                            smallest_measured=float(records["value"].min()))


_COMMON = {"problem": "quadratic", "x": "kappa"}
CLAIMS = (
    Contraction(id="momentum_rates.hb.contraction", theorem="momentum_rates.hb", algorithm="heavy_ball",
                title="heavy ball contracts at (sqrt(kappa) - 1)/(sqrt(kappa) + 1): run and matrix",
                regime="exact gradients, optimal tuning, kappa = 10, 100, 1000", metric="spectral_radius",
                why="any other step or momentum changes the spectral radius by far more than the tolerance",
                reference_free="the iteration matrix is identified from differences of iterates around the "
                               "closed-form optimum; the optimum's rounding (~1e-15) is below the tolerance",
                **_COMMON),
    Contraction(id="momentum_rates.nesterov.contraction", theorem="momentum_rates.nesterov", algorithm="nesterov",
                title="Nesterov's method contracts at 1 - 1/sqrt(kappa): run and matrix",
                regime="exact gradients, step 1/L, constant momentum, kappa = 10, 100, 1000",
                metric="spectral_radius",
                why="any other step or momentum changes the spectral radius by far more than the tolerance",
                reference_free="the iteration matrix is identified from differences of iterates around the "
                               "closed-form optimum; the optimum's rounding (~1e-15) is below the tolerance",
                **_COMMON),
    RoundsGrowLikeSqrtKappa(id="momentum_rates.hb.sqrt_kappa", theorem="momentum_rates.hb", algorithm="heavy_ball",
                            title="heavy ball needs O(sqrt(kappa)) rounds per accuracy: slope 1/2 in kappa",
                            regime="exact gradients, kappa = 16..1024, eps = 1e-6", metric="rounds_to_eps",
                            why="gradient descent's kappa rounds would give slope 1",
                            reference_free="rounds are counted on distances to the closed-form optimum, far "
                                           "above its rounding", **_COMMON),
    DistanceBound(id="momentum_rates.hb_bound.distance", theorem="momentum_rates.hb_bound", algorithm="heavy_ball",
                  title="heavy ball: ||w_t - w*|| <= (1 + (1 + rho) t) rho^t ||w_0 - w*|| at every round",
                  regime="exact gradients, kappa = 10 and 1000, until the bound is 1e-8 ||w_0 - w*||",
                  metric="distance_to_optimum",
                  why="the constant is attained on the eigen-direction of L: a slower contraction breaks it",
                  **_COMMON),
)
