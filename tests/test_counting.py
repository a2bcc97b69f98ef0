"""Exact counts (Zaslavsky) against exact-LP brute force, the generic formulas and the paper."""

from __future__ import annotations

import random
from concurrent.futures import ProcessPoolExecutor
from fractions import Fraction
from math import comb, factorial

import numpy as np
import pytest
from _brute_geometry import brute_rankings, brute_regions

from logitgeom.errors import InvalidInput
from logitgeom.exact.lattice import (
    characteristic_polynomial,
    count_rankings_exact,
    count_regions_exact,
    evaluate,
    flats,
    ranking_characteristic_polynomial,
    tie_classes,
)
from logitgeom.geometry import (
    affine_generic_count,
    count_rankings,
    count_regions,
    cover_count,
    ranking_count_generic,
    ranking_count_generic_affine,
)
from logitgeom.geometry.counting import stirling_first

W1 = [[1, "-4/5", 1], [1, "4/5", 1], [1, "11/20", "-1/2"], [1, -1, -1], [1, 1, -1]]
W2 = [[1, -1, 1], [1, 1, 1], [1, "7/20", "-1/2"], [1, "-4/5", -1], [1, "4/5", -1]]

DEGENERATE = [
    # (name, W, bias)
    ("collinear triple (affine points)", [[0, 0], [1, 1], [2, 2], [0, 1]], [1, 1, 1, 1]),
    ("collinear triple (central)", [[1, 0, 1], [1, 1, 1], [1, 2, 1], [0, 1, 0]], None),
    ("repeated rows", [[1, 2], [1, 2], [3, -1], [1, 2]], None),
    ("repeated rows affine", [[1, 2], [1, 2], [3, -1]], [0, 1, 2]),
    ("zero rows", [[0, 0, 0], [1, 0, 0], [0, 0, 0], [0, 1, 1]], None),
    ("zero row with bias", [[0, 0], [1, 0], [0, 1]], [3, 0, -1]),
    ("all zero", [[0, 0], [0, 0]], None),
    ("rank < d", [[1, 1, 0], [2, 2, 0], [1, -1, 0], [3, 1, 0]], None),
    ("d = 1", [[1], [-2], [3], [0]], None),
    ("d = 1 affine", [[1], [-2], [3], [1]], [0, 1, 1, 1]),
    ("k = 1", [[2, -1, 3]], None),
    ("k = 1 affine", [[2, -1]], [5]),
    ("parallel rows", [[1, 2], [-2, -4], [3, 6], [1, 0]], None),
    ("parallel rows affine", [[1, 2], [-2, -4], [3, 6], [1, 0]], [0, 1, 0, 2]),
    ("concurrent lines", [[1, 0], [0, 1], [1, 1]], [1, 1, 2]),
    ("App. H.2 W1", W1, None),
    ("App. H.2 W2", W2, None),
]


@pytest.mark.parametrize("name, W, bias", DEGENERATE, ids=[c[0] for c in DEGENERATE])
def test_degenerate_counts_equal_brute_force(name, W, bias):
    M = [[Fraction(x) for x in r] for r in W]
    assert count_regions(W, bias=bias) == brute_regions(M, bias)
    assert count_rankings(W, bias=bias) == brute_rankings(M, bias)


def test_random_small_counts_equal_brute_force():
    rng = random.Random(20240531)
    for _ in range(40):
        k, d, lo = rng.randint(1, 6), rng.randint(1, 4), rng.choice([1, 2, 5])
        W = [[rng.randint(-lo, lo) for _ in range(d)] for _ in range(k)]
        if k > 2 and rng.random() < 0.3:
            W[-1] = [2 * x for x in W[0]]
        b = [rng.randint(-2, 2) for _ in range(k)] if rng.random() < 0.5 else None
        assert count_regions_exact(W, b) == brute_regions(W, b), (W, b)
        if k <= 5:
            assert count_rankings_exact(W, b) == brute_rankings(W, b), (W, b)


def test_partition_formula_matches_subset_sum():
    """The set-partition form of chi for rankings equals Whitney's subset sum over B W."""
    rng = random.Random(7)
    for _ in range(6):
        k, d = rng.randint(2, 5), rng.randint(1, 3)
        W = [[rng.randint(-2, 2) for _ in range(d)] for _ in range(k)]
        b = [rng.randint(-1, 1) for _ in range(k)] if rng.random() < 0.5 else None
        BW = [[W[i][c] - W[j][c] for c in range(d)] for i in range(k) for j in range(i + 1, k)]
        Bb = None if b is None else [b[i] - b[j] for i in range(k) for j in range(i + 1, k)]
        if not any(any(r) for r in BW) and b is None:
            continue
        assert ranking_characteristic_polynomial(W, b) == characteristic_polynomial(BW, Bb)


