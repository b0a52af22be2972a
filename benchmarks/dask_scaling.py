"""The standard profile on a Dask ``LocalCluster`` with 1 and 2 workers: wall times and speedup (target ≥ 1.6×).

    python benchmarks/dask_scaling.py [--only 'PATTERN'] [--profile standard] [--workers 1,2] [--no-warmup]

For every worker count N a ``distributed.LocalCluster`` of N single-threaded worker processes is started (its
start-up is not timed) and ``fedrates verify --profile P --executor dask --scheduler ADDRESS`` runs against it with
a fresh ``--out`` directory, so no sweep result is reused; the wall time of that command is the measurement.  A
warm-up run first fills the on-disk reference and constants caches and the compiled-kernel cache (as on any machine
after its first run), so that neither timed run pays for them alone (``--no-warmup`` skips it).  ``--only`` restricts
the claims (default: all), e.g. ``--only 'das.*'`` on a busy machine.  The load average is printed before and after:
on a shared machine only runs at a low load measure the speedup.

What spreads over the workers: every (claim, sweep point) is one task whose seeds run together in the worker, so
the points of all claims are independent tasks (as many in flight as workers).  What stays serial: each claim's
judging and the reports, run in the client process after the sweep, and a claim with a single point (one task).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min)"


def fedrates_cli() -> list[str]:
    exe = Path(sys.executable).with_name("fedrates")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "fedrates"]


def verify_once(workers: int, profile: str, only: str | None, env: dict[str, str]) -> tuple[float, int, str]:
    """Wall time, exit code and last output line of one verify run on a fresh LocalCluster of ``workers``."""
    import distributed

    out = tempfile.mkdtemp(prefix=f"fedrates-dask-{workers}-")
    try:
        with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                      dashboard_address=None) as cluster:
            cmd = fedrates_cli() + ["verify", "--profile", profile, "--executor", "dask", "--scheduler",
                                    cluster.scheduler_address, "--jobs", str(workers), "--out", out, "--no-cache"]
            if only:
                cmd += ["--only", only]
            t0 = time.perf_counter()
            proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
            wall = time.perf_counter() - t0
        lines = [line for line in (proc.stdout + proc.stderr).splitlines() if line.strip()]
        return wall, proc.returncode, lines[-1] if lines else ""
    finally:
        shutil.rmtree(out, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--profile", default="standard")
    ap.add_argument("--only", default=None, help="claim id pattern (default: every claim)")
    ap.add_argument("--workers", default="1,2", help="comma-separated worker counts (default 1,2)")
    ap.add_argument("--no-warmup", action="store_true")
    args = ap.parse_args()
    counts = [int(x) for x in args.workers.split(",")]
    env = {**os.environ, "MPLBACKEND": "Agg"}
    print(f"fedrates verify --profile {args.profile} --only {args.only or '(all claims)'} on a Dask LocalCluster; "
          f"{os.cpu_count()} cpus; {load()}")
    if not args.no_warmup:
        wall, code, last = verify_once(max(counts), args.profile, args.only, env)
        print(f"  warm-up ({max(counts)} workers): {wall:.1f} s (exit {code}) {last[:100]}")
    walls = {}
    for n in counts:
        wall, code, last = verify_once(n, args.profile, args.only, env)
        walls[n] = wall
        print(f"  {n} worker{'s' if n > 1 else ''}: {wall:.1f} s wall (exit {code}) {last[:100]}")
    base = walls[counts[0]]
    for n in counts[1:]:
        speedup = base / walls[n]
        target = " (target >= 1.6x: " + ("met" if speedup >= 1.6 else "NOT met") + ")" if n == 2 else ""
        print(f"  speedup {counts[0]} -> {n} workers: {speedup:.2f}x{target}")
    print(f"  {load()}")


if __name__ == "__main__":
    main()
