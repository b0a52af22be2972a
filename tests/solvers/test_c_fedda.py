"""C-FedDA and MC-FedDA (Bao et al. 2022, Algorithms 2 and 3): hand rounds, reductions, constrained optimum."""

from __future__ import annotations

import warnings

import cvxpy as cp
import numpy as np
import pytest

from fedrates.solvers import problems
from fedrates.solvers.algorithms import make, run, run_batch
from fedrates.solvers.errors import InputError
from fedrates.solvers.penalties import Zero
from fedrates.solvers.problems.base import Problem
from fedrates.solvers.problems.datafits import DenseQuadratic
from fedrates.solvers.reference import solve


def toy(radius=None) -> Problem:
    """f_1 = ½‖w − (1, 0)‖², f_2 = ½‖w − (0, 2)‖², π = (½, ½), no penalty."""
    c = np.array([[1.0, 0.0], [0.0, 2.0]])
    fit = DenseQuadratic(Q=np.stack([np.eye(2)] * 2), b=c, c=0.5 * np.sum(c * c, axis=1))
    return Problem(family="quadratic", preset=None, params={"toy": "two-client"}, shape=(2,),
                   weights=np.array([0.5, 0.5]), datafit=fit, penalty=Zero(), radius=radius, sampling="gaussian")


def test_two_rounds_by_hand():
    """μ = 1, a = 1 (α_r = 1, 4, 9), γ = 2, E = 2, w₀ = 0, ε₀ = 100 (inactive): CProx_r(z) = −z/(E(A_r/2 + 2)).

    Round 0 (A=1, E·c=5, w̃=0): W¹ = (0.2, 0), W² = (0, 0.4); G¹ = (−1.8, 0), G² = (0, −3.6);
      w̄₁ = (0.9, 1.8)/5 = (0.18, 0.36); output w̄₁; w̃₁ = 4w̄₁ = (0.72, 1.44).
    Round 1 (A=5, E·c=9, shift μE w̃₁/2 = (0.72, 1.44)): G¹ = (−0.9, −1.8) + 4(−0.82, 0.36) = (−4.18, −0.36),
      G² = (−0.9, −1.8) + 4(0.18, −1.64) = (−0.18, −8.36); W¹ = (4.9, 1.8)/9, W² = (0.9, 9.8)/9;
      G¹ += 4(4.9/9 − 1, 0.2), G² += 4(0.1, 9.8/9 − 2); w̄₂ = −(ḡ − (0.72, 1.44))/9; output (w̄₁ + 4w̄₂)/5.
    """
    p = toy()
    alg = make("c_fedda", mu=1.0, a=1.0, gamma=2.0, local_steps=2, eps0=100.0)
    ref = solve(p)
    one = run(alg, p, rounds=1, gradients="exact", reference=ref)
    np.testing.assert_allclose(one.w, [0.18, 0.36], rtol=1e-13)
    G1 = np.array([-4.18, -0.36]) + 4 * np.array([4.9 / 9 - 1, 0.2])
    G2 = np.array([-0.18, -8.36]) + 4 * np.array([0.1, 9.8 / 9 - 2])
    wbar2 = -(0.5 * (G1 + G2) - np.array([0.72, 1.44])) / 9
    two = run(alg, p, rounds=2, gradients="exact", reference=ref)
    np.testing.assert_allclose(two.state["wbar"][0], wbar2, rtol=1e-12)
    np.testing.assert_allclose(two.w, (np.array([0.18, 0.36]) + 4 * wbar2) / 5, rtol=1e-12)
    np.testing.assert_allclose(two.state["wt"][0], 4 * np.array([0.18, 0.36]) + 9 * wbar2, rtol=1e-12)


