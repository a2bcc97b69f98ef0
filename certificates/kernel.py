"""The checker's shared base: reading, verdicts, referenced files, exact integer scaling.

Standard library only; imports nothing from ``logitgeom``.  Every kind goes through this
module (and :mod:`.meter`, :mod:`.errors`); the judgements of a kind family live in their
own modules (:mod:`.linear` witnesses and Gordan multipliers, :mod:`.convex` the bracket
obligation, :mod:`.reals` rigorous exp and log), and a kind module only sequences them:

* reading: JSON text and JSON-lines shards (no floats, no NaN, no duplicate keys at any
  level, bounded nesting and integer length), canonical rationals ``"p/q"`` with one digit
  limit (:data:`MAX_DIGITS`, checked on the text before any parsing), vectors, matrices,
  permutations, unknown-field rejection;
* files: regular files only (no FIFO, device or symlink to one), size-bounded before
  reading (the files that certificates reference are resolved and hashed by :mod:`.batch`);
* exact arithmetic: integer scaling (a common positive denominator), dot and matrix
  products;
* work accounting: :func:`.meter.charge` counts units *before* each exact step; a check that
  would go beyond its budget stops with ``work-budget`` (not checked).

Every failed check raises :class:`.errors.Fail` (:func:`fail` never returns).

Examples
--------
>>> read_number("-3/4", "/x")
Fraction(-3, 4)
>>> try:
...     read_number("1e100000000", "/E_W")
... except Fail as f:
...     print(f.check, f.location)
number /E_W
>>> scaled([Fraction(1, 2), Fraction(1, 3)])
([3, 2], 6)
"""

from __future__ import annotations

import contextvars
import itertools
import json
import math
import os
import re
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import IO, Any, NoReturn

from .errors import Fail as Fail
from .meter import DEFAULT_MAX_WORK as DEFAULT_MAX_WORK
from .meter import budget, setting, used
from .meter import charge as charge
from .meter import weight as weight

#: Most digits in p or in q of one number; the text is checked before it is parsed.
MAX_DIGITS = 4000
#: Largest certificate or referenced file read (bytes), deepest JSON nesting accepted.
MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_DEPTH = 64
FORMAT, VERSION = "logitgeom-certificate", 1
#: Fields every certificate (and every part) may carry, besides those of its kind.
COMMON = frozenset({"format", "version", "kind", "statement", "provenance"})
#: Failed checks that mean "unreadable, unsupported or not checked" (exit code 2).
UNREADABLE = ("unreadable", "unsupported-format", "unsupported-version", "unsupported-kind",
              "work-budget")
#: Why a JSON integer is refused: more than 20 digits (in a file) or its equal in an object.
_INTS = "a JSON integer of {}; JSON integers are counts, indices and signs of at most 20 digits " \
    "(numbers are 'p/q' strings)"
_DIGITS = f"[1-9][0-9]{{0,{MAX_DIGITS - 1}}}"
_CANONICAL = re.compile(f"-?(0|{_DIGITS})(/{_DIGITS})?", re.ASCII)
#: A JSON string (escapes included, possibly unterminated) or a run of non-bracket text.
_OUTSIDE = re.compile(r'"(?:[^"\\]++|\\.)*+"?|[^][{}"]++', re.DOTALL)
Obj = dict[str, Any]
Vec = tuple[Fraction, ...]
Mat = tuple[Vec, ...]
Checker = Callable[[Obj, str], object]


@dataclass(frozen=True)
class Verdict:
    """The checker's answer for one certificate.

    ``failed_check`` is a short identifier from SPEC.md (None when ``ok``); ``location`` is
    a JSON-pointer-like path to the offending entry.
    """

    ok: bool
    kind: str | None
    failed_check: str | None
    location: str | None
    message: str
    #: units of work charged (None when unmetered); what ``--max-work`` must be at least
    work: int | None = field(default=None, repr=False, compare=False)

    @property
    def exit_code(self) -> int:
        """0 valid, 1 invalid, 2 unreadable, unsupported or not checked."""
        return 0 if self.ok else (2 if self.failed_check in UNREADABLE else 1)


def fail(check: str, loc: str, message: str) -> NoReturn:
    """Raise ``Fail(check, loc, message)``."""
    raise Fail(check, loc, message)


def fail_if(cond: object, check: str, loc: str, message: str) -> None:
    """Raise ``Fail(check, loc, message)`` when ``cond`` holds."""
    if cond:
        raise Fail(check, loc, message)


