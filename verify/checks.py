"""Checks: turn measurements over seeds and sweep points into a verdict.

Each check returns a :class:`CheckResult` with the verdict (``pass``, ``fail``, ``inconclusive``), what was
measured, what was predicted, and the tolerance.  Claims add the theorem's conditions first: a claim whose
conditions fail is ``conditions-not-met`` and no check is run (see :mod:`fedrates.verify.claims.base`).

Array conventions: ``y`` has shape (S, P) — S seeds × P sweep points; ``x`` has shape (P,).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fedrates.verify import stats
from fedrates.verify import tolerances as tol

__all__ = [
    "CheckResult",
    "bound_holds",
    "within_constant",
    "rate_exponent",
    "linear_speedup",
    "statistical_precision",
    "quantile_bound",
    "comparison",
    "exact_expectation",
]


@dataclass
class CheckResult:
    verdict: str
    measured: Any
    predicted: Any
    tolerance: Any
    message: str
    fit: dict | None = None
    calibrated_constant: float | None = None
    details: dict = field(default_factory=dict)


def _rng() -> np.random.Generator:
    # fixed stream for bootstrap resampling so verdicts are reproducible
    return np.random.default_rng(20220717)


def bound_holds(y: np.ndarray, bound: np.ndarray, confidence: float = tol.CONFIDENCE) -> CheckResult:
    """E[y] ≤ bound at every point (explicit constants).

    Pass when the one-sided ``confidence`` upper bound of the mean is ≤ bound at every point; fail when at some
    point the lower confidence bound of the mean exceeds the bound; otherwise inconclusive.  With one seed
    (deterministic runs) the value itself is compared, with floating-point slack only.
    """
    y = np.atleast_2d(np.asarray(y, dtype=float))
    bound = np.asarray(bound, dtype=float)
    if y.shape[0] == 1:
        upper = lower = y[0]
    else:
        # studentized bootstrap: objective gaps are skewed, and the plain t bound under-covers with few seeds
        upper = np.array([stats.mean_upper_bound(y[:, j], confidence, method="bootstrap-t", rng=_rng())
                          for j in range(y.shape[1])])
        lower = np.array([stats.mean_lower_bound(y[:, j], confidence, method="bootstrap-t", rng=_rng())
                          for j in range(y.shape[1])])
    slack = bound * (1 + tol.FLOAT_SLACK)
    ratio = upper / bound
    worst = int(np.argmax(ratio))
    measured = f"max UCB/bound = {ratio[worst]:.3g} at point {worst}"
    how = "deterministic values" if y.shape[0] == 1 else f"{confidence:.0%} upper confidence bound of the mean"
    if np.all(upper <= slack):
        verdict, msg = "pass", f"measured ≤ bound at all {len(bound)} points ({how})"
    elif np.any(lower > slack):
        bad = int(np.argmax(lower / bound))
        verdict, msg = "fail", (f"at point {bad} the {confidence:.0%} lower confidence bound of the mean "
                                f"{lower[bad]:.4g} exceeds the bound {bound[bad]:.4g}")
    else:
        verdict, msg = "inconclusive", "the confidence interval of the mean straddles the bound"
    tolerance = "floating point only" if y.shape[0] == 1 else f"{confidence:.0%} one-sided"
    return CheckResult(verdict, measured, "measured ≤ bound", tolerance, msg,
                       details={"upper": upper.tolist(), "bound": bound.tolist()})


def rate_exponent(x: np.ndarray, y: np.ndarray, expected: float, tolerance: float = tol.SLOPE_TOLERANCE,
                  max_ci_width: float = tol.MAX_SLOPE_CI_WIDTH, variable: str = "x") -> CheckResult:
    """The log–log slope of mean(y) in x equals ``expected`` within ``tolerance``.

    Pass: the whole bootstrap CI (over seeds) lies inside [expected − tolerance, expected + tolerance] and is
    narrower than ``max_ci_width`` — the point estimate alone never passes (a slope of −0.76 with CI [−0.81, −0.71]
    does not pass −1 ± 0.25).  Fail: the whole CI lies outside the band.  Otherwise inconclusive.  Fewer than
    ``MIN_SLOPE_SEEDS`` seed rows (e.g. seed means passed as one row) give no seed-to-seed variability, so the
    interval would be inert: inconclusive, never a pass.
    """
    x = np.asarray(x, dtype=float)
    y = np.atleast_2d(np.asarray(y, dtype=float))
    if np.any(~np.isfinite(y)):
        return CheckResult("fail", "non-finite measurements (divergence)", expected, tolerance,
                           "some runs diverged or produced NaN")
    if np.any(y <= 0):
        # an exactly-zero error cannot be fitted in log space; it is not evidence for the rate
        return CheckResult("inconclusive", "zero error at some points", expected, tolerance,
                           "measured error reached exactly 0; the slope is undefined")
    fit = stats.loglog_slope(x, y, rng=_rng(), n_boot=tol.BOOTSTRAP, confidence=tol.CONFIDENCE)
    lo_ok, hi_ok = expected - tolerance, expected + tolerance
    fit_d = {"slope": fit.slope, "intercept": fit.intercept, "lo": fit.lo, "hi": fit.hi}
    measured = f"slope {fit.slope:.3f} [{fit.lo:.3f}, {fit.hi:.3f}]"
    if fit.hi < lo_ok or fit.lo > hi_ok:
        verdict = "fail"
        msg = f"fitted slope in {variable} {measured} is outside {expected:g} ± {tolerance:g}"
    elif y.shape[0] < tol.MIN_SLOPE_SEEDS:
        verdict = "inconclusive"
        msg = (f"fitted slope in {variable} {measured} from {y.shape[0]} seed row(s): no seed-to-seed variability, "
               f"the interval cannot be trusted (at least {tol.MIN_SLOPE_SEEDS} seeds are needed)")
    elif lo_ok <= fit.lo and fit.hi <= hi_ok and (fit.hi - fit.lo) <= max_ci_width:
        verdict = "pass"
        msg = f"fitted slope in {variable} {measured} agrees with {expected:g} ± {tolerance:g}"
    else:
        verdict = "inconclusive"
        msg = f"fitted slope in {variable} {measured}: CI too wide or straddles the tolerance band"
    return CheckResult(verdict, measured, f"slope {expected:g}", f"± {tolerance:g}", msg, fit=fit_d)


def linear_speedup(clients: np.ndarray, y: np.ndarray, tolerance: float = tol.SLOPE_TOLERANCE) -> CheckResult:
    """Error at fixed iterations ∝ 1/K: slope −1 in the number of clients."""
    return rate_exponent(clients, y, -1.0, tolerance, variable="clients")


def within_constant(x: np.ndarray, y: np.ndarray, rhs: np.ndarray, calibrate: int = 2,
                    margin: float = tol.CONSTANT_MARGIN) -> CheckResult:
    """Order bounds (≲): calibrate C = max mean(y)/rhs on the first ``calibrate`` points, then require
    mean(y) ≤ C(1 + margin)·rhs on the held-out points."""
    y = np.atleast_2d(np.asarray(y, dtype=float))
    rhs = np.asarray(rhs, dtype=float)
    mean = y.mean(axis=0)
    if np.any(~np.isfinite(mean)):
        return CheckResult("fail", "non-finite measurements", "≤ C·rhs", margin, "some runs diverged")
    C = float(np.max(mean[:calibrate] / rhs[:calibrate]))
    held = mean[calibrate:] / (C * rhs[calibrate:])
    worst = float(np.max(held)) if held.size else 0.0
    measured = f"C = {C:.4g}; worst held-out mean/(C·rhs) = {worst:.3g}"
    verdict = "pass" if worst <= 1 + margin else "fail"
    msg = ("held-out points stay below the calibrated bound" if verdict == "pass"
           else f"a held-out point exceeds C·rhs by a factor {worst:.3g} > {1 + margin:g}")
    return CheckResult(verdict, measured, "mean ≤ C(1+margin)·rhs", f"margin {margin:g}", msg,
                       calibrated_constant=C)


def quantile_bound(samples: np.ndarray, bound: np.ndarray, delta: float,
                   confidence: float = tol.CONFIDENCE) -> CheckResult:
    """High probability: P(X ≤ bound) ≥ 1 − δ at every point, checked on the empirical (1 − δ)-quantile.

    Pass when a distribution-free upper confidence bound of the quantile is ≤ bound at every point; fail when a
    lower confidence bound exceeds the bound at some point; inconclusive otherwise (e.g. too few seeds).
    """
    samples = np.atleast_2d(np.asarray(samples, dtype=float))
    bound = np.asarray(bound, dtype=float)
    q = 1.0 - delta
    upper = np.array([stats.quantile_upper_bound(samples[:, j], q, confidence) for j in range(samples.shape[1])])
    lower = np.array([stats.quantile_lower_bound(samples[:, j], q, confidence) for j in range(samples.shape[1])])
    ratio = upper / bound
    measured = f"max quantile-UCB/bound = {np.max(ratio):.3g}"
    if np.all(upper <= bound):
        return CheckResult("pass", measured, f"P(X ≤ bound) ≥ {q:g}", f"{confidence:.0%} order statistics",
                           "the upper confidence bound of the quantile is below the bound at every point")
    if np.any(lower > bound):
        return CheckResult("fail", measured, f"P(X ≤ bound) ≥ {q:g}", f"{confidence:.0%} order statistics",
                           "the lower confidence bound of the quantile exceeds the bound")
    return CheckResult("inconclusive", measured, f"P(X ≤ bound) ≥ {q:g}", f"{confidence:.0%}",
                       "too few seeds to bound the quantile, or it straddles the bound")


def statistical_precision(distances: np.ndarray, bound: float, delta: float = 0.1,
                          confidence: float = tol.CONFIDENCE) -> CheckResult:
    """‖ŵ − w°‖ ≤ bound (= cΨλ/μ) with probability ≥ 1 − δ over seeds (a quantile check at one point)."""
    return quantile_bound(np.asarray(distances, dtype=float).reshape(-1, 1), np.array([bound]), delta, confidence)


def comparison(a: np.ndarray, b: np.ndarray, confidence: float = tol.COMPARISON_CONFIDENCE,
               names: tuple[str, str] = ("A", "B")) -> CheckResult:
    """A reaches a lower error than B at equal rounds, paired over seeds (one-sided)."""
    res = stats.paired_less(np.asarray(a, dtype=float), np.asarray(b, dtype=float), confidence)
    a_mean, b_mean = float(np.mean(a)), float(np.mean(b))
    measured = f"mean {names[0]} = {a_mean:.4g}, mean {names[1]} = {b_mean:.4g}"
    if res.significant:
        return CheckResult("pass", measured, f"{names[0]} < {names[1]}", f"paired, {confidence:.0%}",
                           f"{names[0]} beats {names[1]} on paired seeds")
    wins = int(np.sum(np.asarray(a) < np.asarray(b)))
    if a_mean >= b_mean:
        return CheckResult("fail", measured, f"{names[0]} < {names[1]}", f"paired, {confidence:.0%}",
                           f"{names[0]} is not better than {names[1]} ({wins}/{len(a)} seeds better)")
    return CheckResult("inconclusive", measured, f"{names[0]} < {names[1]}", f"paired, {confidence:.0%}",
                       f"{names[0]} better on average but not significantly ({wins}/{len(a)} seeds)")


def skew_corrected_quantile(y: np.ndarray, z: float) -> np.ndarray:
    """Quantile of the studentised mean widened for the skewness of the samples, per column of ``y`` (n, P).

    The Student-t quantile assumes a symmetric studentised mean; for right-skewed samples (squared norms, ratios)
    its lower tail is heavier: when the rare large values are missing from a sample, the mean and the sample sd are
    both small.  The one-sided Cornish–Fisher (Johnson 1978; Hall 1992, §3.5) quantile of the studentised mean is
    z + γ(2z² + 1)/(6√n), with γ the skewness of one sample; it is applied symmetrically with the bias-adjusted
    sample skewness |γ̂| (so neither side is narrowed), for n ≥ ``tol.SKEW_MIN_SAMPLES``.
    """
    n, points = y.shape
    if n < tol.SKEW_MIN_SAMPLES:
        return np.full(points, z)
    centred = y - y.mean(axis=0)
    m2, m3 = np.mean(centred**2, axis=0), np.mean(centred**3, axis=0)
    # samples equal to rounding (m2 at the level of the values' own rounding) have no skewness to speak of
    spread = m2 > (1e-12 * np.max(np.abs(y), axis=0)) ** 2
    g1 = np.divide(m3, np.where(spread, m2, 1.0) ** 1.5, out=np.zeros(points), where=spread)
    gamma = np.abs(g1) * np.sqrt(n * (n - 1)) / (n - 2)  # the bias-adjusted sample skewness G1
    return z + gamma * (2 * z * z + 1) / (6 * np.sqrt(n))


def exact_expectation(y: np.ndarray, expected: np.ndarray, sd: np.ndarray | None = None,
                      confidence: float = tol.EXACT_CONFIDENCE, resolution: float = tol.EXACT_RESOLUTION,
                      relative: float = tol.EXACT_RELATIVE) -> CheckResult:
    """E[y] = expected at every point, checked two-sided (too good fails as well as too bad).

    ``y`` (S, P) are Monte-Carlo values, ``expected`` (P,) their exact expectations (closed form, computed
    independently of the algorithm's code). With S ≥ 2 the mean over seeds must lie within
    ``expected ± z·sd/√S`` with ``z`` the two-sided normal quantile at family-wise ``confidence`` over the P points
    (Bonferroni); ``sd`` is the exact standard deviation of one sample when known (normal quantile), else the
    sample one (Student-t quantile with S − 1 degrees of freedom, widened for the samples' skewness by
    :func:`skew_corrected_quantile`). The check is
    ``inconclusive`` when the half-width exceeds ``resolution·|expected|`` at some point (too noisy to discriminate).
    With one seed, or ``sd`` identically 0 (deterministic prediction), agreement within ``relative`` is required.
    """
    from scipy.stats import norm
    from scipy.stats import t as student_t

    y = np.atleast_2d(np.asarray(y, dtype=float))
    expected = np.asarray(expected, dtype=float).reshape(-1)
    n, points = y.shape
    if expected.shape[0] != points:
        raise ValueError(f"expected has {expected.shape[0]} points, y has {points}")
    mean = y.mean(axis=0)
    rel_err = (mean - expected) / np.where(expected != 0, np.abs(expected), 1.0)
    worst = int(np.argmax(np.abs(rel_err)))
    measured = f"mean/exact − 1 = {rel_err[worst]:+.3g} at point {worst} (mean {mean[worst]:.6g})"
    predicted = f"exact {expected[worst]:.6g}"
    deterministic = n == 1 or (sd is not None and np.all(np.asarray(sd, dtype=float) == 0))
    if deterministic:
        ok = bool(np.all(np.isfinite(mean)) and np.all(np.abs(mean - expected) <= relative * np.abs(expected)
                                                       + np.finfo(float).tiny))
        tolerance = f"relative {relative:g} (deterministic)"
        msg = "agrees with the exact value at every point" if ok else f"differs from the exact value ({measured})"
        return CheckResult("pass" if ok else "fail", measured, predicted, tolerance, msg,
                           details={"mean": mean.tolist(), "expected": expected.tolist()})
    spread = np.asarray(sd, dtype=float).reshape(-1) if sd is not None else y.std(axis=0, ddof=1)
    level = 1 - (1 - confidence) / (2 * points)
    # exact sd: normal quantile; estimated sd: Student t with n − 1 degrees of freedom, widened for skewness
    z = float(norm.ppf(level)) if sd is not None else float(student_t.ppf(level, n - 1))
    quantile = np.full(points, z) if sd is not None else skew_corrected_quantile(y, z)
    half = quantile * spread / np.sqrt(n)
    widest = float(np.max(quantile))
    tolerance = (f"±{z:.2f}·sd/√{n} ({confidence * 100:g}% family-wise, two-sided)" if widest == z else
                 f"±{z:.2f}·sd/√{n}, up to ±{widest:.2f} for skewness ({confidence * 100:g}% family-wise, two-sided)")
    inside = np.abs(mean - expected) <= half
    details = {"mean": mean.tolist(), "expected": expected.tolist(), "half_width": half.tolist(), "z": z,
               "quantile": quantile.tolist()}
    if not np.all(np.isfinite(mean)):
        return CheckResult("fail", measured, predicted, tolerance, "non-finite measurements", details=details)
    if not np.all(inside):
        with np.errstate(over="ignore"):  # a zero half-width (a run that never moves): an infinite ratio ranks first
            bad = int(np.argmax(np.abs(mean - expected) / np.maximum(half, np.finfo(float).tiny)))
        side = "above" if mean[bad] > expected[bad] else "below"
        return CheckResult("fail", measured, predicted, tolerance,
                           f"at point {bad} the mean {mean[bad]:.6g} is {side} the exact {expected[bad]:.6g} by "
                           f"more than the half-width {half[bad]:.3g}", details=details)
    if np.any(half > resolution * np.abs(expected)):
        coarse = int(np.argmax(half / np.abs(expected)))
        return CheckResult("inconclusive", measured, predicted, tolerance,
                           f"half-width {half[coarse]:.3g} exceeds {resolution:.0%} of the exact value "
                           f"{expected[coarse]:.3g} at point {coarse}: too few seeds to discriminate", details=details)
    return CheckResult("pass", measured, predicted, tolerance,
                       f"the mean matches the exact expectation at all {points} points (resolution "
                       f"{float(np.max(half / np.abs(expected))):.1%})", details=details)
