"""Tests of reports.pdf: page structure, robustness to odd text, atomic write."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from fedrates.reports import pdf, pdf_fonts


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
    assert _pages(path) == 2 + len(verdicts)  # scorecards, summary, then one page per claim
    errata = [{"theorem": "bao.thm3.1", "text": odd, "resolution": odd}]
    pdf.render_pdf(_records("a/plot"), verdicts, {}, errata, tmp_path / "r.pdf")
    assert _pages(path) == 3 + len(verdicts)  # plus the errata page
    from pypdf import PdfReader

    reader = PdfReader(path)
    top = [item.title for item in reader.outline if not isinstance(item, list)]
    assert top[1:] == ["Errata by kind", "All claims, papers and provenance", "Claims"]
    assert [reader.get_destination_page_number(item) for item in reader.outline if not isinstance(item, list)] \
        == [0, 1, 2, 3]
    assert [p.name for p in tmp_path.iterdir()] == ["r.pdf"]


@pytest.mark.slow  # two documents of five pages drawn: seconds of CPU, the long step
def test_front_pages_drawn_by_another_process_come_first_in_the_same_document(tmp_path: Path) -> None:
    """The front pages drawn into the cache beforehand (as the forked helper of a run does, here called in place)
    give the bytes of the document that draws them as it goes; they come before the claims' pages, bookmarks and
    all."""
    from pypdf import PdfReader

    verdicts = [{"claim": "a/plot", "verdict": "pass", "x": "iterations", "metric": "objective_gap",
                 "theorem": "bao.thm2.1"}, {"claim": "b/text", "verdict": "fail", "theorem": "bao.thm3.1"}]
    errata = [{"theorem": "bao.thm3.1", "kind": "typo", "where": "eq. (9)", "text": "index typo"}]
    plain = pdf.render_pdf(_records("a/plot"), verdicts, {}, errata, tmp_path / "plain.pdf", cache=tmp_path / "c1")
    cache = tmp_path / "c2"
    calls = []

    def drawn_beside() -> None:
        calls.append(pdf.draw_front_pages(verdicts, {}, errata, cache))

    ahead = pdf.render_pdf(_records("a/plot"), verdicts, {}, errata, tmp_path / "ahead.pdf", cache=cache,
                           front_drawn=drawn_beside)
    assert calls == [3]  # scorecards, errata, claim list: all drawn by the helper, none by the document
    assert ahead.read_bytes() == plain.read_bytes()
    reader = PdfReader(ahead)
    texts = [page.extract_text() for page in reader.pages]
    assert "scorecards" in texts[0] and "Errata by kind" in texts[1] and "All claims" in texts[2]
    assert "a/plot" in texts[3] and "b/text" in texts[4]
    top = [(item.title, reader.get_destination_page_number(item)) for item in reader.outline
           if not isinstance(item, list)]
    assert [page for _, page in top] == [0, 1, 2, 3] and top[-1][0] == "Claims"


# ---- rendered pages: one size, nothing clipped, every glyph present, text extractable (poppler) ------------------
LONG = ("the upper confidence bound of the ℓ1-penalised quantile stays below the bound at every point of the sweep; "
        * 4 + "FINALWORD")


def _verdicts() -> list[dict]:
    return [
        {"claim": "bao.thm2.1/rate-T", "verdict": "pass", "x": "iterations", "metric": "objective_gap",
         "title": "ℓ2 error " + LONG, "measured": "slope −1.07 [−1.19, −0.96] ‖w − w°‖ σ̄² √15", "predicted": "slope -1",
         "tolerance": "± 0.25", "message": LONG, "regime": LONG},
        {"claim": "bao.thm3.2.err/precision", "verdict": "fail", "x": "iterations", "metric": "objective_gap",
         "measured": LONG, "predicted": "P(X ≤ bound) ≥ 0.9", "tolerance": "95%", "loose": True,
         "bound_ratio": 1e-6},
        {"claim": "bao.fig1/comparison-analysed", "verdict": "erratum", "message": "no plot"},
        {"claim": "x/inconclusive", "verdict": "inconclusive"},
    ]


def _poppler(tool: str) -> str:
    import shutil

    import pytest

    path = shutil.which(tool)
    if path is None:
        pytest.skip(f"poppler's {tool} is not installed (apt-get install poppler-utils); rendered pages not checked")
    return path


def test_pdf_pages_render_one_size_unclipped_with_every_glyph(tmp_path: Path) -> None:
    import subprocess
    import warnings

    pdftoppm, pdftotext = _poppler("pdftoppm"), _poppler("pdftotext")
    records = pd.concat([_records("bao.thm2.1/rate-T"), _records("bao.thm3.2.err/precision")], ignore_index=True)
    errata = [{"theorem": "bao.thm3.2.err", "text": LONG, "resolution": LONG}]
    provenance = {"fedrates": "0.1.0", "executable": "/a/very/long/path/" * 12, "seeds": list(range(200))}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        path = pdf.render_pdf(records, _verdicts(), provenance, errata, tmp_path / "r.pdf")
    missing = [str(w.message) for w in caught if "missing from font" in str(w.message)]
    assert not missing, missing
    # every page renders, at one size (A4 portrait at 20 dpi)
    subprocess.run([pdftoppm, "-r", "20", "-png", str(path), str(tmp_path / "page")], check=True, timeout=120)
    from PIL import Image

    sizes = {Image.open(p).size for p in sorted(tmp_path.glob("page*.png"))}
    assert len(list(tmp_path.glob("page*.png"))) == _pages(path) >= 2 + len(_verdicts())
    assert len(sizes) == 1
    (w, h), = sizes
    assert abs(w / h - 8.27 / 11.69) < 0.01
    import numpy as np

    # no blank page
    ink = [float((np.asarray(Image.open(p).convert("L")) < 200).mean()) for p in sorted(tmp_path.glob("page*.png"))]
    assert min(ink) > 0.002, ink
    # nothing outside the page: every word's box lies within it
    bbox = subprocess.run([pdftotext, "-bbox", str(path), "-"], check=True, capture_output=True, text=True,
                          timeout=120).stdout
    pages = re.findall(r'<page width="([\d.]+)" height="([\d.]+)">(.*?)</page>', bbox, re.S)
    assert len(pages) == _pages(path)
    for width, height, body in pages:
        for x0, y0, x1, y1 in re.findall(r'xMin="([\d.-]+)" yMin="([\d.-]+)" xMax="([\d.-]+)" yMax="([\d.-]+)"',
                                         body):
            assert 0 <= float(x0) and float(x1) <= float(width) and 0 <= float(y0) and float(y1) <= float(height)
    text = subprocess.run([pdftotext, str(path), "-"], check=True, capture_output=True, text=True,
                          timeout=120).stdout
    for word in ("PASS", "FAIL", "ERRATUM", "INCONCLUSIVE", "LOOSE", "ℓ", "FINALWORD", "bao.fig1/comparison-analysed"):
        assert word in text, word
    # fonts subset once for the whole document: one embedded program per typeface, shared by every page's font
    # dictionary, holding every glyph the pages use (poppler extracted and drew them above); no placeholder left
    programs = _font_programs(path)
    assert programs and all(len(ids) == 1 for ids in programs.values()), programs
    assert pdf_fonts.MARKER not in _inflated(path)


def _font_programs(path: Path) -> dict[str, set[int]]:
    """Typeface (base font name without its subset tag) → object numbers of the font programs its fonts embed."""
    from pypdf import PdfReader

    out: dict[str, set[int]] = {}
    for page in PdfReader(path).pages:
        for ref in page["/Resources"]["/Font"].values():
            font = ref.get_object()
            descriptor = font["/DescendantFonts"][0].get_object()["/FontDescriptor"].get_object()
            name = str(font["/BaseFont"]).split("+")[-1]
            out.setdefault(name, set()).add(descriptor.raw_get("/FontFile2").idnum)
    return out


def _inflated(path: Path) -> bytes:
    """Every stream of the PDF, decompressed, one after the other."""
    import zlib

    data = path.read_bytes()
    out = [data]
    for match in re.finditer(rb"stream\r?\n", data):
        try:
            out.append(zlib.decompressobj().decompress(data[match.end():]))
        except zlib.error:
            pass
    return b"".join(out)


def test_text_without_a_glyph_in_dejavu_is_written_with_its_plain_letter():
    from fedrates.reports.pdf import _plain

    # 𝒫 and 𝔼 (mathematical alphanumerics) have no glyph in DejaVu Sans; ℓ has one and stays; $ is escaped
    assert _plain("𝒫_k, 𝔼[x], ℓ1, $5") == r"P_k, E[x], ℓ1, \$5"


@pytest.mark.slow  # three reports drawn: several seconds of CPU, the long step
def test_front_pages_are_drawn_once_per_content(tmp_path: Path) -> None:
    """The scorecard, errata and claim-list pages are cached by their content: a second report of the same verdicts
    draws none of them (and is byte-identical); a changed verdict redraws the pages that show it, not the others."""
    from unittest import mock

    cache = tmp_path / "cache"
    verdicts = [{"claim": f"bao.thm2.1/c{i}", "theorem": "bao.thm2.1", "verdict": "pass"} for i in range(3)]
    errata = [{"theorem": "bao.thm3.1", "kind": "typo", "where": "eq. (9)", "text": "index typo"}]
    first = pdf.render_pdf(_records("none"), verdicts, {}, errata, tmp_path / "a.pdf", cache=cache).read_bytes()
    stored = sorted(p.name for p in cache.glob("*.text.pdf"))
    assert len(stored) == 3  # scorecards, errata, claim list
    with mock.patch.object(pdf, "_text_page", side_effect=AssertionError("a cached page was drawn again")):
        again = pdf.render_pdf(_records("none"), verdicts, {}, errata, tmp_path / "b.pdf", cache=cache).read_bytes()
    assert again == first
    drawn: list[str] = []
    real = pdf._text_page

    def spy(lines, heading):  # noqa: ANN001, ANN202 - test double
        drawn.append(heading)
        return real(lines, heading)

    changed = [*verdicts[:2], {**verdicts[2], "verdict": "fail"}]
    with mock.patch.object(pdf, "_text_page", side_effect=spy):
        pdf.render_pdf(_records("none"), changed, {}, errata, tmp_path / "c.pdf", cache=cache)
    assert "Errata by kind" not in drawn and "All claims, papers and provenance" in drawn


def test_errata_pages_drawn_ahead_are_those_of_the_report(tmp_path: Path) -> None:
    """The errata pages depend on the errata alone: drawn while the claims are swept, the report draws only the
    other front pages."""
    errata = [{"theorem": "bao.thm3.1", "kind": "typo", "where": f"eq. ({i})", "text": "index typo " * 30}
              for i in range(40)]  # several pages
    verdicts = [{"claim": "a/plot", "verdict": "pass", "theorem": "bao.thm2.1"}]
    drawn = pdf.draw_errata_pages(errata, tmp_path)
    front, _ = pdf.front_pages(verdicts, {}, errata)
    assert drawn == sum(heading == pdf.ERRATA_HEADING for heading, _ in front) >= 2
    assert pdf.draw_errata_pages(errata, tmp_path) == 0
    assert pdf.draw_front_pages(verdicts, {}, errata, tmp_path) == len(front) - drawn
    assert pdf.draw_errata_pages([], tmp_path) == 0
