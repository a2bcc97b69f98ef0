"""Rank-constrained brackets (hidden width D < rank of the convex optimum), issue 32.

Each certified bracket is compared with an independent search (projected gradient descent on
the factors with D columns from random starts: never below the lower end) and with the
file's own point (its float loss is the upper end up to the 10^-30 rounding); tampered files
are rejected; the relaxation-exact case is detected on periodic cyclic targets.
"""

from __future__ import annotations

import copy
from fractions import Fraction

import numpy as np
import pytest

from logitgeom.convex.loss import cross_entropy, softmax
from logitgeom.convex.lowrank import (
    fourier_basis,
    is_cyclic_block,
    rank_certificate,
    rank_constrained,
    subspace_optimum,
    truncate,
)
from logitgeom.convex.problem import LayerPeeled
from logitgeom.convex.targets import cyclic_orbit
from logitgeom_certificates.api import check


def smoothed_identity(m: int, a: Fraction) -> np.ndarray:
    """The S_m-invariant target a I + (1 - a)/(m - 1) (J - I) (its optimum is a simplex ETF)."""
    b = (1 - a) / (m - 1)
    return np.array([[a if i == j else b for j in range(m)] for i in range(m)], dtype=object)


def _floats(M) -> np.ndarray:
    return np.array([[float(Fraction(x)) for x in r] for r in M])


def independent_search(Y: np.ndarray, D: int, E_W: float, E_H: float, seed: int,
                       steps: int = 1500) -> float:
    """Projected gradient descent on (W, H), W m x D, from a random start: the best loss."""
    rng = np.random.default_rng(seed)
    m, n = Y.shape
    W = rng.standard_normal((m, D))
    H = rng.standard_normal((D, n))
    W *= np.sqrt(E_W) / np.linalg.norm(W)
    H *= np.sqrt(E_H) / np.linalg.norm(H)
    best = cross_entropy(W @ H, Y)
    lr = 0.5 / (1 + np.sqrt(E_W * E_H))
    for _ in range(steps):
        G = softmax(W @ H) - Y
        W, H = W - lr * G @ H.T, H - lr * W.T @ G
        W *= min(1.0, np.sqrt(E_W) / np.linalg.norm(W))
        H *= min(1.0, np.sqrt(E_H) / np.linalg.norm(H))
        best = min(best, cross_entropy(W @ H, Y))
    return best


INSTANCES = [
    (cyclic_orbit(["1/2", "1/4", "1/8", "1/16", "1/16"], exact=True), 1, 4, 1),
    (cyclic_orbit(["1/2", "1/4", "1/8", "1/16", "1/16"], exact=True), 1, 4, 2),
    (cyclic_orbit(["1/2", "1/4", "1/8", "1/16", "1/16"], exact=True), 1, 4, 3),
    (cyclic_orbit(["3/5", "1/5", "1/10", "1/20", "1/40", "1/40"], exact=True), 2, 3, 2),
    (cyclic_orbit(["3/5", "1/5", "1/10", "1/20", "1/40", "1/40"], exact=True), 2, 3, 4),
    (cyclic_orbit(["7/10", "1/10", "1/20", "1/20", "1/20", "1/40", "1/40"], exact=True), 1, 9, 2),
    (smoothed_identity(5, Fraction(4, 5)), 1, 4, 1),
    (smoothed_identity(5, Fraction(4, 5)), 1, 4, 2),
    (smoothed_identity(6, Fraction(2, 3)), 1, 4, 3),
    (np.array([["1/2", "1/5", "1/10", "1/4", "3/5", "1/3"],
               ["1/4", "3/5", "1/10", "1/4", "1/5", "1/3"],
               ["1/8", "1/10", "3/5", "1/4", "1/10", "1/6"],
               ["1/8", "1/10", "1/5", "1/4", "1/10", "1/6"]], dtype=object), 1, 4, 1),
    (np.array([["1/2", "1/5", "1/10", "1/4", "3/5", "1/3"],
               ["1/4", "3/5", "1/10", "1/4", "1/5", "1/3"],
               ["1/8", "1/10", "3/5", "1/4", "1/10", "1/6"],
               ["1/8", "1/10", "1/5", "1/4", "1/10", "1/6"]], dtype=object), 1, 4, 2),
]


