"""The claims: the closed forms of :mod:`momentum_rates.theory` against runs of the registered algorithms on
federated quadratics whose mean Hessian has its spectrum exactly in [μ, L] (fedrates' ``quadratic`` family,
structure ``similar``: 4 clients with different Hessians and optima, d = 6, eigenvalues of Q̄ log-spaced from μ to
L = 1, δ = μ so that every client is convex).  Every run uses exact gradients; μ_F, L and ŵ are fedrates' certified
constants and reference optimum of the instance.

* exact — the contraction factor measured from the run: the iteration matrix T̂ identified from the run's iterates
  (least squares of z_{t+1} = T̂ z_t, z_t = (w_t − ŵ, w_{t−1} − ŵ), over rounds 1..3 of 2d + 2 starts
  w_0 = ŵ + N(0, I) per seed) has spectral radius equal to the closed form; so does the iteration matrix built from
  Q̄, α and β (the closed form checked numerically);
* rate — rounds to reach ‖w_t − ŵ‖ ≤ 10⁻⁶ ‖w_0 − ŵ‖ grow as √κ (log–log slope ½ in κ, starts drawn per seed);
* bound — ‖w_t − ŵ‖ ≤ (1 + (1 + ρ)t) ρ^t ‖w_0 − ŵ‖ at every round from w_0 = 0, with its constant (a
  :class:`fedrates.BoundClaim`).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from fedrates import BoundClaim, BuiltClaim
from fedrates.solvers.algorithms.base import run_batch
from fedrates.verify.checks import CheckResult, rate_exponent

from .theory import HEAVY_BALL, HEAVY_BALL_BOUND, NESTEROV

#: the instance at κ = 1/μ (L = 1); a claim's points set μ
INSTANCE = {"structure": "similar", "clients": 4, "dim": 6, "L": 1.0}
#: relative tolerance of a measured spectral radius: both radii are defective double eigenvalues (a Jordan block at
#: λ = μ), which a perturbation ε of the matrix moves by O(√ε); identification errors of ~1e-15 give ~1e-8..1e-7
#: (measured ≤ 2e-7, at κ = 1000), so 1e-5 leaves a factor 50, while a wrong tuning changes the radius by more than
#: 1e-2 (the unsquared momentum: 0.39 at κ = 10)
RADIUS_RTOL = 1e-5
#: the rate claim: slope ½ ± 0.1 (the log t factor of the double roots adds ≈ +0.03 over κ = 16..1024)
SLOPE, SLOPE_TOL = 0.5, 0.1
EPS = 1e-6


def kappa_of(inst: Any, point: Any = None) -> dict[str, float]:
    """κ = L/μ_F of F on the instance's certified constants (λ_max and λ_min of the mean Hessian)."""
    return {"kappa": inst.constants.Lambda / inst.constants.mu_F}


def at(kappa: float) -> dict[str, float]:
    """The problem parameters at condition number κ: μ = δ = 1/κ."""
    return {"mu": 1.0 / kappa, "delta": 1.0 / kappa}


def iteration_matrix(name: str, Q: np.ndarray, step: float, momentum: float) -> np.ndarray:
    """The iteration matrix T of :mod:`momentum_rates.theory` built from Q̄, α, β."""
    eye, zero = np.eye(Q.shape[0]), np.zeros_like(Q)
    if name == "nesterov":
        A = eye - step * Q
        return np.block([[(1 + momentum) * A, -momentum * A], [eye, zero]])
    return np.block([[(1 + momentum) * eye - step * Q, -momentum * eye], [eye, zero]])


def spectral_radius_of_run(e: np.ndarray) -> float:
    """ρ(T̂), T̂ the least-squares solution of z_{t+1} = T̂ z_t over runs' errors e (starts, rounds + 1, d)."""
    z = np.concatenate([e[:, 1:], e[:, :-1]], axis=2)  # z_t = (e_t, e_{t-1}) for t = 1..rounds
    before = z[:, :-1].reshape(-1, z.shape[2]).T
    after = z[:, 1:].reshape(-1, z.shape[2]).T
    return float(np.max(np.abs(np.linalg.eigvals(after @ np.linalg.pinv(before)))))


