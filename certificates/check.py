"""The trusted checker of logitgeom certificates (format ``logitgeom-certificate``, v1).

Standard library only; imports nothing from ``engine``, numpy, cvxpy or cdd.  Every claim
is re-derived from the data in the file (W, signs, rankings) in exact rational arithmetic;
derived data in the file (chain rows, B W, minors, closures) is never trusted.  The format
is specified in ``certificates/SPEC.md``.  Usage::

    python -m certificates.check FILE... [--explain] [--latex]

Exit code 0: every file valid; 1: some file invalid; 2: some file unreadable or of an
unsupported format/version/kind.

Examples
--------
>>> cert = {"format": "logitgeom-certificate", "version": 1, "kind": "sign-feasible",
...         "W": [["1", "0"], ["0", "1"]], "signs": [1, -1], "witness": ["1", "-1/2"]}
>>> check(cert)
Verdict(ok=True, kind='sign-feasible', failed_check=None, location=None, message='valid')
>>> check(dict(cert, witness=["1", "1"])).failed_check
'witness'
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations

try:  # the layer-peeled brackets (docs/certified-optima.md); stdlib only as well
    from certificates import check_bracket as _bracket
except ImportError:  # run as a plain script: this file's folder is on sys.path
    import check_bracket as _bracket

__all__ = ["FORMAT", "VERSION", "KINDS", "THEOREMS", "Verdict", "check", "check_file", "main"]

FORMAT = "logitgeom-certificate"
VERSION = 1
KINDS = ("sign-feasible", "sign-infeasible", "ranking-feasible", "ranking-infeasible",
         "translation", "cosine-equal", "same-chirotope", "pattern-complete",
         "pattern-differs", "theorem")
_PC = ("pattern-complete", "pattern-complete")
#: Theorem -> (kinds of its first parts, kinds allowed for any further parts).
_PARTS = {"translation-cosine": (("translation", "translation"), ()),
          "centred-cosine-ranking": (("ranking-feasible",), ()),
          "cosine-not-ranking": (("cosine-equal", "pattern-differs"), ("pattern-differs",)),
          "sign-not-ranking": (("same-chirotope", "pattern-differs"), ("pattern-differs",)),
          "cosine-determines-sign": (_PC, ()), "difference-cosine-determines-ranking": (_PC, ()),
          "patterns-equal": (_PC, ()),
          "argmaxable-labels": ((), ("ranking-feasible", "ranking-infeasible"))}
THEOREMS = tuple(_PARTS)
#: Failed checks that mean "unreadable or unsupported" (exit code 2) rather than "invalid".
UNREADABLE = ("unreadable", "unsupported-format", "unsupported-version", "unsupported-kind")


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

    @property
    def exit_code(self) -> int:
        """0 valid, 1 invalid, 2 unreadable or unsupported."""
        return 0 if self.ok else (2 if self.failed_check in UNREADABLE else 1)


class Fail(Exception):
    """One failed check: identifier, location, message."""

    def __init__(self, check: str, location: str, message: str):
        super().__init__(message)
        self.check, self.location, self.message = check, location, message


# ----------------------------------------------------------------------------- reading
def _get(obj, key, loc):
    if not isinstance(obj, dict):
        raise Fail("schema", loc, "expected a JSON object")
    if key not in obj:
        raise Fail("schema", f"{loc}/{key}", f"missing field '{key}'")
    return obj[key]


def _num(s, loc) -> Fraction:
    if not isinstance(s, str):
        raise Fail("number", loc, f"numbers are canonical strings 'p/q'; got {type(s).__name__}"
                   f" {s!r}")
    try:
        q = Fraction(s)
    except (ValueError, ZeroDivisionError):
        raise Fail("number", loc, f"{s!r} is not a rational 'p/q'") from None
    if str(q) != s:
        raise Fail("number", loc, f"{s!r} is not canonical; write {str(q)!r}")
    return q


def _int(v, loc, lo=None, hi=None) -> int:
    if not isinstance(v, int) or isinstance(v, bool):
        raise Fail("schema", loc, f"expected a JSON integer, got {v!r}")
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise Fail("schema", loc, f"integer {v} out of range [{lo}, {hi}]")
    return v


def _list(v, loc, n=None) -> list:
    if not isinstance(v, list):
        raise Fail("schema", loc, f"expected a list, got {type(v).__name__}")
    if n is not None and len(v) != n:
        raise Fail("shape", loc, f"expected {n} entries, got {len(v)}")
    return v


def _vec(v, loc, n=None) -> tuple:
    return tuple(_num(x, f"{loc}/{i}") for i, x in enumerate(_list(v, loc, n)))


def _mat(M, loc, cols=None) -> tuple:
    rows = _list(M, loc)
    if not rows:
        raise Fail("shape", loc, "a matrix needs at least one row")
    d = len(_list(rows[0], f"{loc}/0")) if cols is None else cols
    if d == 0:
        raise Fail("shape", loc, "a matrix needs at least one column")
    return tuple(_vec(r, f"{loc}/{i}", d) for i, r in enumerate(rows))


def _field(read, obj, key, loc, *args):
    """``read`` (_vec, _mat, _labels, ...) applied to the field ``obj[key]``."""
    return read(_get(obj, key, loc), f"{loc}/{key}", *args)


def _model(obj, loc, wkey="W", bkey="bias"):
    """(W, b): b is all zeros when the certificate has no bias."""
    W = _field(_mat, obj, wkey, loc)
    if obj.get(bkey) is None:
        return W, (Fraction(0),) * len(W)
    return W, _vec(obj[bkey], f"{loc}/{bkey}", len(W))


def _pair(obj, loc):
    """(W1, b1), (W2, b2) with the same number of rows (biases: fields bias1, bias2)."""
    (W1, b1), (W2, b2) = _model(obj, loc, "W1", "bias1"), _model(obj, loc, "W2", "bias2")
    if len(W1) != len(W2):
        raise Fail("shape", loc, f"W1 has {len(W1)} rows, W2 has {len(W2)}")
    return (W1, b1), (W2, b2)


def _labels(v, loc, k) -> tuple:
    labels = tuple(_int(x, f"{loc}/{i}", 0, k - 1) for i, x in enumerate(_list(v, loc)))
    if not labels or len(set(labels)) != len(labels):
        raise Fail("schema", loc, "a ranking is a non-empty list of distinct labels")
    return labels


# -------------------------------------------------------------------------- arithmetic
def _dot(a, b) -> Fraction:
    return sum((x * y for x, y in zip(a, b, strict=True)), Fraction(0))


def _sgn(q) -> int:
    return (q > 0) - (q < 0)


def _prim(v) -> tuple:
    """The primitive integer multiple of v with first non-zero entry > 0; () when v = 0."""
    g = 0
    for x in v:
        g = math.gcd(g, x)
    if not g:
        return ()
    g = g if next(x for x in v if x) > 0 else -g
    return tuple(x // g for x in v)


def _ints(r) -> list:
    """r times the lcm of its denominators: integers, same direction (a positive scaling)."""
    den = math.lcm(*(x.denominator for x in r))
    return [int(x * den) for x in r]


def _int_row(a, c) -> tuple:
    """The affine function (a | c) as a primitive integer row (positive scaling keeps spans)."""
    return _prim(_ints((*a, c)))


def _ireduce(basis, v) -> tuple:
    """Fraction-free reduction of v by an echelon basis [(pivot, row)], made primitive."""
    for p, e in basis:
        if v[p]:
            v = [e[p] * x - v[p] * y for x, y in zip(v, e, strict=True)]
    return _prim(v)


def _ibasis(rows) -> list:
    basis = []
    for r in rows:
        r = _ireduce(basis, r)
        if r:
            basis.append((next(i for i, x in enumerate(r) if x), r))
    return basis


def _det_sign(M) -> int:
    """Sign of det M by fraction-free (Bareiss) elimination on integer rows."""
    A = [_ints(r) for r in M]  # positive row scalings keep the sign of the determinant
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
    return sign * _sgn(A[n - 1][n - 1])


# ---------------------------------------------------------------------- linear systems
def _sign_rows(W, b, signs, loc):
    """Rows s_i (w_i, b_i) that must be > 0; sign 0 only on identically zero rows."""
    rows = []
    for i, s in enumerate(signs):
        zero = not any(W[i]) and not b[i]
        if (s == 0) != zero:
            raise Fail("face-sign", f"{loc}/{i}", f"row {i} is {'' if zero else 'not '}identically"
                       f" zero, so its sign must be {'0' if zero else '+1 or -1'} (topes only)")
        rows.append(None if s == 0 else (tuple(s * x for x in W[i]), s * b[i]))
    return rows


def _ranking_rows(W, b, ranking, loc):
    """Rows (w_a - w_b, b_a - b_b) > 0 for the pairs 'a above b' of a ranking or top-t prefix
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


