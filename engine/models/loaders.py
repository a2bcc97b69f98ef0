"""Load an LM head (unembedding matrix) from local weight files; never downloads.

Sources: a ``.safetensors`` file; a folder holding one or several ``*.safetensors``
shards (with ``model.safetensors.index.json`` when sharded); ``.npz`` / ``.npy``; a
PyTorch state dict (``.bin``, ``.pt``, ``.pth``, ``.ckpt``, or a folder with
``pytorch_model.bin`` / ``pytorch_model.bin.index.json``) when torch is installed, loaded
with ``weights_only=True``; a ``.gguf`` file (llama.cpp) when the ``gguf`` package is
installed, F32/F16/BF16/F64 widened exactly and Q8_0 dequantized exactly as the format
defines (value = f16 block scale x int8; the product is exact in float64), other
quantizations by the ``gguf`` package's reference dequantizer.

The head is found by name: the first of :data:`HEAD_NAMES` present (an untied
``lm_head.weight`` wins over tied input embeddings such as ``model.embed_tokens.weight`` or
``transformer.wte.weight``), else a unique tensor whose name ends in one of them, else
the name the user gives.  Rows are tokens: the head has shape (vocab, d).  Values are
returned as float64; bf16/f16/f32 widen exactly, so they are the numbers on disk.

Examples
--------
>>> import os, tempfile
>>> import numpy as np
>>> p = os.path.join(tempfile.mkdtemp(), "head.npz")
>>> np.savez(p, **{"lm_head.weight": np.arange(6.0).reshape(3, 2)})
>>> head = load_lm_head(p, rows=[2, 0])
>>> head.tensor, head.vocab_size, head.weight.tolist()
('lm_head.weight', 3, [[4.0, 5.0], [0.0, 1.0]])
"""

from __future__ import annotations

import json
import warnings
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from logitgeom.errors import InvalidInput, TooLarge
from logitgeom.models.safetensors_io import SafetensorsFile

__all__ = ["HEAD_NAMES", "BIAS_NAMES", "LMHead", "Checkpoint", "HeadLocation",
           "list_tensors", "load_lm_head", "open_checkpoint", "locate_head"]

#: Output-projection names, in order of preference (untied heads first, then tied embeddings).
HEAD_NAMES: tuple[str, ...] = (
    "lm_head.weight",
    "embed_out.weight",
    "output.weight",
    "W_U",
    "unembedding",
    "model.embed_tokens.weight",
    "transformer.wte.weight",
    "model.decoder.embed_tokens.weight",
    "gpt_neox.embed_in.weight",
    "transformer.word_embeddings.weight",
    "tok_embeddings.weight",
    "embed_tokens.weight",
    "wte.weight",
    "shared.weight",
    "token_embd.weight",
    "W",
)
#: Names that are input embeddings (a head found under them is tied).
_TIED = {
    "model.embed_tokens.weight", "transformer.wte.weight", "model.decoder.embed_tokens.weight",
    "gpt_neox.embed_in.weight", "transformer.word_embeddings.weight", "tok_embeddings.weight",
    "embed_tokens.weight", "wte.weight", "shared.weight", "token_embd.weight",
}
#: Output-bias names looked for when ``bias="auto"``.
BIAS_NAMES: tuple[str, ...] = ("lm_head.bias", "embed_out.bias", "output.bias",
                               "final_logits_bias", "b_U")
#: Refuse to materialise more than this many float64 entries without ``rows``.
MAX_ENTRIES = 1 << 28


@dataclass(frozen=True)
class LMHead:
    """An LM head read from disk.

    Attributes
    ----------
    weight : numpy.ndarray
        float64, shape (len(rows), d), or (vocab, d) when all rows were read.
    bias : numpy.ndarray or None
        float64 output bias for the same rows, or None.
    tensor, bias_tensor : str, str or None
        The tensor names used.
    tied : bool
        True when the head is an input embedding (tied weights).
    vocab_size : int
        Rows of the full tensor on disk.
    rows : tuple of int or None
        The token ids read, in order; None when all rows were read.
    source : str
        The path loaded.
    """

    weight: np.ndarray
    bias: np.ndarray | None
    tensor: str
    bias_tensor: str | None
    tied: bool
    vocab_size: int
    rows: tuple[int, ...] | None
    source: str

    @property
    def d(self) -> int:
        """Hidden width."""
        return int(self.weight.shape[1])


