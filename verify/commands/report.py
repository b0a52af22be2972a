"""``fedrates report DIR``: re-render the report of a finished verification run from its stored files.

Reads ``DIR/records.parquet`` (or ``DIR/records.csv``), ``DIR/verdicts.json``, ``DIR/provenance.json`` and, when
present, ``DIR/errata.json``; writes ``DIR/report.html`` (``--format pdf``: ``DIR/report.pdf``; ``--format both``:
the two, each figure drawn once for both; or ``--out FILE``). Nothing is recomputed. The figures not in the run's
figure cache are drawn in ``--jobs`` worker processes (default: the number of cores), as ``fedrates verify`` draws
them.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from fedrates.solvers.errors import InputError
from fedrates.verify.commands._common import print_json, validate_verdicts

FORMATS = ("html", "pdf", "both")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "report",
        help="re-render the report of a verification run directory",
        description=(
            "Re-render DIR/report.html (report.pdf, or both) from DIR/records.parquet (or records.csv), "
            "DIR/verdicts.json, DIR/provenance.json and optional DIR/errata.json; the figures not drawn before are "
            "drawn in --jobs worker processes."
        ),
    )
    parser.add_argument("dir", metavar="DIR", help="output directory of 'fedrates verify'")
    parser.add_argument("--format", choices=FORMATS, default="html",
                        help="report format: html (default), pdf, or both (each figure drawn once for the two)")
    parser.add_argument("--out", metavar="FILE",
                        help="where to write the report (default: DIR/report.<format>; not with --format both)")
    parser.add_argument("--jobs", default=None, type=str, help="worker processes drawing figures (default: number "
                                                                "of cores)")
    parser.add_argument("--title", default="fedrates verification report", help="title of the report")
    parser.add_argument("--json", action="store_true", help="print a JSON summary instead of a line of text")
    parser.set_defaults(handler=run)


def _load_json(path: Path, what: str) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise InputError(f"{what} file '{path}' does not exist") from exc
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InputError(f"cannot read {what} file '{path}': {reason}") from exc
    except RecursionError:
        raise InputError(f"cannot read {what} file '{path}': nested too deeply") from None


def _list_of_dicts(obj: Any, key: str, path: Path) -> list[dict[str, Any]]:
    """Accept a JSON list of objects, or an object holding that list under ``key``."""
    if isinstance(obj, dict) and isinstance(obj.get(key), list):
        obj = obj[key]
    if not isinstance(obj, list) or not all(isinstance(item, dict) for item in obj):
        raise InputError(f"'{path}' must hold a list of objects (or {{\"{key}\": [...]}})")
    return obj


def load_run(directory: Path) -> tuple[Any, list[dict[str, Any]], dict[str, Any], list[dict[str, Any]]]:
    """Read ``(records, verdicts, provenance, errata)`` from a run directory; InputError on any problem."""
    if not directory.is_dir():
        raise InputError(f"run directory '{directory}' does not exist or is not a directory")
    candidates = [directory / "records.parquet", directory / "records.csv"]
    records_path = next((p for p in candidates if p.is_file()), None)
    if records_path is None:
        raise InputError(f"no records.parquet or records.csv in '{directory}'")
    from fedrates.verify import outputs

    # the files read, against the digests verify wrote for them (a directory written before manifests: unchecked)
    outputs.check_intact(directory, [records_path.name, "verdicts.json", "provenance.json", "errata.json"],
                         f"rerun fedrates verify --out {directory} to write it again")
    # the small JSON files first: a broken run directory is refused before the records (and pandas) are loaded
    verdicts = _list_of_dicts(
        _load_json(directory / "verdicts.json", "verdicts"), "verdicts", directory / "verdicts.json"
    )
    validate_verdicts(verdicts, directory / "verdicts.json")  # types the report relies on, named when wrong
    provenance = _load_json(directory / "provenance.json", "provenance")
    if not isinstance(provenance, dict):
        raise InputError(f"'{directory / 'provenance.json'}' must hold a JSON object")
    errata_path = directory / "errata.json"
    errata = _list_of_dicts(_load_json(errata_path, "errata"), "errata", errata_path) if errata_path.exists() else []
    from fedrates.verify.records import read_records

    try:
        records, stored_provenance = read_records(records_path)
    except (OSError, ValueError) as exc:
        raise InputError(str(exc).splitlines()[0]) from exc
    provenance = {**stored_provenance, **provenance}
    _fill_plots(records, verdicts)
    return records, verdicts, provenance, errata


def _fill_plots(records: Any, verdicts: list[dict[str, Any]]) -> None:
    from fedrates.verify.plotdata import fill_missing

    fill_missing(records, verdicts)


def _render(records: Any, verdicts: list[dict[str, Any]], provenance: dict[str, Any], errata: list[dict[str, Any]],
            directory: Path, out: Path | None, fmt: str, title: str, jobs: int) -> list[Path]:
    """Write the report(s) of ``fmt``; the figures missing from the run's figure cache drawn in ``jobs`` workers."""
    from fedrates.reports.drawing import draw_missing
    from fedrates.reports.html import FIGURE_CACHE

    cache = directory / FIGURE_CACHE  # the run directory's cache, wherever the report goes: nothing drawn twice
    if fmt == "both":
        from fedrates.verify.pipeline import write_reports

        write_reports(records, verdicts, provenance, errata, directory, jobs=jobs, write_pdf=True, title=title)
        return [directory / "report.html", directory / "report.pdf"]
    path = out if out is not None else directory / f"report.{fmt}"
    if fmt == "pdf":
        from fedrates.reports.pdf import page_digests, render_pdf

        digests = page_digests(records, verdicts)
        draw_missing(records, verdicts, cache, jobs=jobs, with_pdf=True, digests=digests)
        return [render_pdf(records, verdicts, provenance, errata, path, title=title, cache=cache, digests=digests)]
    from fedrates.reports.html import render_html
    from fedrates.reports.pdf import page_digests, read_cached_pages

    # the figures of PDF pages drawn before from the same records and verdicts (by verify, or --format pdf/both) are
    # the HTML report's too; only the other claims' figures are drawn
    shared: dict[str, dict[str, Any]] = {}
    for claim, digest in page_digests(records, verdicts).items():
        entry = read_cached_pages(cache, digest)
        if entry is not None:
            shared[claim] = {k: entry[k] for k in ("svg", "note", "paper_svg", "paper_note")}
    rest = [v for v in verdicts if str(v.get("claim", "")) not in shared]
    draw_missing(records, rest, cache, jobs=jobs, with_pdf=False)
    return [render_html(records, verdicts, provenance, errata, path, title=title, shared=shared, cache=cache)]


