"""The *load* stage of the argmax audit: from what the user gives to a head the checker reads.

Every head ends up in one of two forms the stdlib checker verifies (certificates/SPEC.md,
section 9):

* inline rows in the certificate (small heads, and exact rational heads from ``.csv`` /
  ``.json``);
* a referenced file with the SHA-256 of its data: the user's own ``.npy`` in place when it
  already has the one layout the checker reads (a version 1.0 header as numpy writes it,
  2-D, little-endian float64 or float32, C order, not transposed), or else a **canonical**
  ``head.npy`` written next to the certificate in that layout, float32 when every value is a
  float32, float64 otherwise.  float16, integer, Fortran-ordered, transposed or big-endian
  ``.npy``, safetensors, PyTorch, ``.npz`` and GGUF heads are converted this way; the
  conversion is exact or refused (integers beyond 2^53).

The user's file is named in the certificate's ``source`` field with its SHA-256
(provenance).

Examples
--------
>>> import tempfile
>>> from pathlib import Path
>>> src = load_source([[1, 0], [0, 1]], work=Path(tempfile.mkdtemp()))
>>> src.spec.kind, src.head_field["W"], src.source is None
('inline', [['1', '0'], ['0', '1']], True)
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from logitgeom.audit.head import HeadSpec, open_head
from logitgeom.errors import InvalidInput
from logitgeom.exact.numbers import fraction_to_str

if TYPE_CHECKING:  # what load_tokenizer returns; tokenizers is imported on first use
    from tokenizers import Tokenizer

__all__ = ["Source", "load_source", "file_sha256", "INLINE_ENTRIES"]

#: Heads with at most this many entries are written inside the certificate.
INLINE_ENTRIES = 1 << 16
#: Exact (non-binary) heads are always inline; refuse beyond this many entries.
MAX_EXACT_ENTRIES = 1 << 22
_CHECKER_NPY = {"<f8", "<f4"}
_MODEL_SUFFIXES = {".safetensors", ".npz", ".bin", ".pt", ".pth", ".ckpt", ".gguf"}


@dataclass
class Source:
    """A loaded head.

    Attributes
    ----------
    spec : HeadSpec
        What workers open.
    head_field : dict
        The certificate's ``head`` (inline ``W`` or a reference with ``sha256``).
    tokenizer : tokenizers.Tokenizer or None
    source : dict or None
        ``{"file", "sha256"}`` of the user's file (None for in-memory arrays).
    converted : str or None
        Why a canonical ``head.npy`` was written (None when none was).
    """

    spec: HeadSpec
    head_field: dict
    tokenizer: Tokenizer | None
    source: dict | None
    converted: str | None = None


def file_sha256(path: str | Path) -> str:
    """Hex SHA-256 of a whole file, read in 16 MiB pieces.

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "a")
    >>> _ = open(p, "wb").write(b"abc")
    >>> file_sha256(p)[:12]
    'ba7816bf8f01'
    """
    return _sha_range(str(path), 0, os.path.getsize(path))


def _sha_range(path: str, offset: int, nbytes: int) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        fh.seek(offset)
        left = nbytes
        while left:
            block = fh.read(min(left, 1 << 24))
            if not block:
                raise InvalidInput(f"{path} is shorter than its header says")
            h.update(block)
            left -= len(block)
    return h.hexdigest()


def _npy_data_range(path: Path) -> tuple[int, int]:
    with open(path, "rb") as fh:
        magic = fh.read(8)
        if magic[:6] != b"\x93NUMPY":
            raise InvalidInput(f"{path} is not a .npy file")
        n = 2 if magic[6] == 1 else 4
        hl = int.from_bytes(fh.read(n), "little")
    off = 8 + n + hl
    return off, path.stat().st_size - off


def _bias_tuple(bias, k: int, is_model: bool) -> tuple | None:
    if bias is None or bias is False:
        return None
    if isinstance(bias, str) and bias == "auto" and not is_model:
        raise InvalidInput("bias 'auto' (--bias without a value) looks for the bias tensor of "
                           "a model folder or weight file; for a matrix give a vector or a "
                           "vector file")
    if isinstance(bias, str | Path):
        from logitgeom.io import read_raw, read_vector

        raw = read_raw(bias, "bias file")
        if isinstance(raw, np.ndarray) and raw.dtype.kind == "f":
            return HeadSpec.from_array(np.zeros((k, 1)), raw.reshape(-1)).bias
        return HeadSpec.from_array(np.zeros((k, 1)),
                                   read_vector(bias, length=k, what="bias")).bias
    return HeadSpec.from_array(np.zeros((k, 1)), bias).bias


def _find_tokenizer(path: Path, tokenizer) -> Tokenizer | None:
    from logitgeom.models.tokens import load_tokenizer

    if tokenizer is not None:
        return load_tokenizer(tokenizer)
    cand = path if path.is_dir() else path.parent
    if (cand / "tokenizer.json").is_file():
        try:
            return load_tokenizer(cand)
        except InvalidInput:
            return None
    return None


def _canonical_dtype(chunks) -> np.dtype:
    for c in chunks():
        if not np.array_equal(c.astype(np.float32).astype(np.float64), c):
            return np.dtype("<f8")
    return np.dtype("<f4")


def _write_canonical(out: Path, k: int, d: int, chunks) -> None:
    """Write rows (float64 chunks, in order) as a little-endian C-order .npy, float32 when
    every value is one (exact either way)."""
    dt = _canonical_dtype(chunks)
    tmp = out.with_name(f".{out.name}.tmp")
    arr = np.lib.format.open_memmap(tmp, mode="w+", dtype=dt, shape=(k, d))
    r = 0
    for c in chunks():
        if not np.all(np.isfinite(c)):
            bad = int(np.argwhere(~np.isfinite(c))[0][0]) + r
            del arr
            tmp.unlink()
            raise InvalidInput(f"head row {bad} has a NaN or infinite entry")
        arr[r:r + len(c)] = c
        r += len(c)
    arr.flush()
    del arr
    os.chmod(tmp, 0o666 & ~_umask())
    os.replace(tmp, out)


def _umask() -> int:
    m = os.umask(0)
    os.umask(m)
    return m


def _checker_layout(p: Path) -> bool:
    """Whether the checker reads this ``.npy`` as it is (logitgeom_certificates.api.NPY_HEADER)."""
    from logitgeom_certificates.api import NPY_HEADER

    with open(p, "rb") as fh:
        magic = fh.read(10)
        header = fh.read(int.from_bytes(magic[8:], "little"))
    return magic[:8] == b"\x93NUMPY\x01\x00" and NPY_HEADER.fullmatch(header) is not None


def _ref_field(path: Path, out_dir: Path | None) -> dict:
    off, nb = _npy_data_range(path)
    f = str(path.resolve())
    if out_dir is not None:
        f = os.path.relpath(f, out_dir.resolve())
    return {"format": "npy", "file": f, "sha256": _sha_range(str(path), off, nb)}


def _inline_field(spec: HeadSpec) -> dict:
    head = open_head(spec)
    return {"W": [[fraction_to_str(q) for q in head.exact_row(i)] for i in range(head.k)]}


def _from_matrix(M, bias, work: Path, out_dir: Path | None, source: dict | None,
                 is_model: bool = False) -> Source:
    """An in-memory matrix (array, lists, Fractions): inline when small or exact, else a
    canonical head.npy."""
    if isinstance(M, np.ndarray) and M.dtype.kind in "iub":
        M = _int_to_float(M, "W")
    if isinstance(M, np.ndarray) and M.dtype.kind == "f":
        if M.ndim != 2 or M.shape[0] < 1 or M.shape[1] < 1:
            raise InvalidInput(f"W must be a non-empty 2-D matrix; got shape {M.shape}")
        if not np.all(np.isfinite(M)):
            bad = int(np.argwhere(~np.isfinite(M))[0][0])
            raise InvalidInput(f"head row {bad} has a NaN or infinite entry")
        k, d = M.shape
        bvals = _bias_tuple(bias, k, is_model)
        # in memory (no output folder) the certificate must stand alone: inline up to 2^20
        if k * d <= (INLINE_ENTRIES if out_dir is not None else 1 << 20):
            spec = HeadSpec("inline", inline=HeadSpec.from_array(M).inline, bias=bvals)
            return Source(spec, _inline_field(spec), None, source)
        p = work / "head.npy"
        A = np.asarray(M, dtype=np.float64)
        step = max(1, (1 << 22) // d)
        _write_canonical(p, k, d, lambda: (A[r:r + step] for r in range(0, k, step)))
        spec = HeadSpec("npy", path=str(p.resolve()), bias=bvals)
        return Source(spec, _ref_field(p, out_dir), None, source, "in-memory or text matrix")
    inline = HeadSpec.from_array(M).inline
    assert inline is not None  # from_array always builds an inline spec (its rows)
    k, d = len(inline), len(inline[0])
    bvals = _bias_tuple(bias, k, is_model)
    spec = HeadSpec("inline", inline=inline, bias=bvals)
    if k * d <= INLINE_ENTRIES or not open_head(spec).exact_rows_binary():
        if k * d > MAX_EXACT_ENTRIES:
            raise InvalidInput(f"an exact rational head of {k} x {d} entries is too large "
                               f"(limit {MAX_EXACT_ENTRIES}); give binary floats (.npy)")
        return Source(spec, _inline_field(spec), None, source)
    return _from_matrix(np.array(inline, dtype=np.float64), bias, work, out_dir, source)


def _int_to_float(A: np.ndarray, what: str) -> np.ndarray:
    if A.dtype.kind == "b":
        raise InvalidInput(f"{what} has boolean dtype; give numbers")
    if A.size and A.dtype.itemsize >= 8 and np.max(np.abs(A.astype(np.float64))) > 2.0**53:
        raise InvalidInput(f"{what} has integers beyond 2^53, which float64 cannot hold "
                           "exactly; give a rational .csv/.json instead")
    return A.astype(np.float64)


def _orientation(p: Path, k: int, d: int, transpose: bool, rows_are_labels: bool) -> None:
    """A matrix file with fewer rows than columns looks like a (d, vocab) head: refuse the
    guess, name the two flags."""
    if k < d and not transpose and not rows_are_labels:
        raise InvalidInput(f"{p.name}: {k} rows x {d} columns, fewer rows (labels) than "
                           "columns (the hidden dimension); a head stored as (d, vocab) needs "
                           "--transpose, and --rows-are-labels says the rows are the labels")


def load_source(source, *, bias=None, tensor: str | None = None, transpose: bool = False,
                tokenizer=None, work: Path, out_dir: Path | None = None,
                rows_are_labels: bool = False) -> Source:
    """Load the head (and bias, tokenizer) from an array, a matrix file or a checkpoint.

    Parameters
    ----------
    source : array_like or path
    bias, tensor, transpose, tokenizer, rows_are_labels
        As in :func:`logitgeom.audit.audit_argmax` (a matrix file with fewer rows than columns
        needs ``transpose`` or ``rows_are_labels``).
    work : Path
        Folder for a canonical ``head.npy`` (the output folder, or a temporary one).
    out_dir : Path, optional
        The output folder (file references are written relative to it).

    Returns
    -------
    Source

    Raises
    ------
    InvalidInput
        One line naming the problem (missing or corrupt file, unreadable dtype, NaN/inf
        rows, empty head, d = 0, bad bias).
    """
    if transpose and rows_are_labels:  # each says which axis holds the labels
        raise InvalidInput("transpose (--transpose: the head is stored as (d, vocab)) and "
                           "rows_are_labels (--rows-are-labels: the rows are the labels) "
                           "contradict each other; give one")
    if tensor is not None and not isinstance(tensor, str):
        raise InvalidInput(f"tensor must be a tensor name (str); got {type(tensor).__name__}")
    if not isinstance(source, str | Path):
        _unused(tensor, tokenizer, transpose, "an in-memory matrix")
        return _from_matrix(source, bias, work, out_dir, None)
    p = Path(source).expanduser()
    if not p.exists():
        raise InvalidInput(f"source not found: {p} (logitgeom never downloads)")
    if not (p.is_dir() or p.is_file()):  # a pipe, device or socket: refused, named
        from logitgeom.io import check_input_file

        check_input_file(p, "head file (or model folder)", max_bytes=None)
    if p.is_file() and not os.access(p, os.R_OK):
        raise InvalidInput(f"{p} is not readable (permission denied)")
    if p.is_file() and p.name.endswith(".index.json"):  # a sharded checkpoint's index
        p = p.parent
    suffix = p.suffix.lower()
    is_model = p.is_dir() or suffix in _MODEL_SUFFIXES
    if p.is_file() and suffix in {".csv", ".json", ".txt", ".tsv"}:
        from logitgeom.io import read_matrix

        _unused(tensor, tokenizer, False, f"{p.name}, a matrix file")

        if isinstance(bias, str) and bias == "auto":
            _bias_tuple(bias, 1, False)
        M: Sequence[Sequence[Fraction]] = read_matrix(p)
        if transpose:
            M = [list(r) for r in zip(*M, strict=True)]
        _orientation(p, len(M), len(M[0]) if len(M) else 0, transpose, rows_are_labels)
        return _from_matrix(M, bias, work, out_dir, _src(p))
    if p.is_file() and suffix == ".npy":
        _unused(tensor, None, False, f"{p.name}, a matrix file")
        return _from_npy(p, bias, transpose, tokenizer, work, out_dir, rows_are_labels)
    if not is_model:
        raise InvalidInput(f"{p}: unsupported head file type {suffix!r} (use .npy, .csv, "
                           ".json, .safetensors, .npz, .bin/.pt, .gguf or a model folder)")
    return _from_checkpoint(p, bias, tensor, transpose, tokenizer, work, out_dir)


def _unused(tensor, tokenizer, transpose, what: str) -> None:
    """Refuse an option the source does not use (honoured or refused, never ignored)."""
    if tensor is not None:
        raise InvalidInput(f"tensor {tensor!r} (--tensor) does not apply to {what}: a tensor "
                           "name selects the head of a model folder or weight file"[:300])
    if tokenizer is not None:
        raise InvalidInput(f"tokenizer (--tokenizer) does not apply to {what}: it names the "
                           "labels of a .npy head, a model folder or a weight file (name a "
                           "matrix file's labels with label_names / --labels)")
    if transpose is not None and transpose is not False:
        raise InvalidInput(f"transpose (--transpose) does not apply to {what}: transpose it "
                           "before passing it")


def _src(p: Path) -> dict:
    return {"file": p.name, "sha256": file_sha256(p)}


def _from_npy(p: Path, bias, transpose, tokenizer, work, out_dir,
              rows_are_labels: bool = False) -> Source:
    from logitgeom.io import check_npy_header

    check_npy_header(p)  # a header that lies about the data: named, not an overflow
    try:
        arr = np.load(p, mmap_mode="r", allow_pickle=False)
    except (ValueError, OSError, EOFError) as exc:
        raise InvalidInput(f"{p} is not a readable .npy array: {str(exc)[:160]}") from None
    if arr.ndim != 2:
        raise InvalidInput(f"{p}: the head must be a 2-D matrix; got shape {arr.shape}")
    if arr.dtype.kind == "f" and arr.dtype.itemsize > 8:
        raise InvalidInput(f"{p}: the head is {arr.dtype} (extended precision), which the "
                           "argmax audit and occupancy do not read: rounding it to float64 "
                           "would change the head; save it as float64 or as exact text (.csv)")
    if arr.dtype.kind not in "fiu" or arr.dtype.itemsize > 8:
        raise InvalidInput(f"{p}: unreadable head dtype {arr.dtype} (need real floats or "
                           "integers)")
    k, d = (arr.shape[1], arr.shape[0]) if transpose else arr.shape
    if k < 1 or d < 1:
        raise InvalidInput(f"{p}: the head is empty (shape {arr.shape}); need at least 2 rows "
                           "and 1 column")
    _orientation(p, k, d, transpose, rows_are_labels)
    bvals = _bias_tuple(bias, k, False)
    tok = _find_tokenizer(p, tokenizer)
    src = _src(p)
    if k * d <= INLINE_ENTRIES:  # small heads inline: a copied output folder still checks
        A = np.asarray(arr.T if transpose else arr)
        A = _int_to_float(A, p.name) if A.dtype.kind in "iu" else A.astype(np.float64)
        if not np.all(np.isfinite(A)):
            raise InvalidInput(f"head row {int(np.argwhere(~np.isfinite(A))[0][0])} has a NaN "
                               "or infinite entry")
        spec = HeadSpec("inline", inline=HeadSpec.from_array(A).inline, bias=bvals)
        return Source(spec, _inline_field(spec), tok, src)
    direct = (arr.dtype.str in _CHECKER_NPY and arr.flags.c_contiguous
              and not np.isfortran(arr) and not transpose and _checker_layout(p))
    if direct:
        spec = HeadSpec("npy", path=str(p.resolve()), bias=bvals)
        return Source(spec, _ref_field(p, out_dir), tok, src)
    view = arr.T if transpose else arr
    step = max(1, (1 << 22) // max(1, d))

    def chunks():
        for r in range(0, k, step):
            c = np.asarray(view[r:r + step])
            if c.dtype.kind in "iu":
                c = _int_to_float(c, f"{p.name}")
            yield c.astype(np.float64)

    why = (f"{'transposed ' if transpose else ''}{arr.dtype} "
           f"{'Fortran' if np.isfortran(arr) else 'C'}-ordered .npy")
    return _converted(k, d, chunks, bvals, tok, src, why, work, out_dir)


def _from_checkpoint(p: Path, bias, tensor, transpose, tokenizer, work, out_dir) -> Source:
    from logitgeom.models.loaders import locate_head, open_checkpoint

    ck = open_checkpoint(p)
    # a string names the checkpoint's bias tensor ("auto": the usual one); an array or a
    # path is a bias vector given beside the checkpoint
    vector = bias is not None and bias is not False and not isinstance(bias, str)
    loc = locate_head(ck, tensor=tensor, bias=None if vector else bias, transpose=transpose)
    k, d = loc.vocab, loc.d
    if k < 1 or d < 1:
        raise InvalidInput(f"head {loc.tensor!r} is empty (shape {ck.shape(loc.tensor)})")
    bvals = None
    if vector:
        bvals = _bias_tuple(bias, k, True)
    elif loc.bias_tensor is not None:
        bvals = _bias_tuple(ck.read(loc.bias_tensor).reshape(-1), k, True)
    tok = _find_tokenizer(p, tokenizer)
    src = _src(loc.file)
    step = max(1, (1 << 22) // max(1, d))
    full = ck.read(loc.tensor).T if transpose else None

    def chunks():
        for r in range(0, k, step):
            rows = np.arange(r, min(k, r + step))
            yield full[rows] if full is not None else ck.read(loc.tensor, rows)

    return _converted(k, d, chunks, bvals, tok, src,
                      f"{loc.dtype} tensor {loc.tensor!r} ({ck.layout})", work, out_dir)


def _converted(k, d, chunks, bvals, tok, src, why, work: Path, out_dir: Path | None) -> Source:
    """A file head the checker cannot read as it is, written as a canonical ``head.npy``
    (exact); inline instead when the certificate must stand alone (no output folder, whose
    ``work`` folder is temporary) and the head has at most 2^20 entries, as in memory."""
    out = work / "head.npy"
    _write_canonical(out, k, d, chunks)
    if k * d <= INLINE_ENTRIES or (out_dir is None and k * d <= 1 << 20):
        spec = HeadSpec("inline", inline=HeadSpec.from_array(np.load(out)).inline, bias=bvals)
        return Source(spec, _inline_field(spec), tok, src)
    spec = HeadSpec("npy", path=str(out.resolve()), bias=bvals)
    return Source(spec, _ref_field(out, out_dir), tok, src, why)
