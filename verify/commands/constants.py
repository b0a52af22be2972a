"""``fedrates constants PROBLEM [--preset P] [--set k=v ...] [--batch B] [--radius R] [--replace] [--json]``.

Prints the exact assumption constants of an instance (L, μ, Λ, H, σ², Δ_i*, δ, Ψ, λ_opt, ...) with the formula
and the paper assumption each one instantiates.  PROBLEM may also be a preset name (its family is implied).
"""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any

import numpy as np


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("constants", help="exact assumption constants of a problem instance",
                              description=__doc__)
    p.add_argument("problem", metavar="PROBLEM", help="problem family (see `fedrates list problems`) or preset")
    p.add_argument("--preset", help="preset of the family (e.g. bao-lasso)")
    p.add_argument("--set", dest="assignments", nargs="+", action="extend", default=[], metavar="KEY=VALUE",
                   help="problem parameter override (repeatable)")
    p.add_argument("--batch", type=int, default=1, help="minibatch size B of the stochastic oracle (default 1)")
    p.add_argument("--radius", type=float, help="domain radius for H and sigma^2 (default: the problem's)")
    p.add_argument("--replace", action="store_true", help="empirical minibatches drawn with replacement")
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
        arr = np.asarray(value, dtype=float)
        if arr.size == 0:
            return "[]"
        return f"[{_fmt(float(arr.min()))} .. {_fmt(float(arr.max()))}] ({arr.size} clients)"
    if isinstance(value, float):
        if math.isnan(value):
            return "n/a"
        return f"{value:.6g}"
    return str(value)


def run(args: argparse.Namespace) -> int:
    from fedrates.solvers.constants import DEFINITIONS, compute
    from fedrates.solvers.errors import InputError
    from fedrates.verify.commands._common import print_json

    if args.radius is not None and not (math.isfinite(args.radius) and args.radius > 0):
        raise InputError(f"--radius {args.radius} is not valid; expected a finite number > 0")
    problem = _build_problem(args)
    const = compute(problem, batch=args.batch, replace=args.replace, radius=args.radius)
    values = const.as_dict()
    if args.json:
        print_json({
            "problem": problem.summary(), "batch": const.batch, "replace": const.replace, "radius": const.radius,
            "seconds": const.seconds,
            "constants": {name: {"value": values[name], "formula": d.formula, "assumption": d.assumption,
                                 "exact": const.exact.get(name, True), "note": const.notes.get(name),
                                 "interval": list(const.intervals[name]) if name in const.intervals else None}
                          for name, d in DEFINITIONS.items()},
            **_separation_json(problem),
            **_dinh_json(problem),
        })
        return 0
    out = sys.stdout
    out.write(f"constants of {problem.name} (K = {const.clients}, d = {const.dim}, sampling = {const.sampling}, "
              f"B = {const.batch}, radius = {_fmt(const.radius)}; {const.seconds:.2f} s)\n")
    width = max(len(n) for n in DEFINITIONS)
    for name, d in DEFINITIONS.items():
        flag = "" if const.exact.get(name, True) else "  (bound)"
        out.write(f"  {name:<{width}}  {_fmt(values[name]):<28} {d.formula} — {d.assumption}{flag}\n")
    for name, note in const.notes.items():
        out.write(f"  note {name}: {note}\n")
    _separation_text(problem, out)
    _dinh_text(problem, out)
    return 0


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


def _dinh_text(problem: Any, out: Any) -> None:
    table = _dinh_json(problem).get("fedproxvr")
    if table:
        out.write("finite-sum constants (Dinh et al., Assumption 1; w0 = 0)\n")
    for name, entry in (table or {}).items():
        out.write(f"  {name:<14}  {_fmt(entry['value']):<14} {entry['assumption']}\n")
    refused = _dinh_json(problem).get("fedproxvr_refused") if table else None
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


def _separation_text(problem: Any, out: Any) -> None:
    table = _separation_json(problem).get("separation")
    if table:
        out.write("two-group constants (Bylinkin et al.: h = f + g, server h_1 = f_1 + g_1)\n")
    for name, entry in (table or {}).items():
        out.write(f"  {name:<20}  {_fmt(entry['value']):<14} {entry['formula']} — {entry['assumption']}\n")
