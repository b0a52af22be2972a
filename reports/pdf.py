"""PDF report of stored records and verdicts (matplotlib ``PdfPages``; the figures are those of the HTML report).

Every page is A4 portrait: a summary (counts per verdict, one entry per claim with verdict first, the discriminating
claims per algorithm, the papers, provenance), the errata when there are any, then one page per claim — a header with
the verdict, measured / predicted / tolerance and the loose-bound flag, the claim's figure (see
:func:`fedrates.reports.figures.draw_claim`), and the verdict's message, regime and run. Text is set in DejaVu Sans
(which has every glyph the verdicts use, ℓ included) as TrueType, so it can be searched and extracted, and every line
is wrapped to the page width.
"""

from __future__ import annotations

import os
import tempfile
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib
import pandas as pd
from matplotlib.backends.backend_pdf import PdfPages
from matplotlib.figure import Figure

from fedrates.reports import figures, paper_figures
from fedrates.reports.html import VERDICTS, _fmt, _paper, _run_text, _umask_mode, sort_errata

__all__ = ["render_pdf", "PAGE_SIZE"]

#: A4 portrait, inches
PAGE_SIZE = (8.27, 11.69)
_LEFT = 0.07
_LINE = 0.0155  # line height at 8 pt, as a fraction of the page height
_WIDTH = 112  # characters per line at 8 pt DejaVu Sans within the margins (average glyph ≈ 0.55 em)
_LINES_PER_PAGE = 56
_STYLE = {"font.family": "DejaVu Sans", "pdf.fonttype": 42, "axes.unicode_minus": True}


def _plain(text: object) -> str:
    return str(text).replace("$", r"\$")


def _wrap(text: str, width: int = _WIDTH, indent: str = "    ") -> list[str]:
    return textwrap.wrap(str(text), width=width, initial_indent=indent, subsequent_indent=indent,
                         break_long_words=True) or [indent]


def _text_pages(lines: list[tuple[str, dict[str, Any]]], heading: str) -> list[Figure]:
    """Pages of pre-wrapped lines (text, matplotlib text properties) under a heading."""
    pages = []
    for start in range(0, max(len(lines), 1), _LINES_PER_PAGE):
        fig = Figure(figsize=PAGE_SIZE)
        fig.text(_LEFT, 0.965, _plain(heading), fontsize=14, weight="bold", va="top")
        y = 0.93
        for text, props in lines[start: start + _LINES_PER_PAGE]:
            fig.text(_LEFT, y, _plain(text), fontsize=8, va="top", **props)
            y -= _LINE
        pages.append(fig)
    return pages


def _summary_lines(verdicts: Sequence[Mapping[str, Any]], provenance: Mapping[str, Any]) -> list[tuple[str, dict]]:
    seen = [str(v.get("verdict", "unknown")) for v in verdicts]
    order = list(VERDICTS) + sorted(set(seen) - set(VERDICTS))
    lines: list[tuple[str, dict]] = [
        ("   ".join(f"{v}: {seen.count(v)}" for v in order if seen.count(v)) or "no claims", {"weight": "bold"}),
        ("", {})]
    for v in verdicts:
        key = str(v.get("verdict", "unknown"))
        flag = "   [loose bound]" if v.get("loose") else ""
        lines.append((f"{key.upper()}   {v.get('claim', '')}{flag}",
                      {"weight": "bold", "color": figures.VERDICT_COLOURS.get(key, "black")}))
        text = (f"measured {_fmt(v.get('measured'))}; predicted {_fmt(v.get('predicted'))}; "
                f"tolerance {_fmt(v.get('tolerance'))}")
        lines.extend((line, {}) for line in _wrap(text))
    per_alg: dict[str, list[int]] = {}
    for v in verdicts:
        row = per_alg.setdefault(str(v.get("algorithm", "—")), [0, 0])
        row[0] += 1
        row[1] += int(bool(v.get("variants")))
    lines += [("", {}), ("Discriminating claims per algorithm (named by a broken variant of the catalogue):",
                         {"weight": "bold"})]
    lines += [(f"    {alg}: {d} of {n} claims", {}) for alg, (n, d) in sorted(per_alg.items())]
    papers = sorted({_paper(str(v.get("theorem", ""))) for v in verdicts} - {""})
    if papers:
        lines += [("", {}), ("Papers:", {"weight": "bold"})]
        for p in papers:
            lines.extend((line, {}) for line in _wrap(p))
    lines += [("", {}), ("Provenance:", {"weight": "bold"})]
    for k, val in (provenance or {}).items():
        lines.extend((line, {}) for line in _wrap(f"{k}: {_fmt(val)}"))
    return lines


