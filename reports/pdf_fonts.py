"""One font subset per typeface for a whole PDF report, not one per claim page.

A claim's pages are drawn as a PDF document of their own (:func:`fedrates.reports.pdf.draw_pages`, in worker
processes, cached), and matplotlib subsets every TrueType font of a document when it closes it (fontTools, about half
of the time a claim page takes). Inside :func:`deferred_subsets` it does not: each font is written as usual (a
``Type0``/``CIDFontType2`` font with ``Identity-H`` encoding, its widths, its ``CIDToGIDMap`` and its ``ToUnicode``
map, so the text stays searchable) except that the glyph indices are those of the whole font file and the embedded
font program is a placeholder naming the font file. When the report is put together
(:func:`fedrates.reports.pdf.render_pdf`), :func:`embed_shared_subsets` gathers, per font file, the glyphs every page
uses (from the ``CIDToGIDMap`` of each font dictionary), subsets the font once with those glyphs at their original
indices (``retain_gids``: the maps and the page contents stay valid), and points every font descriptor of that
typeface at the one embedded subset. The placeholders name the font file by its base name only (no local path).

With a matplotlib whose PDF backend does not have the hooks used here (``get_glyphs_subset`` returning the subset
and its glyph map, ``font_as_file``), :func:`deferred_subsets` changes nothing: each document keeps its own subsets,
which the assembly leaves as they are.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["deferred_subsets", "embed_shared_subsets", "MARKER"]

#: first bytes of a placeholder font program; followed by ``{"file": base name, "face": index}`` as JSON
MARKER = b"%fedrates-font-subset-deferred\n"


class _Placeholder(io.BytesIO):
    """The whole font file, read by matplotlib for the glyph widths, whose ``getvalue`` (what matplotlib embeds)
    is the placeholder naming the file."""

    def __init__(self, data: bytes, name: str, face: int) -> None:
        super().__init__(data)
        self._marker = MARKER + json.dumps({"file": name, "face": face}).encode()

    def getvalue(self) -> bytes:  # type: ignore[override]
        return self._marker


class _Whole:
    """Stands for matplotlib's subsetting result: the whole font, glyph indices unchanged."""

    class _Identity(dict):
        def __missing__(self, key: int) -> int:
            return key

    def __init__(self, path: str, face: int) -> None:
        self.font = (path, face)
        self.glyph_index_map = self._Identity()


def _hooks() -> Any:
    """matplotlib's PDF/PS font helpers when they have the hooks :func:`deferred_subsets` replaces, else None."""
    try:
        from matplotlib.backends import _backend_pdf_ps as helpers
    except ImportError:  # pragma: no cover - private module moved
        return None
    ok = (callable(getattr(helpers, "get_glyphs_subset", None)) and callable(getattr(helpers, "font_as_file", None))
          and "glyph_index_map" in getattr(getattr(helpers, "SubsetResults", None), "_fields", ()))
    return helpers if ok else None


@contextlib.contextmanager
def deferred_subsets() -> Iterator[bool]:
    """Within the block, matplotlib's PDF backend embeds placeholders instead of font subsets (see the module
    docstring); yields whether it does (False with a matplotlib without the hooks). Not thread-safe: it replaces
    two functions of matplotlib's font helpers for the duration of the block (the drawing runs in one thread)."""
    helpers = _hooks()
    if helpers is None:
        yield False
        return
    subset, as_file = helpers.get_glyphs_subset, helpers.font_as_file

    @contextlib.contextmanager
    def whole(fontfile: Any, glyphs: Any) -> Iterator[_Whole]:
        yield _Whole(str(fontfile), int(getattr(fontfile, "face_index", 0) or 0))

    def placeholder(font: Any) -> io.BytesIO:
        if isinstance(font, tuple):
            path, face = font
            return _Placeholder(Path(path).read_bytes(), os.path.basename(path), face)
        return as_file(font)

    helpers.get_glyphs_subset, helpers.font_as_file = whole, placeholder
    try:
        yield True
    finally:
        helpers.get_glyphs_subset, helpers.font_as_file = subset, as_file


