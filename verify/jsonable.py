"""Strict-JSON conversion shared by the command line and the record store (kept free of heavy imports)."""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Mapping
from typing import Any

__all__ = ["to_jsonable"]


def to_jsonable(obj: Any) -> Any:
    """Convert to strict-JSON values: numpy scalars/arrays to Python, NaN to null, ±inf to "inf"/"-inf".

    Dicts, lists and tuples are converted recursively, paths become strings; anything else that JSON cannot
    represent raises TypeError when dumped.
    """
    if isinstance(obj, Mapping):
        return {str(k): to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    np = sys.modules.get("numpy")  # a numpy object implies numpy is loaded: never import it just to check
    if np is not None and isinstance(obj, np.ndarray):
        return to_jsonable(obj.tolist())
    if np is not None and isinstance(obj, np.generic):
        return to_jsonable(obj.item())
    if isinstance(obj, os.PathLike):
        return os.fspath(obj)
    if isinstance(obj, float) and not math.isfinite(obj):
        return None if math.isnan(obj) else ("inf" if obj > 0 else "-inf")
    return obj
