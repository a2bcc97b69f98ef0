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
from collections import deque
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


def primitive(v: Sequence[int]) -> tuple[int, ...]:
    """The primitive integer multiple of the non-zero integer vector v with first non-zero
    entry > 0 (every vector the lattice's generation makes primitive is non-zero: a row with
    a non-zero normal, or a residual of a direction not parallel to the one reduced by)."""
    g = math.gcd(*v)
    g = g if next(filter(None, v)) > 0 else -g
    return tuple(v) if g == 1 else tuple(x // g for x in v)


def _step(v: Sequence[int], r: Sequence[int], p: int) -> tuple[int, ...]:
    """The primitive direction of v reduced by r at position p (v not parallel to r): the
    one elimination step of the lattice's generation."""
    x, y = v[p], r[p]
    return primitive([y * a - x * b for a, b in zip(v, r)]) if x else tuple(v)  # noqa: B905


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


def decide(rows: Sequence[Row], obj: object, loc: str, d: int, feasible: bool) -> None:
    """The rows hold together: the field ``witness`` of obj (d numbers) makes every row
    strictly positive (``feasible``), or its ``multipliers`` prove that no point does."""
    key, holds = ("witness", linear.witness) if feasible else ("multipliers", linear.gordan)
    holds(rows, K.read_field(K.read_vector, obj, key, loc, d if feasible else len(rows)),
          f"{loc}/{key}")


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
    elimination step per cover; it stops past the list's length) and compared with the
    list.  A listed flat that was not generated, has another rank or is listed twice is
    diagnosed on the generated lattice: its closure is reached from the whole space one
    hyperplane at a time, each step the cover of the flat so far that holds the hyperplane
    (none: the intersection is empty); then its rank (``flat-rank``), whether it is closed
    (``flat-closed``) and listed once (``flat-duplicate``) name what is wrong."""
    R = {i: primitive(K.scaled((*a, c))[0]) for i, (a, c) in enumerate(H) if any(a)}
    listed = K.read_list(lattice, loc)
    flats, mu = _generate(R, (0,) * d + (1,), len(listed), d + 1)
    seen: set[int] = set()
    for n, f in enumerate(listed):  # in list order: the first bad flat fails
        fl = f"{loc}/{n}"
        K.only(f, {"hyperplanes", "rank"}, fl, "a flat")
        hs = K.read_field(K.read_ints, f, "hyperplanes", fl, 0, len(H) - 1)
        K.fail_if(list(hs) != sorted(set(hs)) or not R.keys() >= set(hs), "schema",
                  f"{fl}/hyperplanes", "hyperplanes: increasing indices of non-constant rows")
        rank = K.read_int(K.get(f, "rank", fl), f"{fl}/rank", 0)
        X = sum(1 << h for h in hs)  # a flat: the bit mask of its hyperplanes
        if flats and (X not in flats or flats[X][0] != rank or X in seen):  # say what is wrong:
            Y = 0  # its closure, one hyperplane at a time, each the generated cover holding it
            for h in hs:
                if not Y >> h & 1:
                    Y = next((T for T in flats[Y][1] if T >> h & 1), -1)
                    K.fail_if(Y < 0, "flat-empty", fl, "the hyperplanes' intersection is empty")
            K.fail_if(flats[Y][0] != rank, "flat-rank", f"{fl}/rank",
                      f"rank {rank}, actual {flats[Y][0]}")
            K.fail_if(Y != X, "flat-closed", fl, "not closed: hyperplane "
                      f"{(Y & ~X & -(Y & ~X)).bit_length() - 1} contains it")
            K.fail_if(X in seen, "flat-duplicate", fl, "flat listed twice")
        seen.add(X)
    K.fail_if(0 not in seen, "lattice-bottom", loc, "the whole space (no hyperplane) is unlisted")
    K.fail_if(seen != flats.keys(), "lattice-incomplete", loc,
              "the listed flats are not the lattice (some flat is not listed)")
    return sum(map(abs, mu.values()))


def _generate(R: dict[int, tuple[int, ...]], E: tuple[int, ...], most: int, n: int
              ) -> tuple[dict[int, Any], dict[int, int]]:
    """``({X: (rank, covers of X)}, {X: mu(0, X)})``: the lattice of the non-empty flats of
    the rows ``R`` (a flat: the bit mask of its hyperplanes), generated from the whole space
    upwards, rank by rank; ``({}, {})`` as soon as it has more than ``most`` flats (so
    the work is bounded by the list's length).

    A node is a flat X with the residuals modulo X of the rows outside X, grouped by
    direction (primitive, first non-zero entry > 0): the rows of one direction ``r`` are the
    hyperplanes added by the cover ``X + r``; rows whose residual is parallel to the
    constant function's residual ``e`` meet X nowhere (affine case) and are dropped. The
    residuals of a cover are those of X's other groups reduced by ``r`` at its first
    non-zero position (where every residual modulo X is zero at X's pivots): one elimination
    step per group, not per row and pivot. All residuals of one node are reductions by the
    same pivots, so two rows have parallel residuals exactly when they are parallel modulo
    the span of X, whatever the path that reached X. A primitive residual direction divides
    minors of order at most n of the rows (Hadamard: under ``n (bits + log2 n)`` bits); the
    meter charges from that bound.

    The Moebius values follow Weisner's theorem: the flats below X form a geometric
    lattice, where for the first hyperplane ``a`` of X, ``mu(0, X)`` is minus the sum of
    ``mu(0, Y)`` over the lower covers Y of X without ``a``; every lower cover of X has
    rank one less, so it is complete when X is reached, the flats being taken rank by
    rank."""
    bits = max((abs(x).bit_length() for r in R.values() for x in r), default=0)
    unit = n * (1 + ((2 * n * (bits + n.bit_length()) + 2) >> 8) ** 2)
    groups: dict[tuple[int, ...], int] = {}
    for j, r in R.items():
        groups[r] = groups.get(r, 0) | 1 << j
    flats: dict[int, Any] = {0: (0, [])}
    mu, queue = {0: 1}, deque([(0, groups, primitive(E))])
    while queue:
        X, groups, e = queue.popleft()  # rank by rank
        K.charge(len(groups))
        for r, hs in groups.items():
            T = X | hs
            flats[X][1].append(T)
            mu[T] = mu.get(T, 0) - (0 if X & (T & -T) else mu[X])  # Weisner, a = T & -T
            if T in flats:
                continue
            if len(flats) == most:
                return {}, {}
            K.charge(len(groups) * unit)
            p = next(i for i, x in enumerate(r) if x)
            sub: dict[tuple[int, ...], int] = {}
            eT = _step(e, r, p)
            for v, js in groups.items():  # T meets the rows parallel to e nowhere: dropped
                if v is not r and (v := _step(v, r, p)) != eT:
                    sub[v] = sub.get(v, 0) | js
            flats[T] = (flats[X][0] + 1, [])
            queue.append((T, sub, eT))
    return flats, mu
