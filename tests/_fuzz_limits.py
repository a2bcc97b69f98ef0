"""Run a command in a child under resource limits (CPU seconds, address space).

A regression that hangs or runs away is killed by the kernel (SIGXCPU at the CPU limit, a
MemoryError at the address-space limit) instead of hanging the test suite; the tests then
assert on the outcome (exit code, one-line message), never on how long it took.  A wall
clock timeout is only a backstop for a child blocked without using CPU (a FIFO).
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: CPU seconds every fuzz/DoS case must end within (the issue's bound), start-up included.
CPU_LIMIT = 5


@dataclass
class Result:
    code: int | None  # None: killed by the wall-clock backstop
    out: str
    err: str
    peak_kb: int | None = None  # the child's own peak resident set (run_own_peak only)

    @property
    def killed(self) -> bool:
        """Killed by a limit (SIGXCPU / SIGKILL) or the backstop: the case did not end."""
        return self.code is None or self.code < 0

    def one_line_error(self) -> bool:
        """A non-zero exit whose stderr is a single non-empty line and no traceback."""
        lines = [ln for ln in self.err.splitlines() if ln.strip()]
        return (self.code not in (0, None) and not self.killed and len(lines) == 1
                and "Traceback" not in self.err)


def _limits(cpu: int, mem: int | None):
    def apply():
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        if mem is not None:
            resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    return apply


def env() -> dict:
    e = dict(os.environ)
    e["PYTHONPATH"] = str(ROOT) + os.pathsep + e.get("PYTHONPATH", "")
    e["OMP_NUM_THREADS"] = e["OPENBLAS_NUM_THREADS"] = "1"  # small address space per thread
    return e


def run(args: list[str], *, cpu: int = CPU_LIMIT, mem: int | None = 2 << 30,
        timeout: float = 300, cwd: str | Path | None = None, module: str = "engine") -> Result:
    """``python -m MODULE ARGS`` under RLIMIT_CPU ``cpu`` s and RLIMIT_AS ``mem`` bytes."""
    cmd = [sys.executable, "-m", module, *args]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, errors="replace",
                           preexec_fn=_limits(cpu, mem), timeout=timeout, cwd=cwd, env=env(),
                           stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as exc:
        return Result(None, _text(exc.stdout), _text(exc.stderr))
    return Result(p.returncode, p.stdout, p.stderr)


def run_own_peak(args: list[str], *, cpu: int = CPU_LIMIT, mem: int | None = 2 << 30,
                 timeout: float = 300) -> Result:
    """:func:`run`, and the peak resident set of that child alone (``os.wait4``).

    Not ``getrusage(RUSAGE_CHILDREN)``: that is the largest of every child this process
    ever reaped, so a test would see another test's children (a pool or a ``LocalCluster``
    worker forked from a large pytest process) instead of its own command's."""
    import tempfile
    import time

    cmd = [sys.executable, "-m", "logitgeom", *args]
    with tempfile.TemporaryFile() as fo, tempfile.TemporaryFile() as fe:
        p = subprocess.Popen(cmd, stdout=fo, stderr=fe, stdin=subprocess.DEVNULL,
                             preexec_fn=_limits(cpu, mem), env=env())
        end = time.monotonic() + timeout
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        while not pid and time.monotonic() < end:
            time.sleep(0.05)
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if not pid:  # the wall-clock backstop
            p.kill()
            _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        fo.seek(0)
        fe.seek(0)
        return Result(p.returncode if pid else None, _text(fo.read()), _text(fe.read()),
                      ru.ru_maxrss)


def _text(b) -> str:
    if b is None:
        return ""
    return b if isinstance(b, str) else b.decode(errors="replace")


def run_code(code: str, *, cpu: int = CPU_LIMIT, mem: int | None = 2 << 30,
             timeout: float = 300, cwd: str | Path | None = None) -> Result:
    """``python -c CODE`` under the same limits (a Python API call as a user makes it)."""
    try:
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           errors="replace", preexec_fn=_limits(cpu, mem), timeout=timeout,
                           cwd=cwd, env=env(), stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as exc:
        return Result(None, _text(exc.stdout), _text(exc.stderr))
    return Result(p.returncode, p.stdout, p.stderr)
