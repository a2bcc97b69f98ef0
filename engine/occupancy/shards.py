"""Parquet shards of an occupancy run: one per unit of inputs, written atomically by the worker
that decided it, so a run resumes by skipping the shards already on disk.

Columns (one row per input): ``input`` (its index), ``argmax`` (-1 on an exact tie at the
top), ``sign`` (k bytes ``+``/``-``/``0``), ``ranking`` (the labels most likely first, tied
labels in increasing order), ``ties`` (k - 1 bytes: ``=`` where position j ties with j + 1,
``>`` otherwise), ``exact`` (decided in integer arithmetic), and the float measurements
``margin`` (logit gap of the first two labels), ``dist_sign``, ``dist_ranking``,
``dist_argmax`` (Euclidean distance to the nearest boundary of each region).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np

from logitgeom.audit.head import open_head
from logitgeom.occupancy.decide import boundary_distances, decide_chunk
from logitgeom.occupancy.inputs import read_unit

__all__ = ["shard_name", "decide_unit", "read_columns", "COLUMNS"]

COLUMNS = ("input", "argmax", "sign", "ranking", "ties", "exact", "margin", "dist_sign",
           "dist_ranking", "dist_argmax")
_SIGN = np.array([ord("-"), ord("0"), ord("+")], dtype=np.uint8)


def shard_name(i: int) -> str:
    """``shards/part-NNNNNN.parquet``."""
    return f"shards/part-{i:06d}.parquet"


def _fixed_binary(a: np.ndarray):
    import pyarrow as pa

    n, w = a.shape
    if w == 0:
        return pa.array([b""] * n, type=pa.binary(0))
    return pa.FixedSizeBinaryArray.from_buffers(pa.binary(w), n,
                                                [None, pa.py_buffer(np.ascontiguousarray(a))])


def decide_unit(args: tuple) -> dict:
    """Work unit: decide one unit of inputs and write its shard (atomically).

    ``args = (spec, unit, folder)``; returns ``{"index", "rows", "exact"}``.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    spec, unit, folder = args
    head = open_head(spec)
    X = read_unit(unit)
    r0 = unit[2]
    dec = decide_chunk(head, X, first=r0)
    dist = boundary_distances(head, dec)
    n, k = dec.sign.shape
    order = dec.order.astype(np.int16 if k <= 32767 else np.int32)
    cols = {
        "input": pa.array(np.arange(r0, r0 + n, dtype=np.int64)),
        "argmax": pa.array(dec.argmax.astype(np.int32)),
        "sign": _fixed_binary(_SIGN[dec.sign.astype(np.int64) + 1]),
        "ranking": pa.FixedSizeListArray.from_arrays(pa.array(order.ravel()), k),
        "ties": _fixed_binary(np.where(dec.tie, ord("="), ord(">")).astype(np.uint8)),
        "exact": pa.array(dec.exact),
        "margin": pa.array(dist["margin"]),
        "dist_sign": pa.array(dist["sign"]),
        "dist_ranking": pa.array(dist["ranking"]),
        "dist_argmax": pa.array(dist["argmax"]),
    }
    table = pa.table(cols)
    target = Path(folder) / shard_name(unit[4])
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".part.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    try:
        pq.write_table(table, tmp, compression="zstd")
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return {"index": unit[4], "rows": n, "exact": int(dec.exact.sum())}


def read_columns(folder: Path, count: int, names: tuple[str, ...]) -> dict[str, np.ndarray]:
    """Columns of shards 0..count-1 concatenated, as numpy arrays (fixed binary columns as
    uint8 matrices, ``ranking`` as an integer matrix)."""
    import pyarrow.parquet as pq

    parts: dict[str, list] = {c: [] for c in names}
    for i in range(count):
        t = pq.read_table(folder / shard_name(i), columns=list(names))
        for c in names:
            col = t.column(c).combine_chunks()
            if c in ("sign", "ties"):
                w = col.type.byte_width
                buf = np.frombuffer(col.buffers()[1], dtype=np.uint8)
                parts[c].append(buf[col.offset * w:(col.offset + len(col)) * w]
                                .reshape(len(col), w))
            elif c == "ranking":
                parts[c].append(np.asarray(col.flatten().to_numpy())
                                .reshape(len(col), col.type.list_size))
            else:
                parts[c].append(np.asarray(col.to_numpy(zero_copy_only=False)))
    return {c: np.concatenate(v) if v else np.zeros(0) for c, v in parts.items()}

