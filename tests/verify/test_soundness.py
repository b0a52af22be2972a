"""Soundness of the seed-000 claims: the correct algorithms PASS for several base seeds, and deliberately broken
algorithms FAIL the claims that their breakage contradicts.

Each broken variant changes exactly one thing of the real algorithm (a hyperparameter or a small subclass):

* ``plus-sign``       — Theorem 2.1's estimator as printed, Prox(ḡ + μw̃/2) (an erratum in bao.thm2.1's notes);
* ``alpha-power-0``   — α_t = (t + a)⁰ = 1 instead of (t + a)² (wrong power of the weights);
* ``prox-dropped``    — Prox_t without the penalty (only the ball projection);
* ``uniform-weights`` — the server averages with 1/m instead of π_k (the instance has unequal π_k);
* ``step-x10``        — every gradient step ten times too large (gradients scaled by 10).

A rate claim passes only when the fitted slope's bootstrap CI is within ±0.25 of the prediction and narrower than
0.5 (verify.tolerances), so a broken algorithm that plateaus or converges to the wrong point fails.
"""

from __future__ import annotations

import numpy as np
import pytest

from fedrates.solvers.algorithms.fast_fedda import FastFedDA
from fedrates.solvers.penalties import project_ball
from fedrates.verify.claims.bao import CLAIMS
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


@pytest.mark.parametrize("base_seed", [0, 1, 2, 3, 4])
def test_correct_fast_fedda_passes_the_rate_claim(base_seed):
    v = verdict(get("bao.thm2.1/rate-T"), base_seed)
    assert v["verdict"] == "pass", v["message"]


@pytest.mark.parametrize("base_seed", [0, 1])
def test_correct_fast_fedda_passes_the_speedup_claim(base_seed):
    v = verdict(get("bao.thm2.1/speedup-K"), base_seed)
    assert v["verdict"] == "pass", v["message"]


@pytest.mark.parametrize("variant", sorted(BROKEN))
def test_broken_fast_fedda_fails_the_rate_claim(variant):
    v = verdict(broken("bao.thm2.1/rate-T", variant))
    assert v["verdict"] == "fail", f"{variant}: {v['verdict']} — {v['measured']}"


@pytest.mark.parametrize("variant", ["plus-sign", "step-x10"])
def test_broken_fast_fedda_fails_the_speedup_claim(variant):
    # uniform weights are not a breakage here: the speedup instance has equal weights by construction
    v = verdict(broken("bao.thm2.1/speedup-K", variant))
    assert v["verdict"] == "fail", f"{variant}: {v['verdict']} — {v['measured']}"


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
