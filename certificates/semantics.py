"""What the data of a geometric certificate *mean* (standard library only).

Every function re-derives a mathematical object from the raw data (never from derived data
stored in a certificate), in exact arithmetic, with the kernel
(:mod:`logitgeom_certificates.kernel`):

* constraint rows: the strict inequalities meaning "x has sign vector s" or "x ranks the
  labels in this order" (:func:`sign_rows`, :func:`ranking_rows`, :func:`claim_rows`);
* arrangements: the hyperplanes of S(W) or R(W) (:func:`arrangement`), covers of a flat,
  and the verification of a listed intersection lattice with the region count of
  Zaslavsky's theorem (:func:`zaslavsky`).

The proof obligations are written out in docs/certificates.md, the mathematics in
docs/geometry.md.

Examples
--------
>>> from logitgeom_certificates.linear import witness as check_witness
>>> W, b = ((Fraction(1), Fraction(0)), (Fraction(0), Fraction(1))), (Fraction(0),) * 2
>>> check_witness(sign_rows(W, b, (1, -1), "/signs"), (Fraction(1), Fraction(-1, 2)), "")
>>> zaslavsky(arrangement(W, b, "sign"), [{"hyperplanes": [], "rank": 0},
...     {"hyperplanes": [0], "rank": 1}, {"hyperplanes": [1], "rank": 1},
...     {"hyperplanes": [0, 1], "rank": 2}], "/lattice", 2)
4
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from itertools import combinations
from operator import neg
from typing import Any

from . import kernel as K
from . import linear
from .linear import Row


def read_model(obj: K.Obj, loc: str, wkey: str = "W", bkey: str = "bias"
               ) -> tuple[K.Mat, K.Vec]:
    """(W, b): b is all zeros when the certificate has no bias."""
    W, b = K.read_field(K.read_matrix, obj, wkey, loc), obj.get(bkey)
    return W, (Fraction(0),) * len(W) if b is None else K.read_vector(b, f"{loc}/{bkey}", len(W))


def integer_model(W: K.Mat, b: K.Vec) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """(W, b) times the lcm of all their denominators: integer rows, same patterns."""
    Mi, _ = K.scaled_matrix([(*r, c) for r, c in zip(W, b, strict=True)])
    return tuple(tuple(r[:-1]) for r in Mi), tuple(r[-1] for r in Mi)


def read_pattern_type(obj: object, loc: str) -> str:
    """The field ``pattern``: ``"sign"`` or ``"ranking"``."""
    ptype = K.get(obj, "pattern", loc)
    K.fail_if(ptype not in ("sign", "ranking"), "schema", f"{loc}/pattern",
              f"pattern must be 'sign' or 'ranking': {ptype!r}")
    return str(ptype)


def primitive(v: Sequence[int]) -> tuple[int, ...]:
    """The primitive integer multiple of the integer vector v with first non-zero entry > 0;
    ``()`` when v = 0."""
    g = math.gcd(*v)
    if not g:
        return ()
    g = g if next(filter(None, v)) > 0 else -g
    return tuple(v) if g == 1 else tuple(x // g for x in v)


def _step(v: Sequence[int], r: Sequence[int], p: int) -> tuple[int, ...]:
    """The primitive direction of v reduced by r at position p (``()`` when v is parallel
    to r): the one elimination step of the lattice's generation and of a flat's diagnosis."""
    x, y = v[p], r[p]
    return primitive([y * a - x * b for a, b in zip(v, r)]) if x else tuple(v)  # noqa: B905


def _reduce(basis: list[tuple[int, tuple[int, ...]]], v: tuple[int, ...]) -> tuple[int, ...]:
    """v (primitive) reduced by an echelon basis [(pivot, row)]: ``()`` when in its span."""
    K.charge(len(v) + len(basis))  # the pivot scan and the gcd, even when nothing reduces
    for p, e in basis:
        if v and v[p]:
            K.charge(len(v) * K.weight(e[p], v[p]))
            v = _step(v, e, p)
    return v


# ------------------------------------------------------------------- constraint rows
def sign_rows(W: Any, b: Any, signs: Sequence[int], loc: str) -> list[Row]:
    """Rows s_i (w_i, b_i) that must be > 0; sign 0 only on identically zero rows (None)."""
    for i, s in enumerate(signs):  # sign 0 exactly on the identically zero rows
        if (s == 0) == (any(W[i]) or b[i] != 0):
            K.fail("face-sign", f"{loc}/{i}", f"row {i} is {'' if s else 'not '}identically "
                   f"zero, so its sign must be {'0' if s else '+1 or -1'} (topes only)")
    return [None if s == 0 else (W[i], b[i]) if s > 0 else (tuple(map(neg, W[i])), -b[i])
            for i, s in enumerate(signs)]


def ranking_rows(W: Any, b: Any, ranking: Sequence[int], loc: str) -> list[Row]:
    """Rows (w_a - w_c, b_a - b_c) > 0 for the pairs 'a above c' of a ranking or top-t prefix
    (consecutive labels, then the last label above every unlisted one; SPEC.md).  A tied pair
    (equal rows and biases) in increasing label order always holds and gives None; in
    decreasing order it is kept as a zero row, which can never be > 0."""
    pairs = list(zip(ranking, ranking[1:], strict=False))
    pairs += [(ranking[-1], j) for j in sorted(set(range(len(W))) - set(ranking))]
    rows = [(tuple(x - y for x, y in zip(W[a], W[c], strict=True)), b[a] - b[c]) for a, c in pairs]
    return [None if a < c and not any(r[0]) and not r[1] else r
            for (a, c), r in zip(pairs, rows, strict=True)]


def claim_rows(obj: object, loc: str, key: str, ranking: bool, W: Any, b: Any
               ) -> tuple[list[Row], tuple[int, ...]]:
    """(constraint rows, value) of the sign vector or ranking (prefix) at ``obj[key]``."""
    v, vloc = K.get(obj, key, loc), f"{loc}/{key}"
    value = K.read_labels(v, vloc, len(W)) if ranking else K.read_ints(v, vloc, -1, 1, len(W))
    return (ranking_rows if ranking else sign_rows)(W, b, value, vloc), value


def listed_pattern(rec: object, loc: str, ranking: bool, Wi: Any, bi: Any, d: int,
                   full: bool = True) -> tuple[int, ...]:
    """One listed pattern ``{"pattern", "witness"}`` of a complete set: a tope (a full
    ranking), witnessed exactly (``full``; else its witness is only read); returns its
    value."""
    K.only(rec, {"pattern", "witness"}, loc, "a listed pattern")
    rows, value = claim_rows(rec, loc, "pattern", ranking, Wi, bi)
    K.fail_if(ranking and len(value) != len(Wi), "shape", f"{loc}/pattern",
              f"a full ranking lists all {len(Wi)} labels")
    x = K.read_field(K.read_vector, rec, "witness", loc, d)
    if full:
        linear.witness(rows, x, f"{loc}/witness")
    return value


def witness_at(rows: Sequence[Row], obj: object, loc: str, d: int, what: str = "row") -> None:
    """The field ``witness`` of obj (d numbers) makes every row strictly positive."""
    x = K.read_field(K.read_vector, obj, "witness", loc, d)
    linear.witness(rows, x, f"{loc}/witness", what)


# ------------------------------------------------------------------------ arrangements
def arrangement(W: Any, b: Any, ptype: str) -> list[tuple[Any, Any]]:
    """Rows (a, c) of the arrangement: W (sign) or B W with bias differences (ranking),
    pairs (i, j), i < j, in lexicographic order."""
    if ptype == "sign":
        return list(zip(W, b, strict=True))
    return [(tuple(x - y for x, y in zip(W[i], W[j], strict=True)), b[i] - b[j])
            for i, j in combinations(range(len(W)), 2)]


def zaslavsky(H: Sequence[tuple[Any, Any]], lattice: object, loc: str, d: int) -> int:
    """Verify the listed intersection lattice of the non-constant rows of H; return the
    number of regions sum |mu(0, X)| (Zaslavsky's theorem).

    The lattice is generated from the whole space upwards (:func:`_generate`, one
    elimination step per cover) and compared with the list; a listed flat that was not
    generated, or has another rank, is checked on its own (:func:`_diagnose`), which names
    what is wrong with it."""
    R = {i: primitive(K.scaled((*a, c))[0]) for i, (a, c) in enumerate(H) if any(a)}
    bits = max((abs(x).bit_length() for r in R.values() for x in r), default=0)
    E = (0,) * d + (1,)
    listed: dict[int, int] = {}
    parsed = []
    for n, f in enumerate(K.read_list(lattice, loc)):
        fl = f"{loc}/{n}"
        K.only(f, {"hyperplanes", "rank"}, fl, "a flat")
        hs = K.read_field(K.read_ints, f, "hyperplanes", fl, 0, len(H) - 1)
        if list(hs) != sorted(set(hs)) or any(h not in R for h in hs):
            K.fail("schema", f"{fl}/hyperplanes", "hyperplanes must be increasing indices"
                   " of non-constant rows")
        rank = K.read_int(K.get(f, "rank", fl), f"{fl}/rank", 0)
        X = sum(1 << h for h in hs)  # a flat as the bit mask of its hyperplanes
        parsed.append((fl, X, hs, rank))
        listed.setdefault(X, rank)
    flats, missing = _generate(R, E, listed, bits, d + 1)
    seen: set[int] = set()
    for fl, X, hs, rank in parsed:  # in list order: the first bad flat fails
        if X not in flats or flats[X][0] != rank or X in seen:
            _diagnose(R, E, X, hs, rank, fl, seen)
        seen.add(X)
    K.fail_if(0 not in listed, "lattice-bottom", loc, "the whole space (no hyperplane) is unlisted")
    if missing is not None:
        X, h = missing
        K.fail("lattice-incomplete", loc, f"closure of flat {[j for j in R if X >> j & 1]} and"
               f" hyperplane {h} is not listed")
    K.fail_if(flats.keys() != listed.keys(), "lattice-incomplete", loc,
              "the listed flats are not the lattice")
    return sum(abs(m) for m in _moebius_covers(flats).values())


def _generate(R: dict[int, tuple[int, ...]], E: tuple[int, ...], listed: dict[int, int],
              bits: int, n: int) -> tuple[dict[int, Any], tuple[int, int] | None]:
    """``({X: (rank, covers of X)}, None)``: the lattice of the non-empty flats of the rows
    ``R`` (a flat: the bit mask of its hyperplanes), generated from the whole space
    upwards; or ``(partial, (X, h))`` as soon as the closure of a flat X and a hyperplane
    h is not in ``listed`` (so the work is bounded by the list's length).

    A node is a flat X with the residuals modulo X of the rows outside X, grouped by
    direction (primitive, first non-zero entry > 0): the rows of one direction ``r`` are
    the hyperplanes added by the cover ``X + r``, and the group parallel to the constant
    function's residual ``e`` would make it empty (affine case).  The residuals of a cover
    are those of X's other groups reduced by ``r`` at its first non-zero position (where
    every residual modulo X is zero at X's pivots): one elimination step per group, not
    per row and pivot.  All residuals of one node are reductions by the same pivots, so
    two rows have parallel residuals exactly when they are parallel modulo the span of X,
    whatever the path that reached X.  A primitive residual direction divides minors of
    order at most n of the rows (Hadamard: under ``n (bits + log2 n)`` bits); the meter
    charges from that bound."""
    top = 2 * n * (bits + n.bit_length()) + 2
    unit = n * (1 + (top >> 8) ** 2)
    groups: dict[tuple[int, ...], int] = {}
    for j, r in R.items():
        groups[r] = groups.get(r, 0) | 1 << j
    flats: dict[int, Any] = {0: (0, None)}
    stack = [(0, 0, groups, primitive(E))]
    while stack:
        X, rank, groups, e = stack.pop()
        K.charge(len(groups))
        ups = []
        for r, hs in groups.items():
            if r == e:
                continue  # X meets these hyperplanes nowhere
            T = X | hs
            ups.append(T)
            if T in flats:
                continue
            if T not in listed:
                flats[X] = (rank, ups)
                return flats, (X, (hs & -hs).bit_length() - 1)
            K.charge(len(groups) * unit)
            p = next(i for i, x in enumerate(r) if x)
            sub: dict[tuple[int, ...], int] = {}
            for v, js in groups.items():
                if v is not r:
                    v = _step(v, r, p)
                    sub[v] = sub.get(v, 0) | js
            flats[T] = (rank + 1, None)
            stack.append((T, rank + 1, sub, _step(e, r, p)))
        flats[X] = (rank, ups)
    return flats, None


def _diagnose(R: dict[int, tuple[int, ...]], E: tuple[int, ...], X: int, hs: Sequence[int],
              rank: int, fl: str, seen: set[int]) -> None:
    """The checks of one listed flat on its own: non-empty (``flat-empty``), of the stated
    rank (``flat-rank``), closed (``flat-closed``), listed once (``flat-duplicate``)."""
    basis: list[tuple[int, tuple[int, ...]]] = []
    for h in hs:  # an echelon basis of the flat's rows
        if r := _reduce(basis, R[h]):
            basis.append((next(i for i, x in enumerate(r) if x), r))
    K.fail_if(not _reduce(basis, E), "flat-empty", fl, "the hyperplanes' intersection is empty")
    K.fail_if(len(basis) != rank, "flat-rank", f"{fl}/rank", f"rank {rank}, actual {len(basis)}")
    zero = next((j for j, r in R.items() if not X >> j & 1 and not _reduce(basis, r)), None)
    K.fail_if(zero is not None, "flat-closed", fl, f"not closed: hyperplane {zero} contains it")
    K.fail_if(X in seen, "flat-duplicate", fl, "flat listed twice")


def _moebius_covers(flats: dict[int, Any]) -> dict[int, int]:
    """``{X: mu(0, X)}`` from the verified cover relation, by Weisner's theorem.

    ``flats[X] = (rank, ups)`` with ``ups`` the flats covering X (flats as bit masks of
    their hyperplanes).  The flats below X form
    a geometric lattice (those of the central arrangement at a point of X), where for any
    atom ``a <= X`` (a hyperplane of X) Weisner's theorem gives
    ``sum over Y with Y v a = X of mu(0, Y) = 0``; a ``Y < X`` with ``Y v a = X`` is a
    lower cover of X without ``a`` (semimodularity), so
    ``mu(0, X) = - sum of mu(0, Y) over the lower covers Y of X not containing a``.  One
    step per cover relation (the previous revision summed over every flat below X: the
    same numbers, tested against the engine's, at a cost growing with the depth)."""
    lower: dict[int, list[int]] = {X: [] for X in flats}
    for Y, (_, ups) in flats.items():
        for T in ups:
            lower[T].append(Y)
    K.charge(len(flats) + sum(len(v) for v in lower.values()))
    mu: dict[int, int] = {}
    for X in sorted(flats, key=lambda F: flats[F][0]):  # lower covers have smaller rank
        if X:
            a = X & -X  # its first hyperplane (flats are bit masks of hyperplanes)
            mu[X] = -sum(mu[Y] for Y in lower[X] if not Y & a)
        else:
            mu[X] = 1
    return mu
