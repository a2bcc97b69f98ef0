"""The exact side: rationals only.  Decides every discrete claim.

One exact kernel with three back ends, each owning one kind of question:

========================  ==========================================  =====================
back end                  questions                                    module
========================  ==========================================  =====================
``fractions.Fraction``    numbers in and out; small dense linear       :mod:`~.numbers`,
(and Python integers)     algebra (primitive rows, ranks, echelon      :mod:`~.linalg`,
                          forms, column bases); intersection           :mod:`~.lattice`
                          lattices and Zaslavsky counts
``cdd.gmp`` (pycddlib,    strict feasibility of a cone with a          :mod:`~.lp`
GMP rationals)            witness or Gordan multipliers
FLINT (python-flint,      large integer matrices: fraction-free row    :mod:`~.intmat`
``fmpz_mat``)             reduction and linear solves (the argmax
                          audit's Gordan multipliers on real heads)
========================  ==========================================  =====================

The one way to choose a back end is to call the module that owns the question; nothing
outside :mod:`logitgeom.exact` imports ``cdd.gmp`` or ``flint``, so a back end can change
behind its module without its callers noticing.  Every back end takes and returns exact
values (``Fraction`` or ``int``) and checks its own certificates exactly before returning
them.  Floats may only *propose*: the float twin of the LP is :mod:`logitgeom.lp_float`
(outside this package; this package never imports it, nor :mod:`logitgeom.convex` or cvxpy),
and a proposal reaches the exact side only as a hint that is verified here.

The one limit on numbers written as text is :data:`MAX_DIGITS`, the checker's own.

Examples
--------
>>> from logitgeom.exact.lp import decide
>>> decide([[1, 0], [-1, 0]])  # cdd.gmp: no x has x_1 > 0 and -x_1 > 0
(False, (Fraction(1, 1), Fraction(1, 1)))
>>> to_fraction("1/3") + to_fraction("0.5")  # Fraction
Fraction(5, 6)
"""

from logitgeom.exact.numbers import (
    MAX_DIGITS,
    fraction_to_str,
    matrix_to_str,
    to_fraction,
    to_matrix,
    to_vector,
    vector_to_str,
)

__all__ = [
    "MAX_DIGITS",
    "fraction_to_str",
    "matrix_to_str",
    "to_fraction",
    "to_matrix",
    "to_vector",
    "vector_to_str",
]