# --------------------------------------------------------------------------- stores


class _Store:
    """Tensors of a checkpoint by name: ``shapes`` and ``read(name, rows)``."""

    source: Path
    shapes: dict[str, tuple[int, ...]]

    def read(self, name: str, rows: np.ndarray | None) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError


class _SafetensorsStore(_Store):
    def __init__(self, source: Path, files: list[Path]):
        self.source = source
        self.files = [SafetensorsFile(f) for f in files]
        self.where: dict[str, SafetensorsFile] = {}
        self.shapes = {}
        for f in self.files:
            for name in f.names():
                if name in self.where:
                    raise InvalidInput(
                        f"tensor {name!r} appears in both {self.where[name].path.name} and "
                        f"{f.path.name}; give one file or add model.safetensors.index.json"
                    )
                self.where[name] = f
                self.shapes[name] = f.shape(name)

    def read(self, name, rows):
        return self.where[name].read(name, rows)


class _ArrayStore(_Store):
    def __init__(self, source: Path, arrays: dict[str, np.ndarray]):
        self.source = source
        self.arrays = arrays
        self.shapes = {k: tuple(int(s) for s in v.shape) for k, v in arrays.items()}

    def read(self, name, rows):
        a = self.arrays[name]
        if rows is not None:
            a = a[rows]
        if not np.issubdtype(a.dtype, np.number) or np.issubdtype(a.dtype, np.complexfloating):
            raise InvalidInput(f"{self.source}: tensor {name!r} has non-real dtype {a.dtype}")
        if a.dtype.kind == "f" and a.dtype.itemsize > 8:  # never rounded to float64 silently
            raise InvalidInput(f"{self.source}: tensor {name!r} is {a.dtype} (extended "
                               "precision); the float paths would round it to float64; save "
                               "it as float64, or as exact text (.csv) for the exact commands")
        if a.dtype.kind in "iu" and a.dtype.itemsize > 4 and a.size \
                and int(np.abs(a).max()) > 2 ** 53:
            raise InvalidInput(f"{self.source}: tensor {name!r} has integers beyond 2^53, "
                               "which float64 does not hold exactly")
        return np.array(a, dtype=np.float64)


class _TorchStore(_Store):
    def __init__(self, source: Path, files: list[Path]):
        try:
            import torch
        except ImportError as exc:
            raise InvalidInput(
                f"{source} is a PyTorch checkpoint but torch is not installed; install the "
                "'models' extra or convert the head to .safetensors / .npz"
            ) from exc
        self.source = source
        self.files = list(files)
        self.tensors: dict[str, object] = {}
        for f in files:
            sd = _torch_load(torch, f)
            for key in ("state_dict", "model", "module"):
                if isinstance(sd, dict) and isinstance(sd.get(key), dict) and len(sd) <= 4:
                    sd = sd[key]
            if not isinstance(sd, dict):
                raise InvalidInput(f"{f} does not hold a state dict (got {type(sd).__name__})")
            for k, v in sd.items():
                if isinstance(v, torch.Tensor):
                    self.tensors[str(k)] = v
        self.shapes = {k: tuple(int(s) for s in v.shape) for k, v in self.tensors.items()}

    def read(self, name, rows):
        import torch

        t = self.tensors[name]
        if rows is not None:
            t = t[torch.as_tensor(rows, dtype=torch.long)]
        if t.is_complex() or t.dtype == torch.bool:
            raise InvalidInput(f"{self.source}: tensor {name!r} has non-real dtype {t.dtype}")
        return t.detach().to(torch.float64).numpy().copy()


