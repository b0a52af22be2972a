"""Least squares with implicit DCT features: the implicit routines against the explicit sample federation built
from the same data (values, gradients, minibatches drawn by the oracle, constants of solvers/constants.py), the
variance formula against Monte-Carlo minibatches, the certificates (a 1% wrong value is rejected, dense and large
routes), a large instance's memory, seeds, refusals, and a stochastic FedAvg run against its dense twin."""

from __future__ import annotations

import dataclasses
import math
import tracemalloc

import numpy as np
import pytest

from fedrates.solvers import certify, constants, oracles, problems
from fedrates.solvers.algorithms import run_batch
from fedrates.solvers.errors import InputError
from fedrates.solvers.problems import implicit_least_squares as ils
from fedrates.solvers.problems.datafits import SampleLeastSquares

#: (clients, samples, dim): n = d, n = 3d, n not a multiple of d
SIZES = [(3, 6, 6), (5, 24, 8), (4, 30, 7)]


def make(K: int, n: int, d: int, seed: int = 0, **kw: object) -> problems.Problem:
    return problems.make("implicit_least_squares", clients=K, samples=n, dim=d, seed=seed, **kw)


def textbook_dct(d: int) -> np.ndarray:
    """C_ji = √(2/d) cos(π(2i + 1)j/(2d)), row 0 divided by √2: the orthonormal DCT-II matrix from its formula."""
    j, i = np.meshgrid(np.arange(d), np.arange(d), indexing="ij")
    C = math.sqrt(2.0 / d) * np.cos(np.pi * (2 * i + 1) * j / (2 * d))
    C[0] /= math.sqrt(2.0)
    return C


def dense_twin(problem: problems.Problem) -> problems.Problem:
    """The same federation with the features formed explicitly (a SampleLeastSquares problem)."""
    return dataclasses.replace(problem, datafit=problem.datafit.to_sample_least_squares())


def close(a: np.ndarray, b: np.ndarray, rel: float = 1e-12) -> None:
    a, b = np.asarray(a, float), np.asarray(b, float)
    np.testing.assert_allclose(a, b, rtol=rel, atol=rel * max(float(np.max(np.abs(b))), 1e-300))


# ---- the implicit routines equal the explicit federation --------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("size", SIZES)
def test_routines_equal_the_dense_federation(size, seed):
    K, n, d = size
    problem = make(K, n, d, seed)
    fit = problem.datafit
    dense = fit.to_sample_least_squares()
    # the explicit features are scaled rows of the DCT-II matrix of the textbook formula
    X = fit.scale[..., None] * textbook_dct(d)[fit.index]
    close(dense.X, X, 1e-13)
    counts = np.stack([np.bincount(row, minlength=d) for row in fit.index])
    assert counts.min() == n // d and counts.max() == -(-n // d)  # every coordinate seen by every client
    rng = np.random.default_rng(seed + 10)
    w, W, V = rng.standard_normal(d), rng.standard_normal((2, K, d)), rng.standard_normal((3, d))
    close(fit.client_values(w), dense.client_values(w))
    close(fit.client_values(V), dense.client_values(V))
    close(fit.client_gradients(W), dense.client_gradients(W))
    close(fit.hessians, dense.hessians)
    close(fit.linear_terms, dense.linear_terms)
    close(fit.offsets, dense.offsets)
    for mine, theirs in zip(fit.mean_quadratic(problem.weights), dense.mean_quadratic(problem.weights), strict=True):
        close(mine, theirs)
    clients = np.array([[0, K - 1], [1, 1]])
    close(oracles.exact_gradients(problem, W[:, :2], clients),
          np.einsum("rmde,rme->rmd", dense.hessians[clients], W[:, :2]) - dense.linear_terms[clients])
    eig = np.linalg.eigvalsh(dense.hessians)
    assert eig.min() > 0  # every client Hessian positive definite


@pytest.mark.parametrize("batch", [1, 3])
def test_rows_gradients_equal_dense_rows(batch):
    problem = make(5, 24, 8, 4)
    fit, dense = problem.datafit, problem.datafit.to_sample_least_squares()
    rng = np.random.default_rng(1)
    Wf = rng.standard_normal((2, 7, 8))
    rows = rng.integers(0, 5 * 24, size=(2, 7, batch))
    X, y = dense.X.reshape(-1, 8)[rows], dense.y.reshape(-1)[rows]
    expected = np.einsum("rmbd,rmb->rmd", X, np.einsum("rmbd,rmd->rmb", X, Wf) - y) / batch
    close(fit.rows_gradients(Wf, rows, batch), expected)


