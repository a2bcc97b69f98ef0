"""The checker kernel: the one code path every certificate kind goes through.

Standard library only; imports nothing from ``logitgeom``.  A kind module
(``certificates/check*.py``) states its proof obligation and discharges it with the
functions here, never with its own copy of them:

* reading: JSON text and JSON-lines shards (no floats, no NaN, no duplicate keys at any
  level, bounded nesting and integer length), canonical rationals ``"p/q"`` with one digit
  limit (:data:`MAX_DIGITS`, checked on the text before any parsing), vectors, matrices,
  unknown-field rejection;
* referenced files: resolved against the certificate's folder, regular files only (no
  FIFO, device or symlink to one), size-bounded before reading, SHA-256 checked;
* exact arithmetic: integer scaling (a common positive denominator), dot products,
  determinant signs (Bareiss), the exact PSD test (LDL^T), witness checks (every row
  strictly positive) and Gordan checks (non-negative multipliers whose combination
  vanishes);
* work accounting: :func:`charge` counts units *before* each exact step; a check that
  would go beyond its budget stops with ``work-budget`` (not checked), so no file runs
  longer than its budget (there is no separate estimate: the meter is the bound).

Every failed check raises :class:`logitgeom_certificates.errors.Fail`.

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
>>> psd_fails([[Fraction(1), Fraction(2)], [Fraction(2), Fraction(1)]])
1
"""

from __future__ import annotations

import contextvars
import hashlib
import itertools
import json
import math
import os
import re
import stat
from dataclasses import dataclass, field
from fractions import Fraction

from .bigint import str_to_int
from .errors import Fail
from .meter import DEFAULT_MAX_WORK, budget, charge, setting, used, weight

#: Most digits in p or in q of one number; the text is checked before it is parsed, so a
#: short string such as "1e100000000" or a 100,000-digit number costs nothing.
MAX_DIGITS = 4000
#: Largest certificate or referenced file read (bytes), deepest JSON nesting accepted.
MAX_FILE_BYTES = 64 * 1024 * 1024
MAX_DEPTH = 64
FORMAT, VERSION = "logitgeom-certificate", 1
#: Fields every certificate (and every part) may carry, besides those of its kind.
COMMON = frozenset({"format", "version", "kind", "statement", "provenance"})
#: Failed checks that mean "unreadable, unsupported or not checked" (exit code 2) rather
#: than "invalid"; ``work-budget``: the work exceeds ``--max-work`` (not checked).
UNREADABLE = ("unreadable", "unsupported-format", "unsupported-version", "unsupported-kind",
              "work-budget")
#: A canonical rational's text, at most MAX_DIGITS digits in p and in q (the digit limit is
#: part of the pattern, so a long number is refused before anything is parsed).
_DIGITS = f"[1-9][0-9]{{0,{MAX_DIGITS - 1}}}"
_CANONICAL = re.compile(f"-?(0|{_DIGITS})(/{_DIGITS})?", re.ASCII)
#: A JSON string (escapes included, possibly unterminated) or a run of non-bracket text.
_OUTSIDE = re.compile(r'"(?:[^"\\]++|\\.)*+"?|[^][{}"]++', re.DOTALL)


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


def judge(obj, checker, max_work=DEFAULT_MAX_WORK) -> Verdict:
    """Run ``checker(obj, "")`` under the work budget (metered: every exact step is charged
    before it is done; ``"default"``: the default budget); never raises on bad input."""
    kind = obj.get("kind") if isinstance(obj, dict) and isinstance(obj.get("kind"), str) else None
    default = max_work == "default"
    try:
        with budget(DEFAULT_MAX_WORK if default else max_work, default):
            checker(obj, "")
            work = used()
    except Fail as f:
        return Verdict(False, kind, f.check, f.location or "/", f.message)
    except ArithmeticError as exc:  # absurd numbers: decimal overflow, ...
        return Verdict(False, kind, "number", "/", f"arithmetic failed: {exc!r}"[:300])
    except (TypeError, KeyError, ValueError, IndexError, AttributeError, RecursionError,
            MemoryError) as exc:  # malformed beyond the schema
        return Verdict(False, kind, "schema", "/",
                       f"malformed certificate: {type(exc).__name__}: {str(exc)[:200]}")
    return Verdict(True, kind, None, None, "valid", work)


