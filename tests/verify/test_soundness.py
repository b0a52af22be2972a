"""Soundness of the Bao et al. claims: the correct algorithms PASS for several base seeds, and deliberately broken
algorithms FAIL the claims that their breakage contradicts.

Each broken variant changes exactly one thing of the real algorithm (a hyperparameter or a small subclass):

* ``plus-sign``       — Theorem 2.1's estimator as printed, Prox(ḡ + μw̃/2) (an erratum in bao.thm2.1's notes);
* ``alpha-power-0``   — α_t = (t + a)⁰ = 1 instead of (t + a)² (wrong power of the weights);
* ``prox-dropped``    — Prox_t without the penalty (only the ball projection);
* ``uniform-weights`` — the server averages with 1/m instead of π_k (the instance has unequal π_k);
* ``step-x10``        — every gradient step ten times too large (gradients scaled by 10).

A rate claim passes only when the fitted slope's whole bootstrap CI is within ±0.25 of the prediction and narrower
than 0.5 (verify.tolerances), so a broken algorithm that plateaus or converges to the wrong point fails.

Further tests pin the uncertainty machinery (coverage of the slope interval on synthetic slopes with known truth; seed
means cannot pass), the falsifiability of erratum comparisons, the closed-form recursions of
:mod:`fedrates.verify.exact` (against a hand computation and an enumeration of all minibatches) and the re-derivation
of constants.  The catalogue of broken variants and its fast selfcheck live in ``tests/soundness/``.
"""

from __future__ import annotations

import numpy as np
import pytest
from _seeds import base_seeds

from fedrates.solvers.algorithms.fast_fedda import FastFedDA
from fedrates.solvers.penalties import project_ball
from fedrates.verify.claims.bao.theorems import CLAIMS
from fedrates.verify.sweep import run_claims

PROFILE = "quick"
get = {claim.id: claim for claim in CLAIMS}.__getitem__


class ProxDropped(FastFedDA):
    @staticmethod
    def prox_t(problem, z, w0, A, mu, gamma):
        c = mu * A / 2 + gamma
        w0 = w0.reshape(w0.shape[:1] + (1,) * (z.ndim - w0.ndim) + w0.shape[1:])
        return project_ball((gamma * w0 - z) / c, problem.radius, len(problem.shape))


class UniformWeights(FastFedDA):
    def round(self, state, problem, ctx):
        ctx.weights = np.full_like(ctx.weights, 1.0 / ctx.weights.shape[1])
        return super().round(state, problem, ctx)


class StepTimesTen(FastFedDA):
    def round(self, state, problem, ctx):
        gradients = ctx.gradients
        ctx.gradients = lambda W, clients=None: 10.0 * gradients(W, clients)
        return super().round(state, problem, ctx)


BROKEN = {
    "plus-sign": lambda **kw: FastFedDA(estimator_sign="plus", **kw),
    "alpha-power-0": lambda **kw: FastFedDA(alpha_power=0.0, **kw),
    "prox-dropped": ProxDropped,
    "uniform-weights": UniformWeights,
    "step-x10": StepTimesTen,
}


def verdict(claim, base_seed=0):
    result = run_claims([claim], PROFILE, None, base_seed=base_seed)
    assert claim.id not in result.errors, result.errors.get(claim.id)
    return claim.judge(result.records[claim.id], PROFILE)


def broken(claim_id, variant):
    claim = get(claim_id)
    problem, ref, consts, a = claim._setup()
    alg = BROKEN[variant](mu=consts.mu, a=a, local_steps=claim.local_steps, batch=1)
    return claim.with_algorithm(alg)


# a quick rate-T sweep of several seconds of CPU (40 seeds, five horizons): the long step, at every base seed
@pytest.mark.parametrize("base_seed", base_seeds([0, 1, 2, 3, 4], first_fast=False))
def test_correct_fast_fedda_passes_the_rate_claim(base_seed):
    v = verdict(get("bao.thm2.1/rate-T"), base_seed)
    assert v["verdict"] == "pass", v["message"]


@pytest.mark.slow  # several seconds of CPU: the long step
@pytest.mark.parametrize("base_seed", base_seeds([0, 1]))
def test_correct_fast_fedda_passes_the_speedup_claim(base_seed):
    v = verdict(get("bao.thm2.1/speedup-K"), base_seed)
    assert v["verdict"] == "pass", v["message"]


