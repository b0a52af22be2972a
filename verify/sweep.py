"""Sweeps: run every (claim, point) of a profile, in parallel, with an on-disk cache that makes runs resumable.

The unit of work is one (claim, sweep point): its seeds are simulated together (one vectorized run with a replica
axis), and the records of each seed are cached separately under
``<out>/cache/<claim>/<point key>/seed-<s>.parquet``.  A point whose seeds are all cached is not recomputed, so an
interrupted run (Ctrl-C) keeps every finished point and a rerun resumes.  The layout of a point's batch never
depends on ``--jobs`` (processes split points, never seeds), so equal seeds give identical records for any
number of jobs.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
import traceback
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, wait
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from fedrates import solvers
from fedrates.verify import executors
from fedrates.verify.claims.base import Claim

__all__ = ["Task", "SweepResult", "run_claims"]

CACHE_FORMAT = 1


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


def _point_key(claim: Claim, point: dict) -> str:
    text = json.dumps({"claim": claim.id, "point": point, "version": solvers.__version__, "format": CACHE_FORMAT},
                      sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in name)


def _cache_dir(root: Path, claim: Claim, point: dict) -> Path:
    return root / _safe(claim.id) / _point_key(claim, point)


def _read_cached(directory: Path, seeds: Sequence[int]) -> pd.DataFrame | None:
    frames = []
    for s in seeds:
        path = directory / f"seed-{s}.parquet"
        if not path.exists():
            return None
        try:
            frames.append(pd.read_parquet(path))
        except Exception:  # a corrupt cache entry is recomputed, never trusted
            path.unlink(missing_ok=True)
            return None
    return pd.concat(frames, ignore_index=True) if frames else None


def _write_cached(directory: Path, records: pd.DataFrame) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for seed, part in records.groupby("seed"):
        fd, tmp = tempfile.mkstemp(dir=directory, suffix=".tmp")
        os.close(fd)
        try:
            part.reset_index(drop=True).to_parquet(tmp, index=False)
            os.replace(tmp, directory / f"seed-{int(seed)}.parquet")
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)


def _simulate(task: Task) -> pd.DataFrame:
    return task.claim.simulate(task.point, task.seeds)


def run_claims(claims: Sequence[Claim], profile: str, cache_root: Path | None, jobs: int = 1,
               base_seed: int = 0, on_progress: Callable[[int, int, str], None] | None = None) -> SweepResult:
    """Run (or load from cache) every point of every claim; exceptions mark the claim as errored."""
    result = SweepResult()
    tasks: list[Task] = []
    per_claim: dict[str, list[pd.DataFrame]] = {c.id: [] for c in claims}
    for claim in claims:
        try:
            points = claim.points(profile)
            seeds = claim.seeds(profile, base_seed)
        except Exception as exc:  # a claim that cannot even build its sweep
            result.errors[claim.id] = f"{type(exc).__name__}: {exc}"
            continue
        for i, point in enumerate(points):
            cached = _read_cached(_cache_dir(cache_root, claim, point), seeds) if cache_root else None
            if cached is not None:
                per_claim[claim.id].append(cached)
                result.cached += 1
            else:
                tasks.append(Task(claim, i, point, seeds))
    total, done = len(tasks), 0

    def finish(task: Task, frame: pd.DataFrame | None, error: str | None) -> None:
        nonlocal done
        done += 1
        if error is not None:
            result.errors.setdefault(task.claim.id, error)
        else:
            per_claim[task.claim.id].append(frame)
            result.computed += 1
            if cache_root is not None:
                try:
                    _write_cached(_cache_dir(cache_root, task.claim, task.point), frame)
                except OSError as exc:  # an unwritable cache must not lose the computed result
                    sys.stderr.write(f"fedrates: warning: could not cache results: {exc}\n")
        if on_progress:
            on_progress(done, total, task.claim.id)

    pool_factory = executors.active()  # --executor (verify.executors); None: serial for one job, else local
    if not tasks or (pool_factory is None and (jobs <= 1 or len(tasks) <= 1)):
        for task in tasks:
            if task.claim.id in result.errors:
                finish(task, None, result.errors[task.claim.id])
                continue
            try:
                finish(task, _simulate(task), None)
            except KeyboardInterrupt:
                raise
            except Exception as exc:
                finish(task, None, _describe(exc))
    else:
        with (pool_factory or executors.local)(jobs) as pool:
            futures = {pool.submit(_simulate, t): t for t in tasks}
            try:
                pending = set(futures)
                while pending:
                    finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for fut in finished:
                        task = futures[fut]
                        exc = fut.exception()
                        finish(task, None if exc else fut.result(), _describe(exc) if exc else None)
            except KeyboardInterrupt:
                for fut in futures:
                    fut.cancel()
                pool.shutdown(wait=False, cancel_futures=True)
                raise
    for claim_id, frames in per_claim.items():
        if frames and claim_id not in result.errors:
            result.records[claim_id] = pd.concat(frames, ignore_index=True)
    return result


def _describe(exc: BaseException) -> str:
    last = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    where = f" ({Path(last.filename).name}:{last.lineno})" if last else ""
    return f"{type(exc).__name__}: {exc}{where}"