def _check_witness(rows, obj, loc, d, what="row"):
    """The witness x = obj["witness"] makes every row (a, c) strictly positive: a.x + c > 0."""
    x = _field(_vec, obj, "witness", loc, d)
    for i, r in enumerate(rows):
        if r is not None and _dot(r[0], x) + r[1] <= 0:
            raise Fail("witness", f"{loc}/witness", f"{what} {i} is not strictly positive at"
                       " the witness")


def _check_gordan(rows, obj, loc, d):
    """Multipliers y = obj["multipliers"]: y >= 0 on rows, 0 on dropped rows, some y_i > 0,
    sum y_i a_i = 0, sum y_i c_i <= 0."""
    y = _field(_vec, obj, "multipliers", loc, len(rows))
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


def _claim_rows(obj, loc, key, ranking, W, b):
    """(constraint rows, value) of the sign vector or ranking (prefix) at ``obj[key]``."""
    v, vloc = _get(obj, key, loc), f"{loc}/{key}"
    value = (_labels(v, vloc, len(W)) if ranking else
             tuple(_int(s, f"{vloc}/{i}", -1, 1) for i, s in enumerate(_list(v, vloc, len(W)))))
    return (_ranking_rows if ranking else _sign_rows)(W, b, value, f"{loc}/{key}"), value


