"""Figures laid out as in the papers are rendered in the HTML and PDF reports beside the generic claim figure."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from fedrates.reports import paper_figures
from fedrates.reports.html import render_html_string
from fedrates.reports.pdf import render_pdf


def _rows(claim: str, metric: str, points: list[dict], values: list[float], rounds: int = 1) -> pd.DataFrame:
    frames = []
    for p, (params, value) in enumerate(zip(points, values, strict=True)):
        for r in range(rounds):
            frames.append(pd.DataFrame({"claim": claim, "metric": metric, "point": p, "seed": [0, 1], "round": r,
                                        "value": value * (r + 1) ** -1.0, "params": json.dumps(params),
                                        "iteration": r, "delta_g": params.get("delta_g", 0.0)}))
    return pd.concat(frames, ignore_index=True)


def _separation_records() -> pd.DataFrame:
    grid = [0.05, 0.2, 0.8]
    return pd.concat([
        _rows("bylinkin.thm4/separation-dg", "rounds_f", [{"delta_g": g} for g in grid], [166.0, 166.0, 168.0]),
        _rows("bylinkin.thm4/aeg-baseline", "aeg_rounds_f", [{"delta_g": g, "delta_f": 0.1} for g in grid],
              [300.0, 500.0, 900.0]),
        _rows("bylinkin.thm4/rate-df", "rounds_f", [{"delta_f": f, "mu": 0.01} for f in (0.1, 0.4)], [160.0, 320.0]),
        _rows("bylinkin.thm2/rate-df", "rounds_f", [{"delta_f": 0.05, "mu": m} for m in (0.025, 0.0025)],
              [28.0, 300.0]),
        _rows("bylinkin.thm2.mg/rate-dg", "rounds_g", [{"delta_g": g} for g in (0.075, 0.6)], [110.0, 4700.0]),
        _rows("bylinkin.thm2.mg/rate-dg", "predicted", [{"delta_g": g} for g in (0.075, 0.6)], [4e3, 2e5]),
        _rows("bylinkin.thm3/acceleration", "vrcs_iterations", [{"delta_f": 0.05, "mu": m} for m in (0.025, 0.0025)],
              [14.0, 150.0]),
        _rows("bylinkin.thm3/acceleration", "acc_vrcs_iterations",
              [{"delta_f": 0.05, "mu": m} for m in (0.025, 0.0025)], [9.0, 35.0]),
    ], ignore_index=True)


def _fig1_records() -> pd.DataFrame:
    points = [{"C_paper": c, "C": c, "init": "far"} for c in (10.0, 10.0, 100.0, 100.0)]
    return _rows("das.fig1/reproduction", "objective_gap", points, [1.0, 2.0, 1.5, 2.5], rounds=5)


@pytest.mark.parametrize("claim, records", [("bylinkin.thm4/separation-dg", _separation_records()),
                                            ("das.fig1/reproduction", _fig1_records())])
def test_paper_figure_draws_finite_lines(claim: str, records: pd.DataFrame) -> None:
    fig = paper_figures.PAPER_FIGURES[claim](records, {"claim": claim, "clip_threshold_note": "C below 4E√(LΔ)"})
    lines = [line for ax in fig.axes if ax.get_visible() for line in ax.get_lines()]
    assert lines and all(np.isfinite(np.asarray(line.get_ydata(), dtype=float)).all() for line in lines)


@pytest.mark.slow
def test_html_and_pdf_carry_the_paper_figure(tmp_path) -> None:
    records = _separation_records()
    verdict = {"claim": "bylinkin.thm4/separation-dg", "verdict": "pass", "theorem": "bylinkin.thm4",
               "x": "delta_g", "metric": "rounds_f", "title": "separation"}
    html = render_html_string(records, [verdict], {}, [])
    other = dict(verdict, claim="bylinkin.thm4/aeg-baseline", metric="aeg_rounds_f")
    assert html.count("<svg") == render_html_string(records, [other], {}, []).count("<svg") + 1
    out = render_pdf(records, [verdict], {}, [], tmp_path / "r.pdf")
    plain = render_pdf(records[records["claim"] == "none"], [verdict], {}, [], tmp_path / "plain.pdf")
    from pypdf import PdfReader

    # the paper figure is a page of its own (sizes say nothing: fonts are subset once for the whole document)
    assert len(PdfReader(out).pages) == len(PdfReader(plain).pages) + 1
