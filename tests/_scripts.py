"""Load a Python file that is not a package module (a benchmark script, another test file) as a module of its own."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

#: the repository's benchmark scripts
BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def load_script(path: Path, name: str) -> ModuleType:
    """The file at ``path`` executed as a new module called ``name`` (not added to ``sys.modules``)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
