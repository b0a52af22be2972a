"""pytest plugin of fedrates: rate- and bound-conformance assertions for users' own test suites.

Registered through the ``pytest11`` entry point, so installing fedrates makes these available:

* fixture ``fedrates_records`` — a function ``(claim, profile="quick", seed=0) -> DataFrame`` that runs one
  claim's sweep (uncached) and returns its tidy records; ``claim`` is the id of a registered claim (built-in or of
  an installed paper) or a :class:`~fedrates.Claim` object;
* :func:`assert_rate` — the fitted log–log slope of a metric in a variable equals an exponent within a tolerance;
* :func:`assert_bound` — a metric stays below a theorem's explicit right-hand side (a theorem id or a
  :class:`~fedrates.Theorem`).

Failure messages show measured vs predicted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

_LAZY = ("assert_rate", "assert_bound", "RateAssertionError")

# The plugin loads in every pytest run of an environment where fedrates is installed: it imports nothing heavy at
# load time. The assertion helpers live in fedrates.verify.conformance and are re-exported lazily.


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from fedrates.verify import conformance

        return getattr(conformance, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@pytest.fixture
def fedrates_records() -> Callable[..., Any]:
    """Run one claim's sweep (no cache) and return its records: ``fedrates_records(claim, profile="quick",
    seed=0)`` with ``claim`` a registered claim id (built-in or of an installed paper) or a Claim object."""

    def run(claim: Any, profile: str = "quick", seed: int = 0) -> Any:
        from fedrates.verify import claims
        from fedrates.verify.sweep import run_claims

        if isinstance(claim, str):
            claim = claims.get(claim)
        elif not isinstance(claim, claims.Claim):
            raise TypeError(f"fedrates_records: expected a claim id or a Claim, got {type(claim).__name__}")
        result = run_claims([claim], profile, None, jobs=1, base_seed=seed)
        if claim.id in result.errors:
            raise RuntimeError(f"{claim.id}: {result.errors[claim.id]}")
        return result.records[claim.id]

    return run
