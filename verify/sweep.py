"""Sweeps: run every (claim, point) of a profile, in parallel, with an on-disk cache that makes runs resumable.

The unit of work is one (claim, sweep point, seed batch): the claim's seeds are cut into at most
:data:`MAX_BATCHES` fixed batches of at least :data:`SEED_BATCH` seeds (a claim may set ``seed_batch`` to fix the
size; ``None`` keeps all seeds together), each batch is simulated
as one vectorized run with a replica axis, and its records are cached as soon as the batch completes, in one file
per batch, ``<out>/cache/<claim>/<key>/records.parquet``, with a checksummed sidecar ``records.json`` (one file per
point and batch, not per seed: a resume reads a few hundred small files, not thousands).
An interrupted run (Ctrl-C, SIGKILL) keeps every finished batch and a rerun resumes.  The batches never depend on
``--jobs`` (processes split batches, never seeds), so equal seeds give identical records for any number of jobs,
and each claim's records are put in a canonical row order (point, seed, round, metric) before they are returned.

Integrity: the sidecar holds the SHA-256 of the parquet bytes and every metadata field (claim, point, seed
batch, code version, format), itself covered by a SHA-256 of the canonical metadata text; a read recomputes both
and compares every field with what this run expects, so any change to either file (a single flipped bit
included) makes the entry a miss that is recomputed, never trusted.  The key covers everything that changes the
result: the claim's id and parameters, the point, the seed batch, :data:`CACHE_FORMAT` and a code version (the
SHA-256 of the source of the claim's module and base classes, of the algorithm's module and of the whole
``fedrates.solvers`` package).
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import math
import os
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, wait
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import pandas as pd

from fedrates import solvers
from fedrates.verify import executors
from fedrates.verify.claims.base import Claim

__all__ = ["Task", "SweepResult", "run_claims", "SEED_BATCH", "CACHE_FORMAT", "code_version", "verify_entry"]

CACHE_FORMAT = 3
#: smallest default seed batch (seeds simulated together and saved together)
SEED_BATCH = 6
#: largest number of default batches per point (keeps the replica axis long enough to vectorize well)
MAX_BATCHES = 4
#: canonical row order of a claim's records (the columns present are used, in this order)
ORDER = ("point", "seed", "round", "iterations", "metric")
_META_FIELDS = {"format", "claim", "key", "point", "batch", "code", "rows", "parquet_sha256"}


@dataclass
class Task:
    claim: Claim
    index: int
    point: dict
    seeds: list[int]


@dataclass
class SweepResult:
    records: dict[str, pd.DataFrame] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    computed: int = 0
    cached: int = 0
    #: claim id → CPU seconds its points took to compute in this run (cached points: 0), what its budget counts
    seconds: dict[str, float] = field(default_factory=dict)
    #: claim id → what the ``then`` follow-up of :func:`run_claims` returned for it (claims whose follow-up did not
    #: run in the pool — serial sweeps, a worker that died — are absent: the caller runs it itself)
    followed: dict[str, Any] = field(default_factory=dict)


#: a follow-up of :func:`run_claims`: given a claim, its records (None when it has none) and its error (None when it
#: has none), the function and arguments to run in the sweep's pool once the claim's last point is in
FollowUp = Callable[[Claim, "pd.DataFrame | None", "str | None"], tuple[Callable[..., Any], tuple]]


def _source_digest(paths: Sequence[Path]) -> str:
    digest = hashlib.sha256()
    for path in sorted(set(paths)):
        try:
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
        except OSError:
            digest.update(path.name.encode() + b"\0missing")
    return digest.hexdigest()


@cache
def _solvers_digest() -> str:
    root = Path(solvers.__file__).resolve().parent
    return _source_digest(list(root.rglob("*.py")))


def _module_file(name: str) -> Path | None:
    module = sys.modules.get(name)
    path = getattr(module, "__file__", None)
    return Path(path).resolve() if path else None


def _algorithm_module(claim: Claim) -> str | None:
    algorithm = getattr(claim, "algorithm", None)
    if algorithm is None:
        return None
    if not isinstance(algorithm, str):
        return type(algorithm).__module__
    try:
        from fedrates.solvers import algorithms

        return algorithms.get(algorithm).__module__ if hasattr(algorithms.get(algorithm), "__module__") else None
    except Exception:  # an id that is not a registered algorithm (an experiment, a toy claim)
        return None


def code_version(claim: Claim) -> str:
    """SHA-256 of the code that produces a claim's records: its class's modules (the whole MRO up to
    :class:`Claim`), the modules of the functions among its fields, the algorithm's module and every source file of
    ``fedrates.solvers``."""
    modules = {c.__module__ for c in type(claim).__mro__ if c.__module__ not in ("builtins", "abc")}
    # functions a claim is declared with (a builder's closed form, hyperparameters or values): their modules too
    for f in dataclasses.fields(claim) if dataclasses.is_dataclass(claim) else ():
        value = getattr(claim, f.name, None)
        module = getattr(value, "__module__", None) if callable(value) and not isinstance(value, type) else None
        if isinstance(module, str) and module in sys.modules:
            modules.add(module)
    algorithm = _algorithm_module(claim)
    if algorithm:
        modules.add(algorithm)
    return _modules_digest(tuple(sorted(modules)))


@cache
def _modules_digest(modules: tuple[str, ...]) -> str:
    """Digest of the given modules' sources and of ``fedrates.solvers`` (read once per process)."""
    files = [f for f in (_module_file(m) for m in modules) if f is not None]
    return hashlib.sha256((_source_digest(files) + _solvers_digest()).encode()).hexdigest()


