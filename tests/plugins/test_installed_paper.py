"""An installed paper is treated exactly like a built-in one, by every command and by the pytest plugin; a broken
plugin is one line on stderr and every other paper keeps working.

The papers are installed without pip: a package and its ``<name>-0.1.dist-info`` directory (METADATA and
``entry_points.txt`` with the ``fedrates.papers`` group) written into a temporary directory put on ``PYTHONPATH``
(``importlib.metadata`` finds dist-info directories on ``sys.path``). See :mod:`fake_papers`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fake_papers import BROKEN, write_broken, write_mini

BUILT_IN = ("bao", "bylinkin", "dinh", "das", "buttaci")


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("papers")
    return {"good": write_mini(root / "good"), "broken": write_broken(root / "broken"), "work": root}


def fedrates(installed, *args: str, broken: bool = False, timeout: float = 600) -> subprocess.CompletedProcess:
    paths = [str(installed["good"])] + ([str(installed["broken"])] if broken else [])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths), "MPLBACKEND": "Agg"}
    return subprocess.run([sys.executable, "-m", "fedrates", *args], capture_output=True, text=True, env=env,
                          cwd=installed["work"], timeout=timeout)


def test_listing_with_broken_plugins_gives_one_line_per_problem_and_keeps_every_paper(installed):
    done = fedrates(installed, "list", "claims", broken=True)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.strip().splitlines()
    expected = {"bad1": "cannot be loaded: ModuleNotFoundError", "dup": "paper id 'bao' is already taken",
                "badalg": "names algorithm 'no_such_algorithm', which no paper registers",
                "badprefix": "claim id 'other.x/limit' does not start with 'badprefix.'",
                "unfrozen": "must be decorated with @dataclass(frozen=True)"}
    assert len(lines) == len(expected) == len(BROKEN), done.stderr
    for plugin, problem in expected.items():
        (line,) = [line for line in lines if f"paper plugin '{plugin}'" in line]
        assert problem in line and line.startswith("fedrates: paper plugin ")
    ids = done.stdout.split()
    assert {"mini.thm1/bound", "mini.thm1/contraction"} <= set(ids)
    for paper in BUILT_IN:
        assert any(i.startswith(paper + ".") for i in ids), paper
    assert not any(i.startswith(("badalg.", "other.", "badprefix.")) for i in ids)


@pytest.mark.slow  # several seconds of CPU: the long step
def test_list_explore_run_and_constants_know_the_paper(installed):
    listed = fedrates(installed, "list", "theorems")
    assert listed.returncode == 0 and "mini.thm1" in listed.stdout, listed.stderr
    explored = fedrates(installed, "explore", "mini.thm1", "--set", "mu=0.5", "L=2", "T=4", "B=1")
    assert explored.returncode == 0, explored.stderr
    assert "sqrt(B)*(1 - mu/L)**T" in explored.stdout and "0.316" in explored.stdout  # 0.75^4
    ran = fedrates(installed, "run", "mini_gd", "--problem", "quadratic", "--set", "clients=2", "dim=3",
                   "--rounds", "3", "--json")
    assert ran.returncode == 0, ran.stderr
    assert "mini_gd" in ran.stdout
    family = fedrates(installed, "run", "mini_gd", "--problem", "mini_diag", "--preset", "tiny", "--gradients",
                      "exact", "--hyper", "step=0.5", "--rounds", "40", "--json")
    assert family.returncode == 0, family.stderr
    assert '"mini_diag"' in family.stdout
    constants = fedrates(installed, "constants", "mini_diag", "--preset", "tiny", "--json")
    assert constants.returncode == 0, constants.stderr
    values = json.loads(constants.stdout)
    assert values["constants"]["L"]["value"] == pytest.approx(2.0)
    assert values["constants"]["mu"]["value"] == pytest.approx(0.5)


@pytest.fixture(scope="module")
def verified(installed) -> tuple[subprocess.CompletedProcess, Path]:
    out = installed["work"] / "out"
    done = fedrates(installed, "verify", "--only", "mini.*", "--profile", "quick", "--jobs", "1", "--out", str(out),
                    "--json", broken=True)
    return done, out


@pytest.mark.slow  # an end-to-end run of several seconds of CPU: the long step
def test_verify_runs_the_paper_s_claims_despite_broken_plugins(verified):
    done, out = verified
    assert done.returncode == 0, done.stderr
    verdicts = {v["claim"]: v for v in json.loads((out / "verdicts.json").read_text())}
    assert set(verdicts) == {"mini.thm1/bound", "mini.thm1/contraction"}
    assert {v["verdict"] for v in verdicts.values()} == {"pass"}
    assert all(v["plot"] is not None for v in verdicts.values())
    assert "mini.thm1/bound" in (out / "report.html").read_text(encoding="utf-8")
    assert sum("paper plugin" in line for line in done.stderr.splitlines()) == len(BROKEN)


@pytest.mark.slow  # an end-to-end run of several seconds of CPU: the long step
def test_report_and_plot_draw_the_paper_s_claims(installed, verified):
    _, out = verified
    report = fedrates(installed, "report", str(out), "--out", str(out / "again.html"))
    assert report.returncode == 0, report.stderr
    html = (out / "again.html").read_text(encoding="utf-8")
    assert "mini.thm1/contraction" in html and "No records were stored" not in html
    plot = fedrates(installed, "plot", str(out), "--claim", "mini.thm1/bound", "--out", str(out / "bound.svg"))
    assert plot.returncode == 0, plot.stderr
    assert (out / "bound.svg").read_text(encoding="utf-8").lstrip().startswith(("<?xml", "<svg"))


@pytest.mark.slow  # an end-to-end selfcheck in a subprocess, several seconds of CPU: the long step
def test_selfcheck_catches_the_paper_s_broken_variant(installed):
    done = fedrates(installed, "selfcheck", "--only", "mini.*", "--profile", "quick", "--json")
    assert done.returncode == 0, done.stderr
    assert "mini.gd/step-0.3" in done.stdout and "caught" in done.stdout


@pytest.mark.slow  # an end-to-end run of several seconds of CPU: the long step
def test_pytest_plugin_takes_the_paper_s_claim_and_theorem_ids(installed):
    test = installed["work"] / "test_mini_conformance.py"
    test.write_text(
        "from fedrates import assert_bound\n\n"
        "def test_mini(fedrates_records):\n"
        "    records = fedrates_records('mini.thm1/bound')\n"
        "    assert set(records['claim']) == {'mini.thm1/bound'}\n"
        "    assert assert_bound(records, 'mini.thm1', var='iterations').verdict == 'pass'\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(installed["good"])}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test)],
                          capture_output=True, text=True, env=env, cwd=installed["work"], timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout


def test_reset_sees_a_paper_installed_in_process(installed, monkeypatch):
    from fedrates import plugins
    from fedrates.bounds import catalog
    from fedrates.solvers.algorithms import base
    from fedrates.verify import claims, variants

    before = set(claims.ids())
    monkeypatch.syspath_prepend(str(installed["good"]))
    try:
        plugins.reset()
        assert "mini" in plugins.ids() and "mini.thm1" in catalog.ids()
        assert {"mini.thm1/bound", "mini.thm1/contraction"} <= set(claims.ids())
        assert "mini.gd/step-0.3" in {v.id for v in variants.all_variants()}
        assert "mini_gd" in base.names()
        from fedrates.solvers import problems

        assert "mini_diag" in problems.names()
        # claims go to worker processes (--jobs N) by reference: their lambdas are not pickled
        import pickle

        broken = claims.get("mini.thm1/bound").with_algorithm(base.make("mini_gd", step=0.15))
        back = pickle.loads(pickle.dumps(broken))
        assert back.id == "mini.thm1/bound" and back.algorithm_override == broken.algorithm_override
        assert back.hyper is claims.get("mini.thm1/bound").hyper
    finally:
        monkeypatch.undo()
        plugins.reset()
        base._REGISTRY.pop("mini_gd", None)
        from fedrates.solvers import problems

        problems.FAMILIES.pop("mini_diag", None)  # other tests of this process list every family
        for name in [m for m in sys.modules if m == "mini_paper" or m.startswith("mini_paper.")]:
            del sys.modules[name]
    assert "mini" not in plugins.ids() and set(claims.ids()) == before and "mini_diag" not in problems.names()
