"""Claim builders (:mod:`fedrates.verify.builders`): for each kind a correct algorithm passes and a broken one
(wrong step, wrong schedule, wrong scaling) fails, on tiny quadratics (a fraction of a second each once the
instance is certified)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import pytest
import sympy as sp

from fedrates.bounds.theorem import Theorem
from fedrates.errata import Erratum
from fedrates.solvers.algorithms import make
from fedrates.solvers.algorithms.base import Algorithm, RoundContext, hyper, register, weighted_mean
from fedrates.verify import builders as B
from fedrates.verify import tolerances as tol
from fedrates.verify.plotdata import plot_spec
from fedrates.verify.sweep import run_claims


@register
@dataclass(frozen=True, kw_only=True)
class DecayingSGD(Algorithm):
    """Local SGD (E = 1) with the step η_r = step0 / (r + a)^power: O(1/T) for power 1 and step0 = 2/μ."""

    name = "test-builders-decay"
    uses_client_streams = False
    step0: float = hyper(1.0, "step numerator > 0", low=0.0, strict=True)
    a: float = hyper(1.0, "step shift a > 0", low=0.0, strict=True)
    power: float = hyper(1.0, "decay power > 0", low=0.0, strict=True)

    def init(self, problem, w0):
        return {"x": np.array(w0, dtype=float)}

    def round(self, state, problem, ctx: RoundContext):
        x = state["x"]
        R, m = ctx.clients.shape
        W = np.broadcast_to(x[:, None], (R, m) + problem.shape).copy()
        step = self.step0 / (ctx.round + self.a) ** self.power
        return {"x": weighted_mean(ctx.weights, W - step * ctx.gradients(W))}

    def output(self, state):
        return state["x"]


mu, L, T, Bsym = sp.symbols("mu L T B", positive=True)
#: gradient descent with step 1/L on a μ-strongly convex, L-smooth quadratic: ‖x_T − x*‖ ≤ (1 − μ/L)^T ‖x_0 − x*‖
GD = Theorem(id="t.gd", paper="t", label="GD", title="gradient descent contracts",
             statement=r"\|x_T - x^*\| \le (1 - \mu/L)^T \|x_0 - x^*\|", algorithms=("fedavg",),
             lhs="distance_to_optimum", rhs=(1 - mu / L) ** T * sp.sqrt(Bsym), kind="explicit",
             conditions=(sp.Le(mu, L),),
             symbols={"mu": "strong convexity", "L": "smoothness", "T": "iterations",
                      "B": "squared initial distance"})
#: the same theorem printed with a wrong constant (2μ/L): false, the erratum claim reproduces it
GD_WRONG = dataclasses.replace(GD, id="t.gd_wrong", rhs=(1 - 2 * mu / L) ** T * sp.sqrt(Bsym))
SGD = Theorem(id="t.sgd", paper="t", label="SGD", title="SGD with decaying steps", statement=r"E f - f^* = O(1/T)",
              algorithms=(DecayingSGD.name,), lhs="objective_gap", rhs=1 / T, kind="order",
              symbols={"T": "iterations"})

ONE = {"clients": 1, "dim": 4, "mu": 0.5, "L": 2.0, "seed": 3}
FOUR = {"clients": 4, "dim": 4, "mu": 0.5, "L": 2.0, "seed": 3}
NOISY = {**FOUR, "sigma": 1.0}
COMMON = dict(title="t", problem="quadratic", regime="tiny quadratic", why="builder test")


def gd_step(inst):
    return {"step": 1.0 / inst.constants.L, "local_steps": 1}


def verdict_of(claim, profile="quick"):
    sweep = run_claims([claim], profile, None, base_seed=0)
    assert claim.id not in sweep.errors, sweep.errors.get(claim.id)
    records = sweep.records[claim.id]
    verdict = claim.judge(records, profile)
    return verdict, records


def figure_of(verdict, records):
    spec = plot_spec(records, verdict)
    assert spec["points"]["x"] and all(np.isfinite(spec["points"]["center"]))
    return spec


# ---- bound -------------------------------------------------------------------------------------------------------
BOUND = B.BoundClaim(id="t.gd/bound", theorem=GD, algorithm="fedavg", problem_params=ONE, gradients="exact",
                     hyper=gd_step, metric="distance_to_optimum", x="iterations", grid={"quick": (1, 4, 16, 64)},
                     n_seeds={"quick": 1}, **COMMON)


def test_bound_passes_for_the_correct_step_with_its_slack_and_figure():
    verdict, records = verdict_of(BOUND)
    assert verdict["verdict"] == "pass", verdict["message"]
    assert verdict["margin"]["kind"] == "slack" and 1.0 <= verdict["margin"]["value"] < 10
    assert verdict["theorem"] == "t.gd" and verdict["conditions"][0]["holds"] is True
    assert np.isfinite(records["bound"]).all()
    spec = figure_of(verdict, records)
    assert spec["kind"] == "bound"


def test_bound_fails_for_a_too_small_step():
    verdict, _ = verdict_of(BOUND.with_algorithm(make("fedavg", step=0.3 / 2.0, local_steps=1)))
    assert verdict["verdict"] == "fail", verdict["message"]


def test_bound_conditions_not_met_on_an_instance_violating_them():
    claim = dataclasses.replace(BOUND, id="t.gd/bound-cond", values=lambda inst, point: {"mu": 3.0})
    verdict, _ = verdict_of(claim)
    assert verdict["verdict"] == "conditions-not-met"


# ---- rate --------------------------------------------------------------------------------------------------------
RATE = B.RateClaim(id="t.sgd/rate-T", theorem=SGD, algorithm=DecayingSGD.name, problem_params={**NOISY, "dim": 32},
                   exponent=-1.0,
                   hyper=lambda inst: {"step0": 2 / inst.constants.mu, "a": 4 * inst.constants.L / inst.constants.mu,
                                       "batch": 1},
                   x="iterations", grid={"quick": (200, 400, 800, 1600, 3200)}, n_seeds={"quick": 12}, **COMMON)


def test_rate_passes_for_the_one_over_t_schedule():
    verdict, records = verdict_of(RATE)
    assert verdict["verdict"] == "pass", verdict["message"]
    assert verdict["fit"]["lo"] >= -1 - tol.SLOPE_TOLERANCE and verdict["fit"]["hi"] <= -1 + tol.SLOPE_TOLERANCE
    assert verdict["margin"]["kind"] == "ci"
    assert figure_of(verdict, records)["kind"] == "slope"


def test_rate_fails_for_a_one_over_sqrt_t_schedule():
    broken = make(DecayingSGD.name, step0=0.5, a=16.0, power=0.5, batch=1)
    verdict, _ = verdict_of(RATE.with_algorithm(broken))
    assert verdict["verdict"] == "fail", verdict["message"]


def test_rate_in_a_problem_parameter_records_it_as_x():
    claim = dataclasses.replace(RATE, id="t.sgd/rate-K", x="clients", grid={"quick": (2, 4)}, rounds=5,
                                n_seeds={"quick": 2})
    sweep = run_claims([claim], "quick", None)
    assert claim.id not in sweep.errors, sweep.errors.get(claim.id)
    assert sorted(sweep.records[claim.id]["clients"].unique()) == [2, 4]


# ---- exact expectation -------------------------------------------------------------------------------------------
def expected_gap(inst, ctx):
    """E[F(x_r)] − F* of FedAvg with E = 1, all clients, step η and Gaussian gradient noise N(0, σ²/(dB) I) per
    client: e_{r+1} = (I − ηQ̄)e_r, Σ_{r+1} = (I − ηQ̄)Σ_r(I − ηQ̄) + η²(σ²/(dB))Σπ_k² I, E gap = ½e'Q̄e + ½tr(Q̄Σ)."""
    p = inst.problem
    Q = np.einsum("k,kij->ij", p.weights, p.datafit.hessians)
    eta, d = ctx["step"], p.dim
    M = np.eye(d) - eta * Q
    noise = eta**2 * p.noise_std**2 / (d * ctx["batch"]) * float(np.sum(p.weights**2)) * np.eye(d)
    e, S = -np.asarray(inst.reference.w, dtype=float), np.zeros((d, d))
    for _ in range(int(ctx["round"])):
        e, S = M @ e, M @ S @ M.T + noise
    return 0.5 * e @ Q @ e + 0.5 * np.trace(Q @ S)


