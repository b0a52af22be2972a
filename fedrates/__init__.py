"""fedrates: check the convergence theory of federated optimization against certified numerical reality.

The toolkit lives in four subpackages, importable as ``fedrates.solvers`` (synthetic federations, certified optima,
exact constants, algorithms), ``fedrates.bounds`` (theorems as sympy data and their analysis), ``fedrates.verify``
(claims, statistics, the command line) and ``fedrates.reports`` (HTML/PDF renderings). Importing ``fedrates``
itself is cheap: the subpackages load on first attribute access.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

__all__ = ["__version__", "solvers", "bounds", "verify", "reports"]

_SUBPACKAGES = frozenset({"solvers", "bounds", "verify", "reports"})


def __getattr__(name: str) -> Any:
    if name in _SUBPACKAGES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
