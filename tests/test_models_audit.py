"""Cosine audit (the cosine paper): translations with a certificate, C(W) vs C(BW), projections."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from logitgeom.errors import InvalidInput
from logitgeom.exact.numbers import to_matrix
from logitgeom.models.audit import cosine_audit, exact_projection


def _q(M):
    return [[Fraction(x) for x in r] for r in M]


def _softmax(z):
    e = np.exp(z - z.max())
    return e / e.sum()


@pytest.fixture(scope="module")
def audit():
    W = np.random.default_rng(2).standard_normal((5, 6))
    return W, cosine_audit(W, list("abcde"), pair=(1, 3))


def test_translations_have_exact_cosines_and_identical_probabilities(audit):
    W, a = audit
    assert a.verified
    neg, pos = a.translations
    for cert, sign in ((neg, -1), (pos, 1)):
        Wt = _q(cert["W_translated"])
        u, w = Wt[1], Wt[3]
        dot = sum(x * y for x, y in zip(u, w, strict=True))
        nu, nw = (sum(x * x for x in r) for r in (u, w))
        assert dot * dot == nu * nw and (dot > 0) == (sign > 0)  # exactly cos = sign
        v = np.array([float(Fraction(x)) for x in cert["v"]])
        x = np.random.default_rng(0).standard_normal(6)
        np.testing.assert_allclose(_softmax((W + v) @ x), _softmax(W @ x), atol=1e-12)
        assert _q(cert["W"]) == [list(r) for r in to_matrix(W)]


def test_cosine_matrices(audit):
    W, a = audit
    assert a.cosine.shape == (5, 5) and a.difference_cosine.shape == (10, 10)
    np.testing.assert_allclose(np.diag(a.cosine), 1.0)
    assert a.difference_pairs[0] == (0, 1) and a.difference_pairs[-1] == (3, 4)
    d = W[0] - W[1]
    e = W[2] - W[4]
    k = a.difference_pairs.index((2, 4))
    assert a.difference_cosine[0, k] == pytest.approx(d @ e / np.linalg.norm(d) / np.linalg.norm(e))
    out = a.as_dict()
    assert out["pair"] == ["b", "d"] and out["certificate_verified"] is True


def test_bad_input():
    with pytest.raises(InvalidInput, match="equal unembeddings"):
        cosine_audit([[1, 2], [1, 2], [0, 1]], pair=(0, 1))
    with pytest.raises(InvalidInput, match="pair must be two different tokens"):
        cosine_audit([[1, 2], [3, 4]], pair=(0, 2))
    with pytest.raises(InvalidInput, match="3 labels for 2 rows"):
        cosine_audit([[1, 2], [3, 4]], ["a", "b", "c"])
    with pytest.raises(InvalidInput, match="bias has length 1"):
        cosine_audit([[1, 2], [3, 4]], bias=[0])
    with pytest.raises(InvalidInput, match="dim must be an integer in 1..2"):
        exact_projection([[1, 2], [3, 4]], 3)


@given(st.integers(0, 10_000))
def test_projection_is_exact_centred_rows_times_rational_basis(seed):
    W = np.random.default_rng(seed).standard_normal((4, 5)).astype(np.float32)
    P = exact_projection(W, 2)
    Wq = to_matrix(W)
    mean = [sum(c, Fraction(0)) / 4 for c in zip(*Wq, strict=True)]
    for r, pr in zip(Wq, P.projected, strict=True):
        for k in range(2):
            assert pr[k] == sum((x - mu) * P.basis[t][k]
                                for t, (x, mu) in enumerate(zip(r, mean, strict=True)))
    assert all(b.denominator <= 1024 for row in P.basis for b in row)


def test_projected_rankings_and_argmax():
    square = [[1, 0], [0, 1], [-1, 0], [0, -1]]
    a = cosine_audit(square, list("ENWS"), dim=2, progress=False)
    assert all(a.projection.argmaxable)
    assert len(a.projection.rankings) == 8  # 4 distinct difference lines in the plane
    W = np.random.default_rng(4).standard_normal((4, 3))
    p = cosine_audit(W, dim=1, progress=False).projection
    assert len(p.rankings) == 2 and p.rankings[0] == p.rankings[1][::-1]
    assert sorted(k for k, ok in enumerate(p.argmaxable) if ok) == sorted(
        {p.rankings[0][0], p.rankings[1][0]})


def test_zero_rows_give_undefined_cosines_not_errors():
    import json

    a = cosine_audit([[0, 0], [1, 0], [1, 0], [0, 2]], pair=(0, 1))
    assert a.verified and np.isnan(a.cosine[0, 1]) and a.cosine[1, 2] == 1.0
    k = a.difference_pairs.index((1, 2))  # w_1 = w_2: zero difference
    assert np.all(np.isnan(a.difference_cosine[k]))
    out = json.loads(json.dumps(a.as_dict(), allow_nan=False))
    assert out["pair_cosine"] is None
