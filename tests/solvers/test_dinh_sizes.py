"""Unequal device sizes of the Dinh et al. finite-sum families (``size_levels``): p_n = D_n/D and F_n of D_n samples."""

import numpy as np
import pytest

from fedrates.solvers import problems
from fedrates.solvers.errors import InputError
from fedrates.solvers.problems.finite_sum import device_sizes, finite_sum


def test_weights_are_the_device_sizes_over_their_sum():
    pb = problems.make("dinh_ls", clients=3, samples=8, dim=2, size_levels=2)
    assert list(device_sizes(pb.params)) == [8, 4, 2]
    np.testing.assert_allclose(pb.weights, np.array([8, 4, 2]) / 14)


def test_a_small_device_is_its_distinct_samples_repeated():
    """F_n of device n is the mean over its D_n distinct samples; each is stored n/D_n times (same uniform law)."""
    pb = problems.make("dinh_ls", clients=3, samples=8, dim=2, size_levels=2, noise=0.3)
    fs = finite_sum(pb)
    X, y = fs.X[2], fs.y[2]
    distinct = np.unique(np.round(X, 12), axis=0)
    assert distinct.shape[0] == 2
    A_distinct = np.einsum("id,ie->de", X[::4], X[::4]) / 2
    np.testing.assert_allclose(pb.datafit.hessians[2], A_distinct, rtol=1e-12)
    np.testing.assert_array_equal(y[::4], y[1::4])  # a repeated sample keeps its label


def test_default_keeps_equal_weights_and_refuses_indivisible_sizes():
    pb = problems.make("dinh_ls", clients=3, samples=6, dim=2)
    np.testing.assert_allclose(pb.weights, np.full(3, 1 / 3))
    with pytest.raises(InputError, match="divisible"):
        problems.make("dinh_ls", clients=3, samples=6, dim=2, size_levels=2)


def test_nonconvex_family_takes_unequal_sizes():
    pb = problems.make("dinh_nc", clients=2, samples=4, dim=2, shift=1.0, size_levels=1)
    np.testing.assert_allclose(pb.weights, [2 / 3, 1 / 3])
