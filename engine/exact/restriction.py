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
arrangement depends only on the *set* of its distinct normals, so the recursion is
memoised on that set (sorted, as a tuple): equal restrictions reached along different
paths are computed once.  The key is the exact list of integer normals, so a cache hit is
an equality of arrangements, never a guess.  Two dimensions left close in closed form
(``m`` distinct lines through 0: ``t^2 - m t + (m - 1)``).

The number of distinct restrictions met is often far below the number of regions (the
no-broken-circuit search visits about one leaf per region): the resonance arrangement of
``n = 6`` (1,066,044 regions) needs about 1,400 distinct restrictions.

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

from logitgeom.exact.lattice import reduce_one
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
                    cache: dict | None = None, stats: dict | None = None,
                    budget: int | None = None) -> list[int]:
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
        Receives ``computed`` (distinct restrictions computed) and ``reused`` (cache hits).
    budget : int, optional
        Raise :class:`WorkBudgetExceeded` once more than ``budget`` restrictions were
        computed (cache hits are free).

    Returns
    -------
    list of int
        ``c[i]`` is the coefficient of ``t**i``, ``i = 0..dim``.

    Examples
    --------
    >>> chi_restriction([(1, 0, 0), (0, 1, 0), (0, 0, 1)], 3)   # (t - 1)^3
    [-1, 3, -3, 1]
    """
    memo: dict = {} if cache is None else cache
    st = {"computed": 0, "reused": 0, "budget": -1 if budget is None else budget}
    try:
        return _chi(normal_set(vecs), dim, memo, st)
    finally:
        if stats is not None:
            for key in ("computed", "reused"):
                stats[key] = stats.get(key, 0) + st[key]


def _chi(rem: tuple[Vec, ...], k: int, memo: dict, st: dict) -> list[int]:
    small = _small(rem, k)
    if small is not None:
        return small
    got = memo.get(rem)
    if got is not None:
        st["reused"] += 1
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
    memo[rem] = out
    return out


def _restrict(rem: tuple[Vec, ...], q: int) -> tuple[Vec, ...]:
    """``B_q``: the hyperplanes before ``q`` restricted to hyperplane ``q`` (sorted set)."""
    r = rem[q]
    piv = next(i for i, x in enumerate(r) if x)
    return tuple(sorted({reduce_one(v, piv, r) for v in rem[:q]}))


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
