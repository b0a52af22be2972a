"""Diagonal-plus-rank-one quadratics: the secular-equation eigenvalues against dense eigendecompositions (including
degenerate clients), the structured routines against the dense Hessians, the optimum and constants against a dense
solve, the certificates on both routes (Cholesky and secular function) with wrong values rejected, the memory
refusals, seeding, and FedAvg converging to the certified optimum."""

from __future__ import annotations

import numpy as np
import pytest

from fedrates.solvers import certify, certify_lowrank, oracles, problems
from fedrates.solvers.algorithms import run_batch
from fedrates.solvers.errors import InputError
from fedrates.solvers.problems import lowrank_quadratic as lq

EPS = np.finfo(float).eps


def small(seed: int = 1, **kw: object) -> problems.Problem:
    kw = {"clients": 7, "dim": 6, "boost": 2.0, **kw}
    return problems.make("lowrank_quadratic", seed=seed, **kw)


def textbook_hessians(fit: lq.LowRankQuadratic) -> np.ndarray:
    """Q_k = diag(δ_k) + u_k u_kᵀ, one client at a time."""
    return np.stack([np.diag(d) + np.outer(u, u) for d, u in zip(fit.delta, fit.u, strict=True)])


# hand-made clients (d = 4): each row a degenerate case of the secular equation
DEGENERATE_DELTA = np.array([
    [0.5, 1.0, 2.0, 3.0],   # u = 0
    [0.5, 1.0, 2.0, 3.0],   # u_j = 0 at the smallest entry
    [0.5, 0.5, 2.0, 3.0],   # repeated smallest entries
    [0.5, 1.0, 2.0, 3.0],   # u concentrated on the largest coordinate
    [0.5, 1.0, 2.0, 3.0],   # u concentrated on the smallest coordinate
    [0.5, 1.0, 3.0, 3.0],   # repeated largest entries, u = 0 there
    [0.5, 1.0, 2.0, 3.0],   # u = 0 at the largest entry
    [0.5, 1.0, 1.0, 3.0],   # u = 0 at the (repeated) second smallest entry: λ_min = δ_(2)
    [0.5, 0.5, 0.5, 3.0],   # three equal smallest entries
    [1.0, 1.0, 1.0, 1.0],   # D = I
    [0.2, 0.2 + 1e-13, 2.0, 3.0],  # nearly repeated smallest entries
])
DEGENERATE_U = np.array([
    [0.0, 0.0, 0.0, 0.0],
    [0.0, 0.7, 0.3, 1.2],
    [0.4, -0.9, 0.2, 0.1],
    [0.0, 0.0, 0.0, 1.5],
    [2.0, 0.0, 0.0, 0.0],
    [0.3, 0.2, 0.0, 0.0],
    [0.3, 0.2, 0.5, 0.0],
    [5.0, 0.0, 0.0, 0.1],
    [0.3, 0.4, 0.5, 0.6],
    [0.3, 0.4, 0.5, 0.6],
    [0.5, 0.5, 0.1, 0.1],
])


def degenerate_fit() -> lq.LowRankQuadratic:
    return lq.LowRankQuadratic(delta=DEGENERATE_DELTA.copy(), u=DEGENERATE_U.copy(),
                               centres=np.zeros_like(DEGENERATE_DELTA))


def assert_close_rel(a: np.ndarray, b: np.ndarray, rel: float) -> None:
    err = np.abs(np.asarray(a) - np.asarray(b)) / np.abs(b)
    assert err.max() <= rel, (err.max(), a, b)


