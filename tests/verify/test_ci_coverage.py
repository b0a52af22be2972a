"""Coverage of the confidence intervals of :mod:`fedrates.verify.stats`, pinned on synthetic data with known truth
at the sample sizes the verify profiles use (6 / 12 / 40 seeds: quick / standard / full; 30 for the
high-probability claims, whose quantile level 1 − δ = 0.9 needs ≥ 29 samples).

A bound made too narrow (a normal quantile in place of Student's t, a percentile bootstrap without the
small-sample expansion, an order statistic one index too low) passes every verdict on correct code: only its
coverage shows it.  Each test draws M independent data sets with a fixed generator and counts how often the
interval contains the truth.  Monte-Carlo confidence: with M draws the count's standard deviation is
s = √(c(1 − c)/M) at the nominal coverage c, and every assertion allows 3.3 s (one-sided false-alarm probability
≤ 5e-4 per assertion for an interval with exactly nominal coverage); the margin each test detects is stated in
its docstring.  Exact methods (t bounds on Gaussian data, order statistics) are pinned on both sides; approximate
ones (bootstrap) from below only.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binom

from fedrates.verify import stats

NOMINAL = 0.95
Z = 3.3  # Monte-Carlo allowance in standard deviations of the coverage count


def _band(coverage: float, M: int) -> float:
    return Z * math.sqrt(coverage * (1 - coverage) / M)


@pytest.mark.parametrize("n", [6, 12, 40])
def test_t_bounds_have_exact_coverage_on_gaussian_data(n):
    """Student-t bounds are exact for Gaussian samples: coverage 0.95 ± 0.019 (M = 1500). A normal quantile in
    place of t covers 0.920 at n = 6 and fails here."""
    rng = np.random.default_rng(100 + n)
    M = 1500
    up = np.mean([stats.mean_upper_bound(rng.normal(2.0, 3.0, n)) >= 2.0 for _ in range(M)])
    lo = np.mean([stats.mean_lower_bound(rng.normal(2.0, 3.0, n)) <= 2.0 for _ in range(M)])
    band = _band(NOMINAL, M)
    assert abs(up - NOMINAL) <= band, (n, up)
    assert abs(lo - NOMINAL) <= band, (n, lo)


@pytest.mark.parametrize("n", [6, 12, 40])
def test_bootstrap_t_upper_bound_covers(n):
    """The studentised bootstrap is approximate: its coverage on Gaussian data must be ≥ 0.95 − 0.030 (M = 600)."""
    rng = np.random.default_rng(200 + n)
    M = 600
    cov = np.mean([stats.mean_upper_bound(rng.standard_normal(n), method="bootstrap-t", rng=rng, n_boot=1000) >= 0
                   for _ in range(M)])
    assert cov >= NOMINAL - _band(NOMINAL, M), (n, cov)


@pytest.mark.parametrize("n", [6, 12, 40])
def test_slope_interval_covers_the_exponent_of_the_mean(n):
    """The seed-bootstrap interval of :func:`stats.loglog_slope` for the exponent of E[y] = C x^{-1} with
    log-normal errors (σ = 0.5, E[y] exact): coverage ≥ 0.95 − 0.041 (M = 250).  The plain percentile bootstrap
    without the t/√(S/(S−1)) expansion covers about 0.85 at 6 seeds and fails here."""
    rng = np.random.default_rng(300 + n)
    M, sigma = 250, 0.5
    x = np.array([1.0, 2.0, 4.0, 8.0, 16.0])
    hits = 0
    for _ in range(M):
        y = 3.0 * x**-1.0 * np.exp(sigma * rng.standard_normal((n, x.size)) - sigma**2 / 2)
        fit = stats.loglog_slope(x, y, rng=rng, n_boot=1000)
        hits += fit.lo <= -1.0 <= fit.hi
    assert hits / M >= NOMINAL - _band(NOMINAL, M), (n, hits / M)


@pytest.mark.parametrize("n", [30, 40, 100])
def test_quantile_bounds_have_their_exact_order_statistic_coverage(n):
    """For continuous data the order-statistic bounds cover exactly P(Bin(n, q) < j) (upper) and P(Bin(n, q) ≥ j)
    (lower), both ≥ 0.95 by construction: pinned two-sided within 3.3 s (M = 1000) at q = 0.9 (δ = 0.1).  An
    index one too low drops the upper bound's coverage by P(Bin(n, q) = j − 1) ≥ 0.03 at these n and fails."""
    rng = np.random.default_rng(400 + n)
    M, q = 1000, 0.9
    truth = math.log(1 / (1 - q))  # the 0.9-quantile of Exp(1)
    j = np.arange(1, n + 1)
    j_up = int(j[np.argmax(binom.cdf(j - 1, n, q) >= NOMINAL)])
    j_lo = int(j[np.nonzero(binom.sf(j - 1, n, q) >= NOMINAL)[0][-1]])
    exact_up, exact_lo = float(binom.cdf(j_up - 1, n, q)), float(binom.sf(j_lo - 1, n, q))
    assert exact_up >= NOMINAL and exact_lo >= NOMINAL
    samples = rng.exponential(1.0, (M, n))
    up = np.mean([stats.quantile_upper_bound(s, q) >= truth for s in samples])
    lo = np.mean([stats.quantile_lower_bound(s, q) <= truth for s in samples])
    assert abs(up - exact_up) <= _band(exact_up, M), (n, up, exact_up)
    assert abs(lo - exact_lo) <= _band(exact_lo, M), (n, lo, exact_lo)


@pytest.mark.parametrize("n", [6, 12])
def test_paired_comparison_level(n):
    """Under H0 (paired differences symmetric about 0) :func:`stats.paired_less` declares A < B with
    probability ≤ 0.05 (M = 1000; allowance 0.023)."""
    rng = np.random.default_rng(500 + n)
    M = 1000
    rate = np.mean([stats.paired_less(rng.standard_normal(n), rng.standard_normal(n)).significant
                    for _ in range(M)])
    assert rate <= 1 - NOMINAL + _band(1 - NOMINAL, M), (n, rate)
