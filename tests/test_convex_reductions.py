"""Every reduction agrees with the full program; the symmetry theorems hold at the optimum."""

from __future__ import annotations

import numpy as np
import pytest
from _proven import meet, narrow
from hypothesis import given
from hypothesis import strategies as st

from logitgeom import InvalidInput
from logitgeom.convex import (
    LayerPeeled,
    concat_blocks,
    cyclic_orbit,
    group_orbit,
    predicted_geometry,
)
from logitgeom.convex.reductions.circulant import cyclic_classes
from logitgeom.symmetry import affine_line, symmetric

RNG = np.random.default_rng(2026)


def _dirichlet(m, zeros=0):
    y = RNG.dirichlet(np.ones(m))
    y[:zeros] = 0.0
    return y / y.sum()


def _agree(Y, method, E_W=1.0, E_H=2.0, **options):
    P = LayerPeeled(Y, E_W, E_H)
    full = P.solve("full")
    red = P.solve(method, **options)
    assert red.method == method and red.budget_active
    assert meet(red, full)  # both brackets hold the optimum
    assert np.allclose(red.Z, full.Z, atol=1e-4)
    # recovered factors: budgets and reproduction of Z
    assert np.sum(red.W ** 2) <= E_W * (1 + 1e-9) and np.sum(red.H ** 2) <= E_H * (1 + 1e-9)
    assert np.allclose(red.W @ red.H, red.Z, atol=1e-9)
    assert -1e-12 <= red.gap and narrow(red)
    return full, red


CYCLIC = {
    "m5": lambda: cyclic_orbit(_dirichlet(5)),
    "m12_zeros": lambda: cyclic_orbit(np.roll(_dirichlet(12, zeros=4), 3)),
    "periodic": lambda: cyclic_orbit([0.5, 0.0, 0.5, 0.0]),
    "3_blocks_permuted": lambda: concat_blocks(
        *[cyclic_orbit(_dirichlet(4, zeros=1)) for _ in range(3)])[:, RNG.permutation(12)],
    "2_blocks_repeated": lambda: concat_blocks(cyclic_orbit([0.5, 0.25, 0.25, 0, 0]),
                                               cyclic_orbit([0.5, 0.25, 0.25, 0, 0]),
                                               cyclic_orbit(_dirichlet(5))),
}


@pytest.mark.parametrize("name", sorted(CYCLIC))
def test_circulant_agrees_with_full(name):
    Y = CYCLIC[name]()
    full, red = _agree(Y, "circulant")
    assert LayerPeeled(Y, 1.0, 2.0).select().name == "circulant"
    g_red, g_full = predicted_geometry(red), predicted_geometry(full)
    assert g_red.kind == g_full.kind == "circulant"
    # the reduced solution is exactly shift-invariant; the full one to solver accuracy
    assert max(g_red.deviation.values()) < 1e-12
    assert max(g_full.deviation.values()) < 1e-4


def test_cyclic_single_block_gives_circulant_grams():
    y = _dirichlet(6, zeros=2)
    sol = LayerPeeled(cyclic_orbit(y), 1.0, 1.0).solve("circulant")
    C = np.stack([np.roll(sol.Z[:, 0], j) for j in range(6)], axis=1)
    assert np.allclose(sol.Z, C, atol=1e-12)
    for G in (sol.WWt, sol.HtH):
        assert np.allclose(G, np.stack([np.roll(G[:, 0], j) for j in range(6)], 1), atol=1e-9)
    # eigenvalues of W W^T are sqrt(E_W/E_H) |zhat_k|
    ev = np.sort(np.linalg.eigvalsh(sol.WWt))
    assert np.allclose(ev, np.sort(np.abs(np.fft.fft(sol.Z[:, 0]))), atol=1e-8)


ETF = {
    "S3": (lambda: group_orbit(_dirichlet(3), symmetric(3)), {}),
    "S4_zero": (lambda: group_orbit(_dirichlet(4, zeros=1), symmetric(4)), {}),
    "AGL15": (lambda: group_orbit(_dirichlet(5), affine_line(5)),
              {"group": affine_line(5)}),
    "S3_two_blocks": (lambda: concat_blocks(group_orbit(_dirichlet(3), symmetric(3)),
                                            group_orbit([0.5, 0.5, 0.0], symmetric(3))),
                      {}),
    "AGL15_two_blocks": (lambda: concat_blocks(
        group_orbit(_dirichlet(5, zeros=2), affine_line(5)),
        group_orbit(_dirichlet(5), affine_line(5)))[:, RNG.permutation(40)],
        {"group": affine_line(5)}),
}


