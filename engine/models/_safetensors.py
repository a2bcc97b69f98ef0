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

from engine.errors import InvalidInput

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


class SafetensorsFile:
    """Header and lazily memory-mapped tensors of one ``.safetensors`` file."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        if not self.path.is_file():
            raise InvalidInput(f"safetensors file not found: {self.path}")
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
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                raise InvalidInput(f"{self.path}: unreadable safetensors header: {exc}") from exc
        if not isinstance(header, dict):
            raise InvalidInput(f"{self.path}: safetensors header is not a JSON object")
        self._data_start = 8 + n
        self._size = size
        self.metadata = header.pop("__metadata__", None) or {}
        self.header: dict[str, dict] = header

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
