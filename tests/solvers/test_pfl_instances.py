"""Least-squares federations with a similarity graph (``similar_quadratic``): exact constants, degree weights."""

from __future__ import annotations

import numpy as np
import pytest

from fedrates.solvers import problems, reference
from fedrates.solvers import similarity as sim
from fedrates.solvers.errors import InputError
from fedrates.solvers.problems.quadratic import spectrum
from fedrates.solvers.problems.similar_quadratic import exact_constants


@pytest.mark.parametrize("preset", ["buttaci-common", "buttaci-clustered"])
def test_exact_second_moments_and_degree_weights(preset):
    problem = problems.make("similar_quadratic", preset)
    p = problem.params
    lam = spectrum(p["mu"], p["L"], p["dim"])
    H = problem.datafit.hessians
    np.testing.assert_allclose(np.linalg.eigvalsh(H), np.broadcast_to(lam, H.shape[:2]), rtol=1e-12)
    # the weights are the degrees of the graph of the data's messages, recomputed here by SVD
    X, y = problem.datafit.X, problem.datafit.y
    data = np.concatenate([X, y[:, :, None]], axis=2) if p["message"] == "data" else X
    V = sim.canonical_sign(np.stack([np.linalg.svd(x, full_matrices=False)[2][0] for x in data]))
    np.testing.assert_allclose(problem.weights, sim.build_graph(V).degrees, atol=1e-12)
    P = problem.extras["similarity_weights"]
    np.testing.assert_allclose(P.sum(axis=1), problem.weights, atol=1e-15)
    if preset == "buttaci-common":
        np.testing.assert_allclose(H, np.broadcast_to(H[0], H.shape), atol=1e-12)
        assert problem.weights.max() / problem.weights.min() > 5  # the graph is not trivial


def _top_eigenvectors(problem):
    return np.linalg.eigh(problem.datafit.hessians)[1][:, :, -1]


@pytest.mark.parametrize("preset", ["buttaci-clustered", "buttaci-nonconvex"])
def test_clustered_presets_are_cluster_specific(preset):
    """The regime the presets name: clients of one cluster share a top eigenvector up to the 5° rotations, clients of
    different clusters do not, and the graph's degrees are far from uniform (unequal cluster sizes)."""
    problem = problems.make("similar_quadratic", preset)
    labels = problem.extras["labels"]
    assert sorted(np.bincount(labels)) == [2, 4]
    top = _top_eigenvectors(convex := problems.make("similar_quadratic", "buttaci-clustered"))
    cos = np.abs(top @ top.T)
    same = labels[:, None] == labels[None]
    # within a cluster: two rotations of at most 5° each, so |cos| >= cos(10°)
    assert cos[same].min() >= np.cos(np.deg2rad(10.0)) - 1e-12
    assert cos[~same].max() < 0.8  # measured 0.63 at the preset's seed
    H = convex.datafit.hessians
    gap = np.linalg.norm(H[:, None] - H[None], ord=2, axis=(-2, -1))
    assert gap[~same].min() > 2 * gap[same].max()
    w = problem.weights
    assert w.max() / w.min() > 1.5  # measured 2.02 (features messages)


def test_cluster_bases_are_independent_draws():
    """With no within-cluster rotation every client of a cluster has the cluster's Hessian; different clusters must
    have different Hessians at every seed (one shared basis would make all Hessians equal)."""
    for seed in range(10):
        problem = problems.make("similar_quadratic", hessian="clustered", clusters=3, angle=0.0, seed=seed)
        H, labels = problem.datafit.hessians, problem.extras["labels"]
        for a in range(3):
            for b in range(a + 1, 3):
                ia, ib = np.flatnonzero(labels == a)[0], np.flatnonzero(labels == b)[0]
                assert np.linalg.norm(H[ia] - H[ib], 2) > 0.1, (seed, a, b)
        np.testing.assert_allclose(H[labels == 0], np.broadcast_to(H[0], H[labels == 0].shape), atol=1e-12)


def test_unequal_cluster_sizes():
    from fedrates.solvers.problems.similar_quadratic import _labels

    assert list(_labels(6, 2, "unequal")) == [0, 0, 1, 1, 1, 1]
    assert list(np.bincount(_labels(10, 3, "unequal"))) == [2, 3, 5]
    assert list(_labels(5, 5, "unequal")) == [0, 1, 2, 3, 4]
    assert list(_labels(6, 2, "equal")) == [0, 1, 0, 1, 0, 1]


def test_closed_form_optimum_gamma_and_reference_agree():
    problem = problems.make("similar_quadratic", "buttaci-clustered")
    c = exact_constants(problem)
    ref = reference.solve(problem, cache=False)
    assert np.linalg.norm(ref.w - c["w_star"]) < 1e-8
    assert abs(ref.value - c["f_star"]) < 1e-10
    # Γ = f* − Σ p_i f_i*, with f_i* recomputed by least squares on each client's data
    fi = []
    for X, y in zip(problem.datafit.X, problem.datafit.y, strict=True):
        w, *_ = np.linalg.lstsq(X, y, rcond=None)
        fi.append(0.5 * np.mean((X @ w - y) ** 2))
    assert c["Gamma"] == pytest.approx(c["f_star"] - problem.weights @ np.array(fi), rel=1e-10)
    assert c["Gamma"] > 0 and c["S"] == pytest.approx(np.sum(problem.weights**2))
    assert c["L"] == pytest.approx(5.0, rel=1e-12) and c["mu"] == pytest.approx(0.1, rel=1e-12)


def test_cvxpy_cross_check():
    problem = problems.make("similar_quadratic", "buttaci-common")
    fast = reference.solve(problem, method="fast", cache=False)
    cv = reference.solve(problem, method="cvxpy", cache=False)
    assert np.linalg.norm(fast.w - cv.w) < 1e-8


def test_nonconvex_clients_keep_f_unchanged():
    convex = problems.make("similar_quadratic", "buttaci-clustered")
    shifted = problems.make("similar_quadratic", "buttaci-nonconvex")
    t = shifted.extras["curvature_shifts"]
    assert abs(shifted.weights @ t) < 1e-14 and np.max(np.abs(t)) == pytest.approx(0.5)
    c = exact_constants(shifted)
    assert c["mu"] < 0 and not c["convex_clients"] and np.isnan(c["Gamma"])
    np.testing.assert_allclose(shifted.quadratic[0], convex.quadratic[0], atol=1e-12)
    assert c["f_star"] == pytest.approx(exact_constants(convex)["f_star"], rel=1e-12)


def test_identical_clients_take_the_clipping_path():
    problem = problems.make("similar_quadratic", hessian="common", clusters=1, within=0.0, noise=0.0, clients=4)
    g = problem.extras["graph"]
    assert g.clipped == 6  # all pairs identical
    np.testing.assert_allclose(problem.weights, 0.25, rtol=1e-12)
    assert exact_constants(problem)["Gamma"] == pytest.approx(0.0, abs=1e-12)


def test_bad_parameters():
    with pytest.raises(InputError, match="samples"):
        problems.make("similar_quadratic", samples=2, dim=4)
    with pytest.raises(InputError, match="clusters"):
        problems.make("similar_quadratic", clusters=9, clients=4)
    with pytest.raises(InputError, match="mu"):
        problems.make("similar_quadratic", mu=2.0, L=1.0)
