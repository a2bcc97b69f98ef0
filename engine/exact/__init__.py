"""The exact side: rationals only.  Decides every discrete claim.

The one exact kernel: :mod:`engine.exact.lp` (strict feasibility with witnesses and Gordan
multipliers), :mod:`engine.exact.lattice` (intersection lattices, Zaslavsky counts),
:mod:`engine.exact.linalg` (primitive integer rows, canonical directions, column bases,
echelon forms) and :mod:`engine.exact.numbers` (parsing and printing rationals).  This
subpackage never imports :mod:`engine.convex` or cvxpy.
"""

from engine.exact.numbers import (
    fraction_to_str,
    matrix_to_str,
    to_fraction,
    to_matrix,
    to_vector,
    vector_to_str,
)

__all__ = [
    "fraction_to_str",
    "matrix_to_str",
    "to_fraction",
    "to_matrix",
    "to_vector",
    "vector_to_str",
]
