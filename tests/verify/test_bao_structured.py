"""Exact claims of FedAvg/FedProx on shared-basis and diagonal-plus-rank-one quadratics
(verify/claims/bao/exact/structured.py).

* :func:`fixed_point_law` against E local (proximal) gradient steps written out on the dense Q_k, b_k, with the
  server step, over a few rounds: the closed form x̃_r = x̃∞ + q^r(x̃₀ − x̃∞) is the recursion; at E = 1 the fixed
  point is the optimum Q̄⁻¹b̄, at E = 3 it is not (client drift).
* The claims pass on the correct code and fail on the broken variants of the one-pass round and of the shared basis
  (the diagonal FedProx claim in the suite; the others, the noisy claim and further seeds in the long step).
"""

from __future__ import annotations

import contextlib

import numpy as np
import pandas as pd
import pytest
from _seeds import base_seeds

from fedrates.verify.claims import get
from fedrates.verify.claims.bao import variants as bb
from fedrates.verify.claims.bao.exact.structured import (
    BASIS_RANDOM,
    LOWRANK,
    dense_round_law,
    fixed_point_law,
    skewed,
)
from fedrates.verify.claims.bao.instances import client_quadratics, problem_of

SMALL = {**BASIS_RANDOM, "clients": 6, "dim": 5}


@pytest.mark.parametrize("E, mu_p, eta_s", [(1, 0.0, 1.0), (3, 0.0, 0.8), (4, 0.3, 1.0)])
def test_fixed_point_law_is_the_local_recursion(E, mu_p, eta_s):
    problem = problem_of("structured_quadratic", SMALL, skewed(6))
    Q, b = client_quadratics(problem)
    pi, eta = problem.weights, 0.5
    x = np.random.default_rng(1).standard_normal(5)
    V, x_inf, q, x0 = fixed_point_law(problem, step=eta, local_steps=E, server_step=eta_s, mu_prox=mu_p, w0=x)
    for r in range(1, 6):
        W = np.broadcast_to(x, (6, 5)).copy()
        for _ in range(E):
            W = W - eta * (np.einsum("kij,kj->ki", Q, W) - b + mu_p * (W - x))
        x = x + eta_s * (pi @ W - x)
        np.testing.assert_allclose(x, V @ (x_inf + q**r * (x0 - x_inf)), rtol=1e-12, atol=1e-12)
    w_opt = np.linalg.solve(np.einsum("k,kij->ij", pi, Q), pi @ b)
    drift = np.linalg.norm(V @ x_inf - w_opt)
    assert drift < 1e-12 if E == 1 else drift > 1e-3


def _verdict(cid: str, patch=None, seed: int = 0) -> str:
    claim = get(cid)
    with patch() if patch is not None else contextlib.nullcontext():
        seeds = claim.seeds("quick", seed)
        records = pd.concat([claim.simulate(p, seeds) for p in claim.points("quick")])
        return claim.judge(records, "quick")["verdict"]


@pytest.mark.parametrize("patch, verdict", [(None, "pass"), (bb.kernel_prox_sign, "fail")])
def test_fedprox_diagonal_claim(patch, verdict):
    assert _verdict("bao.exact/structured-fedprox-diagonal", patch) == verdict


@pytest.mark.slow
@pytest.mark.parametrize("cid", ["bao.exact/structured-fedavg-basis", "bao.exact/structured-fedprox-basis",
                                 "bao.exact/structured-fedavg-diagonal"])
@pytest.mark.parametrize("patch", [None, bb.kernel_uniform_weights, bb.kernel_power_e_minus_one,
                                   bb.basis_transposed])
def test_fixed_point_claims_kill_the_kernel_variants(cid, patch):
    if patch is bb.basis_transposed and "diagonal" in cid:
        pytest.skip("V = I: the transposed basis is the basis")
    assert _verdict(cid, patch) == ("pass" if patch is None else "fail")


@pytest.mark.slow
@pytest.mark.parametrize("seed", base_seeds([0, 1], first_fast=False))
@pytest.mark.parametrize("patch", [None, bb.basis_transposed])
def test_noisy_returned_point_claim(seed, patch):
    assert _verdict("bao.returned/structured-fedprox", patch, seed) == ("pass" if patch is None else "fail")


# ---- diagonal-plus-rank-one federations: the round map multiplied out densely --------------------------------------
LOWRANK_SMALL = {**LOWRANK, "clients": 6, "dim": 5}


