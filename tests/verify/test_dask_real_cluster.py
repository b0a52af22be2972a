"""A real Dask cluster lost mid-run (a ``dask scheduler`` and a ``dask worker`` in their own processes, killed with
SIGKILL while ``fedrates verify`` sweeps on them): the run ends with one line on stderr naming what was lost, exit
status 2, no traceback, and every point that finished stays in the sweep cache, so that a rerun computes only the
rest. The fake-client tests in ``test_dask_failures.py`` cover the same paths in milliseconds; these run the real
processes and belong to the long step."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from _dask_processes import kill, start_scheduler, start_worker

pytest.importorskip("distributed", reason="distributed is not installed (pip install 'fedrates[dask]')")

pytestmark = pytest.mark.integration

#: three claims, 15 points, the first ones the slowest: when the first point is cached the sweep still has work left
#: on the one worker (a sweep of short points only could finish before the kill on an idle machine)
CLAIMS = "bao.thm2.1/*"


def _cached(out: Path) -> list[Path]:
    return sorted((out / "cache").rglob("records.parquet")) if (out / "cache").exists() else []


@pytest.fixture
def cluster(tmp_path):
    """(address, scheduler process, worker process, environment) of a one-worker cluster on this machine."""
    env = {**os.environ, "FEDRATES_CACHE": str(tmp_path / "user-cache"), "FEDRATES_DASK_WAIT": "3",
           "MPLBACKEND": "Agg", "PYTHONUNBUFFERED": "1"}
    address, scheduler = start_scheduler(tmp_path / "scheduler.log", env)
    worker = None
    try:
        worker = start_worker(address, tmp_path / "worker.log", env)
        yield address, scheduler, worker, env
    finally:
        for proc in (worker, scheduler):
            if proc is not None:
                kill(proc)


def _verify(address: str, out: Path, env: dict, executor: str = "dask") -> subprocess.Popen:
    args = [sys.executable, "-m", "fedrates", "verify", "--profile", "quick", "--only", CLAIMS, "--jobs",
            "1" if executor == "dask" else "2", "--out", str(out), "--json"]
    if executor == "dask":
        args += ["--executor", "dask", "--scheduler", address]
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)


@pytest.mark.parametrize("lost", ["scheduler", "worker"])
def test_a_cluster_lost_mid_run_ends_in_one_line_and_keeps_what_finished(cluster, tmp_path, lost):
    address, scheduler, worker, env = cluster
    out = tmp_path / "fedrates-out"
    run = _verify(address, out, env)
    deadline = time.monotonic() + 600
    while not _cached(out):  # the first point finished and is cached
        if run.poll() is not None:
            pytest.fail(f"verify ended before the cluster was lost (exit {run.returncode}): "
                        f"{run.stderr.read()[-2000:]}")
        if time.monotonic() > deadline:
            run.kill()
            pytest.fail("no sweep point finished on the cluster within 600 s")
        time.sleep(0.2)
    kill(scheduler if lost == "scheduler" else worker)
    try:
        _, err = run.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        run.kill()
        pytest.fail(f"verify did not end within 300 s of losing the {lost}")
    lines = [line for line in err.splitlines() if line.strip()]
    expected = "is gone" if lost == "scheduler" else "no Dask worker is left"
    assert run.returncode == 2, err[-2000:]
    assert len(lines) == 1 and lines[0].startswith("fedrates: error: ") and expected in lines[0], err[-2000:]
    assert "Traceback" not in err and "finished points are cached" in lines[0]
    finished = _cached(out)
    assert finished, "the points that finished before the loss are not in the sweep cache"

    rerun = _verify(address, out, env, executor="local")  # the same sweep, locally: the finished points are reused
    stdout, err = rerun.communicate(timeout=900)
    assert rerun.returncode == 0, err[-2000:]
    assert {v["verdict"] for v in json.loads(stdout)["verdicts"]} <= {"pass", "informational"}
    provenance = json.loads((out / "provenance.json").read_text())
    assert provenance["points_cached"] >= len(finished) >= 1