def _pattern_type(obj, loc):
    ptype = _get(obj, "pattern", loc)
    if ptype not in ("sign", "ranking"):
        raise Fail("schema", f"{loc}/pattern", f"pattern must be 'sign' or 'ranking': {ptype!r}")
    return ptype


# ---------------------------------------------------------------------- kind checkers
def _single(obj, loc):
    """sign-/ranking-feasible (witness) and -infeasible (Gordan multipliers)."""
    ranking, feasible = obj["kind"].startswith("ranking"), obj["kind"].endswith("-feasible")
    W, b = _model(obj, loc)
    rows, _ = _claim_rows(obj, loc, "ranking" if ranking else "signs", ranking, W, b)
    if feasible:
        _check_witness(rows, obj, loc, len(W[0]), "chain row" if ranking else "row")
    else:
        _check_gordan(rows, obj, loc, len(W[0]))


def _translation(obj, loc):
    W, _ = _model(obj, loc)
    v = _field(_vec, obj, "v", loc, len(W[0]))
    Wt = _field(_mat, obj, "W_translated", loc, len(W[0]))
    if len(Wt) != len(W):
        raise Fail("shape", f"{loc}/W_translated", f"expected {len(W)} rows, got {len(Wt)}")
    for r, (row, rowt) in enumerate(zip(W, Wt, strict=True)):
        if any(x + y != z for x, y, z in zip(row, v, rowt, strict=True)):
            raise Fail("translation-rows", f"{loc}/W_translated/{r}", f"row {r} is not w_{r} + v")
    labels = _field(_labels, obj, "labels", loc, len(W))
    if len(labels) != 2:
        raise Fail("schema", f"{loc}/labels", "labels must be two distinct labels")
    i, j = labels
    target = _int(_get(obj, "target", loc), f"{loc}/target", -1, 1)
    if target == 0:
        raise Fail("schema", f"{loc}/target", "target must be +1 or -1")
    a, c = Wt[i], Wt[j]
    if not any(a) or not any(c):
        raise Fail("zero-row", f"{loc}/W_translated", "a translated row is zero (no cosine)")
    g = _dot(a, c)  # Cauchy-Schwarz: equality iff a and c are parallel; then cos = sign(g)
    if g * g != _dot(a, a) * _dot(c, c):
        raise Fail("not-parallel", f"{loc}/W_translated", f"rows {i} and {j} are not parallel")
    if _sgn(g) != target:
        raise Fail("cosine-sign", f"{loc}/target", f"cosine is {_sgn(g)}, not {target}")


