"""chi of a ranking arrangement's restriction by the set-partition formula of its blocks
(logitgeom.geometry.rankflats) against the restriction computed in coordinates."""

from __future__ import annotations

import itertools
import random

import pytest

from logitgeom.errors import EngineError
from logitgeom.exact import restriction
from logitgeom.exact.lattice import arrangement_normals
from logitgeom.geometry.families import circulant, simplex_etf
from logitgeom.geometry.flatsteps import _restrict_map
from logitgeom.geometry.rankflats import RankingRestrictions


def _flat(vecs, subset):
    """The closed set of the flat cut out by ``subset`` and its restricted normals."""
    imgs = dict(enumerate(vecs))
    rank = 0
    for h in subset:
        if h in imgs:
            sub = _restrict_map(imgs, imgs[h])
            imgs = {j: w for j, w in sub.items() if w is not None}
            rank += 1
    closed = tuple(j for j in range(len(vecs)) if j not in imgs)
    return closed, list(imgs.values()), rank


def _heads():
    rng = random.Random(46)
    yield circulant([3, 1, 0, -1, 2])
    yield circulant([2, 0, 0, 1, -1, 0])
    yield simplex_etf(5)
    yield [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0], [2, 2, 0], [1, 0, 0]]  # a tie, parallels
    for _ in range(3):
        yield [[rng.randint(-2, 2) for _ in range(3)] for _ in range(6)]


@pytest.mark.parametrize("W", list(_heads()))
def test_every_flat_reached_by_three_hyperplanes_agrees(W):
    vecs, dim, _ = arrangement_normals(W, ranking=True)
    r = RankingRestrictions(W, vecs)
    seen = set()
    for size in range(0, 4):
        for subset in itertools.combinations(range(len(vecs)), size):
            closed, imgs, rank = _flat(vecs, subset)
            if closed in seen:
                continue
            seen.add(closed)
            want = restriction.chi_restriction(imgs, dim - rank)
            assert r(closed, dim - rank) == want, (W, closed)
    assert len(seen) > 3


def test_a_set_that_is_not_closed_is_refused():
    W = circulant([3, 1, 0, -1, 2])
    vecs, dim, _ = arrangement_normals(W, ranking=True)
    closed, _, rank = _flat(vecs, (0, 1))
    short = closed[:-1]
    with pytest.raises(EngineError):
        RankingRestrictions(W, vecs)(short, dim - rank)


@pytest.mark.parametrize("W", [circulant([(7 * i * i + 3 * i + 1) % 11 - 5 for i in range(8)]),
                               simplex_etf(7), circulant([2, 0, 0, 1, -1, 0])])
def test_the_orbit_count_with_it_equals_the_count_without(W):
    from logitgeom.geometry.chipoly import characteristic_polynomial
    from logitgeom.geometry.flatorbits import chi_flat_orbits
    from logitgeom.geometry.headgroup import arrangement_symmetry, hyperplane_permutations

    vecs, dim, _ = arrangement_normals(W, ranking=True)
    coords = [list(c) for _, c in arrangement_symmetry(W, ranking=True).generators]
    gens = hyperplane_permutations(vecs, dim, False, coords)
    plain = chi_flat_orbits(vecs, dim, gens)
    assert chi_flat_orbits(vecs, dim, gens, chi_of=RankingRestrictions(W, vecs)) == plain
    assert chi_flat_orbits(vecs, dim, gens, chi_of=RankingRestrictions(W, vecs, 3)) == plain
    p = characteristic_polynomial(W, ranking=True, method="orbits")
    assert list(p.coefficients) == plain
    assert p.coefficients == characteristic_polynomial(W, ranking=True).coefficients


def test_it_runs_on_worker_processes():
    from concurrent.futures import ProcessPoolExecutor

    from logitgeom.geometry.chipoly import characteristic_polynomial

    W = circulant([(7 * i * i + 3 * i + 1) % 11 - 5 for i in range(7)])
    with ProcessPoolExecutor(2) as ex:
        p = characteristic_polynomial(W, ranking=True, method="orbits", executor=ex)
    assert p.regions == 5040
