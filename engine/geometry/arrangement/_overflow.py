"""Exact integer products in int64 where a bound proves it safe (the one home of the proofs).

Every exact product of the arrangement code is ``P @ A.T`` (points times normals) or a
row-wise cross product.  numpy's int64 arithmetic wraps silently, so each fast path below
is taken only after a bound on the exact result has been checked:

* ``matmul`` / sign of ``P @ A.T`` (int64): with ``a = max |P_ij|`` and ``l = max_i
  sum_j |A_ij|`` (the largest l1 norm of a row of A), every partial sum of every entry is
  at most ``a * l`` in absolute value.  If ``a * l < LIMIT = 2^62`` no partial sum, and
  so no entry, leaves the int64 range (2^63 - 1), whatever the summation order.
* float64 BLAS instead of int64: when moreover ``a * l < EXACT_FLOAT = 2^53`` every
  product and every partial sum is an integer of magnitude below 2^53, which float64
  represents exactly, and the sum of two such integers is computed exactly (IEEE
  round-to-nearest of a representable result is the result).  So the float product is
  the exact integer product.
* two-limb signs (``sign_matrix``) for points too big for one int64 product: write
  ``P = 2^31 H + L`` with ``0 <= L < 2^31`` (arithmetic shift and mask, so H is the
  floor).  If ``l < 2^30`` then ``|L A^T| <= 2^31 l < 2^61`` and, when
  ``(max|H| + 1) l < LIMIT``, ``|H A^T|`` is in range too.  Then
  ``P A^T = 2^31 (H A^T + (L A^T >> 31)) + (L A^T mod 2^31)`` where the first bracket T
  is an int64 (its two terms are below 2^62 and 2^30) and the remainder R lies in
  ``[0, 2^31)``; so sign(P A^T) = sign(T) if T != 0, else sign(R).
* cross products of 3-vectors: each coordinate is a difference of two products, each
  at most ``max|U| max|V|``; below ``CROSS_LIMIT = 2^61`` the difference is below 2^62.

Outside these bounds products fall back to Python integers (numpy object arrays): slower,
never wrong.  Signs outside them go through the floating-point filter
(:func:`logitgeom.exact.filtered.sign_matrix`: float64 with a proven error bound, Python
integers only for the entries the bound does not separate from zero; the proof is in
``docs/filtered-arithmetic.md``).  Nothing here uses floats to decide a sign except
through the exactness argument above or that bound.
"""

from __future__ import annotations

import numpy as np

from logitgeom.exact import filtered

__all__ = ["LIMIT", "EXACT_FLOAT", "CROSS_LIMIT", "SPLIT_BITS", "BLAS_MIN_ENTRIES", "SIGN_BLOCK",
           "maxabs", "l1", "fit", "matmul", "sign_matrix", "cross"]

#: int64 fast paths need every exact partial sum below this (2^62 < 2^63 - 1).
LIMIT = 1 << 62
#: integers below this, and sums of two of them, are exact in float64.
EXACT_FLOAT = 1 << 53
#: bound on max|U| max|V| for an int64 cross product of 3-vectors.
CROSS_LIMIT = 1 << 61
#: limb width of the two-limb sign computation.
SPLIT_BITS = 31
#: rows of P per block of :func:`sign_matrix` (bounds its temporary memory)
SIGN_BLOCK = 1 << 15
#: below this many entries of the product the int64 loop beats a float BLAS call.
BLAS_MIN_ENTRIES = 20_000


_MAX, _MIN = np.maximum.reduce, np.minimum.reduce


def maxabs(X: np.ndarray) -> int:
    """The largest absolute entry of an integer array, exactly (0 for an empty array)."""
    if not X.size:
        return 0
    if X.dtype == np.int64:  # no object copy, no overflow of abs(-2^63); the ufunc
        # reductions directly (X.max() adds a Python wrapper per call: many small arrays)
        return max(int(_MAX(X, axis=None)), -int(_MIN(X, axis=None)))
    return int(np.abs(X).max())


def l1(A: np.ndarray) -> int:
    """The largest l1 norm of a row of the integer array A (exact)."""
    if not A.size:
        return 0
    if A.dtype == np.int64 and maxabs(A) * A.shape[1] < LIMIT:
        return int(np.abs(A).sum(axis=1).max())
    return int(np.abs(A.astype(object)).sum(axis=1).max())


