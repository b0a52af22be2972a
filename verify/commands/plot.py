"""``fedrates plot RECORDS --claim ID [--metric M] [--x VAR] [--out FILE.svg|png|pdf]``: one claim's figure.

RECORDS is a verification output directory (or a ``records.parquet``/``records.csv`` file in one); the claim's verdict
is read from ``verdicts.json`` beside it. The figure is the report's (the tested statistic with its interval, the
prediction with its tolerance, the bound curve, the loose-bound flag); ``--metric`` and ``--x`` plot another stored
metric or column of the same records (then only the mean over seeds with its 95% interval and, for the claim's own
metric, the stored bound are drawn). Nothing is recomputed and no report is re-rendered.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from fedrates.solvers.errors import InputError

FORMATS = (".svg", ".png", ".pdf")


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("plot", help="draw one claim's figure from stored records", description=__doc__)
    p.add_argument("records", metavar="RECORDS", help="output directory of 'fedrates verify' or its records file")
    p.add_argument("--claim", required=True, metavar="ID", help="claim id, e.g. bao.thm2.1/rate-T")
    p.add_argument("--metric", metavar="M", help="stored metric to plot (default: the claim's)")
    p.add_argument("--x", metavar="VAR", help="records column on the x axis (default: the claim's swept parameter)")
    p.add_argument("--out", metavar="FILE", help="FILE.svg, FILE.png or FILE.pdf (default: <claim>.svg in the "
                                                  "current directory)")
    p.add_argument("--json", action="store_true", help="print the figure description as JSON")
    p.set_defaults(handler=run)


def _paths(target: Path) -> tuple[Path, Path]:
    if target.is_dir():
        directory = target
        records = next((p for p in (target / "records.parquet", target / "records.csv") if p.is_file()), None)
        if records is None:
            raise InputError(f"no records.parquet or records.csv in '{target}'")
    elif target.is_file():
        directory, records = target.parent, target
    else:
        raise InputError(f"records '{target}' does not exist; expected a 'fedrates verify' output directory")
    return directory, records


def run(args: argparse.Namespace) -> int:
    out = Path(args.out) if args.out else Path(args.claim.replace("/", "_") + ".svg")
    if out.suffix.lower() not in FORMATS:
        raise InputError(f"--out '{out}' has an unknown format; expected a .svg, .png or .pdf file name")
    directory, records_path = _paths(Path(args.records))
    from fedrates.verify import outputs

    with outputs.output_lock(directory, shared=True):  # never while verify writes the directory
        outputs.check_intact(directory, [records_path.name, "verdicts.json"],
                             f"rerun fedrates verify --out {directory} to write it again")
        verdicts_path = directory / "verdicts.json"
        try:
            verdicts = json.loads(verdicts_path.read_bytes().decode("utf-8"))
        except FileNotFoundError:
            raise InputError(f"no verdicts.json beside '{records_path}'") from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InputError(f"cannot read '{verdicts_path}': {str(exc).splitlines()[0]}") from None
        except RecursionError:
            raise InputError(f"cannot read '{verdicts_path}': nested too deeply") from None
        from fedrates.verify.records import read_records

        try:
            records, _ = read_records(records_path)
        except (OSError, ValueError) as exc:
            raise InputError(str(exc).splitlines()[0]) from None
    if isinstance(verdicts, dict):
        verdicts = verdicts.get("verdicts", [])
    by_id = {str(v.get("claim")): v for v in verdicts if isinstance(v, dict)}
    if args.claim not in by_id:
        from fedrates.solvers.errors import unknown_name

        raise unknown_name("claim", args.claim, sorted(by_id))
    verdict = by_id[args.claim]
    from fedrates.verify.plotdata import plot_spec

    rows = records[records["claim"] == args.claim]
    if rows.empty:
        raise InputError(f"'{records_path}' holds no records of claim {args.claim}")
    from fedrates.verify.plotdata import params_keys

    if args.x and args.x not in rows.columns and args.x not in params_keys(rows):
        choices = [*rows.columns, *sorted(params_keys(rows))]
        raise InputError(f"--x '{args.x}' is not a records column or parameter; expected one of: {', '.join(choices)}")
    metrics = sorted(rows["metric"].unique())
    if args.metric and args.metric not in metrics:
        raise InputError(f"--metric '{args.metric}' has no records for {args.claim}; stored: {', '.join(metrics)}")
    try:
        spec = plot_spec(rows, verdict, metric=args.metric, x=args.x)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    from fedrates.reports import figures

    fig = figures.claim_figure(rows, verdict, spec)
    from fedrates import __version__

    # provenance in the file itself: which claim, verdict and run the figure shows, and the fedrates version
    about = (f"{args.claim}: verdict {verdict.get('verdict')}; run {verdict.get('profile', '?')} profile at "
             f"{verdict.get('run_at', '?')}; records {records_path.name}; fedrates {__version__}")
    metadata = {".svg": {"Title": args.claim, "Description": about, "Date": None},
                ".png": {"Title": args.claim, "Description": about},
                ".pdf": {"Title": args.claim, "Subject": about, "CreationDate": None}}[out.suffix.lower()]
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(out, metadata=metadata)
    except OSError as exc:
        raise InputError(f"cannot write '{out}': {exc.strerror or exc}") from None
    if args.json:
        from fedrates.verify.commands._common import print_json

        print_json({"figure": str(out), "plot": spec})
    else:
        print(f"wrote {out} ({args.claim}: {spec['statistic']} against {spec['x']}; verdict {verdict.get('verdict')})")
    return 0
