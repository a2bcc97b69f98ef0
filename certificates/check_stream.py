"""Checker of ``pattern-complete-stream`` certificates (streamed completeness; stdlib only).

A ``pattern-complete`` certificate lists every pattern inline, which stops at a few hundred
thousand regions (the checker reads files up to 64 MB).  A ``pattern-complete-stream``
certificate makes the same claim, "these are all the sign patterns (rankings) of W, each
with an exact witness", but its patterns live in gzip'd JSON-lines shard files referenced by
SHA-256 (written by ``logitgeom certify pattern --from DIR``, next to a result directory of
``logitgeom.geometry.stream``).  The check reads one line at a time and holds one line plus the
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

Every line goes through the one check of a listed pattern
(:func:`logitgeom_certificates.semantics.listed_pattern`).  Shards are independent: the
presentation side may run them in a process pool (:data:`RUN_SHARDS`, ``check --workers N``);
the verdict is the first failing shard in shard order either way.  The default budget grows
with the rows, up to :data:`DEFAULT_REGIONS` regions (docs/limits.md).

**What ``--sample N`` proves.**  Items 1, 3 and 4 for every line (hashes, counts, shard
membership, strict order, hence distinctness, and the exact count), and item 2 for the
witnesses of N lines drawn uniformly without replacement (``random.Random(seed)``) among
all lines.  The other witnesses are not checked, so the sampled verdict does not prove that
every listed pattern is a region.  If a fraction ``f`` of the lines had an invalid witness,
the sample would have missed all of them with probability at most ``(1 - f)^N`` (for
``f = 0.001`` and ``N = 5000``: under 0.7 %); a full check (no ``--sample``) proves the
claim.

Shard paths are relative, without ``..``, and stay inside the certificate's folder (a symlink
leaving it is refused: ``file``).
See certificates/SPEC.md section 10 and docs/enumeration-at-scale.md.

Examples
--------
>>> from logitgeom_certificates.check_stream import shard_of
>>> shard_of((1, -1), 4), shard_of((1, -1), 1)
(3, 0)
"""

from __future__ import annotations

import bisect
import gzip
import hashlib
import random
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextvars import ContextVar
from typing import IO, Any

from . import kernel as K
from . import semantics as sem
from .batch import grant, left, resolve, same_sha256
from .meter import budget, charge, used

#: Most shards a certificate may reference.
MAX_BUCKETS = 1 << 16
#: Longest line read from a shard (bytes); longer lines are rejected, not buffered.
MAX_LINE = 1 << 20
#: Largest shard file (compressed bytes); the decompressed lines are bounded by ``rows``.
MAX_SHARD_BYTES = 1 << 32


def pattern_key(value: Sequence[int]) -> bytes:
    """The canonical bytes of a pattern: its JSON list without spaces."""
    return f"[{','.join(map(str, map(int, value)))}]".encode("ascii")


def shard_of(value: Sequence[int], buckets: int) -> int:
    """The shard a pattern must be in: ``crc32(pattern_key) mod buckets``."""
    return zlib.crc32(pattern_key(value)) % buckets


class _Hashing:
    """A binary reader that hashes every byte it hands out (one pass, bounded memory)."""

    def __init__(self, fh: IO[bytes]) -> None:
        self.fh, self.h = fh, hashlib.sha256()

    def read(self, n: int = -1) -> bytes:
        self.h.update(data := self.fh.read(n))
        return data


Job = tuple[Any, ...]
Runner = Callable[[Callable[[Job], tuple[Any, ...]], list[Job]], Iterable[tuple[Any, ...]]]
#: How the shard jobs run: ``(check one shard, jobs) -> results in job order``; sequential
#: here (``map``: lazily, so the first failure stops it), a process pool on the presentation
#: side (``check --workers N``, :mod:`._cli`).  The verdict is the first failure in shard
#: order.
RUN_SHARDS: ContextVar[Runner | None] = ContextVar("run_shards", default=None)
#: The default budget admits streamed certificates of up to this many regions (each row is
#: granted what checking it costs with numbers of at most 256 bits; docs/limits.md).
DEFAULT_REGIONS = 10 ** 6


def allowance(flats: int, k: int, d: int, ptype: str, rows: int) -> int:
    """Units the default budget adds for a streamed certificate of ``k`` rows over ``d``
    columns: each listed flat (at most :data:`DEFAULT_REGIONS` of them: an arrangement has
    at least as many regions as flats, since ``|mu(0, X)| >= 1``) and each listed row (at
    most :data:`DEFAULT_REGIONS`) is granted what checking it costs with numbers of at most
    256 bits.

    Examples
    --------
    >>> allowance(10, 4, 2, "sign", 100)
    4400
    """
    hyperplanes = k if ptype == "sign" else k * (k - 1) // 2  # the rows of the arrangement
    return (min(flats, DEFAULT_REGIONS) * (hyperplanes + 1) * (d + 2) ** 2
            + min(rows, DEFAULT_REGIONS) * line_units(k, d))


def line_units(k: int, d: int, bits: int = 0) -> int:
    """Units the check of one line charges at most, for a pattern of ``k`` rows over ``d``
    columns and numbers of at most ``bits`` bits (witness and model): reading the d
    numbers, scaling them, one multiply-add per row entry (each at most
    ``1 + (1 + bits / 128)^2`` units).

    Examples
    --------
    >>> line_units(3, 2)
    30
    """
    return (k * (d + 1) + 2 * d + 2) * (1 + (1 + (bits >> 7)) ** 2)


