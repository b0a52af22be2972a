"""``fedrates constants PROBLEM [--preset P] [--set k=v ...] [--batch B] [--radius R] [--replace] [--no-cache]
[--json]``.

Prints the exact assumption constants of an instance (L, μ, Λ, H, σ², Δ_i*, δ, Ψ, λ_opt, ...) with the formula
and the paper assumption each one instantiates, and the certificate of each one: the witness that attains it (a
client, a direction, a point, a pair) with the definition evaluated there, and the bound computed by a second,
independent route (Cholesky tests, trust-region duality, a strong-convexity bound, an exhaustive maximum), with
both methods; constants that cannot be certified are listed with the reason.  Family sections: Dinh et al.'s
Assumption 1 (dinh_*), Bylinkin et al.'s two-group constants (separation), Buttaci & Calafiore's Γ, L, μ, S, σ²
(similar_quadratic).  PROBLEM may also be a preset name (its family is implied).
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
         "fedrates.solvers.penalties", "fedrates.solvers.problems.datafits", "fedrates.verify.commands.constants",
         "fedrates.solvers.certify", "fedrates.solvers.problems.similar_quadratic",
         "fedrates.solvers.problems.separation", "fedrates.solvers.closed_form",
         "fedrates.solvers.problems.structured_quadratic", "fedrates.solvers.certify_structured",
         "fedrates.solvers.problems.implicit_least_squares", "fedrates.solvers.certify_implicit",
         "fedrates.solvers.problems.lowrank_quadratic", "fedrates.solvers.certify_lowrank")


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


def _closed_form_document(problem: Any, args: argparse.Namespace) -> dict | None:
    """The document of a scalable family's closed form (:mod:`fedrates.solvers.closed_form`), or None when the
    family has none or the dense route applies to this instance."""
    from fedrates.solvers import problems
    from fedrates.solvers.certify import check_certified
    from fedrates.solvers.constants import DEFINITIONS

    make = problems.family(problem.family).closed_form
    closed = None if make is None else make(problem, args.batch, args.replace, args.radius)
    if closed is None:
        return None
    radius = problem.radius if args.radius is None else args.radius
    return _plain({
        "problem": problem.summary(), "batch": args.batch, "replace": bool(args.replace), "radius": radius,
        "seconds": closed.seconds, "sampling": problem.sampling, "method": closed.method,
        "constants": {name: {"value": closed.values[name], "formula": d.formula, "assumption": d.assumption,
                             "exact": True, "note": closed.notes.get(name), "interval": None}
                      for name, d in DEFINITIONS.items()},
        "notes": dict(closed.notes),
        "certificates": {name: c.as_dict() for name, c in closed.certificates.items()},
        "uncertified": dict(closed.uncertified),
        "disagreements": check_certified(closed.certificates),
    })


def _document(problem: Any, args: argparse.Namespace) -> dict:
    from fedrates.solvers.certify import check_certified
    from fedrates.solvers.constants import DEFINITIONS, compute

    closed = _closed_form_document(problem, args)
    if closed is not None:
        return closed
    const = compute(problem, batch=args.batch, replace=args.replace, radius=args.radius,
                    cache=not args.no_cache)
    values = const.as_dict()
    certs = const.certificates
    return _plain({
        "problem": problem.summary(), "batch": const.batch, "replace": const.replace, "radius": const.radius,
        "seconds": const.seconds, "sampling": const.sampling,
        "constants": {name: {"value": values[name], "formula": d.formula, "assumption": d.assumption,
                             "exact": const.exact.get(name, True), "note": const.notes.get(name),
                             "interval": list(const.intervals[name]) if name in const.intervals else None}
                      for name, d in DEFINITIONS.items()},
        "notes": dict(const.notes),
        "certificates": {name: c.as_dict() for name, c in certs.items()},
        "uncertified": dict(const.uncertified),
        "disagreements": check_certified(certs),
        **_separation_json(problem),
        **_dinh_json(problem),
        **_buttaci_json(problem),
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
    from fedrates.verify.executors import single_threaded

    # one BLAS thread, as `fedrates reference`: on a shared machine the threads of d × d eigendecompositions
    # oversubscribe the cores (bao-lasso-sized lasso under load 14 on 2 cores: 5.6 s with one thread, 63 s without),
    # the libraries loaded inside the block (numpy's and scipy's OpenBLAS, on first use) included
    with single_threaded():
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
    if doc.get("method"):
        out.write(f"  method: {doc['method']} (the dense route would form every client Hessian)\n")
    table = doc["constants"]
    width = max(len(n) for n in table)
    for key, entry in table.items():
        flag = "" if entry["exact"] else "  (bound)"
        out.write(f"  {key:<{width}}  {_fmt(entry['value']):<28} {entry['formula']} — {entry['assumption']}{flag}\n")
    for key, note in doc["notes"].items():
        out.write(f"  note {key}: {note}\n")
    _certificates_text(doc.get("certificates", {}), doc.get("uncertified", {}), out)
    _separation_text(doc, out)
    _dinh_text(doc, out)
    _buttaci_text(doc, out)
    bad = [line for key in ("disagreements", "fedproxvr_disagreements", "separation_disagreements",
                            "buttaci_disagreements") for line in doc.get(key, [])]
    out.write(f"certificates: {'all agree (1e-9 relative)' if not bad else f'{len(bad)} DISAGREE'}\n")
    for line in bad:
        out.write(f"  DISAGREES: {line}\n")


def _witness_text(witness: dict) -> str:
    """Short form of a witness: integers and labels as they are, vectors by size and first entries."""
    parts = []
    for key, value in witness.items():
        if isinstance(value, list) and value and isinstance(value[0], float):
            head = ", ".join(f"{x:.4g}" for x in value[:3])
            parts.append(f"{key}[{len(value)}] = ({head}{', ...' if len(value) > 3 else ''})")
        elif isinstance(value, list) and len(value) > 4:
            parts.append(f"{key}: {len(value)} entries")
        else:
            parts.append(f"{key} = {value}")
    return "; ".join(parts) or "-"


def _certificates_text(certs: dict, uncertified: dict, out: Any, title: str = "certificates") -> None:
    if not certs and not uncertified:
        return
    out.write(f"{title} (witness attains the value; the second route bounds the other side)\n")
    width = max([len(n) for n in certs] + [4])
    for name, c in certs.items():
        side = "upper" if c["sense"] == "sup" else "lower"
        exact = "exact" if c["upper_exact"] else "bound"
        status = "ok" if c["agrees"] else "DISAGREES"
        out.write(f"  {name:<{width}}  value {_fmt(c['value']):<12} witness {_fmt(c['witness_value']):<12} "
                  f"{side} {_fmt(c['upper']):<12} ({exact}) {status}\n")
        out.write(f"  {'':<{width}}    witness: {_witness_text(c['witness'])}\n")
        out.write(f"  {'':<{width}}    first route: {c['lower_method']}\n")
        out.write(f"  {'':<{width}}    second route: {c['upper_method']}\n")
    reasons: dict[str, list[str]] = {}
    for name, why in uncertified.items():
        reasons.setdefault(why, []).append(name)
    for why, names in reasons.items():
        out.write(f"  uncertified {', '.join(names)}: {why}\n")


def _dinh_json(problem: Any) -> dict:
    """Dinh et al.'s Assumption 1 constants (L, L_ms, L_F, λ, σ̄², PL m, Δ) of a finite-sum (``dinh_*``) problem."""
    if problem.family not in ("dinh_ls", "dinh_nc"):
        return {}
    from fedrates.solvers.certify import check_certified
    from fedrates.solvers.errors import InputError
    from fedrates.solvers.fedproxvr_constants import ASSUMPTIONS, compute

    const = compute(problem)
    out = {"fedproxvr": {name: {"value": float(getattr(const, name)), "assumption": text}
                         for name, text in ASSUMPTIONS.items()},
           "fedproxvr_certificates": {n: c.as_dict() for n, c in const.certificates.items()},
           "fedproxvr_uncertified": dict(const.uncertified),
           "fedproxvr_disagreements": check_certified(const)}
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
    if table:
        _certificates_text(doc.get("fedproxvr_certificates", {}), doc.get("fedproxvr_uncertified", {}), out,
                           "certificates of the finite-sum constants")


