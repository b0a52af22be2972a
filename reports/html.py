"""Self-contained HTML report of stored records and verdicts.

One file, viewable offline: inline CSS, inline SVG figures (text drawn as paths), no scripts, no external
fonts or stylesheets. Statements are shown as their LaTeX source in a code block (no MathJax, which would need
the network). Every string taken from the data passes through jinja2 autoescaping.

Layout: summary (counts per verdict, colour-coded table), errata (prominent), one section per claim (statement,
measured / predicted / tolerance, verdict and message, conditions with ✓/✗, constants, figure), provenance.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jinja2
import pandas as pd
from markupsafe import Markup

from fedrates.errata import ERRATUM_KINDS, HEADLINE_KINDS, KIND_TITLES, kind_summary
from fedrates.reports import figures, paper_figures

__all__ = ["VERDICTS", "build_context", "render_html", "render_html_string"]

#: verdict values, in the order the summary counts them
VERDICTS = ("pass", "fail", "erratum", "informational", "conditions-not-met", "inconclusive", "error")

_TEMPLATES = Path(__file__).with_name("templates")


def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(_TEMPLATES)),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=False,
        lstrip_blocks=False,
    )


#: the smallest positive double: claims evaluate a theorem whose symbols are declared positive at an exactly-zero
#: quantity (H, τ, ν) as the limit 0⁺, stored as this number; it is printed as 0
_TINY = 2.2250738585072014e-308


def _fmt(value: Any) -> str:
    """Human-readable text for a number, string, list or missing value (exact zeros and 0⁺ stand-ins as 0)."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "∞" if value > 0 else "−∞"
        if value == 0 or abs(value) == _TINY:
            return "0"
        return f"{value:.4g}"
    if isinstance(value, (list, tuple)):
        return ", ".join(_fmt(v) for v in value)
    if isinstance(value, Mapping):
        return ", ".join(f"{k} = {_fmt(v)}" for k, v in value.items())
    if hasattr(value, "item"):  # numpy scalar
        return _fmt(value.item())
    return str(value)


def _seeds(seeds: Any) -> str:
    if not seeds:
        return "—"
    seeds = list(seeds)
    text = ", ".join(str(s) for s in seeds[:12])
    return f"{len(seeds)}: {text}{', …' if len(seeds) > 12 else ''}"


def _condition(item: Mapping[str, Any]) -> dict[str, str]:
    holds = item.get("holds")
    mark, css = ("✓", "holds-yes") if holds is True else ("✗", "holds-no") if holds is False else ("?", "holds-unknown")
    return {"condition": str(item.get("condition", "")), "value": _fmt(item.get("value")), "mark": mark, "css": css}


def _fit_text(fit: Any) -> str:
    if not isinstance(fit, Mapping) or fit.get("slope") is None:
        return ""
    return figures.format_fit_label(fit)