@pytest.mark.parametrize("replace,prefetch", [(False, False), (False, True), (True, True)])
def test_oracle_draws_the_same_minibatches_as_the_dense_federation(monkeypatch, replace, prefetch):
    problem = make(4, 12, 6, 2)
    dense = dense_twin(problem)
    seen: dict[int, list[np.ndarray]] = {id(problem): [], id(dense): []}
    original = oracles._empirical_gradients

    def recording(fit, Wf, rows, batch, work=None):  # noqa: ANN001, ANN202
        seen[id(problem) if fit is problem.datafit else id(dense)].append(np.array(rows))
        return original(fit, Wf, rows, batch, work)

    monkeypatch.setattr(oracles, "_empirical_gradients", recording)
    rng = np.random.default_rng(0)
    points = rng.standard_normal((6, 2, 4, 6))
    out = {}
    for prob in (problem, dense):
        streams = oracles.make_streams_many([3, 8], 4)
        oracle = oracles.GradientOracle(prob, [st.clients for st in streams], 3, replace=replace, prefetch=prefetch)
        grads = []
        for rnd in range(2):
            oracle.begin_round(np.broadcast_to(np.arange(4), (2, 4)), 3, ahead=2 - rnd)
            grads += [oracle(points[3 * rnd + e]) for e in range(3)]
        streams = oracles.make_streams_many([5], 4)
        grads.append(oracles.minibatch_gradients(prob, points[0, :1, 1:3], [streams[0].clients], np.array([1, 3]), 3,
                                                 replace))
        out[id(prob)] = grads
    assert len(seen[id(problem)]) == len(seen[id(dense)]) == 7
    for a, b in zip(seen[id(problem)], seen[id(dense)], strict=True):
        assert np.array_equal(a, b)
    for a, b in zip(out[id(problem)], out[id(dense)], strict=True):
        close(a, b)


def test_dense_path_untouched_and_fused_only_for_sample_matrices():
    problem = make(3, 6, 6, 1)
    streams = oracles.make_streams_many([0], 3)
    oracle = oracles.GradientOracle(problem, [st.clients for st in streams], 2)
    oracle.begin_round(np.broadcast_to(np.arange(3), (1, 3)), 2)
    assert not oracle.fusable()
    assert problem.X is None and problem.y is None
    # the dense constants run on the explicit equivalent while it fits, and are refused beyond it
    mine, twin = constants.compute(problem, cache=False), constants.compute(dense_twin(problem), cache=False)
    for name in ("L", "mu", "Lambda", "mu_F", "sigma2", "Delta_star_max", "delta"):
        assert float(getattr(mine, name)) == float(getattr(twin, name)), name
    from fedrates.verify import exact

    # the exact minibatch recursion forms the samples (small instances), and is refused with them beyond the budget
    np.testing.assert_array_equal(exact.sample_oracle(problem, 2).X, dense_twin(problem).datafit.X)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ils, "DENSE_BUDGET", 10)
        with pytest.raises(InputError, match="sample matrix"):
            exact.sample_oracle(problem, 2)
    assert isinstance(dense_twin(problem).datafit, SampleLeastSquares)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ils, "DENSE_BUDGET", 10)
        with pytest.raises(InputError, match="sample matrix"):
            constants.compute(problem, cache=False)
    # the generic variance at any point dispatches to the family's own formula
    w = np.random.default_rng(2).standard_normal(6)
    for batch, replace in ((2, False), (2, True)):
        close(constants.minibatch_variance(problem, w, batch, replace),
              constants.minibatch_variance(dense_twin(problem), w, batch, replace))


def test_generic_reference_agrees_with_the_closed_form():
    from fedrates.solvers import reference

    problem = make(5, 24, 8, 7)
    generic = reference.solve(problem, cache=False)
    exact = ils.exact_reference(problem)
    np.testing.assert_allclose(generic.w, exact.w, rtol=1e-7, atol=1e-9)
    assert generic.value == pytest.approx(exact.value, rel=1e-10)


