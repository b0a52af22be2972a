"""Benchmark of the certified reference solver on the paper-size instances ``bao-lasso`` and ``bao-trace``.

For each instance prints: the time to form the Gram matrix Q̄ (done once per problem), the time of
``solvers.reference.solve`` (fast path, no cache) and its certified gap; then, unless ``--skip-cvxpy``, the baseline
cvxpy + Clarabel on the *direct* formulation (1/2N)‖Xw − y‖² + λR(w) on the stacked data (the way a user would
write it), its time, the certified gap of its point (our certificate), and the time ratio baseline / ours.

    python benchmarks/reference.py [--skip-cvxpy] [--only bao-lasso|bao-trace]
"""

from __future__ import annotations

import argparse
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-cvxpy", action="store_true", help="skip the slow cvxpy baselines")
    parser.add_argument("--only", choices=list(INSTANCES), help="run one instance")
    parser.add_argument("--repeat", type=int, default=3, help="timed repetitions of our solve (best is shown)")
    args = parser.parse_args()
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
