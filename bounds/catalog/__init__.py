"""The catalogue of theorems, gathered from every installed paper (:mod:`fedrates.plugins`).

A paper lists the modules that define its ``THEOREMS: tuple[Theorem, ...]``; the five built-in papers keep theirs in
``fedrates.bounds.catalog.<paper>``: ``bao`` (Bao et al.), ``bylinkin`` (Bylinkin et al.), ``dinh`` (Dinh et al.),
``das`` (Das et al.), ``buttaci`` (Buttaci & Calafiore); citations in :mod:`fedrates.papers`.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from fedrates.bounds.theorem import Theorem
from fedrates.solvers.errors import unknown_name

__all__ = ["all_theorems", "get", "ids", "paper_ids"]  # and PAPERS, computed on access

def __getattr__(name: str) -> Any:
    if name == "PAPERS":  # the ids of the installed papers (built-ins and plugins), in registry order
        return tuple(paper_ids())
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def paper_ids() -> list[str]:
    """The ids of the installed papers (:func:`fedrates.plugins.ids`)."""
    from fedrates import plugins

    return plugins.ids()


@cache
def _load() -> dict[str, Theorem]:
    from fedrates import plugins

    out: dict[str, Theorem] = {}
    for paper, theorem in plugins.exported("theorems"):
        where = f"'{paper.id}'"
        if not isinstance(theorem, Theorem):
            plugins.report_problem(where, f"THEOREMS holds a {type(theorem).__name__}, expected a fedrates Theorem")
            continue
        if theorem.id in out:
            plugins.report_problem(where, f"theorem id '{theorem.id}' is defined twice")
            continue
        if theorem.paper != paper.id or not theorem.id.startswith(paper.id + "."):
            plugins.report_problem(where, f"theorem '{theorem.id}' (paper '{theorem.paper}') is not a theorem "
                                          f"of paper '{paper.id}'")
            continue
        out[theorem.id] = theorem
    return out


def all_theorems(paper: str | None = None) -> list[Theorem]:
    """Every catalogued theorem (optionally of one paper), in catalogue order."""
    if paper is not None and paper not in paper_ids():
        raise unknown_name("paper", paper, paper_ids())
    return [t for t in _load().values() if paper is None or t.paper == paper]


def ids() -> list[str]:
    return list(_load())


def get(theorem_id: str) -> Theorem:
    """The theorem with this id; unknown ids raise :class:`fedrates.solvers.errors.InputError` with a suggestion."""
    table = _load()
    if theorem_id not in table:
        raise unknown_name("theorem", theorem_id, table)
    return table[theorem_id]