EXACT = B.ExactClaim(id="t.fedavg/exact-gap", theorem=GD, algorithm="fedavg",
                     problem_params={**FOUR, "dim": 16, "sigma": 0.5},
                     hyper={"step": 0.25, "local_steps": 1, "batch": 1},
                     expected=expected_gap, x="round", grid={"quick": (1, 2, 4)}, n_seeds={"quick": 24}, **COMMON)


def test_exact_expectation_matches_the_closed_form():
    verdict, records = verdict_of(EXACT)
    assert verdict["verdict"] == "pass", verdict["message"]
    assert verdict["margin"]["kind"] == "resolution" and verdict["margin"]["value"] <= tol.EXACT_RESOLUTION
    figure_of(verdict, records)


def test_exact_expectation_rejects_a_wrong_step():
    for step in (0.3, 0.22):  # the closed form is the declared step's (0.25)
        verdict, _ = verdict_of(EXACT.with_algorithm(make("fedavg", step=step, local_steps=1, batch=1)))
        assert verdict["verdict"] == "fail", verdict["message"]


# ---- limit -------------------------------------------------------------------------------------------------------
LIMIT = B.LimitClaim(id="t.fedavg/limit", theorem=GD, algorithm="fedavg", problem_params=FOUR, hyper=gd_step,
                     rounds=200, **COMMON)


