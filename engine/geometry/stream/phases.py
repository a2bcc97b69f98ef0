"""The two phases of a streamed run, as tasks any executor runs.

Phase 1, one :class:`BatchTask` per batch of consecutive units: each unit's exact points and
packed sign vectors, de-duplicated, partitioned by bucket into one compressed file; the
batches run in waves, and after each wave but the last one :class:`GroupTask` per bucket
group merges the wave's files into the group's merged file.  Phase 2, one
:class:`GroupTask` per bucket group: the first occurrence (in unit order) of each sign
vector, sorted, one Parquet shard per bucket.  See docs/enumeration-at-scale.md.

Examples
--------
>>> K, P = unit_rows(((1, 0), (0, 1)), (), True, None)
>>> len(K), P.shape[1]
(4, 2)
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from logitgeom.geometry import search
from logitgeom.geometry.arrangement import exact as ex
from logitgeom.geometry.arrangement import pack_signs
from logitgeom.geometry.stream import plan as tunables  # FLUSH_ROWS read at run time
from logitgeom.geometry.stream.codec import (
    BatchWriter,
    batch_path,
    encode,
    key_order,
    merged_name,
    read_buckets,
    shard_path,
    write_shard_file,
)
from logitgeom.geometry.stream.manifest import MANIFEST, Recorder, step_summary, steps
from logitgeom.geometry.stream.plan import Setup, plan_batches, plan_groups, plan_waves, unit_bounds
from logitgeom.geometry.stream.progress import (
    Phase1,
    Phase2,
    record_batch,
    record_group,
    record_merge,
    record_plan,
    record_wave_merged,
)
from logitgeom.run.executor import run_units, worker_count
from logitgeom.run.state import write_json
from logitgeom.run.worker import one_blas_thread, task_peak_kb, task_rss0_kb, task_start

__all__ = ["BatchTask", "GroupTask", "load_plan", "unit_rows", "run_batch", "run_group",
           "first_rows", "merge_group", "write_shard", "phase1", "phase2", "merge_wave",
           "ensure_groups"]

_PLAN_CACHE: dict[tuple[str, int], tuple[tuple, list]] = {}


def load_plan(work: str) -> tuple[tuple, list[tuple[int, ...]]]:
    """The hyperplanes and unit paths of a run (``work/plan.json``), read once per worker
    process: tasks carry paths and indices, not the arrangement."""
    path = Path(work) / "plan.json"
    key = (str(path), path.stat().st_mtime_ns)
    if key not in _PLAN_CACHE:
        doc = json.loads(path.read_text())
        _PLAN_CACHE.clear()
        _PLAN_CACHE[key] = (tuple(tuple(h) for h in doc["hyperplanes"]),
                            [tuple(p) for p in doc["units"]])
    return _PLAN_CACHE[key]


@dataclass(frozen=True)
class BatchTask:
    """Phase 1 of units lo..hi-1: one phase-1 file, ``work/b<index>.bin``."""

    index: int
    lo: int  # units lo..hi-1
    hi: int
    work: str
    exact: bool
    keep: tuple[int, int] | None  # affine: (hyperplane, orientation) that must be positive
    buckets: int
    flush_rows: int


def unit_rows(Hc: tuple, path: tuple[int, ...], exact: bool,
              keep: tuple[int, int] | None) -> tuple:
    """Packed sign words and shrunk exact points of one unit (de-duplicated within it)."""
    if not Hc:  # no hyperplane: one region, the origin witnesses it
        return pack_signs(np.zeros((1, 0), dtype=np.int8)), np.zeros((1, 0), dtype=np.int64)
    P, K = search.unit_rows(Hc, path, exact)
    if keep is not None and len(P):
        c, o = keep
        plus = (K[:, c // 64] >> np.uint64(c % 64)) & np.uint64(1)
        ok = plus == (1 if o > 0 else 0)
        P, K = P[ok], K[ok]
    if P.dtype == np.int64 and len(P):  # in place, block by block (rows independent)
        A = ex.normals(Hc)
        for lo in range(0, len(P), search.ROW_BLOCK):
            P[lo:lo + search.ROW_BLOCK] = search.shrink(P[lo:lo + search.ROW_BLOCK],
                                                        K[lo:lo + search.ROW_BLOCK], A)
    return K, P


def run_batch(task: BatchTask) -> dict[str, Any]:
    """Phase 1 of a batch of consecutive units: one compressed file partitioned by bucket.
    Returns per-unit rows, wall and CPU seconds, and the file's bytes.  Any worker."""
    one_blas_thread()
    task_start()
    t0 = time.process_time()
    Hc, plan = load_plan(task.work)
    out = BatchWriter(task.buckets, task.flush_rows)
    units = {}
    for u in range(task.lo, task.hi):
        c0, w0 = time.process_time(), time.perf_counter()
        K, P = unit_rows(Hc, plan[u], task.exact, task.keep)
        out.add(K, P)
        units[str(u)] = {"rows": int(len(K)), "seconds": round(time.perf_counter() - w0, 6),
                         "cpu": round(time.process_time() - c0, 6), "path": list(plan[u])}
        del K, P
    size = out.commit(batch_path(task.work, task.index))
    return {"units": units, "bytes": size, "cpu": time.process_time() - t0,
            "maxrss_kb": task_peak_kb(), "rss0_kb": task_rss0_kb()}


