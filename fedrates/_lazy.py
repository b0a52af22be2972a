"""Deferred imports of heavy libraries (pandas, scipy): ``pd = lazy_import("pandas")`` binds a stand-in whose first
attribute access imports the module.

Commands that only list, validate or refuse (``fedrates list claims``, a bad ``--seed``) then never pay for pandas
or scipy (0.3–1.5 s of imports on a loaded machine).  Until first use the module is not in ``sys.modules`` at all,
so a test can check that a code path stays free of it.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["lazy_import"]


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
