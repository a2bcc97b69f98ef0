"""The floating-point filter decides every sign exactly (engine/exact/filtered.py).

Every decision of the filter is compared with the exact integer value (Python ints and
Fraction), on random data and on adversarial near-zero dot products: exact zeros, values
of +-1 next to terms of 2^60 and more, points beyond 2^53 (rounded on conversion),
normals that are not floats (the filter must refuse them), and points beyond the float
range.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logitgeom.exact import filtered
from logitgeom.geometry.arrangement import _overflow


def _exact(P, A):
    out = []
    for p in P:
        row = []
        for a in A:
            v = sum((Fraction(int(x)) * Fraction(int(y)) for x, y in zip(p, a, strict=True)),
                    Fraction(0))
            row.append((v > 0) - (v < 0))
        out.append(row)
    return np.array(out, dtype=np.int8).reshape(len(P), len(A))


def _float_int(mant: int, exp: int) -> int:
    """An integer that is a float64: a mantissa of at most 53 bits times 2^exp."""
    return mant << exp


floaty = st.builds(_float_int, st.integers(-(1 << 53) + 1, (1 << 53) - 1), st.integers(0, 40))
bigint = st.one_of(st.integers(-(1 << 62), 1 << 62), st.integers(-(1 << 200), 1 << 200),
                   st.integers(-5, 5))


@st.composite
def near_zero(draw):
    """Normals that are floats and points whose dot products are 0 or tiny next to their
    terms (the adversarial case for a float filter)."""
    D = draw(st.integers(2, 8))
    m = draw(st.integers(1, 5))
    A = [[draw(floaty) for _ in range(D)] for _ in range(m)]
    P = []
    for _ in range(draw(st.integers(1, 6))):
        a = A[draw(st.integers(0, m - 1))]
        i, j = draw(st.integers(0, D - 1)), draw(st.integers(0, D - 1))
        k = draw(st.integers(-(1 << 70), 1 << 70))
        p = [0] * D
        if i != j:  # p . a = k (a_j a_i - a_i a_j) = 0, plus a small perturbation
            p[i], p[j] = k * a[j], -k * a[i]
        eps = draw(st.integers(-2, 2))
        p[draw(st.integers(0, D - 1))] += eps
        P.append(p)
    return np.array(P, dtype=object), np.array(A, dtype=object)


wide = st.one_of(floaty, st.integers(-(1 << 110), 1 << 110))


@st.composite
def limbs_near_zero(draw):
    """Normals that are not floats (up to 110 bits: differences of float rows, two limbs)
    and points whose dot products with them are 0 or +-1 or +-2."""
    D = draw(st.integers(2, 6))
    A = [[draw(wide) for _ in range(D)] for _ in range(draw(st.integers(1, 4)))]
    P = []
    for _ in range(draw(st.integers(1, 5))):
        a = A[draw(st.integers(0, len(A) - 1))]
        i, j = draw(st.integers(0, D - 1)), draw(st.integers(0, D - 1))
        k = draw(st.integers(-(1 << 20), 1 << 20))
        p = [0] * D
        if i != j:
            p[i], p[j] = k * a[j], -k * a[i]
        p[draw(st.integers(0, D - 1))] += draw(st.integers(-2, 2))
        P.append(p)
    return np.array(P, dtype=object), np.array(A, dtype=object)


@settings(max_examples=200, deadline=None)
@given(limbs_near_zero())
def test_two_limb_decisions_are_exact(case):
    P, A = case
    want = _exact(P, A)
    got = filtered.filtered_signs(P, A)
    if got is not None:
        S, ok = got
        assert np.array_equal(S[ok], want[ok])
    assert np.array_equal(filtered.sign_matrix(P, A), want)


@st.composite
def random_case(draw):
    D = draw(st.integers(1, 7))
    A = [[draw(floaty) for _ in range(D)] for _ in range(draw(st.integers(1, 5)))]
    P = [[draw(bigint) for _ in range(D)] for _ in range(draw(st.integers(1, 6)))]
    return np.array(P, dtype=object), np.array(A, dtype=object)


@settings(max_examples=300, deadline=None)
@given(near_zero())
def test_near_zero_decisions_are_exact(case):
    P, A = case
    want = _exact(P, A)
    got = filtered.filtered_signs(P, A)
    if got is not None:
        S, ok = got
        assert np.array_equal(S[ok], want[ok])
    assert np.array_equal(filtered.sign_matrix(P, A), want)
    assert np.array_equal(_overflow.sign_matrix(_overflow.fit(P), _overflow.fit(A)), want)


@settings(max_examples=300, deadline=None)
@given(random_case())
def test_random_decisions_are_exact(case):
    P, A = case
    want = _exact(P, A)
    got = filtered.filtered_signs(P, A)
    if got is not None:
        S, ok = got
        assert np.array_equal(S[ok], want[ok])
    assert np.array_equal(filtered.sign_matrix(P, A), want)


def test_float_head_normals_are_decided_in_floats():
    """N(0, 1) normals as primitive integers: the filter applies and decides almost all."""
    rng = np.random.default_rng(3)
    from logitgeom.exact.linalg import primitive_integer_row

    A = np.array([primitive_integer_row([Fraction(float(v)) for v in r])
                  for r in rng.standard_normal((30, 6))], dtype=object)
    assert max(abs(int(v)) for v in A.ravel()).bit_length() > 53  # no int64 product fits
    P = rng.integers(-(1 << 40), 1 << 40, size=(500, 6)).astype(object)
    S, ok = filtered.filtered_signs(P, A)
    assert ok.mean() > 0.99
    assert np.array_equal(filtered.sign_matrix(P, A), _exact(P, A))


def test_not_floats_split_in_two_limbs_or_go_exact():
    A = np.array([[(1 << 60) + 1, 1]], dtype=object)  # 61 significant bits: two limbs
    P = np.array([[1, -((1 << 60) + 1)], [1, 5]], dtype=object)
    S, ok = filtered.filtered_signs(P, A)
    assert S[ok].tolist() == [1] and ok.tolist() == [[False], [True]]
    assert filtered.sign_matrix(P, A).tolist() == [[0], [1]]
    A = np.array([[(1 << 120) + (1 << 60) + 1, 1]], dtype=object)  # not two floats
    P = np.array([[1, -((1 << 120) + (1 << 60) + 1)]], dtype=object)
    assert filtered.filtered_signs(P, A) is None
    assert filtered.sign_matrix(P, A).tolist() == [[0]]
    huge = np.array([[10 ** 400, 1]], dtype=object)
    assert filtered.filtered_signs(huge, np.array([[1, 1]])) is None
    assert filtered.sign_matrix(huge, np.array([[0, 1]])).tolist() == [[1]]
    # the overflow guard: max|p| * l1(a) >= 2^1000
    P = np.array([[1 << 600, -1]], dtype=object)
    A = np.array([[1 << 500, 1 << 1000 - 500 + 100]], dtype=object)
    assert filtered.filtered_signs(P, A) is None
    assert filtered.sign_matrix(P, A).tolist() == [[1]]


def test_rounding_of_points_is_accounted_for():
    """p = 2^53 + 1 rounds to 2^53 in float64; p . a = 1 must still come out +."""
    A = np.array([[1, -1]], dtype=np.int64)
    P = np.array([[(1 << 53) + 1, 1 << 53]], dtype=np.int64)
    S, ok = filtered.filtered_signs(P, A)
    assert not ok[0, 0]  # the float value is 0: undecided
    assert filtered.sign_matrix(P, A).tolist() == [[1]]


def test_zero_rows_are_decided_zero():
    S, ok = filtered.filtered_signs(np.zeros((2, 3), dtype=np.int64),
                                    np.array([[1, 2, 3], [0, 0, 0]]))
    assert ok.all() and not S.any()


def test_bound_factor_range():
    with pytest.raises(ValueError):
        filtered.bound_factor(0)
    with pytest.raises(ValueError):
        filtered.bound_factor(filtered.MAX_TERMS + 1)


def test_many_rows_in_blocks_equal_integer_signs():
    """More rows than one filter block (FILTER_ROWS), with exact zeros among them: the
    blocked result equals Python-integer signs."""
    from logitgeom.exact.linalg import primitive_integer_row

    rng = np.random.default_rng(8)
    A = np.array([primitive_integer_row([Fraction(float(v)) for v in r])
                  for r in rng.standard_normal((12, 4))], dtype=object)
    P = rng.integers(-(1 << 30), 1 << 30, size=(3 * filtered.FILTER_ROWS + 17, 4)).astype(object)
    P[::97, 0], P[::97, 1] = A[0, 1], -A[0, 0]  # p . a_0 = 0 on these rows
    P[::97, 2:] = 0
    got = filtered.sign_matrix(P, A)
    assert np.array_equal(got, filtered.exact_signs(P, A))
    assert (got[::97, 0] == 0).all()
