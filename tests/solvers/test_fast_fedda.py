"""Fast-FedDA (Bao et al. 2022, Algorithm 1): reduction, hand-computed rounds, convergence, the I-1 sign."""

from __future__ import annotations

import numpy as np
import pytest

from fedrates.solvers import problems
from fedrates.solvers.algorithms import make, run, run_batch
from fedrates.solvers.penalties import L1, Zero
from fedrates.solvers.problems.base import Problem
from fedrates.solvers.problems.datafits import DenseQuadratic
from fedrates.solvers.reference import solve


def toy(penalty=None, radius=None) -> Problem:
    """f_1 = ½‖w − (1, 0)‖², f_2 = ½‖w − (0, 2)‖², π = (½, ½)."""
    c = np.array([[1.0, 0.0], [0.0, 2.0]])
    fit = DenseQuadratic(Q=np.stack([np.eye(2)] * 2), b=c, c=0.5 * np.sum(c * c, axis=1))
    return Problem(family="quadratic", preset=None, params={"toy": "two-client"}, shape=(2,),
                   weights=np.array([0.5, 0.5]), datafit=fit, penalty=penalty or Zero(), radius=radius,
                   sampling="gaussian")


def test_two_rounds_by_hand():
    """μ = 1, a = 1 (α = 1, 4, 9, 16), γ = 2, E = 2, w₀ = 0: Prox_t(z) = −z/(A_t/2 + 2).

    Round 0: t=0: G¹ = (−1, 0), G² = (0, −2); virtual (0.2, 0.4); W¹ = (0.4, 0), W² = (0, 0.8); w̃ᵏ = 4Wᵏ.
             t=1: G¹ = (−3.4, 0), G² = (0, −6.8); server w₂ = (2.1, 4.2)/4.5; output (31/15, 62/15)/5.
    Round 1: t=2: w̃ = (5, 10), g = (−1.7, −3.4); G¹ = (−6.5, 5), G² = (2.5, −13); virtual (0.5, 1);
             W¹ = (1, 0), W² = (0, 2) (zero gradients next); t=3: server (0.5, 1).
             output = ((31/15 + 4.5 + 8), (62/15 + 9 + 16))/30 = (218.5, 437)/450.
    """
    p = toy()
    alg = make("fast_fedda", mu=1.0, a=1.0, gamma=2.0, local_steps=2)
    ref = solve(p)
    one = run(alg, p, rounds=1, gradients="exact", reference=ref)
    np.testing.assert_allclose(one.w, np.array([31 / 75, 62 / 75]), rtol=1e-13)
    np.testing.assert_allclose(one.state["w"][0], np.array([2.1, 4.2]) / 4.5, rtol=1e-13)
    two = run(alg, p, rounds=2, gradients="exact", reference=ref)
    np.testing.assert_allclose(two.w, np.array([218.5, 437.0]) / 450, rtol=1e-13)
    np.testing.assert_allclose(two.state["w"][0], [0.5, 1.0], rtol=1e-13)
    # w̃ at t* = 3 is the π-mean of (21, 10) and (5, 42) = (13, 26); then + α₄ w₄ with α₄ = 25
    np.testing.assert_allclose(two.state["wt"][0], [13 + 25 * 0.5, 26 + 25 * 1.0], rtol=1e-13)


def _centralised_rda(problem, T, mu, a, gamma, w0):
    """Single-machine strongly convex RDA in form (13) of Bao et al., history kept explicitly:

    w_{t+1} = argmin_{‖w‖≤ρ} ⟨w, Σ_{i≤t} α_i∇F(w_i)⟩ + (μ/4)Σ_{i≤t} α_i‖w − w_i‖² + (γ/2)‖w − w₀‖² + A_t λ‖w‖₁,
    solved by completing the square: quadratic coefficient q = μA_t/4 + γ/2, centre
    m = (μ/2 Σα_i w_i + γw₀ − Σα_i∇F(w_i))/(2q), then soft-threshold at A_tλ/(2q) and scale onto the ball.
    Returns (Σ_t α_t w_{t+1})/A_T.
    """
    Q, b, _ = problem.quadratic
    lam, rho = problem.penalty.lam, problem.radius
    hist_w, hist_a = [w0], []
    num, A = np.zeros_like(w0), 0.0
    grad_sum = np.zeros_like(w0)
    for t in range(T):
        al = (t + a) ** 2
        hist_a.append(al)
        A += al
        grad_sum += al * (Q @ hist_w[-1] - b)
        wsum = sum(x * y for x, y in zip(hist_a, hist_w, strict=True))
        q = mu * A / 4 + gamma / 2
        m = (mu / 2 * wsum + gamma * w0 - grad_sum) / (2 * q)
        w = np.sign(m) * np.maximum(np.abs(m) - A * lam / (2 * q), 0)
        if rho is not None and np.linalg.norm(w) > rho:
            w = w * rho / np.linalg.norm(w)
        hist_w.append(w)
        num += al * w
    return num / A