def judge(obj: object, checker: Checker, max_work: int | str | None = DEFAULT_MAX_WORK) -> Verdict:
    """Run ``checker(obj, "")`` under the work budget (``"default"``: the default budget,
    which streamed certificates may raise); never raises on bad input."""
    kind = obj.get("kind") if isinstance(obj, dict) and isinstance(obj.get("kind"), str) else None
    try:
        with budget(max_work):
            checker(obj, "")  # type: ignore[arg-type]  # the header check comes first
            work = used()
    except Fail as f:
        return Verdict(False, kind, f.check, f.location or "/", f.message)
    except (ArithmeticError, TypeError, KeyError, ValueError, IndexError, AttributeError,
            RecursionError, MemoryError) as exc:  # absurd numbers, or malformed beyond the schema
        loc, bits = _long_int(obj)  # printing it may be what failed: named, never printed
        arith = isinstance(exc, ArithmeticError)  # decimal overflow, ...
        return Verdict(False, kind, "number" if bits or arith else "schema", loc, _INTS.format(
            f"{bits} bits") if bits else f"arithmetic failed: {exc!r}"[:300] if arith
            else f"malformed certificate: {type(exc).__name__}: {str(exc)[:200]}")
    return Verdict(True, kind, None, None, "valid", work)


def _long_int(obj: object) -> tuple[str, int]:
    """(location, bit length) of the first integer in ``obj`` longer than :func:`_int` lets a
    file hold (a certificate given as an object), or ``("/", 0)``: breadth first over at most
    2^20 places (so a cycle ends), keys that are not strings skipped."""
    todo: list[tuple[str, Any]] = [("", obj)]
    for loc, v in todo:  # the list grows as it is read
        if type(v) is int and not -10**20 < v < 10**20:
            return loc or "/", v.bit_length()
        if isinstance(v, dict | list) and len(todo) < 1 << 20:
            todo += [(f"{loc}/{k}", x) for k, x in (v.items() if isinstance(v, dict) else
                     enumerate(v)) if type(k) is str or isinstance(v, list)]
    return "/", 0


#: Which proofs of a batch certificate to re-check (audits, streamed results): None (all),
#: or a dict {"labels": set or None, "sample": N or None, "seed": s}, receiving tallies.
SCOPE: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar("scope", default=None)


def read_and_check(path: str, checker: Checker, max_work: int | str | None = "default",
                   scope: dict[str, Any] | None = None, labels: Any = None, sample: Any = None,
                   seed: int = 0, obj: Any = None) -> tuple[Verdict, Any]:
    """(verdict, parsed object or None) of one file, read once (``obj``: its content as
    :func:`parse_json` parsed it, when the caller read it); its references resolve
    inside its folder.  With ``labels`` or ``sample``: re-check only those labels' proofs,
    or every never-proof and ``sample`` witnesses drawn with ``seed`` (``scope`` receives
    the tallies; an audit then lifts the default budget, :func:`.batch.unmetered`)."""
    try:
        obj = parse_json(read_file(path, "/", check="unreadable"), "/") if obj is None else obj
    except Fail as f:
        return Verdict(False, None, f.check, f.location, f.message), None
    scope = scope if scope is not None else {}
    scope.update(labels=None if labels is None else frozenset(labels), sample=sample, seed=seed)
    with setting(SCOPE, None if labels is None and sample is None else scope), \
            setting(FILE_BASE, os.path.dirname(os.path.abspath(path))):
        return judge(obj, checker, max_work), obj


def header(obj: object, loc: str, kinds: Any) -> str:
    """Check ``format`` and ``version`` (an integer, exactly); return ``kind`` if in kinds."""
    if not isinstance(obj, dict):
        fail("schema", loc or "/", "a certificate is a JSON object")
    fail_if(obj.get("format") != FORMAT, "unsupported-format", f"{loc}/format",
            f"format must be {FORMAT!r}")
    fail_if(type(v := obj.get("version")) is not int or v != VERSION, "unsupported-version",
            f"{loc}/version", f"version {ascii(v)[:40]} is not supported (this checker: {VERSION})")
    kind = obj.get("kind")
    fail_if(not isinstance(kind, str) or kind not in kinds, "unsupported-kind", f"{loc}/kind",
            f"unknown kind {ascii(kind)[:60]}")
    return str(kind)


# ----------------------------------------------------------------------------- reading
def _no_float(s: str) -> NoReturn:
    fail("number", "/", f"JSON number {s} is not allowed; write numbers as 'p/q'")


