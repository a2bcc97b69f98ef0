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


def _reduce(basis: list[tuple[int, tuple[int, ...]]], v: tuple[int, ...]) -> tuple[int, ...]:
    """v (primitive) reduced by an echelon basis [(pivot, row)] at its pivots, made primitive
    again: ``()`` when v is in its span; else the one primitive direction (first non-zero
    entry > 0) of v modulo the span with zeros at the pivots (each basis row is zero at the
    pivots before its own, so a step keeps the earlier zeros)."""
    K.charge(len(v) + len(basis))  # the pivot scan and the gcd, even when nothing reduces
    for p, e in basis:
        if v and v[p]:
            K.charge(len(v) * K.weight(e[p], v[p]))
            v = primitive([e[p] * a - v[p] * b for a, b in zip(v, e)])  # noqa: B905
    return v


# ------------------------------------------------------------------- constraint rows
def sign_rows(W: Any, b: Any, signs: Sequence[int], loc: str) -> list[Row]:
    """Rows s_i (w_i, b_i) that must be > 0; sign 0 only on identically zero rows (None)."""
    for i, s in enumerate(signs):  # sign 0 exactly on the identically zero rows
        if (s == 0) == (any(W[i]) or b[i] != 0):
            K.fail("face-sign", f"{loc}/{i}", f"row {i} is {'' if s else 'not '}identically "
                   f"zero, so its sign must be {'0' if s else '+1 or -1'} (topes only)")
    return [None if s == 0 else (W[i], b[i]) if s > 0 else (tuple(-x for x in W[i]), -b[i])
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

    Each listed flat X (the bit mask of its hyperplanes) is checked on its own, in list
    order: an echelon basis of its rows (homogeneous: (a, c)) has the stated rank
    (``flat-rank``) and leaves the constant function ``e`` outside its span
    (``flat-empty``); every other row has a non-zero residual modulo X (``flat-closed``);
    X is listed once (``flat-duplicate``).  The rows outside X grouped by residual
    direction are the covers of X: the closure of X and a row h is X with h's group
    (rows in the span of X and h), empty when the direction is e's.  The whole space is
    listed (``lattice-bottom``) and every cover of a listed flat is listed
    (``lattice-incomplete``), so by induction on the rank the list is the lattice."""
    R = {i: primitive(K.scaled((*a, c))[0]) for i, (a, c) in enumerate(H) if any(a)}
    parsed = []
    for n, f in enumerate(K.read_list(lattice, loc)):
        fl = f"{loc}/{n}"
        K.only(f, {"hyperplanes", "rank"}, fl, "a flat")
        hs = K.read_field(K.read_ints, f, "hyperplanes", fl, 0, len(H) - 1)
        if list(hs) != sorted(set(hs)) or any(h not in R for h in hs):
            K.fail("schema", f"{fl}/hyperplanes", "hyperplanes must be increasing indices"
                   " of non-constant rows")
        parsed.append((fl, hs, K.read_int(K.get(f, "rank", fl), f"{fl}/rank", 0)))
    flats: dict[int, Any] = {}
    for fl, hs, rank in parsed:  # in list order: the first bad flat fails
        basis: list[tuple[int, tuple[int, ...]]] = []
        for h in hs:
            if r := _reduce(basis, R[h]):
                basis.append((next(i for i, x in enumerate(r) if x), r))
        e = _reduce(basis, (0,) * d + (1,))
        K.fail_if(not e, "flat-empty", fl, "these hyperplanes have an empty intersection")
        K.fail_if(len(basis) != rank, "flat-rank", f"{fl}/rank",
                  f"stated rank {rank}, actual {len(basis)}")
        X, groups = sum(1 << h for h in hs), dict[tuple[int, ...], int]()
        for j in (j for j in R if not X >> j & 1):
            v = _reduce(basis, R[j])
            K.fail_if(not v, "flat-closed", fl, f"not closed: hyperplane {j} contains this flat")
            groups[v] = groups.get(v, 0) | 1 << j
        K.fail_if(X in flats, "flat-duplicate", fl, "flat listed twice")
        flats[X] = (rank, [X | g for v, g in groups.items() if v != e])
    K.fail_if(0 not in flats, "lattice-bottom", loc,
              "the whole space (the empty flat) is not listed")
    for _, ups in flats.values():
        if T := next((T for T in ups if T not in flats), 0):  # a cover is never the bottom
            K.fail("lattice-incomplete", loc, f"the cover {[j for j in R if T >> j & 1]} of a"
                   " listed flat is not listed")
    return sum(map(abs, _moebius_covers(flats).values()))


def _moebius_covers(flats: dict[int, Any]) -> dict[int, int]:
    """``{X: mu(0, X)}`` from the verified cover relation, by Weisner's theorem.

    ``flats[X] = (rank, ups)`` with ``ups`` the flats covering X (flats as bit masks of
    their hyperplanes).  The flats below X form a geometric lattice (those of the central
    arrangement at a point of X), where for any atom ``a <= X`` (a hyperplane of X)
    Weisner's theorem gives ``sum over Y with Y v a = X of mu(0, Y) = 0``; a ``Y < X`` with
    ``Y v a = X`` is a lower cover of X without ``a`` (semimodularity), so
    ``mu(0, X) = - sum of mu(0, Y) over the lower covers Y of X not containing a``: one
    step per cover relation."""
    lower: dict[int, list[int]] = {X: [] for X in flats}
    for Y, (_, ups) in flats.items():
        for T in ups:
            lower[T].append(Y)
    K.charge(len(flats) + sum(len(v) for v in lower.values()))
    mu: dict[int, int] = {}
    for X in sorted(flats, key=lambda F: flats[F][0]):  # lower covers have smaller rank
        mu[X] = -sum(mu[Y] for Y in lower[X] if not Y & X & -X) if X else 1  # X & -X: a in X
    return mu
