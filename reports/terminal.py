"""The verdict table printed by ``fedrates verify`` (rich): compact, verdict first, claim ids never split.

Each claim takes two lines (measured; predicted with its tolerance), each cut with an ellipsis at the console width
(at most :data:`MAX_WIDTH` columns); the full texts are in ``verdicts.json``, ``--json`` and the report.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import IO, Any

__all__ = ["MAX_WIDTH", "print_verdicts", "verdict_table", "summary_line"]

#: the table never uses more columns than this, whatever the terminal
MAX_WIDTH = 99

COLOURS = {"pass": "green", "fail": "red", "erratum": "magenta", "informational": "cyan",
           "conditions-not-met": "yellow", "inconclusive": "yellow", "error": "red"}


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return "0" if value == 0 else f"{value:.4g}"
    return "—" if value is None else str(value)


def verdict_table(verdicts: Sequence[Mapping[str, Any]], title: str | None = None, width: int = MAX_WIDTH) -> Any:
    """A :class:`rich.table.Table` with columns verdict, claim, measured / predicted (tolerance), ``width`` wide."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    table = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False, expand=False)
    # verdict and claim keep their full width (ids are never cut); the details take what is left
    verdict_width = max([len("verdict"), *(len(str(v.get("verdict", "unknown"))) for v in verdicts),
                         *(len(str(v.get("erratum_kind") or "")) for v in verdicts)])
    id_width = max([len("claim"), *(len(str(v.get("claim", ""))) for v in verdicts)])
    table.add_column("verdict", no_wrap=True, min_width=verdict_width)
    table.add_column("claim", no_wrap=True, min_width=id_width)
    # rich shrinks every column of an over-wide table, ids included: give the details exactly the remaining width
    # (column separators and edge padding of SIMPLE_HEAD without edge padding: 2 columns per gap)
    details = max(16, width - verdict_width - id_width - 2 * 2)
    table.add_column("measured / predicted (tolerance)", no_wrap=True, overflow="ellipsis", width=details)
    for v in verdicts:
        key = str(v.get("verdict", "unknown"))
        colour = COLOURS.get(key, "white")
        cell = Text(key, style=f"bold {colour}")
        if v.get("erratum_kind"):
            cell.append(f"\n{v['erratum_kind']}", style=colour)
        elif v.get("loose"):
            cell.append("\nloose bound", style="red")
        detail = Text(overflow="ellipsis", no_wrap=True)
        detail.append(_cell(v.get("measured")))
        detail.append(f"\n→ {_cell(v.get('predicted'))} ({_cell(v.get('tolerance'))})", style="dim")
        table.add_row(cell, Text(str(v.get("claim", "")), no_wrap=True), detail)
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
