"""One executor abstraction for long exact work: serial, a local process pool, or Dask.

The geometry (enumeration) and the argmax audit hand :func:`run_units` a list of work
units (picklable arguments) and a module-level function; this module knows nothing
about geometry.  What it guarantees:

* the same results whatever the executor (results are yielded with the unit's index,
  so callers can reassemble them in unit order);
* a ``distributed.Client`` works as an executor (``executor=client``), as does any
  :class:`concurrent.futures.Executor`, or ``None`` for serial work in this process;
* Ctrl-C (or any exception while waiting) cancels the pending units and, for pools this
  module created (:func:`process_pool`), terminates the workers at once instead of waiting
  for the queue; workers ignore Ctrl-C themselves (no traceback per worker), die with their
  parent (Linux ``PR_SET_PDEATHSIG``: no orphan workers when the parent is killed) and never
  start pools of their own (:func:`in_worker`);
* each unit's wall duration is measured where it ran (for scaling simulations);
* a progress bar over units (tqdm) when asked for or when stderr is a terminal.

Examples
--------
>>> from logitgeom.run.executor import run_units
>>> sorted(r.value for r in run_units(abs, [-3, 1, -2], executor=None, progress=False))
[1, 2, 3]
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures import as_completed as _cf_as_completed
from dataclasses import dataclass
from typing import Any

from tqdm import tqdm

from logitgeom.errors import InvalidInput

__all__ = ["UnitResult", "run_units", "make_executor", "is_dask_client", "cpu_count",
           "process_pool", "WorkerPool", "in_worker", "in_dask_worker", "worker_count",
           "close_executor", "quiet_workers"]


@dataclass(frozen=True)
class UnitResult:
    """The outcome of one work unit: its index in the submitted list, value, duration (s)."""

    index: int
    value: Any
    seconds: float


def cpu_count() -> int:
    """The cores this process may use (affinity-aware)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - non-Linux
        return os.cpu_count() or 1


def in_dask_worker() -> bool:
    """Whether this process (or thread) is a Dask worker (checked without importing dask).

    Returns
    -------
    bool

    Examples
    --------
    >>> in_dask_worker()
    False
    """
    import sys

    if "distributed" not in sys.modules:
        return False
    try:
        from distributed import get_worker

        get_worker()
        return True
    except (ImportError, ValueError):
        return False


def in_worker() -> bool:
    """True in a worker process (of a pool, of Dask, of any ``multiprocessing`` parent).

    Work running in a worker stays serial: no nested pools.  The one test of "am I a
    worker" in the engine (pools, Dask, the tasks' memory measurement).

    Returns
    -------
    bool

    Examples
    --------
    >>> in_worker()
    False
    """
    return multiprocessing.parent_process() is not None or \
        multiprocessing.current_process().daemon or in_dask_worker()