@dataclass(frozen=True)
class GroupTask:
    """Phase 2 (or a wave's merge) of buckets lo..hi-1 over the batch files blo..bhi-1."""

    lo: int  # buckets lo..hi-1
    hi: int
    blo: int  # the batch files blo..bhi-1 (in batch order = unit order) ...
    bhi: int
    work: str
    shards: str
    cols: tuple[int, ...]
    D: int
    #: ... after the rows of earlier waves merged into this file of ``work`` (if any)
    merged: str | None = None
    #: write a merged file of this name in ``work`` instead of the Parquet shards
    into: str | None = None
    buckets: int = 0  # of the run (the merged file's header)


def run_group(task: GroupTask) -> dict[str, Any]:
    """Phase 2 of consecutive buckets: for each, the first occurrence (in unit order) of
    each sign vector, sorted, one Parquet shard.  Reads only these buckets' bytes of each
    phase-1 file (the merged file of earlier waves first: earlier units).  With ``into``:
    the same rows written as one merged file instead (the merge after a wave)."""
    one_blas_thread()
    task_start()
    t0 = time.process_time()
    parts: list[list[tuple[np.ndarray, np.ndarray]]] = [[] for _ in range(task.hi - task.lo)]
    files = [Path(task.work) / task.merged] if task.merged else []
    files += [batch_path(task.work, i) for i in range(task.blo, task.bhi)]
    for f in files:  # unit order
        for p, frames in enumerate(read_buckets(f, task.lo, task.hi)):
            parts[p] += frames
    if task.into is not None:
        return merge_group(task, parts, t0)
    done = {}
    for p in range(task.hi - task.lo):
        c0, w0 = time.process_time(), time.perf_counter()
        frames, parts[p] = parts[p], []
        n = write_shard(task, task.lo + p, frames)
        done[str(task.lo + p)] = {"rows": n, "seconds": round(time.perf_counter() - w0, 6),
                                  "cpu": round(time.process_time() - c0, 6)}
    return {"buckets": done, "cpu": time.process_time() - t0,
            "maxrss_kb": task_peak_kb(), "rss0_kb": task_rss0_kb()}


def first_rows(frames: list, ncols: int) -> tuple[np.ndarray, np.ndarray]:
    """The rows of ``frames`` (in unit order) sorted by sign words, keeping the first of
    each run of equal words (the one of the smallest unit)."""
    if frames:
        K = np.concatenate([k for k, _ in frames])
        Ps = [p for _, p in frames]
        P = np.concatenate([p.astype(object) for p in Ps] if any(
            p.dtype == object for p in Ps) else Ps)
    else:
        K = np.zeros((0, 1), dtype=np.uint64)
        P = np.zeros((0, ncols), dtype=np.int64)
    del frames
    order = key_order(K)  # stable: equal keys stay in unit order
    K, P = K[order], P[order]
    first = np.ones(len(K), dtype=bool)
    if len(K) > 1:
        first[1:] = np.any(K[1:] != K[:-1], axis=1)
    return K[first], P[first]


