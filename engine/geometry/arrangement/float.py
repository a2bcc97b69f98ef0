"""Candidate region points in float64 (proposals only): the float twin of :mod:`.exact`.

The same functions with the same names as :mod:`logitgeom.geometry.arrangement.exact`; the
hyperplane bookkeeping (restrictions, constraints) is exact, the points are unit float64
vectors.  Nothing returned here is a fact: callers round the points to integers, compute
their regions exactly (a rational point determines its own region) and certify
completeness by the exact Zaslavsky count, falling back to :mod:`.exact` if a region
is missing.

Examples
--------
>>> P = regions(((1, 0), (0, 1), (1, 1)), 2)
>>> P.shape, dedupe(P, np.array([[1., 0], [0, 1], [1, 1]]))[1].shape
((6, 2), (6, 3))
"""

from __future__ import annotations

import numpy as np

from logitgeom.geometry.arrangement._common import (
    Constraints,
    Rows,
    basis,
    canonical,
    dedupe_with,
    first_rows,
    floats,
    restrict,
    sectors3,
    sectors3_slow,
    sub_constraints,
)
from logitgeom.geometry.arrangement._overflow import fit

__all__ = ["regions", "chunk", "lift", "normals", "regions3", "planar", "dedupe", "keep",
           "sign_matrix", "floats", "first_rows", "canonical", "basis", "restrict",
           "SIDE_FRACTION"]

#: eps = SIDE_FRACTION * (distance to the nearest earlier hyperplane, along h_j)
SIDE_FRACTION = 0.5


def _unit(P: np.ndarray) -> np.ndarray:
    nrm = np.sqrt(np.einsum("ij,ij->i", P, P)).reshape(-1, 1)
    nrm[nrm == 0] = 1.0
    return P / nrm


def _array(rows: Rows, D: int | None = None) -> np.ndarray:
    D = len(rows[0]) if D is None else D
    if not rows:
        return np.zeros((0, D), dtype=float)
    return _unit(floats(rows).reshape(len(rows), D))


def normals(rows: Rows) -> np.ndarray:
    """The hyperplanes as unit float64 normals."""
    return _array(rows) if rows else np.zeros((0, 0))


def sign_matrix(P: np.ndarray, A: np.ndarray) -> np.ndarray:
    """Float signs of P A^T as int8 (a proposal: never a decision)."""
    V = P @ A.T
    return (V > 0).astype(np.int8) - (V < 0).astype(np.int8)


def keep(P: np.ndarray, rows: Rows, constraints: Constraints) -> np.ndarray:
    """The points of P whose float signs meet the constraints (proposal)."""
    if not constraints or P.shape[0] == 0:
        return P
    C = _array(tuple(rows[i] for i, _ in constraints))
    want = np.array([s for _, s in constraints], dtype=np.int8)
    return P[np.all(sign_matrix(P, C) == want, axis=1)]


def planar(rows: Rows) -> np.ndarray:
    """Unit bisectors of the 2m sectors of m distinct lines of R^2 (float angle sort)."""
    if len(rows) == 1:
        r = rows[0]
        return _unit(floats([r, tuple(-a for a in r)]))
    rays = []
    for r in rows:
        rays.append((-r[1], r[0]))
        rays.append((r[1], -r[0]))
    R = _unit(floats(rays))
    R = R[np.argsort(np.arctan2(R[:, 1], R[:, 0]), kind="stable")]
    return _unit(R + np.roll(R, -1, axis=0))


