"""Latency of bad-argument refusals: every one must be a single line, exit 2, within 0.5 s of process start.

Runs the installed ``fedrates`` entry point in a fresh process for each bad command line below (the same cases as the
start of ``tests/cli/test_bad_input.py``), best of ``--repeat`` runs, and prints the wall time of each, the slowest,
and the interpreter's bare start-up time for comparison (``python -c pass``), with the load average.
Usage: ``python benchmarks/refusals.py [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

CASES = [
    ["run", "fedavg", "--problem", "quadratic", "--seed", "-1"],
    ["run", "fedavg", "--problem", "quadratic", "--set", "clients=inf"],
    ["run", "fedavg", "--problem", "quadratic", "--set", "dim=1000000000"],
    ["run", "fedavg", "--problem", "quadratic", "--rounds", "0"],
    ["run", "fedavg", "--problem", "quadratic", "--out", "/nonexistent/x.parquet"],
    ["reference", "lasso", "--preset", "bao-lasso", "--tol", "0"],
    ["verify", "--jobs", "99999999999999999999"],
    ["verify", "--seed", "-1"],
    ["explore", "bao.thm2.1", "--solve", "T", "--target", "1", "--range", "0", "10"],
    ["explore", "bao.thm2.1", "--set", "mu=-1"],
]


def _time(command: list[str], repeat: int) -> tuple[float, subprocess.CompletedProcess]:
    best, proc = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        proc = subprocess.run(command, capture_output=True, text=True, timeout=120)
        best = min(best, time.perf_counter() - start)
    return best, proc


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    script = Path(sys.executable).with_name("fedrates")
    entry = [str(script)] if script.is_file() else [sys.executable, "-m", "fedrates.verify"]
    print(f"load {os.getloadavg()[0]:.1f}")
    bare, _ = _time([sys.executable, "-c", "pass"], args.repeat)
    print(f"{bare:6.2f} s  python -c pass")
    worst = 0.0
    for case in CASES:
        seconds, proc = _time([*entry, *case], args.repeat)
        worst = max(worst, seconds)
        ok = proc.returncode == 2 and len(proc.stderr.splitlines()) == 1
        print(f"{seconds:6.2f} s  {'ok ' if ok else 'BAD'} {' '.join(case)}")
    print(f"slowest refusal {worst:.2f} s (target <= 0.5 s: {'met' if worst <= 0.5 else 'NOT met'}); "
          f"load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