#: Which proofs of a batch certificate to re-check (argmax audits): None (all), or a dict
#: {"labels": set or None, "sample": N or None, "seed": s} to which the check adds tallies.
SCOPE: contextvars.ContextVar = contextvars.ContextVar("proof_scope", default=None)


def read_and_check(path, checker, max_work="default", scope=None, labels=None, sample=None,
                   seed=0):
    """(verdict, parsed object or None) of one file, read once; its references resolve
    against its folder.  With ``labels`` or ``sample`` (argmax audits): re-check only those
    labels' proofs, or every never-proof and ``sample`` witnesses drawn with ``seed``; the
    dict ``scope`` then receives the tallies ``witnesses`` and ``checked``.  ``max_work``:
    units, None (no budget) or "default": the default budget, none for such a partial audit
    (the caller chose the proofs)."""
    try:
        obj = load(path)
    except Fail as f:
        return Verdict(False, None, f.check, f.location, f.message), None
    partial = labels is not None or sample is not None
    scope = scope if scope is not None else {}
    scope.update(labels=None if labels is None else frozenset(labels), sample=sample, seed=seed)
    if max_work == "default":  # a partial audit: the caller chose the proofs
        audit = isinstance(obj, dict) and obj.get("kind") == "argmax-audit"
        max_work = None if partial and audit else "default"
    with setting(SCOPE, scope if partial else None), base_dir(os.path.dirname(
            os.path.abspath(path))):
        return judge(obj, checker, max_work), obj


def fail_if(cond, check, loc, message) -> None:
    """Raise ``Fail(check, loc, message)`` when ``cond`` holds (the message is built either
    way, so it is kept cheap)."""
    if cond:
        raise Fail(check, loc, message)


def header(obj, loc, kinds) -> str:
    """Check ``format`` and ``version`` (an integer, exactly); return ``kind`` if in kinds."""
    fail_if(not isinstance(obj, dict), "schema", loc or "/", "a certificate is a JSON object")
    if obj.get("format") != FORMAT:
        raise Fail("unsupported-format", f"{loc}/format", f"format must be {FORMAT!r}")
    if type(obj.get("version")) is not int or obj["version"] != VERSION:
        raise Fail("unsupported-version", f"{loc}/version", f"version "
                   f"{ascii(obj.get('version'))[:40]} is not supported (this checker: {VERSION})")
    kind = obj.get("kind")
    if not isinstance(kind, str) or kind not in kinds:
        raise Fail("unsupported-kind", f"{loc}/kind", f"unknown kind {ascii(kind)[:60]}")
    return kind


# ----------------------------------------------------------------------------- reading
def _no_float(s):
    raise Fail("number", "/", f"JSON number {s} is not allowed; write numbers as 'p/q'")


def _pairs(pairs):
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise Fail("schema", "/", f"duplicate keys in one object: {sorted(keys)[:10]}")
    return dict(pairs)


def _int(s):
    if len(s.lstrip("-")) > 20:
        raise Fail("number", "/", f"a JSON integer of {len(s.lstrip('-'))} digits; JSON "
                   "integers are counts, indices and signs (numbers are 'p/q' strings)")
    return int(s)


def _depth(text: str) -> int:
    """MAX_DEPTH + 1 when brackets outside strings nest deeper than MAX_DEPTH, else 0 (strings
    and other characters dropped by one regular expression, then counted; no recursion)."""
    steps = itertools.accumulate(1 if c in "[{" else -1 for c in _OUTSIDE.sub("", text))
    return next((d for d in steps if d > MAX_DEPTH), 0)


