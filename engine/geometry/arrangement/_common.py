"""Exact bookkeeping shared by the exact and float twins: hyperplanes, restrictions, keys.

Hyperplanes are primitive integer normals (tuples of int) in both arithmetics; only the
points differ between :mod:`.exact` and :mod:`.float`.  Nothing here decides anything by a
float, except :func:`floats`, which converts exact integers for the float twin's
proposals.
"""

from __future__ import annotations

from functools import cmp_to_key

import numpy as np

from logitgeom.exact.linalg import canonical_direction
from logitgeom.geometry.arrangement._overflow import cross, maxabs

__all__ = ["Rows", "Constraints", "canonical", "basis", "restrict", "restrict_map",
           "sub_constraints", "ray_cmp", "floats", "first_rows", "pack_signs", "unpack_signs",
           "FBITS",
           "FAST_FLOAT", "sectors3", "sectors3_slow", "SMALL_R3"]

Rows = tuple[tuple[int, ...], ...]
#: required signs on some hyperplanes: ((row index, +1 or -1), ...)
Constraints = tuple[tuple[int, int], ...]

#: scaled integers keep at most this many bits before becoming floats (float twin only)
FBITS = 60
#: below this, floats of the raw integers: no later product can overflow a float64
FAST_FLOAT = 2.0**400
#: entries below this make every cross product of the R^3 base case fit int64 without a
#: per-call bound (2^14 * 2^14 * 2 < 2^62)
SMALL_R3 = 1 << 14


def canonical(v) -> tuple[tuple[int, ...], int]:
    """Primitive integer normal with first nonzero entry positive, and the sign used.

    Examples
    --------
    >>> canonical([0, -2, 4])
    ((0, 1, -2), -1)
    """
    v = [int(a) for a in v]
    first = next((a for a in v if a != 0), 0)
    return canonical_direction(v), (first > 0) - (first < 0)


def _pivot(h: tuple[int, ...]) -> int:
    return min((i for i in range(len(h)) if h[i] != 0), key=lambda i: (abs(h[i]), i))


def basis(h: tuple[int, ...]) -> Rows:
    """An integer basis of h^perp as the D - 1 columns h_p e_q - h_q e_p (q != p)."""
    D = len(h)
    p = _pivot(h)
    cols = []
    for q in range(D):
        if q == p:
            continue
        c = [0] * D
        c[q] = h[p]
        c[p] = -h[q]
        cols.append(tuple(c))
    return tuple(cols)


#: restrictions already computed (the recursion meets the same ones many times: the
#: rankings of 8 labels restrict each (rows, h) about 7 times); a pure function's values,
#: so the cache changes no result.  At most :data:`RESTRICT_CACHE` input rows held in
#: all (a few tens of MB), cleared whole when full.
_RESTRICTED: dict = {}
RESTRICT_CACHE = 1 << 18
_HELD = [0]  # input rows held


def restrict_map(rows: Rows, h: tuple[int, ...]) -> tuple[Rows, list[tuple[int, int]]]:
    """:func:`restrict`, and where each input row went: (restricted index or -1, sign)."""
    try:
        key = (rows, h)
        hit = _RESTRICTED.get(key)
    except TypeError:  # lists: not hashable, computed every time
        return _restrict_map(rows, h)
    if hit is None:
        if _HELD[0] + len(rows) > RESTRICT_CACHE:
            _RESTRICTED.clear()
            _HELD[0] = 0
        hit = _RESTRICTED[key] = _restrict_map(rows, h)
        _HELD[0] += len(rows)
    return hit[0], list(hit[1])


def _restrict_map(rows: Rows, h: tuple[int, ...]) -> tuple[Rows, list[tuple[int, int]]]:
    D = len(h)
    p = _pivot(h)
    hp = h[p]
    others = [q for q in range(D) if q != p]
    seen: dict[tuple[int, ...], int] = {}
    where = []
    for r in rows:
        rp = r[p]
        key, s = canonical([hp * r[q] - h[q] * rp for q in others])
        if s == 0:
            where.append((-1, 0))
            continue
        where.append((seen.setdefault(key, len(seen)), s))
    return tuple(seen), where


def restrict(rows: Rows, h: tuple[int, ...]) -> Rows:
    """Distinct hyperplanes of the restriction to h^perp, in the coordinates of ``basis(h)``.

    With the basis columns h_p e_q - h_q e_p, a row r restricts to (h_p r_q - h_q r_p)_q.
    Keeps the order of first occurrence; rows parallel to h (zero after restriction) are
    dropped.

    Examples
    --------
    >>> restrict(((1, 0, 0), (0, 1, 0), (1, 1, 0)), (0, 0, 1))
    ((1, 0), (0, 1), (1, 1))
    """
    return restrict_map(rows, h)[0]


