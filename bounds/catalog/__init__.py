"""The catalogue of theorems, one module per paper.

Each module ``fedrates.bounds.catalog.<paper>`` defines ``THEOREMS: tuple[Theorem, ...]``.  Papers: ``bao`` (Bao et
al.), ``bylinkin`` (Bylinkin et al.), ``dinh`` (Dinh et al.), ``das`` (Das et al.), ``buttaci`` (Buttaci &
Calafiore); full citations in :mod:`fedrates.papers`.
"""

from __future__ import annotations

import importlib
from functools import cache

from fedrates.bounds.theorem import Theorem
from fedrates.solvers.errors import unknown_name

__all__ = ["PAPERS", "all_theorems", "get", "ids"]

PAPERS: tuple[str, ...] = ("bao", "bylinkin", "dinh", "das", "buttaci")


@cache
def _load() -> dict[str, Theorem]:
    out: dict[str, Theorem] = {}
    for paper in PAPERS:
        try:
            module = importlib.import_module(f"fedrates.bounds.catalog.{paper}")
        except ModuleNotFoundError as exc:
            if exc.name == f"fedrates.bounds.catalog.{paper}":
                continue
            raise
        for theorem in module.THEOREMS:
            if theorem.id in out:
                raise RuntimeError(f"duplicate theorem id {theorem.id}")
            if theorem.paper != paper or not theorem.id.startswith(paper + "."):
                raise RuntimeError(f"theorem {theorem.id} registered under paper {paper}")
            out[theorem.id] = theorem
    return out


def all_theorems(paper: str | None = None) -> list[Theorem]:
    """Every catalogued theorem (optionally of one paper), in catalogue order."""
    if paper is not None and paper not in PAPERS:
        raise unknown_name("paper", paper, PAPERS)
    return [t for t in _load().values() if paper is None or t.paper == paper]


def ids() -> list[str]:
    return list(_load())


def get(theorem_id: str) -> Theorem:
    """The theorem with this id; unknown ids raise :class:`fedrates.solvers.errors.InputError` with a suggestion."""
    table = _load()
    if theorem_id not in table:
        raise unknown_name("theorem", theorem_id, table)
    return table[theorem_id]
