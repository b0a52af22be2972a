"""Wall and CPU time of ``fedrates verify`` as a user waits for it, against the floor the claims' own computation sets.

Targets: ``--profile quick`` in at most 20 s and ``--profile standard`` in at most 60 s of wall time on 2 idle
cores (``--jobs 2``, a fresh ``--out``, warm kernels and reference caches).  Each run is a fresh interpreter typing
what a user types; its CPU time is user + system time of the command and its worker processes.

Baseline, measured in the same run: the **floor** = the claims' own compute (CPU seconds of their simulations, from
the run's ``timings.json``) divided by ``--jobs``, the wall time no scheduling of these sample sizes can beat on
that many cores; the same command with ``--no-report`` shows what judging, drawing and writing the reports add.

    python benchmarks/verify_wall.py [--profile quick] [--profile standard] [--jobs 2] [--repeat 1] [--warm-up]

``--warm-up`` runs each profile once, untimed, first (compiles the kernels and fills the reference and constants
caches as a first run on a machine does).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: the command, as a user types ``fedrates verify ...``
_COMMAND = "import sys; from fedrates.verify.cli import main; sys.exit(main(sys.argv[1:]))"

#: wall-time targets of the profiles on 2 idle cores, seconds
TARGETS = {"quick": 20.0, "standard": 60.0}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def verify_once(profile: str, jobs: int, report: bool) -> dict[str, float]:
    """One ``fedrates verify`` into a new folder: wall and CPU seconds, and the run's own timings."""
    with tempfile.TemporaryDirectory(prefix="fedrates-wall-") as folder:
        out = Path(folder) / "run"
        argv = [sys.executable, "-c", _COMMAND, "verify", "--profile", profile, "--jobs", str(jobs),
                "--out", str(out)] + ([] if report else ["--no-report"])
        cpu0, wall0 = _children_cpu(), time.perf_counter()
        done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        wall, cpu = time.perf_counter() - wall0, _children_cpu() - cpu0
        if done.returncode not in (0, 1):  # 1: a claim failed verification, still a complete run
            raise SystemExit(f"fedrates verify --profile {profile} exited {done.returncode}: "
                             f"{done.stderr.strip().splitlines()[-1:]}")
        timings = json.loads((out / "timings.json").read_text())
    return {"wall": wall, "cpu": cpu, "compute": float(timings["claim_compute_cpu_seconds_total"]),
            "main": float(timings["main_process_cpu_seconds"])}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", action="append", choices=sorted(TARGETS),
                        help="profile to time (repeatable; default quick)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=1, help="runs of each variant; the best wall time is kept")
    parser.add_argument("--warm-up", action="store_true", help="one untimed run of each profile first")
    args = parser.parse_args(argv)
    if args.jobs < 1 or args.repeat < 1:
        parser.error(f"--jobs {args.jobs} and --repeat {args.repeat}: expected integers >= 1")
    profiles = args.profile or ["quick"]
    load = os.getloadavg()[0]  # before the runs: afterwards it counts their own workers
    print(f"fedrates verify, --jobs {args.jobs}, {os.cpu_count()} cores, load before the runs {load:.1f}"
          + ("  (other work is running: these are not idle-machine times)" if load > 1.0 else ""))
    for profile in profiles:
        if args.warm_up:
            verify_once(profile, args.jobs, report=False)
        runs = {variant: min((verify_once(profile, args.jobs, report=variant == "report")
                              for _ in range(args.repeat)), key=lambda r: r["wall"])
                for variant in ("report", "no-report")}
        full, bare = runs["report"], runs["no-report"]
        floor = full["compute"] / args.jobs
        target = TARGETS[profile]
        verdict = "met" if full["wall"] <= target else "NOT met"
        print(f"--profile {profile}:")
        print(f"  with the report: {full['wall']:.1f} s wall, {full['cpu']:.0f} s CPU (claims' compute "
              f"{full['compute']:.1f} s, main process {full['main']:.1f} s)")
        print(f"  --no-report:     {bare['wall']:.1f} s wall, {bare['cpu']:.0f} s CPU (claims' compute "
              f"{bare['compute']:.1f} s, main process {bare['main']:.1f} s)")
        print(f"  floor (claims' compute / {args.jobs} cores): {floor:.1f} s; the report adds "
              f"{full['wall'] - bare['wall']:.1f} s of wall and {full['cpu'] - bare['cpu']:.0f} s of CPU")
        print(f"  target <= {target:.0f} s wall: {verdict} ({full['wall']:.1f} s, {full['wall'] / target:.2f}x the "
              f"target; the floor alone is {floor / target:.2f}x it)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
