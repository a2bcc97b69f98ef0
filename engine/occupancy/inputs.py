"""Where the inputs of an occupancy run come from: a ``.npy`` or ``.parquet`` of hidden states,
or an in-memory array, split into work units a worker reads on its own.

A ``.npy`` is memory-mapped (2-D, real); a ``.parquet`` holds either one list column (a
vector per row) or only numeric columns (one per coordinate), read one row group per unit.

Examples
--------
>>> import numpy as np
>>> src = open_inputs(np.zeros((5, 2)), chunk_rows=2)
>>> src.n, src.d, [(u[2], u[3]) for u in src.units()]
(5, 2, [(0, 2), (2, 4), (4, 5)])
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from logitgeom.errors import InvalidInput

__all__ = ["InputSource", "open_inputs", "read_unit"]


@dataclass(frozen=True)
class InputSource:
    """The inputs: ``kind`` ("array", "npy", "parquet"), size, and how to read a unit."""

    kind: str
    n: int
    d: int
    path: str | None
    array: np.ndarray | None
    bounds: tuple[tuple[int, int], ...]
    digest: str

    def units(self) -> list[tuple]:
        """``(kind, where, r0, r1, index)`` per unit: picklable, small (except in-memory
        arrays, whose rows travel with the unit)."""
        out = []
        for i, (r0, r1) in enumerate(self.bounds):
            where = self.path if self.array is None else self.array[r0:r1]
            out.append((self.kind, where, r0, r1, i))
        return out


def _digest_array(a: np.ndarray) -> str:
    h = hashlib.sha256(str((a.dtype.str, a.shape)).encode())
    step = max(1, (1 << 24) // max(1, a.itemsize * (a.shape[1] if a.ndim == 2 else 1)))
    for r0 in range(0, a.shape[0], step):
        h.update(np.ascontiguousarray(a[r0:r0 + step]).tobytes())
    return h.hexdigest()


def _check_dtype(dt: np.dtype, what: str) -> None:
    if dt.kind not in "fiu" or (dt.kind in "iu" and dt.itemsize > 4) or dt.itemsize > 8:
        raise InvalidInput(f"{what}: inputs must be float16/32/64 or integers of at most 32 "
                           f"bits (exact in float64); got {dt}")


def _parquet_columns(path: Path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(path)
    except (OSError, pa.ArrowException) as exc:
        raise InvalidInput(f"{path} is not a readable Parquet file: {exc}") from exc
    schema = pf.schema_arrow
    types = [f.type for f in schema]
    if len(types) == 1 and (pa.types.is_list(types[0]) or pa.types.is_fixed_size_list(types[0])
                            or pa.types.is_large_list(types[0])):
        return pf, "list"
    if types and all(pa.types.is_floating(t) or pa.types.is_integer(t) for t in types):
        return pf, "columns"
    raise InvalidInput(f"{path}: need one list column (a vector per row) or only numeric "
                       f"columns; got {schema}")


def _parquet_rows(pf, layout: str, group: int) -> np.ndarray:
    import pyarrow as pa

    t = pf.read_row_group(group)
    if layout == "columns":
        cols = [np.asarray(c.to_numpy()) for c in t.columns]
        for c in cols:
            _check_dtype(c.dtype, pf.metadata.schema.to_arrow_schema().names[0])
        return np.stack(cols, axis=1) if cols else np.zeros((t.num_rows, 0))
    col = t.column(0).combine_chunks()
    if col.null_count:
        raise InvalidInput("a Parquet input row is null")
    if pa.types.is_fixed_size_list(col.type):
        flat = np.asarray(col.flatten().to_numpy())
        return flat.reshape(len(col), col.type.list_size)
    lens = np.asarray(col.value_lengths().to_numpy())
    if lens.size and not (lens == lens[0]).all():
        raise InvalidInput("Parquet input rows have different lengths "
                           f"({int(lens.min())} to {int(lens.max())})")
    flat = np.asarray(col.flatten().to_numpy())
    return flat.reshape(len(col), int(lens[0]) if lens.size else 0)


def open_inputs(inputs, *, chunk_rows: int = 1 << 16) -> InputSource:
    """Open the inputs (without reading them all) and split them into units.

    Parameters
    ----------
    inputs : array_like or path
        An (n, d) array, a ``.npy`` file (memory-mapped) or a ``.parquet`` file.
    chunk_rows : int
        Rows per unit (``.npy`` and arrays; a Parquet unit is one row group).

    Returns
    -------
    InputSource

    Raises
    ------
    InvalidInput
        Missing or unreadable file, not 2-D, a dtype that is not exact in float64, no rows.
    """
    if chunk_rows < 1:
        raise InvalidInput(f"chunk rows must be positive; got {chunk_rows}")
    if not isinstance(inputs, str | Path):
        a = np.asarray(inputs)
        if a.dtype.kind in "iu" and a.dtype.itemsize > 4 and a.size:
            if int(np.abs(a).max()) > 2**53:
                raise InvalidInput("inputs: integers beyond 2^53 are not exact in float64")
            a = a.astype(np.float64)
        if a.ndim != 2:
            raise InvalidInput(f"inputs must be a 2-D array (n x d); got shape {a.shape}")
        _check_dtype(a.dtype, "inputs")
        b = tuple((r, min(r + chunk_rows, a.shape[0])) for r in range(0, a.shape[0], chunk_rows))
        return InputSource("array", a.shape[0], a.shape[1], None, a, b, _digest_array(a))
    from logitgeom.io import check_input_file, check_npy_header

    p = check_input_file(inputs, "inputs file", max_bytes=None)
    suffix = p.suffix.lower()
    if suffix == ".npy":
        check_npy_header(p)
        try:
            a = np.load(p, mmap_mode="r", allow_pickle=False)
        except (ValueError, OSError) as exc:
            raise InvalidInput(f"{p} is not a readable .npy array: {exc}") from exc
        if a.ndim != 2:
            raise InvalidInput(f"{p}: inputs must be 2-D (n x d); got shape {a.shape}")
        _check_dtype(a.dtype, str(p))
        b = tuple((r, min(r + chunk_rows, a.shape[0])) for r in range(0, a.shape[0], chunk_rows))
        return InputSource("npy", a.shape[0], a.shape[1], str(p), None, b, _digest_array(a))
    if suffix == ".parquet":
        pf, layout = _parquet_columns(p)
        md = pf.metadata
        bounds, r = [], 0
        for g in range(md.num_row_groups):
            m = md.row_group(g).num_rows
            bounds.append((r, r + m))
            r += m
        d = (len(pf.schema_arrow) if layout == "columns"
             else _parquet_rows(pf, layout, 0).shape[1] if md.num_row_groups else 0)
        h = hashlib.sha256()
        with open(p, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 24), b""):
                h.update(block)
        return InputSource("parquet", r, d, str(p), None, tuple(bounds), h.hexdigest())
    raise InvalidInput(f"{p}: inputs must be .npy or .parquet (or a model folder with a text "
                       "file of contexts)")


def read_unit(unit: tuple) -> np.ndarray:
    """The rows of one unit as an array (a worker calls this)."""
    kind, where, r0, r1, i = unit
    if kind == "array":
        return np.asarray(where)
    if kind == "npy":
        return np.asarray(np.load(where, mmap_mode="r", allow_pickle=False)[r0:r1])
    pf, layout = _parquet_columns(Path(where))
    return _parquet_rows(pf, layout, i)
