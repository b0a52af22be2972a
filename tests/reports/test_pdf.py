"""Tests of reports.pdf: page structure, robustness to odd text, atomic write."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from fedrates.reports import pdf


def _pages(path: Path) -> int:
    return len(re.findall(rb"/Type /Page[^s]", path.read_bytes()))


def _records(claim: str) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "claim": [claim] * 4,
            "seed": [0, 0, 1, 1],
            "point": [0, 1, 0, 1],
            "round": [10, 20, 10, 20],
            "iterations": [10, 20, 10, 20],
            "metric": ["objective_gap"] * 4,
            "value": [0.1, 0.05, 0.12, 0.06],
            "bound": [1.0, 0.5, 1.0, 0.5],
        }
    )


def test_pdf_pages_and_odd_text(tmp_path: Path) -> None:
    odd = "$\\frac{1}{T$ <b>&'\""  # unbalanced mathtext must not break rendering
    verdicts = [
        {"claim": "a/plot", "verdict": "pass", "x": "iterations", "metric": "objective_gap", "title": odd},
        {"claim": odd, "verdict": odd, "message": odd, "measured": float("nan")},  # text page, nothing to plot
    ]
    path = pdf.render_pdf(_records("a/plot"), verdicts, {"k": odd}, [], tmp_path / "r.pdf", title=odd)
    assert path.read_bytes().startswith(b"%PDF")
    assert _pages(path) == 1 + len(verdicts)  # summary, then one page per claim
    errata = [{"theorem": "bao.thm3.1", "text": odd, "resolution": odd}]
    pdf.render_pdf(_records("a/plot"), verdicts, {}, errata, tmp_path / "r.pdf")
    assert _pages(path) == 2 + len(verdicts)  # plus the errata page
    assert [p.name for p in tmp_path.iterdir()] == ["r.pdf"]