@pytest.mark.parametrize("E, mu_p, eta_s", [(1, 0.0, 1.0), (3, 0.0, 0.8), (4, 0.3, 1.0)])
def test_dense_round_law_is_the_local_recursion(E, mu_p, eta_s):
    problem = problem_of("lowrank_quadratic", LOWRANK_SMALL, skewed(6))
    fit, pi, eta = problem.datafit, problem.weights, 0.25
    x0 = np.random.default_rng(2).standard_normal(5)
    T, w_inf = dense_round_law(problem, step=eta, local_steps=E, server_step=eta_s, mu_prox=mu_p)
    x = x0.copy()
    for r in range(1, 6):  # the local steps written with the gradient δ ⊙ (w − c) + u(uᵀ(w − c)), no matrix
        W = np.broadcast_to(x, (6, 5)).copy()
        for _ in range(E):
            R = W - fit.centres
            W = W - eta * (fit.delta * R + np.einsum("kd,kd->k", fit.u, R)[:, None] * fit.u + mu_p * (W - x))
        x = x + eta_s * (pi @ W - x)
        np.testing.assert_allclose(x, w_inf + np.linalg.matrix_power(T, r) @ (x0 - w_inf), rtol=1e-12, atol=1e-12)
    Q, b = client_quadratics(problem)
    drift = np.linalg.norm(w_inf - np.linalg.solve(np.einsum("k,kij->ij", pi, Q), pi @ b))
    assert drift < 1e-12 if E == 1 else drift > 1e-3


def test_dense_round_law_equals_the_shared_basis_law():
    """On a shared-basis federation both predictions apply: the dense map's trajectory is the coordinatewise one."""
    problem = problem_of("structured_quadratic", SMALL, skewed(6))
    x0 = np.random.default_rng(3).standard_normal(5)
    V, x_inf, q, xt0 = fixed_point_law(problem, step=0.5, local_steps=3, server_step=0.8, w0=x0)
    T, w_inf = dense_round_law(problem, step=0.5, local_steps=3, server_step=0.8)
    np.testing.assert_allclose(w_inf, V @ x_inf, rtol=1e-12, atol=1e-12)
    for r in (1, 4):
        np.testing.assert_allclose(w_inf + np.linalg.matrix_power(T, r) @ (x0 - w_inf),
                                   V @ (x_inf + q**r * (xt0 - x_inf)), rtol=1e-11, atol=1e-12)


@pytest.mark.parametrize("cid, patch, verdict", [
    ("bao.exact/lowrank-fedavg", None, "pass"), ("bao.exact/lowrank-fedprox", None, "pass"),
    ("bao.exact/lowrank-fedavg", bb.lowrank_kernel_no_rank_one, "fail"),
    ("bao.exact/lowrank-fedavg", bb.lowrank_kernel_uniform_weights, "fail"),
    ("bao.exact/lowrank-fedprox", bb.lowrank_kernel_prox_sign, "fail")])
def test_lowrank_claims(cid, patch, verdict):
    assert _verdict(cid, patch) == verdict


# ---- least squares with implicit features: real minibatches through the family's own row gradients -----------------
@pytest.mark.parametrize("patch, verdict", [(None, "pass"), (bb.implicit_batch_mean_over_n, "fail"),
                                            (bb.minibatch_mean_off_by_one, "fail")])
def test_implicit_returned_point_claim(patch, verdict):
    """The exact mean comes from the explicit samples (formed from the scales and DCT rows), the run from the
    implicit row gradients: a minibatch gradient averaged over n or over B + 1 moves the mean."""
    assert _verdict("bao.returned/fedavg-implicit", patch) == verdict


def test_exact_sample_oracle_of_implicit_features_is_the_explicit_one():
    from fedrates.verify import exact
    from fedrates.verify.claims.bao.exact import IMPLICIT, IMPLICIT_WEIGHTS

    problem = problem_of("implicit_least_squares", IMPLICIT, IMPLICIT_WEIGHTS)
    twin = problem.datafit.to_sample_least_squares()
    oracle = exact.sample_oracle(problem, 2)
    np.testing.assert_array_equal(oracle.X, twin.X)
    np.testing.assert_allclose(oracle.Q, np.einsum("kni,knj->kij", twin.X, twin.X) / twin.X.shape[1], rtol=1e-14)
    Q, _ = client_quadratics(problem)
    np.testing.assert_allclose(Q, problem.datafit.hessians, rtol=1e-12, atol=1e-14)