@pytest.mark.slow
@pytest.mark.parametrize("variant", sorted(BROKEN))
def test_broken_fast_fedda_fails_the_rate_claim(variant):
    v = verdict(broken("bao.thm2.1/rate-T", variant))
    assert v["verdict"] == "fail", f"{variant}: {v['verdict']} — {v['measured']}"


@pytest.mark.slow  # a broken-variant run of several seconds of CPU: the long step
@pytest.mark.parametrize("variant", ["plus-sign", "step-x10"])
def test_broken_fast_fedda_fails_the_speedup_claim(variant):
    # uniform weights are not a breakage here: the speedup instance has equal weights by construction
    v = verdict(broken("bao.thm2.1/speedup-K", variant))
    assert v["verdict"] == "fail", f"{variant}: {v['verdict']} — {v['measured']}"


@pytest.mark.slow  # several seconds of CPU: the long step
def test_conditions_not_met_is_never_a_pass():
    """A claim whose theorem conditions fail on the instance reports conditions-not-met (a < 4L/μ here)."""
    import dataclasses

    claim = get("bao.thm2.1/rate-T")
    problem, ref, consts, a = claim._setup()

    @dataclasses.dataclass(frozen=True)
    class SmallA(type(claim)):
        def _setup(self, params=None, E=None):
            p, r, c, a_ = super()._setup(params, E)
            return p, r, c, a_ / 8  # a = L/(2μ) < 4L/μ

    small = SmallA(**{f.name: getattr(claim, f.name) for f in dataclasses.fields(claim)})
    v = verdict(small)
    assert v["verdict"] == "conditions-not-met"
    assert any(c["holds"] is False and "a" in c["condition"] for c in v["conditions"])


# ---- the uncertainty machinery is not inert -------------------------------------------------------------------
def test_slope_interval_coverage_on_synthetic_slopes_with_known_truth():
    """The seed-bootstrap CI of the log-log slope covers the true exponent at about its nominal 95%."""
    from fedrates.verify import stats

    x = np.array([100.0, 200.0, 400.0, 800.0, 1600.0])
    truth = -1.0
    covered, widths = 0, []
    reps = 200
    for rep in range(reps):
        rng = np.random.default_rng(1000 + rep)
        # per-seed multiplicative log-normal errors (mean-one), correlated within a seed as in one run per seed
        seed_level = rng.normal(0.0, 0.3, size=(12, 1))
        noise = np.exp(seed_level + rng.normal(0.0, 0.3, size=(12, x.size)) - 0.09)
        y = 3.0 * x**truth * noise
        fit = stats.loglog_slope(x, y, rng=np.random.default_rng(rep), n_boot=400)
        covered += fit.lo <= truth <= fit.hi
        widths.append(fit.hi - fit.lo)
    assert 0.88 * reps <= covered <= 0.995 * reps, covered
    assert min(widths) > 0  # never a point interval on noisy seeds


def test_seed_means_cannot_pass_a_slope_claim():
    """One row (seed means) or too few seeds: the bootstrap has nothing to resample — inconclusive, never pass."""
    from fedrates.verify import checks

    x = np.array([10.0, 20.0, 40.0, 80.0])
    exact_power = (x**-1.0)[None, :]
    assert checks.rate_exponent(x, exact_power, -1.0).verdict == "inconclusive"
    assert checks.rate_exponent(x, np.repeat(exact_power, 3, axis=0), -1.0).verdict == "inconclusive"


def test_slope_pass_rule_uses_the_interval_not_the_point_estimate(monkeypatch):
    """The audit's example: slope −0.76 with CI [−0.81, −0.71] does not pass −1 ± 0.25."""
    from fedrates.verify import checks, stats

    fake = stats.SlopeFit(slope=-0.76, intercept=0.0, lo=-0.81, hi=-0.71, confidence=0.95, n_seeds=100,
                          n_points=5, residual_rms=0.0, method="test")
    monkeypatch.setattr(stats, "loglog_slope", lambda *a, **k: fake)
    x = np.array([1.0, 2.0, 4.0, 8.0, 16.0])
    y = np.tile(x**-0.76, (100, 1))
    assert checks.rate_exponent(x, y, -1.0).verdict == "inconclusive"
    inside = stats.SlopeFit(slope=-0.95, intercept=0.0, lo=-1.05, hi=-0.85, confidence=0.95, n_seeds=100,
                            n_points=5, residual_rms=0.0, method="test")
    monkeypatch.setattr(stats, "loglog_slope", lambda *a, **k: inside)
    assert checks.rate_exponent(x, y, -1.0).verdict == "pass"