def _cosine_equal(obj, loc):
    (W1, _), (W2, _) = _pair(obj, loc)
    for name, M in (("W1", W1), ("W2", W2)):
        for i, r in enumerate(M):
            if not any(r):
                raise Fail("zero-row", f"{loc}/{name}/{i}", "cosine of a zero row is undefined")
    for i, j in combinations(range(len(W1)), 2):
        g, h = _dot(W1[i], W1[j]), _dot(W2[i], W2[j])
        if _sgn(g) != _sgn(h):
            raise Fail("cosine-sign", f"{loc}", f"signs of <w_{i},w_{j}> differ")
        if g * g * _dot(W2[i], W2[i]) * _dot(W2[j], W2[j]) != \
                h * h * _dot(W1[i], W1[i]) * _dot(W1[j], W1[j]):
            raise Fail("cosine-magnitude", f"{loc}", f"|cos(w_{i}, w_{j})| differ")


def _chirotope(obj, loc):
    (W1, _), (W2, _) = _pair(obj, loc)
    k, d = len(W1), len(W1[0])
    if len(W2[0]) != d or d > k:
        raise Fail("shape", loc, "W1 and W2 must both be k x d with d <= k")
    sigma = None
    for S in combinations(range(k), d):
        s1 = _det_sign([W1[i] for i in S])
        s2 = _det_sign([W2[i] for i in S])
        if sigma is None and s1:
            sigma = s1 * s2
        if s1 * (sigma or 1) != s2 or (s1 == 0) != (s2 == 0):
            raise Fail("chirotope-sign", f"{loc}", f"minor on rows {list(S)}: signs {s1}, {s2}"
                       " do not agree up to one global sign")
    if not sigma:
        raise Fail("rank", loc, f"rank is below d = {d}: every maximal minor is 0")


def _arrangement(W, b, ptype):
    """Rows (a, c) of the arrangement: W (sign) or B W with bias differences (ranking)."""
    if ptype == "sign":
        return list(zip(W, b, strict=True))
    return [(tuple(x - y for x, y in zip(W[i], W[j], strict=True)), b[i] - b[j])
            for i, j in combinations(range(len(W)), 2)]


def _covers(R, X, basis, E):
    """Rows outside the flat X (echelon basis of its functions) reduced modulo X, grouped by
    direction: row j is in the closure of X + h iff its reduction is parallel to h's.
    Returns (rows in the span of X, {direction: rows}, direction of the constant E)."""
    zero, groups = [], {}
    for j, r in R.items():
        if j not in X:
            r = _ireduce(basis, r)
            if r:
                groups.setdefault(r, []).append(j)
            else:
                zero.append(j)
    return zero, groups, _ireduce(basis, E)