def _die_with_parent() -> None:
    """Worker start-up: ignore Ctrl-C (the parent handles it) and die with the parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = os.getppid()
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        return
    if os.getppid() != parent:  # pragma: no cover - the parent died before prctl
        os._exit(1)


class WorkerPool(ProcessPoolExecutor):
    """A process pool whose workers ignore Ctrl-C and die with the parent, and which
    :meth:`abort` ends at once (pending work cancelled, workers terminated).

    Leaving a ``with`` block by an exception (Ctrl-C included) aborts; leaving it normally
    waits for the work as usual.
    """

    def __init__(self, max_workers: int | None = None) -> None:
        super().__init__(max_workers=max_workers, initializer=_die_with_parent)

    def abort(self) -> None:
        """Cancel pending work and terminate the workers now (no waiting for the queue)."""
        procs = list((getattr(self, "_processes", None) or {}).values())
        super().shutdown(wait=False, cancel_futures=True)
        for p in procs:
            try:
                p.terminate()
            except (OSError, AttributeError, ValueError):  # pragma: no cover - already gone
                pass
        for p in procs:
            try:
                p.join(timeout=2)
            except (OSError, AttributeError, ValueError, AssertionError):  # pragma: no cover
                pass

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """As :meth:`ProcessPoolExecutor.shutdown`, but during Ctrl-C it aborts instead of
        waiting (callers' ``finally: pool.shutdown()`` then ends promptly)."""
        if wait and isinstance(sys.exc_info()[1], KeyboardInterrupt | SystemExit):
            self.abort()
            return
        super().shutdown(wait=wait, cancel_futures=cancel_futures)

    def __exit__(self, exc_type, exc_val, exc_tb):
        if exc_type is not None:
            self.abort()
            return False
        return super().__exit__(exc_type, exc_val, exc_tb)


_WARM: list[bool] = []


def warm_before_fork() -> None:
    """Pay Parquet's first use once in this process, before worker processes are forked
    from it (once per process).

    The first Parquet write and read of a process costs about 0.2 CPU s (Arrow builds its
    registries); a forked worker inherits them.  Without this each worker paid it in its
    first phase-2 or check task, so which task paid it, and the run's CPU, varied from run
    to run.  Changes no result.

    Examples
    --------
    >>> warm_before_fork()
    """
    if _WARM:
        return
    _WARM.append(True)
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    buf = io.BytesIO()
    pq.write_table(pa.table({"a": pa.array([1], type=pa.uint64())}), buf, compression="zstd")
    buf.seek(0)
    pq.ParquetFile(buf).read(use_threads=False)


def process_pool(workers: int) -> WorkerPool:
    """A :class:`WorkerPool` of ``workers`` processes (the one way this package makes pools).

    Examples
    --------
    >>> with process_pool(1) as pool:
    ...     pool.submit(abs, -2).result()
    2
    """
    warm_before_fork()  # the workers fork at the first submit, after this
    return WorkerPool(max_workers=workers)


def is_dask_client(executor: object) -> bool:
    """True when ``executor`` is a ``distributed.Client`` (checked without importing dask)."""
    cls = type(executor)
    return cls.__name__ == "Client" and cls.__module__.startswith("distributed")


def worker_count(executor: object) -> int:
    """How many tasks ``executor`` runs at once (1 for ``None``, serial).

    Examples
    --------
    >>> worker_count(None)
    1
    """
    if executor is None:
        return 1
    if is_dask_client(executor):
        return max(1, sum(executor.nthreads().values()))
    return int(getattr(executor, "_max_workers", None) or cpu_count())


def _no_profiler(dask_worker=None) -> None:
    if dask_worker is None:
        return
    for name in ("profile", "profile-cycle"):
        pc = dask_worker.periodic_callbacks.pop(name, None)
        if pc is not None:
            pc.stop()


def quiet_workers(client: object) -> None:
    """Stop the statistical profiler of every worker of a Dask client.

    Dask workers sample every thread's stack every 10 ms by default (a diagnostic of
    the dashboard); on long CPU-bound tasks that costs about half as much CPU again as the
    work itself.  Workers started with ``distributed.worker.profile.enabled: False`` (or
    the environment variable ``DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED=False``) need
    nothing; workers joining later keep their setting.
    """
    try:
        client.run(_no_profiler)
    except Exception:  # noqa: BLE001 - a diagnostic only: never fail a run for it
        pass


def close_executor(executor: object, timeout: float = 60.0) -> None:
    """Close what :func:`make_executor` made: shut a pool down; for a Dask client,
    disconnect and, for a ``LocalCluster`` it started, let each worker process finish
    within ``timeout`` seconds (the default 4 s is short on a loaded machine, and the
    nanny then logs "Worker process still alive ... killing") before closing it.

    Examples
    --------
    >>> close_executor(None)
    """
    if executor is None:
        return
    if not is_dask_client(executor):
        executor.shutdown()
        return
    cluster = getattr(executor, "cluster", None)
    executor.close()
    if cluster is None:
        return
    import asyncio

    nannies = list(getattr(cluster, "workers", {}).values())

    async def _close_workers() -> None:
        await asyncio.gather(*(w.close(timeout=timeout) for w in nannies
                               if hasattr(w, "close")), return_exceptions=True)

    try:
        cluster.sync(_close_workers)
    except Exception:  # noqa: BLE001 - closing anyway below
        pass
    cluster.close(timeout=timeout)


#: the most local worker processes :func:`make_executor` starts (a pool that large is
#: already far past any machine's cores; more only exhausts process and memory limits)
MAX_WORKERS = 256
#: Dask settings of the clusters this package starts (workers inherit them): no
#: statistical profiler (sampling every thread's stack every 10 ms cost about half the
#: work again), and the periodic callbacks of every worker's event loop spaced out: the
#: loop-health tick (every 20 ms by default), the memory monitor (100 ms) and the system
#: monitor (500 ms) each wake the worker's event loop, which then competes for the GIL with
#: the task's thread; no work stealing (the plan balances the tasks; a stolen task is
#: serialised again).  None of them changes a result.
DASK_QUIET = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.admin.system-monitor.interval": "2s",
    "distributed.scheduler.work-stealing": False,
}
#: Dask settings of a ``LocalCluster`` only (``--scheduler local``): on Linux its worker
#: processes are forked from this process, as the process pool's are, instead of spawned
#: (a spawned worker starts a fresh interpreter and imports Dask and then the engine again:
#: about 1.1 CPU s per worker on this kind of machine, the larger part of the cluster's
#: fixed cost on a run of a few CPU seconds).  The tasks set their BLAS threads themselves
#: (:func:`logitgeom.run.worker.one_blas_thread`), so the environment variables a spawned
#: worker would be given before start-up are not needed.
LOCAL_CLUSTER = ({"distributed.worker.multiprocessing-method": "fork"}
                 if sys.platform == "linux" else {})


