"""The non-quadratic nonconvex federation of the Buttaci & Calafiore claims (Cauchy-loss regression): its loss,
gradients and curvature follow the module's formulas, L is certified and a wrong L is caught, f is nonconvex and
bounded below, and the oracles give the loss's own gradients (Assumption 2 with exact gradients); and the exponents
of Theorem 4's bound under the schedules E = T^a."""

from __future__ import annotations

import numpy as np
import pytest

from fedrates.solvers.certify import check_certified
from fedrates.solvers.oracles import exact_gradients
from fedrates.verify.claims.buttaci import cauchy


@pytest.fixture(scope="module")
def inst():
    return cauchy.cauchy_instance()


def test_values_gradients_and_hessians_match_the_loss(inst):
    problem, _ = inst
    fit = problem.datafit
    rng = np.random.default_rng(3)
    w = rng.standard_normal(problem.dim) * 2
    r = fit.X[2] @ w - fit.y[2]
    assert fit.client_values(w)[2] == pytest.approx(np.mean(0.5 * np.log1p(r * r)), rel=1e-13)
    h = 1e-5
    fd = np.array([(fit.client_values(w + h * e)[2] - fit.client_values(w - h * e)[2]) / (2 * h)
                   for e in np.eye(problem.dim)])
    W = np.broadcast_to(w, (fit.clients, problem.dim))
    assert np.allclose(fit.client_gradients(W)[2], fd, rtol=1e-7, atol=1e-9)
    # the oracle's per-(replica, client) gradients are the same
    clients = np.array([[2, 0, 5]])
    G = exact_gradients(problem, np.broadcast_to(w, (1, 3, problem.dim)).copy(), clients)
    assert np.allclose(G[0], fit.client_gradients(W)[[2, 0, 5]], rtol=1e-13, atol=1e-15)
    fdH = np.stack([(fit.client_gradients(W + h * e)[2] - fit.client_gradients(W - h * e)[2]) / (2 * h)
                    for e in np.eye(problem.dim)])
    assert np.allclose(fit.hessian_at(2, w), fdH, rtol=1e-6, atol=1e-8)


def test_L_is_certified_and_a_wrong_L_is_caught(inst):
    problem, consts = inst
    assert check_certified(cauchy.certificates(problem, consts)) == []
    assert consts["L"] == pytest.approx(5.0, rel=1e-12)  # the instance's client spectra reach L = 5 exactly
    Hbar = np.einsum("k,kde->de", problem.weights, problem.datafit.hessians)
    wrong = {**consts, "L": float(np.linalg.eigvalsh(Hbar)[-1])}
    assert check_certified(cauchy.certificates(problem, wrong))
    assert check_certified(cauchy.certificates(problem, {**consts, "L": consts["L"] * 1.01}))


def test_f_is_nonconvex_bounded_below_and_gradients_are_bounded(inst):
    problem, consts = inst
    rng = np.random.default_rng(0)
    pts = consts["w_star"] + 3 * rng.standard_normal((200, problem.dim))
    assert cauchy.min_curvature(problem, pts) < -0.05
    assert np.all(problem.smooth_value(pts) >= 0)
    W = np.broadcast_to(pts[:, None, :], (200, problem.clients, problem.dim))
    g2 = np.max(np.sum(problem.client_gradients(W) ** 2, axis=-1))
    assert g2 <= consts["G2_global"]
    # the curvature of every client stays within [−L/8, L] (ρ'' ∈ [−1/8, 1])
    for k in range(problem.clients):
        ev = np.linalg.eigvalsh(problem.datafit.hessian_at(k, pts[k]))
        assert ev[0] >= consts["curvature_low"] - 1e-12 and ev[-1] <= consts["L"] + 1e-12


def test_the_quadratic_interface_is_refused(inst):
    from fedrates.solvers import problems

    problem, _ = inst
    with pytest.raises(TypeError, match="not a quadratic"):
        problem.datafit.mean_quadratic(problem.weights)
    # same data as the least-squares instance, another cache key
    base = problems.make("similar_quadratic", "buttaci-clustered", message="data", noise=0.0)
    assert problem.fingerprint != base.fingerprint


def test_schedule_exponents_of_theorem_4(monkeypatch):
    """Corollary 1 against E = T^a: the catalogued Theorem 4 decays as T^e(a), e(a) = max(−(1+a)/2, a−1), minimised at
    a = 1/3 only; the check detects an exponent formula that keeps only the optimisation term."""
    from fedrates.verify.claims.buttaci.theorems import schedules

    assert [schedules.bound_exponent(a) for a in (0.0, 1 / 3, 2 / 3)] == pytest.approx([-0.5, -2 / 3, -1 / 3])
    assert schedules._symbolic() == {"exponent-mismatches": 0.0, "argmin-not-one-third": 0.0}
    monkeypatch.setattr(schedules, "bound_exponent", lambda a: -(1 + a) / 2)
    bad = schedules._symbolic()
    assert bad["exponent-mismatches"] == 3.0 and bad["argmin-not-one-third"] == 1.0
