"""Self-contained HTML report of stored records and verdicts, in the order a reviewer reads it.

One file, viewable offline: inline CSS, inline SVG figures (text drawn as paths), MathML for the mathematics (which
browsers render natively), no scripts, no external fonts or stylesheets. Every string taken from the data passes
through jinja2 autoescaping; MathML is produced by converters from the LaTeX statement (``latex2mathml``) or from
the catalogued theorem's sympy right-hand side, never from raw text, and the LaTeX source stays available in a
``<details>`` element.

Layout: a table of contents; one scorecard per paper (each catalogued theorem, lemma or remark with its verdict:
verified with the number of claims that can fail, informational, erratum of a kind, conditions not met, not
covered), each linked to its claims; the errata grouped by kind (headline kinds first), one entry per erratum
with location, what the paper says, what is true, the evidence and its claims; a one-line-per-claim table; one
section per claim (statement, measured / predicted / tolerance, verdict and message, one condition table with the
sweep points as columns, constants, figure); the runs; provenance (local paths removed).
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import re
import tempfile
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from html import escape as html_escape
from pathlib import Path
from typing import Any

import jinja2
import pandas as pd
from markupsafe import Markup

from fedrates.errata import ERRATUM_KINDS, HEADLINE_KINDS, KIND_TITLES, kind_summary
from fedrates.reports import figures, paper_figures
from fedrates.reports.cache_files import store

__all__ = ["VERDICTS", "build_context", "cached_paper_svg", "cached_svg", "figure_digest", "render_html",
           "render_html_string", "rows_bytes", "rows_bytes_by_claim", "stored_form"]

#: verdict values, in the order the summary counts them
VERDICTS = ("pass", "fail", "erratum", "informational", "conditions-not-met", "inconclusive", "error")

_TEMPLATES = Path(__file__).with_name("templates")
#: folder of a run directory holding the figures already drawn (SVG named by the digest of their inputs)
FIGURE_CACHE = ".figures"


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


def rows_bytes(rows: pd.DataFrame) -> bytes:
    """Bytes that identify the content of a claim's records: the columns that hold a value for one of its rows,
    sorted by name, numbers as float64 (missing: NaN), other values (flags included) as text (missing: an empty
    field marked as such) — so that the columns other claims add to a shared frame, and integers stored as floats
    after a merge, do not change them."""
    import numpy as np

    if rows.empty:  # every column is missing: nothing identifies it (the loop below gives the same b"")
        return b""
    parts: list[bytes] = []
    for name in sorted(rows.columns, key=str):
        column = rows[name]
        missing = column.isna().to_numpy()
        if missing.all():
            continue
        if pd.api.types.is_numeric_dtype(column.dtype) and not pd.api.types.is_bool_dtype(column.dtype):
            parts.append(f"\x1e{name}\x1fn".encode())
            values = column.to_numpy(dtype="float64", na_value=np.nan)
            parts.append(np.where(missing, np.nan, values).tobytes())
        else:
            # text: the distinct values in order of first appearance, then each row's index into them (−1:
            # missing) — the same content as the values joined row by row, in O(rows) numpy work
            parts.append(f"\x1e{name}\x1fs".encode())
            codes = np.full(len(column), -1, dtype=np.int64)
            kept = column[~missing]
            text = kept if isinstance(kept.dtype, pd.StringDtype) else kept.astype(str)
            present, uniques = pd.factorize(text)
            uniques = [str(u) for u in uniques]
            codes[~missing] = present
            parts.append("\x1f".join(uniques).encode() + b"\x1d")
            parts.append(codes.tobytes())
    return b"".join(parts)


def rows_bytes_by_claim(records: pd.DataFrame) -> dict[str, bytes]:
    """:func:`rows_bytes` of every claim's rows of ``records`` at once (claim id → bytes; rows without a claim are
    left out, as ``groupby`` leaves them): each column is converted and each text column factorized once for the
    whole frame, then cut by claim — the same bytes as ``rows_bytes(records[records["claim"] == c])`` for every
    claim ``c``, in a fraction of the time on a run directory's records."""
    import numpy as np

    if "claim" not in records.columns or records.empty:
        return {}
    claim_codes, claims = pd.factorize(records["claim"], sort=False)
    order = np.argsort(claim_codes, kind="stable")  # rows of each claim, in their order in the frame
    bounds = np.searchsorted(claim_codes[order], np.arange(-1, len(claims)) + 1)  # code −1 (no claim) first
    groups = [order[bounds[i]:bounds[i + 1]] for i in range(len(claims))]
    parts: list[list[bytes]] = [[] for _ in claims]
    for name in sorted(records.columns, key=str):
        column = records[name]
        missing = column.isna().to_numpy()
        if pd.api.types.is_numeric_dtype(column.dtype) and not pd.api.types.is_bool_dtype(column.dtype):
            header = f"\x1e{name}\x1fn".encode()
            values = np.where(missing, np.nan, column.to_numpy(dtype="float64", na_value=np.nan))
            for part, rows in zip(parts, groups, strict=True):
                if not missing[rows].all():
                    part += [header, values[rows].tobytes()]
            continue
        header = f"\x1e{name}\x1fs".encode()
        kept = column[~missing]
        present, uniques = pd.factorize(kept if isinstance(kept.dtype, pd.StringDtype) else kept.astype(str))
        codes = np.full(len(column), -1, dtype=np.int64)
        codes[~missing] = present
        texts = [str(u) for u in uniques]
        for part, rows in zip(parts, groups, strict=True):
            mine = codes[rows]
            if (mine < 0).all():
                continue
            # the claim's distinct values in order of first appearance, and each row's index into them
            distinct, first = np.unique(mine[mine >= 0], return_index=True)
            ordered = distinct[np.argsort(first, kind="stable")]
            local = np.full(len(texts), -1, dtype=np.int64)
            local[ordered] = np.arange(len(ordered))
            part += [header, "\x1f".join(texts[j] for j in ordered).encode() + b"\x1d",
                     np.where(mine >= 0, local[np.maximum(mine, 0)], -1).astype(np.int64).tobytes()]
    return {str(claim): b"".join(part) for claim, part in zip(claims, parts, strict=True)}


