"""PDF report of stored records and verdicts (matplotlib ``PdfPages``; the figures are those of the HTML report).

Every page is A4 portrait, in the order of the HTML report: the scorecards (one per paper: each catalogued
statement with its verdict, see :func:`fedrates.reports.html.scorecards`), the errata grouped by kind (headline
kinds first), a one-entry-per-claim summary, the papers and provenance (local paths removed), then one page per
claim — a header with the verdict, the statement set as math (matplotlib mathtext; its LaTeX source when mathtext
cannot set it), measured / predicted / tolerance and the loose-bound flag, the claim's figure (see
:func:`fedrates.reports.figures.draw_claim`), and the verdict's message, regime and run. The document outline
(bookmarks: scorecards per paper, errata per kind, claims per paper) is written by :mod:`fedrates.reports.pdf_join`.
Text is set in DejaVu Sans (which has every glyph the verdicts use, ℓ included) as TrueType, so it can be searched
and extracted, and every line is wrapped to the page width.

Incremental: each claim's pages are drawn as a small PDF document of their own, stored in the run directory's
figure cache under the digest of what they are drawn from (:func:`page_digest`: the claim's records, the records of
its paper figure, its verdict, the drawing code), and the report is put together from them object by object
(:func:`fedrates.reports.pdf_join.join`, fonts subset once for the whole report); a run
that changes a few claims draws only their pages (and :mod:`fedrates.reports.drawing` draws missing pages in
worker processes beforehand).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import io
import json
import os
import sys
import tempfile
import textwrap
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib
import pandas as pd
from matplotlib.artist import Artist
from matplotlib.backends.backend_pdf import PdfPages
from matplotlib.figure import Figure

from fedrates.reports import figures, paper_figures, pdf_fonts
from fedrates.reports.cache_files import store
from fedrates.reports.html import (
    VERDICTS,
    _fmt,
    _paper,
    _run_text,
    _umask_mode,
    errata_groups,
    looks_like_prose,
    paper_of,
    rows_bytes,
    rows_bytes_by_claim,
    scorecards,
    scrub_paths,
    stored_form,
)

__all__ = ["render_pdf", "PAGE_SIZE", "cached_pages", "claim_inputs", "draw_front_pages", "draw_pages", "front_pages",
           "page_digest", "paper_rows"]

#: A4 portrait, inches
PAGE_SIZE = (8.27, 11.69)
_LEFT = 0.07
_LINE = 0.0155  # line height at 8 pt, as a fraction of the page height
_WIDTH = 112  # characters per line at 8 pt DejaVu Sans within the margins (average glyph ≈ 0.55 em)
_LINES_PER_PAGE = 56
_STYLE = {"font.family": "DejaVu Sans", "pdf.fonttype": 42, "axes.unicode_minus": True}


def _plain(text: object) -> str:
    """Text as matplotlib sets it literally: ``$`` escaped, and letters of the Unicode block of mathematical
    alphanumerics (𝒫, 𝔼, ...; no glyph in DejaVu Sans) written as their plain letter."""
    import unicodedata

    text = "".join(unicodedata.normalize("NFKC", c) if 0x1D400 <= ord(c) <= 0x1D7FF else c for c in str(text))
    return text.replace("$", r"\$")


def _wrap(text: str, width: int = _WIDTH, indent: str = "    ") -> list[str]:
    return textwrap.wrap(str(text), width=width, initial_indent=indent, subsequent_indent=indent,
                         break_long_words=True) or [indent]


def _text_page(lines: Sequence[tuple[str, dict[str, Any]]], heading: str) -> Figure:
    """One page of pre-wrapped lines (text, matplotlib text properties) under a heading."""
    fig = Figure(figsize=PAGE_SIZE)
    fig.text(_LEFT, 0.965, _plain(heading), fontsize=14, weight="bold", va="top")
    y = 0.93
    for text, props in lines:
        fig.text(_LEFT, y, _plain(text), fontsize=8, va="top", **props)
        y -= _LINE
    return fig


def _text_chunks(lines: list[tuple[str, dict[str, Any]]]) -> list[list[tuple[str, dict[str, Any]]]]:
    """The lines of a section cut into pages (at least one, possibly empty)."""
    return [lines[i: i + _LINES_PER_PAGE] for i in range(0, max(len(lines), 1), _LINES_PER_PAGE)]


def _text_page_path(lines: Sequence[tuple[str, dict[str, Any]]], heading: str, cache: Path) -> Path:
    """Where :func:`cached_text_page` keeps a text page: keyed by its heading, its lines and the drawing code."""
    h = hashlib.sha256(_code_digest())
    h.update(json.dumps([heading, [list(x) for x in lines]], sort_keys=True, default=str).encode())
    return cache / f"{h.hexdigest()[:32]}.text.pdf"


def cached_text_page(lines: Sequence[tuple[str, dict[str, Any]]], heading: str, cache: Path | None) -> bytes:
    """A text page as a one-page PDF, read from ``cache`` (``<digest>.text.pdf``, keyed by its heading, its lines
    and the drawing code) when drawn before, else drawn and stored there: a report whose scorecards, errata or
    claim list did not change on a page reuses that page."""
    path = _text_page_path(lines, heading, cache) if cache is not None else None
    if path is not None and path.is_file():
        try:
            data = path.read_bytes()
            if data.startswith(b"%PDF") and b"%%EOF" in data[-64:]:
                return data
        except OSError:
            pass
    buf = io.BytesIO()
    with matplotlib.rc_context(_STYLE), pdf_fonts.deferred_subsets():
        with PdfPages(buf, metadata={"CreationDate": None}) as pdf:
            fig = _text_page(lines, heading)
            pdf.savefig(fig)
            fig.clear()
    data = buf.getvalue()
    if path is not None:
        store(path, data)
    return data


def _summary_lines(verdicts: Sequence[Mapping[str, Any]], provenance: Mapping[str, Any]) -> list[tuple[str, dict]]:
    seen = [str(v.get("verdict", "unknown")) for v in verdicts]
    order = list(VERDICTS) + sorted(set(seen) - set(VERDICTS))
    lines: list[tuple[str, dict]] = [
        ("   ".join(f"{v}: {seen.count(v)}" for v in order if seen.count(v)) or "no claims", {"weight": "bold"}),
        ("", {})]
    # one line per claim (its page has the measurement, the prediction and the figure)
    for v in verdicts:
        key = str(v.get("verdict", "unknown"))
        flag = ("   " + str(v["erratum_kind"]) if v.get("erratum_kind") else "") + \
            ("   [loose bound]" if v.get("loose") else "")
        lines.append((f"{key.upper():<20} {v.get('claim', '')}{flag}",
                      {"color": figures.VERDICT_COLOURS.get(key, "black")}))
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
        lines.extend((line, {}) for line in _wrap(scrub_paths(f"{k}: {_fmt(val)}")))
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
    statement = str(verdict.get("statement", "") or "")
    math = _mathtext(statement)
    if math is not None:
        text, size = math
        fig.text(_LEFT, y - 0.004, text, fontsize=size, va="top")
        y -= 0.035
    elif statement.strip():  # mathtext cannot set it: the LaTeX source, at most three lines
        for line in _wrap(f"statement (LaTeX source): {statement}", width=95, indent="")[:3]:
            # DejaVu Sans, not its Mono cut: the Mono cut lacks glyphs the statements use (ℓ)
            fig.text(_LEFT, y, _plain(line), fontsize=8, va="top", color="#333333")
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


#: usable text width of a page, in points
_TEXT_WIDTH_PT = (1 - 2 * _LEFT) * PAGE_SIZE[0] * 72


@functools.lru_cache(maxsize=512)  # claims of one theorem share its statement: parsed once per process
def _mathtext(latex: str) -> tuple[str, float] | None:
    """``(text, font size)`` setting a LaTeX statement as matplotlib mathtext within the page width, or None when
    mathtext cannot parse it, it is prose, or it would need a font below 6 pt."""
    if not latex.strip() or looks_like_prose(latex) or "\n" in latex.strip():
        return None
    from matplotlib.font_manager import FontProperties
    from matplotlib.mathtext import MathTextParser

    text = "$" + latex.strip().replace("$", "") + "$"
    try:
        width = MathTextParser("path").parse(text, dpi=72, prop=FontProperties(size=10))[0]
    except Exception:  # noqa: BLE001 - mathtext's parse errors are ValueError or pyparsing's
        return None
    size = min(10.0, 10.0 * _TEXT_WIDTH_PT / max(width, 1e-9))
    return (text, size) if size >= 6 else None


def _scorecard_lines(verdicts: Sequence[Mapping[str, Any]]) -> tuple[list[tuple[str, dict]], list[tuple[str, int]]]:
    """Lines of the scorecards and the bookmarks ``(paper, line index)`` where each paper starts."""
    views = [{"claim": str(v.get("claim", "")), "theorem": str(v.get("theorem", "")), "title": str(v.get("title", "")),
              "verdict": str(v.get("verdict", "unknown")), "erratum_kind": str(v.get("erratum_kind") or ""),
              "anchor": "", "css": ""} for v in verdicts]
    lines: list[tuple[str, dict]] = []
    marks: list[tuple[str, int]] = []
    colours = {"verified": "pass", "not covered": "", "erratum": "erratum"}
    for card in scorecards(views):
        marks.append((card["authors"], len(lines)))
        lines += [(line, {"weight": "bold"}) for line in _wrap(f"{card['authors']}, {card['title']}", indent="")]
        lines.append((f"    {card['counts']}", {"color": "#555555"}))
        for row in card["rows"]:
            status = "; ".join(st["text"] for st in row["statuses"])
            key = row["statuses"][0]["key"].split(":")[0]
            colour = figures.VERDICT_COLOURS.get(colours.get(key, key), "#555555")
            lines.append((f"  {row['label']} ({row['id']}): {status}", {"color": colour}))
            if row["claims"]:
                lines += [(line, {"color": "#555555"}) for line in
                          _wrap("claims: " + ", ".join(c["short"] for c in row["claims"]), indent="      ")]
        lines.append(("", {}))
    return lines, marks


def _errata_lines(errata: Sequence[Mapping[str, Any]]) -> tuple[list[tuple[str, dict]], list[tuple[str, int]]]:
    """Lines of the errata, grouped by kind (headline kinds first), and the bookmarks ``(kind, line index)``."""
    lines: list[tuple[str, dict]] = []
    marks: list[tuple[str, int]] = []
    for group in errata_groups(errata, {}):
        marks.append((f"{group['kind']} ({len(group['entries'])})", len(lines)))
        lines.append((f"{group['kind']} — {group['title']}", {"weight": "bold", "color": "#7a4300"}))
        for e in group["entries"]:
            lines += [(line, {"weight": "bold"}) for line in
                      _wrap(f"{e['where'] or e['theorem']} ({e['theorem']})", indent="  ")]
            for label, key in (("the paper says", "quote"), ("what is true", "true_statement"),
                               ("evidence", "evidence"), ("erratum", "text"), ("resolution", "resolution")):
                if e[key] and not (key == "text" and e["quote"]) and not (key == "resolution" and e["true_statement"]):
                    lines += [(line, {"color": "#555555"} if key == "evidence" else {})
                              for line in _wrap(f"{label}: {e[key]}")]
            if e["claim_links"]:
                lines += [(line, {"color": "#555555"}) for line in
                          _wrap("claims: " + ", ".join(c["claim"] for c in e["claim_links"]))]
        lines.append(("", {}))
    return lines, marks


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


class _TightBox(Artist):
    """Drawn last on a page, drawing nothing: the tight box of ``ax`` (tick and axis labels, legend), in inches,
    measured by the renderer that has just drawn the page (:attr:`box`). That renderer has every text of the axes
    measured already; asked afterwards, the figure would lay the axes out again with a renderer of its own (about
    a tenth of a page's drawing)."""

    def __init__(self, ax: Any) -> None:
        super().__init__()
        self.ax = ax
        self.box: Any = None
        self.set_zorder(1e9)

    def draw(self, renderer: Any) -> None:
        self.box = self.ax.get_tightbbox(renderer).transformed(self.ax.figure.dpi_scale_trans.inverted())


def _axes_svg(fig: Figure, ax: Any, box: Any = None) -> str:
    """The part of a drawn page inside ``ax``'s tight box (tick and axis labels, legend; ``box`` in inches when the
    page's drawing measured it, :class:`_TightBox`) as SVG, for the HTML report: the same figure, not drawn a
    second time from the records."""
    if box is None:
        box = ax.get_tightbbox().transformed(fig.dpi_scale_trans.inverted())
    box = box.padded(0.08)
    for text in fig.texts:  # the page's header and body: outside the box, and in the HTML report as text already
        text.set_visible(False)
    return figures.to_svg(fig, bbox_inches=box)


@functools.lru_cache(maxsize=1)
def _code_digest() -> bytes:
    """What the pages are drawn with: this module, the figure code, the HTML helpers it formats with, matplotlib."""
    import fedrates.reports.html
    import fedrates.verify.plotdata

    h = hashlib.sha256(matplotlib.__version__.encode())
    for module in (sys.modules[__name__], figures, paper_figures, pdf_fonts, fedrates.reports.html,
                   fedrates.verify.plotdata):
        h.update(Path(module.__file__).read_bytes())
    return h.digest()


def paper_rows(records: pd.DataFrame, claim: str) -> pd.DataFrame:
    """The records a claim's paper figure (:data:`fedrates.reports.paper_figures.PAPER_FIGURES`) may draw from:
    those of every claim of the same paper (none when the claim has no paper figure)."""
    if claim not in paper_figures.PAPER_FIGURES or "claim" not in records.columns:
        return records.iloc[0:0]
    prefix = claim.split(".", 1)[0] + "."
    return records[records["claim"].astype(str).str.startswith(prefix)]


def page_digest(rows: pd.DataFrame, paper: pd.DataFrame, verdict: Mapping[str, Any],
                rows_data: bytes | None = None, paper_data: bytes | None = None) -> str:
    """A digest of everything a claim's pages are drawn from: the claim's records ``rows``, the records of its paper
    figure ``paper`` (:func:`paper_rows`), its verdict and the drawing code. ``rows_data``, ``paper_data``:
    ``rows_bytes(rows)`` and ``rows_bytes(paper)`` when the caller has them
    (:func:`fedrates.reports.html.rows_bytes_by_claim`, one paper's rows shared by its claims)."""
    h = hashlib.sha256(_code_digest())
    h.update(rows_bytes(rows) if rows_data is None else rows_data)
    h.update(rows_bytes(paper) if paper_data is None else paper_data)
    h.update(stored_form(verdict)[0].encode())
    return h.hexdigest()[:32]


def draw_pages(rows: pd.DataFrame, paper: pd.DataFrame, verdict: Mapping[str, Any]) -> dict[str, Any]:
    """A claim's pages — its own page and, when it has one, its paper figure's page — as a PDF document of their
    own, with the figures as SVG for the HTML report: ``{"pdf": bytes, "pages", "svg", "note", "paper_svg",
    "paper_note"}`` (``svg`` None when the page has no figure; ``note`` says why)."""
    verdict = stored_form(verdict)[1]  # as verdicts.json holds it: the same pages, just judged or read back
    buf = io.BytesIO()
    entry: dict[str, Any] = {"svg": None, "note": "", "paper_svg": None, "paper_note": ""}
    with matplotlib.rc_context(_STYLE), pdf_fonts.deferred_subsets():  # fonts subset once, for the whole report
        with PdfPages(buf, metadata={"CreationDate": None}) as pdf:
            fig, ax, entry["note"] = _claim_page(rows, verdict)
            probe = fig.add_artist(_TightBox(ax)) if ax is not None else None
            pdf.savefig(fig)
            if probe is not None:
                probe.remove()
                entry["svg"] = _axes_svg(fig, ax, probe.box)
            fig.clear()
            paper_fig, entry["paper_note"] = _paper_page(paper, verdict)
            if paper_fig is not None:
                pdf.savefig(paper_fig)
                paper_fig.set_layout_engine("none")  # keep the positions the page was drawn with
                entry["paper_svg"] = figures.to_svg(paper_fig)
            entry["pages"] = pdf.get_pagecount()
    entry["pdf"] = buf.getvalue()
    return entry


def read_cached_pages(cache: Path | None, digest: str | None) -> dict[str, Any] | None:
    """The pages stored in ``cache`` under ``digest`` (:func:`cached_pages`), or None when there are none (or they
    are damaged: drawn again by the caller)."""
    path = cache / f"{digest}.page.json" if cache is not None and digest else None
    if path is None or not path.is_file():
        return None
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
        return stored | {"pdf": base64.b64decode(stored["pdf"])}
    except (OSError, ValueError, KeyError, TypeError):
        return None


def cached_pages(rows: pd.DataFrame, paper: pd.DataFrame, verdict: Mapping[str, Any],
                 cache: Path | None, digest: str | None = None) -> dict[str, Any]:
    """:func:`draw_pages`, read from ``cache`` (``<digest>.page.json``, see :func:`page_digest`; ``digest`` when the
    caller computed it) when drawn before from the same records, verdict and code, else drawn and stored there
    (atomically; an unwritable folder only loses the reuse)."""
    digest = digest or page_digest(rows, paper, verdict)
    path = cache / f"{digest}.page.json" if cache is not None else None
    stored = read_cached_pages(cache, digest)
    if stored is not None:
        return stored
    entry = draw_pages(rows, paper, verdict)
    if path is not None:
        store(path, json.dumps(entry | {"pdf": base64.b64encode(entry["pdf"]).decode("ascii")}))
    return entry


def page_digests(records: pd.DataFrame, verdicts: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """claim id → :func:`page_digest` of its pages, for every verdict: computed once by a caller that both draws
    the missing pages (:func:`fedrates.reports.drawing.draw_missing`) and puts the PDF together (:func:`render_pdf`)."""
    if not verdicts:
        return {}
    wanted = {str(v.get("claim", "")) for v in verdicts}
    mine = records if "claim" not in records.columns else records[records["claim"].isin(wanted)]
    own = rows_bytes_by_claim(mine)  # the claims' rows converted at once (only theirs: the others may be known)
    papers: dict[str, bytes] = {}  # a paper's rows, shared by its claims with a paper figure

    def paper_data(claim: str, paper: pd.DataFrame) -> bytes:
        if paper.empty:
            return b""
        key = claim.split(".", 1)[0]
        if key not in papers:
            papers[key] = rows_bytes(paper)
        return papers[key]

    digests = {}
    for rows, paper, verdict in claim_inputs(records, verdicts):
        claim = str(verdict.get("claim", ""))
        digests[claim] = page_digest(rows, paper, verdict, own.get(claim, b""), paper_data(claim, paper))
    return digests


#: the page digests of the last report written with a figure cache (:func:`store_page_digests`)
PAGE_DIGESTS = "page-digests.json"


def _verdict_digest(verdict: Mapping[str, Any]) -> str:
    return hashlib.sha256(stored_form(verdict)[0].encode()).hexdigest()[:32]


def store_page_digests(cache: Path, digests: Mapping[str, str], verdicts: Sequence[Mapping[str, Any]]) -> None:
    """Keep the page digest of each claim of a report in ``cache`` (:data:`PAGE_DIGESTS`), with a digest of its
    verdict and of the drawing code, for :func:`kept_page_digests` (atomic; an unwritable folder only loses the
    reuse)."""
    entries = {str(v.get("claim", "")): [digests[str(v.get("claim", ""))], _verdict_digest(v)]
               for v in verdicts if str(v.get("claim", "")) in digests}
    store(cache / PAGE_DIGESTS, json.dumps({"code": _code_digest().hex(), "claims": entries}, sort_keys=True))


def kept_page_digests(cache: Path, verdicts: Sequence[Mapping[str, Any]], kept: Sequence[str],
                      changed_claims: Sequence[str]) -> dict[str, str]:
    """The page digests of the ``kept`` claims (an earlier run's claims that a run into the same folder keeps, with
    their records) as the last report stored them (:func:`store_page_digests`), for the claims whose pages are drawn
    from the same inputs: same drawing code, same stored verdict, and — for a claim with a paper figure, drawn from
    the records of its whole paper — no claim of its paper among ``changed_claims`` (this run's). Their records
    need not be digested again; any other claim is left out (its digest is computed from its records)."""
    try:
        stored = json.loads((cache / PAGE_DIGESTS).read_text(encoding="utf-8"))
        if stored.get("code") != _code_digest().hex():
            return {}
        entries = stored["claims"]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}
    changed_papers = {str(c).split(".", 1)[0] for c in changed_claims}
    wanted = set(kept)
    out = {}
    for verdict in verdicts:
        claim = str(verdict.get("claim", ""))
        entry = entries.get(claim) if claim in wanted else None
        if not isinstance(entry, list) or len(entry) != 2:
            continue
        if claim in paper_figures.PAPER_FIGURES and claim.split(".", 1)[0] in changed_papers:
            continue
        if entry[1] == _verdict_digest(verdict):
            out[claim] = str(entry[0])
    return out


def page_figures(records: pd.DataFrame, verdicts: Sequence[Mapping[str, Any]], cache: Path,
                 digests: Mapping[str, str] | None = None) -> dict[str, dict[str, Any]]:
    """claim id → the figures of its pages (``svg``, ``note``, ``paper_svg``, ``paper_note``), read from the page
    cache (drawn and stored when missing, :func:`cached_pages`): what :func:`render_pdf` hands the HTML report in
    ``shared``, for a caller that writes the HTML report while the PDF is put together."""
    return {str(verdict.get("claim", "")): {k: entry[k] for k in ("svg", "note", "paper_svg", "paper_note")}
            for verdict, entry in pages_of(records, verdicts, cache, digests)}


def pages_of(records: pd.DataFrame, verdicts: Sequence[Mapping[str, Any]], cache: Path | None,
             digests: Mapping[str, str] | None = None) -> Iterator[tuple[Mapping[str, Any], dict[str, Any]]]:
    """``(verdict, pages)`` of each verdict in order (:func:`cached_pages`). A claim whose digest is in ``digests``
    and whose pages are in ``cache`` is read without splitting its rows out of ``records``: only the claims drawn
    here cost that."""
    known = digests or {}
    for verdict in verdicts:
        entry = read_cached_pages(cache, known.get(str(verdict.get("claim", ""))))
        if entry is None:
            rows, paper, _ = claim_input(records, verdict)
            entry = cached_pages(rows, paper, verdict, cache, known.get(str(verdict.get("claim", ""))))
        yield verdict, entry


def claim_inputs(records: pd.DataFrame, verdicts: Sequence[Mapping[str, Any]]
                 ) -> list[tuple[pd.DataFrame, pd.DataFrame, Mapping[str, Any]]]:
    """``(rows, paper rows, verdict)`` of each verdict: what :func:`draw_pages` draws its pages from."""
    by_claim = dict(tuple(records.groupby("claim", sort=False))) if "claim" in records.columns else {}
    empty = records.iloc[0:0]
    return [(by_claim.get(str(v.get("claim", "")), empty), paper_rows(records, str(v.get("claim", ""))), v)
            for v in verdicts]


def claim_input(records: pd.DataFrame, verdict: Mapping[str, Any]
                ) -> tuple[pd.DataFrame, pd.DataFrame, Mapping[str, Any]]:
    """:func:`claim_inputs` of one verdict (the same rows, in the same order)."""
    claim = str(verdict.get("claim", ""))
    rows = records[records["claim"] == claim] if "claim" in records.columns else records.iloc[0:0]
    return rows, paper_rows(records, claim), verdict


#: heading of the errata pages of the front matter
ERRATA_HEADING = "Errata by kind"


def front_pages(verdicts: Sequence[Mapping[str, Any]], provenance: Mapping[str, Any],
                errata: Sequence[Mapping[str, Any]], title: str = "fedrates verification report"
                ) -> tuple[list[tuple[str, list[tuple[str, dict]]]], list[tuple[str, int, int]]]:
    """The report's front matter — scorecards, errata by kind, the list of claims with the provenance — as text
    pages ``(heading, lines)`` in order, and their bookmarks ``(title, page index, level 0/1)``."""
    pages: list[tuple[str, list[tuple[str, dict]]]] = []
    outline: list[tuple[str, int, int]] = []
    sections = [(f"{title}: scorecards", *_scorecard_lines(verdicts))]
    if errata:
        sections.append((ERRATA_HEADING, *_errata_lines(errata)))
    sections.append(("All claims, papers and provenance", _summary_lines(verdicts, provenance), []))
    for heading, lines, marks in sections:
        start = len(pages)
        outline.append((heading, start, 0))
        outline.extend((name, start + i // _LINES_PER_PAGE, 1) for name, i in marks)
        pages.extend((heading, chunk) for chunk in _text_chunks(lines))
    return pages, outline


def draw_errata_pages(errata: Sequence[Mapping[str, Any]], cache: Path) -> int:
    """Draw into ``cache`` the errata pages of the front matter (:func:`front_pages`; they depend on the errata
    only, so a run can draw them while its claims are still being swept). Returns how many pages were drawn."""
    drawn = 0
    for chunk in _text_chunks(_errata_lines(errata)[0]) if errata else []:
        drawn += not _text_page_path(chunk, ERRATA_HEADING, cache).is_file()
        cached_text_page(chunk, ERRATA_HEADING, cache)
    return drawn


def draw_front_pages(verdicts: Sequence[Mapping[str, Any]], provenance: Mapping[str, Any],
                     errata: Sequence[Mapping[str, Any]], cache: Path, title: str = "fedrates verification report"
                     ) -> int:
    """Draw into ``cache`` the front pages (:func:`front_pages`) not there yet, as :func:`render_pdf` would: what a
    second process does while the claims' pages are put together. Returns how many pages were drawn."""
    drawn = 0
    for heading, lines in front_pages(verdicts, provenance, errata, title)[0]:
        drawn += not _text_page_path(lines, heading, cache).is_file()
        cached_text_page(lines, heading, cache)
    return drawn


def render_pdf(
    records: pd.DataFrame,
    verdicts: Sequence[Mapping[str, Any]],
    provenance: Mapping[str, Any],
    errata: Sequence[Mapping[str, Any]],
    path: str | os.PathLike[str],
    title: str = "fedrates verification report",
    shared: dict[str, dict[str, Any]] | None = None,
    cache: str | os.PathLike[str] | None = None,
    digests: Mapping[str, str] | None = None,
    front_drawn: Callable[[], Any] | None = None,
) -> Path:
    """Write the PDF report to ``path`` atomically (temporary file + ``os.replace``); return the path.

    The front matter (scorecards, errata, summary, :func:`front_pages`) is drawn each time its text changes; each
    claim's pages come from ``cache``, a folder of pages keyed by the digest of what they are drawn from
    (:func:`cached_pages`) — by default, when ``path`` is in a run directory (beside ``records.parquet``), its
    figure cache (:data:`fedrates.reports.html.FIGURE_CACHE`), so that a run that changes a few claims draws only
    their pages — and the document is put together by :func:`fedrates.reports.pdf_join.join`, the front pages
    first (the font subsets cached in ``cache`` too). ``front_drawn``: called before the front pages are read,
    e.g. to wait for a process that draws them into ``cache`` meanwhile (:func:`draw_front_pages`); any page still
    missing is drawn here. With ``shared`` (a dict), each claim's figures are also stored as
    ``shared[claim] = {"svg", "note", "paper_svg", "paper_note"}`` (SVG of the pages' figures), for
    :func:`fedrates.reports.html.render_html` to reuse instead of drawing them again. ``digests``: the claims' page
    digests when the caller computed them (:func:`page_digests`), else computed here."""
    from fedrates.reports import pdf_join
    from fedrates.reports.html import FIGURE_CACHE

    path = Path(path)
    if cache is None and (path.parent / "records.parquet").is_file():
        cache = path.parent / FIGURE_CACHE
    cache_path = Path(cache) if cache is not None else None
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        front, outline = front_pages(verdicts, provenance, errata, title)
        documents: list[pdf_join.Document] = []
        pages = 0
        outline.append(("Claims", len(front), 0))
        current = None
        for verdict, entry in pages_of(records, verdicts, cache_path, digests):
            key = paper_of({"theorem": verdict.get("theorem", ""), "claim": verdict.get("claim", "")})
            if key != current:
                outline.append((key, len(front) + pages, 1))
                current = key
            try:
                document = pdf_join.read(entry["pdf"])
            except ValueError:  # a damaged cache entry: drawn again
                rows, paper, _ = claim_input(records, verdict)
                entry = draw_pages(rows, paper, verdict)
                document = pdf_join.read(entry["pdf"])
            documents.append(document)
            pages += len(document.pages)
            if shared is not None:
                shared[str(verdict.get("claim", ""))] = {k: entry[k] for k in ("svg", "note", "paper_svg",
                                                                                "paper_note")}
        if front_drawn is not None:
            front_drawn()
        # each front page drawn once for its content (cached), put before the claims' pages
        front_documents = [pdf_join.read(cached_text_page(lines, heading, cache_path)) for heading, lines in front]
        info = {"Title": _plain(title), "Creator": f"fedrates, matplotlib {matplotlib.__version__}"}
        data = pdf_join.join(front_documents + documents, outline, info, subset_cache=cache_path)
        with open(tmp, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, _umask_mode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