def parse_json(text, loc="/", check="unreadable"):
    """One JSON document (a file or a shard line): numbers as strings, duplicate keys, floats,
    NaN and long integers rejected at every level."""
    try:
        if isinstance(text, bytes):
            text = text.decode("utf-8")
        fail_if(_depth(text) > MAX_DEPTH, check, loc, f"JSON nested deeper than {MAX_DEPTH} levels")
        return json.loads(text, parse_float=_no_float, parse_constant=_no_float,
                          parse_int=_int, object_pairs_hook=_pairs)
    except Fail as f:
        raise Fail(f.check, loc, f.message) from None
    except (ValueError, RecursionError) as exc:
        raise Fail(check, loc, f"not JSON: {' '.join(str(exc).split())[:200]}") from None


def get(obj, key, loc):
    """``obj[key]``; a clear ``schema`` failure when obj is no object or lacks the key."""
    fail_if(not isinstance(obj, dict), "schema", loc, "expected a JSON object")
    fail_if(key not in obj, "schema", f"{loc}/{key}", f"missing field '{key}'")
    return obj[key]


def only(obj, allowed, loc, what="this object"):
    """Reject unknown fields: a look-alike key must not change what is checked."""
    extra = sorted(set(obj) - set(allowed), key=str) if isinstance(obj, dict) else []
    if extra:
        raise Fail("schema", f"{loc}/{ascii(extra[0])[1:-1][:60]}",
                   f"unknown field {ascii(extra[0])[:60]} in {what} (allowed: "
                   f"{', '.join(sorted(allowed))}); a look-alike key would change the claim")