def stored_form(verdict: Mapping[str, Any], drop: Sequence[str] = ()) -> tuple[str, dict[str, Any]]:
    """A verdict as ``verdicts.json`` stores it (:func:`fedrates.verify.jsonable.to_jsonable`: NaN as null, numpy
    scalars as numbers), without the fields ``drop``: its canonical JSON text (for digests) and the dict figures
    are drawn from, so that a figure depends on the stored verdict only, whether it was just judged or read back."""
    from fedrates.verify.jsonable import to_jsonable

    text = json.dumps(to_jsonable({k: v for k, v in verdict.items() if k not in drop}), sort_keys=True, default=str)
    return text, json.loads(text)


@functools.lru_cache(maxsize=2)
def _code_digest(kind: str) -> bytes:
    import matplotlib

    import fedrates.verify.plotdata

    h = hashlib.sha256(f"{kind} {matplotlib.__version__}".encode())
    modules = (figures, fedrates.verify.plotdata) + ((paper_figures,) if kind == "paper" else ())
    for module in modules:
        h.update(Path(module.__file__).read_bytes())
    return h.digest()


def figure_digest(rows: pd.DataFrame, verdict: Mapping[str, Any], kind: str = "claim") -> str:
    """A digest of everything a claim's figure (``kind`` "claim": :func:`fedrates.reports.figures.claim_figure`;
    "paper": its paper figure) is drawn from: its records, its verdict and the drawing code."""
    h = hashlib.sha256(_code_digest(kind))
    h.update(rows_bytes(rows))
    h.update(stored_form(verdict, _UNDRAWN)[0].encode())
    return h.hexdigest()[:32]


#: verdict fields a figure does not show (the date of the run)
_UNDRAWN = ("run_at",)


def _cached(path: Path | None, draw: Callable[[], str]) -> str:
    """``draw()`` read from ``path`` when stored before; a figure that cannot be drawn (ValueError) is remembered
    beside it (``.unavailable``) with its reason, so that it is not attempted again for the same inputs."""
    unavailable = path.with_suffix(".unavailable") if path is not None else None
    if path is not None and unavailable is not None:
        try:
            return path.read_text(encoding="utf-8")
        except OSError:
            pass
        if unavailable.is_file():
            raise ValueError(unavailable.read_text(encoding="utf-8"))
    try:
        svg = draw()
    except ValueError as exc:
        if unavailable is not None:
            store(unavailable, str(exc))
        raise
    if path is not None:
        store(path, svg)
    return svg


