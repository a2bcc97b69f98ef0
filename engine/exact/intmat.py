"""Integer matrices: the exact crossing from floats to integers, and fraction-free solves.

Two jobs of the argmax audit live here, on the exact side of the engine:

* :func:`float_ints` turns float64 numbers into integers over one power-of-two denominator
  (a float64 is a binary rational, so this is exact), on :func:`float_int64`'s int64
  mantissas and shifts (which callers in int64 use directly);
* :func:`solve_rational` solves a consistent linear system ``M z = rhs`` over the rationals
  (reduced row echelon form), giving free variables the values the caller proposes;
* :func:`solve_square` solves a square non-singular system, the answer as integers over one
  common denominator (FLINT's ``fmpz_mat.solve``, no Fractions on the way);
* :func:`int_combination` (sum_i c_i r_i of integer vectors) and :func:`int_str` (decimal
  text of an integer of any length) are the exact check's and the writer's big-number work.

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

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

_flint: Any
try:  # pragma: no cover - depends on the installation
    import flint as _flint
except ImportError:  # pragma: no cover
    _flint = None

__all__ = ["BACKEND", "float_int64", "float_ints", "solve_rational", "solve_square",
           "int_combination", "int_str"]

#: ``"flint"`` or ``"fraction"``: the back end :func:`solve_rational` uses.
BACKEND = "flint" if _flint is not None else "fraction"


def float_int64(a: Any) -> tuple[np.ndarray, np.ndarray, int, int]:
    """Floats as odd int64 mantissas shifted over one least exponent: ``a = (m << s) 2**e``.

    Parameters
    ----------
    a : array_like of float
        Finite float64 values (any shape, kept).

    Returns
    -------
    (numpy.ndarray, numpy.ndarray, int, int)
        ``m`` (int64): 0 for a zero (either sign), else the entry's significand without its
        trailing zero bits, odd and below 2^53 in magnitude, of the entry's sign; ``s``
        (int64, >= 0, 0 where m = 0) and the least exponent ``e`` (0 when every entry is 0)
        with ``a = m 2^(s + e)`` exactly; and ``width``, with every integer
        ``a 2^-e = m << s`` below ``2^width`` in magnitude (0 when every entry is 0).

    Raises
    ------
    ValueError
        On a NaN or infinite entry.

    Notes
    -----
    Nothing overflows: ``frexp`` gives ``a = f 2^x`` with ``1/2 <= |f| < 1`` (subnormals
    too), so ``f 2^53`` is an integer of exactly 53 bits (a float64 has 53 significant
    bits: exact) and ``x`` lies in [-1073, 1024]; stripping the trailing zeros only shrinks
    it, and every exponent and shift is below 2^12.  The widest integer is the entry of the
    largest x, of ``width = max x - e`` bits.  This function forms no integer ``m << s``
    itself: int64 holds all of them exactly when ``width <= 63``, and a caller forms them
    in int64 only then (else as Python integers, as :func:`float_ints` does).

    Examples
    --------
    >>> m, s, e, width = float_int64([0.5, 3.0, -0.25])
    >>> m.tolist(), s.tolist(), e, width, (m << s).tolist()
    ([1, 3, -1], [1, 2, 0], -2, 4, [2, 12, -1])
    """
    a = np.asarray(a, dtype=np.float64)
    if not np.all(np.isfinite(a)):
        raise ValueError("float_ints needs finite values")
    mant, ex = np.frexp(a)  # |a| in [2^(ex - 1), 2^ex)
    mi = (mant * 2.0**53).astype(np.int64)  # a = mi 2^(ex - 53), |mi| in [2^52, 2^53)
    nz = mi != 0
    if not nz.any():
        zero = np.zeros(a.shape, dtype=np.int64)
        return zero, zero.copy(), 0, 0
    # trailing zero bits of mi: the exponent of its lowest set bit (a power of two below
    # 2^53, exact in float64; 0 for a zero, whose shift is then 0)
    low = np.maximum(np.frexp((mi & -mi).astype(np.float64))[1] - 1, 0).astype(np.int64)
    ee = ex.astype(np.int64) - 53 + low  # a = (mi >> low) 2^ee, the shift exact
    e = int(ee[nz].min())
    return mi >> low, np.where(nz, ee - e, 0), e, int(ex[nz].max()) - e


def float_ints(a: Any) -> tuple[list[int], int]:
    """Integers m and one exponent e with ``a = m * 2**e`` exactly.

    Parameters
    ----------
    a : array_like of float
        Finite float64 values (any shape; flattened).

    Returns
    -------
    (list of int, int)
        The integers (row-major) and the common exponent (0 when every entry is 0): the
        least exponent of :func:`float_int64`, so the integers are as small as they can be.

    Examples
    --------
    >>> float_ints([1.0, 0.0, 0.75])
    ([4, 0, 3], -2)
    """
    m, s, e, width = float_int64(np.asarray(a, dtype=np.float64).ravel())
    if width <= 63:  # every m << s fits int64 (float_int64)
        return (m << s).tolist(), e
    return [int(v) << t if v else 0 for v, t in zip(m.tolist(), s.tolist(), strict=True)], e


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


def solve_square(M: Sequence[Sequence[int]], rhs: Sequence[int]
                 ) -> tuple[list[int], int] | None:
    """Integers z and a common denominator den > 0 with ``M (z / den) = rhs`` exactly.

    Parameters
    ----------
    M : sequence of sequences of int
        A square n x n integer matrix.
    rhs : sequence of int
        Right-hand side (length n).

    Returns
    -------
    (list of int, int) or None
        The numerators and the denominator (in lowest terms as a whole: gcd(z, den) = 1);
        None when M is singular.

    Raises
    ------
    ValueError
        When M is not square or rhs has the wrong length.

    Examples
    --------
    >>> solve_square([[2, 1], [1, 3]], [1, 0])
    ([3, -1], 5)
    >>> solve_square([[1, 2], [2, 4]], [1, 0]) is None
    True
    """
    n = len(M)
    if any(len(r) != n for r in M) or len(rhs) != n:
        raise ValueError("solve_square needs a square matrix and a matching right-hand side")
    if n == 0:
        return [], 1
    if _flint is not None:
        A = _flint.fmpz_mat([[int(v) for v in r] for r in M])
        try:
            X = A.solve(_flint.fmpz_mat(n, 1, [int(v) for v in rhs]))
        except ZeroDivisionError:
            return None
        num, den = X.numer_denom()
        z, dd = [int(v) for v in num.entries()], int(den)
    else:
        rows = [[Fraction(v) for v in (*r, b)] for r, b in zip(M, rhs, strict=True)]
        E = _rref_fraction(rows, n)
        if len(E) < n or any(not any(r[:n]) for r in E):
            return None
        sol = [Fraction(0)] * n
        for r in E:
            c = next(c for c, v in enumerate(r) if v != 0)
            sol[c] = r[n] / r[c]
        dd = math.lcm(*(q.denominator for q in sol))
        z = [q.numerator * (dd // q.denominator) for q in sol]
    if dd < 0:
        z, dd = [-v for v in z], -dd
    g = math.gcd(dd, *z)
    return [v // g for v in z], dd // g


def int_combination(c: Sequence[int], rows: Sequence[Sequence[int]]) -> list[int]:
    """The exact integer vector sum_i c_i rows_i (FLINT's matrix product when installed).

    Parameters
    ----------
    c : sequence of int
        Coefficients (length n).
    rows : sequence of sequences of int
        n integer vectors of one length d (n >= 1).

    Returns
    -------
    list of int

    Raises
    ------
    ValueError
        When the lengths do not match.

    Examples
    --------
    >>> int_combination([2, -1], [[1, 0, 3], [2, 5, 6]])
    [0, -5, 0]
    """
    if len(c) != len(rows) or not rows:
        raise ValueError("int_combination needs one coefficient per row (and a row)")
    d = len(rows[0])
    if any(len(r) != d for r in rows):
        raise ValueError("int_combination needs rows of one length")
    if _flint is not None and len(rows) * d >= 64:
        out = _flint.fmpz_mat(1, len(c), [int(v) for v in c]) * _flint.fmpz_mat(
            [[int(v) for v in r] for r in rows])
        return [int(v) for v in out.entries()]
    acc = [0] * d
    for ci, r in zip(c, rows, strict=True):
        if ci:
            for j, v in enumerate(r):
                if v:
                    acc[j] += ci * v
    return acc


def int_str(v: int) -> str:
    """Decimal text of an integer of any length, never through the interpreter's digit limit
    (FLINT's conversion when installed, else ``logitgeom_certificates.api.int_to_str``).

    Parameters
    ----------
    v : int

    Returns
    -------
    str

    Examples
    --------
    >>> int_str(-12345)
    '-12345'
    >>> len(int_str(10**5000))
    5001
    """
    if _flint is not None:
        return str(_flint.fmpz(int(v)))
    from logitgeom_certificates.api import int_to_str

    out: str = int_to_str(int(v))
    return out


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
