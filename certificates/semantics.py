"""The trusted base of the checker: what the data in a certificate *means*.

Standard library only; imports nothing from ``engine``.  Every function here re-derives
a mathematical object from the raw data of a certificate (never from derived data stored
in it), in exact rational or integer arithmetic:

* reading: canonical rational strings ``"p/q"``, integers, vectors, matrices, models
  (W with an optional bias), label lists;
* arithmetic: dot products, primitive integer rows, fraction-free echelon reduction,
  signs of determinants (Bareiss);
* constraint rows: the strict inequalities meaning "x has sign vector s" or "x ranks the
  labels in this order" (:func:`sign_rows`, :func:`ranking_rows`), and the checks of a
  witness (a point satisfying them) and of Gordan multipliers (a proof that none does);
* arrangements: the hyperplanes of S(W) or R(W) (:func:`arrangement`), covers of a flat,
  and the verification of a listed intersection lattice with the region count of
  Zaslavsky's theorem (:func:`zaslavsky`).

The proof obligations these functions discharge are written out in docs/certificates.md;
the mathematics (sign and ranking patterns, Zaslavsky) in docs/geometry.md.  Every failed
check raises :class:`certificates.errors.Fail`.  Modules that add certificate kinds
(``certificates/check_<kind>.py``) import from here, never from :mod:`certificates.check`.

Examples
--------
>>> W, b = ((Fraction(1), Fraction(0)), (Fraction(0), Fraction(1))), (Fraction(0),) * 2
>>> rows = sign_rows(W, b, (1, -1), "/signs")
>>> check_witness(rows, {"witness": ["1", "-1/2"]}, "", 2)
>>> zaslavsky(arrangement(W, b, "sign"), [{"hyperplanes": [], "rank": 0},
...     {"hyperplanes": [0], "rank": 1}, {"hyperplanes": [1], "rank": 1},
...     {"hyperplanes": [0, 1], "rank": 2}], "/lattice", 2)
4
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import re
from fractions import Fraction
from itertools import combinations

from certificates.errors import Fail

__all__ = [
    "Fail", "get", "read_number", "read_int", "read_list", "read_vector", "read_matrix",
    "read_field", "read_model", "read_pair", "read_labels", "read_pattern_type", "dot", "sgn",
    "primitive", "integer_multiple", "int_row", "reduce_row", "echelon", "det_sign",
    "integer_model", "sign_rows", "ranking_rows", "claim_rows", "check_witness", "check_gordan",
    "arrangement",
    "covers", "zaslavsky",
]


#: Most digits in p or in q of one number; the text is checked before it is parsed, so a
#: short string such as "1e100000000" or a 100,000-digit number costs nothing (docs/limits.md).
MAX_DIGITS = 4000
_CANONICAL = re.compile(r"-?(0|[1-9][0-9]*)(/[1-9][0-9]*)?", re.ASCII)


# ----------------------------------------------------------------------------- reading
def get(obj, key, loc):
    """``obj[key]``; a clear ``schema`` failure when obj is no object or lacks the key."""
    if not isinstance(obj, dict):
        raise Fail("schema", loc, "expected a JSON object")
    if key not in obj:
        raise Fail("schema", f"{loc}/{key}", f"missing field '{key}'")
    return obj[key]


def read_number(s, loc) -> Fraction:
    """A canonical rational string ``"p/q"`` (lowest terms, q > 1, or ``"p"``)."""
    if not isinstance(s, str):
        raise Fail("number", loc, f"numbers are canonical strings 'p/q'; got {type(s).__name__}"
                   f" {s!r}")
    parts = s.lstrip("-").split("/") if len(s) <= 2 * MAX_DIGITS + 2 else [s]
    if any(len(p) > MAX_DIGITS for p in parts):
        raise Fail("number", loc, f"a number of {len(s)} characters: p and q may have at most "
                   f"{MAX_DIGITS} digits each")
    if not _CANONICAL.fullmatch(s):
        shown = s if len(s) <= 40 else s[:37] + "..."
        raise Fail("number", loc, f"{shown!r} is not a canonical rational 'p/q' (digits, "
                   "optional '-', no exponent)")
    q = Fraction(s)
    if str(q) != s:
        raise Fail("number", loc, f"{s!r} is not canonical; write {str(q)!r}")
    return q


def read_int(v, loc, lo=None, hi=None) -> int:
    """A JSON integer (not a boolean) in [lo, hi]."""
    if not isinstance(v, int) or isinstance(v, bool):
        raise Fail("schema", loc, f"expected a JSON integer, got {v!r}")
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise Fail("schema", loc, f"integer {v} out of range [{lo}, {hi}]")
    return v


def read_list(v, loc, n=None) -> list:
    """A JSON list (of n entries when n is given)."""
    if not isinstance(v, list):
        raise Fail("schema", loc, f"expected a list, got {type(v).__name__}")
    if n is not None and len(v) != n:
        raise Fail("shape", loc, f"expected {n} entries, got {len(v)}")
    return v


def read_vector(v, loc, n=None) -> tuple:
    """A list of canonical rationals."""
    return tuple(read_number(x, f"{loc}/{i}") for i, x in enumerate(read_list(v, loc, n)))


def read_matrix(M, loc, cols=None) -> tuple:
    """A non-empty list of equally long, non-empty rational rows."""
    rows = read_list(M, loc)
    if not rows:
        raise Fail("shape", loc, "a matrix needs at least one row")
    d = len(read_list(rows[0], f"{loc}/0")) if cols is None else cols
    if d == 0:
        raise Fail("shape", loc, "a matrix needs at least one column")
    return tuple(read_vector(r, f"{loc}/{i}", d) for i, r in enumerate(rows))


def read_field(read, obj, key, loc, *args):
    """``read`` (read_vector, read_matrix, read_labels, ...) applied to ``obj[key]``."""
    return read(get(obj, key, loc), f"{loc}/{key}", *args)


def read_model(obj, loc, wkey="W", bkey="bias"):
    """(W, b): b is all zeros when the certificate has no bias."""
    W = read_field(read_matrix, obj, wkey, loc)
    if obj.get(bkey) is None:
        return W, (Fraction(0),) * len(W)
    return W, read_vector(obj[bkey], f"{loc}/{bkey}", len(W))


def read_pair(obj, loc):
    """(W1, b1), (W2, b2) with the same number of rows (biases: fields bias1, bias2)."""
    (W1, b1), (W2, b2) = read_model(obj, loc, "W1", "bias1"), read_model(obj, loc, "W2", "bias2")
    if len(W1) != len(W2):
        raise Fail("shape", loc, f"W1 has {len(W1)} rows, W2 has {len(W2)}")
    return (W1, b1), (W2, b2)


def read_labels(v, loc, k) -> tuple:
    """A non-empty list of distinct labels in 0..k-1 (a ranking or a prefix of one)."""
    labels = tuple(read_int(x, f"{loc}/{i}", 0, k - 1) for i, x in enumerate(read_list(v, loc)))
    if not labels or len(set(labels)) != len(labels):
        raise Fail("schema", loc, "a ranking is a non-empty list of distinct labels")
    return labels


def read_pattern_type(obj, loc) -> str:
    """The field ``pattern``: ``"sign"`` or ``"ranking"``."""
    ptype = get(obj, "pattern", loc)
    if ptype not in ("sign", "ranking"):
        raise Fail("schema", f"{loc}/pattern", f"pattern must be 'sign' or 'ranking': {ptype!r}")
    return ptype


# -------------------------------------------------------------------------- arithmetic
def dot(a, b) -> Fraction:
    """Exact inner product."""
    return sum((x * y for x, y in zip(a, b, strict=True)), Fraction(0))


def sgn(q) -> int:
    """-1, 0 or +1."""
    return (q > 0) - (q < 0)


def primitive(v) -> tuple:
    """The primitive integer multiple of the integer vector v with first non-zero entry > 0;
    ``()`` when v = 0."""
    g = 0
    for x in v:
        g = math.gcd(g, x)
    if not g:
        return ()
    g = g if next(x for x in v if x) > 0 else -g
    return tuple(x // g for x in v)


def integer_multiple(r) -> list:
    """r times the lcm of its denominators: integers, same direction (a positive scaling)."""
    den = math.lcm(*(x.denominator for x in r))
    return [int(x * den) for x in r]


def int_row(a, c) -> tuple:
    """The affine function (a | c) as a primitive integer row (same zero set, any sign)."""
    return primitive(integer_multiple((*a, c)))


def reduce_row(basis, v) -> tuple:
    """Fraction-free reduction of v by an echelon basis [(pivot, row)], made primitive."""
    for p, e in basis:
        if v[p]:
            v = [e[p] * x - v[p] * y for x, y in zip(v, e, strict=True)]
    return primitive(v)


def echelon(rows) -> list:
    """An integer echelon basis [(pivot, row)] of the span of ``rows``."""
    basis = []
    for r in rows:
        r = reduce_row(basis, r)
        if r:
            basis.append((next(i for i, x in enumerate(r) if x), r))
    return basis


def det_sign(M) -> int:
    """Sign of det M by fraction-free (Bareiss) elimination on integer rows."""
    A = [integer_multiple(r) for r in M]  # positive row scalings keep the sign of det
    n, sign, prev = len(A), 1, 1
    for c in range(n):
        p = next((i for i in range(c, n) if A[i][c]), None)
        if p is None:
            return 0
        if p != c:
            A[c], A[p], sign = A[p], A[c], -sign
        for i in range(c + 1, n):
            for j in range(c + 1, n):
                A[i][j] = (A[i][j] * A[c][c] - A[i][c] * A[c][j]) // prev
        prev = A[c][c]
    return sign * sgn(A[n - 1][n - 1])


# ------------------------------------------------------------------- constraint rows
def sign_rows(W, b, signs, loc):
    """Rows s_i (w_i, b_i) that must be > 0; sign 0 only on identically zero rows (None)."""
    rows = []
    for i, s in enumerate(signs):
        zero = not any(W[i]) and not b[i]
        if (s == 0) != zero:
            raise Fail("face-sign", f"{loc}/{i}", f"row {i} is {'' if zero else 'not '}identically"
                       f" zero, so its sign must be {'0' if zero else '+1 or -1'} (topes only)")
        rows.append(None if s == 0 else (tuple(s * x for x in W[i]), s * b[i]))
    return rows


def ranking_rows(W, b, ranking, loc):
    """Rows (w_a - w_c, b_a - b_c) > 0 for the pairs 'a above c' of a ranking or top-t prefix
    (consecutive labels, then the last label above every unlisted one; SPEC.md).  A tied pair
    (equal rows and biases) in increasing label order always holds and gives None; in
    decreasing order it is kept as a zero row, which can never be > 0."""
    pairs = list(zip(ranking, ranking[1:], strict=False))
    pairs += [(ranking[-1], j) for j in range(len(W)) if j not in ranking]
    rows = []
    for a, c in pairs:
        row = (tuple(x - y for x, y in zip(W[a], W[c], strict=True)), b[a] - b[c])
        rows.append(None if a < c and not any(row[0]) and not row[1] else row)
    return rows


def claim_rows(obj, loc, key, ranking, W, b):
    """(constraint rows, value) of the sign vector or ranking (prefix) at ``obj[key]``."""
    v, vloc = get(obj, key, loc), f"{loc}/{key}"
    value = (read_labels(v, vloc, len(W)) if ranking else
             tuple(read_int(s, f"{vloc}/{i}", -1, 1) for i, s in enumerate(read_list(v, vloc,
                                                                                      len(W)))))
    return (ranking_rows if ranking else sign_rows)(W, b, value, vloc), value


def integer_model(W, b):
    """(W, b) times one positive integer, the lcm of all their denominators.

    A common positive scaling of every logit changes no sign vector, ranking, witness or
    Gordan claim, and integer rows make the checks of many patterns fast."""
    den = math.lcm(*(x.denominator for r in W for x in r), *(x.denominator for x in b))
    return (tuple(tuple(int(x * den) for x in r) for r in W),
            tuple(int(x * den) for x in b))


def check_witness(rows, obj, loc, d, what="row"):
    """The witness x = obj["witness"] makes every row (a, c) strictly positive: a.x + c > 0
    (decided as a.p + c q > 0 for x = p / q with integers p and q > 0)."""
    x = read_field(read_vector, obj, "witness", loc, d)
    q = math.lcm(*(v.denominator for v in x))
    p = [int(v * q) for v in x]
    for i, r in enumerate(rows):
        if r is not None and sum(a * v for a, v in zip(r[0], p, strict=True)) + r[1] * q <= 0:
            raise Fail("witness", f"{loc}/witness", f"{what} {i} is not strictly positive at"
                       " the witness")


def check_gordan(rows, obj, loc, d):
    """Multipliers y = obj["multipliers"]: y >= 0 on rows, 0 on dropped rows, some y_i > 0,
    sum y_i a_i = 0, sum y_i c_i <= 0 (then no x has a_i.x + c_i > 0 for all i)."""
    y = read_field(read_vector, obj, "multipliers", loc, len(rows))
    loc = f"{loc}/multipliers"
    if any(q < 0 for q in y):
        raise Fail("gordan-nonnegative", loc, "a multiplier is negative")
    for i, r in enumerate(rows):
        if r is None and y[i]:
            raise Fail("gordan-support", f"{loc}/{i}", "multiplier on a row that is not a"
                       " constraint (sign 0 or a tied pair) must be 0")
    if not any(y):
        raise Fail("gordan-nonzero", loc, "all multipliers are zero")
    live = [(q, r) for q, r in zip(y, rows, strict=True) if r is not None]
    for j in range(d):
        if sum((q * r[0][j] for q, r in live), Fraction(0)):
            raise Fail("gordan-combination", loc, f"coordinate {j} of sum y_i a_i is not 0")
    if sum((q * r[1] for q, r in live), Fraction(0)) > 0:
        raise Fail("gordan-combination", loc, "sum y_i c_i (bias part) is positive")


# ------------------------------------------------------------------------ arrangements
def arrangement(W, b, ptype):
    """Rows (a, c) of the arrangement: W (sign) or B W with bias differences (ranking),
    pairs (i, j), i < j, in lexicographic order."""
    if ptype == "sign":
        return list(zip(W, b, strict=True))
    return [(tuple(x - y for x, y in zip(W[i], W[j], strict=True)), b[i] - b[j])
            for i, j in combinations(range(len(W)), 2)]


def covers(R, X, basis, E):
    """Rows outside the flat X (echelon basis of its functions) reduced modulo X, grouped by
    direction: row j is in the closure of X + h iff its reduction is parallel to h's.
    Returns (rows in the span of X, {direction: rows}, direction of the constant E)."""
    zero, groups = [], {}
    for j, r in R.items():
        if j not in X:
            r = reduce_row(basis, r)
            if r:
                groups.setdefault(r, []).append(j)
            else:
                zero.append(j)
    return zero, groups, reduce_row(basis, E)


def zaslavsky(H, lattice, loc, d) -> int:
    """Verify the listed intersection lattice of the non-constant rows of H; return the
    number of regions sum |mu(0, X)| (Zaslavsky's theorem)."""
    R = {i: int_row(a, c) for i, (a, c) in enumerate(H) if any(a)}
    E = (0,) * d + (1,)
    flats = {}
    for n, f in enumerate(read_list(lattice, loc)):
        fl = f"{loc}/{n}"
        hs = tuple(read_int(h, f"{fl}/hyperplanes/{m}", 0, len(H) - 1) for m, h in
                   enumerate(read_list(get(f, "hyperplanes", fl), f"{fl}/hyperplanes")))
        if list(hs) != sorted(set(hs)) or any(h not in R for h in hs):
            raise Fail("schema", f"{fl}/hyperplanes", "hyperplanes must be increasing indices"
                       " of non-constant rows")
        rank = read_int(get(f, "rank", fl), f"{fl}/rank", 0)
        X, basis = frozenset(hs), echelon([R[h] for h in hs])
        zero, groups, e = covers(R, X, basis, E)
        if not e:
            raise Fail("flat-empty", fl, "these hyperplanes have an empty intersection")
        if len(basis) != rank:
            raise Fail("flat-rank", f"{fl}/rank", f"stated rank {rank}, actual {len(basis)}")
        if zero:
            raise Fail("flat-closed", fl, f"not closed: hyperplane {zero[0]} contains this flat")
        if X in flats:
            raise Fail("flat-duplicate", fl, "flat listed twice")
        flats[X] = (rank, [X | frozenset(g) for r, g in groups.items() if r != e])
    if frozenset() not in flats:
        raise Fail("lattice-bottom", loc, "the whole space (the empty flat) is not listed")
    for X, (_, ups) in flats.items():
        for T in ups:  # the closure of X and one more hyperplane (non-empty intersections)
            if T not in flats:
                raise Fail("lattice-incomplete", loc, f"closure of flat {sorted(X)} and"
                           f" hyperplane {min(T - X)} is not listed")
    return sum(abs(m) for m in _moebius(sorted(flats, key=lambda F: (flats[F][0], sorted(F)))))


def _moebius(order) -> list:
    """mu(0, X) = -sum of mu(0, Y) over the flats Y strictly below X, for closed flats sorted
    by rank (a flat strictly below X is a proper subset of X's hyperplanes, so it comes
    earlier).  The flats below X are the earlier ones containing no hyperplane outside X:
    found with one bit per flat (bit n of inside[h]: flat n contains hyperplane h)."""
    inside = {}
    for n, X in enumerate(order):
        for h in X:
            inside[h] = inside.get(h, 0) | 1 << n
    mu = []
    for n, X in enumerate(order):
        outside = 0
        for h, bits in inside.items():
            if h not in X:
                outside |= bits
        below, total = ((1 << n) - 1) & ~outside, 0
        while below:
            low = below & -below
            total += mu[low.bit_length() - 1]
            below ^= low
        mu.append(-total if X else 1)
    return mu


#: Folder against which a certificate's relative file references (head files, shards) are
#: resolved; set by :func:`base_dir` (``check_file`` uses the certificate's own folder).
FILE_BASE: contextvars.ContextVar = contextvars.ContextVar("certificate_base", default=None)


@contextlib.contextmanager
def base_dir(path):
    """Resolve a certificate's relative file references against ``path`` inside the block."""
    token = FILE_BASE.set(path)
    try:
        yield
    finally:
        FILE_BASE.reset(token)
