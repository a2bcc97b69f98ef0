"""Hostile and careless inputs to the library: bounded work, clear errors, right answers.

Hypothesis drives the number parser and the exact LP; fixed reproducers from the fuzzing
round (issue 17) pin the cases that once crashed or hung.
"""

from __future__ import annotations

import time
import warnings
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import InvalidInput
from engine.exact.lp import check_gordan, check_witness, decide
from engine.exact.numbers import MAX_DIGITS, MAX_EXPONENT, to_fraction

#: The 4 x 3 head on which the float proposal LP raised "LP cycling" out of decide().
W_CYCLING = [
    ["0", "0", "0"],
    ["-1/2", "2/3", "-17/3"],
    ["199999999999999999999/2", "-2", "-300000000000000000002/3"],
    ["99999999999999999998", "-1/100000000000000000000", "-300000000000000000002/3"],
]


def test_failed_float_proposal_means_no_proposal():
    from engine.exact.numbers import to_matrix
    from engine.geometry import argmaxable, ranking_pattern

    W = to_matrix(W_CYCLING)
    assert argmaxable(W).labels == (0, 1, 2, 3)
    top = ranking_pattern(W, top=1)
    full = ranking_pattern(W)
    assert sorted(p[0] for p in top.patterns) == sorted({p[0] for p in full.patterns})
    assert sorted(p[0] for p in top.patterns) == [0, 1, 2, 3]


def test_huge_entries_no_warning_and_right_answer():
    from engine.exact.numbers import to_matrix
    from engine.geometry import argmaxable, count_rankings, ranking_pattern

    W = to_matrix([["1e300", "2"], ["-1e300", "1"], ["3", "-1e300"]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = ranking_pattern(W)
        assert res.count == count_rankings(W)
        assert argmaxable(W).labels == (0, 1, 2)


_small = st.fractions(min_value=-5, max_value=5, max_denominator=7)
_huge = st.sampled_from([Fraction(10**300), Fraction(-(10**300)), Fraction(1, 10**300),
                         Fraction(2**1100 + 1, 3), Fraction(0)])


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6).flatmap(lambda k: st.integers(1, 4).flatmap(
    lambda d: st.lists(st.lists(st.one_of(_small, _huge), min_size=d, max_size=d),
                       min_size=k, max_size=k))))
def test_decide_always_returns_a_checked_certificate(rows):
    feasible, cert = decide(rows)
    if feasible:
        assert check_witness(rows, cert)
    else:
        assert check_gordan(rows, cert)


_number_text = st.one_of(
    st.text(alphabet="0123456789+-./eE_ x", max_size=30),
    st.builds(lambda a, e: f"{a}e{e}", st.integers(-10**6, 10**6),
              st.integers(-10**12, 10**12)),
    st.builds(lambda n: "9" * n, st.integers(0, 3 * MAX_DIGITS)),
)


@settings(max_examples=300, deadline=None)
@given(_number_text)
def test_number_text_is_fast_exact_or_a_clear_error(text):
    t0 = time.perf_counter()
    try:
        q = to_fraction(text)
    except InvalidInput as exc:
        assert str(exc)
    else:
        assert Fraction(text.strip()) == q
        assert abs(q.numerator).bit_length() < 4 * (MAX_DIGITS + MAX_EXPONENT)
    assert time.perf_counter() - t0 < 0.5