def dedupe(P: np.ndarray, A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Keep points off every hyperplane (float signs), one per sign vector."""
    return dedupe_with(sign_matrix, P, A)


def lift(rows: Rows, j: int, Z: np.ndarray, side: int = 0) -> np.ndarray:
    """Unit points y +- eps h_j for points Z of the restriction A_{j-1}^{H_j}."""
    D = len(rows[0])
    h = rows[j]
    hv = floats([h])[0]
    hv /= np.linalg.norm(hv)
    if j == 0:
        Y = np.zeros((1, D))
        eps = np.ones((1, 1))
    else:
        Y = _unit(Z @ floats(basis(h), per_row=False))  # one common scale: direction kept
        A = _array(rows[:j], D)
        vals = np.abs(Y @ A.T)
        hn = np.abs(A @ hv)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(hn[None, :] > 0, vals / hn[None, :], np.inf).min(axis=1)
        eps = np.where(np.isfinite(t), SIDE_FRACTION * t, 1.0).reshape(-1, 1)
    parts = [Y + eps * hv, Y - eps * hv] if side == 0 else [Y + side * eps * hv]
    return _unit(np.concatenate(parts))


def chunk(rows: Rows, j: int, constraints: Constraints = ()) -> np.ndarray:
    """Float twin of :func:`logitgeom.geometry.arrangement.exact.chunk`."""
    D = len(rows[0])
    side = dict(constraints).get(j, 0)
    if j == 0:
        return lift(rows, 0, np.zeros((1, 0)), side)
    sub, sc = sub_constraints(rows, j, constraints)
    if sc is None:
        return np.zeros((0, D))
    return lift(rows, j, regions(sub, D - 1, sc), side)


def regions(rows: Rows, D: int, constraints: Constraints = ()) -> np.ndarray:
    """Candidate points, one per region found (shape (m, D)); proposals only.

    Examples
    --------
    >>> regions(((1, 0),), 2).round(3).tolist()
    [[1.0, 0.0], [-1.0, 0.0]]
    """
    if len(rows) == 0:
        P = np.zeros((1, D))
        if D:
            P[0, 0] = 1
        return P
    if D == 1:
        P = np.array([[1.0], [-1.0]])
    elif D == 2:
        P = planar(rows)
    elif D == 3:
        P = regions3(rows)
    else:
        P = np.concatenate([chunk(rows, j, constraints) for j in range(len(rows))])
        P = dedupe(P, _array(rows))[0]
    return keep(P, rows, constraints)


def regions3(rows: Rows) -> np.ndarray:
    """Float points for the exact sector directions of the R^3 base case."""
    n = len(rows)
    A = fit(np.array(rows, dtype=object).reshape(n, 3))
    pts: list = [rows[0], tuple(-a for a in rows[0])]
    if n > 1:
        fast = sectors3(A)
        if fast is not None:
            R, RJ, nxt, single, W = fast
            U = _unit(floats(R))  # each ray scaled by its own power of two
            Y = U + U[nxt]  # unit rays: the sum bisects the sector
            if W is not None:
                Y[single] = _unit(floats(W))
            return _points3(rows, pts, RJ.tolist(), Y)
    pairs, js = sectors3_slow(rows, A)
    Y = np.zeros((len(pairs), 3))
    for t, (u, w) in enumerate(pairs):
        fu, fw = _unit(floats([u, w]))
        Y[t] = fu if u is w else fu + fw
    return _points3(rows, pts, js, Y)


def _points3(rows: Rows, pts: list, js: list[int], Y: np.ndarray) -> np.ndarray:
    A = _array(rows)
    X0 = _unit(floats(pts).reshape(-1, 3))
    if len(Y) == 0:
        return X0
    Y = _unit(Y)
    jv = np.array(js, dtype=np.intp)
    n = len(rows)
    mask = np.arange(n)[None, :] < jv[:, None]
    V = np.abs(Y @ A.T)
    HN = np.abs(A @ A.T)[jv]
    with np.errstate(divide="ignore", invalid="ignore"):
        T = np.where(mask & (HN > 0), V / HN, np.inf).min(axis=1)
    eps = np.where(np.isfinite(T), SIDE_FRACTION * T, 1.0).reshape(-1, 1)
    Hj = A[jv]
    P = _unit(np.concatenate([X0, Y + eps * Hj, Y - eps * Hj]))
    return dedupe(P, A)[0]