def make_executor(workers: int | None = None, scheduler: str | None = None):
    """Build an executor from CLI-style options.

    Parameters
    ----------
    workers : int, optional
        Local process-pool size (``1`` means serial: returns ``None``).
    scheduler : str, optional
        Address of a Dask scheduler (``tcp://host:8786``); a ``distributed.Client``
        connected to it is returned.  ``"local"`` starts a ``LocalCluster`` with
        ``workers`` processes (default: all cores).

    Returns
    -------
    None, concurrent.futures.Executor or distributed.Client
        The caller owns it and closes it (``close()`` / ``shutdown()``).

    Raises
    ------
    InvalidInput
        ``workers`` is not an integer in 1..:data:`MAX_WORKERS`.

    Examples
    --------
    >>> make_executor(workers=1) is None
    True
    >>> make_executor(workers=100_000)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    logitgeom.errors.InvalidInput: --workers must be an integer from 1 to 256 ...; got 100000
    """
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)
                                or not 1 <= workers <= MAX_WORKERS):
        raise InvalidInput(f"--workers must be an integer from 1 to {MAX_WORKERS} (processes on "
                           f"this machine); got {workers!r}")
    if scheduler is not None:
        try:
            from distributed import Client, LocalCluster
        except ImportError as exc:  # pragma: no cover - dask is a core dependency
            raise InvalidInput("--scheduler needs Dask distributed: pip install distributed") \
                from exc
        import dask

        with dask.config.set({**DASK_QUIET, **(LOCAL_CLUSTER if scheduler == "local" else {})}):
            if scheduler == "local":
                warm_before_fork()  # its workers fork from this process (LOCAL_CLUSTER)
                n = workers or cpu_count()
                # memory_limit=0: no Dask memory management.  A forked worker's resident set
                # counts the pages it shares with this process, so a large driver (a big
                # Jupyter kernel) would put it over the nanny's pause threshold (80 % of
                # its share of the machine) before it ran a task; the tasks bound their own
                # memory, as they do in the process pool, which has no such monitor either.
                cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                       dashboard_address=None,
                                       memory_limit=0 if LOCAL_CLUSTER else "auto")
                client = Client(cluster)
            else:
                client = Client(scheduler)
        quiet_workers(client)
        return client
    if workers is None or workers <= 1 or in_worker():
        return None
    return process_pool(workers)


def _timed(fn: Callable, arg: Any) -> tuple[Any, float]:
    t0 = time.perf_counter()
    value = fn(arg)
    return value, time.perf_counter() - t0


def _show(progress: bool | None, n: int) -> bool:
    if progress is False:
        return False
    if progress is True:
        return True
    return sys.stderr.isatty() and n > 1


def run_units(
    fn: Callable[[Any], Any],
    units: Sequence[Any] | Iterable[Any],
    *,
    executor: Executor | Any | None = None,
    progress: bool | None = None,
    desc: str = "units",
    postfix: Callable[[Any], dict] | None = None,
) -> Iterator[UnitResult]:
    """Run ``fn(unit)`` for every unit and yield :class:`UnitResult` as units finish.

    Parameters
    ----------
    fn : callable
        A module-level (picklable) function of one argument.
    units : sequence
        The work units (picklable).
    executor : None, concurrent.futures.Executor or distributed.Client
        ``None`` runs serially in this process, in unit order.
    progress : bool, optional
        Force the progress bar on or off (default: on when stderr is a terminal).
    desc : str
        Label of the progress bar.
    postfix : callable, optional
        Maps a finished unit's value to a dict shown beside the bar (e.g. regions found).

    Yields
    ------
    UnitResult
        In completion order (serial: unit order).  On an exception or Ctrl-C the pending
        units are cancelled before the exception propagates.

    Examples
    --------
    >>> [r.index for r in run_units(str, ["a", "b"], progress=False)]
    [0, 1]
    """
    units = list(units)
    bar = tqdm(total=len(units), desc=desc, unit="unit", disable=not _show(progress, len(units)),
               smoothing=0.05)
    try:
        if executor is None:
            for i, u in enumerate(units):
                value, secs = _timed(fn, u)
                bar.update(1)
                if postfix is not None:
                    bar.set_postfix(postfix(value), refresh=False)
                yield UnitResult(i, value, secs)
            return
        if is_dask_client(executor):
            from distributed import as_completed as dask_as_completed

            futs = [executor.submit(_timed, fn, u, pure=False) for u in units]
            index = {f.key: i for i, f in enumerate(futs)}
            done_iter = dask_as_completed(futs)
        else:
            futs = [executor.submit(_timed, fn, u) for u in units]
            index = {id(f): i for i, f in enumerate(futs)}
            done_iter = _cf_as_completed(futs)
        try:
            for f in done_iter:
                value, secs = f.result()
                key = f.key if is_dask_client(executor) else id(f)
                bar.update(1)
                if postfix is not None:
                    bar.set_postfix(postfix(value), refresh=False)
                yield UnitResult(index[key], value, secs)
        except BaseException as exc:
            for f in futs:
                f.cancel()
            if isinstance(executor, WorkerPool) and isinstance(exc, KeyboardInterrupt
                                                               | SystemExit):
                executor.abort()  # Ctrl-C: do not wait for the units already running
            raise
    finally:
        bar.close()
