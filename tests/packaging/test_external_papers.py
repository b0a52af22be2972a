"""External papers, installed as users install them: the package ``fedrates new`` writes and the example paper
``examples/momentum_rates``.

Each is copied into a temporary directory, checked with ruff, installed with ``pip install --target`` (offline:
``--no-deps --no-build-isolation --no-index``; the test environment is untouched, the installed copy is put on
``PYTHONPATH`` of the subprocesses only), then ``fedrates verify --only '<id>.*'`` must exit 0 with every claim
passing and the package's own ``pytest`` must pass.  These are the two slow tests of the module (about 30–60 s each);
the refusals of ``fedrates new`` run in-process.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fedrates.verify.cli import main
from fedrates.verify.commands import new

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "momentum_rates"


def _can_build() -> str | None:
    """Why a local package cannot be built without build isolation here (None when it can)."""
    if importlib.util.find_spec("setuptools") is None:
        return "setuptools is not installed"
    import setuptools

    major, minor = (int(p) for p in setuptools.__version__.split(".")[:2])
    if (major, minor) < (70, 1) and importlib.util.find_spec("wheel") is None:
        return "building a wheel needs the wheel package (in the test extra) with setuptools < 70.1"
    return None


def _run(args: list[str], env: dict[str, str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(args, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def _ruff() -> list[str] | None:
    """The ruff command (the test extra installs it), or None."""
    if importlib.util.find_spec("ruff") is not None:
        return [sys.executable, "-m", "ruff"]
    found = shutil.which("ruff")
    return [found] if found else None


def _install(source: Path, tmp_path: Path) -> dict[str, str]:
    """Copy ``source`` into tmp_path, install the copy into a target directory; the environment that sees it."""
    reason = _can_build()
    if reason:
        pytest.skip(reason)
    copy = tmp_path / "src" / source.name
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    target = tmp_path / "site"
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                           "--no-index", "--target", str(target), str(copy)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(target), env.get("PYTHONPATH", "")]))
    env["MPLBACKEND"] = "Agg"
    return env


def _verify(paper_id: str, env: dict[str, str], tmp_path: Path) -> list[dict]:
    out = tmp_path / "out"
    proc = _run([sys.executable, "-m", "fedrates", "verify", "--only", f"{paper_id}.*", "--profile", "quick",
                 "--jobs", "1", "--json", "--out", str(out)], env, tmp_path)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    document = json.loads(proc.stdout)
    verdicts = document["verdicts"] if isinstance(document, dict) else document
    mine = [v for v in verdicts if str(v.get("claim", "")).startswith(f"{paper_id}.")]
    report = (out / "report.html").read_text(encoding="utf-8")
    assert all(v["claim"] in report for v in mine), "the report leaves out a claim of the installed paper"
    return mine


def _pytest(path: Path, env: dict[str, str], tmp_path: Path) -> str:
    proc = _run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", str(path)],
                env, tmp_path)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.stdout


# ---- fedrates new --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("paper_id, problem", [
    ("MyPaper", "not a lower-case Python identifier"),
    ("2paper", "not a lower-case Python identifier"),
    ("my-paper", "not a lower-case Python identifier"),
    ("class", "not a lower-case Python identifier"),
    ("bao", "already taken by an installed paper"),
    ("json", "is the name of an importable module"),
])
def test_new_refuses_a_bad_id_in_one_line(paper_id, problem, tmp_path, capsys):
    assert main(["new", paper_id, "--dir", str(tmp_path / "pkg")]) == 2
    err = capsys.readouterr().err
    assert problem in err and err.count("\n") == 1
    assert not (tmp_path / "pkg").exists()


def test_new_refuses_a_non_empty_directory_and_writes_into_an_empty_one(tmp_path, capsys):
    full = tmp_path / "full"
    full.mkdir()
    (full / "notes.txt").write_text("mine")
    assert main(["new", "fresh_paper", "--dir", str(full)]) == 2
    err = capsys.readouterr().err
    assert "exists and is not empty" in err and err.count("\n") == 1
    assert sorted(p.name for p in full.iterdir()) == ["notes.txt"]
    a_file = tmp_path / "a_file"
    a_file.write_text("mine")
    assert main(["new", "fresh_paper", "--dir", str(a_file)]) == 2
    assert "is not a directory" in capsys.readouterr().err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["new", "fresh_paper", "--dir", str(empty)]) == 0
    written = {str(p.relative_to(empty)) for p in empty.rglob("*") if p.is_file()}
    assert written == set(new.files("fresh_paper"))
    assert "pyproject.toml" in written and "tests/test_fresh_paper.py" in written
    assert 'fresh_paper = "fresh_paper:PAPER"' in (empty / "pyproject.toml").read_text()


@pytest.mark.skipif(_ruff() is None, reason="ruff is not installed (it is in the test extra)")
def test_generated_package_and_example_are_ruff_clean(tmp_path):
    """With their own configuration: the generated package's pyproject, the repository's for the example."""
    package = tmp_path / "a_paper_with_a_rather_long_identifier_name"  # long ids must not make long lines
    assert main(["new", package.name, "--dir", str(package)]) == 0
    for path, cwd in ((package, package), (EXAMPLE, ROOT)):
        proc = subprocess.run([*_ruff(), "check", "--no-cache", str(path)], cwd=cwd, capture_output=True, text=True,
                              timeout=120)
        assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.integration
def test_new_package_installs_verifies_and_passes_its_own_tests(tmp_path):
    """The round trip a user makes: fedrates new, pip install, fedrates verify, pytest."""
    paper_id = "scaffold_round_trip"
    package = tmp_path / "new" / paper_id
    assert main(["new", paper_id, "--dir", str(package)]) == 0
    env = _install(package, tmp_path)
    verdicts = _verify(paper_id, env, tmp_path)
    assert [(v["claim"], v["verdict"]) for v in verdicts] == [(f"{paper_id}.thm1.bound", "pass")]
    assert "3 passed" in _pytest(tmp_path / "src" / paper_id, env, tmp_path)
    # once installed, the id is taken
    proc = _run([sys.executable, "-m", "fedrates", "new", paper_id, "--dir", str(tmp_path / "again")], env, tmp_path)
    assert proc.returncode == 2 and "already taken by an installed paper" in proc.stderr


# ---- the example paper ---------------------------------------------------------------------------------------
@pytest.mark.integration
def test_example_paper_installs_verifies_and_passes_its_own_tests(tmp_path):
    env = _install(EXAMPLE, tmp_path)
    verdicts = _verify("momentum_rates", env, tmp_path)
    assert {v["claim"]: v["verdict"] for v in verdicts} == {
        "momentum_rates.hb.contraction": "pass",
        "momentum_rates.nesterov.contraction": "pass",
        "momentum_rates.hb.sqrt_kappa": "pass",
        "momentum_rates.hb_bound.kappa10": "pass",
        "momentum_rates.hb_bound.kappa1000": "pass",
    }
    assert "18 passed" in _pytest(tmp_path / "src" / EXAMPLE.name, env, tmp_path)
