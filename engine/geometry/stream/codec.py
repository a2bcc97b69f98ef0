"""The files of a streamed run: hash keys, the phase-1 frame codec, the Parquet shards.

Sign vectors are packed into uint64 words (:func:`logitgeom.geometry.arrangement.pack_signs`);
:func:`bucket_of` hashes them into buckets (splitmix64), :func:`encode`/:func:`decode` write
and read one compressed frame of rows, :class:`BatchWriter` writes a phase-1 file (a header
of byte offsets per bucket, then each bucket's frames), :func:`read_buckets` reads a range of
buckets of one, and :func:`read_shard`/:func:`write_shard_file` the Parquet shards.  The
layout is described in docs/enumeration-at-scale.md.

Examples
--------
>>> K = np.array([[5], [0]], dtype=np.uint64)
>>> P = np.array([[1, -2], [3, 4]])
>>> k, p, end = decode(encode(K, P), 0)
>>> k.tolist(), p.tolist()
([[5], [0]], [[1, -2], [3, 4]])
"""

from __future__ import annotations

import json
import os
import struct
import uuid
from pathlib import Path

import numpy as np

from logitgeom.errors import EngineError, InvalidInput

__all__ = ["bucket_of", "key_order", "encode", "decode", "BatchWriter", "read_buckets",
           "read_shard", "write_shard_file", "batch_path", "shard_path", "merged_name",
           "WORK_FORMAT", "FRAME"]

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


def key_order(K: np.ndarray) -> np.ndarray:
    """Stable order of rows of K by their words (word 0 first).

    Examples
    --------
    >>> key_order(np.array([[3], [1], [2]], dtype=np.uint64)).tolist()
    [1, 2, 0]
    """
    if K.shape[0] == 0:
        return np.zeros(0, dtype=np.intp)
    return np.lexsort(K.T[::-1])


# ----------------------------------------------------------------------------- files


#: layout of the phase-1 files (``work/b<batch>.bin``); a run whose manifest records
#: another layout redoes phase 1
WORK_FORMAT = 3
_MAGIC = b"LGW2"
#: frame header: rows, words per key, D, point dtype code, raw bytes, compressed bytes
FRAME = struct.Struct("<qiiBqq")
_PDTYPES = (np.int8, np.int16, np.int32, np.int64)
_CODEC = "zstd"


def encode(K: np.ndarray, P: np.ndarray) -> bytes:
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
    return FRAME.pack(n, w, D, code, len(raw), len(comp)) + comp


def decode(buf: bytes | memoryview, pos: int) -> tuple[np.ndarray, np.ndarray, int]:
    """The frame at ``pos`` of ``buf``: (packed sign words, points, position after it)."""
    import pyarrow as pa

    n, w, D, code, rawlen, complen = FRAME.unpack_from(buf, pos)
    pos += FRAME.size
    raw = pa.Codec(_CODEC).decompress(buf[pos:pos + complen], decompressed_size=rawlen,
                                      asbytes=True)
    kb = 8 * n * w
    K = np.frombuffer(raw, dtype=np.uint64, count=n * w).reshape(n, w)
    if code == 255:
        P = np.array([int(v) for v in json.loads(raw[kb:])], dtype=object).reshape(n, D)
    else:
        P = np.frombuffer(raw, dtype=_PDTYPES[code], offset=kb).reshape(n, D).astype(np.int64)
    return K, P, pos + complen


class BatchWriter:
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
            self.frames[p].append(encode(K[lo:hi], P[lo:hi]))

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


def read_buckets(path: Path, lo: int, hi: int) -> list[list[tuple[np.ndarray, np.ndarray]]]:
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
            K, P, pos = decode(buf, pos)
            frames.append((K, P))
        out.append(frames)
    return out


def read_shard(path: Path, D: int) -> tuple[np.ndarray, np.ndarray]:
    """Packed sign words and integer witnesses of one shard."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        t = pq.ParquetFile(path).read(use_threads=False)  # no dataset layer: less memory
    except (pa.ArrowException, OSError) as exc:
        raise InvalidInput(f"{path}: unreadable shard ({str(exc).splitlines()[0][:120]}); the "
                           "run is incomplete or damaged: run the enumeration again (it "
                           "resumes)") from None
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


def write_shard_file(final: Path, K: np.ndarray, X: np.ndarray, D: int) -> None:
    """One Parquet shard: columns ``signs`` (packed words) and ``witness`` (D integers,
    decimal strings beyond int64); written under a temporary name, then renamed."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    w = K.shape[1]
    signs = pa.FixedSizeListArray.from_arrays(pa.array(K.ravel(), type=pa.uint64()), w)
    if X.dtype == object:
        flat = pa.array([str(int(v)) for v in X.ravel()], type=pa.string())
    else:
        flat = pa.array(X.ravel(), type=pa.int64())
    wit = pa.FixedSizeListArray.from_arrays(flat, D) if D else pa.array(
        [[] for _ in range(len(X))], type=pa.list_(pa.int64()))
    table = pa.table({"signs": signs, "witness": wit})
    tmp = final.with_name(f".{final.name}.{uuid.uuid4().hex}.tmp")
    pq.write_table(table, tmp, compression="zstd")
    os.replace(tmp, final)  # the commit point of the shard


def batch_path(work: str | Path, index: int) -> Path:
    """The phase-1 file of batch ``index`` in ``work``."""
    return Path(work) / f"b{index:06d}.bin"


def shard_path(shards: str | Path, bucket: int) -> Path:
    """The Parquet shard of ``bucket`` in ``shards``."""
    return Path(shards) / f"part-{bucket:05d}.parquet"


def merged_name(lo: int, wave: int) -> str:
    """The merged file of the bucket group starting at ``lo`` after wave ``wave``."""
    return f"m{lo:06d}-{wave:04d}.bin"

