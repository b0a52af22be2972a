"""Exact constants against brute force, closed forms and Monte Carlo.

Monte-Carlo checks use a z-test at |z| ≤ 5 (two-sided false-alarm probability 6e-7 per check under the CLT) for
each of several seeds.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.optimize import minimize

from fedrates.solvers import problems
from fedrates.solvers._trs import maximize_on_ball
from fedrates.solvers.constants import DEFINITIONS, compute, minibatch_variance
from fedrates.solvers.errors import InputError
from fedrates.solvers.oracles import make_streams, minibatch_gradients

Z = 5.0


def small_lasso(**kw):
    params = {"clients": 3, "samples": 6, "dim": 4, "sparsity": 2, "radius": 2.0}
    params.update(kw)
    return problems.make("lasso", **params)


# ---- spectra ------------------------------------------------------------------------------------------------
def test_quadratic_spectrum_matches_construction():
    p = problems.make("quadratic", structure="random", clients=4, dim=6, mu=0.1, L=3.0)
    c = compute(p)
    assert c.L == pytest.approx(3.0, abs=1e-12) and c.mu == pytest.approx(0.1, abs=1e-12)


@pytest.mark.parametrize("samples,dim", [(5, 9), (30, 4)])  # Gram path (n < d) and Hessian path
def test_least_squares_spectra_vs_explicit_matrices(samples, dim):
    p = problems.make("lasso", clients=3, samples=samples, dim=dim, sparsity=2)
    c = compute(p)
    Q = [x.T @ x / samples for x in p.X]
    ev = [np.linalg.eigvalsh(q) for q in Q]
    assert np.allclose(c.L_k, [e[-1] for e in ev], rtol=1e-10)
    expected_mu = [0.0 if samples < dim else e[0] for e in ev]
    assert np.allclose(c.mu_k, expected_mu, atol=1e-10)
    Qbar = sum(Q) / 3
    assert c.Lambda == pytest.approx(np.linalg.eigvalsh(Qbar)[-1], rel=1e-10)
    assert c.mu_F == pytest.approx(np.linalg.eigvalsh(Qbar)[0], rel=1e-8, abs=1e-10)


# ---- trust-region subproblem and H ---------------------------------------------------------------------------
def _sphere_search(fun, d, rho, rng, samples=20000, starts=20):
    """Best of dense random sampling on the sphere and of local optimisation from several starts."""
    U = rng.standard_normal((samples, d))
    U = rho * U / np.linalg.norm(U, axis=1, keepdims=True)
    best_local = -np.inf
    for u0 in rng.standard_normal((starts, d)):
        res = minimize(lambda u: -fun(rho * u / np.linalg.norm(u)), u0, method="BFGS", options={"gtol": 1e-12})
        best_local = max(best_local, -res.fun)
    return U, best_local


def test_heterogeneity_trs_vs_sphere_search():
    p = problems.make("quadratic", structure="clustered", clients=4, dim=4, clusters=2, mu=0.2, L=3.0,
                      spread=1.0, radius=1.5)
    c = compute(p)
    rng = np.random.default_rng(3)
    Qbar, bbar, _ = p.quadratic
    for k in range(p.clients):
        M = Qbar - p.datafit.hessians[k]
        ck = bbar - p.datafit.linear_terms[k]
        U, best = _sphere_search(lambda w, M=M, ck=ck: float(np.linalg.norm(M @ w - ck)), 4, 1.5, rng)
        sampled = np.linalg.norm(U @ M.T - ck, axis=1)
        assert c.H_k[k] >= sampled.max() - 1e-12
        assert c.H_k[k] == pytest.approx(best, abs=1e-6)
        assert np.linalg.norm(c.H_argmax[k]) == pytest.approx(1.5, rel=1e-12)


def test_trs_hard_case():
    # b orthogonal to the top eigenvector and small: maximiser uses the top eigenvector to reach the sphere
    P = np.diag([1.0, 2.0, 5.0])
    b = np.array([0.1, 0.1, 0.0])
    value, w = maximize_on_ball(P, b, 0.0, 1.0)
    # closed form: θ = 5, w_i = -b_i/(5 - λ_i) for i < 3, w_3 = ±sqrt(1 - ‖w_rest‖²)
    rest = -b[:2] / (5 - np.diag(P)[:2])
    w3 = np.sqrt(1 - rest @ rest)
    expected = np.array([*rest, w3]) @ P @ np.array([*rest, w3]) - 2 * b[:2] @ rest
    assert value == pytest.approx(expected, abs=1e-12)
    assert np.linalg.norm(w) == pytest.approx(1.0, abs=1e-12)


def test_h_requires_radius():
    p = problems.make("quadratic", structure="random", clients=3, dim=3)
    c = compute(p)
    assert c.H == np.inf and "radius" in c.notes["H"]
    assert np.isfinite(compute(p, radius=1.0).H)


# ---- variance ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("batch,replace", [(1, False), (2, False), (2, True)])
def test_empirical_variance_vs_enumeration(batch, replace):
    """Exact E‖g − ∇f_k‖² by enumerating every minibatch of a tiny client."""
    p = small_lasso()
    rng = np.random.default_rng(0)
    w = rng.standard_normal(4)
    n = p.datafit.samples
    batches = (itertools.product(range(n), repeat=batch) if replace else itertools.combinations(range(n), batch))
    idx = np.array(list(batches))
    for k in range(p.clients):
        X, y = p.X[k], p.y[k]
        full = X.T @ (X @ w - y) / n
        G = np.einsum("bjd,bj->bd", X[idx], X[idx] @ w - y[idx]) / batch
        exact = np.mean(np.sum((G - full) ** 2, axis=1))
        assert minibatch_variance(p, w, batch, replace)[k] == pytest.approx(exact, rel=1e-10)


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_sigma2_vs_monte_carlo_oracle_at_maximiser(seed):
    p = small_lasso(samples=12)
    batch = 3
    c = compute(p, batch=batch)
    k = int(np.argmax(c.sigma2_k))
    w = c.sigma2_argmax[k]
    R = 4000
    streams = [make_streams(seed * 1000 + r, p.clients).clients for r in range(R)]
    G = minibatch_gradients(p, np.broadcast_to(w, (R, 1, 4)).copy(), streams, np.array([k]), batch)[:, 0]
    full = p.client_gradients(np.broadcast_to(w, (p.clients, 4)))[k]
    sq = np.sum((G - full) ** 2, axis=1)
    assert abs(sq.mean() - c.sigma2) <= Z * sq.std(ddof=1) / np.sqrt(R)
    # and the supremum dominates the variance at random feasible points
    U = np.random.default_rng(seed).standard_normal((500, 4))
    U = 2.0 * U / np.linalg.norm(U, axis=1, keepdims=True)
    assert max(minibatch_variance(p, u, batch)[k] for u in U) <= c.sigma2_k[k] * (1 + 1e-10)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_isserlis_population_variance_vs_monte_carlo(seed):
    """Formula vs direct sampling x ~ N(m_k, C), y = xᵀw° + ε, g = x(xᵀw − y) (independent of the oracle code)."""
    p = problems.make("lasso", clients=2, dim=3, sparsity=1, sampling="population", radius=2.0, correlation=0.4)
    pop = p.population
    w = np.array([0.5, -1.0, 0.3])
    formula = minibatch_variance(p, w, batch=1)
    rng = np.random.default_rng(seed)
    R = 200000
    for k in range(2):
        X = pop.means[k] + rng.standard_normal((R, 3)) @ np.linalg.cholesky(pop.cov).T
        y = X @ pop.truth + pop.noise_std * rng.standard_normal(R)
        G = X * (X @ w - y)[:, None]
        sq = np.sum((G - (pop.cov + np.outer(pop.means[k], pop.means[k])) @ (w - pop.truth)) ** 2, axis=1)
        assert abs(sq.mean() - formula[k]) <= Z * sq.std(ddof=1) / np.sqrt(R)


@pytest.mark.parametrize("seed", [4, 5])
def test_gaussian_noise_variance_is_sigma2_over_batch(seed):
    p = problems.make("quadratic", clients=2, dim=5, sigma=0.7)
    c = compute(p, batch=4)
    assert c.sigma2 == pytest.approx(0.49 / 4, rel=1e-15)
    R = 3000
    streams = [make_streams(seed * 10**6 + r, 2).clients for r in range(R)]
    w = np.ones(5)
    G = minibatch_gradients(p, np.broadcast_to(w, (R, 1, 5)).copy(), streams, np.array([1]), 4)[:, 0]
    sq = np.sum((G - p.client_gradients(np.broadcast_to(w, (2, 5)))[1]) ** 2, axis=1)
    assert abs(sq.mean() - c.sigma2) <= Z * sq.std(ddof=1) / np.sqrt(R)
    assert c.sigma_bar2 == pytest.approx(np.sum(p.weights**2) * 0.49 / 4)


def test_sigma2_at_reference_point():
    p = small_lasso()
    w = np.array([0.1, 0.2, -0.3, 0.0])
    c = compute(p, batch=2, reference_point=w)
    assert c.sigma2_ref == pytest.approx(minibatch_variance(p, w, 2).max())
    assert np.allclose(c.w_star, w)


# ---- δ, Δ*, realisable -------------------------------------------------------------------------------------------
def test_similar_quadratic_delta_is_the_parameter():
    p = problems.make("quadratic", "similar-quadratic")
    c = compute(p)
    assert abs(c.delta - p.params["delta"]) <= 1e-12
    Q = p.datafit.hessians
    Qbar = np.einsum("k,kij->ij", p.weights, Q)
    assert c.delta_mean == pytest.approx(max(np.linalg.norm(q - Qbar, 2) for q in Q), rel=1e-12)


def test_delta_star_closed_form_for_factors():
    p = problems.make("quadratic", structure="factors", clients=5, dim=8, inner=3)
    c = compute(p)
    Q, centres = p.datafit.hessians, p.extras["centres"]
    Qbar = np.einsum("k,kij->ij", p.weights, Q)
    w_star = np.linalg.solve(Qbar, np.einsum("k,kij,kj->i", p.weights, Q, centres))
    expected = 0.5 * np.einsum("ki,kij,kj->k", w_star - centres, Q, w_star - centres)
    assert np.all(c.Delta_star >= 0)
    assert np.allclose(c.Delta_star, expected, rtol=1e-9, atol=1e-12)


def test_delta_star_least_squares_is_residual_gap():
    p = small_lasso(samples=10, dim=4)
    c = compute(p)
    for k in range(p.clients):
        sol = np.linalg.lstsq(p.X[k], p.y[k], rcond=None)[0]
        fmin = 0.5 * np.mean((p.X[k] @ sol - p.y[k]) ** 2)
        fk = 0.5 * np.mean((p.X[k] @ c.w_star - p.y[k]) ** 2)
        assert c.Delta_star[k] == pytest.approx(fk - fmin, rel=1e-9, abs=1e-12)


def test_realisable_common_minimiser():
    p = problems.make("quadratic", "realisable-quadratic")
    G = p.client_gradients(np.broadcast_to(p.truth, (p.clients, p.dim)))
    assert np.max(np.abs(G)) <= 1e-12
    assert compute(p).Delta_star_max <= 1e-12


# ---- Ψ, λ_opt, large-dimension bounds, inputs ---------------------------------------------------------------------
def test_psi_and_lambda_opt():
    p = small_lasso(sparsity=3)
    c = compute(p)
    assert c.Psi == pytest.approx(np.sqrt(3))
    grad = sum(x.T @ (x @ p.truth - y) for x, y in zip(p.X, p.y, strict=True)) / (3 * p.datafit.samples)
    assert c.lam_opt == pytest.approx(2 * np.max(np.abs(grad)), rel=1e-12)
    t = compute(problems.make("trace", clients=2, rows=4, cols=3, rank=2))
    assert (t.Psi, t.Psi_2r) == (pytest.approx(np.sqrt(2)), pytest.approx(2.0))


@pytest.mark.parametrize("sampling", ["empirical", "population"])
def test_large_dimension_bounds_bracket_exact_values(sampling):
    p = small_lasso(samples=5, dim=6, sampling=sampling)
    exact = compute(p, batch=2)
    bounded = compute(p, batch=2, dense_limit=2)
    for name in ("H", "sigma2"):
        lo, hi = bounded.intervals[name]
        assert not bounded.exact[name] and name in bounded.notes
        assert lo <= getattr(exact, name) * (1 + 1e-12) and getattr(exact, name) <= hi * (1 + 1e-12)
    assert bounded.delta >= exact.delta and bounded.intervals["delta"][0] <= exact.delta
    # Lanczos spectra agree with dense eigenvalues
    assert np.allclose(bounded.L_k, exact.L_k, rtol=1e-10)
    assert np.allclose(bounded.mu_k, exact.mu_k, rtol=1e-8, atol=1e-10)
    assert bounded.delta_mean == pytest.approx(exact.delta_mean, rel=1e-10)


def test_as_dict_covers_definitions():
    c = compute(small_lasso())
    assert set(c.as_dict()) == set(DEFINITIONS)
    assert all(d.formula and d.assumption for d in DEFINITIONS.values())


@pytest.mark.parametrize("kwargs", [{"batch": 0}, {"batch": 7}, {"radius": -1.0}, {"reference_point": np.ones(3)}])
def test_bad_inputs(kwargs):
    with pytest.raises(InputError) as err:
        compute(small_lasso(), **kwargs)
    assert "\n" not in str(err.value)
