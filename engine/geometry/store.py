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
    DIR/work/u000123/          phase-1 output of one work unit (removed at the end)

How a run goes (every step exact):

1. The arrangement is reduced to distinct hyperplanes (:func:`search.reduce_rows`) and
   split into work units, paths into the deletion-restriction recursion
   (:func:`search.plan_units`).
2. Phase 1, one task per unit (any executor: serial, process pool, Dask): the unit's
   exact points and sign vectors, de-duplicated within the unit, witnesses shrunk, sign
   vectors packed into uint64 words and partitioned by a hash of the words into
   ``buckets``; written to ``work/u<index>`` by an atomic directory rename.
3. Phase 2, one task per bucket: the bucket's rows of every unit (memory-mapped), first
   occurrence in unit order of each sign vector, sorted, written as one Parquet shard
   (atomic rename).  A sign vector lives in exactly one bucket, so shards are disjoint
   and no step holds more than one bucket in memory.
4. Certification, streamed shard by shard (:meth:`StoredResult.certify`): every witness
   reproduces its sign vector exactly, sign vectors are strictly increasing within a
   shard and hash to the shard's bucket (so all rows are distinct), and the number of
   rows equals the exact Zaslavsky count: the set is complete.

A run killed at any point restarts from the units and shards the manifest records as
finished (``resume=True``); half-written files never have their final names.

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
import shutil
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
from engine.exact.lattice import count_rankings_exact, count_regions_exact
from engine.exact.numbers import matrix_to_str, to_matrix, to_vector, vector_to_str
from engine.geometry import search
from engine.geometry.arrangement import exact as ex
from engine.geometry.arrangement import pack_signs, unpack_signs
from engine.geometry.cosine import difference_pairs
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
MANIFEST_INTERVAL = 2.0
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


@dataclass(frozen=True)
class _UnitTask:
    index: int
    path: tuple[int, ...]
    rows: tuple[tuple[int, ...], ...]
    exact: bool
    keep: tuple[int, int] | None  # affine: (hyperplane, orientation) that must be positive
    buckets: int
    work: str


def _unit_dir(work: str | Path, index: int) -> Path:
    return Path(work) / f"u{index:06d}"