def _separation_json(problem: Any) -> dict:
    """Bylinkin et al.'s two-group constants (group means f, g and server f_1, g_1) of a ``separation`` problem."""
    if problem.family != "separation":
        return {}
    from fedrates.solvers.certify import check_certified, for_separation
    from fedrates.solvers.constants import SEPARATION_DEFINITIONS, separation_constants

    values = separation_constants(problem)
    certs = for_separation(problem)
    return {"separation": {n: {"value": values[n], "formula": d.formula, "assumption": d.assumption}
                           for n, d in SEPARATION_DEFINITIONS.items()},
            "separation_certificates": {n: c.as_dict() for n, c in certs.items()},
            "separation_disagreements": check_certified(certs)}


def _separation_text(doc: dict, out: Any) -> None:
    table = doc.get("separation")
    if table:
        out.write("two-group constants (Bylinkin et al.: h = f + g, server h_1 = f_1 + g_1)\n")
    for name, entry in (table or {}).items():
        out.write(f"  {name:<20}  {_fmt(entry['value']):<14} {entry['formula']} — {entry['assumption']}\n")
    if table:
        _certificates_text(doc.get("separation_certificates", {}), {}, out, "certificates of the two-group constants")


def _buttaci_json(problem: Any) -> dict:
    """Buttaci & Calafiore's constants (Γ with the graph's degree weights, per-client L and μ, S, σ²) of a
    ``similar_quadratic`` problem, with their certificates."""
    if problem.family != "similar_quadratic":
        return {}
    from fedrates.solvers.certify import check_certified, for_buttaci
    from fedrates.solvers.problems.similar_quadratic import exact_constants

    consts = exact_constants(problem)
    certs, skip = for_buttaci(problem, consts)
    keys = ("L", "mu", "L_f", "mu_f", "S", "Gamma", "sigma2")
    return {"buttaci": {k: float(consts[k]) for k in keys},
            "buttaci_certificates": {n: c.as_dict() for n, c in certs.items()}, "buttaci_uncertified": skip,
            "buttaci_disagreements": check_certified(certs)}


def _buttaci_text(doc: dict, out: Any) -> None:
    table = doc.get("buttaci")
    if not table:
        return
    out.write("similarity-graph constants (Buttaci & Calafiore: degree weights p_i of the graph)\n")
    for name, value in table.items():
        out.write(f"  {name:<8}  {_fmt(value)}\n")
    _certificates_text(doc.get("buttaci_certificates", {}), doc.get("buttaci_uncertified", {}), out,
                       "certificates of the similarity-graph constants")