def test_limit_reaches_the_certified_optimum():
    verdict, records = verdict_of(LIMIT)
    assert verdict["verdict"] == "pass", verdict["message"]
    assert verdict["reference"]["sufficient"] is True
    figure_of(verdict, records)


def test_limit_fails_with_local_steps_client_drift():
    verdict, _ = verdict_of(LIMIT.with_algorithm(make("fedavg", step=0.5, local_steps=5)))
    assert verdict["verdict"] == "fail", verdict["message"]


def test_limit_at_a_stated_fixed_point():
    claim = dataclasses.replace(LIMIT, id="t.fedavg/limit-fp", metric="relative_distance",
                                fixed_point=lambda inst: np.asarray(inst.reference.w))
    assert verdict_of(claim)[0]["verdict"] == "pass"
    wrong = dataclasses.replace(claim, fixed_point=lambda inst: 1.01 * np.asarray(inst.reference.w))
    assert verdict_of(wrong)[0]["verdict"] == "fail"


# ---- contraction -------------------------------------------------------------------------------------------------
CONTRACTION = B.ContractionClaim(id="t.gd/contraction", theorem=GD, algorithm="fedavg", problem_params=ONE,
                                 hyper=gd_step, factor=lambda inst, v: 1 - v["mu"] / v["L"], sharp=True, rounds=40,
                                 **COMMON)


def test_contraction_factor_is_attained_by_the_correct_step():
    verdict, records = verdict_of(CONTRACTION)
    assert verdict["verdict"] == "pass", verdict["message"]
    figure_of(verdict, records)


@pytest.mark.parametrize("step", [0.3 / 2.0, 2.1 / 2.0, 1.2 / 2.0])
def test_contraction_rejects_a_wrong_step(step):
    # 0.3/L: slower (factor 1 − 0.3μ/L); 2.1/L: expands; 1.2/L: faster than q, so q is not attained (sharp)
    verdict, _ = verdict_of(CONTRACTION.with_algorithm(make("fedavg", step=step, local_steps=1)))
    assert verdict["verdict"] == "fail", verdict["message"]


# ---- comparison --------------------------------------------------------------------------------------------------
COMPARISON = B.ComparisonClaim(id="t.fedavg/comparison", theorem=GD, algorithm="fedavg", other="fedavg",
                               problem_params={**FOUR, "sigma": 0.1}, hyper={"step": 0.25, "batch": 1},
                               other_hyper={"step": 0.025, "batch": 1}, rounds=10, n_seeds={"quick": 6}, **COMMON)


def test_comparison_passes_when_the_larger_step_wins():
    verdict, records = verdict_of(COMPARISON)
    assert verdict["verdict"] == "pass", verdict["message"]
    assert sorted(records["point"].unique()) == [0, 1]
    assert figure_of(verdict, records)["categorical"]