# ---- exact constants ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("batch,replace", [(1, False), (3, False), (3, True)])
@pytest.mark.parametrize("size", SIZES)
def test_exact_constants_equal_dense_computation(size, batch, replace):
    K, n, d = size
    problem = make(K, n, d, 5, radius=1.2)
    dense = dense_twin(problem)
    fit = dense.datafit
    ex = ils.exact_constants(problem, batch, replace)
    eig = np.linalg.eigvalsh(fit.hessians)
    Qbar, bbar, cbar = fit.mean_quadratic(problem.weights)
    ebar = np.linalg.eigvalsh(Qbar)
    w = np.linalg.solve(Qbar, bbar)
    G = fit.client_gradients(np.broadcast_to(w, (K, d)))
    mins = [0.5 * np.mean((X @ np.linalg.lstsq(X, y, rcond=None)[0] - y) ** 2) for X, y in zip(fit.X, fit.y,
                                                                                             strict=True)]
    f_star = 0.5 * w @ Qbar @ w - bbar @ w + cbar
    for name, value in {"L": eig.max(), "mu": eig.min(), "L_F": ebar.max(), "mu_F": ebar.min(), "f_star": f_star,
                        "zeta2": problem.weights @ np.sum(G * G, axis=1),
                        "Gamma": f_star - problem.weights @ np.array(mins)}.items():
        assert ex[name] == pytest.approx(value, rel=1e-10, abs=1e-13), name
    close(ex["w_star"], w, 1e-10)
    ref = constants.compute(dense, batch, replace, reference_point=ex["w_star"], cache=False)
    close(ex["sigma2_ref_k"], ref.sigma2_ref_k, 1e-10)
    assert ex["sigma2_ref"] == pytest.approx(ref.sigma2_ref, rel=1e-10)
    close(ex["sigma2_k"], ref.sigma2_k, 1e-9)  # sup over the ball: the dense TRS of solvers/_trs.py
    assert ex["sigma2"] == pytest.approx(ref.sigma2, rel=1e-9)
    assert ex["sigma_bar2"] == pytest.approx(ref.sigma_bar2, rel=1e-9)
    assert ex["L"] == pytest.approx(ref.L, rel=1e-10) and ex["mu_F"] == pytest.approx(ref.mu_F, rel=1e-10)
    # the exact reference is the closed-form optimum with a certified (tiny) gap
    exact_ref = ils.exact_reference(make(K, n, d, 5))
    close(exact_ref.w, w, 1e-10)
    assert exact_ref.gap <= 1e-20 and exact_ref.value == pytest.approx(f_star, rel=1e-10)


def test_no_radius_gives_infinite_sigma2_with_a_note():
    ex = ils.exact_constants(make(3, 6, 6, 0), 2)
    assert ex["sigma2"] == math.inf and "no radius" in ex["notes"]["sigma2"]
    assert math.isfinite(ex["sigma2_ref"])


@pytest.mark.parametrize("seed,replace", [(0, False), (1, False), (2, True)])
def test_variance_matches_monte_carlo_minibatches(seed, replace):
    """Mean of ‖g_k(w*) − ∇f_k(w*)‖² over T oracle draws against the exact V_k(w*), within 5 standard errors."""
    K, n, d, B, T = 4, 16, 8, 4, 3000
    problem = make(K, n, d, seed, noise=0.3)
    ex = ils.exact_constants(problem, B, replace)
    w = ex["w_star"]
    exact_grad = problem.datafit.client_gradients(np.broadcast_to(w, (K, d)))
    streams = oracles.make_streams_many([seed], K)
    oracle = oracles.GradientOracle(problem, [streams[0].clients], B, replace=replace, prefetch=True)
    oracle.begin_round(np.broadcast_to(np.arange(K), (1, K)), T)
    W = np.broadcast_to(w, (1, K, d))
    dev = np.empty((T, K))
    for t in range(T):
        diff = oracle(W)[0] - exact_grad
        dev[t] = np.einsum("kd,kd->k", diff, diff)
    se = dev.std(axis=0, ddof=1) / math.sqrt(T)
    assert np.all(np.abs(dev.mean(axis=0) - ex["sigma2_ref_k"]) <= 5 * se), (dev.mean(axis=0), ex["sigma2_ref_k"], se)
    # not vacuous: a variance off by the batch factor (B instead of the finite-population correction) is rejected
    wrong = ex["sigma2_ref_k"] * (ils.batch_factor(n, B, not replace) / ils.batch_factor(n, B, replace))
    assert np.any(np.abs(dev.mean(axis=0) - wrong) > 5 * se)


