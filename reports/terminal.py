"""The verdict table printed by ``fedrates verify`` (rich): compact, verdict first, claim ids never split.

Each claim takes two lines (measured; predicted with its tolerance) within the console width (at most
:data:`MAX_WIDTH` columns). A line too long is shortened by its structure, never inside a value: whole items of a
``;``-separated list are dropped from the end (``… +3 more``), then the tolerance, then a trailing parenthesised aside,
then whole words (a label is never left without its value); the full texts
are in ``verdicts.json``, ``--json`` and the report.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import IO, Any

__all__ = ["MAX_WIDTH", "detail_lines", "fit", "print_verdicts", "verdict_table", "summary_line"]

#: the table never uses more columns than this, whatever the terminal
MAX_WIDTH = 99

COLOURS = {"pass": "green", "fail": "red", "erratum": "magenta", "informational": "cyan",
           "conditions-not-met": "yellow", "inconclusive": "yellow", "error": "red"}


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return "0" if value == 0 else f"{value:.4g}"
    return "—" if value is None else str(value)


def _words(text: str, width: int) -> str:
    """``text`` cut after its last whole word that fits in ``width`` with a trailing `` …`` (a single word longer
    than the width is kept whole: the table folds it, no character is lost)."""
    if len(text) <= width:
        return text
    words = text.split(" ")
    kept: list[str] = []
    for word in words:
        if len(" ".join([*kept, word])) + 2 > width:
            break
        kept.append(word)
    # a label never ends the line without its value ("… = …", "measured: …"): drop it with its value
    while len(kept) > 1 and (kept[-1].endswith((":", "=", "(")) or kept[-1] in _DANGLING):
        kept.pop()
    return (" ".join(kept) + " …") if kept else words[0]


#: words that announce a value (an operator, a conjunction): never the last word kept
_DANGLING = {"=", "≤", "≥", "<", ">", "−", "-", "+", "×", "·", "/", "→", "and", "or", "vs", "of", "at", "in", "with",
             "by", "to", "from", "than", "is", "are"}


def _without_parenthetical(text: str) -> str | None:
    """``text`` without its last top-level parenthesised group when that group ends it (``"44 (MC agrees: …)"`` →
    ``"44"``), else None."""
    if not text.endswith(")"):
        return None
    depth = 0
    for i in range(len(text) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(text[i], 0)
        if depth == 0:
            return text[:i].rstrip() or None
    return None


def fit(text: str, width: int) -> str:
    """``text`` within ``width`` columns, shortened by structure: whole ``"; "``-separated items are dropped from the
    end with a count (``"a 1; b 2 … +3 more"``), else whole words; never inside a number or a word."""
    if len(text) <= width:
        return text
    items = text.split("; ")
    for keep in range(len(items) - 1, 0, -1):
        candidate = "; ".join(items[:keep]) + f" … +{len(items) - keep} more"
        if len(candidate) <= width:
            return candidate
    shorter = _without_parenthetical(text)  # a trailing aside goes whole before any word is cut
    while shorter is not None:
        if len(shorter) + 2 <= width:
            return shorter + " …"
        shorter = _without_parenthetical(shorter)
    return _words(text, width)


def detail_lines(verdict: Mapping[str, Any], width: int) -> tuple[str, str]:
    """The two detail lines of a claim within ``width`` columns: the measured value, and the prediction with its
    tolerance (the tolerance is dropped first when both do not fit)."""
    measured = fit(_cell(verdict.get("measured")), width)
    predicted, tolerance = _cell(verdict.get("predicted")), _cell(verdict.get("tolerance"))
    second = f"→ {predicted} ({tolerance})"
    if len(second) > width:
        second = fit(f"→ {predicted}", width)
    return measured, second


def verdict_table(verdicts: Sequence[Mapping[str, Any]], title: str | None = None, width: int = MAX_WIDTH) -> Any:
    """A :class:`rich.table.Table` with columns verdict, claim, measured / predicted (tolerance), ``width`` wide."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    # verdict and claim keep their full width (ids are never cut); the details take what is left
    verdict_width = max([len("verdict"), *(len(str(v.get("verdict", "unknown"))) for v in verdicts),
                         *(len(str(v.get("erratum_kind") or "")) for v in verdicts)])
    id_width = max([len("claim"), *(len(str(v.get("claim", ""))) for v in verdicts)])
    details = max(16, width - verdict_width - id_width - 6)

    def build(fit_width: int) -> Any:
        table = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False, expand=False)
        table.add_column("verdict", no_wrap=True, min_width=verdict_width)
        table.add_column("claim", no_wrap=True, min_width=id_width)
        header = next(h for h in ("measured / predicted (tolerance)", "measured / predicted", "measured")
                      if len(h) <= fit_width or h == "measured")
        table.add_column(header, no_wrap=False, overflow="fold", width=details)
        for v in verdicts:
            key = str(v.get("verdict", "unknown"))
            colour = COLOURS.get(key, "white")
            cell = Text(key, style=f"bold {colour}")
            if v.get("erratum_kind"):
                cell.append(f"\n{v['erratum_kind']}", style=colour)
            elif v.get("loose"):
                cell.append("\nloose bound", style="red")
            first, second = detail_lines(v, fit_width)
            detail = Text(overflow="fold")
            detail.append(first)
            detail.append(f"\n{second}", style="dim")
            table.add_row(cell, Text(str(v.get("claim", "")), no_wrap=True), detail)
        return table

    # rich shrinks the columns of an over-wide table: fit the details to the width rich actually gives them
    table = build(details)
    try:
        from rich.console import Console

        console = Console(width=width, file=io.StringIO())
        given = table._calculate_column_widths(console, console.options)[-1]  # noqa: SLF001 - no public API
    except Exception:  # noqa: BLE001 - a rich without it: keep a margin of two columns
        given = details - 2
    if given - 2 < details:  # two columns of margin: rich's cell padding is not always in its column widths
        table = build(given - 2)
    return table


def summary_line(verdicts: Sequence[Mapping[str, Any]]) -> str:
    """``"120 pass, 3 informational, 10 erratum (2 paper errors (statement-false 2); also proof-gap 5, typo 3)"``:
    counts per verdict, erratum verdicts broken down by kind (only ``statement-false`` and ``constant`` are
    headline paper errors, :mod:`fedrates.errata`)."""
    from fedrates.errata import kind_summary

    counts: dict[str, int] = {}
    for v in verdicts:
        counts[str(v.get("verdict"))] = counts.get(str(v.get("verdict")), 0) + 1
    parts = []
    for key, n in sorted(counts.items()):
        text = f"{n} {key}"
        if key == "erratum":
            kinds = kind_summary(v.get("erratum_kind") for v in verdicts if v.get("verdict") == "erratum")
            text += f" ({kinds})" if kinds else ""
        parts.append(text)
    return ", ".join(parts)


def print_verdicts(verdicts: Sequence[Mapping[str, Any]], file: IO[str], *, tty: bool, width: int | None = None,
                   title: str | None = "fedrates verify") -> Any:
    """Print the table to ``file`` at most :data:`MAX_WIDTH` columns wide; returns the console used."""
    from rich.console import Console

    probe = Console(file=file) if tty and width is None else None
    columns = min(width or (probe.width if probe else MAX_WIDTH), MAX_WIDTH)
    console = Console(file=file, highlight=False, width=columns, force_terminal=tty if tty else None,
                      no_color=not tty)
    console.print(verdict_table(verdicts, title, columns))
    return console
