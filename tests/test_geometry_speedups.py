"""The speed paths of the geometry engine give exactly the answers of the slow ones.

Float64 BLAS products (exact below 2^53), uint64 de-duplication keys, lazily built
witnesses, the exact transport identity of the grid and the process pool over grid cells.
"""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest

from logitgeom.geometry import ranking_pattern, sign_pattern
from logitgeom.geometry._grid_sets import transport_map, transported_gram_patterns
from logitgeom.geometry.arrangement import exact as ar
from logitgeom.geometry.grid import gram_column_basis, random_head, verify_grid


def _exact_signs(P, A):
    V = P.astype(object) @ A.astype(object).T
    return ((V > 0).astype(np.int8) - (V < 0).astype(np.int8))


@pytest.mark.parametrize("bits", [3, 20, 40, 52, 60])
def test_sign_matrix_matches_python_ints(bits):
    rng = np.random.default_rng(bits)
    for rows in (7, 3000):  # small: int64 products; large: float64 BLAS when below 2^53
        P = rng.integers(-(2**bits), 2**bits, size=(rows, 5), dtype=np.int64)
        A = rng.integers(-9, 10, size=(30, 5), dtype=np.int64)
        P[0] = 0
        assert np.array_equal(ar.sign_matrix(P, A), _exact_signs(P, A))
        if bits <= 40:
            assert np.array_equal(ar.matmul(P, A), P.astype(object) @ A.astype(object).T)


def test_first_rows_keeps_first_occurrences():
    rng = np.random.default_rng(1)
    for width in (5, 64, 70):
        S = np.where(rng.random((500, width)) < 0.5, 1, -1).astype(np.int8)
        S = np.concatenate([S, S[::3]])
        seen, want = set(), []
        for i, r in enumerate(S.tolist()):
            if tuple(r) not in seen:
                seen.add(tuple(r))
                want.append(i)
        assert ar.first_rows(S).tolist() == want


def test_lazy_witnesses_and_pattern_arrays():
    W = [[3, -1, 2], [1, 4, -2], [-2, 1, 1], [0, 3, 5], [2, 2, -3]]
    for res in (sign_pattern(W), sign_pattern(W, bias=[1, 0, -1, 2, 0]), ranking_pattern(W),
                ranking_pattern(W, bias=[0, 1, 0, 1, 0]), ranking_pattern(W, top=4)):
        assert res.pattern_array().tolist() == [list(p) for p in res.patterns]
        assert "witnesses" not in vars(res)  # not built yet
        w = res.witnesses
        assert res.witnesses is w and len(w) == res.count
        assert all(isinstance(v, F) for x in w for v in x)
    a, b = sign_pattern(W), sign_pattern(W)
    assert a == b and hash(a) == hash(b) and a != ranking_pattern(W)


def test_transport_identity_is_exact():
    rng = np.random.default_rng(4)
    for n, d in [(6, 3), (8, 5), (5, 2)]:
        A = [[F(int(v), 3) for v in r] for r in rng.integers(-6, 7, size=(n, d))]
        Gc = gram_column_basis(A)
        N = transport_map(A, Gc)
        assert N is not None
        for x in rng.integers(-50, 51, size=(20, d)).tolist():
            ax = [sum(a * v for a, v in zip(r, x, strict=True)) for r in A]
            y = [sum(nr[c] * x[c] for c in range(d)) for nr in N]
            gy = [sum(g * v for g, v in zip(r, y, strict=True)) for r in Gc]
            assert [(v > 0) - (v < 0) for v in gy] == [(v > 0) - (v < 0) for v in ax]
    A1 = [[1, 0], [0, 1], [1, 1]]
    A2 = [[1, 0], [0, 1], [1, -1]]
    assert transport_map(A1, gram_column_basis(A2)) is None
    signs = sign_pattern(A1).pattern_array()
    assert transported_gram_patterns(A1, gram_column_basis(A2), signs) == (False, 6)


def test_grid_workers_give_the_same_result():
    serial = verify_grid(ns=(3, 5), seeds=1, progress=False, workers=1)
    pooled = verify_grid(ns=(3, 5), seeds=1, progress=False, workers=2)
    assert serial.to_json() == pooled.to_json() and pooled.passed
    assert [(c.n, c.d) for c in pooled.cells] == [(3, 2), (3, 3), (5, 2), (5, 3), (5, 4),
                                                   (5, 5)]
    with pytest.raises(Exception, match="workers"):
        verify_grid(ns=(3,), seeds=1, workers=0)


def test_transport_and_enumerate_agree_on_a_big_cell():
    W = random_head(7, 4, 2)
    from logitgeom.geometry.grid import check_cell

    a, b = check_cell(W), check_cell(W, method="transport")
    assert a.passed and a.to_json() == b.to_json() and a.ranking_count > 1000


def test_regions_cache_changes_no_point():
    """The bounded caches of ``regions`` and ``restrict_map`` return the points and
    restrictions computed without them, as independent copies."""
    from logitgeom.geometry.arrangement import _common
    from logitgeom.geometry.arrangement import exact as ex

    rng = np.random.default_rng(5)
    for D in (3, 4, 5):
        rows = tuple(tuple(int(v) for v in r) for r in rng.integers(-3, 4, size=(9, D))
                     if any(r))
        rows = tuple(dict.fromkeys(_common.canonical(r)[0] for r in rows))
        ex._REGIONS.clear()
        _common._RESTRICTED.clear()
        first = ex.regions(rows, D)
        again = ex.regions(rows, D)  # from the cache
        assert np.array_equal(first, again) and first.dtype == again.dtype
        again[:] = 0  # a copy: the cache keeps its points
        fresh = ex._regions(rows, D, ())
        assert np.array_equal(ex.regions(rows, D), fresh)
        sub, where = _common.restrict_map(rows[:-1], rows[-1])
        where.append((9, 9))
        assert _common.restrict_map(rows[:-1], rows[-1]) == _common._restrict_map(
            rows[:-1], rows[-1])
        assert ex.regions([list(r) for r in rows], D).tolist() == fresh.tolist()  # lists
