"""A resume whose results did not change keeps its reports as they are; any change of results redraws them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fedrates.reports import html as html_module
from fedrates.reports import pdf as pdf_module
from fedrates.verify.checks import bound_holds
from fedrates.verify.claims.base import Claim, records_from_trace
from fedrates.verify.pipeline import verify_claims


@dataclass(frozen=True)
class _Toy(Claim):
    """value = scale / T over a T grid with a bound 1/T: a tiny claim that needs no solver."""

    scale: float = 0.5

    def points(self, profile: str) -> list[dict]:
        return [{"T": t} for t in (10, 20, 40)]

    def simulate(self, point: dict, seeds) -> pd.DataFrame:
        rng = np.random.default_rng([int(point["T"]), *seeds])
        df = pd.DataFrame({"seed": list(seeds), "round": point["T"], "iterations": point["T"],
                           "objective_gap": self.scale / point["T"] * rng.uniform(0.9, 1.1, len(seeds)),
                           "diverged": False})
        return records_from_trace(df, claim=self, point_index=[10, 20, 40].index(point["T"]), point=point,
                                  metrics=["objective_gap"], bound=lambda d: 1.0 / d["iterations"].to_numpy())

    def judge(self, records: pd.DataFrame, profile: str) -> dict:
        table = records.pivot_table(index="seed", columns="iterations", values="value")
        bound = records.groupby("iterations")["bound"].first().reindex(table.columns).to_numpy()
        return self.verdict(bound_holds(table.to_numpy(), bound), conditions=[], seeds=sorted(table.index),
                            constants={})


def _toy(cid: str, scale: float = 0.5) -> _Toy:
    return _Toy(id=cid, theorem="toy", title=cid, algorithm="toy", problem="toy", regime="", why="",
                metric="objective_gap", x="iterations", n_seeds={"quick": 4, "standard": 6, "full": 8}, scale=scale)


@pytest.fixture
def drawn(monkeypatch):
    """Counts the HTML and PDF renderings (the real renderers still run)."""
    calls = {"html": 0, "pdf": 0}
    real_html, real_pdf = html_module.render_html, pdf_module.render_pdf

    def html(*args, **kwargs):
        calls["html"] += 1
        return real_html(*args, **kwargs)

    def pdf(*args, **kwargs):
        calls["pdf"] += 1
        return real_pdf(*args, **kwargs)

    monkeypatch.setattr(html_module, "render_html", html)
    monkeypatch.setattr(pdf_module, "render_pdf", pdf)
    return calls


def _run(out: Path, claims, **kw) -> dict:
    return verify_claims(claims, profile="quick", out=out, jobs=1, progress=False, **kw)


def test_unchanged_resume_does_not_redraw(tmp_path: Path, drawn) -> None:
    claims = [_toy("t/a"), _toy("t/b")]
    _run(tmp_path, claims, write_pdf=False)
    assert drawn == {"html": 1, "pdf": 0}
    first = (tmp_path / "report.html").stat().st_mtime_ns
    _run(tmp_path, claims, write_pdf=False)  # every point from the cache: same records, same verdicts
    assert drawn == {"html": 1, "pdf": 0}
    assert (tmp_path / "report.html").stat().st_mtime_ns == first
    _run(tmp_path, claims, write_pdf=True)  # the PDF was never written: both are drawn
    assert drawn == {"html": 2, "pdf": 1}
    _run(tmp_path, claims, write_pdf=True)
    assert drawn == {"html": 2, "pdf": 1}


def test_changed_results_or_missing_report_redraw(tmp_path: Path, drawn) -> None:
    _run(tmp_path, [_toy("t/a")], write_pdf=False)
    _run(tmp_path, [_toy("t/a", scale=0.25)], write_pdf=False)  # other records (a new cache key): drawn again
    assert drawn["html"] == 2
    _run(tmp_path, [_toy("t/a", scale=0.25)], write_pdf=False, use_cache=False)  # recomputed, equal: kept
    assert drawn["html"] == 2
    (tmp_path / "report.html").unlink()
    _run(tmp_path, [_toy("t/a", scale=0.25)], write_pdf=False)
    assert drawn["html"] == 3 and (tmp_path / "report.html").exists()


def test_html_and_pdf_draw_each_figure_once(tmp_path: Path, monkeypatch) -> None:
    """With the PDF written, the HTML report reuses the PDF pages' figures: draw_claim runs once per claim (it ran
    twice before: once per format), and the HTML shows one figure per claim with ids unique on the page."""
    from fedrates.reports import figures

    calls = []
    real = figures.draw_claim

    def counting(ax, rows, verdict, *args, **kwargs):
        calls.append(verdict["claim"])
        return real(ax, rows, verdict, *args, **kwargs)

    monkeypatch.setattr(figures, "draw_claim", counting)
    _run(tmp_path, [_toy("t/a"), _toy("t/b")], write_pdf=True)
    assert sorted(calls) == ["t/a", "t/b"]
    page = (tmp_path / "report.html").read_text()
    assert page.count("<svg") == 2
    assert 'id="c1-' in page and 'id="c2-' in page
    assert "Figure unavailable" not in page
    calls.clear()
    (tmp_path / "report.pdf").unlink()
    _run(tmp_path, [_toy("t/a"), _toy("t/b")], write_pdf=False)  # HTML alone still draws its own figures
    assert sorted(calls) == ["t/a", "t/b"]
