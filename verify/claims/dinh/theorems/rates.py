"""Falsifiable claims of Dinh, Tran, Nguyen, Bao, Zomaya, Zhou, "Federated Learning with Proximal Stochastic
Variance Reduced Gradient Algorithms" (ICPP 2020).

Instances are finite-sum federations (:mod:`fedrates.solvers.problems.finite_sum`) whose sample gradients all vanish
at w*, so that (i) assumption (5) holds with the exact σ_n = ‖(A_n − Ā)Ā⁻¹‖₂ and (ii) FedProxVR is a linear
recursion with random coefficients: its exact first and second moments (:mod:`fedrates.verify.claims.dinh.moments`,
written from the paper's update rules) are the predictions of the exactness claims, checked two-sided.

* ``dinh.alg1/mean-*``     E⟨w̄^{(s)} − w*, m_s⟩ = ‖m_s‖² (m_s the exact mean), s = 1, 2, 3, B = 2;
* ``dinh.alg1/cov-*``      E‖w̄^{(1)} − m_1 − w*‖² = tr Cov (exact), B = 1: sees the estimator's variance;
* ``dinh.alg1/limit-*``    stochastic FedProxVR reaches w* to 1e-9 relative on every seed (realisable instance);
* ``dinh.alg1/inner-*``    exact gradients, last local iterate, τ large: one round equals Σ p_n argmin J_n exactly;
* ``dinh.lem1/*``          Lemma 1 at its own τ = ⌈τ_lower⌉: E‖∇J_n(w_n)‖² ≤ θ²‖∇F_n(w̄)‖² (11′), MC against the
  exact value (two-sided) and the exact value against θ² and against (53);
* ``dinh.lem2/*``, ``dinh.eq35/*``, ``dinh.lem3/sarah``: Lemma 2 (36) with the algorithm's prox, the estimator-error
  bounds (33)/(35) (exact), Lemma 3 on the real algorithm;
* ``dinh.tradeoff/tau``, ``dinh.tradeoff/mu``: Remark 1(2) (accuracy improves with τ, below (53)) and Remark 2(2)
  (rounds to ε grow like μ);
* ``dinh.thm1.eq86/*``     per-round descent: adversarial θ-inexact oracle (deterministic) and the real algorithm;
* ``dinh.thm1.corrected/sarah``, ``dinh.thm1/sarah``, ``dinh.cor1/sarah``: Theorem 1 over the proved (0..T−1) and
  printed (1..T) index ranges and Corollary 1 in a sharp regime (:func:`sharp_config`: μ = 20L, β minimising
  τ_lower, unequal D_n, T such that a never-moving local solver exceeds Δ/(ΘT) by 1.5×), checked at T/4, T/2, T;
  ``dinh.pl/sarah`` the derived PL rate (1 − 2mΘ)^TΔ;
* ``dinh.thm1*/sarah-nc``, ``dinh.thm1*/svrg``: (86) and Theorem 1 on the non-convex instance and with SVRG
  (Theorem 1 there is ``informational``: its conditions force τ ≈ 800 or Θμ ≤ 0.07);
* ``dinh.thm1.eq86/adversarial-argmax*``: (86) at μ = argmax Θ, where Θ's L/μ̃ terms weigh most;
* ``dinh.alg1/mean-*-unequal``, ``dinh.alg1/mean-sarah-nc``: the exact mean with unequal D_n and on non-convex devices;
* ``dinh.rem1/*``          Remark 1(1) (SVRG) and 1(3) (β_min does not give the smallest τ), ``statement-false``, and
  1(5) (``over-claim``, a consequence of 1(3)), with their numeric predictions (:mod:`fedrates.bounds.dinh_errata`);
* ``dinh.exp/lemma1-configs``  Tables 1-2's configurations outside Lemma 1 (``experiment-outside-theory``);
* ``dinh.compare/vr-vs-sgd`` FedProxVR-SARAH beats FedProx-SGD at equal sample-gradient work (noisy labels).

Readings of the paper followed: the random local
output is the proof's (52) (Alg. 1 line 10 misprints w^{(τ)}), θ is read in the second-moment form (11′) that the
proof of Lemma 1 delivers and Lemma 3 uses.
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
from fedrates.verify import checks
from fedrates.verify.checks import CheckResult
from fedrates.verify.claims.base import Claim, evaluate_conditions, records_from_trace
from fedrates.verify.variants import BrokenVariant

pd = lazy_import("pandas")  # imported on first use: listing and refusing stay fast

__all__ = ["CLAIMS", "VARIANTS"]

_TINY = float(np.finfo(float).tiny)
_EPS = float(np.finfo(float).eps)

#: small instances (d = 2, 3 devices) where every exact prediction is cheap
EXACT_LS = {"clients": 3, "samples": 4, "dim": 2, "scale_spread": 0.5, "seed": 0}
EXACT_NC = {"clients": 2, "samples": 4, "dim": 2, "shift": 1.0, "seed": 0}
THEORY_LS = {"clients": 3, "samples": 6, "dim": 2, "scale_spread": 0.3, "seed": 0}
#: Theorem 1's sharp instance: unequal sizes D_n = (12, 6, 12), p = (0.4, 0.2, 0.4)
THEOREM_LS = {"clients": 3, "samples": 12, "dim": 2, "scale_spread": 0.2, "seed": 0, "size_levels": 1}
#: near-homogeneous devices with unequal sizes D_n = (32, 16, 32): σ̄² = 0.16, where SVRG's Lemma 1(b) and Θ > 0 meet
SVRG_LS = {"clients": 3, "samples": 32, "dim": 2, "scale_spread": 0.0, "seed": 0, "size_levels": 1}
#: unequal device sizes D_n = (8, 4, 2), p_n = D_n/D = (4, 2, 1)/7: the D_n/D server average and objective (2) matter
UNEQUAL_LS = {"clients": 3, "samples": 8, "dim": 2, "scale_spread": 0.5, "seed": 0, "size_levels": 2}
NOISY_LS = {"clients": 4, "samples": 16, "dim": 4, "scale_spread": 0.3, "noise": 0.5, "seed": 0}
_ALG_NAME = {"sarah": "fedproxvr_sarah", "svrg": "fedproxvr_svrg", "sgd": "fedprox_sgd"}


# ---- instances and constants -------------------------------------------------------------------------------------
@observed_cache
def _instance(family: str, params_json: str) -> tuple[Any, Any]:
    from fedrates.solvers import fedproxvr_constants, problems

    problem = problems.make(family, **json.loads(params_json))
    return problem, fedproxvr_constants.compute(problem)


def instance(family: str, params: dict) -> tuple[Any, Any]:
    """(problem, exact constants) of a finite-sum instance (cached per process)."""
    return _instance(family, json.dumps(params, sort_keys=True))


@dataclass(frozen=True)
class _Reference:
    """Closed-form optimum w* = Ā⁻¹b̄; ``gap`` bounds the rounding error of F̄(w*) (κ(Ā)·d·ε·scale)."""

    w: np.ndarray
    value: float
    gap: float


def _reference(consts: Any) -> _Reference:
    cond = float(np.linalg.cond(consts.Abar))
    scale = float(abs(consts.F_star) + consts.Delta + 1.0)
    return _Reference(consts.w_star, consts.F_star, cond * len(consts.w_star) * _EPS * scale)


def _moments(problem: Any, consts: Any, alg: Any, *, exact: bool = False) -> Any:
    from fedrates.solvers.problems.finite_sum import finite_sum
    from fedrates.verify.claims.dinh.exact.moments import FedProxVRMoments

    mom = FedProxVRMoments(finite_sum(problem), problem.weights, alg.estimator, 1.0 / (alg.beta * consts.L), alg.mu,
                           alg.tau, alg.batch, exact, alg.output_rule)
    mom.check_realisable()
    return mom


def _theta_values(consts: Any, *, mu: float, beta: float, tau: float, theta: float, T: float = 1.0,
                  Delta: float | None = None) -> dict[str, float]:
    """Symbol values of the dinh.* theorems (λ = 0 enters as the limit 0⁺: the catalogue's symbols are positive)."""
    return {"L": consts.L, "lam": max(consts.lam, _TINY), "mu": mu, "beta": beta, "tau": float(tau), "theta": theta,
            "sigma_bar_sq": max(consts.sigma_bar_sq, _TINY), "Delta": max(consts.Delta if Delta is None else Delta,
                                                                          _TINY), "T": float(T)}


_CONFIGS: dict[tuple, dict[str, float]] = {}


def theory_config(consts: Any, theta: float, estimator: str = "sarah") -> dict[str, float]:
    """:func:`_compute_theory_config`, cached per (L, λ, σ̄², θ, estimator)."""
    key = (float(consts.L), float(consts.lam), float(consts.sigma_bar_sq), float(theta), estimator)
    if key not in _CONFIGS:
        _CONFIGS[key] = _compute_theory_config(consts, theta, estimator)
    return dict(_CONFIGS[key])


def _compute_theory_config(consts: Any, theta: float, estimator: str = "sarah") -> dict[str, float]:
    """A configuration inside every condition: μ = argmax_μ Θ (log-grid), β = 1.05β_min (SARAH, (15)) or 1.02× the
    smallest SVRG-feasible β, τ = ⌈τ_lower(β)⌉ (13)/(14)."""
    from fedrates.bounds import fedproxvr as fb

    L, lam = consts.L, consts.lam
    mus = lam + L * np.geomspace(4.0, 1e4, 600)
    th = np.array([fb.Theta(L, lam, m, theta, consts.sigma_bar_sq) for m in mus])
    mu = float(mus[int(np.argmax(th))])
    if estimator == "svrg":
        b, _ = fb.beta_min_svrg(L, mu, lam, theta)
        beta = 1.02 * b
    else:
        beta = 1.05 * fb.beta_min(L, mu, lam, theta)[0]
    tau = int(math.ceil(fb.tau_lower(beta, L, mu, lam, theta)))
    return {"mu": mu, "beta": float(beta), "tau": tau, "theta": theta}


def _make_alg(claim: Claim, name: str, **hyper: Any) -> Any:
    """The registered algorithm ``name`` with ``hyper``, or the claim's override (a class or a factory taking the
    same hyperparameters) when ``name`` is the claim's algorithm."""
    from fedrates.solvers import algorithms

    if claim.algorithm_override is not None and name == claim.algorithm:
        override = claim.algorithm_override
        return override(**hyper) if callable(override) else dataclasses.replace(override, **hyper)
    return algorithms.make(name, **hyper)


def _replicas(seeds: list[int], point: dict) -> tuple[list[int], np.ndarray, np.ndarray]:
    """Monte-Carlo replicas: every claim seed s runs ``point["replicas"]`` replicas with run seeds 1000·s + j (j <
    1000), so that thousands of samples are cached as a few per-seed files.  Returns (run seeds, seed label,
    replica label), each of length len(seeds)·replicas."""
    k = int(point.get("replicas", 1))
    if k > 1000:
        raise ValueError(f"replicas={k} exceeds 1000 per seed")
    seed = np.repeat(np.asarray(seeds, dtype=np.int64), k)
    rep = np.tile(np.arange(k, dtype=np.int64), len(seeds))
    return [int(s) * 1000 + int(j) for s, j in zip(seed, rep, strict=True)], seed, rep


def _rows(claim: Claim, point: dict, seeds: Any, values: dict[str, np.ndarray], dim: int,
          rnd: int = 0, replica: np.ndarray | None = None) -> pd.DataFrame:
    """Records with one row per sample × metric (values[metric] has one entry per sample; ``seeds`` labels them,
    ``replica`` numbers the replicas of one seed)."""
    seeds = np.asarray(seeds, dtype=np.int64)
    df = pd.DataFrame({"seed": seeds, "round": rnd, "iterations": 0, "diverged": False,
                       **{k: np.asarray(v, dtype=float) for k, v in values.items()}})
    out = records_from_trace(df, claim=claim, point_index=int(point.get("index", 0)), point=point,
                             metrics=list(values), problem_dim=dim)
    out["replica"] = np.tile(np.zeros(len(seeds), dtype=np.int64) if replica is None else replica, len(values))
    return out


def _per_seed(records: pd.DataFrame, metric: str, point: int | None = None) -> np.ndarray:
    """The samples of one metric, ordered by (seed, replica)."""
    sub = records[records["metric"] == metric]
    if point is not None:
        sub = sub[sub["point"] == point]
    keys = ["seed", "replica"] if "replica" in sub else ["seed"]
    return sub.sort_values(keys, kind="stable")["value"].to_numpy(dtype=float)


def _seeds(records: pd.DataFrame) -> list[int]:
    return sorted(int(s) for s in records["seed"].unique()) if len(records) else []


def _run_states(alg: Any, problem: Any, rounds: int, seeds: list[int], w0: np.ndarray, ref: Any,
                gradients: str = "stochastic") -> tuple[Any, np.ndarray]:
    """Run and collect the server iterate after every round: (trace, X (rounds + 1, R, d))."""
    from fedrates.solvers.algorithms import run_batch

    xs = [np.broadcast_to(w0, (len(seeds),) + w0.shape).copy()]
    trace = run_batch(alg, problem, rounds, seeds=seeds, w0=w0, reference=ref, gradients=gradients,
                      record_every=rounds, callback=lambda r, state: xs.append(np.array(state["x"])))
    return trace, np.stack(xs)


# ---- claim base ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _DinhClaim(Claim):
    family: str = "dinh_ls"
    problem_params: dict = field(default_factory=lambda: dict(EXACT_LS))
    hyper: dict = field(default_factory=dict)

    def _setup(self) -> tuple[Any, Any, Any]:
        problem, consts = instance(self.family, self.problem_params)
        return problem, consts, _reference(consts)

    def _alg(self, **extra: Any) -> Any:
        return _make_alg(self, self.algorithm, **{**self.hyper, **extra})

    def verdict(self, result: Any, **kw: Any) -> dict:
        """Claim.verdict with the margin of an exact check: the relative resolution max half-width/|exact| (the
        smallest relative deviation that would have been detected), unless a bound ratio or margin is given."""
        if kw.get("margin") is None and kw.get("bound_ratio") is None:
            det = getattr(result, "details", None) or {}
            if "half_width" in det and "expected" in det:
                half, exp = np.asarray(det["half_width"], float), np.abs(np.asarray(det["expected"], float))
                ok = exp > 0
                if np.any(ok):
                    from fedrates.verify import margins

                    kw["margin"] = margins.resolution(float(np.max(half[ok] / exp[ok])))
        return super().verdict(result, **kw)

    def points(self, profile: str) -> list[dict]:
        return [{"problem": self.family, **self.problem_params, **self.hyper, "index": 0}]

    def _w0(self, problem: Any) -> np.ndarray:
        # a fixed start away from w*: w* + (1, -1, 1, ...) scaled to ‖w0 − w*‖ = ‖w*‖ + 1
        d = problem.dim
        u = np.where(np.arange(d) % 2 == 0, 1.0, -1.0) / math.sqrt(d)
        return problem.truth + (np.linalg.norm(problem.truth) + 1.0) * u


# ---- exact moments of Algorithm 1 ------------------------------------------------------------------------------
@dataclass(frozen=True)
class MeanClaim(_DinhClaim):
    """E⟨w̄^{(s)} − w*, m_s⟩ = ‖m_s‖² at s = 1..S, with m_s = E[w̄^{(s)}] − w* from the exact recursion."""

    rounds: int = 3
    #: Monte-Carlo replicas per seed and profile (samples = seeds × replicas)
    replicas: dict = field(default_factory=lambda: {"quick": 100, "standard": 100, "full": 200})

    def points(self, profile: str) -> list[dict]:
        return [{"problem": self.family, **self.problem_params, **self.hyper, "rounds": self.rounds, "index": 0,
                 "replicas": self.replicas[profile]}]

    def _exact(self) -> tuple[np.ndarray, np.ndarray]:
        problem, consts, _ = self._setup()
        alg = _make_alg(self, self.algorithm, **self.hyper) if self.algorithm_override is None else \
            _make_alg(dataclasses.replace(self, algorithm_override=None), self.algorithm, **self.hyper)
        return _moments(problem, consts, alg).rounds(self._w0(problem) - consts.w_star, self.rounds)

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        problem, consts, ref = self._setup()
        run, label, rep = _replicas(list(seeds), point)
        _, X = _run_states(self._alg(), problem, self.rounds, run, self._w0(problem), ref)
        m, _ = self._exact()
        Z = X - consts.w_star
        vals = {f"proj_round_{s}": Z[s] @ m[s] for s in range(1, self.rounds + 1)}
        return _rows(self, point, label, vals, problem.dim, replica=rep)

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        problem, consts, ref = self._setup()
        m, _ = self._exact()
        y = np.stack([_per_seed(records, f"proj_round_{s}") for s in range(1, self.rounds + 1)], axis=1)
        expected = np.array([m[s] @ m[s] for s in range(1, self.rounds + 1)])
        result = checks.exact_expectation(y, expected)
        return self.verdict(result, conditions=[], seeds=_seeds(records), constants={"L": consts.L, **self.hyper},
                            statement=self.title, reference_gap=ref.gap, smallest_measured=float(expected.min()))


@dataclass(frozen=True)
class CovarianceClaim(MeanClaim):
    """E‖w̄^{(1)} − w* − m_1‖² = tr Cov(w̄^{(1)}) exactly (B = 1): the estimator's variance enters here."""

    rounds: int = 1
    #: 700 per seed: the relative half-width is about 0.08 (0.095 with 500 over base seeds 0-9)
    replicas: dict = field(default_factory=lambda: {"quick": 700, "standard": 700, "full": 700})

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        problem, consts, ref = self._setup()
        run, label, rep = _replicas(list(seeds), point)
        _, X = _run_states(self._alg(), problem, 1, run, self._w0(problem), ref)
        m, _ = self._exact()
        dev = X[1] - consts.w_star - m[1]
        return _rows(self, point, label, {"centred_sq": np.sum(dev * dev, axis=1)}, problem.dim, replica=rep)

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        problem, consts, ref = self._setup()
        m, S = self._exact()
        expected = float(np.trace(S[1]) - m[1] @ m[1])
        result = checks.exact_expectation(_per_seed(records, "centred_sq")[:, None], np.array([expected]))
        return self.verdict(result, conditions=[], seeds=_seeds(records), constants={"L": consts.L, **self.hyper},
                            statement=self.title, reference_gap=ref.gap, smallest_measured=expected)


@dataclass(frozen=True)
class LimitClaim(_DinhClaim):
    """Stochastic FedProxVR on a realisable instance reaches w*: ‖w̄^{(R)} − w*‖ ≤ 1e-9‖w̄⁰ − w*‖ on every seed,
    with R chosen from the exact second-moment recursion so that E‖w̄^{(R)} − w*‖² ≤ 1e-24‖w̄⁰ − w*‖² (Markov: a
    correct run misses 1e-9 with probability ≤ 1e-6 per seed)."""

    tolerance: float = 1e-9

    def _rounds(self) -> int:
        problem, consts, _ = self._setup()
        mom = _moments(problem, consts, _make_alg(dataclasses.replace(self, algorithm_override=None),
                                                  self.algorithm, **self.hyper))
        _, op = mom.round_operator
        rho = float(np.max(np.abs(np.linalg.eigvals(op))))
        return int(math.ceil(math.log(1e-24) / math.log(rho))) + 1

    def points(self, profile: str) -> list[dict]:
        return [{"problem": self.family, **self.problem_params, **self.hyper, "rounds": self._rounds(), "index": 0}]

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        problem, consts, ref = self._setup()
        w0 = self._w0(problem)
        _, X = _run_states(self._alg(), problem, point["rounds"], list(seeds), w0, ref)
        rel = np.linalg.norm(X[-1] - consts.w_star, axis=1) / np.linalg.norm(w0 - consts.w_star)
        return _rows(self, point, list(seeds), {"relative_distance": rel}, problem.dim, rnd=point["rounds"])

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        problem, consts, ref = self._setup()
        rel = _per_seed(records, "relative_distance")
        worst = float(np.max(rel)) if rel.size else math.nan
        ok = bool(np.all(np.isfinite(rel)) and worst <= self.tolerance)
        res = CheckResult("pass" if ok else "fail", f"max relative distance {worst:.3g}", f"≤ {self.tolerance:g}",
                          "deterministic threshold", "every seed reached w*" if ok else
                          f"some seed ends at relative distance {worst:.3g} from w*")
        scale = float(np.linalg.norm(self._w0(problem) - consts.w_star))
        rounding = float(np.linalg.cond(consts.Abar)) * problem.dim * _EPS * np.linalg.norm(consts.w_star) / scale
        return self.verdict(res, conditions=[], seeds=_seeds(records), constants={"L": consts.L, **self.hyper},
                            statement=self.title, reference_gap=rounding, smallest_measured=self.tolerance,
                            extra={"rounds": self._rounds()})


@dataclass(frozen=True)
class InnerClosedFormClaim(_DinhClaim):
    """Exact gradients, last local iterate, τ large: the local solver minimises J_n, so one round gives
    w̄^{(1)} = Σ_n p_n (A_n + μI)⁻¹(b_n + μw̄⁰) up to the contraction factor ((1 − ημ̃_n)/(1 + ημ))^τ ≤ 1e-13."""

    def _tau(self) -> int:
        problem, consts, _ = self._setup()
        mu, beta = self.hyper["mu"], self.hyper["beta"]
        eta = 1.0 / (beta * consts.L)
        lo = np.linalg.eigvalsh(consts.A).min(axis=1)
        rate = float(np.max(np.abs(1 - eta * np.concatenate([lo, np.linalg.eigvalsh(consts.A).max(axis=1)]))))
        rate /= 1 + eta * mu
        return int(math.ceil(math.log(1e-13) / math.log(rate)))

    def points(self, profile: str) -> list[dict]:
        return [{"problem": self.family, **self.problem_params, **self.hyper, "tau": self._tau(), "index": 0}]

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        problem, consts, ref = self._setup()
        alg = self._alg(tau=point["tau"], output_rule="last")
        w0 = self._w0(problem)
        _, X = _run_states(alg, problem, 1, list(seeds), w0, ref, gradients="exact")
        target = self._target(problem, consts, w0)
        err = np.linalg.norm(X[1] - target, axis=1) / np.linalg.norm(target - w0)
        return _rows(self, point, list(seeds), {"relative_error": err}, problem.dim, rnd=1)

    def _target(self, problem: Any, consts: Any, w0: np.ndarray) -> np.ndarray:
        mu = self.hyper["mu"]
        eye = np.eye(problem.dim)
        local = np.stack([np.linalg.solve(A + mu * eye, b + mu * w0) for A, b in zip(consts.A, consts.b, strict=True)])
        return consts.p @ local

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        problem, consts, ref = self._setup()
        err = _per_seed(records, "relative_error")
        worst = float(np.max(err))
        tol = 1e-11
        ok = bool(np.all(np.isfinite(err)) and worst <= tol)
        res = CheckResult("pass" if ok else "fail", f"max relative error {worst:.3g}", "Σ p_n argmin J_n",
                          f"relative {tol:g}", "matches the closed-form minimisers" if ok else
                          f"differs from Σ p_n argmin J_n by {worst:.3g} (relative)")
        cond = float(np.max([np.linalg.cond(A + self.hyper["mu"] * np.eye(problem.dim)) for A in consts.A]))
        return self.verdict(res, conditions=[], seeds=_seeds(records), constants={"L": consts.L, **self.hyper},
                            statement=self.title, reference_gap=cond * problem.dim * _EPS, smallest_measured=tol)


# ---- Lemma 1 -------------------------------------------------------------------------------------------------
def device_problem(problem: Any, n: int) -> Any:
    """The one-device federation of device n (same samples, weight 1)."""
    from fedrates.solvers.problems.base import Problem
    from fedrates.solvers.problems.datafits import DenseQuadratic
    from fedrates.solvers.problems.finite_sum import FiniteSum, ShiftedSampleLeastSquares, finite_sum

    fs = finite_sum(problem)
    one = slice(n, n + 1)
    extras = {}
    if isinstance(problem.datafit, DenseQuadratic):
        fit = problem.datafit
        sub = DenseQuadratic(Q=fit.Q[one], b=fit.b[one], c=fit.c[one])
        extras = {"finite_sum": FiniteSum(fs.X[one], fs.y[one], fs.E[one], fs.c, shifted=fs.shifted)}
    else:
        sub = ShiftedSampleLeastSquares(X=fs.X[one], y=fs.y[one], E=fs.E[one], centre=fs.c)
    return Problem(family=problem.family, preset=None, params={**problem.params, "device": n}, shape=problem.shape,
                   weights=np.ones(1), datafit=sub, penalty=problem.penalty, truth=problem.truth,
                   sampling=problem.sampling, noise_std=problem.noise_std, extras=extras)


@dataclass(frozen=True)
class Lemma1Claim(_DinhClaim):
    """Lemma 1 at its own τ: E[‖∇J_n(w_n)‖² | w̄] ≤ θ²‖∇F_n(w̄)‖² for every device (11′), hence (11).

    Measured per device on one-device runs from w̄⁰; the output w^{(t')} equals w̄ exactly iff t' = 0 (probability
    1/(τ+1), ratio exactly 1), so the statistic Y − (1[w_n = w̄] − 1/(τ+1)) (a control variate with known mean 0)
    has the same expectation with far less variance.  Checks: the MC mean equals the exact expectation
    (two-sided; the algorithm is the paper's), then the exact expectation is ≤ θ² (and ≤ the (53) bound)."""

    theta: float = 0.3
    estimator: str = "sarah"
    #: quick: 800 replicas per seed keep the half-width below the 10% resolution on every device (about 6%; with 400
    #: the heavy-tailed ratio took it to 11% at base seed 6); the broken variants (step 1/L, last iterate) move the
    #: law by 9% with a half-width far below that
    replicas: dict = field(default_factory=lambda: {"quick": 800, "standard": 800, "full": 1000})

    def _config(self) -> dict[str, float]:
        _, consts, _ = self._setup()
        return theory_config(consts, self.theta, self.estimator)

    def _hyper(self) -> dict[str, Any]:
        c = self._config()
        return {"mu": c["mu"], "beta": c["beta"], "tau": c["tau"], "batch": 1}

    def points(self, profile: str) -> list[dict]:
        return [{"problem": self.family, **self.problem_params, **self._hyper(), "index": 0,
                 "replicas": self.replicas[profile]}]

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        problem, consts, ref = self._setup()
        hyper = self._hyper()
        w0 = self._w0(problem)
        tau = hyper["tau"]
        vals = {}
        run, label, rep = _replicas(list(seeds), point)
        for n in range(problem.clients):
            sub = device_problem(problem, n)
            alg = _make_alg(self, self.algorithm, **hyper, L=consts.L)
            _, X = _run_states(alg, sub, 1, run, w0, ref)
            A, b = consts.A[n], consts.b[n]
            gJ = X[1] @ A.T - b + hyper["mu"] * (X[1] - w0)
            gF = A @ w0 - b
            ratio = np.sum(gJ * gJ, axis=1) / (gF @ gF)
            at_anchor = np.all(X[1] == w0, axis=1).astype(float)
            vals[f"device_{n}"] = ratio - (at_anchor - 1.0 / (tau + 1))
        return _rows(self, point, label, vals, problem.dim, rnd=1, replica=rep)

    def _exact(self) -> np.ndarray:
        problem, consts, _ = self._setup()
        from fedrates.solvers import algorithms

        alg = algorithms.make(_ALG_NAME[self.estimator], **self._hyper())
        mom = _moments(problem, consts, alg)
        z0 = self._w0(problem) - consts.w_star
        gF = np.einsum("kde,e->kd", consts.A, z0)
        return mom.surrogate_grad_sq(z0) / np.sum(gF * gF, axis=1)

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        from fedrates.bounds import catalog

        problem, consts, ref = self._setup()
        cfg = self._config()
        values = _theta_values(consts, mu=cfg["mu"], beta=cfg["beta"], tau=cfg["tau"], theta=self.theta)
        if self.estimator == "svrg":
            from fedrates.bounds import fedproxvr as fb

            values["a"] = fb.a_min(cfg["tau"])
        thm = catalog.get(self.theorem)
        conditions = evaluate_conditions(thm, values)
        seeds = _seeds(records)
        if any(c["holds"] is False for c in conditions):
            return self.conditions_not_met(conditions, seeds, values, thm.statement)
        exact = self._exact()
        y = np.stack([_per_seed(records, f"device_{n}") for n in range(problem.clients)], axis=1)
        mc = checks.exact_expectation(y, exact)
        eq53 = catalog.get("dinh.lem1.eq53").evaluate(values)
        bound = self.theta**2
        ratio = float(np.max(exact) / bound)
        if mc.verdict != "pass":
            result = mc
            if mc.verdict == "fail":
                result.message = f"the algorithm's law differs from Algorithm 1's exact one: {mc.message}"
        else:
            ok = bool(np.all(exact <= bound * (1 + 1e-9)) and np.all(exact <= eq53 * (1 + 1e-9)))
            result = CheckResult(
                "pass" if ok else "fail",
                f"exact E‖∇J_n‖²/‖∇F_n‖² per device = {np.array2string(exact, precision=4)} (MC agrees: "
                f"{mc.measured})",
                f"≤ θ² = {bound:.4g}; (53): ≤ {eq53:.4g}", mc.tolerance,
                ("(11′) holds on every device at τ = ⌈τ_lower⌉" if ok else
                 "(11′) or (53) fails on some device at τ = ⌈τ_lower⌉"))
        return self.verdict(result, conditions=conditions, seeds=seeds, constants=values, statement=thm.statement,
                            reference_gap=ref.gap, smallest_measured=float(np.min(exact)), bound_ratio=ratio,
                            extra={"eq53_ratio": float(np.max(exact) / eq53), "config": cfg})


@dataclass(frozen=True)
class TauTradeoffClaim(Lemma1Claim):
    """Remark 1(2), the τ trade-off: at fixed β and μ, the local accuracy r(τ) = E‖∇J_n(w_n)‖²/‖∇F_n(w̄)‖² decreases
    in τ and stays below the (53) bound C_loc/(τ + 1) at every τ of the grid (device 0).  The algorithm's law is
    checked by Monte Carlo against the exact value at the smallest τ (two-sided); the trend and the bound are judged
    on the exact values of the moment recursion at every τ."""

    fractions: tuple[float, ...] = (0.125, 0.25, 0.5, 1.0)

    def _taus(self) -> list[int]:
        tau0 = self._config()["tau"]
        return sorted({max(2, int(round(f * tau0))) for f in self.fractions})

    def points(self, profile: str) -> list[dict]:
        # Monte Carlo only at the smallest τ (the algorithm's law, checked two-sided against the exact one); the
        # trend and the bound are judged on the exact values at every τ of the grid
        h = self._hyper()
        return [{"problem": self.family, **self.problem_params, **h, "tau": self._taus()[0], "taus": self._taus(),
                 "index": 0, "replicas": self.replicas[profile]}]

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        problem, consts, ref = self._setup()
        hyper = {**self._hyper(), "tau": point["tau"]}
        w0 = self._w0(problem)
        run, label, rep = _replicas(list(seeds), point)
        alg = _make_alg(self, self.algorithm, **hyper, L=consts.L)
        _, X = _run_states(alg, device_problem(problem, 0), 1, run, w0, ref)
        A, b = consts.A[0], consts.b[0]
        gJ = X[1] @ A.T - b + hyper["mu"] * (X[1] - w0)
        gF = A @ w0 - b
        ratio = np.sum(gJ * gJ, axis=1) / (gF @ gF)
        at_anchor = np.all(X[1] == w0, axis=1).astype(float)
        vals = {"ratio": ratio - (at_anchor - 1.0 / (point["tau"] + 1))}
        return _rows(self, point, label, vals, problem.dim, rnd=1, replica=rep)

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        from fedrates.bounds import catalog
        from fedrates.solvers import algorithms

        problem, consts, ref = self._setup()
        cfg, taus = self._config(), self._taus()
        z0 = self._w0(problem) - consts.w_star
        gF = consts.A[0] @ z0
        exact = []
        for t in taus:
            alg = algorithms.make(_ALG_NAME[self.estimator], **{**self._hyper(), "tau": t})
            exact.append(float(_moments(problem, consts, alg).surrogate_grad_sq(z0)[0] / (gF @ gF)))
        exact = np.array(exact)
        mc = checks.exact_expectation(_per_seed(records, "ratio", point=0)[:, None], exact[:1])
        thm = catalog.get("dinh.lem1.eq53")
        bounds = np.array([thm.evaluate(_theta_values(consts, mu=cfg["mu"], beta=cfg["beta"], tau=t,
                                                      theta=self.theta)) for t in taus])
        if mc.verdict != "pass":
            result = mc
            if mc.verdict == "fail":
                result.message = f"the algorithm's law differs from Algorithm 1's exact one: {mc.message}"
        else:
            ok = bool(np.all(np.diff(exact) < 0) and np.all(exact <= bounds * (1 + 1e-9)))
            result = CheckResult("pass" if ok else "fail",
                                 f"r(τ) at τ = {taus}: {np.array2string(exact, precision=4)} "
                                 f"(MC agrees: {mc.measured})",
                                 f"decreasing and ≤ C_loc/(τ+1) = {np.array2string(bounds, precision=4)}", mc.tolerance,
                                 "decreasing in τ and below (53) at every τ" if ok else
                                 "not decreasing in τ or above (53) somewhere")
        return self.verdict(result, conditions=[], seeds=_seeds(records),
                            constants={"mu": cfg["mu"], "beta": cfg["beta"], "L": consts.L},
                            statement="Remark 1(2): more local iterations give a more accurate local solution",
                            reference_gap=ref.gap, smallest_measured=float(exact.min()),
                            bound_ratio=float(np.max(exact / bounds)),
                            extra={"r_times_tau_plus_1": (exact * (np.array(taus) + 1)).tolist()})


@dataclass(frozen=True)
class MuTradeoffClaim(_DinhClaim):
    """Remark 2(2) / Fig. 4, the μ trade-off: with the local problems solved accurately, the rounds T_ε to reach
    E[F̄ − F̄*] ≤ εΔ grow linearly in μ when μ ≫ L (Θ ≈ const/μ): log-log slope 1 ± 0.2 over μ ∈ [8, 64]·L_F.
    T_ε comes from the exact moment recursion at every μ; the algorithm's law is checked first (MC vs exact after 3
    rounds, two-sided, at the smallest μ)."""

    multipliers: tuple[float, ...] = (8.0, 16.0, 32.0, 64.0)
    eps: float = 1e-2
    rounds: int = 3
    replicas: dict = field(default_factory=lambda: {"quick": 100, "standard": 100, "full": 100})

    def _mus(self) -> list[float]:
        _, consts, _ = self._setup()
        return [m * consts.L_F for m in self.multipliers]

    def points(self, profile: str) -> list[dict]:
        # Monte Carlo (the algorithm's law) at the smallest μ; T_ε at every μ from the exact recursion
        mus = self._mus()
        return [{"problem": self.family, **self.problem_params, **self.hyper, "mu": mus[0], "mus": mus, "index": 0,
                 "replicas": self.replicas[profile]}]

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        problem, consts, ref = self._setup()
        run, label, rep = _replicas(list(seeds), point)
        _, X = _run_states(self._alg(mu=point["mu"]), problem, self.rounds, run, self._w0(problem), ref)
        Z = X[-1] - consts.w_star
        gap = 0.5 * np.einsum("rd,de,re->r", Z, consts.Abar, Z)
        return _rows(self, point, label, {"gap": gap}, problem.dim, rnd=self.rounds, replica=rep)

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        from fedrates.solvers import algorithms
        from fedrates.verify import margins

        problem, consts, ref = self._setup()
        z0 = self._w0(problem) - consts.w_star
        Delta = 0.5 * z0 @ consts.Abar @ z0
        mus, short, T_eps = self._mus(), [], []
        for mu in mus:
            mom = _moments(problem, consts, algorithms.make(self.algorithm, **{**self.hyper, "mu": mu}))
            Pbar, op = mom.round_operator
            S = np.outer(z0, z0)
            gaps = []
            for _ in range(100000):
                gaps.append(0.5 * float(np.sum(consts.Abar * S)))
                if gaps[-1] <= self.eps * Delta:
                    break
                S = (op @ S.reshape(-1)).reshape(S.shape)
            short.append(gaps[self.rounds])
            T_eps.append(len(gaps) - 1)
        mc = checks.exact_expectation(_per_seed(records, "gap", point=0)[:, None], np.array(short[:1]))
        slope = float(np.polyfit(np.log(mus), np.log(T_eps), 1)[0])
        if mc.verdict != "pass":
            result = mc
            if mc.verdict == "fail":
                result.message = f"the algorithm's law differs from Algorithm 1's exact one: {mc.message}"
        else:
            ok = abs(slope - 1.0) <= 0.2 and bool(np.all(np.diff(T_eps) > 0))
            result = CheckResult("pass" if ok else "fail", f"T_ε = {T_eps} at μ/L_F = {list(self.multipliers)}; "
                                 f"log-log slope {slope:.3f} (MC agrees: {mc.measured})", "slope 1 (T_ε ∝ μ)",
                                 "± 0.2", "T_ε grows linearly in μ" if ok else "T_ε does not grow like μ")
        return self.verdict(result, conditions=[], seeds=_seeds(records), constants={"L_F": consts.L_F, "m": consts.m,
                                                                                     **self.hyper},
                            statement="Remark 2(2): a larger mu needs more rounds (Theta ~ const/mu)",
                            reference_gap=ref.gap, smallest_measured=float(min(short)), extra={"T_eps": T_eps},
                            margin=margins.resolution(0.2))  # exact T_ε: detects a slope off 1 by 0.2


@dataclass(frozen=True)
class Lemma2Claim(_DinhClaim):
    """Lemma 2 (36): ‖∇J_n(w)‖² ≤ 2(μ²η² + 1)‖G_n(w)‖² for all w, with the gradient mapping
    G_n(w) = (w − prox_{ηh_s}(w − η∇F_n(w)))/η built from the algorithm's own prox and step (deterministic, random
    w and anchors w̄ on every device)."""

    n_points: int = 64

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        problem, consts, _ = self._setup()
        alg = self._alg()
        eta = alg.step_size(problem)
        rng = np.random.default_rng(36)
        W = consts.w_star + rng.standard_normal((self.n_points, problem.dim))
        anchor = consts.w_star + rng.standard_normal((self.n_points, problem.dim))
        lhs, rhs = [], []
        for A, b in zip(consts.A, consts.b, strict=True):
            grad = W @ A.T - b
            G = (W - alg.prox(W - eta * grad, anchor, eta)) / eta
            gJ = grad + alg.mu * (W - anchor)
            lhs.append(np.sum(gJ * gJ, axis=1))
            rhs.append(2 * (alg.mu**2 * eta**2 + 1) * np.sum(G * G, axis=1))
        vals = {"lhs": np.concatenate(lhs), "rhs": np.concatenate(rhs)}
        df = pd.DataFrame({"seed": np.int64(seeds[0]), "round": np.arange(vals["lhs"].size), "iterations": 0,
                           "diverged": False, **vals})
        return records_from_trace(df, claim=self, point_index=0, point=point, metrics=list(vals),
                                  problem_dim=problem.dim)

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        problem, consts, ref = self._setup()
        lhs = records[records["metric"] == "lhs"].sort_values("round")["value"].to_numpy()
        rhs = records[records["metric"] == "rhs"].sort_values("round")["value"].to_numpy()
        ratio = float(np.max(lhs / rhs))
        ok = bool(np.all(lhs <= rhs * (1 + 1e-9)))
        res = CheckResult("pass" if ok else "fail", f"max ‖∇J_n‖²/(2(μ²η² + 1)‖G_n‖²) = {ratio:.4g} over {lhs.size}",
                          "≤ 1", "floating point only", "(36) holds at every point" if ok else "(36) fails")
        return self.verdict(res, conditions=[], seeds=_seeds(records), constants={"L": consts.L, **self.hyper},
                            statement=self.title, reference_gap=0.0, smallest_measured=float(np.min(lhs)),
                            bound_ratio=ratio)


@dataclass(frozen=True)
class EstimatorErrorClaim(_DinhClaim):
    """(35) SVRG: E‖∇F_n(w⁽ᵗ⁾) − v⁽ᵗ⁾‖² ≤ L²E‖w⁽ᵗ⁾ − w̄‖²; (33) SARAH: ≤ Σ_{j≤t} L²E‖w⁽ʲ⁾ − w⁽ʲ⁻¹⁾‖², at every local
    step t = 1..τ−1 of every device, with both sides computed exactly from the update rules (the estimator is not
    visible in the algorithm's output).  L is the paper's (3), max_i‖Q_i‖₂; the ratio with the mean-squared
    constant L_ms (all the proofs of (33)/(35) need) is reported as well."""

    estimator: str = "svrg"

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        from fedrates.solvers import algorithms

        problem, consts, _ = self._setup()
        alg = algorithms.make(_ALG_NAME[self.estimator], **self.hyper)
        err, steps = _moments(problem, consts, alg).estimator_errors(self._w0(problem) - consts.w_star)
        bound = consts.L**2 * steps
        vals = {"error": err.reshape(-1), "bound": bound.reshape(-1)}
        df = pd.DataFrame({"seed": np.int64(seeds[0]), "round": np.arange(err.size), "iterations": 0,
                           "diverged": False, **vals})
        return records_from_trace(df, claim=self, point_index=0, point=point, metrics=list(vals),
                                  problem_dim=problem.dim)

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        problem, consts, ref = self._setup()
        err = records[records["metric"] == "error"].sort_values("round")["value"].to_numpy()
        bound = records[records["metric"] == "bound"].sort_values("round")["value"].to_numpy()
        ratio = float(np.max(err / bound))
        ok = bool(np.all(err <= bound * (1 + 1e-9)))
        res = CheckResult("pass" if ok else "fail", f"max exact error/bound = {ratio:.4g} over {err.size} (device, t)",
                          "error ≤ L²·(step term)", "floating point only (exact expectations)",
                          "the estimator-error bound holds at every local step" if ok else
                          "the estimator error exceeds the bound at some local step")
        ms = ratio * consts.L**2 / consts.L_ms**2
        return self.verdict(res, conditions=[], seeds=_seeds(records), constants={"L": consts.L, "L_ms": consts.L_ms,
                                                                                  **self.hyper},
                            statement=self.title, reference_gap=ref.gap, smallest_measured=float(np.min(err[err > 0])),
                            bound_ratio=ratio, extra={"ratio_with_L_ms": ms})


# ---- Theorem 1 and its per-round descent --------------------------------------------------------------------------
@dataclass(frozen=True)
class AdversarialDescentClaim(_DinhClaim):
    """(86) for the worst local solver the proof allows: w_n = w_n* + (A_n + μI)⁻¹g_n with ‖g_n‖ = θ‖∇F_n(w̄)‖ and
    g_n ∥ ∇F̄(w̄), so ‖∇J_n(w_n)‖ = θ‖∇F_n(w̄)‖ exactly (11′ with equality).  Deterministic, at random w̄; L is the
    smoothness of F_n and F̄ (L_F = max_n λ_max(A_n), what the proof of Theorem 1 uses), so the bound has teeth."""

    theta: float = 0.05
    n_points: int = 64
    #: μ = mu_factor × argmax_μ Θ: far past the argmax the L/μ̃ terms vanish and the remaining slack is the factor
    #: √2 of (72) times θ, so the bound is within ~5% of the worst admissible decrease
    mu_factor: float = 100.0

    def _config(self) -> tuple[dict[str, float], float]:
        from fedrates.bounds import fedproxvr as fb

        _, consts, _ = self._setup()
        L = consts.L_F
        mus = consts.lam + L * np.geomspace(4.0, 1e4, 600)
        th = np.array([fb.Theta(L, consts.lam, m, self.theta, consts.sigma_bar_sq) for m in mus])
        mu = consts.lam + self.mu_factor * float(mus[int(np.argmax(th))] - consts.lam)
        return {"mu": mu, "L_F": L}, fb.Theta(L, consts.lam, mu, self.theta, consts.sigma_bar_sq)

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        problem, consts, _ = self._setup()
        cfg, Theta = self._config()
        rng = np.random.default_rng(20200817)
        # (86) is homogeneous of degree 2 in w̄ − w*: directions suffice (evenly spaced on the circle when d = 2)
        if problem.dim == 2:
            ang = np.linspace(0.0, np.pi, self.n_points, endpoint=False)
            W = consts.w_star + np.stack([np.cos(ang), np.sin(ang)], axis=1)
        else:
            W = consts.w_star + rng.standard_normal((self.n_points, problem.dim))
        mu, eye = cfg["mu"], np.eye(problem.dim)
        Fbar = lambda w: 0.5 * np.einsum("...d,de,...e->...", w - consts.w_star, consts.Abar, w - consts.w_star)  # noqa: E731
        lhs, rhs = [], []
        for w in W:
            gbar = consts.Abar @ w - consts.bbar
            direction = gbar / np.linalg.norm(gbar)
            wn = []
            for A, b in zip(consts.A, consts.b, strict=True):
                gF = A @ w - b
                g = self.theta * np.linalg.norm(gF) * direction
                wn.append(np.linalg.solve(A + mu * eye, b + mu * w) + np.linalg.solve(A + mu * eye, g))
            new = consts.p @ np.array(wn)
            lhs.append(Fbar(new) - Fbar(w))
            rhs.append(-Theta * gbar @ gbar)
        vals = {"decrease": np.array(lhs), "bound": np.array(rhs)}
        df = pd.DataFrame({"seed": np.int64(seeds[0]), "round": np.arange(self.n_points), "iterations": 0,
                           "diverged": False, **vals})
        return records_from_trace(df, claim=self, point_index=0, point=point, metrics=list(vals),
                                  problem_dim=problem.dim)

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        from fedrates.bounds import catalog

        problem, consts, ref = self._setup()
        cfg, Theta = self._config()
        values = _theta_values(consts, mu=cfg["mu"], beta=10.0, tau=1e9, theta=self.theta)
        values["L"] = cfg["L_F"]
        thm = catalog.get("dinh.thm1.eq86")
        conditions = [c for c in evaluate_conditions(thm, values) if "tau" not in c["condition"]
                      and "beta" not in c["condition"]]
        seeds = _seeds(records)
        if any(c["holds"] is False for c in conditions):
            return self.conditions_not_met(conditions, seeds, values, thm.statement)
        sub = records[records["metric"] == "decrease"].sort_values("round")
        lhs = sub["value"].to_numpy()
        rhs = records[records["metric"] == "bound"].sort_values("round")["value"].to_numpy()
        slack = 1e-9 * np.abs(rhs)
        ok = bool(np.all(lhs <= rhs + slack))
        tight = float(np.max(rhs / lhs))  # Θ‖∇F̄‖² / actual decrease, ≤ 1 when the bound holds
        res = CheckResult("pass" if ok else "fail", f"max Θ‖∇F̄‖²/decrease = {tight:.4g} over {len(lhs)} points",
                          "decrease ≥ Θ‖∇F̄(w̄)‖²", "floating point only",
                          "(86) holds for the adversarial θ-inexact solver at every point" if ok else
                          "(86) fails for an admissible θ-inexact local solution")
        return self.verdict(res, conditions=conditions, seeds=seeds, constants={**values, "Theta": Theta},
                            statement=thm.statement, reference_gap=0.0, smallest_measured=float(np.min(-lhs)),
                            bound_ratio=tight)


def sharp_config(consts: Any, theta: float, mu_factor: float, estimator: str = "sarah") -> dict[str, float]:
    """A configuration where Theorem 1's bound is within a few × of the data: μ = λ + mu_factor·L (far past argmax Θ,
    so the L/μ̃ terms of Θ are small and Θ ≈ (1 − θ√(2(1 + σ̄²)))/μ), β = 3 + √(9 + μ²/L²) (the minimiser of
    τ_lower(β) of (13)), τ = ⌈τ_lower(β)⌉; τ ≤ (5β² − 4β)/8 is a condition the claim evaluates.  SVRG: β is the
    larger of that minimiser and 1.02× the smallest β where (14) is feasible (needs θ²μ̃/L > 15.18)."""
    from fedrates.bounds import fedproxvr as fb

    L, lam = consts.L, consts.lam
    mu = lam + mu_factor * L
    beta = 3.0 + math.sqrt(9.0 + (mu / L) ** 2)
    if estimator == "svrg":
        b, _ = fb.beta_min_svrg(L, mu, lam, theta)
        beta = max(beta, 1.02 * b) if math.isfinite(b) else beta
    tau = int(math.ceil(fb.tau_lower(beta, L, mu, lam, theta)))  # τ ≤ τ_upper is a condition the claim evaluates
    return {"mu": mu, "beta": float(beta), "tau": tau, "theta": theta}


def _theory_hyper(claim: Any) -> dict[str, Any]:
    _, consts, _ = claim._setup()
    if getattr(claim, "mu_factor", None):
        c = sharp_config(consts, claim.theta, claim.mu_factor, "svrg" if "svrg" in claim.algorithm else "sarah")
    else:
        c = theory_config(consts, claim.theta, "svrg" if "svrg" in claim.algorithm else "sarah")
    return {"mu": c["mu"], "beta": c["beta"], "tau": c["tau"], "batch": 1}


@observed_cache
def _theory_run(claim: Any, seeds: tuple[int, ...], rounds: int) -> np.ndarray:
    """Server iterates (rounds + 1, R, d) of the claim's algorithm in the theory configuration (memoised: the
    Theorem 1, Corollary 1, PL and descent claims share one run per seed set)."""
    problem, consts, ref = claim._setup()
    _, X = _run_states(claim._alg(**_theory_hyper(claim)), problem, rounds, list(seeds), claim._w0(problem), ref)
    return X


@dataclass(frozen=True)
class TheoremClaim(_DinhClaim):
    """Theorem 1 family in the configuration θ = 0.3, μ = argmax Θ, β = 1.05β_min, τ = ⌈τ_lower⌉ (SARAH), or, with
    ``mu_factor``, in :func:`sharp_config` over T = ⌈nm_factor·Δ/(Θ‖∇F̄(w̄⁰)‖²)⌉ rounds: then a local solver that never
    moves (w̄^{(s)} = w̄⁰, average ‖∇F̄(w̄⁰)‖²) exceeds the bound Δ/(ΘT) by the factor nm_factor, and the start point
    alone does not meet Corollary 1's ε = Δ/(ΘT).

    ``quantity``: ``avg0`` (1/T)Σ_{s=0}^{T−1}E‖∇F̄(w̄^{(s)})‖² ≤ Δ/(ΘT) (proved range), ``avg1`` the printed s = 1..T,
    ``pl`` E[F̄(w̄^{(s)}) − F̄*] ≤ (1 − 2mΘ)^sΔ (derived PL corollary, m = λ_min(Ā)), ``cor1`` the first T whose
    expected running average is ≤ ε is ≤ ⌈Δ/(Θε)⌉ (ε = Δ/(ΘT_run)), ``descent`` E[F̄(w̄^{(1)})] − F̄(w̄⁰) ≤
    −Θ‖∇F̄(w̄⁰)‖² (86).  Every check compares the Monte-Carlo mean with the exact expectation (two-sided), then the
    exact expectation and the Monte-Carlo mean with the bound."""

    theta: float = 0.3
    quantity: str = "avg0"
    T: int = 12
    replicas: dict = field(default_factory=lambda: {"quick": 60, "standard": 60, "full": 60})
    #: None: μ = argmax Θ (theory_config); a number c: μ = λ + cL (sharp_config) and T from ``nm_factor``
    mu_factor: float | None = None
    nm_factor: float = 1.5
    #: False where the statistic is heavy-tailed (SARAH with indefinite sample Hessians and τ ≈ 800: rare paths with
    #: large F̄ make the sample sd unreliable, so a two-sided Monte-Carlo check would depend on the seed); the law is
    #: then pinned by the exact mean claims on the same instance, and the Monte-Carlo mean is still checked against
    #: the bound (one-sided)
    law_check: bool = True

    def __hash__(self) -> int:
        return hash((self.id, self.quantity, self.T, self.mu_factor, self.nm_factor, id(self.algorithm_override)))

    def rounds(self) -> int:
        """T: the field, or with ``mu_factor`` ⌈nm_factor·Δ/(Θ‖∇F̄(w̄⁰)‖²)⌉ from the exact constants."""
        if not self.mu_factor:
            return self.T
        from fedrates.bounds import fedproxvr as fb

        problem, consts, _ = self._setup()
        h = _theory_hyper(self)
        z0 = self._w0(problem) - consts.w_star
        Theta = fb.Theta(consts.L, consts.lam, h["mu"], self.theta, consts.sigma_bar_sq)
        delta, g0 = 0.5 * z0 @ consts.Abar @ z0, z0 @ consts.Abar @ consts.Abar @ z0
        if not Theta > 0:  # conditions not met (Θ > 0 is a condition): keep the nominal T
            return self.T
        return int(math.ceil(self.nm_factor * delta / (Theta * g0)))

    def points(self, profile: str) -> list[dict]:
        return [{"problem": self.family, **self.problem_params, **_theory_hyper(self), "rounds": self.rounds(),
                 "index": 0, "replicas": self.replicas[profile]}]

    def _key(self) -> Any:
        # runs are shared between claims that differ only in the quantity they check
        return dataclasses.replace(self, quantity="avg0", id="dinh.thm1.shared", title="", erratum=None, theorem="",
                                   regime="", why="", metric="", x="")

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        problem, consts, _ = self._setup()
        run, label, rep = _replicas(list(seeds), point)
        T = self.rounds()
        X = _theory_run(self._key(), tuple(run), T)
        Z = X - consts.w_star
        grad_sq = np.einsum("srd,de,sre->sr", Z, consts.Abar @ consts.Abar, Z)
        gap = 0.5 * np.einsum("srd,de,sre->sr", Z, consts.Abar, Z)
        vals = {f"grad_sq_{s}": grad_sq[s] for s in range(T + 1)}
        vals.update({f"gap_{s}": gap[s] for s in range(T + 1)})
        vals["step_sq_1"] = np.sum((X[1] - X[0]) ** 2, axis=1)
        return _rows(self, point, label, vals, problem.dim, rnd=T, replica=rep)

    def _exact(self) -> tuple[np.ndarray, np.ndarray]:
        from fedrates.solvers import algorithms

        problem, consts, _ = self._setup()
        alg = algorithms.make(self.algorithm, **_theory_hyper(self))
        z0 = self._w0(problem) - consts.w_star
        m, S = _moments(problem, consts, alg).rounds(z0, self.rounds())
        A = consts.Abar
        object.__setattr__(self, "_step_exact", float(np.trace(S[1]) - 2 * z0 @ m[1] + z0 @ z0))  # E‖w̄¹ − w̄⁰‖²
        return np.einsum("sde,ed->s", S, A @ A), 0.5 * np.einsum("sde,ed->s", S, A)

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        from fedrates.bounds import catalog
        from fedrates.bounds import fedproxvr as fb

        problem, consts, ref = self._setup()
        hyper = _theory_hyper(self)
        T = self.rounds()
        values = _theta_values(consts, mu=hyper["mu"], beta=hyper["beta"], tau=hyper["tau"], theta=self.theta, T=T)
        thm_id = {"avg0": "dinh.thm1.corrected", "avg1": "dinh.thm1", "cor1": "dinh.cor1", "pl": "dinh.thm1.eq86",
                  "descent": "dinh.thm1.eq86", "lem3": "dinh.lem3"}[self.quantity]
        thm = catalog.get(thm_id)
        values["eps"] = 1.0
        values["gradF_sq"] = 1.0
        conditions = evaluate_conditions(thm, values)
        seeds = _seeds(records)
        if any(c["holds"] is False for c in conditions):
            return self.conditions_not_met(conditions, seeds, values, thm.statement)
        Theta = fb.Theta(consts.L, consts.lam, hyper["mu"], self.theta, consts.sigma_bar_sq)
        g_exact, gap_exact = self._exact()
        G = np.stack([_per_seed(records, f"grad_sq_{s}") for s in range(T + 1)], axis=1)
        F = np.stack([_per_seed(records, f"gap_{s}") for s in range(T + 1)], axis=1)
        Delta = float(gap_exact[0])
        # (17) is a statement for every T: with the sharp configuration it is checked at T/4, T/2 and T (the 1/T
        # shape of the bound against the running average), otherwise at T
        Ts = np.unique([max(T // 4, 1), max(T // 2, 1), T]) if self.mu_factor else np.array([T])
        if self.quantity == "avg0":
            y = np.stack([G[:, :t].mean(axis=1) for t in Ts], axis=1)
            expected = np.array([g_exact[:t].mean() for t in Ts])
            bound = Delta / (Theta * Ts)
        elif self.quantity == "avg1":
            y = np.stack([G[:, 1:t + 1].mean(axis=1) for t in Ts], axis=1)
            expected = np.array([g_exact[1:t + 1].mean() for t in Ts])
            bound = Delta / (Theta * Ts)
        elif self.quantity == "pl":
            s = np.array([1, T // 2, T])
            y, expected = F[:, s], gap_exact[s]
            bound = (1 - 2 * consts.m * Theta) ** s * Delta
        elif self.quantity == "descent":
            y, expected = (F[:, 1] - F[:, 0])[:, None], np.array([gap_exact[1] - gap_exact[0]])
            bound = np.array([-Theta * g_exact[0]])
        elif self.quantity == "lem3":
            y, expected = _per_seed(records, "step_sq_1")[:, None], np.array([self.__dict__["_step_exact"]])
            bound = np.array([4 * (1 + self.theta**2) * (1 + consts.sigma_bar_sq) / (hyper["mu"] - consts.lam) ** 2
                              * g_exact[0]])
        else:  # cor1: running averages of the exact expectations against ε = Δ/(ΘT)
            # the running average at T = 1 is the deterministic ‖∇F̄(w̄⁰)‖²: Monte Carlo is checked from T = 2 on
            run = np.cumsum(G[:, :T], axis=1) / np.arange(1, T + 1)
            y, expected = run[:, 1:], (np.cumsum(g_exact[:T]) / np.arange(1, T + 1))[1:]
            bound = None
        # the descent statistic is negative: compare it in absolute value (same two-sided check)
        sign = -1.0 if self.quantity == "descent" else 1.0
        mc = checks.exact_expectation(sign * y, sign * expected)
        if not self.law_check and mc.verdict != "pass":
            mc = CheckResult("pass", f"{mc.measured} (heavy-tailed: not decisive)", mc.predicted, mc.tolerance,
                             "law pinned by dinh.alg1/mean-sarah-nc")
        measured_mean = y.mean(axis=0)
        if bound is not None and not np.all(measured_mean <= bound + 1e-12 * np.abs(bound)):
            # the bound has teeth on its own: whatever the law, a measured average above it fails
            result = CheckResult("fail", f"Monte-Carlo mean {np.array2string(measured_mean, precision=5)}",
                                 f"≤ {np.array2string(bound, precision=5)}", mc.tolerance,
                                 "the measured quantity violates the bound (whatever the algorithm's law)")
            with np.errstate(divide="ignore", invalid="ignore"):  # a still solver's decrease is exactly 0
                ratio = float(np.max(measured_mean / bound)) if self.quantity != "descent" else \
                    float(bound[0] / measured_mean[0])
        elif mc.verdict != "pass":
            result = mc
            if mc.verdict == "fail":
                result.message = f"the algorithm's law differs from Algorithm 1's exact one: {mc.message}"
            ratio = None
        elif self.quantity == "cor1":
            eps = Delta / (Theta * T)
            running = np.cumsum(g_exact[:T]) / np.arange(1, T + 1)
            hit = np.nonzero(running <= eps)[0]
            first = int(hit[0]) + 1 if hit.size else None
            needed = math.ceil(Delta / (Theta * eps))
            ok = first is not None and first <= needed
            ratio = None if first is None else first / needed
            result = CheckResult("pass" if ok else "fail",
                                 f"first T with running average ≤ ε: {first} (MC agrees: {mc.measured})",
                                 f"≤ ⌈Δ/(Θε)⌉ = {needed}", mc.tolerance,
                                 "ε-accuracy reached within the Corollary 1 count" if ok else
                                 "ε-accuracy not reached within the Corollary 1 count")
        else:
            ok = bool(np.all(expected <= bound + 1e-12 * np.abs(bound)))
            ratio = float(np.max(expected / bound)) if self.quantity != "descent" else float(bound[0] / expected[0])
            result = CheckResult("pass" if ok else "fail",
                                 f"exact {np.array2string(expected, precision=5)} (MC agrees: {mc.measured})",
                                 f"≤ {np.array2string(bound, precision=5)}", mc.tolerance,
                                 "the exact expectation satisfies the bound" if ok else
                                 "the exact expectation violates the bound")
        smallest = float(np.min(np.abs(expected)))
        return self.verdict(result, conditions=conditions, seeds=seeds,
                            constants={**values, "Theta": Theta, "m": consts.m, "Delta": Delta},
                            statement=thm.statement, reference_gap=ref.gap, smallest_measured=smallest,
                            bound_ratio=ratio, extra={"config": hyper})


#: (β, τ) of the FedProxVR rows of Tables 1 and 2 (§5), as printed
_PAPER_SARAH = ((5, 20), (9, 20))
_PAPER_SVRG = ((10, 20),)


# ---- Remark 1 errata (numeric predictions) ---------------------------------------------------------------------
@dataclass(frozen=True)
class RemarkClaim(Claim):
    """Remark 1's statements evaluated on the paper's formulas; the verdict is ``erratum`` only when the computed
    numbers also match the erratum's prediction (else ``fail``: neither the paper nor the erratum is right)."""

    which: str = "tau-order"

    def points(self, profile: str) -> list[dict]:
        return [{"problem": "formulas", "which": self.which, "index": 0}]

    def _numbers(self) -> dict[str, float]:
        from fedrates.bounds import fedproxvr as fb

        if self.which == "smallest-tau":
            # (16)'s τ at β_min against the smallest τ_lower(β) over the SARAH-feasible β ≥ β_min (dense log-grid of
            # β, then the best grid cell refined): computed from the formulas, not from the closed-form argmin
            b1, t1 = fb.beta_min(1.0, 200.0, 0.0, 0.6)
            grid = np.geomspace(b1, 1e4 * b1, 200001)
            low = fb.tau_lower(grid, 1.0, 200.0, 0.0, 0.6)
            low = np.where(low <= fb.tau_upper_sarah(grid), low, np.inf)
            i = int(np.argmin(low))
            fine = np.linspace(grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)], 20001)
            j = int(np.argmin(fb.tau_lower(fine, 1.0, 200.0, 0.0, 0.6)))
            return {"beta_min": b1, "tau_at_beta_min": t1, "beta_best": float(fine[j]),
                    "tau_smallest": float(fb.tau_lower(fine[j], 1.0, 200.0, 0.0, 0.6))}
        if self.which == "experiments":
            # §5's reported configurations (Tables 1-2; β, τ as printed): the upper bounds depend on β only
            out = {f"tau_upper_sarah_{b}": fb.tau_upper_sarah(float(b)) for b, _ in _PAPER_SARAH}
            out.update({f"tau_max_svrg_{b}": fb.tau_max_svrg(float(b)) for b, _ in _PAPER_SVRG})
            # the smallest β at which (14) admits τ = 20 (a = a_min(20)): 5β² − 4β = 8·22·a_min(20)
            rhs = 8 * 22 * fb.a_min(20.0)
            out["beta_for_svrg_tau_20"] = (4 + math.sqrt(16 + 20 * rhs)) / 10
            return out
        if self.which == "tau-order":
            b1, t1 = fb.beta_min(1.0, 200.0, 0.0, 0.6)
            b2, t2 = fb.beta_min_svrg(1.0, 200.0, 0.0, 0.6)
            return {"beta_sarah": b1, "tau_sarah": t1, "beta_svrg": b2, "tau_svrg": t2}
        betas = (10.0, 20.0, 50.0, 100.0, 200.0, 1e6)
        out = {f"tau_max_svrg_{int(b)}": fb.tau_max_svrg(b) for b in betas}
        b, _ = fb.beta_min_svrg(1.0, 10.0, 0.5, 0.3)
        out["feasible_beta"] = 0.0 if math.isnan(b) else b
        return out

    #: the erratum's predictions (dinh.lem1.svrg notes), computed by hand from (13)-(16), (65)-(66)
    PREDICTIONS = {
        # (5·25 − 20)/8 = 13.125 < 20 (Table 1 SARAH); (5·81 − 36)/8 = 46.125 ≥ 20 (Table 2 SARAH); at β = 10 (14)
        # admits τ ≤ 0.184 only (Tables 1-2 SVRG, τ = 20); τ = 20 needs β ≥ 110.43
        "experiments": {"tau_upper_sarah_5": 13.125, "tau_upper_sarah_9": 46.125, "tau_max_svrg_10": 0.1837,
                        "beta_for_svrg_tau_20": 110.43},
        "tau-order": {"beta_sarah": 15.22, "tau_sarah": 137.2, "beta_svrg": 111.25, "tau_svrg": 20.16},
        # τ_lower is minimised at β = 3 + √(9 + μ²/L²) = 203.02, where it equals 6βL/(θ²μ̃) = 16.92 (by hand)
        "smallest-tau": {"beta_min": 15.22, "tau_at_beta_min": 137.2, "beta_best": 203.02, "tau_smallest": 16.92},
        "svrg-large-beta": {"tau_max_svrg_10": 0.184, "tau_max_svrg_20": 2.140, "tau_max_svrg_50": 8.059,
                            "tau_max_svrg_100": 17.94, "tau_max_svrg_200": 37.70,
                            "tau_max_svrg_1000000": 0.197642 * 1e6, "feasible_beta": 0.0},
    }

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        nums = self._numbers()
        df = pd.DataFrame({"seed": np.asarray(seeds, dtype=np.int64), "round": 0, "iterations": 0, "diverged": False,
                           **{k: np.full(len(seeds), v) for k, v in nums.items()}})
        return records_from_trace(df, claim=self, point_index=0, point=point, metrics=list(nums))

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        nums = {k: float(_per_seed(records, k)[0]) for k in self.PREDICTIONS[self.which]}
        pred = self.PREDICTIONS[self.which]
        matches = all(abs(nums[k] - v) <= 2e-3 * max(abs(v), 1.0) for k, v in pred.items())
        if self.which == "experiments":
            bad = [f"SARAH β = {b}, τ = {t} > {nums[f'tau_upper_sarah_{b}']:.5g}" for b, t in _PAPER_SARAH
                   if t > nums[f"tau_upper_sarah_{b}"]]
            bad += [f"SVRG β = {b}, τ = {t} > {nums[f'tau_max_svrg_{b}']:.4g}" for b, t in _PAPER_SVRG
                    if t > nums[f"tau_max_svrg_{b}"]]
            holds = not bad
            statement = ("§5: the reported configurations (Tables 1-2) choose tau within Lemma 1's upper bound for "
                         "their beta")
            measured = ("outside Lemma 1: " + "; ".join(bad) + f"; SVRG needs β ≥ {nums['beta_for_svrg_tau_20']:.5g}"
                        " for τ = 20") if bad else "every reported configuration satisfies the upper bounds"
        elif self.which == "smallest-tau":
            holds = nums["tau_at_beta_min"] <= nums["tau_smallest"] * (1 + 1e-9)
            statement = "Remark 1(3): beta_min of (15) gives the smallest tau, (16)"
            measured = (f"τ at β_min = {nums['beta_min']:.5g}: {nums['tau_at_beta_min']:.5g}; smallest admissible τ = "
                        f"{nums['tau_smallest']:.5g} at β = {nums['beta_best']:.5g} (L = 1, λ = 0, μ = 200, θ = 0.6)")
        elif self.which == "tau-order":
            holds = nums["tau_svrg"] >= nums["tau_sarah"]
            statement = "Remark 1(5): SVRG has a larger beta_min and thus needs a larger tau than SARAH"
            measured = (f"SARAH (β_min, τ) = ({nums['beta_sarah']:.5g}, {nums['tau_sarah']:.5g}); SVRG "
                        f"({nums['beta_svrg']:.5g}, {nums['tau_svrg']:.5g}) at L = 1, λ = 0, μ = 200, θ = 0.6")
        else:
            holds = nums["feasible_beta"] > 0
            statement = "Remark 1(1): for any theta a sufficiently large beta satisfies (14) (SVRG)"
            measured = (f"τ_max^SVRG(β) = {[round(nums[k], 4) for k in pred if k.startswith('tau')]} at β = 10, 20, "
                        f"50, 100, 200, 1e6; no β ≤ 1e7 feasible at L = 1, λ = 0.5, μ = 10, θ = 0.3"
                        if not holds else f"feasible at β = {nums['feasible_beta']:.5g}")
        res = CheckResult("pass" if holds else "fail", measured, "the paper's statement", "rtol 2e-3 (prediction)",
                          "the statement holds" if holds else "the statement fails")
        from fedrates.verify import margins

        out = self.verdict(res, conditions=[], seeds=_seeds(records), constants=nums, statement=statement,
                           margin=margins.resolution(2e-3))
        if not holds and not matches:
            out["verdict"] = "fail"
            out["message"] = ("the statement fails but the numbers differ from the erratum's prediction "
                              f"{pred}: {nums}")
        return out


# ---- FedProxVR vs FedProx-SGD ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class ComparisonClaim(_DinhClaim):
    """FedProxVR-SARAH reaches a lower F̄ − F̄* than FedProx-SGD at equal sample-gradient work (noisy labels: the
    devices disagree, σ_n = ∞, so no theorem applies; this is the paper's §5 qualitative claim).  Work per device
    and round: SARAH D_n + 2B(τ − 1), SGD B(τ_SGD − 1) with τ_SGD chosen equal."""

    rounds: int = 60
    equal_work: bool = True
    replicas: dict = field(default_factory=lambda: {"quick": 5, "standard": 5, "full": 5})

    def _sgd_tau(self) -> int:
        h = self.hyper
        if not self.equal_work:
            return int(h["tau"])
        return int(self.problem_params["samples"] + 2 * h["batch"] * (h["tau"] - 1)) // h["batch"] + 1

    def points(self, profile: str) -> list[dict]:
        return [{"problem": self.family, **self.problem_params, **self.hyper, "rounds": self.rounds,
                 "tau_sgd": self._sgd_tau(), "index": 0, "replicas": self.replicas[profile]}]

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        problem, consts, ref = self._setup()
        w0 = self._w0(problem)
        vals = {}
        run, label, rep = _replicas(list(seeds), point)
        for name, hyper in ((self.algorithm, self.hyper), ("fedprox_sgd", {**self.hyper, "tau": self._sgd_tau()})):
            _, X = _run_states(_make_alg(self, name, **hyper), problem, self.rounds, run, w0, ref)
            Z = X[-1] - consts.w_star
            vals[name] = 0.5 * np.einsum("rd,de,re->r", Z, consts.Abar, Z)
        return _rows(self, point, label, vals, problem.dim, rnd=self.rounds, replica=rep)

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        problem, consts, ref = self._setup()
        a, b = _per_seed(records, self.algorithm), _per_seed(records, "fedprox_sgd")
        result = checks.comparison(a, b, names=("FedProxVR-SARAH", "FedProx-SGD"))
        return self.verdict(result, conditions=[], seeds=_seeds(records), constants={"L": consts.L, **self.hyper},
                            statement=self.title, reference_gap=ref.gap, smallest_measured=float(min(a.min(),
                                                                                                   b.min())))


# ---- broken variants ---------------------------------------------------------------------------------------------
def _broken_classes() -> dict[str, type]:
    from fedrates.solvers.algorithms.fedprox_sgd import FedProxSGD
    from fedrates.solvers.algorithms.fedproxvr_sarah import FedProxVRSARAH
    from fedrates.solvers.algorithms.fedproxvr_svrg import FedProxVRSVRG
    from fedrates.solvers.problems.finite_sum import sample_gradients

    class SVRGNoCorrection(FedProxVRSVRG):
        """SVRG without the snapshot correction: v_t = ∇f_{I_t}(w_t) (the estimator degenerates to SGD)."""

        def direction(self, fs, W, Wprev, W0, v, v0, clients, idx, problem):
            if idx is None:
                return super().direction(fs, W, Wprev, W0, v, v0, clients, idx, problem)
            return sample_gradients(fs, W, clients, idx)

    class SARAHSnapshotRecursion(FedProxVRSARAH):
        """SARAH recursion on the snapshot gradient: v_t = ∇f_I(w_t) − ∇f_I(w_{t−1}) + v_0."""

        def direction(self, fs, W, Wprev, W0, v, v0, clients, idx, problem):
            return super().direction(fs, W, Wprev, W0, v0, v0, clients, idx, problem)

    class SARAHFreshIndex(FedProxVRSARAH):
        """SARAH correction at a fresh index: ∇f_I(w_t) − ∇f_J(w_{t−1}) + v_{t−1} (unbiased, wrong variance)."""

        def direction(self, fs, W, Wprev, W0, v, v0, clients, idx, problem):
            if idx is None:
                return super().direction(fs, W, Wprev, W0, v, v0, clients, idx, problem)
            other = (idx + 1) % fs.samples
            return sample_gradients(fs, W, clients, idx) - sample_gradients(fs, Wprev, clients, other) + v

    def step_one_over_L(base: type) -> type:
        class StepOverL(base):
            """η = 1/L instead of 1/(βL)."""

            def step_size(self, problem):
                return 1.0 / self.smoothness(problem)

        StepOverL.__name__ = StepOverL.__qualname__ = f"{base.__name__}StepOverL"
        return StepOverL

    def last_iterate(base: type) -> type:
        class Last(base):
            """Returns w^{(τ)} where the analysis needs w^{(t')}, t' ~ U{0..τ}."""

            def __post_init__(self):
                super().__post_init__()
                object.__setattr__(self, "output_rule", "last")

        Last.__name__ = Last.__qualname__ = f"{base.__name__}Last"
        return Last

    def no_prox(base: type) -> type:
        class NoProx(base):
            """The prox of h_s dropped: w ← w − ηv (FedAvg-like local steps)."""

            def prox(self, Z, anchor, eta):
                return Z

        NoProx.__name__ = NoProx.__qualname__ = f"{base.__name__}NoProx"
        return NoProx

    def anchor_zero(base: type) -> type:
        class AnchorZero(base):
            """h_s anchored at 0 instead of w̄^{(s−1)}: prox(x) = x/(1 + ημ) (weight decay, not a proximal term)."""

            def prox(self, Z, anchor, eta):
                return Z / (1.0 + eta * self.mu)

        AnchorZero.__name__ = AnchorZero.__qualname__ = f"{base.__name__}AnchorZero"
        return AnchorZero

    return {
        "sarah-anchor-zero": anchor_zero(FedProxVRSARAH),
        "svrg-anchor-zero": anchor_zero(FedProxVRSVRG),
        "svrg-no-correction": SVRGNoCorrection,
        "sarah-snapshot-recursion": SARAHSnapshotRecursion,
        "sarah-step-1-over-L": step_one_over_L(FedProxVRSARAH),
        "svrg-step-1-over-L": step_one_over_L(FedProxVRSVRG),
        "sgd-step-1-over-L": step_one_over_L(FedProxSGD),
        "sarah-last-iterate": last_iterate(FedProxVRSARAH),
        "svrg-last-iterate": last_iterate(FedProxVRSVRG),
        "svrg-no-prox": no_prox(FedProxVRSVRG),
        "sarah-no-prox": no_prox(FedProxVRSARAH),
        "sarah-fresh-index": SARAHFreshIndex,
    }


@observed_cache
def broken(name: str) -> type:
    """A broken algorithm class of :data:`VARIANTS` by name."""
    return _broken_classes()[name]


def _with(name: str) -> Any:
    return lambda claim: claim.with_algorithm(broken(name))


def _patch_theta_squared() -> Any:
    """Θ of Theorem 1 with θ² where the paper has θ in its first term, 1 − θ²√(2(1 + σ̄²)) − ..."""
    from unittest import mock

    from fedrates.bounds import fedproxvr as fb

    original = fb.Theta

    def wrong(L, lam, mu, theta, sigma_bar_sq):
        value = original(L, lam, mu, theta, sigma_bar_sq)
        if not np.isfinite(sigma_bar_sq):
            return value
        return value + theta * (1 - theta) * math.sqrt(2 * (1 + sigma_bar_sq)) / mu

    return mock.patch.object(fb, "Theta", wrong)


def _patch_theta_half_L() -> Any:
    """Θ of Theorem 1 with L/2 in place of L (e.g. a smoothness constant taken as λ_max/2)."""
    from unittest import mock

    from fedrates.bounds import fedproxvr as fb

    original = fb.Theta
    return mock.patch.object(fb, "Theta", lambda L, lam, mu, theta, sigma_bar_sq: original(L / 2, lam, mu, theta,
                                                                                          sigma_bar_sq))


def _patch_a_min_linear() -> Any:
    """a_min(τ) = 16(τ + 1) (the leading term) instead of 4(√(τ+1) + √(τ+2))²."""
    from unittest import mock

    from fedrates.bounds import fedproxvr as fb

    return mock.patch.object(fb, "a_min", lambda tau: 16.0 * (tau + 1))


def _patch_tau_upper_no_8() -> Any:
    """SARAH's upper bound (13) without its denominator 8: τ ≤ 5β² − 4β."""
    from unittest import mock

    from fedrates.bounds import fedproxvr as fb

    return mock.patch.object(fb, "tau_upper_sarah", lambda beta: 5 * beta**2 - 4 * beta)


def _patch_L_of_F() -> Any:
    """The smoothness of F_n (max_n λ_max(A_n)) used where (3) needs the per-sample constant max_i‖Q_i‖₂."""
    from contextlib import contextmanager
    from unittest import mock

    from fedrates.solvers import fedproxvr_constants

    original = fedproxvr_constants.compute

    @contextmanager
    def ctx():
        _instance.cache_clear()
        with mock.patch.object(fedproxvr_constants, "compute",
                               lambda problem, w0=None: dataclasses.replace(c := original(problem, w0), L=c.L_F)):
            yield
        _instance.cache_clear()

    return ctx()


def _patch_tau_lower_theta() -> Any:
    """τ_lower with θ where (13) has θ²."""
    from unittest import mock

    from fedrates.bounds import fedproxvr as fb

    original = fb.tau_lower
    return mock.patch.object(fb, "tau_lower", lambda beta, L, mu, lam, theta: original(beta, L, mu, lam,
                                                                                       math.sqrt(theta)))


def _patch_tau_lower_beta_linear() -> Any:
    """τ_lower of (13) with βL² in place of β²L² in its numerator."""
    from unittest import mock

    from fedrates.bounds import fedproxvr as fb

    return mock.patch.object(fb, "tau_lower", lambda beta, L, mu, lam, theta: 3 * (beta * L**2 + mu**2)
                             / (theta**2 * (mu - lam) * L * (beta - 3)))


VARIANTS: tuple[BrokenVariant, ...] = (
    BrokenVariant("fedproxvr_svrg/no-snapshot-correction", "algorithm",
                  "SVRG estimator without the snapshot correction −∇f_I(w⁽⁰⁾) + v⁽⁰⁾ (plain SGD)",
                  ("dinh.alg1/cov-svrg",), apply=_with("svrg-no-correction")),
    BrokenVariant("fedproxvr_sarah/snapshot-recursion", "algorithm",
                  "SARAH recursion adds the snapshot gradient v⁽⁰⁾ instead of v⁽ᵗ⁻¹⁾",
                  ("dinh.alg1/mean-sarah", "dinh.alg1/mean-sarah-nc"), apply=_with("sarah-snapshot-recursion")),
    BrokenVariant("fedproxvr_sarah/fresh-index", "algorithm",
                  "SARAH correction −∇f_J(w⁽ᵗ⁻¹⁾) evaluated at another sample than ∇f_I(w⁽ᵗ⁾)",
                  ("dinh.alg1/cov-sarah", "dinh.compare/*"), apply=_with("sarah-fresh-index")),
    BrokenVariant("fedproxvr_sarah/step-1-over-L", "algorithm", "local step 1/L instead of 1/(βL)",
                  ("dinh.alg1/mean-sarah", "dinh.lem1/sarah"), apply=_with("sarah-step-1-over-L")),
    BrokenVariant("fedproxvr_svrg/step-1-over-L", "algorithm", "local step 1/L instead of 1/(βL)",
                  ("dinh.alg1/mean-svrg", "dinh.lem1/svrg"), apply=_with("svrg-step-1-over-L")),
    BrokenVariant("fedprox_sgd/step-1-over-L", "algorithm", "local step 1/L instead of 1/(βL)",
                  ("dinh.alg1/mean-sgd", "dinh.alg1/cov-sgd"), apply=_with("sgd-step-1-over-L")),
    BrokenVariant("fedproxvr_sarah/anchor-zero", "algorithm",
                  "proximal term anchored at 0 (weight decay) instead of at the server point w̄^{(s−1)}",
                  ("dinh.alg1/limit-sarah", "dinh.lem2/*"), apply=_with("sarah-anchor-zero")),
    BrokenVariant("fedproxvr_svrg/anchor-zero", "algorithm",
                  "proximal term anchored at 0 (weight decay) instead of at the server point w̄^{(s−1)}",
                  ("dinh.alg1/limit-svrg",), apply=_with("svrg-anchor-zero")),
    BrokenVariant("fedproxvr_sarah/no-prox", "algorithm", "the prox of h_s dropped (plain local steps)",
                  ("dinh.alg1/inner-sarah", "dinh.thm1*/sarah", "dinh.cor1/sarah", "dinh.pl/sarah", "dinh.lem3/sarah",
                   "dinh.tradeoff/mu"),
                  apply=_with("sarah-no-prox")),
    BrokenVariant("fedproxvr_sarah/last-iterate", "algorithm",
                  "returns the last local iterate w⁽τ⁾ where the analysis draws t' ~ U{0..τ}",
                  ("dinh.alg1/mean-sarah", "dinh.lem1/sarah", "dinh.tradeoff/tau"),
                  apply=_with("sarah-last-iterate")),
    BrokenVariant("fedproxvr_svrg/last-iterate", "algorithm",
                  "returns the last local iterate w⁽τ⁾ where the analysis draws t' ~ U{0..τ}",
                  ("dinh.alg1/mean-svrg",), apply=_with("svrg-last-iterate")),
    BrokenVariant("fedproxvr_svrg/no-prox", "algorithm", "the prox of h_s dropped (plain local steps)",
                  ("dinh.alg1/mean-svrg", "dinh.alg1/inner-svrg"), apply=_with("svrg-no-prox")),
    BrokenVariant("constants/Theta-theta-squared", "constants", "Θ with θ² in place of θ in its first term",
                  ("dinh.thm1.eq86/adversarial", "dinh.thm1.eq86/adversarial-nc"), patch=_patch_theta_squared),
    BrokenVariant("constants/a-min-linear", "constants", "a_min(τ) of (65) replaced by its leading term 16(τ + 1)",
                  ("dinh.rem1/svrg-large-beta", "dinh.exp/lemma1-configs"), patch=_patch_a_min_linear),
    BrokenVariant("constants/tau-upper-no-8", "constants", "SARAH's upper bound (13) without its denominator 8",
                  ("dinh.exp/lemma1-configs",), patch=_patch_tau_upper_no_8),
    BrokenVariant("constants/Theta-half-L", "constants", "Θ evaluated with L/2 in place of L in its L/μ̃ terms",
                  ("dinh.thm1.eq86/adversarial-argmax",), patch=_patch_theta_half_L),
    BrokenVariant("constants/L-of-F", "constants", "L of (3) taken as the smoothness of F_n instead of max_i‖∇²f_i‖",
                  ("dinh.eq35/*",), patch=_patch_L_of_F),
    BrokenVariant("constants/tau-lower-theta", "constants", "τ_lower of (13) with θ in place of θ²",
                  ("dinh.rem1/tau-order",), patch=_patch_tau_lower_theta),
    BrokenVariant("constants/tau-lower-beta-linear", "constants", "τ_lower of (13) with βL² in place of β²L²",
                  ("dinh.rem1/smallest-tau",), patch=_patch_tau_lower_beta_linear),
)


def _ERRATUM(key: str) -> Any:  # noqa: N802
    from fedrates.bounds import dinh_errata

    return dinh_errata.erratum(key)


# ---- the catalogue -------------------------------------------------------------------------------------------
_EXACT_REGIME = ("Realisable finite-sum least squares (N = 3 devices, D_n = 4, d = 2, heterogeneous covariances): "
                 "every sample gradient vanishes at w*, so the round is linear with random coefficients and its "
                 "moments are exact.")
_EXACT_WHY = "exact expectation from the update rules, checked two-sided at 99.9% family-wise confidence"
_MEAN_HYPER = {"beta": 4.0, "mu": 2.0, "tau": 10, "batch": 2}
_COV_HYPER = {"beta": 3.5, "mu": 1.0, "tau": 10, "batch": 1}
_LIMIT_HYPER = {"beta": 5.0, "mu": 2.0, "tau": 10, "batch": 1}
_THEORY_REGIME = ("Realisable least squares (N = 3, D_n = 6, d = 2); θ = 0.3, μ = argmax Θ, β = 1.05β_min of (15), "
                  "τ = ⌈τ_lower(β)⌉: every condition of Lemma 1(a) and Theorem 1 holds with the exact constants "
                  "(L = max_i‖x_i‖², λ = 0⁺, σ̄² = Σp_n‖(A_n − Ā)Ā⁻¹‖²).")

_NC_REGIME = ("Non-convex quadratics (N = 2, D_n = 4, d = 2, one device indefinite: λ = 0.64 > 0, σ̄² = 7.5); θ = 0.1 "
              "(Θ > 0 needs θ < 0.24 here), μ = argmax Θ, β = 1.05β_min, τ = ⌈τ_lower⌉: Lemma 1(a) and Theorem 1's "
              "conditions hold with the exact constants.")
_SVRG_REGIME = ("Realisable least squares, homogeneous devices with unequal sizes D_n = (32, 16, 32) (N = 3, d = 2, "
                "σ̄² = 0.16, so that θ = 0.6 keeps Θ > 0 possible); θ = 0.6 (Lemma 1(b) needs θ²μ̃/L > 15.18), "
                "μ = argmax Θ, β = 1.02× the smallest SVRG-feasible β, τ = ⌈τ_lower⌉.")
#: Theorem 1 in its sharp regime (sharp_config): θ = 0.2, μ = 20L, T from nm_factor = 1.5
_SHARP = {"theta": 0.2, "mu_factor": 20.0, "nm_factor": 1.5, "replicas": {"quick": 40, "standard": 60, "full": 60}}
_SHARP_REGIME = ("Realisable least squares with unequal sizes D_n = (12, 6, 12) (N = 3, d = 2, p = (0.4, 0.2, 0.4)); "
                 "θ = 0.2, μ = 20L, β = 3 + √(9 + μ²/L²) (the minimiser of τ_lower), τ = ⌈τ_lower(β)⌉ = 175, "
                 "T = ⌈1.5Δ/(Θ‖∇F̄(w̄⁰)‖²)⌉ = 183 rounds: every condition of Lemma 1(a) and Theorem 1 holds, and a "
                 "local solver that never moves exceeds the bound by 1.5×.")
_SHARP_WHY = (_EXACT_WHY + "; then the exact expectation and the Monte-Carlo mean against the bound (bound within a "
              "few × of the data; a never-moving solver fails it)")


def _exact_claims(est: str) -> tuple[Claim, ...]:
    alg = _ALG_NAME[est]
    label = {"sarah": "FedProxVR-SARAH", "svrg": "FedProxVR-SVRG", "sgd": "FedProx-SGD"}[est]
    out = [
        MeanClaim(id=f"dinh.alg1/mean-{est}", theorem="dinh.alg1", algorithm=alg, problem="dinh_ls",
                  title=f"{label}: E[w̄^(s)] equals the exact mean of Algorithm 1 (s = 1, 2, 3; B = 2)",
                  regime=_EXACT_REGIME, why=_EXACT_WHY, metric="proj_round", x="round", hyper=dict(_MEAN_HYPER),
                  n_seeds={"quick": 3, "standard": 6, "full": 10}),
        CovarianceClaim(id=f"dinh.alg1/cov-{est}", theorem="dinh.alg1", algorithm=alg, problem="dinh_ls",
                        title=f"{label}: E‖w̄^(1) − E w̄^(1)‖² equals the exact covariance trace (B = 1)",
                        regime=_EXACT_REGIME, why=_EXACT_WHY, metric="centred_sq", x="round",
                        hyper=dict(_COV_HYPER), n_seeds={"quick": 5, "standard": 8, "full": 20}),
    ]
    if est != "sgd":
        out += [
            LimitClaim(id=f"dinh.alg1/limit-{est}", theorem="dinh.alg1", algorithm=alg, problem="dinh_ls",
                       title=f"{label}: stochastic runs reach w* to 1e-9 on every seed (realisable instance)",
                       regime=_EXACT_REGIME, why="variance reduction: every sample gradient vanishes at w*",
                       metric="relative_distance", x="round", hyper=dict(_LIMIT_HYPER),
                       n_seeds={"quick": 2, "standard": 8, "full": 20}),
            InnerClosedFormClaim(id=f"dinh.alg1/inner-{est}", theorem="dinh.alg1", algorithm=alg, problem="dinh_ls",
                                 title=f"{label}: with exact gradients one round equals Σ p_n argmin J_n",
                                 regime="Noisy least squares (devices disagree), exact gradients, last local iterate, "
                                        "τ from the contraction factor.",
                                 why="closed-form minimiser (A_n + μI)⁻¹(b_n + μw̄) of the proximal surrogate",
                                 metric="relative_error", x="round", family="dinh_ls",
                                 problem_params=dict(NOISY_LS), hyper={"beta": 4.0, "mu": 2.0, "batch": 1},
                                 n_seeds={"quick": 1, "standard": 1, "full": 1}),
        ]
    return tuple(out)


CLAIMS: tuple[Claim, ...] = (
    *_exact_claims("sarah"), *_exact_claims("svrg"), *_exact_claims("sgd"),
    *(MeanClaim(id=f"dinh.alg1/mean-{est}-unequal", theorem="dinh.alg1", algorithm=_ALG_NAME[est], problem="dinh_ls",
                title=f"FedProxVR-{est.upper()}: E[w̄^(s)] equals the exact mean with unequal D_n (p = (4, 2, 1)/7)",
                regime="Realisable least squares with unequal sizes D_n = (8, 4, 2) (N = 3, d = 2): the server average "
                       "and the objective weight devices by D_n/D; β = 4, μ = 2, τ = 10, B = 2, s = 1, 2, 3.",
                why=_EXACT_WHY, metric="proj_round", x="round", problem_params=dict(UNEQUAL_LS),
                hyper=dict(_MEAN_HYPER), n_seeds={"quick": 3, "standard": 6, "full": 10})
      for est in ("sarah", "svrg")),
    MeanClaim(id="dinh.alg1/mean-sarah-nc", theorem="dinh.alg1", algorithm="fedproxvr_sarah", problem="dinh_nc",
              family="dinh_nc", title="FedProxVR-SARAH on non-convex devices: E[w̄^(s)] equals the exact mean",
              regime="Non-convex quadratics (N = 2, D_n = 4, d = 2, one device indefinite, λ = 0.64); β = 4, "
                     "μ = λ + 2, τ = 10, B = 2, s = 1, 2, 3.",
              why=_EXACT_WHY, metric="proj_round", x="round", problem_params=dict(EXACT_NC),
              hyper={**_MEAN_HYPER, "mu": 2.7}, n_seeds={"quick": 3, "standard": 6, "full": 10}),
    Lemma1Claim(id="dinh.lem1/sarah", theorem="dinh.lem1", algorithm="fedproxvr_sarah", problem="dinh_ls",
                title="Lemma 1(a): FedProxVR-SARAH at τ = ⌈τ_lower⌉ is θ-accurate, E‖∇J_n‖² ≤ θ²‖∇F_n(w̄)‖²",
                regime=_THEORY_REGIME.replace("Theorem 1", "(13)"), why=_EXACT_WHY + "; then exact vs θ² and (53)",
                metric="local_grad_norm_sq_ratio", x="device", problem_params=dict(THEORY_LS),
                n_seeds={"quick": 4, "standard": 6, "full": 10}),
    Lemma1Claim(id="dinh.lem1/svrg", theorem="dinh.lem1.svrg", algorithm="fedproxvr_svrg", problem="dinh_ls",
                title="Lemma 1(b): FedProxVR-SVRG at τ = ⌈τ_lower⌉ is θ-accurate (θ = 0.6, SVRG-feasible β)",
                regime="Realisable least squares (N = 3, D_n = 6, d = 2); θ = 0.6 (θ²μ̃/L > 15.18 is needed for "
                       "SVRG), μ = the grid point of largest Θ (Θ < 0 on the whole grid at θ = 0.6: Lemma 1 does "
                       "not involve Θ), β = 1.02× the smallest β with τ_lower ≤ τ_max^SVRG(β).",
                informational=("Lemma 1(b) is feasible only for θ²μ̃/L > 15.18 (Remark 1(1) erratum), where τ_lower "
                               "is far above what SVRG needs: E‖∇J_n‖²/‖∇F_n‖² is ~45× below θ²; the exact law is "
                               "still checked two-sided, and dinh.lem1/sarah is the sharp Lemma 1 claim"),
                why=_EXACT_WHY + "; then exact vs θ²", metric="local_grad_norm_sq_ratio", x="device",
                problem_params=dict(THEORY_LS), theta=0.6, estimator="svrg",
                n_seeds={"quick": 3, "standard": 6, "full": 10}),
    *(Lemma2Claim(id=f"dinh.lem2/{fam}", theorem="dinh.lem2", algorithm="fedproxvr_sarah", problem=fam,
                  title=f"Lemma 2: ‖∇J_n(w)‖² ≤ 2(μ²η² + 1)‖G_n(w)‖² at random w ({fam})",
                  regime="64 random points and anchors per device; β = 4, μ = 2 (dinh_ls) or λ + 2 (dinh_nc).",
                  why="deterministic inequality with the algorithm's own prox and step", metric="lhs", x="point",
                  family=fam, problem_params=dict(params), hyper={"beta": 4.0, "mu": mu, "tau": 2},
                  n_seeds={"quick": 1, "standard": 1, "full": 1})
      for fam, params, mu in (("dinh_ls", EXACT_LS, 2.0), ("dinh_nc", EXACT_NC, 2.7))),
    *(EstimatorErrorClaim(
        id=f"dinh.eq35/{est}", theorem="dinh.eq35", algorithm=_ALG_NAME[est], problem="dinh_ls",
        title=f"({'35' if est == 'svrg' else '33'}): {est.upper()} estimator error ≤ L² × step term at every step",
        regime="Realisable least squares (N = 3, D_n = 6, d = 2); β = 3.5, μ = 1, τ = 10, B = 1; exact expectations.",
        why="both sides exact from the update rules; L = max_i‖x_i‖² as in (3)", metric="error", x="step",
        problem_params=dict(THEORY_LS), hyper={"beta": 3.5, "mu": 1.0, "tau": 10, "batch": 1}, estimator=est,
        n_seeds={"quick": 1, "standard": 1, "full": 1}) for est in ("svrg", "sarah")),
    TauTradeoffClaim(id="dinh.tradeoff/tau", theorem="dinh.lem1.eq53", algorithm="fedproxvr_sarah",
                     problem="dinh_ls", title="Remark 1(2): the local accuracy improves with τ and stays below (53)",
                     regime=_THEORY_REGIME + " τ ∈ {1/8, 1/4, 1/2, 1} × ⌈τ_lower⌉, device 0.",
                     why=_EXACT_WHY, metric="local_grad_norm_sq_ratio", x="local_steps",
                     problem_params=dict(THEORY_LS), n_seeds={"quick": 4, "standard": 5, "full": 10}),
    MuTradeoffClaim(id="dinh.tradeoff/mu", theorem="dinh.thm1", algorithm="fedproxvr_sarah", problem="dinh_ls",
                    title="Remark 2(2): rounds to ε grow linearly in μ (μ ≫ L)",
                    regime="Realisable least squares (N = 3, D_n = 6, d = 2); β = 10, τ = 60, B = 1, μ ∈ {8, 16, 32, "
                           "64}·L_F, ε = 1e-2 of the initial gap.",
                    why="exact T_ε from the moment recursion after checking the algorithm's law", metric="gap",
                    x="mu", problem_params=dict(THEORY_LS), hyper={"beta": 10.0, "tau": 60, "batch": 1},
                    n_seeds={"quick": 4, "standard": 6, "full": 10}),
    AdversarialDescentClaim(
        id="dinh.thm1.eq86/adversarial", theorem="dinh.thm1.eq86", algorithm="oracle", problem="dinh_ls",
        title="(86): one round with any θ-inexact local solutions decreases F̄ by ≥ Θ‖∇F̄‖² (adversarial oracle)",
        regime="Realisable least squares (N = 3, D_n = 6, d = 2), 64 directions w̄ − w*, θ = 0.05, μ = 100 × "
               "argmax Θ with L = L_F (smoothness of F_n, what the proof uses).",
        why="deterministic worst case of (11′): the bound is within a few % of it, so a wrong constant shows",
        metric="decrease", x="point", problem_params=dict(THEORY_LS), n_seeds={"quick": 1, "standard": 1, "full": 1}),
    AdversarialDescentClaim(
        id="dinh.thm1.eq86/adversarial-nc", theorem="dinh.thm1.eq86", algorithm="oracle", problem="dinh_nc",
        title="(86) on non-convex devices (indefinite A_n, λ > 0) with adversarial θ-inexact local solutions",
        regime="Non-convex quadratics (N = 2, D_n = 4, d = 2, one device indefinite), 64 directions, θ = 0.05, "
               "μ = 100 × argmax Θ, L = L_F.",
        why="the theorem's non-convex case: μ̃ = μ − λ with the exact weak-convexity modulus", metric="decrease",
        x="point", family="dinh_nc", problem_params=dict(EXACT_NC), n_seeds={"quick": 1, "standard": 1, "full": 1}),
    *(AdversarialDescentClaim(
        id=f"dinh.thm1.eq86/adversarial-argmax{sfx}", theorem="dinh.thm1.eq86", algorithm="oracle", problem=fam,
        title=f"(86) at μ = argmax Θ, where its L/μ̃ terms weigh most (adversarial θ-inexact oracle{label})",
        regime=f"{reg}, 64 directions, θ = 0.05, μ = argmax Θ with L = L_F: the L/μ̃ and Lμ/μ̃² terms of Θ are "
               "about half of 1 − θ√(2(1 + σ̄²)), so a wrong L, λ or σ̄² moves the bound.",
        why="deterministic worst case of (11′) at the point where Θ depends most on L and λ", metric="decrease",
        x="point", family=fam, problem_params=dict(params), mu_factor=1.0,
        n_seeds={"quick": 1, "standard": 1, "full": 1})
      for sfx, fam, params, label, reg in (
          ("", "dinh_ls", THEORY_LS, "", "Realisable least squares (N = 3, D_n = 6, d = 2)"),
          ("-nc", "dinh_nc", EXACT_NC, ", non-convex devices",
           "Non-convex quadratics (N = 2, D_n = 4, d = 2, one device indefinite)"))),
    TheoremClaim(id="dinh.thm1.eq86/sarah", theorem="dinh.thm1.eq86", algorithm="fedproxvr_sarah", problem="dinh_ls",
                 title="(86): FedProxVR-SARAH's first round decreases E F̄ by ≥ Θ‖∇F̄(w̄⁰)‖²",
                 regime=_THEORY_REGIME, why=_EXACT_WHY, metric="gap", x="round", problem_params=dict(THEORY_LS),
                 quantity="descent", n_seeds={"quick": 4, "standard": 8, "full": 16}),
    TheoremClaim(id="dinh.thm1.eq86/sarah-nc", theorem="dinh.thm1.eq86", algorithm="fedproxvr_sarah",
                 problem="dinh_nc", family="dinh_nc",
                 title="(86) on non-convex devices: FedProxVR-SARAH's first round decreases E F̄ by ≥ Θ‖∇F̄(w̄⁰)‖²",
                 regime=_NC_REGIME, why=_EXACT_WHY, metric="gap", x="round", problem_params=dict(EXACT_NC),
                 quantity="descent", theta=0.1, T=1, law_check=False, n_seeds={"quick": 4, "standard": 8, "full": 16}),
    TheoremClaim(id="dinh.thm1.corrected/sarah-nc", theorem="dinh.thm1.corrected", algorithm="fedproxvr_sarah",
                 problem="dinh_nc", family="dinh_nc",
                 title="Theorem 1 on non-convex devices (s = 0..T−1): average E‖∇F̄‖² ≤ Δ/(ΘT)",
                 regime=_NC_REGIME + " T = 12.", why=_EXACT_WHY, metric="grad_sq", x="round",
                 problem_params=dict(EXACT_NC), quantity="avg0", theta=0.1, T=12, law_check=False,
                 informational=("σ̄² = 7.5 on the non-convex instance forces θ < 0.24 and τ ≈ 800, and Θ ≈ 0.3/μ: "
                                "the sharp regime needs hundreds of rounds of 800 steps; the bound is ~58× above the "
                                "data at T = 12 (sharp: dinh.thm1.eq86/sarah-nc, 3.3×, and dinh.thm1.corrected/sarah)"),
                 replicas={"quick": 20, "standard": 40, "full": 60}, n_seeds={"quick": 4, "standard": 4, "full": 8}),
    *(TheoremClaim(id=f"dinh.{thm.removeprefix('dinh.')}/svrg", theorem=thm, algorithm="fedproxvr_svrg",
                   problem="dinh_ls", title=title, regime=_SVRG_REGIME, why=_EXACT_WHY, metric=metric, x="round",
                   problem_params=dict(SVRG_LS), quantity=q, theta=0.6, T=T,
                   informational=("SVRG's Lemma 1(b) needs θ²μ̃/L > 15.18 (θ = 0.6, μ > 42L) and Θ > 0 needs "
                                  "θ < 1/√(2(1 + σ̄²)): then Θμ ≤ 1 − 0.6√(2(1 + σ̄²)) ≈ 0.07 here, so Θ‖∇F̄‖² is "
                                  "≥ 14× below a gradient step's decrease; the exact law is still checked two-sided"),
                   n_seeds={"quick": 4, "standard": 8, "full": 16})
      for thm, q, T, metric, title in (
          ("dinh.thm1.eq86", "descent", 1, "gap",
           "(86) with FedProxVR-SVRG: the first round decreases E F̄ by ≥ Θ‖∇F̄(w̄⁰)‖²"),
          ("dinh.thm1.corrected", "avg0", 12, "grad_sq",
           "Theorem 1 with FedProxVR-SVRG (s = 0..T−1): average E‖∇F̄‖² ≤ Δ/(ΘT)"))),
    TheoremClaim(id="dinh.lem3/sarah", theorem="dinh.lem3", algorithm="fedproxvr_sarah", problem="dinh_ls",
                 title="Lemma 3: E‖w̄^(1) − w̄^(0)‖² ≤ 4(1 + θ²)(1 + σ̄²)/μ̃² ‖∇F̄(w̄^(0))‖²", regime=_THEORY_REGIME,
                 why=_EXACT_WHY, metric="step_sq", x="round", problem_params=dict(THEORY_LS), quantity="lem3",
                 n_seeds={"quick": 4, "standard": 8, "full": 16}),
    TheoremClaim(id="dinh.thm1.corrected/sarah", theorem="dinh.thm1.corrected", algorithm="fedproxvr_sarah",
                 problem="dinh_ls", title="Theorem 1 (proved range s = 0..T−1): average E‖∇F̄‖² ≤ Δ/(ΘT)",
                 regime=_SHARP_REGIME, why=_SHARP_WHY, metric="grad_sq", x="round",
                 problem_params=dict(THEOREM_LS), quantity="avg0", **_SHARP,
                 n_seeds={"quick": 4, "standard": 8, "full": 16}),
    TheoremClaim(id="dinh.thm1/sarah", theorem="dinh.thm1", algorithm="fedproxvr_sarah", problem="dinh_ls",
                 title="Theorem 1 as printed (s = 1..T): average E‖∇F̄‖² ≤ Δ/(ΘT)", regime=_SHARP_REGIME,
                 why=_SHARP_WHY, metric="grad_sq", x="round", problem_params=dict(THEOREM_LS), quantity="avg1",
                 **_SHARP, n_seeds={"quick": 4, "standard": 8, "full": 16}),
    TheoremClaim(id="dinh.cor1/sarah", theorem="dinh.cor1", algorithm="fedproxvr_sarah", problem="dinh_ls",
                 title="Corollary 1: ε-accuracy within ⌈Δ/(Θε)⌉ rounds (ε = Δ/(ΘT), not met at the start point)",
                 regime=_SHARP_REGIME, why=_SHARP_WHY, metric="grad_sq", x="round", problem_params=dict(THEOREM_LS),
                 quantity="cor1", **_SHARP, n_seeds={"quick": 4, "standard": 8, "full": 16}),
    TheoremClaim(id="dinh.pl/sarah", theorem="dinh.pl", algorithm="fedproxvr_sarah", problem="dinh_ls",
                 title="Derived PL rate: E[F̄(w̄^(s)) − F̄*] ≤ (1 − 2mΘ)^s Δ against the closed-form optimum",
                 regime=_THEORY_REGIME, why=_EXACT_WHY + "; (86) with the PL inequality ‖∇F̄‖² ≥ 2m(F̄ − F̄*)",
                 metric="gap", x="round", problem_params=dict(THEORY_LS), quantity="pl",
                 n_seeds={"quick": 4, "standard": 8, "full": 16}),
    RemarkClaim(id="dinh.rem1/tau-order", theorem="dinh.lem1.svrg", algorithm="formulas", problem="formulas",
                reference_free="formulas of the paper, no run",
                title="Remark 1(5): SVRG needs a larger τ than SARAH at β_min", regime="L = 1, λ = 0, μ = 200, θ = 0.6",
                why="the paper's own formulas (13)-(16), (65)-(66)", metric="tau", x="algorithm",
                which="tau-order", n_seeds={"quick": 1, "standard": 1, "full": 1},
                erratum=_ERRATUM("tau-order")),
    RemarkClaim(id="dinh.rem1/svrg-large-beta", theorem="dinh.lem1.svrg", algorithm="formulas", problem="formulas",
                reference_free="formulas of the paper, no run",
                title="Remark 1(1): a large β satisfies (14) for any θ (SVRG)",
                regime="L = 1, λ = 0.5, μ = 10, θ = 0.3", why="the paper's own formulas (14), (65)-(66)",
                metric="tau_max_svrg", x="beta", which="svrg-large-beta",
                n_seeds={"quick": 1, "standard": 1, "full": 1},
                erratum=_ERRATUM("svrg-large-beta")),
    RemarkClaim(id="dinh.rem1/smallest-tau", theorem="dinh.rem1.3", algorithm="formulas", problem="formulas",
                reference_free="formulas of the paper, no run",
                title="Remark 1(3): β_min of (15) gives the smallest number of local iterations τ, (16)",
                regime="L = 1, λ = 0, μ = 200, θ = 0.6", why="the paper's own formulas (13), (15)-(16)",
                metric="tau", x="beta", which="smallest-tau", n_seeds={"quick": 1, "standard": 1, "full": 1},
                erratum=_ERRATUM("smallest-tau")),
    RemarkClaim(id="dinh.exp/lemma1-configs", theorem="dinh.lem1", algorithm="formulas", problem="formulas",
                reference_free="formulas of the paper at the printed configurations, no run",
                title="§5: the reported configurations (Tables 1-2) keep τ within Lemma 1's upper bound for their β",
                regime="Tables 1-2 as printed: SARAH (β, τ) = (5, 20), (9, 20); SVRG (10, 20)",
                why="the upper bounds (13), (14) depend on β only", metric="tau_upper", x="configuration",
                which="experiments", n_seeds={"quick": 1, "standard": 1, "full": 1},
                erratum=_ERRATUM("experiments")),
    ComparisonClaim(id="dinh.compare/equal-tau", theorem="dinh.sec5", algorithm="fedproxvr_sarah",
                    problem="dinh_ls", title="FedProxVR-SARAH beats FedProx-SGD at equal (β, μ, τ, B) (§5 setting)",
                    regime="Least squares with label noise 0.5 (N = 4, D_n = 16, d = 4): devices disagree (σ_n = ∞, "
                           "no theorem applies); β = 4, μ = 0.5, τ = 20, B = 1, 60 rounds.",
                    why="the paper's §5 claim, paired over seeds", metric="objective_gap", x="algorithm",
                    problem_params=dict(NOISY_LS), hyper={"beta": 4.0, "mu": 0.5, "tau": 20, "batch": 1},
                    equal_work=False, n_seeds={"quick": 5, "standard": 8, "full": 16}),
    ComparisonClaim(id="dinh.compare/equal-work", theorem="dinh.sec5", algorithm="fedproxvr_sarah",
                    problem="dinh_ls", title="FedProxVR-SARAH beats FedProx-SGD at equal sample-gradient work",
                    regime="As dinh.compare/equal-tau, with FedProx-SGD given τ_SGD = D_n + 2(τ − 1) + 1 = 55 local "
                           "steps (the sample gradients of one SARAH round).",
                    why="equal work is the fair comparison for a variance-reduced method", metric="objective_gap",
                    x="algorithm", problem_params=dict(NOISY_LS), hyper={"beta": 4.0, "mu": 0.5, "tau": 20, "batch": 1},
                    n_seeds={"quick": 4, "standard": 8, "full": 16}),
)
