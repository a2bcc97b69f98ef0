"""The orbit reduction (docs/symmetry.md) against an independent full nuclear-norm program,
and the predicted Gram structure / block forms of every App. F example."""

from __future__ import annotations

import cvxpy as cp
import numpy as np
import pytest
from _proven import meet, narrow
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import logsumexp

from logitgeom.convex.problem import LayerPeeled
from logitgeom.convex.reductions.orbit import OrbitReduction, orbit_program
from logitgeom.convex.solvers import solve
from logitgeom.errors import InvalidInput
from logitgeom.symmetry import (
    GroupAction,
    cyclic,
    detect_symmetry,
    orbit_targets,
    predicted_gram_structure,
    symmetric,
)
from logitgeom.symmetry.examples import app_f_examples

EW, EH = 1.0, 4.0  # rho = 2


def reference_value(Y: np.ndarray, rho: float) -> tuple[float, np.ndarray]:
    """min J(Z) s.t. ||Z||_* <= rho, written here independently of logitgeom.convex.

    Joint (m+n) SDP via cp.normNuc when small, else the split form (one LMI per column).
    """
    m, n = Y.shape
    Z = cp.Variable((m, n))
    loss = cp.sum(cp.log_sum_exp(Z, axis=0)) - cp.sum(cp.multiply(Y, Z))
    if n <= 24:
        cons = [cp.normNuc(Z) <= rho]
    else:
        P = cp.Variable((m, m), symmetric=True)
        t = cp.Variable(n)
        cons = [cp.bmat([[P, Z[:, [j]]], [Z[:, [j]].T, cp.reshape(t[j], (1, 1), order="F")]]) >> 0
                for j in range(n)]
        cons.append(0.5 * (cp.trace(P) + cp.sum(t)) <= rho)
    prob = cp.Problem(cp.Minimize(loss), cons)
    solve(prob)
    return float(prob.value), np.asarray(Z.value)


def _sqrt_psd(A: np.ndarray) -> np.ndarray:
    w, V = np.linalg.eigh((A + A.T) / 2)
    return (V * np.sqrt(np.clip(w, 0, None))) @ V.T


EXAMPLES = app_f_examples()


@pytest.mark.parametrize("name", list(EXAMPLES))
def test_app_f_orbit_matches_full_and_predicted_gram(name):
    ex = EXAMPLES[name]
    T = orbit_targets(ex.group, ex.y)
    assert T.Y.shape[1] == ex.group.order
    lp = LayerPeeled(T.exact_Y(), EW, EH)
    assert lp.budget_active
    sol = lp.solve("orbit", group=T.action)
    ref, Zref = reference_value(T.Y, lp.rho)
    assert abs(sol.loss - ref) <= 1e-6 * abs(ref)
    # block-diagonal: the blocks' dimensions add up to m, each block smaller than m + 1
    assert sum(d * k for d, k, _ in sol.info["isotypic_blocks"]) == ex.group.m
    assert sol.info["largest_block"] < ex.group.m
    # the undecomposed program (one (m+1) LMI) agrees
    und = lp.solve("orbit", group=T.action, blocks="none")
    assert und.info["lmis"] == 1 and und.info["lmi_size"] == ex.group.m + 1
    assert meet(und, sol) and narrow(und) and narrow(sol)
    pred = predicted_gram_structure(ex.group)
    # the block form (docs/symmetry.md) and the orbitals are the same pattern (2-transitive factors)
    assert pred.same_pattern(ex.form)
    # the orbit solution is invariant by construction; the full one to solver accuracy
    assert pred.check(sol.WWt).relative < 1e-9
    assert ex.form.check(sol.WWt).relative < 1e-9
    # the full program's optimum is flat along some directions: its Z is accurate to
    # about 1e-4 relative although its value agrees to 1e-9, hence the looser bounds
    assert pred.check(Zref @ Zref.T).relative < 2e-3
    gram_full = _sqrt_psd(Zref @ Zref.T)
    # W W^T = sqrt(E_W/E_H) (Z Z^T)^{1/2} agrees between the two programs
    gram_orbit = sol.WWt / np.sqrt(EW / EH)
    assert np.max(np.abs(gram_orbit - gram_full)) < 1e-2 * np.max(np.abs(gram_full))


def test_orbit_value_is_independent_of_reading_of_product_target():
    a = EXAMPLES["direct_product_S2_S3"]
    b = EXAMPLES["direct_product_S3_S2"]
    sols = []
    for ex in (a, b):
        T = orbit_targets(ex.group, ex.y)
        sols.append(LayerPeeled(T.Y, EW, EH).solve("orbit", group=T.action))
    assert meet(*sols) and narrow(sols[0]) and narrow(sols[1])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_groups_multi_block(seed):
    rng = np.random.default_rng(seed)
    m = 4
    gens = [rng.permutation(m).tolist() for _ in range(int(rng.integers(1, 3)))]
    G = GroupAction(gens, m=m, name="random")
    ys = rng.dirichlet(np.ones(m), size=2)
    ys[1, int(rng.integers(m))] = 0.0
    ys[1] /= ys[1].sum()
    ys = [[float(x) for x in v] for v in ys]
    ys = [v[:-1] + [1 - sum(v[:-1])] for v in ys]
    T = orbit_targets(G, ys, check_probability=False)
    lp = LayerPeeled(T.Y, EW, EH)
    sol = lp.solve("orbit", group=T.action)
    ref, _ = reference_value(T.Y, lp.rho)
    assert abs(sol.loss - ref) <= 1e-6 * abs(ref)
    assert sum(d * k for d, k, _ in sol.info["isotypic_blocks"]) == m
    und = lp.solve("orbit", group=T.action, blocks="none")
    assert und.info["lmis"] == 2 and meet(und, sol)
    assert predicted_gram_structure(G).check(sol.WWt).relative < 1e-9


