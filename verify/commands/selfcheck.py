"""``fedrates selfcheck``: run every broken variant of every claims module against its named claims.

A claim can only be trusted to catch bugs if it (a) passes on the correct code and (b) fails on plausible wrong
code.  ``selfcheck`` first runs every claim named by some variant on the correct code, then each variant
(:mod:`fedrates.verify.variants`) against its claims, in a fresh worker process per variant (patched functions and
per-process caches never leak between variants).  A variant is *caught* by the first of its claims whose verdict
is neither ``pass`` nor ``erratum`` (what would make ``fedrates verify`` exit 1) while that claim passes on the
correct code.  Prints each variant with the claim that caught it, the kill ratio, and per claim the variants it
kills; a claim that is no erratum and kills no variant is listed (it protects nothing). By default a variant stops at
its first catch, so the per-claim lists count first catches; ``--matrix`` runs every variant against every claim it
names and gives the full kill matrix.

Exit status: 0 when every variant is caught and every named claim passes on the correct code, 1 otherwise, 2 on bad
input.
"""

from __future__ import annotations

import argparse
import contextlib
import fnmatch
import sys
import time
from typing import Any

from fedrates.solvers.errors import InputError

PROFILES = ("quick", "standard", "full")
OK_VERDICTS = ("pass", "erratum", "informational")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("selfcheck", help="run the catalogue of broken variants against the claims (kill ratio)",
                       description=__doc__)
    p.add_argument("--profile", default="quick", help="quick (default) or standard")
    p.add_argument("--only", default=None, metavar="PATTERN", help="a variant id, or a glob or substring of ids")
    p.add_argument("--paper", default=None, metavar="ID",
                   help="only the variants whose claims belong to this paper (an id of 'fedrates list theorems')")
    p.add_argument("--jobs", default=None, type=str, help="worker processes (default: number of cores)")
    p.add_argument("--seed", default="0", type=str, help="base seed of the Monte-Carlo seeds (default 0)")
    p.add_argument("--matrix", action="store_true",
                   help="run every variant against every claim it names (full kill matrix; slower)")
    p.add_argument("--json", action="store_true", help="print the results as one JSON document")
    p.set_defaults(handler=main)


def _judge(claim: Any, profile: str, base_seed: int) -> dict:
    from fedrates.verify.sweep import run_claims

    result = run_claims([claim], profile, None, jobs=1, base_seed=base_seed)
    if claim.id in result.errors:
        return {"claim": claim.id, "verdict": "error", "message": result.errors[claim.id], "measured": ""}
    from fedrates.verify.pipeline import judge_one

    v = judge_one(claim, result.records.get(claim.id), profile)  # as verify judges it, certificates included
    return {"claim": claim.id, "verdict": v["verdict"], "message": str(v.get("message", "")),
            "measured": str(v.get("measured", ""))}


def _run_correct(task: tuple[str, str, int]) -> dict:
    from fedrates.verify import claims

    claim_id, profile, base_seed = task
    started = time.perf_counter()
    out = _judge(claims.get(claim_id), profile, base_seed)
    out["seconds"] = time.perf_counter() - started
    return out