def _stable(obj: Any) -> Any:
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {"__type__": f"{type(obj).__module__}.{type(obj).__qualname__}",
                **{f.name: _stable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}}
    if isinstance(obj, dict):
        return {str(k): _stable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_stable(v) for v in obj]
    if isinstance(obj, (str, int, float, bool)) or obj is None:
        return obj
    if callable(obj):
        return f"{getattr(obj, '__module__', '')}.{getattr(obj, '__qualname__', type(obj).__qualname__)}"
    return f"{type(obj).__module__}.{type(obj).__qualname__}:{obj!s}"


def _point_key(claim: Claim, point: dict, batch: Sequence[int] = ()) -> str:
    text = json.dumps({"claim": _stable(claim), "point": _stable(point), "batch": [int(s) for s in batch],
                       "version": solvers.__version__, "code": code_version(claim), "format": CACHE_FORMAT},
                      sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in name)


def _cache_dir(root: Path, claim: Claim, point: dict, batch: Sequence[int] = ()) -> Path:
    return root / _safe(claim.id) / _point_key(claim, point, batch)


def _meta_text(meta: dict) -> bytes:
    return json.dumps({k: meta[k] for k in sorted(meta) if k != "meta_sha256"}, sort_keys=True,
                      separators=(",", ":"), default=str).encode()


def _expected_meta(claim: Claim, point: dict, batch: Sequence[int], key: str) -> dict:
    return {"format": CACHE_FORMAT, "claim": claim.id, "key": key, "point": json.loads(json.dumps(
        _stable(point), default=str)), "batch": [int(s) for s in batch], "code": code_version(claim)}