def test_generic_counts_equal_formulas():
    rng = random.Random(1)
    for k, d in [(5, 2), (5, 3), (6, 4), (9, 3), (20, 5)]:
        W = [[rng.randint(-(10**6), 10**6) for _ in range(d)] for _ in range(k)]
        b = [rng.randint(-(10**6), 10**6) for _ in range(k)]
        assert count_regions(W) == cover_count(k, d)
        assert count_regions(W, bias=b) == affine_generic_count(k, d)
        if k <= 9:
            assert count_rankings(W) == ranking_count_generic(k, d)
            assert count_rankings(W, bias=b) == ranking_count_generic_affine(k, d)


def test_good_tideman_numbers():
    assert [ranking_count_generic(5, d) for d in (2, 3, 4)] == [20, 72, 120]
    assert ranking_count_generic(10, 3) == 1742
    assert ranking_count_generic(10, 6) == 557_640
    assert ranking_count_generic(1, 3) == 1 and ranking_count_generic(4, 1) == 2
    for k in range(1, 9):
        for d in range(1, 8):
            # docs/geometry.md: Q(k, d) = 2 sum_i c(k, k - d + 1 + 2i); k! once d >= k - 1
            alt = 2 * sum(stirling_first(k, k - d + 1 + 2 * i) for i in range(k + d))
            q = ranking_count_generic(k, d)
            assert q == (alt if k > 1 else 1)
            if d >= k - 1:
                assert q == factorial(k)
    assert cover_count(20, 5) == 10_072 == 2 * sum(comb(19, i) for i in range(5))


def test_k10_d6_generic_rankings():
    rng = random.Random(3)
    W = [[rng.randint(-1000, 1000) for _ in range(6)] for _ in range(10)]
    assert count_rankings(W) == 557_640
    W = [[rng.randint(-1000, 1000) for _ in range(3)] for _ in range(10)]
    assert count_rankings(W) == 1742


def test_app_h2_pair():
    assert count_regions(W1) == count_regions(W2) == 20
    assert count_rankings(W1) == count_rankings(W2) == 14


def _brute_flats(W, b):
    """Closures of every subset of hyperplanes with a non-empty intersection (brute force)."""
    from itertools import combinations

    from logitgeom.exact.linalg import EchelonBasis

    aug = {i: [*r, *([b[i]] if b else [])] for i, r in enumerate(W) if any(r)}
    dim = len(W[0]) + (1 if b else 0)
    out = set()
    for n in range(len(aug) + 1):
        for S in combinations(sorted(aug), n):
            B = EchelonBasis.spanning([aug[i] for i in S], dim)
            if b and B.contains([0] * (dim - 1) + [1]):
                continue  # empty intersection
            out.add((B.rank, tuple(i for i in sorted(aug) if B.contains(aug[i]))))
    return out


def test_flats_and_mobius_agree_with_dfs():
    rng = random.Random(11)
    for _ in range(8):
        k, d = rng.randint(1, 6), rng.randint(1, 3)
        W = [[rng.randint(-2, 2) for _ in range(d)] for _ in range(k)]
        b = [rng.randint(-1, 1) for _ in range(k)] if rng.random() < 0.5 else None
        fl = flats(W, b)
        assert {(f.rank, f.hyperplanes) for f in fl} == _brute_flats(W, b)
        assert list(fl) == sorted(fl)
        chi = [0] * (d + 1)
        for f in fl:
            chi[d - f.rank] += f.mobius
        assert tuple(chi) == characteristic_polynomial(W, b)
        assert sum(abs(f.mobius) for f in fl) == count_regions_exact(W, b)
    # k = 5 generic rankings: the 10 rows w_i - w_j (i < j), every flat listed
    W = [[0, 0], [1, 0], [0, 1], [3, 5], [-2, 7]]
    BW = [[x - y for x, y in zip(W[i], W[j], strict=True)]
          for i in range(5) for j in range(i + 1, 5)]
    rf = flats(BW)
    assert sum(abs(f.mobius) for f in rf) == count_rankings(W) == 20
    assert abs(evaluate(ranking_characteristic_polynomial(W), -1)) == 20


