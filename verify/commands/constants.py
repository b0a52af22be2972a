"""``fedrates constants PROBLEM [--preset P] [--set k=v ...] [--batch B] [--radius R] [--replace] [--no-cache]
[--json]``.

Prints the exact assumption constants of an instance (L, μ, Λ, H, σ², Δ_i*, δ, Ψ, λ_opt, ...) with the formula
and the paper assumption each one instantiates.  PROBLEM may also be a preset name (its family is implied).
The result is cached (a checksummed JSON file in the reference cache directory, under ``constants/``) and keyed by
the problem's data, the options and the code that computes it, so a repeated command answers at once.
"""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("constants", help="exact assumption constants of a problem instance",
                              description=__doc__)
    p.add_argument("problem", metavar="PROBLEM", help="problem family (see `fedrates list problems`) or preset")
    p.add_argument("--preset", help="preset of the family (e.g. bao-lasso)")
    p.add_argument("--set", dest="assignments", nargs="+", action="extend", default=[], metavar="KEY=VALUE",
                   help="problem parameter override (repeatable)")
    p.add_argument("--batch", default="1", help="minibatch size B of the stochastic oracle (default 1)")
    p.add_argument("--radius", help="domain radius for H and sigma^2 (default: the problem's)")
    p.add_argument("--replace", action="store_true", help="empirical minibatches drawn with replacement")
    p.add_argument("--no-cache", action="store_true", help="neither read nor write the constants cache")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(handler=run)


def _build_problem(args: argparse.Namespace):
    from fedrates.solvers import problems
    from fedrates.verify.commands._common import parse_assignments

    name, preset = args.problem, args.preset
    if name not in problems.names() and preset is None:
        family = problems.preset_family(name)
        if family is not None:
            name, preset = family, name
    return problems.make(name, preset, **parse_assignments(args.assignments))


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, list):
        import numpy as np

        arr = np.asarray(value, dtype=float)
        if arr.size == 0:
            return "[]"
        return f"[{_fmt(float(arr.min()))} .. {_fmt(float(arr.max()))}] ({arr.size} clients)"
    if isinstance(value, float):
        if math.isnan(value):
            return "n/a"
        return f"{value:.6g}"
    return str(value)


#: modules whose code determines the document: a change to any of them gives a different cache key
_CODE = ("fedrates.solvers.constants", "fedrates.solvers._trs", "fedrates.solvers.fedproxvr_constants",
         "fedrates.solvers.penalties", "fedrates.solvers.problems.datafits", "fedrates.verify.commands.constants")


def _cache_key(problem: Any, args: argparse.Namespace) -> str:
    import hashlib
    import importlib.util
    from pathlib import Path

    from fedrates.solvers import _cache

    code = hashlib.sha256()
    for name in _CODE:
        code.update(Path(importlib.util.find_spec(name).origin).read_bytes())
    settings = {"what": "constants", "batch": args.batch, "replace": bool(args.replace), "radius": args.radius,
                "code": code.hexdigest()}
    return _cache.entry_key(problem.fingerprint, settings)


def _plain(obj: Any) -> Any:
    """numpy values as Python ones (floats keep NaN and ±inf: the cached file is read back by Python's json)."""
    if isinstance(obj, dict):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    if hasattr(obj, "tolist"):  # numpy arrays and scalars
        return _plain(obj.tolist())
    return obj


def _document(problem: Any, args: argparse.Namespace) -> dict:
    from fedrates.solvers.constants import DEFINITIONS, compute

    const = compute(problem, batch=args.batch, replace=args.replace, radius=args.radius)
    values = const.as_dict()
    return _plain({
        "problem": problem.summary(), "batch": const.batch, "replace": const.replace, "radius": const.radius,
        "seconds": const.seconds, "sampling": const.sampling,
        "constants": {name: {"value": values[name], "formula": d.formula, "assumption": d.assumption,
                             "exact": const.exact.get(name, True), "note": const.notes.get(name),
                             "interval": list(const.intervals[name]) if name in const.intervals else None}
                      for name, d in DEFINITIONS.items()},
        "notes": dict(const.notes),
        **_separation_json(problem),
        **_dinh_json(problem),
    })


