"""Drivers of the exact searches: topes of an arrangement in chunks, and prefix search.

:func:`topes` splits the deletion-restriction enumeration of
:mod:`engine.geometry._arrangement` into independent chunks (one per inserted hyperplane)
and runs them serially or on any :class:`concurrent.futures.Executor`; the merge is in
chunk order, so the result is the same whatever the executor.  :func:`prefix_search`
extends feasible label prefixes one class at a time, deciding each candidate by an exact
LP (:func:`engine.exact.lp.decide`).

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

import math
import os
import sys
from collections.abc import Sequence
from concurrent.futures import Executor, as_completed
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from tqdm import tqdm

from engine.exact.lp import decide
from engine.geometry import _arrangement as ar
from engine.run.executor import in_worker, process_pool

__all__ = ["Topes", "topes", "topes_arrays", "prefix_search", "default_executor",
           "prefer_exact", "PARALLEL_THRESHOLD"]

#: Expected region counts above which the default executor is a process pool.
PARALLEL_THRESHOLD = 100_000


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - non-Linux
        return os.cpu_count() or 1


def default_executor(expected: int | None) -> Executor | None:
    """A process pool over the available cores when the work is big, else ``None`` (serial)."""
    n = _cpus()
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


def _integer_row(r: Sequence[Fraction]) -> tuple[int, ...]:
    den = 1
    for v in r:
        den = math.lcm(den, Fraction(v).denominator)
    ints = [int(Fraction(v) * den) for v in r]
    g = 0
    for v in ints:
        g = math.gcd(g, v)
    return tuple(v // g for v in ints) if g else tuple(ints)


def _column_basis(rows: Sequence[Sequence[int]], D: int) -> list[int]:
    """Indices of a column basis (exact elimination over Q, greedy left to right)."""
    basis_rows: list[tuple[int, list[Fraction]]] = []  # (pivot column, row)
    cols = []
    # rank via row echelon on the transpose: column c is new iff independent of earlier ones.
    vecs: list[tuple[int, list[Fraction]]] = []
    for c in range(D):
        v = [Fraction(r[c]) for r in rows]
        for p, b in vecs:
            if v[p] != 0:
                f = v[p] / b[p]
                v = [a - f * bb for a, bb in zip(v, b, strict=True)]
        piv = next((i for i, a in enumerate(v) if a != 0), None)
        if piv is not None:
            vecs.append((piv, v))
            cols.append(c)
    del basis_rows
    return cols


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


def _chunk_job(args: tuple) -> tuple[np.ndarray, np.ndarray]:
    rows, j, exact = args
    P = ar.chunk(rows, j, exact)
    if not exact:  # float proposals -> exact integer points (rounded on a 2^52 grid)
        P = np.rint(P * 2.0**52).astype(np.int64)
    A = ar.fit(np.array(rows, dtype=object))
    return ar.dedupe(P, A)


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
        return Topes(_shrink(self.points, self.signs, self.hyperplanes), self.signs,
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
    D = len(rows[0])
    ints = [_integer_row(r) for r in rows]
    classes: dict[tuple[int, ...], int] = {}
    where: list[tuple[int, int]] = []  # (class index or -1, orientation)
    for r in ints:
        key, s = ar.canonical(r)
        if s == 0:
            where.append((-1, 0))
            continue
        if key not in classes:
            classes[key] = len(classes)
        where.append((classes[key], s))
    H = list(classes)
    if not H:
        return Topes(np.zeros((1, 0), dtype=np.int64), np.zeros((1, 0), dtype=np.int8),
                     tuple(where), (), D)
    cols = _column_basis(H, D)
    Hc = tuple(_integer_row([h[c] for c in cols]) for h in H)
    r = len(cols)
    if exact is None:
        exact = prefer_exact(Hc)
    if r <= 2:
        P = ar.regions(Hc, r, True)  # planar: exact and cheap
        P, S = ar.dedupe(ar.fit(P.astype(object)), ar.fit(np.array(Hc, dtype=object)))
    else:
        jobs = [(Hc, j, exact) for j in range(len(Hc))]
        bar = tqdm(total=len(jobs), desc="regions", unit="chunk",
                   disable=not _show(progress, expected), leave=False)
        out: list = [None] * len(jobs)
        if executor is None:
            for j, job in enumerate(jobs):
                out[j] = _chunk_job(job)
                bar.update(1)
        else:  # biggest chunks (last hyperplanes) first for balance; merged in chunk order
            futs = {executor.submit(_chunk_job, job): j for j, job in reversed(list(
                enumerate(jobs)))}
            for f in as_completed(futs):
                out[futs[f]] = f.result()
                bar.update(1)
        bar.close()
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


def _shrink(P: np.ndarray, S: np.ndarray, A: np.ndarray) -> np.ndarray:
    """Smaller witnesses: round(P / 2^s) with s found per row by a binary search, accepted
    only where the exact signs still equal S; then divide each row by its gcd."""
    if P.size == 0:
        return P
    big = np.abs(P).max(axis=1)
    lo = np.zeros(P.shape[0], dtype=np.int64)  # s = lo is known to work (lo = 0: P itself)
    hi = np.maximum(np.floor(np.log2(np.maximum(big, 1))).astype(np.int64) - 1, 0)
    while True:
        act = np.flatnonzero(lo < hi)
        if act.size == 0:
            break
        mid = (lo[act] + hi[act] + 1) // 2
        Q = (P[act] + (np.int64(1) << (mid - 1))[:, None]) >> mid[:, None]
        ok = np.all(ar.sign_matrix(Q, A) == S[act], axis=1)
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