# ---- erratum claims are falsifiable ----------------------------------------------------------------------------
def _comparison_records(claim, means: dict[str, float], seeds: int = 8, spread: float = 0.01):
    import pandas as pd

    rng = np.random.default_rng(5)
    rows = []
    for name, m in means.items():
        for s in range(seeds):
            rows.append({"seed": s, "algorithm": name, "metric": claim.metric, "value": m + spread * rng.normal()})
    return pd.DataFrame(rows)


def test_erratum_comparison_predicts_the_reversal_and_can_fail():
    from fedrates.verify.claims.bao.errata import FIGURE_ERRATA

    claim = next(c for c in FIGURE_ERRATA if c.id == "bao.fig1/comparison-analysed")
    assert claim.erratum
    reversed_order = {"fast_fedda": 7.0, "c_fedda": 13.0, "mc_fedda": 13.0, "fedda": 4.0, "fedmid": 4.0}
    paper_order = {"fast_fedda": 2.0, "c_fedda": 2.5, "mc_fedda": 2.2, "fedda": 4.0, "fedmid": 4.0}
    mixed = {"fast_fedda": 3.0, "c_fedda": 5.0, "mc_fedda": 5.0, "fedda": 4.0, "fedmid": 4.0}
    assert claim.judge(_comparison_records(claim, reversed_order), "quick")["verdict"] == "erratum"
    v = claim.judge(_comparison_records(claim, paper_order), "quick")
    assert v["verdict"] == "fail" and "did not reproduce" in v["message"]
    # the erratum predicts that the figures' ordering is not significant with the analysed weights: a mixed order
    # reproduces it
    assert claim.judge(_comparison_records(claim, mixed), "quick")["verdict"] == "erratum"


# ---- the closed-form recursions are right (independently of the algorithms) -------------------------------------
def test_minibatch_second_moment_matches_enumeration_of_all_minibatches():
    """E[T M Tᵀ] of the sampled oracle equals the average over every B-subset (or every ordered B-tuple)."""
    import itertools

    from fedrates.verify import exact

    rng = np.random.default_rng(3)
    n, d, B, eta = 5, 2, 2, 0.3
    X, y = rng.normal(size=(1, n, d)), rng.normal(size=(1, n))
    D = d + 1
    F, G, C = np.eye(D), np.zeros((D, d)), np.zeros((d, D))
    G[:d] = -eta * np.eye(d)
    C[:, :d] = np.eye(d)
    M = rng.normal(size=(D, D))
    M = M @ M.T
    for replace, batches in ((False, list(itertools.combinations(range(n), B))),
                             (True, list(itertools.product(range(n), repeat=B)))):
        oracle = exact.Oracle(Q=np.einsum("kni,knj->kij", X, X) / n, b=np.einsum("kni,kn->ki", X, y) / n, X=X, y=y,
                              batch=B, replace=replace)
        brute = np.zeros((D, D))
        for idx in batches:
            xb, yb = X[0, list(idx)], y[0, list(idx)]
            H = xb.T @ xb / B
            h = xb.T @ yb / B
            T = F.copy()
            T[:d, :d] += -eta * H
            T[:d, -1] += eta * h
            brute += T @ M @ T.T / len(batches)
        assert np.allclose(oracle.second(0, F, G, C, M), brute, rtol=1e-12, atol=1e-12), replace


def test_gaussian_moments_match_a_hand_computation():
    """One client, d = 1, E = 2: x' = (1 − ηq)²x + η(2 − ηq)(b − ...) with noise variance v per step."""
    from fedrates.verify import exact

    q, b, eta, v = 2.0, 1.0, 0.1, 0.5
    oracle = exact.Oracle(Q=np.array([[[q]]]), b=np.array([[b]]), noise_var=v)
    method = exact.fedavg_like(1, step=eta, local_steps=2)
    m = exact.moments(method, oracle, np.array([1.0]), rounds=1)
    a = 1 - eta * q
    mean = eta * b * (1 + a)  # x0 = 0: two steps of x ← a x + ηb
    var = eta**2 * v * (a**2 + 1)
    assert np.isclose(m.mean[1, 0], mean) and np.isclose(m.cov[1, 0, 0], var)


def test_constants_are_rederived_from_the_spectra():
    import dataclasses

    from fedrates.verify.claims.bao import theorems as bao

    claim = get("bao.thm2.1/rate-T")
    problem, ref, consts, _ = claim._setup()
    assert bao.constants_check(problem, consts)["holds"] is True
    assert bao.constants_check(problem, dataclasses.replace(consts, L=consts.L / 2))["holds"] is False
