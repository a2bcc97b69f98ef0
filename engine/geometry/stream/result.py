"""A result directory opened lazily: :class:`StoredResult` and :func:`open_result`.

Examples
--------
>>> import tempfile
>>> from logitgeom.geometry.stream import enumerate_to_dir
>>> d = tempfile.mkdtemp()
>>> _ = enumerate_to_dir([[1, 0], [0, 1]], d, progress=False)
>>> open_result(d).lookup((1, -1))
(Fraction(1, 1), Fraction(-1, 1))
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import uuid
from collections.abc import Iterator, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from logitgeom.errors import InvalidInput
from logitgeom.geometry.arrangement import pack_signs, unpack_signs
from logitgeom.geometry.cosine import difference_pairs
from logitgeom.geometry.patterns import rankings_from_pairs
from logitgeom.geometry.stream.check import certify_shards, recheck_changed
from logitgeom.geometry.stream.codec import bucket_of, read_shard, shard_path
from logitgeom.geometry.stream.manifest import FORMAT, MANIFEST, Manifest
from logitgeom.geometry.stream.plan import Setup, setup
from logitgeom.geometry.stream.twin import twin_lines

__all__ = ["StoredResult", "open_result"]


class StoredResult:
    """A result directory opened lazily: iterate, count, sample, look up, certify.

    Nothing is loaded until asked for; iteration reads one shard at a time.  Patterns
    are what :class:`logitgeom.geometry.PatternResult` holds (sign tuples, or label tuples
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
        self.header = Manifest.from_json(manifest, self.root)
        self.manifest = manifest
        self._where = self.header.where
        self._H = self.header.hyperplanes
        self._cols = self.header.cols

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
        return [shard_path(self.root / "shards", p) for p in range(self.manifest["buckets"])]

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
        return read_shard(path, self.manifest["arrangement"]["D"])

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
        >>> from logitgeom.geometry.stream import enumerate_to_dir
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
        K, X = self._read(shard_path(self.root / "shards", p))
        hit = np.flatnonzero(np.all(K == key, axis=1))
        return self._witness(X[hit[0]].tolist()) if len(hit) else None

    def write_twins(self, folder: str | os.PathLike, buckets: int | None = None
                    ) -> list[dict[str, Any]]:
        """Write the rows as stdlib-readable shards for ``logitgeom_certificates.check_stream``.

        Each shard ``folder/part-NNNNN.jsonl.gz`` (gzip level 6, mtime 0: same rows, same
        bytes; level 9 took seven times the CPU for 8 % smaller files)
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
            ``{"file": absolute path, "sha256": ..., "rows": ..., "witness_bits": ...}`` per
            shard (``witness_bits``: bit length of the largest stored witness number of the
            whole directory).

        Examples
        --------
        >>> import tempfile
        >>> from logitgeom.geometry.stream import enumerate_to_dir
        >>> d = tempfile.mkdtemp()
        >>> r = enumerate_to_dir([[1, 0], [0, 1]], d, progress=False)
        >>> [s["rows"] for s in r.write_twins(d + "/twin", buckets=2)]
        [1, 3]
        """
        import gzip

        B = int(buckets or self.manifest["buckets"])
        if B < 1:
            raise InvalidInput(f"buckets must be >= 1, got {B}")
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f".spill-{uuid.uuid4().hex}"
        tmp.mkdir()
        out: list[dict[str, Any]] = []
        try:
            fhs = [open(tmp / f"{p:05d}.txt", "w", encoding="utf-8") for p in range(B)]
            affine, signs = self.manifest["affine"], self.kind != "ranking"
            bits = 0  # of the largest stored witness number (what a check's numbers stay under)
            try:
                for pats, X in self.batches():
                    if X.size:
                        top = (max(int(X.max()), -int(X.min())) if X.dtype != object
                               else max(abs(int(v)) for v in X.ravel().tolist()))
                        bits = max(bits, top.bit_length())
                    # spill lines 'sort key TAB line' (twin.py: numpy formats the numbers)
                    for lo in range(0, len(X), 65536):  # slices: bounded memory
                        keys, lines, shard = twin_lines(pats[lo:lo + 65536], X[lo:lo + 65536],
                                                        affine=affine, buckets=B, signs=signs)
                        parts: list[list[str]] = [[] for _ in range(B)]
                        for key, line, p in zip(keys, lines, shard, strict=True):
                            parts[p].append(f"{key}\t{line}")
                        for fh, part in zip(fhs, parts, strict=True):
                            fh.write("".join(part))
            finally:
                for fh in fhs:
                    fh.close()
            for p in range(B):
                with open(tmp / f"{p:05d}.txt", encoding="utf-8") as fh:
                    spilled = fh.readlines()
                spilled.sort()  # by key: the patterns' order as integer tuples
                cut = len(spilled[0].split("\t", 1)[0]) + 1 if spilled else 0  # keys: k chars
                rows = [line[cut:] for line in spilled]
                del spilled
                final = folder / f"part-{p:05d}.jsonl.gz"
                part = final.with_name(f".{final.name}.{uuid.uuid4().hex}.tmp")
                with open(part, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw,
                                                             mtime=0, compresslevel=6) as gz:
                    for lo in range(0, len(rows), 65536):  # a slice at a time: bounded memory
                        gz.write("".join(rows[lo:lo + 65536]).encode("ascii"))
                h = hashlib.sha256()
                with open(part, "rb") as fh:
                    for chunk in iter(lambda: fh.read(1 << 20), b""):
                        h.update(chunk)
                os.replace(part, final)
                out.append({"file": str(final.resolve()), "sha256": h.hexdigest(),
                            "rows": len(rows), "witness_bits": bits})
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return out

    def certify(self, progress: bool | None = False, executor: Any = None) -> dict[str, Any]:
        """Streamed completeness check, shard by shard, as independent tasks (all exact).

        Recomputes the arrangement and the exact Zaslavsky count from the input stored in
        the manifest, then checks every shard (one task per group of shards, on
        ``executor`` if given): each witness reproduces its sign vector exactly (integer
        arithmetic, every sign nonzero, x_0 > 0 for an affine input); the sign vectors are
        strictly increasing within the shard and hash to its bucket (so no row repeats
        anywhere).  Combined at the end: the number of rows equals the count.

        Returns
        -------
        dict
            ``ok``, ``rows``, ``exact_count``, ``shards`` and, on failure, ``failed``
            (which check, which shard).
        """
        from threadpoolctl import threadpool_limits

        doc = self.manifest["input"]
        W = [[Fraction(v) for v in r] for r in doc["W"]]
        b = None if doc["bias"] is None else [Fraction(v) for v in doc["bias"]]
        with threadpool_limits(limits=1, user_api="blas"):
            return self._certify(setup(doc["kind"], W, b, executor), progress, executor)

    def recheck_changed(self, executor: Any = None) -> dict[str, Any]:
        """Re-check every shard whose SHA-256 is not the one the run recorded with its
        verdict (:func:`logitgeom.geometry.stream.check.recheck_changed`).

        Returns
        -------
        dict
            ``ok``, ``rechecked`` (shard indices) and, on failure, ``failed``.

        Examples
        --------
        >>> import tempfile
        >>> from logitgeom.geometry.stream import enumerate_to_dir
        >>> r = enumerate_to_dir([[1, 0], [0, 1]], tempfile.mkdtemp(), progress=False)
        >>> r.recheck_changed()
        {'ok': True, 'rechecked': []}
        """
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=1, user_api="blas"):
            return recheck_changed(self.root, self.manifest, executor)

    def _certify(self, st: Setup, progress: bool | None, executor: Any = None,
                 record: dict | None = None) -> dict[str, Any]:
        """The shard checks as tasks; with ``record`` (the manifest of a run being
        written) checks already recorded there are not redone (resume)."""
        return certify_shards(self.root, self.manifest, st, progress, executor, record)


def open_result(path: str | os.PathLike) -> StoredResult:
    """Open a result directory written by :func:`enumerate_to_dir` (lazily).

    Examples
    --------
    >>> import tempfile
    >>> from logitgeom.geometry.stream import enumerate_to_dir
    >>> d = tempfile.mkdtemp()
    >>> _ = enumerate_to_dir([[1, 0], [0, 1]], d, progress=False)
    >>> r = open_result(d)
    >>> len(r), r.certify()["ok"]
    (4, True)
    """
    return StoredResult(path)

