"""``fedrates reference PROBLEM [--preset P] [--set key=value ...] [--method auto|fast|cvxpy] [--no-cache] [--json]``

Builds the problem, computes its certified reference optimum (:func:`fedrates.solvers.reference.solve`) and prints the
value, the certified gap, the method, the wall time and the sizes (or one JSON document with ``--json``).
Exit 0 on success, 2 on bad input or when the reference cannot be certified (one line on stderr).
"""

from __future__ import annotations

import argparse
import sys

from fedrates.solvers.errors import VerificationError
from fedrates.verify.commands._common import print_json, validate_reference


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "reference", help="certified optimum of a problem instance",
        description="Compute the optimum of a problem instance with a certified duality gap.")
    parser.add_argument("problem", metavar="PROBLEM", help="problem family (see: fedrates list problems)")
    parser.add_argument("--preset", help="named instance of the family (e.g. bao-lasso)")
    parser.add_argument("--set", dest="assignments", nargs="+", action="extend", default=[], metavar="KEY=VALUE",
                        help="override a problem parameter (repeatable)")
    parser.add_argument("--method", choices=("auto", "fast", "cvxpy"), default="auto",
                        help="solver path (default: auto)")
    parser.add_argument("--tol", type=float, default=1e-11,
                        help="target gap, relative to max(1, |value|) (default: 1e-11)")
    parser.add_argument("--no-cache", action="store_true", help="neither read nor write the reference cache")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import time

    started = time.perf_counter()
    params = validate_reference(args)  # ranges, memory and --tol before the problem is built
    from fedrates.solvers import problems
    from fedrates.solvers.reference import solve

    # one BLAS thread: one solve of well under a second, where thread start-up and oversubscription of a shared
    # machine cost more than they gain (bao-lasso cold, load 6 on 2 cores: 0.5 s of CPU against 1.7 s with 2 threads);
    # scipy's BLAS, loaded by the solve, included
    from fedrates.verify.executors import single_threaded

    with single_threaded():
        problem = problems.make(args.problem, args.preset, **params)
        try:
            ref = solve(problem, method=args.method, tol=args.tol, cache=not args.no_cache)
        except VerificationError as exc:
            sys.stderr.write(f"fedrates: error: {exc}\n")
            return 2
    summary = {
        "problem": problem.family, "preset": problem.preset, "value": ref.value, "gap": ref.gap,
        "method": ref.method, "seconds": ref.seconds, "clients": problem.clients, "dim": problem.dim,
        "cached": ref.cached, "params": dict(problem.params),
        # a cached reference keeps the time of its original solve: this command's own time is reported beside it
        "solve_seconds": ref.seconds, "command_seconds": time.perf_counter() - started,
    }
    for note in ref.warnings:
        sys.stderr.write(f"fedrates: warning: {note}\n")
    if args.json:
        print_json(summary)
        return 0
    rows = [("problem", problem.name), ("value", f"{ref.value:.17g}"), ("certified gap", f"{ref.gap:.3e}"),
            ("method", ref.method + (" (cached)" if ref.cached else "")),
            ("solve time", f"{ref.seconds:.3f} s" + (" (original solve, read from the cache)" if ref.cached else "")),
            ("this command", f"{summary['command_seconds']:.3f} s"),
            ("clients", str(problem.clients)), ("dim", f"{problem.dim} (shape {'x'.join(map(str, problem.shape))})")]
    width = max(len(k) for k, _ in rows)
    sys.stdout.write("".join(f"{k:<{width}}  {v}\n" for k, v in rows))
    return 0