@pytest.mark.parametrize("name", sorted(ETF))
def test_etf_agrees_with_full_and_gives_a_simplex_etf(name):
    make, options = ETF[name]
    Y = make()
    E_W, E_H = 1.5, 2.0
    full, red = _agree(Y, "etf", E_W, E_H, **options)
    m = Y.shape[0]
    M = E_W / (m - 1) * (np.eye(m) - np.ones((m, m)) / m)
    assert np.allclose(red.WWt, M, atol=1e-10)
    assert np.allclose(full.WWt, M, atol=1e-4)
    assert red.rank == m - 1
    g = predicted_geometry(full, **options)
    assert g.kind == "etf" and g.details["stationarity_residual"] < 1e-4
    assert predicted_geometry(red, **options).details["stationarity_residual"] < 1e-9
    # softmax(Z*) columns form orbits: each column is alpha(y) entrywise, so equal y entries
    # get equal probabilities and columns with the same multiset share sorted probabilities
    A = red.probabilities
    keys = {}
    for j in range(Y.shape[1]):
        order = np.argsort(Y[:, j], kind="stable")
        keys.setdefault(tuple(np.sort(Y[:, j])), []).append(A[order, j])
    for cols in keys.values():
        assert np.allclose(np.array(cols), cols[0], atol=1e-12)


def test_agl_is_not_the_symmetric_group_but_etf_applies_with_the_group():
    Y = group_orbit(_dirichlet(5), affine_line(5))
    P = LayerPeeled(Y, 1.0, 1.0)
    with pytest.raises(InvalidInput, match="not a union of orbits of S_m"):
        P.solve("etf")
    assert P.select("auto", group=affine_line(5)).name == "etf"


def test_stationarity_system_holds_at_the_etf_solution():
    y = _dirichlet(4, zeros=1)
    sol = LayerPeeled(group_orbit(y, symmetric(4)), 2.0, 3.0).solve("etf")
    kappa = sol.info["kappa"]
    (cls,) = sol.info["classes"]
    a, yy = np.array(cls["alpha"]), np.array(cls["y"])
    lhs = np.log(a) + kappa * (a - yy)
    assert np.allclose(lhs, np.mean(np.log(a)), atol=1e-10) and abs(a.sum() - 1) < 1e-14
    s = np.sqrt(24 / 3) * np.linalg.norm(a - yy)
    assert abs(kappa - sol.rho / (3 * s)) < 1e-10 * kappa
    assert abs(sol.nuclear_norm - sol.rho) < 1e-10


@given(st.lists(st.integers(0, 3), min_size=2, max_size=6), st.integers(1, 3),
       st.randoms(use_true_random=False))
def test_cyclic_detection_is_exact_and_permutation_blind(y, blocks, rnd):
    cols = [tuple(np.roll(y, j)) for _ in range(blocks) for j in range(len(y))]
    rnd.shuffle(cols)
    classes, _ = cyclic_classes(cols)
    assert classes is not None
    for c in classes:
        for col, s in zip(c["columns"], c["shifts"], strict=True):
            assert cols[col] == tuple(np.roll(c["key"], s))
    if len(set(cols)) > 1:  # dropping one column breaks the orbit structure
        assert cyclic_classes(cols[1:])[0] is None


def test_partial_periodic_orbit_and_exact_input():
    # two columns: y and P y with P^2 y = y (half of circ(y)); weights w = c p / m = 1/2
    Y = np.array([[0.5, 0.0], [0.0, 0.5], [0.5, 0.0], [0.0, 0.5]])
    _agree(Y, "circulant")
    # exact entries keep exact structure detection (object array of Fractions)
    Yx = cyclic_orbit(["1/2", "1/3", "1/6", "0"], exact=True)
    P = LayerPeeled(Yx, 1, 1)
    assert P.entries.dtype == object and P.select().name == "circulant"
    _agree(Yx, "circulant")
