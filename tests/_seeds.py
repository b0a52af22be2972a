"""Which base seeds the test suite runs a claim for, and which of those belong to the long step.

A test that runs a claim on correct code lists the base seeds it was written for. The suite (the README's test
command) runs the first of them; the long step of CI (``pytest -m "slow or integration"``, the README's second test
line) runs the next ``FEDRATES_TEST_BASE_SEEDS - 1`` (``FEDRATES_TEST_BASE_SEEDS`` is 2 by default, so every such
claim is run for at least two base seeds in CI; ``FEDRATES_TEST_BASE_SEEDS=10`` runs every listed seed). Whether the
verdicts of the whole catalogue depend on the base seed is measured over ten base seeds by
``benchmarks/stability.py``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

import pytest


def count() -> int:
    """The number of base seeds per claim (``FEDRATES_TEST_BASE_SEEDS``, default 2, at least 1)."""
    text = os.environ.get("FEDRATES_TEST_BASE_SEEDS", "2").strip()
    if not text.isascii() or not text.isdigit() or int(text) < 1:
        raise ValueError(f"FEDRATES_TEST_BASE_SEEDS={text!r}: expected a positive integer")
    return int(text)


def base_seeds(seeds: Iterable[int], first_fast: bool = True) -> list[Any]:
    """The first :func:`count` of the listed base seeds, as parameters: the first one plain (run by the suite) unless
    ``first_fast`` is False, the others marked ``slow`` (run by the long step)."""
    chosen = list(seeds)[: count()]
    return [s if (i == 0 and first_fast) else pytest.param(s, marks=pytest.mark.slow) for i, s in enumerate(chosen)]


def claim_params(ids: Iterable[str], long: Iterable[str] = ()) -> list[Any]:
    """Claim ids as parameters: those in ``long`` (a quick run of several seconds of CPU, e.g. a privacy calibration
    under sampling or thousands of noise replicas) marked ``slow``, so that the suite stays within its time budget
    and the long step of CI runs them; every other claim plain."""
    heavy = set(long)
    chosen = list(ids)
    unknown = heavy - set(chosen)
    if unknown:
        raise ValueError(f"claims marked long that are not in the list: {sorted(unknown)}")
    return [pytest.param(c, marks=pytest.mark.slow) if c in heavy else c for c in chosen]
