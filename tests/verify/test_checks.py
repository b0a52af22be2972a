"""Checks on synthetic measurements with known truth: each must pass the truth and fail a wrong claim."""

import numpy as np
import pytest

from fedrates.verify import checks
from fedrates.verify import tolerances as tol


def _power_law(slope, seeds=20, points=6, noise=0.05, seed=0):
    rng = np.random.default_rng(seed)
    x = np.geomspace(100, 10_000, points)
    y = 3.0 * x**slope * np.exp(noise * rng.standard_normal((seeds, points)))
    return x, y


@pytest.mark.parametrize("seed", range(5))
def test_rate_exponent_passes_true_slope_and_fails_wrong_one(seed):
    x, y = _power_law(-1.0, seed=seed)
    assert checks.rate_exponent(x, y, -1.0).verdict == "pass"
    # a plateau (slope 0) and a T^-2 rate are both rejected against a predicted -1
    x, flat = _power_law(0.0, seed=seed)
    assert checks.rate_exponent(x, flat, -1.0).verdict == "fail"
    x, fast = _power_law(-2.0, seed=seed)
    assert checks.rate_exponent(x, fast, -1.0).verdict == "fail"


def test_rate_exponent_is_inconclusive_when_noise_hides_the_slope():
    x, y = _power_law(-1.0, seeds=3, points=3, noise=3.0, seed=1)
    x = np.array([100.0, 120.0, 150.0])  # a tiny range: the slope cannot be pinned down
    assert checks.rate_exponent(x, y, -1.0).verdict == "inconclusive"


def test_rate_exponent_rejects_divergence():
    x, y = _power_law(-1.0)
    y[0, 2] = np.nan
    assert checks.rate_exponent(x, y, -1.0).verdict == "fail"


def test_linear_speedup():
    rng = np.random.default_rng(3)
    K = np.array([2, 4, 8, 16, 32], dtype=float)
    y = (1.0 / K) * np.exp(0.05 * rng.standard_normal((15, 5)))
    assert checks.linear_speedup(K, y).verdict == "pass"
    assert checks.linear_speedup(K, np.ones((15, 5)) + 0.01 * rng.random((15, 5))).verdict == "fail"


def test_bound_holds_pass_fail_inconclusive():
    rng = np.random.default_rng(4)
    y = 1.0 + 0.1 * rng.standard_normal((30, 4))
    assert checks.bound_holds(y, np.full(4, 1.5)).verdict == "pass"
    assert checks.bound_holds(y, np.full(4, 0.5)).verdict == "fail"
    assert checks.bound_holds(y, np.full(4, 1.0)).verdict == "inconclusive"


def test_bound_holds_deterministic_uses_float_slack_only():
    assert checks.bound_holds(np.array([[1.0, 2.0]]), np.array([1.0, 2.0])).verdict == "pass"
    assert checks.bound_holds(np.array([[1.0, 2.0 * (1 + 1e-6)]]), np.array([1.0, 2.0])).verdict == "fail"


def test_within_constant_calibrates_and_detects_a_slower_rate():
    x = np.geomspace(10, 1000, 6)
    good = np.tile(5.0 / x, (4, 1))
    res = checks.within_constant(x, good, 1.0 / x)
    assert res.verdict == "pass" and res.calibrated_constant == pytest.approx(5.0)
    slow = np.tile(5.0 / np.sqrt(x), (4, 1))
    assert checks.within_constant(x, slow, 1.0 / x).verdict == "fail"


def test_quantile_bound():
    rng = np.random.default_rng(5)
    s = rng.exponential(1.0, (200, 2))  # 0.9-quantile = ln 10 = 2.30
    assert checks.quantile_bound(s, np.array([3.5, 3.5]), delta=0.1).verdict == "pass"
    assert checks.quantile_bound(s, np.array([1.5, 1.5]), delta=0.1).verdict == "fail"


def test_comparison_paired():
    rng = np.random.default_rng(6)
    b = 1.0 + 0.2 * rng.random(12)
    assert checks.comparison(0.5 * b, b).verdict == "pass"
    assert checks.comparison(b, 0.5 * b).verdict == "fail"


def test_tolerances_are_documented_numbers():
    assert 0 < tol.SLOPE_TOLERANCE < 0.5
    assert 0.9 <= tol.CONFIDENCE < 1