class _GGUFStore(_Store):
    """Tensors of a GGUF file (llama.cpp).  GGUF stores shapes fastest dimension first; the
    arrays here are in numpy order, so ``token_embd.weight`` is (vocab, d)."""

    def __init__(self, source: Path):
        try:
            import gguf
        except ImportError as exc:
            raise InvalidInput(f"{source} is a GGUF file but the gguf package is not "
                               "installed; install the 'models' extra") from exc
        if not source.is_file():
            raise InvalidInput(f"{source} is not a regular file")
        try:
            reader = gguf.GGUFReader(source)
        except (KeyboardInterrupt, MemoryError):
            raise
        except Exception as exc:  # the reader raises many types on corrupt files
            raise InvalidInput(f"{source} is not a readable GGUF file ({type(exc).__name__}: "
                               f"{str(exc)[:120]})") from None
        self.source = source
        self._gguf = gguf
        self.tensors = {t.name: t for t in reader.tensors}
        self.shapes = {n: tuple(int(v) for v in reversed(t.shape.tolist()))
                       for n, t in self.tensors.items()}

    def dtype(self, name: str) -> str:
        return self.tensors[name].tensor_type.name

    def read(self, name, rows):
        t = self.tensors[name]
        qt = t.tensor_type.name
        data = t.data
        if rows is not None and data.ndim >= 1 and data.shape[0] == self.shapes[name][0]:
            data = data[rows]
            shape = (len(rows), *self.shapes[name][1:])
        else:
            shape = self.shapes[name]
        if qt in ("F32", "F16", "F64"):
            out = np.array(data, dtype=np.float64)
        elif qt == "BF16":
            out = (np.asarray(data).view(np.uint16).astype(np.uint32) << 16).view(
                np.float32).astype(np.float64)
        elif qt == "Q8_0":
            out = _dequantize_q8_0(np.asarray(data, dtype=np.uint8))
        else:
            try:
                out = np.asarray(self._gguf.quants.dequantize(np.asarray(data), t.tensor_type),
                                 dtype=np.float64)
            except (NotImplementedError, ValueError, TypeError) as exc:
                raise InvalidInput(f"{self.source}: tensor {name!r} has GGUF type {qt}, which "
                                   f"this installation cannot dequantize ({exc})") from None
        return out.reshape(shape) if out.size == int(np.prod(shape)) else out


def _dequantize_q8_0(raw: np.ndarray) -> np.ndarray:
    """GGML Q8_0: blocks of 34 bytes, a float16 scale d then 32 int8 q; value = d * q
    (exact in float64: 11 + 8 significant bits)."""
    lead = raw.shape[:-1]
    blocks = raw.reshape(*lead, -1, 34)
    d = blocks[..., :2].copy().view("<f2").astype(np.float64)
    q = blocks[..., 2:].copy().view(np.int8).astype(np.float64)
    return (d * q).reshape(*lead, -1)


_TORCH_SUFFIXES = {".bin", ".pt", ".pth", ".ckpt"}


def _torch_load(torch, f: Path):
    """``torch.load`` with ``weights_only=True`` (no code runs), memory-mapped when the file
    is a zip checkpoint; a legacy (non-zip) pickle is loaded without mmap.  Every failure,
    including the legacy pickle's own errors, is one :class:`InvalidInput`."""
    if not f.is_file():
        raise InvalidInput(f"{f} is not a regular file")
    try:
        with warnings.catch_warnings():  # torch's pickle-protocol notes are not the user's
            warnings.simplefilter("ignore", UserWarning)
            if zipfile.is_zipfile(f):
                return torch.load(f, map_location="cpu", weights_only=True, mmap=True)
            return torch.load(f, map_location="cpu", weights_only=True)
    except (KeyboardInterrupt, MemoryError):
        raise
    except Exception as exc:  # unpickling raises many types; all mean "unreadable"
        msg = str(exc).strip().splitlines()[0].split(". ")[0][:160] if str(exc).strip() else ""
        raise InvalidInput(f"{f} is not a readable PyTorch state dict ({type(exc).__name__}"
                           f"{': ' + msg if msg else ''}); only tensors are loaded "
                           "(weights_only), convert other checkpoints to .safetensors") from None


