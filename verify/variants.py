"""The catalogue of broken variants: plausible wrong implementations that the claims must fail.

A claims module ``fedrates.verify.claims.<name>`` may define ``VARIANTS: tuple[BrokenVariant, ...]``. Each variant
changes exactly one thing of the correct code (a hyperparameter, a small subclass of an algorithm, a patched oracle,
reference or constant) and names the claims that are run against it. A variant is *caught* when at least one of
those claims gives ``fail`` (or ``erratum`` turning into a different prediction failing) rather than ``pass``;
``fedrates selfcheck`` runs the whole catalogue and prints the kill ratio.

Write variants from the pseudo-code and from the ways implementations typically go wrong (scaling, indexing,
weighting, off-by-one in a schedule, wrong returned point, shared randomness, inexact subproblems, wrong constants),
never from a list of known answers.
"""

from __future__ import annotations

import fnmatch
import importlib
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from functools import cache
from typing import Any

TARGETS = ("algorithm", "oracle", "reference", "constants", "statistics", "instance")


@dataclass(frozen=True)
class BrokenVariant:
    """One plausible bug, and how to inject it.

    Attributes:
        id: ``<algorithm or component>/<bug>``, e.g. ``fedavg/grad-scale-2``.
        target: which layer is broken (one of :data:`TARGETS`).
        bug: one sentence: the implementation error modelled, as a user's code would contain it.
        claims: claim ids (globs allowed) that are run against the variant; at least one must fail.
        apply: ``claim -> claim`` returning the claim with the bug injected (e.g. ``claim.with_algorithm(...)``).
        patch: alternatively, a factory of a context manager that injects the bug while the claims run
            (e.g. patching a module-level function); patched variants are run serially in-process.
    """

    id: str
    target: str
    bug: str
    claims: tuple[str, ...]
    apply: Callable[[Any], Any] | None = None
    patch: Callable[[], AbstractContextManager] | None = None

    def __post_init__(self) -> None:
        if self.target not in TARGETS:
            raise ValueError(f"variant {self.id}: target {self.target!r} not in {TARGETS}")
        if (self.apply is None) == (self.patch is None):
            raise ValueError(f"variant {self.id}: give exactly one of apply= or patch=")
        if not self.claims:
            raise ValueError(f"variant {self.id}: names no claim")

    def claim_ids(self, available: list[str]) -> list[str]:
        """The catalogued claim ids this variant is run against (globs expanded, order kept)."""
        out: list[str] = []
        for pattern in self.claims:
            for cid in available:
                if fnmatch.fnmatchcase(cid, pattern) and cid not in out:
                    out.append(cid)
        return out


@cache
def all_variants() -> tuple[BrokenVariant, ...]:
    """Every variant of every claims module, in module order; ids are unique."""
    from fedrates.verify import claims

    seen: dict[str, BrokenVariant] = {}
    for name in claims.MODULES:
        module = importlib.import_module(f"fedrates.verify.claims.{name}")
        for variant in getattr(module, "VARIANTS", ()):
            if variant.id in seen:
                raise RuntimeError(f"duplicate broken-variant id {variant.id}")
            seen[variant.id] = variant
    return tuple(seen.values())