# ---- per-client eigenvalues ---------------------------------------------------------------------------------------
@pytest.fixture(params=["numba", "numpy"])
def bisection_backend(request, monkeypatch):
    """The secular bisection of either backend (numba: one client at a time, compiled; numpy: all clients at once)."""
    from fedrates.solvers import kernels

    monkeypatch.setattr(kernels, "BACKEND", request.param)
    return request.param


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("K,d,boost", [(9, 1, 2.0), (9, 2, 0.7), (8, 6, 0.0), (8, 6, 3.0), (5, 40, 20.0)])
def test_secular_eigenvalues_equal_dense(seed, K, d, boost, bisection_backend):
    fit = small(seed, clients=K, dim=d, boost=boost).datafit
    ev = np.linalg.eigvalsh(textbook_hessians(fit))
    lam_min, lam_max = lq.extreme_eigenvalues(fit.delta, fit.u)
    assert_close_rel(lam_min, ev[:, 0], 1e-12)
    assert_close_rel(lam_max, ev[:, -1], 1e-12)
    if boost == 0:  # Q_k = diag(δ_k): the extremes are the stored entries themselves, exactly
        assert (lam_min == fit.delta.min(axis=1)).all() and (lam_max == fit.delta.max(axis=1)).all()


def test_secular_eigenvalues_and_witnesses_of_degenerate_clients(bisection_backend):
    fit = degenerate_fit()
    Q = textbook_hessians(fit)
    ev = np.linalg.eigvalsh(Q)
    lam_min, lam_max = lq.extreme_eigenvalues(fit.delta, fit.u)
    assert_close_rel(lam_min, ev[:, 0], 1e-12)
    assert_close_rel(lam_max, ev[:, -1], 1e-12)
    assert lam_min[0] == 0.5 and lam_min[1] == 0.5 and lam_min[2] == 0.5 and lam_min[8] == 0.5
    assert lam_min[7] == 1.0 and lam_max[5] == 3.0 and lam_max[4] == 4.5
    for k in range(len(Q)):
        for lam, largest in ((lam_min[k], False), (lam_max[k], True)):
            v = lq.witness_vector(fit.delta[k], fit.u[k], float(lam), largest)
            assert np.linalg.norm(v) == pytest.approx(1.0, rel=1e-14)
            assert np.linalg.norm(Q[k] @ v - lam * v) <= 1e-13 * ev[k, -1], (k, largest)
            assert v @ Q[k] @ v == pytest.approx(lam, rel=1e-13)


def test_secular_solver_over_many_chunks(bisection_backend):
    """K·d = 10⁶ (more than one chunk of clients): the extremes of the first clients equal the dense eigenvalues (its
    time is measured by benchmarks/scale_clients.py --family lowrank, not asserted here)."""
    rng = np.random.default_rng(0)
    delta = np.exp(rng.uniform(np.log(0.1), 0.0, (10_000, 100)))
    u = rng.standard_normal((10_000, 100)) * 0.1
    lam_min, lam_max = lq.extreme_eigenvalues(delta, u)
    ev = np.linalg.eigvalsh(np.stack([np.diag(d) + np.outer(v, v) for d, v in zip(delta[:20], u[:20],
                                                                                    strict=True)]))
    assert_close_rel(lam_min[:20], ev[:, 0], 1e-12)
    assert_close_rel(lam_max[:20], ev[:, -1], 1e-12)


