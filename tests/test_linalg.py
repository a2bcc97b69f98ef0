"""Exact linear algebra: rank, determinant, echelon forms, nullspaces, incremental bases."""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

from logitgeom.errors import InvalidInput
from logitgeom.exact.linalg import (
    EchelonBasis,
    column_basis,
    det,
    det_integer,
    in_span,
    integer_rows,
    integer_rows_common,
    nullspace,
    primitive_integer_row,
    rank,
    row_basis,
    rref,
    same_span,
)

rationals = st.fractions(min_value=-4, max_value=4, max_denominator=5)


def matrices(max_k=5, max_d=5):
    return st.integers(1, max_k).flatmap(
        lambda k: st.integers(1, max_d).flatmap(
            lambda d: st.lists(
                st.lists(st.one_of(rationals, st.just(Fraction(0))), min_size=d, max_size=d),
                min_size=k,
                max_size=k,
            )
        )
    )


@given(matrices())
def test_rank_rref_nullspace_agree_with_sympy(M):
    S = sympy.Matrix([[sympy.Rational(x.numerator, x.denominator) for x in r] for r in M])
    r = rank(M)
    assert r == S.rank()
    R, piv = rref(M)
    SR, Spiv = S.rref()
    assert piv == tuple(Spiv)
    assert [[Fraction(int(x.p), int(x.q)) for x in SR.row(i)] for i in range(r)] == [
        list(row) for row in R
    ]
    N = nullspace(M)
    assert len(N) == len(M[0]) - r
    for v in N:
        assert all(sum(a * b for a, b in zip(row, v, strict=True)) == 0 for row in M)
    assert rank(list(N)) == len(N) if N else True
    assert len(column_basis(M)) == r and len(row_basis(M)) == r


@given(
    st.integers(1, 5).flatmap(
        lambda n: st.lists(st.lists(rationals, min_size=n, max_size=n), min_size=n, max_size=n)
    )
)
def test_det_matches_sympy(M):
    S = sympy.Matrix([[sympy.Rational(x.numerator, x.denominator) for x in r] for r in M])
    d = S.det()
    assert det(M) == Fraction(int(d.p), int(d.q))


def test_det_integer_bareiss_and_swaps():
    assert det_integer([[0, 1], [1, 0]]) == -1
    assert det_integer([[0, 0], [1, 0]]) == 0
    assert det_integer([[2, 0, 1], [1, 3, 2], [1, 1, 2]]) == 6
    with pytest.raises(InvalidInput, match="square"):
        det([[1, 2]])


@given(st.lists(rationals, min_size=1, max_size=6))
def test_primitive_row_is_positive_multiple(v):
    p = primitive_integer_row(v)
    if not any(v):
        assert not any(p)
        return
    i = next(i for i, x in enumerate(v) if x)
    c = Fraction(p[i]) / v[i]
    assert c > 0 and all(Fraction(a) == c * b for a, b in zip(p, v, strict=True))
    g = 0
    for x in p:
        g = sympy.igcd(g, x)
    assert g == 1


def test_integer_rows_common():
    N, den = integer_rows_common([[Fraction(1, 2), 1], [Fraction(1, 3), 0]])
    assert den == 6 and N == ((3, 6), (2, 0))
    assert integer_rows([[Fraction(1, 2), Fraction(-1, 4)]]) == ((2, -1),)


@given(matrices(6, 4), st.lists(rationals, min_size=4, max_size=4))
def test_echelon_basis_incremental(M, v):
    d = len(M[0])
    v = v[:d]
    B = EchelonBasis.empty(d)
    ranks = []
    for r in M:
        B2, grew = B.add(r)
        assert grew == (B2.rank == B.rank + 1)
        assert grew != B.contains(r)
        B = B2
        ranks.append(B.rank)
    assert B.rank == rank(M)
    assert B.contains(v) == in_span(v, M) == (rank([*M, v]) == rank(M))
    assert same_span(list(B.vectors()) or [[0] * d], M) or B.rank == 0
    assert not any(B.residual(M[0]))


def test_errors_are_named():
    with pytest.raises(InvalidInput, match="ragged"):
        rank([[1, 2], [3]])
    with pytest.raises(InvalidInput, match="dimension"):
        EchelonBasis.empty(2).add([1, 2, 3])
    with pytest.raises(InvalidInput, match="ncols"):
        nullspace([])