def run(args: argparse.Namespace) -> int:
    directory = Path(args.dir)
    if args.format == "both" and args.out:
        raise InputError(f"--out '{args.out}' names one file; --format both writes DIR/report.html and "
                         "DIR/report.pdf (expected --format html or pdf with --out)")
    out = Path(args.out) if args.out else None
    if out is not None and out.is_dir():
        raise InputError(f"--out '{out}' is a directory; expected a file path")
    import os

    from fedrates.verify.commands._common import MAX_JOBS, check_int

    jobs = check_int("--jobs", args.jobs, 1, MAX_JOBS) if args.jobs is not None else max(1, os.cpu_count() or 1)
    from fedrates.verify import outputs

    with outputs.output_lock(directory, shared=True):  # never while verify writes the directory
        records, verdicts, provenance, errata = load_run(directory)
        try:
            paths = _render(records, verdicts, provenance, errata, directory, out, args.format, args.title, jobs)
            mine = [p.name for p in paths if p.name in outputs.REBUILDABLE
                    and p.resolve().parent == directory.resolve()]
            if mine:
                outputs.update_manifest(directory, mine)
        except OSError as exc:
            raise InputError(f"cannot write report '{out or directory}': {exc.strerror or exc}") from exc
    path = paths[0] if len(paths) == 1 else " and ".join(str(p) for p in paths)
    counts: dict[str, int] = {}
    for v in verdicts:
        key = str(v.get("verdict", "unknown"))
        counts[key] = counts.get(key, 0) + 1
    if args.json:
        print_json({"report": str(path), "claims": len(verdicts), "verdicts": counts, "records": len(records)})
    else:
        summary = ", ".join(f"{k} {n}" for k, n in counts.items()) or "no claims"
        print(f"wrote {path} ({len(verdicts)} claims: {summary})")
    return 0
