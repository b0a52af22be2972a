"""`fedrates verify` bad inputs: one line on stderr, exit 2, no traceback."""

import os
import subprocess
import sys

import pytest


def fedrates(*args, cwd=None):
    env = {**os.environ, "MPLBACKEND": "Agg"}
    return subprocess.run([sys.executable, "-m", "verify", *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=120)


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["verify", "--profile", "huge"], "unknown profile 'huge'"),
        (["verify", "--jobs", "0"], "--jobs 0"),
        (["verify", "--jobs", "two"], "--jobs 'two'"),
        (["verify", "--only", "no.such/claim*"], "matches no claim"),
        (["verify", "--executor", "dask://nowhere:1"], "executor"),
    ],
)
def test_bad_input_is_one_line_exit_2(args, needle, tmp_path):
    res = fedrates(*args, "--out", str(tmp_path / "out"))
    assert res.returncode == 2, res.stderr
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and needle in lines[0], res.stderr
    assert "Traceback" not in res.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere, so an unwritable directory cannot be made")
def test_unwritable_output_directory(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    res = fedrates("verify", "--out", str(locked / "out"))
    assert res.returncode == 2 and "not writable" in res.stderr


def test_output_path_that_is_a_file_is_rejected(tmp_path):
    target = tmp_path / "file"
    target.write_text("x")
    res = fedrates("verify", "--out", str(target))
    assert res.returncode == 2 and "not writable" in res.stderr
    assert "Traceback" not in res.stderr
