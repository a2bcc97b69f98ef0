"""Exact number conversion: every accepted input is its exact rational; bad input is named."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from logitgeom.errors import InvalidInput
from logitgeom.exact.numbers import (
    MAX_DIGITS,
    fraction_to_str,
    matrix_to_str,
    to_float_array,
    to_fraction,
    to_matrix,
    to_vector,
)


@pytest.mark.parametrize(
    "x, q",
    [
        (3, Fraction(3)),
        (np.int64(-7), Fraction(-7)),
        (Fraction(2, 6), Fraction(1, 3)),
        ("p/q".replace("p", "5").replace("q", "7"), Fraction(5, 7)),
        (" -4/6 ", Fraction(-2, 3)),
        ("0.1", Fraction(1, 10)),
        ("1e-3", Fraction(1, 1000)),
        (0.5, Fraction(1, 2)),
        (np.float32(0.1), Fraction(float(np.float32(0.1)))),
        (Decimal("2.5"), Fraction(5, 2)),
    ],
)
def test_accepted_inputs(x, q):
    assert to_fraction(x) == q


def test_float_is_its_exact_binary_rational():
    q = to_fraction(0.1)
    assert q == Fraction(3602879701896397, 2**55)
    assert q != Fraction(1, 10)


@pytest.mark.parametrize("bad", [float("nan"), np.nan, float("inf"), -np.inf, "nan", "inf",
                                 "-Infinity", Decimal("NaN")])
def test_nan_inf_rejected(bad):
    with pytest.raises(InvalidInput, match="finite"):
        to_fraction(bad)


@pytest.mark.parametrize("bad", [True, np.bool_(False), 1 + 2j, "abc", "1/0", None, [1]])
def test_other_bad_scalars(bad):
    with pytest.raises(InvalidInput):
        to_fraction(bad)


def test_matrix_errors_name_the_entry():
    with pytest.raises(InvalidInput, match=r"W\[1,0\] is NaN"):
        to_matrix([[1, 2], [float("nan"), 3]])
    with pytest.raises(InvalidInput, match="ragged"):
        to_matrix([[1, 2], [3]])
    with pytest.raises(InvalidInput, match="empty"):
        to_matrix([])
    with pytest.raises(InvalidInput, match="2-D"):
        to_matrix(np.zeros(3))
    with pytest.raises(InvalidInput, match="no columns"):
        to_matrix([[], []])


def test_numpy_arrays():
    M = to_matrix(np.array([[1, 2], [3, 4]], dtype=np.int32))
    assert M == ((1, 2), (3, 4))
    F = to_matrix(np.array([[0.25, -1.5]]))
    assert F == ((Fraction(1, 4), Fraction(-3, 2)),)
    assert to_float_array(F).tolist() == [[0.25, -1.5]]


def test_vector_length():
    assert to_vector(np.array([1, 2])) == (1, 2)
    with pytest.raises(InvalidInput, match="length 2 but 3"):
        to_vector([1, 2], length=3)


def test_back_to_text():
    assert fraction_to_str(Fraction(-6, 4)) == "-3/2"
    assert fraction_to_str(Fraction(5)) == "5"
    assert matrix_to_str(to_matrix([[0.5, "2/4"]])) == [["1/2", "1/2"]]


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_float_round_trip_is_exact(x):
    q = to_fraction(x)
    assert float(q) == x
    assert to_fraction(fraction_to_str(q)) == q


@given(st.fractions())
def test_fraction_text_round_trip(q):
    assert to_fraction(fraction_to_str(q)) == q


def test_float_nonfinite_via_math():
    assert math.isinf(float("inf"))
    with pytest.raises(InvalidInput):
        to_matrix([[1, math.inf]])


# ---------------------------------------------------------------- bounded text


@pytest.mark.parametrize("text, limit", [
    ("1e100000000", "exponent"),
    ("-1E-99999999999999999999", "exponent"),
    ("1" * (MAX_DIGITS + 1), f"{MAX_DIGITS + 1} digits"),
    ("1/" + "3" * (MAX_DIGITS + 1), f"{MAX_DIGITS + 1} digits"),
    ("0." + "0" * MAX_DIGITS + "1", "digits"),
    ("9" * 100_000, "characters"),
])
def test_number_text_is_bounded_before_parsing(text, limit):
    with pytest.raises(InvalidInput, match=limit):
        to_fraction(text)


def test_limits_are_inclusive():
    from logitgeom.exact.numbers import MAX_EXPONENT

    assert to_fraction(f"1e{MAX_EXPONENT}") == 10**MAX_EXPONENT
    assert to_fraction(f"1e-{MAX_EXPONENT}") == Fraction(1, 10**MAX_EXPONENT)
    assert to_fraction("9" * MAX_DIGITS) == 10**MAX_DIGITS - 1


@pytest.mark.parametrize("bad", ["0x10", "1_000", "\u0663", "+5/-3", "1/0", "", " ", "."])
def test_only_plain_number_text(bad):
    with pytest.raises(InvalidInput):
        to_fraction(bad)


def test_huge_rational_is_not_a_float():
    with pytest.raises(InvalidInput, match="float range"):
        to_float_array(((Fraction(10**400),),))