# ---- certificates ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("large", [False, True])
def test_certificates_hold_and_reject_wrong_values(monkeypatch, large):
    problem = make(5, 24, 8, 6, radius=1.0)
    eig = np.linalg.eigvalsh(problem.datafit.to_sample_least_squares().hessians)
    if large:
        monkeypatch.setattr(ils, "DENSE_BUDGET", 0)
    certs = certify.for_implicit(problem, batch=3)
    assert certify.check_certified(certs) == []
    assert set(certs) == {"L", "mu", "L_F", "mu_F", "zeta2", "Gamma", "sigma2_ref", "sigma2"}
    assert ("Cholesky" in certs["L"].upper_method) != large
    for name in ("L", "mu", "zeta2", "sigma2_ref", "Gamma", "L_F", "mu_F", "sigma2"):
        for factor in (1.01, 0.99):
            lines = certify.check_certified(certify.for_implicit(problem, {name: certs[name].value * factor},
                                                                 batch=3))
            assert lines and lines[0].startswith(f"{name} ="), (name, factor, lines)
    if large:  # the large route's second sides really bound the dense spectra
        assert certs["L"].upper >= eig.max() and certs["mu"].upper <= eig.min()


# ---- scale, seeds, refusals --------------------------------------------------------------------------------------
def test_large_instance_in_o_kn_memory():
    tracemalloc.start()
    try:
        problem = make(20_000, 64, 32, 0)
        ex = ils.exact_constants(problem, 8)
        certs = certify.for_implicit(problem, batch=8)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # (K, d, d) alone would be 164 MB and (K, n, d) 328 MB; the instance holds ~36 MB
    assert peak < 120 * 2**20, peak / 2**20
    assert certify.check_certified(certs) == []
    assert 0 < ex["mu"] <= ex["mu_F"] <= ex["L_F"] <= ex["L"] and ex["sigma2_ref"] > 0
    with pytest.raises(InputError, match="dense Hessians"):
        _ = problem.datafit.hessians
    with pytest.raises(InputError, match="dense sample matrix"):
        problem.datafit.to_sample_least_squares()


def test_seeds_and_refusals():
    a, b, c = make(6, 10, 5, 3), make(6, 10, 5, 3), make(6, 10, 5, 4)
    for name in ("index", "scale", "y", "lam", "beta", "offset"):
        assert np.array_equal(getattr(a.datafit, name), getattr(b.datafit, name)), name
    assert a.fingerprint == b.fingerprint != c.fingerprint
    assert not np.array_equal(a.datafit.scale, c.datafit.scale) and not np.array_equal(a.datafit.y, c.datafit.y)
    with pytest.raises(InputError) as err:
        make(3, 4, 5)
    assert "\n" not in str(err.value) and "samples=4" in str(err.value)
    with pytest.raises(InputError, match="exceeds"):
        ils.exact_constants(a, 11)
    with pytest.raises(InputError, match="GiB"):
        make(10**9, 10**4, 100)


# ---- a stochastic FedAvg run -------------------------------------------------------------------------------------
def test_stochastic_fedavg_reaches_the_noise_floor_like_its_dense_twin():
    problem = make(6, 32, 8, 2, noise=0.3, heterogeneity=0.3)
    dense = dense_twin(problem)
    ref = ils.exact_reference(problem)
    ex = ils.exact_constants(problem, 4)
    late = {}
    for step in (0.1, 0.2):
        iterates = {}
        for prob in (problem, dense):
            xs: list[np.ndarray] = []
            trace = run_batch("fedavg", prob, rounds=60, seeds=[0, 1, 2], reference=ref, local_steps=5, step=step,
                              batch=4, callback=lambda r, s, xs=xs: xs.append(np.array(s["x"])))
            iterates[id(prob)] = np.array(xs)
            gaps = trace.records.pivot(index="round", columns="seed", values="objective_gap").values
        np.testing.assert_allclose(iterates[id(problem)], iterates[id(dense)], rtol=0, atol=1e-10)
        exact_gap = run_batch("fedavg", problem, rounds=60, seeds=[0], reference=ref, local_steps=5, step=step,
                              gradients="exact").records["objective_gap"].values[-1]
        late[step] = gaps[-10:].mean()
        assert late[step] <= 0.01 * gaps[0].mean()
        assert late[step] <= step * ex["L"] * ex["sigma2_ref"]
        assert late[step] >= 5 * exact_gap  # the floor is the minibatch noise, not the client drift
    assert 1.4 <= late[0.2] / late[0.1] <= 2.8  # and it scales with the step size
