"""Issue 12: the block-diagonal (isotypic) orbit program against an independent full
nuclear-norm program, 2-homogeneous ETF, groups from every spelling, approximate symmetry."""

from __future__ import annotations

import warnings

import cvxpy as cp
import numpy as np
import pytest
from _groups import diagonal, quaternion_group
from _proven import meet, narrow
from sympy.combinatorics import Permutation, PermutationGroup, SymmetricGroup

from logitgeom.convex import LayerPeeled
from logitgeom.convex.reductions import orbit as orbit_mod
from logitgeom.convex.reductions.base import Status
from logitgeom.convex.solvers import solve
from logitgeom.errors import InvalidInput
from logitgeom.symmetry import (
    GroupAction,
    as_group,
    cyclic,
    detect_symmetry,
    frobenius,
    orbit_targets,
    parse_group,
    symmetric,
)
from logitgeom.symmetry.isotypic import isotypic_decomposition

EW, EH = 1.0, 4.0


def reference_value(Y: np.ndarray, rho: float) -> float:
    """min J(Z) s.t. ||Z||_* <= rho, written here independently of logitgeom.convex."""
    m, n = Y.shape
    Z = cp.Variable((m, n))
    loss = cp.sum(cp.log_sum_exp(Z, axis=0)) - cp.sum(cp.multiply(Y, Z))
    prob = cp.Problem(cp.Minimize(loss), [cp.normNuc(Z) <= rho])
    solve(prob)
    return float(prob.value)


GROUPS = {
    "D5": [[(i + 1) % 5 for i in range(5)], [(-i) % 5 for i in range(5)]],
    "A4": [[1, 2, 0, 3], [1, 0, 3, 2]],
    "F21": [list(g) for g in frobenius(7, 3).row_generators],
    "V4": [[1, 0, 3, 2], [2, 3, 0, 1]],
    "S2wrS2": [list(g) for g in parse_group("S2wrS2").row_generators],
    "S3_twice": diagonal([[1, 0, 2], [1, 2, 0]], 2),  # real type, multiplicity 2, dim 2
    "C3_twice": diagonal([[1, 2, 0]], 2),  # complex type, multiplicity 2
    "C5_thrice": diagonal([[1, 2, 3, 4, 0]], 3),  # complex type, multiplicity 3
    "F21_twice": diagonal([list(g) for g in frobenius(7, 3).row_generators], 2),  # 6-dim
    "Q8": quaternion_group(),  # a quaternionic-type component
}


def _target(gens, seed=0):
    G = as_group(gens)
    rng = np.random.default_rng(seed)
    y = rng.dirichlet(np.ones(G.m))
    y[-1] = 0.0
    y = [float(v) for v in y / y.sum()]
    return G, orbit_targets(G, y, check_probability=False)


@pytest.mark.parametrize("name", sorted(GROUPS))
def test_block_program_equals_the_full_program(name):
    G, T = _target(GROUPS[name])
    lp = LayerPeeled(T.Y, EW, EH)
    sol = lp.solve("orbit", group=GROUPS[name])  # labels only: columns derived from Y
    assert sol.status is Status.OPTIMAL and sol.info["group_source"] == "given"
    ref = reference_value(T.Y, lp.rho)
    assert abs(sol.loss - ref) <= 1e-6 * abs(ref)
    und = lp.solve("orbit", group=G, blocks="none")
    assert meet(und, sol)  # both brackets hold the optimum
    assert narrow(sol) and narrow(und)  # the dual bound certifies the value
    assert sum(d * k for d, k, _ in sol.info["isotypic_blocks"]) == G.m
    # the Gram of an invariant solution commutes with the group to rounding
    for r in G.row_generators:
        P = np.eye(G.m)[:, list(r)]
        assert np.max(np.abs(P @ sol.WWt - sol.WWt @ P)) <= 1e-12 * np.max(np.abs(sol.WWt))


def test_decomposition_types_and_counts():
    kinds = {name: sorted((t.dim, t.multiplicity, t.kind)
                          for t in isotypic_decomposition(as_group(g)).types)
             for name, g in GROUPS.items()}
    assert kinds["S3_twice"] == [(1, 2, "real"), (2, 2, "real")]
    assert kinds["C3_twice"] == [(1, 2, "real"), (2, 2, "complex")]
    assert (4, 1, "quaternionic") in kinds["Q8"]
    assert kinds["F21"] == [(1, 1, "real"), (6, 1, "complex")]
    for g in GROUPS.values():
        D = isotypic_decomposition(as_group(g))
        assert sum(t.commutant_dim for t in D.types) == D.orbitals and D.deviation < 1e-12


