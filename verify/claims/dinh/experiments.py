"""Claims of Dinh et al., "Federated Learning with Proximal Stochastic Variance Reduced Gradient Algorithms" (ICPP
2020) on the paper's own synthetic setting: the "Synthetic" federation of §5
(:mod:`fedrates.solvers.problems.dinh_synthetic`, multinomial logistic regression, power-law sizes, two labels per
device; verification instance ``dinh-synthetic-small`` with a documented ``scale`` and ℓ2 term).

Assumption (5) fails on it (the devices' minimisers differ), so no theorem applies; the claims are the paper's
qualitative §5 statements, made falsifiable against the certified optimum F̄* (Newton, gap ‖∇F̄‖²/(2ρ)):

* ``dinh.sec5/synthetic-equal-work``  FedProxVR-SVRG ends below FedProx-SGD at equal sample-gradient work
  (paired over seeds): "FedProxVR can boost convergence speed compared to SGD-based approaches".
* ``dinh.fig2/tau-above-bound``  Fig. 2: with τ above Lemma 1(a)'s upper bound for its β the learning curve
  fluctuates more (mean |ΔF̄| over the last rounds, paired over seeds; FedProxVR-SARAH, β = 4, τ = 6 vs 48).
* ``dinh.fig4/mu-tradeoff``  Fig. 4: without the proximal term (μ → 0⁺) FedProxVR does not converge, μ > 0 lets it
  converge, and a larger μ converges more slowly.  Measured: (a) at round 5 the gap increases strictly with μ over
  {0⁺, 0.5, 2} (paired, each step significant); (b) at the last round μ = 2 ends strictly below μ = 0⁺ (paired).

Step size: the paper's Fig. 4 sets η = 0.3 directly in its code (the β of §5 are labels, not 1/(ηL) with the true L:
digest I-27); here η = 1/(βL_nom) with β = 4 and a nominal L_nom = 1/(4·0.3), i.e. η = 0.3, τ = 20, B = 1 as in
Fig. 4.  The worst-case L of (3) (max_i‖x̃_i‖²/2 + ρ ≈ 24) would give η < 0.014 and nothing visible in 20 rounds.
What we see at μ → 0⁺: the gap drops fastest at first, then stalls (client drift: ≈ 0.36 from round 15 on, 1.25× the
μ = 2 gap at round 20 and 2.3× at round 40); it does not blow up.  The paper reports divergence; the claim tests
non-convergence, not divergence to infinity.

§5's comparison with FedProx-SGD, on least squares with label noise (``dinh_ls``, devices disagree, σ_n = ∞):

* ``dinh.compare/equal-tau``, ``dinh.compare/equal-work``  FedProxVR-SARAH reaches a lower F̄ − F̄* than FedProx-SGD
  at equal (β, μ, τ, B) and at equal sample-gradient work (paired over seeds).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fedrates._lazy import lazy_import
from fedrates.solvers.certify import observed_cache
from fedrates.verify import checks
from fedrates.verify.checks import CheckResult
from fedrates.verify.claims.base import Claim, records_from_trace
from fedrates.verify.claims.dinh._checks import _DinhClaim, _make_alg, _per_seed, _replicas, _rows, _run_states, _seeds
from fedrates.verify.claims.dinh.instances import NOISY_LS

pd = lazy_import("pandas")  # imported on first use: listing and refusing stay fast

__all__ = ["CLAIMS", "PRESET", "instance", "ComparisonClaim"]

PRESET = "dinh-synthetic-small"
PARAMS = {"scale": 0.05}
#: the paper's Fig. 4 step η = 0.3, written as η = 1/(βL_nom) with β = 4
ETA = 0.3
FIG4 = {"beta": 4.0, "L": 1.0 / (4.0 * ETA), "tau": 20, "batch": 1}


@observed_cache
def instance() -> tuple[Any, Any]:
    """(problem, certified reference) of the verification instance (cached per process)."""
    from fedrates.solvers.problems import dinh_synthetic

    problem = dinh_synthetic.make(PRESET, **PARAMS)
    return problem, dinh_synthetic.reference(problem)


def _gaps(X: np.ndarray, fs: Any, value: float, rounds: list[int]) -> np.ndarray:
    """F̄(w̄^{(s)}) − F̄* for s in ``rounds`` and every replica: (len(rounds), R) (inf where a replica diverged)."""
    out = np.array([[fs.objective(x) if np.all(np.isfinite(x)) else np.inf for x in X[s]] for s in rounds])
    return np.where(np.isfinite(out), out - value, np.inf)


@dataclass(frozen=True)
class _SyntheticClaim(Claim):
    rounds: int = 20
    hyper: dict = field(default_factory=lambda: dict(FIG4))

    def _alg(self, name: str, **hyper: Any) -> Any:
        from fedrates.solvers import algorithms

        if self.algorithm_override is not None and name == self.algorithm:
            return self.algorithm_override(**hyper)
        return algorithms.make(name, **hyper)

    def _run(self, name: str, seeds: list[int], **hyper: Any) -> np.ndarray:
        from fedrates.solvers.algorithms._fedproxvr import run_states

        problem, _ = instance()
        return run_states(self._alg(name, **hyper), problem, self.rounds, list(seeds), np.zeros(problem.dim))

    def _records(self, point: dict, seeds: list[int], values: dict[str, np.ndarray]) -> pd.DataFrame:
        problem, _ = instance()
        df = pd.DataFrame({"seed": np.asarray(seeds, dtype=np.int64), "round": self.rounds, "iterations": 0,
                           "diverged": False, **{k: np.asarray(v, dtype=float) for k, v in values.items()}})
        return records_from_trace(df, claim=self, point_index=0, point=point, metrics=list(values),
                                  problem_dim=problem.dim)

    def points(self, profile: str) -> list[dict]:
        return [{"problem": "dinh_synthetic", "preset": PRESET, **PARAMS, **self.hyper, "rounds": self.rounds,
                 "index": 0}]

    def _constants(self) -> dict[str, float]:
        problem, ref = instance()
        fs = problem.extras["finite_sum"]
        return {"L_worst_case": fs.L, "eta": ETA, "F_star": ref.value, "devices": problem.clients,
                "D_min": int(fs.sizes.min()), "D_max": int(fs.sizes.max()), **self.hyper}


@dataclass(frozen=True)
class EqualWorkClaim(_SyntheticClaim):
    """FedProxVR-SVRG ends below FedProx-SGD at equal sample-gradient work per round: SVRG spends D̄ + 2(τ − 1)
    sample gradients per device (D̄ = Σ p_n D_n), FedProx-SGD gets τ_SGD = D̄ + 2(τ − 1) + 1 local steps."""

    mu: float = 1.0

    def _sgd_tau(self) -> int:
        problem, _ = instance()
        fs = problem.extras["finite_sum"]
        return int(round(float(fs.weights @ fs.sizes))) + 2 * (self.hyper["tau"] - 1) + 1

    def points(self, profile: str) -> list[dict]:
        return [{**super().points(profile)[0], "mu": self.mu, "tau_sgd": self._sgd_tau()}]

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        problem, ref = instance()
        fs = problem.extras["finite_sum"]
        vals = {}
        for name, tau in ((self.algorithm, self.hyper["tau"]), ("fedprox_sgd", self._sgd_tau())):
            X = self._run(name, seeds, **{**self.hyper, "tau": tau, "mu": self.mu})
            vals[name] = _gaps(X, fs, ref.value, [self.rounds])[0]
        return self._records(point, seeds, vals)

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        _, ref = instance()
        sub = records.sort_values("seed", kind="stable")
        a = sub[sub["metric"] == self.algorithm]["value"].to_numpy(dtype=float)
        b = sub[sub["metric"] == "fedprox_sgd"]["value"].to_numpy(dtype=float)
        result = checks.comparison(a, b, names=("FedProxVR-SVRG", "FedProx-SGD"))
        seeds = sorted(int(s) for s in records["seed"].unique())
        return self.verdict(result, conditions=[], seeds=seeds,
                            constants={**self._constants(), "mu": self.mu, "tau_sgd": self._sgd_tau()},
                            statement=self.title, reference_gap=ref.gap,
                            smallest_measured=float(np.min(np.concatenate([a, b]))))


@dataclass(frozen=True)
class MuTradeoffSyntheticClaim(_SyntheticClaim):
    """Fig. 4: (a) the gap at round ``early`` increases strictly with μ over ``mus`` (paired, every consecutive pair
    significant), (b) the largest μ ends below μ → 0⁺ at the last round (paired)."""

    mus: tuple[float, ...] = (1e-8, 0.5, 2.0)
    early: int = 5

    def points(self, profile: str) -> list[dict]:
        return [{**super().points(profile)[0], "mus": list(self.mus), "early": self.early}]

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        problem, ref = instance()
        fs = problem.extras["finite_sum"]
        vals = {}
        for i, mu in enumerate(self.mus):
            X = self._run(self.algorithm, seeds, **{**self.hyper, "mu": mu})
            early, last = _gaps(X, fs, ref.value, [self.early, self.rounds])
            vals[f"early_{i}"], vals[f"last_{i}"] = early, last
        return self._records(point, seeds, vals)

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        _, ref = instance()
        sub = records.sort_values("seed", kind="stable")
        get = lambda m: sub[sub["metric"] == m]["value"].to_numpy(dtype=float)  # noqa: E731
        early = [get(f"early_{i}") for i in range(len(self.mus))]
        last = [get(f"last_{i}") for i in range(len(self.mus))]
        steps = [checks.comparison(early[i], early[i + 1], names=(f"mu={self.mus[i]:g}", f"mu={self.mus[i + 1]:g}"))
                 for i in range(len(self.mus) - 1)]
        ends = checks.comparison(last[-1], last[0], names=(f"mu={self.mus[-1]:g}", f"mu={self.mus[0]:g}"))
        parts = [*steps, ends]
        verdicts = [p.verdict for p in parts]
        verdict = "fail" if "fail" in verdicts else ("inconclusive" if "inconclusive" in verdicts else "pass")
        means_e = [float(np.mean(e)) for e in early]
        means_l = [float(np.mean(v)) for v in last]
        result = CheckResult(
            verdict,
            f"gap at round {self.early}: {np.array2string(np.array(means_e), precision=4)}; at round {self.rounds}: "
            f"{np.array2string(np.array(means_l), precision=4)} for mu = {list(self.mus)}",
            f"round-{self.early} gap increasing in mu; mu = {self.mus[-1]:g} ends below mu = 0+", parts[0].tolerance,
            "; ".join(p.message for p in parts))
        seeds = sorted(int(s) for s in records["seed"].unique())
        finite = [x for x in np.concatenate(early + last) if np.isfinite(x)]
        return self.verdict(result, conditions=[], seeds=seeds, constants=self._constants(), statement=self.title,
                            reference_gap=ref.gap, smallest_measured=float(min(finite)) if finite else None)


@dataclass(frozen=True)
class TauAboveBoundClaim(_SyntheticClaim):
    """Fig. 2 (§5): "if the value of τ is set to be higher than its upper bound specified by β ... thus violating
    Lemma 1, the learning curves of FedProxVR fluctuate much more noticeably".  Fixed β, τ below and above Lemma 1(a)'s
    upper bound (5β² − 4β)/8; the fluctuation of a learning curve is the mean |F̄(w̄^{(s+1)}) − F̄(w̄^{(s)})| over the
    last ``window`` rounds; paired over seeds, the curve with τ above the bound must fluctuate more."""

    mu: float = 0.1
    taus: tuple[int, int] = (6, 48)
    window: int = 10

    def points(self, profile: str) -> list[dict]:
        return [{**super().points(profile)[0], "mu": self.mu, "taus": list(self.taus), "window": self.window}]

    def simulate(self, point: dict, seeds: list[int]) -> pd.DataFrame:
        problem, ref = instance()
        fs = problem.extras["finite_sum"]
        vals = {}
        for name, tau in zip(("below", "above"), self.taus, strict=True):
            X = self._run(self.algorithm, seeds, **{**self.hyper, "tau": tau, "mu": self.mu})
            G = _gaps(X, fs, ref.value, list(range(self.rounds - self.window, self.rounds + 1)))
            vals[f"fluctuation_{name}"] = np.mean(np.abs(np.diff(G, axis=0)), axis=0)
        return self._records(point, seeds, vals)

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        from fedrates.bounds import fedproxvr as fb

        _, ref = instance()
        sub = records.sort_values("seed", kind="stable")
        below = sub[sub["metric"] == "fluctuation_below"]["value"].to_numpy(dtype=float)
        above = sub[sub["metric"] == "fluctuation_above"]["value"].to_numpy(dtype=float)
        upper = fb.tau_upper_sarah(self.hyper["beta"])
        seeds = sorted(int(s) for s in records["seed"].unique())
        constants = {**self._constants(), "mu": self.mu, "tau_upper": upper, "tau_below": self.taus[0],
                     "tau_above": self.taus[1]}
        if not self.taus[0] <= upper < self.taus[1]:
            return self.conditions_not_met([{"condition": "tau_below <= tau_upper < tau_above", "holds": False,
                                             "missing": [], "lhs": float(self.taus[0]), "rhs": float(upper)}],
                                           seeds, constants, self.title)
        # compared on the log scale (the fluctuation is positive and its spread across seeds scales with it; the
        # ordering is the same): paired, one-sided
        with np.errstate(divide="ignore", invalid="ignore"):
            lb, la = np.log(below), np.log(above)
        lb, la = np.where(np.isnan(lb), -np.inf, lb), np.where(np.isnan(la), -np.inf, la)
        finite = np.isfinite(lb) & np.isfinite(la)
        names = (f"log fluctuation, tau={self.taus[0]} (within Lemma 1)", f"tau={self.taus[1]} (above its upper bound)")
        if not np.all(finite) and not float(np.mean(above)) > float(np.mean(below)):
            # a flat curve (e.g. a solver that never moves) does not fluctuate more
            result = CheckResult("fail", "", names[0] + " < " + names[1], "paired", "the curve with τ above the "
                                 "bound does not fluctuate more (a flat curve: no fluctuation at all)")
        else:
            if not np.all(finite):
                lb, la = below, above
            result = checks.comparison(lb, la, names=names)
        result.measured = (f"mean fluctuation {float(np.mean(below)):.4g} at τ = {self.taus[0]}, "
                           f"{float(np.mean(above)):.4g} at τ = {self.taus[1]}; {result.measured}")
        # the fluctuations are differences of F̄ values, compared with the certified gap of F̄* (not checked when a
        # curve is flat: zero fluctuation is exact)
        smallest = float(np.min(np.concatenate([below, above])))
        return self.verdict(result, conditions=[], seeds=seeds, constants=constants, statement=self.title,
                            reference_gap=ref.gap, smallest_measured=smallest if smallest > 0 else None)


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


_REGIME = ("Synthetic(0, 0) of §5 at scale 0.05 (20 devices, D_n in [2, 39], d = 20, C = 10, ℓ2 ρ = 0.05; "
           "certified F̄* by Newton), η = 0.3, τ = 20, B = 1 (Fig. 4), 20 rounds from w = 0.")

CLAIMS: tuple[Claim, ...] = (
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
    EqualWorkClaim(id="dinh.sec5/synthetic-equal-work", theorem="dinh.sec5", algorithm="fedproxvr_svrg",
                   problem="dinh_synthetic",
                   title="Synthetic (§5): FedProxVR-SVRG beats FedProx-SGD at equal sample-gradient work",
                   regime=_REGIME + " μ = 1; FedProx-SGD gets D̄ + 2(τ − 1) + 1 local steps.",
                   why="the paper's qualitative §5 claim on its own synthetic setting, paired over seeds",
                   metric="objective_gap", x="algorithm", n_seeds={"quick": 5, "standard": 8, "full": 16}),
    MuTradeoffSyntheticClaim(
        id="dinh.fig4/mu-tradeoff", theorem="dinh.sec5", algorithm="fedproxvr_svrg", problem="dinh_synthetic",
        title="Fig. 4: μ → 0⁺ does not converge, μ > 0 does, and a larger μ converges more slowly",
        regime=_REGIME + " μ ∈ {0⁺ (1e-8), 0.5, 2}.",
        why="the paper's Fig. 4 statement as three paired comparisons", metric="objective_gap", x="mu",
        n_seeds={"quick": 5, "standard": 8, "full": 16}),
    TauAboveBoundClaim(
        id="dinh.fig2/tau-above-bound", theorem="dinh.sec5", algorithm="fedproxvr_sarah", problem="dinh_synthetic",
        title="Fig. 2: with τ above Lemma 1's upper bound for its β, FedProxVR's learning curve fluctuates more",
        regime=("Synthetic(0, 0) of §5 at scale 0.05 (20 devices, D_n in [2, 39], d = 20, C = 10, ℓ2 ρ = 0.05), "
                "FedProxVR-SARAH, β = 4 (η = 0.3 as Fig. 4), μ = 0.1 (Table 1), B = 1, 30 rounds from w = 0; τ = 6 "
                "≤ (5β² − 4β)/8 = 8 < τ = 48; fluctuation = mean |ΔF̄| over rounds 20-30."),
        why="the paper's Fig. 2 statement as a paired comparison of the two curves' fluctuation",
        metric="fluctuation", x="tau", rounds=30, n_seeds={"quick": 6, "standard": 8, "full": 16}),
)


#: figures laid out as in the paper (none beyond each claim's own figure)
FIGURES: dict[str, str] = {}
