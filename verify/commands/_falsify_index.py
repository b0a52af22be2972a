"""The search boxes of the falsify targets without importing them: per theorem, each target's algorithm and its
dimensions (name, low, high, integer), in registration order.

``fedrates falsify THEOREM --point JSON`` checks the point against this table before it imports the targets (which
load sympy, pandas and the catalogue: about a second), so that a malformed point is refused at once.  The table is
derived from the registered targets after the first ``falsify`` that did not refuse, and cached as a checksummed
JSON document keyed by the catalogue's code, the installed papers' modules (where targets are declared) and
:mod:`fedrates.verify.falsify`; an unreadable or unwritable cache only costs speed, never a different answer: a
point accepted here is checked again on the target itself, and a theorem or algorithm not in the table goes
through the full checks.
"""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path
from types import SimpleNamespace
from typing import Any

__all__ = ["falsify_index", "indexed_target"]


def _build() -> dict[str, Any]:
    from fedrates.bounds import catalog
    from fedrates.verify import falsify

    table: dict[str, list] = {}
    for (theorem, algorithm), target in falsify.load_targets().items():
        if theorem not in catalog.ids() or catalog.get(theorem).kind != "explicit":
            continue  # the command searches explicit theorems only; the others are refused by the full checks
        table.setdefault(theorem, []).append(
            [algorithm, [[d.name, float(d.low), float(d.high), bool(d.integer)] for d in target.space]])
    return {"targets": table}


def _key() -> str:
    from fedrates.plugins import catalogue_digest
    from fedrates.solvers import _cache

    module = Path(importlib.util.find_spec("fedrates.verify.falsify").origin)
    code = hashlib.sha256(module.read_bytes()).hexdigest()
    return _cache.entry_key(catalogue_digest(), {"what": "falsify-boxes", "falsify": code})


def falsify_index(build: bool = True) -> dict[str, list] | None:
    """``{theorem id: [[algorithm, [[name, low, high, integer], ...]], ...]}`` of every registered target; on a cache
    miss, built from the targets and stored when ``build``, else ``None``."""
    from fedrates.solvers import _cache

    doc = _cache.document_or_build(_key(), _cache.cache_dir() / "listings", _build, build)
    return None if doc is None else doc["targets"]


def indexed_target(index: dict[str, list], theorem: str, algorithm: str | None) -> Any | None:
    """A stand-in for the target :func:`fedrates.verify.falsify.target_for` returns (``algorithm`` and ``space``
    of objects with ``name``, ``low``, ``high``, ``integer``), or ``None`` when the table does not decide it (an
    unknown theorem or algorithm: the full checks name it)."""
    for name, dims in index.get(theorem, ()):
        if algorithm is None or name == algorithm:
            space = tuple(SimpleNamespace(name=n, low=lo, high=hi, integer=integer) for n, lo, hi, integer in dims)
            return SimpleNamespace(algorithm=name, space=space)
    return None
