"""The HTML report's figure of a claim is its PDF page's axes cropped to their tight box (tick and axis labels,
legend), measured by the renderer that has just drawn the page (:class:`fedrates.reports.pdf._TightBox`): the
axes are not laid out again with a renderer of their own, and the box is the one such a renderer measures, to
within the rounding of the two renderers' text metrics (a few hundredths of an inch; the crop pads 0.08 in)."""

from __future__ import annotations

import re

import matplotlib
import pytest
from matplotlib.axes import Axes
from test_every_claim_figure import _synthetic

from fedrates.reports import pdf as pdf_module
from fedrates.verify import claims

#: one claim of each paper (their figures differ: log axes, legends, categories)
CLAIMS = ["bao.thm2.1/rate-T", "bylinkin.thm2/rate-df", "das.eq11/bound", "dinh.thm1/sarah", "buttaci.thm1/validity"]


def _inches(svg: str, name: str) -> float:
    found = re.search(rf'<svg[^>]*\b{name}="([0-9.]+)pt"', svg)
    assert found, svg[:300]
    return float(found.group(1)) / 72


@pytest.mark.parametrize("claim_id", CLAIMS)
def test_the_html_figure_is_cropped_to_the_box_a_fresh_renderer_measures(claim_id, monkeypatch):
    claim = claims.get(claim_id)
    rows = _synthetic(claim)
    verdict = {"claim": claim.id, "verdict": "pass", "metric": claim.metric, "x": claim.x, "predicted": "",
               "theorem": claim.theorem, "title": claim.title, "measured": "slope -1.0"}
    measured_with = []
    real = Axes.get_tightbbox

    def counted(self, renderer=None, *args, **kwargs):
        measured_with.append(type(renderer).__name__)
        return real(self, renderer, *args, **kwargs)

    monkeypatch.setattr(Axes, "get_tightbbox", counted)
    svg = pdf_module.draw_pages(rows, rows.iloc[0:0], verdict)["svg"]
    # once, by the renderer that drew the page (the PDF backend draws through a MixedModeRenderer; a box asked for
    # afterwards would be measured with no renderer given, i.e. by a new one)
    assert measured_with == ["MixedModeRenderer"]
    monkeypatch.setattr(Axes, "get_tightbbox", real)

    with matplotlib.rc_context(pdf_module._STYLE):  # the page again, measured afterwards by an Agg renderer
        fig, ax, _ = pdf_module._claim_page(rows, pdf_module.stored_form(verdict)[1])
        fig.canvas.draw()
        box = ax.get_tightbbox().transformed(fig.dpi_scale_trans.inverted()).padded(0.08)
    assert _inches(svg, "width") == pytest.approx(box.width, abs=0.05)
    assert _inches(svg, "height") == pytest.approx(box.height, abs=0.05)
