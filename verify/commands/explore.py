"""``fedrates explore THEOREM``: a theorem's statement, conditions, value and analysis.

    fedrates explore bao.thm2.1 --exponent T
    fedrates explore bao.thm2.1 --set mu=0.5 L=1 a=8 T=1e4 K=4 E=2 Lam=1 H=1 rho=1 sigma=1 B=1 --dominant T
    fedrates explore bao.thm2.1 --set ... --solve T --target 1e-3 --json
    fedrates explore dinh.sec4.3 --set L=1 lam=0.5 sigma_bar_sq=0.5 gamma=0.01 --minimize beta mu

Symbol values and targets are parsed by :mod:`fedrates.bounds.parse` (numbers and arithmetic only).  Every symbol is
positive except indicators and the round index t, which may be 0.  Every argument is validated before any analysis.
Bad input (unknown theorem or symbol, missing values for a requested numeric answer, non-positive values, a bad
range, no root in the range) is one line on stderr and exit status 2; failing theorem conditions are reported (for
--dominant: on which intervals) and the answer is still given.  --solve is numeric and bounded in time.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from fedrates.solvers.errors import InputError


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("explore", help="statement, conditions, value and analysis of a theorem",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("theorem", help="theorem id, e.g. bao.thm2.1 (see `fedrates list theorems`)")
    p.add_argument("--set", dest="assignments", nargs="+", action="extend", default=[], metavar="SYM=VALUE",
                   help="values of the theorem's symbols, e.g. --set mu=0.1 L=2 T=1e4")
    p.add_argument("--exponent", metavar="VAR", help="exponent of the rhs in VAR as VAR -> infinity")
    p.add_argument("--at-zero", action="store_true", help="take the exponent as VAR -> 0+ instead")
    p.add_argument("--solve", metavar="VAR", help="solve rhs = TARGET for VAR (positive verified roots)")
    p.add_argument("--target", metavar="EPS", help="target value for --solve (an arithmetic expression)")
    p.add_argument("--dominant", metavar="VAR", help="intervals of VAR where each term of the rhs dominates")
    p.add_argument("--minimize", nargs="+", metavar="VAR",
                   help="minimise the rhs over these symbols subject to the theorem's conditions (numeric: log-grid, "
                        "then zoom; e.g. Dinh et al.'s training-time problems dinh.sec4.3 and dinh.eq20)")
    p.add_argument("--range", dest="vrange", nargs=2, metavar=("LO", "HI"),
                   help="range of VAR for --dominant and --solve (default 1e-6..1e15 and 1e-12..1e18), of every "
                        "variable of --minimize (default 1e-3..1e6)")
    p.add_argument("--latex", action="store_true", help="print the statement as LaTeX")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(handler=run)


def _lookup(theorem_id: str):
    """The theorem, importing only its paper's catalogue module when the id names a known paper (and building only
    that theorem when the module offers ``theorem(id)``)."""
    import importlib

    from fedrates.bounds.catalog import PAPERS, get

    paper = theorem_id.split(".", 1)[0]
    if paper in PAPERS:
        try:
            module = importlib.import_module(f"fedrates.bounds.catalog.{paper}")
        except ModuleNotFoundError:
            module = None
        build_one = getattr(module, "theorem", None)  # a catalogue that builds one theorem at a time
        if build_one is not None:
            found = build_one(theorem_id)
            if found is not None:
                return found
        else:
            for theorem in getattr(module, "THEOREMS", ()):
                if theorem.id == theorem_id:
                    return theorem
    return get(theorem_id)  # unknown id: the registry's error with a suggestion


def _fmt(x: float) -> str:
    return f"{x:.6g}"


def _validate(args: argparse.Namespace, theorem: Any) -> tuple[dict[str, float], float | None, float | None,
                                                             float | None]:
    """Every argument checked before any analysis: (values, lo, hi, target)."""
    from fedrates.bounds import analysis
    from fedrates.bounds.parse import parse_assignments, parse_number, shown

    names = sorted(s.name for s in theorem.free_symbols)
    values = parse_assignments(args.assignments, names, zero_ok=theorem.zero_allowed)
    for opt in ("exponent", "solve", "dominant"):
        var = getattr(args, opt)
        if var is not None:
            analysis.symbol(theorem, var)  # unknown variable -> InputError with a suggestion
            if var not in {s.name for s in theorem.rhs.free_symbols}:
                raise InputError(f"--{opt} {shown(var)}: '{shown(var)}' appears only in the conditions of "
                                 f"{theorem.id}, not in its rhs")
    lo = hi = None
    if args.vrange:
        lo, hi = (parse_number(t) for t in args.vrange)
        if not 0 < lo < hi:
            raise InputError(f"--range must satisfy 0 < LO < HI, got LO = {lo:g}, HI = {hi:g}")
    target = None
    if args.target is not None:
        target = parse_number(args.target, values)
    for opt in ("solve", "dominant"):
        var = getattr(args, opt)
        if var is not None:
            missing = sorted(s.name for s in theorem.rhs.free_symbols if s.name != var and s.name not in values)
            if missing:
                what = "solving for" if opt == "solve" else "dominant regimes in"
                raise InputError(f"{what} {var} needs values for: {', '.join(missing)}")
    return values, lo, hi, target


def run(args: argparse.Namespace) -> int:
    import warnings

    with warnings.catch_warnings():  # numeric edge cases are reported as values, not as warnings on stderr
        warnings.simplefilter("ignore", RuntimeWarning)
        return _run(args)


def _precheck(args: argparse.Namespace) -> None:
    """The checks that need no theorem (and no sympy import): option combinations and a plain-number range."""
    import math

    if args.solve and args.target is None:
        raise InputError("--solve needs --target EPS")
    if args.target is not None and not args.solve:
        raise InputError("--target is only used with --solve VAR")
    if args.vrange and not (args.solve or args.dominant or args.minimize):
        raise InputError("--range is only used with --solve VAR, --dominant VAR or --minimize VAR...")
    if args.minimize and (args.solve or args.dominant):
        raise InputError("--minimize cannot be combined with --solve or --dominant (they read --range differently)")
    if args.at_zero and not args.exponent:
        raise InputError("--at-zero is only used with --exponent VAR")
    for item in args.assignments:
        key, _, text = item.partition("=")
        try:
            value = float(text)
        except ValueError:
            continue  # arithmetic: checked when parsed
        if not math.isfinite(value) or value < 0:
            raise InputError(f"value of '{key.strip()}' must be a finite positive number (>= 0 for indicators and "
                             f"round indices), got {text.strip()}")
    if args.vrange:
        try:
            lo, hi = (float(t) for t in args.vrange)
        except ValueError:
            return  # arithmetic: checked after parsing
        if not (math.isfinite(lo) and math.isfinite(hi) and 0 < lo < hi):
            raise InputError(f"--range must satisfy 0 < LO < HI < inf, got LO = {lo:g}, HI = {hi:g}")


def _index_precheck(args: argparse.Namespace, index: dict[str, Any]) -> None:
    """The checks that need only the theorem's letters, read from the cached symbol table (no sympy): unknown
    theorem, unknown or repeated symbol, a bad value (zero where 0 is not allowed, negative, or arithmetic that
    fails), an unknown or conditions-only variable, a bad range or target, and missing values.  The same messages,
    in the same order, as the full checks in :func:`_validate`, which run again on the theorem.  Arithmetic values
    are decided by :mod:`fedrates.bounds.quickparse` where that is certain; where it is not, the checks stop here
    and the full path decides."""
    from fedrates.bounds.quickparse import Undecided

    try:
        _quick_checks(args, index)
    except Undecided:
        return  # the sympy parser decides this value and everything after it


def _quick_value(text: str, names: Any) -> Any:
    from fedrates.bounds.quickparse import quick_number

    return quick_number(text, names)


def _quick_checks(args: argparse.Namespace, index: dict[str, Any]) -> None:
    from fedrates.bounds.quickparse import Undecided
    from fedrates.solvers.errors import MAX_INPUT_LENGTH, shown, suggest, unknown_name
    if args.theorem not in index:
        raise unknown_name("theorem", args.theorem, index)
    entry = index[args.theorem]
    free, rhs, zero_ok = set(entry["free"]), set(entry["rhs"]), set(entry["zero_ok"])
    given: set[str] = set()
    for item in args.assignments:
        if len(item) > MAX_INPUT_LENGTH or "=" not in item:
            raise Undecided("the full parser words these")
        key, _, text = item.partition("=")
        key = key.strip()
        if key not in free:
            raise InputError(f"unknown symbol '{shown(key)}'{suggest(key, sorted(free))}; expected one of: "
                             f"{', '.join(sorted(free))}")
        if key in given:
            raise InputError(f"--set gives '{key}' twice; give each symbol once")
        given.add(key)
        quick = _quick_value(text, free)  # plain numbers too: '-0' and '1e-400' are 0 for the full parser
        if key in zero_ok:
            ok = quick.nonnegative()
            if ok is False:
                raise InputError(f"value of '{key}' must be >= 0, got {quick.shown()}")
        else:
            ok = quick.positive()
            if ok is False:
                raise InputError(f"value of '{key}' must be positive (all symbols but indicators and round indices "
                                 f"are positive), got {quick.shown()}")
        if ok is None:
            raise Undecided("sign")
    for opt in ("exponent", "solve", "dominant"):
        var = getattr(args, opt)
        if var is None:
            continue
        if var not in free | rhs:
            raise unknown_name(f"symbol of {args.theorem}", var, free | rhs)
        if var not in rhs:
            raise InputError(f"--{opt} {shown(var)}: '{shown(var)}' appears only in the conditions of "
                             f"{args.theorem}, not in its rhs")
    if args.vrange:
        lo, hi = (_quick_value(t, ()) for t in args.vrange)
        (lo_lo, lo_hi), (hi_lo, hi_hi) = lo.floats(), hi.floats()
        if lo_hi <= 0 or lo_lo >= hi_hi:
            raise InputError(f"--range must satisfy 0 < LO < HI, got LO = {lo.shown()}, HI = {hi.shown()}")
        if not (lo_lo > 0 and lo_hi < hi_lo):
            raise Undecided("range order")
    if args.target is not None:
        _quick_value(args.target, given)  # a name of a given symbol is undecided here
    for opt in ("solve", "dominant"):
        var = getattr(args, opt)
        if var is not None:
            missing = sorted(n for n in rhs if n != var and n not in given)
            if missing:
                what = "solving for" if opt == "solve" else "dominant regimes in"
                raise InputError(f"{what} {var} needs values for: {', '.join(missing)}")


def _run(args: argparse.Namespace) -> int:
    from fedrates.verify.commands._theorem_index import theorem_index

    _precheck(args)  # before sympy is imported: the quick refusals stay quick
    index = theorem_index(build=False)  # a refusal writes nothing: the table is stored after a successful answer
    if index is not None:
        _index_precheck(args, index)
    code = _answer(args)
    if index is None:
        theorem_index(build=True)
    return code


def _answer(args: argparse.Namespace) -> int:
    from sympy import sstr as sp_str

    from fedrates.bounds import analysis
    theorem = _lookup(args.theorem)
    values, lo, hi, target = _validate(args, theorem)

    doc: dict[str, Any] = {
        "id": theorem.id, "label": theorem.label, "title": theorem.title, "kind": theorem.kind,
        "probability": theorem.probability, "lhs": theorem.lhs, "rhs": str(theorem.rhs),
        "statement": theorem.statement, "symbols": dict(theorem.symbols),
        "notes": [{"kind": n.kind, "text": n.text, "resolution": n.resolution} for n in theorem.notes],
    }
    conditions = theorem.check_conditions(values)
    doc["conditions"] = [c.as_dict() for c in conditions]
    failed = [c.text for c in conditions if c.holds is False]

    missing_value = [n for n in theorem.rhs_symbols if n not in values]
    doc["value"] = theorem.evaluate(values) if not missing_value else None
    doc["missing"] = missing_value

    if args.exponent:
        info = analysis.exponent_details(theorem, args.exponent, at=0 if args.at_zero else "oo")
        doc["exponent"] = {"variable": args.exponent, "at": "0+" if args.at_zero else "oo",
                           "value": str(info.value), "float": float(info.value),
                           "log_factor": info.log_factor, "numeric_slope": info.numeric, "note": info.note}
    if args.dominant:
        kw = {} if lo is None else {"lo": lo, "hi": hi}
        regimes = analysis._regimes_full(theorem, args.dominant, values, **kw)
        doc["dominant"] = [{"term": sp_str(t), "latex": analysis.to_latex(t), "lo": a, "hi": b,
                            "conditions_fail": [{"condition": c, "lo": fa, "hi": fb} for c, fa, fb in fails]}
                           for t, a, b, fails in regimes]
    if args.solve:
        kw = {} if lo is None else {"lo": lo, "hi": hi}
        sol = analysis.solve_details(theorem, args.solve, target, values, **kw)
        doc["flat"] = [list(f) for f in sol.flat]
        if not sol.roots and not sol.flat:
            where = f"{args.solve} in [{sol.lo:g}, {sol.hi:g}]"
            why = "".join(f"; condition {text} fails at the given values" for text in failed)
            if sol.undefined > 0:
                raise InputError(f"inconclusive: no positive root of {theorem.id} rhs = {target:g} found for "
                                 f"{where}, and the rhs is undefined on {100 * sol.undefined:.0f}% of that range"
                                 + why)
            raise InputError(f"no positive root of {theorem.id} rhs = {target:g} found for {where}" + why)
        doc["roots"] = [{"value": r, "conditions_fail": theorem.failed_conditions({**values, args.solve: r})}
                        for r in sol.roots]
        doc["range"] = [sol.lo, sol.hi]
        doc["target"] = target
    if args.minimize:
        doc["minimum"] = _minimum(theorem, args.minimize, values, lo, hi)
    if args.latex:
        doc["latex"] = analysis.to_latex(theorem)

    for text in failed:
        sys.stderr.write(f"fedrates: warning: condition {text} fails for {theorem.id}; answering anyway\n")
    if args.json:
        from fedrates.verify.commands._common import print_json

        print_json(doc)
        return 0
    _print_text(doc)
    return 0


def _minimum(theorem: Any, variables: list[str], values: dict[str, float], lo: float | None,
             hi: float | None) -> dict[str, Any]:
    """The constrained minimum of the rhs, with the quantities the theorem's paper derives from the optimum."""
    import importlib

    from fedrates.bounds._logeval import compile_value
    from fedrates.bounds.minimize import minimize

    kw = {} if lo is None else {"lo": lo, "hi": hi}
    res = minimize(theorem, variables, values, **kw)
    at = {**values, **res.point}
    try:
        module = importlib.import_module(f"fedrates.bounds.catalog.{theorem.paper}")
    except ModuleNotFoundError:
        module = None
    derived = {name: float(compile_value(expr)(at)) for name, expr in
               getattr(module, "DERIVED", {}).get(theorem.id, {}).items()}
    return {"variables": list(variables), "point": res.point, "value": res.value, "derived": derived,
            "range": [res.lo, res.hi], "grid_decades": res.grid_decades, "evaluations": res.evaluations,
            "conditions_fail": theorem.failed_conditions(at)}


