"""One executor abstraction for long exact work: serial, a local process pool, or Dask.

The geometry (enumeration) and the argmax audit hand :func:`run_units` a list of work
units (picklable arguments) and a module-level function; this module knows nothing
about geometry.  What it guarantees:

* the same results whatever the executor (results are yielded with the unit's index,
  so callers can reassemble them in unit order);
* a ``distributed.Client`` works as an executor (``executor=client``), as does any
  :class:`concurrent.futures.Executor`, or ``None`` for serial work in this process;
* Ctrl-C (or any exception while waiting) cancels the pending units and, for pools this
  module created, shuts the workers down at once instead of waiting for the queue;
* each unit's wall duration is measured where it ran (for scaling simulations);
* a progress bar over units (tqdm) when asked for or when stderr is a terminal.

Examples
--------
>>> from engine.run.executor import run_units
>>> sorted(r.value for r in run_units(abs, [-3, 1, -2], executor=None, progress=False))
[1, 2, 3]
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures import as_completed as _cf_as_completed
from dataclasses import dataclass
from typing import Any

from tqdm import tqdm

from engine.errors import InvalidInput

__all__ = ["UnitResult", "run_units", "make_executor", "is_dask_client", "cpu_count"]


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


def is_dask_client(executor: object) -> bool:
    """True when ``executor`` is a ``distributed.Client`` (checked without importing dask)."""
    cls = type(executor)
    return cls.__name__ == "Client" and cls.__module__.startswith("distributed")


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

    Examples
    --------
    >>> make_executor(workers=1) is None
    True
    """
    if scheduler is not None:
        try:
            from distributed import Client, LocalCluster
        except ImportError as exc:  # pragma: no cover - dask is a core dependency
            raise InvalidInput("--scheduler needs Dask distributed: "
                               "pip install distributed") from exc
        if scheduler == "local":
            n = workers or cpu_count()
            cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                   dashboard_address=None)
            return Client(cluster)
        return Client(scheduler)
    if workers is None or workers <= 1:
        return None
    return ProcessPoolExecutor(max_workers=workers)


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
        except BaseException:
            for f in futs:
                f.cancel()
            raise
    finally:
        bar.close()
