"""Stochastic oracles: unbiasedness (z-test |z| ≤ 5 per coordinate, false alarm ≈ 6e-7 each), per-client streams,
reproducibility, sampling without replacement."""

from __future__ import annotations

import numpy as np
import pytest

from fedrates.solvers import problems
from fedrates.solvers.oracles import make_streams, minibatch_gradients

CASES = [
    ("lasso", {"clients": 3, "samples": 10, "dim": 4, "sparsity": 2}),
    ("lasso", {"clients": 3, "samples": 10, "dim": 4, "sparsity": 2, "sampling": "population"}),
    ("quadratic", {"clients": 3, "dim": 4, "sigma": 0.5}),
]


@pytest.mark.parametrize("family,params", CASES)
@pytest.mark.parametrize("seed", [0, 1])
def test_unbiased(family, params, seed):
    p = problems.make(family, **params)
    R = 1500
    streams = [make_streams(seed * 10**5 + r, p.clients).clients for r in range(R)]
    W = np.broadcast_to(np.random.default_rng(seed).standard_normal(p.shape), (R, p.clients) + p.shape).copy()
    G = minibatch_gradients(p, W, streams, np.arange(p.clients), batch=2)
    exact = p.client_gradients(W[0])
    se = G.std(axis=0, ddof=1) / np.sqrt(R)
    assert np.all(np.abs(G.mean(axis=0) - exact) <= 5 * se + 1e-12)


@pytest.mark.parametrize("family,params", CASES)
def test_client_stream_independent_of_participation(family, params):
    p = problems.make(family, **params)
    w = np.ones((1, 1) + p.shape)

    def grad_of_client_1(order):
        streams = [make_streams(7, p.clients).clients]
        W = np.broadcast_to(w, (1, len(order)) + p.shape).copy()
        G = minibatch_gradients(p, W, streams, np.array(order), batch=3)
        return G[0, order.index(1)]

    alone = grad_of_client_1([1])
    assert np.array_equal(alone, grad_of_client_1([0, 1, 2]))
    assert np.array_equal(alone, grad_of_client_1([2, 1]))


@pytest.mark.parametrize("family,params", CASES)
def test_equal_seeds_bit_identical(family, params):
    p = problems.make(family, **params)
    W = np.random.default_rng(1).standard_normal((2, p.clients) + p.shape)

    def draw(seed):
        streams = [make_streams(seed + r, p.clients).clients for r in range(2)]
        return minibatch_gradients(p, W, streams, np.arange(p.clients), batch=2)

    assert np.array_equal(draw(3), draw(3))
    assert not np.array_equal(draw(3), draw(4))


def test_without_replacement_full_batch_is_exact_gradient():
    # B = n without replacement uses every sample exactly once, iff the indices are distinct
    p = problems.make("lasso", clients=2, samples=6, dim=3, sparsity=1)
    w = np.random.default_rng(2).standard_normal(3)
    for seed in range(5):
        streams = [make_streams(seed, 2).clients]
        G = minibatch_gradients(p, np.broadcast_to(w, (1, 2, 3)).copy(), streams, np.arange(2), batch=6)
        assert np.allclose(G[0], p.client_gradients(np.broadcast_to(w, (2, 3))), atol=1e-12)
    # with replacement the same batch size repeats indices for some seed and differs from the exact gradient
    differs = []
    for seed in range(5):
        streams = [make_streams(seed, 2).clients]
        G = minibatch_gradients(p, np.broadcast_to(w, (1, 2, 3)).copy(), streams, np.arange(2), batch=6,
                                replace=True)
        differs.append(not np.allclose(G[0], p.client_gradients(np.broadcast_to(w, (2, 3)))))
    assert any(differs)
