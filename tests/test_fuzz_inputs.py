"""Hostile and careless inputs to the library: bounded work, clear errors, right answers.

Hypothesis drives the number parser and the exact LP; fixed reproducers from the fuzzing
round pin the cases that once crashed or hung.
"""

from __future__ import annotations

import warnings
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logitgeom.errors import InvalidInput
from logitgeom.exact.lp import check_gordan, check_witness, decide
from logitgeom.exact.numbers import MAX_DIGITS, MAX_EXPONENT, to_fraction

#: The 4 x 3 head on which the float proposal LP raised "LP cycling" out of decide().
W_CYCLING = [
    ["0", "0", "0"],
    ["-1/2", "2/3", "-17/3"],
    ["199999999999999999999/2", "-2", "-300000000000000000002/3"],
    ["99999999999999999998", "-1/100000000000000000000", "-300000000000000000002/3"],
]


def test_failed_float_proposal_means_no_proposal():
    from logitgeom.exact.numbers import to_matrix
    from logitgeom.geometry import argmaxable, ranking_pattern

    W = to_matrix(W_CYCLING)
    assert argmaxable(W).labels == (0, 1, 2, 3)
    top = ranking_pattern(W, top=1)
    full = ranking_pattern(W)
    assert sorted(p[0] for p in top.patterns) == sorted({p[0] for p in full.patterns})
    assert sorted(p[0] for p in top.patterns) == [0, 1, 2, 3]


def test_huge_entries_no_warning_and_right_answer():
    from logitgeom.exact.numbers import to_matrix
    from logitgeom.geometry import argmaxable, count_rankings, ranking_pattern

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
    try:
        q = to_fraction(text)
    except InvalidInput as exc:
        assert str(exc)
    else:
        assert Fraction(text.strip()) == q
        assert abs(q.numerator).bit_length() < 4 * (MAX_DIGITS + MAX_EXPONENT)


# ---------------------------------------------------------------- the trusted checker


def _valid(name):
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    return json.loads((root / "certificates" / "examples" / name).read_text())


@pytest.mark.parametrize("key", ["bi\u0430s", "bias1", "bias2", "witnesses", "W "])
def test_look_alike_keys_are_rejected(key):
    from logitgeom_certificates.check import check

    c = _valid("valid-sign-feasible-affine.json")
    c[key] = c["bias"] if "bias" in c else ["0", "0", "0"]
    if key == "bi\u0430s":
        del c["bias"]
    v = check(c)
    assert not v.ok and v.failed_check == "schema" and "unknown field" in v.message


def test_nested_unknown_keys_are_rejected():
    from logitgeom_certificates.check import check

    c = _valid("valid-pattern-complete.json")
    c["patterns"][0]["witness2"] = c["patterns"][0]["witness"]
    assert check(c).failed_check == "schema"
    t = _valid("valid-theorem.json")
    t["parameters"] = {"labels": [0, 1]}
    assert check(t).failed_check == "schema"


@pytest.mark.parametrize("text", ["1e100000000", "9" * 5000, "1/" + "3" * 5000, "0x10",
                                  "+1", "1.5", " 1", "\u0661"])
def test_checker_number_text_bounded_and_canonical(text):
    from logitgeom_certificates.check import check

    c = _valid("valid-sign-feasible.json")
    c["witness"][0] = text
    v = check(c)
    assert v.failed_check == "number"


def test_work_budget_refuses_never_valid_never_hangs():
    from logitgeom_certificates.check import check

    W = [[str((3 * i + 7 * j) % 11 - 5) for j in range(10)] for i in range(20)]
    c = {"format": "logitgeom-certificate", "version": 1, "kind": "same-chirotope",
         "W1": W, "W2": W}
    v = check(c)  # the meter stops it: bounded work, whatever the machine's speed
    assert not v.ok and v.failed_check == "work-budget" and v.exit_code == 2
    assert "NOT CHECKED" in v.message
    small = {**c, "W1": W[:6], "W2": W[:6]}
    assert check(small).failed_check != "work-budget"


def test_checker_files_bounded(tmp_path):
    from logitgeom_certificates.check import check_file, main

    (tmp_path / "big.json").write_text('{"version": ' + "1" * 5000 + "}")
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    for p in ("/dev/zero", tmp_path / "big.json", tmp_path / "deep.json", tmp_path):
        v = check_file(p)
        assert not v.ok and v.exit_code in (1, 2)
    valid = str(tmp_path / "v.json")
    import json

    (tmp_path / "v.json").write_text(json.dumps(_valid("valid-sign-feasible.json")))
    assert main([str(tmp_path / "big.json"), valid]) == 1  # the batch goes on


def test_explain_escapes_the_files_words(capsys, tmp_path):
    import json

    from logitgeom_certificates.check import main

    c = _valid("valid-theorem.json")
    c["statement"] = "\x1b[2J\x1b]0;owned\x07 fine"
    (tmp_path / "t.json").write_text(json.dumps(c))
    assert main(["--explain", str(tmp_path / "t.json")]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    assert "not checked" in out and "\\x1b[2J" in out


def test_cosine_determines_sign_needs_nonzero_rows():
    from logitgeom.emit import bundle_certificate, complete_certificate
    from logitgeom_certificates.check import check

    W = [[1, 0], [0, 0], [1, 1]]
    G = [[sum(a * b for a, b in zip(r, s, strict=True)) for s in W] for r in W]
    cert = bundle_certificate("cosine-determines-sign",
                              [complete_certificate(W, "sign"), complete_certificate(G, "sign")],
                              "S(C(W)) = S(W)")
    v = check(cert)
    assert not v.ok and "zero row" in v.message