def test_explicit_non_regular_action_and_detected_group():
    # S3 acting simultaneously on rows and columns; column stabilisers are non-trivial
    Y = np.array([[0.5, 0.25, 0.25], [0.25, 0.5, 0.25], [0.25, 0.25, 0.5]])
    Y = np.hstack([Y, np.full((3, 1), 1 / 3)])  # a fixed column: a second column orbit
    G = GroupAction([([1, 0, 2], [1, 0, 2, 3]), ([1, 2, 0], [1, 2, 0, 3])], m=3, n=4)
    assert G.order == 6 and len(G.column_orbits()) == 2
    lp = LayerPeeled(Y, 0.25, 0.25)
    assert lp.budget_active
    sol = lp.solve("orbit", group=G)
    ref, _ = reference_value(Y, lp.rho)
    assert abs(sol.loss - ref) <= 1e-6 * abs(ref)
    assert sol.info["variables"] == 3  # (diag, off-diag) of orbit 1, one value of orbit 2
    det = detect_symmetry(Y)
    assert det.order == 6
    sol2 = lp.solve("orbit", group=det.action)
    assert meet(sol2, sol)


def test_trivial_group_is_the_split_form():
    rng = np.random.default_rng(5)
    Y = rng.dirichlet(np.ones(3), size=5).T
    lp = LayerPeeled(Y, 0.25, 0.25)
    assert lp.budget_active
    G = GroupAction([], m=3, n=5)
    sol = lp.solve("orbit", group=G)
    ref, _ = reference_value(Y, lp.rho)
    assert abs(sol.loss - ref) <= 1e-6 * abs(ref)
    assert sol.info["isotypic_blocks"] == [[1, 3, "real"]] and sol.info["orbitals"] == 6


def test_orbit_rejects_groups_that_do_not_preserve_y():
    T = orbit_targets(cyclic(4), ["1/2", "1/4", "1/8", "1/8"])
    other = orbit_targets(symmetric(3), ["1/2", "1/3", "1/6"])
    lp = LayerPeeled(T.Y, EW, EH)
    with pytest.raises(InvalidInput, match="does not apply"):
        lp.solve("orbit", group=other.action)  # wrong degrees
    verdict = OrbitReduction().accepts(lp, detect=False)
    assert not verdict and "group=" in verdict.reason
    bad = GroupAction([([1, 0, 2, 3], [1, 0, 2, 3])], m=4, n=4)
    with pytest.raises(InvalidInput, match="does not preserve Y"):
        lp.solve("orbit", group=bad)
    with pytest.raises(InvalidInput, match="rho"):
        orbit_program(T.Y, -1.0, T.action)


def test_auto_uses_orbit_when_a_group_is_given():
    ex = EXAMPLES["wreath_S3_S2"]
    T = orbit_targets(ex.group, ex.y)
    sol = LayerPeeled(T.Y, EW, EH).solve("auto", group=T.action)
    assert sol.method == "orbit"


def test_auto_detects_a_group_when_none_is_given():
    ex = EXAMPLES["wreath_S2_S3"]
    T = orbit_targets(ex.group, ex.y)
    lp = LayerPeeled(T.exact_Y(), EW, EH)
    sol = lp.solve("auto")
    assert sol.method == "orbit" and sol.info["group_source"] == "detected"
    given = lp.solve("orbit", group=T.action)
    assert meet(sol, given)
    rng = np.random.default_rng(1)
    generic = LayerPeeled(rng.dirichlet(np.ones(3), size=4).T, 0.25, 0.25)
    assert not OrbitReduction().accepts(generic)
    assert "no symmetry" in OrbitReduction().accepts(generic).reason


@settings(max_examples=15)
@given(st.lists(st.permutations(range(4)), min_size=0, max_size=2), st.integers(0, 2**16),
       st.booleans())
def test_law_invert_gives_invariant_z_with_the_reduced_loss(gens, seed, explicit):
    """For any orbit variables, invert() is G-invariant and J(Z) = n * reduced objective."""
    rng = np.random.default_rng(seed)
    G = GroupAction([list(g) for g in gens], m=4)
    T = orbit_targets(G, [["1/2", "1/4", "1/8", "1/8"], [0, "1/3", "1/3", "1/3"]])
    action = GroupAction(T.action.generators, m=4, n=T.Y.shape[1]) if explicit else T.action
    red = orbit_program(T.Y, 1.0, action)
    x = red.inverse.x
    x.value = rng.normal(size=x.shape)
    Z = OrbitReduction().invert(red)
    for r, c in action.generators:
        assert np.array_equal(Z[np.ix_(list(r), list(c))], Z)
    J = float(np.sum(logsumexp(Z, axis=0)) - np.sum(T.Y * Z))
    loss = red.problem.objective.value * red.info["objective_scale"]
    assert abs(J - loss) <= 1e-9 * max(1.0, abs(J))


def test_cyclic_c7_matches_full_and_circulant_gram():
    """Non-symmetric orbitals (C_7): P is taken in the symmetric part of the commutant."""
    T = orbit_targets(cyclic(7), [f"{k}/28" for k in range(1, 8)])
    lp = LayerPeeled(T.exact_Y(), EW, EH)
    sol = lp.solve("orbit", group=T.action)
    ref, _ = reference_value(T.Y, lp.rho)
    assert abs(sol.loss - ref) <= 1e-6 * abs(ref)
    assert sol.info["orbitals"] == 4  # distances 0, 1, 2, 3 around the cycle
    assert predicted_gram_structure(cyclic(7)).check(sol.WWt).relative < 1e-9