def _font_file(name: str) -> str | None:
    """The font file of this name that matplotlib knows (its own fonts and the system's), or None."""
    import matplotlib
    from matplotlib import font_manager

    own = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / name
    if own.is_file():
        return str(own)
    for entry in font_manager.fontManager.ttflist:
        if os.path.basename(entry.fname) == name:
            return str(entry.fname)
    return None


def _subset(path: str, face: int, glyphs: set[int]) -> bytes:
    """The font file at ``path`` restricted to ``glyphs``, each at its original index (matplotlib's subsetting
    options otherwise)."""
    from fontTools import subset

    options = subset.Options(glyph_names=True, recommended_glyphs=True, retain_gids=True)
    options.drop_tables += ["FFTM", "PfEd", "BDF", "meta", "MERG", "TSIV", "Zapf", "bdat", "bloc", "cidg", "fdsc",
                            "feat", "fmtx", "fond", "just", "kerx", "ltag", "morx", "trak", "xref"]
    options.font_number = face
    font = subset.load_font(path, options)
    subsetter = subset.Subsetter(options=options)
    subsetter.populate(gids=sorted(glyphs | {0}))
    subsetter.subset(font)
    out = io.BytesIO()
    font.save(out, reorderTables=False)
    return out.getvalue()


def embed_shared_subsets(writer: Any) -> int:
    """Replace the placeholder font programs of the pages in ``writer`` (a ``pypdf.PdfWriter``) by one subset per
    font file holding every glyph the pages use (see the module docstring); return the number of subsets embedded.
    A font file this machine does not have is left out (its descriptor loses the placeholder: a viewer substitutes
    a font, the text stays extractable)."""
    from pypdf.generic import DecodedStreamObject, NameObject, NullObject, NumberObject

    groups: dict[tuple[str, int], tuple[set[int], list[Any]]] = {}
    seen: set[int] = set()
    placeholders: list[Any] = []
    for page in writer.pages:
        resources = page.get("/Resources")
        fonts = resources.get_object().get("/Font") if resources is not None else None
        if fonts is None:
            continue
        for ref in fonts.get_object().values():
            font = ref.get_object()
            ident = getattr(ref, "idnum", None) or id(font)
            if ident in seen or font.get("/Subtype") != "/Type0":
                continue
            seen.add(ident)
            cid = font["/DescendantFonts"][0].get_object()
            descriptor = cid["/FontDescriptor"].get_object()
            program = descriptor.get("/FontFile2")
            data = program.get_object().get_data() if program is not None else b""
            if not data.startswith(MARKER):
                continue
            where = json.loads(data[len(MARKER):])
            key = (str(where["file"]), int(where.get("face", 0)))
            cmap = cid["/CIDToGIDMap"].get_object().get_data()
            glyphs, descriptors = groups.setdefault(key, (set(), []))
            glyphs.update(struct.unpack(f">{len(cmap) // 2}H", cmap[: len(cmap) // 2 * 2]))
            descriptors.append(descriptor)
            placeholders.append(descriptor.raw_get("/FontFile2"))
    embedded = 0
    for (name, face), (glyphs, descriptors) in sorted(groups.items()):
        path = _font_file(name)
        if path is None:
            for descriptor in descriptors:
                del descriptor["/FontFile2"]
            continue
        data = _subset(path, face, glyphs)
        stream = DecodedStreamObject()
        stream.set_data(data)
        stream = stream.flate_encode()
        stream[NameObject("/Length1")] = NumberObject(len(data))
        shared = writer._add_object(stream)
        for descriptor in descriptors:
            descriptor[NameObject("/FontFile2")] = shared
        embedded += 1
    for ref in placeholders:  # no longer referenced: written as null objects
        if getattr(ref, "idnum", None) and ref.pdf is writer:
            writer._objects[ref.idnum - 1] = NullObject()
        else:
            ref.get_object().set_data(b"")
    return embedded