@dataclass(frozen=True, kw_only=True)
class _OverKappa(BuiltClaim):
    """One point per condition number κ; runs from given starts; records with a ``kappa`` column."""

    kappas: tuple[float, ...] = (10.0, 100.0, 1000.0)
    problem_params: dict = field(default_factory=lambda: dict(INSTANCE))
    gradients: str = "exact"
    values: Any = kappa_of
    x: str = "kappa"

    def points(self, profile: str) -> list[dict]:
        return [at(k) for k in self.kappas]

    def errors(self, point: dict, w0: np.ndarray, rounds: int) -> np.ndarray:
        """e_t = w_t − ŵ for t = 0..rounds, shape (starts, rounds + 1, d): the claim's algorithm run from each row
        of ``w0`` (starts, d) with exact gradients."""
        inst = self.instance(point)
        alg = self.make_algorithm(inst, point)
        iterates = [w0]
        run_batch(alg, inst.problem, rounds, seeds=range(len(w0)), gradients="exact", w0=w0,
                  reference=inst.reference, callback=lambda _r, state: iterates.append(alg.output(state).copy()))
        return np.stack(iterates, axis=1) - np.asarray(inst.reference.w)

    def starts(self, point: dict, seed: int, n: int = 1) -> np.ndarray:
        """n starting points w_0 = ŵ + N(0, I) from the seed's own generator, shape (n, d)."""
        w_star = np.asarray(self.instance(point).reference.w)
        return w_star + np.random.default_rng(seed).standard_normal((n, w_star.size))

    def rows(self, point: dict, seeds: Any, rounds: Any, metric: str, values: Any, bounds: Any) -> pd.DataFrame:
        """Tidy records (fedrates' schema) for one point, plus the ``kappa`` column."""
        values = np.asarray(values, dtype=float).ravel()
        n, k = values.size, kappa_of(self.instance(point))["kappa"]
        ints = {name: np.broadcast_to(np.asarray(v, dtype="int64"), n) for name, v in (("seed", seeds),
                                                                                          ("round", rounds))}
        return pd.DataFrame({
            "claim": self.id, "theorem": self.theorem, "algorithm": self.algorithm, "problem": self.problem,
            "preset": "", "point": self.points("full").index(point), **ints, "iterations": ints["round"],
            "clients": INSTANCE["clients"], "local_steps": 1, "batch": 0, "participating": INSTANCE["clients"],
            "dim": INSTANCE["dim"], "metric": metric, "value": values,
            "bound": np.broadcast_to(np.asarray(bounds, dtype=float), n), "params": json.dumps(point, sort_keys=True),
            "diverged": ~np.isfinite(values), "kappa": k,
        })

    def judge_with(self, records: pd.DataFrame, result: CheckResult) -> dict:
        """The verdict, after the theorem's conditions at every κ (a failing one gives ``conditions-not-met``)."""
        seeds = self._seeds_of(records)
        conditions, constants = [], {}
        for point in self.points("full"):
            inst = self.instance(point)
            conditions += self.conditions(inst, [point])
            constants[f"kappa[{self.points('full').index(point)}]"] = kappa_of(inst)["kappa"]
        if any(c["holds"] is False for c in conditions):
            return self.conditions_not_met(conditions, seeds, constants, self._statement())
        return self.verdict(result, conditions=conditions, seeds=seeds, constants=constants,
                            statement=self._statement())


@dataclass(frozen=True, kw_only=True)
class Contraction(_OverKappa):
    """Measured spectral radius of the run's iteration matrix = the closed form (module docstring)."""

    metric: str = "spectral_radius"
    n_seeds: dict = field(default_factory=lambda: {"quick": 2, "standard": 3, "full": 5})

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        rounds, n = 3, 2 * INSTANCE["dim"] + 2
        radius = [spectral_radius_of_run(self.errors(point, self.starts(point, s, n), rounds)) for s in seeds]
        inst = self.instance(point)
        predicted = self.theorem_object().evaluate(kappa_of(inst))
        alg = self.make_algorithm(inst, point)
        step, momentum = alg.coefficients(inst.constants.mu_F, inst.constants.Lambda)
        T = iteration_matrix(self.algorithm, inst.problem.quadratic[0], step, momentum)
        built = float(np.max(np.abs(np.linalg.eigvals(T))))
        return pd.concat([self.rows(point, seeds, rounds, "spectral_radius", radius, predicted),
                          self.rows(point, seeds[0], 0, "spectral_radius_of_matrix", built, predicted)])

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        rel = np.abs(records["value"] / records["bound"] - 1.0).fillna(np.inf).to_numpy()
        worst = int(np.argmax(rel))
        row = records.iloc[worst]
        ok = bool(rel[worst] <= RADIUS_RTOL)
        result = CheckResult(
            "pass" if ok else "fail",
            f"max relative error {rel[worst]:.2g} ({row['metric']} {row['value']:.9f} at kappa {row['kappa']:.4g})",
            "the closed form at every kappa", f"relative {RADIUS_RTOL:g}",
            "the spectral radii of the run and of the built matrix equal the closed form" if ok else
            f"spectral radius {row['value']:.6g} differs from the closed form {row['bound']:.6g}")
        return self.judge_with(records, result)


