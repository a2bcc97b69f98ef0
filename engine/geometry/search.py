"""Drivers of the exact searches: topes of an arrangement in chunks, and prefix search.

:func:`topes` splits the deletion-restriction enumeration of
:mod:`logitgeom.geometry.arrangement` into independent chunks (one per inserted hyperplane)
and runs them serially or on any :class:`concurrent.futures.Executor`; the merge is in
chunk order, so the result is the same whatever the executor.  :func:`prefix_search`
extends feasible label prefixes one class at a time, deciding each candidate by an exact
LP (:func:`logitgeom.lp_float.decide`: float proposals, exact decision).

Examples
--------
>>> from fractions import Fraction as F
>>> signs, pts = topes([[1, 0], [0, 1]])
>>> sorted(signs)
[(-1, -1), (-1, 1), (1, -1), (1, 1)]
>>> sorted(prefix_search([[1, 0], [0, 1], [-1, -1]], [(0,), (1,), (2,)], 1)[0])
[(0,), (1,), (2,)]
"""

from __future__ import annotations

import heapq
import math
import sys
from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from tqdm import tqdm

from logitgeom.exact.linalg import column_basis, primitive_integer_row
from logitgeom.geometry import arrangement as ar
from logitgeom.geometry.arrangement import exact as ex
from logitgeom.geometry.arrangement import float_ as fl
from logitgeom.lp_float import decide
from logitgeom.run.executor import cpu_count, in_worker, process_pool, run_units

__all__ = ["Topes", "Reduced", "reduce_rows", "plan_units", "unit_estimate", "unit_points",
           "shrink", "unit_rows", "dedupe_packed",
           "generic_bound", "topes", "topes_arrays", "prefix_search", "default_executor",
           "prefer_exact", "PARALLEL_THRESHOLD"]

#: Expected region counts above which the default executor is a process pool.
PARALLEL_THRESHOLD = 100_000


def default_executor(expected: int | None) -> Executor | None:
    """A process pool over the available cores when the work is big, else ``None`` (serial)."""
    n = cpu_count()
    if in_worker():  # workers may not have pools of their own
        return None
    if expected is not None and expected > PARALLEL_THRESHOLD and n > 1:
        return process_pool(n)
    return None


def _show(progress: bool | None, size: int | None) -> bool:
    if progress is False:
        return False
    if not sys.stderr.isatty():
        return False
    return bool(progress) or (size is not None and size > 20_000)


def prefer_exact(rows: Sequence[Sequence[int]]) -> bool:
    """Whether the exact pass is likely the faster one (small integers stay in int64).

    A speed heuristic only: entries of at most b bits in dimension r give witnesses of
    roughly b * r bits or more.

    Examples
    --------
    >>> prefer_exact([[1, -2, 3]]), prefer_exact([[10**6, -2, 3], [1, 1, 1]])
    (True, False)
    """
    bits = max((abs(v).bit_length() for r in rows for v in r), default=0)
    return bits * len(rows[0]) <= 30


#: float proposals are rounded to integers on this grid (points are unit vectors)
FLOAT_GRID_BITS = 52


def unit_points(rows: ar.Rows, path: tuple[int, ...], exact: bool) -> np.ndarray:
    """Candidate points of one work unit (a path j_1, j_2, ... into the recursion).

    ``()`` is the whole arrangement (used when it spans at most R^2).
    ``(j,)`` is chunk j of :mod:`logitgeom.geometry.arrangement` (points y +- eps h_j for the
    regions y of A_{j-1}^{H_j}); ``(j, *rest)`` replaces the regions of the restriction by
    the points of its own unit ``rest``, taken off the restriction's hyperplanes and
    de-duplicated within the unit, then lifted.  The units ``(j, j')`` over all j' of the
    restriction cover it (the union formula), so replacing unit ``(j,)`` by them loses
    nothing; the same region may now be reached by several units (see
    docs/enumeration-at-scale.md, de-duplication).  Exact points (``exact``) or float
    proposals.
    """
    tw = ex if exact else fl
    if not path:  # the whole arrangement as one unit (planar ones: exact and cheap)
        return ex.regions(rows, len(rows[0]))
    if len(path) == 1:
        if path[0] == 0:
            return tw.chunk(rows, 0)
        sub, sc = tw.sub_constraints(rows, path[0], ())  # tw.chunk, lifted in blocks
        return _lift_blocks(tw, rows, path[0], tw.regions(sub, len(rows[0]) - 1, sc))
    j = path[0]
    sub = ar.restrict(rows[:j], rows[j])
    Z = unit_points(sub, path[1:], exact)
    if not exact:
        return _lift_blocks(fl, rows, j, fl.dedupe(Z, fl.normals(sub))[0])
    return _lift_blocks(ex, rows, j, dedupe_packed(ex.fit(Z), ex.normals(sub))[0])