@pytest.mark.slow
@pytest.mark.parametrize("k", range(len(INSTANCES)))
def test_rank_bracket_against_independent_search(k):
    Y, ew, eh, D = INSTANCES[k]
    problem = LayerPeeled(Y, ew, eh)
    cert = rank_certificate(problem, D)
    assert check(cert).ok
    assert cert["d"] == D and all(len(r) == D for r in cert["W"])
    lower, upper = Fraction(cert["lower"]), Fraction(cert["upper"])
    Yf = _floats(cert["Y"])
    own = cross_entropy(_floats(cert["W"]) @ _floats(cert["H"]), Yf)
    assert own <= float(upper) + 1e-12 and own >= float(upper) - 1e-9  # U is the point's loss
    for seed in range(3):
        assert independent_search(Yf, D, ew, eh, seed) >= float(lower) - 1e-12


@pytest.mark.parametrize("y,D", [(["9/20", "1/20", "9/20", "1/20"], 1),
                                 (["2/5", "1/20", "1/20", "2/5", "1/20", "1/20"], 2)])
def test_relaxation_exact_on_periodic_cyclic_targets(y, D):
    """y of period p: the optimum is invariant under the shift by p, its Fourier support has
    p - 1 real dimensions, so rank <= D = p - 1 and the bracket closes."""
    problem = LayerPeeled(cyclic_orbit(y, exact=True), 1, 4)
    assert problem.budget_active
    res = rank_constrained(problem, D)
    assert res.convex_rank <= D and res.exact
    cert = rank_certificate(problem, D, result=res)
    assert check(cert).ok and cert["relaxation"] == "exact"
    assert Fraction(cert["upper"]) - Fraction(cert["lower"]) < Fraction(1, 10 ** 9)


def test_gap_is_stated_when_rank_exceeds_D():
    problem = LayerPeeled(cyclic_orbit(["1/2", "1/4", "1/8", "1/16", "1/16"], exact=True), 1, 4)
    cert = rank_certificate(problem, 1)
    assert cert["relaxation"] == "gap"
    assert Fraction(cert["upper"]) - Fraction(cert["lower"]) > Fraction(1, 1000)


@pytest.fixture(scope="module")
def gap_cert():
    problem = LayerPeeled(smoothed_identity(4, Fraction(7, 10)), 1, 4)
    return rank_certificate(problem, 2)


def test_tampered_rank_brackets_rejected(gap_cert):
    assert check(gap_cert).ok
    bad = copy.deepcopy(gap_cert)  # U below the point's loss
    bad["upper"] = str(Fraction(bad["upper"]) - Fraction(1, 10 ** 6))
    assert check(bad).failed_check == "upper"
    bad = copy.deepcopy(gap_cert)  # W with more columns than d
    bad["W"] = [r + ["0"] for r in bad["W"]]
    bad["H"] = bad["H"] + [["0"] * len(bad["H"][0])]
    assert check(bad).failed_check == "rank-bound"
    bad = copy.deepcopy(gap_cert)  # L above the relaxation bound
    bad["lower"] = str(Fraction(bad["lower"]) + Fraction(1, 10 ** 6))
    assert check(bad).failed_check == "lower"
    bad = copy.deepcopy(gap_cert)  # a gap claimed exact
    bad["relaxation"] = "exact"
    assert check(bad).failed_check == "relaxation-exact"
    bad = copy.deepcopy(gap_cert)  # W outside the budget
    bad["W"][0][0] = "100"
    assert check(bad).failed_check == "budget"


