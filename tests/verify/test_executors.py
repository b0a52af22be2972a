"""Sweep executors: the Dask executor (2-worker LocalCluster) gives the records and verdicts of the local one;
every sweep task runs with one BLAS thread, so records do not depend on --jobs."""

from __future__ import annotations

import json
import os

import numpy as np
import pandas as pd
import pytest

from fedrates.solvers.errors import InputError
from fedrates.verify import claims as registry
from fedrates.verify import executors
from fedrates.verify.pipeline import judge_all
from fedrates.verify.sweep import run_claims

CLAIMS = "bao.thm2.1/local-steps-E"  # five sweep points, well under a second each on the quick profile


def _sorted(records: dict[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    out = {}
    for cid, df in records.items():
        keys = [c for c in df.columns if df[c].map(lambda v: np.isscalar(v) or v is None).all()]
        out[cid] = df.sort_values(keys, kind="stable").reset_index(drop=True)
    return out


def _sweep(factory, tmp_path, name):
    claims = registry.select(CLAIMS)
    with executors.use(factory):
        res = run_claims(claims, "quick", tmp_path / name, jobs=2)
    assert not res.errors
    return claims, res


@pytest.mark.slow  # an end-to-end run of several seconds of CPU: the long step
def test_dask_local_cluster_matches_local_executor(tmp_path):
    pytest.importorskip("distributed", reason="distributed is not installed (pip install 'fedrates[dask]')")
    claims, remote = _sweep(executors.dask(None), tmp_path, "dask")
    local = run_claims(claims, "quick", None, jobs=1)  # the local executor (one job: in this process)
    assert local.computed == remote.computed == 5
    a, b = _sorted(local.records), _sorted(remote.records)
    assert a.keys() == b.keys()
    for cid in a:
        pd.testing.assert_frame_equal(a[cid], b[cid], check_exact=True)
    va, vb = judge_all(claims, local.records, {}, "quick"), judge_all(claims, remote.records, {}, "quick")
    assert [v["verdict"] for v in va] == [v["verdict"] for v in vb]
    assert [v["measured"] for v in va] == [v["measured"] for v in vb]
    # the client wrote the cache: a rerun on the same cache computes nothing
    _, again = _sweep(executors.dask(None), tmp_path, "dask")
    assert again.computed == 0 and again.cached == 5


def _blas_threads_now(_: int) -> int:
    from threadpoolctl import threadpool_info

    return max([i["num_threads"] for i in threadpool_info()] or [1])


def _thread_variables(_: int) -> dict[str, str | None]:
    return {name: os.environ.get(name) for name in executors.THREAD_VARIABLES}


def test_local_pool_tasks_run_with_one_blas_thread():
    """The workers are capped when they start: the loaded libraries at one thread, and the variables a library loaded
    later reads its threads from at 1; this process is left as it was."""
    before = _thread_variables(0)
    with executors.local(2) as pool:
        got = [pool.submit(_blas_threads_now, i).result() for i in range(4)]
        variables = pool.submit(_thread_variables, 0).result()
    assert got == [1, 1, 1, 1]
    assert variables == {name: "1" for name in executors.THREAD_VARIABLES}
    assert _thread_variables(0) == before


def test_a_blas_loaded_inside_the_cap_runs_one_thread_and_the_environment_is_restored():
    """threadpoolctl caps the libraries loaded when the cap starts; scipy's OpenBLAS is a library of its own, loaded on
    scipy's first use (a reference solve inside a sweep task or `fedrates run`): it must start with one thread too.
    In a fresh interpreter (scipy not loaded yet); the variables a user set are back after the cap."""
    import subprocess
    import sys

    code = "\n".join([
        "import json, os, sys",
        "import numpy",
        "from threadpoolctl import threadpool_info",
        "from fedrates.verify.executors import single_threaded",
        "assert 'scipy' not in sys.modules",
        "before = max(i['num_threads'] for i in threadpool_info())",
        "with single_threaded():",
        "    import scipy.linalg",
        "    inside = {i['filepath']: i['num_threads'] for i in threadpool_info()}",
        "print(json.dumps({'before': before, 'inside': inside, 'omp': os.environ.get('OMP_NUM_THREADS'),",
        "                  'openblas': os.environ.get('OPENBLAS_NUM_THREADS')}))",
    ])
    env = {k: v for k, v in os.environ.items() if k not in executors.THREAD_VARIABLES}
    env["OMP_NUM_THREADS"] = "2"  # a user's choice, restored after the cap
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    got = json.loads(done.stdout)
    if got["before"] < 2:
        pytest.skip("this machine's BLAS runs one thread by default: a cap of one cannot be told from no cap")
    assert len(got["inside"]) >= 2  # numpy's BLAS and the one loaded inside
    assert set(got["inside"].values()) == {1}
    assert got["omp"] == "2" and got["openblas"] is None


def test_records_are_bit_identical_with_one_job_and_with_two():
    """A serial sweep computes in this process, whose BLAS would otherwise use every core: these claims' matrix-vector
    products then sum in another order (differences of 1e-15 with two threads, seen on two cores)."""
    claims = registry.select("bylinkin.thm6/explicit-rate")
    serial = run_claims(claims, "quick", None, jobs=1)
    pooled = run_claims(claims, "quick", None, jobs=2)
    assert not serial.errors and not pooled.errors
    a, b = _sorted(serial.records), _sorted(pooled.records)
    for cid in a:
        pd.testing.assert_frame_equal(a[cid], b[cid], check_exact=True)


def test_bad_executor_and_scheduler_are_input_errors():
    with pytest.raises(InputError, match="executor 'spark'"):
        executors.make("spark")
    with pytest.raises(InputError, match="--scheduler"):
        executors.make("local", "tcp://127.0.0.1:8786")
