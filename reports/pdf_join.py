"""Put a report's PDF together from the pages' own documents, object by object, without parsing their contents.

Each claim's pages and each front page is a small PDF document of its own (matplotlib's PDF backend, cached by
:mod:`fedrates.reports.pdf`). :func:`join` reads each one by its cross-reference table only: every indirect object
is copied as bytes, its dictionary renumbered (``n 0 R`` → the object's number in the report; stream data is never
touched), the documents' catalogs, page-tree nodes and info dictionaries dropped, and the pages hung under one page
tree. Then it writes the bookmarks, the info dictionary and one classic cross-reference table.

Fonts drawn as placeholders (:func:`fedrates.reports.pdf_fonts.deferred_subsets`) are subset here, once per font
file, with every glyph any page uses (read from each font's ``CIDToGIDMap``) at its original index, and every font
descriptor of that typeface points at the one embedded program (a font file this machine does not have is left out:
its descriptor loses ``/FontFile2``, a viewer substitutes a font and the text stays extractable). Subsets are cached
in ``subset_cache`` by the font file, its face and the glyph set.

A document this reader does not handle (a cross-reference stream, an incremental update, a nested page tree with
inherited attributes, a generation number other than 0) is first rewritten by ``pypdf`` with its pages flattened,
then read the same way. Compared with appending pages with ``pypdf``, which parses every object into Python objects
and writes it back, this takes a few milliseconds per document instead of about 30.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import struct
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from fedrates.reports import pdf_fonts
from fedrates.reports.cache_files import store

__all__ = ["Document", "Unsupported", "join", "parse"]

_HEADER = b"%PDF-1.4\n%\xac\xdc \xab\xba\n"
_STARTXREF = re.compile(rb"startxref\s+(\d+)\s+%%EOF\s*$")
_OBJ_HEAD = re.compile(rb"\s*(\d+)\s+(\d+)\s+obj\b")
_OBJ_TAIL = re.compile(rb"\s*endobj\s*$")
#: the end of a stream object's dictionary
_STREAM = re.compile(rb">>\s*stream(?:\r\n|\n)")
#: a literal string (matplotlib and pypdf escape unbalanced parentheses) or an indirect reference ``n g R``
_TOKEN = re.compile(rb"\((?:\\.|[^\\)])*\)|(?<![\d.])(\d+)\s+(\d+)\s+R\b", re.S)
_REF = rb"(\d+)\s+0\s+R"
_INHERITABLE = (b"/Resources", b"/MediaBox", b"/CropBox", b"/Rotate")


class Unsupported(ValueError):
    """The document uses a PDF feature :func:`parse` does not read (it is rewritten by pypdf first)."""


@dataclass(frozen=True)
class Document:
    """One page document: its indirect objects (number → the bytes between ``n 0 obj`` and ``endobj``), its pages in
    order, and the objects that belong to the document rather than to its pages (catalog, page-tree nodes, info)."""

    objects: dict[int, bytes]
    pages: tuple[int, ...]
    structure: frozenset[int]


def _head(body: bytes) -> tuple[bytes, bytes]:
    """(dictionary part, stream part) of an object's body; the stream part is empty for an object without one."""
    match = _STREAM.search(body)
    return (body, b"") if match is None else (body[:match.start() + 2], body[match.start() + 2:])


def _ref(head: bytes, key: bytes) -> int | None:
    match = re.search(re.escape(key) + rb"\s+" + _REF, head)
    return int(match.group(1)) if match else None


def _kids(head: bytes) -> list[int]:
    match = re.search(rb"/Kids\s*\[(.*?)\]", head, re.S)
    if match is None:
        raise Unsupported("a page-tree node without /Kids")
    return [int(n) for n in re.findall(_REF, match.group(1))]


def parse(data: bytes) -> Document:
    """Read a PDF written with one classic cross-reference table and a flat page tree (see the module docstring);
    :class:`Unsupported` for anything else, :class:`ValueError` for what is not a PDF."""
    try:
        return _parse(data)
    except (IndexError, KeyError) as exc:  # a truncated table or trailer
        raise ValueError(f"a damaged PDF document ({type(exc).__name__}: {exc})") from None


