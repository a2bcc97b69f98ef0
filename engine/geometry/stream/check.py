"""The streamed certification: every shard checked exactly, as independent tasks.

Each witness reproduces its sign vector exactly (integer arithmetic, every sign nonzero,
x_0 > 0 for an affine input); the sign vectors are strictly increasing within a shard and
hash to its bucket (so no row repeats anywhere); combined at the end, the number of rows
equals the exact Zaslavsky count, so the set is complete.

Examples
--------
>>> check_normals(((1, 0), (1, 1)), (0, 1), 2).tolist()
[[1, 0], [1, 1]]
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from logitgeom.geometry.arrangement import exact as ex
from logitgeom.geometry.arrangement import pack_signs, unpack_signs
from logitgeom.geometry.stream.codec import bucket_of, read_shard, shard_path
from logitgeom.geometry.stream.manifest import MANIFEST, MANIFEST_INTERVAL
from logitgeom.geometry.stream.plan import Setup, input_doc, input_hash, plan_groups
from logitgeom.run.executor import run_units, worker_count
from logitgeom.run.state import kill_armed, kill_hook, write_json
from logitgeom.run.worker import one_blas_thread, task_peak_kb, task_rss0_kb, task_start

__all__ = ["CERTIFY_BLOCK", "CheckTask", "check_shards", "check_normals", "check_one",
           "certify_shards"]

#: rows checked at once by the streamed certification
CERTIFY_BLOCK = 1 << 15


@dataclass(frozen=True)
class CheckTask:
    """Check shards lo..hi-1 of a directory against hyperplanes recomputed from its input."""

    lo: int  # shards lo..hi-1
    hi: int
    buckets: int
    shards: str
    hyperplanes: tuple  # recomputed from the input, not read from the directory
    cols: tuple[int, ...]
    D: int
    keep: tuple[int, int] | None


def check_shards(task: CheckTask) -> dict[str, dict]:
    """The independent checks of shards lo..hi-1: ``{shard: {rows, failed, cpu,
    maxrss_kb}}`` (``maxrss_kb``: the task's peak memory so far)."""
    one_blas_thread()
    task_start()
    A = check_normals(task.hyperplanes, task.cols, task.D)
    out = {}
    for p in range(task.lo, task.hi):
        c0 = time.process_time()
        n, failed = check_one(task, A, p)
        out[str(p)] = {"rows": n, "failed": failed, "cpu": round(time.process_time() - c0, 6),
                       "maxrss_kb": task_peak_kb(), "rss0_kb": task_rss0_kb()}
    return out


def check_normals(hyperplanes: tuple, cols: tuple[int, ...], D: int) -> np.ndarray:
    """The hyperplanes' normals in the input's D coordinates, exact (a check task's fixed
    cost, paid once per task)."""
    A = np.zeros((len(hyperplanes), D), dtype=object)
    A[:] = 0
    if len(hyperplanes):
        A[:, list(cols)] = np.array(hyperplanes, dtype=object)
    return ex.fit(A)


def check_one(task: CheckTask, A: np.ndarray, p: int) -> tuple[int, str | None]:
    """Check shard ``p``: (its rows, the failed check or ``None``)."""
    path = shard_path(task.shards, p)
    if not path.exists():
        return 0, f"missing shard {path.name}"
    K, X = read_shard(path, task.D)
    n = len(K)
    if n == 0:
        return 0, None
    if np.any(bucket_of(K, task.buckets) != p):
        return n, f"row hashed to another bucket in {path.name}"
    if n > 1:
        d = K[1:] != K[:-1]
        firstdiff = np.argmax(d, axis=1)
        anyd = np.any(d, axis=1)
        r = np.arange(n - 1)
        inc = anyd & (K[1:][r, firstdiff] > K[:-1][r, firstdiff])
        if not np.all(inc):
            return n, f"rows not strictly increasing in {path.name}"
    m = len(task.hyperplanes)
    for lo in range(0, n, CERTIFY_BLOCK):  # bounded memory: one block of rows
        Kb, Xb = K[lo:lo + CERTIFY_BLOCK], X[lo:lo + CERTIFY_BLOCK]
        if m:
            S = ex.sign_matrix(ex.fit(Xb), A)
            if np.any(S == 0) or np.any(pack_signs(S) != Kb):
                return n, f"a witness misses its sign vector in {path.name}"
        if task.keep is not None:
            c, o = task.keep
            if np.any(unpack_signs(Kb, m)[:, c] * o <= 0):
                return n, f"a row with x_0 <= 0 in {path.name}"
    return n, None



def certify_shards(root: Path, manifest: dict[str, Any], st: Setup, progress: bool | None,
                   executor: Any = None, record: dict | None = None) -> dict[str, Any]:
    """The shard checks of a directory as tasks, combined with the exact count ``st.expected``.

    With ``record`` (the manifest of a run being written) checks already recorded there are
    not redone (resume).

    Parameters
    ----------
    root : pathlib.Path
        The directory.
    manifest : dict
        Its manifest.
    st : Setup
        Its input, recomputed (never read from the directory's arrangement), counted.
    progress : bool or None
        A progress bar.
    executor : executor, optional
        Runs the check tasks.
    record : dict, optional
        The manifest of a run being written.

    Returns
    -------
    dict
        ``ok``, ``rows``, ``exact_count``, ``shards`` and, on failure, ``failed``.
    """
    B = manifest["buckets"]
    out: dict[str, Any] = {"ok": False, "rows": 0, "exact_count": st.expected,
                           "shards": B}
    if input_hash(input_doc(st.kind, st.Wm, st.b)) != manifest["input_sha256"]:
        return {**out, "failed": "input hash"}
    red = st.red
    done = {} if record is None else record.setdefault("certified", {})
    shards = [shard_path(root / "shards", p) for p in range(B)]
    sizes = [p.stat().st_size if p.exists() else 0 for p in shards]
    groups = plan_groups(B, sum(sizes) * 8, worker_count(executor))  # ~8 rows per byte
    tasks = [CheckTask(lo, hi, B, str(root / "shards"), red.hyperplanes, red.cols,
                       red.D, st.keep)
             for lo, hi in groups if any(str(p) not in done for p in range(lo, hi))]
    last = time.monotonic()
    for r in run_units(check_shards, tasks, executor=executor, progress=progress,
                       desc="certify"):
        done.update(r.value)
        if record is not None and (time.monotonic() - last > MANIFEST_INTERVAL
                                   or kill_armed()):
            write_json(root / MANIFEST, record)
            last = time.monotonic()
            kill_hook("certify", len(done))
    rows = 0
    for p in range(B):
        v = done[str(p)]
        if v["failed"]:
            if record is not None:  # a failed check is not kept: redo it next time
                del done[str(p)]
            return {**out, "failed": v["failed"]}
        rows += v["rows"]
    out["rows"] = rows
    if rows != st.expected:
        return {**out, "failed": f"{rows} rows but the exact Zaslavsky count is "
                                 f"{st.expected}"}
    return {**out, "ok": True}
