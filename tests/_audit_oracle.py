"""The argmax audit's independent exact oracle for tests (written apart from the audit code):
label k of a head without a bias is never the argmax iff w_k is a convex combination of the
other rows, decided by phase I of the simplex method on Fractions."""

from __future__ import annotations

from fractions import Fraction

import numpy as np


def _simplex_feasible(A: list[list[Fraction]], b: list[Fraction]) -> bool:
    """Exact: is {y >= 0 : A y = b} non-empty?  Phase I of the simplex method on
    Fractions (artificial variables, Bland's rule: no cycling)."""
    m, n = len(A), len(A[0])
    T = []
    for i in range(m):
        s = -1 if b[i] < 0 else 1
        T.append([s * a for a in A[i]] + [Fraction(int(j == i)) for j in range(m)]
                 + [s * b[i]])
    basis = list(range(n, n + m))
    cost = [Fraction(0)] * n + [Fraction(1)] * m + [Fraction(0)]
    red = cost[:]  # reduced costs: cost - sum of basic rows
    for i in range(m):
        red = [r - t for r, t in zip(red, T[i], strict=True)]
    while True:
        col = next((j for j in range(n + m) if red[j] < 0), None)
        if col is None:
            return -red[-1] == 0  # the artificial variables' least sum is 0
        rows = [i for i in range(m) if T[i][col] > 0]
        r = min(rows, key=lambda i: (T[i][-1] / T[i][col], basis[i]))
        piv = T[r][col]
        T[r] = [v / piv for v in T[r]]
        for i in range(m):
            if i != r and T[i][col] != 0:
                f = T[i][col]
                T[i] = [a - f * c for a, c in zip(T[i], T[r], strict=True)]
        f = red[col]
        red = [a - f * c for a, c in zip(red, T[r], strict=True)]
        basis[r] = col


def oracle(W: np.ndarray, k: int) -> str:
    """'never' iff w_k is a convex combination of the other rows (Gordan; no bias), decided
    exactly on every row of the head."""
    Wq = [[Fraction(float(v)) for v in row] for row in W]
    others = [i for i in range(len(Wq)) if i != k]
    A = [[Wq[i][j] for i in others] for j in range(len(Wq[0]))] + [[Fraction(1)] * len(others)]
    b = [*Wq[k], Fraction(1)]
    return "never" if _simplex_feasible(A, b) else "argmaxable"
