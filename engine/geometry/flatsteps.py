"""The steps of a count by flat orbits (:mod:`logitgeom.geometry.flatorbits`), each a
function of plain data that any process can run.

* :func:`_extend` runs the least-image search on every child of some representatives of
  one rank (closed sets, with the hyperplanes off them in classes of equal restricted
  normal) and returns the children met, one per least image in order of discovery;
  :func:`_merge` joins the answers of consecutive chunks of representatives into the
  answer of one run over them all (first occurrence kept, in chunk order), and
  :func:`_level` turns the merged children into the next level (each with its
  restriction in coordinates and its orbit size);
  (:func:`_level_unit`: a chunk of it on a worker);
* :func:`_terms` sums ``-w chi_{A^X}`` over some orbits' restrictions;
* :func:`_extend_unit` and :func:`_terms_unit` are those two as work units (a worker
  keeps one table of restrictions per run, and a unit past its budget returns ``None``).

Examples
--------
>>> from logitgeom.geometry.permchain import StabilizerChain
>>> chain = StabilizerChain([(1, 0, 2)], 3)            # swaps hyperplanes 0 and 1
>>> found, searches = _extend(chain, [((), [[0], [1], [2]])], 0, None, None)
>>> len(found), searches                               # {0} and {1}: one orbit
(2, 3)
>>> sorted((child, stab) for child, stab, _, _ in found.values())
[((0,), 1), ((2,), 2)]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from math import gcd
from typing import Any

from logitgeom.exact import restriction
from logitgeom.geometry.orbitstate import Level
from logitgeom.geometry.permchain import StabilizerChain

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


def _extend(chain: StabilizerChain, reps: Sequence[tuple[tuple[int, ...], list[list[int]]]],
            start: int, searches_left: int | None, orbits_left: int | None,
            progress: Callable | None = None, rank: int = 0, of: int = 0
            ) -> tuple[dict[tuple[int, ...], tuple[tuple[int, ...], int, int, int]], int]:
    """The children of the representatives ``reps`` (closed set, the hyperplanes off it
    in classes of equal restricted normal; numbered from ``start``), one per least image
    in order of discovery, each as (closed set, stabiliser order, its parent's number, a
    hyperplane it adds); and the searches run.  Raises
    :class:`~logitgeom.exact.restriction.WorkBudgetExceeded` past either limit."""
    m, order = chain.m, chain.order
    nxt: dict[tuple[int, ...], tuple[tuple[int, ...], int, int, int]] = {}
    searches = 0
    for done, (closed, groups) in enumerate(reps, start):
        if progress is not None:
            progress("extend", rank, done, of)
        for js in groups:
            child = tuple(sorted(closed + tuple(js)))
            searches += 1
            if searches_left is not None and searches > searches_left:
                raise restriction.WorkBudgetExceeded
            if len(child) == m:  # every hyperplane: the centre, fixed by the group
                key, stab = tuple(range(m)), order
            else:
                key, stab = chain.least_image(child)
            if key in nxt:
                continue
            if orbits_left is not None and len(nxt) >= orbits_left:
                raise restriction.WorkBudgetExceeded
            nxt[key] = (child, stab, done, js[0])
    return nxt, searches


def _extend_unit(args: tuple) -> tuple[dict, int] | None:
    """One chunk of representatives extended (any process); ``None`` past the budget (not
    raised in the worker, where Dask would log it with a traceback)."""
    try:
        return _extend(*args)
    except restriction.WorkBudgetExceeded:
        return None


def _merge(parts: Sequence[dict]) -> dict:
    """The children found by consecutive chunks of representatives, as one serial run over
    them all finds them: in chunk order, the first occurrence of each least image kept."""
    found: dict = {}
    for part in parts:
        for key, val in part.items():
            if key not in found:
                found[key] = val
    return found


def _level(chain: StabilizerChain, reps: Sequence[tuple[tuple[int, ...], dict[int, Vec]]],
           found: dict[tuple[int, ...], tuple[tuple[int, ...], int, int, int]]) -> Level:
    """The level of the children ``found``: each with its restriction in coordinates and
    its orbit size."""
    rows = [(key, child, stab, i, j) for key, (child, stab, i, j) in found.items()]
    return {key: (child, sub, n) for key, child, sub, n in
            _level_rows(chain.order, {i: reps[i][1] for _, _, _, i, _ in rows}, rows)}


def _level_rows(order: int, parents: dict[int, dict[int, Vec]], rows: Sequence[tuple]
                ) -> list[tuple[tuple[int, ...], tuple[int, ...], dict[int, Vec], int]]:
    """``(least image, closed set, restriction in coordinates, orbit size)`` of each child
    ``(least image, closed set, stabiliser order, parent, added hyperplane)`` of ``rows``
    (``parents``: the restricted normals of each parent)."""
    out = []
    for key, child, stab, i, j in rows:
        imgs = parents[i]
        sub = _restrict_map(imgs, imgs[j])
        out.append((key, child, {h: w for h, w in sub.items() if w is not None},
                    order // stab))
    return out


def _level_unit(args: tuple) -> list:
    """One chunk of a level's restrictions (any process)."""
    return _level_rows(*args)


def _terms(jobs: Sequence[tuple[int, list[Vec], int, Any]], size: int, cache: dict,
           limit: int | None, progress: Callable | None = None, rank: int = 0,
           start: int = 0, of: int = 0, chi_of: Callable | None = None
           ) -> tuple[list[int], dict]:
    """``-sum w chi_{A^X}`` over the jobs ``(w, normals of A^X, dim of X, closed set of X)``
    as ``size`` coefficients, with the restriction counters; at most ``limit``
    restrictions computed (``chi_of(closed, dim)``, when given and not ``None``, gives
    ``chi_{A^X}`` instead)."""
    out = [0] * size
    st: dict = {}
    for i, (w, sub, k, closed) in enumerate(jobs):
        if progress is not None:
            progress("restrict", rank, start + i, of)
        c = None if chi_of is None else chi_of(closed, k)
        if c is None:
            left = None if limit is None else max(0, limit - st.get("computed", 0))
            c = restriction.chi_restriction(sub, k, cache=cache, stats=st, budget=left)
        for e, x in enumerate(c):
            out[e] -= w * x
    return out, st


#: a worker's table of restrictions: one run's (its token) at a time
_WORKER_CACHE: dict[str, dict] = {}


def _terms_unit(args: tuple) -> tuple[list[int], dict] | None:
    """One chunk of terms (any process), with this worker's table for the run; ``None``
    past the budget."""
    token, jobs, size, limit, chi_of = args
    cache = _WORKER_CACHE.get(token)
    if cache is None:
        _WORKER_CACHE.clear()
        cache = _WORKER_CACHE[token] = {}
    try:
        return _terms(jobs, size, cache, limit, chi_of=chi_of)
    except restriction.WorkBudgetExceeded:
        return None


def _chunks(n: int, units: int) -> list[tuple[int, int]]:
    """``n`` items in at most ``units`` contiguous chunks of nearly equal length."""
    k = max(1, min(n, units))
    return [(i * n // k, (i + 1) * n // k) for i in range(k)]