def _parse(data: bytes) -> Document:
    tail = _STARTXREF.search(data[-64:] if len(data) > 64 else data)
    if not data.startswith(b"%PDF-") or tail is None:
        raise ValueError("not a PDF document (no header or no startxref)")
    xref = int(tail.group(1))
    if data[xref:xref + 4] != b"xref":
        raise Unsupported("a cross-reference stream")
    pos, offsets = xref + 4, {}
    lines = data[pos:data.index(b"trailer", pos)].split()
    i = 0
    while i < len(lines):
        first, count = int(lines[i]), int(lines[i + 1])
        for k in range(count):
            offset, gen, kind = lines[i + 2 + 3 * k: i + 5 + 3 * k]
            if kind == b"n":
                if int(gen) != 0:
                    raise Unsupported("an object with a generation number")
                offsets[first + k] = int(offset)
        i += 2 + 3 * count
    trailer = data[data.index(b"trailer", pos):data.rindex(b"startxref")]
    if b"/Prev" in trailer or b"/XRefStm" in trailer or b"/Encrypt" in trailer:
        raise Unsupported("an incremental update or an encrypted document")
    ends = sorted(offsets.values()) + [xref]
    end_of = {start: ends[n + 1] for n, start in enumerate(ends[:-1])}
    objects: dict[int, bytes] = {}
    for num, start in offsets.items():
        raw = data[start:end_of[start]]
        head = _OBJ_HEAD.match(raw)
        tail_match = _OBJ_TAIL.search(raw)
        if head is None or int(head.group(1)) != num or tail_match is None:
            raise ValueError(f"object {num} is not where the cross-reference table puts it")
        objects[num] = raw[head.end():tail_match.start()].strip(b" \r\n")
    root, info = _ref(trailer, b"/Root"), _ref(trailer, b"/Info")
    if root is None or root not in objects:
        raise ValueError("no document catalog")
    tree = _ref(objects[root], b"/Pages")
    if tree is None or tree not in objects:
        raise ValueError("no page tree")
    structure, pages = {root, tree} | ({info} if info is not None else set()), []
    for kid in _kids(objects[tree]):
        head = _head(objects.get(kid, b""))[0]
        if re.search(rb"/Type\s*/Page\b", head) is None:
            raise Unsupported("a nested page tree")
        pages.append(kid)
    if any(key in objects[tree] for key in _INHERITABLE):
        raise Unsupported("page attributes inherited from the page tree")
    return Document(objects, tuple(pages), frozenset(structure))


