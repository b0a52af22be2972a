"""End-to-end tests of ``fedrates reference`` in a subprocess (bad inputs: one line on stderr, exit 2)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest


def run(args, tmp_path):
    env = dict(os.environ, FEDRATES_CACHE=str(tmp_path / "cache"))
    return subprocess.run([sys.executable, "-m", "verify", "reference", *args], capture_output=True, text=True,
                          env=env, timeout=300)


def test_bao_lasso_json_is_certified(tmp_path):
    proc = run(["lasso", "--preset", "bao-lasso", "--json"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert set(doc) == {"problem", "preset", "value", "gap", "method", "seconds", "clients", "dim", "cached",
                        "params", "solve_seconds", "command_seconds"}
    assert doc["problem"] == "lasso" and doc["preset"] == "bao-lasso"
    assert doc["clients"] == 64 and doc["dim"] == 1024 and doc["params"]["lam"] == 0.5**5
    assert 0 <= doc["gap"] <= 1e-11 * max(1.0, abs(doc["value"]))
    assert doc["cached"] is False


def test_text_output_and_cache_hit(tmp_path):
    args = ["trace", "--set", "rows=4", "--set", "cols=3", "--set", "radius=0.7"]
    proc = run(args, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "certified gap" in proc.stdout and "dim" in proc.stdout and "12 (shape 4x3)" in proc.stdout
    again = run([*args, "--json"], tmp_path)
    assert json.loads(again.stdout)["cached"] is True
    fresh = run([*args, "--json", "--no-cache", "--method", "cvxpy"], tmp_path)
    doc = json.loads(fresh.stdout)
    assert doc["cached"] is False and doc["method"].startswith("cvxpy")


BAD_INPUTS = [
    (["lasoo"], "did you mean 'lasso'"),
    (["lasso", "--preset", "bao-lass"], "did you mean 'bao-lasso'"),
    (["lasso", "--set", "lamda=0.1"], "did you mean 'lam'"),
    (["lasso", "--set", "lam=abc"], "not a number"),
    (["lasso", "--set", "clients=-3"], "clients"),
    (["lasso", "--set", "lam=-0.1"], "lam"),
    (["lasso", "--set", "radius=0"], "radius"),
    (["lasso", "--set", "sparsity=40"], "sparsity"),
    (["trace", "--set", "rank=5", "--set", "rows=3", "--set", "cols=4"], "rank"),
    (["lasso", "--set", "lam"], "key=value"),
    (["lasso", "--method", "newton"], "method"),
    (["lasso", "--no-cache", "--tol", "1e-300"], "not certified"),
]


@pytest.fixture(scope="module")
def bad_input_runs(tmp_path_factory):
    """Run every bad-input invocation concurrently (each in its own process), keyed by case index."""
    env = dict(os.environ, FEDRATES_CACHE=str(tmp_path_factory.mktemp("cache")))
    procs = [subprocess.Popen([sys.executable, "-m", "verify", "reference", *args], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env) for args, _ in BAD_INPUTS]
    out = []
    for proc in procs:
        stdout, stderr = proc.communicate(timeout=300)
        out.append((proc.returncode, stdout, stderr))
    return out


@pytest.mark.parametrize("case", range(len(BAD_INPUTS)), ids=[" ".join(a) for a, _ in BAD_INPUTS])
def test_bad_input_is_one_line_and_exit_2(bad_input_runs, case):
    returncode, stdout, stderr = bad_input_runs[case]
    fragment = BAD_INPUTS[case][1]
    assert returncode == 2
    assert "Traceback" not in stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert fragment in lines[0]
    assert stdout == ""
