"""One font subset per typeface for a whole PDF report, not one per claim page.

A claim's pages are drawn as a PDF document of their own (:func:`fedrates.reports.pdf.draw_pages`, in worker
processes, cached), and matplotlib subsets every TrueType font of a document when it closes it (fontTools, about half
of the time a claim page takes). Inside :func:`deferred_subsets` it does not: each font is written as usual (a
``Type0``/``CIDFontType2`` font with ``Identity-H`` encoding, its widths, its ``CIDToGIDMap`` and its ``ToUnicode``
map, so the text stays searchable) except that the glyph indices are those of the whole font file and the embedded
font program is a placeholder naming the font file. When the report is put together
(:func:`fedrates.reports.pdf_join.join`), the glyphs every page uses are gathered per font file (from the
``CIDToGIDMap`` of each font dictionary), the font is subset once with those glyphs at their original indices
(:func:`subset_font`, ``retain_gids``: the maps and the page contents stay valid), and every font descriptor of that
typeface points at the one embedded subset. The placeholders name the font file by its base name only (no local
path).

With a matplotlib whose PDF backend does not have the hooks used here (``get_glyphs_subset`` returning the subset
and its glyph map, ``font_as_file``), :func:`deferred_subsets` changes nothing: each document keeps its own subsets,
which the assembly leaves as they are.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import logging
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["deferred_subsets", "font_file", "subset_font", "subset_version", "MARKER"]

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


@functools.cache
def font_file(name: str) -> str | None:
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


def subset_version() -> str:
    """The version of the subsetter (fontTools): part of the key of cached subsets."""
    import fontTools

    return str(fontTools.version)


def subset_font(path: str, face: int, glyphs: set[int]) -> bytes:
    """The font file at ``path`` restricted to ``glyphs``, each at its original index (matplotlib's subsetting
    options otherwise)."""
    from fontTools import subset

    options = subset.Options(glyph_names=True, recommended_glyphs=True, retain_gids=True)
    options.drop_tables += ["FFTM", "PfEd", "BDF", "meta", "MERG", "TSIV", "Zapf", "bdat", "bloc", "cidg", "fdsc",
                            "feat", "fmtx", "fond", "just", "kerx", "ltag", "morx", "trak", "xref"]
    options.font_number = face
    # the Computer Modern fonts' head tables: "'created' timestamp seems very low", printed to the user otherwise
    quiet = logging.getLogger("fontTools")
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        font = subset.load_font(path, options)
        subsetter = subset.Subsetter(options=options)
        subsetter.populate(gids=sorted(glyphs | {0}))
        subsetter.subset(font)
        out = io.BytesIO()
        font.save(out, reorderTables=False)
    finally:
        quiet.setLevel(level)
    return out.getvalue()
