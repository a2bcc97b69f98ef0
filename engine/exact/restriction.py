"""Characteristic polynomials by deletion-restriction, each restriction computed once.

For a central arrangement ``A = {H_1, ..., H_m}`` of hyperplanes in ``Q^k`` (given by
integer normals), deletion-restriction ``chi_A = chi_{A - H} - chi_{A^H}`` applied to
``H_m, H_{m-1}, ..., H_1`` in turn gives

    chi_A(t) = t^k - sum_{q=1}^{m} chi_{B_q}(t),   B_q = {H_p cap H_q : p < q}

where ``B_q`` is the restriction of the first ``q - 1`` hyperplanes to ``H_q``, an
arrangement in ``H_q``, a space of dimension ``k - 1``.  We coordinatise ``H_q`` by
dropping the pivot coordinate of its normal (the first non-zero one): the normal ``v`` of
``H_p`` becomes ``v`` reduced modulo the normal of ``H_q`` at that coordinate, made
primitive with its first non-zero entry positive (the same reduction as the no-broken-
circuit search of :mod:`logitgeom.exact.lattice`).  The characteristic polynomial of an
arrangement depends only on the *set* of its distinct normals, up to an invertible linear
map, so the recursion is memoised on that set after a signed permutation of the
coordinates: first under a cheap key (:func:`_key`: columns ordered by invariants, ties
kept in place), and on a miss under the canonical form of
:func:`logitgeom.exact.canonical.canonical_form`, so that restrictions that are images of
each other under a coordinate permutation and sign changes are computed once (up to that
module's bound on the search within ties).  Both keys are exact lists of integer normals,
so a cache hit is an equality of arrangements up to a signed coordinate permutation,
never a guess.  Two dimensions left close in closed form
(``m`` distinct lines through 0: ``t^2 - m t + (m - 1)``), and so do three (:func:`_chi3`:
``m`` planes through 0, from the number of planes through each line where two meet; not
cached, which keeps the cache to restrictions of dimension 4 and up).  A restriction
whose normals span fewer dimensions than its space (a prefix of few hyperplanes, or one
with a coordinate that no normal uses) is counted in its span (:func:`_essential`:
``chi = t^(k - r)`` times ``chi`` of the arrangement in ``Q^r``), so it meets the
restrictions of the smaller dimension in the cache.

The number of distinct restrictions met is often far below the number of regions (the
no-broken-circuit search visits about one leaf per region): the resonance arrangement of
``n = 6`` (1,066,044 regions) needs 212 distinct restrictions of dimension 4 and up (881
of dimension 3 and up with the cheap key alone, ``canonical=False``).

Examples
--------
>>> chi_restriction([(1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 1)], 3)
[-3, 6, -4, 1]
>>> top = restriction_terms([(1, 0), (0, 1), (1, 1)], 2)
>>> len(top)
3
"""

from __future__ import annotations

from collections.abc import Sequence
from math import gcd, isqrt

from logitgeom.exact.canonical import canonical_form
from logitgeom.exact.linalg import canonical_direction

__all__ = ["chi_restriction", "restriction_terms", "combine_terms", "normal_set",
           "WorkBudgetExceeded"]


class WorkBudgetExceeded(Exception):
    """:func:`chi_restriction` needed more distinct restrictions than its budget."""

Vec = tuple[int, ...]


def normal_set(vecs: Sequence[Sequence[int]]) -> tuple[Vec, ...]:
    """The distinct hyperplanes of integer normals ``vecs`` (zero rows dropped), sorted.

    Examples
    --------
    >>> normal_set([(2, 0), (-1, 0), (0, 0), (1, 1)])
    ((1, 0), (1, 1))
    """
    return tuple(sorted({canonical_direction(v) for v in vecs if any(v)}))


def _small(rem: tuple[Vec, ...], k: int) -> list[int] | None:
    """chi of a small case in closed form, else None (coefficient i: power t^i)."""
    m = len(rem)
    out = [0] * (k + 1)
    out[k] = 1
    if m == 0:
        return out
    out[k - 1] = -m
    if m == 1:
        return out
    if k == 2:  # m distinct lines through 0 in a plane
        out[0] = m - 1
        return out
    return None


