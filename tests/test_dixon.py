"""logitgeom.exact.dixon: one factorisation, many right-hand sides, exactly."""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pytest

from logitgeom.exact import dixon
from logitgeom.exact.intmat import solve_square

flint = pytest.importorskip("flint")


def _holds(A, B, N, D):
    n = len(A)
    return D > 0 and all(sum(A[i][k] * N[j][k] for k in range(n)) == D * B[j][i]
                         for j in range(len(B)) for i in range(n))


def _system(rng, n, m, bits):
    A = [[rng.randrange(-(1 << bits), 1 << bits) for _ in range(n)] for _ in range(n)]
    B = [[rng.randrange(-(1 << bits), 1 << bits) for _ in range(n)] for _ in range(m)]
    return A, B


@pytest.mark.parametrize("n,m,bits", [(24, 2, 3), (30, 3, 10), (40, 5, 30), (50, 4, 40),
                                      (64, 7, 45), (90, 9, 20)])
def test_lifting_is_exact_and_d_is_the_determinant(n, m, bits):
    rng = random.Random(n * 1000 + bits)
    A, B = _system(rng, n, m, bits)
    assert dixon.lifting_plan(A, B) is not None  # the p-adic path, not FLINT's solve
    N, D = dixon.solve_columns(A, B)
    assert _holds(A, B, N, D)
    assert D == abs(int(flint.fmpz_mat(A).det()))


def test_agrees_with_a_fraction_solve():
    rng = random.Random(7)
    A, B = _system(rng, 26, 3, 8)
    N, D = dixon.solve_columns(A, B)
    for b, col in zip(B, N, strict=True):
        z, den = solve_square(A, b)
        assert [Fraction(v, D) for v in col] == [Fraction(v, den) for v in z]


def test_a_prime_dividing_the_determinant_is_skipped():
    n = 30
    plan = dixon.lifting_plan([[1] * n] * n, [[1] * n])
    q = (1 << plan["prime_bits"]) - 1
    while not flint.fmpz(q).is_prime():
        q -= 1
    rng = random.Random(1)
    # lower triangular with diagonal (q, 1, ..., 1): det = q, the first prime tried
    A = [[(q if i == j == 0 else 1 if i == j else rng.randrange(-99, 99) if j < i else 0)
          for j in range(n)] for i in range(n)]
    B = [[rng.randrange(-99, 99) for _ in range(n)] for _ in range(3)]
    F = dixon.Factorisation(A)
    assert F.det == q and F.p != q
    assert _holds(A, B, F.solve(B), F.det)


def test_singular_is_none_and_refused_by_the_factorisation():
    rng = random.Random(2)
    A, B = _system(rng, 30, 3, 12)
    A[5] = [2 * v for v in A[3]]
    assert dixon.solve_columns(A, B) is None
    with pytest.raises(ValueError, match="non-singular"):
        dixon.Factorisation(A)


def test_wide_entries_and_one_column_go_to_flint_and_stay_exact():
    rng = random.Random(3)
    A, B = _system(rng, 30, 2, 58)
    assert dixon.lifting_plan(A, B) is None
    N, D = dixon.solve_columns(A, B)
    assert _holds(A, B, N, D)
    A, B = _system(rng, 40, 1, 20)
    N, D = dixon.solve_columns(A, B)
    assert _holds(A, B, N, D)
    with pytest.raises(ValueError, match="bits"):
        dixon.Factorisation(_system(rng, 30, 1, 58)[0])


def test_bad_shapes_are_refused():
    with pytest.raises(ValueError, match="square"):
        dixon.solve_columns([[1, 2]], [[1]])
    with pytest.raises(ValueError, match="square"):
        dixon.solve_columns([[1, 0], [0, 1]], [[1, 2, 3]])
    F = dixon.Factorisation([[2, 1], [1, 3]])
    with pytest.raises(ValueError, match="length 2"):
        F.solve([[1, 2, 3]])
    with pytest.raises(ValueError, match="61 bits"):
        F.solve([[1 << 70, 0]])


