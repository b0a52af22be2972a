"""Deferred imports of heavy libraries (pandas, scipy): ``pd = lazy_import("pandas")`` binds a stand-in whose first
attribute access imports the module.

Commands that only list, validate or refuse (``fedrates list claims``, a bad ``--seed``) then never pay for pandas
or scipy (0.3–1.5 s of imports on a loaded machine).  Until first use the module is not in ``sys.modules`` at all,
so a test can check that a code path stays free of it.
"""

from __future__ import annotations

import importlib
import sys
import threading
from typing import Any

__all__ = ["lazy_import", "preload"]


class _LazyModule:
    """Stand-in for a module: attribute access imports it (once; later lookups hit ``sys.modules``)."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        object.__setattr__(self, "_name", name)

    def __getattr__(self, attr: str) -> Any:
        return getattr(importlib.import_module(object.__getattribute__(self, "_name")), attr)

    def __repr__(self) -> str:
        return f"<lazy module {object.__getattribute__(self, '_name')!r}>"


def lazy_import(name: str) -> Any:
    """A stand-in for ``import name`` that imports the module on first attribute access."""
    return _LazyModule(name)


def preload(*names: str) -> None:
    """Start importing ``names`` (those not imported yet) on a background thread and return at once.

    For a code path that is about to need a heavy module after a long computation that releases the GIL (a BLAS
    product): the import then overlaps the computation instead of following it.  The first real use waits for the
    import to finish (the module's import lock); an import that fails here is retried, and its error raised, there.
    """
    missing = [name for name in names if name not in sys.modules]
    if missing:
        threading.Thread(target=_import_quietly, args=(missing,), name="fedrates-preload", daemon=True).start()


def _import_quietly(names: list[str]) -> None:
    for name in names:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - the first real use imports again and raises
            return
