"""Penalties: exact prox (with and without the ball) vs closed forms and brute-force minimisation; dual norms."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize

from fedrates.solvers.penalties import L1, Nuclear, Zero


def _prox_objective(pen, v, step, radius):
    def f(x):
        x = x.reshape(v.shape)
        val = 0.5 * np.sum((x - v) ** 2) + step * float(pen.value(x))
        if radius is not None and np.linalg.norm(x) > radius:
            return val + 1e6 * (np.linalg.norm(x) - radius)  # exact penalty for the ball
        return val
    return f


@pytest.mark.parametrize("pen,shape", [(L1(lam=0.7), (5,)), (Nuclear(lam=0.7), (3, 2)), (Zero(), (4,))])
@pytest.mark.parametrize("radius", [None, 0.8])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_prox_beats_brute_force(pen, shape, radius, seed):
    rng = np.random.default_rng(seed)
    v = 2 * rng.standard_normal(shape)
    x = pen.prox(v, 1.3, radius)
    f = _prox_objective(pen, v, 1.3, radius)
    if radius is not None:
        assert np.linalg.norm(x) <= radius * (1 + 1e-12)
    best = min(minimize(f, x0, method="Powell", options={"xtol": 1e-10, "ftol": 1e-12}).fun
                for x0 in [rng.standard_normal(v.size) for _ in range(3)] + [v.ravel()])
    assert f(x.ravel()) <= best + 1e-8
    # first-order optimality: no random feasible perturbation improves
    for _ in range(200):
        y = x + 1e-3 * rng.standard_normal(shape)
        if radius is not None and np.linalg.norm(y) > radius:
            continue
        assert f(x.ravel()) <= f(y.ravel()) + 1e-12


def test_l1_prox_closed_form():
    v = np.array([3.0, -0.5, 1.0, -2.0])
    x = L1(lam=0.5).prox(v, 2.0)  # threshold 1
    assert np.allclose(x, [2.0, 0.0, 0.0, -1.0])
    # with a ball of radius 1: radial projection of (2, 0, 0, -1), norm √5
    assert np.allclose(L1(lam=0.5).prox(v, 2.0, radius=1.0), np.array([2.0, 0, 0, -1.0]) / np.sqrt(5))


def test_nuclear_prox_closed_form_on_rotated_diagonal():
    rng = np.random.default_rng(4)
    U, _ = np.linalg.qr(rng.standard_normal((3, 3)))
    V, _ = np.linalg.qr(rng.standard_normal((2, 2)))
    S = np.zeros((3, 2))
    S[0, 0], S[1, 1] = 3.0, 0.4
    x = Nuclear(lam=1.0).prox(U @ S @ V.T, 0.5)
    expected = np.zeros((3, 2))
    expected[0, 0] = 2.5
    assert np.allclose(x, U @ expected @ V.T)


@pytest.mark.parametrize("pen,shape", [(L1(lam=0.3), (6,)), (Nuclear(lam=0.3), (3, 3))])
def test_batched_steps_equal_individual(pen, shape):
    rng = np.random.default_rng(5)
    V = rng.standard_normal((4,) + shape)
    steps = np.array([0.1, 1.0, 2.0, 5.0])
    X = pen.prox(V, steps, 1.5)
    for i in range(4):
        assert np.allclose(X[i], pen.prox(V[i], steps[i], 1.5))


def test_dual_norms():
    rng = np.random.default_rng(6)
    g = rng.standard_normal(7)
    assert L1(lam=1.0).dual_norm(g) == pytest.approx(np.max(np.abs(g)))
    # Hölder is attained: w = sign(g_i) e_i with i = argmax |g_i|
    i = int(np.argmax(np.abs(g)))
    w = np.zeros(7)
    w[i] = np.sign(g[i])
    assert g @ w == pytest.approx(L1(lam=1.0).norm(w) * L1(lam=1.0).dual_norm(g))
    G = rng.standard_normal((4, 3))
    assert Nuclear(lam=1.0).dual_norm(G) == pytest.approx(np.linalg.norm(G, 2))
    for _ in range(50):
        W = rng.standard_normal((4, 3))
        assert np.sum(G * W) <= Nuclear().norm(W) * Nuclear().dual_norm(G) + 1e-12
    assert Nuclear().norm(G) == pytest.approx(np.linalg.norm(G, "nuc"))
