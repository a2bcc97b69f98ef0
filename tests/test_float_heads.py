"""Float heads with huge and tiny exponents: no float overflow anywhere, exact answers.

Real weight matrices are floats, i.e. binary rationals with 2^50+ denominators; their exact
projections carry even larger integers.  Regression for ``OverflowError: int too large to
convert to float`` (bench_models: ranking_pattern on a projected 2048-wide head).  Every
result is checked against the brute-force exact-LP oracle of ``_brute_geometry``.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction as F

import numpy as np
import pytest
from _brute_geometry import brute_sign_vectors, strictly_feasible

from logitgeom.exact.lattice import count_rankings_exact, count_regions_exact
from logitgeom.exact.lp import check_gordan, check_witness, decide
from logitgeom.geometry import argmaxable, cosine_matrix, ranking_pattern, sign_pattern
from logitgeom.geometry import arrangement as ar
from logitgeom.geometry.grid import check_cell


def _exact(W):
    return [[F(v) for v in r] for r in W]


def oracle_rankings(W, b=None):
    """Every strict total order, decided by an exact LP on its chain rows."""
    W = _exact(W)
    out = set()
    for perm in itertools.permutations(range(len(W))):
        rows = [[x - y for x, y in zip(W[p], W[q], strict=True)]
                for p, q in zip(perm, perm[1:], strict=False)]
        cb = None if b is None else [F(b[p]) - F(b[q]) for p, q in zip(perm, perm[1:],
                                                                          strict=False)]
        if strictly_feasible(rows, [1] * len(rows), cb):
            out.add(perm)
    return out


def _check_signs(res):
    W, b = res.W, res.bias
    for p, x in zip(res.patterns, res.witnesses, strict=True):
        vals = [sum((w * v for w, v in zip(r, x, strict=True)), F(0)) + (b[i] if b else 0)
                for i, r in enumerate(W)]
        assert tuple((v > 0) - (v < 0) for v in vals) == p


def _check_rankings(res):
    W, b = res.W, res.bias
    for p, x in zip(res.patterns, res.witnesses, strict=True):
        L = [sum((w * v for w, v in zip(r, x, strict=True)), F(0)) + (b[i] if b else 0)
             for i, r in enumerate(W)]
        assert all(L[u] > L[v] for u, v in zip(p, p[1:], strict=False))


HUGE_TINY = [
    [[1e300, 2e299, -3e300], [1e-300, -1e-300, 5e-301], [0.5, 1e300, 1e-300],
     [-1e300, 1e-300, 7.0], [3e-310, 1.0, -2.0]],
    # nearly parallel rows (differ in a 1e-300 entry only) and subnormal entries
    [[1e300, 1e-300], [1e300, -1e-300], [-5e-324, 1.0], [1e-300, 1e300]],
    # tiny scale throughout
    [[1e-300, 2e-300, -1e-300], [3e-301, -1e-300, 1e-299], [-1e-300, -1e-300, 4e-300],
     [2.5e-300, 1e-310, -1e-300]],
]


@pytest.mark.parametrize("W", HUGE_TINY)
def test_sign_patterns_huge_tiny_against_oracle(W):
    res = sign_pattern(W)
    assert set(res.patterns) == brute_sign_vectors(_exact(W))
    assert res.count == count_regions_exact(res.W)
    _check_signs(res)
    b = [1e300, -1e-300, 0.0, 3.0, -7e299][: len(W)]
    rb = sign_pattern(W, bias=b)
    assert set(rb.patterns) == brute_sign_vectors(_exact(W), [F(v) for v in b])
    _check_signs(rb)


@pytest.mark.parametrize("W", HUGE_TINY)
def test_rankings_huge_tiny_against_oracle(W):
    res = ranking_pattern(W)
    assert set(res.patterns) == oracle_rankings(W)
    assert res.count == count_rankings_exact(res.W)
    _check_rankings(res)
    b = [1e-300, 2e300, -1.0, 0.0, 5e-310][: len(W)]
    rb = ranking_pattern(W, bias=b)
    assert set(rb.patterns) == oracle_rankings(W, b)
    _check_rankings(rb)
    top = ranking_pattern(W, bias=b, top=1)
    assert set(top.patterns) == {p[:1] for p in rb.patterns}
    assert argmaxable(W, bias=b).labels == tuple(sorted({p[0] for p in rb.patterns}))


def _projected_head(m, width, dim, seed):
    """Exact projection of a float32-valued head (as the model audit builds it)."""
    from logitgeom.models.audit import exact_projection

    rng = np.random.default_rng(seed)
    W = (0.02 * rng.standard_normal((m, width))).astype(np.float32).astype(float)
    return exact_projection(W, dim).projected


@pytest.mark.parametrize("dim", [3, 4])
def test_projected_float_head(dim):
    P = _projected_head(5, 256, dim, seed=dim)
    den = math.lcm(*(v.denominator for r in P for v in r))
    assert den.bit_length() > 1100  # integer rows far beyond float range
    b = [F(1, 3), F(-2, 7), F(0), F(5), F(-1, 2**60)]
    rk = ranking_pattern(P, bias=b)  # crashed with OverflowError before
    assert set(rk.patterns) == oracle_rankings(P, b)
    assert rk.count == count_rankings_exact(P, b)
    _check_rankings(rk)
    sp = sign_pattern(P)
    assert set(sp.patterns) == brute_sign_vectors(P)
    _check_signs(sp)


def test_larger_projected_head_is_certified():
    P = _projected_head(8, 512, 3, seed=11)
    b = [F(i, 7) for i in range(8)]
    rk = ranking_pattern(P, bias=b)
    assert rk.complete and rk.count == rk.exact_count == count_rankings_exact(P, b)
    _check_rankings(rk)


def test_scaled_heads_have_identical_patterns():
    W = [[3, -1, 2], [1, 4, -2], [-2, 1, 1], [0, 3, 5], [2, 2, -3]]
    base_s, base_r = sign_pattern(W).patterns, ranking_pattern(W).patterns
    scaled = [[[v * s for v in r] for r in W] for s in (2.0**-1070, 2.0**-1000, 2.0**1000)]
    scaled += [[[F(v) * F(s) for v in r] for r in W] for s in (1e-300, 1e300)]
    for Ws in scaled:  # floats times powers of two are exact; the others are Fractions
        assert sign_pattern(Ws).patterns == base_s
        assert ranking_pattern(Ws).patterns == base_r


def test_decide_with_huge_and_tiny_rows():
    rows = [[F(10**400), F(-1, 10**400)], [F(-1, 2**1100), F(1)], [F(-(10**350)), F(10**349)]]
    ok, z = decide(rows)
    assert ok and check_witness(rows, z)
    bad = [*rows, [F(-(10**400)), F(1, 10**400)], [F(1, 2**1100), F(-1)]]
    ok, y = decide(bad)
    assert not ok and check_gordan(bad, y)


def test_floats_helper_never_overflows():
    big = [[3 * 10**400, -(10**399), 7], [2**2000 + 1, 1, -(2**1990)], [0, 0, 0], [1, -2, 3]]
    Fm = ar.floats(big)
    assert np.all(np.isfinite(Fm))
    for r, f in zip(big, Fm, strict=True):  # direction preserved (rows scaled by 2^-s)
        m = max(abs(v) for v in r)
        if m:
            s = max(0, m.bit_length() - 60)
            assert np.allclose(f, [float(F(v, 2**s)) for v in r], rtol=1e-15, atol=0)
    Fc = ar.floats(big, per_row=False)
    assert np.all(np.isfinite(Fc)) and Fc[3].tolist() == [0.0, 0.0, 0.0]
    assert ar.floats(np.array([[1, 2]], dtype=np.int64)).tolist() == [[1.0, 2.0]]


def test_cosine_matrix_huge_and_tiny_rows():
    W = [[1e300, 1e300], [1e-300, 0.0], [3e-310, -5e-320], [-1e300, 2e-300]]
    exact = _exact(W)
    for C in (cosine_matrix(W), cosine_matrix(np.array(W))):
        assert np.all(np.isfinite(C))
        for i, j in itertools.product(range(4), repeat=2):
            g = sum(a * b for a, b in zip(exact[i], exact[j], strict=True))
            n = sum(a * a for a in exact[i]) * sum(b * b for b in exact[j])
            want = (1 if g > 0 else -1) * math.sqrt(float(g * g / n)) if g else 0.0
            assert abs(C[i, j] - want) < 1e-12


def test_grid_cell_on_tiny_float_head():
    W = [[v * 1e-300 for v in r] for r in [[3, -1, 2], [1, 4, -2], [-2, 1, 1], [0, 3, 5]]]
    for method in ("enumerate", "transport"):
        cell = check_cell(W, method=method)
        assert cell.passed and cell.sign_count == 14 and cell.ranking_count is not None
