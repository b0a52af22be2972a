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


@pytest.mark.parametrize("jobs", [1, 2])
def test_no_report_draws_nothing_and_removes_the_earlier_report(tmp_path: Path, drawn, monkeypatch, jobs) -> None:
    """``write_report=False`` (``verify --no-report``): the verdicts and records are those of a run with a report, no
    figure is drawn (in this process or in the sweep's workers), the report of the earlier results is removed, and
    ``fedrates report`` renders the new results afterwards."""
    from fedrates.reports import figures
    from fedrates.verify.cli import main as cli

    calls = []
    real = figures.draw_claim
    monkeypatch.setattr(figures, "draw_claim", lambda *a, **k: calls.append(1) or real(*a, **k))
    with_report = verify_claims([_toy("t/a", scale=0.25)], profile="quick", out=tmp_path / "ref", jobs=jobs,
                                progress=False, write_pdf=True)
    out = tmp_path / "out"
    verify_claims([_toy("t/a")], profile="quick", out=out, jobs=jobs, progress=False, write_pdf=True)
    assert (out / "report.html").is_file() and (out / "report.pdf").is_file()
    drawn.update(html=0, pdf=0)
    calls.clear()
    cache = out / html_module.FIGURE_CACHE
    before = sorted(p.name for p in cache.iterdir())
    result = verify_claims([_toy("t/a", scale=0.25)], profile="quick", out=out, jobs=jobs, progress=False,
                           write_pdf=True, write_report=False)
    assert drawn == {"html": 0, "pdf": 0} and calls == []  # jobs=2: a forked worker's call would not count here,
    assert sorted(p.name for p in cache.iterdir()) == before  # but the pages it drew would be in the cache
    assert not (out / "report.html").exists() and not (out / "report.pdf").exists()
    strip = lambda vs: [{k: v for k, v in d.items() if k != "run_at"} for d in vs]  # noqa: E731
    assert strip(result["verdicts"]) == strip(with_report["verdicts"])
    assert "report.html" not in (out / "manifest.json").read_text()
    assert cli(["report", str(out)]) == 0
    page = (out / "report.html").read_text()
    assert "t/a" in page and result["verdicts"][0]["verdict"].upper() in page.upper()


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


# ---- incremental: a run that changes a few claims draws only their figures, for the HTML and the PDF ------------
@pytest.fixture
def draws(monkeypatch):
    """Claims whose figure is drawn (``draw_claim``) and whose PDF pages are drawn (``draw_pages``)."""
    from fedrates.reports import figures

    calls = {"figure": [], "pages": []}
    real_figure, real_pages = figures.draw_claim, pdf_module.draw_pages

    def figure(ax, rows, verdict, *args, **kwargs):
        calls["figure"].append(verdict["claim"])
        return real_figure(ax, rows, verdict, *args, **kwargs)

    def pages(rows, paper, verdict):
        calls["pages"].append(verdict["claim"])
        return real_pages(rows, paper, verdict)

    monkeypatch.setattr(figures, "draw_claim", figure)
    monkeypatch.setattr(pdf_module, "draw_pages", pages)
    return calls


def _outline(path: Path) -> tuple[int, list[tuple[str, int]]]:
    from pypdf import PdfReader

    reader = PdfReader(path)
    marks: list[tuple[str, int]] = []

    def walk(items) -> None:
        for item in items:
            if isinstance(item, list):
                walk(item)
            else:
                marks.append((item.title, reader.get_destination_page_number(item)))

    walk(reader.outline)
    return len(reader.pages), marks


def test_rerun_of_one_claim_draws_only_its_figure_in_html_and_pdf(tmp_path: Path, draws) -> None:
    claims = [_toy("t/a"), _toy("t/b"), _toy("t/c")]
    _run(tmp_path, claims, write_pdf=True)
    assert sorted(draws["figure"]) == ["t/a", "t/b", "t/c"] and sorted(draws["pages"]) == ["t/a", "t/b", "t/c"]
    pages, marks = _outline(tmp_path / "report.pdf")
    assert ("Claims", pages - 3) in marks  # one page per claim after the front matter
    draws["figure"].clear()
    draws["pages"].clear()
    _run(tmp_path, [_toy("t/b", scale=0.25)], write_pdf=True)  # other records for t/b; t/a and t/c kept
    assert draws == {"figure": ["t/b"], "pages": ["t/b"]}  # the HTML reuses the PDF page's figure
    assert _outline(tmp_path / "report.pdf") == (pages, marks)  # a valid PDF, same pages and bookmarks
    html = (tmp_path / "report.html").read_text()
    assert html.count("<svg") == 3 and "Figure unavailable" not in html
    from pypdf import PdfReader

    text = [page.extract_text() for page in PdfReader(tmp_path / "report.pdf").pages[-3:]]
    # each claim's page in the verdicts' order
    assert [[c for c in ("t/a", "t/b", "t/c") if c in t] for t in text] == [["t/a"], ["t/b"], ["t/c"]]


