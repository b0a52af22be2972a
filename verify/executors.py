"""Executors that run sweep points: a local process pool, or a Dask ``distributed`` cluster.

Both expose the ``concurrent.futures`` interface (``submit`` → ``Future``, ``shutdown``) that
:func:`fedrates.verify.sweep.run_claims` drives; a point's seeds always run together in one task, so records do not
depend on the executor or on the number of workers.  Results come back to the client process, which writes the
cache and the records (workers never touch the output directory, so a remote cluster needs no shared disk).

* ``local`` — :class:`concurrent.futures.ProcessPoolExecutor` with ``--jobs`` workers;
* ``dask`` — ``distributed.Client(address).get_executor()``: the cluster at ``--scheduler ADDRESS`` (any deployment:
  ``dask scheduler`` / ``dask worker`` by hand, SSH, Kubernetes, an HPC job queue), or a ``LocalCluster`` of
  ``--jobs`` single-threaded worker processes when no address is given.  ``distributed`` is the optional extra
  ``fedrates[dask]``.

Threads: every task runs with its BLAS/OpenMP pools capped (threadpoolctl) so that workers × threads ≤ cores —
⌊cores / jobs⌋ threads for the local pool, ⌊cores / worker threads⌋ on a Dask worker.  Several multithreaded BLAS
calls on fewer cores than threads wait for each other (oversubscription); capping changes no result (each sweep
point's arithmetic is the same single-threaded or not up to BLAS summation order, which the claims' tolerances
already cover).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from typing import Any

from fedrates.solvers.errors import InputError

__all__ = ["EXECUTORS", "local", "dask", "make", "use", "active", "blas_threads"]

EXECUTORS = ("local", "dask")

#: the executor factory selected by :func:`use` (None: the sweep's default, serial for one job)
_ACTIVE: Callable[[int], contextlib.AbstractContextManager[Executor]] | None = None


def blas_threads(workers: int, cores: int | None = None) -> int:
    """Threads per worker so that workers × threads ≤ cores (at least one)."""
    cores = cores if cores is not None else (os.cpu_count() or 1)
    return max(1, cores // max(1, workers))


def _limit(threads: int | None) -> Any:
    """Cap BLAS/OpenMP thread pools of this process (no-op without threadpoolctl)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl is a dependency
        return None
    return threadpool_limits(limits=threads)


def _run_limited(fn: Callable[..., Any], args: tuple, threads: int | None) -> Any:
    """Run ``fn(*args)`` with BLAS threads capped; ``threads=None`` on a Dask worker: cores / worker threads."""
    if threads is None:
        try:
            from distributed import get_worker

            worker = get_worker()
            threads = blas_threads(int(getattr(worker, "nthreads", None) or worker.state.nthreads))
        except Exception:  # not on a worker (or an older distributed): one thread is always safe
            threads = 1
    with _limit(threads) or contextlib.nullcontext():
        return fn(*args)


class _Capped(Executor):
    """Wraps an executor so that every task runs under :func:`_run_limited`."""

    def __init__(self, inner: Any, threads: int | None) -> None:
        self._inner = inner
        self._threads = threads

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        if kwargs:
            raise TypeError("keyword arguments are not forwarded to sweep tasks")
        return self._inner.submit(_run_limited, fn, args, self._threads)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        try:
            self._inner.shutdown(wait=wait, cancel_futures=cancel_futures)
        except TypeError:  # distributed's ClientExecutor has no cancel_futures
            self._inner.shutdown(wait=wait)


@contextlib.contextmanager
def local(jobs: int) -> Iterator[Executor]:
    """A process pool of ``jobs`` workers, ⌊cores / jobs⌋ BLAS threads each."""
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        yield _Capped(pool, blas_threads(jobs))


def _require_distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise InputError("--executor dask needs the 'distributed' package; install it with "
                         "pip install 'fedrates[dask]'") from None
    return distributed


def dask(scheduler: str | None = None) -> Callable[[int], contextlib.AbstractContextManager[Executor]]:
    """Factory of a Dask executor: the cluster at ``scheduler``, or a LocalCluster of ``jobs`` workers."""
    _require_distributed()

    @contextlib.contextmanager
    def factory(jobs: int) -> Iterator[Executor]:
        distributed = _require_distributed()
        with contextlib.ExitStack() as stack:
            if scheduler:
                try:
                    client = stack.enter_context(distributed.Client(scheduler, timeout="20s"))
                except (OSError, TimeoutError) as exc:
                    raise InputError(f"--scheduler {scheduler!r}: no Dask scheduler reachable there ({exc}); "
                                     "expected the address printed by 'dask scheduler', e.g. tcp://host:8786") \
                        from None
            else:
                cluster = stack.enter_context(distributed.LocalCluster(
                    n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None))
                client = stack.enter_context(distributed.Client(cluster))
            yield _Capped(client.get_executor(pure=False), None)

    return factory


def make(name: str, scheduler: str | None = None) -> Callable[[int], contextlib.AbstractContextManager[Executor]]:
    """The executor factory called ``name`` (``local`` or ``dask``); bad names are one-line input errors."""
    if name == "local":
        if scheduler:
            raise InputError(f"--scheduler {scheduler!r} needs --executor dask; the local executor has no scheduler")
        return local
    if name == "dask":
        return dask(scheduler)
    raise InputError(f"executor '{name}' is not available; expected one of: {', '.join(EXECUTORS)}")


@contextlib.contextmanager
def use(factory: Callable[[int], contextlib.AbstractContextManager[Executor]] | None) -> Iterator[None]:
    """Make ``factory`` the executor of sweeps run inside the ``with`` block."""
    global _ACTIVE
    previous, _ACTIVE = _ACTIVE, factory
    try:
        yield
    finally:
        _ACTIVE = previous


def active() -> Callable[[int], contextlib.AbstractContextManager[Executor]] | None:
    """The factory selected by :func:`use`, or None."""
    return _ACTIVE
