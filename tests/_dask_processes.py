"""A Dask scheduler (and workers) in processes of their own, for the Dask tests: nothing of the cluster shares the
test process's threads or event loops, so a test does not depend on what earlier tests left in its process."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest


def free_port() -> int:
    """A TCP port of 127.0.0.1 that nothing listens on (now)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spawn(args: list[str], log: Path, env: dict) -> subprocess.Popen:
    """``args`` in a new session (so that :func:`kill` ends its whole group), output to ``log``."""
    return subprocess.Popen(args, stdout=log.open("wb"), stderr=subprocess.STDOUT, env=env, start_new_session=True)


def kill(proc: subprocess.Popen) -> None:
    """SIGKILL the process group of ``proc`` (if it still runs) and reap it."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)


def start_scheduler(log: Path, env: dict, within: float = 60.0) -> tuple[str, subprocess.Popen]:
    """(address, process) of a ``dask scheduler`` on 127.0.0.1, once it accepts connections (fails the test with
    its log if it has not within ``within`` seconds)."""
    port = free_port()
    proc = spawn([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", str(port),
                  "--no-dashboard"], log, env)
    deadline = time.monotonic() + within
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return f"tcp://127.0.0.1:{port}", proc
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                kill(proc)
                pytest.fail(f"dask scheduler did not start: {log.read_text()[-2000:]}")
            time.sleep(0.3)


def start_worker(address: str, log: Path, env: dict) -> subprocess.Popen:
    """One single-threaded ``dask worker`` (no nanny) of the scheduler at ``address``."""
    return spawn([sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1", "--nworkers", "1",
                  "--no-nanny", "--no-dashboard"], log, env)