#: rows lifted at once (a lift holds two or three points x hyperplanes matrices of int64
#: or float64: about 2 KB a row for 127 hyperplanes)
LIFT_BLOCK = 1 << 15


def _lift_blocks(tw, rows: ar.Rows, j: int, Z: np.ndarray) -> np.ndarray:
    """``tw.lift(rows, j, Z)`` (all ``+`` points, then all ``-`` points) of the twin
    ``tw``, computed in blocks of :data:`LIFT_BLOCK` rows per side: the same points in
    bounded memory (each point depends on its own row of Z only)."""
    if len(Z) <= LIFT_BLOCK:
        return tw.lift(rows, j, Z)
    parts = [tw.lift(rows, j, Z[lo:lo + LIFT_BLOCK], side) for side in (1, -1)
             for lo in range(0, len(Z), LIFT_BLOCK)]
    if tw is not ex:
        return np.concatenate(parts)
    if any(p.dtype == object for p in parts):
        parts = [p.astype(object) for p in parts]
    return ex.fit(np.concatenate(parts))


def _unit_job(args: tuple) -> tuple[np.ndarray, np.ndarray]:
    """Exact points and exact sign vectors of one unit, de-duplicated within it."""
    return _unit_job_inner(*args)


def _unit_job_inner(rows: ar.Rows, path: tuple[int, ...], exact: bool
                    ) -> tuple[np.ndarray, np.ndarray]:
    return ex.dedupe(*_unit_candidates(rows, path, exact))


def _unit_candidates(rows: ar.Rows, path: tuple[int, ...], exact: bool
                     ) -> tuple[np.ndarray, np.ndarray]:
    """A unit's exact integer candidate points and the exact normals."""
    P = unit_points(rows, path, exact)
    if not exact and path:  # float proposals -> exact integer points (2^52 grid)
        P *= 2.0**FLOAT_GRID_BITS  # in place: one float copy of the unit, not three
        np.rint(P, out=P)
        P = P.astype(np.int64)
    else:
        P = ex.fit(P.astype(object) if P.dtype != np.int64 else P)
    return P, ex.fit(np.array(rows, dtype=object))


def unit_rows(rows: ar.Rows, path: tuple[int, ...], exact: bool
              ) -> tuple[np.ndarray, np.ndarray]:
    """Exact points of one unit and their packed sign words (``pack_signs``),
    de-duplicated within the unit: the rows of ``_unit_job`` in bounded memory (no sign
    matrix of the whole unit is held).

    Examples
    --------
    >>> P, K = unit_rows(((1, 0, 0), (0, 1, 0), (0, 0, 1)), (2,), True)
    >>> len(P), K.dtype.name
    (8, 'uint64')
    """
    return dedupe_packed(*_unit_candidates(rows, path, exact))


#: rows whose exact sign vectors are computed at once by :func:`dedupe_packed` and
#: :func:`shrink` (memory: about 3 bytes per row and hyperplane, per block)
ROW_BLOCK = 1 << 15


