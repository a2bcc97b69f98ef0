"""Cosine tools: exact translations to cos = -1 / +1, softmax invariance, exact comparison."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from logitgeom.errors import InvalidInput
from logitgeom.geometry import (
    cosine_equal,
    cosine_matrix,
    difference_matrix,
    difference_pairs,
    gram_exact,
    translate,
    translation_for_cosine,
)

rat = st.fractions(min_value=-5, max_value=5, max_denominator=7)


def dot(a, b):
    return sum((x * y for x, y in zip(a, b, strict=True)), Fraction(0))


def heads(min_k=2, max_k=5, max_d=4):
    return st.integers(min_k, max_k).flatmap(
        lambda k: st.integers(1, max_d).flatmap(
            lambda d: st.lists(st.lists(rat, min_size=d, max_size=d), min_size=k, max_size=k)
        )
    )


def cos_is(a, b, target):
    """Exactly: cos(a, b) == target (target = +-1), no square roots."""
    ab = dot(a, b)
    return ab * target > 0 and ab * ab == dot(a, a) * dot(b, b)


@given(heads(), st.data())
def test_translation_reaches_minus_and_plus_one_exactly(W, data):
    k, d = len(W), len(W[0])
    i = data.draw(st.integers(0, k - 1))
    j = data.draw(st.integers(0, k - 1).filter(lambda x: x != i))
    assume(W[i] != W[j])
    for target in (-1, 1):
        v = translation_for_cosine(W, i, j, target)
        assert len(v) == d and all(isinstance(x, Fraction) for x in v)
        T = translate(W, v)
        assert cos_is(T[i], T[j], target)
    t = data.draw(st.fractions(min_value=Fraction(1, 9), max_value=9).filter(lambda q: q != 1))
    T = translate(W, translation_for_cosine(W, i, j, 1, t=t))
    assert cos_is(T[i], T[j], 1)
    assert all(a == t * b for a, b in zip(T[i], T[j], strict=True))


@given(heads(), st.data())
def test_softmax_invariance_is_exact(W, data):
    """W + 1 v^T leaves every logit difference, hence every softmax probability, unchanged."""
    d = len(W[0])
    v = data.draw(st.lists(rat, min_size=d, max_size=d))
    x = data.draw(st.lists(rat, min_size=d, max_size=d))
    T = translate(W, v)
    z, zt = [dot(w, x) for w in W], [dot(w, x) for w in T]
    shift = dot(v, x)
    assert all(b - a == shift for a, b in zip(z, zt, strict=True))
    assert all(zt[i] - zt[j] == z[i] - z[j] for i in range(len(W)) for j in range(len(W)))
    p = np.exp(np.array([float(a - max(z)) for a in z]))
    pt = np.exp(np.array([float(a - max(zt)) for a in zt]))
    np.testing.assert_allclose(p / p.sum(), pt / pt.sum(), rtol=1e-12)  # display check only


@given(heads(max_d=3), st.data())
def test_cosine_equal_laws(W, data):
    assume(all(any(r) for r in W))
    D = data.draw(
        st.lists(
            st.fractions(min_value=Fraction(1, 5), max_value=5), min_size=len(W), max_size=len(W)
        )
    )
    scaled = [[c * x for x in r] for c, r in zip(D, W, strict=True)]
    assert cosine_equal(W, scaled)
    # an orthogonal change of columns keeps all cosines (swap + sign flip of columns)
    assert cosine_equal(W, [[-x for x in reversed(r)] for r in W])
    flipped = [list(r) for r in W]
    flipped[0] = [-x for x in flipped[0]]
    if any(dot(W[0], W[j]) != 0 for j in range(1, len(W))):
        assert not cosine_equal(W, flipped)


def test_cosine_matrix_values_and_paths():
    W = [[1, 0], [1, 1], [-2, 0]]
    C = cosine_matrix(W)
    assert C.shape == (3, 3) and C[0, 2] == -1.0 and np.allclose(C[0, 1], 2**-0.5)
    np.testing.assert_allclose(cosine_matrix(np.array(W, dtype=float)), C, rtol=1e-15)
    assert np.all(np.diag(C) == 1.0)


def test_difference_matrix():
    B = difference_matrix(4)
    assert len(B) == 6 and difference_pairs(4)[3] == (1, 2)
    for (i, j), row in zip(difference_pairs(4), B, strict=True):
        assert row[i] == 1 and row[j] == -1 and sum(x != 0 for x in row) == 2
    assert difference_matrix(1) == ()
    G = gram_exact(B)
    assert G[0][0] == 2


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: cosine_matrix([[1, 0], [0, 0]]), r"zero rows \[1\]"),
        (lambda: cosine_matrix(np.array([[1.0, np.nan]])), "finite"),
        (lambda: cosine_matrix(np.array([1.0, 2.0])), "2-D"),
        (lambda: translation_for_cosine([[1, 1], [1, 1]], 0, 1, -1), "equal"),
        (lambda: translation_for_cosine([[1, 1], [1, 2]], 0, 0, -1), "different rows"),
        (lambda: translation_for_cosine([[1, 1], [1, 2]], 0, 2, 1), "out of range"),
        (lambda: translation_for_cosine([[1, 1], [1, 2]], 0, 1, 0), "-1 or 1"),
        (lambda: translation_for_cosine([[1, 1], [1, 2]], 0, 1, 1, t=1), "other than 1"),
        (lambda: translate([[1, 2]], [1]), "length 1 but 2"),
        (lambda: difference_matrix(0), "positive integer"),
        (lambda: cosine_equal([[1]], [[1], [2]]), "rows"),
        (lambda: cosine_equal([[1], [0]], [[1], [2]]), "zero rows"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(InvalidInput, match=match):
        call()


def _parallel_with_sign(a, b):
    """Exactly: a, b non-zero and a = t b for a rational t; returns sign(t) or None."""
    if not any(a) or not any(b):
        return None
    g = sum(x * y for x, y in zip(a, b, strict=True))
    if g * g != sum(x * x for x in a) * sum(y * y for y in b):
        return None
    return 1 if g > 0 else -1


@pytest.mark.parametrize(
    "W",
    [
        [[2, -1, 3], [2, -1, 3], [0, 1, 0]],   # a = b (non-zero): v = 0 already works
        [[0, 0, 0], [0, 0, 0], [1, 2, 3]],     # a = b = 0: v = e_1
        [[0, 0, 0], [1, -2, 5], [1, 1, 1]],    # a = 0
        [[1, -2, 5], [-1, 2, -5], [1, 1, 1]],  # a = -b
        [[1, 0, 0], [0, 1, 0], [0, 0, 1]],     # generic
    ],
    ids=["a=b", "a=b=0", "a=0", "a=-b", "generic"],
)
def test_lemma_3_3_any_a_b(W):
    """Lemma 3.3 holds for any a, b: some translation gives cos(w'_0, w'_1) = +1, exactly,
    and the stdlib checker accepts the translation certificate."""
    from logitgeom.emit import translation_certificate
    from logitgeom_certificates.check import check

    Wt = translate(W, translation_for_cosine(W, 0, 1, 1))
    assert _parallel_with_sign(Wt[0], Wt[1]) == 1
    assert check(translation_certificate(W, 0, 1, 1)).ok
    if W[0] != W[1]:  # Lemma 3.2 needs a != b
        Wm = translate(W, translation_for_cosine(W, 0, 1, -1))
        assert _parallel_with_sign(Wm[0], Wm[1]) == -1
        assert check(translation_certificate(W, 0, 1, -1)).ok
    else:
        with pytest.raises(InvalidInput, match="equal"):
            translation_for_cosine(W, 0, 1, -1)
        with pytest.raises(InvalidInput, match="-1"):
            translation_certificate(W, 0, 1, -1)