def sub_constraints(rows: Rows, j: int, constraints: Constraints
                    ) -> tuple[Rows, Constraints | None]:
    """The restriction of rows[:j] to H_j and the constraints it inherits (None: empty).

    A constraint (i, s) with i < j becomes (c, s * o) where row i restricts to the
    distinct row c with orientation o; two constraints that meet on one restricted row
    with opposite signs leave no region (None).
    """
    sub, where = restrict_map(rows[:j], rows[j])
    out: dict[int, int] = {}
    for i, s in constraints:
        if i >= j:
            continue
        c, o = where[i]
        if c < 0:  # pragma: no cover - distinct rows are never parallel to h
            continue
        if out.setdefault(c, s * o) != s * o:
            return sub, None
    return sub, tuple(sorted(out.items()))


def ray_cmp(u, w) -> int:
    """Exact angular order of two nonzero integer vectors of R^2 (angles in [0, 2 pi))."""
    hu = 0 if (u[1] > 0 or (u[1] == 0 and u[0] > 0)) else 1
    hw = 0 if (w[1] > 0 or (w[1] == 0 and w[0] > 0)) else 1
    if hu != hw:
        return hu - hw
    c = u[0] * w[1] - u[1] * w[0]
    return -1 if c > 0 else (1 if c < 0 else 0)


def floats(X, *, per_row: bool = True) -> np.ndarray:
    """A float64 copy of an exact integer matrix that never overflows (proposals only).

    ``float(huge_int)`` raises ``OverflowError`` above 2^1024, and even representable
    entries near 1e300 overflow once squared.  Each row (``per_row``; for direction-only
    uses, where rows are normalised afterwards) or the whole matrix is first scaled by
    one power of two 2^-s so that its largest entry has at most :data:`FBITS` bits; every
    entry is then the correctly rounded float of the scaled exact value.  int64 and float
    arrays, and integer arrays whose entries are all below :data:`FAST_FLOAT`, are
    converted directly.

    Examples
    --------
    >>> floats([[2**2000, 1]]).tolist()
    [[5.764607523034235e+17, 0.0]]
    """
    A = X if isinstance(X, np.ndarray) else np.array(X, dtype=object)
    if A.dtype != object:
        return A.astype(float)
    A = A.reshape(A.shape[0], -1) if A.ndim != 2 else A
    try:  # fast path (C conversion, correctly rounded) when nothing can overflow later
        F = A.astype(float)
        if not F.size or np.abs(F).max() < FAST_FLOAT:
            return F
    except OverflowError:
        pass
    out = np.zeros(A.shape, dtype=float)
    if A.size == 0:
        return out
    rows = A.tolist()
    if per_row:
        shifts = [max(0, max(abs(int(v)).bit_length() for v in r) - FBITS) for r in rows]
    else:
        s = max(0, max(abs(int(v)).bit_length() for r in rows for v in r) - FBITS)
        shifts = [s] * len(rows)
    for i, (r, s) in enumerate(zip(rows, shifts, strict=True)):
        if s:
            q = 1 << s
            out[i] = [int(v) / q for v in r]
        else:
            out[i] = [float(int(v)) for v in r]
    return out


