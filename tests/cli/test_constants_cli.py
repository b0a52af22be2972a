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


CERT_KEYS = {"value", "witness_value", "upper", "witness", "lower_method", "upper_method", "definition", "assumption",
             "agrees"}


@pytest.mark.parametrize("args,section,names", [
    (("lasso", "--set", "radius=2", "dim=8", "samples=16", "--batch", "2"), "certificates",
     {"L", "mu", "H", "sigma2", "sigma_bar2", "Psi", "lam_opt", "Delta_star_max"}),
    (("trace", "--set", "radius=2"), "certificates", {"L", "Lambda", "lam_opt", "Psi"}),
    (("das-quadratic", "--set", "clients=6", "dim=10", "inner=3"), "certificates", {"L", "Delta_star_max"}),
    (("dinh_nc",), "fedproxvr_certificates", {"L", "lam", "L_ms", "L_F", "sigma_bar_sq", "m", "Delta"}),
    (("bylinkin-signed",), "separation_certificates", {"mu", "L", "delta_f", "delta_g"}),
    (("buttaci-common",), "buttaci_certificates", {"Gamma", "L", "mu", "S", "sigma2"}),
])
def test_certificates_in_json_and_text(tmp_path, monkeypatch, capsys, args, section, names):
    """Every family prints its certificates: value, witness, both routes; all agree on correct constants."""
    from fedrates.verify.cli import main

    monkeypatch.setenv("FEDRATES_CACHE", str(tmp_path / "cache"))
    assert main(["constants", *args, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    certs = doc[section]
    assert names <= set(certs)
    for c in certs.values():
        assert CERT_KEYS <= set(c) and c["agrees"] is True
    assert all(not doc.get(k) for k in ("disagreements", "fedproxvr_disagreements", "separation_disagreements",
                                        "buttaci_disagreements"))
    assert main(["constants", *args]) == 0
    text = capsys.readouterr().out
    assert "certificates: all agree" in text and "second route:" in text and "witness:" in text


def test_a_disagreeing_certificate_is_printed(tmp_path, monkeypatch, capsys):
    """A constants module that halves L is shown as a disagreement with both numbers."""
    import dataclasses as dc

    from fedrates.solvers import constants
    from fedrates.verify.cli import main

    monkeypatch.setenv("FEDRATES_CACHE", str(tmp_path / "cache"))
    real = constants.compute
    monkeypatch.setattr(constants, "compute", lambda *a, **k: dc.replace(real(*a, **k), L=real(*a, **k).L / 2))
    assert main(["constants", "realisable-quadratic", "--no-cache"]) == 0
    text = capsys.readouterr().out
    assert "1 DISAGREE" in text and "DISAGREES: L = " in text
