"""Regions of a central arrangement in exact integer arithmetic (complete by construction).

The twin of :mod:`logitgeom.geometry.arrangement.float`: the same functions with the same
names, here on exact integer points (int64 when :mod:`._overflow` proves it safe, Python
ints otherwise).  Every point returned lies in the open region it stands for, and
:func:`regions` returns exactly one point per region.  The algorithm (deletion-
restriction, no LP) is described in :mod:`logitgeom.geometry.arrangement` and in
docs/enumeration-at-scale.md.

Examples
--------
>>> P = regions(((1, 0), (0, 1), (1, 1)), 2)
>>> len(P), dedupe(fit(P), fit(np.array([[1, 0], [0, 1], [1, 1]], dtype=object)))[1].shape
(6, (6, 3))
"""

from __future__ import annotations

from functools import cmp_to_key

import numpy as np

from logitgeom.geometry.arrangement._common import (
    Constraints,
    Rows,
    basis,
    canonical,
    dedupe_with,
    first_rows,
    ray_cmp,
    restrict,
    sectors3,
    sectors3_slow,
    sub_constraints,
)
from logitgeom.geometry.arrangement._overflow import (
    LIMIT,
    fit,
    matmul,
    maxabs,
    sign_matrix,
)

__all__ = ["regions", "chunk", "lift", "normals", "regions3", "planar", "dedupe", "keep",
           "sign_matrix", "matmul", "fit", "first_rows", "canonical", "basis", "restrict"]

def _obj(X: np.ndarray) -> np.ndarray:
    return X.astype(object) if X.dtype != object else X


def _zeros(n: int, D: int) -> np.ndarray:
    Y = np.zeros((n, D), dtype=object)
    Y[:] = 0
    return Y


def _array(rows: Rows, D: int | None = None) -> np.ndarray:
    D = len(rows[0]) if D is None else D
    A = _zeros(len(rows), D)
    if rows:
        A[:] = np.array(rows, dtype=object)
    return A


def normals(rows: Rows) -> np.ndarray:
    """The hyperplanes as an exact integer array (int64 when it fits)."""
    return fit(_array(rows)) if rows else np.zeros((0, 0), dtype=np.int64)


def keep(P: np.ndarray, rows: Rows, constraints: Constraints) -> np.ndarray:
    """The points of P with the required signs (exact); P itself without constraints."""
    if not constraints or P.shape[0] == 0:
        return P
    C = fit(np.array([rows[i] for i, _ in constraints], dtype=object))
    want = np.array([s for _, s in constraints], dtype=np.int8)
    return P[np.all(sign_matrix(fit(P), C) == want, axis=1)]


def planar(rows: Rows) -> np.ndarray:
    """The 2m sectors of m distinct lines through the origin of R^2 (exact angle sort)."""
    if len(rows) == 1:
        r = rows[0]
        return np.array([r, tuple(-a for a in r)], dtype=object)
    rays = []
    for r in rows:
        rays.append((-r[1], r[0]))
        rays.append((r[1], -r[0]))
    rays.sort(key=cmp_to_key(ray_cmp))
    m = len(rays)
    return np.array([(rays[i][0] + rays[(i + 1) % m][0], rays[i][1] + rays[(i + 1) % m][1])
                     for i in range(m)], dtype=object)


