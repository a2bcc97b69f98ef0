"""Heads whose counts are known: resonance, braid deformations, circulant and simplex-ETF heads.

Builders return exact integer matrices (and biases) in the head convention of
:mod:`logitgeom.geometry` (rows are labels).  The closed formulas are the published region
counts used to check :func:`logitgeom.geometry.chipoly.characteristic_polynomial`.

* ``resonance(n)``: the ``2^n - 1`` non-zero 0/1 vectors of ``R^n``;
* ``deformation(n, shifts)``: ``x_i - x_j = s`` for ``i < j`` and every ``s`` in
  ``shifts``: Shi ``(0, 1)``, Catalan ``(-1, 0, 1)``, Linial ``(1,)``, semiorder
  ``(-1, 1)``;
* ``circulant(v)``: the cyclic shifts of ``v`` (the cyclic group acts on labels and
  coordinates together);
* ``simplex_etf(m)``: rows ``m e_i - 1`` (all ``m!`` rankings are realised).

Examples
--------
>>> W, b = deformation(3, SHI)
>>> len(W), shi_count(3), catalan_count(3), linial_count(3), semiorder_count(3)
(6, 16, 30, 7, 19)
>>> circulant([1, 2, 0])
[[1, 2, 0], [0, 1, 2], [2, 0, 1]]
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from math import comb, factorial

from logitgeom.errors import InvalidInput

__all__ = ["resonance", "deformation", "circulant", "simplex_etf", "SHI", "CATALAN", "LINIAL",
           "SEMIORDER", "shi_count", "catalan_count", "linial_count", "semiorder_count",
           "RESONANCE_REGIONS"]

SHI = (0, 1)
CATALAN = (-1, 0, 1)
LINIAL = (1,)
SEMIORDER = (-1, 1)

#: regions of the resonance arrangement (OEIS A034997; n = 8 Kühne, n = 9 Chroman-Singhal)
RESONANCE_REGIONS = {1: 2, 2: 6, 3: 32, 4: 370, 5: 11292, 6: 1066044, 7: 347326352,
                     8: 419172756930, 9: 1955230985997140}


def _n(n: object, least: int = 1) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < least:
        raise InvalidInput(f"n must be an integer >= {least}; got {n!r}")
    return n


def resonance(n: int) -> list[list[int]]:
    """The resonance arrangement of ``R^n``: every non-zero 0/1 vector, as rows.

    Examples
    --------
    >>> resonance(2)
    [[0, 1], [1, 0], [1, 1]]
    """
    _n(n)
    return [list(v) for v in product((0, 1), repeat=n) if any(v)]


def deformation(n: int, shifts: tuple[int, ...]) -> tuple[list[list[int]], list[int]]:
    """``(W, b)`` of the hyperplanes ``x_i - x_j = s`` (``i < j``, ``s`` in ``shifts``).

    As a head: row ``e_i - e_j`` with bias ``-s``, so ``W x + b = 0`` is the hyperplane.

    Examples
    --------
    >>> deformation(2, LINIAL)
    ([[1, -1]], [-1])
    """
    _n(n, 2)
    W, b = [], []
    for i in range(n):
        for j in range(i + 1, n):
            for s in shifts:
                W.append([1 if c == i else -1 if c == j else 0 for c in range(n)])
                b.append(-s)
    return W, b


def circulant(v: list[int]) -> list[list[int]]:
    """The ``len(v) x len(v)`` circulant head: row ``i`` is ``v`` shifted right ``i`` times.

    Examples
    --------
    >>> circulant([1, 0])
    [[1, 0], [0, 1]]
    """
    m = len(v)
    if m < 1:
        raise InvalidInput("the circulant needs a non-empty vector")
    return [[v[(c - i) % m] for c in range(m)] for i in range(m)]


def simplex_etf(m: int) -> list[list[int]]:
    """The simplex-ETF head of ``m`` labels: rows ``m e_i - (1, ..., 1)``.

    Examples
    --------
    >>> simplex_etf(3)
    [[2, -1, -1], [-1, 2, -1], [-1, -1, 2]]
    """
    _n(m, 2)
    return [[m - 1 if c == i else -1 for c in range(m)] for i in range(m)]


def shi_count(n: int) -> int:
    """Regions of the Shi arrangement: ``(n + 1)^(n - 1)``.

    Examples
    --------
    >>> shi_count(10)
    2357947691
    """
    return (_n(n) + 1) ** (n - 1)


def catalan_count(n: int) -> int:
    """Regions of the Catalan arrangement: ``n! C_n`` (``C_n`` the Catalan number).

    Examples
    --------
    >>> catalan_count(4)
    336
    """
    return factorial(_n(n)) * comb(2 * n, n) // (n + 1)


def linial_count(n: int) -> int:
    """Regions of the Linial arrangement (Postnikov-Stanley): ``2^-n sum_k C(n,k) (k+1)^(n-1)``.

    Examples
    --------
    >>> [linial_count(n) for n in range(1, 6)]
    [1, 2, 7, 36, 246]
    """
    _n(n)
    return sum(comb(n, k) * (k + 1) ** (n - 1) for k in range(n + 1)) // 2**n


def semiorder_count(n: int) -> int:
    """Regions of the semiorder arrangement: labelled semiorders on ``n`` points.

    The coefficient of ``x^n / n!`` in ``C(1 - e^(-x))``, ``C(y) = sum_k C_k y^k``
    (Chandon-Lemaire-Pouget), in exact rational series arithmetic.

    Examples
    --------
    >>> [semiorder_count(n) for n in range(1, 6)]
    [1, 3, 19, 183, 2371]
    """
    _n(n)
    y = [Fraction(0)] + [Fraction((-1) ** (j + 1), factorial(j)) for j in range(1, n + 1)]
    total = [Fraction(0)] * (n + 1)
    power = [Fraction(1)] + [Fraction(0)] * n  # y^0
    for k in range(n + 1):
        cat = comb(2 * k, k) // (k + 1)
        for i in range(n + 1):
            total[i] += cat * power[i]
        nxt = [Fraction(0)] * (n + 1)
        for i, a in enumerate(power):
            if a:
                for j in range(1, n + 1 - i):
                    nxt[i + j] += a * y[j]
        power = nxt
    out = total[n] * factorial(n)
    assert out.denominator == 1
    return int(out)
