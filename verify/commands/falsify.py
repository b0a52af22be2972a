"""``fedrates falsify THEOREM [--algorithm A] [--budget N] [--seed S] [--out DIR] [--json] [--point JSON [--seeds L]]``

Two directions on one theorem (see :mod:`fedrates.verify.falsify` and :mod:`fedrates.verify.pep`):

* adversarial instance search (explicit theorems with a registered target): the instance maximising measured/bound,
  its ratio interval, the theorem's conditions on it, and a verdict ``refuted`` / ``survived`` / ``vacuous``;
* tight worst cases (theorems with PEP cases): the SDP worst case of the K = 1 deterministic reduction against the
  theorem's value, verdict ``false-on-class`` / ``holds`` / ``tight`` / ``inconclusive``.

Writes ``DIR/records.parquet`` (every evaluated instance; rerunning with the same seed resumes), ``DIR/result.json``,
``DIR/report.html`` and ``DIR/report.pdf`` (default DIR: ``fedrates-falsify/THEOREM``).  Exit 0 when nothing was
broken, 1 when the bound is refuted or false on the PEP class, 2 on bad input (an ``order`` theorem, an unknown
theorem or algorithm, a budget ≤ 0).  ``--point JSON [--seeds LIST]`` evaluates one instance of the search box (the
rerun line printed for a worst instance) and prints its record; exit 1 when its ratio interval lies above 1.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from fedrates.solvers.errors import InputError
from fedrates.verify.commands._common import print_json

#: largest --budget (evaluated instances)
MAX_BUDGET = 100_000
#: longest --point text
MAX_POINT = 10_000


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "falsify", help="search for the instance that breaks a bound; tight worst cases with PEP",
        description="Search for the instance maximising measured/bound of an explicit theorem, and compare the "
                    "theorem with the tight worst case (PEPit) of its deterministic one-client reduction.")
    parser.add_argument("theorem", metavar="THEOREM", help="theorem id (see: fedrates list theorems)")
    parser.add_argument("--algorithm", help="algorithm of the search target (default: the theorem's registered one)")
    parser.add_argument("--budget", default=None,
                        help="number of evaluated instances (default: 200)")
    parser.add_argument("--seed", default="0", help="seed of the search and of the run seeds (default: 0)")
    parser.add_argument("--out", metavar="DIR", help="output directory (default: fedrates-falsify/THEOREM)")
    parser.add_argument("--json", action="store_true", help="print one JSON document")
    parser.add_argument("--point", metavar="JSON",
                        help="evaluate one instance of the search box instead of searching (the rerun line printed "
                             "for a worst instance), e.g. '{\"E\": 4, ...}'")
    parser.add_argument("--seeds", help="comma-separated run seeds for --point (default: the search seeds of --seed)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from fedrates.verify.commands._common import MAX_BASE_SEED, check_int

    # the numbers first, by the shared rules (ASCII digits, ranges), before anything is imported or built
    budget = None if args.budget is None else check_int("--budget", args.budget, 1, MAX_BUDGET)
    args.seed = check_int("--seed", args.seed, 0, MAX_BASE_SEED)
    point_text = args.point
    if point_text is not None and len(point_text) > MAX_POINT:
        raise InputError(f"--point is too long ({len(point_text)} characters; at most {MAX_POINT})")
    from fedrates.verify.commands._falsify_index import falsify_index, indexed_target

    index = falsify_index(build=False)  # a refusal writes nothing: the table is stored after a run that did not refuse
    quick = indexed_target(index, args.theorem, args.algorithm) if index is not None and point_text is not None \
        else None
    if quick is not None:
        parse_point(point_text, quick)  # a malformed point is refused before the targets are imported
        if args.seeds is not None:  # and then its seeds, as the rerun checks them
            from fedrates.verify.commands._common import seeds_of

            seeds_of(None, args.seeds)
    code = _checked_run(args, budget)
    if index is None:
        falsify_index(build=True)
    return code


def _checked_run(args: argparse.Namespace, budget: int | None) -> int:
    """The command once its numbers are checked: the theorem, its target and PEP cases, then the search, or the
    rerun of ``--point``."""
    from fedrates.bounds import catalog
    from fedrates.verify import falsify, pep

    thm = catalog.get(args.theorem)  # unknown ids: InputError with a suggestion
    budget = falsify.DEFAULT_BUDGET if budget is None else budget
    if thm.kind == "order":
        hint = f"; try {thm.id}.explicit" if f"{thm.id}.explicit" in catalog.ids() else ""
        raise InputError(f"theorem {thm.id} is of kind 'order' (hidden constant): nothing explicit to break{hint}")
    target = falsify.target_for(thm.id, args.algorithm) if thm.kind == "explicit" else None
    cases = pep.cases_for(thm.id)
    if args.algorithm is not None and target is None:
        raise InputError(f"no search target for theorem {thm.id} with algorithm '{args.algorithm}'")
    if target is None and not cases:
        searchable = sorted({t for t, _ in falsify.TARGETS})
        with_pep = sorted({c.theorem for c in pep.CASES if c.theorem})
        raise InputError(f"theorem {thm.id} has no search target and no PEP case; searchable: "
                         f"{', '.join(searchable)}; with PEP: {', '.join(with_pep)}")
    if args.point is not None or args.seeds is not None:
        return _rerun(args, thm, target)
    out = Path(args.out) if args.out else Path("fedrates-falsify") / thm.id
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"--out '{out}' cannot be created: {exc.strerror or exc}") from None
    summary: dict[str, Any] = {"theorem": thm.id, "label": thm.label, "title": thm.title, "statement": thm.statement,
                               "kind": thm.kind, "probability": thm.probability, "search": None, "pep": []}
    records = None
    from fedrates.verify.executors import single_threaded

    with single_threaded():  # one BLAS thread, as every command that computes (and as --point reruns the search)
        if target is not None:
            result = falsify.falsify(thm, target.algorithm, budget=budget, seed=args.seed, out=out)
            summary["search"] = result.as_dict()
            records = result.records
        summary["pep"] = [c.as_dict() for c in pep.compare_theorem(thm.id)]
    (out / "result.json").write_text(json.dumps(_jsonable(summary), indent=2) + "\n", encoding="utf-8")
    from fedrates.reports import falsify as report

    report.render_html(summary, records, out / "report.html")
    report.render_pdf(summary, records, out / "report.pdf")
    broken = (summary["search"] or {}).get("verdict") == "refuted" or any(
        c["verdict"] == "false-on-class" for c in summary["pep"])
    if args.json:
        print_json({**summary, "out": str(out)})
    else:
        sys.stdout.write(_text(summary, out))
    return 1 if broken else 0


def _jsonable(obj: Any) -> Any:
    from fedrates.verify.jsonable import to_jsonable

    return to_jsonable(obj)


def _g(v: Any) -> str:
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def _text(summary: dict[str, Any], out: Path) -> str:
    lines = [f"{summary['theorem']} ({summary['label']}): {summary['title']}"]
    s = summary["search"]
    if s is not None:
        lines.append(f"search: {s['algorithm']} on {s['family']}, {s['evaluations']} instances "
                     f"({s['valid_instances']} within the conditions), {s['seconds']:.1f} s")
        lines.append(f"verdict: {s['verdict']} -- {s['explanation']}")
        w = s["worst"]
        if w:
            b_lo, b_hi = w.get("bound_lo", w["bound"]), w.get("bound_hi", w["bound"])
            on_run = f" [{b_lo:.4g}, {b_hi:.4g}] (estimated on the run)" if b_lo != b_hi else ""
            lines.append(f"worst instance (#{w['index']}): measured/bound = {w['ratio']:.4g} "
                         f"[{w['ratio_lo']:.4g}, {w['ratio_hi']:.4g}], measured {w['measured_mean']:.4g}, "
                         f"bound {w['bound']:.4g}{on_run}")
            lines.append("  parameters: " + ", ".join(f"{k}={_g(v)}" for k, v in w["parameters"].items()))
            lines.append("  constants:  " + ", ".join(f"{k}={_g(v)}" for k, v in w["constants"].items()))
            lines.append("  conditions: " + "; ".join(
                f"{c['condition']} [{'holds' if c['holds'] else 'FAILS' if c['holds'] is False else 'n/a'}]"
                for c in w.get("conditions", [])))
            lines.append(f"  rerun: {w['run_command']}")
    for c in summary["pep"]:
        ratio = "" if c["ratio_bound_over_worst"] is None else f", bound/worst = {c['ratio_bound_over_worst']:.4g}"
        sdp = c["sdp"]
        gap = "n/a" if sdp["gap"] is None else f"{sdp['gap']:.1e}"
        lines.append(f"PEP {c['case']}: {c['verdict']} -- bound {_g(c['bound'])}, worst case {_g(c['worst_case'])}"
                     f"{ratio} (duality gap {gap}, {sdp['solver']}, {sdp['seconds']:.2f} s)")
        if c["verdict"] == "inconclusive":
            lines.append(f"  why: {c['explanation']}")
        if c["conditions"]:
            lines.append("  conditions: " + "; ".join(
                f"{d['condition']} [{'holds' if d['holds'] else 'FAILS' if d['holds'] is False else 'n/a'}]"
                for d in c["conditions"]))
    lines.append(f"records, result.json, report.html, report.pdf in {out}")
    return "\n".join(lines) + "\n"


def _rerun(args: argparse.Namespace, thm: Any, target: Any) -> int:
    """``--point JSON [--seeds LIST]``: evaluate one instance of the box and print its record; exit 1 when its
    ratio interval lies above 1 within the theorem's conditions."""
    from fedrates.verify import falsify

    if args.point is None:
        raise InputError("--seeds needs --point (the instance to rerun)")
    if target is None:
        raise InputError(f"--point needs a search target; theorem {thm.id} has none")
    x = parse_point(args.point, target)
    if args.seeds is not None:
        from fedrates.verify.commands._common import seeds_of

        seeds = seeds_of(None, args.seeds)
    else:
        n = target.seeds or falsify.SEARCH_SEEDS
        seeds = [int(args.seed) * 1000 + i for i in range(n)]
    from fedrates.verify.executors import single_threaded

    with single_threaded():
        row = falsify.evaluate(target, thm, x, seeds)
    if args.json:
        print_json(_jsonable({"theorem": thm.id, "algorithm": target.algorithm, "record": row}))
    else:
        keys = ("measured_mean", "measured_lo", "measured_hi", "bound", "ratio", "ratio_lo", "ratio_hi",
                "conditions_ok", "failed_conditions", "error")
        lines = [f"{thm.id} with {target.algorithm} at " + ", ".join(f"{k}={_g(v)}" for k, v in x.items())]
        lines += [f"  {k}: {_g(row[k])}" for k in keys if k in row and row[k] != ""]
        sys.stdout.write("\n".join(lines) + "\n")
    return 1 if row.get("conditions_ok") and row.get("ratio_lo", 0.0) > 1.0 else 0