def _constant_rows(constants: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Constants of the instance for display; effective quantities are named as such."""
    rows = []
    for key, value in constants.items():
        name = str(key)
        text = _fmt(value)
        if isinstance(value, float) and abs(value) == _TINY:
            text = "0 (exactly; the bound is evaluated at the limit 0⁺)"
        elif name == "K" and isinstance(value, float) and not float(value).is_integer():
            # a non-integral K is the effective number of clients 1/Σπ_k² (σ̄² = Σπ_k²σ² = σ²/K_eff)
            name = "K_eff = 1/Σπ_k² (effective number of clients)"
        rows.append((name, text))
    return rows


def _run_text(verdict: Mapping[str, Any]) -> str:
    parts = []
    if verdict.get("profile"):
        parts.append(f"{verdict['profile']} profile")
    if verdict.get("base_seed") not in (None, 0):
        parts.append(f"seed {verdict['base_seed']}")
    if verdict.get("run_at"):
        parts.append(str(verdict["run_at"]).replace("T", " ").replace("+00:00", " UTC"))
    return ", ".join(parts)


def _paper(theorem: str) -> str:
    from fedrates.papers import PAPERS

    key = theorem.split(".", 1)[0]
    if key not in PAPERS:
        return ""
    authors, title = PAPERS[key]
    return f"{authors}, “{title}”"


def _claim_view(index: int, verdict: Mapping[str, Any], records: pd.DataFrame,
                shared: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, Any]:
    claim = str(verdict.get("claim", f"claim {index}"))
    key = str(verdict.get("verdict", "unknown"))
    known = key if key in VERDICTS else "unknown"
    rows = records[records["claim"] == claim] if "claim" in records.columns else records.iloc[0:0]
    svg: Markup | None = None
    paper_svg: Markup | None = None
    note = ""
    drawn = (shared or {}).get(claim)
    if drawn is not None:  # figures already drawn for the PDF report: reused, not drawn again
        svg = Markup(figures.prefix_ids(drawn["svg"], f"c{index}-")) if drawn["svg"] else None
        paper_svg = Markup(figures.prefix_ids(drawn["paper_svg"], f"p{index}-")) if drawn["paper_svg"] else None
        note = f"{drawn['note']} {drawn['paper_note']}".strip()
    elif rows.empty:
        note = "No records were stored for this claim."
    elif not verdict.get("x"):
        note = "The verdict names no swept parameter to plot against."
    else:
        try:
            svg = Markup(figures.to_svg(figures.claim_figure(rows, verdict), id_prefix=f"c{index}-"))
        except ValueError as exc:
            note = f"Figure unavailable: {exc}"
    draw_paper = paper_figures.PAPER_FIGURES.get(claim)
    if drawn is None and draw_paper is not None and not rows.empty:
        try:  # the figure as the paper lays it out, beside the generic one
            paper_svg = Markup(figures.to_svg(draw_paper(records, verdict), id_prefix=f"p{index}-"))
        except (ValueError, KeyError, IndexError) as exc:
            note = f"{note} Paper figure unavailable: {exc}".strip()
    constants = verdict.get("constants") or {}
    ratio = verdict.get("bound_ratio")
    return {
        "anchor": f"claim-{index}",
        "claim": claim,
        "title": str(verdict.get("title", "")),
        "theorem": str(verdict.get("theorem", "")),
        "statement": str(verdict.get("statement", "") or ""),
        "algorithm": str(verdict.get("algorithm", "")),
        "problem": str(verdict.get("problem", "")),
        "verdict": key,
        "verdict_key": known,
        "css": f"v-{known}",
        "measured": _fmt(verdict.get("measured")),
        "predicted": _fmt(verdict.get("predicted")),
        "tolerance": _fmt(verdict.get("tolerance")),
        "regime": str(verdict.get("regime", "") or ""),
        "conditions": [_condition(c) for c in verdict.get("conditions") or [] if isinstance(c, Mapping)],
        "constants": _constant_rows(constants) if isinstance(constants, Mapping) else [],
        "loose": bool(verdict.get("loose")),
        "bound_ratio": _fmt(ratio) if isinstance(ratio, (int, float)) else "",
        "loose_text": (f"measured/bound {_fmt(ratio)} < 1e-3: the bound cannot tell a correct run from one 1000× worse"
                       if verdict.get("loose") and isinstance(ratio, (int, float)) else ""),
        "variants": ", ".join(str(v) for v in verdict.get("variants") or []),
        "n_variants": len(verdict.get("variants") or []),
        "run": _run_text(verdict),
        "paper": _paper(str(verdict.get("theorem", ""))),
        "seeds": _seeds(verdict.get("seeds")),
        "message": str(verdict.get("message", "") or ""),
        "margin": str((verdict.get("margin") or {}).get("text", "") or ""),
        "informational": str(verdict.get("informational") or ""),
        "erratum_kind": str(verdict.get("erratum_kind") or ""),
        "fit": _fit_text(verdict.get("fit")),
        "calibrated_constant": (
            _fmt(verdict["calibrated_constant"]) if verdict.get("calibrated_constant") is not None else ""
        ),
        "svg": svg,
        "paper_svg": paper_svg,
        "figure_note": note,
    }


def sort_errata(errata: Sequence[Mapping[str, Any]] | None) -> list[dict[str, str]]:
    """Errata as display rows, grouped by kind (headline kinds first, :data:`fedrates.errata.ERRATUM_KINDS`
    order), each with its location, what the paper says, what is true and the evidence."""
    order = {k: i for i, k in enumerate(ERRATUM_KINDS)}
    rows = [{key: str(e.get(key, "") or "") for key in ("kind", "where", "quote", "true_statement", "evidence",
                                                        "theorem", "text", "resolution")}
            | {"claims": ", ".join(str(c) for c in e.get("claims") or []), "headline": e.get("kind") in HEADLINE_KINDS,
               "kind_title": KIND_TITLES.get(str(e.get("kind")), str(e.get("kind", "")))}
            for e in errata or [] if isinstance(e, Mapping)]
    return sorted(rows, key=lambda r: (not r["headline"], order.get(r["kind"], len(order))))


def _provenance_rows(provenance: Mapping[str, Any]) -> list[tuple[str, str]]:
    rows = []
    for key, value in (provenance or {}).items():
        if isinstance(value, (dict, list)):
            text = json.dumps(value, default=str)
            if len(text) > 600:
                text = text[:600] + " …"
        else:
            text = _fmt(value)
        rows.append((str(key), text))
    return rows


def build_context(
    records: pd.DataFrame,
    verdicts: Sequence[Mapping[str, Any]],
    provenance: Mapping[str, Any],
    errata: Sequence[Mapping[str, Any]],
    title: str = "fedrates verification report",
    shared: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """The template context: formatted strings, figures as SVG markup (reused from ``shared``, see
    :func:`fedrates.reports.pdf.render_pdf`, when given), verdict counts."""
    claims = [_claim_view(i, v, records, shared) for i, v in enumerate(verdicts, start=1)]
    seen = [c["verdict"] for c in claims]
    order = list(VERDICTS) + sorted(set(seen) - set(VERDICTS))
    counts = [
        {"verdict": v, "count": seen.count(v), "css": f"v-{v if v in VERDICTS else 'unknown'}"}
        for v in order
        if seen.count(v)
    ]
    discriminating: dict[str, dict[str, Any]] = {}
    for c in claims:
        row = discriminating.setdefault(c["algorithm"] or "—", {"algorithm": c["algorithm"] or "—", "claims": 0,
                                                               "discriminating": 0, "variants": 0})
        row["claims"] += 1
        row["discriminating"] += int(c["n_variants"] > 0)
        row["variants"] += c["n_variants"]
    from fedrates.papers import PAPERS

    used = sorted({c["theorem"].split(".", 1)[0] for c in claims} & set(PAPERS))
    return {
        "discriminating": sorted(discriminating.values(), key=lambda r: r["algorithm"]),
        "papers": [{"id": p, "authors": PAPERS[p][0], "title": PAPERS[p][1]} for p in used],
        "title": str(title),
        "generated": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "n_claims": len(claims),
        "n_records": len(records),
        "counts": counts,
        "claims": claims,
        "erratum_claims": [c for c in claims if c["verdict"] == "erratum"],
        "errata": sort_errata(errata),
        "erratum_summary": kind_summary(str(e.get("kind", "")) for e in errata or []),
        "provenance": _provenance_rows(provenance),
    }


def render_html_string(
    records: pd.DataFrame,
    verdicts: Sequence[Mapping[str, Any]],
    provenance: Mapping[str, Any],
    errata: Sequence[Mapping[str, Any]],
    title: str = "fedrates verification report",
    shared: Mapping[str, Mapping[str, Any]] | None = None,
) -> str:
    """The report as one HTML document (see the module docstring)."""
    template = _environment().get_template("report.html.j2")
    return template.render(**build_context(records, verdicts, provenance, errata, title, shared))


def _umask_mode() -> int:
    """Permissions a newly created file would get (mkstemp creates 0600 files)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def render_html(
    records: pd.DataFrame,
    verdicts: Sequence[Mapping[str, Any]],
    provenance: Mapping[str, Any],
    errata: Sequence[Mapping[str, Any]],
    path: str | os.PathLike[str],
    title: str = "fedrates verification report",
    shared: Mapping[str, Mapping[str, Any]] | None = None,
) -> Path:
    """Render the report and write it to ``path`` atomically (temporary file + ``os.replace``).  ``shared``: the
    figures :func:`fedrates.reports.pdf.render_pdf` drew, reused rather than drawn again."""
    text = render_html_string(records, verdicts, provenance, errata, title, shared)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(tmp, _umask_mode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