def _run_variant(task: tuple) -> dict:
    """Run one variant against its claims (in order) until one of them does not pass (all of them with
    ``matrix``)."""
    from fedrates.verify import claims
    from fedrates.verify.variants import all_variants

    variant_id, available, trusted, profile, base_seed, *rest = task
    matrix = bool(rest and rest[0])
    variant = {v.id: v for v in all_variants()}[variant_id]
    started = time.perf_counter()
    tried: list[dict] = []
    for cid in variant.claim_ids(list(available)):
        claim = claims.get(cid)
        try:
            # a variant that cannot even be injected is a catalogue error, never a catch
            context = variant.patch() if variant.patch is not None else contextlib.nullcontext()
            broken = claim if variant.patch is not None else variant.apply(claim)
        except Exception as exc:
            tried.append({"claim": cid, "verdict": "injection-error", "measured": "",
                          "message": f"the variant could not be injected: {type(exc).__name__}: {exc}"})
            continue
        with context:
            res = _judge(broken, profile, base_seed)
        tried.append(res)
        if res["verdict"] not in OK_VERDICTS and cid in trusted and not matrix:
            break
    caught = next((r for r in tried if r["verdict"] not in OK_VERDICTS + ("injection-error",)
                   and r["claim"] in trusted), None)
    return {"variant": variant.id, "target": variant.target, "bug": variant.bug, "caught": caught is not None,
            "caught_by": None if caught is None else caught["claim"],
            "verdict": None if caught is None else caught["verdict"],
            "message": "" if caught is None else caught["message"], "tried": tried,
            "killed_by": [r["claim"] for r in tried if r["verdict"] not in OK_VERDICTS + ("injection-error",)
                          and r["claim"] in trusted],
            "seconds": time.perf_counter() - started}


def _map(fn: Any, tasks: list, jobs: int) -> list:
    """Run every task in a fresh process: patches and per-process caches (instances, references) never leak, not
    even from the calling process (a forked child would inherit its caches), so children come from a clean fork
    server that has only imported the claims."""
    if not tasks:
        return []
    import multiprocessing  # here, not at module level: every command's parser imports this module

    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    if "forkserver" in methods:
        ctx.set_forkserver_preload(["fedrates.verify.claims", "fedrates.verify.sweep"])
    with ctx.Pool(processes=max(1, min(jobs, len(tasks))), maxtasksperchild=1) as pool:
        return list(pool.imap(fn, tasks))


def main(args: argparse.Namespace) -> int:
    from fedrates.verify.commands._common import validate_selfcheck
    from fedrates.verify.variants import all_variants

    jobs, base_seed = validate_selfcheck(args)  # profile, --only, --jobs, --seed by the rules of verify
    variants = list(all_variants())
    if getattr(args, "paper", None) is not None:
        variants = of_paper(variants, args.paper)
    if args.only:
        exact = [v for v in variants if v.id == args.only]  # an exact id selects that variant alone
        variants = exact or [v for v in variants if fnmatch.fnmatchcase(v.id, args.only) or args.only in v.id]
        if not variants:
            raise InputError(f"--only '{args.only}' matches no broken variant"
                             + (f" of paper '{args.paper}'" if getattr(args, "paper", None) else "") + "; available: "
                             + ", ".join(v.id for v in (of_paper(all_variants(), args.paper)
                                                        if getattr(args, "paper", None) else all_variants())))
    doc = run_selfcheck([v.id for v in variants], args.profile, jobs, base_seed, matrix=args.matrix)
    if args.json:
        from fedrates.verify.commands._common import print_json

        print_json(doc)
    else:
        _print(doc)
    return 0 if doc["ok"] else 1


def of_paper(variants: Any, paper: str) -> list:
    """The variants whose named claims belong to ``paper`` (claim ids start with ``<paper>.``); an unknown paper is
    a one-line InputError naming the installed ones."""
    from fedrates import plugins
    from fedrates.verify.commands._common import shown

    known = plugins.ids()
    if paper not in known:
        raise InputError(f"--paper '{shown(paper)}' is not an installed paper; expected one of: {', '.join(known)}")
    return [v for v in variants if any(c.startswith(f"{paper}.") for c in v.claims)]


