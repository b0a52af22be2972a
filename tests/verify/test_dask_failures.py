"""Dask failures end in one line, exit 2, and keep what finished: a malformed, empty, non-Dask or unreachable
``--scheduler`` is refused before anything is written (no empty output directory); a cluster without workers is
waited for a bounded time; a scheduler or workers lost mid-run fail the unfinished points with the reason and the
run ends in one line (finished points stay in the sweep cache)."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import threading
import time
import warnings
from concurrent.futures import ThreadPoolExecutor

import pytest
from _dask_processes import free_port, kill, start_scheduler

from fedrates.solvers.errors import InputError
from fedrates.verify import executors

pytest.importorskip("distributed", reason="distributed is not installed (pip install 'fedrates[dask]')")


@pytest.mark.parametrize("address,needle", [
    ("", "is empty"),
    ("  ", "is empty"),
    ("not an address", "is not a Dask address"),
    ("http://127.0.0.1:8786", "is not a Dask address (scheme 'http')"),
    ("127.0.0.1:8786", "is not a Dask address"),
    ("tcp://", "is not a Dask address"),
])
def test_malformed_addresses_are_refused_before_connecting(address, needle):
    with pytest.raises(InputError, match="--scheduler") as info:
        executors.make("dask", address)
    assert needle in str(info.value) and "\n" not in str(info.value)


@pytest.fixture
def short_connect(monkeypatch):
    """A 1 s connect timeout instead of 10 s: nobody listens at a free port, so the refusal is the same, sooner."""
    monkeypatch.setattr(executors.connect, "__defaults__", (1.0,))


def test_unreachable_scheduler_is_one_line(short_connect):
    with pytest.raises(InputError, match="no Dask scheduler answered there") as info:
        executors.make("dask", f"tcp://127.0.0.1:{free_port()}")
    assert "\n" not in str(info.value)


def test_a_service_that_is_not_dask_is_one_line():
    """A server that answers with bytes no Dask scheduler sends (a frame length of 2**64 - 1)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    stop = threading.Event()

    def serve():
        server.settimeout(0.2)
        conns = []
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            conns.append(conn)
            try:
                conn.sendall(b"\xff" * 64 + b"SSH-2.0-OpenSSH_9.6\r\n")
            except OSError:
                pass
        for conn in conns:
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        with pytest.raises(InputError, match="no Dask scheduler answered there") as info:
            executors.connect(f"tcp://127.0.0.1:{server.getsockname()[1]}", timeout=3)
        assert "\n" not in str(info.value)
    finally:
        stop.set()
        thread.join(5)
        server.close()


def test_verify_refuses_a_bad_scheduler_before_creating_the_output_directory(tmp_path, capsys, short_connect):
    from fedrates.verify.cli import main

    for address in ("", "not an address", f"tcp://127.0.0.1:{free_port()}"):
        out = tmp_path / "fedrates-out"
        code = main(["verify", "--executor", "dask", "--scheduler", address, "--out", str(out)])
        err = capsys.readouterr().err
        assert code == 2 and len(err.splitlines()) == 1 and "--scheduler" in err and "Traceback" not in err
        assert not out.exists()


def test_a_scheduler_without_workers_is_waited_for_a_bounded_time(tmp_path):
    """``fedrates verify`` on a scheduler that no worker joins: one line, exit 2, after FEDRATES_DASK_WAIT seconds.
    The scheduler and the run are processes of their own (an in-process cluster would start its event loop in this
    test process, beside whatever earlier tests left there)."""
    env = {**os.environ, "FEDRATES_CACHE": str(tmp_path / "user-cache"), "FEDRATES_DASK_WAIT": "0.5",
           "MPLBACKEND": "Agg"}
    address, scheduler = start_scheduler(tmp_path / "scheduler.log", env)
    try:
        run = subprocess.run([sys.executable, "-m", "fedrates", "verify", "--profile", "quick", "--only",
                              "bao.thm2.1/*", "--executor", "dask", "--scheduler", address,
                              "--out", str(tmp_path / "out")],
                             capture_output=True, text=True, env=env, timeout=300)
    finally:
        kill(scheduler)
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    assert run.returncode == 2, run.stderr[-2000:]
    assert len(lines) == 1 and "Traceback" not in run.stderr, run.stderr[-2000:]
    assert re.search(r"no Dask worker joined the scheduler at tcp://127\.0\.0\.1:\d+ within 0\.5 s; start workers "
                     r"with: dask worker tcp://", lines[0]), lines[0]