# ---- the structured routines against the dense Hessians -----------------------------------------------------------
@pytest.mark.parametrize("d", [1, 2, 6])
def test_values_gradients_and_dense_pieces_match_hessians(d):
    problem = small(3, dim=d)
    fit = problem.datafit
    Q = fit.hessians
    np.testing.assert_array_equal(Q, textbook_hessians(fit))
    c = fit.centres
    rng = np.random.default_rng(4)
    w, W = rng.standard_normal(d), rng.standard_normal((2, 7, d))
    r = w - c
    np.testing.assert_allclose(fit.client_values(w), 0.5 * np.einsum("ki,kij,kj->k", r, Q, r), rtol=1e-12,
                               atol=1e-14)
    np.testing.assert_allclose(fit.client_values(W[:, :1, :].reshape(2, d)),
                               0.5 * np.einsum("rki,kij,rkj->rk", W[:, :1] - c, Q, W[:, :1] - c), rtol=1e-12)
    np.testing.assert_allclose(fit.client_gradients(W), np.einsum("kij,rkj->rki", Q, W - c), rtol=1e-12,
                               atol=1e-14)
    clients = np.array([[0, 3, 6], [1, 1, 5]])
    expected = np.einsum("rmij,rmj->rmi", Q[clients], W[:, :3] - c[clients])
    np.testing.assert_allclose(oracles.exact_gradients(problem, W[:, :3], clients), expected, rtol=1e-12,
                               atol=1e-14)
    np.testing.assert_allclose(fit.gradients_at(W[:, :3], clients), expected, rtol=1e-12, atol=1e-14)
    b = np.einsum("kij,kj->ki", Q, c)
    np.testing.assert_allclose(fit.linear_terms, b, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(fit.offsets, 0.5 * np.einsum("ki,ki->k", b, c), rtol=1e-12)
    Qbar, bbar, cbar = problem.quadratic
    p = problem.weights
    np.testing.assert_allclose(Qbar, np.einsum("k,kij->ij", p, Q), rtol=1e-12, atol=1e-14)
    assert (Qbar == Qbar.T).all()
    np.testing.assert_allclose(bbar, p @ b, rtol=1e-12, atol=1e-14)
    assert cbar == pytest.approx(float(p @ (0.5 * np.einsum("ki,ki->k", b, c))), rel=1e-12)
    for k in (0, 4):
        np.testing.assert_allclose(fit.hvp(k, w), Q[k] @ w, rtol=1e-12, atol=1e-14)


# ---- optimum and constants against a dense solve ------------------------------------------------------------------
@pytest.mark.parametrize("seed,d", [(0, 6), (1, 2), (2, 1), (3, 12)])
def test_optimum_and_constants_equal_dense(seed, d):
    problem = small(seed, dim=d, boost=4.0)
    fit, p = problem.datafit, problem.weights
    Q = textbook_hessians(fit)
    b = np.einsum("kij,kj->ki", Q, fit.centres)
    Qbar, bbar = np.einsum("k,kij->ij", p, Q), p @ b
    w_dense = np.linalg.solve(Qbar, bbar)
    r = w_dense - fit.centres
    G = np.einsum("kij,kj->ki", Q, r)
    f_star = float(p @ (0.5 * np.einsum("ki,ki->k", G, r)))
    ev, ebar = np.linalg.eigvalsh(Q), np.linalg.eigvalsh(Qbar)
    exact = lq.exact_constants(problem)
    np.testing.assert_allclose(exact["w_star"], w_dense, rtol=1e-11, atol=1e-13)
    for name, value in {"L": ev.max(), "mu": ev.min(), "L_F": ebar.max(), "mu_F": ebar.min(), "f_star": f_star,
                        "Gamma": f_star, "zeta2": float(p @ np.einsum("ki,ki->k", G, G))}.items():
        assert exact[name] == pytest.approx(value, rel=1e-11), name
    assert exact["sigma2"] == 0.0
    ref = lq.exact_reference(problem)
    np.testing.assert_allclose(ref.w, w_dense, rtol=1e-11, atol=1e-13)
    assert ref.value == pytest.approx(f_star, rel=1e-11)
    assert ref.gap <= 1e-20 and 0 < ref.mu_lower <= ebar.min()
    assert ref.mu_lower == pytest.approx(ebar.min(), rel=1e-9)
    # the certificate is not vacuous: a perturbed point gets the (positive) bound ||g||²/(2μ_F) it deserves
    g = Qbar @ (w_dense + 1e-3) - bbar
    assert g @ g / (2 * ref.mu_lower) > 1e-9


# ---- certificates ---------------------------------------------------------------------------------------------------
@pytest.fixture(params=["cholesky", "secular"])
def route(request, monkeypatch):
    if request.param == "secular":
        monkeypatch.setattr(lq, "DENSE_BUDGET", 0)
    return request.param


@pytest.mark.parametrize("seed,d", [(2, 6), (5, 1), (6, 2)])
def test_certificates_hold_and_wrong_values_fail(route, seed, d):
    problem = small(seed, dim=d, boost=3.0)
    good = certify.for_lowrank(problem)
    assert certify.check_certified(good) == []
    assert ("secular" in good["L"].upper_method) == (route == "secular")
    assert ("Weyl" in good["mu"].upper_method) == (route == "secular")
    ev = np.linalg.eigvalsh(textbook_hessians(problem.datafit))
    # the other sides are bounds on the true extremes, tight to 1e-10
    slack = 8 * EPS * ev.max()  # eigvalsh's own error
    assert ev.max() - slack <= good["L"].upper <= ev.max() * (1 + 1e-10)
    assert ev.min() * (1 - 1e-10) <= good["mu"].upper <= ev.min() + slack
    for name, factor in (("L", 0.99), ("mu", 1.01), ("zeta2", 1.01), ("zeta2", 0.99), ("L_F", 0.99),
                         ("mu_F", 1.01), ("Gamma", 0.99)):
        value = good[name].value * factor
        certs = certify.for_lowrank(problem, {name: value})
        lines = certify.check_certified(certs)
        assert lines and lines[0].startswith(f"{name} ="), (name, lines)
        assert [c.name for c in certs.values() if not c.agrees()] == [name]
    # the second routes refute a too-small L and a too-large mu on their own (not only the witness)
    low_L = certify.for_lowrank(problem, {"L": good["L"].value * 0.99})["L"]
    assert low_L.upper > low_L.value * (1 + 1e-3)
    high_mu = certify.for_lowrank(problem, {"mu": good["mu"].value * 1.01})["mu"]
    assert high_mu.upper < high_mu.value * (1 - 1e-3)


@pytest.mark.parametrize("factor", [1.0, 0.99, 0.5])
def test_secular_bounds_are_rigorous_on_degenerate_clients(factor):
    fit = degenerate_fit()
    ev = np.linalg.eigvalsh(textbook_hessians(fit))
    for k in range(fit.clients):
        one = lq.LowRankQuadratic(delta=fit.delta[k:k + 1], u=fit.u[k:k + 1], centres=fit.centres[k:k + 1])
        slack = 8 * EPS * ev[k, -1]
        up = certify_lowrank.secular_upper(one, ev[k, -1] * factor)
        low = certify_lowrank.secular_lower(one, ev[k, 0] / factor)
        assert ev[k, -1] - slack <= up <= ev[k, -1] * (1 + 1e-10), (k, up, ev[k, -1])
        assert ev[k, 0] * (1 - 1e-10) <= low <= ev[k, 0] + slack, (k, low, ev[k, 0])


# ---- sizes --------------------------------------------------------------------------------------------------------
def test_dense_hessians_refused_and_large_instance_exact_without_them():
    problem = problems.make("lowrank_quadratic", clients=20_000, dim=50, boost=2.0, seed=3)
    fit = problem.datafit
    with pytest.raises(InputError) as err:
        _ = fit.hessians
    msg = str(err.value)
    assert "\n" not in msg and "clients=20000" in msg and "dim=50" in msg and "0.373 GiB" in msg
    exact = lq.exact_constants(problem)
    certs = certify.for_lowrank(problem)
    assert certify.check_certified(certs) == []
    assert "hessians" not in fit.__dict__
    assert "secular" in certs["L"].upper_method
    # spot check against dense eigendecompositions of a few clients, including both witnesses
    ks = np.unique(np.r_[exact["witness_L"], exact["witness_mu"], np.arange(0, 20_000, 997)])
    ev = np.linalg.eigvalsh(np.stack([np.diag(fit.delta[k]) + np.outer(fit.u[k], fit.u[k]) for k in ks]))
    assert_close_rel(exact["client_lambda_min"][ks], ev[:, 0], 1e-12)
    assert_close_rel(exact["client_lambda_max"][ks], ev[:, -1], 1e-12)
    assert exact["L"] == exact["client_lambda_max"].max() and exact["mu"] == exact["client_lambda_min"].min()


def test_memory_estimate_refuses_in_one_line():
    with pytest.raises(InputError) as err:
        problems.make("lowrank_quadratic", clients=10**9, dim=10**4)
    assert "\n" not in str(err.value) and "GiB" in str(err.value)
    assert lq.footprint({"clients": 10_000, "dim": 1000}) < 2**30
    with pytest.raises(InputError, match="smaller than mu"):
        problems.make("lowrank_quadratic", mu=2.0, L=1.0)


# ---- seeding ------------------------------------------------------------------------------------------------------
def test_equal_seeds_identical_and_different_seeds_differ():
    a, b, c = small(7).datafit, small(7).datafit, small(8).datafit
    for name in ("delta", "u", "centres"):
        assert getattr(a, name).tobytes() == getattr(b, name).tobytes()
        assert not np.array_equal(getattr(a, name)[1:], getattr(c, name)[1:])
    assert a.delta[0, 0] == 1.0 and a.delta[0, 1] == 0.1
    assert a.delta.min() >= 0.1 and a.delta.max() <= 1.0
    norms2 = np.einsum("kd,kd->k", a.u, a.u)
    assert (norms2 <= 2.0 * (1 + 1e-12)).all() and norms2.max() > 0
    zero = small(7, boost=0.0).datafit
    assert not zero.u.any()


# ---- algorithms ---------------------------------------------------------------------------------------------------
def test_fedavg_converges_to_certified_optimum_and_noise_changes_the_run():
    problem = small(4, clients=6, dim=5)
    ref = lq.exact_reference(problem)
    L = lq.exact_constants(problem)["L"]
    # E = 1 exact local step: FedAvg is gradient descent on F and converges to w* itself (no client drift)
    rec = run_batch("fedavg", problem, rounds=120, seeds=[0], gradients="exact", reference=ref, local_steps=1,
                    step=1.0 / L, record_every=40).records
    dist = rec["distance_to_optimum"].to_numpy()
    assert dist[0] > 0.1 and dist[-1] < 1e-6 * dist[0] and (np.diff(dist) < 0).all()
    noisy = small(4, clients=6, dim=5, sigma=0.5)
    ref_noisy = lq.exact_reference(noisy)
    np.testing.assert_array_equal(ref_noisy.w, ref.w)
    stoch = run_batch("fedavg", noisy, rounds=120, seeds=[0], gradients="stochastic", reference=ref_noisy,
                      local_steps=1, step=1.0 / L, record_every=40).records
    exact_again = run_batch("fedavg", noisy, rounds=120, seeds=[0], gradients="exact", reference=ref_noisy,
                            local_steps=1, step=1.0 / L, record_every=40).records
    np.testing.assert_allclose(exact_again["distance_to_optimum"], rec["distance_to_optimum"], rtol=1e-12)
    sd = stoch["distance_to_optimum"].to_numpy()
    assert sd[-1] > 1e3 * dist[-1] and sd[-1] < 0.5 * sd[0]


@pytest.mark.parametrize("mu_prox,backend,participating", [(0.0, "numba", None), (0.3, "numba", 3),
                                                           (0.0, "numpy", 3), (0.3, "numpy", None)])
def test_fused_round_equals_step_by_step(monkeypatch, mu_prox, backend, participating):
    """FedAvg and FedProx with exact gradients take the one-pass round (:func:`lq.local_average`); the same run
    forced step by step through the oracle gives the same iterates up to rounding, and the same work counters."""
    from fedrates.solvers import kernels

    problem = small(4, clients=6, dim=5, boost=2.0)
    ref = lq.exact_reference(problem)
    monkeypatch.setattr(kernels, "BACKEND", backend)
    calls = []
    real = lq.local_average
    monkeypatch.setattr(lq, "local_average", lambda *a: calls.append(1) or real(*a))
    algo = "fedprox" if mu_prox else "fedavg"
    hyper = {"mu_prox": mu_prox} if mu_prox else {}
    common = dict(rounds=6, seeds=[0, 1], gradients="exact", reference=ref, local_steps=4, step=0.3,
                  participating=participating, **hyper)
    fused = run_batch(algo, problem, **common).records
    assert calls, "the one-pass round was not taken"
    original = oracles.exact_gradients
    monkeypatch.setattr(oracles, "exact_gradients", lambda *a: original(*a))  # forces step by step
    count = len(calls)
    stepwise = run_batch(algo, problem, **common).records
    assert len(calls) == count
    np.testing.assert_allclose(fused["distance_to_optimum"], stepwise["distance_to_optimum"], rtol=1e-10,
                               atol=1e-13)
    assert (fused["grad_evals"] == stepwise["grad_evals"]).all()
    assert fused["distance_to_optimum"].iloc[-1] < 0.5 * fused["distance_to_optimum"].iloc[0]
