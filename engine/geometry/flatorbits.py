"""chi(t) from the orbits of flats under a group of automorphisms of the arrangement.

Every point of ``Q^d`` lies in exactly one flat ``X`` of the central arrangement ``A`` off
the hyperplanes not containing ``X`` (its flat is the intersection of the hyperplanes
through it), so over ``F_q`` for good primes, and hence as polynomials,

    t^d = sum_X chi_{A^X}(t),   chi_A(t) = t^d - sum_{X != V} chi_{A^X}(t),

``A^X`` the restriction of ``A`` to ``X`` (docs/counting.md, section 6).  An automorphism
``g`` (a linear map permuting the hyperplanes) maps ``A^X`` onto ``A^(gX)``, so the sum may
be taken over one flat per orbit, times the orbit's size.

Flats are kept as *closed sets* (the sorted indices of the hyperplanes containing the
flat), on which the group acts through its permutations of the hyperplanes; the orbit of
a closed set is identified by its least image under the group and its size is
``|G| / |Stab|`` (:meth:`logitgeom.geometry.permchain.StabilizerChain.least_image`, exact).
The flats of rank ``r + 1`` are the closures ``X cup {H}`` of the flats ``X`` of rank
``r``: every one is a group image of the closure of a representative of rank ``r`` with
one more hyperplane, so running over the representatives' children finds every orbit.  A
representative carries its restriction in coordinates (each hyperplane not containing it
reduced to a primitive normal in ``Q^(d - r)``, as :mod:`logitgeom.exact.restriction`
does); hyperplanes with the same reduced normal close to the same child.  Each orbit's
``chi_{A^X}`` is computed by :func:`logitgeom.exact.restriction.chi_restriction` with one
shared table.

The largest restrictions, to flats of rank 1 and 2, are not computed: with ``f(X)`` the
sum of the Moebius values of the flats of rank at most 2 below ``X`` (``1 - a(X) + sum
(c(Z) - 1)``, ``a(X)`` the hyperplanes through ``X``, the sum over the rank-2 flats ``Z``
through ``X`` on ``c(Z)`` hyperplanes each), Moebius inversion on the flats of rank 3 and
up gives ``chi_A(t) = t^d - m t^(d-1) + sum_{rank Z = 2} (c(Z) - 1) t^(d-2) -
sum_{rank X >= 3} f(X) chi_{A^X}(t)`` (``low=2``, the default; ``low=0`` is the plain
formula above).

Examples
--------
>>> normals = [(1, 0), (0, 1), (1, 1), (1, -1)]           # four lines through 0
>>> swap = (1, 0, 2, 3)                                     # x <-> y permutes them
>>> chi_flat_orbits(normals, 2, [swap])
[3, -4, 1]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from math import gcd
from typing import Any

from logitgeom.exact import restriction
from logitgeom.geometry.permchain import StabilizerChain

__all__ = ["chi_flat_orbits", "SEARCHES_PER_UNIT"]

#: least-image searches allowed per unit of ``budget`` (a representative has a child per
#: hyperplane class off it, each one search)
SEARCHES_PER_UNIT = 100

Vec = tuple[int, ...]


def _primitive(w: Sequence[int]) -> Vec | None:
    g = gcd(*w)
    if g == 0:
        return None
    lead = next(x for x in w if x)
    if lead < 0:
        g = -g
    return tuple([x // g for x in w])


def _restrict_map(imgs: dict[int, Vec], r: Vec) -> dict[int, Vec | None]:
    """The hyperplanes' normals in ``X cap H`` (``H`` of normal ``r`` in X's coordinates);
    ``None`` for those containing it."""
    piv = next(i for i, x in enumerate(r) if x)
    rp = r[piv]
    rest = r[:piv] + r[piv + 1:]
    out: dict[int, Vec | None] = {}
    for j, v in imgs.items():
        vp = v[piv]
        w = v[:piv] + v[piv + 1:]
        if vp:
            w = tuple([rp * a - vp * c for a, c in zip(w, rest)])  # noqa: B905 (equal lengths)
        out[j] = _primitive(w)
    return out


def _pair_flats(vecs: Sequence[Vec]) -> tuple[object, object]:
    """The rank-2 flat of every pair of hyperplanes (an id matrix, -1 on the diagonal) and
    ``c - 1`` for each id (``c`` its hyperplanes)."""
    import numpy as np

    m = len(vecs)
    ids = np.full((m, m), -1, dtype=np.int64)
    weight: list[int] = []
    seen: dict[tuple[int, ...], int] = {}
    imgs = dict(enumerate(vecs))
    for i in range(m):
        groups: dict[Vec, list[int]] = {}
        for j, w in _restrict_map(imgs, vecs[i]).items():
            if w is not None:
                groups.setdefault(w, []).append(j)
        for js in groups.values():
            z = tuple(sorted([i, *js]))
            k = seen.get(z)
            if k is None:
                k = seen[z] = len(weight)
                weight.append(len(z) - 1)
            ids[i, js] = k
    return ids, np.array(weight + [0], dtype=np.int64)


def _rank2_sum(pairs: object, closed: tuple[int, ...]) -> int:
    """``sum (c - 1)`` over the rank-2 flats inside the closed set (each met as a pair)."""
    import numpy as np

    ids: Any
    weight: Any
    ids, weight = pairs  # type: ignore[misc]
    sub = np.unique(ids[np.ix_(closed, closed)])
    return int(weight[sub].sum())  # id -1 reads the trailing 0


def chi_flat_orbits(vecs: Sequence[Sequence[int]], dim: int,
                    generators: Sequence[Sequence[int]], *,
                    cache: dict | None = None, stats: dict | None = None,
                    budget: int | None = None, low: int = 2,
                    progress: Callable[[str, int, int, int], None] | None = None
                    ) -> list[int]:
    """chi(t) of the central arrangement ``vecs`` in ``Q^dim``, one flat per orbit.

    Parameters
    ----------
    vecs : sequence of integer vectors of length ``dim``
        Distinct, non-parallel, non-zero normals (as :func:`~logitgeom.exact.restriction.
        normal_set` returns); hyperplane ``i`` is ``vecs[i]``.
    dim : int
    generators : sequence of permutations of ``range(len(vecs))``
        Automorphisms of the arrangement as permutations of its hyperplanes (``g[i]`` is
        the image of hyperplane ``i``).  They are trusted to be automorphisms (of the
        intersection lattice): the caller checks them.
    cache : dict, optional
        The table of restrictions shared with :func:`~logitgeom.exact.restriction.
        chi_restriction`.
    stats : dict, optional
        Receives ``orbits`` (flat orbits by rank), ``flats`` (flats by rank: the orbit
        sizes summed), ``least_images`` (searches run), ``group_order`` and the
        restriction counters.
    budget : int, optional
        At most this many flat orbits and restrictions computed together, and
        ``SEARCHES_PER_UNIT`` times as many least-image searches:
        :class:`~logitgeom.exact.restriction.WorkBudgetExceeded` past it.
    low : {0, 1, 2}
        The flats of rank at most ``low`` enter through their Moebius values (``-1`` for
        a hyperplane, ``c - 1`` for a flat of rank 2 on ``c`` hyperplanes) and the flats
        above through ``f(X) chi_{A^X}``, ``f(X)`` the sum of those Moebius values below
        ``X`` (module docstring): 2 (default) never computes a restriction to a flat of
        rank 1 or 2, the largest ones; 0 is the plain formula.
    progress : callable, optional
        Called as ``progress("extend", rank, done, of)`` before each representative of
        rank ``rank`` is extended to the next rank, and ``progress("restrict", rank, done,
        of)`` before each orbit's term of rank ``rank`` is computed (``done`` of ``of``
        so far); it may raise to stop the count.

    Returns
    -------
    list of int
        ``c[i]`` is the coefficient of ``t**i``.

    Examples
    --------
    >>> cube = [(1, 0, 0), (0, 1, 0), (0, 0, 1)]
    >>> chi_flat_orbits(cube, 3, [(1, 2, 0)])          # (t - 1)^3
    [-1, 3, -3, 1]
    """
    normals: list[Vec] = [tuple(int(x) for x in v) for v in vecs]
    m = len(normals)
    chain = StabilizerChain(generators, m)
    order = chain.order
    memo: dict = {} if cache is None else cache
    st: dict = {}
    orbits: list[int] = []
    flats: list[int] = []
    searches = found = 0
    if low not in (0, 1, 2):
        raise ValueError(f"low must be 0, 1 or 2; got {low!r}")
    pairs = _pair_flats(normals) if low >= 2 else None
    out = [0] * (dim + 1)
    out[dim] = 1
    # one representative per orbit of the current rank: least image -> (closed set, map)
    level: dict[tuple[int, ...], tuple[tuple[int, ...], dict[int, Vec]]] = {
        (): ((), dict(enumerate(normals)))}
    rank = 0
    while level:
        nxt: dict[tuple[int, ...], tuple[tuple[int, ...], dict[int, Vec]]] = {}
        sizes: dict[tuple[int, ...], int] = {}
        for done, (closed, imgs) in enumerate(level.values()):
            if progress is not None:
                progress("extend", rank, done, len(level))
            groups: dict[Vec, list[int]] = {}
            for j, v in imgs.items():
                groups.setdefault(v, []).append(j)
            for r, js in groups.items():
                child = tuple(sorted(closed + tuple(js)))
                searches += 1
                if budget is not None and (searches > SEARCHES_PER_UNIT * budget or
                                           found + len(nxt) >= budget):
                    raise restriction.WorkBudgetExceeded
                if len(child) == m:  # every hyperplane: the centre, fixed by the group
                    key, stab = tuple(range(m)), order
                else:
                    key, stab = chain.least_image(child)
                if key in nxt:
                    continue
                sub = _restrict_map(imgs, r)
                nxt[key] = (child, {j: w for j, w in sub.items() if w is not None})
                sizes[key] = order // stab
        rank += 1
        found += len(nxt)
        orbits.append(len(nxt))
        flats.append(sum(sizes.values()))
        for done, (key, (closed, imgs)) in enumerate(nxt.items()):
            if progress is not None:
                progress("restrict", rank, done, len(nxt))
            n = sizes[key]
            if rank == 1 and low >= 1:  # mu = -1
                out[dim - 1] -= n
                continue
            if rank == 2 and low >= 2:  # mu = (hyperplanes through it) - 1
                out[dim - 2] += n * (len(closed) - 1)
                continue
            f = 1  # the sum of mu over the flats of rank <= low through this one
            if low >= 1:
                f -= len(closed)
            if low >= 2:
                f += _rank2_sum(pairs, closed)
            left = None if budget is None else budget - found - st.get("computed", 0)
            c = restriction.chi_restriction(list(imgs.values()), dim - rank, cache=memo,
                                            stats=st, budget=left)
            for i, x in enumerate(c):
                out[i] -= n * f * x
        level = nxt
    if stats is not None:
        for k, v in st.items():
            stats[k] = stats.get(k, 0) + v
        stats["orbits"] = orbits[:-1] if orbits and orbits[-1] == 0 else orbits
        stats["flats"] = flats[:len(stats["orbits"])]
        stats["least_images"] = stats.get("least_images", 0) + searches
        stats["group_order"] = order
    return out
