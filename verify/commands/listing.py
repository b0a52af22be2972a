"""``fedrates list {problems,algorithms,theorems,claims}``: what fedrates knows about.

Registries are imported lazily; one that does not exist yet prints "none available".
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Any

KINDS = ("problems", "algorithms", "theorems", "claims")
_SOURCES = {"problems": ("fedrates.solvers.problems", "names"), "algorithms": ("fedrates.solvers.algorithms", "names"),
            "claims": ("fedrates.verify.claims", "ids")}


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("list", help="list problems, algorithms, theorems or claims",
                              description=__doc__)
    p.add_argument("what", choices=KINDS, help="what to list")
    p.add_argument("--paper", help="only theorems of this paper (bao, bylinkin, dinh, das, buttaci)")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(handler=run)


def _names(what: str) -> list[str] | None:
    module_name, func_name = _SOURCES[what]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and module_name.startswith(exc.name):
            return None
        raise
    func = getattr(module, func_name, None)
    return None if func is None else list(func())


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except BrokenPipeError:  # output piped into e.g. `head`: stop quietly
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _run(args: argparse.Namespace) -> int:
    from fedrates.verify.commands._common import print_json

    if args.what == "theorems":
        rows = _theorem_rows(args.paper)
        if args.json:
            print_json({"theorems": rows})
            return 0
        if not rows:
            sys.stdout.write("none available\n")
        paper = None
        for r in rows:
            if r["paper"] != paper:  # one heading per paper: its authors and title
                paper = r["paper"]
                sys.stdout.write(f"{'' if r is rows[0] else chr(10)}{r['citation']}\n")
            flag = f"  [{r['errata']} erratum]" if r["errata"] else ""
            sys.stdout.write(f"{r['id']:<30} {r['kind']:<11} {r['probability']:<17} {r['title']}{flag}\n")
        return 0
    if args.paper:
        from fedrates.solvers.errors import InputError

        raise InputError("--paper only applies to `fedrates list theorems`")
    names = _names(args.what)
    if args.what == "claims" and names:
        from fedrates.verify.claim_index import store_ids

        store_ids(names)  # lets `verify --only PATTERN` refuse a pattern matching no claim without the registry
    if args.json:
        print_json({args.what: names or []})
        return 0
    if not names:
        sys.stdout.write("none available\n")
        return 0
    for name in names:
        sys.stdout.write(f"{name}\n")
    return 0


def _theorem_rows(paper: str | None) -> list[dict[str, Any]]:
    """One row per catalogued theorem.  Building the catalogue takes about a second of sympy work, so the rows are
    cached (a checksummed JSON document keyed by the catalogue's code: any edit of it is a miss) and read back."""
    from fedrates.solvers import _cache

    directory = _cache.cache_dir() / "listings"
    from fedrates.plugins import catalogue_digest

    key = _cache.entry_key(catalogue_digest(), {"what": "theorems"})
    doc = _cache.load_document(key, directory)
    if doc is None:
        from fedrates.bounds.catalog import PAPERS, all_theorems
        from fedrates.papers import cite

        rows = [{"id": t.id, "paper": t.paper, "citation": cite(t.paper), "label": t.label, "kind": t.kind,
                 "probability": t.probability, "lhs": t.lhs, "algorithms": list(t.algorithms),
                 "errata": len(t.errata), "title": t.title}
                for t in all_theorems()]
        doc = {"papers": list(PAPERS), "theorems": rows}
        _cache.store_document(key, doc, directory)  # an unwritable cache only costs the next call its speed
    if paper is not None and paper not in doc["papers"]:
        from fedrates.solvers.errors import unknown_name

        raise unknown_name("paper", paper, doc["papers"])
    return [r for r in doc["theorems"] if paper is None or r["paper"] == paper]
