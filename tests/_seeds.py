"""How many base seeds the test suite runs a claim for.

A test that runs a claim on correct code lists the base seeds it was written for; the suite runs the first
``FEDRATES_TEST_BASE_SEEDS`` of them (2 by default: at least two, so a verdict that holds for one base seed only is
still caught), and ``FEDRATES_TEST_BASE_SEEDS=10 pytest ...`` runs every listed seed.  Whether the verdicts of the
whole catalogue depend on the base seed is measured over ten base seeds by ``benchmarks/stability.py``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable


def count() -> int:
    """The number of base seeds per test (``FEDRATES_TEST_BASE_SEEDS``, default 2, at least 1)."""
    text = os.environ.get("FEDRATES_TEST_BASE_SEEDS", "2").strip()
    if not text.isascii() or not text.isdigit() or int(text) < 1:
        raise ValueError(f"FEDRATES_TEST_BASE_SEEDS={text!r}: expected a positive integer")
    return int(text)


def base_seeds(seeds: Iterable[int]) -> list[int]:
    """The first :func:`count` of the listed base seeds."""
    return list(seeds)[: count()]
