"""`fedrates constants` end to end in a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


def _run(*args):
    return subprocess.run([sys.executable, "-m", "verify", "constants", *args], capture_output=True, text=True,
                          timeout=120)


def test_json_document():
    out = _run("quadratic", "--preset", "similar-quadratic", "--set", "radius=2", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["constants"]["delta"]["value"] == pytest.approx(0.05, abs=1e-12)
    assert doc["constants"]["H"]["assumption"].startswith("Bao et al. 2022 Assumption 3")
    assert doc["radius"] == 2.0


def test_table_and_preset_as_problem():
    out = _run("realisable-quadratic", "--batch", "2")
    assert out.returncode == 0, out.stderr
    assert "Lambda" in out.stdout and "Assumption 1" in out.stdout and "note H:" in out.stdout


@pytest.mark.parametrize("args", [("lasso", "--set", "dim=x"), ("lasso", "--radius", "-1"), ("lasso", "--batch", "0"),
                                  ("lasoo",)])
def test_bad_input_exit_2_one_line(args):
    out = _run(*args)
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and out.stderr.startswith("fedrates: error:")
