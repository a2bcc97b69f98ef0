"""The exact side: rationals only.  Decides every discrete claim.

This subpackage never imports :mod:`engine.convex` or cvxpy.
"""

from engine.exact.numbers import (
    fraction_to_str,
    matrix_to_str,
    to_float_array,
    to_fraction,
    to_matrix,
    to_vector,
    vector_to_str,
)

__all__ = [
    "fraction_to_str",
    "matrix_to_str",
    "to_float_array",
    "to_fraction",
    "to_matrix",
    "to_vector",
    "vector_to_str",
]
