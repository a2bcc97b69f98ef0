"""Enumeration past one machine: compact, streamed, resumable and distributed region sets.

:func:`enumerate_to_dir` enumerates the sign patterns (or rankings) of a head into a
directory instead of memory; :func:`open_result` opens such a directory lazily.  The
directory (format ``logitgeom-regions``, version 2; see docs/enumeration-at-scale.md)::

    DIR/manifest.json          input, its hash, the exact Zaslavsky count, the unit plan,
                               finished units and shards (with durations), rows written,
                               the completeness verdict
    DIR/shards/part-00007.parquet
                               one shard per hash bucket: columns ``signs`` (the sign
                               vector on the distinct hyperplanes, bit-packed into uint64
                               words) and ``witness`` (an exact integer point), sorted by
                               ``signs``
    DIR/work/b000012.bin       phase-1 output of one batch of consecutive work units,
                               partitioned by bucket and compressed (removed once merged,
                               or at the end)
    DIR/work/m000040-0003.bin  the distinct rows of the waves merged so far, for the
                               bucket group starting at bucket 40 (same layout)

How a run goes (every step exact, every step a set of independent tasks on the executor):

1. The exact Zaslavsky count, split into independent subtrees of its search
   (:func:`engine.geometry.counting.count_tasks`).  The arrangement is reduced to distinct
   hyperplanes (:func:`search.reduce_rows`) and split into work units, paths into the
   deletion-restriction recursion (:func:`search.plan_units`); consecutive units are
   grouped into batches (the tasks of phase 1).
2. Phase 1, one task per batch (any executor: serial, process pool, Dask): each unit's
   exact points and sign vectors, de-duplicated within the unit, witnesses shrunk, sign
   vectors packed into uint64 words; the batch keeps the first occurrence of each sign
   vector, partitions the rows by a hash of the words into ``buckets`` and writes one
   compressed file whose header gives each bucket's byte range (atomic rename).  The
   batches run in waves (consecutive batch ranges); after each wave but the last, one
   task per bucket group merges the wave's files into the group's merged file (first
   occurrence in unit order) and the wave's files are deleted: the phase-1 files on disk
   stay near the distinct rows found so far plus one wave.
3. Phase 2, one task per group of consecutive buckets: reads only its byte range of the
   merged file and of each batch file of the last wave, keeps the first occurrence (in
   unit order) of each sign vector, sorts, and
   writes one Parquet shard per bucket (atomic rename).  A sign vector lives in exactly
   one bucket, so shards are disjoint and no task holds more than its group in memory.
4. Certification, one task per group of shards (:meth:`StoredResult.certify`): every
   witness reproduces its sign vector exactly, sign vectors are strictly increasing within
   a shard and hash to the shard's bucket (so all rows are distinct); combined at the end:
   the number of rows equals the exact Zaslavsky count, so the set is complete.

A run killed at any point restarts from the batches, shards and shard checks the manifest
records as finished (``resume=True``); half-written files never have their final names.

Examples
--------
>>> import tempfile
>>> d = tempfile.mkdtemp()
>>> r = enumerate_to_dir([[1, 0], [0, 1], [1, 1]], d, progress=False)
>>> r.count, r.exact_count, r.completeness
(6, 6, 'zaslavsky')
>>> sorted(p for p, _ in r)[0]
(-1, -1, -1)
>>> r.lookup((1, -1, 1))
(Fraction(2, 1), Fraction(-1, 1))
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import shutil
import struct
import time
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from engine._fsio import write_atomic
from engine.errors import EngineError, InvalidInput
from engine.exact.lattice import count_rankings_exact
from engine.exact.numbers import matrix_to_str, to_matrix, to_vector, vector_to_str
from engine.geometry import search
from engine.geometry.arrangement import exact as ex
from engine.geometry.arrangement import pack_signs, unpack_signs
from engine.geometry.cosine import difference_pairs
from engine.geometry.counting import count_regions_parallel
from engine.geometry.patterns import arrangement_rows, rankings_from_pairs
from engine.run.executor import run_units

__all__ = ["enumerate_to_dir", "open_result", "StoredResult", "FORMAT", "VERSION",
           "DEFAULT_SHARD_ROWS", "default_units"]

FORMAT = "logitgeom-regions"
#: 2: ranking pair rows in the checker's order (``difference_pairs``); version 1 listed them
#: by j then i, so of version 1 only sign directories are still read (and resumed)
VERSION = 2
#: target rows per shard (and so per bucket): the memory a phase-2 task needs
DEFAULT_SHARD_ROWS = 250_000
#: expected regions per work unit when the caller gives no unit count
REGIONS_PER_UNIT = 20_000
#: at most this many units by default
MAX_DEFAULT_UNITS = 4096
#: the manifest is rewritten at most this often while units finish (and at the end)
MANIFEST_INTERVAL = 0.5
MANIFEST = "manifest.json"
#: rows checked at once by the streamed certification
CERTIFY_BLOCK = 1 << 15


def default_units(expected: int) -> int:
    """Target number of work units for an enumeration of ``expected`` regions.

    A function of the input only (never of the executor), so the witnesses, which depend
    on the unit plan, are the same for every executor.

    Examples
    --------
    >>> default_units(1_000), default_units(3_628_800)
    (1, 181)
    """
    return max(1, min(MAX_DEFAULT_UNITS, expected // REGIONS_PER_UNIT))


# ----------------------------------------------------------------------------- keys


_M1, _M2, _GOLD = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB), \
    np.uint64(0x9E3779B97F4A7C15)


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser (uint64 arithmetic wraps modulo 2^64 by design)."""
    z = x + _GOLD
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


def bucket_of(K: np.ndarray, buckets: int) -> np.ndarray:
    """The hash bucket (0..buckets-1) of each row of packed sign words K (n x w uint64).

    Examples
    --------
    >>> bucket_of(np.array([[5], [0]], dtype=np.uint64), 4).tolist()
    [2, 3]
    """
    h = np.zeros(K.shape[0], dtype=np.uint64)
    with np.errstate(over="ignore"):
        for w in range(K.shape[1]):
            h = _mix(h ^ K[:, w])
    return (h % np.uint64(buckets)).astype(np.int64)


def _key_order(K: np.ndarray) -> np.ndarray:
    """Stable order of rows of K by their words (word 0 first)."""
    if K.shape[0] == 0:
        return np.zeros(0, dtype=np.intp)
    return np.lexsort(K.T[::-1])


# ----------------------------------------------------------------------------- files


def _atomic_json(path: Path, obj: Any) -> None:
    write_atomic(path, json.dumps(obj, indent=1, sort_keys=True) + "\n")  # engine._fsio


#: layout of the phase-1 files (``work/b<batch>.bin``); a run whose manifest records
#: another layout redoes phase 1
WORK_FORMAT = 3
_MAGIC = b"LGW2"
#: frame header: rows, words per key, D, point dtype code, raw bytes, compressed bytes
_FRAME = struct.Struct("<qiiBqq")
_PDTYPES = (np.int8, np.int16, np.int32, np.int64)
_CODEC = "zstd"

_BLAS_ONCE: list[Any] = []


def _one_blas_thread() -> None:
    """One BLAS thread in this worker process, set once (not per task).

    The products inside a unit are small (points x up to 127 normals); parallelism comes
    from the tasks, and OpenBLAS's spinning helper threads otherwise cost about a third
    more CPU (resonance-6, docs/enumeration-at-scale.md).  In the driver the whole run is
    already inside a ``threadpool_limits`` block, which restores the user's setting."""
    if not _BLAS_ONCE:
        from threadpoolctl import threadpool_limits

        _BLAS_ONCE.append(threadpool_limits(limits=1, user_api="blas"))
        _malloc_defaults()


