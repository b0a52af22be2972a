"""The verification pipeline: sweep → judge → records, verdicts, errata, provenance → HTML report.

Nothing computed is lost: each finished sweep point is cached as soon as it completes (:mod:`verify.sweep`), and a
claim that raises is reported with verdict ``error`` and its message while the other claims still run.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from fedrates.solvers.errors import InputError
from fedrates.verify import records as rec
from fedrates.verify.claims.base import Claim
from fedrates.verify.sweep import run_claims

__all__ = ["verify_claims", "judge_all", "collect_errata"]


def _error_verdict(claim: Claim, message: str) -> dict[str, Any]:
    return {
        "claim": claim.id, "title": claim.title, "theorem": claim.theorem, "statement": "",
        "algorithm": claim.algorithm, "problem": claim.problem, "verdict": "error", "measured": "—",
        "predicted": "—", "tolerance": "—", "regime": claim.regime, "why": claim.why, "conditions": [],
        "constants": {}, "seeds": [], "message": message, "x": claim.x, "metric": claim.metric, "fit": None,
        "calibrated_constant": None,
    }


def judge_all(claims: Sequence[Claim], records: dict[str, pd.DataFrame], errors: dict[str, str],
              profile: str) -> list[dict[str, Any]]:
    verdicts = []
    for claim in claims:
        if claim.id in errors:
            verdicts.append(_error_verdict(claim, errors[claim.id]))
            continue
        try:
            verdicts.append(claim.judge(records.get(claim.id, rec.empty_records()), profile))
        except Exception as exc:  # a crash in one claim marks that claim, the others still run
            verdicts.append(_error_verdict(claim, f"{type(exc).__name__}: {exc}"))
    return verdicts


def collect_errata(claims: Sequence[Claim]) -> list[dict[str, str]]:
    """Errata of the theorems behind the claims (from the catalogue notes), plus claim-level errata."""
    from fedrates.bounds import catalog

    by_text: dict[str, dict[str, str]] = {}  # one entry per erratum, listing every theorem it concerns
    for claim in claims:
        try:
            theorem = catalog.get(claim.theorem)
        except InputError:  # experimental claims (e.g. a figure) have no catalogued theorem
            theorem = None
        notes = [(n.text, n.resolution) for n in theorem.errata] if theorem is not None else []
        if claim.erratum:
            notes.append((claim.erratum, f"claim {claim.id}"))
        for text, resolution in notes:
            entry = by_text.setdefault(text, {"theorem": "", "text": text, "resolution": resolution})
            ids = [t for t in entry["theorem"].split(", ") if t]
            if claim.theorem not in ids:
                entry["theorem"] = ", ".join([*ids, claim.theorem])
    return list(by_text.values())


def verify_claims(claims: Sequence[Claim], *, profile: str, out: Path, jobs: int = 1, base_seed: int = 0,
                  use_cache: bool = True, progress: bool = True,
                  write_pdf: bool = True) -> dict[str, Any]:
    """Run the claims and write ``records.parquet``, ``verdicts.json``, ``errata.json``, ``report.html``."""
    cache_root = out / "cache" / profile if use_cache else None
    bar = _Progress(enabled=progress)
    try:
        sweep = run_claims(claims, profile, cache_root, jobs=jobs, base_seed=base_seed, on_progress=bar.update)
    finally:
        bar.close()
    verdicts = judge_all(claims, sweep.records, sweep.errors, profile)
    frames = [df for df in sweep.records.values() if len(df)]
    records = pd.concat(frames, ignore_index=True) if frames else rec.empty_records()
    seeds = sorted({s for v in verdicts for s in v.get("seeds", [])})
    provenance = rec.provenance(seeds=seeds, extra={"profile": profile, "base_seed": base_seed, "jobs": jobs,
                                                    "points_computed": sweep.computed,
                                                    "points_cached": sweep.cached})
    errata = collect_errata(claims)
    rec.write_records(records, out / "records.parquet", provenance)
    rec.write_json_atomic(verdicts, out / "verdicts.json")
    rec.write_json_atomic(errata, out / "errata.json")
    from fedrates.reports.html import render_html

    render_html(records, verdicts, provenance, errata, out / "report.html")
    if write_pdf:
        from fedrates.reports.pdf import render_pdf

        render_pdf(records, verdicts, provenance, errata, out / "report.pdf")
    return {"verdicts": verdicts, "records": records, "provenance": provenance, "errata": errata}


class _Progress:
    """A rich progress bar on stderr (silent when disabled)."""

    def __init__(self, enabled: bool) -> None:
        self._bar = None
        self._task = None
        if enabled:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self._bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                 TimeElapsedColumn(), console=Console(file=sys.stderr), transient=True)
            self._bar.start()
            self._task = self._bar.add_task("sweep points", total=None)

    def update(self, done: int, total: int, claim_id: str) -> None:
        if self._bar is not None:
            self._bar.update(self._task, completed=done, total=total, description=claim_id)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
