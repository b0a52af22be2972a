"""The theorem catalogue's symbol table without sympy: which letters each theorem has, which of them appear in its
rhs and which may be 0.

``fedrates explore`` checks ``--set``/``--solve``/``--dominant``/``--exponent`` names against this table before it
imports sympy, so a misspelt symbol or theorem id is refused at once.  The table is derived from the catalogue
after the first successful ``explore`` and cached as a checksummed JSON document keyed by the catalogue's code (any
edit of ``fedrates.bounds`` is a miss); an unreadable or unwritable cache only costs speed, never a different
answer: every name accepted here is checked again on the sympy objects.
"""

from __future__ import annotations

from typing import Any

__all__ = ["theorem_index"]


def _build() -> dict[str, Any]:
    from fedrates.bounds.catalog import all_theorems

    return {"theorems": {t.id: {"free": sorted(s.name for s in t.free_symbols),
                                "rhs": sorted(s.name for s in t.rhs.free_symbols),
                                "zero_ok": sorted(t.zero_allowed)}
                         for t in all_theorems()}}


def theorem_index(build: bool = True) -> dict[str, dict[str, list[str]]] | None:
    """``{theorem id: {"free": [...], "rhs": [...], "zero_ok": [...]}}`` for every catalogued theorem; on a cache
    miss, built and stored when ``build`` (about a second of sympy work), else ``None``."""
    from fedrates.plugins import catalogue_digest
    from fedrates.solvers import _cache

    key = _cache.entry_key(catalogue_digest(), {"what": "symbols"})
    doc = _cache.document_or_build(key, _cache.cache_dir() / "listings", _build, build)
    return None if doc is None else doc["theorems"]
