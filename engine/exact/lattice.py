"""Intersection lattices of hyperplane arrangements and exact region counts (Zaslavsky).

Input rows are exact (``int`` or :class:`~fractions.Fraction`); nothing here uses floats.

Semantics (shared with :mod:`logitgeom.geometry`):

* Central arrangement of a ``k x d`` matrix ``W``: hyperplanes ``{x : w_i . x = 0}``.
  Affine (``bias=b``): ``{x : w_i . x + b_i = 0}``.
* A row that is constant (``w_i = 0``) is *not* a hyperplane and is ignored; repeated and
  parallel rows define one hyperplane.
* Rankings: the hyperplanes ``{(w_i - w_j) . x + (b_i - b_j) = 0}``; labels with identical
  rows (and biases) are tied and count once.

Counting uses Zaslavsky's theorem, ``#regions = (-1)^d chi(-1)`` with
``chi(t) = sum_S (-1)^|S| t^(d - rank S)`` over the subsets ``S`` of hyperplanes (with a
non-empty intersection in the affine case).  Two structural shortcuts keep it fast:

* Sign patterns: a depth-first search over subsets that prunes every branch in which a
  hyperplane still to be decided lies in the span of the chosen ones (its terms cancel in
  pairs), so the leaves are exactly the no-broken-circuit sets.
* Rankings: the rank of an edge set depends only on its connected components, and the
  signed number of connected graphs on a block of size ``m`` is ``(-1)^(m-1) (m-1)!``, so
  ``chi(t) = sum_pi prod_B (-1)^(|B|-1) (|B|-1)! t^(d - r(pi))`` over set partitions
  ``pi`` of the labels.  Partitions are built label by label; once the rank is one below
  its maximum the remaining placements are summed in closed form.

Examples
--------
>>> count_regions_exact([[1, 0], [0, 1], [1, 1]])
6
>>> count_rankings_exact([[1, 0], [0, 1], [1, 1]])
6
>>> count_regions_exact([[1], [2]], bias=[0, -2])
3
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from logitgeom.errors import InvalidInput, TooLarge
from logitgeom.exact.linalg import (
    EchelonBasis,
    canonical_direction,
    integer_rows_common,
    primitive_integer_row,
)

__all__ = [
    "arrangement_normals",
    "Flat",
    "hyperplane_vectors",
    "characteristic_polynomial",
    "count_regions_exact",
    "ranking_characteristic_polynomial",
    "count_rankings_exact",
    "tie_classes",
    "flats",
    "evaluate",
]

Number = int | Fraction


# ----------------------------------------------------------------------------- input


def _rows_and_bias(
    rows: Sequence[Sequence[Number]], bias: Sequence[Number] | None
) -> tuple[list[list[Fraction]], list[Fraction] | None, int]:
    rows = [list(r) for r in rows]
    if not rows:
        raise InvalidInput("the matrix is empty: it needs at least one row")
    d = len(rows[0])
    for i, r in enumerate(rows):
        if len(r) != d:
            raise InvalidInput(
                f"the matrix is ragged: row 0 has {d} entries but row {i} has {len(r)}"
            )
    if d == 0:
        raise InvalidInput("the matrix has no columns: each row needs at least one entry")
    b = None
    if bias is not None:
        b = [Fraction(x) for x in bias]
        if len(b) != len(rows):
            raise InvalidInput(f"bias has length {len(b)} but the matrix has {len(rows)} rows")
    return [[Fraction(x) for x in r] for r in rows], b, d


def hyperplane_vectors(
    rows: Sequence[Sequence[Number]], bias: Sequence[Number] | None = None
) -> tuple[tuple[tuple[int, ...], ...], int]:
    """The distinct hyperplanes of an arrangement as primitive integer normals.

    Central: one primitive normal per parallel class of non-zero rows.  Affine: the
    homogenised normals ``(b_i, w_i)`` of the rows with ``w_i != 0`` together with
    ``e_0`` (the hyperplane at infinity of the cone), in dimension ``d + 1``.  The
    order is deterministic (sorted).

    Returns
    -------
    (vectors, dim)

    Examples
    --------
    >>> hyperplane_vectors([[2, 0], [-1, 0], [0, 0], [1, 1]])
    (((1, 0), (1, 1)), 2)
    >>> hyperplane_vectors([[1], [0]], bias=[3, 1])
    (((1, 0), (3, 1)), 2)
    """
    R, b, d = _rows_and_bias(rows, bias)
    vecs = set()
    for i, r in enumerate(R):
        if not any(r):
            continue
        v = r if b is None else [b[i], *r]
        vecs.add(canonical_direction(v))
    dim = d
    if b is not None:
        vecs.add((1,) + (0,) * d)
        dim = d + 1
    return tuple(sorted(vecs)), dim


# ----------------------------------------------------------------------------- sign patterns


def reduce_one(v: tuple[int, ...], piv: int, r: tuple[int, ...]) -> tuple[int, ...]:
    """``v`` modulo ``r`` with the pivot coordinate dropped, primitive and sign-normalised."""
    vp = v[piv]
    rp = r[piv]
    vr = v[:piv] + v[piv + 1 :]
    if vp:
        out = [rp * a - vp * c for a, c in zip(vr, r[:piv] + r[piv + 1 :], strict=True)]
    else:
        out = list(vr)
    return canonical_direction(out)


def _chi_central(vecs: Sequence[tuple[int, ...]], dim: int) -> list[int]:
    """chi(t) coefficients (index = power of t) of the central arrangement ``vecs``.

    Depth-first search over no-broken-circuit sets.  The node state is the list of the
    not-yet-decided hyperplanes with their normals projected modulo the span of the chosen
    ones (primitive, sign-normalised, pivot coordinates dropped); a hyperplane may be
    chosen only if no later hyperplane is parallel to it modulo the span (else its terms
    cancel in pairs).  Every remaining normal is non-zero modulo the span.  When two
    dimensions are left the subtree is closed: m distinct lines in a plane contribute
    ``t^2 - m t + (m - 1)``.
    """
    return chi_nodes([(tuple(canonical_direction(v) for v in vecs), 1, 0)], dim)


class SearchBudgetExhausted(Exception):
    """:func:`chi_nodes` visited more nodes than its budget allowed."""


def chi_nodes(nodes: list[tuple[Any, ...]], dim: int, budget: int | None = None) -> list[int]:
    """chi(t) contributions of the subtrees of the no-broken-circuit search rooted at
    ``nodes`` (each ``(remaining normals, sign, rank)``); the whole search is the one root
    ``(normals, 1, 0)``.  ``budget`` bounds the nodes visited
    (:class:`SearchBudgetExhausted` past it).

    Examples
    --------
    >>> chi_nodes([(((1, 0), (0, 1)), 1, 0)], 2)  # two lines in the plane: t^2 - 2t + 1
    [1, -2, 1]
    """
    coeffs = [0] * (dim + 1)
    stack = list(reversed(nodes))
    left = budget
    while stack:
        rem, sgn, rk = stack.pop()
        if left is not None:
            left -= 1
            if left < 0:
                raise SearchBudgetExhausted
        coeffs[dim - rk] += sgn
        if not rem:
            continue
        if len(rem[0]) == 1:
            # one dimension left: all remaining normals are parallel, only the last counts
            coeffs[dim - rk - 1] -= sgn
            continue
        if len(rem[0]) == 2:
            # a plane left: m distinct lines through 0 have chi = t^2 - m t + (m - 1)
            m = len(set(rem))
            coeffs[dim - rk - 1] -= m * sgn
            coeffs[dim - rk - 2] += (m - 1) * sgn
            continue
        stack.extend(children(rem, sgn, rk))
    return coeffs


def children(rem: tuple[Any, ...], sgn: int, rk: int) -> list[tuple[Any, ...]]:
    """The children of an inner node of the search (dimension >= 3 left), in its order.

    A hyperplane is a child only if no later one is parallel to it modulo the span.

    Examples
    --------
    >>> children(((1, 0, 0), (0, 1, 0), (0, 0, 1)), 1, 0)
    [(((1, 0), (0, 1)), -1, 1), (((0, 1),), -1, 1), ((), -1, 1)]
    """
    seen: set[tuple[int, ...]] = set()
    valid = [False] * len(rem)
    for q in range(len(rem) - 1, -1, -1):
        if rem[q] not in seen:
            valid[q] = True
            seen.add(rem[q])
    out = []
    for q in range(len(rem)):
        if valid[q]:
            r = rem[q]
            piv = next(i for i, x in enumerate(r) if x)
            out.append((tuple([reduce_one(v, piv, r) for v in rem[q + 1:]]), -sgn, rk + 1))
    return out


def evaluate(coeffs: Sequence[int], t: int) -> int:
    """Evaluate a polynomial given by coefficients (index = power).

    Examples
    --------
    >>> evaluate([1, -3, 2], -1)
    6
    """
    return sum(c * t**i for i, c in enumerate(coeffs))


def _poly_div_t_minus_1(coeffs: list[int]) -> list[int]:
    # synthetic division by (t - 1); exact for cones of affine arrangements
    n = len(coeffs) - 1
    out = [0] * n
    carry = 0
    for i in range(n, 0, -1):
        carry = coeffs[i] + carry
        out[i - 1] = carry
    if coeffs[0] + carry != 0:  # pragma: no cover - mathematical invariant
        raise AssertionError("characteristic polynomial of a cone is not divisible by t - 1")
    return out


def characteristic_polynomial(
    rows: Sequence[Sequence[Number]], bias: Sequence[Number] | None = None
) -> tuple[int, ...]:
    """Characteristic polynomial of the (central or affine) arrangement of the rows.

    Returns
    -------
    tuple of int
        Coefficients ``c[i]`` of ``t**i``, ``i = 0..d``.

    Examples
    --------
    >>> characteristic_polynomial([[1, 0], [0, 1], [1, 1]])   # t^2 - 3t + 2
    (2, -3, 1)
    >>> characteristic_polynomial([[1], [1]], bias=[0, 1])    # two points on a line: t - 2
    (-2, 1)
    """
    vecs, dim = hyperplane_vectors(rows, bias)
    coeffs = _chi_central(vecs, dim)
    if bias is not None:
        coeffs = _poly_div_t_minus_1(coeffs)
    return tuple(coeffs)


def count_regions_exact(
    rows: Sequence[Sequence[Number]], bias: Sequence[Number] | None = None
) -> int:
    """Exact number of regions (topes) of the arrangement of the rows, by Zaslavsky.

    Parameters
    ----------
    rows : k x d exact matrix (int or Fraction entries)
    bias : length-k exact vector, optional
        Affine arrangement ``{x : w_i . x + b_i = 0}``.

    Returns
    -------
    int
        Number of sign vectors in ``{-1, +1}`` on the non-constant rows realised by
        ``W x (+ b)``; constant rows are ignored (they have a fixed sign).

    Raises
    ------
    InvalidInput
        Empty or ragged matrix, wrong bias length.

    Examples
    --------
    >>> count_regions_exact([[1, 0], [0, 1], [1, 1], [1, -1]])
    8
    >>> count_regions_exact([[1, 0], [0, 0]])
    2
    """
    vecs, dim = hyperplane_vectors(rows, bias)
    total = abs(evaluate(_chi_central(vecs, dim), -1))
    return total // 2 if bias is not None else total


# ----------------------------------------------------------------------------- rankings


def tie_classes(
    rows: Sequence[Sequence[Number]], bias: Sequence[Number] | None = None
) -> tuple[tuple[int, ...], ...]:
    """Classes of labels with identical rows (and identical biases): always tied.

    Returns every class (singletons included), each sorted, ordered by smallest label.

    Examples
    --------
    >>> tie_classes([[1, 0], [0, 1], [1, 0]])
    ((0, 2), (1,))
    >>> tie_classes([[1, 0], [1, 0]], bias=[0, 1])
    ((0,), (1,))
    """
    R, b, _ = _rows_and_bias(rows, bias)
    groups: dict[tuple[Any, ...], list[int]] = {}
    for i, r in enumerate(R):
        key = (tuple(r), None if b is None else b[i])
        groups.setdefault(key, []).append(i)
    return tuple(sorted(tuple(g) for g in groups.values()))


def label_vectors(rows: Sequence[Sequence[Number]], bias: Sequence[Number] | None
                  ) -> tuple[list[tuple[int, ...]], int, bool]:
    """One common-denominator integer vector per tie class (augmented by the bias)."""
    R, b, d = _rows_and_bias(rows, bias)
    N, _ = integer_rows_common([r + ([b[i]] if b is not None else []) for i, r in enumerate(R)])
    return [N[c[0]] for c in tie_classes(R, b)], d, b is not None


def _max_rank(vecs: list[tuple[int, ...]], dim: int) -> int:
    if len(vecs) < 2:
        return 0
    B = EchelonBasis.empty(dim)
    for v in vecs[1:]:
        B, _ = B.add([a - c for a, c in zip(v, vecs[0], strict=True)])
    return B.rank


def eliminate(res: list[Any], delta: tuple[int, ...], live: list[int],
               normalise: bool = True) -> list[Any]:
    """Project the live residuals modulo the new direction ``delta`` (one common scale).

    The pivot coordinate (the first non-zero one of ``delta``) becomes zero for every
    vector and is dropped, so residuals shrink by one coordinate per rank.  Entries not in
    ``live`` (placed labels that are not block representatives) are left stale.  The map
    is linear with kernel ``<delta>``: equal outputs mean residuals that differ by a
    multiple of ``delta``.
    """
    piv = next(i for i, x in enumerate(delta) if x)
    dp = delta[piv]
    rest = delta[:piv] + delta[piv + 1 :]
    out = list(res)
    if len(rest) == 1:
        r0 = rest[0]
        for i in live:
            v = res[i]
            out[i] = (dp * v[1 - piv] - v[piv] * r0,)
    else:
        for i in live:
            v = res[i]
            vp = v[piv]
            vr = v[:piv] + v[piv + 1 :]
            out[i] = (
                tuple([dp * a - vp * c for a, c in zip(vr, rest, strict=True)])
                if vp
                else (tuple([dp * a for a in vr]))
            )
    if normalise:
        g = 0
        for i in live:
            for x in out[i]:
                if x:
                    g = math.gcd(g, x)
            if g == 1:
                return out
        if g > 1:
            for i in live:
                out[i] = tuple([x // g for x in out[i]])
    return out


def _stay_weight(res: list[Any], reps: tuple[int, ...], sizes: tuple[int, ...], p: int,
                 k: int) -> int:
    """Weight of the completions whose new blocks stay inside classes of equal residual.

    Placing a label of class ``c`` contributes ``1 - (labels of class c placed so far)``:
    a new block (weight 1) or joining a block of size ``s`` of its class (weight ``-s``).
    """
    placed: dict[tuple[int, ...], int] = {}
    for r, s in zip(reps, sizes, strict=True):
        key = res[r]
        placed[key] = placed.get(key, 0) + s
    w = 1
    for j in range(p, k):
        key = res[j]
        m = placed.get(key, 0)
        if m == 1:
            return 0
        w *= 1 - m
        placed[key] = m + 1
    return w


#: Nodes of the set-partition search before falling back to the no-broken-circuit search
#: on the rows of B W (output-sensitive): labels that are affinely dependent in large
#: groups make the number of low-rank partitions explode (Bell numbers).
_PARTITION_BUDGET = 150_000


class TooManyPartitions(Exception):
    pass


def _chi_rankings_nbc(vecs: list[tuple[int, ...]], d: int, affine: bool) -> list[int]:
    """chi(t) of the ranking arrangement from the arrangement of the pair rows."""
    k = len(vecs)
    rows = [
        [a - c for a, c in zip(vecs[i][:d], vecs[j][:d], strict=True)]
        for i in range(k)
        for j in range(i + 1, k)
    ]
    bias = [vecs[i][d] - vecs[j][d] for i in range(k) for j in range(i + 1, k)] if affine else None
    return list(characteristic_polynomial(rows, bias))


def chi_rankings(vecs: list[tuple[int, ...]], d: int, affine: bool,
                 budget: int | None = None) -> list[int]:
    """chi(t) of the ranking arrangement by a DFS over set partitions of the labels.

    Node state: ``p`` labels placed, block representatives and sizes, weight
    ``prod_B (-1)^(|B|-1) (|B|-1)!``, rank ``r`` of the span ``V`` of within-block
    differences, and the residuals of the representatives and unplaced labels modulo
    ``V`` (common integer scale).  Central: at ``r = rmax`` every completion has rank
    ``rmax`` (total weight ``prod_j (1 - j)``); at ``r = rmax - 1`` the completions of
    rank ``r`` are those whose blocks stay inside residual classes, the rest have rank
    ``rmax``.  Affine: residuals carry the bias coordinate and ``e_last`` (a zero residual
    of ``e_last`` means no common point: the partition and all its completions drop
    out); at ``r = rmax`` the consistent completions are the class-preserving ones.
    ``budget`` bounds the nodes of the search (default ``_PARTITION_BUDGET``;
    :class:`TooManyPartitions` past it).
    """
    k = len(vecs)
    coeffs = [0] * (d + 1)
    if k <= 1:
        coeffs[d] = 1
        return coeffs
    rmax = _max_rank([v[:d] for v in vecs], d)
    tot_from = [1] * (k + 1)  # tot_from[p] = prod_{j=p}^{k-1} (1 - j)
    for p in range(k - 1, -1, -1):
        tot_from[p] = tot_from[p + 1] * (1 - p)
    res0 = list(vecs)
    if affine:
        res0.append((0,) * d + (1,))  # index k: e_last (after the bias coordinate)
    stack: list[tuple[int, tuple[int, ...], tuple[int, ...], int, int, list[tuple[int, ...]]]] = \
        [(1, (0,), (1,), 1, 0, res0)]
    budget = _PARTITION_BUDGET if budget is None else budget
    while stack:
        budget -= 1
        if not budget:
            raise TooManyPartitions
        p, reps, sizes, w, rk, res = stack.pop()
        if p == k:
            coeffs[d - rk] += w
            continue
        if rk == rmax:
            coeffs[d - rk] += w * (_stay_weight(res, reps, sizes, p, k) if affine else tot_from[p])
            continue
        rp = res[p]
        live = [*reps, *range(p + 1, len(res))]
        nreps = (*reps, p)
        stack.append((p + 1, nreps, (*sizes, 1), w, rk, res))
        for bi, rep in enumerate(reps):
            s = sizes[bi]
            nsizes = (*sizes[:bi], s + 1, *sizes[bi + 1 :])
            delta = tuple(a - c for a, c in zip(rp, res[rep], strict=True))
            if not any(delta):
                stack.append((p + 1, reps, nsizes, -s * w, rk, res))
                continue
            if not affine and rk + 1 == rmax - 1:
                # closed form right away: rank rmax - 1 now, rmax for the rest
                keys = eliminate(res, delta, live, normalise=False)
                stay = _stay_weight(keys, reps, nsizes, p + 1, k)
                coeffs[d - rk - 1] += -s * w * stay
                coeffs[d - rk - 2] += -s * w * (tot_from[p + 1] - stay)
                continue
            nres = eliminate(res, delta, live)
            if affine and not any(nres[k]):
                continue  # no common point: every completion is empty too
            stack.append((p + 1, reps, nsizes, -s * w, rk + 1, nres))
    return coeffs


def _chi_rankings_any(vecs: list[tuple[int, ...]], d: int, affine: bool) -> list[int]:
    if len(vecs) <= 1:
        return chi_rankings(vecs, d, affine)
    try:
        return chi_rankings(vecs, d, affine)
    except TooManyPartitions:
        return _chi_rankings_nbc(vecs, d, affine)


def ranking_characteristic_polynomial(
    rows: Sequence[Sequence[Number]], bias: Sequence[Number] | None = None
) -> tuple[int, ...]:
    """Characteristic polynomial of the ranking arrangement ``{(w_i - w_j) . x (+ b_i - b_j) = 0}``.

    Tied labels (identical rows and biases) count once.

    Examples
    --------
    >>> ranking_characteristic_polynomial([[1, 0], [0, 1], [0, 0]])  # 3 lines through 0
    (2, -3, 1)
    """
    vecs, d, affine = label_vectors(rows, bias)
    return tuple(_chi_rankings_any(vecs, d, affine))


def count_rankings_exact(
    rows: Sequence[Sequence[Number]], bias: Sequence[Number] | None = None
) -> int:
    """Exact number of rankings ``|R(W)|`` (regions of the arrangement of ``B W``), by Zaslavsky.

    Labels with identical rows (and biases) are tied; the count is the number of orders
    of the tie classes that some ``x`` realises strictly.

    Parameters
    ----------
    rows : k x d exact matrix (int or Fraction entries)
    bias : length-k exact vector, optional

    Returns
    -------
    int

    Raises
    ------
    InvalidInput
        Empty or ragged matrix, wrong bias length.

    Examples
    --------
    >>> count_rankings_exact([[1, 0, 0], [0, 1, 0], [0, 0, 1]])   # all 3! orders
    6
    >>> count_rankings_exact([[1], [2], [3]])                     # a line: 2 orders
    2
    >>> count_rankings_exact([[1], [2], [3]], bias=[0, 0, 1])      # affine on a line
    4
    """
    vecs, d, affine = label_vectors(rows, bias)
    return abs(evaluate(_chi_rankings_any(vecs, d, affine), -1))


# ----------------------------------------------------------------------------- flats


@dataclass(frozen=True, order=True)
class Flat:
    """A flat of the intersection lattice.

    Attributes
    ----------
    rank : int
        Codimension of the intersection.
    hyperplanes : tuple of int
        Sorted indices (into the given rows) of every hyperplane containing it.
    mobius : int or None
        The Moebius function ``mu(bottom, X)``; ``#regions = sum |mu|``.  ``None`` when
        :func:`flats` was asked not to compute it.
    """

    rank: int
    hyperplanes: tuple[int, ...]
    mobius: int | None


def _aug_rows(rows: Sequence[Sequence[Number]], bias: Sequence[Number] | None
              ) -> tuple[list[tuple[int, ...] | None], int, bool]:
    R, b, d = _rows_and_bias(rows, bias)
    out: list[tuple[int, ...] | None] = []
    for i, r in enumerate(R):
        if not any(r):
            out.append(None)
        else:
            out.append(primitive_integer_row(r + ([b[i]] if b is not None else [])))
    return out, d, b is not None


def _step(v: tuple[int, ...], r: tuple[int, ...], p: int) -> tuple[int, ...]:
    """The primitive direction (first non-zero entry > 0) of ``v`` reduced by ``r`` at
    position ``p`` (``v`` not parallel to ``r``); ``p = -1``: of ``v`` itself."""
    x = v[p] if p >= 0 else 0
    w = [r[p] * a - x * b for a, b in zip(v, r)] if x else v  # noqa: B905 (equal lengths)
    g = math.gcd(*w)
    if next(z for z in w if z) < 0:
        g = -g
    return tuple(w) if g == 1 else tuple(z // g for z in w)


def flats(
    rows: Sequence[Sequence[Number]],
    bias: Sequence[Number] | None = None,
    *,
    max_flats: int = 100_000,
    mobius: bool = True,
) -> tuple[Flat, ...]:
    """Every flat of the intersection lattice, with rank and Moebius value.

    This is the lattice a ``pattern-complete`` certificate carries (its ``hyperplanes`` and
    ``rank``; see docs/certificates.md).  A flat is the set of indices of every hyperplane
    containing an intersection (constant rows are no hyperplanes and never listed); with a
    bias only non-empty intersections count.  Built upwards from the whole space: the flats
    covering X are found by reducing every other hyperplane modulo the span of X and grouping
    the residuals by direction (one group, one cover); in the affine case the group parallel
    to the residual of the constant function would make the intersection empty and is
    skipped.  Sorted by (rank, hyperplanes).  The Moebius values take time quadratic in the
    number of flats; ``mobius=False`` skips them (certificates carry only hyperplanes and
    ranks).

    Raises
    ------
    TooLarge
        More than ``max_flats`` flats.

    Examples
    --------
    >>> [(f.rank, f.hyperplanes, f.mobius) for f in flats([[1, 0], [0, 1], [1, 1]])]
    [(0, (), 1), (1, (0,), -1), (1, (1,), -1), (1, (2,), -1), (2, (0, 1, 2), 2)]
    >>> sum(abs(f.mobius) for f in flats([[1, 0], [0, 1], [1, 1]]))
    6
    >>> [f.hyperplanes for f in flats([[1], [1]], bias=[0, 1])]  # parallel lines: no meet
    [(), (0,), (1,)]
    """
    aug, d, affine = _aug_rows(rows, bias)
    # generated upwards: a node is a flat X with the residuals modulo X of the rows outside
    # it, grouped by direction (one group, one cover X + group); a cover's residuals are
    # its parent's other groups reduced by the group's direction at its first non-zero
    # position (one elimination step per group; the stdlib checker does the same,
    # certificates/semantics.py::_generate)
    groups: dict[tuple[int, ...], int] = {}  # direction -> bit mask of its hyperplanes
    for h, v in enumerate(aug):
        if v is not None:
            key = _step(v, v, -1)
            groups[key] = groups.get(key, 0) | 1 << h
    empty = ((0,) * d + (1,)) if affine else None
    depth: dict[int, int] = {0: 0}
    stack = [(0, groups, empty)]
    while stack:
        X, groups, e = stack.pop()
        for r, hs in groups.items():
            if r == e:
                continue  # X meets these hyperplanes nowhere (affine case)
            T = X | hs
            if T in depth:
                continue
            depth[T] = depth[X] + 1
            if len(depth) > max_flats:
                raise TooLarge(f"the lattice has more than {max_flats} flats; raise max_flats")
            p = next(i for i, x in enumerate(r) if x)
            sub: dict[tuple[int, ...], int] = {}
            for v, js in groups.items():
                if v is not r:
                    if v[p]:  # else already reduced at p
                        v = _step(v, r, p)
                    sub[v] = sub.get(v, 0) | js
            stack.append((T, sub, None if e is None else _step(e, r, p)))
    ranks = {frozenset(h for h in range(F.bit_length()) if F >> h & 1): k
             for F, k in depth.items()}
    order = sorted(ranks, key=lambda F: (ranks[F], sorted(F)))
    mu: dict[frozenset[int], int] = {}  # filled only with mobius
    for F in order:
        if mobius:
            mu[F] = 1 if not F else -sum(m for G, m in mu.items() if G < F)
    return tuple(Flat(ranks[F], tuple(sorted(F)), mu.get(F)) for F in order)


def arrangement_normals(W: object, *, bias: object = None, ranking: bool = False
                        ) -> tuple[tuple[tuple[int, ...], ...], int, bool]:
    """The central arrangement whose ``chi`` is computed: distinct primitive integer normals.

    Sign: the rows (homogenised ``(b_i, w_i)`` plus ``e_0`` with a bias).  Ranking: the
    differences of the tie classes' rows (likewise homogenised).  Returns
    ``(normals, dimension, affine)``; an affine arrangement's ``chi`` is that of this cone
    divided by ``t - 1``.

    Examples
    --------
    >>> arrangement_normals([[1, 0], [0, 1], [1, 0]], ranking=True)
    (((1, -1),), 2, False)
    """
    from logitgeom.exact.numbers import to_matrix, to_vector

    M = to_matrix(W, what="W")
    b = None if bias is None else to_vector(bias, what="bias", length=len(M))
    if not ranking:
        vecs, dim = hyperplane_vectors(M, b)
        return vecs, dim, b is not None
    labels, d, affine = label_vectors(M, b)
    rows = [[x - y for x, y in zip(labels[i][:d], labels[j][:d], strict=True)]
            for i in range(len(labels)) for j in range(i + 1, len(labels))]
    bias2 = ([labels[i][d] - labels[j][d] for i in range(len(labels))
              for j in range(i + 1, len(labels))] if affine else None)
    if not rows:  # one tie class: no hyperplane (the cone keeps its hyperplane at infinity)
        return (((1,) + (0,) * d,) if affine else ()), d + (1 if affine else 0), affine
    vecs, dim = hyperplane_vectors(rows, bias2)
    return vecs, dim, affine
