"""Per-input sign pattern, ranking and argmax of a head, decided exactly with a float filter.

An input x (a float64 vector: the exact binary rational it denotes) gives the logits
z_i = w_i . x + b_i.  Its *sign pattern* is (sign z_i)_i, its *ranking* the labels ordered
by z_i (most likely first), its *argmax* the top label.  Every sign and every comparison is
a combinatorial fact and is decided exactly: one float64 product proposes the logits, a
rigorous bound on its rounding error certifies every sign and every adjacent comparison it
separates, and only the inputs with a sign or comparison the bound does not separate are
recomputed in integer arithmetic (docs/occupancy.md, "The floating-point filter").  Exact
zeros and exact ties are reported as such (sign 0, tied labels), never resolved by rounding.

Examples
--------
>>> import numpy as np
>>> from logitgeom.audit.head import HeadSpec, open_head
>>> head = open_head(HeadSpec.from_array([[1, 0], [0, 1], [-1, -1]]))
>>> d = decide_chunk(head, np.array([[2.0, 1.0], [1.0, 1.0]]))
>>> d.order.tolist(), d.tie.tolist(), d.argmax.tolist()
([[0, 1, 2], [0, 1, 2]], [[False, False], [True, False]], [0, -1])
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from logitgeom.audit.head import Head
from logitgeom.audit.proofs import exact_rows_int
from logitgeom.errors import InvalidInput
from logitgeom.exact.filtered import UNDERFLOW_SLACK, margin_factor, norm_bounds
from logitgeom.exact.intmat import float_ints

__all__ = ["Decided", "decide_chunk", "exact_logits"]


@dataclass
class Decided:
    """Exact decisions for a chunk of n inputs of a head with k labels.

    Attributes
    ----------
    sign : numpy.ndarray
        int8 (n, k): sign of each logit, 0 when the logit is exactly 0.
    order : numpy.ndarray
        int16/int32 (n, k): the labels by decreasing logit; tied labels in increasing order.
    tie : numpy.ndarray
        bool (n, k - 1): ``order[:, j]`` and ``order[:, j + 1]`` have exactly equal logits.
    argmax : numpy.ndarray
        int32 (n,): the strict argmax, -1 when the top is an exact tie.
    exact : numpy.ndarray
        bool (n,): the input was decided in integer arithmetic (the filter did not separate
        all its signs and comparisons).
    logits : numpy.ndarray
        float64 (n, k): the logits (float64 product, or the exact values rounded, for the
        inputs decided exactly); measurements, not decisions.
    """

    sign: np.ndarray
    order: np.ndarray
    tie: np.ndarray
    argmax: np.ndarray
    exact: np.ndarray
    logits: np.ndarray


class _ExactHead:
    """The head as integers: w_i = R[i] / den_w, b_i = B[i] / den_b."""

    def __init__(self, head: Head):
        R, B, dw, db = exact_rows_int(head, range(head.k))
        self.R, self.B, self.den_w, self.den_b = R, B, dw, db


#: the last head's exact rows, with the head itself: holding it keeps its id from being
#: reused by a later head (keyed by id alone, a new head could be read as a freed one's)
_EXACT_CACHE: dict[int, tuple[Head, _ExactHead]] = {}


def _exact_head(head: Head) -> _ExactHead:
    key = id(head)
    hit = _EXACT_CACHE.get(key)
    if hit is None or hit[0] is not head:
        _EXACT_CACHE.clear()
        hit = _EXACT_CACHE[key] = (head, _ExactHead(head))
    return hit[1]


def exact_logits(head: Head, x) -> list[int]:
    """The logits at the float input x, exactly, as integers L with z_i = L_i / D (one
    positive denominator D for all labels, not returned: signs and order are those of L).

    Examples
    --------
    >>> from logitgeom.audit.head import HeadSpec, open_head
    >>> exact_logits(open_head(HeadSpec.from_array([[1, "1/3"], [0, 1]], [0, 1])), [0.5, 3.0])
    [9, 24]
    """
    eh = _exact_head(head)
    xi, ex = float_ints(np.asarray(x, dtype=np.float64))
    T = [sum(a * b for a, b in zip(r, xi, strict=True) if a) for r in eh.R]
    B = eh.B if eh.B is not None else [0] * len(T)
    if ex >= 0:
        return [t * (eh.den_b << ex) + b * eh.den_w for t, b in zip(T, B, strict=True)]
    return [t * eh.den_b + ((b * eh.den_w) << -ex) for t, b in zip(T, B, strict=True)]


def _to_float(q: Fraction) -> float:
    """q rounded to float64; beyond the float range, +-inf (a measurement only)."""
    try:
        return float(q)
    except OverflowError:
        return math.inf if q > 0 else -math.inf


def _exact_row(head: Head, x: np.ndarray, k: int):
    L = exact_logits(head, x)
    sign = np.array([(v > 0) - (v < 0) for v in L], dtype=np.int8)
    order = sorted(range(k), key=lambda i: (-L[i], i))
    tie = np.array([L[order[j]] == L[order[j + 1]] for j in range(k - 1)], dtype=bool)
    eh = _exact_head(head)
    xi, ex = float_ints(np.asarray(x, dtype=np.float64))
    den = eh.den_w * eh.den_b * (1 if ex >= 0 else 2**-ex)
    z = np.array([_to_float(Fraction(v, den)) for v in L], dtype=np.float64)
    return sign, np.array(order), tie, z


def decide_chunk(head: Head, X: np.ndarray, *, first: int = 0) -> Decided:
    """Decide sign pattern, ranking (with exact ties) and argmax for each row of X.

    Parameters
    ----------
    head : logitgeom.audit.head.Head
        The head (k x d, optional bias); its float64 rows are its exact values when
        ``head.binary``, otherwise the filter's bound accounts for their rounding.
    X : numpy.ndarray
        (n, d) inputs, any real float or small-integer dtype (widened to float64 exactly).
    first : int
        Index of the first row in the whole input set (for error messages).

    Returns
    -------
    Decided

    Raises
    ------
    InvalidInput
        X is not (n, d), or an input has a NaN or infinite entry.

    Examples
    --------
    >>> from logitgeom.audit.head import HeadSpec, open_head
    >>> h = open_head(HeadSpec.from_array([[1, 0], [0, 1]]))
    >>> decide_chunk(h, np.array([[0.0, -1.0]])).sign.tolist()
    [[0, -1]]
    """
    X = np.asarray(X)
    if X.ndim != 2 or X.shape[1] != head.d:
        raise InvalidInput(f"inputs must be n x {head.d} (the head's width); got shape "
                           f"{X.shape}")
    if X.dtype.kind not in "fiu" or (X.dtype.kind in "iu" and X.dtype.itemsize > 4):
        raise InvalidInput(f"inputs must be floats or integers of at most 32 bits; got {X.dtype}")
    X = np.ascontiguousarray(X, dtype=np.float64)
    bad = ~np.isfinite(X).all(axis=1)
    if bad.any():
        raise InvalidInput(f"input {first + int(np.argmax(bad))} has a NaN or infinite entry")
    n, k = X.shape[0], head.k
    W = head.chunk(0, k)
    with np.errstate(over="ignore", invalid="ignore"):  # non-finite rows go exact
        Z = X @ W.T
        if head.bias is not None:
            Z += head.bias
        binary = head.binary and head.exact_rows_binary()
        # the bounds of docs/filtered-arithmetic.md (Lemmas 2 and 3): one rounding more
        # per term for a head whose entries are not binary floats
        g = margin_factor(head.d, 0 if binary else 1)
        S = norm_bounds(X)[:, None] * head.norms()[None, :]
        if head.bias is not None:
            S += np.abs(head.bias)[None, :]
        S = g * S + UNDERFLOW_SLACK
        finite = np.isfinite(Z).all(axis=1) & np.isfinite(S).all(axis=1)
        sure = finite & (np.abs(Z) > S).all(axis=1)
        sign = np.sign(Z).astype(np.int8)
        order = np.argsort(-Z, axis=1, kind="stable")
        Zs = np.take_along_axis(Z, order, axis=1)
        Ss = np.take_along_axis(S, order, axis=1)
        gap = Zs[:, :-1] - Zs[:, 1:]
        sure &= (gap > Ss[:, :-1] + Ss[:, 1:]).all(axis=1)
    tie = np.zeros((n, max(0, k - 1)), dtype=bool)
    exact = ~sure
    for r in np.flatnonzero(exact):
        sign[r], order[r], tie[r], Z[r] = _exact_row(head, X[r], k)
    itype = np.int16 if k <= 32767 else np.int32
    order = order.astype(itype)
    argmax = order[:, 0].astype(np.int32)
    if k > 1:
        argmax[tie[:, 0]] = -1
    return Decided(sign, order, tie, argmax, exact, Z)


_PAIRS: dict[tuple, np.ndarray] = {}


def _pair_norms(W: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """||w_a - w_b|| for index arrays a, b of one shape (a k x k table for small heads)."""
    k = W.shape[0]
    if k <= 2048:
        key = (k, W.shape[1], hash(W.tobytes()))
        P = _PAIRS.get(key)
        if P is None:
            P = np.empty((k, k))
            for r0 in range(0, k, 64):
                P[r0:r0 + 64] = np.linalg.norm(W[r0:r0 + 64, None, :] - W[None, :, :], axis=2)
            _PAIRS.clear()
            _PAIRS[key] = P
        return P[a, b]
    out = np.empty(a.shape)
    fa, fb, fo = a.ravel(), b.ravel(), out.reshape(-1)
    step = max(1, (1 << 22) // max(1, W.shape[1]))
    for r0 in range(0, fa.size, step):
        sl = slice(r0, r0 + step)
        fo[sl] = np.linalg.norm(W[fa[sl]] - W[fb[sl]], axis=1)
    return out


def boundary_distances(head: Head, dec: Decided) -> dict[str, np.ndarray]:
    """Euclidean distance of each input to the nearest boundary of its regions (float64
    measurements from the logits: 0 exactly on a boundary, ``inf`` when there is none).

    The region of a ranking is the intersection of the k - 1 half-spaces
    z_{o_j} >= z_{o_{j+1}}; a point's distance to the complement of an intersection of
    half-spaces is the smallest of its distances to their hyperplanes, |z_a - z_b| /
    ||w_a - w_b||.  The same holds for the argmax region (k - 1 half-spaces z_top >= z_i)
    and the sign region (k half-spaces s_i z_i >= 0, distance |z_i| / ||w_i||).

    Returns
    -------
    dict
        ``sign``, ``ranking``, ``argmax`` (float64 arrays of length n) and ``margin``
        (the logit gap between the first and second label, 0 on a tie).

    Examples
    --------
    >>> from logitgeom.audit.head import HeadSpec, open_head
    >>> h = open_head(HeadSpec.from_array([[1, 0], [0, 1]]))
    >>> dd = boundary_distances(h, decide_chunk(h, np.array([[3.0, 1.0]])))
    >>> [round(float(dd[key][0]), 4) for key in ("sign", "ranking", "argmax", "margin")]
    [1.0, 1.4142, 1.4142, 2.0]
    """
    W = head.chunk(0, head.k)
    Z = dec.logits
    n, k = Z.shape
    with np.errstate(divide="ignore", invalid="ignore"):
        rn = np.linalg.norm(W, axis=1)
        ds = np.where(rn[None, :] > 0, np.abs(Z) / rn[None, :], np.inf)
        ds[dec.sign == 0] = 0.0
        if k < 2:
            inf = np.full(n, np.inf)
            return {"sign": ds.min(axis=1), "ranking": inf, "argmax": inf,
                    "margin": inf}
        o = dec.order.astype(np.int64)
        Zs = np.take_along_axis(Z, o, axis=1)
        pn = _pair_norms(W, o[:, :-1], o[:, 1:])
        gap = np.maximum(Zs[:, :-1] - Zs[:, 1:], 0.0)
        gap[dec.tie] = 0.0
        dr = np.where(pn > 0, gap / pn, np.where(dec.tie, 0.0, np.inf))
        top = o[:, 0]
        da = np.empty(n)
        for t in np.unique(top):
            rows = np.flatnonzero(top == t)
            pa = np.linalg.norm(W[t][None, :] - W, axis=1)
            ga = np.maximum(Z[rows, t][:, None] - Z[rows], 0.0)
            dt = np.where(pa[None, :] > 0, ga / pa[None, :], np.inf)
            dt[:, t] = np.inf
            da[rows] = dt.min(axis=1)
        da[dec.argmax < 0] = 0.0
        margin = np.where(dec.tie[:, 0], 0.0, np.maximum(Zs[:, 0] - Zs[:, 1], 0.0))
    return {"sign": ds.min(axis=1), "ranking": dr.min(axis=1), "argmax": da, "margin": margin}


__all__ += ["boundary_distances"]