def _zaslavsky(H, lattice, loc, d) -> int:
    """Verify the listed intersection lattice of the non-constant rows of H; return the
    number of regions sum |mu(0, X)| (Zaslavsky)."""
    R = {i: _int_row(a, c) for i, (a, c) in enumerate(H) if any(a)}
    E = (0,) * d + (1,)
    flats = {}
    for n, f in enumerate(_list(lattice, loc)):
        fl = f"{loc}/{n}"
        hs = tuple(_int(h, f"{fl}/hyperplanes/{m}", 0, len(H) - 1)
                   for m, h in enumerate(_list(_get(f, "hyperplanes", fl), f"{fl}/hyperplanes")))
        if list(hs) != sorted(set(hs)) or any(h not in R for h in hs):
            raise Fail("schema", f"{fl}/hyperplanes", "hyperplanes must be increasing indices"
                       " of non-constant rows")
        rank = _int(_get(f, "rank", fl), f"{fl}/rank", 0)
        X, basis = frozenset(hs), _ibasis([R[h] for h in hs])
        zero, groups, e = _covers(R, X, basis, E)
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
    for X, (_, covers) in flats.items():
        for T in covers:  # the closure of X and one more hyperplane (non-empty intersections)
            if T not in flats:
                raise Fail("lattice-incomplete", loc, f"closure of flat {sorted(X)} and"
                           f" hyperplane {min(T - X)} is not listed")
    mu = {}
    for X in sorted(flats, key=lambda F: (flats[F][0], sorted(F))):
        mu[X] = 1 if not X else -sum(m for Y, m in mu.items() if Y < X)
    return sum(abs(m) for m in mu.values())


def _pattern_complete(obj, loc):
    """Returns (ptype, W, b, frozenset of patterns) for use by theorems."""
    W, b = _model(obj, loc)
    ptype = _pattern_type(obj, loc)
    if obj.get("top") is not None and (ptype != "ranking" or
                                       _int(obj["top"], f"{loc}/top", 1, len(W)) is None):
        raise Fail("schema", f"{loc}/top", "top applies to ranking patterns only")
    seen = set()
    for n, p in enumerate(_list(_get(obj, "patterns", loc), f"{loc}/patterns")):
        pl = f"{loc}/patterns/{n}"
        rows, value = _claim_rows(p, pl, "pattern", ptype == "ranking", W, b)
        if ptype == "ranking" and len(value) != len(W):
            raise Fail("shape", f"{pl}/pattern", f"a full ranking lists all {len(W)} labels")
        _check_witness(rows, p, pl, len(W[0]))
        if value in seen:
            raise Fail("duplicate-pattern", pl, "pattern listed twice")
        seen.add(value)
    count = _zaslavsky(_arrangement(W, b, ptype), _get(obj, "lattice", loc), f"{loc}/lattice",
                       len(W[0]))
    if count != len(seen):
        raise Fail("count", f"{loc}/patterns", f"{len(seen)} witnessed patterns but the"
                   f" arrangement has {count} regions")
    return ptype, W, b, frozenset(seen)


def _pattern_differs(obj, loc):
    (W1, b1), (W2, b2) = _pair(obj, loc)
    ranking = _pattern_type(obj, loc) == "ranking"
    _check_witness(_claim_rows(obj, loc, "value", ranking, W1, b1)[0], obj, loc, len(W1[0]))
    try:
        rows2, _ = _claim_rows(obj, loc, "value", ranking, W2, b2)
    except Fail as f:  # the sign vector's zeros do not match W2's zero rows: not a tope of W2
        if f.check == "face-sign":
            return
        raise
    _check_gordan(rows2, obj, loc, len(W2[0]))


def _mats(obj, loc, *keys):
    return [_field(_mat, obj, key, loc) for key in keys]


