"""``fedrates run ALGORITHM --problem P [--preset NAME] [--set k=v ...] [--hyper k=v ...] [--rounds R]
[--local-steps E] [--batch B] [--participating m] [--gradients exact|stochastic] [--seed S | --seeds S1,S2,...]
[--record-every N] [--out FILE.parquet|.csv] [--json]``

Runs a federated algorithm on a problem instance (:func:`fedrates.solvers.algorithms.run_batch`) and prints the final
record of every seed (objective gap against the certified optimum, distances, support F1 / rank), or one JSON
document with the run's parameters and its final record(s) (``--json``).  Theorem-condition violations are printed
as warning lines on stderr; the run still happens.  A diverged run exits 0 with ``"diverged": true`` and null
metrics.  Bad input: one line on stderr, exit 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from fedrates.solvers.errors import InputError
from fedrates.verify.commands._common import (
    announce_streams,
    parse_assignments,
    print_json,
    save_fallback,
    to_jsonable,
    validate_run,
)
from fedrates.verify.numbers import ascii_int


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "run", help="run a federated algorithm on a problem instance",
        description="Run a federated algorithm on a problem instance and report its per-round metrics.")
    parser.add_argument("algorithm", metavar="ALGORITHM", help="algorithm id (see: fedrates list algorithms)")
    parser.add_argument("--problem", help="problem family (see: fedrates list problems)")
    parser.add_argument("--preset", help="named instance of the family (e.g. bao-lasso); implies its family")
    parser.add_argument("--set", dest="assignments", nargs="+", action="extend", default=[], metavar="KEY=VALUE",
                        help="override a problem parameter (repeatable)")
    parser.add_argument("--hyper", nargs="+", action="extend", default=[], metavar="KEY=VALUE",
                        help="algorithm hyperparameter, e.g. step=0.01 (repeatable)")
    parser.add_argument("--rounds", type=ascii_int, default=100, help="communication rounds (default: 100)")
    parser.add_argument("--local-steps", type=ascii_int, help="local steps per round E (default: the algorithm's)")
    parser.add_argument("--batch", type=ascii_int, help="minibatch size B (default: the algorithm's)")
    parser.add_argument("--participating", type=ascii_int, help="clients sampled per round (default: all)")
    parser.add_argument("--gradients", choices=("stochastic", "exact"), default="stochastic",
                        help="minibatch or exact gradients (default: stochastic)")
    parser.add_argument("--seed", type=ascii_int, default=0, help="run seed (default: 0)")
    parser.add_argument("--seeds", help="comma-separated seeds simulated together (overrides --seed)")
    parser.add_argument("--record-every", type=ascii_int, default=1, help="record metrics every N rounds (default: 1)")
    parser.add_argument("--out", help="write the per-round records to FILE.parquet or FILE.csv")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.set_defaults(handler=run)


def _problem(args: argparse.Namespace) -> Any:
    from fedrates.solvers import problems
    name = args.problem
    if name is None:
        if args.preset is None:
            raise InputError("no problem given; expected --problem NAME (or --preset NAME)")
        name = problems.preset_family(args.preset)
        if name is None:
            every = [p for fam in problems.names() for p in problems.presets(fam)]
            from fedrates.solvers.errors import unknown_name

            raise unknown_name("preset", args.preset, every)
    return problems.make(name, args.preset, **parse_assignments(args.assignments))


def _hyper(args: argparse.Namespace) -> dict[str, Any]:
    hyper = parse_assignments(args.hyper, "--hyper")
    for key, value in (("local_steps", args.local_steps), ("batch", args.batch)):
        if value is not None:
            if key in hyper and hyper[key] != value:
                raise InputError(f"{key} given twice with different values ({hyper[key]} and {value})")
            hyper[key] = value
    return hyper


def _write(trace: Any, problem: Any, out: str) -> None:
    """The per-round records in the long record format of ``fedrates verify`` (one row per metric), with
    provenance (parquet metadata and ``<file>.provenance.json``)."""
    from fedrates.verify import records as rec

    path = Path(out)
    if path.suffix not in (".parquet", ".csv"):
        raise InputError(f"--out '{out}' has an unknown format; expected a .parquet or .csv file name")
    long = rec.to_long(trace.records, trace.params, problem)
    gap = trace.params.get("reference_gap")
    prov = rec.provenance(seeds=trace.params.get("seeds"),
                          reference_gaps=None if gap is None else {str(trace.params.get("fingerprint", "run")): gap},
                          extra={"command": "fedrates run", "run": trace.params})
    rec.write_records(long, path, prov, own_provenance_file=True)


def _announce_streams(args: argparse.Namespace, method: Any, problem: Any, seeds: list[int]) -> None:
    """The note of a run made long by its per-client random streams (:func:`announce_streams`), once the problem
    says whether its stochastic gradients draw."""
    from fedrates.solvers.oracles import draws_per_client

    if args.gradients != "stochastic" or not draws_per_client(problem, method.batch):
        return
    K = problem.clients
    per_round = args.participating or K
    taking_part = K if args.participating is None else min(K, args.rounds * per_round)
    announce_streams(len(seeds) * taking_part, args.rounds * per_round * method.local_steps * len(seeds),
                     problem.dim)


def run(args: argparse.Namespace) -> int:
    seeds = validate_run(args)  # every argument, the sizes and the --out destination, before any work
    from fedrates.solvers import algorithms
    algorithms.get(args.algorithm)  # unknown names fail before the problem is built
    method = algorithms.make(args.algorithm, **_hyper(args))
    from fedrates.verify.executors import single_threaded

    # one BLAS thread: the engine vectorises across clients itself, and a second BLAS thread on a shared 2-core
    # machine costs far more CPU than it saves (building a K = 100, d = 100 problem and its reference: 5.5-6.0 s of
    # CPU with default threads against 0.73-0.81 s with one, whenever the other core is busy); libraries loaded
    # during the run (scipy's BLAS) included
    with single_threaded():
        problem = _problem(args)
        _announce_streams(args, method, problem, seeds)
        trace = algorithms.run_batch(method, problem, args.rounds, seeds=seeds, participating=args.participating,
                                     gradients=args.gradients, record_every=args.record_every)
    resolve = getattr(method, "resolved_hyperparameters", None)
    if resolve is not None:  # defaults such as mu = 0 ("the problem's exact mu") shown as the values used
        trace.params = {**trace.params, "hyperparameters": resolve(problem),
                        "hyperparameters_given": trace.params["hyperparameters"]}
    notes = list(trace.warnings)
    if args.gradients == "stochastic" and problem.summary().get("sampling") == "gaussian" \
            and not problem.summary().get("params", {}).get("sigma"):
        notes.append("the problem has sigma = 0: stochastic gradients are exact and every seed gives the same run "
                     "(--set sigma=VALUE adds gradient noise)")
    for note in notes:
        sys.stderr.write(f"fedrates: warning: {note}\n")
    status = 0
    if args.out:
        try:
            _write(trace, problem, args.out)
        except OSError as exc:  # checked before the run, failed anyway: keep the results and say where
            kept = save_fallback(lambda p: _write(trace, problem, str(p)), args.out, exc)
            sys.stderr.write(f"fedrates: error: {kept}\n")
            status = 2
    finals = [{k: _py(v) for k, v in row.items()} for row in trace.final().to_dict("records")]
    if args.json:
        print_json({"params": trace.params, "diverged": bool(trace.diverged.any()),
                    "final": finals[0] if len(finals) == 1 else finals, "warnings": trace.warnings,
                    "out": args.out})
        return status
    _print_table(trace, finals)
    return status


def _py(value: Any) -> Any:
    return to_jsonable(value.item() if hasattr(value, "item") else value)


def _fmt(value: Any) -> str:
    if value is None:
        return "nan"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.4e}"
    return str(value)


def _print_table(trace: Any, finals: list[dict[str, Any]]) -> None:
    from fedrates.solvers import algorithms
    params = trace.params
    hyper = ", ".join(f"{k}={v}" for k, v in params["hyperparameters"].items())
    out = [f"{params['algorithm']} ({hyper}) on {params['problem']['preset'] or params['problem']['problem']}, "
           f"{params['rounds']} rounds, {params['gradients']} gradients"]
    cols = list(algorithms.COLUMNS)
    cols.remove("seed")
    cols.insert(0, "seed")
    table = [[_fmt(row[c]) for c in cols] for row in finals]
    widths = [max(len(c), *(len(r[i]) for r in table)) for i, c in enumerate(cols)]
    out.append("  ".join(c.rjust(w) for c, w in zip(cols, widths, strict=True)))
    out.extend("  ".join(v.rjust(w) for v, w in zip(r, widths, strict=True)) for r in table)
    sys.stdout.write("\n".join(out) + "\n")