def _index_files(index: Path) -> list[Path]:
    try:
        data = json.loads(index.read_text())
        files = sorted(set(data["weight_map"].values()))
    except (json.JSONDecodeError, KeyError, TypeError, AttributeError) as exc:
        raise InvalidInput(f"{index} is not a valid shard index (needs 'weight_map')") from exc
    paths = [index.parent / f for f in files]
    missing = [p.name for p in paths if not p.is_file()]
    if missing:
        raise InvalidInput(f"{index.name} names shard(s) missing from {index.parent}: {missing}")
    return paths


def _open(source: str | Path) -> _Store:
    p = Path(source).expanduser()
    if not p.exists():
        raise InvalidInput(
            f"model file or folder not found: {p} (logitgeom never downloads; give a local "
            ".safetensors / .npz / .npy / .bin file or a folder holding one)"
        )
    if p.is_dir():
        for index, kind in (("model.safetensors.index.json", "st"),
                            ("pytorch_model.bin.index.json", "pt")):
            if (p / index).is_file():
                files = _index_files(p / index)
                return _SafetensorsStore(p, files) if kind == "st" else _TorchStore(p, files)
        st = sorted(p.glob("*.safetensors"))
        if st:
            return _SafetensorsStore(p, st)
        pt = sorted(f for f in p.iterdir() if f.suffix in _TORCH_SUFFIXES and f.is_file())
        if len(pt) == 1:
            return _TorchStore(p, pt)
        gg = sorted(f for f in p.iterdir() if f.suffix == ".gguf" and f.is_file())
        if len(gg) == 1:
            return _GGUFStore(gg[0])
        arrays = sorted(f for f in p.iterdir() if f.suffix in {".npz", ".npy"})
        if len(arrays) == 1:
            return _open(arrays[0])
        raise InvalidInput(
            f"{p} holds no unambiguous weight file: expected *.safetensors (with "
            "model.safetensors.index.json when sharded), one PyTorch file, or one .npz/.npy; "
            f"found {sorted(f.name for f in p.iterdir())[:20]}"
        )
    suffix = p.suffix.lower()
    if suffix == ".safetensors":
        return _SafetensorsStore(p, [p])
    if suffix == ".json" and p.name.endswith(".index.json"):
        files = _index_files(p)
        if all(f.suffix == ".safetensors" for f in files):
            return _SafetensorsStore(p, files)
        return _TorchStore(p, files)
    if suffix == ".npy":
        from logitgeom.io import check_npy_header

        check_npy_header(p)
        try:
            arr = np.load(p, allow_pickle=False, mmap_mode="r")
        except ValueError as exc:
            raise InvalidInput(f"{p} is not a readable .npy array: {exc}") from exc
        return _ArrayStore(p, {"": arr})
    if suffix == ".npz":
        try:
            with np.load(p, allow_pickle=False) as z:
                arrays = {k: z[k] for k in z.files}
        except (ValueError, OSError, zipfile.BadZipFile, EOFError, KeyError) as exc:
            raise InvalidInput(f"{p} is not a readable .npz archive: {exc}") from None
        return _ArrayStore(p, arrays)
    if suffix in _TORCH_SUFFIXES:
        return _TorchStore(p, [p])
    if suffix == ".gguf":
        return _GGUFStore(p)
    raise InvalidInput(
        f"{p}: unsupported weight file type {suffix!r} "
        "(use .safetensors, .npz, .npy, .bin/.pt/.pth, .gguf, or a model folder)"
    )


# --------------------------------------------------------------------------- public


def list_tensors(source: str | Path) -> dict[str, tuple[int, ...]]:
    """Names and shapes of the tensors in a local checkpoint (no data is read).

    Parameters
    ----------
    source : str or Path
        A weight file or model folder (see the module docstring).

    Returns
    -------
    dict
        ``{name: shape}`` sorted by name; a ``.npy`` file has the single name ``""``.

    Raises
    ------
    InvalidInput
        Missing path, unsupported or corrupt file.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> p = os.path.join(tempfile.mkdtemp(), "W.npy")
    >>> np.save(p, np.zeros((5, 3)))
    >>> list_tensors(p)
    {'': (5, 3)}
    """
    store = _open(source)
    return {k: store.shapes[k] for k in sorted(store.shapes)}


