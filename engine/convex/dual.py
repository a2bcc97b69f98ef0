"""The dual lower bound of the logit-level program (docs/layer-peeled.md).

``min_{||Z||_* <= rho} J(Z) = max_{A column-stochastic} sum_j Ent(A[:, j]) - rho sigma_max(A - Y)``.
Any feasible Z gives the upper bound J(Z); any column-stochastic A gives a lower bound;
at the optimum ``A = softmax(Z*)``.  These are float figures (no rigorous rounding
control): a numerical optimality check, not an exact certificate.

Examples
--------
>>> import numpy as np
>>> Y = np.array([[0.9, 0.2], [0.1, 0.8]])
>>> b = dual_bound(np.zeros((2, 2)), Y, 1.0)
>>> b.upper >= b.lower, abs(b.upper - 2 * float(np.log(2))) < 1e-12
(True, True)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from logitgeom.convex.loss import CHUNK, cross_entropy, entropy, softmax
from logitgeom.errors import InvalidInput

__all__ = ["DualBound", "dual_bound", "dual_value"]


@dataclass(frozen=True)
class DualBound:
    """``upper = J(Z)``, ``lower`` = dual value at ``A``, ``gap = upper - lower``."""

    upper: float
    lower: float
    gap: float
    A: np.ndarray | None


def dual_value(A: np.ndarray, Y: np.ndarray, rho: float) -> float:
    """``sum_j Ent(A[:, j]) - rho * sigma_max(A - Y)`` for a column-stochastic A.

    Raises
    ------
    InvalidInput
        A has negative entries or a column not summing to 1 (within 1e-9), or shapes differ.

    Examples
    --------
    >>> dual_value(np.eye(2), np.eye(2), 3.0) == 0
    True
    """
    A = np.asarray(A, dtype=float)
    Y = np.asarray(Y, dtype=float)
    if A.shape != Y.shape:
        raise InvalidInput(f"A has shape {A.shape} but Y has shape {Y.shape}")
    if np.any(A < 0) or np.any(np.abs(A.sum(axis=0) - 1) > 1e-9):
        raise InvalidInput("A must be column-stochastic (non-negative, columns summing to 1)")
    return entropy(A) - float(rho) * _sigma_max(A, Y)


def _sigma_max(A: np.ndarray, Y: np.ndarray) -> float:
    """Largest singular value of ``A - Y`` from the smaller Gram (the largest eigenvalue is
    accurate to rounding relative to itself), accumulated over column chunks (no n-sized
    temporary beyond one chunk)."""
    m, n = A.shape
    if n < m:
        D = A - Y
        return float(np.sqrt(max(float(np.linalg.eigvalsh(D.T @ D)[-1]), 0.0)))
    G = np.zeros((m, m))
    for a in range(0, n, CHUNK):
        D = A[:, a:a + CHUNK] - Y[:, a:a + CHUNK]
        G += D @ D.T
    return float(np.sqrt(max(float(np.linalg.eigvalsh(G)[-1]), 0.0)))


def dual_bound(Z: np.ndarray, Y: np.ndarray, rho: float, *, keep_A: bool = True) -> DualBound:
    """Primal value at Z, dual value at ``A = softmax(Z)`` and their gap.

    For wide matrices (n >= 8 m) the work runs over column chunks and ``sigma_max(A - Y)``
    comes from the m x m Gram, so with ``keep_A=False`` no n-sized array is allocated
    beyond one chunk (``A`` is then None).

    Parameters
    ----------
    Z : numpy.ndarray
        Feasible logits (``||Z||_* <= rho``), m x n.
    Y : numpy.ndarray
        Target, m x n.
    rho : float
        Radius ``sqrt(E_W E_H)``.

    Returns
    -------
    DualBound

    Examples
    --------
    >>> Y = np.array([[0.5, 0.5], [0.5, 0.5]])
    >>> dual_bound(np.zeros((2, 2)), Y, 1.0).gap
    0.0
    """
    Z = np.asarray(Z, dtype=float)
    Y = np.asarray(Y, dtype=float)
    m, n = Z.shape
    if n < 8 * m:
        A = softmax(Z)
        upper = cross_entropy(Z, Y)
        lower = dual_value(A, Y, rho)
        return DualBound(upper=upper, lower=lower, gap=upper - lower, A=A if keep_A else None)
    A = np.empty_like(Z) if keep_A else None
    upper, ent, G = 0.0, 0.0, np.zeros((m, m))
    for a in range(0, n, CHUNK):
        z, y = Z[:, a:a + CHUNK], Y[:, a:a + CHUNK]
        upper += cross_entropy(z, y)
        t = softmax(z)
        ent += entropy(t)
        D = t - y
        G += D @ D.T
        if A is not None:
            A[:, a:a + CHUNK] = t
    lower = ent - float(rho) * float(np.sqrt(max(float(np.linalg.eigvalsh(G)[-1]), 0.0)))
    return DualBound(upper=upper, lower=lower, gap=upper - lower, A=A)
