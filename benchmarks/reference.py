"""Benchmark of the certified reference solver on the paper-size instances ``bao-lasso`` and ``bao-trace``.

For each instance prints: the time to form the Gram matrix Q̄ (done once per problem), the time of
``solvers.reference.solve`` (fast path, no cache) and its certified gap; then, unless ``--skip-cvxpy``, the baseline
cvxpy + Clarabel on the *direct* formulation (1/2N)‖Xw − y‖² + λR(w) on the stacked data (the way a user would
write it), its time, the certified gap of its point (our certificate), and the time ratio baseline / ours.

    python benchmarks/reference.py [--skip-cvxpy] [--only bao-lasso|bao-trace]
    python benchmarks/reference.py --fresh [--repeat 3]

``--fresh`` measures instead, each in a fresh interpreter, the targets cold bao-lasso ≤ 0.3 s and bao-trace ≤ 0.5 s
(``solve(problem, cache=False)`` including the Gram matrix, with BLAS capped at one thread as ``fedrates reference``
does, and uncapped as the baseline) and a warm cache hit ≤ 0.1 s beyond the imports (the hit itself, and with the
problem build), printing wall and CPU times and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import warnings

import numpy as np

from fedrates.solvers import problems, reference
from fedrates.solvers._reference_fast import inside_ball

INSTANCES = {"bao-lasso": "lasso", "bao-trace": "trace"}


def direct_cvxpy(problem) -> tuple[np.ndarray, float]:
    """Clarabel on the stacked direct formulation; returns (point, seconds including canonicalisation)."""
    import cvxpy as cp

    X = problem.datafit.X.reshape(-1, problem.dim)
    y = problem.datafit.y.reshape(-1)
    start = time.perf_counter()
    x = cp.Variable(problem.dim)
    loss = cp.sum_squares(X @ x - y) / (2 * X.shape[0])
    if problem.is_matrix:
        pen = problem.penalty.lam * cp.normNuc(cp.reshape(x, problem.shape, order="C"))
    else:
        pen = problem.penalty.lam * cp.norm1(x)
    constraints = [cp.norm(x, 2) <= problem.radius] if problem.radius is not None else []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        cp.Problem(cp.Minimize(loss + pen), constraints).solve(solver=cp.CLARABEL)
    seconds = time.perf_counter() - start
    return inside_ball(np.asarray(x.value, float), problem.radius).reshape(problem.shape), seconds


#: one timed step in a fresh interpreter; prints JSON with wall/CPU seconds of each phase
_FRESH = r"""
import json, sys, time
t0, c0 = time.perf_counter(), time.process_time()
from threadpoolctl import threadpool_limits
from fedrates.solvers import problems, reference
family, preset, mode, cap = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
limit = threadpool_limits(limits=1) if cap else None
t1, c1 = time.perf_counter(), time.process_time()
problem = problems.make(family, preset)
t2, c2 = time.perf_counter(), time.process_time()
ref = reference.solve(problem, cache=(mode == "warm"))
t3, c3 = time.perf_counter(), time.process_time()
print(json.dumps({"imports": t1 - t0, "build": t2 - t1, "solve": t3 - t2, "solve_cpu": c3 - c2,
                  "build_cpu": c2 - c1, "cached": ref.cached, "gap": ref.gap}))
"""
TARGETS = {"bao-lasso": 0.3, "bao-trace": 0.5}
WARM_TARGET = 0.1


def _fresh(family: str, preset: str, mode: str, cap: bool) -> dict:
    proc = subprocess.run([sys.executable, "-c", _FRESH, family, preset, mode, "1" if cap else "0"],
                          capture_output=True, text=True, check=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def fresh_timings(repeat: int) -> None:
    print(f"fresh processes, best of {repeat}; load {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    for preset, family in INSTANCES.items():
        for cap in (True, False):
            runs = [_fresh(family, preset, "cold", cap) for _ in range(repeat)]
            best = min(runs, key=lambda r: r["solve"])
            label = "1 BLAS thread" if cap else "default threads (baseline)"
            verdict = "met" if best["solve"] <= TARGETS[preset] else (
                "met in CPU time" if best["solve_cpu"] <= TARGETS[preset] else "NOT met")
            print(f"  {preset} cold (Gram + solve), {label}: {best['solve']:.3f} s wall, {best['solve_cpu']:.3f} s "
                  f"CPU; target <= {TARGETS[preset]} s: {verdict}; gap {best['gap']:.2e}")
        _fresh(family, preset, "warm", True)  # populate the cache
        runs = [_fresh(family, preset, "warm", True) for _ in range(repeat)]
        best = min(runs, key=lambda r: r["solve"])
        assert all(r["cached"] for r in runs)
        verdict = "met" if best["solve"] <= WARM_TARGET else (
            "met in CPU time" if best["solve_cpu"] <= WARM_TARGET else "NOT met")
        total, total_cpu = best["build"] + best["solve"], best["build_cpu"] + best["solve_cpu"]
        print(f"  {preset} warm hit: solve {best['solve']:.3f} s wall ({best['solve_cpu']:.3f} s CPU), target <= "
              f"{WARM_TARGET} s beyond imports: {verdict}; with the problem build {total:.3f} s wall "
              f"({total_cpu:.3f} s CPU); imports {best['imports']:.3f} s; certified gap {best['gap']:.2e}")
    print(f"  load {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fresh", action="store_true", help="cold and warm timings in fresh processes")
    parser.add_argument("--skip-cvxpy", action="store_true", help="skip the slow cvxpy baselines")
    parser.add_argument("--only", choices=list(INSTANCES), help="run one instance")
    parser.add_argument("--repeat", type=int, default=3, help="timed repetitions of our solve (best is shown)")
    args = parser.parse_args()
    if args.fresh:
        fresh_timings(args.repeat)
        return
    for preset, family in INSTANCES.items():
        if args.only and preset != args.only:
            continue
        problem = problems.make(family, preset)
        start = time.perf_counter()
        problem.quadratic  # noqa: B018 - Gram matrix, formed once per problem
        gram_seconds = time.perf_counter() - start
        best = None
        for _ in range(args.repeat):
            fresh = problems.make(family, preset) if best is not None else problem
            fresh.__dict__["quadratic"] = problem.quadratic  # share the Gram: time the solver itself
            start = time.perf_counter()
            ref = reference.solve(fresh, cache=False)
            seconds = time.perf_counter() - start
            best = seconds if best is None else min(best, seconds)
        print(f"{preset}: dim {problem.dim}, clients {problem.clients}; Gram {gram_seconds:.2f} s; "
              f"fedrates solve {best:.3f} s (best of {args.repeat}), certified gap {ref.gap:.2e}, "
              f"value {ref.value:.15g}, method {ref.method}")
        if args.skip_cvxpy:
            continue
        w, base = direct_cvxpy(problem)
        gap = reference.certify(problem, w)
        print(f"{preset}: cvxpy+Clarabel direct {base:.1f} s, certified gap {gap:.2e}; "
              f"ratio {base / best:.0f}x (vs solve), {base / (best + gram_seconds):.0f}x (vs Gram + solve)")


if __name__ == "__main__":
    main()