def _dot(P: np.ndarray, A: np.ndarray, bound: int) -> np.ndarray:
    """P @ A.T for int64 arrays with every |partial sum| <= bound < LIMIT (caller's proof)."""
    if bound < EXACT_FLOAT and P.shape[0] * A.shape[0] > BLAS_MIN_ENTRIES:
        return P.astype(float) @ A.astype(float).T
    return P @ A.T


def fit(X: np.ndarray) -> np.ndarray:
    """An exact integer array as int64 when every entry is below LIMIT, else object."""
    if X.dtype == object and maxabs(X) < LIMIT:
        return X.astype(np.int64)
    return X


def matmul(P: np.ndarray, A: np.ndarray) -> np.ndarray:
    """Exact P @ A.T: int64 when a bound proves no overflow, Python ints otherwise."""
    if P.dtype == np.int64 and A.dtype == np.int64:
        bound = maxabs(P) * l1(A)
        if bound < LIMIT:
            V = _dot(P, A, bound)
            return V.astype(np.int64) if V.dtype != np.int64 else V
    return P.astype(object) @ A.astype(object).T


def _signs(V: np.ndarray) -> np.ndarray:
    return (V > 0).astype(np.int8) - (V < 0).astype(np.int8)


def sign_matrix(P: np.ndarray, A: np.ndarray) -> np.ndarray:
    """Exact signs of P A^T as int8 for integer arrays (see the module notes).

    Computed in blocks of :data:`SIGN_BLOCK` rows, so the wide intermediate products
    never hold more than one block (the int8 result is the only full-size array).
    """
    if P.shape[0] > SIGN_BLOCK:
        out = np.empty((P.shape[0], A.shape[0]), dtype=np.int8)
        for lo in range(0, P.shape[0], SIGN_BLOCK):
            out[lo:lo + SIGN_BLOCK] = _sign_block(P[lo:lo + SIGN_BLOCK], A)
        return out
    return _sign_block(P, A)


def _sign_block(P: np.ndarray, A: np.ndarray) -> np.ndarray:
    l = l1(A)
    big = maxabs(P)
    if P.dtype == np.int64 and A.dtype == np.int64 and big * l < EXACT_FLOAT:
        return _signs(_dot(P, A, big * l))  # exact in float64 BLAS (or small int64 loops)
    if P.shape[0] * A.shape[0] > BLAS_MIN_ENTRIES:
        # past 2^53 the int64 products would run in numpy's integer loops (no BLAS): the
        # float filter decides almost every sign in BLAS, integers the rest (same signs)
        return filtered.sign_matrix(P, A)
    if A.dtype == np.int64 and l < (1 << 30) and (big >> SPLIT_BITS) * l < LIMIT:
        if P.dtype == np.int64 and big * l < LIMIT:
            return _signs(_dot(P, A, big * l))
        mask = (1 << SPLIT_BITS) - 1
        if P.dtype == np.int64:  # arithmetic shift: floor division, lo in [0, 2^31)
            hi, lo = P >> SPLIT_BITS, P & mask
        else:
            Po = P.astype(object)
            hi = (Po >> SPLIT_BITS).astype(np.int64)
            lo = (Po & mask).astype(np.int64)
        L = _dot(lo, A, (1 << SPLIT_BITS) * l)
        if L.dtype != np.int64:
            L = L.astype(np.int64)
        H = _dot(hi, A, (maxabs(hi) + 1) * l)
        T = (H.astype(np.int64) if H.dtype != np.int64 else H) + (L >> SPLIT_BITS)
        R = L & mask
        return _signs(T) + ((T == 0) & (R > 0)).astype(np.int8)
    return filtered.sign_matrix(P, A)


def _obj(X: np.ndarray) -> np.ndarray:
    return X.astype(object) if X.dtype != object else X


def cross(U: np.ndarray, V: np.ndarray) -> np.ndarray:
    """Exact row-wise cross products of integer 3-vectors (int64 when bounded)."""
    if U.dtype == np.int64 and V.dtype == np.int64 and maxabs(U) * maxabs(V) < CROSS_LIMIT:
        return np.cross(U, V)
    U, V = _obj(U), _obj(V)
    return np.stack([U[:, 1] * V[:, 2] - U[:, 2] * V[:, 1],
                     U[:, 2] * V[:, 0] - U[:, 0] * V[:, 2],
                     U[:, 0] * V[:, 1] - U[:, 1] * V[:, 0]], axis=1)
