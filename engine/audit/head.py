"""The head of an argmax audit: rows read in float64 chunks from memory or a memory map.

A head is either *binary* (every entry is a float16/bfloat16/float32/float64 number, so its
exact value is the binary rational the bits denote and float64 holds it exactly) or *exact*
(rationals such as ``1/3`` read from ``.csv`` / ``.json``; small heads only).  Binary heads
allow the float fast path of docs/argmax-audit.md (section 3); exact heads decide every
margin in rational arithmetic.

A :class:`HeadSpec` is what work units carry to workers (a path and a tensor name, or small
inline data); :func:`open_head` turns it into a :class:`Head` (cached per process), so a
label block sent to a Dask worker never ships the matrix.

Examples
--------
>>> import numpy as np
>>> h = open_head(HeadSpec.from_array(np.eye(3, dtype=np.float32)))
>>> h.k, h.d, h.binary, h.chunk(1, 3).tolist()
(3, 3, True, [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
"""

from __future__ import annotations

import math
import mmap
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

from logitgeom.errors import InvalidInput
from logitgeom.exact.filtered import UNDERFLOW_SLACK, norm_inflation, scaled_norms

__all__ = ["HeadSpec", "Head", "open_head", "CHUNK_BYTES"]

#: Rows are converted to float64 in chunks of about this many bytes: every pass over the head
#: (the products, the norms, the scale) holds one such chunk and its temporaries beside
#: its result, not a 48 MB chunk (issue 44: peak memory).  A row's norm is computed row by
#: row; its products with X did not change either with the smaller chunks (every output of
#: the audits compared before and after was byte-identical), and nothing decided rests on
#: their last bits (the rigorous bound covers any summation order).
CHUNK_BYTES = 8 << 20
#: The chunk of :meth:`Head.norms` and :meth:`Head.scale` (the same as :data:`CHUNK_BYTES`).
SMALL_CHUNK_BYTES = CHUNK_BYTES
#: The chunks of :meth:`Head.mean` (float64 bytes) and :meth:`Head.propose_matvec` (stored
#: float32 bytes, no copy): as before issue 44, so that the mean's sum and the proposals,
#: which can shape the witnesses written, keep every bit.
_SUM_CHUNK_BYTES = 48 << 20


@dataclass(frozen=True)
class HeadSpec:
    """Where the head lives (picklable, small).

    Attributes
    ----------
    kind : {"npy", "safetensors", "inline"}
    path : str or None
        The ``.npy`` / ``.safetensors`` file (``kind`` != "inline").
    tensor : str or None
        Tensor name inside a safetensors file.
    transpose : bool
        The tensor is stored (d, vocab).
    inline : tuple or None
        Inline rows (``kind == "inline"``): floats (binary) or Fractions (exact).
    bias : tuple or None
        The bias as floats (binary) or Fractions (exact), or None.
    """

    kind: str
    path: str | None = None
    tensor: str | None = None
    transpose: bool = False
    inline: tuple | None = None
    bias: tuple | None = None

    @classmethod
    def from_array(cls, W, bias=None) -> HeadSpec:
        """An inline spec from an array or nested lists (floats, ints or Fractions)."""
        rows = _exact_or_binary_rows(W)
        b = None if bias is None else _exact_or_binary_vector(bias, len(rows))
        return cls("inline", inline=rows, bias=b)


def _is_binary(q: Fraction) -> bool:
    den = q.denominator
    if den & (den - 1) or abs(q) > _FLOAT_MAX:  # beyond the float range: kept exact
        return False
    return float(q) == q


_FLOAT_MAX = Fraction(float.fromhex("0x1.fffffffffffffp+1023"))


def _exact_or_binary_rows(W) -> tuple:
    if isinstance(W, np.ndarray) and np.issubdtype(W.dtype, np.floating):
        if W.ndim != 2 or W.shape[0] < 1 or W.shape[1] < 1:
            raise InvalidInput(f"W must be a non-empty 2-D matrix; got shape {W.shape}")
        if not np.all(np.isfinite(W)):
            raise InvalidInput("W has a NaN or infinite entry")
        return tuple(tuple(float(v) for v in r) for r in np.asarray(W, dtype=np.float64))
    from logitgeom.exact.numbers import to_matrix

    M = to_matrix(W, what="W")
    if all(_is_binary(q) for r in M for q in r):
        return tuple(tuple(float(q) for q in r) for r in M)
    return M


def _exact_or_binary_vector(b, k: int) -> tuple:
    from logitgeom.exact.numbers import to_vector

    v = to_vector(np.asarray(b, dtype=np.float64) if isinstance(b, np.ndarray) else b,
                  what="bias", length=k)
    if all(_is_binary(q) for q in v):
        return tuple(float(q) for q in v)
    return v


