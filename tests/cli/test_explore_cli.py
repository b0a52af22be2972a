"""`fedrates explore` and `fedrates list theorems` end to end, in a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

VALS = ["mu=0.5", "L=1", "a=8", "T=1e4", "K=4", "E=2", "Lam=1", "H=1", "rho=1", "sigma=1", "B=1"]


def fedrates(*args: str) -> subprocess.CompletedProcess:
    code = "import sys; from verify.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=60)


def test_exponent_prints_minus_one():
    out = fedrates("explore", "bao.thm2.1", "--exponent", "T")
    assert out.returncode == 0, out.stderr
    assert "exponent in T (-> oo): -1" in out.stdout


def test_json_document_keys_and_values():
    out = fedrates("explore", "bao.thm2.1", "--set", *VALS, "--exponent", "T", "--solve", "T", "--target", "1e-3",
                   "--dominant", "T", "--latex", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert {"id", "conditions", "value", "exponent", "roots", "dominant", "latex"} <= set(doc)
    assert doc["id"] == "bao.thm2.1"
    assert doc["exponent"]["float"] == -1.0
    assert all(c["holds"] for c in doc["conditions"])
    # value at T = 1e4: 256/T^3 + 64/T^2 + 8/T^2 + 1/(2T), by hand
    assert doc["value"] == pytest.approx(256e-12 + 72e-8 + 5e-5, rel=1e-12)
    assert [d["term"] for d in doc["dominant"]][-1] == "sigma**2/(K*T*mu)"
    assert len(doc["roots"]) == 1


def test_failing_condition_warns_and_still_answers():
    out = fedrates("explore", "bao.thm2.1", "--set", *VALS, "a=2", "--json")
    assert out.returncode == 0
    assert "a >= 4*L/mu" in out.stderr
    assert json.loads(out.stdout)["value"] > 0


@pytest.mark.parametrize("args,needle", [
    (("explore", "bao.thm2"), "did you mean"),
    (("explore", "bao.thm2.1", "--set", "zeta=1"), "unknown symbol 'zeta'"),
    (("explore", "bao.thm2.1", "--set", "mu=-1"), "positive"),
    (("explore", "bao.thm2.1", "--set", "mu=__import__('os')"), "not allowed"),
    (("explore", "bao.thm2.1", "--solve", "T", "--target", "1e-3"), "needs values for"),
    (("explore", "bao.thm2.1", "--exponent", "Z"), "unknown symbol"),
    (("explore", "bao.prop3.1", "--set", "Psi=1", "mu=1", "--solve", "lam_opt", "--target", "-1"),
     "no positive root"),
])
def test_bad_input_is_one_line_exit_2(args, needle):
    out = fedrates(*args)
    assert out.returncode == 2
    assert needle in out.stderr
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr


def test_list_theorems_text_and_json():
    out = fedrates("list", "theorems", "--paper", "bao")
    assert out.returncode == 0
    assert "bao.thm2.1 " in out.stdout and "bao.thm3.2 " in out.stdout
    doc = json.loads(fedrates("list", "theorems", "--json").stdout)
    assert "bao.thm2.1" in {t["id"] for t in doc["theorems"]}
    bad = fedrates("list", "theorems", "--paper", "baoo")
    assert bad.returncode == 2 and "did you mean 'bao'" in bad.stderr


def test_list_other_registries_never_crash():
    for what in ("problems", "algorithms", "claims"):
        out = fedrates("list", what)
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip()
