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

Threads: every sweep task runs with one BLAS/OpenMP thread (threadpoolctl): a local pool's workers are capped when
they start, a Dask task and a serial sweep by :func:`single_threaded`.  A multithreaded BLAS splits some reductions
(matrix-vector products, dot products) between its threads and sums the parts in another order, so a point computed
with two threads differs from the same point computed with one in the last bits; with one thread everywhere the
records are bit-identical whatever ``--jobs``, the executor or the number of threads of a Dask worker.  The sweep's
parallelism is across points, so no core idles for it; one thread per task also avoids oversubscription (several
multithreaded BLAS calls on fewer cores than threads).
"""

from __future__ import annotations

import contextlib
import os
import warnings
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from typing import Any

from fedrates.solvers.errors import InputError

__all__ = ["EXECUTORS", "local", "dask", "make", "use", "active", "single_threaded"]

EXECUTORS = ("local", "dask")

#: the executor factory selected by :func:`use` (None: the sweep's default, serial for one job)
_ACTIVE: Callable[[int], contextlib.AbstractContextManager[Executor]] | None = None


#: the variables a BLAS or OpenMP library reads its number of threads from when it is loaded
THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


@contextlib.contextmanager
def single_threaded() -> Iterator[None]:
    """Cap this process's BLAS/OpenMP thread pools at one thread while the context is open.

    threadpoolctl caps the libraries loaded when the context opens; a library loaded inside it (scipy's OpenBLAS is
    a library of its own, loaded on scipy's first use, e.g. by a reference solve) reads its number of threads from
    the environment instead, so :data:`THREAD_VARIABLES` are set to 1 while the context is open and restored
    after it (a library loaded inside keeps its one thread)."""
    from threadpoolctl import threadpool_limits

    saved = {name: os.environ.get(name) for name in THREAD_VARIABLES}
    os.environ.update({name: "1" for name in THREAD_VARIABLES})
    try:
        with threadpool_limits(limits=1):
            yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _run_limited(fn: Callable[..., Any], args: tuple) -> Any:
    """Run ``fn(*args)`` with one BLAS thread (:func:`single_threaded`)."""
    with single_threaded():
        return fn(*args)


class _Capped(Executor):
    """Wraps an executor so that every task runs under :func:`_run_limited`."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        if kwargs:
            raise TypeError("keyword arguments are not forwarded to sweep tasks")
        return self._inner.submit(_run_limited, fn, args)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        try:
            self._inner.shutdown(wait=wait, cancel_futures=cancel_futures)
        except TypeError:  # distributed's ClientExecutor has no cancel_futures
            self._inner.shutdown(wait=wait)


def _cap_this_process() -> None:
    """Initializer of a local pool's worker: the process runs one BLAS/OpenMP thread for good (its libraries are
    capped and :data:`THREAD_VARIABLES` set to 1 for those it loads later).  The workers run sweep tasks only, so the
    cap is set once per process instead of around each task (scanning the loaded libraries costs about 1.7 ms)."""
    from threadpoolctl import threadpool_limits

    os.environ.update({name: "1" for name in THREAD_VARIABLES})
    threadpool_limits(limits=1)


@contextlib.contextmanager
def local(jobs: int) -> Iterator[Executor]:
    """A process pool of ``jobs`` workers, each capped at one BLAS thread when it starts."""
    with ProcessPoolExecutor(max_workers=jobs, initializer=_cap_this_process) as pool:
        yield pool


def _require_distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise InputError("--executor dask needs the 'distributed' package; install it with "
                         "pip install 'fedrates[dask]'") from None
    return distributed


#: seconds to connect to a scheduler (distributed's ``distributed.comm.timeouts.connect`` for this client)
CONNECT_TIMEOUT = 10.0
#: seconds the sweep waits while the cluster has no worker (or the scheduler is gone) before it stops
WORKER_WAIT = 60.0


def worker_wait() -> float:
    """Seconds to wait for a Dask worker: ``FEDRATES_DASK_WAIT`` (a number in 0..86400) or :data:`WORKER_WAIT`."""
    text = os.environ.get("FEDRATES_DASK_WAIT")
    if text is None or not text.strip():
        return WORKER_WAIT
    from fedrates.verify.numbers import parse_number

    return parse_number("FEDRATES_DASK_WAIT", text, low=0.0, high=86400.0)


def check_scheduler_address(scheduler: str) -> str:
    """A Dask scheduler address (``tcp://host:port`` and the other comm schemes of distributed), checked with
    distributed's own parser before anything connects; one-line InputError otherwise."""
    from fedrates.verify.commands._common import shown

    text = scheduler.strip()
    hint = "expected the address printed by 'dask scheduler', e.g. tcp://host:8786"
    if not text:
        raise InputError(f"--scheduler '{shown(scheduler)}' is empty; {hint} (omit --scheduler for a local cluster)")
    from distributed.comm import registry
    from distributed.comm.addressing import parse_address

    try:
        scheme, location = parse_address(text, strict=True)
    except (ValueError, TypeError):
        raise InputError(f"--scheduler '{shown(scheduler)}' is not a Dask address; {hint}") from None
    if scheme not in registry.backends or not location:
        raise InputError(f"--scheduler '{shown(scheduler)}' is not a Dask address (scheme '{shown(scheme)}'); "
                         f"{hint}")
    return text


def connect(scheduler: str, timeout: float = CONNECT_TIMEOUT) -> Any:
    """A ``distributed.Client`` of the scheduler at ``scheduler``, within ``timeout`` seconds (distributed's connect
    timeout); anything that is not a reachable Dask scheduler is a one-line InputError."""
    import dask.config
    import distributed

    from fedrates.verify.commands._common import shown

    try:
        with dask.config.set({"distributed.comm.timeouts.connect": f"{timeout:g}s"}):
            return distributed.Client(scheduler, timeout=f"{timeout:g}s", set_as_default=False)
    except Exception as exc:  # noqa: BLE001 - refused, unreachable, not Dask (a garbage frame length): one line
        raise InputError(f"--scheduler '{shown(scheduler)}': no Dask scheduler answered there within {timeout:g} s "
                         f"({_one_line(exc)}); expected the address printed by 'dask scheduler', e.g. "
                         f"tcp://host:8786") from None


def _one_line(exc: BaseException) -> str:
    """``Type: first line of the message`` (at most 160 characters of it), or ``Type`` alone."""
    reason = str(exc).splitlines()[0][:160] if str(exc) else ""
    return f"{type(exc).__name__}{': ' + reason if reason else ''}"


def _ended_here(outer: Future, inner: Future) -> None:
    """``outer`` ended: a cancelled one wakes ``concurrent.futures.wait`` (which only a notified cancellation does,
    and no executor runs ``outer`` to notify it), and the cluster's task is dropped if it is still pending."""
    if outer.cancelled():
        try:
            outer.set_running_or_notify_cancel()
        except RuntimeError:  # notified already
            pass
    if not inner.done():
        inner.cancel()


def _mirror(inner: Future, outer: Future) -> None:
    """Copy the outcome of ``inner`` to ``outer`` unless ``outer`` already ended (failed by the watch, or cancelled)."""
    import concurrent.futures

    try:
        if inner.cancelled():
            outer.cancel()
        elif inner.exception() is not None:
            outer.set_exception(inner.exception())
        else:
            outer.set_result(inner.result())
    except concurrent.futures.InvalidStateError:
        pass


class _Watched(_Capped):
    """A Dask executor whose cluster is watched: when the scheduler is gone or no worker is left for
    :func:`worker_wait` seconds, the unfinished tasks fail with that reason (the sweep keeps what finished) and
    :attr:`failure` says why."""

    def __init__(self, inner: Any, client: Any, wait: float, where: str) -> None:
        super().__init__(inner)
        import threading

        self._client = client
        self._wait = wait
        self._where = where
        self._futures: list[Future] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self.failure: str | None = None
        self._thread = threading.Thread(target=self._watch, name="fedrates-dask-watch", daemon=True)
        self._thread.start()

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        """A future owned here, mirroring the cluster's: the watch may fail it without touching the future that
        ``distributed`` completes later (which would make distributed log 'Future in unexpected state')."""
        inner = super().submit(fn, *args, **kwargs)
        outer: Future = Future()
        outer.add_done_callback(lambda f: _ended_here(f, inner))
        inner.add_done_callback(lambda f: _mirror(f, outer))
        with self._lock:
            self._futures.append(outer)
        return outer

    def _problem(self) -> str | None:
        status = getattr(self._client, "status", "running")
        if status != "running":
            return f"the Dask scheduler at {self._where} is gone (client {status})"
        try:
            workers = self._client.scheduler_info().get("workers", {})
        except Exception:  # noqa: BLE001 - no answer is no worker
            workers = {}
        return None if workers else f"no Dask worker is left at {self._where}"

    def _watch(self) -> None:
        import time

        since = None
        while not self._stop.wait(0.5):
            problem = self._problem()
            if problem is None:
                since = None
                continue
            since = since if since is not None else time.monotonic()
            if time.monotonic() - since < self._wait:
                continue
            self.failure = (f"{problem} for {self._wait:g} s; the unfinished points were not run (finished points are "
                            f"cached: rerun when the cluster is back)")
            with self._lock:
                pending = [f for f in self._futures if not f.done()]
            for future in pending:
                try:
                    future.set_exception(RuntimeError(self.failure))
                except Exception:  # noqa: BLE001 - finished meanwhile
                    pass
            return

    def settle(self, grace: float = 5.0) -> None:
        """At the end of the sweep: when a task ended without a result (Dask cancels every pending task the moment
        its scheduler connection breaks) while the cluster is in trouble, that is the cluster's failure at once,
        however short the trouble has lasted; tasks the sweep itself cancelled on a healthy cluster are not."""
        import time

        self._stop.set()
        if self.failure is not None:
            return
        with self._lock:
            lost = any(f.cancelled() or f.exception() is not None for f in self._futures if f.done())
        if not lost:
            return
        deadline = time.monotonic() + grace
        while True:  # the client notices a broken connection within moments; look again until the grace ends
            problem = self._problem()
            if problem is not None:
                self.failure = (f"{problem}; the unfinished points were not run (finished points are cached: rerun "
                                f"when the cluster is back)")
                return
            if time.monotonic() >= deadline:
                return
            time.sleep(0.2)

    def close(self) -> None:
        self._stop.set()


def dask(scheduler: str | None = None) -> Callable[[int], contextlib.AbstractContextManager[Executor]]:
    """Factory of a Dask executor: the cluster at ``scheduler`` (checked and connected now, so that a bad or
    unreachable address is refused before anything is written), or a LocalCluster of ``jobs`` workers."""
    _require_distributed()
    client = connect(check_scheduler_address(scheduler)) if scheduler is not None else None

    @contextlib.contextmanager
    def factory(jobs: int) -> Iterator[Executor]:
        distributed = _require_distributed()
        wait = worker_wait()
        with contextlib.ExitStack() as stack:
            stack.enter_context(_quiet_distributed())
            if client is not None:
                stack.callback(_quietly, client.close)
                try:
                    client.wait_for_workers(1, timeout=wait)
                except Exception:  # noqa: BLE001 - TimeoutError, or the scheduler went away meanwhile
                    raise InputError(f"no Dask worker joined the scheduler at {scheduler} within {wait:g} s; start "
                                     f"workers with: dask worker {scheduler} --nthreads 1") from None
                active_client, where = client, str(scheduler)
            else:
                cluster, active_client = _start_local_cluster(distributed, jobs, stack)
                where = "the local cluster"
            pool = _Watched(active_client.get_executor(pure=False), active_client, wait, where)
            try:
                yield pool
            finally:
                pool.settle()
            if pool.failure:
                raise InputError(pool.failure)

    return factory


#: attempts at starting a local Dask cluster: distributed waits 10 s for the event loop thread of a cluster or client
#: to start, which a busy machine can exceed once
LOCAL_CLUSTER_ATTEMPTS = 2


def _start_local_cluster(distributed: Any, jobs: int, stack: contextlib.ExitStack) -> tuple[Any, Any]:
    """A ``LocalCluster`` of ``jobs`` single-threaded worker processes and its client, closed with ``stack``; a
    cluster that fails to start is tried again (:data:`LOCAL_CLUSTER_ATTEMPTS` in all), then the run stops with one
    line naming the failure (the sweep has not started: nothing is lost)."""
    failure = ""
    for _ in range(LOCAL_CLUSTER_ATTEMPTS):
        attempt = contextlib.ExitStack()
        try:
            with warnings.catch_warnings():  # the scheduler's HTTP port taken (another cluster): it takes another
                warnings.filterwarnings("ignore", message="Port .* is already in use", category=UserWarning)
                cluster = attempt.enter_context(distributed.LocalCluster(
                    n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None))
            client = attempt.enter_context(distributed.Client(cluster))
        except Exception as exc:  # noqa: BLE001 - distributed's start-up failures (AssertionError, TimeoutError, ...)
            _quietly(attempt.close)
            failure = _one_line(exc)
            continue
        stack.push(attempt.pop_all())
        return cluster, client
    raise InputError(f"the local Dask cluster of {jobs} worker(s) did not start ({failure}) after "
                     f"{LOCAL_CLUSTER_ATTEMPTS} attempts; try again, use --executor local, or start a scheduler "
                     f"and workers and pass --scheduler")


@contextlib.contextmanager
def _quiet_distributed() -> Iterator[None]:
    """Silence ``distributed``'s loggers (and those of tornado and asyncio, whose event loop runs its client) in this
    process while the sweep runs: a lost scheduler makes them log tracebacks on every reconnection attempt and
    broken read, and the run already ends with one line that says what happened."""
    import logging

    tops = ("distributed", "tornado", "asyncio")  # the client, its event loop's callbacks, the loop itself
    names = [name for name in list(logging.root.manager.loggerDict) if name.split(".")[0] in tops]
    loggers = [logging.getLogger(name) for name in sorted({*tops, "tornado.application", *names})]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


def _quietly(close: Callable[[], Any]) -> None:
    """Close a client whose scheduler may be gone: errors on the way out are not the run's result."""
    try:
        close()
    except Exception:  # noqa: BLE001
        pass


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
