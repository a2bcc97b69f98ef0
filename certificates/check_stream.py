"""Checker of ``pattern-complete-stream`` certificates (streamed completeness; stdlib only).

A ``pattern-complete`` certificate lists every pattern inline, which stops at a few hundred
thousand regions (the checker reads files up to 64 MB).  A ``pattern-complete-stream``
certificate makes the same claim, "these are all the sign patterns (rankings) of W, each
with an exact witness", but its patterns live in gzip'd JSON-lines shard files referenced by
SHA-256 (written by ``logitgeom certify pattern --from DIR``, next to a result directory of
``engine.geometry.stream``).  The check reads one line at a time and holds one line plus the
previous one in memory:

1. every shard's SHA-256 equals the certificate's (hashed while it is decompressed);
2. every line ``{"pattern": ..., "witness": [...]}`` is checked exactly as an entry of a
   ``pattern-complete`` certificate (integer rows, every constraint strictly positive);
3. distinctness without a global set: a line whose pattern is the JSON list ``L`` (no
   spaces) belongs to shard ``crc32(L) mod buckets``; within a shard the patterns are
   strictly increasing (lexicographic order of the integer tuples).  A pattern thus has one
   possible shard and appears there at most once;
4. the number of lines equals each shard's stated ``rows`` (reading stops beyond it) and
   their sum equals the exact Zaslavsky count recomputed from the inlined lattice.

Paths are resolved against the certificate's folder (``check_file``) or the current folder.
See certificates/SPEC.md section 10 and docs/enumeration-at-scale.md.

Examples
--------
>>> from certificates.check_stream import shard_of
>>> shard_of((1, -1), 4), shard_of((1, -1), 1)
(3, 0)
"""

from __future__ import annotations

import gzip
import hashlib
import json
import zlib

from certificates import kernel as K
from certificates import semantics as sem
from certificates.errors import Fail

__all__ = ["check_stream", "shard_of", "pattern_key", "MAX_BUCKETS"]

#: Most shards a certificate may reference.
MAX_BUCKETS = 1 << 16
#: Longest line read from a shard (bytes); longer lines are rejected, not buffered.
MAX_LINE = 1 << 20
#: Largest shard file (compressed bytes); the decompressed lines are bounded by ``rows``.
MAX_SHARD_BYTES = 1 << 32


def pattern_key(value) -> bytes:
    """The canonical bytes of a pattern: its JSON list without spaces."""
    return json.dumps([int(v) for v in value], separators=(",", ":")).encode("ascii")


def shard_of(value, buckets: int) -> int:
    """The shard a pattern must be in: ``crc32(pattern_key) mod buckets``."""
    return zlib.crc32(pattern_key(value)) % buckets


class _Hashing:
    """A binary reader that hashes every byte it hands out (one pass, bounded memory)."""

    def __init__(self, fh):
        self.fh, self.h = fh, hashlib.sha256()

    def read(self, n=-1):
        self.h.update(data := self.fh.read(n))
        return data


def _lines(path, sloc, sha, rows):
    """(location, record) per line of a gzip'd JSON-lines shard; after the last line, the
    SHA-256 of the file (hashed as it was decompressed) and the count of lines are checked."""
    with K.open_regular(path, sloc, MAX_SHARD_BYTES) as fh:
        hr, n = _Hashing(fh), 0
        try:
            with gzip.GzipFile(fileobj=hr, mode="rb") as gz:
                while line := gz.readline(MAX_LINE + 1):
                    K.fail_if(len(line) > MAX_LINE, "schema", f"{sloc}:{n + 1}", "line too long")
                    n += 1
                    K.fail_if(n > rows, "count", sloc, f"more than the stated {rows} rows")
                    yield f"{sloc}:{n}", K.parse_json(line, f"{sloc}:{n}", "schema")
        except (OSError, EOFError, zlib.error) as exc:
            raise Fail("file", sloc, f"shard {path} is not a valid gzip file: {exc}") from None
        while hr.read(1 << 20):
            pass
    K.fail_if(hr.h.hexdigest() != sha, "file-hash", sloc,
              f"SHA-256 of shard {path} differs from the certificate")
    K.fail_if(n != rows, "count", sloc, f"{n} rows, the certificate states {rows}")


def check_stream(obj, loc):
    """Check a ``pattern-complete-stream`` certificate; raises :class:`Fail`."""
    W, b = sem.read_model(obj, loc)
    ptype = sem.read_pattern_type(obj, loc)
    Wi, bi = K.integer_model(W, b)
    buckets = K.read_int(K.get(obj, "buckets", loc), f"{loc}/buckets", 1, MAX_BUCKETS)
    shards = K.read_list(K.get(obj, "shards", loc), f"{loc}/shards")
    K.fail_if(len(shards) != buckets, "shape", f"{loc}/shards",
              f"{len(shards)} shards for {buckets} buckets")
    for s, sh in enumerate(shards):
        sloc = f"{loc}/shards/{s}"
        K.fail_if(not isinstance(sh, dict) or set(sh) != {"file", "sha256", "rows"}, "schema",
                  sloc, "a shard is {file, sha256, rows}")
        K.read_int(sh["rows"], f"{sloc}/rows", 0, None)
        prev = None
        for rloc, rec in _lines(K.resolve(sh["file"], f"{sloc}/file"), sloc, sh["sha256"],
                                sh["rows"]):
            value = sem.listed_pattern(rec, rloc, ptype == "ranking", Wi, bi, len(W[0]))
            if shard_of(value, buckets) != s:
                raise Fail("shard", rloc, f"pattern belongs to shard "
                           f"{shard_of(value, buckets)}, not {s}")
            if prev is not None and not prev < value:
                raise Fail("duplicate-pattern" if prev == value else "order", rloc,
                           "patterns of a shard must be strictly increasing")
            prev = value
    sem.region_count(obj, loc, Wi, bi, ptype, sum(sh["rows"] for sh in shards), f"{loc}/shards")
