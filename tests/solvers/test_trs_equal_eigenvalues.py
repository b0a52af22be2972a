"""Trust-region subproblem with all eigenvalues equal (the secular bracket end is then a root up to rounding)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import minimize_scalar

from fedrates.solvers import constants, problems, reference
from fedrates.solvers._trs import maximize_on_ball


def _sphere_max(fun, rho: float, grid: int = 20001) -> float:
    """max of fun(ρ(cos t, sin t)) over t: dense grid, then a bounded refinement around the best grid point."""
    t = np.linspace(0.0, 2 * np.pi, grid)
    pts = rho * np.stack([np.cos(t), np.sin(t)], axis=1)
    vals = np.array([fun(p) for p in pts])
    i = int(np.argmax(vals))
    h = t[1] - t[0]
    res = minimize_scalar(lambda s: -fun(rho * np.array([np.cos(s), np.sin(s)])),
                          bounds=(t[i] - h, t[i] + h), method="bounded", options={"xatol": 1e-12})
    return max(float(vals[i]), -float(res.fun))


def test_heterogeneity_dim2_equal_eigenvalues_regression():
    """This instance has M_k² = a²I (two clients, equal traces): it used to crash in the root bracket."""
    p = problems.make("quadratic", None, structure="random", dim=2, clients=2, mu=0.2133, L=1.0, spread=0.5686,
                      sigma=1.5596, radius=7.0616, seed=2)
    c = constants.compute(p, batch=1, reference_point=reference.solve(p).w)
    Q, b = p.datafit.hessians, p.datafit.linear_terms
    Qbar, bbar = np.einsum("k,kij->ij", p.weights, Q), p.weights @ b
    rho = p.radius
    for k in range(p.clients):
        M, ck = Qbar - Q[k], bbar - b[k]
        independent = _sphere_max(lambda w, M=M, ck=ck: float(np.linalg.norm(M @ w - ck)), rho)
        assert c.H_k[k] == pytest.approx(independent, rel=1e-9)
        # closed form: ‖Mw‖ = a‖w‖ for every w, so the sup is aρ + ‖c_k‖ (attained at w = −ρMc_k/(a‖c_k‖))
        ev = np.linalg.eigvalsh(M @ M)
        if ev[-1] - ev[0] <= 1e-12 * ev[-1]:
            assert c.H_k[k] == pytest.approx(np.sqrt(ev[-1]) * rho + np.linalg.norm(ck), rel=1e-9)
    assert c.H == pytest.approx(max(c.H_k), rel=0)


@pytest.mark.parametrize("a2,dim", [(0.0108619, 2), (1.0, 3), (3e-7, 5)])
def test_trs_scalar_matrix_closed_form(a2, dim):
    """P = a²I: sup_{‖w‖≤ρ} a²‖w‖² − 2bᵀw + c₀ = a²ρ² + 2‖b‖ρ + c₀, attained at w = −ρb/‖b‖."""
    rng = np.random.default_rng(dim)
    for _ in range(20):
        b = rng.standard_normal(dim) * 10.0 ** rng.uniform(-3, 1)
        rho, c0 = float(rng.uniform(0.1, 10)), float(rng.uniform(0, 1))
        value, w = maximize_on_ball(a2 * np.eye(dim), b, c0, rho)
        expected = a2 * rho**2 + 2 * np.linalg.norm(b) * rho + c0
        assert float(value) == pytest.approx(expected, rel=1e-12)
        assert np.linalg.norm(w) == pytest.approx(rho, rel=1e-12)