def _pairs(pairs: list[tuple[str, Any]]) -> Obj:
    fail_if(len(obj := dict(pairs)) != len(pairs), "schema", "/",
            f"duplicate keys in one object: {sorted(k for k, _ in pairs)[:10]}")
    return obj


def _int(s: str) -> int:
    fail_if(len(s.lstrip("-")) > 20, "number", "/", _INTS.format(f"{len(s.lstrip('-'))} digits"))
    return int(s)


def parse_json(text: str | bytes, loc: str = "/", check: str = "unreadable") -> Any:
    """One JSON document (a file or a shard line): numbers as strings, duplicate keys, floats,
    NaN, long integers and nesting deeper than :data:`MAX_DEPTH` rejected at every level."""
    try:
        text = text.decode("utf-8") if isinstance(text, bytes) else text
        steps = itertools.accumulate(1 if c in "[{" else -1 for c in _OUTSIDE.sub("", text))
        fail_if(any(d > MAX_DEPTH for d in steps), check, loc,
                f"JSON nested deeper than {MAX_DEPTH} levels")
        return json.loads(text, parse_float=_no_float, parse_constant=_no_float,
                          parse_int=_int, object_pairs_hook=_pairs)
    except Fail as f:
        raise Fail(f.check, loc, f.message) from None
    except (ValueError, RecursionError) as exc:
        raise Fail(check, loc, f"not JSON: {' '.join(str(exc).split())[:200]}") from None


def get(obj: object, key: str, loc: str) -> Any:
    """``obj[key]``; a clear ``schema`` failure when obj is no object or lacks the key."""
    if not isinstance(obj, dict):
        fail("schema", loc, "expected a JSON object")
    fail_if(key not in obj, "schema", f"{loc}/{key}", f"missing field '{key}'")
    return obj[key]


def only(obj: object, allowed: Any, loc: str, what: str = "this object") -> None:
    """Reject unknown fields: a look-alike key must not change what is checked."""
    extra = sorted(set(obj) - set(allowed), key=str) if isinstance(obj, dict) else []
    if extra:
        fail("schema", f"{loc}/{ascii(extra[0])[1:-1][:60]}",
             f"unknown field {ascii(extra[0])[:60]} in {what} (allowed: "
             f"{', '.join(sorted(allowed))}); a look-alike key would change the claim")