def _task_start() -> None:
    """Start a task's memory measurement in a worker process: reset the process's peak-RSS
    mark (Linux ``/proc/self/clear_refs``, value 5), so that :func:`_task_peak_kb` read at
    the task's end is the peak of this task, not of every task the worker ran before (nor
    of the pages a forked worker inherited and later freed); glibc's free heap is
    returned to the system first (``malloc_trim``), so the peak is the worker's live
    memory plus what this task adds.  Not done in the driver (a
    serial run): there the process peak of the whole run is what a caller measures."""
    import multiprocessing

    if multiprocessing.parent_process() is None and not _in_dask_worker():
        _TASK_RSS0[:] = [_status_kb("VmRSS:")]
        return
    try:  # hand the heap the previous task freed back to the system first (glibc)
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # pragma: no cover - not glibc
        pass
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:  # pragma: no cover - not Linux, or not permitted
        pass
    _TASK_RSS0[:] = [_status_kb("VmRSS:")]


#: the resident memory (KiB) of this process when the current task started
_TASK_RSS0: list[int] = [0]


def _status_kb(key: str) -> int:
    """A ``/proc/self/status`` figure in KiB (0 where /proc is missing)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(key):
                    return int(line.split()[1])
    except OSError:  # pragma: no cover - not Linux
        pass
    return 0


def _in_dask_worker() -> bool:
    """Whether this process is a Dask worker (tasks run there as in a pool worker)."""
    import sys

    if "distributed" not in sys.modules:
        return False
    try:
        from distributed import get_worker

        get_worker()
        return True
    except (ImportError, ValueError):
        return False


def _task_peak_kb() -> int:
    """The peak resident memory (KiB) of this process since :func:`_task_start`
    (``VmHWM``; ``ru_maxrss``, the process's lifetime peak, where /proc is missing)."""
    return _status_kb("VmHWM:") or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _malloc_defaults() -> None:
    """Undo ``MALLOC_TRIM_THRESHOLD_`` in this process (Dask's nannies set it to 64 KiB in
    every worker's environment): it freezes glibc's mmap threshold at 128 KiB, so every
    array the tasks allocate and free is mapped and unmapped again; measured on a
    resonance-6 batch: 17 times the page faults and 3 times the system CPU of the same
    task in a process-pool worker.  Sets the trim threshold to 128 MiB and the mmap
    threshold to 32 MiB (glibc's own ceiling); does nothing outside glibc or when the
    variable is not set."""
    if "MALLOC_TRIM_THRESHOLD_" not in os.environ:
        return
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        libc.mallopt(-1, 128 << 20)  # M_TRIM_THRESHOLD
        libc.mallopt(-3, 32 << 20)  # M_MMAP_THRESHOLD
    except (OSError, AttributeError):  # pragma: no cover - not glibc
        pass


def _encode(K: np.ndarray, P: np.ndarray) -> bytes:
    """One compressed frame of rows: packed sign words and points in the narrowest integer
    type that holds them (decimal strings beyond int64)."""
    import pyarrow as pa

    n, w = K.shape
    D = P.shape[1] if P.ndim == 2 else 0
    if P.dtype == object:
        code, pb = 255, json.dumps([str(int(v)) for v in P.ravel()]).encode()
    else:
        lo, hi = (int(P.min()), int(P.max())) if P.size else (0, 0)
        code = next(i for i, t in enumerate(_PDTYPES)
                    if np.iinfo(t).min <= lo and hi <= np.iinfo(t).max)
        pb = np.ascontiguousarray(P, dtype=_PDTYPES[code]).tobytes()
    raw = np.ascontiguousarray(K, dtype=np.uint64).tobytes() + pb
    comp = pa.Codec(_CODEC).compress(raw, asbytes=True)
    return _FRAME.pack(n, w, D, code, len(raw), len(comp)) + comp


def _decode(buf: bytes | memoryview, pos: int) -> tuple[np.ndarray, np.ndarray, int]:
    import pyarrow as pa

    n, w, D, code, rawlen, complen = _FRAME.unpack_from(buf, pos)
    pos += _FRAME.size
    raw = pa.Codec(_CODEC).decompress(buf[pos:pos + complen], decompressed_size=rawlen,
                                      asbytes=True)
    kb = 8 * n * w
    K = np.frombuffer(raw, dtype=np.uint64, count=n * w).reshape(n, w)
    if code == 255:
        P = np.array([int(v) for v in json.loads(raw[kb:])], dtype=object).reshape(n, D)
    else:
        P = np.frombuffer(raw, dtype=_PDTYPES[code], offset=kb).reshape(n, D).astype(np.int64)
    return K, P, pos + complen


class _BatchWriter:
    """Rows of consecutive units, partitioned by bucket, compressed.

    Uncompressed rows are held until ``flush_rows`` of them are buffered; then the first
    occurrence (in unit order) of each sign vector among them is kept, sorted by bucket
    and sign vector, and written as one compressed frame per bucket; the file holds,
    after a header of byte offsets per bucket, each bucket's frames one after another.  A
    phase-2 task reads only its buckets' byte range (two reads per file)."""

    def __init__(self, buckets: int, flush_rows: int) -> None:
        self.B, self.flush_rows = buckets, flush_rows
        self.pending: list[tuple[np.ndarray, np.ndarray]] = []
        self.npending = 0
        self.frames: list[list[bytes]] = [[] for _ in range(buckets)]

    def add(self, K: np.ndarray, P: np.ndarray) -> None:
        """Buffer rows; a flush never holds more than ``flush_rows`` rows (a big unit is
        written in slices: the frames differ, the rows phase 2 keeps do not)."""
        n = len(K)
        while len(K):
            take = len(K) if self.flush_rows <= 0 else min(
                len(K), max(self.flush_rows - self.npending, 1))
            k, p = K[:take], P[:take]
            if take < n:  # a slice left pending must not keep the whole unit alive
                k, p = k.copy(), p.copy()
            self.pending.append((k, p))
            self.npending += take
            K, P = K[take:], P[take:]
            if self.npending >= self.flush_rows:
                self.flush()

    def flush(self) -> None:
        if not self.pending:
            return
        Ps = [p for _, p in self.pending]
        K = np.concatenate([k for k, _ in self.pending])
        P = np.concatenate([p.astype(object) for p in Ps] if any(
            p.dtype == object for p in Ps) else Ps)
        self.pending, self.npending = [], 0
        b = bucket_of(K, self.B)
        # by bucket, then by words; stable: equal words stay in unit order, and only the
        # first (the one phase 2 would keep) is written
        order = np.lexsort((*K.T[::-1], b))
        K, P, b = K[order], P[order], b[order]
        if len(K) > 1:
            first = np.ones(len(K), dtype=bool)
            first[1:] = np.any(K[1:] != K[:-1], axis=1)
            K, P, b = K[first], P[first], b[first]
        cut = np.searchsorted(b, np.arange(self.B + 1))
        for p in np.flatnonzero(np.diff(cut)):
            lo, hi = cut[p], cut[p + 1]
            self.frames[p].append(_encode(K[lo:hi], P[lo:hi]))

    def commit(self, final: Path) -> int:
        """Write the file (temporary name, then an atomic rename); returns its bytes."""
        self.flush()
        head = len(_MAGIC) + 8 + 8 * (self.B + 1)
        sizes = np.array([sum(len(f) for f in fr) for fr in self.frames], dtype=np.int64)
        offsets = head + np.concatenate([[0], np.cumsum(sizes)]).astype("<i8")
        tmp = final.with_name(f".tmp-{final.name}-{uuid.uuid4().hex}")
        with open(tmp, "wb") as fh:
            fh.write(_MAGIC + struct.pack("<q", self.B) + offsets.tobytes())
            for fr in self.frames:
                for f in fr:
                    fh.write(f)
        os.replace(tmp, final)  # the commit point of the batch
        return int(offsets[-1])


def _batch_path(work: str | Path, index: int) -> Path:
    return Path(work) / f"b{index:06d}.bin"


def _read_buckets(path: Path, lo: int, hi: int) -> list[list[tuple[np.ndarray, np.ndarray]]]:
    """The frames of buckets lo..hi-1 of one phase-1 file (two reads)."""
    with open(path, "rb") as fh:
        fd = fh.fileno()
        head = os.pread(fd, len(_MAGIC) + 8, 0)
        if head[:4] != _MAGIC:
            raise EngineError(f"{path}: not a phase-1 file of this engine version")
        off = np.frombuffer(os.pread(fd, 8 * (hi - lo + 1), len(_MAGIC) + 8 + 8 * lo), "<i8")
        base = int(off[0])
        buf = memoryview(os.pread(fd, int(off[-1]) - base, base))
    out = []
    for p in range(hi - lo):
        pos, end, frames = int(off[p]) - base, int(off[p + 1]) - base, []
        while pos < end:
            K, P, pos = _decode(buf, pos)
            frames.append((K, P))
        out.append(frames)
    return out


_PLAN_CACHE: dict[tuple[str, int], tuple[tuple, list]] = {}


def _load_plan(work: str) -> tuple[tuple, list[tuple[int, ...]]]:
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
class _BatchTask:
    index: int
    lo: int  # units lo..hi-1
    hi: int
    work: str
    exact: bool
    keep: tuple[int, int] | None  # affine: (hyperplane, orientation) that must be positive
    buckets: int
    flush_rows: int


def _unit_rows(Hc: tuple, path: tuple[int, ...], exact: bool, keep) -> tuple:
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


def _run_batch(task: _BatchTask) -> dict[str, Any]:
    """Phase 1 of a batch of consecutive units: one compressed file partitioned by bucket.
    Returns per-unit rows, wall and CPU seconds, and the file's bytes.  Any worker."""
    _one_blas_thread()
    _task_start()
    t0 = time.process_time()
    Hc, plan = _load_plan(task.work)
    out = _BatchWriter(task.buckets, task.flush_rows)
    units = {}
    for u in range(task.lo, task.hi):
        c0, w0 = time.process_time(), time.perf_counter()
        K, P = _unit_rows(Hc, plan[u], task.exact, task.keep)
        out.add(K, P)
        units[str(u)] = {"rows": int(len(K)), "seconds": round(time.perf_counter() - w0, 6),
                         "cpu": round(time.process_time() - c0, 6), "path": list(plan[u])}
        del K, P
    size = out.commit(_batch_path(task.work, task.index))
    return {"units": units, "bytes": size, "cpu": time.process_time() - t0,
            "maxrss_kb": _task_peak_kb(), "rss0_kb": _TASK_RSS0[0]}


@dataclass(frozen=True)
class _GroupTask:
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


def _shard_path(shards: str | Path, bucket: int) -> Path:
    return Path(shards) / f"part-{bucket:05d}.parquet"


def _run_group(task: _GroupTask) -> dict[str, Any]:
    """Phase 2 of consecutive buckets: for each, the first occurrence (in unit order) of
    each sign vector, sorted, one Parquet shard.  Reads only these buckets' bytes of each
    phase-1 file (the merged file of earlier waves first: earlier units).  With ``into``:
    the same rows written as one merged file instead (the merge after a wave)."""
    _one_blas_thread()
    _task_start()
    t0 = time.process_time()
    parts: list[list[tuple[np.ndarray, np.ndarray]]] = [[] for _ in range(task.hi - task.lo)]
    files = [Path(task.work) / task.merged] if task.merged else []
    files += [_batch_path(task.work, i) for i in range(task.blo, task.bhi)]
    for f in files:  # unit order
        for p, frames in enumerate(_read_buckets(f, task.lo, task.hi)):
            parts[p] += frames
    if task.into is not None:
        return _merge_group(task, parts, t0)
    done = {}
    for p in range(task.hi - task.lo):
        c0, w0 = time.process_time(), time.perf_counter()
        frames, parts[p] = parts[p], []
        n = _write_shard(task, task.lo + p, frames)
        done[str(task.lo + p)] = {"rows": n, "seconds": round(time.perf_counter() - w0, 6),
                                  "cpu": round(time.process_time() - c0, 6)}
    return {"buckets": done, "cpu": time.process_time() - t0,
            "maxrss_kb": _task_peak_kb(), "rss0_kb": _TASK_RSS0[0]}


def _first_rows(frames: list, ncols: int) -> tuple[np.ndarray, np.ndarray]:
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
    order = _key_order(K)  # stable: equal keys stay in unit order
    K, P = K[order], P[order]
    first = np.ones(len(K), dtype=bool)
    if len(K) > 1:
        first[1:] = np.any(K[1:] != K[:-1], axis=1)
    return K[first], P[first]


def _merge_group(task: _GroupTask, parts: list, t0: float) -> dict[str, Any]:
    """The merge after a wave: each bucket's distinct rows (first in unit order), sorted,
    as one frame of the merged file ``task.into`` (same layout as a batch file)."""
    out = _BatchWriter(task.buckets, 0)
    rows = 0
    for p in range(task.hi - task.lo):
        frames, parts[p] = parts[p], []
        K, P = _first_rows(frames, len(task.cols))
        rows += len(K)
        if len(K):
            out.frames[task.lo + p].append(_encode(K, P))
    size = out.commit(Path(task.work) / task.into)
    return {"rows": rows, "bytes": size, "cpu": time.process_time() - t0,
            "maxrss_kb": _task_peak_kb(), "rss0_kb": _TASK_RSS0[0]}


def _write_shard(task: _GroupTask, bucket: int, frames: list) -> int:
    import pyarrow as pa
    import pyarrow.parquet as pq

    K, P = _first_rows(frames, len(task.cols))
    del frames
    X = np.zeros((len(P), task.D), dtype=P.dtype)
    if X.dtype == object:
        X[:] = 0
    if len(task.cols):
        X[:, list(task.cols)] = P
    w = K.shape[1]
    signs = pa.FixedSizeListArray.from_arrays(pa.array(K.ravel(), type=pa.uint64()), w)
    if X.dtype == object:
        flat = pa.array([str(int(v)) for v in X.ravel()], type=pa.string())
    else:
        flat = pa.array(X.ravel(), type=pa.int64())
    wit = pa.FixedSizeListArray.from_arrays(flat, task.D) if task.D else pa.array(
        [[] for _ in range(len(X))], type=pa.list_(pa.int64()))
    table = pa.table({"signs": signs, "witness": wit})
    final = _shard_path(task.shards, bucket)
    tmp = final.with_name(f".{final.name}.{uuid.uuid4().hex}.tmp")
    pq.write_table(table, tmp, compression="zstd")
    os.replace(tmp, final)  # the commit point of the shard
    return int(len(K))


# ----------------------------------------------------------------------------- inputs


def _check_version(root: Path, man: dict[str, Any]) -> None:
    v = man.get("version")
    if v != VERSION and not (v == 1 and man.get("kind") == "sign"):
        raise InvalidInput(f"{root}: {FORMAT} version {v!r} of a {man.get('kind')} result is "
                           f"not supported (this engine reads version {VERSION}, and version 1 "
                           "sign results); remove the directory and enumerate again")


def _input_doc(kind: str, Wm, b) -> dict[str, Any]:
    return {"kind": kind, "W": matrix_to_str(Wm),
            "bias": None if b is None else vector_to_str(b)}


def _input_hash(doc: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


@dataclass(frozen=True)
class _Setup:
    kind: str
    Wm: tuple
    b: tuple | None
    red: search.Reduced
    expected: int | None
    keep: tuple[int, int] | None


def _setup(kind: str, W: object, bias: object, executor: Any = None,
           count: bool = True) -> _Setup:
    if kind not in ("sign", "ranking"):
        raise InvalidInput(f"kind must be 'sign' or 'ranking'; got {kind!r}")
    Wm = to_matrix(W, what="W")
    b = None if bias is None else to_vector(bias, what="bias", length=len(Wm))
    rows = arrangement_rows(kind, Wm, b)
    red = search.reduce_rows(rows)
    keep = red.where[-1] if b is not None else None
    st = _Setup(kind, Wm, b, red, None, keep)
    return _counted(st, executor) if count else st


def _counted(st: _Setup, executor: Any, stats: dict | None = None) -> _Setup:
    """The exact Zaslavsky count: sign patterns as parallel tasks on the executor (the
    search splits into independent subtrees), rankings by the ranking formula (cheap)."""
    from dataclasses import replace

    if st.kind == "sign":
        n = count_regions_parallel(st.Wm, bias=st.b, executor=executor, stats=stats)
    else:
        n = count_rankings_exact(st.Wm, st.b)
    return replace(st, expected=n)


# ----------------------------------------------------------------------------- driver


#: the exact twin proposes the points of a streamed run when (bits of the largest entry) x
#: (dimension) is at most this; otherwise float proposals (every sign still exact)
STREAM_EXACT_BITS = 16


def _stream_exact(Hc: tuple) -> bool:
    """Whether phase 1 proposes points with the exact twin (speed only: every sign vector
    and every witness is exact either way, and a float run that misses a region is redone
    exactly).  The exact twin's points grow with the depth of the recursion: on the random
    56 x 7 head with entries in [-9, 9] (4 bits x 7 = 28) they exceed int64 inside the
    units and the exact twin took 5 to 8 times the CPU and 4 times the memory of float
    proposals on sampled units (docs/enumeration-at-scale.md), so the threshold is
    stricter than :func:`search.prefer_exact`'s (30, for the in-memory path, whose units
    are whole chunks).

    Examples
    --------
    >>> _stream_exact(((1, 0, 1), (0, 1, 1))), _stream_exact(((9, -4, 7, 1, 2, 3, 5),))
    (True, False)
    """
    if not Hc:
        return True
    bits = max(abs(v).bit_length() for r in Hc for v in r)
    return bits * len(Hc[0]) <= STREAM_EXACT_BITS



def enumerate_to_dir(
    W: object,
    out: str | os.PathLike,
    *,
    kind: str = "sign",
    bias: object = None,
    executor: Any = None,
    units: int | None = None,
    shard_rows: int = DEFAULT_SHARD_ROWS,
    progress: bool | None = None,
    resume: bool = True,
    keep_work: bool = False,
) -> StoredResult:
    """Enumerate every sign pattern (or ranking) of a head into a directory, exactly.

    Parameters
    ----------
    W : k x d matrix
        As for :func:`engine.geometry.sign_pattern` (exact conversion).
    out : path
        The result directory (created; a finished or interrupted run of the same input
        there is resumed, see ``resume``).
    kind : {"sign", "ranking"}
    bias : length-k vector, optional
    executor : None, concurrent.futures.Executor or distributed.Client
        Runs every step's tasks (see :func:`engine.run.executor.run_units`): the exact
        count, phase 1, phase 2 and the certification.  With a Dask cluster, ``out`` must
        be on a file system every worker sees.  The result does not depend on the
        executor.
    units : int, optional
        Target number of work units (default :func:`default_units` of the exact count).
    shard_rows : int
        Target rows per shard; bounds the memory of a phase-2 task.
    progress : bool, optional
        Progress bars over the steps, with regions found and an ETA.
    resume : bool
        Reuse the finished batches, shards and shard checks recorded in
        ``out/manifest.json`` (the input hash must match).  ``False`` starts afresh.
    keep_work : bool
        Keep the phase-1 files (for inspection).

    Returns
    -------
    StoredResult
        The opened directory (lazy), certified complete.

    Raises
    ------
    InvalidInput
        Bad input, or ``out`` holds a result of another input.
    """
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):  # small products: see _one_blas_thread
        return _enumerate_to_dir(W, out, kind, bias, executor, units, shard_rows, progress,
                                 resume, keep_work)


def _steps(man: dict) -> dict:
    return man.setdefault("steps", {})


def _enumerate_to_dir(W, out, kind, bias, executor, units, shard_rows, progress, resume,
                      keep_work) -> StoredResult:
    st = _setup(kind, W, bias, count=False)
    if isinstance(shard_rows, bool) or not isinstance(shard_rows, int) or shard_rows < 1:
        raise InvalidInput(f"shard_rows must be a positive integer; got {shard_rows!r}")
    if units is not None and (isinstance(units, bool) or not isinstance(units, int)
                              or units < 1):
        raise InvalidInput(f"units must be a positive integer; got {units!r}")
    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    doc = _input_doc(kind, st.Wm, st.b)
    digest = _input_hash(doc)
    mpath = root / MANIFEST
    man: dict[str, Any] | None = None
    if mpath.exists():
        try:
            man = json.loads(mpath.read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise InvalidInput(f"{mpath} is unreadable ({exc}); remove the directory") from exc
        if man.get("format") != FORMAT or man.get("input_sha256") != digest:
            raise InvalidInput(f"{root} holds a result of another input (or not a "
                               f"{FORMAT} directory); choose another --out or remove it")
        _check_version(root, man)
        if not resume:
            shutil.rmtree(root / "work", ignore_errors=True)
            shutil.rmtree(root / "shards", ignore_errors=True)
            man = None
        elif man.get("work_format") != WORK_FORMAT and not man.get("complete"):
            shutil.rmtree(root / "work", ignore_errors=True)  # an older layout: redo
            man.update(units_done={}, buckets_done={}, batches_done={}, certified={},
                       work_format=WORK_FORMAT)
            for key in ("batches", "groups", "groups_done", "waves", "waves_merged",
                        "merged", "merges_done"):
                man.pop(key, None)
    Hc = st.red.hyperplanes
    if man is None:
        c0, w0 = time.process_time(), time.perf_counter()
        cstats: dict = {}
        st = _counted(st, executor, cstats)
        count_step = {"cpu_driver": round(time.process_time() - c0, 3),
                      "wall": round(time.perf_counter() - w0, 3)}
        if executor is not None and cstats:  # serially the driver ran the tasks itself
            count_step["cpu_tasks"] = round(cstats["cpu_tasks"], 3)
        total = st.expected if st.b is None else 2 * st.expected
        target = default_units(total) if units is None else units
        plan = search.plan_units(Hc, target) if Hc else [()]
        man = {
            "format": FORMAT, "version": VERSION, "input": doc, "input_sha256": digest,
            "kind": kind, "k": len(st.Wm), "d": len(st.Wm[0]), "affine": st.b is not None,
            "exact_count": st.expected, "work_format": WORK_FORMAT,
            "arrangement": {"D": st.red.D, "cols": list(st.red.cols),
                            "where": [list(w) for w in st.red.where],
                            "hyperplanes": [list(h) for h in Hc]},
            "mode": "exact" if _stream_exact(Hc) else "float",
            "units": [list(p) for p in plan],
            "buckets": max(1, -(-st.expected // shard_rows)),
            "units_done": {}, "batches_done": {}, "buckets_done": {}, "certified": {},
            "rows_written": None, "completeness": None, "complete": False,
            "steps": {"count": count_step},
        }
        _atomic_json(mpath, man)
    else:
        from dataclasses import replace

        st = replace(st, expected=int(man["exact_count"]))
    if man.get("complete") and man.get("completeness") == "zaslavsky":
        return StoredResult(root, man)
    while True:
        _phase1(root, man, st, executor, progress, keep_work)
        _phase2(root, man, st, executor, progress, keep_work)
        rows = sum(v["rows"] for v in man["buckets_done"].values())
        man["rows_written"] = rows
        if rows == st.expected:
            break
        if man["mode"] == "float":  # proposals missed a region: the exact twin
            shutil.rmtree(root / "work", ignore_errors=True)
            shutil.rmtree(root / "shards", ignore_errors=True)
            man.update(mode="exact", units_done={}, batches_done={}, buckets_done={},
                       certified={}, rows_written=None)
            for key in ("batches", "groups", "groups_done", "waves", "waves_merged",
                        "merged", "merges_done"):
                man.pop(key, None)
            _atomic_json(mpath, man)
            continue
        raise EngineError(f"internal error: {rows} regions written but the exact "
                          f"Zaslavsky count is {st.expected}; please report this input")
    _atomic_json(mpath, man)
    if not keep_work:  # the shards are final: phase-1 files are no longer needed
        shutil.rmtree(root / "work", ignore_errors=True)
    res = StoredResult(root, man)
    c0, w0 = time.process_time(), time.perf_counter()
    verdict = res._certify(st, progress, executor, record=man)
    _steps(man)["certify"] = {"cpu_driver": round(time.process_time() - c0, 3),
                              "wall": round(time.perf_counter() - w0, 3),
                              "cpu_tasks": round(sum(v.get("cpu", 0) for v in
                                                     man["certified"].values()), 3),
                              "max_task_rss_mb": round(max(
                                  (v.get("maxrss_kb", 0) for v in man["certified"].values()),
                                  default=0) / 1024, 1),
                              "max_task_added_mb": max(
                                  (_added(v)["added_mb"] for v in man["certified"].values()
                                   if "maxrss_kb" in v), default=0)}
    man["completeness"] = "zaslavsky" if verdict["ok"] else None
    man["complete"] = bool(verdict["ok"])
    man["certification"] = verdict
    _atomic_json(mpath, man)
    if not verdict["ok"]:  # pragma: no cover - would be a bug
        raise EngineError(f"internal error: streamed certification failed: {verdict}")
    return StoredResult(root, man)


#: expected phase-1 rows per batch task (fewer, larger tasks than units)
BATCH_ROWS = 1_000_000
#: at most this many units per batch task (so a killed run loses little)
UNITS_PER_BATCH = 32
#: rows a phase-1 task buffers uncompressed before compressing them (memory bound)
FLUSH_ROWS = 500_000
#: phase-1 rows read by one merge or phase-2 task (memory bound: about 150 to 290 bytes per
#: row at the peak: predict2 measured 734 MB for 2 million rows of resonance-7)
GROUP_ROWS = 1_000_000
#: expected regions per wave of phase 1: the phase-1 files of a wave are merged into the
#: merged files (distinct rows only) and deleted before the next wave starts
WAVE_REGIONS = 40_000_000


def _unit_bounds(Hc: tuple, plan: list) -> np.ndarray:
    """The generic bound of every unit (ranks units by size)."""
    return np.array([search.unit_estimate(Hc, tuple(p)) if p else 1 for p in plan],
                    dtype=float)


def _plan_batches(est: np.ndarray, expected_rows: int, workers: int) -> list[list[int]]:
    """Consecutive ranges of units, balanced by the units' generic bounds ``est``.

    Only the grouping of units into tasks: the output does not depend on it (rows are
    merged in unit order), so it may depend on the executor."""
    n = len(est)
    nb = max(4 * workers, -(-2 * expected_rows // BATCH_ROWS), -(-n // UNITS_PER_BATCH))
    nb = max(1, min(n, nb))
    cum = np.concatenate([[0.0], np.cumsum(est)])
    cuts = np.searchsorted(cum, cum[-1] * np.arange(1, nb) / nb, side="left")
    bounds = sorted({0, n, *[int(min(max(c, 1), n - 1)) for c in cuts]})
    return [[lo, hi] for lo, hi in zip(bounds[:-1], bounds[1:], strict=True) if hi > lo]


def _plan_waves(nbatches: int, expected: int) -> list[list[int]]:
    """Consecutive ranges of batches (in unit order) of about :data:`WAVE_REGIONS`
    expected regions each, the last one halved: after each wave but the last, its phase-1
    files are merged into the merged files of the earlier waves and deleted (bounded
    disk); the last wave's files stay until the shards are written, beside them.

    Examples
    --------
    >>> _plan_waves(10, 1), _plan_waves(12, 3 * WAVE_REGIONS)
    ([[0, 10]], [[0, 4], [4, 8], [8, 10], [10, 12]])
    """
    nw = max(1, min(nbatches, -(-expected // WAVE_REGIONS)))
    cuts = [nbatches * i / nw for i in range(nw + 1)]
    if nw > 1:  # the last wave in two halves: its files stay until phase 2 has finished
        cuts.insert(nw, (cuts[nw - 1] + cuts[nw]) / 2)
    bounds = sorted({round(c) for c in cuts})
    return [[lo, hi] for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)]


def _merged_name(lo: int, wave: int) -> str:
    return f"m{lo:06d}-{wave:04d}.bin"


def _work_bytes(work: Path) -> int:
    tot = 0
    with os.scandir(work) as it:
        for e in it:
            try:
                tot += e.stat().st_size
            except OSError:  # removed meanwhile
                pass
    return tot


class _Recorder:
    """Manifest writes (at most every MANIFEST_INTERVAL, always with the kill hook set),
    files removed only once a manifest write no longer needs them, and the peak bytes of
    ``work/`` seen at these points."""

    def __init__(self, root: Path, man: dict) -> None:
        self.root, self.man = root, man
        self.last = time.monotonic()
        self.pending: list[Path] = []

    def disk(self) -> None:
        work = self.root / "work"
        if work.exists():
            d = _steps(self.man).setdefault("disk", {"work_peak_bytes": 0})
            d["work_peak_bytes"] = max(d["work_peak_bytes"], _work_bytes(work))

    def tick(self, step: str, ndone: int, force: bool = False) -> None:
        if force or time.monotonic() - self.last > MANIFEST_INTERVAL or _KILL in os.environ:
            self.disk()
            _atomic_json(self.root / MANIFEST, self.man)
            for f in self.pending:  # no longer named by the manifest just written
                f.unlink(missing_ok=True)
            self.pending = []
            self.last = time.monotonic()
            _kill_hook(step, ndone)


def _phase1(root: Path, man: dict, st: _Setup, executor: Any, progress: bool | None,
            keep_work: bool = False) -> None:
    work = root / "work"
    work.mkdir(exist_ok=True)
    Hc = tuple(tuple(h) for h in man["arrangement"]["hyperplanes"])
    est = _unit_bounds(Hc, man["units"])
    if "batches" not in man:
        from engine.run.executor import worker_count

        man["batches"] = _plan_batches(est, st.expected, worker_count(executor))
        man["waves"] = _plan_waves(len(man["batches"]), st.expected)
        man["waves_merged"] = 0
        _atomic_json(root / MANIFEST, man)
    man.setdefault("waves", [[0, len(man["batches"])]])
    man.setdefault("waves_merged", 0)
    plan_file = work / "plan.json"
    if not plan_file.exists():
        _atomic_json(plan_file, {"hyperplanes": man["arrangement"]["hyperplanes"],
                                 "units": man["units"]})
    exact = man["mode"] == "exact"
    done = man["batches_done"]
    merged = man.setdefault("merged", {})
    keep = {_merged_name(int(lo), w) for lo, w in merged.items()}
    first_live = man["waves"][man["waves_merged"]][0] if man["waves_merged"] < len(
        man["waves"]) else len(man["batches"])
    for name in os.listdir(work):  # leftovers of a killed run: never read as done
        if name.startswith(".tmp-") or (
                name.startswith("b") and name.endswith(".bin")
                and (str(int(name[1:7])) not in done
                     or (int(name[1:7]) < first_live and not keep_work))) or (
                name.startswith("m") and name.endswith(".bin") and name not in keep
                and not keep_work):
            os.remove(work / name)
    rec = _Recorder(root, man)
    wall = 0.0
    found = [0]

    def post(v: dict) -> dict:
        found[0] += sum(u["rows"] for u in v["units"].values())
        return {"rows": found[0]}  # witnessed rows so far (before the global de-dup)

    for w in range(man["waves_merged"], len(man["waves"])):
        blo, bhi = man["waves"][w]
        tasks = [_BatchTask(i, lo, hi, str(work), exact, st.keep, man["buckets"], FLUSH_ROWS)
                 for i, (lo, hi) in enumerate(man["batches"][blo:bhi], start=blo)
                 if str(i) not in done]
        if executor is not None:  # biggest first (by the generic bound): shorter tail
            size = {i: est[lo:hi].sum() for i, (lo, hi) in enumerate(man["batches"])}
            tasks.sort(key=lambda t: -size[t.index])
        found[0] = sum(v["rows"] for v in man["units_done"].values())
        w0 = time.perf_counter()
        for r in run_units(_run_batch, tasks, executor=executor, progress=progress,
                           desc="phase 1" if len(man["waves"]) == 1 else
                           f"phase 1, wave {w + 1}/{len(man['waves'])}", postfix=post):
            v = r.value
            man["units_done"].update(v["units"])
            done[str(tasks[r.index].index)] = {
                "seconds": round(r.seconds, 6), "cpu": round(v["cpu"], 6),
                "bytes": v["bytes"], "maxrss_mb": round(v["maxrss_kb"] / 1024, 1),
                **_added(v)}
            rec.tick("phase1", len(done))
        wall += time.perf_counter() - w0
        if tasks:
            _steps(man)["phase1"] = _step_summary(done, wall)
        rec.tick("phase1", len(done), force=True)
        if w < len(man["waves"]) - 1:
            _merge_wave(root, man, w, executor, progress, keep_work, rec)


def _ensure_groups(root: Path, man: dict, expected: int, executor: Any) -> None:
    """Bucket groups, planned once: from the phase-1 rows of a single wave, or, with
    several waves, from the first wave's rows (a quarter more) plus the regions the merged
    files will hold (at most the count)."""
    if "groups" in man:
        return
    from engine.run.executor import worker_count

    rows = sum(v["rows"] for v in man["units_done"].values())
    if len(man["waves"]) > 1:
        rows = expected + rows + rows // 4
    man["groups"] = _plan_groups(man["buckets"], rows, worker_count(executor))
    _atomic_json(root / MANIFEST, man)


def _merge_wave(root: Path, man: dict, w: int, executor: Any, progress: bool | None,
                keep_work: bool, rec: _Recorder) -> None:
    """Merge the phase-1 files of wave ``w`` into the merged files of the earlier waves
    (one task per bucket group; first occurrence in unit order kept), then delete them."""
    _ensure_groups(root, man, int(man["exact_count"]), executor)
    work = root / "work"
    merged = man["merged"]
    mdone = man.setdefault("merges_done", {})
    blo, bhi = man["waves"][w]
    tasks = []
    for lo, hi in man["groups"]:
        prev = merged.get(str(lo))
        if prev is not None and prev >= w:
            continue
        tasks.append(_GroupTask(lo, hi, blo, bhi, str(work), "", (), 0,
                                merged=None if prev is None else _merged_name(lo, prev),
                                into=_merged_name(lo, w), buckets=man["buckets"]))
    w0 = time.perf_counter()
    for r in run_units(_run_group, tasks, executor=executor, progress=progress,
                       desc=f"merge, wave {w + 1}/{len(man['waves'])}"):
        v, t = r.value, tasks[r.index]
        merged[str(t.lo)] = w
        mdone[f"{w}:{t.lo}"] = {"seconds": round(r.seconds, 6), "cpu": round(v["cpu"], 6),
                                "bytes": v["bytes"], "rows": v["rows"],
                                "maxrss_mb": round(v["maxrss_kb"] / 1024, 1), **_added(v)}
        if t.merged and not keep_work:
            rec.pending.append(work / t.merged)
        rec.tick("merge", len(mdone))
    if tasks:
        _steps(man)["merge"] = _step_summary(mdone, time.perf_counter() - w0)
    man["waves_merged"] = w + 1
    if not keep_work:
        rec.pending += [_batch_path(work, i) for i in range(blo, bhi)]
    rec.tick("merge", len(mdone), force=True)


_KILL = "LOGITGEOM_STORE_KILL"


def _kill_hook(step: str, ndone: int) -> None:
    """Tests of the resume protocol: ``LOGITGEOM_STORE_KILL=step:n:signal`` sends the
    signal to this process once ``n`` tasks of ``step`` (phase1, phase2, certify) are
    recorded, at a deterministic point instead of after a timed wait."""
    spec = os.environ.get(_KILL)
    if spec:
        s, n, sig = spec.split(":")
        if s == step and ndone >= int(n):
            os.kill(os.getpid(), int(sig))
            time.sleep(5)  # the signal arrives (SIGINT raises KeyboardInterrupt here)


def _added(v: dict) -> dict:
    """What a task added to its process's memory, MB (its peak less its start)."""
    return {"added_mb": round(max(0, v["maxrss_kb"] - v.get("rss0_kb", 0)) / 1024, 1)}


def _step_summary(done: dict, wall: float) -> dict:
    return {"tasks": len(done), "cpu_tasks": round(sum(v["cpu"] for v in done.values()), 3),
            "wall_last_session": round(wall, 3),
            "bytes": sum(v.get("bytes", 0) for v in done.values()),
            "max_task_rss_mb": max((v.get("maxrss_mb", 0) for v in done.values()), default=0),
            "max_task_added_mb": max((v.get("added_mb", 0) for v in done.values()),
                                     default=0)}


def _plan_groups(buckets: int, rows: int, workers: int) -> list[list[int]]:
    """Consecutive bucket ranges of about GROUP_ROWS phase-1 rows each (hash buckets are
    balanced), at least two per worker when there are enough buckets."""
    ng = max(1, min(buckets, max(-(-rows // GROUP_ROWS), 2 * workers)))
    bounds = sorted({round(buckets * i / ng) for i in range(ng + 1)})
    return [[lo, hi] for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)]


def _phase2(root: Path, man: dict, st: _Setup, executor: Any, progress: bool | None,
            keep_work: bool = False) -> None:
    shards = root / "shards"
    shards.mkdir(exist_ok=True)
    done = man["buckets_done"]
    for name in os.listdir(shards):
        if name.startswith("."):
            os.remove(shards / name)
    _ensure_groups(root, man, st.expected, executor)
    merged = man.get("merged", {})
    nw = man.get("waves_merged", 0)
    blo = man["waves"][nw][0] if nw < len(man.get("waves", [])) else len(man["batches"])
    if "waves" not in man:
        blo = 0
    tasks = [_GroupTask(lo, hi, blo, len(man["batches"]), str(root / "work"), str(shards),
                        tuple(man["arrangement"]["cols"]), man["arrangement"]["D"],
                        merged=None if str(lo) not in merged else _merged_name(
                            lo, merged[str(lo)]))
             for lo, hi in man["groups"] if any(str(p) not in done for p in range(lo, hi))]
    found = [sum(v["rows"] for v in done.values())]

    def post(v: dict) -> dict:
        found[0] += sum(b["rows"] for b in v["buckets"].values())
        return {"regions": found[0]}

    gdone = man.setdefault("groups_done", {})
    rec = _Recorder(root, man)
    w0 = time.perf_counter()
    for r in run_units(_run_group, tasks, executor=executor, progress=progress,
                       desc="phase 2", postfix=post):
        v = r.value
        done.update(v["buckets"])
        t = tasks[r.index]
        gdone[str(t.lo)] = {"seconds": round(r.seconds, 6), "cpu": round(v["cpu"], 6),
                            "maxrss_mb": round(v["maxrss_kb"] / 1024, 1), **_added(v)}
        if t.merged and not keep_work:  # its rows are in the shards now
            rec.pending.append(root / "work" / t.merged)
        rec.tick("phase2", len(gdone))
    if tasks:
        _steps(man)["phase2"] = _step_summary(gdone, time.perf_counter() - w0)
    rec.tick("phase2", len(gdone), force=True)

def read_shard(path: Path, D: int) -> tuple[np.ndarray, np.ndarray]:
    """Packed sign words and integer witnesses of one shard."""
    import pyarrow.parquet as pq

    t = pq.ParquetFile(path).read(use_threads=False)  # no dataset layer: less memory
    n = t.num_rows
    s = t.column("signs").combine_chunks()
    K = s.values.to_numpy().reshape(n, -1) if n else np.zeros((0, 1), np.uint64)
    w = t.column("witness").combine_chunks()
    vals = w.flatten() if n else None
    if n and vals.type == "string":
        X = np.array([int(a) for a in vals.to_pylist()], dtype=object).reshape(n, D)
    elif n:
        X = vals.to_numpy().reshape(n, D)
    else:
        X = np.zeros((0, D), dtype=np.int64)
    return np.ascontiguousarray(K, dtype=np.uint64), X


@dataclass(frozen=True)
class _CheckTask:
    lo: int  # shards lo..hi-1
    hi: int
    buckets: int
    shards: str
    hyperplanes: tuple  # recomputed from the input, not read from the directory
    cols: tuple[int, ...]
    D: int
    keep: tuple[int, int] | None


def _check_shards(task: _CheckTask) -> dict[str, dict]:
    """The independent checks of shards lo..hi-1: ``{shard: {rows, failed, cpu,
    maxrss_kb}}`` (``maxrss_kb``: the task's peak memory so far)."""
    _one_blas_thread()
    _task_start()
    A = _check_normals(task.hyperplanes, task.cols, task.D)
    out = {}
    for p in range(task.lo, task.hi):
        c0 = time.process_time()
        n, failed = _check_one(task, A, p)
        out[str(p)] = {"rows": n, "failed": failed, "cpu": round(time.process_time() - c0, 6),
                       "maxrss_kb": _task_peak_kb(), "rss0_kb": _TASK_RSS0[0]}
    return out


def _check_normals(hyperplanes: tuple, cols: tuple[int, ...], D: int) -> np.ndarray:
    """The hyperplanes' normals in the input's D coordinates, exact (a check task's fixed
    cost, paid once per task)."""
    A = np.zeros((len(hyperplanes), D), dtype=object)
    A[:] = 0
    if len(hyperplanes):
        A[:, list(cols)] = np.array(hyperplanes, dtype=object)
    return ex.fit(A)


def _check_one(task: _CheckTask, A: np.ndarray, p: int) -> tuple[int, str | None]:
    path = _shard_path(task.shards, p)
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


# ----------------------------------------------------------------------------- reading


class StoredResult:
    """A result directory opened lazily: iterate, count, sample, look up, certify.

    Nothing is loaded until asked for; iteration reads one shard at a time.  Patterns
    are what :class:`engine.geometry.PatternResult` holds (sign tuples, or label tuples
    for rankings); witnesses are exact points (tuples of Fraction).
    """

    def __init__(self, root: str | os.PathLike, manifest: dict[str, Any] | None = None):
        self.root = Path(root)
        if manifest is None:
            try:
                manifest = json.loads((self.root / MANIFEST).read_text())
            except (OSError, json.JSONDecodeError) as exc:
                raise InvalidInput(f"{self.root} is not a readable {FORMAT} directory: "
                                   f"{exc}") from exc
        if manifest.get("format") != FORMAT:
            raise InvalidInput(f"{self.root}: not a {FORMAT} directory")
        _check_version(self.root, manifest)
        self.manifest = manifest
        arr = manifest["arrangement"]
        self._where = [tuple(w) for w in arr["where"]]
        self._H = tuple(tuple(h) for h in arr["hyperplanes"])
        self._cols = tuple(arr["cols"])

    # -- summary ---------------------------------------------------------------------
    @property
    def kind(self) -> str:
        """``"sign"`` or ``"ranking"``."""
        return self.manifest["kind"]

    @property
    def count(self) -> int:
        """Rows written (the number of regions)."""
        return int(self.manifest["rows_written"] or 0)

    @property
    def exact_count(self) -> int:
        """The exact Zaslavsky count of the input."""
        return int(self.manifest["exact_count"])

    @property
    def completeness(self) -> str | None:
        """``"zaslavsky"`` once certified complete, else ``None``."""
        return self.manifest.get("completeness")

    @property
    def complete(self) -> bool:
        """Whether the streamed certification passed."""
        return bool(self.manifest.get("complete"))

    def __len__(self) -> int:
        return self.count

    def __repr__(self) -> str:
        return (f"StoredResult({str(self.root)!r}, kind={self.kind!r}, count={self.count}, "
                f"completeness={self.completeness!r})")

    def shards(self) -> list[Path]:
        """The shard files, in bucket order."""
        return [_shard_path(self.root / "shards", p) for p in range(self.manifest["buckets"])]

    # -- conversion ------------------------------------------------------------------
    def _patterns(self, K: np.ndarray) -> np.ndarray:
        S = unpack_signs(K, len(self._H)) if self._H else np.zeros((len(K), 0), dtype=np.int8)
        idx = np.array([max(c, 0) for c, _ in self._where], dtype=np.intp)
        ori = np.array([o for _, o in self._where], dtype=np.int8)
        pats = S[:, idx] * ori if S.shape[1] else np.zeros((len(K), len(idx)), np.int8)
        if self.manifest["affine"]:
            pats = pats[:, :-1]
        if self.kind == "ranking":
            return rankings_from_pairs(pats, self.manifest["k"])
        return pats

    def _witness(self, x: Sequence) -> tuple[Fraction, ...]:
        v = [int(a) for a in x]
        if self.manifest["affine"]:
            return tuple(Fraction(a, v[0]) for a in v[1:])
        return tuple(Fraction(a) for a in v)

    def _read(self, path: Path) -> tuple[np.ndarray, np.ndarray]:
        return read_shard(path, self.manifest["arrangement"]["D"])

    # -- access ----------------------------------------------------------------------
    def batches(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """(patterns array, integer witness array) per shard; witnesses as stored
        (homogeneous (x_0, x) with x_0 > 0 for an affine input)."""
        for path in self.shards():
            K, X = self._read(path)
            yield self._patterns(K), X

    def __iter__(self) -> Iterator[tuple[tuple[int, ...], tuple[Fraction, ...]]]:
        for pats, X in self.batches():
            for p, x in zip(pats.tolist(), X.tolist(), strict=True):
                yield tuple(p), self._witness(x)

    def sample(self, n: int, seed: int = 0) -> list[tuple[tuple[int, ...], tuple[Fraction, ...]]]:
        """``n`` distinct rows drawn uniformly (deterministic for a seed), in file order.

        Examples
        --------
        >>> import tempfile
        >>> r = enumerate_to_dir([[1], [2]], tempfile.mkdtemp(), progress=False)
        >>> len(r.sample(1))
        1
        """
        sizes = [self.manifest["buckets_done"][str(p)]["rows"]
                 for p in range(self.manifest["buckets"])]
        total = sum(sizes)
        if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= total:
            raise InvalidInput(f"sample size must be an integer in 0..{total}; got {n!r}")
        pick = np.sort(np.random.default_rng(seed).choice(total, size=n, replace=False))
        out = []
        start = 0
        for path, size in zip(self.shards(), sizes, strict=True):
            sel = pick[(pick >= start) & (pick < start + size)] - start
            if len(sel):
                K, X = self._read(path)
                pats = self._patterns(K[sel])
                out += [(tuple(p), self._witness(x))
                        for p, x in zip(pats.tolist(), X[sel].tolist(), strict=True)]
            start += size
        return out

    def _key_of(self, pattern: Sequence[int]) -> np.ndarray | None:
        k = self.manifest["k"]
        p = list(pattern)
        if self.kind == "ranking":
            if sorted(p) != list(range(k)):
                raise InvalidInput(f"a ranking lists each of the {k} labels once; got {p}")
            pos = {lab: i for i, lab in enumerate(p)}
            p = [1 if pos[i] < pos[j] else -1 for i, j in difference_pairs(k)]
        elif len(p) != k or any(v not in (-1, 0, 1) for v in p):
            raise InvalidInput(f"a sign pattern has {k} entries in -1, 0, 1; got {p}")
        if self.manifest["affine"]:
            p.append(1)
        s = [0] * len(self._H)
        for v, (c, o) in zip(p, self._where, strict=True):
            if c < 0:
                if v != 0 and self.kind == "sign":
                    return None
                continue
            if s[c] not in (0, v * o):
                return None  # parallel rows disagree: no region
            s[c] = v * o
        if any(v == 0 for v in s):
            return None
        return pack_signs(np.array([s], dtype=np.int8).reshape(1, len(s)))

    def lookup(self, pattern: Sequence[int]) -> tuple[Fraction, ...] | None:
        """The witness of a pattern, or ``None`` if no region has it (reads one shard)."""
        key = self._key_of(pattern)
        if key is None:
            return None
        p = int(bucket_of(key, self.manifest["buckets"])[0])
        K, X = self._read(_shard_path(self.root / "shards", p))
        hit = np.flatnonzero(np.all(K == key, axis=1))
        return self._witness(X[hit[0]].tolist()) if len(hit) else None

    def write_twins(self, folder: str | os.PathLike, buckets: int | None = None
                    ) -> list[dict[str, Any]]:
        """Write the rows as stdlib-readable shards for ``certificates.check_stream``.

        Each shard ``folder/part-NNNNN.jsonl.gz`` (gzip, mtime 0: same rows, same bytes)
        holds lines ``{"pattern": [...], "witness": ["p/q", ...]}``: the pattern as the
        user sees it (sign vector or ranking) and its exact witness.  A pattern goes to shard
        ``crc32(its JSON list) mod buckets`` and each shard is sorted by pattern, so the
        stdlib checker proves distinctness one line at a time (see
        docs/enumeration-at-scale.md).  Memory: one shard's lines at a time.

        Parameters
        ----------
        folder : path
            Created if missing; existing twin shards are replaced (atomic renames).
        buckets : int, optional
            Number of twin shards (default: the directory's number of Parquet shards).

        Returns
        -------
        list of dict
            ``{"file": absolute path, "sha256": ..., "rows": ...}`` per shard.

        Examples
        --------
        >>> import tempfile
        >>> d = tempfile.mkdtemp()
        >>> r = enumerate_to_dir([[1, 0], [0, 1]], d, progress=False)
        >>> [s["rows"] for s in r.write_twins(d + "/twin", buckets=2)]
        [1, 3]
        """
        import gzip
        import zlib

        from certificates.api import pattern_key

        B = int(buckets or self.manifest["buckets"])
        if B < 1:
            raise InvalidInput(f"buckets must be >= 1, got {B}")
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f".spill-{uuid.uuid4().hex}"
        tmp.mkdir()
        out: list[dict[str, Any]] = []
        try:
            fhs = [open(tmp / f"{p:05d}.txt", "w", encoding="ascii") for p in range(B)]
            try:
                for pats, X in self.batches():
                    for p, x in zip(pats.tolist(), X.tolist(), strict=True):
                        key = pattern_key(p)
                        w = json.dumps([str(v) for v in self._witness(x)], separators=(",", ":"))
                        fhs[zlib.crc32(key) % B].write(f"{key.decode()}\t{w}\n")
            finally:
                for fh in fhs:
                    fh.close()
            for p in range(B):
                rows = []
                with open(tmp / f"{p:05d}.txt", encoding="ascii") as fh:
                    for line in fh:
                        key, w = line.rstrip("\n").split("\t")
                        rows.append((tuple(json.loads(key)), key, w))
                rows.sort()
                final = folder / f"part-{p:05d}.jsonl.gz"
                part = final.with_name(f".{final.name}.{uuid.uuid4().hex}.tmp")
                with open(part, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw,
                                                             mtime=0) as gz:
                    for _, key, w in rows:
                        gz.write(f'{{"pattern":{key},"witness":{w}}}\n'.encode("ascii"))
                h = hashlib.sha256()
                with open(part, "rb") as fh:
                    for chunk in iter(lambda: fh.read(1 << 20), b""):
                        h.update(chunk)
                os.replace(part, final)
                out.append({"file": str(final.resolve()), "sha256": h.hexdigest(),
                            "rows": len(rows)})
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return out

    def certify(self, progress: bool | None = False, executor: Any = None) -> dict[str, Any]:
        """Streamed completeness check, shard by shard, as independent tasks (all exact).

        Recomputes the arrangement and the exact Zaslavsky count from the input stored in
        the manifest, then checks every shard (one task per group of shards, on
        ``executor`` if given): each witness reproduces its sign vector exactly (integer
        arithmetic, every sign nonzero, x_0 > 0 for an affine input); the sign vectors are
        strictly increasing within the shard and hash to its bucket (so no row repeats
        anywhere).  Combined at the end: the number of rows equals the count.

        Returns
        -------
        dict
            ``ok``, ``rows``, ``exact_count``, ``shards`` and, on failure, ``failed``
            (which check, which shard).
        """
        from threadpoolctl import threadpool_limits

        doc = self.manifest["input"]
        W = [[Fraction(v) for v in r] for r in doc["W"]]
        b = None if doc["bias"] is None else [Fraction(v) for v in doc["bias"]]
        with threadpool_limits(limits=1, user_api="blas"):
            return self._certify(_setup(doc["kind"], W, b, executor), progress, executor)

    def _certify(self, st: _Setup, progress: bool | None, executor: Any = None,
                 record: dict | None = None) -> dict[str, Any]:
        """The shard checks as tasks; with ``record`` (the manifest of a run being
        written) checks already recorded there are not redone (resume)."""
        from engine.run.executor import worker_count

        B = self.manifest["buckets"]
        out: dict[str, Any] = {"ok": False, "rows": 0, "exact_count": st.expected,
                               "shards": B}
        if _input_hash(_input_doc(st.kind, st.Wm, st.b)) != self.manifest["input_sha256"]:
            return {**out, "failed": "input hash"}
        red = st.red
        done = {} if record is None else record.setdefault("certified", {})
        sizes = [p.stat().st_size if p.exists() else 0 for p in self.shards()]
        groups = _plan_groups(B, sum(sizes) * 8, worker_count(executor))  # ~8 rows per byte
        tasks = [_CheckTask(lo, hi, B, str(self.root / "shards"), red.hyperplanes, red.cols,
                            red.D, st.keep)
                 for lo, hi in groups if any(str(p) not in done for p in range(lo, hi))]
        last = time.monotonic()
        for r in run_units(_check_shards, tasks, executor=executor, progress=progress,
                           desc="certify"):
            done.update(r.value)
            if record is not None and (time.monotonic() - last > MANIFEST_INTERVAL
                                       or _KILL in os.environ):
                _atomic_json(self.root / MANIFEST, record)
                last = time.monotonic()
                _kill_hook("certify", len(done))
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


def open_result(path: str | os.PathLike) -> StoredResult:
    """Open a result directory written by :func:`enumerate_to_dir` (lazily).

    Examples
    --------
    >>> import tempfile
    >>> d = tempfile.mkdtemp()
    >>> _ = enumerate_to_dir([[1, 0], [0, 1]], d, progress=False)
    >>> r = open_result(d)
    >>> len(r), r.certify()["ok"]
    (4, True)
    """
    return StoredResult(path)