def cached_svg(rows: pd.DataFrame, verdict: Mapping[str, Any], cache: Path | None, digest: str | None = None) -> str:
    """The claim's figure as SVG (ids unprefixed), read from ``cache`` when drawn before from the same records,
    verdict and code (:func:`figure_digest`, or ``digest`` when the caller computed it), else drawn and stored
    there. Raises ValueError as :func:`fedrates.reports.figures.claim_figure` does."""
    path = cache / f"{digest or figure_digest(rows, verdict)}.svg" if cache is not None else None
    return _cached(path, lambda: figures.to_svg(figures.claim_figure(rows, stored_form(verdict, _UNDRAWN)[1])))


def cached_paper_svg(rows: pd.DataFrame, verdict: Mapping[str, Any], cache: Path | None,
                     digest: str | None = None) -> str | None:
    """The claim's figure as the paper lays it out (:data:`fedrates.reports.paper_figures.PAPER_FIGURES`) as SVG
    (ids unprefixed), cached as :func:`cached_svg`; None when the claim has none. Raises ValueError when it cannot
    be drawn from ``rows``."""
    draw = paper_figures.PAPER_FIGURES.get(str(verdict.get("claim", "")))
    if draw is None:
        return None

    def render() -> str:
        try:
            return figures.to_svg(draw(rows, stored_form(verdict, _UNDRAWN)[1]))
        except (KeyError, IndexError) as exc:
            raise ValueError(str(exc)) from exc

    path = cache / f"{digest or figure_digest(rows, verdict, 'paper')}.paper.svg" if cache is not None else None
    return _cached(path, render)


def _claim_view(index: int, verdict: Mapping[str, Any], records: pd.DataFrame,
                shared: Mapping[str, Mapping[str, Any]] | None = None, cache: Path | None = None) -> dict[str, Any]:
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
            svg = Markup(figures.prefix_ids(cached_svg(rows, verdict, cache), f"c{index}-"))
        except ValueError as exc:
            note = f"Figure unavailable: {exc}"
    if drawn is None and claim in paper_figures.PAPER_FIGURES and not rows.empty:
        try:  # the figure as the paper lays it out, beside the generic one
            text = cached_paper_svg(records, verdict, cache)
            paper_svg = Markup(figures.prefix_ids(text, f"p{index}-")) if text else None
        except ValueError as exc:
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
        "short": _short_claim(claim),
        "verdict_key": known,
        "css": f"v-{known}",
        "measured": _fmt(verdict.get("measured")),
        "predicted": _fmt(verdict.get("predicted")),
        "tolerance": _fmt(verdict.get("tolerance")),
        "regime": str(verdict.get("regime", "") or ""),
        "conditions": _condition_table(verdict.get("conditions") or []),
        "statement_math": math_from_latex(str(verdict.get("statement", "") or "")),
        "theorem_math": math_from_theorem(str(verdict.get("theorem", ""))),
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
        "message": scrub_paths(str(verdict.get("message", "") or "")),
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


_MATH_UNSAFE = re.compile(r"<\s*(script|style|iframe|object|embed|a|img|foreignobject)\b|\son\w+\s*=|javascript:",
                          re.IGNORECASE)


def looks_like_prose(text: str) -> bool:
    """Whether a "statement" is a sentence rather than a formula: six or more words of four letters or more outside
    LaTeX commands and ``\\text{…}`` (a sentence set as math would lose its spaces)."""
    bare = re.sub(r"\\(?:text|mathrm|operatorname|mbox)\{[^}]*\}", " ", text)
    bare = re.sub(r"\\[A-Za-z]+", " ", bare)
    return len(re.findall(r"(?<![A-Za-z])[A-Za-z]{4,}(?![A-Za-z])", bare)) >= 6


#: MathML converted for earlier reports, kept in the figure cache beside the figures: a report of statements shown
#: before converts none of them again (sympy's printer and latex2mathml take about 1 s for the built-in papers)
MATH_CACHE = "mathml.json"
#: key → MathML ("" when the formula cannot be converted) of this process: loaded and stored by :func:`build_context`
_MATH_MEMO: dict[str, str] = {}
#: the keys the report being built asked for: only those are stored (entries of older code or formulas drop out)
_MATH_USED: set[str] = set()


