"""GroupAction, constructors and orbit targets: orders, orbits, membership, errors."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from logitgeom.errors import InvalidInput, TooLarge
from logitgeom.symmetry import (
    GroupAction,
    affine_line,
    cyclic,
    direct_product,
    direct_sum,
    orbit_targets,
    symmetric,
    wreath,
)
from logitgeom.symmetry.examples import app_f_examples


@pytest.mark.parametrize(
    ("G", "order"),
    [
        (cyclic(7), 7),
        (symmetric(1), 1),
        (symmetric(5), 120),
        (affine_line(7), 42),
        (direct_sum(symmetric(2), symmetric(3), symmetric(2)), 24),
        (direct_product(symmetric(3), symmetric(3)), 36),
        (wreath(symmetric(3), symmetric(2)), 72),
        (wreath(symmetric(2), symmetric(3)), 48),
        (wreath(symmetric(3), symmetric(3)), 6**3 * 6),
        (wreath(cyclic(3), cyclic(2)), 18),
    ],
)
def test_orders(G, order):
    assert G.order == order
    els = G.row_elements()
    assert els.shape == (order, G.m)
    assert len({tuple(r) for r in els.tolist()}) == order
    assert els[0].tolist() == list(range(G.m))
    assert all(G.contains(r) for r in els[:: max(1, order // 7)].tolist())


def test_affine_line_is_two_transitive():
    G = affine_line(5)
    orb = G.orbitals()
    assert int(orb.max()) + 1 == 2  # diagonal and off-diagonal: 2-transitive


def test_orbits_and_orbitals_of_direct_sum():
    G = direct_sum(symmetric(2), symmetric(3))
    assert G.row_orbits() == [[0, 1], [2, 3, 4]]
    assert int(G.orbitals().max()) + 1 == 2 + 2 + 2  # diag/offdiag per block, 2 cross


def test_membership_rejects_outside_elements():
    G = cyclic(4)
    assert G.contains([1, 2, 3, 0])
    assert not G.contains([1, 0, 2, 3])
    with pytest.raises(InvalidInput, match="degree 3"):
        G.contains([1, 2, 0])


def test_regular_action_matches_explicit_action():
    T = orbit_targets(symmetric(3), [["1/2", "1/3", "1/6"], [1, 0, 0]])
    R = T.action
    E = GroupAction(R.generators, m=R.m, n=R.n)
    assert E.order == R.order == 6
    assert R.contains(*R.generators[0]) and E.contains(*R.generators[0])
    assert not R.contains(R.generators[0][0], list(range(R.n)))
    assert np.array_equal(E.pair_orbit_labels(), np.asarray(
        _canon(R.pair_orbit_labels())))
    assert E.column_orbits() == R.column_orbits()
    E.check_preserves(T.codes())


def _canon(L):
    _, first, inv = np.unique(L.ravel(), return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first)] = np.arange(len(first))
    return rank[inv.ravel()].reshape(L.shape)


def test_orbit_target_columns_follow_the_convention():
    T = orbit_targets(cyclic(4), ["1/2", "1/4", "1/8", "1/8"])
    Y = T.exact_Y()
    # column k is P^k y with (P y)_i = y_{i-1}: a circulant
    for k in range(4):
        for i in range(4):
            assert Y[i][k] == Y[(i - k) % 4][0]
    assert T.Y.dtype == float and T.Y.shape == (4, 4)


def test_app_f_targets_sum_to_one_and_have_full_orbits():
    for ex in app_f_examples().values():
        assert sum(ex.y, Fraction(0)) == 1
        T = orbit_targets(ex.group, ex.y)
        assert T.Y.shape == (ex.group.m, ex.group.order)
        assert all(sum(col, Fraction(0)) == 1 for col in zip(*T.exact_Y(), strict=True))


def test_bad_input_errors():
    with pytest.raises(InvalidInput, match="length 2 but the group S3 acts on 3"):
        orbit_targets(symmetric(3), [1, 0])
    with pytest.raises(InvalidInput, match="negative probability at entry 1"):
        orbit_targets(symmetric(3), [2, -1, 0])
    with pytest.raises(InvalidInput, match="sums to 3/4"):
        orbit_targets(symmetric(3), ["1/4", "1/4", "1/4"])
    with pytest.raises(TooLarge, match="720 columns"):
        orbit_targets(symmetric(6), [1, 0, 0, 0, 0, 0], max_columns=100)
    T = orbit_targets(cyclic(3), [1, 0, 0])
    with pytest.raises(InvalidInput, match="acts on 3 columns already"):
        orbit_targets(T.action, [1, 0, 0])
    with pytest.raises(InvalidInput, match="degree 2 but 3 points"):
        GroupAction([[1, 0]], m=3)
    with pytest.raises(InvalidInput, match="not a permutation"):
        GroupAction([[0, 0, 1]], m=3)
    with pytest.raises(InvalidInput, match="pair"):
        GroupAction([[1, 0]], m=2, n=2)
    with pytest.raises(InvalidInput, match="prime"):
        affine_line(9)
    with pytest.raises(InvalidInput, match="does not preserve Y"):
        GroupAction([([1, 0], [0, 1])], m=2, n=2).check_preserves(np.array([[1, 2], [3, 4]]))
    with pytest.raises(InvalidInput, match="not the orbit"):
        bad = T.Y.copy()
        bad[0, 1] = 0.5
        T.action.check_preserves(bad)


@given(st.lists(st.permutations(range(5)), min_size=0, max_size=3))
def test_orbit_law_sizes(gens):
    """Orbit-stabiliser: every pair orbit of a regular action has |G| / |Stab| = |G|
    elements (stabilisers of columns are trivial), and orbits partition [m] x [n]."""
    G = GroupAction([list(g) for g in gens], m=5)
    T = orbit_targets(G, [1, 0, 0, 0, 0])
    lab = T.action.pair_orbit_labels()
    counts = np.bincount(lab.ravel())
    assert np.all(counts == G.order)
    assert len(counts) == 5
    assert math.prod(T.Y.shape) == 5 * G.order
