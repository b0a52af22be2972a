"""The AR(1) covariates of the Lasso family: closed-form Cholesky factor and the recursion used to sample them."""

from __future__ import annotations

import numpy as np
import pytest

from fedrates.solvers.problems.lasso import ar1_covariance, ar1_factor, ar1_transform


@pytest.mark.parametrize("c", [0.0, 0.3, 0.5, 0.95])
def test_factor_is_the_cholesky_factor(c: float) -> None:
    factor = ar1_factor(40, c)
    np.testing.assert_allclose(factor, np.linalg.cholesky(ar1_covariance(40, c)), atol=1e-14)
    np.testing.assert_allclose(factor @ factor.T, ar1_covariance(40, c), atol=1e-14)


@pytest.mark.parametrize("c", [0.0, 0.5, 0.9])
def test_recursion_equals_the_dense_product(c: float) -> None:
    noise = np.random.default_rng(3).standard_normal((4, 7, 60))
    np.testing.assert_allclose(ar1_transform(noise, c), noise @ ar1_factor(60, c).T, atol=1e-13)


def test_sampled_covariates_have_the_ar1_covariance() -> None:
    z = ar1_transform(np.random.default_rng(5).standard_normal((200_000, 6)), 0.5)
    # 200k samples: the sample covariance is within ~5 standard errors (≈ 5·√2/√n ≈ 0.016) of Σ
    np.testing.assert_allclose(np.cov(z, rowvar=False), ar1_covariance(6, 0.5), atol=0.02)


# ---- the fast generator is bit-for-bit the plain one (the data, and so every cache key, did not change) -----------

def _plain_recursion(noise: np.ndarray, c: float) -> np.ndarray:
    """The generator's original form: the recursion on a (p, ...) copy made by numpy's transposed copy."""
    z = np.moveaxis(noise, -1, 0).copy()
    scale = np.sqrt(1.0 - c**2)
    for j in range(1, z.shape[0]):
        z[j] *= scale
        z[j] += c * z[j - 1]
    return np.moveaxis(z, 0, -1)


@pytest.mark.parametrize("shape", [(3, 5, 7), (2, 70, 33), (1, 1, 1), (4, 33, 64)])
@pytest.mark.parametrize("c", [0.0, 0.5, 0.93])
def test_blocked_recursion_is_bit_identical_to_the_plain_one(shape, c) -> None:
    noise = np.random.default_rng(11).standard_normal(shape)
    fast = ar1_transform(noise, c)
    assert fast.flags["C_CONTIGUOUS"]
    np.testing.assert_array_equal(fast, _plain_recursion(noise, c))
    assert not np.shares_memory(fast, noise)


def test_covariates_equal_shift_plus_recursion_exactly_and_the_signal_within_rounding() -> None:
    from fedrates.solvers.problems.lasso import _covariates

    K, n, p, c = 5, 37, 70, 0.5
    rng = np.random.default_rng(4)
    noise, deltas = rng.standard_normal((K, n, p)), rng.standard_normal((K, p))
    truth = np.r_[np.ones(30), np.zeros(p - 30)]
    X, signal = _covariates(noise.copy(), c, deltas, truth)
    np.testing.assert_array_equal(X, deltas[:, None, :] + _plain_recursion(noise, c))
    assert X.flags["C_CONTIGUOUS"]
    np.testing.assert_allclose(signal, X @ truth, rtol=1e-13, atol=1e-13)


def test_ar1_matrices_equal_the_elementwise_powers() -> None:
    idx = np.arange(50)
    lag = idx[:, None] - idx[None, :]
    for c in (0.0, 0.5, 0.9):
        np.testing.assert_array_equal(ar1_covariance(50, c), c ** np.abs(lag))
        plain = np.where(lag >= 0, c ** np.maximum(lag, 0), 0.0)
        plain[:, 1:] *= np.sqrt(1.0 - c**2)
        np.testing.assert_array_equal(ar1_factor(50, c), plain)