def pack_signs(S: np.ndarray) -> np.ndarray:
    """Sign vectors (+-1, int8, n x m) bit-packed into uint64 words, n x ceil(m / 64).

    Bit b of word w is 1 iff entry 64 w + b is positive (little-endian bit order), so
    the words of one row compare like the sign vectors they encode (as sets of bits).

    Examples
    --------
    >>> pack_signs(np.array([[1, -1, 1], [-1, -1, -1]], dtype=np.int8)).tolist()
    [[5], [0]]
    """
    n, m = S.shape
    words = max(1, -(-m // 64))
    bits = np.zeros((n, words * 64), dtype=np.uint8)
    bits[:, :m] = S > 0
    packed = np.packbits(bits, axis=1, bitorder="little")
    return np.ascontiguousarray(packed).view("<u8").reshape(n, words)


def unpack_signs(K: np.ndarray, m: int) -> np.ndarray:
    """+-1 sign vectors (int8, n x m) from packed words: the inverse of :func:`pack_signs`.

    Examples
    --------
    >>> unpack_signs(np.array([[5]], dtype=np.uint64), 3).tolist()
    [[1, -1, 1]]
    """
    if m == 0:
        return np.zeros((K.shape[0], 0), dtype=np.int8)
    b = np.ascontiguousarray(K, dtype="<u8").view(np.uint8).reshape(K.shape[0], -1)
    bits = np.unpackbits(b, axis=1, bitorder="little")[:, :m]
    return (2 * bits.astype(np.int8) - 1).astype(np.int8)


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


def dedupe_with(sign_matrix, P: np.ndarray, A: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Keep points of P off every hyperplane of A, one per sign vector (first occurrence),
    with the signs of ``sign_matrix`` (the exact or the float twin's); returns (points, signs).

    Examples
    --------
    >>> P = np.array([[1], [2], [0], [-1]]); A = np.array([[1]])
    >>> Q, S = dedupe_with(lambda P, A: np.sign(P @ A.T).astype(np.int8), P, A)
    >>> Q.ravel().tolist(), S.ravel().tolist()
    ([1, -1], [1, -1])
    """
    if P.shape[0] == 0:
        return P, np.zeros((0, A.shape[0]), dtype=np.int8)
    if P.shape[0] <= DEDUPE_BLOCK:
        S = sign_matrix(P, A)
        ok = np.flatnonzero(np.all(S != 0, axis=1))
        S = S[ok]
        first = first_rows(S)
        return P[ok[first]], S[first]
    # the same rows in bounded memory: the signs of DEDUPE_BLOCK rows at a time (a float
    # product of the whole P would hold rows x hyperplanes float64), kept as int8 for the
    # rows off every hyperplane
    Ss, idx = [], []
    for lo in range(0, P.shape[0], DEDUPE_BLOCK):
        S = sign_matrix(P[lo:lo + DEDUPE_BLOCK], A)
        ok = np.flatnonzero(np.all(S != 0, axis=1))
        Ss.append(S[ok])
        idx.append(ok + lo)
        del S
    S = np.concatenate(Ss)
    del Ss
    ok = np.concatenate(idx)
    first = first_rows(S)
    return P[ok[first]], S[first]


#: rows whose signs :func:`dedupe_with` computes at once (bounded memory; same result)
DEDUPE_BLOCK = 1 << 15


def _obj(X: np.ndarray) -> np.ndarray:
    return X.astype(object) if X.dtype != object else X


def sectors3_slow(rows: Rows, A: np.ndarray) -> tuple[list, list[int]]:
    """Exact sector pairs (u, w) of each restriction, one j at a time, and their j.

    The sector between consecutive rays u, w is {a u + b w : a, b > 0}; a restriction
    with one line v gives the pairs (W, W) and (-W, -W) with W = h_j x v.
    """
    n = len(rows)
    rays_by_j: list[list[tuple[int, ...]]] = [[] for _ in range(max(n - 1, 0))]
    if n > 1:
        I, J = np.triu_indices(n, k=1)  # pairs i < j
        C = cross(A[I], A[J])
        for j, v in zip(J.tolist(), C.tolist(), strict=True):
            rays_by_j[j - 1].append(tuple(int(a) for a in v))
    Ys: list = []
    js: list[int] = []
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
            mw = tuple(-a for a in w)
            Ys += [(w, w), (mw, mw)]
            js += [j, j]
            continue
        p = min((i for i in range(3) if h[i] != 0), key=lambda i: (abs(h[i]), i))
        q1, q2 = [q for q in range(3) if q != p]
        rays = lines + [tuple(-a for a in v) for v in lines]
        sgn = 1 if h[p] > 0 else -1  # keep the 2-D picture's orientation fixed
        flat = [(sgn * v[q1], sgn * v[q2]) for v in rays]
        sh = max(0, max(abs(c).bit_length() for f in flat for c in f) - 60)
        ang = np.arctan2(np.array([float(f[1] >> sh) for f in flat]),
                         np.array([float(f[0] >> sh) for f in flat]))  # only proposes
        ang = np.where(ang < 0, ang + 2 * np.pi, ang)  # [0, 2 pi), as in ray_cmp
        order = np.argsort(ang, kind="stable").tolist()
        if not all(ray_cmp(flat[a], flat[b]) < 0 for a, b in zip(order, order[1:],
                                                                   strict=False)):
            order = sorted(range(len(rays)), key=cmp_to_key(
                lambda a, b, f=flat: ray_cmp(f[a], f[b])))
        m = len(order)
        for t in range(m):
            u, w = rays[order[t]], rays[order[(t + 1) % m]]
            Ys.append((u, w))
            js.append(j)
    return Ys, js



def sectors3(A: np.ndarray) -> tuple | None:
    """Exact angular sectors of every restriction A_{j-1}^{H_j} (j >= 1) of planes of R^3.

    Returns ``(R, RJ, nxt, single, W)``: integer rays R (each line of the restriction to
    H_{RJ} as +-v), sorted by angle within each j, ``R[nxt]`` the next ray, ``single``
    marking restrictions with one line, whose two half-planes are +-W (W = h_j x v).  The
    sector between R and R[nxt] is {a R + b R[nxt] : a, b > 0}.  ``None`` when the float
    angle order fails the exact pairwise check for some j (use :func:`sectors3_slow`).
    """
    n = A.shape[0]
    small = A.dtype == np.int64 and maxabs(A) < SMALL_R3
    I, J = np.triu_indices(n, k=1)
    C = np.cross(A[I], A[J]) if small else cross(_obj(A)[I], _obj(A)[J])
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
        p = np.argmin(np.where(H != 0, Ha, maxabs(Ha) + 1), axis=1)
    else:
        p = np.argmin(np.where(H != 0, np.abs(H).astype(float), np.inf), axis=1)
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
    crs = fx * fy[nxt] - fy * fx[nxt]
    ok = np.where(half[nxt] != half, half[nxt] > half, crs > 0)
    if not np.all(ok[~last]):  # exact check that the order is the angular order
        return None
    single = counts[RJ] == 2  # one line: the two half-planes +-(h_j x v)
    W = cross(_obj(A)[RJ[single]], _obj(R[single])) if np.any(single) else None
    return R, RJ, nxt, single, W