@pytest.mark.parametrize("clients", [1, 4])
def test_one_local_step_inactive_ball_equals_fast_fedda(clients):
    """E = 1 and an inactive R-ball: CProx_r = Prox_r and round weights = step weights, so C-FedDA's iterates and
    weighted output coincide with Fast-FedDA's (itself checked against centralised dual averaging)."""
    p = problems.make("quadratic", clients=clients, dim=5, mu=0.5, L=2.0, lam=0.05, radius=5.0, seed=1)
    ref = solve(p)
    c = run("c_fedda", p, rounds=60, gradients="exact", reference=ref)
    f = run("fast_fedda", p, rounds=60, gradients="exact", reference=ref)
    np.testing.assert_allclose(c.w, f.w, rtol=1e-10, atol=1e-13)


def _constrained_optimum(p, w0, eps):
    Q, b, _ = p.quadratic
    L = np.linalg.cholesky(Q)
    w = cp.Variable(p.dim)
    obj = 0.5 * cp.sum_squares(L.T @ w) - b @ w + p.penalty.lam * cp.norm1(w)
    cons = [cp.norm1(w - w0) <= eps, cp.norm(w, 2) <= p.radius]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        prob = cp.Problem(cp.Minimize(obj), cons)
        prob.solve(solver="CLARABEL", tol_gap_abs=1e-12, tol_gap_rel=1e-12, tol_feas=1e-12)
    return w.value, float(cons[0].dual_value)


def test_active_r_ball_off_centre_converges_to_constrained_optimum():
    """w₀ ≠ 0 and ε₀ below R(w₀ − ŵ): C-FedDA solves min φ over 𝒲(ε₀; w₀) (the comparator of Thm 3.1, I-14)."""
    p = problems.make("quadratic", clients=4, dim=5, mu=0.5, L=2.0, lam=0.05, radius=5.0, seed=1)
    ref = solve(p)
    w0 = 0.3 * np.ones(5)
    eps = 0.5 * float(np.abs(ref.w - w0).sum())
    target, dual = _constrained_optimum(p, w0, eps)
    assert dual > 1e-3  # the R-ball really is active
    tr = run("c_fedda", p, rounds=300, gradients="exact", w0=w0, eps0=eps, local_steps=2, reference=ref)
    assert np.abs(tr.w - w0).sum() <= eps * (1 + 1e-9)
    assert np.abs(tr.state["wbar"][0] - w0).sum() <= eps * (1 + 1e-9)
    assert np.linalg.norm(tr.w - target) < 2e-3
    early = run("c_fedda", p, rounds=30, gradients="exact", w0=w0, eps0=eps, local_steps=2, reference=ref)
    assert np.linalg.norm(tr.w - target) < 0.2 * np.linalg.norm(early.w - target)


def test_mc_fedda_schedule_and_warm_starts():
    p = problems.make("quadratic", clients=3, dim=4, mu=0.5, L=2.0, lam=0.04, radius=5.0, seed=2)
    alg = make("mc_fedda", stages=3, stage_rounds=5, psi=1.0)
    lams, eps = alg.schedule(p)
    assert lams == [0.16, 0.08, 0.04]
    np.testing.assert_allclose(eps, [108 * lam / 0.5 for lam in lams])
    outputs = {}

    def grab(r, state):
        outputs[r] = (state["stage"], alg.output(state).copy(), state["w0"].copy())

    ref = solve(p)
    run_batch(alg, p, rounds=12, gradients="exact", reference=ref, callback=grab)
    assert [outputs[r][0] for r in (5, 6, 10, 11, 12)] == [0, 1, 1, 2, 2]
    np.testing.assert_array_equal(outputs[6][2], outputs[5][1])  # stage-1 centre = stage-0 output
    np.testing.assert_array_equal(outputs[11][2], outputs[10][1])
    # lam0 given: M = ceil(log2(lam0/lam_opt)) + 1 and the last stage uses lam_opt exactly
    assert make("mc_fedda", lam0=0.3, psi=1.0).schedule(p)[0] == [0.3, 0.15, 0.075, 0.04]


