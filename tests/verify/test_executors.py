"""Sweep executors: the Dask executor (2-worker LocalCluster) gives the records and verdicts of the local one;
every sweep task runs with one BLAS thread, so records do not depend on --jobs."""

from __future__ import annotations

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


def test_local_pool_tasks_run_with_one_blas_thread():
    with executors.local(2) as pool:
        got = pool.submit(_blas_threads_now, 0).result()
    assert got == 1


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
