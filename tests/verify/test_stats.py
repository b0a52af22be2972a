"""Tests of verify.stats: exact cases worked out by hand, and coverage of the intervals by simulation.

Coverage tests simulate 400 data sets with a known truth and count how often a nominal 95% interval covers
it. If the true coverage is exactly 0.95, the count is Bin(400, 0.95): P(count < 360) = 1.4e-5 and
P(count > 396) = 2.2e-6, so the acceptance window [90%, 99%] wrongly fails a correct method with probability
below 2e-5 per test (and the generators are seeded, so each run is deterministic).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from fedrates.verify import stats

N_SETS = 400
COVERAGE_WINDOW = (0.90, 0.99)


def _in_window(count: int) -> bool:
    return COVERAGE_WINDOW[0] <= count / N_SETS <= COVERAGE_WINDOW[1]


# ---------------------------------------------------------------------------------------------------- slopes


X = np.array([16.0, 32.0, 64.0, 128.0, 256.0])


@pytest.mark.parametrize("n_seeds", [1, 5])
def test_noise_free_power_law_has_exact_slope_and_zero_width_interval(n_seeds: int) -> None:
    y = np.tile(3.0 * X**-1.0, (n_seeds, 1))
    fit = stats.loglog_slope(X, y)
    assert fit.slope == pytest.approx(-1.0, abs=1e-12)
    assert math.exp(fit.intercept) == pytest.approx(3.0, rel=1e-12)
    assert fit.hi - fit.lo <= 1e-12
    assert fit.lo <= fit.slope <= fit.hi
    assert fit.residual_rms < 1e-12
    assert (fit.n_seeds, fit.n_points) == (n_seeds, 5)


def test_slope_of_hand_computed_two_point_line() -> None:
    # mean over the two seeds is (2, 8) at x = (1, 4): slope log(4)/log(4) = 1, intercept log 2
    fit = stats.loglog_slope([1.0, 4.0], [[1.0, 4.0], [3.0, 12.0]])
    assert fit.slope == pytest.approx(1.0, abs=1e-12)
    assert fit.intercept == pytest.approx(math.log(2.0), abs=1e-12)


def test_single_seed_uses_regression_interval_and_says_so() -> None:
    rng = np.random.default_rng(3)
    y = 5.0 * X**-0.5 * np.exp(rng.normal(0.0, 0.1, size=X.size))
    fit = stats.loglog_slope(X, y)
    assert "one seed" in fit.method
    assert fit.lo < fit.slope < fit.hi
    two = stats.loglog_slope(X[:2], y[:2])
    assert (two.lo, two.hi) == (-math.inf, math.inf)


@pytest.mark.parametrize(
    ("x", "y"),
    [
        (X, np.tile(X, (2, 1)) * np.array([[1.0], [-1.0]])),  # negative y
        (X * 0.0, np.tile(X, (2, 1))),  # zero x
        (X, np.zeros((2, 5))),  # zero y
        (X, np.ones((2, 4))),  # shape mismatch
        (np.ones(5), np.ones((2, 5))),  # a single distinct x
    ],
)
def test_slope_rejects_bad_input(x: np.ndarray, y: np.ndarray) -> None:
    with pytest.raises(ValueError):
        stats.loglog_slope(x, y)


def test_slope_is_reproducible_without_generator() -> None:
    rng = np.random.default_rng(0)
    y = X**-1.0 * np.exp(rng.normal(0.0, 0.3, size=(6, 5)))
    assert stats.loglog_slope(X, y) == stats.loglog_slope(X, y)
    a = stats.loglog_slope(X, y, rng=np.random.default_rng(9))
    b = stats.loglog_slope(X, y, rng=np.random.default_rng(9))
    assert a == b


@pytest.mark.parametrize(("n_seeds", "master_seed"), [(5, 11), (10, 12), (10, 13)])
def test_slope_interval_covers_true_exponent(n_seeds: int, master_seed: int) -> None:
    # y = 2 x^-1 · exp(seed effect + point noise): E[y] = C x^-1, so the slope of log E[y] is exactly -1
    rng = np.random.default_rng(master_seed)
    covered = 0
    for _ in range(N_SETS):
        noise = rng.normal(0.0, 0.3, size=(n_seeds, X.size)) + rng.normal(0.0, 0.3, size=(n_seeds, 1))
        fit = stats.loglog_slope(X, 2.0 * X**-1.0 * np.exp(noise), rng=rng, n_boot=1000)
        covered += fit.lo <= -1.0 <= fit.hi
    assert _in_window(covered), covered / N_SETS


# ---------------------------------------------------------------------------------------------------- means


def test_t_upper_bound_hand_computed() -> None:
    # mean 2, sd 1, n 3: 2 + t_{2, 0.95} / sqrt(3) with t_{2, 0.95} = 2.919985580 (t table)
    assert stats.mean_upper_bound([1.0, 2.0, 3.0]) == pytest.approx(2.0 + 2.919985580 / math.sqrt(3), rel=1e-8)
    assert stats.mean_lower_bound([1.0, 2.0, 3.0]) == pytest.approx(2.0 - 2.919985580 / math.sqrt(3), rel=1e-8)


@pytest.mark.parametrize("method", ["t", "bootstrap-t"])
def test_mean_bounds_degenerate_samples(method: str) -> None:
    assert stats.mean_upper_bound([4.0], method=method) == math.inf
    assert stats.mean_lower_bound([4.0], method=method) == -math.inf
    assert stats.mean_upper_bound([4.0, 4.0, 4.0], method=method) == 4.0


def test_mean_bound_rejects_bad_input() -> None:
    with pytest.raises(ValueError):
        stats.mean_upper_bound([])
    with pytest.raises(ValueError):
        stats.mean_upper_bound([1.0, float("nan")])
    with pytest.raises(ValueError):
        stats.mean_upper_bound([1.0, 2.0], method="wald")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        stats.mean_upper_bound([1.0, 2.0], confidence=1.5)


@pytest.mark.parametrize("master_seed", [21, 22])
def test_t_bound_covers_gaussian_mean(master_seed: int) -> None:
    rng = np.random.default_rng(master_seed)
    data = rng.normal(3.0, 2.0, size=(N_SETS, 8))
    upper = np.array([stats.mean_upper_bound(row) for row in data])
    lower = np.array([stats.mean_lower_bound(row) for row in data])
    assert _in_window(int(np.sum(upper >= 3.0)))
    assert _in_window(int(np.sum(lower <= 3.0)))


@pytest.mark.parametrize("master_seed", [31, 32])
def test_bootstrap_t_bound_covers_skewed_mean(master_seed: int) -> None:
    # exponential(1) samples of size 20: mean 1, strongly skewed (like objective gaps)
    rng = np.random.default_rng(master_seed)
    covered = sum(
        stats.mean_upper_bound(rng.exponential(size=20), method="bootstrap-t", rng=rng, n_boot=2000) >= 1.0
        for _ in range(N_SETS)
    )
    assert _in_window(covered)


@pytest.mark.parametrize("case", ["skewed", "ties", "two", "constant", "single", "heavy"])
def test_bootstrap_pair_equals_the_two_one_sided_bounds(case: str) -> None:
    # one set of resamples for both sides: the same two floats as two calls with generators in the same state
    rng = np.random.default_rng(7)
    samples = {"skewed": rng.exponential(size=12), "ties": np.array([1.0, 1.0, 1.0, 2.0, 5.0]),
               "two": np.array([0.5, 3.0]), "constant": np.full(6, 2.5), "single": np.array([4.0]),
               "heavy": rng.standard_cauchy(size=9)}[case]
    for confidence in (0.9, 0.95, 0.99):
        pair = stats.mean_bootstrap_bounds(samples, confidence, rng=np.random.default_rng(11), n_boot=500)
        lower = stats.mean_lower_bound(samples, confidence, "bootstrap-t", rng=np.random.default_rng(11), n_boot=500)
        upper = stats.mean_upper_bound(samples, confidence, "bootstrap-t", rng=np.random.default_rng(11), n_boot=500)
        assert pair == (lower, upper)
        assert pair[0] <= pair[1]


# ---------------------------------------------------------------------------------------------------- quantiles


def test_min_samples_for_quantile_classic_values() -> None:
    # 1 - 0.95^59 = 0.9515 >= 0.95 > 1 - 0.95^58 = 0.9490; 1 - 0.9^29 = 0.9529 > 0.95 > 1 - 0.9^28 = 0.9477
    assert stats.min_samples_for_quantile(0.95, 0.95) == 59
    assert stats.min_samples_for_quantile(0.9, 0.95) == 29
    assert stats.min_samples_for_quantile(0.5, 0.95) == 5


def test_quantile_bounds_hand_computed_median() -> None:
    # n = 10, q = 1/2: P(Bin <= 7) = 1 - 56/1024 = 0.945 < 0.95 <= P(Bin <= 8) = 1 - 11/1024, so X_(9);
    # P(Bin >= 2) = 1 - 11/1024 >= 0.95 > P(Bin >= 3) = 1 - 56/1024, so X_(2)
    x = np.array([7.0, 3.0, 9.0, 1.0, 5.0, 10.0, 2.0, 8.0, 4.0, 6.0])  # X_(k) = k
    assert stats.quantile_upper_bound(x, 0.5) == 9.0
    assert stats.quantile_lower_bound(x, 0.5) == 2.0


def test_quantile_bounds_infinite_with_too_few_samples() -> None:
    assert stats.quantile_upper_bound(np.arange(58.0), 0.95) == math.inf
    assert stats.quantile_upper_bound(np.arange(59.0), 0.95) == 58.0
    assert stats.quantile_lower_bound(np.arange(4.0), 0.5) == -math.inf


@pytest.mark.parametrize("master_seed", [41, 42])
def test_quantile_bounds_cover_true_quantile(master_seed: int) -> None:
    # exponential(1): the 0.9-quantile is log(10); bounds from 100 samples
    rng = np.random.default_rng(master_seed)
    truth = math.log(10.0)
    data = rng.exponential(size=(N_SETS, 100))
    up = np.array([stats.quantile_upper_bound(row, 0.9) for row in data])
    lo = np.array([stats.quantile_lower_bound(row, 0.9) for row in data])
    assert _in_window(int(np.sum(up >= truth)))
    assert _in_window(int(np.sum(lo <= truth)))


def test_quantile_bounds_valid_with_atoms() -> None:
    # Poisson(2): 0.8-quantile is 3 (F(2) = 0.677 < 0.8 <= F(3) = 0.857); order-statistic bounds stay valid
    rng = np.random.default_rng(43)
    data = rng.poisson(2.0, size=(N_SETS, 40)).astype(float)
    up = np.array([stats.quantile_upper_bound(row, 0.8) for row in data])
    lo = np.array([stats.quantile_lower_bound(row, 0.8) for row in data])
    assert np.mean(up >= 3.0) >= COVERAGE_WINDOW[0]
    assert np.mean(lo <= 3.0) >= COVERAGE_WINDOW[0]


def test_high_probability_check_decisions() -> None:
    rng = np.random.default_rng(44)
    x = rng.uniform(0.0, 1.0, size=200)  # the 0.9-quantile is 0.9
    assert stats.high_probability_check(x, bound=1.0, delta=0.1)[0] == "supported"
    assert stats.high_probability_check(x, bound=0.5, delta=0.1)[0] == "refuted"
    assert stats.high_probability_check(x, bound=0.9, delta=0.1)[0] == "inconclusive"
    assert stats.high_probability_check(x[:5], bound=1.0, delta=0.01)[0] == "inconclusive"
    with pytest.raises(ValueError):
        stats.high_probability_check(x, bound=1.0, delta=0.0)


# ---------------------------------------------------------------------------------------------------- paired


def test_paired_less_hand_computed_sign_test() -> None:
    a = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 9.0, 4.0])
    b = np.array([2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 8.5, 4.0])  # 7 less, 1 greater, 1 tie
    res = stats.paired_less(a, b)
    assert (res.n, res.n_less, res.n_ties) == (9, 7, 1)
    assert res.p_value == pytest.approx(9.0 / 256.0, abs=1e-15)  # P(Bin(8, 1/2) >= 7) = (8 + 1) / 256
    assert res.mean_difference == pytest.approx(np.mean(a - b))
    assert res.upper == pytest.approx(stats.mean_upper_bound(a - b))


def test_paired_less_clear_and_null_cases() -> None:
    rng = np.random.default_rng(51)
    b = rng.normal(size=12)
    assert stats.paired_less(b - 1.0, b).significant
    assert not stats.paired_less(b + 1.0, b).significant
    same = stats.paired_less(b, b)
    assert (same.p_value, same.significant) == (1.0, False)
    with pytest.raises(ValueError):
        stats.paired_less([1.0, 2.0], [1.0])


@pytest.mark.parametrize("master_seed", [52, 53])
def test_paired_less_false_positive_rate(master_seed: int) -> None:
    # A and B identically distributed: each test has level 0.05, the conjunction at most that. 400 sets:
    # P(Bin(400, 0.05) > 32) = 0.0016, so a rate above 8% means the level is broken
    rng = np.random.default_rng(master_seed)
    hits = sum(stats.paired_less(rng.normal(size=10), rng.normal(size=10)).significant for _ in range(N_SETS))
    assert hits / N_SETS <= 0.08