def _find_head(store: _Store, tensor: str | None) -> str:
    names = store.shapes
    if tensor is not None:
        if tensor not in names:
            close = sorted(n for n in names if tensor.split(".")[-1] in n)[:10]
            raise InvalidInput(
                f"no tensor named {tensor!r} in {store.source}"
                + (f"; similar names: {close}" if close else f"; it has {len(names)} tensors")
                + " (see `list_tensors`)"
            )
        return tensor
    if list(names) == [""]:
        return ""
    for name in HEAD_NAMES:
        if name in names:
            return name
    for name in HEAD_NAMES:
        if "." not in name:
            continue
        hits = sorted(n for n in names if n.endswith("." + name))
        if len(hits) == 1:
            return hits[0]
        if len(hits) > 1:
            raise InvalidInput(f"several candidate heads in {store.source}: {hits}; pick one "
                               "with tensor=NAME (--tensor)")
    two_d = sorted(n for n, s in names.items() if len(s) == 2)
    if len(two_d) == 1 and len(names) == 1:
        return two_d[0]
    raise InvalidInput(
        f"no LM head found in {store.source} under the usual names ({', '.join(HEAD_NAMES[:6])}, "
        f"...); give tensor=NAME (--tensor); 2-D tensors present: {two_d[:15]}"
    )


def _find_bias(store: _Store, bias: str | bool | None, head: str) -> str | None:
    if bias is None or bias is False:
        return None
    if isinstance(bias, str) and bias != "auto":
        if bias not in store.shapes:
            raise InvalidInput(f"no bias tensor named {bias!r} in {store.source}")
        return bias
    prefix = head.rsplit(".", 1)[0] if "." in head else None
    candidates = ([f"{prefix}.bias"] if prefix else []) + list(BIAS_NAMES)
    for name in candidates:
        if name in store.shapes and name != head:
            return name
    if bias is True:
        raise InvalidInput(f"no output bias found in {store.source} (looked for {candidates})")
    return None


def _rows_array(rows: Sequence[int] | None, vocab: int) -> np.ndarray | None:
    if rows is None:
        return None
    out = []
    for r in rows:
        if isinstance(r, bool) or not isinstance(r, int | np.integer):
            raise InvalidInput(f"row/token ids must be integers; got {r!r}")
        if not 0 <= int(r) < vocab:
            raise InvalidInput(f"token id {int(r)} is out of range for a head with {vocab} rows")
        out.append(int(r))
    if not out:
        raise InvalidInput("rows is empty: give at least one token id")
    return np.array(out, dtype=np.int64)


