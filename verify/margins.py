"""Margins: how strongly a verdict was earned.

Every verdict records a margin, so that a reader can tell a claim that bites from one that cannot fail:

* ``slack`` — for a bound: bound / measured at the worst point (1 means the bound is attained; a slack above
  :data:`SHARP_SLACK` means the bound sits more than ten times above the data, and almost any algorithm would pass);
* ``ci`` — for a rate or a statistical comparison: the width of the confidence interval against the tolerance band
  (a ratio near or above 1 means the sample cannot resolve the tolerance);
* ``resolution`` — for an exact claim: the relative size of a deviation from the closed form that the claim would
  detect (smaller is sharper).

A ``pass`` whose slack exceeds :data:`SHARP_SLACK` is reported as ``informational`` (shown, never counted as
verified), see :meth:`fedrates.verify.claims.base.Claim.verdict`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["SHARP_SLACK", "slack", "ci", "resolution", "cannot_fail"]

#: a bound more than this many times above the measurement cannot fail in practice
SHARP_SLACK = 10.0


def _finite(value: float) -> float | None:
    value = float(value)
    return value if math.isfinite(value) else None


def slack(bound: Any, measured: Any) -> dict[str, Any]:
    """Slack of a bound claim: min over points of bound/measured (the worst point), as a margin dict.

    ``bound`` and ``measured`` are scalars or arrays of equal shape (one entry per sweep point). Points where the
    measurement is 0 or not finite are ignored; with none left the slack is infinite (the bound cannot be tested).
    """
    b = np.atleast_1d(np.asarray(bound, dtype=float))
    m = np.atleast_1d(np.asarray(measured, dtype=float))
    b, m = np.broadcast_arrays(b, m)
    ok = np.isfinite(b) & np.isfinite(m) & (m > 0)
    value = float(np.min(b[ok] / m[ok])) if ok.any() else math.inf
    return {"kind": "slack", "value": value,
            "text": f"bound/measured = {value:.3g} at the worst point" if math.isfinite(value)
            else "no positive finite measurement: the bound is not tested"}


def slack_from_ratio(bound_ratio: float) -> dict[str, Any]:
    """The slack margin from a claim's ``bound_ratio`` (max measured/bound)."""
    ratio = float(bound_ratio)
    value = 1.0 / ratio if ratio > 0 else math.inf
    return {"kind": "slack", "value": value,
            "text": f"bound/measured = {value:.3g} at the worst point" if math.isfinite(value)
            else "measured 0 everywhere: the bound is not tested"}


def ci(width: float, tolerance: float) -> dict[str, Any]:
    """Confidence-interval width against the tolerance (half-)band: ``width / tolerance``."""
    w, t = float(width), float(tolerance)
    value = w / t if t > 0 else math.inf
    return {"kind": "ci", "value": value, "text": f"CI width {w:.3g} against tolerance {t:.3g} (ratio {value:.2g})"}


def resolution(rel: float) -> dict[str, Any]:
    """Relative resolution of an exact claim: the smallest relative deviation from the closed form it detects."""
    r = float(rel)
    return {"kind": "resolution", "value": r, "text": f"detects a relative deviation of {r:.2g}"}


def cannot_fail(margin: dict[str, Any] | None) -> bool:
    """Whether a margin says the claim cannot fail in practice (a slack above :data:`SHARP_SLACK`)."""
    if not margin or margin.get("kind") != "slack":
        return False
    value = margin.get("value")
    return value is not None and (not math.isfinite(float(value)) or float(value) > SHARP_SLACK)