def _theorem(obj, loc):
    name = _get(obj, "theorem", loc)
    if name not in _PARTS:
        raise Fail("unsupported-kind", f"{loc}/theorem", f"unknown theorem {name!r}")
    parts = _field(_list, obj, "parts", loc)
    results = [_dispatch(p, f"{loc}/parts/{n}") for n, p in enumerate(parts)]
    kinds, (first, more) = [p["kind"] for p in parts], _PARTS[name]
    if not kinds or tuple(kinds[:len(first)]) != first or set(kinds[len(first):]) - set(more):
        raise Fail("theorem-parts", f"{loc}/parts", f"{name} needs parts {list(first)}"
                   + (f", then any number of {' / '.join(more)}" if more else ""))

    def same(cond, what):
        if not cond:
            raise Fail("theorem-mismatch", f"{loc}/parts", what)

    if name == "translation-cosine":
        p, q = parts
        same(_mats(p, loc, "W") == _mats(q, loc, "W") and p["labels"] == q["labels"],
             "both translations must start from the same W and labels")
        same(p["target"] == -1 and q["target"] == 1, "targets must be -1 then +1")
    elif name == "centred-cosine-ranking":
        p = parts[0]
        same(p.get("bias") is None, "the model has no bias")
        (W,) = _mats(p, loc, "W")
        prm = _get(obj, "parameters", loc)
        i, j = _field(_labels, prm, "labels", f"{loc}/parameters", len(W))
        c = _field(_num, prm, "cosine_at_least", f"{loc}/parameters")
        same(all(sum(col) == 0 for col in zip(*W, strict=True)), "W is not centred")
        g = _dot(W[i], W[j])
        same(c > 0 and g > 0 and g * g >= c * c * _dot(W[i], W[i]) * _dot(W[j], W[j]),
             f"cos(w_{i}, w_{j}) >= {c} does not hold")
        same(len(p["ranking"]) == len(W) and p["ranking"][0] == i and p["ranking"][-1] == j,
             f"the ranking must be full, with label {i} first and label {j} last")
    elif name in ("cosine-not-ranking", "sign-not-ranking"):
        pair = _mats(parts[0], loc, "W1", "W2")
        for p in parts[1:]:
            same(p["pattern"] == "ranking"
                 and p.get("bias1") is None and p.get("bias2") is None
                 and _mats(p, loc, "W1", "W2") in (pair, pair[::-1]),
                 "every further part must be a ranking pattern-differs between W1 and W2")
    elif name == "argmaxable-labels":
        W, b = _model(parts[0], loc)
        same(all(_model(p, loc) == (W, b) for p in parts), "all parts must share W, bias")
        classes = [tuple(p["ranking"]) for p in parts]
        same(sorted(a for c in classes for a in c) == list(range(len(W))),
             "the parts' prefixes must partition the labels")
        same(all(list(c) == sorted(c) and all((W[a], b[a]) == (W[c[0]], b[c[0]]) for a in c)
                 for c in classes), "each prefix must be tied labels in increasing order")
        same(len({(W[c[0]], b[c[0]]) for c in classes}) == len(classes),
             "tied labels must be in the same prefix (whole tie classes)")
        labels = sorted(a for c, k in zip(classes, kinds, strict=True)
                        if k == "ranking-feasible" for a in c)
        same(_get(_get(obj, "parameters", loc), "labels", loc) == labels,
             f"the argmaxable labels are {labels}")
    elif name == "patterns-equal":
        p, q = results
        same(p[0] == q[0], "both parts must be of the same pattern type")
        same(p[3] == q[3], "the two pattern sets differ")
    else:  # Lemma 5.3 / Thm 5.6 on an instance: S(G) = S(W) or R(W) with G = M M^T
        p, q = results
        ranking = name == "difference-cosine-determines-ranking"
        same(p[0] == ("ranking" if ranking else "sign") and q[0] == "sign"
             and not any(p[2]) and not any(q[2]), "parts must be (pattern of W, sign of G),"
             " without bias")
        M = [a for a, _ in _arrangement(p[1], p[2], p[0])]
        same(q[1] == tuple(tuple(_dot(r, s) for s in M) for r in M),
             "the second matrix is not G = M M^T")
        if ranking:
            k = len(p[1])
            mapped = set()
            for r in p[3]:
                pos = {a: n for n, a in enumerate(r)}
                mapped.add(tuple(0 if not any(M[n]) else (1 if pos[a] < pos[c] else -1)
                                 for n, (a, c) in enumerate(combinations(range(k), 2))))
            same(frozenset(mapped) == q[3], "sign patterns of G differ from R(W)")
        else:
            same(p[3] == q[3], "sign patterns of G differ from S(W)")