def _claim_page(records: pd.DataFrame, verdict: Mapping[str, Any]) -> tuple[Figure, Any, str]:
    """The claim's page, its figure's axes (None when there is no figure) and the note shown instead of one."""
    claim = str(verdict.get("claim", ""))
    key = str(verdict.get("verdict", "unknown"))
    colour = figures.VERDICT_COLOURS.get(key, "black")
    fig = Figure(figsize=PAGE_SIZE)
    fig.text(_LEFT, 0.965, _plain(claim), fontsize=13, weight="bold", va="top")
    fig.text(1 - _LEFT, 0.965, _plain(key.upper()), fontsize=13, weight="bold", va="top", ha="right", color=colour)
    head: list[tuple[str, dict]] = []
    head += [(line, {"style": "italic"}) for line in _wrap(str(verdict.get("title", "")), indent="")]
    paper = _paper(str(verdict.get("theorem", "")))
    if paper:
        head += [(line, {"color": "#555555"}) for line in _wrap(paper, indent="")]
    head += [(line, {}) for line in _wrap(f"measured: {_fmt(verdict.get('measured'))}", indent="")]
    head += [(line, {}) for line in _wrap(f"predicted: {_fmt(verdict.get('predicted'))}   tolerance: "
                                          f"{_fmt(verdict.get('tolerance'))}", indent="")]
    if verdict.get("loose"):
        head.append((f"LOOSE BOUND: measured/bound = {_fmt(verdict.get('bound_ratio'))} < 1e-3 (cannot discriminate)",
                     {"color": "#b00020", "weight": "bold"}))
    y = 0.935
    for text, props in head[:9]:
        fig.text(_LEFT, y, _plain(text), fontsize=8, va="top", **props)
        y -= _LINE
    rows = records[records["claim"] == claim] if "claim" in records.columns else records.iloc[0:0]
    note = ""
    ax = None
    if rows.empty:
        note = "No records were stored for this claim."
    elif not verdict.get("x"):
        note = "The verdict names no swept parameter to plot against."
    else:
        ax = fig.add_axes((0.12, 0.40, 0.80, y - 0.44))
        try:
            figures.draw_claim(ax, rows, verdict)
        except ValueError as exc:
            fig.delaxes(ax)
            ax = None
            note = f"Figure unavailable: {exc}"
    body: list[tuple[str, dict]] = []
    if note:
        body += [(note, {"style": "italic"}), ("", {})]
    for label, field in (("message", "message"), ("regime", "regime")):
        if verdict.get(field):
            body += [(line, {}) for line in _wrap(f"{label}: {verdict[field]}", indent="")]
    run = _run_text(verdict)
    if run:
        body.append((f"run: {run}", {"color": "#555555"}))
    y = 0.29 if not note else y - 0.02
    for text, props in body[: int((y - 0.03) / _LINE)]:
        fig.text(_LEFT, y, _plain(text), fontsize=8, va="top", **props)
        y -= _LINE
    return fig, ax, note


def _paper_page(records: pd.DataFrame, verdict: Mapping[str, Any]) -> tuple[Figure | None, str]:
    """The claim's figure as the paper lays it out (:mod:`fedrates.reports.paper_figures`), on a page of its own,
    or None and why not (empty when the claim has no paper figure)."""
    claim = str(verdict.get("claim", ""))
    draw = paper_figures.PAPER_FIGURES.get(claim)
    if draw is None or "claim" not in records.columns or claim not in set(records["claim"]):
        return None, ""
    try:
        fig = draw(records, verdict)
    except (ValueError, KeyError, IndexError) as exc:
        return None, f"Paper figure unavailable: {exc}"
    fig.set_size_inches(*PAGE_SIZE)
    return fig, ""


def _axes_svg(fig: Figure, ax: Any) -> str:
    """The part of a drawn page inside ``ax``'s tight box (tick and axis labels, legend) as SVG, for the HTML
    report: the same figure, not drawn a second time from the records."""
    box = ax.get_tightbbox().transformed(fig.dpi_scale_trans.inverted()).padded(0.08)
    for text in fig.texts:  # the page's header and body: outside the box, and in the HTML report as text already
        text.set_visible(False)
    return figures.to_svg(fig, bbox_inches=box)


def render_pdf(
    records: pd.DataFrame,
    verdicts: Sequence[Mapping[str, Any]],
    provenance: Mapping[str, Any],
    errata: Sequence[Mapping[str, Any]],
    path: str | os.PathLike[str],
    title: str = "fedrates verification report",
    shared: dict[str, dict[str, Any]] | None = None,
) -> Path:
    """Write the PDF report to ``path`` atomically (temporary file + ``os.replace``); return the path.

    With ``shared`` (a dict), each claim's figures are also rendered as SVG from the pages just drawn and stored
    as ``shared[claim] = {"svg", "note", "paper_svg", "paper_note"}``, for :func:`fedrates.reports.html.render_html`
    to reuse instead of drawing them again."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        with matplotlib.rc_context(_STYLE):
            pages = _text_pages(_summary_lines(verdicts, provenance), title)
            if errata:
                lines: list[tuple[str, dict]] = []
                for e in sort_errata(errata):
                    lines.append((f"[{e['kind']}] {e['where']} ({e['theorem']})", {"weight": "bold"}))
                    lines += [(line, {}) for line in _wrap("the paper says: " + (e["quote"] or e["text"]))]
                    lines += [(line, {}) for line in _wrap("what is true: " + (e["true_statement"]
                                                                                 or e["resolution"]))]
                    lines += [(line, {"color": "#555555"}) for line in _wrap("evidence: " + e["evidence"])]
                pages += _text_pages(lines, "Errata: paper claims that are documented to fail")
            with PdfPages(tmp, metadata={"Title": _plain(title), "CreationDate": None}) as pdf:
                for fig in pages:
                    pdf.savefig(fig)
                    fig.clear()
                for verdict in verdicts:
                    fig, ax, note = _claim_page(records, verdict)
                    pdf.savefig(fig)
                    entry = {"svg": None, "note": note, "paper_svg": None, "paper_note": ""}
                    if shared is not None and ax is not None:
                        entry["svg"] = _axes_svg(fig, ax)
                    fig.clear()
                    paper, entry["paper_note"] = _paper_page(records, verdict)
                    if paper is not None:
                        pdf.savefig(paper)
                        if shared is not None:
                            paper.set_layout_engine("none")  # keep the positions the page was drawn with
                            entry["paper_svg"] = figures.to_svg(paper)
                        paper.clear()
                    if shared is not None:
                        shared[str(verdict.get("claim", ""))] = entry
        os.chmod(tmp, _umask_mode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