def read_number(s, loc) -> Fraction:
    """A canonical rational string ``"p/q"`` (lowest terms, q > 1, or ``"p"``)."""
    if not isinstance(s, str):
        raise Fail("number", loc, f"numbers are canonical strings 'p/q'; got {type(s).__name__}"
                   f" {ascii(s)[:40]}")
    if not _CANONICAL.fullmatch(s):
        shown = s if len(s) <= 40 else f"{s[:37]}... ({len(s)} characters)"
        raise Fail("number", loc, f"{shown!r} is not a canonical rational 'p/q' (digits, "
                   f"optional '-', no exponent, at most {MAX_DIGITS} digits in p and in q)")
    charge(1 + (len(s) // 64) ** 2)
    q = Fraction(s)
    if str(q) != s:
        raise Fail("number", loc, f"{s!r} is not canonical; write {str(q)!r}")
    return q


#: A canonical rational of any length (the length is checked against the caller's bound
#: before anything is parsed, :func:`read_long_number`).
_LONG = re.compile(r"(-?)(0|[1-9][0-9]*)(?:/([1-9][0-9]*))?", re.ASCII)


def read_long_number(s, loc, max_digits: int) -> Fraction:
    """A canonical rational ``"p/q"`` whose p and q may have up to ``max_digits`` digits
    (a bound the caller derives from the certificate itself, e.g. :func:`hadamard_digits`;
    at most :data:`MAX_DIGITS` it is :func:`read_number`).  The length is checked on the
    text before parsing, the text is parsed piecewise (:mod:`logitgeom_certificates.bigint`: no
    interpreter digit limit), and the work, quadratic in the length, is charged first."""
    if max_digits <= MAX_DIGITS or not isinstance(s, str) or len(s) <= MAX_DIGITS:
        return read_number(s, loc)
    m = _LONG.fullmatch(s)
    if m is None or max(len(m[2]), len(m[3] or "")) > max_digits:
        raise Fail("number", loc, f"{s[:37]!r}... ({len(s)} characters) is not a canonical "
                   f"rational 'p/q' of at most {max_digits} digits in p and in q (the bound "
                   "this proof's rows allow)")
    charge(1 + (len(s) // 64) ** 2)
    p, q = str_to_int(m[2]), str_to_int(m[3] or "1")
    fail_if(q == 1 and m[3] is not None or math.gcd(p, q) != 1, "number", loc,
            f"{s[:37]!r}... is not canonical (p/q in lowest terms, q > 1)")
    return Fraction(-p if m[1] else p, q)


def hadamard_digits(rows) -> int:
    """Decimal digits enough for the primitive integer solution of a square system whose
    columns are the integer vectors ``rows`` (plus a row of ones): by Cramer's rule each
    entry divides an (n - 1)-minor, at most prod ||row||_2 by Hadamard's inequality.  The
    bound is computed exactly (squared norms in integers), its work charged first."""
    bits = 0
    for r in rows:
        charge(len(r) * weight(max(map(abs, r), default=0)))
        bits += (sum(a * a for a in r).bit_length() + 1) // 2 + 1
    return bits * 30103 // 100000 + 2


def read_int(v, loc, lo=None, hi=None) -> int:
    """A JSON integer (not a boolean) in [lo, hi]."""
    fail_if(type(v) is not int, "schema", loc, f"expected a JSON integer, got {ascii(v)[:40]}")
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise Fail("schema", loc, f"integer {v} out of range [{lo}, {hi}]")
    return v


def read_list(v, loc, n=None) -> list:
    """A JSON list (of n entries when n is given)."""
    fail_if(not isinstance(v, list), "schema", loc, f"expected a list, got {type(v).__name__}")
    fail_if(n is not None and len(v) != n, "shape", loc, f"expected {n} entries, got {len(v)}")
    return v


def read_vector(v, loc, n=None) -> tuple:
    """A list of canonical rationals."""
    return tuple(read_number(x, f"{loc}/{i}") for i, x in enumerate(read_list(v, loc, n)))


def read_matrix(M, loc, cols=None, rows=None) -> tuple:
    """A non-empty list of equally long, non-empty rational rows."""
    M = read_list(M, loc, rows)
    fail_if(not M, "shape", loc, "a matrix needs at least one row")
    d = len(read_list(M[0], f"{loc}/0")) if cols is None else cols
    fail_if(d == 0, "shape", loc, "a matrix needs at least one column")
    return tuple(read_vector(r, f"{loc}/{i}", d) for i, r in enumerate(M))


def read_ints(v, loc, lo=None, hi=None, n=None) -> tuple:
    """A list of JSON integers in [lo, hi] (of n entries when n is given)."""
    return tuple(read_int(x, f"{loc}/{i}", lo, hi) for i, x in enumerate(read_list(v, loc, n)))


def read_labels(v, loc, k) -> tuple:
    """A non-empty list of distinct labels in 0..k-1 (a ranking or a prefix of one)."""
    labels = read_ints(v, loc, 0, k - 1)
    fail_if(not labels or len(set(labels)) != len(labels), "schema", loc,
            "a ranking is a non-empty list of distinct labels")
    return labels


def read_field(read, obj, key, loc, *args, **kw):
    """``read`` (read_vector, read_matrix, read_number, ...) applied to ``obj[key]``."""
    return read(get(obj, key, loc), f"{loc}/{key}", *args, **kw)


# ------------------------------------------------------------------- referenced files
#: Folder against which relative file references (heads, shards) are resolved.
FILE_BASE: contextvars.ContextVar = contextvars.ContextVar("certificate_base", default=None)


def base_dir(path):
    """Resolve a certificate's relative file references against ``path`` inside the block."""
    return setting(FILE_BASE, path)


def resolve(name, loc) -> str:
    """A referenced file's path (relative names against :data:`FILE_BASE`)."""
    if not isinstance(name, str) or not name or "\x00" in name:
        raise Fail("schema", loc, "expected a file name")
    base = FILE_BASE.get()
    return name if os.path.isabs(name) or not base else os.path.join(base, name)


def open_regular(path, loc, limit=MAX_FILE_BYTES, check="file"):
    """A binary file object of a regular file of at most ``limit`` bytes.  Opened without
    blocking (a FIFO cannot stall the checker) and tested on the open descriptor, so a
    symlink to a device or FIFO is refused too."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise Fail(check, loc, f"cannot read {path}: {exc.strerror or exc}") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
        os.close(fd)
        raise Fail(check, loc, f"cannot read {path}: " + (
            "not a regular file" if not stat.S_ISREG(info.st_mode) else
            f"{info.st_size} bytes, more than the {limit} read"))
    return os.fdopen(fd, "rb")


def read_file(path, loc, sha256=None, limit=MAX_FILE_BYTES, check="file") -> bytes:
    """The bytes of a regular file (bounded); with ``sha256``, their hash must match."""
    with open_regular(path, loc, limit, check) as fh:
        data = fh.read(limit + 1)
    fail_if(len(data) > limit, check, loc, f"{path} grew beyond {limit} bytes while read")
    if sha256 is not None and hashlib.sha256(data).hexdigest() != sha256:
        raise Fail("file-hash", loc, f"SHA-256 of {path} differs from the certificate")
    return data


#: the ``format`` of a result directory's manifest (logitgeom.geometry.store), not a certificate
REGIONS_FORMAT = b'"logitgeom-regions"'


def load(path):
    """Parse a certificate file (a regular file of at most MAX_FILE_BYTES, strict JSON).  A
    result directory's ``manifest.json`` is refused with a pointer to the certificate it
    can be turned into."""
    data = read_file(path, "/", check="unreadable")
    try:
        obj = parse_json(data, "/")
    except Fail:
        if REGIONS_FORMAT not in data:
            raise
        obj = None
    if obj is None or (isinstance(obj, dict) and obj.get("format") == "logitgeom-regions"):
        raise Fail("unsupported-format", "/", "this is the manifest of a result directory "
                   "(patterns --out DIR), not a certificate; write its certificate with "
                   "'logitgeom certify pattern --from DIR -o CERT' and check CERT")
    return obj


def json_lines(data: bytes, loc):
    """(location, object) per non-blank line of a JSON-lines shard, each parsed by
    :func:`parse_json` (duplicate keys, floats, ... rejected in every line)."""
    for n, line in enumerate(data.split(b"\n")):
        if line.strip():
            yield f"{loc}:{n + 1}", parse_json(line, f"{loc}:{n + 1}", "schema")


# -------------------------------------------------------------------------- arithmetic
def dot(a, b):
    """Exact inner product (an int for integer vectors)."""
    return sum(x * y for x, y in zip(a, b, strict=True))


def sgn(q) -> int:
    """-1, 0 or +1."""
    return (q > 0) - (q < 0)


def scaled(v) -> tuple[list, int]:
    """(integers, D) with v = integers / D, D > 0 the lcm of the denominators (a positive
    scaling: it changes no sign, witness or Gordan claim).  Works on Fractions and floats."""
    pq = [x.as_integer_ratio() for x in v]
    D = 1
    for _, q in pq:
        if D % q:
            charge(weight(D, q))
            D = math.lcm(D, q)
    charge(len(pq) * weight(D))
    return [p * (D // q) for p, q in pq], D


def scaled_matrix(M) -> tuple[list, int]:
    """(integer matrix, D) with M = ints / D (one common denominator)."""
    flat, D = scaled([x for r in M for x in r])
    d = len(M[0]) if M else 0
    return [flat[i * d:(i + 1) * d] for i in range(len(M))], D


def integer_model(W, b):
    """(W, b) times the lcm of all their denominators: integer rows, same patterns."""
    Mi, _ = scaled_matrix([(*r, c) for r, c in zip(W, b, strict=True)])
    return tuple(tuple(r[:-1]) for r in Mi), tuple(r[-1] for r in Mi)


def matmul(A, B) -> list:
    """Exact matrix product."""
    Bt = list(zip(*B, strict=True))
    charge(len(A) * len(Bt) * len(Bt[0] if Bt else ()) * weight(*(A[0] if A else ())))
    return [[sum(a * b for a, b in zip(r, c, strict=True)) for c in Bt] for r in A]


def det_sign(M) -> int:
    """Sign of det M by fraction-free (Bareiss) elimination on integer rows."""
    A = [scaled(r)[0] for r in M]  # positive row scalings keep the sign of det
    n, sign, prev = len(A), 1, 1
    for c in range(n):
        p = next((i for i in range(c, n) if A[i][c]), None)
        if p is None:
            return 0
        if p != c:
            A[c], A[p], sign = A[p], A[c], -sign
        charge((n - c) ** 2 * weight(A[c][c], prev))
        for i in range(c + 1, n):
            for j in range(c + 1, n):
                A[i][j] = (A[i][j] * A[c][c] - A[i][c] * A[c][j]) // prev
        prev = A[c][c]
    return sign * sgn(A[n - 1][n - 1])


def psd_fails(S) -> int | None:
    """Exact LDL^T of a symmetric rational matrix: None when PSD, else the index of the first
    bad pivot (negative, or zero with a non-zero column below it)."""
    S = [[Fraction(x) for x in r] for r in S]
    n = len(S)
    for k in range(n):
        p = S[k][k]
        if p < 0 or (p == 0 and any(S[i][k] for i in range(k + 1, n))):
            return k
        if p == 0:
            continue
        charge(4 * (n - k) ** 2 * weight(p.numerator, p.denominator))
        for i in range(k + 1, n):
            f = S[i][k] / p
            if f:
                for j in range(k + 1, i + 1):
                    S[i][j] -= f * S[k][j]
                    S[j][i] = S[i][j]
    return None


# ------------------------------------------------------------ witnesses and multipliers
def check_witness(rows, x, loc, what="row") -> None:
    """Every row (a, c) is strictly positive at x: a.x + c > 0, decided as a.p + c q > 0 for
    x = p / q (integers, q > 0).  ``None`` rows are not constraints."""
    p, q = scaled(x)
    for i, r in enumerate(rows):
        if r is not None:
            charge(len(p) * weight(q, r[1]))
            if sum(a * v for a, v in zip(r[0], p, strict=True)) + r[1] * q <= 0:
                raise Fail("witness", loc, f"{what} {i} is not strictly positive at the witness")


def check_gordan(rows, y, loc, radius=None) -> None:
    """Multipliers y prove that no x makes every row (a_i, c_i) positive: y >= 0, y = 0 on
    ``None`` rows, some y_i > 0, and sum y_i a_i = 0 with sum y_i c_i <= 0 (Gordan), or, on
    the box max_j |x_j| <= R, sum y_i c_i + R ||sum y_i a_i||_1 <= 0."""
    fail_if(any(q < 0 for q in y), "gordan-nonnegative", loc, "a multiplier is negative")
    bad = next((i for i, r in enumerate(rows) if r is None and y[i]), None)
    fail_if(bad is not None, "gordan-support", f"{loc}/{bad}", "multiplier on a row that is not"
            " a constraint (sign 0 or a tied pair) must be 0")
    fail_if(not any(y), "gordan-nonzero", loc, "all multipliers are zero")
    yi, _ = scaled(y)  # a positive scaling of y proves the same
    live = [(q, r) for q, r in zip(yi, rows, strict=True) if r is not None and q]
    charge(sum(len(a) * weight(q, max(map(abs, a), default=0)) for q, (a, _) in live))
    v = [sum(q * a[j] for q, (a, _) in live) for j in range(len(live[0][1][0]))]
    beta = sum((q * r[1] for q, r in live), 0)
    nz = next((j for j, t in enumerate(v) if t), None)
    fail_if(radius is None and nz is not None, "gordan-combination", loc,
            f"coordinate {nz} of sum y_i a_i is not 0")
    if beta + (0 if radius is None else radius * sum(map(abs, v))) > 0:
        raise Fail("gordan-combination", loc, "sum y_i c_i (bias part) is positive" if radius
                   is None else "sum y_i c_i + R ||sum y_i a_i||_1 > 0")
