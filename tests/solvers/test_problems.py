"""Problem layer: presets reproduce the papers' recipes, exact gradients, domains, seeds and input errors."""

from __future__ import annotations

import numpy as np
import pytest

from fedrates.solvers import problems
from fedrates.solvers.errors import InputError

SMALL = {
    "lasso": {"clients": 3, "samples": 7, "dim": 5, "sparsity": 2},
    "trace": {"clients": 3, "samples": 7, "rows": 3, "cols": 2, "rank": 1},
    "quadratic": {"clients": 4, "dim": 5},
}


@pytest.fixture(scope="module")
def bao_lasso():
    return problems.make("lasso", "bao-lasso")


def test_bao_lasso_recipe(bao_lasso):
    p = bao_lasso
    assert p.X.shape == (64, 128, 1024) and p.y.shape == (64, 128)
    expected = np.concatenate([np.ones(512), np.zeros(512)])
    assert np.array_equal(p.truth, expected)
    assert p.penalty.lam == 0.5**5
    assert np.array_equal(p.weights, np.full(64, 1 / 64))


def test_lasso_covariates_have_ar1_covariance_around_client_shift():
    # reduced size: many samples so that the empirical covariance is within 0.05 (> 6 standard errors)
    p = problems.make("lasso", clients=2, samples=20000, dim=5, sparsity=1, correlation=0.5)
    idx = np.arange(5)
    target = 0.5 ** np.abs(idx[:, None] - idx[None, :])
    for k in range(2):
        Z = p.X[k] - p.extras["deltas"][k]
        assert np.max(np.abs(Z.T @ Z / Z.shape[0] - target)) < 0.05
        assert np.max(np.abs(Z.mean(axis=0))) < 0.05


def test_trace_shifts_differ_across_clients():
    p = problems.make("trace", clients=4, samples=400, rows=3, cols=3, rank=1)
    Zs = p.extras["shifts"].reshape(4, -1)
    gaps = np.linalg.norm(Zs[:, None] - Zs[None], axis=2)[np.triu_indices(4, 1)]
    assert np.all(gaps > 0.5)
    # the data of client k is centred at its own Z_k (mean of 400 N(0,1) entries: std 0.05, tolerance 0.3)
    assert np.max(np.abs(p.X.mean(axis=1) - p.extras["shifts"])) < 0.3


def test_bao_trace_recipe():
    p = problems.make("trace", "bao-trace", clients=2)
    assert p.shape == (32, 32) and p.penalty.lam == 0.1
    assert np.linalg.matrix_rank(p.truth) == 16


@pytest.mark.parametrize("family", sorted(SMALL))
@pytest.mark.parametrize("sampling", ["empirical", "population"])
def test_gradient_vs_finite_differences(family, sampling):
    params = dict(SMALL[family])
    if family != "quadratic":
        params["sampling"] = sampling
    elif sampling == "population":
        pytest.skip("quadratic family has only gaussian sampling")
    p = problems.make(family, **params)
    rng = np.random.default_rng(0)
    w = rng.standard_normal(p.shape)
    g = p.gradient(w)
    h = 1e-6
    fd = np.zeros(p.dim)
    for i in range(p.dim):
        e = np.zeros(p.dim)
        e[i] = h
        fd[i] = (p.smooth_value(w + p.unflat(e)) - p.smooth_value(w - p.unflat(e))) / (2 * h)
    assert np.allclose(p.flat(g), fd, rtol=1e-6, atol=1e-6)
    # closed form ∇f_k = Q_k w − b_k at per-client points
    W = rng.standard_normal((p.clients,) + p.shape)
    expected = np.einsum("kij,kj->ki", p.datafit.hessians, p.flat(W)) - p.datafit.linear_terms
    assert np.allclose(p.flat(p.client_gradients(W)), expected, atol=1e-10)


def test_objective_infinite_outside_ball():
    p = problems.make("lasso", **SMALL["lasso"], radius=1.0)
    w = np.zeros(5)
    w[0] = 0.999
    assert np.isfinite(p.objective(w))
    w[0] = 1.01
    assert p.objective(w) == np.inf


@pytest.mark.parametrize("family", sorted(SMALL))
def test_seeds(family):
    a = problems.make(family, **SMALL[family], seed=3)
    b = problems.make(family, **SMALL[family], seed=3)
    c = problems.make(family, **SMALL[family], seed=4)
    assert a.fingerprint == b.fingerprint
    assert np.array_equal(a.datafit.hessians, b.datafit.hessians)
    assert a.fingerprint != c.fingerprint
    assert not np.allclose(a.datafit.linear_terms, c.datafit.linear_terms)


@pytest.mark.parametrize("family,params,fragment", [
    ("lasso", {"sampels": 3}, "did you mean 'samples'"),
    ("lasso", {"dim": "ten"}, "not a number"),
    ("lasso", {"samples": -2}, "out of range"),
    ("lasso", {"clients": 0}, "out of range"),
    ("lasso", {"lam": -0.1}, "out of range"),
    ("lasso", {"radius": 0.0}, "out of range"),
    ("lasso", {"radius": -1.0}, "out of range"),
    ("lasso", {"dim": 4, "sparsity": 5}, "sparsity"),
    ("trace", {"rows": 2, "cols": 3, "rank": 3}, "rank"),
    ("quadratic", {"mu": 2.0, "L": 1.0}, "L"),
])
def test_bad_inputs_one_line(family, params, fragment):
    with pytest.raises(InputError) as err:
        problems.make(family, **params)
    message = str(err.value)
    assert fragment in message and "\n" not in message


def test_unknown_family_and_preset():
    with pytest.raises(InputError, match="did you mean 'lasso'"):
        problems.make("laso")
    with pytest.raises(InputError, match="did you mean 'bao-lasso'"):
        problems.make("lasso", "bao-laso")


def test_objective_at_a_point_is_remembered_bit_for_bit_and_batches_are_not(monkeypatch):
    """φ at a single point is computed once (the metrics of every run ask again for φ(ŵ)): the remembered value is
    the computed one, a different point (even -0.0 for 0.0) or a batch of points is evaluated again, and only the
    last few points are kept."""
    from fedrates.solvers.problems import base

    p = problems.make("lasso", clients=3, samples=5, dim=4, sparsity=2, lam=0.1, radius=2.0)
    fit_type = type(p.datafit)
    calls = []
    original = fit_type.client_values

    def counting(self, w):
        calls.append(np.shape(w))
        return original(self, w)

    monkeypatch.setattr(fit_type, "client_values", counting)
    rng = np.random.default_rng(0)
    w = rng.standard_normal(4)
    first = p.objective(w)
    assert first == float(p.smooth_value(w) + p.penalty_value(w))  # what is computed, not something else
    calls.clear()
    assert p.objective(w.copy()) == first and calls == []  # the same bytes: remembered
    zero = np.zeros(4)
    p.objective(zero)
    calls.clear()
    p.objective(-zero)  # other bytes: evaluated again
    assert len(calls) == 1
    calls.clear()
    batch = np.stack([w, w])
    assert np.array_equal(p.objective(batch), [first, first]) and len(calls) == 1
    p.objective(batch)
    assert len(calls) == 2  # batches are never remembered
    points = [rng.standard_normal(4) for _ in range(base._REMEMBERED_POINTS + 1)]
    for q in points:
        p.objective(q)
    calls.clear()
    p.objective(points[-1])
    assert calls == []
    p.objective(points[0])  # the oldest was dropped
    assert len(calls) == 1
    outside = np.full(4, 10.0)
    assert p.objective(outside) == np.inf and p.objective(outside) == np.inf