def parse_point(text: str, target: Any) -> dict[str, float]:
    """``--point JSON``: an object giving exactly the target's parameters, each a number (JSON ``true`` is not 1)
    by the shared rules of :mod:`fedrates.verify.numbers`, inside the search box of its dimension (integral for an
    integer dimension); one-line InputError naming the parameter otherwise."""
    from fedrates.verify.numbers import parse_number

    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"--point is not JSON ({exc.msg}); expected an object of parameters") from None
    except RecursionError:
        raise InputError("--point is nested too deeply; expected an object of parameters") from None
    names = [d.name for d in target.space]
    if not isinstance(raw, dict) or sorted(raw) != sorted(names):
        raise InputError(f"--point must give exactly the parameters {', '.join(names)} of the {target.algorithm} "
                         f"target")
    x: dict[str, float] = {}
    for dim in target.space:
        value = raw[dim.name]
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise InputError(f"--point {dim.name} is {_shown_json(value)}; expected a number")
        v = parse_number(f"--point {dim.name}", value)
        slack = 1e-9 * max(abs(dim.low), abs(dim.high))  # the printed rerun line rounds the box edges
        if not dim.low - slack <= v <= dim.high + slack:
            raise InputError(f"--point {dim.name}={v:g} is outside the search box; expected a number in "
                             f"[{dim.low:g}, {dim.high:g}]")
        if dim.integer and not float(v).is_integer():
            raise InputError(f"--point {dim.name}={v:g} is not an integer; expected an integer in "
                             f"[{dim.low:g}, {dim.high:g}]")
        x[dim.name] = float(min(max(v, dim.low), dim.high))
    return x


def _shown_json(value: Any) -> str:
    from fedrates.verify.commands._common import shown

    try:
        return shown(json.dumps(value))
    except (TypeError, ValueError, RecursionError):
        return "not a number"