def _lines(path: str, sloc: str, sha: str, rows: int) -> Iterator[tuple[int, bytes]]:
    """(line number, raw line) per line of a gzip'd JSON-lines shard; after the last line,
    the SHA-256 of the file (hashed as it was decompressed) and the count of lines are
    checked."""
    with K.open_regular(path, sloc, MAX_SHARD_BYTES) as fh:
        hr, n = _Hashing(fh), 0
        try:
            with gzip.GzipFile(fileobj=hr, mode="rb") as gz:  # type: ignore[call-overload]
                for n, line in enumerate(iter(lambda: gz.readline(MAX_LINE + 1), b""), 1):
                    K.fail_if(len(line) > MAX_LINE, "schema", f"{sloc}:{n}", "line too long")
                    K.fail_if(n > rows, "count", sloc, f"more than the stated {rows} rows")
                    yield n, line
        except (OSError, EOFError, zlib.error) as exc:
            raise K.Fail("file", sloc, f"shard {path} is not a valid gzip file: {exc}") from None
        while hr.read(1 << 20):
            pass
    same_sha256(hr.h, sha, f"shard {path}", sloc)
    K.fail_if(n != rows, "count", sloc, f"{n} rows, the certificate states {rows}")


def _check_shard(job: Job) -> tuple[Any, ...]:
    """Check one shard (a task: run in the checking process or a worker).  Returns
    ``("ok", work used)`` or ``("fail", check, location, message)``; the witnesses of the
    lines in ``picks`` (of every line when None) are checked."""
    s, path, sha, rows, buckets, (Wi, bi, ranking), work, picks, base = job
    sloc = f"{base}/shards/{s}"
    try:
        with budget(work):
            prev: tuple[int, ...] | None = None
            for n, line in _lines(path, sloc, sha, rows):
                rloc = f"{sloc}:{n}"
                value = sem.listed_pattern(K.parse_json(line, rloc, "schema"), rloc, ranking, Wi,
                                           bi, len(Wi[0]), picks is None or n in picks)
                if (home := shard_of(value, buckets)) != s:
                    K.fail("shard", rloc, f"pattern belongs to shard {home}, not {s}")
                if prev is not None and not prev < value:
                    K.fail("duplicate-pattern" if prev == value else "order", rloc,
                           "patterns of a shard must be strictly increasing")
                prev = value
            work = used()
    except K.Fail as f:
        return ("fail", f.check, f.location, f.message)
    return ("ok", work)


def check_stream(obj: K.Obj, loc: str, parts: object = None) -> None:
    """Check a ``pattern-complete-stream`` certificate; raises :class:`.errors.Fail`.

    The lattice comes first, then every shard, each with its share of the budget left (in
    proportion to its stated rows: the verdict does not depend on the number of workers).
    With ``--sample N`` (:data:`logitgeom_certificates.kernel.SCOPE`) every line's structure is
    checked and the witnesses of N lines drawn uniformly with the seed (module docstring)."""
    W, b = sem.read_model(obj, loc)
    ptype = K.read_choice(obj, "pattern", loc, ("sign", "ranking"))
    Wi, bi = sem.integer_model(W, b)
    buckets = K.read_int(K.get(obj, "buckets", loc), f"{loc}/buckets", 1, MAX_BUCKETS)
    shards = K.read_list(K.get(obj, "shards", loc), f"{loc}/shards", buckets)  # one per bucket
    for s, sh in enumerate(shards):
        sloc = f"{loc}/shards/{s}"
        K.fail_if(not isinstance(sh, dict) or set(sh) != {"file", "sha256", "rows"}, "schema",
                  sloc, "a shard is {file, sha256, rows}")
        K.read_int(sh["rows"], f"{sloc}/rows", 0, None)
        K.fail_if(not isinstance(sh["sha256"], str), "schema", f"{sloc}/sha256", "not a string")
    total = sum(sh["rows"] for sh in shards)
    # the lattice first (its work comes out of the budget before the shards share the rest)
    lattice = K.get(obj, "lattice", loc)
    grant(allowance(len(lattice) if isinstance(lattice, list) else 0, len(W), len(W[0]), ptype,
                    total))
    count = sem.zaslavsky(sem.arrangement(Wi, bi, ptype), lattice, f"{loc}/lattice", len(W[0]))
    scope = K.SCOPE.get() or {}  # drawn: the sample's line numbers, shard after shard
    drawn = None if (sample := scope.get("sample")) is None else sorted(
        random.Random(scope.get("seed", 0)).sample(range(total), min(sample, total)))
    room, start, jobs = left(), 0, []
    for s, sh in enumerate(shards):  # each shard: its share of the budget, its drawn lines
        share = None if room is None else room * sh["rows"] // total if total else room // buckets
        picks = None if drawn is None else {x - start + 1 for x in drawn[bisect.bisect_left(
            drawn, start):bisect.bisect_left(drawn, start + sh["rows"])]}
        jobs.append((s, resolve(sh["file"], f"{loc}/shards/{s}/file", True), sh["sha256"],
                     sh["rows"], buckets, (Wi, bi, ptype == "ranking"), share, picks, loc))
        start += sh["rows"]
    for r in (RUN_SHARDS.get() or map)(_check_shard, jobs):
        if r[0] == "fail":  # the first failing shard, in shard order
            raise K.Fail(r[1], r[2], r[3])
        charge(r[1] or 0)  # within the shard's share (None: unmetered): the verdict's work
    K.fail_if(count != total, "count", f"{loc}/shards", f"{total} witnessed patterns but the"
              f" arrangement has {count} regions")
    # the --sample tally (else a local dict): every shard passed, so every drawn line's
    # witness was checked (every line's, without a sample)
    scope.update(witnesses=total, checked=total if drawn is None else len(drawn))


KIND_TABLE = {"pattern-complete-stream": (check_stream, {"W", "bias", "pattern", "lattice",
                                                   "buckets", "shards"})}
