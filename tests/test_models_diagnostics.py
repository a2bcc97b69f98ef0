"""delta_ETF / delta_circ / delta_group (docs/symmetry.md, section 5): planted geometry,
invariances."""

from __future__ import annotations

import _tiny_models as T
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from logitgeom.errors import InvalidInput
from logitgeom.models import (
    delta_circ,
    delta_etf,
    delta_group,
    diagnose,
    double_centre,
    load_lm_head,
    nearest_circulant,
    nearest_invariant,
    normalized_gram,
    orbitals,
)


def test_planted_heads_are_recovered_from_disk():
    pytest.importorskip("safetensors")
    ids = T.day_ids()
    d = {k: diagnose(load_lm_head(T.planted_head(k), rows=ids).weight)
         for k in ("circulant", "etf", "random")}
    assert d["circulant"].delta_circ < 1e-12
    assert d["etf"].delta_etf < 1e-12
    assert d["etf"].delta_circ < 1e-12  # an ETF Gram is circulant too
    assert d["random"].delta_circ > 0.2 and d["random"].delta_etf > 0.2
    assert d["circulant"].delta_etf > 0.2


def test_definitions_match_the_formulas():
    rng = np.random.default_rng(3)
    G = normalized_gram(rng.standard_normal((5, 3)))
    m = 5
    M = (m / (m - 1)) * (np.eye(m) - np.ones((m, m)) / m)
    c = np.sum(G * M) / np.sum(M * M)
    assert delta_etf(G) == pytest.approx(np.linalg.norm(G - c * M) / np.linalg.norm(G), rel=1e-12)
    P = np.roll(np.eye(m), 1, axis=0)
    avg = sum(np.linalg.matrix_power(P, k) @ G @ np.linalg.matrix_power(P, k).T
              for k in range(m)) / m
    np.testing.assert_allclose(nearest_circulant(G), avg, atol=1e-14)
    # all elements of C_5 or one generator give the same projection
    elements = [list(np.roll(np.arange(m), k)) for k in range(m)]
    np.testing.assert_allclose(nearest_invariant(G, elements), avg, atol=1e-14)
    assert delta_group(G, [[1, 2, 3, 4, 0]]) == pytest.approx(delta_circ(G), rel=1e-12)


def test_symmetric_group_orbitals_and_group_objects():
    lab = orbitals(4, [[1, 0, 2, 3], [1, 2, 3, 0]])  # S_4: diagonal and off-diagonal
    assert sorted(set(lab.ravel().tolist())) == [0, 1]
    sympy = pytest.importorskip("sympy.combinatorics")
    G = normalized_gram(np.random.default_rng(0).standard_normal((4, 6)))
    S4 = sympy.SymmetricGroup(4)
    # S_4-invariant projection of a centred Gram is the best a I + b J; for centred Grams
    # (row sums 0) that is exactly the nearest ETF multiple.
    assert delta_group(G, S4) == pytest.approx(delta_etf(G), rel=1e-9)


def test_group_action_from_engine_symmetry():
    import logitgeom.symmetry as sym

    G = normalized_gram(np.random.default_rng(5).standard_normal((7, 3)))
    assert delta_group(G, sym.cyclic(7)) == pytest.approx(delta_circ(G), rel=1e-12)
    assert delta_group(G, sym.symmetric(7)) == pytest.approx(delta_etf(G), rel=1e-9)


finite = st.floats(-10, 10, allow_nan=False, allow_infinity=False)


@given(
    X=st.lists(st.lists(finite, min_size=3, max_size=3), min_size=5, max_size=5),
    shift=st.lists(finite, min_size=3, max_size=3),
    scale=st.floats(0.01, 100),
)
def test_invariant_to_scaling_and_common_translation(X, shift, scale):
    X = np.array(X)
    if np.linalg.norm(X - X.mean(0)) < 1e-3:  # (nearly) all equal: undefined, tested below
        return
    Y = scale * X + np.array(shift)
    a, b = diagnose(X, group=[[1, 0, 2, 3, 4]]), diagnose(Y, group=[[1, 0, 2, 3, 4]])
    for f in ("delta_etf", "delta_circ", "delta_group"):
        assert getattr(a, f) == pytest.approx(getattr(b, f), abs=1e-7)
    G = a.gram
    assert delta_etf(7.5 * G) == pytest.approx(delta_etf(G), abs=1e-12)
    assert delta_circ(0.3 * G) == pytest.approx(delta_circ(G), abs=1e-12)


def test_probability_matrices_are_double_centred_first():
    m = 7
    shift = np.roll(np.eye(m), 1, axis=0) * 0.6 + 0.4 / m  # next day gets the mass
    exch = 0.5 * np.eye(m) + 0.5 / m                          # exchangeable
    assert delta_circ(double_centre(shift)) < 1e-12
    assert delta_etf(double_centre(exch)) < 1e-12
    assert delta_etf(double_centre(shift)) > 0.5


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: normalized_gram([[1.0, 2.0], [1.0, 2.0]]), "all vectors are equal"),
        (lambda: delta_circ(np.ones((2, 3))), "square"),
        (lambda: delta_etf([[1.0]]), "at least 2"),
        (lambda: delta_circ([[1.0, np.nan], [0.0, 1.0]]), "NaN"),
        (lambda: delta_etf(np.zeros((3, 3))), "zero matrix"),
        (lambda: delta_group(np.eye(3), [[0, 1, 1]]), "not a permutation of range"),
        (lambda: delta_group(np.eye(3), [[1, 0]]), "not a permutation of range"),
        (lambda: normalized_gram([1.0, 2.0]), "2-D"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(InvalidInput, match=match):
        call()
