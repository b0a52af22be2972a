"""``fedrates verify``: the main job — run the claims of a profile, write records, verdicts and the report.

Outputs in ``--out`` (default ``fedrates-out``): ``records.parquet``, ``verdicts.json``, ``provenance.json``,
``errata.json`` and ``report.html``.  Exit status 0 when every claim passes or is a documented erratum, 1 when any
claim fails, is inconclusive, errors or has unmet conditions, 2 on bad input.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from fedrates.solvers.errors import InputError

PROFILES = ("quick", "standard", "full")
OK_VERDICTS = {"pass", "erratum"}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("verify", help="run the verification claims and write records, verdicts and a report",
                       description=__doc__)
    p.add_argument("--profile", default="standard", help="quick (<= 60 s), standard (<= 5 min) or full")
    p.add_argument("--only", default=None, metavar="PATTERN", help="glob or substring of claim ids")
    p.add_argument("--out", default="fedrates-out", metavar="DIR", help="output directory")
    p.add_argument("--jobs", default=None, type=str, help="worker processes (default: number of cores)")
    p.add_argument("--seed", default=0, type=str, help="base seed of the Monte-Carlo seeds (default 0)")
    p.add_argument("--executor", default="local", help="local (process pool) or dask (see --scheduler)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="Dask scheduler address for --executor dask (default: a local cluster of --jobs workers)")
    p.add_argument("--no-cache", action="store_true", help="recompute every point")
    p.add_argument("--json", action="store_true", help="print the verdicts as one JSON document")
    p.set_defaults(handler=main)


def _positive_int(name: str, text: str, minimum: int) -> int:
    try:
        value = int(text)
    except (TypeError, ValueError):
        raise InputError(f"{name} '{text}' is not an integer") from None
    if value < minimum:
        raise InputError(f"{name} {value} is invalid; expected an integer >= {minimum}")
    return value


def _prepare_out(path: str) -> Path:
    out = Path(path)
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".fedrates-write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise InputError(f"output directory '{path}' is not writable ({exc.strerror or exc})") from None
    return out


def main(args: argparse.Namespace) -> int:
    from fedrates.verify import claims as claim_registry

    if args.profile not in PROFILES:
        raise InputError(f"unknown profile '{args.profile}'; expected one of: {', '.join(PROFILES)}")
    from fedrates.verify import executors

    pool = executors.make(args.executor, args.scheduler)
    jobs = _positive_int("--jobs", args.jobs, 1) if args.jobs is not None else max(1, os.cpu_count() or 1)
    base_seed = _positive_int("--seed", args.seed, 0)
    selected = claim_registry.select(args.only)
    out = _prepare_out(args.out)
    from fedrates.verify.pipeline import verify_claims

    started = time.perf_counter()
    with executors.use(None if args.executor == "local" else pool):
        summary = verify_claims(selected, profile=args.profile, out=out, jobs=jobs, base_seed=base_seed,
                                use_cache=not args.no_cache, progress=not args.json)
    elapsed = time.perf_counter() - started
    verdicts = summary["verdicts"]
    if args.json:
        from fedrates.verify.commands._common import print_json

        print_json(verdicts)
    else:
        _print_table(verdicts, out, elapsed)
    return 0 if all(v["verdict"] in OK_VERDICTS for v in verdicts) else 1


def _print_table(verdicts: list[dict], out: Path, elapsed: float) -> None:
    from rich.console import Console
    from rich.table import Table

    colours = {"pass": "green", "fail": "red", "erratum": "magenta", "conditions-not-met": "yellow",
               "inconclusive": "yellow", "error": "red"}
    table = Table(title="fedrates verify", show_lines=False)
    for col in ("claim", "verdict", "measured", "predicted", "tolerance"):
        table.add_column(col, overflow="fold")
    for v in verdicts:
        c = colours.get(v["verdict"], "white")
        table.add_row(v["claim"], f"[{c}]{v['verdict']}[/{c}]", str(v["measured"]), str(v["predicted"]),
                      str(v["tolerance"]))
    # a pipe or file has no width: use a wide table there rather than folding every cell into 80 columns
    console = Console(file=sys.stdout, highlight=False, width=None if sys.stdout.isatty() else 160)
    console.print(table)
    counts: dict[str, int] = {}
    for v in verdicts:
        counts[v["verdict"]] = counts.get(v["verdict"], 0) + 1
    console.print(", ".join(f"{n} {k}" for k, n in sorted(counts.items())) + f" in {elapsed:.0f} s")
    console.print(f"records, verdicts and report written to {out}/ (open {out}/report.html)")
