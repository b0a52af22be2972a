"""Falsification page of one theorem: the adversarial search and the PEP comparison, in HTML and PDF.

Renders the stored result (the ``result.json`` document written by ``fedrates falsify``) and the search records
(``records.parquet``); nothing is recomputed and nothing of the numerical packages is imported.  Contents: the
statement, the search verdict with its explanation, the ratio measured/bound along the search (log scale, interval
bars — an interval reaching 0 is drawn down to ratio/100 —, instances outside the theorem's conditions in grey, the
lines 1 and 10⁻³), the worst instance (parameters, exact constants, conditions, command line to rerun it), and the
PEP table (bound, SDP worst case, bound/worst, duality gap, residuals, verdict).  The HTML page is one self-contained
file (inline SVG); every text taken from the result is escaped.
"""

from __future__ import annotations

import html
import math
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pandas as pd
from matplotlib.backends.backend_pdf import PdfPages
from matplotlib.figure import Figure

from fedrates.reports import figures

__all__ = ["ratio_figure", "render_html", "render_html_string", "render_pdf"]

_A4 = (8.27, 11.69)


def _plain(text: object) -> str:
    return str(text).replace("$", r"\$")


def _g(v: Any) -> str:
    if v is None:
        return "n/a"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return "nan" if math.isnan(v) else f"{v:.4g}"
    return str(v)


def ratio_figure(records: pd.DataFrame | None, theorem: str) -> Figure | None:
    """measured/bound of every evaluated instance in search order (interval bars), or ``None`` without records."""
    if records is None or not len(records) or "ratio" not in records:
        return None
    fig = Figure(figsize=(7.0, 3.6))
    ax = fig.add_subplot()
    df = records.reset_index(drop=True)
    x = df["index"] if "index" in df else pd.Series(range(len(df)))
    ok = df["conditions_ok"].astype(bool) & (df["ratio"] > 0)
    for mask, colour, label in ((ok & (df.get("phase") == "explore"), "C0", "exploration (Sobol)"),
                                (ok & (df.get("phase") == "refine"), "C1", "Nelder-Mead"),
                                (ok & (df.get("phase") == "confirm"), "C3", "confirmation (fresh seeds)")):
        if mask.any():
            # an interval reaching 0 is drawn down to ratio/100 (log axis)
            lo = (df.loc[mask, "ratio"] - df.loc[mask, "ratio_lo"].clip(lower=df.loc[mask, "ratio"] / 100)).clip(
                lower=0)
            hi = (df.loc[mask, "ratio_hi"] - df.loc[mask, "ratio"]).clip(lower=0)
            ax.errorbar(x[mask], df.loc[mask, "ratio"], yerr=[lo, hi], fmt="o", ms=3, color=colour, lw=0.6,
                        label=label)
    bad = ~df["conditions_ok"].astype(bool) & (df["ratio"] > 0)
    if bad.any():
        ax.plot(x[bad], df.loc[bad, "ratio"], "x", color="0.6", ms=4, label="conditions not met (not counted)")
    ax.axhline(1.0, color="k", lw=0.8, ls="--")
    ax.axhline(1e-3, color="0.5", lw=0.8, ls=":")
    ax.set_yscale("log")
    ax.set_xlabel("evaluated instance")
    ax.set_ylabel("measured / bound")
    ax.set_title(_plain(f"{theorem}: ratio along the search"), fontsize=10)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return fig