def test_tie_classes_and_float_input():
    assert tie_classes([[1, 0], [0, 1], [1, 0]]) == ((0, 2), (1,))
    # floats are their exact binary rationals: 0.1 + 0.2 != 0.3 exactly
    W = np.array([[0.1, 0.2], [0.3, 0.0], [0.1 + 0.2, 0.0]])
    assert count_rankings(W) == count_rankings_exact([[Fraction(x) for x in r] for r in W.tolist()])


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: count_regions([[1, float("nan")]]), "NaN"),
        (lambda: count_regions([[1, 2], [3]]), "ragged"),
        (lambda: count_regions([]), "empty"),
        (lambda: count_rankings([[1, 2]], bias=[1, 2]), "bias has length 2"),
        (lambda: count_regions([[1, float("inf")]]), "finite"),
        (lambda: cover_count(0, 2), "k must be at least 1"),
        (lambda: ranking_count_generic(3, 0), "d must be at least 1"),
        (lambda: affine_generic_count(2.5, 1), "k must be an integer"),
        (lambda: flats([[1, 0], [0, 1], [1, 1]], max_flats=3), "more than 3 flats"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(Exception, match=match) as info:
        call()
    assert isinstance(info.value, InvalidInput) or type(info.value).__name__ == "TooLarge"


def test_partition_search_falls_back_on_degenerate_heads(monkeypatch):
    import logitgeom.exact.lattice as L

    # 14 affinely collinear labels: Bell-number many low-rank partitions
    W = [[i, 2 * i, 3 * i, 4 * i + 1] for i in range(14)] + [[1, -3, 2, 0], [0, 5, -1, 2]]
    BW = [
        [a - b for a, b in zip(W[i], W[j], strict=True)]
        for i in range(16)
        for j in range(i + 1, 16)
    ]
    assert count_rankings(W) == count_regions(BW)
    monkeypatch.setattr(L, "_PARTITION_BUDGET", 3)
    rng = random.Random(5)
    for _ in range(10):
        k, d = rng.randint(2, 5), rng.randint(1, 3)
        W = [[rng.randint(-2, 2) for _ in range(d)] for _ in range(k)]
        b = [rng.randint(-2, 2) for _ in range(k)] if rng.random() < 0.5 else None
        assert count_rankings_exact(W, b) == brute_rankings(W, b)


def test_parallel_and_budgeted_counts_equal_the_exact_count():
    from logitgeom.geometry.counting import (
        count_or_refuse,
        count_regions_parallel,
        count_regions_within,
    )

    rng = np.random.default_rng(7)
    for _ in range(40):
        k, d = int(rng.integers(1, 10)), int(rng.integers(1, 6))
        W = rng.integers(-2, 3, size=(k, d)).tolist()
        b = rng.integers(-2, 3, size=k).tolist() if rng.random() < 0.5 else None
        n = count_regions_exact(W, b)
        for tasks in (1, 4, 50):
            assert count_regions_parallel(W, bias=b, tasks=tasks) == n
        assert count_regions_within(W, bias=b, max_work=10**7) == n
        assert count_or_refuse(W, bias=b, limit=10**7) == n
    with ProcessPoolExecutor(2) as pool:
        W = [[int(c) for c in format(i, "05b")] for i in range(1, 32)]
        stats: dict = {}
        assert count_regions_parallel(W, executor=pool, stats=stats) == 11292
        assert stats["tasks"] == 16 and stats["cpu_tasks"] >= 0  # CPU of the workers' tasks


def test_count_refuses_from_the_exact_work_not_the_bound():
    from logitgeom.errors import TooLarge
    from logitgeom.geometry.counting import count_or_refuse, region_upper_bound

    braid = [[1 if i == a else -1 if i == c else 0 for i in range(8)]
             for c in range(8) for a in range(c)]  # 28 rows in R^8: 8! regions
    assert region_upper_bound(braid) > 10**6
    assert count_or_refuse(braid, limit=10**6) == 40320
    assert count_or_refuse([[int(i == j) for j in range(8)] for i in range(8)],
                           ranking=True, limit=1000) == 40320
    generic = np.random.default_rng(1).integers(-50, 51, size=(30, 6)).tolist()
    with pytest.raises(TooLarge, match="steps of exact search"):
        count_or_refuse(generic, limit=1000)