def dedupe_packed(P: np.ndarray, A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows of ``ex.dedupe(P, A)`` (points off every hyperplane, the first of each
    sign vector, in order) with their packed sign words instead of the sign matrix,
    computed in blocks of :data:`ROW_BLOCK` rows.

    Examples
    --------
    >>> Q, K = dedupe_packed(np.array([[1], [2], [0], [-1]]), np.array([[1]]))
    >>> Q.ravel().tolist(), K.ravel().tolist()
    ([1, -1], [1, 0])
    """
    words = max(1, -(-A.shape[0] // 64))
    Ks, idx = [np.zeros((0, words), dtype=np.uint64)], [np.zeros(0, dtype=np.intp)]
    for lo in range(0, P.shape[0], ROW_BLOCK):
        S = ex.sign_matrix(P[lo:lo + ROW_BLOCK], A)
        ok = np.flatnonzero(np.all(S != 0, axis=1))
        Ks.append(ar.pack_signs(S[ok]))
        idx.append(ok + lo)
        del S
    K = np.ascontiguousarray(np.concatenate(Ks))
    ids = np.concatenate(idx)
    keys = K.view(np.dtype((np.void, 8 * words))).ravel()
    first = np.sort(np.unique(keys, return_index=True)[1])  # first occurrences
    return P[ids[first]], K[first]


def generic_bound(m: int, D: int) -> int:
    """Regions of m central hyperplanes in general position in R^D (an upper bound).

    Examples
    --------
    >>> generic_bound(3, 2), generic_bound(3, 3)
    (6, 8)
    """
    if m == 0:
        return 1
    return 2 * sum(math.comb(m - 1, i) for i in range(D))


def unit_estimate(rows: ar.Rows, path: tuple[int, ...]) -> int:
    """The generic bound of a unit's restriction: ranks units by size (largest first).

    Examples
    --------
    >>> unit_estimate(((1, 0, 0), (0, 1, 0), (0, 0, 1)), (2,))
    4
    """
    rs, dim = rows, len(rows[0])
    for j in path:
        rs, dim = ar.restrict(rs[:j], rs[j]), dim - 1
    return generic_bound(len(rs), dim)


def plan_units(rows: ar.Rows, target: int = 1) -> list[tuple[int, ...]]:
    """Work units (recursion paths) for the arrangement ``rows``: at least ``target`` if
    the recursion allows, by splitting the unit with the largest size estimate first.

    A unit ``(..., j)`` whose restriction still has dimension >= 4 splits into the units
    of that restriction's chunks (mplrs-style budgeted splitting, decided up front from
    the generic bound of each restriction, which ranks units by size).  The list is in a
    deterministic order (lexicographic paths), so results merged in unit order do not
    depend on the executor.

    Examples
    --------
    >>> plan_units(((1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 0, 1), (1, 1, 1, 1)))
    [(0,), (1,), (2,), (3,), (4,)]
    """
    D = len(rows[0])
    if D <= 2:
        return [()]
    heap: list[tuple[int, tuple[int, ...], ar.Rows, int]] = []
    done: list[tuple[int, ...]] = []

    def push(path: tuple[int, ...], rs: ar.Rows, dim: int) -> None:
        j = path[-1]
        sub = ar.restrict(rs[:j], rs[j]) if j else ()
        if dim - 1 >= 4 and len(sub) > 1:
            heapq.heappush(heap, (-generic_bound(len(sub), dim - 1), path, sub, dim - 1))
        else:
            done.append(path)

    for j in range(len(rows)):
        push((j,), rows, D)
    while heap and len(heap) + len(done) < target:
        _, path, sub, dim = heapq.heappop(heap)
        for jj in range(len(sub)):
            push((*path, jj), sub, dim)
    done += [p for _, p, _, _ in heap]
    return sorted(done)


@dataclass(frozen=True)
class Reduced:
    """An arrangement reduced to distinct hyperplanes in the coordinates of a column basis.

    ``where[i] = (c, o)``: input row i is hyperplane c with orientation o (c = -1: a zero
    row); ``hyperplanes`` are primitive integer normals in the coordinates ``cols`` (a
    column basis of the input, so they span R^len(cols)); ``D`` is the input dimension.
    """

    where: tuple[tuple[int, int], ...]
    cols: tuple[int, ...]
    hyperplanes: ar.Rows
    D: int


def reduce_rows(rows: Sequence[Sequence[Fraction | int]]) -> Reduced:
    """Distinct hyperplanes of a rational matrix, in a column basis (exact).

    Examples
    --------
    >>> r = reduce_rows([[1, 0], [2, 0], [0, 0]])
    >>> r.where, r.cols, r.hyperplanes
    (((0, 1), (0, 1), (-1, 0)), (0,), ((1,),))
    """
    D = len(rows[0])
    classes: dict[tuple[int, ...], int] = {}
    where: list[tuple[int, int]] = []  # (class index or -1, orientation)
    for r in rows:
        key, s = ar.canonical(primitive_integer_row(r))
        if s == 0:
            where.append((-1, 0))
            continue
        where.append((classes.setdefault(key, len(classes)), s))
    H = list(classes)
    if not H:
        return Reduced(tuple(where), (), (), D)
    cols = column_basis(H)
    Hc = tuple(primitive_integer_row([h[c] for c in cols]) for h in H)
    return Reduced(tuple(where), tuple(cols), Hc, D)


@dataclass(frozen=True)
class Topes:
    """Raw result of :func:`topes_arrays` (one row per region, in the order found).

    ``points`` are integer vectors in the coordinates ``cols`` of a column basis (int64 or
    Python-int object array); ``signs`` (int8) are the signs on the distinct hyperplanes;
    ``where[i] = (c, o)`` maps input row i to hyperplane c with orientation o (c = -1: a
    zero row).  A point z lifts to x in Q^D by x[cols] = z, zero elsewhere.
    """

    points: np.ndarray
    signs: np.ndarray
    where: tuple[tuple[int, int], ...]
    cols: tuple[int, ...]
    D: int
    #: the distinct hyperplanes in the coordinates ``cols`` (for :meth:`shrunk`), if kept
    hyperplanes: np.ndarray | None = None
    #: whether :meth:`shrunk` has nothing left to do
    small: bool = True

    def pattern_array(self) -> np.ndarray:
        """Sign vectors on the input rows as an int8 array (0 for zero rows)."""
        idx = np.array([max(c, 0) for c, _ in self.where], dtype=np.intp)
        ori = np.array([o for _, o in self.where], dtype=np.int8)
        if self.signs.shape[1] == 0:
            return np.zeros((self.signs.shape[0], len(self.where)), dtype=np.int8)
        return self.signs[:, idx] * ori

    def patterns(self) -> list[tuple[int, ...]]:
        """Sign vectors on the input rows (0 for zero rows)."""
        return [tuple(r) for r in self.pattern_array().tolist()]

    def lifted(self) -> np.ndarray:
        """Points in all D coordinates (same dtype as ``points``)."""
        X = np.zeros((self.points.shape[0], self.D), dtype=self.points.dtype)
        if X.dtype == object:
            X[:] = 0
        X[:, list(self.cols)] = self.points
        return X

    def shrunk(self) -> Topes:
        """The same regions with the smaller witnesses of the default ``shrink=True``."""
        if self.small or self.hyperplanes is None:
            return self
        return Topes(shrink(self.points, self.signs, self.hyperplanes), self.signs,
                     self.where, self.cols, self.D, self.hyperplanes, True)

    def witnesses(self) -> list[tuple[Fraction, ...]]:
        """Exact witnesses as tuples of Fraction (length D)."""
        return [tuple(Fraction(int(v)) for v in r) for r in self.lifted().tolist()]


def topes_arrays(
    rows: Sequence[Sequence[Fraction | int]],
    *,
    executor: Executor | None = None,
    progress: bool | None = None,
    expected: int | None = None,
    exact: bool | None = True,
    shrink: bool = True,
) -> Topes:
    """Topes of the central arrangement with the given normals, as arrays (see :func:`topes`).

    With ``exact=False`` the points are proposed in float arithmetic and rounded to
    integers; their sign vectors are still computed exactly (so every returned region is
    real), but regions may be missing: compare ``len(points)`` with an exact count.
    ``exact=None`` picks by :func:`prefer_exact` (speed only; both are exact about what
    they return).  ``shrink=False`` skips the witness shrink (same regions; call
    :meth:`Topes.shrunk` later for the same points as with ``shrink=True``).

    Examples
    --------
    >>> t = topes_arrays([[1, 0], [2, 0], [0, 0]])
    >>> t.patterns(), t.cols
    ([(1, 1, 0), (-1, -1, 0)], (0,))
    """
    red = reduce_rows(rows)
    where, cols, Hc, D = red.where, list(red.cols), red.hyperplanes, red.D
    if not Hc:
        return Topes(np.zeros((1, 0), dtype=np.int64), np.zeros((1, 0), dtype=np.int8),
                     tuple(where), (), D)
    r = len(cols)
    if exact is None:
        exact = prefer_exact(Hc)
    if r <= 2:
        P = ex.regions(Hc, r)  # planar: exact and cheap
        P, S = ex.dedupe(ex.fit(P.astype(object)), ex.fit(np.array(Hc, dtype=object)))
    else:
        jobs = [(Hc, (j,), exact) for j in range(len(Hc))]
        out: list = [None] * len(jobs)
        # biggest chunks (last hyperplanes) first for balance; merged in chunk order
        order = list(range(len(jobs)))[::-1] if executor is not None else list(range(len(jobs)))
        found = [0]

        def post(v: tuple[np.ndarray, np.ndarray]) -> dict:
            found[0] += len(v[0])
            return {"regions": found[0]}  # witnessed so far, before the global de-dup

        for r in run_units(_unit_job, [jobs[i] for i in order], executor=executor,
                           progress=_show(progress, expected), desc="regions", postfix=post):
            out[order[r.index]] = r.value
        Ps = [o[0] for o in out]
        Ss = [o[1] for o in out]
        del out
        if any(p.dtype == object for p in Ps):
            Ps = [p.astype(object) for p in Ps]
        P = np.concatenate(Ps)
        S = np.concatenate(Ss)
        del Ps, Ss
        first = ar.first_rows(S)  # first occurrence, in chunk order: executor-independent
        P, S = P[first], S[first]
    P = ar.fit(P)
    A = ar.fit(np.array(Hc, dtype=object))
    if P.dtype != np.int64:
        return Topes(P, S, tuple(where), tuple(cols), D, A, True)
    t = Topes(P, S, tuple(where), tuple(cols), D, A, False)
    return t.shrunk() if shrink else t


def shrink(P: np.ndarray, S: np.ndarray, A: np.ndarray) -> np.ndarray:
    """Smaller witnesses: round(P / 2^s) with s found per row by a binary search, accepted
    only where the exact signs still equal S; then divide each row by its gcd.

    ``S`` is the sign matrix (int8) or the packed sign words (uint64) of P; computed in
    blocks of :data:`ROW_BLOCK` rows (each row on its own: the same result)."""
    if P.size == 0:
        return P
    if P.shape[0] > ROW_BLOCK:
        return np.concatenate([shrink(P[lo:lo + ROW_BLOCK], S[lo:lo + ROW_BLOCK], A)
                               for lo in range(0, P.shape[0], ROW_BLOCK)])
    big = np.abs(P).max(axis=1)
    lo = np.zeros(P.shape[0], dtype=np.int64)  # s = lo is known to work (lo = 0: P itself)
    hi = np.maximum(np.floor(np.log2(np.maximum(big, 1))).astype(np.int64) - 1, 0)
    while True:
        act = np.flatnonzero(lo < hi)
        if act.size == 0:
            break
        mid = (lo[act] + hi[act] + 1) // 2
        Q = (P[act] + (np.int64(1) << (mid - 1))[:, None]) >> mid[:, None]
        T = ar.sign_matrix(Q, A)
        if S.dtype == np.uint64:
            ok = np.all(T != 0, axis=1) & np.all(ar.pack_signs(T) == S[act], axis=1)
        else:
            ok = np.all(T == S[act], axis=1)
        del T
        lo[act[ok]] = mid[ok]
        hi[act[~ok]] = mid[~ok] - 1
    sh = lo[:, None]
    half = np.where(sh > 0, np.int64(1) << np.maximum(sh - 1, 0), 0)
    P = (P + half) >> sh
    g = np.gcd.reduce(P, axis=1).reshape(-1, 1)
    return P // np.maximum(g, 1)


def topes(
    rows: Sequence[Sequence[Fraction | int]],
    *,
    executor: Executor | None = None,
    progress: bool | None = None,
    expected: int | None = None,
) -> tuple[list[tuple[int, ...]], list[tuple[Fraction, ...]]]:
    """Topes (full-dimensional regions) of the central arrangement with the given normals.

    Parameters
    ----------
    rows : k x D rational matrix
        Normals; zero rows have sign 0 in every pattern, parallel rows are one hyperplane.
    executor : Executor, optional
        Runs the independent chunks; ``None`` runs them serially.
    progress : bool, optional
        Progress bar (``None``: only on a TTY for big runs).
    expected : int, optional
        The exact count, if known (sizes the progress bar).

    Returns
    -------
    (patterns, witnesses)
        Sign vectors (tuples in {-1, 0, 1}, length k) in the order found, and one exact
        witness each (tuple of Fraction, length D) with sign(rows . x) = pattern.

    Examples
    --------
    >>> topes([[1], [2], [0]])
    ([(1, 1, 0), (-1, -1, 0)], [(Fraction(1, 1),), (Fraction(-1, 1),)])
    """
    t = topes_arrays(rows, executor=executor, progress=progress, expected=expected)
    return t.patterns(), t.witnesses()


def prefix_search(
    rows: Sequence[Sequence[Fraction | int]],
    classes: Sequence[Sequence[int]],
    t: int,
    *,
    extra: Sequence[Sequence[Fraction | int]] = (),
    progress: bool | None = None,
) -> tuple[list[tuple[int, ...]], list[tuple[Fraction, ...]]]:
    """Feasible top-t prefixes of class orders, each decided by an exact LP.

    ``rows[i]`` is the (homogenised) logit vector of label i: the logit at a point z is
    ``rows[i] . z``.  ``classes`` are the tie classes (every label in exactly one; a class
    stands for its members listed in increasing order).  A sequence of classes
    c_1, ..., c_l is feasible iff some z has logit(c_1) > ... > logit(c_l) > logit(c) for
    every other class c (``extra`` rows r must also satisfy r . z > 0).  Prefixes are
    extended class by class (a prefix of a feasible sequence is feasible), until the listed
    labels number at least ``t``; the label prefixes (first t labels) are returned with one
    exact witness z each.

    Returns
    -------
    (prefixes, witnesses)
        Distinct label prefixes (tuples of length t), in the order found.

    Examples
    --------
    >>> sorted(prefix_search([[1, 0], [0, 1], [0, 1]], [(0,), (1, 2)], 2)[0])
    [(0, 1), (1, 2)]
    """
    reps = [c[0] for c in classes]
    R = [[Fraction(v) for v in r] for r in rows]
    E = [[Fraction(v) for v in r] for r in extra]

    def diff(a: int, b: int) -> list[Fraction]:
        return [x - y for x, y in zip(R[a], R[b], strict=True)]

    out: dict[tuple[int, ...], tuple[Fraction, ...]] = {}
    frontier: list[tuple[int, ...]] = [()]
    size = len(classes) ** min(t, 4)
    bar = tqdm(desc="prefixes", unit="LP", disable=not _show(progress, size // 10), leave=False)
    while frontier:
        nxt = []
        for pre in frontier:
            rest = [c for c in range(len(classes)) if c not in pre]
            for c in rest:
                seq = (*pre, c)
                others = [o for o in rest if o != c]
                sys_rows = [diff(reps[a], reps[b]) for a, b in zip(seq, seq[1:], strict=False)]
                sys_rows += [diff(reps[c], reps[o]) for o in others]
                sys_rows += E
                bar.update(1)
                if sys_rows:
                    ok, z = decide(sys_rows)
                else:
                    ok, z = True, tuple(Fraction(0) for _ in R[0])
                if not ok:
                    continue
                labels = [lab for cc in seq for lab in classes[cc]]
                if len(labels) >= t or not others:
                    key = tuple(labels[:t])
                    if key not in out:
                        out[key] = z
                else:
                    nxt.append(seq)
        frontier = nxt
    bar.close()
    return list(out), list(out.values())