def _table(rows: list[list[Any]], head: list[str]) -> str:
    out = ["<table><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>"]
    for r in rows:
        out.append("<tr>" + "".join(f"<td>{html.escape(_g(v))}</td>" for v in r) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


def _pep_rows(summary: Mapping[str, Any]) -> list[list[Any]]:
    rows = []
    for c in summary.get("pep") or []:
        sdp = c.get("sdp") or {}
        rows.append([c.get("case"), c.get("verdict"), c.get("bound"), c.get("worst_case"),
                     c.get("ratio_bound_over_worst"), sdp.get("gap"),
                     max((v for v in (sdp.get("primal_residual"), sdp.get("dual_residual"),
                                      sdp.get("proof_residual")) if v is not None), default=None),
                     sdp.get("solver"), sdp.get("seconds")])
    return rows


_PEP_HEAD = ["case", "verdict", "bound", "worst case", "bound/worst", "duality gap", "max residual", "solver", "s"]


def render_html_string(summary: Mapping[str, Any], records: pd.DataFrame | None) -> str:
    esc = html.escape
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>fedrates falsify: "
             f"{esc(str(summary.get('theorem')))}</title><style>body{{font-family:sans-serif;max-width:60em;"
             f"margin:auto}} table{{border-collapse:collapse;font-size:0.85em}} td,th{{border:1px solid #ccc;"
             f"padding:2px 6px}} code{{font-size:0.85em;word-break:break-all}}</style></head><body>",
             f"<h1>Falsification: {esc(str(summary.get('theorem')))}</h1>",
             f"<p>{esc(str(summary.get('label', '')))} &mdash; {esc(str(summary.get('title', '')))}</p>",
             f"<p><code>{esc(str(summary.get('statement', '')))}</code></p>"]
    search = summary.get("search")
    if search:
        parts.append("<h2>Adversarial instance search</h2>")
        parts.append(f"<p><b>Verdict: {esc(str(search.get('verdict')))}</b> &mdash; "
                     f"{esc(str(search.get('explanation')))}</p>")
        parts.append(f"<p>{esc(str(search.get('algorithm')))} on {esc(str(search.get('family')))}; "
                     f"{esc(_g(search.get('evaluations')))} instances evaluated, "
                     f"{esc(_g(search.get('valid_instances')))} within the theorem's conditions; budget "
                     f"{esc(_g(search.get('budget')))}, seed "
                     f"{esc(_g(search.get('seed')))}, bound scale {esc(_g(search.get('bound_scale')))}; "
                     f"{esc(_g(search.get('seconds')))} s. Interval ends are one-sided "
                     f"{esc(_g(search.get('confidence_one_sided')))} bounds.</p>")
        fig = ratio_figure(records, str(summary.get("theorem")))
        if fig is not None:
            parts.append(figures.to_svg(fig, id_prefix="ratio-"))
        worst = search.get("worst")
        if worst:
            parts.append("<h3>Worst instance</h3>")
            parts.append(_table([["measured/bound", worst.get("ratio")], ["interval low", worst.get("ratio_lo")],
                                 ["interval high", worst.get("ratio_hi")], ["measured", worst.get("measured_mean")],
                                 ["bound", worst.get("bound")]], ["quantity", "value"]))
            parts.append(_table([[k, v] for k, v in (worst.get("parameters") or {}).items()], ["parameter", "value"]))
            parts.append(_table([[k, v] for k, v in (worst.get("constants") or {}).items()],
                                ["constant (exact)", "value"]))
            parts.append(_table([[c.get("condition"), c.get("holds"), c.get("lhs"), c.get("rhs")]
                                 for c in worst.get("conditions") or []], ["condition", "holds", "lhs", "rhs"]))
            parts.append(f"<p>Rerun: <code>{esc(str(worst.get('run_command')))}</code></p>")
        confirm = search.get("confirmation")
        if confirm:
            parts.append(f"<p>Confirmation on fresh seeds: ratio {esc(_g(confirm.get('ratio')))} in "
                         f"[{esc(_g(confirm.get('ratio_lo')))}, {esc(_g(confirm.get('ratio_hi')))}] over "
                         f"{esc(_g(confirm.get('n_seeds')))} seeds.</p>")
    if summary.get("pep"):
        parts.append("<h2>Tight worst case (PEP)</h2>")
        parts.append(_table(_pep_rows(summary), _PEP_HEAD))
        for c in summary["pep"]:
            conds = "; ".join(f"{d.get('condition')} [{_g(d.get('holds'))}]" for d in c.get("conditions") or [])
            parts.append(f"<p><b>{esc(str(c.get('case')))}</b>: {esc(str(c.get('explanation')))}; parameters "
                         f"{esc(str(c.get('params')))}; conditions: {esc(conds or 'none')}</p>")
    parts.append("</body></html>")
    return "\n".join(parts)


def _write_atomic(path: Path, write: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        write(tmp)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def render_html(summary: Mapping[str, Any], records: pd.DataFrame | None, path: str | os.PathLike[str]) -> Path:
    text = render_html_string(summary, records)

    def write(tmp: str) -> None:
        Path(tmp).write_text(text, encoding="utf-8")

    return _write_atomic(Path(path), write)


def _text_page(lines: list[str], heading: str) -> Figure:
    fig = Figure(figsize=_A4)
    fig.text(0.06, 0.965, _plain(heading), fontsize=13, weight="bold", va="top")
    fig.text(0.06, 0.93, _plain("\n".join(lines[:70])), fontsize=7, family="monospace", va="top")
    return fig


def _wrap(text: str, width: int = 110) -> list[str]:
    import textwrap

    return textwrap.wrap(str(text), width) or [""]


def render_pdf(summary: Mapping[str, Any], records: pd.DataFrame | None, path: str | os.PathLike[str]) -> Path:
    lines = [*_wrap(f"{summary.get('label', '')}: {summary.get('title', '')}"), ""]
    search = summary.get("search")
    if search:
        lines += _wrap(f"Search verdict: {search.get('verdict')} -- {search.get('explanation')}")
        worst = search.get("worst") or {}
        for key in ("ratio", "ratio_lo", "ratio_hi", "measured_mean", "bound"):
            if key in worst:
                lines.append(f"  {key}: {_g(worst[key])}")
        for k, v in (worst.get("parameters") or {}).items():
            lines.append(f"  parameter {k} = {_g(v)}")
        for k, v in (worst.get("constants") or {}).items():
            lines.append(f"  constant {k} = {_g(v)}")
        for c in worst.get("conditions") or []:
            lines.append(f"  condition {c.get('condition')}: {_g(c.get('holds'))}")
        if worst.get("run_command"):
            lines += _wrap("  rerun: " + str(worst["run_command"]))
        lines.append("")
    if summary.get("pep"):
        lines.append("PEP comparison: " + " | ".join(_PEP_HEAD))
        for r in _pep_rows(summary):
            lines += _wrap("  " + " | ".join(_g(v) for v in r))

    def write(tmp: str) -> None:
        with PdfPages(tmp) as pdf:
            pdf.savefig(_text_page(lines, f"Falsification: {summary.get('theorem')}"))
            fig = ratio_figure(records, str(summary.get("theorem")))
            if fig is not None:
                pdf.savefig(fig)

    return _write_atomic(Path(path), write)