def merge_group(task: GroupTask, parts: list, t0: float) -> dict[str, Any]:
    """The merge after a wave: each bucket's distinct rows (first in unit order), sorted,
    as one frame of the merged file ``task.into`` (same layout as a batch file)."""
    out = BatchWriter(task.buckets, 0)
    rows = 0
    for p in range(task.hi - task.lo):
        frames, parts[p] = parts[p], []
        K, P = first_rows(frames, len(task.cols))
        rows += len(K)
        if len(K):
            out.frames[task.lo + p].append(encode(K, P))
    size = out.commit(Path(task.work) / task.into)
    return {"rows": rows, "bytes": size, "cpu": time.process_time() - t0,
            "maxrss_kb": task_peak_kb(), "rss0_kb": task_rss0_kb()}


def write_shard(task: GroupTask, bucket: int, frames: list) -> int:
    """The first occurrence of each sign vector of ``frames`` (unit order), sorted, with
    witnesses in the input's D coordinates, as the Parquet shard of ``bucket``."""
    K, P = first_rows(frames, len(task.cols))
    del frames
    X = np.zeros((len(P), task.D), dtype=P.dtype)
    if X.dtype == object:
        X[:] = 0
    if len(task.cols):
        X[:, list(task.cols)] = P
    write_shard_file(shard_path(task.shards, bucket), K, X, task.D)
    return int(len(K))


def phase1(root: Path, man: dict, st: Setup, executor: Any, progress: bool | None,
           keep_work: bool = False) -> None:
    """Phase 1, wave by wave: the batch tasks not yet recorded, then each wave's merge."""
    work = root / "work"
    work.mkdir(exist_ok=True)
    Hc = tuple(tuple(h) for h in man["arrangement"]["hyperplanes"])
    est = unit_bounds(Hc, man["units"])
    if "batches" not in man:
        batches = plan_batches(est, st.expected, worker_count(executor))
        record_plan(man, batches, plan_waves(len(batches), st.expected))
        write_json(root / MANIFEST, man)
    plan_file = work / "plan.json"
    if not plan_file.exists():
        write_json(plan_file, {"hyperplanes": man["arrangement"]["hyperplanes"],
                                 "units": man["units"]})
    exact = man["mode"] == "exact"
    p1 = Phase1.of(man)
    keep = {merged_name(lo, w) for lo, w in p1.merged.items()}
    first_live = p1.first_live()
    for name in os.listdir(work):  # leftovers of a killed run: never read as done
        if name.startswith(".tmp-") or (
                name.startswith("b") and name.endswith(".bin")
                and (int(name[1:7]) not in p1.done
                     or (int(name[1:7]) < first_live and not keep_work))) or (
                name.startswith("m") and name.endswith(".bin") and name not in keep
                and not keep_work):
            os.remove(work / name)
    rec = Recorder(root, man)
    wall = 0.0
    found = [0]

    def post(v: dict) -> dict:
        found[0] += sum(u["rows"] for u in v["units"].values())
        return {"rows": found[0]}  # witnessed rows so far (before the global de-dup)

    for w in range(p1.waves_merged, len(p1.waves)):
        p1 = Phase1.of(man)
        tasks = [BatchTask(i, *p1.batches[i], str(work), exact, st.keep, man["buckets"],
                           tunables.FLUSH_ROWS) for i in p1.pending(w)]
        if executor is not None:  # biggest first (by the generic bound): shorter tail
            size = {i: est[lo:hi].sum() for i, (lo, hi) in enumerate(p1.batches)}
            tasks.sort(key=lambda t: -size[t.index])
        found[0] = p1.rows_found()
        w0 = time.perf_counter()
        for r in run_units(run_batch, tasks, executor=executor, progress=progress,
                           desc="phase 1" if len(p1.waves) == 1 else
                           f"phase 1, wave {w + 1}/{len(p1.waves)}", postfix=post):
            record_batch(man, tasks[r.index].index, r.value, r.seconds)
            rec.tick("phase1", len(man["batches_done"]))
        wall += time.perf_counter() - w0
        if tasks:
            steps(man)["phase1"] = step_summary(man["batches_done"], wall)
        rec.tick("phase1", len(man["batches_done"]), force=True)
        if w < len(p1.waves) - 1:
            merge_wave(root, man, w, executor, progress, keep_work, rec)