def run(args: argparse.Namespace) -> int:
    import time

    from fedrates.verify.commands._common import parse_assignments, print_json

    started = time.perf_counter()
    # the arguments first, before numpy/scipy are imported or the problem is built: refusals stay instant
    from fedrates.verify.numbers import MAX_MAGNITUDE, parse_int, parse_number

    if args.radius is not None:  # squared by the constants: at most 1e100 keeps every square finite
        args.radius = parse_number("--radius", args.radius, high=MAX_MAGNITUDE, positive=True)
    args.batch = parse_int("--batch", args.batch, 1, 10**9)
    parse_assignments(args.assignments)
    from fedrates.solvers import _cache

    problem = _build_problem(args)
    directory = _cache.cache_dir() / "constants"
    key = None if args.no_cache else _cache_key(problem, args)
    doc = None if key is None else _cache.load_document(key, directory)
    cached = doc is not None
    if doc is None:
        doc = _document(problem, args)
        note = None if key is None else _cache.store_document(key, doc, directory)
        if note:
            sys.stderr.write(f"fedrates: warning: constants {note}\n")
    doc = {**doc, "cached": cached, "command_seconds": time.perf_counter() - started}
    if args.json:
        print_json(doc)
        return 0
    _print_text(doc)
    return 0


def _print_text(doc: dict) -> None:
    out = sys.stdout
    summary = doc["problem"]
    name = summary.get("preset") or summary["problem"]
    seconds = f"{doc['seconds']:.2f} s" + (" when computed; read from the cache" if doc["cached"] else "")
    out.write(f"constants of {name} (K = {summary['clients']}, d = {summary['dim']}, sampling = {doc['sampling']}, "
              f"B = {doc['batch']}, radius = {_fmt(doc['radius'])}; {seconds})\n")
    table = doc["constants"]
    width = max(len(n) for n in table)
    for key, entry in table.items():
        flag = "" if entry["exact"] else "  (bound)"
        out.write(f"  {key:<{width}}  {_fmt(entry['value']):<28} {entry['formula']} — {entry['assumption']}{flag}\n")
    for key, note in doc["notes"].items():
        out.write(f"  note {key}: {note}\n")
    _separation_text(doc, out)
    _dinh_text(doc, out)


def _dinh_json(problem: Any) -> dict:
    """Dinh et al.'s Assumption 1 constants (L, L_ms, L_F, λ, σ̄², PL m, Δ) of a finite-sum (``dinh_*``) problem."""
    if problem.family not in ("dinh_ls", "dinh_nc"):
        return {}
    from fedrates.solvers.errors import InputError
    from fedrates.solvers.fedproxvr_constants import ASSUMPTIONS, compute

    const = compute(problem)
    out = {"fedproxvr": {name: {"value": float(getattr(const, name)), "assumption": text}
                         for name, text in ASSUMPTIONS.items()}}
    if not const.realisable:  # Theta of Theorem 1 is refused, with the reason
        try:
            const.require_finite_sigma()
        except InputError as exc:
            out["fedproxvr_refused"] = str(exc)
    return out


def _dinh_text(doc: dict, out: Any) -> None:
    table = doc.get("fedproxvr")
    if table:
        out.write("finite-sum constants (Dinh et al., Assumption 1; w0 = 0)\n")
    for name, entry in (table or {}).items():
        out.write(f"  {name:<14}  {_fmt(entry['value']):<14} {entry['assumption']}\n")
    refused = doc.get("fedproxvr_refused") if table else None
    if refused:
        out.write(f"  note: {refused}\n")


def _separation_json(problem: Any) -> dict:
    """Bylinkin et al.'s two-group constants (group means f, g and server f_1, g_1) of a ``separation`` problem."""
    if problem.family != "separation":
        return {}
    from fedrates.solvers.constants import SEPARATION_DEFINITIONS, separation_constants

    values = separation_constants(problem)
    return {"separation": {n: {"value": values[n], "formula": d.formula, "assumption": d.assumption}
                           for n, d in SEPARATION_DEFINITIONS.items()}}


def _separation_text(doc: dict, out: Any) -> None:
    table = doc.get("separation")
    if table:
        out.write("two-group constants (Bylinkin et al.: h = f + g, server h_1 = f_1 + g_1)\n")
    for name, entry in (table or {}).items():
        out.write(f"  {name:<20}  {_fmt(entry['value']):<14} {entry['formula']} — {entry['assumption']}\n")
