"""Test-session setup shared by every test module.

Each test process (the single process of ``pytest``, or each pytest-xdist worker of ``pytest -n 2``) gets its own
fedrates cache directory (``FEDRATES_CACHE``): references, constants and listings computed by one worker are never
read half-written or replaced under another worker, a test that damages a cache entry on purpose damages only its
own worker's copy, and a developer's own cache is never touched.  ``FEDRATES_CACHE`` set by the caller (as
``.ci/run`` does) is the parent of these directories.  Subprocesses started by tests inherit the variable.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

_CREATED: list[Path] = []


def pytest_configure(config) -> None:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    parent = os.environ.get("FEDRATES_CACHE")
    if parent:
        path = Path(parent) / f"pytest-{worker}"
        path.mkdir(parents=True, exist_ok=True)
    else:
        path = Path(tempfile.mkdtemp(prefix=f"fedrates-test-cache-{worker}-"))
        _CREATED.append(path)
    os.environ["FEDRATES_CACHE"] = str(path)


def pytest_unconfigure(config) -> None:
    for path in _CREATED:
        shutil.rmtree(path, ignore_errors=True)
