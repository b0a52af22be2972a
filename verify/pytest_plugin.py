"""pytest plugin of fedrates: rate- and bound-conformance assertions for users' own test suites.

Registered through the ``pytest11`` entry point, so installing fedrates makes these available:

* fixture ``fedrates_records`` — a function ``(claim_id, profile="quick", seed=0) -> DataFrame`` that runs one
  catalogued claim's sweep (uncached) and returns its tidy records;
* :func:`assert_rate` — the fitted log–log slope of a metric in a variable equals an exponent within a tolerance;
* :func:`assert_bound` — a metric stays below a theorem's explicit right-hand side.

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
    """Run one catalogued claim's sweep (no cache) and return its records."""

    def run(claim_id: str, profile: str = "quick", seed: int = 0) -> Any:
        from fedrates.verify import claims
        from fedrates.verify.sweep import run_claims

        claim = claims.get(claim_id)
        result = run_claims([claim], profile, None, jobs=1, base_seed=seed)
        if claim.id in result.errors:
            raise RuntimeError(result.errors[claim.id])
        return result.records[claim.id]

    return run
