"""A paper's figures laid out as in the paper (``Paper.figures``, modules defining ``FIGURES``) reach the reports'
registry :data:`fedrates.reports.paper_figures.PAPER_FIGURES` like the built-in papers' do; a figure naming another
paper's claim, or one that is not a drawing, is one line and left out."""

from __future__ import annotations

from pathlib import Path

PACKAGE = {
    "figpaper/__init__.py": '''from fedrates import Paper

PAPER = Paper(id="figpaper", authors="A. Author", title="Figures as in the paper", package=__name__,
              figures=(".figs",))
''',
    "figpaper/figs.py": '''def draw(records, verdict):
    from matplotlib.figure import Figure

    return Figure()


FIGURES = {"figpaper.thm1/rate": "figpaper.figs:draw", "figpaper.thm1/direct": draw,
           "bao.thm2.1/rate-T": "figpaper.figs:draw", "figpaper.thm1/number": 42}
''',
    "figpaper-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: figpaper\nVersion: 0.1\n",
    "figpaper-0.1.dist-info/entry_points.txt": "[fedrates.papers]\nfigpaper = figpaper:PAPER\n",
}


def test_an_installed_paper_adds_its_figures_and_bad_ones_are_one_line(tmp_path: Path, monkeypatch) -> None:
    from fedrates import plugins
    from fedrates.reports import paper_figures

    for name, text in PACKAGE.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    builtin = set(paper_figures.PAPER_FIGURES)
    assert {"das.fig1/reproduction", "das.fig2/snr", "bylinkin.thm4/separation-dg"} <= builtin
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        plugins.reset()
        table = paper_figures.PAPER_FIGURES
        assert set(table) == builtin | {"figpaper.thm1/rate", "figpaper.thm1/direct"}
        assert table["figpaper.thm1/rate"].__name__ == "draw" and callable(table["figpaper.thm1/direct"])
        assert table["das.fig1/reproduction"] is paper_figures.das_figure1
        problems = [p for p in plugins.problems_found() if "figpaper" in p]
        assert len(problems) == 2, problems
        assert any("bao.thm2.1/rate-T" in p and "not a claim of paper 'figpaper'" in p for p in problems)
        assert any("figpaper.thm1/number" in p and "int" in p for p in problems)
        assert all("\n" not in p for p in problems)
    finally:
        monkeypatch.undo()
        plugins.reset()
    assert set(paper_figures.PAPER_FIGURES) == builtin
