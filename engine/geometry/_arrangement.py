"""Regions of a central hyperplane arrangement by deletion-restriction, without any LP.

The arrangement is given by *distinct* hyperplanes: primitive integer normals, no two
parallel, spanning R^D (callers reduce to a column basis first).  With A_j the first j
hyperplanes, Zaslavsky's deletion-restriction r(A_j) = r(A_{j-1}) + r(A_{j-1}^{H_j}) gives
a union formula for the regions:

    every region of A is, for some j, a side of a region of A_{j-1} cut by H_j, and each
    such cut region contains y +- eps h_j, where y lies in a region of the restriction
    A_{j-1}^{H_j} (computed recursively in H_j, of dimension D - 1) and eps is so small that
    no sign of A_{j-1} at y changes.

A region created at the last step that cut it is never cut again, so its point lies off
every hyperplane of A; collecting the 2 (r(A) - 1) points of all steps, dropping points
on a hyperplane and de-duplicating by sign vector gives every region exactly once.
The chunks j = 0..n-1 are independent (this is what an Executor parallelises).

Two arithmetics share the algorithm:

* exact: points are Python-int vectors (numpy object arrays); eps is 1/M with the integer
  M = max_i floor(|r_i . h| / |r_i . y|) + 1, so x = M y +- h.  Complete by construction.
* float: points are float64 and only *propose*; callers verify them exactly (a rational
  point determines its own region) and certify completeness by the Zaslavsky count.

The hyperplane bookkeeping (restrictions, de-duplication) is exact in both.
Base cases: no hyperplanes (one region), D = 1 (two rays), D = 2 (sectors by exact angle
sort), D = 3 (:func:`regions3`: all restrictions at once, rays from cross products).

Integer arithmetic is int64 wherever a bound proves no overflow (signs of too-large
products are read off an exact two-limb split), Python ints otherwise.
"""

from __future__ import annotations

import math
from functools import cmp_to_key

import numpy as np

__all__: list[str] = []

Rows = tuple[tuple[int, ...], ...]


