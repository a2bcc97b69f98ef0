"""Wide systems (many more columns than rows) reduced to a column basis, exactly.

A strict system {x : r . x > 0 for every row r} of m rows in d >> m unknowns has the same
answer as the system restricted to any set C of columns that is a basis of the column
space of R (the m x d matrix of rows):

* every column of R is a combination of the columns in C, so the image R x equals the
  image R_C y: a witness y of the small system, put on the coordinates C (zeros
  elsewhere), is a witness of the wide one, and conversely the sign question is the same;
* y^T R = 0 exactly when y^T R_C = 0, so Gordan multipliers (and their circuit supports)
  are the same vectors.

The LPs then have at most m unknowns instead of d: the dense tableau of an LP in d
unknowns grows as d^2 (a 2 x 200,000 head needed more than 20 GB before this reduction).
:func:`logitgeom.exact.linalg.column_basis` finds C (reduced row echelon form, O(m^2 d)).

Examples
--------
>>> from logitgeom.exact.linalg import column_basis
>>> column_basis([[1, 2, 3, 4], [2, 4, 6, 9]])
(0, 3)
>>> lift((5, -1), [0, 3], 4)
(5, 0, 0, -1)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["WIDE", "is_wide", "lift"]

#: Reduce only systems with more than this many unknowns (and more unknowns than rows):
#: small systems keep the certificates they always had.
WIDE = 32


def is_wide(m: int, d: int) -> bool:
    """True when a system of ``m`` rows in ``d`` unknowns is worth reducing.

    Examples
    --------
    >>> is_wide(2, 200_000), is_wide(5, 3), is_wide(2, 10)
    (True, False, False)
    """
    return d > WIDE and d > m


def lift(z: Sequence[Any], cols: Sequence[int], d: int) -> tuple[Any, ...]:
    """The vector of length ``d`` with ``z`` on the coordinates ``cols`` and 0 elsewhere.

    Examples
    --------
    >>> lift((1, 2), [1, 2], 3)
    (0, 1, 2)
    """
    out = [type(z[0])(0) if z else 0] * d
    for j, v in zip(cols, z, strict=True):
        out[j] = v
    return tuple(out)