@functools.cache
def _math_versions() -> str:
    """What a stored conversion depends on besides its formula: this module's code and the converters' versions."""
    import importlib.metadata

    parts = [hashlib.sha256(Path(__file__).read_bytes()).hexdigest()]
    for package in ("sympy", "latex2mathml"):
        try:
            parts.append(importlib.metadata.version(package))
        except importlib.metadata.PackageNotFoundError:
            parts.append("")
    return json.dumps(parts)


def _math_key(kind: str, text: str) -> str:
    return hashlib.sha256(json.dumps([kind, text, _math_versions()]).encode()).hexdigest()[:40]


#: the MathML elements a stored conversion may hold (an HTML element inside ``<math>`` would end the math and be
#: shown as HTML: a stored entry with any other tag is converted again)
_MATHML_TAGS = frozenset({
    "math", "mi", "mn", "mo", "ms", "mtext", "mspace", "mrow", "mfrac", "msqrt", "mroot", "mstyle", "merror",
    "mpadded", "mphantom", "mfenced", "menclose", "msub", "msup", "msubsup", "munder", "mover", "munderover",
    "mmultiscripts", "mprescripts", "none", "mtable", "mtr", "mtd", "semantics", "annotation"})
_TAG = re.compile(r"<\s*/?\s*([^\s/>]*)")


def _plain_mathml(text: str) -> bool:
    """One ``<math>`` element made of MathML elements only, without scripts, event attributes or links."""
    return (text.startswith("<math") and text.endswith("</math>") and text.count("<math") == 1
            and not _MATH_UNSAFE.search(text) and all(t.lower() in _MATHML_TAGS for t in _TAG.findall(text)))


def _remembered(key: str, convert: Callable[[], Markup | None]) -> Markup | None:
    """``convert()``, or what it gave before under ``key`` — checked again (:func:`_plain_mathml`), so that a
    stored entry that is not plain MathML is never shown."""
    _MATH_USED.add(key)
    stored = _MATH_MEMO.get(key)
    if stored is not None:
        if stored == "":
            return None
        if _plain_mathml(stored):
            return Markup(stored)
    made = convert()
    _MATH_MEMO[key] = str(made) if made is not None else ""
    return made


