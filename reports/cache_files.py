"""Files of the figure cache (a run directory's ``.figures/``): written atomically, best effort."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["store"]


def store(path: Path, data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` through a temporary file and ``os.replace``, so that a reader never
    sees half a file; an unwritable folder only loses the reuse (the cache is an optimisation, never a result)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        tmp.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(tmp, path)
    except OSError:
        pass