def _run_unit(task: _UnitTask) -> tuple[int, float]:
    """Phase 1 of one unit; returns the rows written and the CPU seconds.  Any worker.

    BLAS runs on one thread inside a unit: the products are small (points x up to 64
    normals), parallelism comes from the units, and OpenBLAS's spinning helper threads
    otherwise cost about a third more CPU (resonance-6, docs/enumeration-at-scale.md)."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        return _run_unit_body(task)


def _run_unit_body(task: _UnitTask) -> tuple[int, float]:
    t0 = time.process_time()
    if task.rows:
        P, S = search._unit_job((task.rows, task.path, task.exact))
    else:  # no hyperplane: one region, the origin witnesses it
        P, S = np.zeros((1, 0), dtype=np.int64), np.zeros((1, 0), dtype=np.int8)
    if task.keep is not None and len(P):
        c, o = task.keep
        ok = S[:, c] * o > 0
        P, S = P[ok], S[ok]
    if P.dtype == np.int64 and len(P):
        P = search.shrink(P, S, ex.normals(task.rows))
    K = pack_signs(S)
    b = bucket_of(K, task.buckets)
    order = np.argsort(b, kind="stable")  # by bucket, unit order within
    K, P, b = K[order], P[order], b[order]
    offsets = np.searchsorted(b, np.arange(task.buckets + 1)).astype(np.int64)
    final = _unit_dir(task.work, task.index)
    tmp = Path(task.work) / f".tmp-{final.name}-{uuid.uuid4().hex}"
    tmp.mkdir(parents=True)
    np.save(tmp / "keys.npy", K)
    np.save(tmp / "points.npy", P, allow_pickle=P.dtype == object)
    np.save(tmp / "offsets.npy", offsets)
    if final.exists():  # a finished copy the manifest did not record: replace it
        shutil.rmtree(final)
    os.rename(tmp, final)  # the commit point of the unit
    return int(len(P)), time.process_time() - t0


@dataclass(frozen=True)
class _BucketTask:
    bucket: int
    units: int
    work: str
    shards: str
    cols: tuple[int, ...]
    D: int


def _shard_path(shards: str | Path, bucket: int) -> Path:
    return Path(shards) / f"part-{bucket:05d}.parquet"


def _run_bucket(task: _BucketTask) -> tuple[int, float]:
    """Phase 2 of one bucket: first occurrence of each sign vector, sorted, one shard."""
    t0 = time.process_time()
    import pyarrow as pa
    import pyarrow.parquet as pq

    Ks, Ps = [], []
    for u in range(task.units):
        d = _unit_dir(task.work, u)
        off = np.load(d / "offsets.npy")
        lo, hi = int(off[task.bucket]), int(off[task.bucket + 1])
        if hi == lo:
            continue
        Ks.append(np.array(np.load(d / "keys.npy", mmap_mode="r")[lo:hi]))
        try:
            Ps.append(np.array(np.load(d / "points.npy", mmap_mode="r")[lo:hi]))
        except ValueError:  # object points (huge integers) cannot be memory-mapped
            Ps.append(np.load(d / "points.npy", allow_pickle=True)[lo:hi])
    if Ks:
        K = np.concatenate(Ks)
        P = np.concatenate([p.astype(object) for p in Ps] if any(
            p.dtype == object for p in Ps) else Ps)
    else:
        K = np.zeros((0, 1), dtype=np.uint64)
        P = np.zeros((0, len(task.cols)), dtype=np.int64)
    del Ks, Ps
    order = _key_order(K)  # stable: equal keys stay in unit order
    K, P = K[order], P[order]
    first = np.ones(len(K), dtype=bool)
    if len(K) > 1:
        first[1:] = np.any(K[1:] != K[:-1], axis=1)
    K, P = K[first], P[first]
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
    final = _shard_path(task.shards, task.bucket)
    tmp = final.with_name(f".{final.name}.{uuid.uuid4().hex}.tmp")
    pq.write_table(table, tmp, compression="zstd")
    os.replace(tmp, final)  # the commit point of the shard
    return int(len(K)), time.process_time() - t0


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
    expected: int
    keep: tuple[int, int] | None


def _setup(kind: str, W: object, bias: object) -> _Setup:
    if kind not in ("sign", "ranking"):
        raise InvalidInput(f"kind must be 'sign' or 'ranking'; got {kind!r}")
    Wm = to_matrix(W, what="W")
    b = None if bias is None else to_vector(bias, what="bias", length=len(Wm))
    rows = arrangement_rows(kind, Wm, b)
    expected = count_regions_exact(Wm, b) if kind == "sign" else count_rankings_exact(Wm, b)
    red = search.reduce_rows(rows)
    keep = red.where[-1] if b is not None else None
    return _Setup(kind, Wm, b, red, expected, keep)


# ----------------------------------------------------------------------------- driver


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
        Runs the work units (see :func:`engine.run.executor.run_units`); with a Dask
        cluster, ``out`` must be on a file system every worker sees.  The result does not
        depend on the executor.
    units : int, optional
        Target number of work units (default :func:`default_units` of the exact count).
    shard_rows : int
        Target rows per shard; bounds the memory of a phase-2 task.
    progress : bool, optional
        Progress bars over units and shards, with regions found and an ETA.
    resume : bool
        Reuse the finished units and shards recorded in ``out/manifest.json`` (the
        input hash must match).  ``False`` starts afresh.
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

    with threadpool_limits(limits=1, user_api="blas"):  # small products: see _run_unit
        return _enumerate_to_dir(W, out, kind, bias, executor, units, shard_rows, progress,
                                 resume, keep_work)


def _enumerate_to_dir(W, out, kind, bias, executor, units, shard_rows, progress, resume,
                      keep_work) -> StoredResult:
    st = _setup(kind, W, bias)
    if isinstance(shard_rows, bool) or not isinstance(shard_rows, int) or shard_rows < 1:
        raise InvalidInput(f"shard_rows must be a positive integer; got {shard_rows!r}")
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
    Hc = st.red.hyperplanes
    total = st.expected if st.b is None else 2 * st.expected
    if man is None:
        target = default_units(total) if units is None else units
        if isinstance(target, bool) or not isinstance(target, int) or target < 1:
            raise InvalidInput(f"units must be a positive integer; got {units!r}")
        plan = search.plan_units(Hc, target) if Hc else [()]
        man = {
            "format": FORMAT, "version": VERSION, "input": doc, "input_sha256": digest,
            "kind": kind, "k": len(st.Wm), "d": len(st.Wm[0]), "affine": st.b is not None,
            "exact_count": st.expected,
            "arrangement": {"D": st.red.D, "cols": list(st.red.cols),
                            "where": [list(w) for w in st.red.where],
                            "hyperplanes": [list(h) for h in Hc]},
            "mode": "exact" if (not Hc or search.prefer_exact(Hc)) else "float",
            "units": [list(p) for p in plan],
            "buckets": max(1, -(-st.expected // shard_rows)),
            "units_done": {}, "buckets_done": {}, "rows_written": None,
            "completeness": None, "complete": False,
        }
        _atomic_json(mpath, man)
    while True:
        _phase1(root, man, st, executor, progress)
        _phase2(root, man, st, executor, progress)
        rows = sum(v["rows"] for v in man["buckets_done"].values())
        man["rows_written"] = rows
        if rows == st.expected:
            break
        if man["mode"] == "float":  # proposals missed a region: the exact twin
            shutil.rmtree(root / "work", ignore_errors=True)
            shutil.rmtree(root / "shards", ignore_errors=True)
            man.update(mode="exact", units_done={}, buckets_done={}, rows_written=None)
            _atomic_json(mpath, man)
            continue
        raise EngineError(f"internal error: {rows} regions written but the exact "
                          f"Zaslavsky count is {st.expected}; please report this input")
    res = StoredResult(root, man)
    verdict = res._certify(st, progress)
    man["completeness"] = "zaslavsky" if verdict["ok"] else None
    man["complete"] = bool(verdict["ok"])
    man["certification"] = verdict
    _atomic_json(mpath, man)
    if not verdict["ok"]:  # pragma: no cover - would be a bug
        raise EngineError(f"internal error: streamed certification failed: {verdict}")
    if not keep_work:
        shutil.rmtree(root / "work", ignore_errors=True)
    return StoredResult(root, man)


def _phase1(root: Path, man: dict, st: _Setup, executor: Any, progress: bool | None) -> None:
    work = root / "work"
    work.mkdir(exist_ok=True)
    Hc = tuple(tuple(h) for h in man["arrangement"]["hyperplanes"])
    exact = man["mode"] == "exact"
    done = man["units_done"]
    for name in os.listdir(work):  # leftovers of a killed run: never read as done
        if name.startswith(".tmp-") or (name.startswith("u") and str(int(name[1:])) not in done):
            shutil.rmtree(work / name, ignore_errors=True)
    tasks = [_UnitTask(i, tuple(p), Hc, exact, st.keep, man["buckets"], str(work))
             for i, p in enumerate(man["units"]) if str(i) not in done]
    if executor is not None:  # biggest first (by the generic bound): shorter tail
        tasks.sort(key=lambda t: -search.unit_estimate(Hc, t.path) if t.path else 0)
    found = [sum(v["rows"] for v in done.values())]

    def post(v: tuple[int, float]) -> dict:
        found[0] += v[0]
        return {"regions": found[0]}  # witnessed rows so far (before the global de-dup)

    last = time.monotonic()
    for r in run_units(_run_unit, tasks, executor=executor, progress=progress,
                       desc="units", postfix=post):
        done[str(tasks[r.index].index)] = {"rows": r.value[0], "seconds": round(r.seconds, 6),
                                           "cpu": round(r.value[1], 6),
                                           "path": list(tasks[r.index].path)}
        if time.monotonic() - last > MANIFEST_INTERVAL:
            _atomic_json(root / MANIFEST, man)
            last = time.monotonic()
    _atomic_json(root / MANIFEST, man)


def _phase2(root: Path, man: dict, st: _Setup, executor: Any, progress: bool | None) -> None:
    shards = root / "shards"
    shards.mkdir(exist_ok=True)
    done = man["buckets_done"]
    for name in os.listdir(shards):
        if name.startswith("."):
            os.remove(shards / name)
    tasks = [_BucketTask(p, len(man["units"]), str(root / "work"), str(shards),
                         tuple(man["arrangement"]["cols"]), man["arrangement"]["D"])
             for p in range(man["buckets"]) if str(p) not in done]
    found = [sum(v["rows"] for v in done.values())]

    def post(v: tuple[int, float]) -> dict:
        found[0] += v[0]
        return {"regions": found[0]}

    last = time.monotonic()
    for r in run_units(_run_bucket, tasks, executor=executor, progress=progress,
                       desc="shards", postfix=post):
        done[str(tasks[r.index].bucket)] = {"rows": r.value[0], "seconds": round(r.seconds, 6),
                                            "cpu": round(r.value[1], 6)}
        if time.monotonic() - last > MANIFEST_INTERVAL:
            _atomic_json(root / MANIFEST, man)
            last = time.monotonic()
    _atomic_json(root / MANIFEST, man)


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
        import pyarrow.parquet as pq

        t = pq.ParquetFile(path).read(use_threads=False)  # no dataset layer: less memory
        n = t.num_rows
        s = t.column("signs").combine_chunks()
        K = s.values.to_numpy().reshape(n, -1) if n else np.zeros((0, 1), np.uint64)
        w = t.column("witness").combine_chunks()
        D = self.manifest["arrangement"]["D"]
        vals = w.flatten() if n else None
        if n and vals.type == "string":
            X = np.array([int(a) for a in vals.to_pylist()], dtype=object).reshape(n, D)
        elif n:
            X = vals.to_numpy().reshape(n, D)
        else:
            X = np.zeros((0, D), dtype=np.int64)
        return np.ascontiguousarray(K, dtype=np.uint64), X

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

    def certify(self, progress: bool | None = False) -> dict[str, Any]:
        """Streamed completeness check, one shard in memory at a time (all exact).

        Recomputes the arrangement and the exact Zaslavsky count from the input stored in
        the manifest, then checks shard by shard: each witness reproduces its sign vector
        exactly (integer arithmetic, every sign nonzero, x_0 > 0 for an affine input);
        the sign vectors are strictly increasing within the shard and hash to its bucket
        (so no row repeats anywhere); finally the number of rows equals the count.

        Returns
        -------
        dict
            ``ok``, ``rows``, ``exact_count``, ``shards`` and, on failure, ``failed``
            (which check, which shard).
        """
        doc = self.manifest["input"]
        W = [[Fraction(v) for v in r] for r in doc["W"]]
        b = None if doc["bias"] is None else [Fraction(v) for v in doc["bias"]]
        return self._certify(_setup(doc["kind"], W, b), progress)

    def _certify(self, st: _Setup, progress: bool | None) -> dict[str, Any]:
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=1, user_api="blas"):  # small products (see _run_unit)
            return self._certify_body(st, progress)

    def _certify_body(self, st: _Setup, progress: bool | None) -> dict[str, Any]:
        from tqdm import tqdm

        out: dict[str, Any] = {"ok": False, "rows": 0, "exact_count": st.expected,
                               "shards": self.manifest["buckets"]}
        if _input_hash(_input_doc(st.kind, st.Wm, st.b)) != self.manifest["input_sha256"]:
            return {**out, "failed": "input hash"}
        red = st.red
        A = np.zeros((len(red.hyperplanes), red.D), dtype=object)
        A[:] = 0
        if len(red.hyperplanes):
            A[:, list(red.cols)] = np.array(red.hyperplanes, dtype=object)
        A = ex.fit(A)
        B = self.manifest["buckets"]
        rows = 0
        for p, path in enumerate(tqdm(self.shards(), desc="certify", unit="shard",
                                      disable=not progress)):
            if not path.exists():
                return {**out, "failed": f"missing shard {path.name}"}
            K, X = self._read(path)
            n = len(K)
            rows += n
            if n == 0:
                continue
            if np.any(bucket_of(K, B) != p):
                return {**out, "failed": f"row hashed to another bucket in {path.name}"}
            if n > 1:
                d = K[1:] != K[:-1]
                firstdiff = np.argmax(d, axis=1)
                anyd = np.any(d, axis=1)
                r = np.arange(n - 1)
                inc = anyd & (K[1:][r, firstdiff] > K[:-1][r, firstdiff])
                if not np.all(inc):
                    return {**out, "failed": f"rows not strictly increasing in {path.name}"}
            for lo in range(0, n, CERTIFY_BLOCK):  # bounded memory: one block of rows
                Kb, Xb = K[lo:lo + CERTIFY_BLOCK], X[lo:lo + CERTIFY_BLOCK]
                if len(red.hyperplanes):
                    S = ex.sign_matrix(ex.fit(Xb), A)
                    if np.any(S == 0) or np.any(pack_signs(S) != Kb):
                        return {**out, "failed": f"a witness misses its sign vector in "
                                                 f"{path.name}"}
                if st.keep is not None:
                    c, o = st.keep
                    if np.any(unpack_signs(Kb, len(red.hyperplanes))[:, c] * o <= 0):
                        return {**out, "failed": f"a row with x_0 <= 0 in {path.name}"}
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