def test_a_rerun_digests_only_the_records_it_changed(tmp_path: Path, monkeypatch) -> None:
    """The kept claims' page digests come from the last report; they are those computed from the records read back."""
    import json

    from fedrates.verify.commands.report import load_run

    _run(tmp_path, [_toy("t/a"), _toy("t/b"), _toy("t/c")], write_pdf=True)
    asked: list[str] = []
    real = pdf_module.page_digests

    def spy(records, verdicts):
        asked.extend(str(v["claim"]) for v in verdicts)
        return real(records, verdicts)

    monkeypatch.setattr(pdf_module, "page_digests", spy)
    _run(tmp_path, [_toy("t/b", scale=0.25)], write_pdf=True)
    assert asked == ["t/b"]
    records, verdicts, _, _ = load_run(tmp_path)
    stored = json.loads((tmp_path / ".figures" / pdf_module.PAGE_DIGESTS).read_text())["claims"]
    assert {claim: digest for claim, (digest, _) in stored.items()} == real(records, verdicts)


def test_html_alone_rerun_draws_only_the_changed_claim(tmp_path: Path, draws) -> None:
    _run(tmp_path, [_toy("t/a"), _toy("t/b"), _toy("t/c")], write_pdf=False)
    assert sorted(draws["figure"]) == ["t/a", "t/b", "t/c"] and draws["pages"] == []
    draws["figure"].clear()
    _run(tmp_path, [_toy("t/c", scale=0.3)], write_pdf=False)
    assert draws == {"figure": ["t/c"], "pages": []}
    assert (tmp_path / "report.html").read_text().count("<svg") == 3


@pytest.mark.slow  # an end-to-end run of several seconds of CPU: the long step
def test_figures_drawn_from_stored_results_are_those_of_the_run(tmp_path: Path, draws) -> None:
    """The report command on a run directory finds every figure in its cache: a figure depends on the stored
    verdict and the claim's own records, not on whether they were just computed or read back."""
    from fedrates.verify.commands.report import load_run

    _run(tmp_path, [_toy("t/a"), _toy("t/b")], write_pdf=True)
    draws["figure"].clear()
    draws["pages"].clear()
    records, verdicts, provenance, errata = load_run(tmp_path)
    pdf_module.render_pdf(records, verdicts, provenance, errata, tmp_path / "again.pdf",
                          cache=tmp_path / html_module.FIGURE_CACHE)
    html_module.render_html(records, verdicts, provenance, errata, tmp_path / "again.html")
    assert draws == {"figure": ["t/a", "t/b"], "pages": []}  # the HTML alone has figures of its own: drawn once
    draws["figure"].clear()
    html_module.render_html(records, verdicts, provenance, errata, tmp_path / "again.html")
    assert draws["figure"] == []


def _svgs(page: str) -> list[str]:
    import re

    return re.findall(r"<svg.*?</svg>", page, re.S)


