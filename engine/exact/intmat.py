"""Integer matrices: the exact crossing from floats to integers, and fraction-free solves.

Two jobs of the argmax audit live here, on the exact side of the engine:

* :func:`float_ints` turns float64 numbers into integers over one power-of-two denominator
  (a float64 is a binary rational, so this is exact);
* :func:`solve_rational` solves a consistent linear system ``M z = rhs`` over the rationals
  (reduced row echelon form), giving free variables the values the caller proposes.

The back end is FLINT (``python-flint``'s ``fmpz_mat.rref``, fraction-free and fast at
d = 768) when it is installed, else a pure-Python Gauss-Jordan elimination on
:class:`fractions.Fraction` (same answers, slower).  :data:`BACKEND` names the one in use.

Examples
--------
>>> float_ints([0.5, 3.0, -0.25])
([2, 12, -1], -2)
>>> solve_rational([[1, 1], [1, -1]], [3, 1], [None, None])
[Fraction(2, 1), Fraction(1, 1)]
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

_flint: Any
try:  # pragma: no cover - depends on the installation
    import flint as _flint
except ImportError:  # pragma: no cover
    _flint = None

__all__ = ["BACKEND", "float_ints", "solve_rational"]

#: ``"flint"`` or ``"fraction"``: the back end :func:`solve_rational` uses.
BACKEND = "flint" if _flint is not None else "fraction"


def float_ints(a) -> tuple[list[int], int]:
    """Integers m and one exponent e with ``a = m * 2**e`` exactly.

    Parameters
    ----------
    a : array_like of float
        Finite float64 values (any shape; flattened).

    Returns
    -------
    (list of int, int)
        The integers (row-major) and the common exponent (0 when every entry is 0).

    Examples
    --------
    >>> float_ints([1.0, 0.0, 0.75])
    ([4, 0, 3], -2)
    """
    a = np.asarray(a, dtype=np.float64).ravel()
    if not np.all(np.isfinite(a)):
        raise ValueError("float_ints needs finite values")
    mant, ex = np.frexp(a)
    mi = (mant * 2.0**53).astype(np.int64)
    ee = ex.astype(np.int64) - 53
    nz = mi != 0
    if not nz.any():
        return [0] * a.size, 0
    # strip trailing zero bits so the exponent is as large as possible (smaller integers)
    tz = np.zeros_like(mi)
    m2 = np.abs(mi)
    for b in (32, 16, 8, 4, 2, 1):
        mask = nz & ((m2 & ((1 << b) - 1)) == 0)
        m2 = np.where(mask, m2 >> b, m2)
        tz = np.where(mask, tz + b, tz)
    mi = np.where(nz, np.sign(mi) * m2, 0)
    ee = ee + tz
    emin = int(ee[nz].min())
    sh = (ee - emin).tolist()
    return [int(m) << s if m else 0 for m, s in zip(mi.tolist(), sh, strict=True)], emin


def solve_rational(M: Sequence[Sequence[int]], rhs: Sequence[int],
                   free_values: Sequence[Fraction | float | None]) -> list[Fraction] | None:
    """One rational solution of ``M z = rhs`` (integer data), or None if inconsistent.

    Parameters
    ----------
    M : sequence of sequences of int
        The m x n coefficient matrix.
    rhs : sequence of int
        Right-hand side (length m).
    free_values : sequence
        Proposed values for the variables; those that end up free take them (exactly as the
        binary rational a float denotes; None means 0).

    Returns
    -------
    list of Fraction or None

    Examples
    --------
    >>> solve_rational([[1, 1]], [1], [0.25, None])
    [Fraction(1, 1), Fraction(0, 1)]
    >>> solve_rational([[1, 1], [1, 1]], [1, 2], [None, None]) is None
    True
    """
    m = len(M)
    n = len(M[0]) if m else len(free_values)
    if _flint is not None and m:
        A = _flint.fmpz_mat(m, n + 1, [int(v) for r, b in zip(M, rhs, strict=True)
                                        for v in (*r, b)])
        E, _den, rank = A.rref()
        piv_rows: Sequence[Sequence[int | Fraction]] = \
            [[int(E[r, c]) for c in range(n + 1)] for r in range(rank)]
    else:
        rows = [[Fraction(v) for v in (*r, b)] for r, b in zip(M, rhs, strict=True)]
        piv_rows = _rref_fraction(rows, n)
    pivots = []
    for r in piv_rows:
        c = next(c for c, v in enumerate(r) if v != 0)
        if c == n:
            return None
        pivots.append(c)
    fixed = set(pivots)
    sol = [Fraction(0)] * n
    for c in range(n):
        value = free_values[c]
        if c not in fixed and value is not None:
            sol[c] = Fraction(value)
    for r, p in zip(piv_rows, pivots, strict=True):
        acc = Fraction(r[n])
        for c in range(n):
            if c not in fixed and r[c]:
                acc -= r[c] * sol[c]
        sol[p] = acc / r[p]  # the pivot entry (den for FLINT's fraction-free form, else 1)
    return sol


def _rref_fraction(rows: list[list[Fraction]], n: int) -> list[list[Fraction]]:
    """Gauss-Jordan on Fractions: the non-zero rows of the reduced echelon form, pivot 1."""
    out: list[list[Fraction]] = []
    rows = [r[:] for r in rows]
    col = 0
    r0 = 0
    while r0 < len(rows) and col <= n:
        piv = next((i for i in range(r0, len(rows)) if rows[i][col] != 0), None)
        if piv is None:
            col += 1
            continue
        rows[r0], rows[piv] = rows[piv], rows[r0]
        p = rows[r0][col]
        rows[r0] = [v / p for v in rows[r0]]
        for i in range(len(rows)):
            if i != r0 and rows[i][col] != 0:
                f = rows[i][col]
                rows[i] = [a - f * b for a, b in zip(rows[i], rows[r0], strict=True)]
        r0 += 1
        col += 1
    for r in rows[:r0]:
        out.append(r)
    return out