def canonical(v) -> tuple[tuple[int, ...], int]:
    """Primitive integer normal with first nonzero entry positive, and the sign used."""
    g = 0
    for a in v:
        g = math.gcd(g, int(a))
    if g == 0:
        return tuple(0 for _ in v), 0
    first = next(int(a) for a in v if a != 0)
    s = 1 if first > 0 else -1
    return tuple(s * int(a) // g for a in v), s


def basis(h: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """An integer basis of h^perp as the D - 1 columns h_p e_q - h_q e_p (q != p)."""
    D = len(h)
    p = min((i for i in range(D) if h[i] != 0), key=lambda i: (abs(h[i]), i))
    cols = []
    for q in range(D):
        if q == p:
            continue
        c = [0] * D
        c[q] = h[p]
        c[p] = -h[q]
        cols.append(tuple(c))
    return tuple(cols)


def restrict(rows: Rows, h: tuple[int, ...]) -> Rows:
    """Distinct hyperplanes of the restriction to h^perp, in the coordinates of ``basis(h)``.

    With the basis columns h_p e_q - h_q e_p, a row r restricts to (h_p r_q - h_q r_p)_q.
    Keeps the order of first occurrence; rows parallel to h (zero after restriction) are
    dropped.
    """
    D = len(h)
    p = min((i for i in range(D) if h[i] != 0), key=lambda i: (abs(h[i]), i))
    hp = h[p]
    others = [q for q in range(D) if q != p]
    seen: dict[tuple[int, ...], None] = {}
    for r in rows:
        rp = r[p]
        key, s = canonical([hp * r[q] - h[q] * rp for q in others])
        if s != 0 and key not in seen:
            seen[key] = None
    return tuple(seen)


def _ray_cmp(u, w) -> int:
    hu = 0 if (u[1] > 0 or (u[1] == 0 and u[0] > 0)) else 1
    hw = 0 if (w[1] > 0 or (w[1] == 0 and w[0] > 0)) else 1
    if hu != hw:
        return hu - hw
    cross = u[0] * w[1] - u[1] * w[0]
    return -1 if cross > 0 else (1 if cross < 0 else 0)


_FBITS = 60  # scaled integers keep at most this many bits before becoming floats
_FAST = 2.0**400  # below this, floats of the raw integers: products cannot overflow


def floats(X, *, per_row: bool = True) -> np.ndarray:
    """A float64 copy of an exact integer matrix that never overflows (proposals only).

    ``float(huge_int)`` raises ``OverflowError`` above 2^1024, and even representable
    entries near 1e300 overflow once squared.  Each row (``per_row``; for direction-only
    uses, where rows are normalised afterwards) or the whole matrix is first scaled by
    one power of two 2^-s so that its largest entry has at most 60 bits; every entry is
    then the correctly rounded float of the scaled exact value (Python's int true
    division).  int64 and float arrays, and integer arrays whose entries are all below
    2^400 (no later overflow possible), are converted directly.
    """
    A = X if isinstance(X, np.ndarray) else np.array(X, dtype=object)
    if A.dtype != object:
        return A.astype(float)
    A = A.reshape(A.shape[0], -1) if A.ndim != 2 else A
    try:  # fast path (C conversion, correctly rounded) when nothing can overflow later
        F = A.astype(float)
        if not F.size or np.abs(F).max() < _FAST:
            return F
    except OverflowError:
        pass
    out = np.zeros(A.shape, dtype=float)
    if A.size == 0:
        return out
    rows = A.tolist()
    if per_row:
        shifts = [max(0, max(abs(int(v)).bit_length() for v in r) - _FBITS) for r in rows]
    else:
        s = max(0, max(abs(int(v)).bit_length() for r in rows for v in r) - _FBITS)
        shifts = [s] * len(rows)
    for i, (r, s) in enumerate(zip(rows, shifts, strict=True)):
        if s:
            q = 1 << s
            out[i] = [int(v) / q for v in r]
        else:
            out[i] = [float(int(v)) for v in r]
    return out


def _planar(rows: Rows, exact: bool) -> np.ndarray:
    """The 2m sectors of m distinct lines through the origin of R^2."""
    if len(rows) == 1:
        r = rows[0]
        P = [r, tuple(-a for a in r)]
        return np.array(P, dtype=object) if exact else _unit(floats(P))
    rays = []
    for r in rows:
        rays.append((-r[1], r[0]))
        rays.append((r[1], -r[0]))
    if exact:
        rays.sort(key=cmp_to_key(_ray_cmp))
        m = len(rays)
        P = [(rays[i][0] + rays[(i + 1) % m][0], rays[i][1] + rays[(i + 1) % m][1])
             for i in range(m)]
        return np.array(P, dtype=object)
    R = _unit(floats(rays))
    R = R[np.argsort(np.arctan2(R[:, 1], R[:, 0]), kind="stable")]
    return _unit(R + np.roll(R, -1, axis=0))


def _unit(P: np.ndarray) -> np.ndarray:
    nrm = np.sqrt(np.einsum("ij,ij->i", P, P)).reshape(-1, 1)
    nrm[nrm == 0] = 1.0
    return P / nrm


def _array(rows: Rows, exact: bool, D: int | None = None) -> np.ndarray:
    D = len(rows[0]) if D is None else D
    if exact:
        A = np.zeros((len(rows), D), dtype=object)
        A[:] = 0
        if rows:
            A[:] = np.array(rows, dtype=object)
        return A
    if not rows:
        return np.zeros((0, D), dtype=float)
    return _unit(floats(rows).reshape(len(rows), D))


_LIMIT = 1 << 62


_EXACT_FLOAT = 1 << 53  # integers below this are exact in float64, and so are their sums


def _maxabs(X: np.ndarray) -> int:
    if not X.size:
        return 0
    if X.dtype == np.int64:  # no object copy, no overflow of abs(-2^63)
        return max(int(X.max()), -int(X.min()))
    return int(np.abs(X).max())


def _l1(A: np.ndarray) -> int:
    """The largest l1 norm of a row of the integer array A (exact)."""
    if not A.size:
        return 0
    if A.dtype == np.int64 and _maxabs(A) * A.shape[1] < _LIMIT:
        return int(np.abs(A).sum(axis=1).max())
    return int(np.abs(A.astype(object)).sum(axis=1).max())


def _dot(P: np.ndarray, A: np.ndarray, bound: int) -> np.ndarray:
    """P @ A.T for int64 arrays with every |partial sum| <= bound < 2^62 (caller's proof).

    Below 2^53 every product and partial sum is an integer that float64 represents
    exactly, so the (much faster) float BLAS product is exact; otherwise int64.
    """
    if bound < _EXACT_FLOAT and P.shape[0] * A.shape[0] > 20_000:  # small: int64 is faster
        return P.astype(float) @ A.astype(float).T
    return P @ A.T


def fit(X: np.ndarray) -> np.ndarray:
    """An exact integer array as int64 when every entry is below 2^62, else object."""
    if X.dtype == object and _maxabs(X) < _LIMIT:
        return X.astype(np.int64)
    return X


def matmul(P: np.ndarray, A: np.ndarray) -> np.ndarray:
    """Exact P @ A.T: int64 when a bound proves no overflow, Python ints otherwise."""
    if P.dtype == np.int64 and A.dtype == np.int64:
        bound = _maxabs(P) * _l1(A)
        if bound < _LIMIT:
            V = _dot(P, A, bound)
            return V.astype(np.int64) if V.dtype != np.int64 else V
    return P.astype(object) @ A.astype(object).T


def sign_matrix(P: np.ndarray, A: np.ndarray) -> np.ndarray:
    """Signs of P A^T as int8 (exact for integer arrays).

    Integer points too large for one int64 product are split as P = 2^31 P_hi + P_lo
    (0 <= P_lo < 2^31); with U = P_hi A^T and L = P_lo A^T (both int64, bounds checked),
    P A^T = 2^31 (U + (L >> 31)) + (L mod 2^31), whose sign is read off exactly.
    """
    if P.dtype == float:
        V = P @ A.T
        return (V > 0).astype(np.int8) - (V < 0).astype(np.int8)
    l1 = _l1(A)
    big = _maxabs(P)
    if A.dtype == np.int64 and l1 < (1 << 30) and (big >> 31) * l1 < _LIMIT:
        if P.dtype == np.int64 and big * l1 < _LIMIT:
            V = _dot(P, A, big * l1)
            return (V > 0).astype(np.int8) - (V < 0).astype(np.int8)
        if P.dtype == np.int64:  # arithmetic shift: floor division, lo in [0, 2^31)
            hi, lo = P >> 31, P & ((1 << 31) - 1)
        else:
            Po = P.astype(object)
            hi = (Po >> 31).astype(np.int64)
            lo = (Po & ((1 << 31) - 1)).astype(np.int64)
        L = _dot(lo, A, (1 << 31) * l1)
        if L.dtype != np.int64:
            L = L.astype(np.int64)
        H = _dot(hi, A, (_maxabs(hi) + 1) * l1)
        T = (H.astype(np.int64) if H.dtype != np.int64 else H) + (L >> 31)
        R = L & ((1 << 31) - 1)
        return (T > 0).astype(np.int8) - (T < 0).astype(np.int8) + (
            (T == 0) & (R > 0)).astype(np.int8)
    V = P.astype(object) @ A.astype(object).T
    return (V > 0).astype(np.int8) - (V < 0).astype(np.int8)


def dedupe(P: np.ndarray, A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Keep points off every hyperplane, one per sign vector (first occurrence)."""
    if P.shape[0] == 0:
        return P, np.zeros((0, A.shape[0]), dtype=np.int8)
    S = sign_matrix(P, A)
    ok = np.flatnonzero(np.all(S != 0, axis=1))
    S = S[ok]
    first = first_rows(S)
    return P[ok[first]], S[first]


def first_rows(S: np.ndarray) -> np.ndarray:
    """Indices (increasing) of the first occurrence of each distinct row of a +-1 array."""
    packed = np.packbits(S > 0, axis=1)
    if packed.shape[1] <= 8:  # one uint64 key per row: a much faster sort than bytes
        wide = np.zeros((packed.shape[0], 8), dtype=np.uint8)
        wide[:, :packed.shape[1]] = packed
        keys = wide.view(np.uint64).ravel()
    else:
        packed = np.ascontiguousarray(packed)
        keys = packed.view(np.dtype((np.void, packed.shape[1]))).ravel()
    _, first = np.unique(keys, return_index=True)
    return np.sort(first)


def chunk(rows: Rows, j: int, exact: bool) -> np.ndarray:
    """The two points y +- eps h_j for every region y of A_{j-1}^{H_j} (ambient coords)."""
    D = len(rows[0])
    h = rows[j]
    dt = object if exact else float
    if j == 0:
        Y = np.zeros((1, D), dtype=dt)
        if exact:
            Y[:] = 0
    else:
        cols = basis(h)
        sub = restrict(rows[:j], h)
        Z = regions(sub, D - 1, exact)
        if exact:
            Y = matmul(fit(Z), fit(np.array(cols, dtype=object).T))
        else:
            Y = Z @ floats(cols, per_row=False)  # one common scale: Y keeps its direction
    A = _array(rows[:j], exact, D)
    if exact:
        Y = fit(Y)
        hv = fit(np.array([h], dtype=object))
        if j == 0:
            M = np.ones((Y.shape[0], 1), dtype=np.int64)
        else:
            A = fit(A)
            vals = np.abs(matmul(Y, A))
            hn = np.abs(matmul(hv, A))
            M = (hn // vals).max(axis=1).reshape(-1, 1) + 1
        if _maxabs(M) * _maxabs(Y) + _maxabs(hv) >= _LIMIT or Y.dtype == object:
            M, Y, hv = M.astype(object), Y.astype(object), hv.astype(object)
        X = np.concatenate([M * Y + hv, M * Y - hv])
        g = np.gcd.reduce(X, axis=1).reshape(-1, 1)
        return fit(X // g)
    hv = floats([h])[0]
    hv /= np.linalg.norm(hv)
    Y = _unit(Y)
    if j == 0:
        eps = np.ones((1, 1))
    else:
        vals = np.abs(Y @ A.T)
        hn = np.abs(A @ hv)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(hn[None, :] > 0, vals / hn[None, :], np.inf).min(axis=1)
        eps = np.where(np.isfinite(t), 0.5 * t, 1.0).reshape(-1, 1)
    return _unit(np.concatenate([Y + eps * hv, Y - eps * hv]))


def regions(rows: Rows, D: int, exact: bool) -> np.ndarray:
    """One point per region (exact), or candidate points (float); shape (m, D)."""
    dt = object if exact else float
    if len(rows) == 0:
        P = np.zeros((1, D), dtype=dt)
        if exact:
            P[:] = 0
        if D:
            P[0, 0] = 1
        return P
    if D == 1:
        return np.array([[1], [-1]], dtype=dt)
    if D == 2:
        return _planar(rows, exact)
    if D == 3:
        return regions3(rows, exact)
    parts = [chunk(rows, j, exact) for j in range(len(rows))]
    if exact and any(p.dtype == object for p in parts):
        parts = [p.astype(object) for p in parts]
    P = np.concatenate(parts)
    A = _array(rows, exact)
    return dedupe(P, fit(A) if exact else A)[0]


def _obj(X: np.ndarray) -> np.ndarray:
    return X.astype(object) if X.dtype != object else X


def _cross(U: np.ndarray, V: np.ndarray) -> np.ndarray:
    """Exact row-wise cross products of integer 3-vectors (int64 when bounded)."""
    if U.dtype == np.int64 and V.dtype == np.int64 and _maxabs(U) * _maxabs(V) < (1 << 61):
        return np.cross(U, V)
    U, V = _obj(U), _obj(V)
    return np.stack([U[:, 1] * V[:, 2] - U[:, 2] * V[:, 1],
                     U[:, 2] * V[:, 0] - U[:, 0] * V[:, 2],
                     U[:, 0] * V[:, 1] - U[:, 1] * V[:, 0]], axis=1)


def regions3(rows: Rows, exact: bool = True) -> np.ndarray:
    """Exact regions of distinct planes through the origin of R^3, vectorised over chunks.

    The same union formula as :func:`chunk`, with the restriction to H_j computed in one
    go: its lines are the rays +-(n_i x n_j), i < j; its sectors lie between angularly
    consecutive rays (sorted by a float angle, then the order is *verified* exactly pair
    by pair and re-sorted exactly where the check fails), and u + w is a point of the
    sector between rays u and w.  The rays and their order are exact in both
    arithmetics; with ``exact=False`` the points y +- eps h_j are float proposals.
    """
    n = len(rows)
    A = fit(np.array(rows, dtype=object).reshape(n, 3))
    pts_j: list[int] = [0, 0]
    pts: list = [rows[0], tuple(-a for a in rows[0])]  # chunk 0: +-h_0
    rays_by_j: list[list[tuple[int, ...]]] = []
    fast = _sectors_fast(A, exact) if n > 1 else None
    if fast is not None:
        Yf, jf = fast
        if not exact:
            return _regions3_float(rows, pts, pts_j + jf.tolist(), Yf)
        return _regions3_exact(A, pts, pts_j + jf.tolist(), Yf)
    if n > 1:
        I, J = np.triu_indices(n, k=1)  # pairs i < j
        C = _cross(A[I], A[J])
        rays_by_j = [[] for _ in range(n - 1)]
        for j, v in zip(J.tolist(), C.tolist(), strict=True):
            rays_by_j[j - 1].append(tuple(int(a) for a in v))
    Ys: list[tuple[int, ...]] = []
    for j in range(1, n):
        h = rows[j]
        seen: dict[tuple[int, ...], None] = {}
        for v in rays_by_j[j - 1]:
            key, sg = canonical(v)
            if sg:
                seen[key] = None
        lines = list(seen)
        if len(lines) == 1:
            v = lines[0]
            w = (h[1] * v[2] - h[2] * v[1], h[2] * v[0] - h[0] * v[2], h[0] * v[1] - h[1] * v[0])
            if not exact:  # scaled floats: huge integers do not fit a float
                w = tuple(floats([w])[0].tolist())
            Ys += [w, tuple(-a for a in w)]
            pts_j += [j, j]
            continue
        p = min((i for i in range(3) if h[i] != 0), key=lambda i: (abs(h[i]), i))
        q1, q2 = [q for q in range(3) if q != p]
        rays = lines + [tuple(-a for a in v) for v in lines]
        sgn = 1 if h[p] > 0 else -1  # keep the 2-D picture's orientation fixed
        flat = [(sgn * v[q1], sgn * v[q2]) for v in rays]
        sh = max(0, max(abs(c).bit_length() for f in flat for c in f) - 60)
        ang = np.arctan2(np.array([float(f[1] >> sh) for f in flat]),
                         np.array([float(f[0] >> sh) for f in flat]))  # only proposes
        ang = np.where(ang < 0, ang + 2 * np.pi, ang)  # [0, 2 pi), as in _ray_cmp
        order = np.argsort(ang, kind="stable").tolist()
        if not all(_ray_cmp(flat[a], flat[b]) < 0 for a, b in zip(order, order[1:],
                                                                    strict=False)):
            order = sorted(range(len(rays)), key=cmp_to_key(
                lambda a, b, f=flat: _ray_cmp(f[a], f[b])))
        m = len(order)
        for t in range(m):
            u, w = rays[order[t]], rays[order[(t + 1) % m]]
            if exact:
                Ys.append((u[0] + w[0], u[1] + w[1], u[2] + w[2]))
            else:  # unit rays: the sum bisects the sector
                fu, fw = floats([u, w])  # each ray scaled by its own power of two
                nu, nw = math.hypot(*fu), math.hypot(*fw)
                Ys.append(tuple(float(a) / nu + float(b) / nw for a, b in zip(fu, fw,
                                                                             strict=True)))
            pts_j.append(j)
    if not exact:
        return _regions3_float(rows, pts, pts_j, Ys)
    return _regions3_exact(A, pts, pts_j, fit(np.array(Ys, dtype=object).reshape(-1, 3)))


def _regions3_exact(A: np.ndarray, pts: list, pts_j: list[int], Y: np.ndarray) -> np.ndarray:
    """Exact points M y +- h_j (M = max_i floor(|n_i . h_j| / |n_i . y|) + 1, i < j)."""
    n = A.shape[0]
    if Y.shape[0]:
        jv = np.array(pts_j[2:], dtype=np.intp)
        V = np.abs(matmul(Y, A))  # |y . n_i| for all i (int64 when bounded)
        HN = np.abs(matmul(A, A))  # |n_i . n_j|
        mask = np.arange(n)[None, :] < jv[:, None]
        Vs = np.where(mask, V, 1)
        R = np.where(mask, HN[jv] // Vs, 0)
        M = (R.max(axis=1) + 1).reshape(-1, 1)
        P0 = fit(np.array(pts, dtype=object).reshape(-1, 3))
        if (M.dtype == Y.dtype == A.dtype == P0.dtype == np.int64
                and _maxabs(M) * _maxabs(Y) + _maxabs(A) < _LIMIT):  # int64: no overflow
            X = np.concatenate([P0, M * Y + A[jv], M * Y - A[jv]])
        else:
            M, Hj, Yo = _obj(M), _obj(A)[jv], _obj(Y)
            X = np.concatenate([_obj(P0), M * Yo + Hj, M * Yo - Hj])
    else:
        X = np.array(pts, dtype=object).reshape(-1, 3)
    g = np.gcd.reduce(X, axis=1).reshape(-1, 1)
    X = fit(X // g)
    return dedupe(X, A)[0]


def _regions3_float(rows: Rows, pts: list, pts_j: list[int], Ys) -> np.ndarray:
    """Float points y +- eps h_j for the exact sector directions of :func:`regions3`."""
    A = _array(rows, False)
    X0 = _unit(floats(pts).reshape(-1, 3))
    if len(Ys) == 0:
        return X0
    Y = _unit(np.asarray(Ys, dtype=float).reshape(-1, 3))  # already floats
    jv = np.array(pts_j[2:], dtype=np.intp)
    n = len(rows)
    mask = np.arange(n)[None, :] < jv[:, None]
    V = np.abs(Y @ A.T)
    HN = np.abs(A @ A.T)[jv]
    with np.errstate(divide="ignore", invalid="ignore"):
        T = np.where(mask & (HN > 0), V / HN, np.inf).min(axis=1)
    eps = np.where(np.isfinite(T), 0.5 * T, 1.0).reshape(-1, 1)
    Hj = A[jv]
    P = _unit(np.concatenate([X0, Y + eps * Hj, Y - eps * Hj]))
    return dedupe(P, A)[0]


def _sectors_fast(A: np.ndarray, exact: bool):
    """Vectorised sector points of every restriction A_{j-1}^{H_j} (j >= 1), or ``None``.

    Returns ``None`` (callers then use the per-j loop of :func:`regions3`) when the float
    angle order fails the exact pairwise order check for some j.
    """
    n = A.shape[0]
    small = A.dtype == np.int64 and _maxabs(A) < (1 << 14)
    I, J = np.triu_indices(n, k=1)
    C = np.cross(A[I], A[J]) if small else _cross(_obj(A)[I], _obj(A)[J])
    g = np.gcd.reduce(C, axis=1).reshape(-1, 1)
    C = C // g
    first = np.take_along_axis(C, np.argmax(C != 0, axis=1).reshape(-1, 1), axis=1)
    C = C * np.where(first > 0, 1, -1)
    if small:
        _, idx = np.unique(np.column_stack([J, C]), axis=0, return_index=True)
        idx = np.sort(idx)
    else:
        seen: dict = {}
        for t, key in enumerate(zip(J.tolist(), map(tuple, C.tolist()), strict=True)):
            seen.setdefault(key, t)
        idx = np.array(list(seen.values()), dtype=np.intp)
    L, LJ = C[idx], J[idx]  # distinct lines of each restriction
    H = A[LJ]
    if H.dtype == object:  # exact magnitudes (huge integers do not fit a float)
        Ha = np.abs(H)
        p = np.argmin(np.where(H != 0, Ha, _maxabs(Ha) + 1), axis=1)
    else:
        p = np.argmin(np.where(H != 0, np.abs(H).astype(float), np.inf), axis=1)
    # (p: a nonzero pivot; any works)
    q1 = np.where(p == 0, 1, 0)
    q2 = np.where(p == 2, 1, 2)
    hp = H[np.arange(len(H)), p]
    sg = np.where(hp > 0, 1, -1)
    R = np.concatenate([L, -L])
    RJ = np.concatenate([LJ, LJ])
    Q1, Q2, SG = np.concatenate([q1, q1]), np.concatenate([q2, q2]), np.concatenate([sg, sg])
    rr = np.arange(len(R))
    fx, fy = SG * R[rr, Q1], SG * R[rr, Q2]
    F = floats(np.stack([fx, fy], axis=1))  # scaled per ray: the angle is unchanged
    ang = np.arctan2(F[:, 1], F[:, 0])  # only proposes the order
    ang = np.where(ang < 0, ang + 2 * np.pi, ang)
    order = np.lexsort((ang, RJ))
    R, RJ, fx, fy = R[order], RJ[order], fx[order], fy[order]
    counts = np.bincount(RJ, minlength=n)
    start = np.concatenate([[0], np.cumsum(counts)[:-1]])
    pos = np.arange(len(R))
    nxt = pos + 1
    last = pos == (start[RJ] + counts[RJ] - 1)
    nxt[last] = start[RJ][last]
    half = np.where((fy > 0) | ((fy == 0) & (fx > 0)), 0, 1)
    cross = fx * fy[nxt] - fy * fx[nxt]
    ok = np.where(half[nxt] != half, half[nxt] > half, cross > 0)
    if not np.all(ok[~last]):  # exact check that the order is the angular order
        return None
    single = counts[RJ] == 2  # one line: the two half-planes +-(h_j x v)
    if exact:
        Y = _obj(R + R[nxt])
        if np.any(single):
            Y[single] = _cross(_obj(A)[RJ[single]], _obj(R[single]))
        return fit(Y), RJ
    Rf = floats(R)  # each ray scaled by its own power of two (huge integers)
    U = Rf / np.linalg.norm(Rf, axis=1, keepdims=True)
    Y = U + U[nxt]
    if np.any(single):
        W = floats(_cross(_obj(A)[RJ[single]], _obj(R[single])))
        Y[single] = W / np.linalg.norm(W, axis=1, keepdims=True)
    return Y, RJ