@pytest.mark.slow  # an end-to-end run of several seconds of CPU: the long step
@pytest.mark.parametrize("with_pdf", [True, False])
def test_figures_drawn_in_workers_are_identical_to_serial(tmp_path: Path, with_pdf: bool, monkeypatch) -> None:
    """Figures drawn by two worker processes are byte for byte those drawn serially, and the report then draws
    nothing itself."""
    from fedrates.reports import drawing

    _run(tmp_path / "run", [_toy("t/a"), _toy("t/b"), _toy("t/c", scale=2.0)], write_pdf=False)
    from fedrates.verify.commands.report import load_run

    records, verdicts, provenance, errata = load_run(tmp_path / "run")
    serial, parallel = tmp_path / "serial", tmp_path / "parallel"
    assert drawing.draw_missing(records, verdicts, serial, jobs=1, with_pdf=with_pdf) == 0  # left to the report
    render = pdf_module.render_pdf if with_pdf else html_module.render_html
    render(records, verdicts, provenance, errata, tmp_path / "serial.out", cache=serial)
    assert drawing.draw_missing(records, verdicts, parallel, jobs=2, with_pdf=with_pdf) == 3
    assert drawing.missing(records, verdicts, parallel, with_pdf=with_pdf) == []
    # the claims' figures (the serial report also cached its front pages and font subsets, which the workers do
    # not make)
    names = sorted(p.name for p in serial.iterdir() if not p.name.endswith((".text.pdf", ".subset.ttf")))
    assert names == sorted(p.name for p in parallel.iterdir()) and len(names) == 3
    assert with_pdf == any(p.name.endswith(".text.pdf") for p in serial.iterdir())
    for name in names:
        if with_pdf:  # the pages' figures for the HTML report; the PDF bytes themselves
            import json

            a, b = (json.loads((d / name).read_text()) for d in (serial, parallel))
            assert a["svg"] == b["svg"] and a["svg"].startswith("<svg") and a["pdf"] == b["pdf"]
        else:
            assert (serial / name).read_bytes() == (parallel / name).read_bytes()
    calls = []
    monkeypatch.setattr(pdf_module, "draw_pages", lambda *a: calls.append(a) or {})
    from fedrates.reports import figures

    monkeypatch.setattr(figures, "claim_figure", lambda *a: calls.append(a))
    render(records, verdicts, provenance, errata, tmp_path / "parallel.out", cache=parallel)
    assert calls == []  # every figure came from the workers
    if not with_pdf:
        assert _svgs((tmp_path / "serial.out").read_text()) == _svgs((tmp_path / "parallel.out").read_text())


@pytest.mark.slow  # an end-to-end run of several seconds of CPU: the long step
def test_verify_with_two_jobs_gives_the_figures_of_one_job(tmp_path: Path) -> None:
    claims = [_toy("t/a"), _toy("t/b"), _toy("t/c", scale=2.0)]
    verify_claims(claims, profile="quick", out=tmp_path / "one", jobs=1, progress=False, write_pdf=True)
    verify_claims(claims, profile="quick", out=tmp_path / "two", jobs=2, progress=False, write_pdf=True)
    one, two = (_svgs((tmp_path / d / "report.html").read_text()) for d in ("one", "two"))
    assert len(one) == 3 and one == two
    assert _outline(tmp_path / "one" / "report.pdf") == _outline(tmp_path / "two" / "report.pdf")


class _Failed:
    """A stand-in for a forked helper that failed: the run does its work itself (the HTML report after the PDF, the
    front pages as it puts the PDF together)."""

    exitcode = 1

    def join(self) -> None:
        return None


@pytest.mark.slow  # two runs with their reports: the long step
def test_the_html_report_written_beside_the_pdf_is_the_one_written_after_it(tmp_path: Path, monkeypatch,
                                                                           frozen_clock) -> None:
    from fedrates.verify import pipeline

    claims = [_toy("t/a"), _toy("t/b", scale=2.0)]
    started = []
    real = pipeline._beside
    monkeypatch.setattr(pipeline, "_beside", lambda target, args, name: started.append(name) or real(target, args,
                                                                                                      name))
    verify_claims(claims, profile="quick", out=tmp_path / "x", jobs=2, progress=False, write_pdf=True)
    assert started == ["fedrates-html", "fedrates-front"]
    beside = (tmp_path / "x" / "report.html").read_text()
    assert "Generated 2000-01-01 00:00 UTC" in beside  # the forked helper read the fixed clock
    # both forked helpers fail: this process writes the HTML after the PDF and draws the front pages itself
    monkeypatch.setattr(pipeline, "_beside", lambda *a: _Failed())
    verify_claims(claims, profile="quick", out=tmp_path / "y", jobs=2, progress=False, write_pdf=True)
    after = (tmp_path / "y" / "report.html").read_text()
    assert _outline(tmp_path / "x" / "report.pdf") == _outline(tmp_path / "y" / "report.pdf")
    # the provenance table describes the machine and the moment the records were written (clock, load), not the
    # report: everything before it must be the same
    cut = '<h2 id="provenance">'
    assert "<svg" in beside and cut in beside and beside.split(cut)[0] == after.split(cut)[0]