def dedupe(P: np.ndarray, A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Keep points off every hyperplane, one per sign vector (first occurrence)."""
    return dedupe_with(sign_matrix, P, A)


def lift(rows: Rows, j: int, Z: np.ndarray, side: int = 0) -> np.ndarray:
    """Points M y +- h_j of R^D for points Z of the restriction A_{j-1}^{H_j} (its coords).

    ``y`` is Z mapped by ``basis(h_j)``; M = max_i floor(|r_i . h_j| / |r_i . y|) + 1
    over i < j makes M y + t h_j (|t| <= 1) keep every sign of A_{j-1} at y, so the two
    points lie on the two sides of H_j inside the region of A_{j-1} that y's region
    cuts.  ``side`` = +1 or -1 keeps one of them.  Rows are divided by their gcd.
    """
    D = len(rows[0])
    h = rows[j]
    if j == 0:
        Y = fit(_zeros(1, D))
    else:
        Y = fit(matmul(fit(Z), fit(np.array(basis(h), dtype=object).T)))
    hv = fit(np.array([h], dtype=object))
    if j == 0:
        M = np.ones((Y.shape[0], 1), dtype=np.int64)
    else:
        A = fit(_array(rows[:j], D))
        vals = np.abs(matmul(Y, A))
        hn = np.abs(matmul(hv, A))
        M = (hn // vals).max(axis=1).reshape(-1, 1) + 1
    if maxabs(M) * maxabs(Y) + maxabs(hv) >= LIMIT or Y.dtype == object:
        M, Y, hv = M.astype(object), Y.astype(object), hv.astype(object)
    parts = [M * Y + hv, M * Y - hv] if side == 0 else [M * Y + side * hv]
    X = np.concatenate(parts)
    g = np.gcd.reduce(X, axis=1).reshape(-1, 1)
    return fit(X // g)


def chunk(rows: Rows, j: int, constraints: Constraints = ()) -> np.ndarray:
    """The points y +- eps h_j for every region y of A_{j-1}^{H_j} (ambient coordinates).

    With ``constraints`` only restriction regions compatible with them are used, and a
    constraint on row j itself keeps one side; the points may still violate constraints
    on later rows (:func:`regions` filters them).
    """
    D = len(rows[0])
    side = dict(constraints).get(j, 0)
    if j == 0:
        return lift(rows, 0, _zeros(1, 0), side)
    sub, sc = sub_constraints(rows, j, constraints)
    if sc is None:
        return fit(_zeros(0, D))
    return lift(rows, j, regions(sub, D - 1, sc), side)


#: regions already enumerated, by (rows, D, constraints): the recursion of a unit meets
#: the same restrictions many times (the rankings of 8 labels call :func:`regions` 14
#: times per distinct argument).  The values of a pure function, returned as copies, so
#: the cache changes no point; int64 results of at most :data:`REGIONS_CACHE_ROWS`
#: points, at most :data:`REGIONS_CACHE` entries in all (32 MB), the whole cache
#: dropped when full (results in Python integers are not kept: their size is unbounded).
_REGIONS: dict = {}
REGIONS_CACHE = 1 << 22
REGIONS_CACHE_ROWS = 1 << 12
_CACHED = [0]  # entries held


def regions(rows: Rows, D: int, constraints: Constraints = ()) -> np.ndarray:
    """One exact point per region (shape (r, D)); only regions meeting ``constraints``.

    Repeated arguments are answered from a bounded cache (copies of the same points).

    Examples
    --------
    >>> regions(((1, 0), (0, 1)), 2).tolist()
    [[1, 1], [-1, 1], [-1, -1], [1, -1]]
    >>> regions(((1, 0), (0, 1)), 2, ((0, 1),)).tolist()
    [[1, 1], [1, -1]]
    """
    try:
        key = (rows, D, constraints)
        hit = _REGIONS.get(key)
    except TypeError:  # lists: not hashable, computed every time
        return _regions(rows, D, constraints)
    if hit is not None:
        return hit.copy()
    P = _regions(rows, D, constraints)
    if P.shape[0] <= REGIONS_CACHE_ROWS and P.dtype == np.int64:
        if _CACHED[0] + P.size > REGIONS_CACHE:
            _REGIONS.clear()
            _CACHED[0] = 0
        _REGIONS[key] = P.copy()
        _CACHED[0] += P.size
    return P


def _regions(rows: Rows, D: int, constraints: Constraints) -> np.ndarray:
    if len(rows) == 0:
        P = _zeros(1, D)
        if D:
            P[0, 0] = 1
        return P
    if D == 1:
        P = np.array([[1], [-1]], dtype=object)
    elif D == 2:
        P = planar(rows)
    elif D == 3:
        P = regions3(rows)
    else:
        parts = [chunk(rows, j, constraints) for j in range(len(rows))]
        if any(p.dtype == object for p in parts):
            parts = [p.astype(object) for p in parts]
        P = dedupe(np.concatenate(parts), fit(_array(rows)))[0]
    return keep(P, rows, constraints)


def regions3(rows: Rows) -> np.ndarray:
    """Exact regions of distinct planes through the origin of R^3, vectorised over chunks.

    The same union formula as :func:`chunk`, with the restriction to H_j computed in one
    go: its lines are the rays +-(n_i x n_j), i < j; its sectors lie between angularly
    consecutive rays (sorted by a float angle, then the order is *verified* exactly pair
    by pair and re-sorted exactly where the check fails), and u + w is a point of the
    sector between rays u and w.
    """
    n = len(rows)
    A = fit(np.array(rows, dtype=object).reshape(n, 3))
    pts: list = [rows[0], tuple(-a for a in rows[0])]  # chunk 0: +-h_0
    if n > 1:
        fast = sectors3(A)
        if fast is not None:
            R, RJ, nxt, single, W = fast
            Y = _obj(R + R[nxt])
            if W is not None:
                Y[single] = W
            return _points3(A, pts, RJ.tolist(), fit(Y))
    pairs, js = sectors3_slow(rows, A)
    Ys = [w if u is w else tuple(a + b for a, b in zip(u, w, strict=True)) for u, w in pairs]
    return _points3(A, pts, js, fit(np.array(Ys, dtype=object).reshape(-1, 3)))


def _points3(A: np.ndarray, pts: list, js: list[int], Y: np.ndarray) -> np.ndarray:
    """Exact points M y +- h_j (M = max_i floor(|n_i . h_j| / |n_i . y|) + 1, i < j)."""
    n = A.shape[0]
    if Y.shape[0]:
        jv = np.array(js, dtype=np.intp)
        V = np.abs(matmul(Y, A))  # |y . n_i| for all i (int64 when bounded)
        HN = np.abs(matmul(A, A))  # |n_i . n_j|
        mask = np.arange(n)[None, :] < jv[:, None]
        Vs = np.where(mask, V, 1)
        R = np.where(mask, HN[jv] // Vs, 0)
        M = (R.max(axis=1) + 1).reshape(-1, 1)
        P0 = fit(np.array(pts, dtype=object).reshape(-1, 3))
        if (M.dtype == Y.dtype == A.dtype == P0.dtype == np.int64
                and maxabs(M) * maxabs(Y) + maxabs(A) < LIMIT):  # int64: no overflow
            X = np.concatenate([P0, M * Y + A[jv], M * Y - A[jv]])
        else:
            M, Hj, Yo = _obj(M), _obj(A)[jv], _obj(Y)
            X = np.concatenate([_obj(P0), M * Yo + Hj, M * Yo - Hj])
    else:
        X = np.array(pts, dtype=object).reshape(-1, 3)
    g = np.gcd.reduce(X, axis=1).reshape(-1, 1)
    X = fit(X // g)
    return dedupe(X, A)[0]


