"""``fedrates verify``: the main job — run the claims of a profile, write records, verdicts and the report.

Outputs in ``--out`` (default ``fedrates-out``): ``records.parquet``, ``verdicts.json``, ``provenance.json``,
``errata.json``, ``report.html``, ``report.pdf`` and ``timings.json`` (wall seconds per phase, and per claim the CPU
seconds its points took); with ``--no-report`` no figure is drawn and no report written (``fedrates report DIR
--format both`` renders them later; a report of earlier results in DIR is removed). A run over some claims
(``--only``, another profile) keeps the other claims already in ``--out``: verdicts are merged by claim id, each
showing the profile and date of its run (``--replace`` writes only this run's claims).  Exit status 0 when every
claim of this run passes or is a documented erratum, 1 when any claim fails, is inconclusive, errors or has unmet
conditions, 2 on bad input.
"""

from __future__ import annotations

import argparse
import errno
import os
import sys
import time
from pathlib import Path

from fedrates.solvers.errors import InputError
from fedrates.verify.commands._common import validate_verify

PROFILES = ("quick", "standard", "full")
OK_VERDICTS = {"pass", "erratum", "informational"}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("verify", help="run the verification claims and write records, verdicts and a report",
                       description=__doc__)
    p.add_argument("--profile", default="standard", help="quick (the smallest runs), standard (the default) or full")
    p.add_argument("--only", default=None, metavar="PATTERN", help="glob or substring of claim ids")
    p.add_argument("--out", default="fedrates-out", metavar="DIR", help="output directory")
    p.add_argument("--jobs", default=None, type=str, help="worker processes (default: number of cores)")
    p.add_argument("--seed", default=0, type=str, help="base seed of the Monte-Carlo seeds (default 0)")
    p.add_argument("--executor", default="local", help="local (process pool) or dask (see --scheduler)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="Dask scheduler address for --executor dask (default: a local cluster of --jobs workers)")
    p.add_argument("--no-cache", action="store_true", help="recompute every point")
    p.add_argument("--replace", action="store_true",
                   help="drop the earlier verdicts in --out instead of merging this run's claims into them")
    p.add_argument("--no-report", action="store_true",
                   help="records, verdicts and errata only: no figures, no report (render it later with "
                        "'fedrates report DIR --format both'; a report of earlier results in DIR is removed)")
    p.add_argument("--json", action="store_true", help="print the verdicts as one JSON document")
    p.set_defaults(handler=main)


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


def _check_out_names(path: str) -> None:
    """Refuse an ``--out`` with a component longer than its file system allows, as creating it would (the same
    line as :func:`_prepare_out`), before the claims are imported; anything else is left to the creation."""
    parts = Path(path).absolute().parts
    for i, part in enumerate(parts[1:], start=1):
        parent = Path(*parts[:i])
        while not parent.exists() and parent != parent.parent:
            parent = parent.parent
        try:
            limit = os.pathconf(parent, "PC_NAME_MAX")
        except (OSError, ValueError):
            return
        if len(os.fsencode(part)) > limit:
            raise InputError(f"output directory '{path}' is not writable ({os.strerror(errno.ENAMETOOLONG)})")


def main(args: argparse.Namespace) -> int:
    if args.profile not in PROFILES:
        raise InputError(f"unknown profile '{args.profile}'; expected one of: {', '.join(PROFILES)}")
    jobs, base_seed = validate_verify(args)  # ranges checked before any claim is loaded
    jobs = jobs if jobs is not None else max(1, os.cpu_count() or 1)
    from fedrates.verify import executors
    from fedrates.verify.claim_index import check_only, store_ids

    pool = executors.make(args.executor, args.scheduler)  # a factory: nothing is started until the sweep runs
    check_only(args.only)  # a pattern matching no stored claim id is refused before the registry is imported
    _check_out_names(args.out)  # and an --out no file system can hold
    from fedrates.verify import claims as claim_registry

    selected = claim_registry.select(args.only)
    out = _prepare_out(args.out)
    store_ids(claim_registry.ids())  # once the arguments are accepted: a refusal writes nothing
    from fedrates.verify import outputs
    from fedrates.verify.pipeline import verify_claims

    if not getattr(args, "replace", False):  # damaged earlier results are refused before any work
        outputs.check_earlier_results(out)
    started = time.perf_counter()
    shown: list[dict] = []

    def show(verdicts: list[dict]) -> None:  # before the outputs are written: a full disk loses no verdict
        shown[:] = verdicts
        if args.json:
            from fedrates.verify.commands._common import print_json
            from fedrates.verify.errata import HEADLINE_KINDS, count_kinds

            kinds = count_kinds(v.get("erratum_kind") for v in verdicts if v["verdict"] == "erratum")
            counts: dict[str, int] = {}
            for v in verdicts:
                counts[v["verdict"]] = counts.get(v["verdict"], 0) + 1
            print_json({"verdicts": verdicts, "counts": counts, "erratum_kinds": kinds,
                        "paper_errors": sum(n for k, n in kinds.items() if k in HEADLINE_KINDS)})
        else:
            _print_table(verdicts, out, time.perf_counter() - started)

    try:
        with executors.use(None if args.executor == "local" else pool):
            summary = verify_claims(selected, profile=args.profile, out=out, jobs=jobs, base_seed=base_seed,
                                    use_cache=not args.no_cache, progress=not args.json,
                                    merge=not getattr(args, "replace", False),
                                    write_report=not getattr(args, "no_report", False), on_verdicts=show)
    except outputs.OutputsNotWritten as exc:  # one line; exit 1 when verification failed as well, else 2
        from fedrates.verify.commands._common import shown as safe

        sys.stderr.write(f"fedrates: error: {safe(exc, 10**6)}\n")
        return 1 if any(v["verdict"] not in OK_VERDICTS for v in shown) else 2
    verdicts = summary["verdicts"]
    if not args.json:
        _print_written(out, summary.get("kept", []), report=not getattr(args, "no_report", False))
    return 0 if all(v["verdict"] in OK_VERDICTS for v in verdicts) else 1


def _print_table(verdicts: list[dict], out: Path, elapsed: float) -> None:
    from fedrates.reports.terminal import print_verdicts, summary_line

    console = print_verdicts(verdicts, sys.stdout, tty=sys.stdout.isatty())
    console.print(summary_line(verdicts) + f" in {elapsed:.0f} s")
    sys.stdout.flush()


def _print_written(out: Path, kept: list[str] = (), report: bool = True) -> None:
    from rich.console import Console

    from fedrates.reports.terminal import MAX_WIDTH

    tty = sys.stdout.isatty()
    console = Console(file=sys.stdout, highlight=False, width=MAX_WIDTH, force_terminal=tty if tty else None,
                      no_color=not tty)
    if kept:
        console.print(f"{out}/ also keeps {len(kept)} claim(s) verified by earlier runs (profile and date shown per "
                      f"claim in the report; --replace drops them)")
    if report:
        console.print(f"records, verdicts and report written to {out}/ (open {out}/report.html)")
    else:
        console.print(f"records and verdicts written to {out}/ (no report: 'fedrates report {out} --format both' "
                      "renders it)")