def test_f21_is_two_homogeneous_and_auto_uses_the_closed_form():
    G, T = _target(GROUPS["F21"], seed=3)
    lp = LayerPeeled(T.Y, EW, EH)
    etf = lp.solve("etf", group=G)
    ref = reference_value(T.Y, lp.rho)
    assert abs(etf.loss - ref) <= 1e-6 * abs(ref)
    M = EW / 6 * (np.eye(7) - np.ones((7, 7)) / 7)
    assert np.allclose(etf.WWt, M, atol=1e-10)
    # auto: detection finds F21 and then takes the ETF closed form (not the orbit program)
    auto = lp.solve()
    assert auto.method == "etf" and abs(auto.loss - etf.loss) <= 1e-12 * abs(etf.loss)
    A4, T4 = _target(GROUPS["A4"], seed=4)
    assert LayerPeeled(T4.Y, EW, EH).select().name == "etf"  # A4 is 2-transitive on 4
    with pytest.raises(InvalidInput, match="not 2-homogeneous"):
        LayerPeeled(_target(GROUPS["D5"])[1].Y, EW, EH).solve("etf", group=GROUPS["D5"])


def test_every_spelling_gives_the_same_group():
    Y = orbit_targets(symmetric(3), ["1/2", "1/3", "1/6"]).Y
    spellings = [symmetric(3), "S3", SymmetricGroup(3), [[1, 0, 2], [1, 2, 0]],
                 [list(p) for p in __import__("itertools").permutations(range(3))],
                 [Permutation([1, 0, 2]), Permutation([1, 2, 0])],
                 PermutationGroup([Permutation([1, 2, 0]), Permutation([0, 2, 1])])]
    ref = as_group(symmetric(3), Y=Y)
    for sp in spellings:
        G = as_group(sp, m=3, Y=Y)
        assert G.order == 6 and G.n == 6
        assert G.column_orbits() == ref.column_orbits()
        sol = LayerPeeled(Y, EW, EH).solve("orbit", group=sp)
        assert sol.info["group_order"] == 6


def test_mixing_and_wrong_spellings_give_clear_errors():
    with pytest.raises(InvalidInput, match="label permutations only"):
        as_group([symmetric(3), [1, 0, 2]])
    with pytest.raises(InvalidInput, match=r"\(row, column\) pairs"):
        as_group([([1, 0], [1, 0])])
    with pytest.raises(InvalidInput, match="cannot read a group from int"):
        as_group(3)
    with pytest.raises(InvalidInput, match="acts on 3 labels but there are m = 4"):
        as_group("S3", m=4)
    Y = orbit_targets(cyclic(4), ["1/2", "1/4", "1/8", "1/8"]).Y
    with pytest.raises(InvalidInput, match="does not permute the columns"):
        as_group([[1, 0, 2, 3]], Y=Y)
    with pytest.raises(InvalidInput, match="acts on 3 columns but Y has 4"):
        as_group(GroupAction([([1, 2, 0], [1, 2, 0])], m=3, n=3), Y=np.ones((3, 4)) / 3)
    P = LayerPeeled(Y, 1, 1)
    with pytest.raises(InvalidInput, match="does not apply.*acts on 3 labels"):
        P.solve("orbit", group=symmetric(3))
    with pytest.raises(InvalidInput, match="unknown option 'group' for method 'full'"):
        P.solve("full", group="C4")


def test_cli_solve_with_group(tmp_path, capsys):
    from logitgeom.cli.main import main

    path = tmp_path / "Y.csv"
    assert main(["symmetry", "target", "S3wrS2", "1/12", "1/4", "1/4", "0", "1/6", "1/4",
                 "--out", str(path)]) == 0
    capsys.readouterr()
    assert main(["solve", str(path), "--method", "orbit", "--group", "S3wrS2"]) == 0
    out = capsys.readouterr().out
    assert "method: orbit" in out and "order 72 (given)" in out and "isotypic blocks" in out
    assert main(["solve", str(path), "--group", "S4"]) == 2
    assert "acts on 4 labels" in capsys.readouterr().err


def test_approximate_symmetry_with_tolerance():
    G, T = _target(GROUPS["D5"], seed=7)
    rng = np.random.default_rng(0)
    noisy = T.Y * (1 + 1e-13 * rng.standard_normal(T.Y.shape))
    noisy /= noisy.sum(axis=0)
    assert detect_symmetry(noisy).is_trivial
    found = detect_symmetry(noisy, tol=1e-11)
    assert found.order == 10 and 0 < found.deviation <= 1e-11 and "to within" in str(found)
    lp = LayerPeeled(noisy, EW, EH)
    sol = lp.solve("orbit", tol=1e-11)
    exact = LayerPeeled(T.Y, EW, EH).solve("orbit", group=G)
    assert 0 < sol.info["symmetry_deviation"] <= 1e-11
    assert meet(sol, exact) and narrow(sol)  # Y differs by 1e-13: the same optimum to rounding
    with pytest.raises(InvalidInput, match="no symmetry"):
        lp.choose("orbit", tol=1e-30)
    assert not lp.choose("full")[0].accepts(lp, form="nope")