def run_selfcheck(variant_ids: list[str], profile: str = "quick", jobs: int = 1, base_seed: int = 0,
                  claims_only: tuple[str, ...] | None = None, matrix: bool = False) -> dict:
    """Run the named variants (and, first, their claims on the correct code; ``claims_only``: only those of the
    given ids, e.g. for a fast subset); returns the result document:
    ``variants`` (per variant: ``caught``, ``caught_by``, ``verdict``, ``tried``), ``kill_ratio``, ``correct``,
    ``claims_failing_on_correct_code``, ``variants_without_claims``, ``kills_per_claim`` (claim -> variants it
    kills), ``claims_killing_nothing`` (claims of the selected variants' papers, no erratum, killing none) and
    ``ok``."""
    from fedrates.verify import claims
    from fedrates.verify.variants import all_variants

    table = {v.id: v for v in all_variants()}
    variants = [table[vid] for vid in variant_ids]
    ids = claims.ids()
    if claims_only is not None:
        ids = [cid for cid in ids if cid in claims_only]
    named = sorted({cid for v in variants for cid in v.claim_ids(ids)})
    empty = [v.id for v in variants if not v.claim_ids(ids)]
    started = time.perf_counter()
    correct = {r["claim"]: r for r in _map(_run_correct, [(cid, profile, base_seed) for cid in named], jobs)}
    trusted = tuple(cid for cid, r in correct.items() if r["verdict"] in OK_VERDICTS)
    results = _map(_run_variant, [(v.id, tuple(ids), trusted, profile, base_seed, matrix) for v in variants], jobs)
    killed = sum(r["caught"] for r in results)
    untrusted = [cid for cid in named if cid not in trusted]
    kills = kills_per_claim(results)
    papers = {cid.split(".")[0] for cid in named}
    idle = [c.id for c in claims.all_claims() if c.id.split(".")[0] in papers and c.id in ids
            and c.erratum is None and not kills.get(c.id)]
    return {"profile": profile, "base_seed": base_seed, "matrix": matrix, "variants": results, "killed": killed,
            "kills_per_claim": kills, "claims_killing_nothing": idle,
            "total": len(results), "kill_ratio": killed / len(results) if results else 1.0,
            "correct": list(correct.values()), "claims_failing_on_correct_code": untrusted,
            "variants_without_claims": empty, "seconds": time.perf_counter() - started,
            "ok": killed == len(results) and not untrusted and not empty}


def kills_per_claim(results: list[dict]) -> dict[str, list[str]]:
    """Claim id -> the variants it killed (sorted), from the per-variant results of :func:`run_selfcheck`."""
    out: dict[str, list[str]] = {}
    for r in results:
        for cid in r.get("killed_by") or ([r["caught_by"]] if r.get("caught_by") else []):
            out.setdefault(cid, []).append(r["variant"])
    return {cid: sorted(set(vs)) for cid, vs in sorted(out.items())}


def _print(doc: dict) -> None:
    out = sys.stdout
    out.write(f"fedrates selfcheck (profile {doc['profile']}, base seed {doc['base_seed']})\n")
    out.write("correct code:\n")
    for r in doc["correct"]:
        out.write(f"  {r['claim']:<40} {r['verdict']}\n")
    out.write("broken variants:\n")
    for r in doc["variants"]:
        if r["caught"]:
            out.write(f"  {r['variant']:<36} caught by {r['caught_by']} ({r['verdict']})\n")
        else:
            tried = ", ".join(f"{t['claim']}={t['verdict']}" for t in r["tried"])
            out.write(f"  {r['variant']:<36} SURVIVED ({tried})\n")
    how = "every claim each variant names (--matrix)" if doc.get("matrix") else "first catch of each variant"
    out.write(f"variants killed per claim ({how}):\n")
    for cid, vids in doc.get("kills_per_claim", {}).items():
        out.write(f"  {cid:<40} {len(vids)}: {', '.join(vids)}\n")
    idle = doc.get("claims_killing_nothing") or []
    if idle:
        out.write(f"claims (no erratum) that killed no variant ({len(idle)}); they protect nothing"
                  f"{'' if doc.get('matrix') else ' among first catches'}:\n")
        for cid in idle:
            out.write(f"  {cid}\n")
    for cid in doc["claims_failing_on_correct_code"]:
        out.write(f"claim {cid} does not pass on the correct code: it cannot count as catching anything\n")
    for vid in doc["variants_without_claims"]:
        out.write(f"variant {vid} names no catalogued claim\n")
    out.write(f"kill ratio {doc['killed']}/{doc['total']} = {doc['kill_ratio']:.0%} in {doc['seconds']:.0f} s\n")
