"""PDF report of stored records and verdicts (matplotlib ``PdfPages``; the figures are those of the HTML report).

Pages: a summary (counts per verdict and one line per claim), the errata when there are any, then one page per
claim with its figure (see :func:`fedrates.reports.figures.claim_figure`) headed by verdict, measured, predicted and
tolerance, or a text page when the claim has nothing to plot.
"""

from __future__ import annotations

import os
import tempfile
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.backends.backend_pdf import PdfPages
from matplotlib.figure import Figure

from fedrates.reports import figures
from fedrates.reports.html import VERDICTS, _fmt, _umask_mode

__all__ = ["render_pdf"]

_A4 = (8.27, 11.69)
_LINES_PER_PAGE = 58


def _plain(text: object) -> str:
    return str(text).replace("$", r"\$")


def _text_pages(lines: list[str], heading: str) -> list[Figure]:
    pages = []
    for start in range(0, max(len(lines), 1), _LINES_PER_PAGE):
        fig = Figure(figsize=_A4)
        fig.text(0.06, 0.965, _plain(heading), fontsize=14, weight="bold", va="top")
        body = "\n".join(lines[start : start + _LINES_PER_PAGE])
        fig.text(0.06, 0.93, _plain(body), fontsize=8, family="monospace", va="top")
        pages.append(fig)
    return pages


def _wrap(text: str, width: int = 100, indent: str = "    ") -> list[str]:
    return textwrap.wrap(text, width=width, initial_indent=indent, subsequent_indent=indent) or [indent]


def _summary_lines(verdicts: Sequence[Mapping[str, Any]], provenance: Mapping[str, Any]) -> list[str]:
    seen = [str(v.get("verdict", "unknown")) for v in verdicts]
    order = list(VERDICTS) + sorted(set(seen) - set(VERDICTS))
    lines = ["  ".join(f"{v}: {seen.count(v)}" for v in order if seen.count(v)) or "no claims", ""]
    for v in verdicts:
        lines.append(f"[{v.get('verdict', 'unknown')}] {v.get('claim', '')}  {v.get('title', '')}")
        lines.extend(
            _wrap(
                f"measured {_fmt(v.get('measured'))}; predicted {_fmt(v.get('predicted'))}; "
                f"tolerance {_fmt(v.get('tolerance'))}"
            )
        )
    lines += ["", "Provenance:"]
    lines += [f"    {k}: {_fmt(val)}"[:110] for k, val in (provenance or {}).items()]
    return lines


def _claim_page(records: pd.DataFrame, verdict: Mapping[str, Any]) -> Figure:
    claim = str(verdict.get("claim", ""))
    header = (
        f"{verdict.get('verdict', 'unknown')}: measured {_fmt(verdict.get('measured'))}, "
        f"predicted {_fmt(verdict.get('predicted'))}, tolerance {_fmt(verdict.get('tolerance'))}"
    )
    rows = records[records["claim"] == claim] if "claim" in records.columns else records.iloc[0:0]
    if not rows.empty and verdict.get("x"):
        try:
            fig = figures.claim_figure(rows, verdict)
        except ValueError as exc:
            note = f"figure unavailable: {exc}"
        else:
            fig.suptitle(_plain(header), fontsize=8)
            return fig
    else:
        note = "no records to plot"
    lines = _wrap(header, indent="") + [""] + _wrap(str(verdict.get("message", "")), indent="") + ["", note]
    return _text_pages(lines, claim)[0]


def render_pdf(
    records: pd.DataFrame,
    verdicts: Sequence[Mapping[str, Any]],
    provenance: Mapping[str, Any],
    errata: Sequence[Mapping[str, Any]],
    path: str | os.PathLike[str],
    title: str = "fedrates verification report",
) -> Path:
    """Write the PDF report to ``path`` atomically (temporary file + ``os.replace``); return the path."""
    pages = _text_pages(_summary_lines(verdicts, provenance), title)
    if errata:
        lines: list[str] = []
        for e in errata:
            lines.append(str(e.get("theorem", "")))
            lines += _wrap(str(e.get("text", "")))
            lines += _wrap("resolution: " + str(e.get("resolution", "")))
        pages += _text_pages(lines, "Errata: paper claims that are documented to fail")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        with PdfPages(tmp, metadata={"Title": _plain(title), "CreationDate": None}) as pdf:
            for fig in pages:
                pdf.savefig(fig)
                fig.clear()
            for verdict in verdicts:
                fig = _claim_page(records, verdict)
                pdf.savefig(fig)
                fig.clear()
        os.chmod(tmp, _umask_mode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
