"""Claim figures drawn ahead of the reports, in worker processes, into a run directory's figure cache.

The reports (:func:`fedrates.reports.pdf.render_pdf`, :func:`fedrates.reports.html.render_html`) read each claim's
figures from the cache when their digest is there and draw the others themselves, one after the other.
:func:`draw_missing` draws those others first, in parallel: one task per claim whose figures are not cached — its
PDF pages and their SVG (:func:`fedrates.reports.pdf.cached_pages`) when a PDF is written, else its HTML figures
(:func:`fedrates.reports.html.cached_svg`, :func:`~fedrates.reports.html.cached_paper_svg`). Workers write the
cache (atomic renames); what they draw is byte for byte what the main process would draw (same code, same inputs,
SVG ids salted with a constant). A task gets only its claim's records, and at most two tasks per worker are queued,
so memory stays bounded. The pool is always local (:func:`fedrates.verify.executors.local`): with a Dask cluster
the sweep runs there and the figures are drawn on this machine.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, BrokenExecutor, Future, wait
from pathlib import Path
from typing import Any

import pandas as pd

from fedrates.reports import html, paper_figures, pdf

__all__ = ["draw_missing", "draw_claim", "missing"]

#: ``(kind, rows, paper rows, verdict, digests)``: what one worker task draws (see :func:`missing`)
Task = tuple[str, pd.DataFrame, pd.DataFrame, Mapping[str, Any], tuple[str, ...]]


def missing(records: pd.DataFrame, verdicts: Sequence[Mapping[str, Any]], cache: Path, *,
            with_pdf: bool, digests: Mapping[str, str] | None = None) -> list[Task]:
    """The claims whose figures are not in ``cache``: ``(kind, rows, paper rows, verdict, digests)`` with kind
    ``pages`` (PDF pages and their SVG, when a PDF is written; digests: the pages') or ``html`` (the HTML report's
    own figures; digests: the claim figure's, the paper figure's). The digests are computed here, once (or taken
    from ``digests``, claim id → page digest, :func:`fedrates.reports.pdf.page_digests`): workers store what they
    draw under them, whatever they would compute themselves."""
    known = digests or {}
    if with_pdf:  # pages whose digest is known and in the cache: nothing to split out of the records
        verdicts = [v for v in verdicts if not (cache / f"{known.get(str(v.get('claim', '')), '')}.page.json")
                    .is_file()]
    tasks = [_task(rows, paper, verdict, cache, with_pdf, known.get(str(verdict.get("claim", ""))))
             for rows, paper, verdict in pdf.claim_inputs(records, verdicts)] if verdicts else []
    return [t for t in tasks if t is not None]


def _task(rows: pd.DataFrame, paper: pd.DataFrame, verdict: Mapping[str, Any], cache: Path,
          with_pdf: bool, page_digest: str | None = None) -> Task | None:
    """What :func:`missing` lists for one claim (None when its figures are cached)."""
    if with_pdf:
        digest = page_digest or pdf.page_digest(rows, paper, verdict)
        return None if (cache / f"{digest}.page.json").is_file() else ("pages", rows, paper, verdict, (digest,))
    if rows.empty:
        return None
    claim_digest = html.figure_digest(rows, verdict) if verdict.get("x") else ""
    paper_digest = (html.figure_digest(rows, verdict, "paper")
                    if str(verdict.get("claim", "")) in paper_figures.PAPER_FIGURES else "")
    wanted = [cache / f"{claim_digest}.svg"] if claim_digest else []
    wanted += [cache / f"{paper_digest}.paper.svg"] if paper_digest else []
    if any(not p.is_file() and not p.with_suffix(".unavailable").is_file() for p in wanted):
        return ("html", rows, paper, verdict, (claim_digest, paper_digest))
    return None


def draw_claim(rows: pd.DataFrame, verdict: Mapping[str, Any], cache: Path, *, with_pdf: bool,
               paper: pd.DataFrame | None = None) -> str | None:
    """Draw into ``cache`` the figures of one claim, when they are not there yet — what a worker that just judged the
    claim does, so that the reports find them drawn. Returns the digest of the claim's PDF pages
    (:func:`fedrates.reports.pdf.page_digest`, whether drawn now or found), None without a PDF or when the claim
    is left to :func:`draw_missing`. A claim with a paper figure draws from the records of every claim of its
    paper: without them (``paper``, as :func:`fedrates.reports.pdf.paper_rows` selects them) it is left to
    :func:`draw_missing`. Figures are stored under the digest of what they were drawn from, so a figure drawn from
    other records than the report's is only never looked up."""
    claim = str(verdict.get("claim", ""))
    has_paper_figure = claim in paper_figures.PAPER_FIGURES
    if has_paper_figure and paper is None:
        return None
    rows = rows if "claim" not in rows.columns or (rows["claim"] == claim).all() else rows[rows["claim"] == claim]
    paper = paper if has_paper_figure else rows.iloc[0:0]
    digest = pdf.page_digest(rows, paper, verdict) if with_pdf else None
    task = _task(rows, paper, verdict, cache, with_pdf, digest)
    if task is not None:
        _draw(*task, str(cache))
    return digest


def _draw(kind: str, rows: pd.DataFrame, paper: pd.DataFrame, verdict: Mapping[str, Any], digests: tuple[str, ...],
          cache: str) -> str:
    """Draw one claim's figures into ``cache`` under ``digests`` (a worker task); figures that cannot be drawn are
    left to the report, which says why."""
    folder = Path(cache)
    if kind == "pages":
        pdf.cached_pages(rows, paper, verdict, folder, digests[0])
        return str(verdict.get("claim", ""))
    claim_digest, paper_digest = digests
    for draw, digest in ((html.cached_svg, claim_digest), (html.cached_paper_svg, paper_digest)):
        if digest:
            try:
                draw(rows, verdict, folder, digest)
            except ValueError:
                pass
    return str(verdict.get("claim", ""))


def draw_missing(records: pd.DataFrame, verdicts: Sequence[Mapping[str, Any]], cache: str | Path, *, jobs: int,
                 with_pdf: bool = True, digests: Mapping[str, str] | None = None) -> int:
    """Draw the figures of every claim not in ``cache`` with ``jobs`` worker processes (see the module docstring);
    return how many claims were drawn. With one job (or one claim to draw) nothing is done here: the reports draw
    it as they go. A task that fails is left to the report, which draws that claim again and reports the error.
    ``digests``: the claims' page digests when the caller computed them (see :func:`missing`)."""
    if jobs <= 1:
        return 0
    cache = Path(cache)
    tasks = missing(records, verdicts, cache, with_pdf=with_pdf, digests=digests)
    if len(tasks) < 2:
        return 0
    from fedrates.verify import executors

    workers = min(jobs, len(tasks))
    cache.mkdir(parents=True, exist_ok=True)
    drawn = 0
    with executors.local(workers) as pool:
        in_flight: set[Future] = set()

        def settle(done: set[Future]) -> None:
            nonlocal drawn
            drawn += sum(1 for f in done if f.exception() is None)

        try:
            for kind, rows, paper, verdict, digests in tasks:
                if len(in_flight) >= 2 * workers:
                    done, in_flight = wait(in_flight, return_when=FIRST_COMPLETED)
                    settle(done)
                in_flight.add(pool.submit(_draw, kind, rows, paper, dict(verdict), digests, str(cache)))
        except BrokenExecutor:  # a worker died (e.g. out of memory): the reports draw the rest themselves
            pass
        settle(wait(in_flight).done)
    return drawn
