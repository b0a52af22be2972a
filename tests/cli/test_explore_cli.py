"""`fedrates explore` and `fedrates list`: two end-to-end subprocess runs, the rest through ``fedrates.verify.cli.main``
in-process (same code path after the imports, much faster)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from fedrates.verify.cli import main

VALS = ["mu=0.5", "L=1", "a=8", "T=1e4", "K=4", "E=2", "Lam=1", "H=1", "rho=1", "sigma=1", "B=1"]


def fedrates_subprocess(*args: str) -> subprocess.CompletedProcess:
    code = "import sys; from verify.cli import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=60)


def run(capsys, *args: str) -> tuple[int, str, str]:
    try:
        rc = main(list(args))
    except SystemExit as exc:  # argparse errors
        rc = int(exc.code)
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_subprocess_exponent_prints_minus_one():
    out = fedrates_subprocess("explore", "bao.thm2.1", "--exponent", "T")
    assert out.returncode == 0, out.stderr
    assert "exponent in T (-> oo): -1" in out.stdout


def test_subprocess_bad_input_one_line_no_traceback():
    out = fedrates_subprocess("explore", "bao.thm2.1", "--set", "mu=__import__('os')")
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr and "not allowed" in out.stderr


def test_json_document_keys_and_values(capsys):
    rc, out, err = run(capsys, "explore", "bao.thm2.1", "--set", *VALS, "--exponent", "T", "--solve", "T",
                       "--target", "1e-3", "--dominant", "T", "--latex", "--json")
    assert rc == 0, err
    doc = json.loads(out)
    assert {"id", "conditions", "value", "exponent", "roots", "dominant", "latex"} <= set(doc)
    assert doc["id"] == "bao.thm2.1"
    assert doc["exponent"]["float"] == -1.0
    assert all(c["holds"] for c in doc["conditions"])
    # value at T = 1e4: 256/T^3 + 64/T^2 + 8/T^2 + 1/(2T), by hand
    assert doc["value"] == pytest.approx(256e-12 + 72e-8 + 5e-5, rel=1e-12)
    assert [d["term"] for d in doc["dominant"]][-1] == "sigma**2/(K*T*mu)"
    assert len(doc["roots"]) == 1


def test_text_output_is_plain(capsys):
    rc, out, _ = run(capsys, "explore", "bao.thm2.1", "--set", *VALS, "--dominant", "T")
    assert rc == 0
    assert "value: 5.07203e-05" in out and "\x1b[" not in out
    assert "[128, 1e+15]  sigma**2/(K*T*mu)" in out


def test_failing_condition_warns_and_still_answers(capsys):
    vals = [v for v in VALS if not v.startswith("a=")]
    rc, out, err = run(capsys, "explore", "bao.thm2.1", "--set", *vals, "a=2", "--json")
    assert rc == 0
    assert "a >= 4*L/mu" in err
    assert json.loads(out)["value"] > 0


@pytest.mark.parametrize("args,needle", [
    (("explore", "bao.thm2"), "did you mean"),
    (("explore", "bao.thm2.1", "--set", "zeta=1"), "unknown symbol 'zeta'"),
    (("explore", "bao.thm2.1", "--set", "mu=-1"), "positive"),
    (("explore", "bao.thm2.1", "--set", "mu=().__class__"), "not allowed"),
    (("explore", "bao.thm2.1", "--solve", "T", "--target", "1e-3"), "needs values for"),
    (("explore", "bao.thm2.1", "--solve", "T"), "--target"),
    (("explore", "bao.thm2.1", "--exponent", "Z"), "unknown symbol"),
    (("explore", "bao.prop3.1", "--set", "Psi=1", "mu=1", "--solve", "lam_opt", "--target", "-1"),
     "no positive root"),
    (("list", "theorems", "--paper", "baoo"), "did you mean 'bao'"),
])
def test_bad_input_is_one_line_exit_2(capsys, args, needle):
    rc, _, err = run(capsys, *args)
    assert rc == 2
    assert needle in err
    assert err.count("\n") == 1


def test_list_theorems_text_and_json(capsys):
    rc, out, _ = run(capsys, "list", "theorems", "--paper", "bao")
    assert rc == 0
    assert "bao.thm2.1 " in out and "bao.thm3.2 " in out and "das." not in out
    rc, out, _ = run(capsys, "list", "theorems", "--json")
    assert "bao.thm2.1" in {t["id"] for t in json.loads(out)["theorems"]}


def test_list_other_registries_never_crash(capsys):
    for what in ("problems", "algorithms", "claims"):
        rc, out, err = run(capsys, "list", what)
        assert rc == 0, err
        assert out.strip()
