"""The catalogue of claims, gathered from every installed paper (:mod:`fedrates.plugins`).

Each paper lists the modules that define its ``CLAIMS`` (a tuple of :class:`~fedrates.verify.claims.base.Claim`);
the five built-in papers live in the packages ``fedrates.verify.claims.<paper>`` — one layout for all:
``__init__`` (the :class:`fedrates.Paper` declaration), ``instances``, ``theorems``, ``exact``, ``experiments``,
``errata``, ``variants`` — and are registered through the ``fedrates.papers`` entry point as any installed paper is.

A claim whose id does not start with its paper's id, whose id is taken, or which names an algorithm that no paper
registers (and that its paper does not declare as a subject) is reported in one line and left out.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from fedrates.solvers.errors import unknown_name

if TYPE_CHECKING:
    from fedrates.verify.claims.base import Claim

__all__ = ["Claim", "all_claims", "get", "ids", "select"]


def __getattr__(name: str) -> Any:
    if name == "Claim":  # the base class, imported on demand: loading a paper's declaration stays light
        from fedrates.verify.claims.base import Claim

        return Claim
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@cache
def _load() -> dict[str, Claim]:
    from fedrates import plugins
    from fedrates.solvers import algorithms
    from fedrates.verify.claims.base import Claim

    plugins.load_algorithms()
    known = set(algorithms.names())
    out: dict[str, Claim] = {}
    for paper, claim in plugins.exported("claims"):
        where = f"'{paper.id}'"
        if not isinstance(claim, Claim):
            plugins.report_problem(where, f"CLAIMS holds a {type(claim).__name__}, expected a fedrates Claim")
            continue
        if not claim.id.startswith(paper.id + "."):
            plugins.report_problem(where, f"claim id '{claim.id}' does not start with '{paper.id}.'")
            continue
        if claim.id in out:
            plugins.report_problem(where, f"claim id '{claim.id}' is defined twice")
            continue
        if claim.algorithm not in known and claim.algorithm not in paper.subjects:
            plugins.report_problem(where, f"claim '{claim.id}' names algorithm '{claim.algorithm}', which no "
                                          f"paper registers (registered: {', '.join(sorted(known))})")
            continue
        out[claim.id] = claim
    return out


def all_claims() -> list[Claim]:
    return list(_load().values())


def ids() -> list[str]:
    return list(_load())


def get(claim_id: str) -> Claim:
    table = _load()
    if claim_id not in table:
        raise unknown_name("claim", claim_id, table)
    return table[claim_id]


def select(pattern: str | None) -> list[Claim]:
    """Claims whose id matches a glob ``pattern`` (or contains it as a substring); none matching is an error."""
    claims = all_claims()
    if not pattern:
        return claims
    from fedrates.verify.claim_index import matches, no_match  # shared with the refusal from the stored ids

    chosen = [c for c in claims if matches(c.id, pattern)]
    if not chosen:
        raise no_match(pattern, [c.id for c in claims])
    return chosen