class _FakeClient:
    def __init__(self) -> None:
        self.status = "running"
        self.workers = {"w": {}}

    def scheduler_info(self):
        return {"workers": self.workers}


@pytest.mark.parametrize("loss", ["scheduler", "workers"])
def test_lost_cluster_fails_the_unfinished_tasks_with_the_reason(loss):
    client = _FakeClient()
    release = threading.Event()
    with ThreadPoolExecutor(2) as inner:
        pool = executors._Watched(inner, client, wait=0.2, where="tcp://h:1")
        try:
            done = pool.submit(int, "7")
            stuck = pool.submit(release.wait, 60)
            assert done.result(timeout=30) == 7
            if loss == "scheduler":
                client.status = "closed"
            else:
                client.workers = {}
            with pytest.raises(RuntimeError) as info:
                stuck.result(timeout=60)  # bounded: the watch fails it once the loss has lasted 0.2 s
        finally:
            pool.close()
            release.set()
    expected = "is gone" if loss == "scheduler" else "no Dask worker is left"
    assert expected in str(info.value) and "finished points are cached" in str(info.value)
    assert pool.failure == str(info.value) and done.result() == 7


def test_a_healthy_cluster_is_left_alone():
    client = _FakeClient()
    with ThreadPoolExecutor(1) as inner:
        pool = executors._Watched(inner, client, wait=0.0, where="tcp://h:1")
        try:
            future = pool.submit(time.sleep, 1.0)  # the watch looks twice meanwhile
            assert future.result(timeout=60) is None
        finally:
            pool.close()
    assert pool.failure is None


class _FakeLocalCluster:
    """Stands for ``distributed.LocalCluster``: the first ``failures`` clusters fail to start as distributed's
    event-loop start does on a busy machine (an AssertionError after its 10 s wait)."""

    failures = 0
    started: list[_FakeLocalCluster] = []
    closed = 0

    def __init__(self, **kwargs) -> None:
        type(self).started.append(self)
        warnings.warn("Port 8787 is already in use.\nPerhaps you already have a cluster running?", UserWarning,
                      stacklevel=2)  # as distributed's scheduler says when another cluster has its HTTP port
        if len(type(self).started) <= type(self).failures:
            raise AssertionError
        self.kwargs = kwargs

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        type(self).closed += 1


class _FakeLocalClient(_FakeClient):
    def __init__(self, cluster) -> None:
        super().__init__()
        self.cluster = cluster

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        pass

    def get_executor(self, pure: bool):
        return ThreadPoolExecutor(1)


@pytest.fixture
def fake_local_cluster(monkeypatch):
    import distributed

    monkeypatch.setattr(_FakeLocalCluster, "started", [])
    monkeypatch.setattr(_FakeLocalCluster, "closed", 0)
    monkeypatch.setattr(distributed, "LocalCluster", _FakeLocalCluster)
    monkeypatch.setattr(distributed, "Client", _FakeLocalClient)
    return _FakeLocalCluster


def test_a_local_cluster_that_fails_to_start_once_is_started_again(fake_local_cluster, monkeypatch):
    monkeypatch.setattr(fake_local_cluster, "failures", 1)
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        with executors.make("dask")(2) as pool:
            assert pool.submit(int, "7").result(timeout=30) == 7
    assert not [str(w.message) for w in shown]  # distributed's port warning is not the user's business
    assert len(fake_local_cluster.started) == 2 and fake_local_cluster.started[1].kwargs["n_workers"] == 2
    assert fake_local_cluster.closed == 1  # the cluster that started, closed with the run


def test_a_local_cluster_that_never_starts_is_one_line(fake_local_cluster, monkeypatch):
    monkeypatch.setattr(fake_local_cluster, "failures", 99)
    with pytest.raises(InputError, match=r"the local Dask cluster of 2 worker\(s\) did not start \(AssertionError\) "
                                         r"after 2 attempts; try again, use --executor local") as info:
        with executors.make("dask")(2):
            pass
    assert len(fake_local_cluster.started) == executors.LOCAL_CLUSTER_ATTEMPTS == 2 and "\n" not in str(info.value)
