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


def test_finite_sum_constants_of_dinh_et_al_are_printed(capsys):
    """`fedrates constants dinh_*` adds Assumption 1's constants: least squares is convex (λ = 0), the nonconvex
    family is not (λ > 0), and L ≥ L_ms ≥ L_F (sample, mean-squared and device smoothness, in that order)."""
    import json

    from fedrates.verify.cli import main

    values = {}
    for family in ("dinh_ls", "dinh_nc"):
        assert main(["constants", family, "--json"]) == 0
        table = json.loads(capsys.readouterr().out)["fedproxvr"]
        values[family] = {k: v["value"] for k, v in table.items()}
        v = values[family]
        assert v["L"] >= v["L_ms"] * (1 - 1e-12) and v["L_ms"] >= v["L_F"] * (1 - 1e-12)
        assert v["m"] > 0 and v["Delta"] > 0
    assert values["dinh_ls"]["lam"] == 0 and values["dinh_nc"]["lam"] > 0
    assert main(["constants", "dinh_ls"]) == 0
    assert "Dinh et al., Assumption 1" in capsys.readouterr().out
