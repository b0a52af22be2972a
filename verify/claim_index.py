"""Claim ids without the claim registry: ``--only`` patterns checked before any claim module is imported.

Importing the registry (:mod:`fedrates.verify.claims`) loads every claims module and with them numpy and the
algorithms (about 0.6 s), so ``fedrates verify --only typo`` would take that long to refuse.  The ids are stored
after the registry has been loaded by a command that succeeded (``fedrates verify`` once its claims are selected,
``fedrates list claims``) as a checksummed JSON document keyed by the code of fedrates (any edit of a module is a
miss); a refusal writes nothing.  A pattern that matches no stored id is refused with the message the registry
gives (:func:`no_match`, used by both); one that matches goes on to the registry, which selects again.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from typing import Any

from fedrates.solvers.errors import InputError

__all__ = ["check_only", "matches", "no_match", "stored_ids", "store_ids"]

_PACKAGES = ("fedrates", "fedrates.solvers", "fedrates.bounds", "fedrates.verify", "fedrates.reports")


def matches(claim_id: str, pattern: str) -> bool:
    """``--only PATTERN`` selects claim ids matching the glob or containing the pattern."""
    return fnmatch.fnmatchcase(claim_id, pattern) or pattern in claim_id


def no_match(pattern: str, ids: Sequence[str]) -> InputError:
    """The refusal of a pattern that matches none of ``ids`` (in registry order), with the closest ids."""
    import difflib

    close = difflib.get_close_matches(pattern, list(ids), n=3, cutoff=0.3)
    hint = f"; close ids: {', '.join(close)}" if close else f"; available: {', '.join(ids)}"
    return InputError(f"--only '{pattern}' matches no claim{hint}")


def _code_digest() -> str:
    """SHA-256 of every module of fedrates (claims are defined by code anywhere in it)."""
    import hashlib
    import importlib.util
    from pathlib import Path

    h = hashlib.sha256()
    for package in _PACKAGES:
        root = Path(importlib.util.find_spec(package).origin).parent
        for path in sorted(root.rglob("*.py")):
            h.update(f"{package}:{path.relative_to(root)}".encode())
            h.update(path.read_bytes())
    from fedrates import plugins

    h.update(plugins.source_digest().encode())  # installed papers: their entry points and modules
    return h.hexdigest()


def _key_and_directory() -> tuple[str, Any]:
    from fedrates.solvers import _cache

    return _cache.entry_key(_code_digest(), {"what": "claim-ids"}), _cache.cache_dir() / "listings"


def stored_ids() -> list[str] | None:
    """The claim ids in registry order, from the cache; None when not stored for this code."""
    from fedrates.solvers import _cache

    try:
        key, directory = _key_and_directory()
    except OSError:
        return None
    doc = _cache.load_document(key, directory)
    ids = None if doc is None else doc.get("ids")
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        return None
    return ids


def store_ids(ids: Sequence[str]) -> None:
    """Store the registry's ids (an unwritable cache only costs the next refusal its speed)."""
    from fedrates.solvers import _cache

    try:
        key, directory = _key_and_directory()
    except OSError:
        return
    _cache.store_document(key, {"ids": list(ids)}, directory)


def check_only(pattern: str | None) -> None:
    """Refuse ``--only PATTERN`` from the stored ids when it matches none of them; otherwise do nothing."""
    if not pattern:
        return
    ids = stored_ids()
    if ids is not None and not any(matches(i, pattern) for i in ids):
        raise no_match(pattern, ids)