class Head:
    """Rows of a head as float64 chunks, exact values on demand.

    Attributes
    ----------
    k, d : int
    binary : bool
        Entries (and bias) are binary floats: the float fast path is exact-safe.
    bias : numpy.ndarray or None
        float64 bias (exact when ``binary``).
    """

    def __init__(self, spec: HeadSpec):
        self.spec = spec
        self._raw: np.ndarray  # memory map or array, as stored (set by every kind below)
        self._bf16 = False
        self._exact = None
        if spec.kind == "inline":
            rows = spec.inline
            if rows and isinstance(rows[0][0], Fraction):
                self._exact = rows
                self.binary = False
                if any(abs(q) > _FLOAT_MAX for r in rows for q in r):
                    raise InvalidInput("W has an entry beyond the float range (|x| > 1.8e308), "
                                       "which the audit's float proposals cannot hold; scale "
                                       "the head (a positive factor keeps every verdict)")
                arr = np.array([[float(q) for q in r] for r in rows], dtype=np.float64)
            else:
                self.binary = True
                arr = np.array(rows, dtype=np.float64)
            self._raw = arr
        elif spec.kind == "npy":
            from logitgeom.io import check_npy_header

            if spec.path is None:
                raise InvalidInput("a HeadSpec of kind 'npy' needs a path")
            check_npy_header(spec.path)
            try:
                arr = np.load(spec.path, mmap_mode="r", allow_pickle=False)
            except (ValueError, OSError) as exc:
                raise InvalidInput(f"{spec.path} is not a readable .npy array: {exc}") from exc
            if arr.ndim != 2 or arr.dtype.kind not in "fiu":
                raise InvalidInput(f"{spec.path}: need a 2-D real matrix; got {arr.dtype} "
                                   f"{arr.shape}")
            if arr.dtype.kind in "iu" and arr.dtype.itemsize > 4:
                raise InvalidInput(f"{spec.path}: 64-bit integers may not be exact in float64")
            self._raw = arr.T if spec.transpose else arr
            self.binary = True
        elif spec.kind == "safetensors":
            from logitgeom.models.safetensors_io import SafetensorsFile

            if spec.path is None or spec.tensor is None:
                raise InvalidInput("a HeadSpec of kind 'safetensors' needs a path and a tensor "
                                   "name")
            f = SafetensorsFile(spec.path)
            dt = f.dtype(spec.tensor)
            if dt not in {"F64", "F32", "F16", "BF16"}:
                raise InvalidInput(f"{spec.path}: head {spec.tensor!r} has dtype {dt}; the "
                                   "audit reads F64/F32/F16/BF16")
            arr = f.array(spec.tensor)
            if arr.ndim != 2:
                raise InvalidInput(f"head {spec.tensor!r} has shape {arr.shape}; need 2-D")
            self._bf16 = dt == "BF16"
            self._raw = arr.T if spec.transpose else arr
            self.binary = True
        else:
            raise InvalidInput(f"unknown head kind {spec.kind!r}")
        self.k, self.d = (int(s) for s in self._raw.shape)
        if self.k < 2 or self.d < 1:
            raise InvalidInput(f"the audit needs at least 2 labels and 1 column; got "
                               f"{self.k} x {self.d}")
        b = spec.bias
        self.bias_exact: tuple[Fraction, ...] | None = None
        if b is None:
            self.bias = None
        else:
            if len(b) != self.k:
                raise InvalidInput(f"bias has {len(b)} entries but the head has {self.k} rows")
            if isinstance(b[0], Fraction) or any(isinstance(q, Fraction) for q in b):
                self.bias_exact = tuple(Fraction(q) for q in b)
                self.binary = False
            self.bias = np.array([float(q) for q in b], dtype=np.float64)
            if not np.all(np.isfinite(self.bias)):
                raise InvalidInput("bias has a NaN or infinite entry")
        self._norms: np.ndarray | None = None
        self._map = _mapping(self._raw)
        self._checked_finite = spec.kind == "inline"
        self._scale: float | None = None
        self._f32: bool | None = None

    # ------------------------------------------------------------------ float side
    def chunk(self, r0: int, r1: int) -> np.ndarray:
        """Rows r0..r1-1 as float64 (exact widening of the stored numbers)."""
        a = self._raw[r0:r1]
        if self._bf16:
            a = (np.asarray(a, dtype=np.uint32) << 16).view(np.float32)
        out = np.array(a, dtype=np.float64)
        self._release(r0, r1)
        if not self._checked_finite and not np.all(np.isfinite(out)):
            bad = int(np.argwhere(~np.isfinite(out))[0][0]) + r0
            raise InvalidInput(f"head row {bad} has a NaN or infinite entry")
        return out

    def _release(self, r0: int, r1: int) -> None:
        """Drop this process's resident pages of stored rows r0..r1-1 (read once per pass:
        a pass over a memory-mapped head would otherwise leave all of it resident beside
        the pass's results; issue 44).  The file stays in the page cache and a later read
        maps the pages again: no value changes."""
        if self._map is None:
            return
        mm, off, row = self._map
        start = (off + r0 * row) // mmap.PAGESIZE * mmap.PAGESIZE
        end = min(len(mm), off + r1 * row)
        if end > start:
            try:
                mm.madvise(mmap.MADV_DONTNEED, start, end - start)
            except OSError:  # a mapping the kernel will not release: keep it resident
                self._map = None

    def blocks(self, dtype: type, nbytes: int) -> Iterator[tuple[int, int, np.ndarray]]:
        """``(r0, r1, block)`` over the stored rows, about ``nbytes`` of ``dtype`` per block
        (``max(1, nbytes // (itemsize d))`` rows: the chunk boundaries of every pass).

        ``np.float64``: :meth:`chunk` (exact widening, checked finite; a copy, the mapped
        pages released before the block is yielded).  ``np.float32``, for heads whose entries
        are float32 values (:meth:`float32_exact`): float32 storage in place (no copy),
        bfloat16 widened (``uint16 << 16``), any other storage converted, all exactly and
        not checked for NaN or infinity; the mapped pages are released once the caller has
        used the block (it may be a view of them)."""
        step = max(1, nbytes // (np.dtype(dtype).itemsize * self.d))
        for r0 in range(0, self.k, step):
            r1 = min(self.k, r0 + step)
            if dtype is np.float64:
                yield r0, r1, self.chunk(r0, r1)
                continue
            a = self._raw[r0:r1]
            if self._bf16:
                a = (np.asarray(a, dtype=np.uint32) << 16).view(np.float32)
            elif a.dtype != np.float32:
                a = np.asarray(a, dtype=np.float32)  # float16, or checked float32 values
            yield r0, r1, a
            self._release(r0, r1)

    def rows(self, idx) -> np.ndarray:
        """Selected rows (any order) as float64."""
        idx = np.asarray(idx, dtype=np.int64)
        a = self._raw[np.sort(idx)]
        order = np.argsort(np.argsort(idx))
        if self._bf16:
            a = (np.asarray(a, dtype=np.uint32) << 16).view(np.float32)
        return np.array(a, dtype=np.float64)[order]

    def matmul(self, X: np.ndarray) -> np.ndarray:
        """``W @ X`` in float64 for X of shape (d, m), chunked over rows."""
        X = np.ascontiguousarray(X, dtype=np.float64)
        out = np.empty((self.k, X.shape[1]), dtype=np.float64)
        for r0, r1, c in self.blocks(np.float64, CHUNK_BYTES):
            if self.d == 1:  # one product per entry: the same floats, without BLAS's slow k x 1
                np.multiply(c, X, out=out[r0:r1])
            else:
                out[r0:r1] = c @ X
        self._checked_finite = True
        return out

    def float32_exact(self) -> bool:
        """Every stored entry is exactly a float32 (float32, float16 and bfloat16 storage; any
        other storage checked value by value in one chunked pass, cached): the condition of
        the float32 screen (docs/filtered-arithmetic.md, Lemma 5).

        Examples
        --------
        >>> open_head(HeadSpec.from_array(np.array([[0.5, 3.0], [1.0, 0.0]]))).float32_exact()
        True
        >>> open_head(HeadSpec.from_array(np.array([[0.1, 0.0], [1.0, 0.0]]))).float32_exact()
        False
        """
        if self._f32 is None:
            if self._exact is not None:
                self._f32 = False
            elif self._bf16 or self._raw.dtype in (np.float32, np.float16):
                self._f32 = True
            else:
                ok = True
                with np.errstate(over="ignore", invalid="ignore"):
                    for _, _, c in self.blocks(np.float64, CHUNK_BYTES):
                        if not np.array_equal(c.astype(np.float32).astype(np.float64), c):
                            ok = False
                            break
                self._f32 = ok
        return self._f32

    def matmul32(self, X32: np.ndarray) -> np.ndarray:
        """``fl32(W @ X)`` in float32 arithmetic (sgemm) for a float32 X of shape (d, m),
        chunked over rows, for heads whose entries are float32 values (:meth:`float32_exact`):
        float32 storage is used in place, bfloat16 widened to float32 (``uint16 << 16``) and
        float16 converted, chunk by chunk, both exactly; nothing is widened to float64.  Not
        checked for NaN or infinite entries: they make the products non-finite, which the
        float32 screen leaves undecided (the float64 pass then refuses the head).

        Examples
        --------
        >>> h = open_head(HeadSpec.from_array(np.eye(2, dtype=np.float32)))
        >>> h.matmul32(np.array([[1.0], [2.0]], dtype=np.float32)).tolist()
        [[1.0], [2.0]]
        """
        if not self.float32_exact():
            raise ValueError("matmul32 needs a head whose entries are float32 values")
        X32 = np.ascontiguousarray(X32, dtype=np.float32)
        out = np.empty((self.k, X32.shape[1]), dtype=np.float32)
        for r0, r1, a in self.blocks(np.float32, CHUNK_BYTES):
            if self.d == 1:  # one product per entry, as in matmul
                np.multiply(a, X32, out=out[r0:r1])
            else:
                np.matmul(a, X32, out=out[r0:r1])
        return out

    def propose_matvec(self, x: np.ndarray) -> np.ndarray:
        """``W @ x`` for proposals only (float32 arithmetic on float32 storage: no widening
        pass over the matrix); never used to decide anything."""
        if self._raw.dtype == np.float32:
            x32 = np.asarray(x, dtype=np.float32)
            out = np.empty(self.k, dtype=np.float64)
            for r0, r1, a in self.blocks(np.float32, _SUM_CHUNK_BYTES):  # in place
                out[r0:r1] = a @ x32
            return out
        return self.matmul(np.asarray(x, dtype=np.float64)[:, None])[:, 0]

    def norms(self) -> np.ndarray:
        """Upper bounds of the Euclidean row norms (float64, inflated for rounding)."""
        if self._norms is None:
            n = np.empty(self.k, dtype=np.float64)
            for r0, r1, c in self.blocks(np.float64, SMALL_CHUNK_BYTES):
                n[r0:r1] = scaled_norms(c)  # squares neither underflow nor overflow
            # the rigorous bound (docs/filtered-arithmetic.md, Lemma 3)
            self._norms = n * norm_inflation(self.d) + UNDERFLOW_SLACK
            self._checked_finite = True
        return self._norms

    def scale(self) -> float:
        """A power of two 2^-e bringing the largest entry near 1, when it is outside
        [2^-60, 2^60] (else 1): candidate witnesses x = t 2^-e w_k then neither underflow nor
        overflow in W x.  Exact (a power of two); a proposal device only."""
        if self._scale is None:
            mx = 0.0
            for _, _, c in self.blocks(np.float64, SMALL_CHUNK_BYTES):
                mx = max(mx, float(np.max(np.abs(c))) if c.size else 0.0)
            e = math.frexp(mx)[1] if mx > 0 else 0
            self._scale = 1.0 if -60 <= e <= 60 else math.ldexp(1.0, -e)
        return self._scale

    def mean(self) -> np.ndarray:
        """The float64 mean row (a proposal only; its exact value is what is used)."""
        s = np.zeros(self.d, dtype=np.float64)
        for _, _, c in self.blocks(np.float64, _SUM_CHUNK_BYTES):
            s += c.sum(axis=0)
        return s / self.k

    # ------------------------------------------------------------------ exact side
    def exact_row(self, i: int) -> tuple[Fraction, ...]:
        """Row i as exact rationals."""
        if self._exact is not None:
            return self._exact[i]
        return tuple(Fraction(v) for v in self.chunk(i, i + 1)[0].tolist())

    def exact_bias(self, i: int) -> Fraction:
        if self.bias is None:
            return Fraction(0)
        if self.bias_exact is not None:
            return self.bias_exact[i]
        return Fraction(float(self.bias[i]))

    def exact_rows_binary(self) -> bool:
        """Rows (not necessarily the bias) are binary floats."""
        return self._exact is None


def _mapping(a: np.ndarray) -> tuple[mmap.mmap, int, int] | None:
    """(the memory map, the byte offset of the first entry in it, the bytes of a row) of a
    C-ordered array read from a memory-mapped file (:class:`numpy.memmap`, as
    ``np.load(mmap_mode="r")`` and the safetensors reader give), or None (in memory,
    another layout, no ``madvise``)."""
    mm = getattr(a, "_mmap", None)
    if not isinstance(mm, mmap.mmap) or not a.flags.c_contiguous \
            or not hasattr(mmap, "MADV_DONTNEED"):
        return None
    start = np.frombuffer(mm, dtype=np.uint8)[:1].ctypes.data  # released at once
    return mm, a.ctypes.data - start, a.strides[0]


@lru_cache(maxsize=4)
def open_head(spec: HeadSpec) -> Head:
    """The :class:`Head` of a spec (cached per process: workers open it once)."""
    return Head(spec)