@dataclass(frozen=True, kw_only=True)
class RoundsGrowLikeSqrtKappa(_OverKappa):
    """Rounds to reduce the distance by ``EPS`` grow as √κ: log–log slope ½ in κ (module docstring)."""

    kappas: tuple[float, ...] = (16.0, 64.0, 256.0, 1024.0)
    metric: str = "rounds_to_eps"
    n_seeds: dict = field(default_factory=lambda: {"quick": 6, "standard": 10, "full": 20})

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        rounds = int(30 * math.sqrt(1.0 / point["mu"]))  # (√κ/2)·ln(1e6) ≈ 7√κ rounds, and the t factor
        w0 = np.concatenate([self.starts(point, s) for s in seeds])
        dist = np.linalg.norm(self.errors(point, w0, rounds), axis=-1)
        reached = dist <= EPS * dist[:, :1]
        first = np.where(reached.any(axis=1), reached.argmax(axis=1), np.nan)
        return self.rows(point, seeds, rounds, "rounds_to_eps", first, np.nan)

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        table = records.pivot(index="seed", columns="kappa", values="value")
        result = rate_exponent(table.columns.to_numpy(dtype=float), table.to_numpy(), SLOPE, SLOPE_TOL,
                               variable="kappa")
        return self.judge_with(records, result)


def distance_bound(kappa: float, rounds: int) -> BoundClaim:
    """The heavy-ball bound with its constant at one κ, every round 0..rounds, from w_0 = 0."""
    return BoundClaim(
        id=f"momentum_rates.hb_bound.kappa{kappa:g}", theorem=HEAVY_BALL_BOUND, algorithm="heavy_ball",
        title=f"heavy ball: ||w_t - w*|| <= (1 + (1 + rho) t) rho^t ||w_0 - w*|| at every round, kappa = {kappa:g}",
        problem="quadratic", problem_params={**INSTANCE, **at(kappa)}, gradients="exact", values=kappa_of,
        regime=f"exact gradients, w_0 = 0, rounds 0..{rounds} (the bound falls to about 1e-8 ||w_0 - w*||)",
        why="the constant is attained on the eigen-direction of L: a slower contraction breaks it",
        metric="distance_to_optimum", x="round", grid={"quick": tuple(range(rounds + 1))},
        n_seeds={"quick": 1, "standard": 1, "full": 1})


CLAIMS = (
    Contraction(id="momentum_rates.hb.contraction", theorem=HEAVY_BALL, algorithm="heavy_ball",
                problem="quadratic", title="heavy ball contracts at (sqrt(kappa) - 1)/(sqrt(kappa) + 1): run and "
                                          "matrix",
                regime="exact gradients, optimal tuning, kappa = 10, 100, 1000",
                why="any other step or momentum changes the spectral radius by far more than the tolerance",
                reference_free="the iteration matrix is identified from differences of iterates around the "
                               "certified optimum, whose error is far below the tolerance"),
    Contraction(id="momentum_rates.nesterov.contraction", theorem=NESTEROV, algorithm="nesterov",
                problem="quadratic", title="Nesterov's method contracts at 1 - 1/sqrt(kappa): run and matrix",
                regime="exact gradients, step 1/L, constant momentum, kappa = 10, 100, 1000",
                why="any other step or momentum changes the spectral radius by far more than the tolerance",
                reference_free="the iteration matrix is identified from differences of iterates around the "
                               "certified optimum, whose error is far below the tolerance"),
    RoundsGrowLikeSqrtKappa(id="momentum_rates.hb.sqrt_kappa", theorem=HEAVY_BALL, algorithm="heavy_ball",
                            problem="quadratic",
                            title="heavy ball needs O(sqrt(kappa)) rounds per accuracy: slope 1/2 in kappa",
                            regime="exact gradients, kappa = 16..1024, eps = 1e-6",
                            why="gradient descent's kappa rounds would give slope 1",
                            reference_free="rounds are counted on distances far above the certified optimum's "
                                           "error"),
    distance_bound(10.0, 36),
    distance_bound(1000.0, 420),
)
