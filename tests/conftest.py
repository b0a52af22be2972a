"""Test-session setup shared by every test module.

Each test process (the single process of ``pytest``, or each pytest-xdist worker of ``pytest -n 2``) gets its own
fedrates cache directory (``FEDRATES_CACHE``): references, constants and listings computed by one worker are never
read half-written or replaced under another worker, a test that damages a cache entry on purpose damages only its
own worker's copy, and a developer's own cache is never touched.  ``FEDRATES_CACHE`` set by the caller (as
``.ci/run`` does) is the parent of these directories.  Subprocesses started by tests inherit the variable.

Compiled modules.  With ``PYTHONDONTWRITEBYTECODE`` set, every test process and every command-line subprocess would
compile the project's modules (and pytest would rewrite every test module's assertions) from source again.  The
session then keeps compiled modules outside the source tree instead (``sys.pycache_prefix`` /
``PYTHONPYCACHEPREFIX``, in ``<FEDRATES_CACHE>/pycache`` or ``<tmp>/fedrates-test-pycache-<uid>``), shared by the
workers and their subprocesses: nothing is written next to the sources, as the variable asks.
"""

from __future__ import annotations

import datetime
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

_CREATED: list[Path] = []


def _compiled_modules_outside_the_tree(parent: str | None) -> None:
    if not (sys.dont_write_bytecode or os.environ.get("PYTHONDONTWRITEBYTECODE")) or sys.pycache_prefix:
        return
    user = getattr(os, "getuid", lambda: 0)()
    base = Path(parent) if parent else Path(tempfile.gettempdir()) / f"fedrates-test-pycache-{user}"
    prefix = base / "pycache" if parent else base
    prefix.mkdir(parents=True, exist_ok=True)
    sys.pycache_prefix = str(prefix)
    sys.dont_write_bytecode = False
    os.environ["PYTHONPYCACHEPREFIX"] = str(prefix)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


def pytest_configure(config) -> None:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    parent = os.environ.get("FEDRATES_CACHE")
    _compiled_modules_outside_the_tree(parent)
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


@pytest.fixture
def frozen_clock(monkeypatch: pytest.MonkeyPatch) -> datetime.datetime:
    """Fix the clock the verdicts (``run_at``) and the HTML report (its "Generated" line) read, at 2000-01-01 UTC.

    Tests that compare two reports byte for byte use it: otherwise two renderings a second apart but in different
    minutes differ in that line.  Forked report helpers inherit the patched modules.
    """
    from fedrates.reports import html
    from fedrates.verify import pipeline

    fixed = datetime.datetime(2000, 1, 1, tzinfo=datetime.UTC)

    class _Fixed(datetime.datetime):
        @classmethod
        def now(cls, tz=None):
            return fixed if tz is not None else fixed.replace(tzinfo=None)

    monkeypatch.setattr(pipeline, "datetime", _Fixed)
    monkeypatch.setattr(html, "datetime", _Fixed)
    return fixed
