"""The top-level files of a verification output directory: one writer at a time, a manifest of their digests,
no leftovers, and nothing computed lost when they cannot be written.

* **One writer per directory.** :func:`output_lock` takes an OS file lock (``fcntl.flock``) on ``DIR/.lock``:
  exclusive for a writer (``verify`` from the merge-read of the earlier results to its last write; ``report``
  writing into DIR), shared for a reader (``report``, ``plot``).  A second writer waits, saying so in one line on
  stderr, for at most :data:`LOCK_WAIT` seconds (``FEDRATES_LOCK_WAIT`` overrides it), then is refused in one
  line.  The lock is the kernel's: it ends with the process that holds it, even on SIGKILL; the ``.lock`` file
  stays (removing it would let two writers lock two different files).
* **Manifest.** ``DIR/manifest.json`` holds the SHA-256 and size of every top-level output (records, verdicts,
  errata, provenance, reports), written last.  ``report``, ``plot`` and the merge of ``verify`` check the files
  they read against it: a mismatch is refused in one line naming the file, except for the reports, which
  ``verify`` rebuilds.  The digests are unkeyed: they detect accidents (a truncated copy, a flipped bit, a file
  edited by hand), not a deliberate forgery, which can rewrite the manifest as well.
* **Leftovers.** Temporary files of an interrupted write (``.NAME.XXXX.tmp``, killed before their rename) are
  removed by the next writer, under the lock, so never while another run is writing them.
* **Full disk.** :class:`OutputsNotWritten` carries a one-line message naming the directory, the space it needs
  and where this run's verdicts were kept (:func:`keep_verdicts`: the user cache, else the temporary directory).
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from fedrates.solvers.errors import InputError

#: the lock file of an output directory
LOCK_FILE = ".lock"
#: the manifest of an output directory
MANIFEST = "manifest.json"
#: every top-level output the manifest covers
OUTPUT_FILES = ("records.parquet", "records.csv", "verdicts.json", "errata.json", "provenance.json", "report.html",
                "report.pdf", "timings.json")
#: outputs that can be drawn again from the others, or that each run rewrites for itself (its timings): a damaged
#: one is rebuilt by ``verify``, not refused
REBUILDABLE = ("report.html", "report.pdf", "timings.json")
#: seconds a writer waits for another writer of the same directory before it is refused
LOCK_WAIT = 300.0
#: seconds between two attempts to take a busy lock
_POLL = 0.1


def _shown(path: object) -> str:
    from fedrates.verify.commands._common import shown

    return shown(path, 200)


def lock_wait() -> float:
    """Seconds to wait for a busy output directory: ``FEDRATES_LOCK_WAIT`` (a number >= 0) or :data:`LOCK_WAIT`."""
    text = os.environ.get("FEDRATES_LOCK_WAIT")
    if text is None or not text.strip():
        return LOCK_WAIT
    from fedrates.verify.numbers import parse_number

    return parse_number("FEDRATES_LOCK_WAIT", text, low=0.0, high=86400.0)


def _holder(fd: int) -> str:
    try:
        text = os.pread(fd, 64, 0).decode("ascii", "replace").strip()
    except OSError:
        return ""
    return f" (pid {text})" if text.isdigit() else ""


@contextmanager
def output_lock(out: Path, *, shared: bool = False, wait: float | None = None) -> Iterator[None]:
    """Hold the lock of output directory ``out`` (exclusive, or ``shared`` for a reader) for the ``with`` block.

    A busy lock is waited for (one line on stderr) for at most ``wait`` seconds (default :func:`lock_wait`), then
    InputError.  A reader never creates the lock file: without one (a directory ``verify`` never wrote, a read-only
    copy) it reads unlocked."""
    try:
        import fcntl
    except ImportError:  # no flock (Windows): one writer per directory is the user's business there
        yield
        return
    path = Path(out) / LOCK_FILE
    try:
        fd = os.open(path, os.O_RDONLY) if shared else os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError as exc:
        if shared:  # no lock file (never written by verify) or a read-only copy: nothing to wait for
            yield
            return
        raise InputError(f"cannot lock output directory '{_shown(out)}' ({exc.strerror or exc})") from None
    try:
        mode = fcntl.LOCK_SH if shared else fcntl.LOCK_EX
        try:
            fcntl.flock(fd, mode | fcntl.LOCK_NB)
        except BlockingIOError:
            limit = lock_wait() if wait is None else wait
            who = _holder(fd)
            sys.stderr.write(f"fedrates: another fedrates run{who} is writing to '{_shown(out)}'; waiting for it "
                             f"(at most {limit:g} s)\n")
            sys.stderr.flush()
            deadline = time.monotonic() + limit
            while True:
                time.sleep(_POLL)
                try:
                    fcntl.flock(fd, mode | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise InputError(f"another fedrates run{who} is still writing to '{_shown(out)}' after "
                                         f"{limit:g} s; rerun when it has finished (finished points are cached) "
                                         f"or use another output directory") from None
        if not shared:
            try:  # who holds it, for the message of a waiting run (best effort: a full disk still locks)
                os.ftruncate(fd, 0)
                os.pwrite(fd, str(os.getpid()).encode(), 0)
            except OSError:
                pass
        yield
    finally:
        os.close(fd)  # releases the lock


def remove_leftovers(out: Path) -> list[str]:
    """Remove the temporary files of interrupted writes in ``out`` (top level only; call under the lock)."""
    removed = []
    try:
        entries = list(Path(out).iterdir())
    except OSError:
        return removed
    for entry in entries:
        name = entry.name
        leftover = (name.startswith(".") and name.endswith(".tmp")) or name.startswith(".fedrates-write-test")
        if leftover and entry.is_file() and not entry.is_symlink():
            try:
                entry.unlink()
                removed.append(name)
            except OSError:
                pass
    return removed


# ------------------------------------------------------------------------------------------ manifest


def file_digest(path: Path) -> str:
    with open(path, "rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def write_manifest(out: Path) -> Path:
    """Write ``out/manifest.json``: SHA-256 and size of every top-level output present (call it last)."""
    from fedrates.verify.records import write_json_atomic

    files = {}
    for name in OUTPUT_FILES:
        path = Path(out) / name
        if path.is_file():
            files[name] = {"sha256": file_digest(path), "bytes": path.stat().st_size}
    return write_json_atomic({"format": 1, "algorithm": "sha256", "files": files}, Path(out) / MANIFEST)


def update_manifest(out: Path, names: Sequence[str]) -> None:
    """Record new digests of ``names`` (rewritten by ``report``) in an existing manifest; no manifest: nothing."""
    from fedrates.verify.records import write_json_atomic

    files = _manifest(out)
    if files is None:
        return
    for name in names:
        path = Path(out) / name
        if path.is_file():
            files[name] = {"sha256": file_digest(path), "bytes": path.stat().st_size}
    write_json_atomic({"format": 1, "algorithm": "sha256", "files": files}, Path(out) / MANIFEST)


def _manifest(out: Path) -> dict[str, Any] | None:
    """The manifest's file table; None when there is no manifest (a directory written before manifests)."""
    path = Path(out) / MANIFEST
    if not path.exists():
        return None
    try:
        doc = json.loads(path.read_bytes().decode("utf-8"))
        files = doc["files"]
        if not isinstance(files, dict) or not all(isinstance(v, dict) and isinstance(v.get("sha256"), str)
                                                  for v in files.values()):
            raise ValueError("no table of files")
    except (OSError, ValueError, KeyError, TypeError, UnicodeDecodeError, RecursionError) as exc:
        raise InputError(f"'{_shown(path)}' is damaged ({type(exc).__name__}); rerun fedrates verify with "
                         f"--replace to write the directory again") from None
    return files


