"""A cache hit on sample least squares is re-certified from the data in O(N·d), without forming the Gram matrix Q̄,
and is still never trusted: a well-formed entry (valid checksums, consistent value) holding a non-optimal point, or
an impossible stored bound on ‖Q̄⁻¹‖₂, is detected and recomputed."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fedrates.solvers import _cache, problems, reference
from fedrates.solvers.problems.datafits import SampleLeastSquares

INSTANCES = {
    "lasso": dict(dim=12, sparsity=4, clients=3, samples=20, lam=0.05),
    "lasso-ball": dict(dim=12, sparsity=4, clients=3, samples=20, lam=0.05, radius=1.5),
    "trace": dict(rows=4, cols=5, rank=2, clients=3, samples=30, lam=0.05),
}


def _make(name: str):
    family = name.split("-")[0]
    return problems.make(family, **INSTANCES[name])


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    path = tmp_path / "cache"
    monkeypatch.setenv("FEDRATES_CACHE", str(path))
    return path


def _key(problem, tol=reference.DEFAULT_TOL, method="auto"):
    return _cache.entry_key(problem.fingerprint, {"method": method, "tol": float(tol)})


@pytest.mark.parametrize("name", list(INSTANCES))
def test_hit_is_certified_from_the_data_without_forming_the_gram(cache_dir, monkeypatch, name):
    first = reference.solve(_make(name))
    assert not first.cached and math.isfinite(_cache.load(_key(_make(name)), first.w.shape)[1]["inverse_norm_bound"])

    def no_gram(self, weights):  # the hit must not form Q̄ (the O(N·d²) step this path exists to avoid)
        raise AssertionError("Gram matrix formed on a cache hit")

    monkeypatch.setattr(SampleLeastSquares, "mean_quadratic", no_gram)
    hit = reference.solve(_make(name))
    assert hit.cached and hit.gap <= reference.DEFAULT_TOL * max(1.0, abs(hit.value))
    np.testing.assert_array_equal(hit.w, first.w)
    assert hit.value == first.value


@pytest.mark.parametrize("name", list(INSTANCES))
def test_data_certificate_bounds_the_true_gap(name):
    problem = _make(name)
    ref = reference.solve(problem, cache=False)
    gram = reference._gram(problem)
    rng = np.random.default_rng(7)
    for scale in (0.0, 1e-9, 1e-6, 1e-3, 1e-1):
        for _ in range(3):
            w = reference.inside_ball(ref.w + scale * rng.standard_normal(ref.w.shape), problem.radius)
            cheap = reference._certify_samples(problem, w.reshape(-1), gram.inverse_norm_bound)
            # φ* ≤ ref.value, so φ(w) − ref.value is a lower bound on the true gap: a valid certificate is above it
            assert cheap >= float(problem.objective(w)) - ref.value - 1e-15
            assert cheap >= 0.0
    # at the optimum the data certificate is as tight as the one built on Q̄ (both at rounding level)
    cheap = reference._certify_samples(problem, ref.w.reshape(-1), gram.inverse_norm_bound)
    assert cheap <= max(100 * ref.gap, 1e-15)


@pytest.mark.parametrize("name", list(INSTANCES))
@pytest.mark.parametrize("scale", [1e-7, 1e-3])
def test_forged_entry_with_valid_checksums_is_detected(cache_dir, name, scale):
    problem = _make(name)
    good = reference.solve(problem)
    key = _key(problem)
    _, meta = _cache.load(key, good.w.shape)
    bad = reference.inside_ball(good.w + scale * np.random.default_rng(3).standard_normal(good.w.shape),
                                problem.radius)
    # a well-formed entry: checksums valid, value consistent with the point; only the certificate can tell
    forged = {**meta, "value": float(problem.objective(bad)), "gap": 0.0}
    assert _cache.store(key, bad, forged) is None
    assert _cache.load(key, good.w.shape) is not None
    again = reference.solve(_make(name))
    assert not again.cached  # recomputed, not trusted
    assert again.gap <= reference.DEFAULT_TOL * max(1.0, abs(again.value))
    np.testing.assert_allclose(again.w, good.w, atol=1e-8)
    w, _ = _cache.load(key, good.w.shape)  # the forged entry was replaced
    assert not np.array_equal(w, bad)


@pytest.mark.parametrize("name", ["lasso", "trace"])
def test_impossible_stored_bound_is_refused(cache_dir, name):
    problem = _make(name)
    good = reference.solve(problem)
    bound = reference._gram(problem).inverse_norm_bound
    flat = good.w.reshape(-1)
    assert reference._certify_samples(problem, flat, bound) <= 1e-11
    # ‖Q̄⁻¹‖₂ ≥ ‖z‖²/zᵀQ̄z for every z: a stored bound 10⁶× too small contradicts the data and is refused
    assert reference._certify_samples(problem, flat, bound * 1e-6) == math.inf
    for bogus in (0.0, -1.0, math.inf, math.nan):
        assert reference._certify_samples(problem, flat, bogus) == math.inf
    # an entry with an impossible bound and a non-optimal point: the full certificate takes over and rejects it
    key = _key(problem)
    _, meta = _cache.load(key, good.w.shape)
    bad = good.w + 1e-4
    _cache.store(key, bad, {**meta, "value": float(problem.objective(bad)), "inverse_norm_bound": bound * 1e-9})
    again = reference.solve(_make(name))
    assert not again.cached and again.gap <= 1e-11


def test_entry_without_the_stored_bound_is_certified_the_full_way(cache_dir):
    problem = _make("lasso")
    good = reference.solve(problem)
    key = _key(problem)
    _, meta = _cache.load(key, good.w.shape)
    _cache.store(key, good.w, {k: v for k, v in meta.items() if k != "inverse_norm_bound"})
    hit = reference.solve(_make("lasso"))
    assert hit.cached and hit.gap <= 1e-11
    # the entry is upgraded with the bound: the next hit is certified from the data alone
    _, upgraded = _cache.load(key, good.w.shape)
    assert upgraded["inverse_norm_bound"] == meta["inverse_norm_bound"]
    np.testing.assert_array_equal(_cache.load(key, good.w.shape)[0], good.w)


def test_extended_precision_residuals_are_really_extended():
    # the error bound of the data certificate assumes the residual is accumulated in long double
    if np.finfo(np.longdouble).eps >= np.finfo(float).eps:
        pytest.skip("long double is float64 on this platform: the certificate then uses u_e = u")
    X = np.array([[1e16, 1.0, -1e16]])
    assert float(np.einsum("ij,j->i", X, np.ones(3, dtype=np.longdouble))[0]) == 1.0
