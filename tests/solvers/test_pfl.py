"""PFL(β) (Buttaci & Calafiore, Algorithm 1): hand-computed rounds, reductions to FedAvg, refusals."""

from __future__ import annotations

import numpy as np
import pytest

from fedrates.solvers import algorithms, problems
from fedrates.solvers.errors import InputError


@pytest.fixture(scope="module")
def small():
    return problems.make("similar_quadratic", clients=3, dim=2, samples=3, clusters=2, message="data", seed=4)


@pytest.fixture(scope="module")
def clustered():
    return problems.make("similar_quadratic", "buttaci-clustered", message="data")


def by_hand(problem, w0, rounds, E, gamma, beta):
    """Algorithm 1 with explicit loops over clients and steps (exact gradients H_i w − b_i)."""
    H, b = problem.datafit.hessians, problem.datafit.linear_terms
    P, p = problem.extras["similarity_weights"], problem.weights
    K = p.size
    x = np.array(w0, dtype=float)
    u = [x.copy() for _ in range(K)]
    xs = [x.copy()]
    for _ in range(rounds):
        last = []
        for i in range(K):
            w = x.copy()
            for _ in range(E):
                w_tilde = beta * w + (1 - beta) * u[i]
                w = w - gamma * (H[i] @ w_tilde - b[i])
            last.append(w)
        x = sum(p[i] * last[i] for i in range(K))
        u = [sum(P[i, n] * last[n] for n in range(K)) / p[i] for i in range(K)]
        xs.append(x.copy())
    return np.array(xs)


@pytest.mark.parametrize("E, beta", [(1, 0.5), (3, 0.3), (2, 1.0)])
def test_two_rounds_by_hand(small, E, beta):
    w0 = np.array([1.0, -2.0])
    expected = by_hand(small, w0, 2, E, 0.05, beta)
    trace = algorithms.run_batch("pfl", small, 2, seeds=[0], gradients="exact", w0=w0, step=0.05, beta=beta,
                                 local_steps=E)
    np.testing.assert_allclose(trace.w[0], expected[-1], rtol=1e-13, atol=1e-14)
    assert np.linalg.norm(expected[2] - expected[1]) > 1e-3  # the rounds move


def test_beta_one_is_fedavg_bit_for_bit(clustered):
    kw = dict(seeds=[0, 1, 2], w0=np.ones(4), step=0.02, local_steps=4)
    a = algorithms.run_batch("pfl", clustered, 15, beta=1.0, **kw)
    b = algorithms.run_batch("fedavg", clustered, 15, **kw)
    np.testing.assert_array_equal(a.w, b.w)
    np.testing.assert_array_equal(a.records["objective_gap"].to_numpy(), b.records["objective_gap"].to_numpy())


def test_fedprox_alpha_zero_is_fedavg_bit_for_bit(clustered):
    kw = dict(seeds=[3, 4], w0=np.ones(4), step=0.02, local_steps=3)
    a = algorithms.run_batch("fedprox", clustered, 10, mu_prox=0.0, **kw)
    b = algorithms.run_batch("fedavg", clustered, 10, **kw)
    np.testing.assert_array_equal(a.w, b.w)


def test_fedprox_is_the_analysed_local_rule(small):
    # App. A (11): w_{k+1} = (1 − αγ) w_k + αγ w̄_{t,0} − γ ∇f_i(w_k), then w̄_{t+1} = Σ p_i w_E^i
    H, b, p = small.datafit.hessians, small.datafit.linear_terms, small.weights
    x, gamma, alpha, E = np.array([0.5, 1.5]), 0.05, 2.0, 3
    ends = []
    for i in range(p.size):
        w = x.copy()
        for _ in range(E):
            w = (1 - alpha * gamma) * w + alpha * gamma * x - gamma * (H[i] @ w - b[i])
        ends.append(w)
    trace = algorithms.run_batch("fedprox", small, 1, seeds=[0], gradients="exact", w0=x, step=gamma,
                                 mu_prox=alpha, local_steps=E)
    np.testing.assert_allclose(trace.w[0], sum(pi * w for pi, w in zip(p, ends, strict=True)), rtol=1e-13)


def test_E1_common_hessian_any_beta_is_fedavg():
    common = problems.make("similar_quadratic", "buttaci-common")
    kw = dict(seeds=[0], gradients="exact", w0=np.ones(4), step=0.05, local_steps=1)
    base = algorithms.run_batch("fedavg", common, 20, **kw).w
    for beta in (0.2, 0.6):
        np.testing.assert_allclose(algorithms.run_batch("pfl", common, 20, beta=beta, **kw).w, base, rtol=1e-12)
    # with E = 2 the trajectories differ (so the equality above is not vacuous)
    a = algorithms.run_batch("pfl", common, 20, beta=0.2, **{**kw, "local_steps": 2}).w
    b = algorithms.run_batch("fedavg", common, 20, **{**kw, "local_steps": 2}).w
    assert np.max(np.abs(a - b)) > 1e-8


def test_lemma1_identity_after_one_round(clustered):
    # after round 0, Σ_i p_i u_1^i = Σ_n p_n w_{0,E}^n = w̄_{1,0} (needs symmetric P and degree weights)
    trace = algorithms.run_batch("pfl", clustered, 3, seeds=[0, 1], w0=np.ones(4), step=0.02, beta=0.4,
                                 local_steps=3)
    U, x = trace.state["u"], trace.state["x"]
    np.testing.assert_allclose(np.einsum("i,rid->rd", clustered.weights, U), x, rtol=1e-13)


def test_replicas_equal_single_runs_and_are_reproducible(clustered):
    kw = dict(w0=np.ones(4), step=0.02, beta=0.4, local_steps=3)
    batch = algorithms.run_batch("pfl", clustered, 5, seeds=[7, 8], **kw)
    one = algorithms.run_batch("pfl", clustered, 5, seeds=[8], **kw)
    np.testing.assert_array_equal(batch.w[1], one.w[0])
    again = algorithms.run_batch("pfl", clustered, 5, seeds=[7, 8], **kw)
    np.testing.assert_array_equal(batch.w, again.w)


def test_refusals(clustered):
    with pytest.raises(InputError, match="full participation"):
        algorithms.run_batch("pfl", clustered, 2, seeds=[0], participating=3, step=0.01)
    with pytest.raises(InputError, match="similarity graph"):
        algorithms.run_batch("pfl", problems.make("quadratic"), 2, seeds=[0])
    for beta in (0.0, 1.5, -0.1):
        with pytest.raises(InputError, match="beta"):
            algorithms.make("pfl", beta=beta)


def test_weights_must_be_the_degrees(clustered):
    import dataclasses

    uniform = dataclasses.replace(clustered, weights=np.full(clustered.clients, 1.0 / clustered.clients))
    assert "degrees" in algorithms.make("pfl").supports(uniform)
