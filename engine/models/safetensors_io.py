"""A small read-only view of ``.safetensors`` files, memory-mapped, with bf16 support.

The format (https://github.com/huggingface/safetensors): 8 bytes little-endian header
length N, N bytes of JSON ``{name: {"dtype", "shape", "data_offsets": [begin, end]}}``
(offsets relative to the end of the header), then the raw little-endian data.  numpy has
no bfloat16, so BF16 tensors are widened to float32 (exactly: bf16 is the top half of a
float32).  Only the requested rows of a tensor are read and converted.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np

from logitgeom.errors import InvalidInput

__all__ = ["SafetensorsFile"]

_DTYPES: dict[str, str] = {
    "F64": "<f8",
    "F32": "<f4",
    "F16": "<f2",
    "BF16": "<u2",  # widened to float32 on read
    "I64": "<i8",
    "I32": "<i4",
    "I16": "<i2",
    "I8": "i1",
    "U8": "u1",
}
_MAX_HEADER = 100_000_000
#: Bytes per element of every dtype the format defines (validation needs the sizes even
#: of dtypes that cannot be read here).
_ITEMSIZE: dict[str, int] = {
    "F64": 8, "F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4, "I16": 2, "I8": 1,
    "U64": 8, "U32": 4, "U16": 2, "U8": 1, "BOOL": 1, "F8_E4M3": 1, "F8_E5M2": 1,
    "C64": 8, "C128": 16,
}


def _validate(path: Path, header: dict, data_size: int) -> None:
    """Check every tensor entry: dtype, shape, offsets inside the data area, no overlap.

    Raises InvalidInput naming the first bad entry, so a malformed header is one clear
    error and never a read of the header's own bytes (or of nothing) as weights.
    """
    spans = []
    for name, e in header.items():
        bad = f"{path}: tensor {name[:80]!r}"
        if not isinstance(e, dict):
            raise InvalidInput(f"{bad}: header entry is not an object; the file is corrupt")
        extra = sorted(set(e) - {"dtype", "shape", "data_offsets"})
        if extra:
            raise InvalidInput(f"{bad}: unknown header field(s) {extra[:5]}; the file is corrupt")
        dt, shape, offs = e.get("dtype"), e.get("shape"), e.get("data_offsets")
        if not isinstance(dt, str) or dt not in _ITEMSIZE:
            raise InvalidInput(f"{bad}: unknown dtype {dt!r}; the file is corrupt")
        if (not isinstance(shape, list) or len(shape) > 16
                or any(isinstance(s, bool) or not isinstance(s, int) or s < 0 for s in shape)):
            raise InvalidInput(f"{bad}: shape {shape!r} is not a list of non-negative integers")
        if (not isinstance(offs, list) or len(offs) != 2
                or any(isinstance(o, bool) or not isinstance(o, int) for o in offs)):
            raise InvalidInput(f"{bad}: data_offsets {offs!r} is not a pair of integers")
        begin, end = offs
        count = 1
        for s in shape:
            count *= s
        if not 0 <= begin <= end <= data_size:
            raise InvalidInput(
                f"{bad}: data_offsets [{begin}, {end}] are not inside the data area "
                f"[0, {data_size}]; the file is truncated or corrupt")
        if end - begin != count * _ITEMSIZE[dt]:
            raise InvalidInput(
                f"{bad}: data_offsets [{begin}, {end}] hold {end - begin} bytes but shape "
                f"{tuple(shape)} of {dt} needs {count * _ITEMSIZE[dt]}; the file is corrupt")
        spans.append((begin, end, name))
    spans.sort()
    for (b0, e0, n0), (b1, e1, n1) in zip(spans, spans[1:], strict=False):
        if b1 < e0 and b1 < e1:
            raise InvalidInput(f"{path}: tensors {n0[:80]!r} and {n1[:80]!r} overlap "
                               f"([{b0}, {e0}] and [{b1}, {e1}]); the file is corrupt")


class SafetensorsFile:
    """Header and lazily memory-mapped tensors of one ``.safetensors`` file."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        from logitgeom._fsio import check_input_file

        check_input_file(self.path, "safetensors file")  # "not found", or what it is
        size = self.path.stat().st_size
        with self.path.open("rb") as fh:
            raw = fh.read(8)
            if len(raw) < 8:
                raise InvalidInput(f"{self.path} is not a safetensors file (shorter than 8 bytes)")
            (n,) = struct.unpack("<Q", raw)
            if n > min(size - 8, _MAX_HEADER):
                raise InvalidInput(
                    f"{self.path} is not a safetensors file (header length {n} exceeds the file)"
                )
            try:
                header = json.loads(fh.read(n))
            except (ValueError, RecursionError) as exc:  # JSON, UTF-8, huge integers
                msg = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
                raise InvalidInput(f"{self.path}: unreadable safetensors header: {msg}") from None
        if not isinstance(header, dict):
            raise InvalidInput(f"{self.path}: safetensors header is not a JSON object")
        self._data_start = 8 + n
        self._size = size
        meta = header.pop("__metadata__", None) or {}
        if not isinstance(meta, dict):
            raise InvalidInput(f"{self.path}: safetensors __metadata__ is not a JSON object")
        _validate(self.path, header, size - self._data_start)
        self.metadata = meta
        self.header: dict[str, dict] = header

    def data_range(self, name: str) -> tuple[int, int]:
        """(absolute byte offset, byte length) of a tensor's raw data in the file."""
        begin, end = (int(v) for v in self._entry(name)["data_offsets"])
        return self._data_start + begin, end - begin

    def names(self) -> list[str]:
        """Tensor names, sorted."""
        return sorted(self.header)

    def shape(self, name: str) -> tuple[int, ...]:
        return tuple(int(s) for s in self._entry(name)["shape"])

    def dtype(self, name: str) -> str:
        return str(self._entry(name)["dtype"])

    def _entry(self, name: str) -> dict:
        try:
            return self.header[name]
        except KeyError:
            raise InvalidInput(f"{self.path} has no tensor named {name!r}") from None

    def array(self, name: str) -> np.ndarray:
        """The whole tensor as a read-only memory map (BF16 as raw uint16)."""
        e = self._entry(name)
        dt = e.get("dtype")
        if dt not in _DTYPES:
            raise InvalidInput(
                f"{self.path}: tensor {name!r} has dtype {dt}, which is not supported "
                f"(supported: {', '.join(sorted(_DTYPES))})"
            )
        shape = tuple(int(s) for s in e["shape"])
        begin, end = (int(x) for x in e["data_offsets"])
        np_dt = np.dtype(_DTYPES[dt])
        count = int(np.prod(shape, dtype=np.int64)) if shape else 1
        if end - begin != count * np_dt.itemsize or self._data_start + end > self._size:
            raise InvalidInput(
                f"{self.path}: tensor {name!r} (shape {shape}, {dt}) has inconsistent "
                f"data offsets [{begin}, {end}]; the file is truncated or corrupt"
            )
        if count == 0:
            return np.zeros(shape, dtype=np_dt)
        return np.memmap(self.path, dtype=np_dt, mode="r", offset=self._data_start + begin,
                         shape=shape)

    def read(self, name: str, rows: np.ndarray | None = None) -> np.ndarray:
        """Tensor (or the given rows of a 2-D tensor) as float64, widened exactly."""
        arr = self.array(name)
        if rows is not None:
            arr = arr[rows]
        if self.dtype(name) == "BF16":
            arr = (np.asarray(arr, dtype=np.uint32) << 16).view(np.float32)
        return np.array(arr, dtype=np.float64)
