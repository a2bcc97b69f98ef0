"""Cross-entropy, entropy and softmax on the float side (numpy and CVXPY forms).

Examples
--------
>>> import numpy as np
>>> Y = np.array([[0.5], [0.5]])
>>> abs(cross_entropy(np.zeros((2, 1)), Y) - float(np.log(2))) < 1e-15
True
"""

from __future__ import annotations

import cvxpy as cp
import numpy as np

__all__ = ["cross_entropy", "entropy", "softmax", "cross_entropy_expr"]

#: columns per chunk of the n-sized float work (bounds the temporaries for huge n)
CHUNK = 1 << 18


def softmax(Z: np.ndarray) -> np.ndarray:
    """Column-wise softmax of a logit matrix (numerically stable)."""
    Z = np.asarray(Z, dtype=float)
    E = Z - Z.max(axis=0, keepdims=True)
    np.exp(E, out=E)
    E /= E.sum(axis=0, keepdims=True)
    return E


def cross_entropy(Z: np.ndarray, Y: np.ndarray, weights: np.ndarray | None = None, *,
                  scale: float = 1.0) -> float:
    """J(scale Z) = sum_j w_j CE(scale Z[:, j]; Y[:, j]) (w = 1 by default).

    ``lse`` is evaluated as ``max + log1p(sum of the other exp)``, so a near one-hot column
    keeps its tiny loss (1e-20) instead of rounding it to 0 or 1e-16.

    Examples
    --------
    >>> cross_entropy(np.array([[60.0], [0.0]]), np.array([[1.0], [0.0]])) > 0
    True
    """
    Z = np.asarray(Z, dtype=float)
    n = Z.shape[1]
    per = np.empty(n)
    for a in range(0, n, CHUNK):  # numpy in chunks: scipy's logsumexp is 4x slower
        z, y = Z[:, a:a + CHUNK], Y[:, a:a + CHUNK]
        if scale != 1.0:
            z = z * scale
        top = z.argmax(axis=0)
        cols = np.arange(z.shape[1])
        mx = z[top, cols]
        t = z - mx[None, :]
        np.exp(t, out=t)
        t[top, cols] = 0.0  # lse = mx + log1p(others): exact for near one-hot columns
        per[a:a + CHUNK] = (mx - np.einsum("ij,ij->j", y, z)) + np.log1p(t.sum(axis=0))
    if weights is not None:
        per = per * weights
    return float(np.sum(per))


def entropy(A: np.ndarray) -> float:
    """Sum over columns of the Shannon entropy (natural log; 0 log 0 = 0)."""
    A = np.asarray(A, dtype=float)
    total = 0.0
    for a in range(0, A.shape[1], CHUNK):
        blk = A[:, a:a + CHUNK]
        logs = np.log(blk, out=np.zeros_like(blk), where=blk > 0)
        total += float(np.einsum("ij,ij->", blk, logs))
    return -total


def cross_entropy_expr(Z: cp.Expression, Y: np.ndarray,
                       weights: np.ndarray | None = None) -> cp.Expression:
    """The CVXPY expression of :func:`cross_entropy` for a matrix variable ``Z``."""
    lse = cp.log_sum_exp(Z, axis=0)
    lin = cp.sum(cp.multiply(Y, Z), axis=0)
    if weights is None:
        return cp.sum(lse) - cp.sum(lin)
    return weights @ lse - weights @ lin
