"""Tests of reports.pdf_join: pages in order, references renumbered and nothing else, bookmarks, fonts subset once,
documents the reader does not handle rewritten first."""

from __future__ import annotations

import io
import re
from pathlib import Path

import matplotlib
import pytest
from matplotlib.backends.backend_pdf import PdfPages
from matplotlib.figure import Figure
from pypdf import PdfReader

from fedrates.reports import pdf_fonts, pdf_join


def _document(*texts: str, url: str | None = None) -> bytes:
    """A matplotlib PDF with one page per text, fonts deferred as the report draws them."""
    buf = io.BytesIO()
    with matplotlib.rc_context({"pdf.fonttype": 42, "font.family": "DejaVu Sans"}), pdf_fonts.deferred_subsets():
        with PdfPages(buf, metadata={"CreationDate": None}) as pdf:
            for text in texts:
                fig = Figure(figsize=(3, 2))
                fig.text(0.1, 0.5, text, url=url, fontweight="bold" if text.startswith("B") else "normal")
                pdf.savefig(fig)
    return buf.getvalue()


def _texts(data: bytes) -> list[str]:
    return [page.extract_text().strip() for page in PdfReader(io.BytesIO(data)).pages]


def test_pages_in_order_with_bookmarks_and_info() -> None:
    first, second = _document("alpha", "Bravo"), _document("charlie ℓ1")
    out = pdf_join.join([first, second], [("Front", 0, 0), ("Claims", 2, 0), ("Paper ℓ", 2, 1)],
                        {"Title": "r (1) \\ x", "Creator": "fedrates"})
    reader = PdfReader(io.BytesIO(out))
    assert _texts(out) == ["alpha", "Bravo", "charlie ℓ1"]
    outline = reader.outline
    assert [item.title for item in outline if not isinstance(item, list)] == ["Front", "Claims"]
    assert [item.title for item in outline[2]] == ["Paper ℓ"]  # the child of "Claims", non-ASCII kept
    assert [reader.get_destination_page_number(item) for item in (outline[0], outline[1], outline[2][0])] \
        == [0, 2, 2]
    assert reader.metadata["/Title"] == "r (1) \\ x" and reader.metadata["/Creator"] == "fedrates"
    # one cross-reference table, every object where it says
    assert pdf_join.parse(out).pages and out.count(b"\nxref\n") == 1


def test_fonts_are_subset_once_for_every_page_and_no_placeholder_is_left(tmp_path: Path) -> None:
    docs = [_document("alpha"), _document("Bravo", "delta")]
    out = pdf_join.join(docs, subset_cache=tmp_path)
    programs = set(re.findall(rb"/FontFile2 (\d+) 0 R", out))
    descriptors = len(re.findall(rb"/Type /FontDescriptor", out))
    assert descriptors == 3 and len(programs) == 2  # regular (two pages' fonts) and bold
    doc = pdf_join.parse(out)
    for num in programs:
        data = pdf_join._stream_data(doc, int(num))
        assert data[:4] in (b"\x00\x01\x00\x00", b"true") and not data.startswith(pdf_fonts.MARKER)
    assert pdf_fonts.MARKER not in b"".join(pdf_join._stream_data(doc, n) for n in doc.objects
                                             if b"stream" in doc.objects[n])
    assert _texts(out) == ["alpha", "Bravo", "delta"]


def test_font_subsets_are_reused_from_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    docs = [_document("alpha")]
    first = pdf_join.join(docs, subset_cache=tmp_path)
    calls = []
    monkeypatch.setattr(pdf_fonts, "subset_font", lambda *a: calls.append(a) or b"")
    assert pdf_join.join(docs, subset_cache=tmp_path) == first and calls == []
    pdf_join.join([_document("alpha omega")], subset_cache=tmp_path)  # other glyphs: subset again
    assert len(calls) == 1


def test_a_font_this_machine_lacks_is_left_out_and_the_text_stays(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pdf_fonts, "font_file", lambda name: None)
    out = pdf_join.join([_document("alpha")])
    assert b"/FontFile2" not in out and b"/Type /FontDescriptor" in out
    assert _texts(out) == ["alpha"]


def test_strings_are_copied_as_they_are_only_references_renumbered() -> None:
    """A reference-like text inside a string (here a link's URI) is not a reference."""
    url = "https://example.org/1 0 R/(x)"
    out = pdf_join.join([_document("alpha"), _document("link", url=url)])
    escaped = url.replace("(", "\\(").replace(")", "\\)").encode()
    assert escaped in out
    reader = PdfReader(io.BytesIO(out))
    annots = [a.get_object() for a in reader.pages[1].get("/Annots", [])]
    assert [a["/A"]["/URI"] for a in annots] == [url]


def test_documents_with_other_structure_are_rewritten_first() -> None:
    """An incremental update (a second cross-reference section) is not read directly, but its pages join."""
    base = _document("alpha", "Bravo")
    prev = int(re.search(rb"startxref\s+(\d+)", base).group(1))
    size = int(re.search(rb"/Size (\d+)", base).group(1))
    root = int(re.search(rb"/Root (\d+) 0 R", base).group(1))
    info = b"%d 0 obj\n<< /Subject (updated) >>\nendobj\n" % size  # a new info dictionary, appended
    xref = len(base) + len(info)
    table = b"xref\n%d 1\n%010d 00000 n \n" % (size, len(base))
    trailer = b"trailer\n<< /Size %d /Root %d 0 R /Info %d 0 R /Prev %d >>\n" % (size + 1, root, size, prev)
    updated = base + info + table + trailer + b"startxref\n%d\n%%%%EOF\n" % xref
    assert PdfReader(io.BytesIO(updated)).metadata["/Subject"] == "updated"  # a valid update
    with pytest.raises(pdf_join.Unsupported):
        pdf_join.parse(updated)
    out = pdf_join.join([updated, _document("charlie")])
    assert _texts(out) == ["alpha", "Bravo", "charlie"]


@pytest.mark.parametrize("data", [b"", b"not a pdf", b"%PDF-1.4\n1 0 obj\n<< >>\nendobj\n",
                                  b"%PDF-1.4\nxref\n0 3\n0000000000 65535 f \ntrailer\n<< >>\nstartxref\n9\n%%EOF\n",
                                  b"%PDF-1.4\n1 0 obj\n<< /Type /XRef >>\nendobj\nstartxref\n9\n%%EOF\n"])
def test_what_is_not_a_pdf_is_refused(data: bytes) -> None:
    with pytest.raises(ValueError):
        pdf_join.read(data)


def test_a_damaged_offset_is_refused() -> None:
    data = _document("alpha")
    xref = int(re.search(rb"startxref\s+(\d+)", data).group(1))
    first_entry = data.index(b" 00000 n", xref) - 10
    damaged = data[:first_entry] + b"%010d" % 3 + data[first_entry + 10:]
    with pytest.raises(ValueError, match="not where the cross-reference table puts it"):
        pdf_join.parse(damaged)


def test_subsetting_a_font_prints_no_warning(caplog: pytest.LogCaptureFixture) -> None:
    """The head tables of matplotlib's Computer Modern fonts (mathtext) have old timestamps, which fontTools warns
    about on every subset: not the user's concern."""
    import logging

    caplog.set_level(logging.DEBUG)
    path = pdf_fonts.font_file("cmmi10.ttf")
    assert path is not None
    assert pdf_fonts.subset_font(path, 0, {1, 2})[:4] == b"\x00\x01\x00\x00"
    assert not [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert logging.getLogger("fontTools").level == logging.NOTSET  # restored
