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
