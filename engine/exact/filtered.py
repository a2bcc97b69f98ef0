"""Filtered exact signs: float64 with a proven error bound, exact integers only where needed.

The sign of an integer dot product ``p . a`` is what every enumeration and certification
step asks (``sign(P A^T)``: points times hyperplane normals).  On a float head the
primitive integer normals have 55 to 65 bits, so no int64 product is safe and every sign
used to be a Python-integer product.  This module decides each sign the way Shewchuk's
adaptive predicates and CGAL's filtered kernels do: evaluate ``s = fl(p . a)`` in float64
(any summation order, BLAS, FMA or not), compare it with a rigorous bound ``B`` on
``|s - p . a|``, and accept ``sign(s)`` when ``|s| > B``; only the entries the bound does
not separate from zero are recomputed in exact integers.  Every returned sign is exact;
the float evaluation only decides *how fast* it is found.  The proof of the bound is in
``docs/filtered-arithmetic.md``; in short, with ``u = 2^-53`` and ``D`` terms:

* the normals ``a`` must be exactly representable in float64 (checked entry by entry:
  ``float(a) == a``); the normals of a float head are (their odd part has at most 53
  bits); the points ``p`` are rounded to float64 (relative error at most ``u`` each);
* every product and partial sum is integer-valued, so nothing underflows; overflow is
  excluded up front (``max|p| * max l1(a) < 2^1000``, else everything is exact);
* ``|s - p . a| <= ((D + 1) u + O(u^2)) * max|p| * l1(a) < B``; the filter first compares
  every entry of a block with one bound, ``B = fl(c * fl(max|p~| * L))`` over the block's
  points (``L`` the largest computed l1 norm of a row of ``A``), then the few entries left
  with their own ``fl(c * fl(max|p~_i| * l1~(a_k)))``, where ``c = 2 (D + 1) u`` (the
  factor 2 absorbs every second-order term and the two roundings of ``B``); ``D <= 2^20``.

Examples
--------
>>> import numpy as np
>>> A = np.array([[3 * 2**60, 1], [1, -1]], dtype=object)
>>> P = np.array([[1, -3 * 2**60], [2, 2]], dtype=object)
>>> sign_matrix(P, A)  # the first entry is exactly 0: the filter leaves it to integers
array([[0, 1],
       [1, 0]], dtype=int8)
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["ROUNDOFF", "UNDERFLOW_SLACK", "MAX_TERMS", "OVERFLOW_GUARD", "bound_factor",
           "margin_factor", "ROUNDOFF32", "UNDERFLOW_SLACK32", "margin_factor32",
           "norm_inflation", "scaled_norms", "norm_bounds", "norm2",
           "norm_bound", "exact_floats", "float_limbs", "rounded_floats", "filtered_signs",
           "sign_matrix", "exact_signs"]

#: unit roundoff of float64 round-to-nearest (half an ulp of 1); the one definition in the
#: engine (tests/test_filter_bounds.py greps for others)
ROUNDOFF = 2.0 ** -53
#: added to every logit-margin bound: far above the accumulated underflow error of a dot
#: product of width d < 2^100 (at most about 4 d 2^-1075); docs/filtered-arithmetic.md
UNDERFLOW_SLACK = 2.0 ** -900
#: unit roundoff of float32 round-to-nearest (Lemma 5 of docs/filtered-arithmetic.md; its one
#: definition in the engine)
ROUNDOFF32 = 2.0 ** -24
#: added to every float32 logit-margin bound (Lemma 5): far above the float32 underflow error
#: of two dot products of width d <= MAX_TERMS (at most 4 d 2^-150 (1 + u) < 2^-127) plus twice
#: the float64 slack
UNDERFLOW_SLACK32 = 2.0 ** -100
#: the bound is proven for dot products of at most this many terms
MAX_TERMS = 1 << 20
#: the filter runs only when max|p| * max l1(a) is below this (no intermediate overflows)
OVERFLOW_GUARD = 2.0 ** 1000
#: undecided entries are recomputed exactly in blocks of this many (bounds memory)
EXACT_BLOCK = 1 << 16
#: rows of P filtered at a time: the float temporaries stay in cache (measured on a float
#: 40 x 6 head's witnesses: 2,048 rows a third faster than 32,768; same signs)
FILTER_ROWS = 2048


def bound_factor(D: int) -> float:
    """The factor ``c = 2 (D + 1) u`` of the error bound for ``D``-term dot products.

    Exactly representable (a small integer times a power of two).

    Parameters
    ----------
    D : int
        Number of terms, ``1 <= D <= MAX_TERMS``.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        ``D`` out of range.

    Examples
    --------
    >>> bound_factor(6) == 14 * 2.0 ** -53
    True
    """
    if not 1 <= D <= MAX_TERMS:
        raise ValueError(f"the filter's bound needs 1 <= D <= {MAX_TERMS}; got {D}")
    return 2.0 * (D + 1) * ROUNDOFF


def margin_factor(d: int, rounded: int = 0) -> float:
    """The factor ``g`` of the logit-margin filter (docs/filtered-arithmetic.md, Lemma 2).

    For a head of width ``d``, ``fl(z_a) - fl(z_b)`` (two logits ``z_i = w_i . x + b_i``
    computed in float64, any evaluation order) is a floating-point sum of ``n = 2 (d + r) + 2``
    terms, and

        |fl(z_a) - fl(z_b) - (z_a - z_b)| <= g (|w_a| . |x| + |w_b| . |x| + |b_a| + |b_b|)

    with ``g = 1.01 gamma_n``, ``gamma_n = n u / (1 - n u)``; the 1 % absorbs the roundings
    of evaluating the bound itself.  ``r = rounded`` counts the extra relative errors ``u``
    per term (1 for a head whose entries were rounded to float64, one more for a witness
    rounded from rationals): each is covered by two more terms.  Used by the argmax audit
    (``audit.proofs``, ``audit.screen``) and by occupancy (``occupancy.decide``).

    Parameters
    ----------
    d : int
        Width of the head, ``d >= 0``.
    rounded : int
        Extra relative roundings per term (``0``, ``1`` or ``2``).

    Returns
    -------
    float

    Examples
    --------
    >>> 1e-13 < margin_factor(768) < 2e-13
    True
    >>> margin_factor(64, 1) == margin_factor(65)
    True
    """
    n = 2 * (d + rounded) + 2
    return 1.01 * n * ROUNDOFF / (1.0 - n * ROUNDOFF)


def margin_factor32(d: int) -> float:
    """The factor ``g32`` of the float32 logit-margin filter (docs/filtered-arithmetic.md,
    Lemma 5).

    For float32 rows ``w_a, w_b`` and a float32 input ``x`` of width ``d``, let
    ``s_i = fl32(w_i . x)`` be computed in float32 arithmetic (sgemm: any evaluation order,
    fused multiply-add or not, float32 underflow) and finite, and ``m = fl64(s_a - s_b)`` the
    difference of the exactly widened values in float64.  Then

        |m - (w_a - w_b) . x| <= g32 (|w_a| . |x| + |w_b| . |x|) + 4 d 2^-150 (1 + 2^-53)

    with ``g32 = 1.02 gamma32_(d+1)``, ``gamma32_n = n u32 / (1 - n u32)``, ``u32 = 2^-24``:
    ``gamma32_d`` covers the float32 dot products, the one float64 rounding of the
    difference is covered by the step to ``d + 1``, and the 2 % absorbs the roundings of
    evaluating the bound.  The absolute term is below :data:`UNDERFLOW_SLACK32`.  Used by
    the argmax audit's float32 screen (``audit.screen``).

    Parameters
    ----------
    d : int
        Width of the head, ``1 <= d <= MAX_TERMS`` (a ValueError otherwise).

    Returns
    -------
    float
        ``g32``, a float64 number (rounded up enough by the 2 %).

    Examples
    --------
    >>> 2.9e-6 < margin_factor32(48) < 3.0e-6
    True
    >>> margin_factor32(4096) > 2 ** 27 * margin_factor(4096)  # float32 is coarser
    True
    """
    if not 1 <= d <= MAX_TERMS:
        raise ValueError(f"the float32 bound needs 1 <= d <= {MAX_TERMS}; got {d}")
    n = d + 1
    return 1.02 * n * ROUNDOFF32 / (1.0 - n * ROUNDOFF32)


def norm_inflation(d: int) -> float:
    """``1 + 8 (d + 4) u``: a computed Euclidean norm of a ``d``-vector (after the exact
    power-of-two rescaling of :func:`scaled_norms`) times this is an upper bound of the exact
    norm (docs/filtered-arithmetic.md, Lemma 3).

    Examples
    --------
    >>> norm_inflation(0) == 1 + 32 * ROUNDOFF
    True
    """
    return 1.0 + 8.0 * (d + 4) * ROUNDOFF


def scaled_norms(A: np.ndarray, axis: int = 1) -> np.ndarray:
    """Computed Euclidean norms of the rows (``axis=1``) or columns (``axis=0``) of a finite
    float64 matrix, each scaled by an exact power of two first, so that its squares neither
    underflow (1e-200 entries) nor overflow (1e160 entries).  A measurement: an upper bound
    is :func:`norm_bounds`.

    Examples
    --------
    >>> scaled_norms(np.array([[3e-200, 4e-200], [0.0, 0.0]])).tolist()
    [5e-200, 0.0]
    >>> scaled_norms(np.array([[3.0], [4.0]]) * 2.0**1000, axis=0) == 5 * 2.0**1000
    array([ True])
    """
    if axis == 1:
        mx = np.max(np.abs(A), axis=1) if A.size else np.zeros(A.shape[0])
        e = np.frexp(np.where(mx > 0, mx, 1.0))[1]
        As = np.ldexp(A, -e[:, None])
        out: np.ndarray = np.ldexp(np.sqrt(np.einsum("ij,ij->i", As, As)), e)
        return out
    mx = np.max(np.abs(A), axis=0) if A.shape[0] else np.zeros(A.shape[1])
    e = np.frexp(np.where(mx > 0, mx, 1.0))[1]
    Y = np.ldexp(A, -e[None, :])
    cols: np.ndarray = np.where(mx > 0, np.ldexp(np.sqrt(np.einsum("ij,ij->j", Y, Y)), e), 0.0)
    return cols


def norm_bounds(A: np.ndarray, axis: int = 1) -> np.ndarray:
    """Upper bounds of the Euclidean norms of the rows (``axis=1``) or columns (``axis=0``)
    of a finite float64 matrix: :func:`scaled_norms` times :func:`norm_inflation` plus
    :data:`UNDERFLOW_SLACK` (docs/filtered-arithmetic.md, Lemma 3).

    Examples
    --------
    >>> b = norm_bounds(np.array([[3.0, 4.0]]))
    >>> bool(5.0 < b[0] < 5.0 + 1e-13)
    True
    """
    d = A.shape[axis]
    out: np.ndarray = scaled_norms(A, axis) * norm_inflation(d) + UNDERFLOW_SLACK
    return out


def norm2(x: np.ndarray) -> float:
    """The computed Euclidean norm of a finite float64 vector, after an exact power-of-two
    rescaling (no underflow or overflow); a measurement (the bound is :func:`norm_bound`).

    Examples
    --------
    >>> norm2(np.array([3.0, 4.0]) * 2.0**-1070) == 5 * 2.0**-1070  # subnormal entries
    True
    """
    mx = float(np.max(np.abs(x))) if x.size else 0.0
    if mx == 0.0:
        return 0.0
    e = math.frexp(mx)[1]
    y = np.ldexp(x, -e)
    return math.ldexp(float(np.sqrt(y @ y)), e)


def norm_bound(x: np.ndarray) -> float:
    """An upper bound of the Euclidean norm of a finite float64 vector: :func:`norm2` times
    :func:`norm_inflation` plus :data:`UNDERFLOW_SLACK`.

    Examples
    --------
    >>> 5.0 < norm_bound(np.array([3.0, 4.0])) < 5.0 + 1e-13
    True
    """
    return norm2(x) * norm_inflation(x.size) + UNDERFLOW_SLACK


def exact_floats(A: np.ndarray) -> np.ndarray | None:
    """``A`` (an integer array) as float64 if every entry is exactly representable, else None.

    Parameters
    ----------
    A : ndarray of int64 or of Python int (object)

    Returns
    -------
    ndarray of float64 or None

    Examples
    --------
    >>> exact_floats(np.array([2**60, -3], dtype=object))
    array([ 1.1529215e+18, -3.0000000e+00])
    >>> exact_floats(np.array([2**60 + 1], dtype=object)) is None
    True
    """
    try:
        F = np.asarray(A, dtype=np.float64) if A.dtype != object else A.astype(np.float64)
    except OverflowError:
        return None
    if not np.all(np.isfinite(F)):
        return None
    if A.dtype == np.int64:
        # float -> int64 is exact for |F| < 2^63; F == 2^63 only from A near the top
        if np.any(np.abs(F) >= 2.0 ** 63) or np.any(F.astype(np.int64) != A):
            return None
        return F
    # Python int == float compares the exact values
    if not all(int(f) == a for f, a in zip(F.ravel().tolist(), A.ravel().tolist(),
                                           strict=True)):
        return None
    return F


def float_limbs(A: np.ndarray) -> np.ndarray | None:
    """``[hi, lo]`` (float64, twice the columns) with ``A = hi + lo`` exactly, or None when
    ``A`` does not split into two floats (an entry with more than about 106 significant
    bits, or beyond the float range).

    ``hi = fl(A)`` (round to nearest) and ``lo = A - hi`` computed in integers.  Used for
    normals that are not floats themselves, such as the differences ``w_i - w_j`` of a
    float head's rows (rankings).

    Examples
    --------
    >>> [int(v) for v in float_limbs(np.array([[2**60 + 1, 3]], dtype=object))[0]]
    [1152921504606846976, 3, 1, 0]
    """
    hi = rounded_floats(A)
    if hi is None:
        return None
    Ao = A.astype(object)
    lo = Ao - np.array([[int(v) for v in r] for r in hi.tolist()], dtype=object).reshape(A.shape)
    lof = exact_floats(lo)
    if lof is None:
        return None
    return np.hstack([hi, lof])


def rounded_floats(P: np.ndarray) -> np.ndarray | None:
    """``P`` (an integer array) rounded entrywise to float64 (round to nearest), or None
    when an entry is beyond the float range.

    Examples
    --------
    >>> rounded_floats(np.array([2**53 + 1], dtype=object))
    array([9.00719925e+15])
    >>> rounded_floats(np.array([10**400], dtype=object)) is None
    True
    """
    try:
        F = P.astype(np.float64)
    except OverflowError:
        return None
    return F if np.all(np.isfinite(F)) else None


def exact_signs(P: np.ndarray, A: np.ndarray) -> np.ndarray:
    """Signs of ``P A^T`` in Python integers (the reference; int8).

    Examples
    --------
    >>> exact_signs(np.array([[1, 2]]), np.array([[2, -1], [1, 1]]))
    array([[0, 1]], dtype=int8)
    """
    V = P.astype(object) @ A.astype(object).T
    out: np.ndarray = ((V > 0).astype(np.int8) - (V < 0).astype(np.int8)).astype(np.int8)
    return out


def filtered_signs(P: np.ndarray, A: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The float filter alone: signs of ``P A^T`` and which of them it decided.

    Parameters
    ----------
    P : (n, D) integer ndarray (int64 or Python int)
        Points.
    A : (m, D) integer ndarray (int64 or Python int)
        Normals.

    Returns
    -------
    (signs, decided) or None
        ``signs`` (int8, n x m) is exact wherever ``decided`` (bool, n x m) is True, and 0
        elsewhere.  None when the filter does not apply at all (an entry of ``A`` not
        exactly representable in float64, ``P`` beyond the float range, more than
        :data:`MAX_TERMS` columns, or a product bound above :data:`OVERFLOW_GUARD`).

    Examples
    --------
    >>> S, ok = filtered_signs(np.array([[1, 1], [1, -1]]), np.array([[1, -1]]))
    >>> S.tolist(), ok.tolist()
    ([[0], [1]], [[False], [True]])
    """
    got = _filter(P, A)
    if got is None:
        return None
    S, ii, kk = got
    decided = np.ones(S.shape, dtype=bool)
    decided[ii, kk] = False
    return S, decided