def _flattened(data: bytes) -> bytes:
    """``data`` rewritten by pypdf: one classic cross-reference table, a flat page tree, every inherited page
    attribute set on the page itself."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    for page in PdfReader(io.BytesIO(data)).pages:
        writer.add_page(page)
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


def read(data: bytes) -> Document:
    """:func:`parse`, after rewriting the document with pypdf when it uses a feature :func:`parse` does not read."""
    try:
        return parse(data)
    except Unsupported:
        try:
            flat = _flattened(data)
        except Exception as exc:  # noqa: BLE001 - pypdf's own errors: the document cannot be read at all
            raise ValueError(f"a PDF document pypdf cannot read either ({type(exc).__name__}: {exc})") from None
        return parse(flat)


def _stream_data(doc: Document, num: int) -> bytes:
    """The decoded data of stream object ``num`` (Flate or unfiltered; empty for anything else)."""
    head, rest = _head(doc.objects[num])
    rest = re.sub(rb"^\s*stream(?:\r\n|\n)", b"", rest)
    length = re.search(rb"/Length\s+(\d+)(\s+0\s+R)?", head)
    if length is None:
        return b""
    size = int(length.group(1)) if not length.group(2) else int(doc.objects[int(length.group(1))].strip())
    raw = rest[:size]
    filters = re.search(rb"/Filter\s*(\[?[^/]*)?(/\w+)", head)
    if filters is None:
        return raw
    if filters.group(2) != b"/FlateDecode":
        return b""
    try:
        return zlib.decompressobj().decompress(raw)
    except zlib.error:
        return b""


def _literal(text: str) -> bytes:
    """A PDF text string: literal when printable ASCII, else UTF-16BE with its byte order mark."""
    if all(32 <= ord(c) < 127 for c in text):
        return b"(" + re.sub(rb"([\\()])", rb"\\\1", text.encode("ascii")) + b")"
    return b"<FEFF" + text.encode("utf-16-be").hex().upper().encode("ascii") + b">"


class _Writer:
    """Objects numbered as they are allotted, written in any order, then one cross-reference table."""

    def __init__(self) -> None:
        self.out = bytearray(_HEADER)
        self.offsets: dict[int, int] = {}
        self.count = 0

    def allot(self) -> int:
        self.count += 1
        return self.count

    def write(self, num: int, body: bytes) -> None:
        self.offsets[num] = len(self.out)
        self.out += b"%d 0 obj\n" % num + body + b"\nendobj\n"

    def finish(self, root: int, info: int) -> bytes:
        missing = [n for n in range(1, self.count + 1) if n not in self.offsets]
        if missing:
            raise ValueError(f"objects {missing[:5]} allotted but never written")
        xref = len(self.out)
        self.out += b"xref\n0 %d\n0000000000 65535 f \n" % (self.count + 1)
        self.out += b"".join(b"%010d 00000 n \n" % self.offsets[n] for n in range(1, self.count + 1))
        self.out += b"trailer\n<< /Size %d /Root %d 0 R /Info %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
            self.count + 1, root, info, xref)
        return bytes(self.out)


def _fonts(doc: Document) -> tuple[dict[int, tuple[str, int]], dict[tuple[str, int], set[int]],
                                   dict[int, tuple[str, int]]]:
    """The document's deferred fonts: descriptor → (font file name, face), the glyphs each font file's fonts use, and
    placeholder program → its font file (placeholders are not copied: references to them go to the shared
    program)."""
    descriptors: dict[int, tuple[str, int]] = {}
    glyphs: dict[tuple[str, int], set[int]] = {}
    placeholders: dict[int, tuple[str, int]] = {}
    for body in doc.objects.values():
        head = _head(body)[0]
        if b"/CIDToGIDMap" not in head or b"/FontDescriptor" not in head:
            continue
        descriptor, cmap = _ref(head, b"/FontDescriptor"), _ref(head, b"/CIDToGIDMap")
        program = _ref(_head(doc.objects.get(descriptor, b""))[0], b"/FontFile2") if descriptor else None
        if program is None or cmap is None or program not in doc.objects:
            continue
        data = _stream_data(doc, program)
        if not data.startswith(pdf_fonts.MARKER):
            continue
        where = json.loads(data[len(pdf_fonts.MARKER):])
        key = (str(where["file"]), int(where.get("face", 0)))
        table = _stream_data(doc, cmap)
        glyphs.setdefault(key, set()).update(struct.unpack(f">{len(table) // 2}H", table[: len(table) // 2 * 2]))
        descriptors[descriptor] = key
        placeholders[program] = key
    return descriptors, glyphs, placeholders


def _subset(name: str, face: int, glyphs: set[int], cache: Path | None) -> bytes:
    """The font file ``name`` (which this machine has) restricted to ``glyphs``
    (:func:`fedrates.reports.pdf_fonts.subset_font`), from ``cache`` when subset before with the same glyphs."""
    path = pdf_fonts.font_file(name)
    if path is None:
        raise FileNotFoundError(f"font file {name!r} not found by matplotlib")
    digest = hashlib.sha256(json.dumps([name, face, sorted(glyphs), pdf_fonts.subset_version(),
                                        os.path.getsize(path)]).encode()).hexdigest()[:32]
    stored = cache / f"{digest}.subset.ttf" if cache is not None else None
    if stored is not None and stored.is_file():
        try:
            return stored.read_bytes()
        except OSError:
            pass
    data = pdf_fonts.subset_font(path, face, glyphs)
    if stored is not None:
        store(stored, data)
    return data


def _outline(w: _Writer, items: Sequence[tuple[str, int, int]], pages: Sequence[int]) -> int | None:
    """Write the bookmarks ``(title, page index, level 0/1)`` (a level-1 item belongs to the level-0 item before it;
    every item open, destination the whole page); return the outline dictionary's number, None without items."""
    if not items or not pages:
        return None
    tops: list[tuple[int, str, int, list[tuple[int, str, int]]]] = []
    for title, page, level in items:
        entry = (w.allot(), title, pages[min(max(page, 0), len(pages) - 1)])
        if level and tops:
            tops[-1][3].append(entry)
        else:
            tops.append((*entry, []))
    root = w.allot()

    def write_level(entries: Sequence[tuple], parent: int) -> None:
        for k, (num, title, page, *rest) in enumerate(entries):
            body = b"<< /Title " + _literal(title) + b" /Parent %d 0 R /Dest [ %d 0 R /Fit ]" % (parent, page)
            if k:
                body += b" /Prev %d 0 R" % entries[k - 1][0]
            if k + 1 < len(entries):
                body += b" /Next %d 0 R" % entries[k + 1][0]
            children = rest[0] if rest else []
            if children:
                body += b" /First %d 0 R /Last %d 0 R /Count %d" % (children[0][0], children[-1][0], len(children))
                write_level(children, num)
            w.write(num, body + b" >>")

    write_level(tops, root)
    visible = len(tops) + sum(len(t[3]) for t in tops)
    w.write(root, b"<< /Type /Outlines /First %d 0 R /Last %d 0 R /Count %d >>" % (tops[0][0], tops[-1][0], visible))
    return root