def test_comparison_fails_for_a_broken_smaller_step():
    verdict, _ = verdict_of(COMPARISON.with_algorithm(make("fedavg", step=0.005, batch=1)))
    assert verdict["verdict"] == "fail", verdict["message"]


# ---- erratum -----------------------------------------------------------------------------------------------------
WRONG_CONSTANT = Erratum(kind="constant", where="Theorem GD", quote="(1 − 2μ/L)^T", true_statement="(1 − μ/L)^T",
                         evidence="one client with spectrum in [μ, L]",
                         prediction="the distance exceeds (1 − 2μ/L)^T ‖x_0 − x*‖ for large T")


def test_erratum_that_reproduces_is_verdict_erratum():
    claim = B.erratum_claim(dataclasses.replace(BOUND, id="t.gd_wrong/bound", theorem=GD_WRONG), WRONG_CONSTANT)
    verdict, _ = verdict_of(claim)
    assert verdict["verdict"] == "erratum", verdict["message"]
    assert verdict["erratum_kind"] == "constant"


def test_erratum_that_does_not_reproduce_is_a_fail():
    verdict, _ = verdict_of(B.erratum_claim(BOUND, WRONG_CONSTANT))
    assert verdict["verdict"] == "fail" and "did not reproduce" in verdict["message"]


def test_erratum_claim_needs_a_prediction():
    with pytest.raises(ValueError, match="prediction"):
        B.erratum_claim(BOUND, dataclasses.replace(WRONG_CONSTANT, prediction=""))


def test_builders_are_frozen_claims_with_a_theorem_object_kept():
    from fedrates.verify.claims.base import Claim

    assert isinstance(BOUND, Claim) and BOUND.theorem == "t.gd" and BOUND.theorem_object() is GD
    with pytest.raises(dataclasses.FrozenInstanceError):
        BOUND.metric = "objective_gap"


def test_check_accepts_a_claim_object_and_annotates_its_figure():
    from fedrates import check

    verdict = check(CONTRACTION)
    assert verdict["verdict"] == "pass" and verdict["plot"] is not None
    with pytest.raises(TypeError, match="expected a claim id or a Claim"):
        check(3.0)


# ---- the pytest plugin with a user's claim and theorem objects ---------------------------------------------------
def test_fedrates_records_accepts_a_claim_object_and_assert_bound_a_theorem_object(fedrates_records):
    from fedrates import assert_bound
    from fedrates.verify.conformance import RateAssertionError

    records = fedrates_records(BOUND)
    assert set(records["claim"]) == {"t.gd/bound"}
    result = assert_bound(records, GD, var="iterations", metric="distance_to_optimum")
    assert result.verdict == "pass"
    wrong = records.assign(bound=records["bound"] * 0.5)  # the bound column of a theorem half as large
    with pytest.raises(RateAssertionError, match="t.gd"):
        assert_bound(wrong, GD, var="iterations", metric="distance_to_optimum")
    with pytest.raises(TypeError, match="expected a claim id or a Claim"):
        fedrates_records(42)


def test_assert_rate_takes_the_exponent_from_a_theorem_object(fedrates_records):
    from fedrates import assert_rate
    from fedrates.verify.conformance import RateAssertionError

    records = fedrates_records(RATE)
    assert assert_rate(records, "iterations", SGD, metric="objective_gap").verdict == "pass"
    faster = dataclasses.replace(SGD, id="t.sgd2", rhs=1 / T**2)
    with pytest.raises(RateAssertionError, match="t.sgd2: rate in iterations"):
        assert_rate(records, "iterations", faster, metric="objective_gap")


def test_constants_are_taken_at_the_declared_minibatch_size():
    """σ² of the conditions and bounds is the run's: at the declared batch, else the algorithm's default (10)."""
    declared = dataclasses.replace(COMPARISON, hyper={"step": 0.25, "batch": 4})
    default = dataclasses.replace(COMPARISON, hyper={"step": 0.25})
    assert declared.instance().constants.batch == 4
    assert default.instance().constants.batch == make("fedavg").batch == 10
    assert dataclasses.replace(LIMIT).instance().constants.batch == 1  # exact gradients
    ratio = default.instance().constants.sigma2 / declared.instance().constants.sigma2
    assert ratio == pytest.approx(4 / 10)
