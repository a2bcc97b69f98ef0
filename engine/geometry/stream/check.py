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

import hashlib
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from logitgeom.geometry.arrangement import exact as ex
from logitgeom.geometry.arrangement import pack_signs, unpack_signs
from logitgeom.geometry.stream.codec import bucket_of, read_shard, shard_path
from logitgeom.geometry.stream.manifest import Recorder
from logitgeom.geometry.stream.plan import Setup, input_doc, input_hash, plan_groups
from logitgeom.geometry.stream.progress import Checks, record_checks
from logitgeom.run.executor import run_units, worker_count
from logitgeom.run.worker import one_blas_thread, task_peak_kb, task_rss0_kb, task_start

__all__ = ["CERTIFY_BLOCK", "CheckTask", "check_shards", "check_normals", "check_one",
           "certify_shards", "shard_sha256", "changed_shards", "recheck_changed"]

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
        path = shard_path(task.shards, p)
        before = shard_sha256(path)
        n, failed = check_one(task, A, p)
        if failed is None and shard_sha256(path) != before:
            failed = f"{path.name} changed while it was checked"
        out[str(p)] = {"rows": n, "failed": failed, "sha256": before,
                       "cpu": round(time.process_time() - c0, 6),
                       "maxrss_kb": task_peak_kb(), "rss0_kb": task_rss0_kb()}
    return out


def shard_sha256(path: Path) -> str | None:
    """The SHA-256 of a shard file (hex), ``None`` when there is none.

    Recorded with each shard's verdict (``manifest["certified"][p]["sha256"]``), so that a
    shard changed after the run is noticed (:func:`changed_shards`).

    Examples
    --------
    >>> shard_sha256(Path("/nonexistent/part-00000.parquet")) is None
    True
    """
    h = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
    except FileNotFoundError:
        return None
    return h.hexdigest()


def changed_shards(root: Path, manifest: dict[str, Any]) -> list[int]:
    """The shards whose file is not the one the run checked: no recorded verdict, no
    recorded hash (a run of an older version), or another SHA-256 now.

    Examples
    --------
    >>> changed_shards(Path("/nonexistent"), {"buckets": 2, "certified": {}})
    [0, 1]
    """
    done = Checks.of(manifest).verdicts
    out = []
    for p in range(int(manifest["buckets"])):
        _, failed, want = done.get(p, (0, "not checked", None))
        if failed or want is None or shard_sha256(shard_path(root / "shards", p)) != want:
            out.append(p)
    return out


def recheck_changed(root: Path, manifest: dict[str, Any], executor: Any = None,
                    progress: bool | None = False) -> dict[str, Any]:
    """Re-check, exactly, every shard changed since the run checked it (:func:`changed_shards`).

    The run's per-shard verdicts hold only for the files it hashed; a shard rewritten
    afterwards is checked again here (witnesses, order, bucket: :func:`check_one`, against
    hyperplanes recomputed from the manifest's input), never trusted.  The unchanged shards
    keep their recorded row counts, and the total must still be the recorded exact count.

    Returns
    -------
    dict
        ``ok``, ``rechecked`` (the shard indices checked again) and, on failure, ``failed``.
    """
    changed = changed_shards(root, manifest)
    out: dict[str, Any] = {"ok": True, "rechecked": changed}
    if not changed:
        return out
    from fractions import Fraction

    from logitgeom.geometry.stream.plan import setup

    doc = manifest["input"]
    W = [[Fraction(v) for v in r] for r in doc["W"]]
    b = None if doc["bias"] is None else [Fraction(v) for v in doc["bias"]]
    st = setup(doc["kind"], W, b, count=False)
    if input_hash(input_doc(st.kind, st.Wm, st.b)) != manifest["input_sha256"]:
        return {**out, "ok": False, "failed": "input hash"}
    B = int(manifest["buckets"])
    tasks = [CheckTask(p, p + 1, B, str(root / "shards"), st.red.hyperplanes, st.red.cols,
                       st.red.D, st.keep) for p in changed]
    now: dict[str, dict] = {}
    for r in run_units(check_shards, tasks, executor=executor, progress=progress,
                       desc="re-check changed shards"):
        now.update(r.value)
    done = Checks.of({"certified": {**(manifest.get("certified") or {}), **now}}).verdicts
    rows = 0
    for p in range(B):
        n, failed, _ = done[p]
        if failed:
            return {**out, "ok": False, "failed": f"shard {p} changed after the run and fails: "
                                                  f"{failed}"}
        rows += n
    if rows != manifest["exact_count"]:
        return {**out, "ok": False, "failed": f"shards changed after the run: {rows} rows, but "
                                              f"the exact count is {manifest['exact_count']}"}
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
    for p in changed_shards(root, {"buckets": B, "certified": done}):
        done.pop(str(p), None)  # a verdict holds for the file it hashed: redo the others
    shards = [shard_path(root / "shards", p) for p in range(B)]
    sizes = [p.stat().st_size if p.exists() else 0 for p in shards]
    groups = plan_groups(B, sum(sizes) * 8, worker_count(executor))  # ~8 rows per byte
    tasks = [CheckTask(lo, hi, B, str(root / "shards"), red.hyperplanes, red.cols,
                       red.D, st.keep)
             for lo, hi in groups if any(str(p) not in done for p in range(lo, hi))]
    rec = None if record is None else Recorder(root, record)  # the phases' write policy
    for r in run_units(check_shards, tasks, executor=executor, progress=progress,
                       desc="certify"):
        if rec is not None:
            record_checks(rec.man, r.value)  # done is record["certified"]
            rec.tick("certify", len(done))
        else:
            done.update(r.value)
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