def chi_restriction(vecs: Sequence[Sequence[int]], dim: int, *,
                    cache: dict[tuple[Vec, ...], list[int]] | None = None,
                    stats: dict[str, int] | None = None,
                    budget: int | None = None, canonical: bool = True) -> list[int]:
    """chi(t) of the central arrangement of the integer normals ``vecs`` in ``Q^dim``.

    Parameters
    ----------
    vecs : sequence of integer vectors of length ``dim``
        Hyperplane normals; zero vectors are ignored, parallel ones count once.
    dim : int
        The dimension of the ambient space.
    cache : dict, optional
        Memo of restrictions (``sorted normals -> chi``); pass the same dict to several
        calls to share it.
    stats : dict, optional
        Receives ``computed`` (distinct restrictions computed and cached: of dimension 4 and
        up when ``canonical``), ``reused`` (cache hits), ``not_canonical`` (restrictions
        whose canonical-form search exceeded its bound, so keyed by a non-canonical image)
        ``planes3`` (arrangements of planes in ``Q^3`` closed in closed form, uncached) and
        ``essentialised`` (restrictions counted in the smaller span of their normals).
    budget : int, optional
        Raise :class:`WorkBudgetExceeded` once more than ``budget`` restrictions were
        computed (cache hits are free).
    canonical : bool
        Key the cache by the canonical form under signed coordinate permutations too,
        count a rank-deficient restriction in its span and close three dimensions in
        closed form (default); False keys it by the cheap
        column-invariant form alone and recurses down to two dimensions (the algorithm
        before issue 46's symmetry step, kept as the reference it is checked against).

    Returns
    -------
    list of int
        ``c[i]`` is the coefficient of ``t**i``, ``i = 0..dim``.

    Examples
    --------
    >>> chi_restriction([(1, 0, 0), (0, 1, 0), (0, 0, 1)], 3)   # (t - 1)^3
    [-1, 3, -3, 1]
    """
    memo: dict[tuple[Vec, ...], list[int]] = {} if cache is None else cache
    st = {"computed": 0, "reused": 0, "budget": -1 if budget is None else budget,
          "canonical": 1 if canonical else 0, "not_canonical": 0, "planes3": 0,
          "essentialised": 0}
    try:
        return _chi(normal_set(vecs), dim, memo, st)
    finally:
        if stats is not None:
            for key in ("computed", "reused", "not_canonical", "planes3", "essentialised"):
                stats[key] = stats.get(key, 0) + st[key]


def _chi(rem: tuple[Vec, ...], k: int, memo: dict[tuple[Vec, ...], list[int]],
         st: dict[str, int]) -> list[int]:
    small = _small(rem, k)
    if small is not None:
        return small
    if k == 3 and st["canonical"]:
        st["planes3"] += 1
        return _chi3(rem)
    key = _key(rem)
    got = memo.get(key)
    if got is not None:
        st["reused"] += 1
        return got
    ckey = None
    if st["canonical"]:  # a miss on the cheap key: essential? then the canonical form
        ess = _essential(rem, k)
        if ess is not None:  # rank r < k: chi = t^(k - r) chi(the arrangement in Q^r)
            st["essentialised"] += 1
            c = _chi(ess[0], ess[1], memo, st)
            out = [0] * (k - ess[1]) + c
            memo[key] = out
            return out
        ckey, canon = canonical_form(rem)
        st["not_canonical"] += not canon
        got = memo.get(ckey)
        if got is not None:
            st["reused"] += 1
            memo[key] = got
            return got
    st["computed"] += 1
    if st["computed"] > st["budget"] >= 0:
        raise WorkBudgetExceeded
    out = [0] * (k + 1)
    out[k] = 1
    for q in range(len(rem)):
        sub = _restrict(rem, q)
        c = _chi(sub, k - 1, memo, st)
        for i in range(k):
            out[i] -= c[i]
    memo[key] = out
    if ckey is not None:
        memo[ckey] = out
    return out


