"""Running an argmax audit: sources, label blocks, shards, manifest, resume, summary.

The label blocks are independent work units handed to :func:`engine.run.executor.run_units`
(serial, a process pool or a Dask ``distributed.Client``).  Each finished block is written
as a JSON-lines shard (``shards/block-NNNNNN.jsonl``, written to a temporary name and
renamed atomically) and recorded with its SHA-256 in ``run.json`` (also renamed atomically),
so an interrupted run resumes where it stopped.  At the end the batch certificate
``audit.json`` (kind ``argmax-audit``, certificates/SPEC.md) and ``summary.json`` are
written.  Maths: docs/argmax-audit.md.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import numpy as np

from engine._fsio import write_atomic
from engine._version import __version__
from engine.audit.decide import Options, decide_block
from engine.audit.head import HeadSpec, open_head
from engine.errors import InvalidInput
from engine.exact.numbers import fraction_to_str, to_fraction

__all__ = ["AuditResult", "audit_argmax", "VERDICTS", "INLINE_ENTRIES"]

VERDICTS = ("argmaxable", "never", "undecided")
#: Heads with at most this many entries are written inside the certificate.
INLINE_ENTRIES = 1 << 16
#: In-memory heads above this many entries are saved to ``head.npy`` (workers map it).
_SPEC_INLINE_LIMIT = 1 << 20


@dataclass
class AuditResult:
    """Per-label verdicts of an argmax audit.

    Attributes
    ----------
    labels : tuple of int
        The audited labels, increasing.
    verdicts : dict
        ``{domain: {label: verdict}}`` with domain ``"all"`` (every x in R^d) and/or
        ``"box"`` (max_j abs(x_j) <= radius), verdict one of :data:`VERDICTS`.
    counts : dict
        ``{domain: {verdict: n}}``.
    names : dict
        Token strings of the labels that are not argmaxable (when a tokenizer was found).
    radius : Fraction or None
    certificate_path : Path or None
        ``audit.json`` when ``out`` was given.
    stage_seconds : dict
        CPU seconds (all threads of the worker) summed over blocks per pipeline stage
        (screen, ascent, lp, gordan, exact) and the number of exactly decided pairs.
    records : list of dict or None
        The per-label records (kept in memory only without ``out``).
    """

    labels: tuple[int, ...]
    verdicts: dict
    counts: dict
    names: dict
    radius: Fraction | None
    certificate_path: Path | None
    stage_seconds: dict
    records: list | None = field(default=None, repr=False)
    certificate_obj: dict | None = field(default=None, repr=False)
    k: int = 0
    d: int = 0
    seconds: float = 0.0

    def never(self, domain: str = "all") -> list[int]:
        """Labels proven never to be the strict argmax."""
        return [k for k, v in self.verdicts[domain].items() if v == "never"]

    def undecided(self, domain: str = "all") -> list[int]:
        return [k for k, v in self.verdicts[domain].items() if v == "undecided"]

    def certificate(self) -> dict:
        """The ``argmax-audit`` certificate (records inline when run without ``out``)."""
        if self.certificate_obj is not None:
            return self.certificate_obj
        return json.loads(Path(self.certificate_path).read_text())

    def summary(self) -> list[str]:
        """Human-readable lines: counts per domain and the unargmaxable tokens by name."""
        lines = [f"argmax audit of {len(self.labels)} of {self.k} labels (d = {self.d})"
                 f" in {self.seconds:.1f} s"]
        for dom, c in self.counts.items():
            what = "all inputs" if dom == "all" else f"inputs with max_j |x_j| <= {self.radius}"
            lines.append(f"  {what}: " + ", ".join(f"{c[v]} {v}" for v in VERDICTS))
            nv = self.never(dom)
            if nv:
                shown = ", ".join(f"{k} {self.names.get(k, '')!r}" if k in self.names else str(k)
                                  for k in nv[:50])
                more = f" (+{len(nv) - 50} more)" if len(nv) > 50 else ""
                lines.append(f"    never the argmax: {shown}{more}")
        if self.certificate_path is not None:
            lines.append(f"  certificate: {self.certificate_path} (check: python -m "
                         "certificates.check_audit FILE)")
        return lines


# ----------------------------------------------------------------------------- sources
@dataclass
class _Source:
    spec: HeadSpec
    head_ref: dict  # the certificate's "head" field (without inline rows)
    tokenizer: object | None
    file_for_hash: tuple[str, int, int] | None  # (path, offset, nbytes) of the raw head


def _npy_data_range(path: Path) -> tuple[int, int]:
    with open(path, "rb") as fh:
        magic = fh.read(8)
        if magic[:6] != b"\x93NUMPY":
            raise InvalidInput(f"{path} is not a .npy file")
        n = 2 if magic[6] == 1 else 4
        hl = int.from_bytes(fh.read(n), "little")
    off = 8 + n + hl
    return off, path.stat().st_size - off


def _bias_values(bias, k: int) -> tuple | None:
    if bias is None or bias is False:
        return None
    if isinstance(bias, str | Path):
        from engine.io import read_raw, read_vector

        raw = read_raw(bias)
        if isinstance(raw, np.ndarray) and raw.dtype.kind == "f":
            return HeadSpec.from_array(np.zeros((k, 1)), raw.reshape(-1)).bias
        return HeadSpec.from_array(np.zeros((k, 1)), read_vector(bias, length=k)).bias
    return HeadSpec.from_array(np.zeros((k, 1)), bias).bias


def _find_tokenizer(path: Path, tokenizer) -> object | None:
    from engine.models.tokens import load_tokenizer

    if tokenizer is not None:
        return load_tokenizer(tokenizer)
    for cand in (path if path.is_dir() else path.parent,):
        if (cand / "tokenizer.json").is_file():
            try:
                return load_tokenizer(cand)
            except InvalidInput:
                return None
    return None


def _open_source(source, bias, tensor, transpose, tokenizer, work: Path) -> _Source:
    is_model = isinstance(source, str | Path) and (Path(source).is_dir() or Path(
        source).suffix.lower() in {".safetensors", ".npz", ".bin", ".pt", ".pth", ".ckpt"})
    if isinstance(bias, str) and bias == "auto" and not is_model:
        raise InvalidInput("bias 'auto' (--bias without a value) looks for the bias tensor of "
                           "a model folder or weight file; for a matrix give a vector or a "
                           "vector file")
    if not isinstance(source, str | Path):
        arr = source
        if isinstance(arr, np.ndarray) and arr.dtype.kind == "f" and arr.size > _SPEC_INLINE_LIMIT:
            if arr.ndim != 2:
                raise InvalidInput(f"W must be 2-D; got shape {arr.shape}")
            p = work / "head.npy"
            np.save(p, np.ascontiguousarray(arr))
            bvals = None if bias is None else _bias_values(bias, arr.shape[0])
            spec = HeadSpec("npy", path=str(p), bias=bvals)
            return _Source(spec, {"format": "npy", "file": str(p)}, None,
                           (str(p), *_npy_data_range(p)))
        if isinstance(arr, np.ndarray) and arr.dtype.kind in "iu":
            arr = arr.astype(np.float64)
        spec = HeadSpec.from_array(arr)
        bvals = None if bias is None else _bias_values(bias, len(spec.inline))
        return _Source(HeadSpec("inline", inline=spec.inline, bias=bvals), {}, None, None)
    p = Path(source).expanduser()
    if not p.exists():
        raise InvalidInput(f"source not found: {p} (logitgeom never downloads)")
    suffix = p.suffix.lower()
    if p.is_file() and suffix in {".csv", ".json", ".txt", ".tsv"}:
        from engine.io import read_matrix

        M = read_matrix(p)
        spec = HeadSpec.from_array(M)
        bvals = None if bias in (None, False) else _bias_values(bias, len(M))
        return _Source(HeadSpec("inline", inline=spec.inline, bias=bvals), {}, None, None)
    if p.is_file() and suffix == ".npy":
        bvals = None if bias in (None, False) else _bias_values(bias, None or _npy_rows(p,
                                                                                      transpose))
        spec = HeadSpec("npy", path=str(p.resolve()), transpose=transpose, bias=bvals)
        return _Source(spec, {"format": "npy", "file": str(p.resolve()), "transpose": transpose},
                       _find_tokenizer(p, tokenizer), (str(p.resolve()), *_npy_data_range(p)))
    # a model folder or weight file: locate the head as `inspect` does
    from engine.models import loaders

    store = loaders._open(p)  # noqa: SLF001 - the loaders' own source resolution
    name = loaders._find_head(store, tensor)  # noqa: SLF001
    bname = None
    if bias not in (None, False):
        bname = loaders._find_bias(store, True if bias == "auto" else bias, name)  # noqa: SLF001
    bvals = None
    shape = store.shapes[name]
    if len(shape) != 2:
        raise InvalidInput(f"tensor {name!r} has shape {shape}; an LM head must be 2-D")
    vocab = shape[1] if transpose else shape[0]
    if bname is not None:
        bvals = _bias_values(store.read(bname, None).reshape(-1), vocab)
    tok = _find_tokenizer(p, tokenizer)
    if isinstance(store, loaders._SafetensorsStore):  # noqa: SLF001
        f = store.where[name]
        if f.dtype(name) in {"F64", "F32", "F16", "BF16"}:
            begin, end = (int(v) for v in f.header[name]["data_offsets"])
            spec = HeadSpec("safetensors", path=str(f.path.resolve()), tensor=name,
                            transpose=transpose, bias=bvals)
            ref = {"format": "safetensors", "file": str(f.path.resolve()), "tensor": name,
                   "transpose": transpose}
            return _Source(spec, ref, tok, (str(f.path.resolve()), f._data_start + begin,
                                            end - begin))
    head = loaders.load_lm_head(p, tensor=name, bias=False, transpose=transpose)
    W = head.weight
    W = W.astype(np.float32) if np.array_equal(W.astype(np.float32), W) else W
    out = work / "head.npy"
    np.save(out, np.ascontiguousarray(W))
    spec = HeadSpec("npy", path=str(out), bias=bvals)
    return _Source(spec, {"format": "npy", "file": str(out)}, tok, (str(out),
                                                                    *_npy_data_range(out)))


def _npy_rows(p: Path, transpose: bool) -> int:
    arr = np.load(p, mmap_mode="r", allow_pickle=False)
    return int(arr.shape[1] if transpose else arr.shape[0])


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


# ----------------------------------------------------------------------------- labels
def _labels(tokens, k: int, tok) -> tuple[int, ...]:
    if tokens is None:
        return tuple(range(k))
    if isinstance(tokens, str):
        tokens = [t for t in (s.strip() for s in tokens.split(",")) if t]
    out: list[int] = []
    words: list[str] = []
    for t in tokens:
        if isinstance(t, int | np.integer) and not isinstance(t, bool):
            out.append(int(t))
        elif isinstance(t, str) and t.lstrip("-").isdigit():
            out.append(int(t))
        elif isinstance(t, str) and "-" in t and all(s.isdigit() for s in t.split("-", 1)):
            a, b = (int(s) for s in t.split("-", 1))
            out.extend(range(a, b + 1))
        else:
            words.append(str(t))
    if words:
        if tok is None:
            raise InvalidInput(f"tokens {words[:5]} are words but no tokenizer.json was found; "
                               "give token ids or --tokenizer")
        from engine.models.tokens import resolve_tokens

        out.extend(resolve_tokens(words, tok).ids)
    bad = [t for t in out if not 0 <= t < k]
    if bad:
        raise InvalidInput(f"token ids {bad[:5]} out of range for a head with {k} rows")
    if not out:
        raise InvalidInput("tokens is empty")
    return tuple(sorted(set(out)))


# ----------------------------------------------------------------------------- output
def _atomic_write(path: Path, data: bytes) -> None:
    write_atomic(path, data)  # the one atomic writer (engine._fsio)


def _dumps_line(rec: dict) -> str:
    return json.dumps(rec, sort_keys=True, separators=(",", ":"), allow_nan=False)


def _block_unit(unit):
    spec, labels, opts = unit
    return decide_block(spec, labels, opts)


def audit_argmax(
    source,
    bias=None,
    tokens=None,
    radius=None,
    out=None,
    executor=None,
    progress=None,
    *,
    tensor: str | None = None,
    transpose: bool = False,
    tokenizer=None,
    block_size: int = 256,
    domains: Sequence[str] | None = None,
    options: Options | None = None,
) -> AuditResult:
    """Decide for every label whether some input makes it the strict argmax, with proofs.

    Parameters
    ----------
    source : array_like, or path
        A k x d matrix (floats are their exact binary values; Fractions / "p/q" strings are
        exact), a matrix file (``.npy`` memory-mapped, ``.csv``, ``.json``), or a model folder
        / weight file (safetensors memory-mapped; the head found as ``inspect`` does).
    bias : array_like, path, "auto", str or None
        Output bias: a vector or vector file; for model folders ``"auto"`` (the usual bias
        tensor, required to exist) or a tensor name.  None: no bias.
    tokens : sequence or str, optional
        Labels to audit (ids, "a-b" ranges, or words with a tokenizer); all by default.
        Competitors are always every label of the head.
    radius : number or str, optional
        Also decide the bounded domain max_j abs(x_j) <= radius (infinity norm, so it stays
        an LP); both verdicts are reported.
    out : path, optional
        Output folder: shards, ``run.json`` (resume state), ``audit.json`` (certificate),
        ``summary.json``.  A rerun with the same inputs resumes.  Without it the records
        stay in memory (``result.certificate()``); an in-memory array of more than 2^20
        entries is then mapped from a temporary file that is removed at the end, so give
        ``out`` to keep a checkable certificate of such a head.
    executor : None, concurrent.futures.Executor or distributed.Client
        Where label blocks run (see :mod:`engine.run.executor`).
    progress : bool, optional
        Progress bar with ETA (default: when stderr is a terminal).
    tensor, transpose, tokenizer
        As in ``logitgeom inspect``.
    block_size : int
        Labels per work unit.
    domains : sequence of str, optional
        Override the reported domains (``"all"``, ``"box"``).
    options : Options, optional
        Pipeline knobs (never change what is proven).

    Returns
    -------
    AuditResult

    Raises
    ------
    InvalidInput
        Bad source, bias, tokens or radius; an ``out`` folder holding a different run.

    Examples
    --------
    >>> r = audit_argmax([[1, 0], [-1, 0], [0, 1], [0, "1/4"]], progress=False)
    >>> r.counts["all"], r.never()
    ({'argmaxable': 3, 'never': 1, 'undecided': 0}, [3])
    >>> from certificates.api import check
    >>> check(r.certificate()).ok
    True
    """
    t_start = time.perf_counter()
    if block_size < 1:
        raise InvalidInput(f"block_size must be >= 1; got {block_size}")
    R = None
    if radius is not None:
        R = to_fraction(radius, what="radius")
        if R <= 0:
            raise InvalidInput(f"radius must be positive; got {radius}")
    doms = tuple(domains) if domains is not None else (("all", "box") if R is not None
                                                       else ("all",))
    if not doms or set(doms) - {"all", "box"} or len(set(doms)) != len(doms):
        raise InvalidInput(f"domains must be a subset of ('all', 'box'); got {doms}")
    if "box" in doms and R is None:
        raise InvalidInput("the 'box' domain needs a radius")
    out_dir = Path(out) if out is not None else None
    tmp = None
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "shards").mkdir(exist_ok=True)
        work = out_dir
    else:
        tmp = tempfile.TemporaryDirectory(prefix="logitgeom-audit-")
        work = Path(tmp.name)
    try:
        src = _open_source(source, bias, tensor, transpose, tokenizer, work)
        head = open_head(src.spec)
        k, d = head.k, head.d
        labels = _labels(tokens, k, src.tokenizer)
        base = options or Options()
        center = tuple(head.mean().tolist())
        opts = Options(radius=R, domains=doms, center=center,
                       ascent_steps=base.ascent_steps, lp_rows=base.lp_rows,
                       lp_add=base.lp_add, lp_rounds=base.lp_rounds)
        head_field: dict
        if k * d <= INLINE_ENTRIES:
            head_field = {"W": [[fraction_to_str(head.exact_row(i)[j]) for j in range(d)]
                                for i in range(k)]}
        else:
            ref = dict(src.head_ref)
            path, off, nb = src.file_for_hash
            ref["sha256"] = _sha_range(path, off, nb)
            if out_dir is not None:
                ref["file"] = os.path.relpath(ref["file"], out_dir)
            head_field = ref
        bias_field = None if head.bias is None else [fraction_to_str(head.exact_bias(i))
                                                     for i in range(k)]
        config = {"head": head_field if "W" not in head_field else
                  hashlib.sha256(json.dumps(head_field).encode()).hexdigest(),
                  "bias": None if bias_field is None else
                  hashlib.sha256(json.dumps(bias_field).encode()).hexdigest(),
                  "radius": None if R is None else fraction_to_str(R), "domains": list(doms),
                  "labels": hashlib.sha256(json.dumps(labels).encode()).hexdigest(),
                  "block_size": block_size, "rows": k, "cols": d}
        blocks = [labels[i:i + block_size] for i in range(0, len(labels), block_size)]
        state = {"config": config, "done": {}, "stage_seconds": {}}
        run_path = out_dir / "run.json" if out_dir is not None else None
        if run_path is not None and run_path.exists():
            old = json.loads(run_path.read_text())
            if old.get("config") != config:
                raise InvalidInput(f"{out_dir} holds a different audit run (other head, bias, "
                                   "labels, radius or block size); use another --out folder")
            state = old
        results: dict[int, list[dict]] = {}
        todo = []
        for b, blk in enumerate(blocks):
            name = f"block-{b:06d}.jsonl"
            sha = state["done"].get(name)
            if sha is not None and out_dir is not None:
                p = out_dir / "shards" / name
                if p.exists() and hashlib.sha256(p.read_bytes()).hexdigest() == sha:
                    continue
                state["done"].pop(name, None)
            todo.append((b, blk))
        units = [(src.spec, blk, opts) for _, blk in todo]
        stage = dict(state.get("stage_seconds", {}))
        for res in _run(units, executor, progress):
            b, blk = todo[res.index]
            recs, st = res.value
            for key, v in st.items():
                stage[key] = stage.get(key, 0) + v
            if out_dir is None:
                results[b] = recs
                continue
            name = f"block-{b:06d}.jsonl"
            data = "".join(_dumps_line(r) + "\n" for r in recs).encode()
            _atomic_write(out_dir / "shards" / name, data)
            state["done"][name] = hashlib.sha256(data).hexdigest()
            state["stage_seconds"] = stage
            _atomic_write(run_path, (json.dumps(state, sort_keys=True, indent=1) + "\n").encode())
        # ------------------------------------------------------------- assemble
        verdicts = {dom: {} for dom in doms}
        records: list[dict] | None = [] if out_dir is None else None
        for b, _blk in enumerate(blocks):
            if out_dir is None:
                recs = results[b]
                records.extend(recs)
            else:
                text = (out_dir / "shards" / f"block-{b:06d}.jsonl").read_text()
                recs = [json.loads(line) for line in text.splitlines() if line]
            for r in recs:
                for dom in doms:
                    verdicts[dom][r["label"]] = r[dom]["verdict"]
        counts = {dom: {v: sum(1 for x in verdicts[dom].values() if x == v) for v in VERDICTS}
                  for dom in doms}
        cert = {"format": "logitgeom-certificate", "version": 1, "kind": "argmax-audit",
                "head": head_field, "rows": k, "cols": d, "domains": list(doms),
                "labels": _ranges(labels), "counts": counts,
                "provenance": {"engine": f"logitgeom {__version__}", "tool": "audit-argmax"}}
        if bias_field is not None:
            cert["bias"] = bias_field
        if R is not None:
            cert["radius"] = fraction_to_str(R)
        if out_dir is None:
            cert["records"] = records
        else:
            cert["shards"] = [{"file": f"shards/block-{b:06d}.jsonl",
                               "sha256": state["done"][f"block-{b:06d}.jsonl"]}
                              for b in range(len(blocks))]
        names = {}
        if src.tokenizer is not None:
            bad = {lab for dom in doms for lab, v in verdicts[dom].items() if v != "argmaxable"}
            for lab in sorted(bad):
                try:
                    names[lab] = src.tokenizer.id_to_token(lab)
                except Exception:  # noqa: BLE001 - a name is decoration only
                    pass
        cert_path = None
        result = AuditResult(labels=labels, verdicts=verdicts, counts=counts, names=names,
                             radius=R, certificate_path=None, stage_seconds=stage,
                             records=records, certificate_obj=None, k=k, d=d)
        if out_dir is not None:
            cert_path = out_dir / "audit.json"
            _atomic_write(cert_path, (json.dumps(cert, indent=1, sort_keys=True)
                                      + "\n").encode())
            result.certificate_path = cert_path
            summary = {"rows": k, "cols": d, "labels": len(labels), "counts": counts,
                       "radius": None if R is None else fraction_to_str(R),
                       "never": {dom: [{"label": lab, "name": names.get(lab)}
                                       for lab in result.never(dom)] for dom in doms},
                       "undecided": {dom: result.undecided(dom) for dom in doms},
                       "stage_seconds": {key: round(v, 3) for key, v in sorted(stage.items())}}
            _atomic_write(out_dir / "summary.json",
                          (json.dumps(summary, indent=1, sort_keys=True) + "\n").encode())
        else:
            result.certificate_obj = cert
        result.seconds = time.perf_counter() - t_start
        return result
    finally:
        if tmp is not None:
            open_head.cache_clear()
            tmp.cleanup()


def _ranges(labels: Sequence[int]) -> list[list[int]]:
    """Increasing labels as [first, last] runs (compact in the certificate)."""
    out: list[list[int]] = []
    for lab in labels:
        if out and out[-1][1] == lab - 1:
            out[-1][1] = lab
        else:
            out.append([lab, lab])
    return out


def _run(units, executor, progress):
    from engine.run.executor import run_units

    return run_units(_block_unit, units, executor=executor, progress=progress,
                     desc="label blocks")