def load_lm_head(
    source: str | Path,
    *,
    tensor: str | None = None,
    bias: str | bool | None = "auto",
    rows: Sequence[int] | None = None,
    transpose: bool = False,
) -> LMHead:
    """Read an LM head (vocab x d) from a local checkpoint.

    Parameters
    ----------
    source : str or Path
        A ``.safetensors`` / ``.npz`` / ``.npy`` / PyTorch file, a shard index, or a folder.
    tensor : str, optional
        Tensor name of the head; by default the first of :data:`HEAD_NAMES` present.
    bias : "auto", str, True, False or None
        ``"auto"`` uses an output bias when one is present under a usual name;
        a string names the bias tensor; True requires one; False/None ignores biases.
    rows : sequence of int, optional
        Token ids to read (in this order); by default every row.  Give rows for large heads.
    transpose : bool
        The tensor is stored as (d, vocab) (e.g. TransformerLens ``W_U``).

    Returns
    -------
    LMHead

    Raises
    ------
    InvalidInput
        Missing file, unknown tensor or bias name, head not 2-D, bias length different from
        the vocabulary, token id out of range, NaN/inf entries in the rows read.
    TooLarge
        More than 2**28 entries requested without ``rows``.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> p = os.path.join(tempfile.mkdtemp(), "W.npy")
    >>> np.save(p, np.eye(3, dtype=np.float32))
    >>> load_lm_head(p, rows=[1]).weight.tolist()
    [[0.0, 1.0, 0.0]]
    >>> load_lm_head(p, tensor="lm_head.weight")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    logitgeom.errors.InvalidInput: no tensor named 'lm_head.weight' in ... (see `list_tensors`)
    """
    store = _open(source)
    name = _find_head(store, tensor)
    shape = store.shapes[name]
    if len(shape) != 2:
        raise InvalidInput(f"tensor {name!r} has shape {shape}; an LM head must be 2-D (vocab, d)")
    vocab, d = (shape[1], shape[0]) if transpose else shape
    idx = _rows_array(rows, vocab)
    if idx is None and vocab * d > MAX_ENTRIES:
        raise TooLarge(
            f"head {name!r} has {vocab} x {d} = {vocab * d} entries; pass rows=[token ids] "
            f"(--tokens) to read only the rows you need (limit {MAX_ENTRIES})"
        )
    if transpose:
        full = store.read(name, None)
        W = full.T[idx] if idx is not None else full.T.copy()
    else:
        W = store.read(name, idx)
    bname = _find_bias(store, bias, name)
    b = None
    if bname is not None:
        bshape = store.shapes[bname]
        flat = int(np.prod(bshape)) if bshape else 1
        if flat != vocab or (len(bshape) == 2 and 1 not in bshape) or len(bshape) > 2:
            raise InvalidInput(
                f"bias {bname!r} has shape {bshape} but the head {name!r} has {vocab} rows; "
                "they must match (or pass bias=False / --bias none)"
            )
        bvec = store.read(bname, None).reshape(-1)
        b = bvec[idx] if idx is not None else bvec
    for arr, what in ((W, f"head {name!r}"), (b, f"bias {bname!r}")):
        if arr is not None and not np.all(np.isfinite(arr)):
            bad = np.argwhere(~np.isfinite(arr))[0].tolist()
            raise InvalidInput(f"{what} has a NaN or infinite entry at (row position) {bad}")
    return LMHead(
        weight=W,
        bias=b,
        tensor=name,
        bias_tensor=bname,
        tied=name in _TIED or any(name.endswith("." + t) for t in _TIED),
        vocab_size=int(vocab),
        rows=None if idx is None else tuple(int(i) for i in idx),
        source=str(Path(source)),
    )


# --------------------------------------------------------------------------- public stores


class Checkpoint:
    """A local checkpoint opened once: tensor names, shapes, storage dtypes and rows.

    Use :func:`open_checkpoint`.  ``read`` returns float64 (exact widening of float storage,
    exact Q8_0 dequantization).

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> p = os.path.join(tempfile.mkdtemp(), "W.npz")
    >>> np.savez(p, **{"lm_head.weight": np.eye(2)})
    >>> ck = open_checkpoint(p)
    >>> ck.find_head(), ck.shape("lm_head.weight"), ck.read("lm_head.weight", [1]).tolist()
    ('lm_head.weight', (2, 2), [[0.0, 1.0]])
    """

    def __init__(self, store: _Store):
        self._store = store
        self.source = store.source
        self.layout = {_SafetensorsStore: "safetensors", _ArrayStore: "array",
                       _TorchStore: "torch", _GGUFStore: "gguf"}[type(store)]

    @property
    def names(self) -> list[str]:
        """Tensor names, sorted."""
        return sorted(self._store.shapes)

    def shape(self, name: str) -> tuple[int, ...]:
        """Shape of a tensor in numpy order."""
        return self._store.shapes[name]

    def find_head(self, tensor: str | None = None) -> str:
        """The head tensor's name (the usual names, tied input embeddings last)."""
        return _find_head(self._store, tensor)

    def find_bias(self, bias: str | bool | None, head: str) -> str | None:
        """The output bias tensor's name (``"auto"``, a name, True = required, None)."""
        return _find_bias(self._store, bias, head)

    def read(self, name: str, rows=None) -> np.ndarray:
        """Rows of a tensor (all when ``rows`` is None) as float64."""
        return self._store.read(name, None if rows is None else np.asarray(rows, np.int64))

    def file_of(self, name: str) -> Path:
        """The file on disk holding the tensor."""
        st = self._store
        if isinstance(st, _SafetensorsStore):
            return st.where[name].path
        if isinstance(st, _TorchStore) and len(getattr(st, "files", [])) == 1:
            return st.files[0]
        return Path(st.source)

    def raw_float(self, name: str) -> tuple[str, int, int] | None:
        """(safetensors dtype, byte offset, byte length) when the tensor is stored as raw
        little-endian F64/F32/F16/BF16 in a safetensors file (readable by the stdlib
        checker in place), else None."""
        st = self._store
        if not isinstance(st, _SafetensorsStore):
            return None
        f = st.where[name]
        dt = f.dtype(name)
        if dt not in {"F64", "F32", "F16", "BF16"}:
            return None
        return (dt, *f.data_range(name))

    def dtype(self, name: str) -> str:
        """The storage dtype's name (safetensors/GGUF names, numpy or torch dtype)."""
        st = self._store
        if isinstance(st, _SafetensorsStore):
            return st.where[name].dtype(name)
        if isinstance(st, _GGUFStore):
            return st.dtype(name)
        if isinstance(st, _ArrayStore):
            return str(st.arrays[name].dtype)
        return str(st.tensors[name].dtype).replace("torch.", "")