def verify_entry(parquet: bytes, meta_bytes: bytes, expected: dict) -> pd.DataFrame | None:
    """The records of one cache entry (one point, one seed batch) if both files are intact and describe what
    ``expected`` asks for; None otherwise.  Checks: the sidecar is a JSON object with exactly the known fields, its
    ``meta_sha256`` matches the canonical text of the other fields, every expected field is equal, the parquet bytes
    hash to ``parquet_sha256``, and the table has ``rows`` rows, all of seeds of the batch."""
    try:
        meta = json.loads(meta_bytes.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    if not isinstance(meta, dict) or set(meta) != _META_FIELDS | {"meta_sha256"}:
        return None
    if meta_bytes != json.dumps(meta, sort_keys=True).encode():  # not exactly what was written
        return None
    if hashlib.sha256(_meta_text(meta)).hexdigest() != meta["meta_sha256"]:
        return None
    if any(meta.get(k) != v for k, v in expected.items()):
        return None
    if hashlib.sha256(parquet).hexdigest() != meta["parquet_sha256"]:
        return None
    try:
        frame = pd.read_parquet(io.BytesIO(parquet))
    except Exception:  # unreadable despite a matching hash: not trusted
        return None
    if len(frame) != meta["rows"] or ("seed" in frame and not frame["seed"].isin(meta["batch"]).all()):
        return None
    return frame


def _read_cached(directory: Path, claim: Claim, point: dict, batch: Sequence[int]) -> pd.DataFrame | None:
    path, side = directory / "records.parquet", directory / "records.json"
    if not path.exists() or not side.exists():
        return None
    try:
        frame = verify_entry(path.read_bytes(), side.read_bytes(), _expected_meta(claim, point, batch, directory.name))
    except OSError:
        frame = None
    if frame is None:  # a damaged entry is recomputed, never trusted
        path.unlink(missing_ok=True)
        side.unlink(missing_ok=True)
    return frame


def _atomic_bytes(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def parquet_bytes(frame: pd.DataFrame) -> bytes:
    """``frame.to_parquet(index=False)``'s bytes (the same bytes), converted in this thread: a cache entry is a few
    thousand rows, for which pyarrow's conversion threads cost more than they save (4 ms instead of 6.6)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    buffer = io.BytesIO()
    pq.write_table(pa.Table.from_pandas(frame.reset_index(drop=True), preserve_index=False, nthreads=1), buffer)
    return buffer.getvalue()


def _write_cached(directory: Path, records: pd.DataFrame, claim: Claim | None = None, point: dict | None = None,
                  batch: Sequence[int] = ()) -> None:
    """One entry for the batch (an empty table when the claim wrote no records for it, so that the batch is found
    complete on the next run instead of being recomputed every time)."""
    directory.mkdir(parents=True, exist_ok=True)
    raw = parquet_bytes(records)
    meta = _expected_meta(claim, point or {}, batch, directory.name) if claim is not None else {
        "format": CACHE_FORMAT, "claim": "", "key": directory.name, "point": {}, "batch": [int(s) for s in batch],
        "code": ""}
    meta.update(rows=len(records), parquet_sha256=hashlib.sha256(raw).hexdigest())
    meta["meta_sha256"] = hashlib.sha256(_meta_text(meta)).hexdigest()
    # parquet first, sidecar last: a sidecar exists only beside the complete data it describes
    _atomic_bytes(directory / "records.parquet", raw)
    _atomic_bytes(directory / "records.json", json.dumps(meta, sort_keys=True).encode())


def _batches(claim: Claim, seeds: Sequence[int]) -> list[list[int]]:
    seeds = [int(s) for s in seeds]
    size = getattr(claim, "seed_batch", max(SEED_BATCH, -(-len(seeds) // MAX_BATCHES)))
    if not size or size >= len(seeds):
        return [seeds] if seeds else []
    return [seeds[i:i + size] for i in range(0, len(seeds), size)]


def canonical(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows in the canonical order (point, seed, round, iterations, metric; stable), index reset."""
    cols = [c for c in ORDER if c in frame.columns]
    if not cols:
        return frame.reset_index(drop=True)
    return frame.sort_values(cols, kind="mergesort").reset_index(drop=True)


def _simulate(task: Task) -> tuple[pd.DataFrame, float]:
    """The task's records and the CPU seconds its simulation took (what :attr:`Claim.budget` counts)."""
    start = time.process_time()
    frame = task.claim.simulate(task.point, task.seeds)
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"simulate of {task.claim.id} returned a {type(frame).__name__}, expected a DataFrame of "
                        "records (fedrates.verify.claims.base.records_from_trace)")
    return frame, time.process_time() - start


def _budget(claim: Claim, profile: str) -> float:
    budget = getattr(claim, "budget", None) or {}
    return float(budget.get(profile, math.inf))


def run_claims(claims: Sequence[Claim], profile: str, cache_root: Path | None, jobs: int = 1,
               base_seed: int = 0, on_progress: Callable[[int, int, str], None] | None = None,
               then: FollowUp | None = None,
               after_follow: Callable[[str, Any, dict[str, pd.DataFrame]], Sequence[tuple[Callable[..., Any], tuple]]]
               | None = None,
               also: Sequence[tuple[Callable[..., Any], tuple]] = ()
               ) -> SweepResult:
    """Run (or load from cache) every point of every claim; exceptions mark the claim as errored.

    ``then`` (used with a process pool only): as soon as a claim's last point is in (computed, cached, failed or
    cancelled), the task ``then(claim, records, error)`` names is queued in the same pool, behind the points already
    queued, and its result is stored in :attr:`SweepResult.followed` — e.g. judging the claim and drawing its
    figures, which then fill the cores the sweep's last long points leave idle. The records handed over are the
    claim's final ones (canonical order, as :attr:`SweepResult.records` holds them). ``after_follow(claim id,
    result, records)`` (records: claim id → final records of the claims complete so far) is called in this process
    as each follow-up ends and may name more tasks for the pool (their results are not kept: e.g. figures drawn into
    a cache from the records of several claims). ``also``: tasks ``(fn, args)`` queued in the pool behind the points
    (with a pool only; their results are not kept, their failures ignored: e.g. report pages that depend on the claims
    alone)."""
    result = SweepResult()
    tasks: list[Task] = []
    per_claim: dict[str, list[pd.DataFrame]] = {c.id: [] for c in claims}
    runs_of: dict[str, Claim] = {}  # shared-runs key → the claim that computes them
    sharing: dict[str, list[Claim]] = {}  # that claim's id → the claims that take its records
    for claim in claims:
        try:
            points = claim.points(profile)
            seeds = claim.seeds(profile, base_seed)
            key = claim.shared_runs()
        except Exception as exc:  # a claim that cannot even build its sweep
            result.errors[claim.id] = f"{type(exc).__name__}: {exc}"
            continue
        if key is not None:
            key = json.dumps([key, _stable(points), [int(s) for s in seeds]], sort_keys=True, default=str)
            if key in runs_of:
                sharing.setdefault(runs_of[key].id, []).append(claim)
                continue
            runs_of[key] = claim
        for i, point in enumerate(points):
            for batch in _batches(claim, seeds):
                cached = (_read_cached(_cache_dir(cache_root, claim, point, batch), claim, point, batch)
                          if cache_root else None)
                if cached is not None:
                    per_claim[claim.id].append(cached)
                    result.cached += 1
                else:
                    tasks.append(Task(claim, i, point, batch))
    total, done = len(tasks), 0
    spent = result.seconds
    by_id = {c.id: c for c in claims}
    remaining: dict[str, int] = {}
    for task in tasks:
        remaining[task.claim.id] = remaining.get(task.claim.id, 0) + 1

    def records_of(claim_id: str) -> pd.DataFrame | None:
        """The claim's records once all its points are in (None when it failed or has none)."""
        frames = per_claim.get(claim_id)
        if claim_id in result.errors or not frames:
            return None
        if claim_id not in result.records:
            result.records[claim_id] = canonical(owned(pd.concat(frames, ignore_index=True), by_id[claim_id]))
        return result.records[claim_id]

    def share(claim_id: str) -> list[Claim]:
        """Once a claim's last point is in: the claims that share its runs, given its records relabelled (or its
        error); they are then complete too."""
        others = sharing.get(claim_id, [])
        source = records_of(claim_id)
        for other in others:
            if source is None:
                result.errors.setdefault(other.id, result.errors.get(claim_id, f"no records of {claim_id}, whose "
                                                                                "runs this claim shares"))
            else:
                per_claim[other.id] = [relabelled(source, other)]
        return others

    def finish(task: Task, frame: pd.DataFrame | None, error: str | None, seconds: float = 0.0) -> None:
        nonlocal done
        done += 1
        if error is not None:
            result.errors.setdefault(task.claim.id, error)
        else:
            per_claim[task.claim.id].append(frame)
            result.computed += 1
            spent[task.claim.id] = spent.get(task.claim.id, 0.0) + seconds
            budget = _budget(task.claim, profile)
            if spent[task.claim.id] > budget and task.claim.id not in result.errors:
                result.errors[task.claim.id] = (
                    f"time budget exceeded: {spent[task.claim.id]:.1f} s of compute > {budget:g} s allowed for the "
                    f"{profile} profile (the claim's remaining points were not run)")
            if cache_root is not None:
                try:
                    _write_cached(_cache_dir(cache_root, task.claim, task.point, task.seeds), frame, task.claim,
                                  task.point, task.seeds)
                except OSError as exc:  # an unwritable cache must not lose the computed result
                    sys.stderr.write(f"fedrates: warning: could not cache results: {exc}\n")
        remaining[task.claim.id] -= 1
        if on_progress:
            on_progress(done, total, task.claim.id)

    pool_factory = executors.active()  # --executor (verify.executors); None: serial for one job, else local
    if not tasks or (pool_factory is None and (jobs <= 1 or len(tasks) <= 1)):
        with executors.single_threaded():  # as in the pools: records that do not depend on --jobs
            for task in tasks:
                if task.claim.id in result.errors:
                    finish(task, None, result.errors[task.claim.id])
                    continue
                try:
                    frame, seconds = _simulate(task)
                    finish(task, frame, None, seconds)
                except KeyboardInterrupt:
                    raise
                except Exception as exc:
                    finish(task, None, _describe(exc))
    else:
        with (pool_factory or executors.local)(jobs) as pool:
            futures = {pool.submit(_simulate, t): t for t in tasks}
            handled: set = set()
            following: dict = {}  # follow-up future → claim id (None: a task named by after_follow or ``also``)
            following.update({pool.submit(fn, *args): None for fn, args in also})

            def follow(claim: Claim) -> None:
                if then is not None:
                    for done_claim in (claim, *share(claim.id)):
                        fn, args = then(done_claim, records_of(done_claim.id), result.errors.get(done_claim.id))
                        following[pool.submit(fn, *args)] = done_claim.id
                else:
                    share(claim.id)

            shared = {o.id for others in sharing.values() for o in others}
            try:
                for claim in claims:  # claims with nothing to compute: followed up at once
                    if claim.id not in remaining and claim.id not in shared:
                        follow(claim)
                pending = set(futures) | set(following)
                while pending:
                    finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for fut in finished:
                        if fut in following:
                            claim_id = following.pop(fut)
                            if claim_id is not None and not fut.cancelled() and fut.exception() is None:
                                result.followed[claim_id] = fut.result()
                                for fn, args in (after_follow(claim_id, fut.result(), result.records) if after_follow
                                                 else ()):
                                    extra = pool.submit(fn, *args)
                                    following[extra] = None
                                    pending.add(extra)
                            continue
                        task = futures[fut]
                        handled.add(fut)
                        if fut.cancelled():  # skipped after its claim ran out of budget
                            finish(task, None, result.errors.get(task.claim.id, "cancelled"))
                        else:
                            exc = fut.exception()
                            frame, seconds = (None, 0.0) if exc else fut.result()
                            finish(task, frame, _describe(exc) if exc else None, seconds)
                            if task.claim.id in result.errors:  # out of budget or failed: skip its queued batches
                                for other in pending:
                                    if other in futures and futures[other].claim.id == task.claim.id:
                                        other.cancel()
                        if remaining[task.claim.id] == 0:  # the claim's last point is in
                            before = set(following)
                            follow(task.claim)
                            pending |= set(following) - before
            except KeyboardInterrupt:
                for fut in futures:
                    fut.cancel()
                # batches that completed while the interrupt arrived are saved too, never dropped
                for fut, task in futures.items():
                    if fut not in handled and fut.done() and not fut.cancelled() and fut.exception() is None:
                        try:
                            finish(task, *fut.result()[:1], None)
                        except BaseException:  # saving is best effort on the way out; the interrupt goes on
                            pass
                pool.shutdown(wait=False, cancel_futures=True)
                raise
    for claim_id in list(sharing):  # serial sweeps (the pool shares as each claim completes): idempotent
        if all(not per_claim[o.id] and o.id not in result.errors for o in sharing[claim_id]):
            share(claim_id)
    for claim_id in per_claim:
        records_of(claim_id)
    # in the order of ``claims``, whatever order they finished in: the records written do not depend on timing
    result.records = {c: result.records[c] for c in per_claim if c in result.records}
    return result


def relabelled(records: pd.DataFrame, claim: Claim) -> pd.DataFrame:
    """Another claim's records as ``claim``'s own (:meth:`Claim.shared_runs`): its ``claim`` and ``theorem`` labels
    on every row, nothing else changed."""
    out = records.copy()
    out["claim"] = claim.id
    out["theorem"] = claim.theorem
    return out


def owned(frame: pd.DataFrame, claim: Claim) -> pd.DataFrame:
    """A claim's records as its own: in the long format (``metric``/``value``; the wide records of ``run_batch``
    are melted), with ``claim`` set to the claim's id on every row, ``theorem``, ``algorithm``, ``problem`` filled
    where missing or empty, and any other required column missing added with a neutral value.

    Records built with :func:`fedrates.verify.records.to_long` (claim ``""``) or taken from ``run_batch(...).records``
    would otherwise be stored but belong to no claim, and the report would find none."""
    from fedrates.verify.records import COLUMNS, as_long

    if len(frame) and not {"metric", "value"} <= set(frame.columns):
        frame = as_long(frame)
    copied = False

    def writable() -> pd.DataFrame:  # copy once, and only when something changes (records can be large)
        nonlocal frame, copied
        if not copied:
            frame, copied = frame.copy(), True
        return frame

    if "claim" not in frame.columns or not (frame["claim"] == claim.id).all():
        writable()["claim"] = claim.id
    for column in ("theorem", "algorithm", "problem"):
        value = str(getattr(claim, column, "") or "")
        if column not in frame.columns:
            writable()[column] = value
        else:
            empty = frame[column].isna() | (frame[column].astype(str) == "")
            if empty.any():
                writable()[column] = frame[column].where(~empty, value)
    # required columns a claim did not write (wide run_batch records): neutral values, so that the run's records can
    # still be written (point 0, sizes 0, bound NaN, params "")
    defaults = {"str": "", "int": 0, "float": float("nan"), "bool": False}
    for column, spec in COLUMNS.items():
        if column not in frame.columns:
            writable()[column] = defaults[spec.kind]
    return frame


def _describe(exc: BaseException) -> str:
    last = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    where = f" ({Path(last.filename).name}:{last.lineno})" if last else ""
    return f"{type(exc).__name__}: {exc}{where}"