def ensure_groups(root: Path, man: dict, expected: int, executor: Any) -> None:
    """Bucket groups, planned once: from the phase-1 rows of a single wave, or, with
    several waves, from the first wave's rows (a quarter more) plus the regions the merged
    files will hold (at most the count)."""
    if "groups" in man:
        return
    p1 = Phase1.of(man)
    rows = p1.rows_found()
    if len(p1.waves) > 1:
        rows = expected + rows + rows // 4
    man["groups"] = plan_groups(man["buckets"], rows, worker_count(executor))
    write_json(root / MANIFEST, man)


def merge_wave(root: Path, man: dict, w: int, executor: Any, progress: bool | None,
                keep_work: bool, rec: Recorder) -> None:
    """Merge the phase-1 files of wave ``w`` into the merged files of the earlier waves
    (one task per bucket group; first occurrence in unit order kept), then delete them."""
    ensure_groups(root, man, int(man["exact_count"]), executor)
    work = root / "work"
    p1 = Phase1.of(man)
    blo, bhi = p1.waves[w]
    tasks = []
    for lo, hi in Phase2.of(man).groups:
        prev = p1.merged.get(lo)
        if prev is not None and prev >= w:
            continue
        tasks.append(GroupTask(lo, hi, blo, bhi, str(work), "", (), 0,
                                merged=None if prev is None else merged_name(lo, prev),
                                into=merged_name(lo, w), buckets=man["buckets"]))
    w0 = time.perf_counter()
    for r in run_units(run_group, tasks, executor=executor, progress=progress,
                       desc=f"merge, wave {w + 1}/{len(p1.waves)}"):
        t = tasks[r.index]
        record_merge(man, w, t.lo, r.value, r.seconds)
        if t.merged and not keep_work:
            rec.pending.append(work / t.merged)
        rec.tick("merge", len(man["merges_done"]))
    if tasks:
        steps(man)["merge"] = step_summary(man["merges_done"], time.perf_counter() - w0)
    record_wave_merged(man, w)
    if not keep_work:
        rec.pending += [batch_path(work, i) for i in range(blo, bhi)]
    rec.tick("merge", len(man.get("merges_done", {})), force=True)

def phase2(root: Path, man: dict, st: Setup, executor: Any, progress: bool | None,
           keep_work: bool = False) -> None:
    """Phase 2: one task per bucket group not yet written, each writing its shards."""
    shards = root / "shards"
    shards.mkdir(exist_ok=True)
    for name in os.listdir(shards):
        if name.startswith("."):
            os.remove(shards / name)
    ensure_groups(root, man, st.expected, executor)
    p1, p2 = Phase1.of(man), Phase2.of(man)
    blo = p1.first_live() if "waves" in man else 0
    tasks = [GroupTask(lo, hi, blo, len(p1.batches), str(root / "work"), str(shards),
                        tuple(man["arrangement"]["cols"]), man["arrangement"]["D"],
                        merged=None if lo not in p1.merged else merged_name(lo, p1.merged[lo]))
             for lo, hi in p2.pending()]
    found = [p2.rows]

    def post(v: dict) -> dict:
        found[0] += sum(b["rows"] for b in v["buckets"].values())
        return {"regions": found[0]}

    rec = Recorder(root, man)
    w0 = time.perf_counter()
    for r in run_units(run_group, tasks, executor=executor, progress=progress,
                       desc="phase 2", postfix=post):
        t = tasks[r.index]
        record_group(man, t.lo, r.value, r.seconds)
        if t.merged and not keep_work:  # its rows are in the shards now
            rec.pending.append(root / "work" / t.merged)
        rec.tick("phase2", len(man["groups_done"]))
    if tasks:
        steps(man)["phase2"] = step_summary(man["groups_done"], time.perf_counter() - w0)
    rec.tick("phase2", len(man.get("groups_done", {})), force=True)
