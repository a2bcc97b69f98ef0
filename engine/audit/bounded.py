"""Budgets that hold inside native code: one label's work in a forked child process.

A per-label budget checked between Python statements (:func:`logitgeom.audit.proofs._budget`)
cannot stop a single call into FLINT, cdd or HiGHS that runs for minutes, and neither can
Ctrl-C (Python delivers ``KeyboardInterrupt`` only between bytecodes).  :func:`run_bounded`
therefore runs the label in a child forked from the calling process (the head is shared
copy-on-write, nothing is pickled on the way in) while the parent waits in a Python loop
that looks at the child's CPU time at most :data:`POLL` seconds apart:

* the child's CPU time reaches the budget: the child is killed (``SIGKILL``; native code
  cannot ignore it) and the caller gets ``("budget", stage)``, the last stage the child
  reported through :func:`note_stage`;
* Ctrl-C in the parent: the child is killed and ``KeyboardInterrupt`` propagates at once;
* the parent dies (a pool worker terminated): the child dies with it (``PR_SET_PDEATHSIG``).

The child sends its result back pickled over a pipe (length-prefixed frames; stage notes
and partial results, :func:`note_partial`, are frames too: what a killed child finished
before the budget ran out is kept).  Where ``os.fork`` does not exist the function runs
in-process (the cooperative budget checks still apply).

Examples
--------
>>> run_bounded(pow, (2, 10), None)[:2]
('ok', 1024)
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import struct
import time
from collections.abc import Callable
from typing import Any

__all__ = ["run_bounded", "note_stage", "note_partial", "ChildDied", "POLL"]

#: The longest wait (seconds) between two looks at the child's CPU time; the next look
#: comes after half the CPU left, at least 2 ms later, so a child of at most two busy
#: threads overruns its budget by about 2 ms plus the time to kill it.  (Ctrl-C and the
#: child's result do not wait for a look: they interrupt the wait.)
POLL = 0.25

class ChildDied(RuntimeError):
    """The child ended without a result and without the budget's kill (the operating system
    killed it, e.g. out of memory, or native code crashed); the message says how it ended."""


#: The write end of the pipe to the parent, in a bounded child (None elsewhere).
_CHANNEL: list[int] = []

_HDR = struct.Struct("<cQ")


def note_stage(stage: str) -> None:
    """Tell the waiting parent which stage the label has reached (a no-op outside a
    :func:`run_bounded` child); the budget record names the last stage noted.

    Examples
    --------
    >>> note_stage("lp")
    """
    if _CHANNEL:
        data = stage.encode()
        os.write(_CHANNEL[0], _HDR.pack(b"s", len(data)) + data)


def note_partial(value: Any) -> None:
    """Hand a finished part of the work (picklable) to the waiting parent at once (a no-op
    outside a :func:`run_bounded` child): if the budget then runs out, the parent still has
    it (``partials`` of :func:`run_bounded`).

    Examples
    --------
    >>> note_partial(("all", {"verdict": "never"}))
    """
    if _CHANNEL:
        data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        _write_all(_CHANNEL[0], _HDR.pack(b"p", len(data)) + data)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def _child(fn: Callable, args: tuple, wfd: int) -> None:  # pragma: no cover - in the child
    code = 0
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
        try:
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
        _CHANNEL[:] = [wfd]
        try:
            payload = pickle.dumps(("ok", fn(*args)), protocol=pickle.HIGHEST_PROTOCOL)
        except BaseException as exc:  # noqa: BLE001 - handed to the parent, re-raised there
            try:
                payload = pickle.dumps(("error", exc), protocol=pickle.HIGHEST_PROTOCOL)
            except Exception:  # noqa: BLE001 - an unpicklable exception
                payload = pickle.dumps(("error", RuntimeError(repr(exc))))
        _write_all(wfd, _HDR.pack(b"r", len(payload)) + payload)
    except BaseException:  # noqa: BLE001
        code = 1
    finally:
        os._exit(code)


def _cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of a running process (Linux ``/proc``), or None: the
    larger of the whole process's from ``stat`` (in clock ticks, usually 10 ms) and the sum
    over its threads of ``schedstat`` (nanoseconds)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        ticks = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None
    ns = 0
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/schedstat", "rb") as f:
                ns += int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        pass  # a thread that ended meanwhile, or no schedstat: the ticks stand
    return max(ticks, ns / 1e9)


def _frames(buf: bytearray):
    """Complete frames at the front of buf (consumed)."""
    while len(buf) >= _HDR.size:
        kind, n = _HDR.unpack_from(buf)
        if len(buf) < _HDR.size + n:
            return
        data = bytes(buf[_HDR.size:_HDR.size + n])
        del buf[:_HDR.size + n]
        yield kind, data


def run_bounded(fn: Callable, args: tuple, cpu_seconds: float | None,
                partials: list | None = None) -> tuple[str, Any, float]:
    """Run ``fn(*args)`` in a forked child, stopped when its CPU time reaches
    ``cpu_seconds`` (None: no budget; Ctrl-C still stops it at once).

    Parameters
    ----------
    fn : callable
        Its value must be picklable.
    args : tuple
    cpu_seconds : float or None
        CPU-second budget of the child (user + system).
    partials : list, optional
        Receives, in order, every value the child handed over with :func:`note_partial`.

    Returns
    -------
    (str, object, float)
        ``("ok", value, cpu)`` or ``("budget", last noted stage or "", cpu)``, with the
        child's CPU seconds.  An exception raised by ``fn`` is raised again here; a child
        that ends otherwise without a result raises :class:`ChildDied`.

    Examples
    --------
    >>> def spin():
    ...     while True:
    ...         pass
    >>> kind, stage, cpu = run_bounded(spin, (), 0.2)
    >>> kind, 0.2 <= cpu < 0.5
    ('budget', True)
    """
    if not hasattr(os, "fork"):  # pragma: no cover - not POSIX
        t0 = time.process_time()
        return "ok", fn(*args), time.process_time() - t0
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(rfd)
        _child(fn, args, wfd)
    os.close(wfd)
    buf = bytearray()
    stage = ""
    result: tuple | None = None
    t_wall = time.monotonic()
    killed = False
    cpu = 0.0

    def take(chunk: bytes) -> None:
        nonlocal stage, result
        buf.extend(chunk)
        for kind, data in _frames(buf):
            if kind == b"s":
                stage = data.decode()
            elif kind == b"p":
                if partials is not None:
                    partials.append(pickle.loads(data))
            elif not killed:
                result = pickle.loads(data)

    wait = POLL if cpu_seconds is None else min(POLL, max(0.002, cpu_seconds / 2))
    try:
        while result is None:
            ready, _, _ = select.select([rfd], [], [], wait)
            if ready:
                chunk = os.read(rfd, 1 << 20)
                if not chunk:
                    break  # the child exited (its result, if any, is already read)
                take(chunk)
            if cpu_seconds is not None and result is None:
                used = _cpu_seconds(pid)
                if used is None:
                    used = time.monotonic() - t_wall
                if used >= cpu_seconds:
                    os.kill(pid, signal.SIGKILL)
                    killed = True
                    break
                # look again after half the CPU left (a child of at most two busy threads
                # cannot pass the budget meanwhile), at most POLL and at least 2 ms later
                wait = min(POLL, max(0.002, (cpu_seconds - used) / 2))
    finally:
        if result is None and not killed:  # Ctrl-C or an error here: the child goes too
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        _, status, ru = os.wait4(pid, 0)
        cpu = ru.ru_utime + ru.ru_stime
        if killed:  # the stage notes and partial results written before the kill
            os.set_blocking(rfd, False)
            try:
                while chunk := os.read(rfd, 1 << 20):
                    take(chunk)
            except BlockingIOError:
                pass
        os.close(rfd)
    if killed:
        return "budget", stage, cpu
    if result is None:
        how = f"killed by {signal.Signals(os.WTERMSIG(status)).name}" \
            if os.WIFSIGNALED(status) else f"exit status {os.waitstatus_to_exitcode(status)}"
        raise ChildDied(f"the child process ended without a result ({how})")
    if result[0] == "error":
        raise result[1]
    return "ok", result[1], cpu