def _filter(P: np.ndarray, A: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(signs, rows, cols): the filter's signs, exact except at the entries (rows[t],
    cols[t]), where they are 0; None when the filter does not apply."""
    n, D = P.shape
    m = A.shape[0]
    if n == 0 or m == 0:
        e = np.zeros(0, dtype=np.intp)
        return np.zeros((n, m), dtype=np.int8), e, e
    if D == 0 or 2 * D > MAX_TERMS:
        return None
    Af = exact_floats(A)
    Pf = rounded_floats(P)
    if Pf is None:
        return None
    if Af is None:  # two float limbs: a = hi + lo exactly, p . a as a 2D-term dot product
        Af = float_limbs(A)
        if Af is None:
            return None
        Pf = np.hstack([Pf, Pf])
        D = 2 * D
    al1 = np.abs(Af).sum(axis=1)
    amax = float(al1.max())
    pmax = max(float(Pf.max()), -float(Pf.min()))
    if not pmax * amax < OVERFLOW_GUARD:
        return None
    c = bound_factor(D)
    s = Pf @ Af.T
    S = (s > 0).view(np.int8) - (s < 0).view(np.int8)
    # stage 1: one bound for the whole block, c * max|p| * max_k l1(a_k)
    und = np.abs(s) <= c * (pmax * amax)
    if not und.any():
        e = np.zeros(0, dtype=np.intp)
        return S, e, e
    ii, kk = np.nonzero(und)
    if ii.size:
        # stage 2, the few entries left: the entry's own bound c * max|p_i| * l1(a_k);
        # it is 0 only when p_i = 0 or a_k = 0, and then s = p . a = 0 (decided)
        Bk = c * (np.abs(Pf[ii]).max(axis=1) * al1[kk])
        left = (np.abs(s[ii, kk]) <= Bk) & (Bk > 0)
        ii, kk = ii[left], kk[left]
        S[ii, kk] = 0
    return S, ii, kk


def sign_matrix(P: np.ndarray, A: np.ndarray) -> np.ndarray:
    """Exact signs of ``P A^T`` (int8): float filter first, Python integers where it
    does not decide (or does not apply).

    Parameters
    ----------
    P : (n, D) integer ndarray (int64 or Python int)
    A : (m, D) integer ndarray (int64 or Python int)

    Returns
    -------
    ndarray of int8, n x m
        ``sign(P @ A.T)`` exactly.

    Examples
    --------
    >>> sign_matrix(np.array([[2**70, 1]], dtype=object), np.array([[1, -2**70]], dtype=object))
    array([[0]], dtype=int8)
    """
    if P.shape[0] == 0 or A.shape[0] == 0:
        return np.zeros((P.shape[0], A.shape[0]), dtype=np.int8)
    if P.shape[0] > FILTER_ROWS:  # rows are independent: blocks that stay in cache
        return np.concatenate([sign_matrix(P[lo:lo + FILTER_ROWS], A)
                               for lo in range(0, P.shape[0], FILTER_ROWS)])
    got = _filter(P, A)
    if got is None:
        return exact_signs(P, A)
    S, ii, kk = got
    for lo in range(0, ii.size, EXACT_BLOCK):
        i, k = ii[lo:lo + EXACT_BLOCK], kk[lo:lo + EXACT_BLOCK]
        v = (P[i].astype(object) * A[k].astype(object)).sum(axis=1)
        S[i, k] = (v > 0).astype(np.int8) - (v < 0).astype(np.int8)
    return S
