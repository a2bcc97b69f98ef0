"""Exact linear algebra over the rationals: rank, determinant, echelon forms, nullspaces.

Everything here works on exact matrices (tuples of tuples of :class:`~fractions.Fraction`
or Python ``int``) and returns exact results.  Integer work is fraction-free (Bareiss
elimination, primitive integer rows), so no rounding ever happens.

:class:`EchelonBasis` is an immutable incremental basis used by the counting code in
:mod:`logitgeom.exact.lattice`: adding a vector returns a new basis and says whether the
rank grew.

Examples
--------
>>> from fractions import Fraction as F
>>> rank([[1, 2], [2, 4]])
1
>>> det([[2, 1], [1, 3]])
Fraction(5, 1)
>>> integer_rows([[F(1, 2), F(-1, 3)]])
((3, -2),)
>>> [[str(x) for x in v] for v in nullspace([[1, 1, 0]])]
[['-1', '1', '0'], ['0', '0', '1']]
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from fractions import Fraction
from typing import cast

from logitgeom.errors import InvalidInput

__all__ = [
    "EchelonBasis",
    "primitive_integer_row",
    "canonical_direction",
    "integer_rows",
    "integer_rows_common",
    "rank",
    "det",
    "det_integer",
    "rref",
    "nullspace",
    "column_basis",
    "row_basis",
    "in_span",
    "same_span",
]

Number = int | Fraction


def _check_rect(M: Sequence[Sequence[Number]], what: str = "matrix") -> tuple[int, int]:
    k = len(M)
    if k == 0:
        return 0, 0
    d = len(M[0])
    for i, r in enumerate(M):
        if len(r) != d:
            raise InvalidInput(f"{what} is ragged: row 0 has {d} entries but row {i} has {len(r)}")
    return k, d


def primitive_integer_row(v: Iterable[Number]) -> tuple[int, ...]:
    """The primitive integer vector pointing the same way as a rational vector.

    Multiplies by the positive least common multiple of the denominators and divides by
    the gcd of the entries, so the result is a *positive* multiple of ``v`` (signs and
    direction are kept).  The zero vector stays zero.

    Parameters
    ----------
    v : iterable of int or Fraction

    Returns
    -------
    tuple of int

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> primitive_integer_row([F(-1, 2), F(3, 4), 0])
    (-2, 3, 0)
    >>> primitive_integer_row([0, 0])
    (0, 0)
    """
    v = list(v)
    if all(type(x) is int for x in v):
        return _primitive(cast("list[int]", v))
    v = [Fraction(x) for x in v]
    den = 1
    for x in v:
        den = den * x.denominator // math.gcd(den, x.denominator)
    ints = [int(x * den) for x in v]
    g = 0
    for x in ints:
        g = math.gcd(g, x)
    if g > 1:
        ints = [x // g for x in ints]
    return tuple(ints)


def canonical_direction(v: Iterable[Number]) -> tuple[int, ...]:
    """The canonical integer normal of the line through ``v``: primitive, first non-zero
    entry positive (so ``v`` and ``-v`` give the same key).  The zero vector stays zero.

    The one key for "same hyperplane" used by the exact side (lattices, counting) and the
    enumerator; the sign of ``v`` relative to it is the sign of its first non-zero entry.

    Examples
    --------
    >>> canonical_direction([-2, 4, 0]), canonical_direction([1, -2, 0])
    ((1, -2, 0), (1, -2, 0))
    """
    r = primitive_integer_row(v)
    for x in r:
        if x:
            return r if x > 0 else tuple(-y for y in r)
    return r


def integer_rows(M: Sequence[Sequence[Number]]) -> tuple[tuple[int, ...], ...]:
    """Scale each row of a rational matrix to its primitive integer row.

    Each row is multiplied by its own positive factor, which changes neither the
    hyperplane ``{x : w . x = 0}`` nor the sign of ``w . x``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> integer_rows([[F(1, 2), 1], [2, 4], [0, 0]])
    ((1, 2), (1, 2), (0, 0))
    """
    _check_rect(M)
    return tuple(primitive_integer_row(r) for r in M)


def integer_rows_common(M: Sequence[Sequence[Number]]) -> tuple[tuple[tuple[int, ...], ...], int]:
    """Write a rational matrix as ``N / den`` with integer ``N`` and one positive ``den``.

    ``den`` is the least common multiple of all denominators.

    Returns
    -------
    (N, den) : tuple of tuple of int, int

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> integer_rows_common([[F(1, 2), 1], [F(1, 3), 0]])
    (((3, 6), (2, 0)), 6)
    """
    _check_rect(M)
    den = 1
    for r in M:
        for x in r:
            q = Fraction(x).denominator
            den = den * q // math.gcd(den, q)
    return tuple(tuple(int(Fraction(x) * den) for x in r) for r in M), den


def det_integer(M: Sequence[Sequence[int]]) -> int:
    """Determinant of a square integer matrix by fraction-free Bareiss elimination.

    Every intermediate value is an integer (a minor of ``M``), so the result is exact.

    Examples
    --------
    >>> det_integer([[2, 0, 1], [1, 3, 2], [1, 1, 2]])
    6
    >>> det_integer([])
    1
    """
    n = len(M)
    A = [list(map(int, r)) for r in M]
    for r in A:
        if len(r) != n:
            raise InvalidInput(
                f"determinant needs a square matrix; got {n} rows of length {len(r)}"
            )
    sign = 1
    prev = 1
    for c in range(n - 1):
        if A[c][c] == 0:
            piv = next((i for i in range(c + 1, n) if A[i][c] != 0), None)
            if piv is None:
                return 0
            A[c], A[piv] = A[piv], A[c]
            sign = -sign
        acc = A[c][c]
        for i in range(c + 1, n):
            ai = A[i]
            aic = ai[c]
            rc = A[c]
            for j in range(c + 1, n):
                ai[j] = (acc * ai[j] - aic * rc[j]) // prev
            ai[c] = 0
        prev = acc
    return sign * A[n - 1][n - 1] if n else 1


def det(M: Sequence[Sequence[Number]]) -> Fraction:
    """Exact determinant of a square rational matrix.

    Rows are scaled to integers, the integer determinant is taken by Bareiss
    elimination and the scaling is divided out.

    Raises
    ------
    InvalidInput
        The matrix is not square.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> det([[F(1, 2), 0], [0, F(2, 3)]])
    Fraction(1, 3)
    """
    k, d = _check_rect(M)
    if k != d:
        raise InvalidInput(f"determinant needs a square matrix; got {k} x {d}")
    scale = Fraction(1)
    rows = []
    for r in M:
        r = [Fraction(x) for x in r]
        den = 1
        for x in r:
            den = den * x.denominator // math.gcd(den, x.denominator)
        rows.append([int(x * den) for x in r])
        scale /= den
    return det_integer(rows) * scale


def rref(M: Sequence[Sequence[Number]]) -> tuple[tuple[tuple[Fraction, ...], ...], tuple[int, ...]]:
    """Reduced row echelon form over the rationals.

    Returns
    -------
    (R, pivots)
        ``R`` holds only the non-zero rows (``len(R) == rank``), each with a 1 in its
        pivot column and zeros in the other pivot columns; ``pivots`` are the pivot
        columns in increasing order.  The form is unique, so equal row spaces give
        equal ``R``.

    Examples
    --------
    >>> R, piv = rref([[2, 4, 2], [1, 2, 3]])
    >>> [[str(x) for x in r] for r in R], piv
    ([['1', '2', '0'], ['0', '0', '1']], (0, 2))
    """
    k, d = _check_rect(M)
    A = [[Fraction(x) for x in r] for r in M]
    pivots: list[int] = []
    row = 0
    for c in range(d):
        if row == k:
            break
        p = next((i for i in range(row, k) if A[i][c] != 0), None)
        if p is None:
            continue
        A[row], A[p] = A[p], A[row]
        pr = A[row]
        inv = 1 / pr[c]
        A[row] = pr = [x * inv for x in pr]
        for i in range(k):
            if i != row and A[i][c] != 0:
                f = A[i][c]
                A[i] = [a - f * b for a, b in zip(A[i], pr, strict=True)]
        pivots.append(c)
        row += 1
    return tuple(tuple(r) for r in A[:row]), tuple(pivots)


def rank(M: Sequence[Sequence[Number]]) -> int:
    """Exact rank of a rational matrix.

    Examples
    --------
    >>> rank([[1, 2, 3], [2, 4, 6], [0, 0, 1]])
    2
    >>> rank([[0, 0]])
    0
    """
    _check_rect(M)
    b = EchelonBasis.empty(len(M[0]) if M else 0)
    for r in M:
        b, _ = b.add(r)
    return b.rank


def nullspace(
    M: Sequence[Sequence[Number]], *, ncols: int | None = None
) -> tuple[tuple[Fraction, ...], ...]:
    """A basis of the right nullspace ``{x : M x = 0}`` with rational entries.

    The basis is the canonical one read off the reduced row echelon form (one vector per
    free column, with a 1 in that column), so it is deterministic.

    Parameters
    ----------
    M : matrix
    ncols : int, optional
        Number of columns, needed only when ``M`` has no rows.

    Examples
    --------
    >>> [[str(x) for x in v] for v in nullspace([[1, 2, 3]])]
    [['-2', '1', '0'], ['-3', '0', '1']]
    >>> nullspace([[1, 0], [0, 1]])
    ()
    """
    k, d = _check_rect(M)
    if k == 0:
        if ncols is None:
            raise InvalidInput("nullspace of a matrix with no rows needs ncols")
        d = ncols
    R, piv = rref(M) if k else ((), ())
    free = [c for c in range(d) if c not in piv]
    out = []
    for f in free:
        x = [Fraction(0)] * d
        x[f] = Fraction(1)
        for r, p in zip(R, piv, strict=True):
            x[p] = -r[f]
        out.append(tuple(x))
    return tuple(out)


def column_basis(M: Sequence[Sequence[Number]]) -> tuple[int, ...]:
    """Indices of the first columns (left to right) that form a basis of the column space.

    ``M[:, cols]`` has the same column space as ``M``; the sign pattern of a matrix
    depends only on its column space, so this is how a ``k x k`` rank-``d`` matrix is
    reduced to ``k x d``.

    Examples
    --------
    >>> column_basis([[1, 2, 0], [2, 4, 1]])
    (0, 2)
    """
    return rref(M)[1]


def row_basis(M: Sequence[Sequence[Number]]) -> tuple[int, ...]:
    """Indices of the first rows (top to bottom) that form a basis of the row space.

    Examples
    --------
    >>> row_basis([[1, 1], [2, 2], [0, 1]])
    (0, 2)
    """
    _check_rect(M)
    b = EchelonBasis.empty(len(M[0]) if M else 0)
    out = []
    for i, r in enumerate(M):
        b, grew = b.add(r)
        if grew:
            out.append(i)
    return tuple(out)


def in_span(v: Sequence[Number], rows: Sequence[Sequence[Number]]) -> bool:
    """Whether ``v`` lies in the span of ``rows`` (exactly).

    Examples
    --------
    >>> in_span([2, 2, 0], [[1, 1, 0], [0, 0, 1]]), in_span([1, 0, 0], [[1, 1, 0]])
    (True, False)
    """
    b = EchelonBasis.empty(len(v))
    for r in rows:
        b, _ = b.add(r)
    return b.contains(v)


def same_span(A: Sequence[Sequence[Number]], B: Sequence[Sequence[Number]]) -> bool:
    """Whether two sets of vectors span the same space (compares canonical RREFs).

    Examples
    --------
    >>> same_span([[1, 1], [1, -1]], [[1, 0], [0, 3]]), same_span([[1, 0]], [[0, 1]])
    (True, False)
    """
    return rref(A)[0] == rref(B)[0]


def _reduce(rows: tuple[tuple[int, tuple[int, ...]], ...], v: list[int]) -> list[int]:
    for p, r in rows:
        vp = v[p]
        if vp:
            rp = r[p]
            v = [rp * a - vp * b for a, b in zip(v, r, strict=True)]
    return v


def _primitive(v: list[int]) -> tuple[int, ...]:
    g = 0
    for x in v:
        if x:
            g = math.gcd(g, x)
            if g == 1:
                return tuple(v)
    return tuple(x // g for x in v) if g > 1 else tuple(v)


class EchelonBasis:
    """An immutable integer echelon basis of a subspace of Q^d, grown one vector at a time.

    Vectors are stored as primitive integer rows, each with a distinct pivot column
    where the later rows are zero; reduction is fraction-free.  ``add`` returns a *new*
    basis (so a depth-first search can keep the parent) and whether the rank grew.

    Examples
    --------
    >>> b = EchelonBasis.empty(3)
    >>> b, grew = b.add([1, 1, 0]); grew
    True
    >>> b, grew = b.add([2, 2, 0]); grew, b.rank
    (False, 1)
    >>> b.contains([3, 3, 0]), b.contains([0, 0, 1])
    (True, False)
    """

    __slots__ = ("dim", "rows")

    def __init__(self, dim: int, rows: tuple[tuple[int, tuple[int, ...]], ...] = ()):
        self.dim = dim
        self.rows = rows

    @classmethod
    def empty(cls, dim: int) -> EchelonBasis:
        """The zero subspace of Q^dim."""
        return cls(dim, ())

    @classmethod
    def spanning(cls, vectors: Iterable[Sequence[Number]], dim: int) -> EchelonBasis:
        """The basis of the span of ``vectors`` (in Q^dim).

        Examples
        --------
        >>> EchelonBasis.spanning([[1, 0], [2, 0]], 2).rank
        1
        """
        b = cls.empty(dim)
        for v in vectors:
            b, _ = b.add(v)
        return b

    @property
    def rank(self) -> int:
        """Dimension of the subspace."""
        return len(self.rows)

    def _as_ints(self, v: Sequence[Number]) -> list[int]:
        if len(v) != self.dim:
            raise InvalidInput(
                f"vector has length {len(v)} but the basis lives in dimension {self.dim}"
            )
        if all(type(x) is int for x in v):
            return list(cast("Sequence[int]", v))
        return list(primitive_integer_row(v))

    def residual(self, v: Sequence[Number]) -> tuple[int, ...]:
        """A positive multiple of ``v`` minus an element of the span, zero at every pivot.

        Zero exactly when ``v`` is in the span.
        """
        return _primitive(_reduce(self.rows, self._as_ints(v)))

    def contains(self, v: Sequence[Number]) -> bool:
        """Whether ``v`` lies in the subspace."""
        return not any(_reduce(self.rows, self._as_ints(v)))

    def add(self, v: Sequence[Number]) -> tuple[EchelonBasis, bool]:
        """The basis of ``span + {v}`` and whether the rank grew (``v`` not in the span)."""
        r = _reduce(self.rows, self._as_ints(v))
        p = next((i for i, x in enumerate(r) if x), None)
        if p is None:
            return self, False
        row = _primitive(r)
        if row[p] < 0:
            row = tuple(-x for x in row)
        return EchelonBasis(self.dim, self.rows + ((p, row),)), True

    def vectors(self) -> tuple[tuple[int, ...], ...]:
        """The stored basis vectors (primitive integer rows)."""
        return tuple(r for _, r in self.rows)

    def __repr__(self) -> str:
        return f"EchelonBasis(dim={self.dim}, rank={self.rank})"