def test_mc_fedda_single_stage_is_c_fedda():
    p = problems.make("quadratic", clients=3, dim=4, mu=0.5, L=2.0, lam=0.04, radius=5.0, seed=2)
    ref = solve(p)
    w0 = 0.2 * np.ones(4)
    mc = run("mc_fedda", p, rounds=15, gradients="exact", stages=1, psi=0.1, w0=w0, local_steps=2, reference=ref)
    c = run("c_fedda", p, rounds=15, gradients="exact", eps0=108 * 0.01 * 0.04 / 0.5, w0=w0, local_steps=2,
            reference=ref)
    np.testing.assert_allclose(mc.w, c.w, rtol=1e-12, atol=1e-15)  # ε differs by rounding only


def test_mc_fedda_converges_to_optimum():
    p = problems.make("quadratic", clients=4, dim=5, mu=0.5, L=2.0, lam=0.05, radius=5.0, seed=1)
    ref = solve(p)
    tr = run("mc_fedda", p, rounds=150, gradients="exact", psi=1.0, stage_rounds=30, reference=ref)
    assert tr.records["objective_gap"].iloc[-1] < 1e-6


def test_deterministic_stochastic_runs():
    p = problems.make("quadratic", clients=3, dim=4, mu=0.5, L=2.0, lam=0.02, sigma=0.5, radius=3.0, seed=2)
    ref = solve(p)
    a = run_batch("c_fedda", p, rounds=10, seeds=[1, 2], reference=ref, local_steps=2)
    b = run_batch("c_fedda", p, rounds=10, seeds=[1, 2], reference=ref, local_steps=2)
    np.testing.assert_array_equal(a.w, b.w)
    assert not np.allclose(a.w[0], a.w[1])


def test_input_errors_and_checks():
    free = problems.make("quadratic", clients=2, dim=3, mu=0.5, L=2.0, lam=0.05, seed=0)
    with pytest.raises(InputError, match="eps0"):
        run("c_fedda", free, rounds=1, gradients="exact")
    tr = run("c_fedda", free, rounds=2, gradients="exact", eps0=1.0)
    assert any("ball" in m for m in tr.warnings)
    ball = problems.make("quadratic", clients=2, dim=3, mu=0.5, L=2.0, lam=0.05, radius=1.0, seed=0)
    with pytest.raises(InputError, match="inside the ball"):
        run("c_fedda", ball, rounds=1, gradients="exact", w0=np.full(3, 2.0))
    with pytest.raises(InputError, match="psi"):
        run("mc_fedda", ball, rounds=1, gradients="exact")
    smooth = problems.make("quadratic", clients=2, dim=3, mu=0.5, L=2.0, radius=1.0, seed=0)
    with pytest.raises(InputError, match="penalty"):
        run("mc_fedda", smooth, rounds=1, gradients="exact", psi=1.0)
    assert any("4L/mu" in m for m in make("c_fedda", a=1.0).check(ball))


def test_missing_eps0_message_names_the_value_to_pass():
    """No ball and no eps0: the error says what eps0 means and suggests 2·R(w0 − w_truth) (here ‖w0 − w*‖₁)."""
    p = problems.make("lasso", clients=2, dim=6, sparsity=2, seed=0)
    assert p.radius is None
    w0 = np.full(6, 0.25)
    expected = 2 * float(np.abs(w0 - p.truth).sum())  # truth has two ones: 2·(0.75·2 + 0.25·4) = 5
    assert expected == 5.0
    with pytest.raises(InputError, match=r"pass eps0=E.*R\(w - w0\) <= E.*e\.g\. eps0=5$"):
        run("c_fedda", p, rounds=1, gradients="exact", mu=0.1, w0=w0)
    tr = run("c_fedda", p, rounds=1, gradients="exact", mu=0.1, w0=w0, eps0=expected)
    assert np.abs(tr.w - w0).sum() <= expected * (1 + 1e-12)
