"""The catalogue of broken variants: plausible wrong implementations that the claims must fail.

A paper's variants modules (:attr:`fedrates.Paper.variants`) define ``VARIANTS: tuple[BrokenVariant, ...]``.
Each variant
changes exactly one thing of the correct code (a hyperparameter, a small subclass of an algorithm, a patched oracle,
reference or constant) and names the claims that are run against it. A variant is *caught* when at least one of
those claims gives a verdict that would make ``fedrates verify`` exit 1 (``fail``, ``inconclusive``,
``conditions-not-met`` or ``error``: anything but ``pass`` or ``erratum``) while the same claim passes on the correct
code; ``fedrates selfcheck`` (:mod:`fedrates.verify.commands.selfcheck`) runs the whole catalogue, each variant in a
fresh process, and prints the kill ratio.

Write variants from the pseudo-code and from the ways implementations typically go wrong (scaling, indexing,
weighting, off-by-one in a schedule, wrong returned point, shared randomness, inexact subproblems, wrong constants),
never from a list of known answers.
"""

from __future__ import annotations

import fnmatch
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
    """Every variant of every installed paper (modules defining ``VARIANTS``, :mod:`fedrates.plugins`), in
    declaration order; a variant whose id is taken is reported in one line and left out."""
    from fedrates import plugins

    seen: dict[str, BrokenVariant] = {}
    for paper, variant in plugins.exported("variants"):
        where = f"'{paper.id}'"
        if not isinstance(variant, BrokenVariant):
            plugins.report_problem(where, f"VARIANTS holds a {type(variant).__name__}, expected a BrokenVariant")
        elif variant.id in seen and seen[variant.id] is not variant:
            plugins.report_problem(where, f"broken-variant id '{variant.id}' is defined twice")
        else:
            seen[variant.id] = variant
    return tuple(seen.values())


def variants_by_claim(claim_ids: list[str]) -> dict[str, list[str]]:
    """{claim id: ids of the catalogue's variants run against it} for the given claim ids (globs expanded).

    A claim with at least one variant is *discriminating* once ``fedrates selfcheck`` shows that a variant fails
    it; this static map is what reports use to count, per algorithm, the claims that have a catalogued bug."""
    out: dict[str, list[str]] = {cid: [] for cid in claim_ids}
    for variant in all_variants():
        for cid in variant.claim_ids(list(claim_ids)):
            out[cid].append(variant.id)
    return out
