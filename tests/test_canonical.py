"""The canonical form of an arrangement under signed coordinate permutations (issue 46), and
the restriction cache keyed by it: equal forms for isomorphic copies, every form an exact
image of its arrangement, and counts equal to the non-symmetric algorithm and to the
no-broken-circuit enumeration."""

from __future__ import annotations

import random
from itertools import permutations, product

import pytest

from logitgeom.exact import restriction
from logitgeom.exact.canonical import canonical_form
from logitgeom.exact.lattice import characteristic_polynomial as nbc_chi
from logitgeom.exact.linalg import canonical_direction
from logitgeom.geometry.chipoly import arrangement_normals, characteristic_polynomial
from logitgeom.geometry.families import (
    CATALAN,
    RESONANCE_REGIONS,
    SHI,
    circulant,
    deformation,
    resonance,
)


def _signed_image(rows, perm, signs):
    return [canonical_direction([v[perm[j]] * signs[j] for j in range(len(v))]) for v in rows]


def _random_arrangement(rng, k, m, lo=-2, hi=2):
    rows = set()
    while len(rows) < m:
        v = [rng.randint(lo, hi) for _ in range(k)]
        if any(v):
            rows.add(canonical_direction(v))
    return sorted(rows)


def test_isomorphic_copies_get_one_form_and_each_form_is_an_image():
    rng = random.Random("canonical/1")
    for trial in range(60):
        k = rng.randint(2, 5)
        rows = _random_arrangement(rng, k, rng.randint(1, 9))
        form, canon = canonical_form(rows)
        assert set(form) == set(canonical_direction(v) for v in form)  # primitive, sign-normal
        # the form is the image of the rows under some signed permutation
        images = {tuple(sorted(set(_signed_image(rows, p, s))))
                  for p in permutations(range(k))
                  for s in product((1, -1), repeat=k)}
        assert form in images, (trial, rows, form)
        for _ in range(4):
            perm = list(range(k))
            rng.shuffle(perm)
            signs = [rng.choice((1, -1)) for _ in range(k)]
            copy = _signed_image(rows, perm, signs)
            rng.shuffle(copy)
            other, canon2 = canonical_form(copy)
            assert canon2 == canon
            if canon:
                assert other == form, (rows, copy)


def test_past_the_bound_the_form_is_an_image_flagged_not_canonical():
    rows = [tuple(v) for v in resonance(4)]  # S_4 on the columns: 24 orderings > bound 4
    form, canon = canonical_form(rows, bound=4)
    assert not canon
    assert len(form) == len(rows) and all(sum(v) >= 1 for v in form)
    assert characteristic_polynomial(form).coefficients == \
        characteristic_polynomial(rows).coefficients
    assert canonical_form(rows)[1]  # within the default bound: canonical


def test_rows_that_are_not_an_image_get_another_form():
    a = [(1, 0, 0), (0, 1, 0), (1, 1, 0)]      # three planes through a line
    b = [(1, 0, 0), (0, 1, 0), (0, 0, 1)]      # the coordinate planes
    assert canonical_form(a)[0] != canonical_form(b)[0]


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_resonance_canonical_equals_cheap_key_and_published(n):
    st_c: dict = {}
    st_p: dict = {}
    c = restriction.chi_restriction(resonance(n), n, stats=st_c)
    p = restriction.chi_restriction(resonance(n), n, stats=st_p, canonical=False)
    assert c == p
    assert abs(sum(x * (-1) ** i for i, x in enumerate(c))) == RESONANCE_REGIONS[n]
    assert st_c["computed"] <= st_p["computed"]


def test_fewer_restrictions_on_deformations_and_equal_chi():
    for shifts in (SHI, CATALAN):
        W, b = deformation(6, shifts)
        vecs, dim, _ = arrangement_normals(W, bias=b)
        st_c: dict = {}
        st_p: dict = {}
        c = restriction.chi_restriction(vecs, dim, stats=st_c)
        assert c == restriction.chi_restriction(vecs, dim, stats=st_p, canonical=False)
        assert st_c["computed"] < st_p["computed"]


def test_counts_equal_the_enumeration_on_random_and_structured_heads():
    rng = random.Random("canonical/2")
    heads = [[[rng.randint(-2, 2) for _ in range(4)] for _ in range(7)] for _ in range(6)]
    heads.append(circulant([3, 1, 0, -1, 2]))
    heads.append(resonance(4))
    for W in heads:
        p = characteristic_polynomial(W)
        assert list(p.coefficients) == list(nbc_chi(W))


def test_planes_in_three_dimensions_close_in_closed_form():
    rng = random.Random("canonical/3")
    cases = [[(1, 0, 0), (0, 1, 0), (1, 1, 0)],            # rank 2: one line through all
             [(1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 1)]]
    cases += [_random_arrangement(rng, 3, rng.randint(2, 12), -3, 3) for _ in range(30)]
    for rows in cases:
        st: dict = {}
        fast = restriction.chi_restriction(rows, 3, stats=st)
        assert st["planes3"] == 1 and st["computed"] == 0
        assert fast == restriction.chi_restriction(rows, 3, canonical=False)
        assert fast == list(nbc_chi(rows))


def test_rank_deficient_restrictions_are_counted_in_their_span():
    rng = random.Random("canonical/4")
    for _ in range(20):
        rows = _random_arrangement(rng, 3, rng.randint(3, 8), -3, 3)
        base = restriction.chi_restriction(rows, 3, canonical=False)
        # embed Q^3 in Q^5 by an injective integer map (the normals then span 3 dimensions)
        emb = [[rng.randint(-2, 2) for _ in range(5)] for _ in range(3)]
        while len({tuple(r) for r in emb}) < 3 or not _independent(emb):
            emb = [[rng.randint(-2, 2) for _ in range(5)] for _ in range(3)]
        big = [[sum(v[i] * emb[i][j] for i in range(3)) for j in range(5)] for v in rows]
        st: dict = {}
        got = restriction.chi_restriction(big, 5, stats=st)
        assert got == [0, 0] + base                        # t^2 chi(t)
        assert got == restriction.chi_restriction(big, 5, canonical=False)
        assert st["essentialised"] >= 1


def _independent(rows):
    from logitgeom.exact.linalg import rank
    return rank(rows) == len(rows)
