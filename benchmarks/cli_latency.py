"""Benchmark: time to build every problem preset, and the latency of cached command-line invocations.

Part 1 builds each preset of each family in-process (best of ``--repeats``; target ≤ 0.5 s). Part 2 runs each command
of :data:`COMMANDS` once to warm the reference cache, then ``--repeats`` times, and prints the median wall-clock time
and CPU time (user + sys of the child; the robust number on a loaded machine) against the 1-s target.

    python benchmarks/cli_latency.py [--repeats 3] [--skip-commands]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

PRESET_TARGET = 0.5
COMMAND_TARGET = 1.0

COMMANDS = (
    ["--version"],
    ["list", "claims"],
    ["reference", "lasso", "--preset", "bao-lasso", "--json"],
    ["reference", "trace", "--preset", "bao-trace", "--json"],
    ["reference", "quadratic", "--preset", "das-quadratic", "--json"],
    ["constants", "quadratic", "--preset", "similar-quadratic", "--json"],
    ["explore", "bao.thm2.1", "--exponent", "T"],
)


def presets(repeats: int) -> None:
    from fedrates.solvers import problems

    print(f"preset build time (best of {repeats}; target <= {PRESET_TARGET} s)")
    for family in problems.names():
        for preset in problems.presets(family):
            times = []
            for _ in range(repeats):
                start = time.perf_counter()
                problems.make(family, preset)
                times.append(time.perf_counter() - start)
            flag = "ok" if min(times) <= PRESET_TARGET else "SLOW"
            print(f"  {family:<10} {preset:<22} {min(times):7.3f} s  {flag}")


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def commands(repeats: int) -> None:
    exe = [sys.executable, "-m", "fedrates"]
    env = dict(os.environ)
    env.setdefault("FEDRATES_CACHE", os.path.join(tempfile.gettempdir(), "fedrates-bench-cache"))
    print(f"cached commands (median of {repeats} after one warm-up run; target <= {COMMAND_TARGET} s)")
    print(f"  {'command':<58} {'wall':>8} {'cpu':>8}")
    for args in COMMANDS:
        subprocess.run([*exe, *args], capture_output=True, env=env, check=True)
        walls, cpus = [], []
        for _ in range(repeats):
            start, cpu = time.perf_counter(), _cpu()
            subprocess.run([*exe, *args], capture_output=True, env=env, check=True)
            walls.append(time.perf_counter() - start)
            cpus.append(_cpu() - cpu)
        wall, cpu = statistics.median(walls), statistics.median(cpus)
        flag = "ok" if min(wall, cpu) <= COMMAND_TARGET else "SLOW"
        print(f"  fedrates {' '.join(args):<49} {wall:7.2f}s {cpu:7.2f}s  {flag}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--skip-commands", action="store_true")
    args = parser.parse_args()
    presets(args.repeats)
    if not args.skip_commands:
        commands(args.repeats)


if __name__ == "__main__":
    main()