def _print_text(doc: dict[str, Any]) -> None:
    out = sys.stdout.write
    out(f"{doc['id']}  ({doc['label']}; {doc['kind']}, {doc['probability']})\n")
    out(f"  {doc['title']}\n")
    out(f"  statement: {doc['statement']}\n")
    out(f"  {doc['lhs']} {'<~' if doc['kind'] == 'order' else '<='} {doc['rhs']}\n")
    if doc["conditions"]:
        out("  conditions:\n")
        for c in doc["conditions"]:
            pending = "needs " + ", ".join(c["missing"]) if c["missing"] else "undefined at these values"
            status = {True: "holds", False: "FAILS", None: pending}[c["holds"]]
            out(f"    {c['condition']:<40} {status}\n")
    if doc["value"] is not None:
        out(f"  value: {_fmt(doc['value'])}\n")
    elif doc["missing"]:
        out(f"  value: needs {', '.join(doc['missing'])}\n")
    if "exponent" in doc:
        e = doc["exponent"]
        out(f"  exponent in {e['variable']} (-> {e['at']}): {e['value']}\n")
        if e["note"]:
            out(f"    ({e['note']})\n")
    if "dominant" in doc:
        out("  dominant term by interval:\n")
        for r in doc["dominant"]:
            out(f"    [{_fmt(r['lo'])}, {_fmt(r['hi'])}]  {r['term']}\n")
            for c in r["conditions_fail"]:
                out(f"      condition {c['condition']} FAILS on [{_fmt(c['lo'])}, {_fmt(c['hi'])}]\n")
    for a_, b_ in doc.get("flat", ()):
        out(f"  rhs = {_fmt(doc['target'])} on all of [{_fmt(a_)}, {_fmt(b_)}] (constant at double precision)\n")
    if "roots" in doc:
        out(f"  roots of rhs = {_fmt(doc['target'])}:\n")
        for r in doc["roots"]:
            flag = f"  (condition fails: {'; '.join(r['conditions_fail'])})" if r["conditions_fail"] else ""
            out(f"    {_fmt(r['value'])}{flag}\n")
    if "minimum" in doc:
        m = doc["minimum"]
        out(f"  minimum of rhs over {', '.join(m['variables'])} in [{_fmt(m['range'][0])}, {_fmt(m['range'][1])}] "
            f"(log-grid {m['grid_decades']:.3g} decades, then zoom; {m['evaluations']} evaluations):\n")
        out(f"    value: {_fmt(m['value'])}\n")
        for k, v in {**m["point"], **m["derived"]}.items():
            out(f"    {k:<12} {_fmt(v)}\n")
        if m["conditions_fail"]:
            out(f"    conditions failing at the optimum: {'; '.join(m['conditions_fail'])}\n")
    if "latex" in doc:
        out(f"  latex: {doc['latex']}\n")
    for n in doc["notes"]:
        if n["kind"] == "erratum":
            out(f"  erratum: {n['text']}\n    resolution: {n['resolution']}\n")