@pytest.mark.parametrize("radius", [None, 0.3])
def test_one_client_one_step_is_centralised_dual_averaging(radius):
    p = problems.make("quadratic", clients=1, dim=6, mu=0.3, L=2.0, lam=0.05, radius=radius, seed=3)
    w0 = np.linspace(-1, 1, 6)
    mu, a = 0.3, 4 * 2.0 / 0.3
    tr = run("fast_fedda", p, rounds=40, gradients="exact", w0=w0, reference=solve(p))
    expect = _centralised_rda(p, 40, mu, a, 2 * mu * a**3, w0)
    np.testing.assert_allclose(tr.w, expect, rtol=1e-10, atol=1e-12)


def test_exact_gradients_converge_to_certified_optimum_and_plus_sign_does_not():
    """E = 1 exact gradients: gap ≤ γB/(2A_T) (App. B.2 with Δ = 0 and no drift) → 0; the '+' estimator stalls."""
    p = problems.make("quadratic", clients=4, dim=5, mu=0.5, L=2.0, lam=0.05, radius=5.0, seed=1)
    ref = solve(p)
    minus = run("fast_fedda", p, rounds=400, gradients="exact", reference=ref, record_every=100)
    plus = run("fast_fedda", p, rounds=400, gradients="exact", reference=ref, record_every=100,
               estimator_sign="plus")
    gm, gp = minus.records["objective_gap"].to_numpy(), plus.records["objective_gap"].to_numpy()
    a, mu = 4 * 2.0 / 0.5, 0.5
    T = 400
    A_T = sum((t + a) ** 2 for t in range(T))
    B = float(np.sum(ref.w**2))  # w₀ = 0
    assert 0 <= gm[-1] <= 2 * mu * a**3 * B / (2 * A_T) + 1e-12
    assert gm[-1] < 1e-7
    assert np.all(np.diff(gm[1:]) < 0)
    # "+": the gap plateaus far above the "−" gap (last two records within 5%, both > 1e-2)
    assert gp[-1] > 1e-2 and abs(gp[-1] - gp[-2]) < 0.05 * gp[-1]
    assert gp[-1] > 1e4 * gm[-1]


def test_local_steps_virtual_point_equals_server_at_sync_and_converges():
    p = problems.make("quadratic", clients=4, dim=5, mu=0.5, L=2.0, lam=0.05, radius=5.0, seed=1)
    ref = solve(p)
    tr = run("fast_fedda", p, rounds=300, gradients="exact", reference=ref, local_steps=3, record_every=100)
    g = tr.records["objective_gap"].to_numpy()
    assert np.all(np.diff(g) < 0) and g[-1] < 1e-3


def test_deterministic_and_seed_dependent():
    p = problems.make("quadratic", clients=3, dim=4, mu=0.5, L=2.0, lam=0.02, sigma=0.5, seed=2)
    ref = solve(p)
    a = run_batch("fast_fedda", p, rounds=20, seeds=[1, 2], reference=ref, local_steps=2)
    b = run_batch("fast_fedda", p, rounds=20, seeds=[1, 2], reference=ref, local_steps=2)
    np.testing.assert_array_equal(a.w, b.w)
    assert not np.allclose(a.w[0], a.w[1])


def test_check_reports_small_a_and_broken_variants():
    p = problems.make("quadratic", clients=2, dim=3, mu=0.5, L=2.0, lam=0.0, seed=0)
    msgs = " ".join(make("fast_fedda", a=2.0, alpha_power=1.0).check(p))
    assert "4L/mu" in msgs and "alpha_power" in msgs
    assert not any("4L/mu" in m for m in make("fast_fedda").check(p))


def test_needs_strong_convexity():
    from fedrates.solvers.errors import InputError
    p = problems.make("quadratic", structure="factors", clients=2, dim=6, inner=3, seed=0)  # rank-3 Hessians
    with pytest.raises(InputError, match="mu"):
        run("fast_fedda", p, rounds=1, gradients="exact")
    tr = run("fast_fedda", p, rounds=2, gradients="exact", mu=0.01)  # a user-given mu is accepted
    assert any("exceeds" in m for m in tr.warnings)


def test_penalty_l1_shape_and_output_before_first_round():
    p = toy(L1(0.1), radius=2.0)
    alg = make("fast_fedda", mu=1.0)
    st = alg.init(p, np.ones((1, 2)) * 0.3)
    np.testing.assert_array_equal(alg.output(st), np.ones((1, 2)) * 0.3)
