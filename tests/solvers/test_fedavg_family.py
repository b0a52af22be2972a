"""FedAvg, FedProx, FedMiD, FedDA: hand-computed rounds, reductions to centralized methods, convergence."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from fedrates.solvers import algorithms as alg
from fedrates.solvers import problems
from fedrates.solvers.oracles import make_streams, minibatch_gradients
from fedrates.solvers.penalties import L1, Zero
from fedrates.solvers.problems.base import Problem
from fedrates.solvers.problems.datafits import DenseQuadratic


def toy(lam: float = 0.0) -> Problem:
    """Two clients in 2-D: f_1(w) = ½‖w‖² − w_1 (∇f_1 = w − (1, 0)), f_2(w) = ‖w‖² − 2w_2 (∇f_2 = 2w − (0, 2)),
    weights π = (1/4, 3/4)."""
    Q = np.array([np.eye(2), 2 * np.eye(2)])
    b = np.array([[1.0, 0.0], [0.0, 2.0]])
    return Problem(family="quadratic", preset=None, params={}, shape=(2,), weights=np.array([0.25, 0.75]),
                   datafit=DenseQuadratic(Q=Q, b=b, c=np.zeros(2)), penalty=L1(lam=lam) if lam else Zero(),
                   sampling="gaussian")


def two_rounds(name: str, problem: Problem, **hyper) -> list[np.ndarray]:
    """Outputs after rounds 1 and 2 with exact gradients from w0 = 0."""
    method = alg.make(name, **hyper)
    seen = []
    alg.run_batch(method, problem, 2, gradients="exact", callback=lambda r, s: seen.append(method.output(s)[0]))
    return seen


# ---- hand-computed two-round trajectories (η_c = 1/4, exact gradients, w0 = 0) ----------------------------------
def test_fedavg_two_rounds_by_hand():
    # round 1: client 1: (0,0) → (1/4, 0) → (7/16, 0); client 2: w ← w/2 + (0, 1/2): (0, 1/2) → (0, 3/4)
    #          x1 = ¼(7/16, 0) + ¾(0, 3/4) = (7/64, 9/16)
    # round 2: client 1: (0.33203125, 0.421875) → (0.4990234375, 0.31640625); client 2: (0.0546875, 0.78125) →
    #          (0.02734375, 0.890625);  x2 = (0.145263671875, 0.7470703125)
    x1, x2 = two_rounds("fedavg", toy(), step=0.25, local_steps=2)
    np.testing.assert_allclose(x1, [7 / 64, 9 / 16], rtol=0, atol=1e-15)
    np.testing.assert_allclose(x2, [0.145263671875, 0.7470703125], rtol=0, atol=1e-15)


def test_fedavg_server_step_by_hand():
    # η_s = 1/2: x1 = 0 + ½((7/64, 9/16) − 0)
    x1, _ = two_rounds("fedavg", toy(), step=0.25, local_steps=2, server_step=0.5)
    np.testing.assert_allclose(x1, [7 / 128, 9 / 32], rtol=0, atol=1e-15)


def test_fedprox_two_rounds_by_hand():
    # direction g + μ(w − x), μ = 1. Round 1: client 1: (1/4, 0) → (3/8, 0); client 2: (0, 1/2) → (0, 5/8)
    #   x1 = (3/32, 15/32).  Round 2: client 1: (0.3203125, 0.3515625) → (0.43359375, 0.29296875);
    #   client 2: (0.046875, 0.734375) → (0.03515625, 0.80078125); x2 = (0.134765625, 0.673828125)
    x1, x2 = two_rounds("fedprox", toy(), step=0.25, local_steps=2, mu_prox=1.0)
    np.testing.assert_allclose(x1, [3 / 32, 15 / 32], rtol=0, atol=1e-15)
    np.testing.assert_allclose(x2, [0.134765625, 0.673828125], rtol=0, atol=1e-15)


def test_fedmid_two_rounds_by_hand():
    # λ = 1/2, E = 1, local threshold η_cλ = 1/8, server threshold η_sη_cEλ = 1/8 (fco).
    # Round 1: client 1: soft((1/4, 0)) = (1/8, 0); client 2: soft((0, 1/2)) = (0, 3/8);
    #   average (1/32, 9/32) → server soft → (0, 5/32).
    # Round 2: client 1: soft((1/4, 0.1171875)) = (1/8, 0); client 2: soft((0, 0.578125)) = (0, 0.453125);
    #   average (1/32, 0.33984375) → server soft → (0, 0.21484375)
    x1, x2 = two_rounds("fedmid", toy(0.5), step=0.25, local_steps=1)
    np.testing.assert_allclose(x1, [0, 5 / 32], rtol=0, atol=1e-15)
    np.testing.assert_allclose(x2, [0, 0.21484375], rtol=0, atol=1e-15)


def test_fedda_two_rounds_by_hand():
    # λ = 1/2, η_c = 1/4, E = 2.  Round 0: thresholds λ(0 + η_c e) = 0, 1/8.
    #   client 1: z: (1/4, 0) → w = (1/8, 0), g = (−7/8, 0) → z = (15/32, 0)
    #   client 2: z: (0, 1/2) → w = (0, 3/8), g = (0, −5/4) → z = (0, 13/16)
    #   z1 = (0.1171875, 0.609375); w1 = soft(z1, λ·η_c·1·2 = 1/4) = (0, 0.359375)
    # Round 1: thresholds λ(η_c·1·2 + η_c e) = 1/4, 3/8.
    #   client 1 → z = (0.6171875, 0.4833984375); client 2 → z = (0.1171875, 1.15234375)
    #   z2 = (0.2421875, 0.985107421875); w2 = soft(z2, λ·η_c·2·2 = 1/2) = (0, 0.485107421875)
    w1, w2 = two_rounds("fedda", toy(0.5), step=0.25, local_steps=2)
    np.testing.assert_allclose(w1, [0, 0.359375], rtol=0, atol=1e-15)
    np.testing.assert_allclose(w2, [0, 0.485107421875], rtol=0, atol=1e-15)


# ---- reductions --------------------------------------------------------------------------------------------------
def test_fedavg_exact_one_step_is_gradient_descent():
    p = problems.make("quadratic", clients=5, dim=6, weight_skew=1.0, seed=4)
    Q = np.einsum("k,kij->ij", p.weights, p.datafit.Q)
    b = p.weights @ p.datafit.b
    x = np.linspace(-1, 1, 6)
    t = alg.run("fedavg", p, 25, gradients="exact", step=0.3, w0=x)
    for _ in range(25):
        x = x - 0.3 * (Q @ x - b)
    np.testing.assert_allclose(t.w, x, rtol=1e-12, atol=1e-14)


def test_fedprox_with_zero_mu_is_fedavg_bit_for_bit():
    p = problems.make("quadratic", clients=6, dim=5, sigma=1.0, seed=5)
    kw = dict(participating=3, local_steps=4, step=0.1, server_step=0.7, seeds=[3, 8])
    a = alg.run_batch("fedavg", p, 10, **kw)
    b = alg.run_batch("fedprox", p, 10, mu_prox=0.0, **kw)
    assert np.array_equal(a.w, b.w)


def _soft(v, k):
    return np.sign(v) * np.maximum(np.abs(v) - k, 0.0)


def _ball(v, rho):
    n = np.linalg.norm(v)
    return v if rho is None or n <= rho else v * (rho / n)


@pytest.mark.parametrize("radius", [None, 3.0])
def test_fedmid_one_client_one_step_is_prox_sgd(radius):
    p = problems.make("lasso", clients=1, samples=30, dim=10, sparsity=3, lam=0.05, radius=radius, seed=7)
    eta, lam, seed, T = 0.05, 0.05, 11, 30
    t = alg.run("fedmid", p, T, seed=seed, step=eta, batch=5, server_prox="none")
    rngs = [make_streams(seed, 1).clients]
    w = np.zeros(10)
    for _ in range(T):
        g = minibatch_gradients(p, w[None, None], rngs, np.array([[0]]), 5)[0, 0]
        w = _ball(_soft(w - eta * g, eta * lam), radius)
    np.testing.assert_allclose(t.w, w, rtol=1e-12, atol=1e-14)


def test_fedmid_fco_server_prox_doubles_the_threshold():
    """With the server prox (threshold η_sη_cEλ), one client and one step is prox-SGD with threshold 2η_cλ."""
    p = problems.make("lasso", clients=1, samples=30, dim=10, sparsity=3, lam=0.05, seed=7)
    eta, lam, T = 0.05, 0.05, 20
    t = alg.run("fedmid", p, T, step=eta, gradients="exact")
    Q, b, _ = p.quadratic
    w = np.zeros(10)
    for _ in range(T):
        w = _soft(w - eta * (Q @ w - b), 2 * eta * lam)
    np.testing.assert_allclose(t.w, w, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("radius", [None, 2.0])
def test_fedda_one_client_one_step_is_regularised_dual_averaging(radius):
    """RDA: w_t = argmin_{‖w‖≤ρ} ⟨Σ_{i<t} g_i, w⟩ + ‖w − w0‖²/(2η) + tλ‖w‖₁ = Π(soft(w0 − ηΣg, tηλ))."""
    p = problems.make("lasso", clients=1, samples=30, dim=10, sparsity=3, lam=0.05, radius=radius, seed=7)
    eta, lam, seed, T = 0.05, 0.05, 4, 30
    w0 = np.full(10, 0.1)
    t = alg.run("fedda", p, T, seed=seed, step=eta, batch=5, w0=w0)
    rngs = [make_streams(seed, 1).clients]
    w, gsum = w0.copy(), np.zeros(10)
    for i in range(T):
        g = minibatch_gradients(p, w[None, None], rngs, np.array([[0]]), 5)[0, 0]
        gsum += g
        w = _ball(_soft(w0 - eta * gsum, (i + 1) * eta * lam), radius)
    np.testing.assert_allclose(t.w, w, rtol=1e-12, atol=1e-14)


# ---- convergence to a certified optimum --------------------------------------------------------------------------
def _l1_quadratic_optimum(Q, b, lam):
    """argmin ½wᵀQw − bᵀw + λ‖w‖₁ by proximal gradient, certified by the KKT conditions."""
    L = np.linalg.eigvalsh(Q).max()
    w = np.zeros(len(b))
    for _ in range(20000):
        w = _soft(w - (Q @ w - b) / L, lam / L)
    g = Q @ w - b
    nz = w != 0
    assert np.allclose(g[nz], -lam * np.sign(w[nz]), atol=1e-12) and np.all(np.abs(g[~nz]) <= lam + 1e-12)
    return w


def test_fedavg_exact_converges_to_optimum():
    p = problems.make("quadratic", clients=4, dim=5, mu=0.5, L=2.0, seed=3)
    Q, b, _ = p.quadratic
    w_opt = np.linalg.solve(Q, b)
    ref = SimpleNamespace(w=w_opt, value=float(p.objective(w_opt)))
    t = alg.run("fedavg", p, 200, gradients="exact", step=0.5, reference=ref)
    assert t.final()["distance_to_optimum"] < 1e-10
    assert abs(t.final()["objective_gap"]) < 1e-14


@pytest.mark.parametrize("name,lam,hyper", [("fedda", 0.1, {}), ("fedmid", 0.4, {"server_prox": "none"})])
def test_composite_exact_converges_to_l1_optimum(name, lam, hyper):
    """FedDA (full participation, E = 1) is centralized RDA; FedMiD is checked with one client (with several
    heterogeneous clients its fixed point is biased)."""
    clients = 4 if name == "fedda" else 1
    p = problems.make("quadratic", clients=clients, dim=4, lam=lam, mu=0.5, L=2.0, seed=2)
    Q, b, _ = p.quadratic
    w_opt = _l1_quadratic_optimum(Q, b, lam)
    assert np.sum(w_opt == 0) >= 1  # the penalty is active
    ref = SimpleNamespace(w=w_opt, value=float(p.objective(w_opt)))
    t = alg.run(name, p, 300, gradients="exact", step=0.5, reference=ref, **hyper)
    assert t.final()["distance_to_optimum"] < 1e-10
    assert abs(t.final()["objective_gap"]) < 1e-12
    assert np.all(t.w[w_opt == 0] == 0)  # exact zeros from the prox


def test_fedmid_with_server_prox_targets_doubled_penalty():
    """One client, E = 1, fco server prox: the fixed point is the optimum of F + 2λ‖·‖₁, not of φ."""
    p = problems.make("quadratic", clients=1, dim=4, lam=0.1, mu=0.5, L=2.0, seed=2)
    Q, b, _ = p.quadratic
    w2 = _l1_quadratic_optimum(Q, b, 0.2)
    t = alg.run("fedmid", p, 300, gradients="exact", step=0.5)
    np.testing.assert_allclose(t.w, w2, atol=1e-10)


def test_nuclear_problem_runs_and_keeps_low_rank():
    p = problems.make("trace")
    t = alg.run("fedda", p, 3, participating=2, local_steps=2, step=1e-3)
    assert t.w.shape == p.shape and np.isfinite(t.records["rank"]).all()
