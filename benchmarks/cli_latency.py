"""Benchmark: time to build every problem preset, and the latency of cached command-line invocations.

Part 1 builds each preset of each family of the problems registry in a fresh interpreter (the time of
``problems.make`` after the imports; best of ``--repeats``; target ≤ 0.5 s).  For the Lasso presets the previous
generator (numpy's one-shot transposed copies around the AR(1) recursion) is timed in the same process as the
baseline, and the data of both are checked to be bit-identical.

Part 2 runs each command of :data:`COMMANDS` once to warm the caches (reference, constants, theorem listing), then
``--repeats`` times in fresh processes, and prints the median wall-clock time and CPU time (user + sys of the child;
the robust number on a loaded machine) against the 1-s target, next to the bare interpreter and ``import numpy``.

    python benchmarks/cli_latency.py [--repeats 3] [--skip-commands] [--skip-presets]
"""

from __future__ import annotations

import argparse
import json
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
    ["list", "theorems"],
    ["reference", "lasso", "--preset", "bao-lasso", "--json"],
    ["reference", "trace", "--preset", "bao-trace", "--json"],
    ["reference", "quadratic", "--preset", "das-quadratic", "--json"],
    ["constants", "bao-lasso", "--json"],
    ["constants", "bao-trace", "--json"],
    ["constants", "das-quadratic", "--json"],
    ["constants", "quadratic", "--preset", "similar-quadratic", "--json"],
    ["explore", "bao.thm2.1", "--exponent", "T"],
)

#: one preset build in a fresh interpreter: prints JSON {"new": s, "cpu": s, "old": s or null, "same": bool or null}
_BUILD = r"""
import json, sys, time
import numpy as np
from fedrates.solvers import problems
family, preset = sys.argv[1], sys.argv[2]

def previous_lasso(params):
    # the generator before the blocked transposes: recursion on numpy's transposed copy, shift added after
    K, n, p = params["clients"], params["samples"], params["dim"]
    data_rng, shift_rng = (np.random.default_rng(s) for s in np.random.SeedSequence(params["seed"]).spawn(2))
    truth = np.zeros(p)
    truth[: params["sparsity"]] = params["signal"]
    c = params["correlation"]
    idx = np.arange(p)
    cov = c ** np.abs(idx[:, None] - idx[None, :])
    deltas = params["heterogeneity"] * shift_rng.standard_normal((K, p))
    z = np.moveaxis(data_rng.standard_normal((K, n, p)), -1, 0).copy()
    scale = np.sqrt(1.0 - c**2)
    for j in range(1, p):
        z[j] *= scale
        z[j] += c * z[j - 1]
    X = deltas[:, None, :] + np.moveaxis(z, 0, -1)
    y = X @ truth + params["noise"] * data_rng.standard_normal((K, n))
    return X, y, cov

out = {"new": None, "cpu": None, "old": None, "same": None}
if sys.argv[3] == "previous":  # the baseline, in its own fresh process; then the check of bit-identical data
    from fedrates.solvers.problems._params import resolve
    params = resolve(problems.family(family), preset, {})
    start, cpu = time.perf_counter(), time.process_time()
    X, y, _ = previous_lasso(params)
    out["old"], out["cpu"] = time.perf_counter() - start, time.process_time() - cpu
    problem = problems.make(family, preset)
    out["same"] = bool(np.array_equal(X, problem.datafit.X) and np.array_equal(y, problem.datafit.y))
else:
    start, cpu = time.perf_counter(), time.process_time()
    problems.make(family, preset)
    out["new"], out["cpu"] = time.perf_counter() - start, time.process_time() - cpu
print(json.dumps(out))
"""


def _load() -> str:
    return "load " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def presets(repeats: int) -> None:
    from fedrates.solvers import problems

    print(f"preset build time in a fresh process (best of {repeats}; target <= {PRESET_TARGET} s); {_load()}")
    for family in problems.names():
        for preset in problems.presets(family):
            baseline = family == "lasso" and problems.family(family).presets[preset].get("sampling") != "population"
            runs, olds = [], []
            for _ in range(repeats):  # alternate the two generators, each in a fresh process
                runs.append(_build(family, preset, "current"))
                if baseline:
                    olds.append(_build(family, preset, "previous"))
            best = min(runs, key=lambda r: r["new"])
            flag = "ok" if best["new"] <= PRESET_TARGET else "SLOW"
            line = f"  {family:<18} {preset:<22} {best['new']:7.3f} s (cpu {best['cpu']:.3f} s)  {flag}"
            if olds:
                old = min(olds, key=lambda r: r["old"])
                line += f"   previous generator {old['old']:.3f} s (cpu {old['cpu']:.3f} s), ratio " \
                        f"{old['old'] / best['new']:.1f}x; bit-identical data: {all(r['same'] for r in olds)}"
            print(line)


def _build(family: str, preset: str, which: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", _BUILD, family, preset, which], capture_output=True, text=True,
                          check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(command: list[str], env: dict, repeats: int) -> tuple[float, float]:
    walls, cpus = [], []
    for _ in range(repeats):
        start, cpu = time.perf_counter(), _cpu()
        subprocess.run(command, capture_output=True, env=env, check=True)
        walls.append(time.perf_counter() - start)
        cpus.append(_cpu() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def commands(repeats: int) -> None:
    exe = [sys.executable, "-m", "fedrates"]
    env = dict(os.environ)
    env.setdefault("FEDRATES_CACHE", os.path.join(tempfile.gettempdir(), "fedrates-bench-cache"))
    print(f"cached commands (median of {repeats} fresh processes after one warm-up run; target <= {COMMAND_TARGET} s)"
          f"; {_load()}")
    print(f"  {'command':<62} {'wall':>7} {'cpu':>7}")
    for label, command in (("python -c pass", [sys.executable, "-c", "pass"]),
                           ("python -c 'import numpy'", [sys.executable, "-c", "import numpy"])):
        wall, cpu = _timed(command, env, repeats)
        print(f"  {label:<62} {wall:6.2f}s {cpu:6.2f}s  (baseline)")
    for args in COMMANDS:
        subprocess.run([*exe, *args], capture_output=True, env=env, check=True)
        wall, cpu = _timed([*exe, *args], env, repeats)
        flag = "ok" if wall <= COMMAND_TARGET else ("ok (cpu; wall is load)" if cpu <= COMMAND_TARGET else "SLOW")
        print(f"  fedrates {' '.join(args):<53} {wall:6.2f}s {cpu:6.2f}s  {flag}")
    print(f"  {_load()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--skip-commands", action="store_true")
    parser.add_argument("--skip-presets", action="store_true")
    args = parser.parse_args()
    if not args.skip_presets:
        presets(args.repeats)
    if not args.skip_commands:
        commands(args.repeats)


if __name__ == "__main__":
    main()