def test_float32_columns_and_normalize():
    G, T = _target(GROUPS["A4"], seed=1)
    Y32 = T.Y.astype(np.float32)
    lp = LayerPeeled(Y32, EW, EH)
    assert lp.normalized and np.allclose(lp.Y.sum(axis=0), 1, atol=1e-15)
    with pytest.raises(InvalidInput, match="normalize=True"):
        LayerPeeled(T.Y * 1.01, EW, EH)
    lp2 = LayerPeeled(T.Y * 1.01, EW, EH, normalize=True)
    assert np.allclose(lp2.Y, T.Y, atol=1e-15)
    ex = LayerPeeled([["2", "1"], ["2", "3"]], 1, 1, normalize=True)
    assert str(ex.entries[0, 1]) == "1/4"
    with pytest.raises(InvalidInput, match="not exactly 1 .*normalize=True"):
        orbit_targets(cyclic(3), ["1/2", "1/4", "1/8"])
    assert orbit_targets(cyclic(4), [1 / 12, 1 / 4, 1 / 3, 1 / 3]).Y.shape == (4, 4)


def test_detection_limit_warns_and_says_how_to_pass_the_group(monkeypatch):
    G = parse_group("S2wrS5")
    T = orbit_targets(G, [f"{k}/55" for k in range(1, 11)])
    # row action first: the S2 wr S5 target (10 x 3,840) is settled on a 10 x 20 summary
    lp = LayerPeeled(T.Y, EW, EH)
    found = orbit_mod.OrbitReduction().accepts(lp)
    assert found.plan.source == "detected" and found.plan.group.order == 3840
    sol0 = lp.solve()
    assert sol0.method == "orbit" and sol0.info["group_source"] == "detected"
    monkeypatch.setattr(orbit_mod, "DETECT_MAX_ENTRIES", 1000)
    monkeypatch.setattr(orbit_mod, "LABEL_FIRST_MAX", 1000)
    with pytest.warns(UserWarning, match="pass group="):
        verdict = orbit_mod.OrbitReduction().accepts(lp)
    assert not verdict
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sol = lp.solve("orbit", group="S2wrS5")
    assert sol.info["largest_block"] == 1 and sol.info["column_orbits"] == 1
    assert meet(sol0, sol)
    # an OrbitTargets brings its group: no search, no warning
    sol2 = LayerPeeled(T, EW, EH).solve()
    assert sol2.method == "orbit" and sol2.info["group_source"] == "target"
    assert meet(sol2, sol)


def test_reduction_contract_plans_and_reuse():
    from logitgeom.convex import predicted_geometry
    from logitgeom.convex.reductions import get_reduction
    from logitgeom.convex.reductions.etf import ETFPlan

    G, T = _target(GROUPS["A4"], seed=2)
    lp = LayerPeeled(T.Y, EW, EH)
    red, acc = lp.choose("etf", group=G)
    assert isinstance(acc.plan, ETFPlan) and red.closed_form
    sol = lp.solve("etf", group=G)
    assert sol.status == "optimal" and sol.reduction.plan is not None
    assert '"status": "optimal"' in sol.to_json()
    # predicted_geometry reuses the closed form of the solve (same kappa, no new root find)
    g = predicted_geometry(sol)
    assert g.kind == "etf" and g.details["kappa"] == sol.reduction.inverse.kappa
    # plans belong to their problem: two problems, two acceptances, no shared state
    orbit = get_reduction("orbit")
    _, T2 = _target(GROUPS["D5"], seed=5)
    lp2 = LayerPeeled(T2.Y, EW, EH)
    a1, a2 = orbit.accepts(lp, group=G), orbit.accepts(lp2, group=GROUPS["D5"])
    r2, r1 = orbit.apply(lp2, a2), orbit.apply(lp, a1)
    assert r1.inverse.m == 4 and r2.inverse.m == 5
    with pytest.raises(AttributeError):
        r1.plan = None  # frozen
    # every constructor takes every spelling
    assert orbit_targets("S3", ["1/2", "1/3", "1/6"]).Y.shape == (3, 6)
    assert orbit_targets([[1, 2, 0]], ["1/2", "1/3", "1/6"]).Y.shape == (3, 3)


def test_huge_solutions_keep_no_n_sized_extras(monkeypatch):
    """Above KEEP_PROBABILITIES entries H and softmax(Z) are rebuilt on access, equal in
    meaning to the stored ones (W H = Z within the budgets; the same probabilities)."""
    from logitgeom.convex import solution as solution_mod

    T = orbit_targets(symmetric(5), [f"{k}/15" for k in range(1, 6)])
    kept = LayerPeeled(T, EW, EH).solve("orbit")
    monkeypatch.setattr(solution_mod, "KEEP_PROBABILITIES", 10)
    lazy = LayerPeeled(T, EW, EH).solve("orbit")
    assert lazy.stored_H is None and lazy.stored_probabilities is None
    assert kept.stored_H is not None
    assert np.allclose(lazy.W @ lazy.H, lazy.Z, atol=1e-12)
    assert np.sum(lazy.H ** 2) <= EH * (1 + 1e-9)
    assert np.allclose(lazy.probabilities, kept.probabilities, atol=1e-12)
    assert np.allclose(lazy.HtH, kept.HtH, atol=1e-9)
    assert abs(lazy.gap - kept.gap) <= 1e-9
    assert abs(lazy.loss - kept.loss) <= 1e-12 * abs(kept.loss)  # summation order may differ