def test_reductions_against_full_program():
    """The subspace program with B = I is the full program; truncation keeps the radius; the
    Fourier basis is orthonormal; every rank-D loss is >= the full program's dual bound."""
    Y = cyclic_orbit([0.5, 0.25, 0.125, 0.0625, 0.0625])
    problem = LayerPeeled(Y, 1, 4)
    full = problem.solve("full")
    Z = subspace_optimum(Y, np.eye(5), problem.rho)
    assert abs(cross_entropy(Z, Y) - full.loss) < 1e-6
    Zt = truncate(full.Z, 2, problem.rho)
    assert np.linalg.matrix_rank(Zt, 1e-9) == 2
    assert abs(np.linalg.svd(Zt, compute_uv=False).sum() - problem.rho) < 1e-12
    B = fourier_basis(6, (1, 2, 3))
    assert np.allclose(B.T @ B, np.eye(5)) and is_cyclic_block(Y)
    for D in (1, 2, 3):
        r = rank_constrained(problem, D, sol=full)
        assert r.loss >= full.dual_bound - 1e-12
        assert np.linalg.norm(r.W) ** 2 <= 1 + 1e-9 and np.linalg.norm(r.H) ** 2 <= 4 + 1e-9
        assert abs(cross_entropy(r.W @ r.H, Y) - r.loss) < 1e-12


def test_explain_and_latex(gap_cert):
    from logitgeom_certificates._render import explain, latex

    text = explain(gap_cert)
    assert "hidden width D = 2" in text and "gap" in text
    assert "\\le" in latex(gap_cert)


def test_fourier_subspace_program_against_full_program():
    """A period-p cyclic target: the optimum lives on the frequencies that are multiples of
    m/p, so the Fourier-mode program on them reaches the full program's value."""
    y = ["2/5", "1/20", "1/20", "2/5", "1/20", "1/20"]        # period 3, m = 6: k = 2 (dim 2)
    Y = cyclic_orbit(y)
    problem = LayerPeeled(Y, 1, 4)
    full = problem.solve("full")
    Z = subspace_optimum(Y, fourier_basis(6, (2,)), problem.rho)
    assert abs(cross_entropy(Z, Y) - full.loss) < 1e-6
    assert np.linalg.matrix_rank(Z, 1e-8) == 2


def test_fourier_candidates_on_two_cyclic_blocks():
    """Thm 5 targets (several cyclic blocks): the Fourier-mode candidates are tried too, and the
    bracket certifies."""
    from logitgeom.convex.targets import concat_blocks

    Y = concat_blocks(cyclic_orbit(["1/2", "1/4", "1/8", "1/16", "1/16"], exact=True),
                      cyclic_orbit(["1/3", "1/3", "1/6", "1/12", "1/12"], exact=True))
    problem = LayerPeeled(Y, 1, 25)                              # optimum of rank 4
    assert is_cyclic_block(problem.codes)
    res = rank_constrained(problem, 2)
    assert any(k.startswith("Fourier modes") for k in res.candidates)
    cert = rank_certificate(problem, 2, result=res)
    assert check(cert).ok and cert["d"] == 2


def test_eigenspace_candidates_for_other_groups():
    """A target of the direct sum S_2 + S_3 (not cyclic): unions of whole eigenspaces of
    Z Z^T (G-invariant subspaces) are tried; every candidate stays above the dual bound."""
    from logitgeom.symmetry import orbit_targets
    from logitgeom.symmetry.constructors import group_from_text

    T = orbit_targets(group_from_text("S2+S3", m=5), ["1/2", "1/4", "1/8", "1/16", "1/16"])
    problem = LayerPeeled(T.exact_Y(), 1, 9)
    sol = problem.solve()
    res = rank_constrained(problem, 1, sol=sol)
    assert any(k.startswith("eigenspaces") for k in res.candidates)
    assert min(res.candidates.values()) >= sol.dual_bound - 1e-12
    assert check(rank_certificate(problem, 1, result=res)).ok
