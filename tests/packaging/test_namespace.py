"""The installed distribution provides one import name, ``fedrates``; its four folders import as subpackages."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("solvers", "bounds", "verify", "reports")


def _run(code: str, tmp_path: Path) -> subprocess.CompletedProcess:
    # run outside the repository so that the working directory cannot provide the folders by accident
    return subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("name", FOLDERS)
def test_generic_top_level_names_are_not_provided(name: str, tmp_path: Path) -> None:
    done = _run(f"import importlib.util, sys; sys.exit(0 if importlib.util.find_spec({name!r}) is None else 3)",
                tmp_path)
    assert done.returncode == 0, f"`import {name}` resolves outside the repository: fedrates must not provide it"


@pytest.mark.parametrize("name", FOLDERS)
def test_subpackages_import_from_their_top_level_folder(name: str, tmp_path: Path) -> None:
    done = _run(f"import fedrates.{name} as m; print(m.__file__)", tmp_path)
    assert done.returncode == 0, done.stderr
    assert Path(done.stdout.strip()).parent == ROOT / name


def test_plugin_imports_nothing_heavy(tmp_path: Path) -> None:
    """The pytest plugin loads in every pytest run of the environment: no numpy, pandas, sympy or fedrates code."""
    code = ("import sys; import fedrates.verify.pytest_plugin; "
            "heavy = sorted(m for m in ('numpy', 'pandas', 'sympy', 'scipy', 'fedrates.verify.checks') "
            "if m in sys.modules); print(','.join(heavy))")
    done = _run(code, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "", f"plugin imported {done.stdout.strip()}"


def test_plugin_reexports_the_assertions() -> None:
    from fedrates.verify import conformance, pytest_plugin

    assert pytest_plugin.assert_rate is conformance.assert_rate
    assert pytest_plugin.assert_bound is conformance.assert_bound


def test_every_package_folder_is_declared_in_pyproject() -> None:
    """A subpackage missing from pyproject's package list works in the tree but is absent from a built wheel."""
    declared = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {"fedrates"}
    for folder in FOLDERS:
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT).parts
            found.add(".".join(("fedrates", *rel)))
    assert found == declared, f"missing: {sorted(found - declared)}, stale: {sorted(declared - found)}"


def test_version_is_one_number() -> None:
    import fedrates
    from fedrates import solvers

    assert fedrates.__version__ == solvers.__version__
