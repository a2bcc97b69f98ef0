"""Regions of a central hyperplane arrangement by deletion-restriction, without any LP.

Two twins with the same functions (as pycddlib pairs ``cdd`` and ``cdd.gmp``):

* :mod:`logitgeom.geometry.arrangement.exact`: points are exact integer vectors (int64 when
  a bound in :mod:`logitgeom.geometry.arrangement._overflow` proves it safe, Python ints
  otherwise); one point per region, complete by construction.
* :mod:`logitgeom.geometry.arrangement.float`: points are float64 *proposals*; callers round
  them, compute their regions exactly and certify completeness by the Zaslavsky count.

Both take *distinct* hyperplanes: primitive integer normals, no two parallel, spanning
R^D (callers reduce to a column basis first).  With A_j the first j hyperplanes,
Zaslavsky's deletion-restriction r(A_j) = r(A_{j-1}) + r(A_{j-1}^{H_j}) gives a union
formula for the regions: every region of A is, for its last cutting hyperplane H_j, a
side of a region of A_{j-1} cut by H_j, and contains y +- eps h_j for a point y of the
corresponding region of the restriction A_{j-1}^{H_j} (recursively, in dimension D - 1).
The chunks j = 0..n-1 (and, finer, the chunks with sign constraints on the restriction)
are independent work units.  The proof and the unit splitting are in
docs/enumeration-at-scale.md.

Shared, exact in both twins: hyperplane bookkeeping (:func:`canonical`,
:func:`restrict`, sign constraints), sign-vector keys (:func:`pack_signs`,
:func:`first_rows`) and the float conversion :func:`floats` that the float twin uses.

Examples
--------
>>> from logitgeom.geometry.arrangement import exact
>>> len(exact.regions(((1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 1)), 3))
14
"""

from logitgeom.geometry.arrangement import _overflow, exact
from logitgeom.geometry.arrangement import float as float_  # noqa: A004 - the float twin
from logitgeom.geometry.arrangement._common import (
    Constraints,
    Rows,
    canonical,
    first_rows,
    floats,
    pack_signs,
    restrict,
    restrict_map,
    sub_constraints,
    unpack_signs,
)
from logitgeom.geometry.arrangement._overflow import (
    CROSS_LIMIT,
    EXACT_FLOAT,
    LIMIT,
    fit,
    matmul,
    sign_matrix,
)

__all__ = ["exact", "float_", "Rows", "Constraints", "canonical", "restrict", "restrict_map",
           "sub_constraints", "floats", "first_rows", "pack_signs", "unpack_signs", "fit", "matmul",
           "sign_matrix", "LIMIT", "EXACT_FLOAT", "CROSS_LIMIT", "_overflow"]
