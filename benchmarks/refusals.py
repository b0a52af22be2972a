"""Latency of bad-argument refusals: every one must be a single line, exit 2, within 0.5 s of process start.

Runs the installed ``fedrates`` entry point in a fresh process for each bad command line below (the same cases as the
start of ``tests/cli/test_bad_input.py``), best of ``--repeat`` runs, and prints the wall time of each, the slowest,
and the interpreter's bare start-up time for comparison (``python -c pass``), with the load average.  One successful
``fedrates explore`` and one ``fedrates list claims`` run first, as on any installation that has answered once: they
store the theorem symbol table that ``explore`` refusals read instead of importing sympy, and the claim ids that
``verify --only`` refusals read instead of importing every claims module (the first such refusal on a fresh cache
takes 0.5-0.8 s); and one evaluated ``falsify --point``, which stores the search boxes that ``--point`` refusals are
checked against before the targets are imported (about 0.9 s without them).
Usage: ``python benchmarks/refusals.py [--repeat 3] [--all]``; ``--all`` times every case of the bad-input table.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from statistics import median

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


def _table() -> tuple[list[list[str]], str]:
    """Every argv of the bad-input table, with the run directories its report cases read, in a temporary directory."""
    import importlib.util
    import tempfile

    path = Path(__file__).resolve().parent.parent / "tests" / "cli" / "test_bad_input.py"
    spec = importlib.util.spec_from_file_location("_bad_input_table", path)
    table = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(table)
    tmp = Path(tempfile.mkdtemp(prefix="fedrates-refusals-"))
    (tmp / "d.parquet").mkdir()
    table._report_dirs(tmp)
    return [[a.replace("{tmp}", str(tmp)) for a in c[1]] for c in table.CASES], str(tmp)


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _time(command: list[str], repeat: int, cwd: str | None = None) -> tuple[float, float, subprocess.CompletedProcess]:
    """(best wall, best CPU (user + sys of the child: the robust number on a loaded machine), last process)."""
    best, best_cpu, proc = float("inf"), float("inf"), None
    for _ in range(repeat):
        start, cpu = time.perf_counter(), _cpu()
        proc = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=cwd)
        best, best_cpu = min(best, time.perf_counter() - start), min(best_cpu, _cpu() - cpu)
    return best, best_cpu, proc


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--all", action="store_true", help="every case of tests/cli/test_bad_input.py")
    args = parser.parse_args()
    cases, workdir = CASES, None
    if args.all:
        cases, workdir = _table()
    script = Path(sys.executable).with_name("fedrates")
    entry = [str(script)] if script.is_file() else [sys.executable, "-m", "fedrates.verify"]
    subprocess.run([*entry, "explore", "bao.thm2.1", "--exponent", "T"], capture_output=True, timeout=300, check=True)
    subprocess.run([*entry, "list", "claims"], capture_output=True, timeout=300, check=True)
    # one evaluated --point (2 seeds): it stores the search boxes that --point refusals are decided from
    point = {"mu": 0.5, "spread": 1.0, "sigma": 1.0, "radius": 2.0, "lam": 0.01, "dim": 4, "clients": 4, "E": 2,
             "a_factor": 1.0, "t_factor": 2.0}
    subprocess.run([*entry, "falsify", "bao.thm2.1.explicit", "--point", json.dumps(point), "--seeds", "1,2"],
                   capture_output=True, timeout=300, check=False)
    print(f"load {os.getloadavg()[0]:.1f}   (wall, cpu)")
    bare, bare_cpu, _ = _time([sys.executable, "-c", "pass"], args.repeat)
    print(f"{bare:6.2f} s {bare_cpu:5.2f} s  python -c pass")
    walls, cpus = [], []
    for case in cases:
        seconds, cpu, proc = _time([*entry, *case], args.repeat, workdir)
        walls.append(seconds)
        cpus.append(cpu)
        ok = proc.returncode == 2 and len(proc.stderr.splitlines()) == 1
        shown = " ".join(case).replace("\n", "\\n").replace("\x1b", "\\x1b")
        print(f"{seconds:6.2f} s {cpu:5.2f} s  {'ok ' if ok else 'BAD'} {shown[:100]}")
    verdict = "met" if max(walls) <= 0.5 else "NOT met"
    print(f"{len(cases)} refusals: slowest {max(walls):.2f} s wall, {max(cpus):.2f} s CPU; "
          f"median {median(walls):.2f} s wall; within 0.5 s: {sum(w <= 0.5 for w in walls)} (wall), "
          f"{sum(c <= 0.5 for c in cpus)} (CPU); target <= 0.5 s: {verdict}; load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
