"""A worker process's telemetry and memory: one BLAS thread, the task's peak memory, glibc.

The tasks of a streamed enumeration (:mod:`logitgeom.geometry.stream`) measure what each of
them adds to its process's memory and keep BLAS to one thread per worker; these helpers
know nothing about geometry.

Examples
--------
>>> task_start()
>>> task_peak_kb() >= 0 and task_rss0_kb() >= 0
True
"""

from __future__ import annotations

import os
import resource
from typing import Any

from logitgeom.run.executor import in_worker

__all__ = ["one_blas_thread", "task_start", "task_peak_kb", "task_rss0_kb", "status_kb",
           "malloc_defaults", "malloc_trim", "child_pids"]

_BLAS_ONCE: list[Any] = []


def one_blas_thread() -> None:
    """One BLAS thread in this worker process, set once (not per task).

    The products inside a unit are small (points x up to 127 normals); parallelism comes
    from the tasks, and OpenBLAS's spinning helper threads otherwise cost about a third
    more CPU (resonance-6, docs/enumeration-at-scale.md).  In the driver the whole run is
    already inside a ``threadpool_limits`` block, which restores the user's setting.

    Returns
    -------
    None
    """
    if not _BLAS_ONCE:
        from threadpoolctl import threadpool_limits

        _BLAS_ONCE.append(threadpool_limits(limits=1, user_api="blas"))
        malloc_defaults()


def malloc_trim() -> None:
    """Hand the free heap back to the system (glibc ``malloc_trim(0)``; nothing elsewhere).

    Returns
    -------
    None
    """
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # pragma: no cover - not glibc
        pass


def task_start() -> None:
    """Start a task's memory measurement in a worker process.

    Resets the process's peak-RSS mark (Linux ``/proc/self/clear_refs``, value 5), so that
    :func:`task_peak_kb` read at the task's end is the peak of this task, not of every task
    the worker ran before (nor of the pages a forked worker inherited and later freed);
    glibc's free heap is returned to the system first (``malloc_trim``), so the peak is the
    worker's live memory plus what this task adds.  Not done in the driver (a serial run):
    there the process peak of the whole run is what a caller measures.

    Returns
    -------
    None
    """
    if not in_worker():
        _TASK_RSS0[:] = [status_kb("VmRSS:")]
        return
    malloc_trim()  # hand the heap the previous task freed back to the system first
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:  # pragma: no cover - not Linux, or not permitted
        pass
    _TASK_RSS0[:] = [status_kb("VmRSS:")]


#: the resident memory (KiB) of this process when the current task started
_TASK_RSS0: list[int] = [0]


def task_rss0_kb() -> int:
    """The resident memory (KiB) of this process when the current task started.

    Returns
    -------
    int
    """
    return _TASK_RSS0[0]


def status_kb(key: str) -> int:
    """A ``/proc/self/status`` figure in KiB (0 where /proc is missing).

    Parameters
    ----------
    key : str
        The line's label with its colon, e.g. ``"VmRSS:"`` or ``"VmHWM:"``.

    Returns
    -------
    int

    Examples
    --------
    >>> status_kb("NoSuchField:")
    0
    """
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(key):
                    return int(line.split()[1])
    except OSError:  # pragma: no cover - not Linux
        pass
    return 0


def task_peak_kb() -> int:
    """The peak resident memory (KiB) of this process since :func:`task_start`.

    ``VmHWM``; ``ru_maxrss``, the process's lifetime peak, where /proc is missing.

    Returns
    -------
    int
    """
    return status_kb("VmHWM:") or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def malloc_defaults() -> None:
    """Undo ``MALLOC_TRIM_THRESHOLD_`` in this process.

    Dask's nannies set it to 64 KiB in every worker's environment: it freezes glibc's mmap
    threshold at 128 KiB, so every array the tasks allocate and free is mapped and unmapped
    again; measured on a resonance-6 batch: 17 times the page faults and 3 times the system
    CPU of the same task in a process-pool worker.  Sets the trim threshold to 128 MiB and
    the mmap threshold to 32 MiB (glibc's own ceiling); does nothing outside glibc or when
    the variable is not set.

    Returns
    -------
    None
    """
    if "MALLOC_TRIM_THRESHOLD_" not in os.environ:
        return
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(-1, 128 << 20)  # M_TRIM_THRESHOLD
        libc.mallopt(-3, 32 << 20)  # M_MMAP_THRESHOLD
    except (OSError, AttributeError):  # pragma: no cover - not glibc
        pass


def child_pids(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (Linux ``/proc``; an empty list elsewhere).

    Used to see that a run left no process behind (a label's child after SIGINT).

    Examples
    --------
    >>> child_pids(os.getpid()) == [] or all(isinstance(p, int) for p in child_pids(os.getpid()))
    True
    """
    out = []
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else ():
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    if int(f.read().rsplit(b")", 1)[1].split()[1]) == pid:
                        out.append(int(entry))
            except (OSError, ValueError, IndexError):
                pass
    return out