def _essential(rem: tuple[Vec, ...], k: int) -> tuple[tuple[Vec, ...], int] | None:
    """The arrangement in ``Q^r`` if its normals span only ``r < k`` dimensions, else None.

    Fraction-free elimination puts the normals in echelon form; its pivot columns ``J``
    (``r`` of them) carry a non-singular triangular block, so ``v -> v_J`` is injective on
    the span of the normals: the images are distinct, non-parallel normals of an
    arrangement in ``Q^r`` with the same lattice, and ``chi_A(t) = t^(k - r) chi(t)`` of it.
    """
    ech: list[tuple[int, Vec]] = []
    for v in rem:
        w = list(v)
        for piv, r in ech:
            x = w[piv]
            if x:
                a = r[piv]
                w = [a * y - x * z for y, z in zip(w, r)]  # noqa: B905 (equal lengths)
        p = next((i for i, x in enumerate(w) if x), -1)
        if p >= 0:
            g = gcd(*w)
            ech.append((p, tuple([x // g for x in w])))
            if len(ech) == k:
                return None
    cols = sorted(p for p, _ in ech)
    return normal_set([tuple([v[j] for j in cols]) for v in rem]), len(cols)


def _chi3(rem: tuple[Vec, ...]) -> list[int]:
    """chi of ``m >= 2`` distinct planes through 0 in ``Q^3``, in closed form.

    ``chi(t) = t^3 - m t^2 + b t + (m - 1 - b)`` where ``b`` is the sum over the lines
    where planes meet of (planes through the line - 1) (the Moebius values of the rank-2
    flats), and the constant makes ``chi(1) = 0``.  Two planes meet in the line of the cross
    product of their normals; ``c`` planes through one line make ``c (c - 1) / 2`` pairs.
    """
    pairs: dict[Vec, int] = {}
    m = len(rem)
    for i in range(m):
        a0, a1, a2 = rem[i]
        for j in range(i):
            b0, b1, b2 = rem[j]
            c = (a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0)
            g = gcd(*c)
            if (c[0] or c[1] or c[2]) < 0:
                g = -g
            line = c if g == 1 else (c[0] // g, c[1] // g, c[2] // g)
            pairs[line] = pairs.get(line, 0) + 1
    b = sum((1 + isqrt(1 + 8 * p)) // 2 - 1 for p in pairs.values())
    return [m - 1 - b, b, -m, 1]


def _key(rem: tuple[Vec, ...]) -> tuple[Vec, ...]:
    """The cache key of an arrangement: its normals after a column permutation and column
    sign changes chosen from column invariants, made primitive again, sorted.

    Permuting coordinates and changing their signs is an invertible linear map, so equal
    keys mean arrangements that are images of each other: equal characteristic
    polynomials.  Ties between columns keep their order, so this is not a canonical form
    (isomorphic arrangements can get different keys, costing a recomputation, never a
    wrong answer).
    """
    cols = list(zip(*rem))  # noqa: B905
    inv = [(tuple(sorted(abs(x) for x in c)), tuple(sorted(c))) for c in cols]
    order = sorted(range(len(cols)), key=inv.__getitem__)
    signs = [-1 if tuple(sorted(-x for x in cols[j])) > inv[j][1] else 1 for j in order]
    out = set()
    for v in rem:
        w = tuple([v[j] * s for j, s in zip(order, signs)])  # noqa: B905
        g = gcd(*w)
        if next(x for x in w if x) < 0:
            g = -g
        out.add(w if g == 1 else tuple([x // g for x in w]))
    return tuple(sorted(out))


def _restrict(rem: tuple[Vec, ...], q: int) -> tuple[Vec, ...]:
    """``B_q``: the hyperplanes before ``q`` restricted to hyperplane ``q`` (sorted set).

    Each normal ``v`` becomes ``r_p v - v_p r`` with the pivot coordinate ``p`` of ``r``
    dropped (``v`` itself, less that coordinate, when ``v_p = 0``), made primitive with
    its first non-zero entry positive (as :func:`logitgeom.exact.lattice.reduce_one`).
    """
    r = rem[q]
    piv = next(i for i, x in enumerate(r) if x)
    rp = r[piv]
    rest = r[:piv] + r[piv + 1:]
    out = set()
    for v in rem[:q]:
        vp = v[piv]
        w = v[:piv] + v[piv + 1:]
        if vp:
            w = tuple([rp * a - vp * c for a, c in zip(w, rest)])  # noqa: B905 (equal lengths)
        g = gcd(*w)
        lead = next(x for x in w if x)
        if lead < 0:
            g = -g
        out.add(w if g == 1 else tuple([x // g for x in w]))
    return tuple(sorted(out))


def restriction_terms(vecs: Sequence[Sequence[int]], dim: int) -> list[tuple[tuple[Vec, ...], int]]:
    """The top-level restrictions ``(B_q, dim - 1)`` of the formula above, one per hyperplane.

    ``chi_A(t) = t^dim - sum_q chi_{B_q}(t)``: each term is an independent unit of work
    (:func:`combine_terms` adds them up).

    Examples
    --------
    >>> restriction_terms([(1, 0), (0, 1)], 2)
    [((), 1), (((1,),), 1)]
    """
    rem = normal_set(vecs)
    return [(_restrict(rem, q), dim - 1) for q in range(len(rem))]


def combine_terms(dim: int, parts: Sequence[Sequence[int]]) -> list[int]:
    """``t^dim - sum(parts)``: chi from the characteristic polynomials of the top terms.

    Examples
    --------
    >>> combine_terms(2, [[0, 1], [-1, 1]])    # two lines: t^2 - 2t + 1
    [1, -2, 1]
    """
    out = [0] * (dim + 1)
    out[dim] = 1
    for c in parts:
        for i, x in enumerate(c):
            out[i] -= x
    return out