@dataclass(frozen=True)
class HeadLocation:
    """Where an LM head lives in a checkpoint (no data read).

    Attributes
    ----------
    tensor, bias_tensor : str, str or None
    vocab, d : int
    tied : bool
        The head is the input embedding (no separate ``lm_head``).
    file : Path
        The file holding the head tensor.
    dtype : str
        Its storage dtype.
    """

    tensor: str
    bias_tensor: str | None
    vocab: int
    d: int
    tied: bool
    file: Path
    dtype: str


def open_checkpoint(source: str | Path) -> Checkpoint:
    """Open a local checkpoint (any source of :func:`load_lm_head`); reads headers only.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> p = os.path.join(tempfile.mkdtemp(), "W.npy")
    >>> np.save(p, np.zeros((3, 2)))
    >>> open_checkpoint(p).names
    ['']
    """
    return Checkpoint(_open(source))


def locate_head(ck: Checkpoint, *, tensor: str | None = None, bias=None,
                transpose: bool = False) -> HeadLocation:
    """Find the head (and bias) tensor in an opened checkpoint; tied embeddings are used
    when there is no separate output projection.

    Raises
    ------
    InvalidInput
        No head found, head not 2-D, bias of the wrong length.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> p = os.path.join(tempfile.mkdtemp(), "m.npz")
    >>> np.savez(p, **{"model.embed_tokens.weight": np.zeros((4, 2))})
    >>> loc = locate_head(open_checkpoint(p))
    >>> loc.tensor, loc.tied, loc.vocab, loc.d
    ('model.embed_tokens.weight', True, 4, 2)
    """
    name = ck.find_head(tensor)
    shape = ck.shape(name)
    if len(shape) != 2:
        raise InvalidInput(f"tensor {name!r} has shape {shape}; an LM head must be 2-D (vocab, d)")
    vocab, d = (shape[1], shape[0]) if transpose else shape
    bname = None
    if bias not in (None, False):
        bname = ck.find_bias(True if bias == "auto" else bias, name)
        bshape = ck.shape(bname)
        flat = int(np.prod(bshape)) if bshape else 1
        if flat != vocab or len(bshape) > 2:
            raise InvalidInput(f"bias {bname!r} has shape {bshape} but the head {name!r} has "
                               f"{vocab} rows; they must match")
    return HeadLocation(tensor=name, bias_tensor=bname, vocab=int(vocab), d=int(d),
                        tied=name in _TIED or any(name.endswith("." + t) for t in _TIED),
                        file=ck.file_of(name), dtype=ck.dtype(name))