_CHECKERS = {
    **dict.fromkeys(KINDS[:4], _single),
    "translation": _translation,
    "cosine-equal": _cosine_equal,
    "same-chirotope": _chirotope,
    "pattern-complete": _pattern_complete,
    "pattern-differs": _pattern_differs,
    "theorem": _theorem,
}
_CHECKERS.update(_bracket.register(Fail, lambda obj, loc: _dispatch(obj, loc)))
KINDS += _bracket.KINDS


def _dispatch(obj, loc):
    if not isinstance(obj, dict):
        raise Fail("schema", loc or "/", "a certificate is a JSON object")
    if obj.get("format") != FORMAT:
        raise Fail("unsupported-format", f"{loc}/format", f"format must be {FORMAT!r}")
    if obj.get("version") != VERSION or isinstance(obj.get("version"), bool):
        raise Fail("unsupported-version", f"{loc}/version",
                   f"version {obj.get('version')!r} is not supported (this checker: {VERSION})")
    kind = obj.get("kind")
    if kind not in _CHECKERS:
        raise Fail("unsupported-kind", f"{loc}/kind", f"unknown kind {kind!r}")
    return _CHECKERS[kind](obj, loc)


def check(obj) -> Verdict:
    """Check one parsed certificate (a dict); never raises on bad input.

    Parameters
    ----------
    obj : dict
        The certificate, as parsed by :func:`json.loads` (numbers as ``"p/q"`` strings).

    Returns
    -------
    Verdict
    """
    kind = obj.get("kind") if isinstance(obj, dict) else None
    try:
        _dispatch(obj, "")
    except Fail as f:
        return Verdict(False, kind, f.check, f.location or "/", f.message)
    except (TypeError, KeyError, ValueError, IndexError, AttributeError, ZeroDivisionError,
            RecursionError) as exc:  # malformed beyond the schema
        return Verdict(False, kind, "schema", "/", f"malformed certificate: {exc!r}")
    return Verdict(True, kind, None, None, "valid")


def load(path):
    """Parse a certificate file; JSON floats, NaN/Infinity and duplicate keys raise Fail."""
    def _no_float(s):
        raise Fail("number", "/", f"JSON number {s} is not allowed; write numbers as 'p/q'")

    def _no_duplicates(pairs):
        keys = [k for k, _ in pairs]
        if len(set(keys)) != len(keys):
            raise Fail("schema", "/", f"duplicate keys in one object: {sorted(keys)}")
        return dict(pairs)

    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh, parse_float=_no_float, parse_constant=_no_float,
                             object_pairs_hook=_no_duplicates)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise Fail("unreadable", "/", f"cannot read {path}: {exc}") from None


def check_file(path) -> Verdict:
    """Read and check one certificate file.

    Returns
    -------
    Verdict
        ``failed_check`` is ``'unreadable'`` when the file is not JSON.
    """
    try:
        obj = load(path)
    except Fail as f:
        return Verdict(False, None, f.check, f.location, f.message)
    return check(obj)


def main(argv=None) -> int:
    """Command line: one verdict line per file; exit 0 / 1 / 2 (see module docstring)."""
    ap = argparse.ArgumentParser(prog="python -m certificates.check",
                                 description="Check logitgeom certificates (stdlib only).")
    ap.add_argument("files", nargs="+", metavar="FILE")
    ap.add_argument("--explain", action="store_true", help="state the proven claim in words")
    ap.add_argument("--latex", action="store_true", help="print a LaTeX snippet per valid file")
    args = ap.parse_args(argv)
    code = 0
    for path in args.files:
        v = check_file(path)
        if v.ok:
            print(f"{path}: OK {v.kind}")
        else:
            print(f"{path}: INVALID {v.kind} failed_check={v.failed_check} "
                  f"location={v.location}: {v.message}")
        code = max(code, v.exit_code)
        if v.ok and (args.explain or args.latex):  # untrusted presentation, stdlib only
            try:
                from certificates import _render
            except ImportError:  # run as a plain script: this file's folder is on sys.path
                import _render
            obj = load(path)
            print(_render.explain(obj) if args.explain else "", end="")
            print(_render.latex(obj) if args.latex else "", end="")
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
