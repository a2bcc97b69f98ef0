"""One exact factorisation, many right-hand sides: ``A N_j = D b_j`` for a square integer A.

Clustered never labels of an argmax audit share a Gordan support S: each label k asks for
lambda with ``sum_i lambda_i w_i = w_k`` and ``sum_i lambda_i = 1`` on the same matrix
``A = [W_S^T; 1]``.  :func:`solve_columns` solves all of them against one factorisation of A
and returns integer numerators over one positive denominator D.

Examples
--------
>>> solve_columns([[2, 1], [1, 3]], [[1, 0], [0, 5]])
([[3, -1], [-5, 10]], 5)
>>> solve_columns([[1, 2], [2, 4]], [[1, 0]]) is None
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from logitgeom.exact.intmat import solve_square

_flint: Any
try:  # pragma: no cover - depends on the installation
    import flint as _flint
except ImportError:  # pragma: no cover
    _flint = None

__all__ = ["solve_columns"]


def solve_columns(A: Sequence[Sequence[int]], B: Sequence[Sequence[int]]
                  ) -> tuple[list[list[int]], int] | None:
    """Integer numerators N_j and one denominator D > 0 with ``A N_j = D b_j`` exactly.

    Parameters
    ----------
    A : sequence of sequences of int
        A square n x n integer matrix (rows).
    B : sequence of sequences of int
        The right-hand sides b_j, each of length n (at least one).

    Returns
    -------
    (list of list of int, int) or None
        N (one integer vector per right-hand side) and D; None when A is singular.
        D divides det(A) times a unit; no minimality is promised: callers reduce each
        column themselves (gcd of the column and D).

    Raises
    ------
    ValueError
        When A is not square or a right-hand side has the wrong length.

    Examples
    --------
    >>> solve_columns([[1, 0], [0, 2]], [[1, 1]])
    ([[2, 1]], 2)
    """
    n = len(A)
    if any(len(r) != n for r in A) or not B or any(len(b) != n for b in B):
        raise ValueError("solve_columns needs a square matrix and right-hand sides of its size")
    if _flint is None:  # pragma: no cover - without FLINT: one Fraction solve per column
        sols = [solve_square(A, b) for b in B]
        if any(s is None for s in sols):
            return None
        D = math.lcm(*(s[1] for s in sols if s is not None))
        return [[v * (D // s[1]) for v in s[0]] for s in sols if s is not None], D
    M = _flint.fmpz_mat([[int(v) for v in r] for r in A])
    rhs = _flint.fmpz_mat(n, len(B), [int(B[j][i]) for i in range(n) for j in range(len(B))])
    try:
        X = M.solve(rhs)
    except ZeroDivisionError:
        return None
    num, den = X.numer_denom()
    D = int(den)
    vals = [int(v) for v in num.entries()]
    m = len(B)
    N = [[vals[i * m + j] for i in range(n)] for j in range(m)]
    if D < 0:
        N, D = [[-v for v in col] for col in N], -D
    return N, D