def read_number(s: object, loc: str) -> Fraction:
    """A canonical rational string ``"p/q"`` (lowest terms, q > 1, or ``"p"``)."""
    if not isinstance(s, str):
        fail("number", loc, f"numbers are canonical strings 'p/q'; got {type(s).__name__}"
             f" {ascii(s)[:40]}")
    if not _CANONICAL.fullmatch(s):
        shown = s if len(s) <= 40 else f"{s[:37]}... ({len(s)} characters)"
        fail("number", loc, f"{shown!r} is not a canonical rational 'p/q' (digits, "
             f"optional '-', no exponent, at most {MAX_DIGITS} digits in p and in q)")
    charge(1 + (len(s) // 64) ** 2)
    q = Fraction(s)
    fail_if(str(q) != s, "number", loc, f"{s!r} is not canonical; write {str(q)!r}")
    return q


def read_int(v: object, loc: str, lo: int | None = None, hi: int | None = None) -> int:
    """A JSON integer (not a boolean) in [lo, hi]."""
    if type(v) is not int:
        fail("schema", loc, f"expected a JSON integer, got {ascii(v)[:40]}")
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        fail("schema", loc, f"integer {v} out of range [{lo}, {hi}]")
    return v


def read_list(v: object, loc: str, n: int | None = None) -> list[Any]:
    """A JSON list (of n entries when n is given)."""
    if not isinstance(v, list):
        fail("schema", loc, f"expected a list, got {type(v).__name__}")
    fail_if(n is not None and len(v) != n, "shape", loc, f"expected {n} entries, got {len(v)}")
    return v


def read_vector(v: object, loc: str, n: int | None = None) -> Vec:
    """A list of canonical rationals."""
    return tuple(read_number(x, f"{loc}/{i}") for i, x in enumerate(read_list(v, loc, n)))


def read_matrix(M: object, loc: str, cols: int | None = None, rows: int | None = None) -> Mat:
    """A non-empty list of equally long, non-empty rational rows."""
    M = read_list(M, loc, rows)
    fail_if(not M, "shape", loc, "a matrix needs at least one row")
    d = len(read_list(M[0], f"{loc}/0")) if cols is None else cols
    fail_if(d == 0, "shape", loc, "a matrix needs at least one column")
    return tuple(read_vector(r, f"{loc}/{i}", d) for i, r in enumerate(M))


def read_ints(v: object, loc: str, lo: int | None = None, hi: int | None = None,
              n: int | None = None) -> tuple[int, ...]:
    """A list of JSON integers in [lo, hi] (of n entries when n is given)."""
    return tuple(read_int(x, f"{loc}/{i}", lo, hi) for i, x in enumerate(read_list(v, loc, n)))


def read_labels(v: object, loc: str, k: int, n: int | None = None) -> tuple[int, ...]:
    """A non-empty list of distinct labels in 0..k-1 (a ranking or a prefix of one; ``n``
    of them when given)."""
    labels = read_ints(v, loc, 0, k - 1)
    fail_if(not labels or len(set(labels)) != len(labels) or n not in (None, len(labels)),
            "schema", loc, f"expected {n or 'a non-empty list of'} distinct labels")
    return labels


def read_choice(obj: object, key: str, loc: str, choices: tuple[str, ...]) -> str:
    """``obj[key]``, one of the strings ``choices``."""
    fail_if((v := get(obj, key, loc)) not in choices, "schema", f"{loc}/{key}",
            f"{key} must be one of {', '.join(map(repr, choices))}")
    return str(v)


def read_field(read: Callable[..., Any], obj: object, key: str, loc: str, *a: Any, **k: Any) -> Any:
    """``read`` (read_vector, read_matrix, read_number, ...) applied to ``obj[key]``."""
    return read(get(obj, key, loc), f"{loc}/{key}", *a, **k)


# ------------------------------------------------------------------- referenced files
#: Folder of the certificate being checked: its references resolve inside it (:mod:`.batch`).
FILE_BASE: contextvars.ContextVar[str | None] = contextvars.ContextVar("base", default=None)


def open_regular(path: str, loc: str, limit: int = MAX_FILE_BYTES,
                 check: str = "file") -> IO[bytes]:
    """A binary file object of a regular file of at most ``limit`` bytes, opened without
    blocking and tested on the open descriptor (a symlink to a FIFO is refused too)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        fail(check, loc, f"cannot read {path}: {exc.strerror or exc}")
    info = os.fstat(fd)
    if not (regular := stat.S_ISREG(info.st_mode)) or info.st_size > limit:
        os.close(fd)
        fail(check, loc, f"cannot read {path}: " + (f"{info.st_size} bytes, more than the "
             f"{limit} read" if regular else "not a regular file"))
    return os.fdopen(fd, "rb")


def read_file(path: str, loc: str, limit: int = MAX_FILE_BYTES, check: str = "file") -> bytes:
    """The bytes of a regular file (bounded)."""
    with open_regular(path, loc, limit, check) as fh:
        data = fh.read(limit + 1)
    fail_if(len(data) > limit, check, loc, f"{path} grew beyond {limit} bytes while read")
    return data


# -------------------------------------------------------------------------- arithmetic
def dot(a: Sequence[Any], b: Sequence[Any]) -> Any:
    """Exact inner product (an int for integer vectors)."""
    return sum(x * y for x, y in zip(a, b, strict=True))


def sgn(q: Any) -> int:
    """-1, 0 or +1."""
    return int(q > 0) - int(q < 0)


def scaled(v: Sequence[Any]) -> tuple[list[int], int]:
    """(integers, D) with v = integers / D, D > 0 the lcm of the denominators (a positive
    scaling: it changes no sign, witness or Gordan claim).  Works on Fractions and floats."""
    pq, D = [x.as_integer_ratio() for x in v], 1
    for _, q in pq:
        if D % q:
            charge(weight(D, q))
            D = math.lcm(D, q)
    charge(len(pq) * weight(D))
    return [p * (D // q) for p, q in pq], D


def scaled_matrix(M: Sequence[Sequence[Any]]) -> tuple[list[list[int]], int]:
    """(integer matrix, D) with M = ints / D (one common denominator)."""
    flat, D = scaled([x for r in M for x in r])
    d = len(M[0]) if M else 0
    return [flat[i * d:(i + 1) * d] for i in range(len(M))], D


def matmul(A: Sequence[Sequence[Any]], B: Sequence[Sequence[Any]]) -> list[list[Any]]:
    """Exact matrix product."""
    Bt = list(zip(*B, strict=True))
    charge(len(A) * len(Bt) * len(Bt[0] if Bt else ()) * weight(*(A[0] if A else ())))
    return [[sum(a * b for a, b in zip(r, c, strict=True)) for c in Bt] for r in A]
