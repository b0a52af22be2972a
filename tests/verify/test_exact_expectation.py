"""Two-sided exact-expectation check: calibrated on samples with known mean, and it rejects both directions."""

from __future__ import annotations

import numpy as np
import pytest

from fedrates.verify.checks import exact_expectation


def _chi2_samples(seed: int, scale: np.ndarray, n: int = 1500) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return scale * rng.chisquare(3, size=(n, scale.size)) / 3  # mean = scale, skewed like squared errors


def test_correct_mean_passes_for_almost_every_seed() -> None:
    scale = np.array([1.0, 0.3, 0.05])
    verdicts = [exact_expectation(_chi2_samples(s, scale), scale).verdict for s in range(200)]
    # family-wise confidence 0.999 => expected false fails ~0.2 in 200; allow 3 (binomial tail < 1e-3)
    assert verdicts.count("fail") <= 3
    assert verdicts.count("pass") >= 190


@pytest.mark.parametrize("factor", [0.9, 1.1])
def test_ten_percent_off_fails_both_directions(factor: float) -> None:
    scale = np.array([1.0, 0.3, 0.05])
    fails = [exact_expectation(_chi2_samples(s, scale, n=2000), factor * scale).verdict for s in range(20)]
    assert fails.count("fail") >= 19


def test_too_noisy_is_inconclusive() -> None:
    scale = np.array([1.0])
    assert exact_expectation(_chi2_samples(0, scale, n=5), scale).verdict == "inconclusive"


def test_exact_sd_and_deterministic_mode() -> None:
    scale = np.array([2.0, 4.0])
    sd = scale * np.sqrt(2 / 3)  # sd of scale * chi2_3 / 3
    assert exact_expectation(_chi2_samples(1, scale, n=4000), scale, sd=sd).verdict == "pass"
    assert exact_expectation(np.array([[2.0, 4.0]]), scale).verdict == "pass"
    assert exact_expectation(np.array([[2.0, 4.0 * (1 + 1e-6)]]), scale).verdict == "fail"