def damaged(out: Path, names: Sequence[str]) -> list[str]:
    """Which of ``names`` (present in ``out``) do not match the manifest: a changed digest, or a file the manifest
    does not list.  Empty when ``out`` has no manifest."""
    files = _manifest(out)
    if files is None:
        return []
    bad = []
    for name in names:
        path = Path(out) / name
        entry = files.get(name)
        if not path.is_file():
            if entry is not None and name not in REBUILDABLE:
                bad.append(name)  # listed, now missing
            continue
        if entry is None or path.stat().st_size != entry.get("bytes", -1) or file_digest(path) != entry["sha256"]:
            bad.append(name)
    return bad


def check_intact(out: Path, names: Sequence[str], remedy: str) -> None:
    """InputError naming the first of ``names`` that does not match ``out``'s manifest."""
    bad = damaged(out, names)
    if bad:
        more = f" (and {', '.join(bad[1:])})" if len(bad) > 1 else ""
        raise InputError(f"'{_shown(Path(out) / bad[0])}'{more} does not match its SHA-256 in "
                         f"'{_shown(Path(out) / MANIFEST)}': changed or damaged since fedrates wrote it; {remedy}")


def check_earlier_results(out: Path) -> None:
    """Before a merge: the earlier data files of ``out`` must match its manifest (reports are rebuilt)."""
    names = [n for n in OUTPUT_FILES if n not in REBUILDABLE]
    check_intact(out, names, "rerun with --replace to drop the earlier results, or use another --out")


