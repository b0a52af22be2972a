"""The similarity graph of Buttaci & Calafiore (Def. 1–2, Algorithm 1): hand-computed graphs and edge cases."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fedrates.solvers import similarity as sim
from fedrates.solvers.errors import InputError


def unit(*v):
    v = np.asarray(v, dtype=float)
    return v / np.linalg.norm(v)


def test_three_clients_by_hand():
    # e1, e2 and their bisector: mis(e1, e2) = 1/2, mis(e1, b) = mis(e2, b) = (1 - 1/sqrt2)/2
    M = np.stack([unit(1, 0), unit(0, 1), unit(1, 1)])
    g = sim.build_graph(M)
    a12 = math.log(2.0)
    a13 = -math.log((1 - 1 / math.sqrt(2)) / 2)
    total = 2 * (a12 + 2 * a13)
    expected = np.array([[0, a12, a13], [a12, 0, a13], [a13, a13, 0]]) / total
    np.testing.assert_allclose(g.weights, expected, rtol=1e-14, atol=0)
    np.testing.assert_allclose(g.degrees, [(a12 + a13) / total, (a12 + a13) / total, 2 * a13 / total], rtol=1e-14)
    assert g.clipped == 0 and g.components == 1
    np.testing.assert_allclose(g.neighbour_weights.sum(axis=1), 1.0, rtol=1e-14)


def test_misalignment_values_and_distance_form():
    M = np.stack([unit(1, 0, 0), unit(0, 1, 0), unit(-1, 0, 0), unit(1, 1, 1)])
    mis = sim.misalignment(M)
    assert mis[0, 1] == pytest.approx(0.5) and mis[0, 2] == pytest.approx(1.0)
    dist = np.sum((M[:, None] - M[None]) ** 2, axis=-1) / 4
    np.testing.assert_allclose(mis, dist, atol=1e-15)
    A, clipped = sim.adjacency(mis)
    assert A[0, 1] == pytest.approx(math.log(2)) and A[0, 2] == 0.0 and clipped == 0
    assert np.all(np.diag(A) == 0)


def test_identical_messages_are_clipped_and_finite():
    M = np.stack([unit(1, 2), unit(1, 2), unit(2, -1)])
    g = sim.build_graph(M, clip=1e-10)
    assert g.clipped == 1
    assert g.adjacency[0, 1] == pytest.approx(-math.log(1e-10))
    assert np.all(np.isfinite(g.weights)) and g.weights.sum() == pytest.approx(1.0)


def test_canonical_sign_largest_entry_positive_first_on_ties():
    np.testing.assert_array_equal(sim.canonical_sign(np.array([[0.6, -0.8]])), [[-0.6, 0.8]])
    np.testing.assert_array_equal(sim.canonical_sign(np.array([[-0.6, 0.8]])), [[-0.6, 0.8]])
    np.testing.assert_array_equal(sim.canonical_sign(np.array([[-0.5, 0.5]])), [[0.5, -0.5]])


def test_graph_is_invariant_to_message_signs_only_after_canonicalisation():
    rng = np.random.default_rng(0)
    M = sim.canonical_sign(rng.standard_normal((6, 4)))
    M /= np.linalg.norm(M, axis=1, keepdims=True)
    signs = np.array([1, -1, 1, -1, -1, 1.0])[:, None]
    g = sim.build_graph(M)
    flipped = sim.build_graph(sim.canonical_sign(M * signs))
    np.testing.assert_allclose(flipped.weights, g.weights, atol=1e-15)
    raw = sim.build_graph(M * signs)  # without canonicalisation the graph changes
    assert np.max(np.abs(raw.weights - g.weights)) > 1e-2


def test_permutation_equivariance():
    rng = np.random.default_rng(1)
    M = rng.standard_normal((5, 3))
    M /= np.linalg.norm(M, axis=1, keepdims=True)
    perm = rng.permutation(5)
    g, gp = sim.build_graph(M), sim.build_graph(M[perm])
    np.testing.assert_allclose(gp.weights, g.weights[np.ix_(perm, perm)], atol=1e-16)
    np.testing.assert_allclose(gp.degrees, g.degrees[perm], atol=1e-16)


def test_messages_are_uncentered_top_principal_components():
    rng = np.random.default_rng(2)
    v = unit(1, -2, 0.5)
    # rank-one data plus a large mean: the uncentered PC follows the mean, not the centred covariance
    X = np.outer(3.0 + rng.standard_normal(50), v)
    m = sim.messages([X])[0]
    assert abs(abs(m @ v) - 1) < 1e-12
    assert m[np.argmax(np.abs(m))] > 0
    Y = rng.standard_normal((40, 3)) * [0.1, 0.1, 0.1] + np.array([0.0, 5.0, 0.0])
    assert abs(sim.messages([Y])[0][1]) > 0.99


def test_zero_degree_client_is_refused():
    # every other message is the opposite of client 0's: A_0n = 0 for all n
    M = np.stack([unit(1, 0), unit(-1, 0), unit(-1, 0)])
    with pytest.raises(InputError, match="client 0 has no neighbour"):
        sim.build_graph(M)


def test_graph_without_edges_is_refused():
    with pytest.raises(InputError, match="no edge"):
        sim.build_graph(np.stack([unit(1, 0), unit(-1, 0)]))


def test_disconnected_graph_reported_and_refused_on_request():
    M = np.stack([unit(1, 0), unit(1, 0), unit(-1, 0), unit(-1, 0)])
    g = sim.build_graph(M)
    assert g.components == 2 and np.all(g.degrees > 0)
    with pytest.raises(InputError, match="2 connected components"):
        sim.build_graph(M, require_connected=True)


@pytest.mark.parametrize("bad, match", [
    (np.array([[np.nan, 1.0], [1.0, 0.0]]), "NaN"),
    (np.array([[2.0, 0.0], [0.0, 1.0]]), "norm"),
    (np.array([[1.0, 0.0]]), "clients >= 2"),
])
def test_bad_messages_are_refused(bad, match):
    with pytest.raises(InputError, match=match):
        sim.build_graph(bad)


def test_bad_data_and_clip_are_refused():
    with pytest.raises(InputError, match="NaN"):
        sim.messages([np.array([[np.nan, 1.0]])])
    with pytest.raises(InputError, match="all zero"):
        sim.messages([np.zeros((3, 2))])
    with pytest.raises(InputError, match="clip"):
        sim.adjacency(np.zeros((2, 2)), clip=0.0)


def test_laplacian_rows_sum_to_zero():
    rng = np.random.default_rng(3)
    M = rng.standard_normal((4, 3))
    M /= np.linalg.norm(M, axis=1, keepdims=True)
    Lap = sim.laplacian(sim.build_graph(M).adjacency)
    np.testing.assert_allclose(Lap.sum(axis=1), 0.0, atol=1e-12)
    assert np.min(np.linalg.eigvalsh(Lap)) > -1e-12
