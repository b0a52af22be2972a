"""On-disk cache of reference optima: ``<key>.npz`` (the point) + ``<key>.json`` (value, gap, method, seconds,
shape, SHA-256 of the npz bytes, and ``meta_sha256``: the SHA-256 of the canonical JSON of every other field, so
that the metadata (method and seconds included) is covered as well as the data).

The key is the SHA-256 of the problem fingerprint, the solver settings and :data:`FORMAT_VERSION`.  The directory
is ``$FEDRATES_CACHE`` if set, else the user cache directory (``~/.cache/fedrates/references`` on Linux).
Writes are atomic (temporary file + ``os.replace``).  Reading validates the JSON, the checksum and the shape;
anything wrong removes the entry and reports a miss, so that a damaged entry is recomputed and never trusted.
(The caller re-certifies every hit as well.)  Failures to write are returned as a message, never raised.

:func:`store_document` / :func:`load_document` keep checksummed JSON documents the same way (``fedrates constants``
caches its results with them, under ``constants/``).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

__all__ = ["FORMAT_VERSION", "cache_dir", "entry_key", "load", "store", "remove", "load_document", "store_document",
           "document_or_build"]

FORMAT_VERSION = 2
_META_KEYS = {"value", "gap", "method", "seconds", "shape", "npz_sha256", "format", "meta_sha256"}


def _meta_text(meta: Any) -> str:
    """The exact text of a metadata file (a load compares the file with it, so any edit is detected)."""
    return json.dumps(meta, indent=1, sort_keys=True)


def _meta_digest(meta: Mapping[str, Any]) -> str:
    """SHA-256 of the canonical JSON of every metadata field except the digest itself."""
    text = json.dumps({k: meta[k] for k in sorted(meta) if k != "meta_sha256"}, sort_keys=True,
                      separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def cache_dir() -> Path:
    """The reference cache directory (not created here)."""
    env = os.environ.get("FEDRATES_CACHE")
    if env:
        return Path(env)
    return user_cache_root() / "fedrates" / "references"


def user_cache_root() -> Path:
    """The platform's per-user cache directory: %LOCALAPPDATA% on Windows, ~/Library/Caches on macOS,
    $XDG_CACHE_HOME or ~/.cache elsewhere."""
    import sys

    if sys.platform.startswith("win"):
        return Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")


def entry_key(fingerprint: str, settings: Mapping[str, Any]) -> str:
    """SHA-256 of (fingerprint, settings, format version)."""
    text = json.dumps({"fingerprint": fingerprint, "settings": dict(settings), "format": FORMAT_VERSION},
                      sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def _paths(key: str, directory: Path | None = None) -> tuple[Path, Path]:
    base = directory or cache_dir()
    return base / f"{key}.npz", base / f"{key}.json"


def remove(key: str, directory: Path | None = None) -> None:
    """Delete both files of an entry (missing files are ignored)."""
    for path in _paths(key, directory):
        try:
            path.unlink()
        except OSError:
            pass


def load(key: str, shape: tuple[int, ...], directory: Path | None = None) -> tuple[np.ndarray, dict] | None:
    """(w, meta) of a valid entry, or None (a missing or damaged entry; damaged ones are removed)."""
    import numpy as np  # here, not at module level: the JSON documents of this module need no numpy

    npz_path, json_path = _paths(key, directory)
    if not npz_path.exists() and not json_path.exists():
        return None
    try:
        text = json_path.read_text()
        meta = json.loads(text)
        if text != _meta_text(meta):  # not byte-for-byte what store() writes: edited or damaged
            raise ValueError("non-canonical metadata")
        if not isinstance(meta, dict) or not _META_KEYS <= set(meta) or meta["format"] != FORMAT_VERSION:
            raise ValueError("bad metadata")
        if _meta_digest(meta) != meta["meta_sha256"]:
            raise ValueError("metadata checksum mismatch")
        raw = npz_path.read_bytes()
        if hashlib.sha256(raw).hexdigest() != meta["npz_sha256"]:
            raise ValueError("checksum mismatch")
        with np.load(io.BytesIO(raw), allow_pickle=False) as data:
            w = np.array(data["w"], dtype=float)
        if w.shape != tuple(shape) or tuple(meta["shape"]) != tuple(shape) or not np.all(np.isfinite(w)):
            raise ValueError("wrong shape")
        for name in ("value", "gap", "seconds"):
            meta[name] = float(meta[name])
    except Exception:  # any unreadable entry (bad JSON, zipfile.BadZipFile, checksum, shape) is a miss
        remove(key, directory)
        return None
    return w, meta


def _atomic_write(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def store(key: str, w: np.ndarray, meta: Mapping[str, Any], directory: Path | None = None) -> str | None:
    """Write an entry atomically; return None on success or a one-line warning if the cache is unwritable."""
    import numpy as np

    npz_path, json_path = _paths(key, directory)
    buffer = io.BytesIO()
    np.savez(buffer, w=np.asarray(w, dtype=float))
    raw = buffer.getvalue()
    record = dict(meta)
    record.update(shape=list(np.shape(w)), npz_sha256=hashlib.sha256(raw).hexdigest(), format=FORMAT_VERSION)
    record.pop("meta_sha256", None)
    record["meta_sha256"] = _meta_digest(record)
    try:
        npz_path.parent.mkdir(parents=True, exist_ok=True)
        _atomic_write(npz_path, raw)
        _atomic_write(json_path, _meta_text(record).encode())
    except OSError as exc:
        return f"reference cache not written ({npz_path.parent}): {exc.strerror or exc}"
    return None


# ---- JSON documents (e.g. the exact constants of an instance): one checksummed file per entry -------------------
def _document_path(key: str, directory: Path) -> Path:
    return directory / f"{key}.json"


def _document_text(record: Mapping[str, Any]) -> str:
    """The exact text of a document file (keys in their order: a document keeps the order of its tables)."""
    return json.dumps(record, indent=1)


def _document_digest(record: Mapping[str, Any]) -> str:
    body = json.dumps({"document": record["document"], "format": record["format"]}, separators=(",", ":"))
    return hashlib.sha256(body.encode()).hexdigest()


def load_document(key: str, directory: Path) -> dict | None:
    """The document of a valid entry, or None (a missing or damaged entry; damaged ones are removed).

    The file holds ``{"document": ..., "format": FORMAT_VERSION, "sha256": ...}`` written by :func:`store_document`;
    it must be byte-for-byte the text :func:`store_document` writes and match its checksum."""
    path = _document_path(key, directory)
    if not path.exists():
        return None
    try:
        text = path.read_text()
        record = json.loads(text)
        if not isinstance(record, dict) or list(record) != ["document", "format", "sha256"]:
            raise ValueError("not a document entry")
        if text != _document_text(record) or record["format"] != FORMAT_VERSION:
            raise ValueError("non-canonical entry")
        if _document_digest(record) != record["sha256"] or not isinstance(record["document"], dict):
            raise ValueError("checksum mismatch")
    except Exception:  # unreadable, edited or damaged: a miss, and the entry is removed
        try:
            path.unlink()
        except OSError:
            pass
        return None
    return record["document"]


def store_document(key: str, document: Mapping[str, Any], directory: Path) -> str | None:
    """Write a JSON document atomically with its checksum; None on success, else a one-line warning."""
    record: dict[str, Any] = {"document": dict(document), "format": FORMAT_VERSION}
    record["sha256"] = _document_digest(record)
    path = _document_path(key, directory)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _atomic_write(path, _document_text(record).encode())
    except OSError as exc:
        return f"cache not written ({path.parent}): {exc.strerror or exc}"
    return None


def document_or_build(key: str, directory: Path, make: Callable[[], Mapping[str, Any]],
                      build: bool = True) -> dict | None:
    """The document stored under ``key``; on a miss, ``make()``'s, stored there, when ``build`` (else ``None``).
    An unwritable cache only loses the reuse."""
    doc = load_document(key, directory)
    if doc is None and build:
        doc = dict(make())
        store_document(key, doc, directory)
    return doc
