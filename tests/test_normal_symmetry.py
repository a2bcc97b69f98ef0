"""The detected group of ``--method orbits`` includes coordinate permutations that map the
hyperplanes (not the head's rows) onto themselves: the Catalan and semiorder heads, whose
rows ``e_i - e_j`` (``i < j``) go to negatives of rows, get all of ``S_n``."""

from __future__ import annotations

import itertools
from math import factorial

import pytest

from logitgeom.exact.lattice import arrangement_normals
from logitgeom.geometry.chipoly import characteristic_polynomial
from logitgeom.geometry.families import (
    CATALAN,
    SEMIORDER,
    SHI,
    catalan_count,
    deformation,
    resonance,
    semiorder_count,
    shi_count,
)
from logitgeom.geometry.headgroup import (
    arrangement_symmetry,
    hyperplane_permutations,
    is_full_symmetric,
    normal_symmetry,
)
from logitgeom.geometry.permchain import StabilizerChain


def _order(vecs, d, affine, gens):
    return StabilizerChain(hyperplane_permutations(vecs, d, affine, gens), len(vecs)).order


@pytest.mark.parametrize("shifts, formula", [(CATALAN, catalan_count),
                                             (SEMIORDER, semiorder_count)])
@pytest.mark.parametrize("n", [3, 4, 5])
def test_symmetric_deformations_get_the_symmetric_group(shifts, formula, n):
    W, b = deformation(n, shifts)
    vecs, _, affine = arrangement_normals(W, bias=b)
    assert arrangement_symmetry(W, bias=b).order == 1  # the head's rows: no symmetry
    assert _order(vecs, n, affine, normal_symmetry(vecs, n, affine)) == factorial(n)
    p = characteristic_polynomial(W, bias=b, method="orbits")
    assert p.stats["group_order"] == factorial(n)
    assert p.regions == formula(n)
    assert p.coefficients == characteristic_polynomial(W, bias=b).coefficients


def test_every_coordinate_permutation_found_is_an_automorphism_and_none_is_missed():
    """Brute force over S_4 on a few arrangements: the generators found generate exactly
    the coordinate permutations mapping the set of hyperplanes onto itself."""
    heads = [deformation(4, CATALAN), deformation(4, SHI),
             ([[1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 1], [1, 0, 0, 1], [1, -1, 0, 0]], None),
             (resonance(4), None)]
    for W, b in heads:
        vecs, _, affine = arrangement_normals(W, bias=b)
        want = 0
        for c in itertools.permutations(range(4)):
            try:
                hyperplane_permutations(vecs, 4, affine, [list(c)])
            except Exception:  # noqa: BLE001 - not an automorphism
                continue
            want += 1
        gens = normal_symmetry(vecs, 4, affine)
        assert _order(vecs, 4, affine, gens) == want, W  # the action on hyperplanes is faithful


def test_shi_has_no_coordinate_permutation_and_counts_alone():
    W, b = deformation(5, SHI)
    vecs, _, affine = arrangement_normals(W, bias=b)
    assert normal_symmetry(vecs, 5, affine) == []
    assert characteristic_polynomial(W, bias=b, method="orbits").regions == shi_count(5)


@pytest.mark.parametrize("ranking", [False, True])
def test_no_search_when_the_head_group_is_every_coordinate_permutation(monkeypatch, ranking):
    """The simplex ETF's own group is all of S_d on the coordinates: normal_symmetry (which
    returns coordinate permutations) cannot enlarge it, so it is not run, and the count and
    the group are those of the run that searched."""
    from logitgeom.geometry import headgroup
    from logitgeom.geometry.families import simplex_etf

    W = simplex_etf(5)
    monkeypatch.setattr(headgroup, "is_full_symmetric", lambda perms, d: False)
    searched = characteristic_polynomial(W, ranking=ranking, method="orbits")
    monkeypatch.undo()

    def fail(*args, **kw):
        raise AssertionError("normal_symmetry ran on a head whose group is already S_d")

    monkeypatch.setattr(headgroup, "normal_symmetry", fail)
    skipped = characteristic_polynomial(W, ranking=ranking, method="orbits")
    assert skipped.coefficients == searched.coefficients
    assert skipped.regions == searched.regions == (factorial(5) if ranking else 2 ** 5 - 2)
    for key in ("group_order", "orbits", "flats"):
        assert skipped.stats.get(key) == searched.stats.get(key), key


def test_is_full_symmetric_is_exact():
    assert is_full_symmetric([[1, 0, 2, 3], [1, 2, 3, 0]], 4)  # a transposition, a 4-cycle
    assert not is_full_symmetric([[1, 2, 3, 0], [2, 3, 0, 1]], 4)  # cyclic: transitive
    assert not is_full_symmetric([[1, 2, 0, 3], [0, 2, 3, 1]], 4)  # A_4, order 12
    assert not is_full_symmetric([], 3) and is_full_symmetric([], 1)