@pytest.mark.parametrize("n,bits", [(33, 54), (64, 44), (129, 30), (40, 1)])
def test_the_plan_bounds_every_product_and_extreme_entries_stay_exact(n, bits):
    """The prime and the limbs are chosen together (fewest products per lifted bit); each
    limb's product with a digit must stay a sum of n integers below 2^53, at the extremes."""
    rng = random.Random(bits)
    top = (1 << bits) - 1
    A = [[rng.choice((top, -top, rng.randrange(-top, top + 1))) for _ in range(n)]
         for _ in range(n)]
    B = [[rng.choice((top, -top)) for _ in range(n)] for _ in range(3)]
    plan = dixon.lifting_plan(A, B)
    assert plan is not None
    lg = max(1, (n - 1).bit_length())
    assert plan["limb_bits"] + plan["prime_bits"] + lg <= 53
    assert 2 * plan["prime_bits"] + lg <= 53
    assert plan["limbs"] * plan["limb_bits"] >= bits  # sign and magnitude: |A| < 2^bits
    assert len(dixon.split_limbs(np.array(A, dtype=np.int64), plan["limb_bits"])) \
        == plan["limbs"]
    got = dixon.solve_columns(A, B)
    if got is None:  # singular: FLINT agrees
        assert flint.fmpz_mat(A).det() == 0
        return
    N, D = got
    assert _holds(A, B, N, D)


def test_a_smaller_prime_saves_a_limb_where_it_pays():
    bits = (11, 44, [44] * 1025)  # n = 1,025, 44-bit entries
    plan = dixon._plan(bits, [[1] * 1025])
    # sign-and-magnitude limbs of 22 bits cover 44: a 20-bit prime with two limbs (3 products
    # per 19 bits) beats 19 bits with two (per 18) and 21 bits with three (per 20)
    assert (plan["prime_bits"], plan["limbs"]) == (20, 2)


def test_split_limbs_sign_and_magnitude():
    """One limb splitter for the lifting and audit.corrected.exact_combination: every limb
    below 2^bits in magnitude, of its entry's sign, as few as the widest entry needs, and
    the sum exact (checked in Python integers)."""
    import numpy as np

    rng = np.random.default_rng(7)
    M = rng.integers(-(1 << 62), 1 << 62, (9, 11), dtype=np.int64)
    M[0, :4] = [(1 << 63) - 1, -((1 << 63) - 1), 0, -1]
    M[1] >>= 40
    for bits in (1, 5, 20, 23, 26, 52):
        for A in (M, M[1:2], M >> 50):
            limbs = dixon.split_limbs(A, bits)
            top = int(np.abs(A).max()).bit_length()
            assert len(limbs) == max(1, -(-top // bits))
            for L in limbs:
                assert L.dtype == np.float64 and L.shape == A.shape
                assert np.abs(L).max() < 2.0**bits and np.all(L * A >= 0)
            got = [sum(int(L[i, j]) << (bits * t) for t, L in enumerate(limbs))
                   for i in range(A.shape[0]) for j in range(A.shape[1])]
            assert got == A.ravel().tolist()
    for A in (np.zeros((3, 2), dtype=np.int64), np.zeros((0, 4), dtype=np.int64)):
        limbs = dixon.split_limbs(A, 7)
        assert len(limbs) == 1 and not limbs[0].any() and limbs[0].shape == A.shape
    with pytest.raises(ValueError, match="2\\^63"):
        dixon.split_limbs(np.array([[-(1 << 63), 1]], dtype=np.int64), 20)


@pytest.mark.parametrize("n,bits", [(33, 54), (64, 44), (129, 30)])
def test_factorisation_limbs_keep_every_product_below_2_to_53(n, bits):
    """The factorisation's limbs (sign and magnitude) are at most the plan's, and a limb
    times a digit matrix (entries below p) sums n integers below 2^53."""
    rng = random.Random(n)
    top = (1 << bits) - 1
    A = [[rng.choice((top, -top, rng.randrange(-top, top + 1))) for _ in range(n)]
         for _ in range(n)]
    try:
        F = dixon.Factorisation(A)
    except ValueError:  # singular
        assert flint.fmpz_mat(A).det() == 0
        return
    plan = dixon.lifting_plan(A, [[0] * n])
    assert plan is not None and len(F._limbs) <= plan["limbs"]
    for L in F._limbs:
        assert n * float(abs(L).max()) * (F.p - 1) < 2.0**53