def _load_math(cache: Path | None) -> int:
    """Read the stored conversions of ``cache`` into this process's memo; returns how many entries it then holds."""
    _MATH_USED.clear()
    if cache is not None:
        try:
            stored = json.loads((cache / MATH_CACHE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            stored = {}
        if isinstance(stored, dict):
            _MATH_MEMO.update({k: v for k, v in stored.items() if isinstance(k, str) and isinstance(v, str)})
    return len(_MATH_MEMO)


def _store_math(cache: Path | None, before: int) -> None:
    """Write the conversions this report used back to ``cache`` when it converted anything new."""
    if cache is not None and len(_MATH_MEMO) > before:
        used = {key: _MATH_MEMO[key] for key in _MATH_USED if key in _MATH_MEMO}
        store(cache / MATH_CACHE, json.dumps(used, sort_keys=True))


def math_from_latex(latex: str, display: bool = True) -> Markup | None:
    """MathML of a LaTeX formula (``latex2mathml``), or None when it cannot be converted (the package is missing,
    the LaTeX is outside what it parses, or the output holds anything but MathML). Remembered per formula (claims
    of one statement share it), and across reports with a figure cache."""
    if not latex or not latex.strip() or looks_like_prose(latex):
        return None
    return _remembered(_math_key("block" if display else "inline", latex), lambda: _latex_mathml(latex, display))


def _latex_mathml(latex: str, display: bool) -> Markup | None:
    try:
        from latex2mathml.converter import convert
    except ImportError:  # pragma: no cover - a declared dependency
        return None
    try:
        out = convert(latex, display="block" if display else "inline")
    except Exception:  # noqa: BLE001 - any parse failure: the LaTeX source is shown instead
        return None
    out = re.sub(r'\s+xmlns="[^"]*"', "", out, count=1)  # the HTML parser supplies the MathML namespace
    if _MATH_UNSAFE.search(out) or not out.startswith("<math"):
        return None
    return Markup(out)


def math_from_theorem(theorem_id: str) -> Markup | None:
    """MathML of a catalogued theorem, ``lhs ≤ rhs`` (sympy's presentation printer), or None. Remembered as
    :func:`math_from_latex` is, under the theorem's id and the catalogue's code (any edit of a theorem is a miss)."""
    return _remembered(_math_key("theorem", f"{theorem_id}@{_catalogue_digest()}"),
                       lambda: _theorem_mathml(theorem_id))


@functools.cache
def _catalogue_digest() -> str:
    from fedrates.plugins import catalogue_digest

    return catalogue_digest()


def _theorem_mathml(theorem_id: str) -> Markup | None:
    try:
        from fedrates.bounds import catalog

        theorem = catalog.get(theorem_id)
        rhs = _presentation_mathml(theorem.rhs)
    except Exception:  # noqa: BLE001 - not catalogued, or no sympy right-hand side
        return None
    lhs = html_escape(str(getattr(theorem, "lhs", "") or "").replace("_", " "))
    relation = {"order": "&#x2272;"}.get(str(getattr(theorem, "kind", "")), "&#x2264;")
    out = (f'<math display="block"><mrow><mtext>{lhs}</mtext><mo>{relation}</mo>{rhs}</mrow></math>'
           if lhs else f'<math display="block">{rhs}</math>')
    return None if _MATH_UNSAFE.search(out) else Markup(out)


@functools.lru_cache(maxsize=1024)
def _presentation_mathml(expression: Any) -> str:
    """sympy's presentation MathML of an expression, remembered (several claims test one theorem)."""
    from sympy.printing.mathml import mathml

    return mathml(expression, printer="presentation")


_LOCAL_PATH = re.compile(r"""(?:/(?:home|root|Users|work|tmp|opt|usr|var|private)/|[A-Za-z]:\\)[^\s"',;]*""")


def scrub_paths(text: str) -> str:
    """``text`` with absolute paths of the local machine replaced by their last component (a report is shared:
    it must not show where the user keeps files or which interpreter ran)."""
    return _LOCAL_PATH.sub(lambda m: "…/" + re.split(r"[/\\]", m.group(0).rstrip("/\\"))[-1], text)


#: a condition stored per sweep point: ``"[mu=0.025] mu < delta_f"`` or ``"K=2, E=5: a >= 4*L/mu"``
_BRACKET_POINT = re.compile(r"^\[([^\]]{1,60})\]\s*(.+)$", re.DOTALL)
_COLON_POINT = re.compile(r"^((?:[^\s=:,]{1,12}\s*=\s*[^\s=:,]+)(?:,\s*[^\s=:,]{1,12}\s*=\s*[^\s=:,]+)*):\s+(.+)$",
                          re.DOTALL)


def _condition_table(conditions: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The claim's conditions as one table: one row per condition, one column per sweep point.

    Conditions stored per point read ``"<point>: <condition>"`` (e.g. ``"K=2, E=5: a >= 4*L/mu"``, the point a
    list of ``name=value``) or ``"[<point>] <condition>"``; other conditions hold for every point."""
    points: list[str] = []
    rows: dict[str, dict[str, dict[str, str]]] = {}
    for item in conditions:
        if not isinstance(item, Mapping):
            continue
        text = str(item.get("condition", ""))
        m = _BRACKET_POINT.match(text) or _COLON_POINT.match(text)
        point, cond = (m.group(1).strip(), m.group(2).strip()) if m else ("", text)
        if point not in points:
            points.append(point)
        rows.setdefault(cond, {})[point] = _condition(item)
    columns = [p or "every point" for p in points] if points != [""] else ["holds"]
    body = [{"condition": cond, "cells": [cells.get(p) for p in points]} for cond, cells in rows.items()]
    return {"columns": columns, "rows": body, "values": any(c and c["value"] not in ("", "—")
                                                             for r in body for c in r["cells"])}


def paper_of(claim: Mapping[str, Any]) -> str:
    """The paper key of a claim view: its theorem's prefix, else its claim id's prefix."""
    from fedrates.papers import PAPERS

    for text in (str(claim.get("theorem", "")), str(claim.get("claim", ""))):
        key = text.split(".", 1)[0]
        if key in PAPERS:
            return key
    return "other"


def _short_claim(claim: str) -> str:
    return claim.split("/", 1)[1] if "/" in claim else claim


#: order of a theorem's statuses on its scorecard row
_STATUS_ORDER = ("fail", "error", "erratum", "inconclusive", "verified", "informational", "conditions-not-met")


def scorecards(claims: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One scorecard per paper: each catalogued theorem (theorem, lemma, remark, figure …) of the paper and each
    theorem id a claim names, with its statuses (verified with the number of claims that can fail — verdict
    ``pass``, not informational —, informational, erratum by kind, conditions not met, fail, error, inconclusive,
    not covered) and links to its claims."""
    from fedrates.papers import PAPERS

    try:
        from fedrates.bounds import catalog

        catalogued = list(catalog.ids())
    except Exception:  # noqa: BLE001 - a broken catalogue must not stop the report
        catalogued = []
    by_theorem: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for c in claims:
        by_theorem.setdefault((paper_of(c), c["theorem"]), []).append(c)
    papers = sorted({p for p, _ in by_theorem} & set(PAPERS))
    cards = []
    for paper in papers:
        ids = [t for t in catalogued if t.split(".", 1)[0] == paper]
        ids += sorted(t for p, t in by_theorem if p == paper and t not in ids)
        rows = []
        for tid in ids:
            own = by_theorem.get((paper, tid), [])
            label, title = tid, ""
            try:
                theorem = catalog.get(tid)
                label, title = str(theorem.label or tid), str(theorem.title or "")
            except Exception:  # noqa: BLE001 - a claim's theorem id outside the catalogue
                title = next((c["title"] for c in own if c.get("title")), "")
            statuses: dict[str, dict[str, Any]] = {}
            for c in own:
                key = {"pass": "verified"}.get(c["verdict"], c["verdict"])
                if key == "erratum":
                    key = f"erratum: {c['erratum_kind'] or 'unclassified'}"
                entry = statuses.setdefault(key, {"key": key, "n": 0, "css": c["css"]})
                entry["n"] += 1
            ordered = sorted(statuses.values(), key=lambda e: next(
                (i for i, k in enumerate(_STATUS_ORDER) if e["key"].startswith(k)), len(_STATUS_ORDER)))
            for e in ordered:
                e["text"] = (f"verified ({e['n']} claim{'s' if e['n'] != 1 else ''} that can fail)"
                             if e["key"] == "verified" else e["key"] + (f" ×{e['n']}" if e["n"] > 1 else ""))
            if not own:
                ordered = [{"key": "not covered", "n": 0, "css": "v-not-covered", "text": "not covered"}]
            rows.append({"id": tid, "anchor": f"theorem-{paper}-{tid}", "label": label, "title": title,
                         "statuses": ordered,
                         "claims": [{"anchor": c["anchor"], "short": _short_claim(c["claim"]), "css": c["css"]}
                                    for c in own]})
        counts: dict[str, int] = {}
        for r in rows:
            top = r["statuses"][0]["key"].split(":")[0]
            counts[top] = counts.get(top, 0) + 1
        cards.append({"paper": paper, "authors": PAPERS[paper][0], "title": PAPERS[paper][1], "rows": rows,
                      "anchor": f"scorecard-{paper}",
                      "counts": ", ".join(f"{n} {k}" for k, n in sorted(counts.items(), key=lambda kv: next(
                          (i for i, s in enumerate((*_STATUS_ORDER, "not covered")) if kv[0].startswith(s)), 99)))})
    return cards


def errata_groups(errata: Sequence[Mapping[str, Any]] | None,
                  anchors: Mapping[str, str]) -> list[dict[str, Any]]:
    """The errata grouped by kind, headline kinds (:data:`HEADLINE_KINDS`) first, then the others in
    :data:`ERRATUM_KINDS` order, then unclassified entries (written by older versions); one entry per erratum,
    with MathML of the theorem it concerns and links to its claims."""
    groups: dict[str, dict[str, Any]] = {}
    for i, e in enumerate(sort_errata(errata), start=1):
        kind = e["kind"] or "unclassified"
        group = groups.setdefault(kind, {"kind": kind, "title": KIND_TITLES.get(kind, "kind not recorded"),
                                         "headline": kind in HEADLINE_KINDS, "entries": [],
                                         "anchor": f"errata-{kind}"})
        theorems = [t.strip() for t in e["theorem"].split(",") if t.strip()]
        claims = [c.strip() for c in e["claims"].split(",") if c.strip()]
        if not claims and e["resolution"].startswith("claim "):
            claims = [e["resolution"][len("claim "):].strip()]
        group["entries"].append(e | {
            "anchor": f"erratum-{i}",
            "math": next((m for m in (math_from_theorem(t) for t in theorems) if m is not None), None),
            "quote_math": math_from_latex(e["quote"], display=False) if "\\" in e["quote"] else None,
            "claim_links": [{"claim": c, "anchor": anchors.get(c, "")} for c in claims],
        })
    order = [*HEADLINE_KINDS, *(k for k in ERRATUM_KINDS if k not in HEADLINE_KINDS)]
    return sorted(groups.values(), key=lambda g: order.index(g["kind"]) if g["kind"] in order else len(order))


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
        rows.append((str(key), scrub_paths(text)))
    return rows


def build_context(
    records: pd.DataFrame,
    verdicts: Sequence[Mapping[str, Any]],
    provenance: Mapping[str, Any],
    errata: Sequence[Mapping[str, Any]],
    title: str = "fedrates verification report",
    shared: Mapping[str, Mapping[str, Any]] | None = None,
    cache: str | os.PathLike[str] | None = None,
) -> dict[str, Any]:
    """The template context: formatted strings, figures as SVG markup (reused from ``shared``, see
    :func:`fedrates.reports.pdf.render_pdf`, when given), verdict counts."""
    cache_path = Path(cache) if cache is not None else None
    known_math = _load_math(cache_path)
    by_claim = dict(tuple(records.groupby("claim", sort=False))) if "claim" in records.columns else {}
    claims = [_claim_view(i, v, by_claim.get(str(v.get("claim")), records.iloc[0:0]), shared, cache_path)
              for i, v in enumerate(verdicts, start=1)]
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

    used = sorted({paper_of(c) for c in claims} & set(PAPERS))
    runs: list[str] = []
    for c in claims:  # run metadata once per run, claims carry the run's number when there are several
        if c["run"] and c["run"] not in runs:
            runs.append(c["run"])
    for c in claims:
        c["run_number"] = runs.index(c["run"]) + 1 if c["run"] in runs and len(runs) > 1 else 0
    anchors = {c["claim"]: c["anchor"] for c in claims}
    cards = scorecards(claims)
    groups = errata_groups(errata, anchors)
    _store_math(cache_path, known_math)
    for c in claims:
        c["paper_id"] = paper_of(c)
        c["theorem_anchor"] = f"theorem-{c['paper_id']}-{c['theorem']}"
    by_paper = [{"id": p, "anchor": f"claims-{p}", "claims": [c for c in claims if c["paper_id"] == p]}
                for p in used]
    rest = [c for c in claims if c["paper_id"] not in used]
    if rest:
        by_paper.append({"id": "other", "anchor": "claims-other", "claims": rest})
    return {
        "scorecards": cards,
        "errata_groups": groups,
        "n_errata": sum(len(g["entries"]) for g in groups),
        "runs": runs,
        "claims_by_paper": by_paper,
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
    cache: str | os.PathLike[str] | None = None,
) -> str:
    """The report as one HTML document (see the module docstring); ``cache``: a folder of figures drawn before,
    reused when their records, verdict and drawing code are unchanged (:func:`cached_svg`)."""
    template = _environment().get_template("report.html.j2")
    return template.render(**build_context(records, verdicts, provenance, errata, title, shared, cache))


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
    cache: str | os.PathLike[str] | None = None,
) -> Path:
    """Render the report and write it to ``path`` atomically (temporary file + ``os.replace``).  ``shared``: the
    figures :func:`fedrates.reports.pdf.render_pdf` drew, reused rather than drawn again. ``cache``: a folder of
    figures keyed by the digest of what they are drawn from (:func:`cached_svg`); by default, when ``path`` is in a
    run directory (beside ``records.parquet``), its :data:`FIGURE_CACHE` folder, so that a run that changes a few
    claims redraws only their figures."""
    path = Path(path)
    if cache is None and (path.parent / "records.parquet").is_file():  # a run directory: its figure cache
        cache = path.parent / FIGURE_CACHE
    text = render_html_string(records, verdicts, provenance, errata, title, shared, cache)
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