def join(documents: Sequence[bytes | Document], outline: Sequence[tuple[str, int, int]] = (),
         info: Mapping[str, str] | None = None, subset_cache: Path | None = None) -> bytes:
    """The pages of ``documents``, in order, as one PDF with the bookmarks ``outline`` ``(title, page index,
    level 0/1)`` and the info dictionary ``info`` (e.g. ``{"Title": ..., "Creator": ...}``); see the module
    docstring. ``subset_cache``: a folder where font subsets are kept for the next report."""
    w = _Writer()
    catalog, tree, info_num = w.allot(), w.allot(), w.allot()
    pages: list[int] = []
    fonts: dict[tuple[str, int], int | None] = {}  # font file → its shared program's number (None: no such file)
    glyphs: dict[tuple[str, int], set[int]] = {}
    for item in documents:
        doc = item if isinstance(item, Document) else read(item)
        descriptors, used, placeholders = _fonts(doc)
        for key, ids in used.items():
            glyphs.setdefault(key, set()).update(ids)
            if key not in fonts:
                fonts[key] = w.allot() if pdf_fonts.font_file(key[0]) is not None else None
        numbers = {num: tree for num in doc.structure}
        numbers.update({num: fonts[key] for num, key in placeholders.items() if fonts[key] is not None})
        for num in sorted(doc.objects):
            if num not in doc.structure and num not in placeholders:
                numbers[num] = w.allot()

        def renumber(match: re.Match, numbers: dict[int, int] = numbers) -> bytes:
            if match.group(1) is None:
                return match.group(0)
            old = int(match.group(1))
            if old not in numbers:
                raise ValueError(f"a reference to object {old}, which the document does not have")
            return b"%d 0 R" % numbers[old]

        for num, body in doc.objects.items():
            if num in doc.structure or num in placeholders:
                continue
            head, rest = _head(body)
            if num in descriptors and fonts[descriptors[num]] is None:  # no such font file here
                head = re.sub(rb"\s*/FontFile2\s+" + _REF, b"", head)
            w.write(numbers[num], _TOKEN.sub(renumber, head) + rest)
        pages += [numbers[p] for p in doc.pages]
    for key, num in fonts.items():
        if num is None:
            continue
        data = _subset(*key, glyphs[key], subset_cache)
        packed = zlib.compress(data)
        w.write(num, b"<< /Length1 %d /Length %d /Filter /FlateDecode >>\nstream\n" % (len(data), len(packed))
                + packed + b"\nendstream")
    outlines = _outline(w, outline, pages)
    w.write(tree, b"<< /Type /Pages /Kids [ " + b" ".join(b"%d 0 R" % p for p in pages)
            + b" ] /Count %d >>" % len(pages))
    w.write(catalog, b"<< /Type /Catalog /Pages %d 0 R" % tree
            + (b" /Outlines %d 0 R /PageMode /UseOutlines" % outlines if outlines else b"") + b" >>")
    w.write(info_num, b"<< " + b" ".join(b"/" + key.encode("ascii") + b" " + _literal(value)
                                         for key, value in (info or {}).items()) + b" >>")
    return w.finish(catalog, info_num)