def reports_intact(out: Path, names: Sequence[str]) -> bool:
    """True when the reports ``names`` exist and match the manifest (a directory without manifest: exist)."""
    try:
        return all((Path(out) / n).is_file() for n in names) and not damaged(out, names)
    except InputError:
        return False


# ------------------------------------------------------------------------------------------ unwritable outputs


class OutputsNotWritten(InputError):
    """The outputs of a finished run could not be written (full disk, quota, I/O error); the verdicts were shown
    and kept.  ``kept``: where they were kept, or None."""

    def __init__(self, message: str, kept: str | None = None) -> None:
        super().__init__(message)
        self.kept = kept


def keep_verdicts(verdicts: Any, label: str = "verdicts") -> str | None:
    """Write ``verdicts`` as JSON into the user cache (else the temporary directory); return the path, or None."""
    import tempfile

    from fedrates.solvers._cache import user_cache_root
    from fedrates.verify.jsonable import to_jsonable

    text = json.dumps(to_jsonable(verdicts), indent=2) + "\n"
    name = f"{label}-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.json"
    for root in (user_cache_root() / "fedrates" / "unsaved", Path(tempfile.gettempdir()) / "fedrates-unsaved"):
        target = root / name
        try:
            root.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            return str(target)
        except OSError:
            try:
                target.unlink(missing_ok=True)
            except OSError:
                pass
            continue
    return None


def _size(n: float) -> str:
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n:.0f} B"


def estimate_bytes(records: Any, verdicts: Any) -> int:
    """Space the outputs of ``records`` and ``verdicts`` need, generously: records in memory (parquet is smaller),
    the verdicts as JSON three times (verdicts.json and the two reports) and 4 MiB of report figures."""
    try:
        frame = int(records.memory_usage(deep=True).sum())
    except (AttributeError, TypeError, ValueError):
        frame = 0
    try:
        text = len(json.dumps(verdicts, default=str))
    except (TypeError, ValueError, RecursionError):
        text = 0
    return frame + 3 * text + 4 * 2**20


def _kept_text(kept: str | None) -> str:
    return f"this run's verdicts are printed above and kept in '{kept}'" if kept else \
        "this run's verdicts are printed above (no copy could be kept)"


@contextmanager
def writing(out: Path, verdicts: Any, records: Any = None, *, check_earlier: bool = True) -> Iterator[None]:
    """The ``with`` block that writes a run's outputs into ``out``: holds the directory's lock (exclusive), removes
    the leftovers of interrupted writes, checks the earlier results against the manifest (``check_earlier``, before
    a merge reads them), and turns every failure to write (full disk, quota, I/O error) or to lock into
    :class:`OutputsNotWritten` with this run's ``verdicts`` kept in the user cache."""
    try:
        with output_lock(out):
            remove_leftovers(out)
            if check_earlier:
                check_earlier_results(out)
            yield
    except OutputsNotWritten:
        raise
    except InputError as exc:  # busy beyond the wait, damaged earlier results: the verdicts are kept all the same
        kept = keep_verdicts(verdicts)
        raise OutputsNotWritten(f"{exc}; {_kept_text(kept)}", kept) from None
    except OSError as exc:
        raise not_written(out, exc, verdicts, estimate_bytes(records, verdicts)) from None


def not_written(out: Path, exc: OSError, verdicts: Any, needed: int) -> OutputsNotWritten:
    """The one-line refusal of outputs that could not be written, with this run's ``verdicts`` kept."""
    kept = keep_verdicts(verdicts)
    where = f"'{_shown(out)}'"
    try:
        free = os.statvfs(out)
        free_text = f", {_size(free.f_bavail * free.f_frsize)} free"
    except (OSError, AttributeError):
        free_text = ""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
        reason = f"not enough space in {where} (the outputs need about {_size(needed)}{free_text})"
    else:
        reason = f"cannot write the outputs into {where} ({exc.strerror or exc})"
    return OutputsNotWritten(f"{reason}; {_kept_text(kept)}; free some space and rerun the same command (points "
                             f"already in its cache are not computed again)", kept)
