"""``fedrates run`` with the machine's other cores busy, against the same command on an idle machine.

Target: the command's CPU time with a busy second core within 1.3x of its CPU time on an idle machine.  The
command builds its problem, solves and certifies the reference and runs the algorithm with one BLAS thread
(``threadpoolctl``); the baseline measured in the same run is the same work done through the library with the
BLAS's default threads (what ``fedrates run`` did before the cap): on a shared machine a second BLAS thread spins
against the busy core and costs far more CPU than it saves.

Every measurement is a fresh interpreter with an empty reference and constants cache (``FEDRATES_CACHE`` and
``XDG_CACHE_HOME`` pointed at a new folder), so the problem is built and its reference solved, as a first run does.
The busy cores are pure-Python spin loops in other processes, one per core but one.  Idle and busy measurements
alternate; the best of ``--repeat`` of each is kept.  CPU time is user + system time of the child process.

    python benchmarks/run_busy_core.py [--repeat 3] [--clients 100] [--dim 100] [--algorithm fedavg]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator

#: the command, as a user types ``fedrates run ...``
_COMMAND = "import sys; from fedrates.verify.cli import main; sys.exit(main(sys.argv[1:]))"

#: the same work through the library, BLAS threads left at their default (the baseline)
_LIBRARY = r"""
import sys
from fedrates.solvers import algorithms, problems
algorithm, clients, dim, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
problem = problems.make("quadratic", clients=clients, dim=dim, sigma=1.0)
algorithms.run_batch(algorithms.make(algorithm), problem, rounds, seeds=[0])
"""

_SPIN = "while True:\n    pass\n"


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(argv: list[str]) -> tuple[float, float]:
    """(wall, CPU) seconds of ``argv`` in a fresh process with empty caches."""
    with tempfile.TemporaryDirectory(prefix="fedrates-busy-") as cache:
        env = dict(os.environ, FEDRATES_CACHE=cache, XDG_CACHE_HOME=cache)
        cpu0, wall0 = _child_cpu(), time.perf_counter()
        subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL)
        return time.perf_counter() - wall0, _child_cpu() - cpu0


@contextlib.contextmanager
def busy(cores: int) -> Iterator[None]:
    """``cores`` spin loops running for the duration of the block."""
    spinners = [subprocess.Popen([sys.executable, "-c", _SPIN]) for _ in range(cores)]
    try:
        time.sleep(0.3)  # let them reach their loop
        yield
    finally:
        for p in spinners:
            p.kill()
        for p in spinners:
            p.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--dim", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--algorithm", default="fedavg")
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    if cores < 2:
        sys.exit("run_busy_core.py: needs at least 2 cores (one to keep busy)")
    command = [sys.executable, "-c", _COMMAND, "run", args.algorithm, "--problem", "quadratic", "--set",
               f"clients={args.clients}", f"dim={args.dim}", "sigma=1.0", "--rounds", str(args.rounds)]
    library = [sys.executable, "-c", _LIBRARY, args.algorithm, str(args.clients), str(args.dim), str(args.rounds)]
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {cores} cpus; busy = {cores - 1} spin "
          f"loop(s); fedrates run {args.algorithm} on quadratic K = {args.clients}, d = {args.dim}, "
          f"sigma = 1, {args.rounds} rounds, empty caches")
    measure(command)  # warm the file system cache and compiled kernels
    best: dict[tuple[str, str], tuple[float, float]] = {}
    for _ in range(args.repeat):
        for state in ("idle", "busy"):
            with busy(cores - 1) if state == "busy" else contextlib.nullcontext():
                for name, argv in (("command", command), ("library", library)):
                    wall, cpu = measure(argv)
                    old = best.get((name, state))
                    if old is None or cpu < old[1]:
                        best[name, state] = (wall, cpu)
    for name, label in (("command", "fedrates run (one BLAS thread)"),
                        ("library", "baseline: the same work, default BLAS threads")):
        (wi, ci), (wb, cb) = best[name, "idle"], best[name, "busy"]
        line = (f"{label}: idle {ci:.2f} s CPU ({wi:.2f} s wall), other cores busy {cb:.2f} s CPU ({wb:.2f} s "
                f"wall) -> {cb / ci:.2f}x")
        if name == "command":
            line += f" (target <= 1.3x: {'met' if cb <= 1.3 * ci else 'NOT met'})"
        print(line)
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
