"""LayerPeeled: validation, inactive budget, solver status, recovery, JSON, CLI."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest
from _proven import narrow

from logitgeom import InvalidInput, SolverFailed
from logitgeom.cli.main import main
from logitgeom.convex import LayerPeeled, cyclic_orbit, predicted_geometry, solve_layer_peeled
from logitgeom.convex.reductions import REGISTRY, get_reduction

Y3 = np.array([[0.7, 0.2, 0.0, 0.3], [0.2, 0.5, 0.4, 0.3], [0.1, 0.3, 0.6, 0.4]])


# -- bad input ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "Y, match",
    [
        (np.array([[0.5, np.nan], [0.5, 0.5]]), r"Y\[0,1\] is nan"),
        (np.array([[1.2, 0.5], [-0.2, 0.5]]), r"Y\[1,0\] = -0.2 is negative"),
        (np.array([[0.5, 0.5], [0.5, 0.6]]), "column 1 sums to 1.1"),
        ([[1, "1/2"], [0, "1/3"]], "column 1 sums to 0.8333"),
        ([["1/2", "x"], ["1/2", 1]], "not a number"),
        ([[1, 0], [0]], "ragged"),
        (np.ones(3) / 3, "2-D"),
    ],
)
def test_bad_targets_raise_clear_errors(Y, match):
    with pytest.raises(InvalidInput, match=match):
        LayerPeeled(Y, 1, 1)


@pytest.mark.parametrize("ew, eh, d, match", [
    (0, 1, None, "E_W must be > 0"), (1, -2, None, "E_H must be > 0"),
    (1, 1, 0, "d must be a positive integer"), (1, 1, 2.5, "d must be a positive integer"),
    (float("inf"), 1, None, "finite"),
])
def test_bad_budgets_and_width(ew, eh, d, match):
    with pytest.raises(InvalidInput, match=match):
        LayerPeeled(Y3, ew, eh, d)


def test_exact_input_is_kept_exact_and_sums_checked_exactly():
    P = LayerPeeled([["1/3", "1/2"], ["2/3", "1/2"]], "1/4", 4)
    assert P.entries[0, 0] == Fraction(1, 3) and P.rho == 1.0


def test_method_errors():
    P = LayerPeeled(Y3, 1, 1)
    with pytest.raises(InvalidInput, match="not a union of cyclic orbits"):
        P.solve("circulant")
    with pytest.raises(InvalidInput, match="not a union of orbits of S_m"):
        P.solve("etf")
    with pytest.raises(InvalidInput, match="unknown method 'dft'"):
        P.solve("dft")
    with pytest.raises(InvalidInput, match="not 2-homogeneous"):
        LayerPeeled(cyclic_orbit([0.4, 0.3, 0.2, 0.1]), 1, 1).solve("etf", group=[(1, 2, 3, 0)])
    # C_3 is transitive on unordered pairs: the closed form applies to a 3-cycle target
    Yc = cyclic_orbit([0.5, 0.3, 0.2])
    assert LayerPeeled(Yc, 1, 1).select("etf", group=[(1, 2, 0)]).name == "etf"
    with pytest.raises(InvalidInput, match="unknown option 'gruop'"):
        LayerPeeled(Yc, 1, 1).solve("circulant", gruop="C3")


def test_registry_is_open_for_more_reductions():
    assert {"full", "circulant", "etf", "orbit"} <= set(REGISTRY)
    assert get_reduction("FULL").name == "full"


# -- solver status -----------------------------------------------------------------------
def test_non_optimal_status_raises():
    import warnings

    with warnings.catch_warnings():  # the error says it all: no raw solver warning
        warnings.simplefilter("error")
        with pytest.raises(SolverFailed):
            LayerPeeled(Y3, 1, 1).solve("full", solver="CLARABEL",
                                        solver_options={"max_iter": 1})


# -- inactive budget ---------------------------------------------------------------------
def test_inactive_budget_is_detected_and_reported():
    Y = np.array([[0.6, 0.3, 0.2], [0.3, 0.5, 0.2], [0.1, 0.2, 0.6]])
    P = LayerPeeled(Y, 100, 100)
    assert not P.budget_active and P.free_radius < P.rho
    for method in ("auto", "full"):
        sol = P.solve(method)
        assert sol.status == "budget_inactive" and sol.solver is None
        assert not sol.budget_active
        assert math.isclose(sol.loss, sol.entropy, rel_tol=1e-12)
        assert np.allclose(sol.probabilities, Y, atol=1e-12)
        assert abs(sol.gap) < 1e-12
    assert predicted_geometry(P.solve()).kind == "inactive"
    # just below the free radius the budget is active and the loss exceeds the entropy
    P2 = LayerPeeled(Y, P.free_radius * 0.9, 1)
    sol2 = P2.solve("full")
    assert sol2.budget_active and sol2.loss > sol2.entropy + 1e-6
    assert math.isclose(sol2.nuclear_norm, P2.rho, rel_tol=1e-6)


def test_zero_entry_keeps_budget_active_for_any_radius():
    P = LayerPeeled(cyclic_orbit([0.6, 0.4, 0.0]), 1e6, 1e6)
    assert P.free_radius == math.inf and P.budget_active


# -- recovery and diagnostics ------------------------------------------------------------
def test_recovered_factors_meet_budgets_and_reproduce_Z():
    sol = solve_layer_peeled(Y3, 2.0, 0.5, method="full")
    assert sol.budget_active and sol.tight and sol.d == 3
    assert np.sum(sol.W ** 2) <= 2.0 * (1 + 1e-9) and np.sum(sol.H ** 2) <= 0.5 * (1 + 1e-9)
    assert np.allclose(sol.W @ sol.H, sol.Z, atol=1e-10)
    assert np.allclose(sol.WWt, sol.W @ sol.W.T) and np.allclose(sol.HtH, sol.H.T @ sol.H)
    assert 0 <= sol.gap and narrow(sol)
    assert sol.nuclear_norm <= sol.rho * (1 + 1e-12)


def test_narrow_width_is_reported_not_tight():
    sol = LayerPeeled(Y3, 4.0, 4.0, d=1).solve("full")
    assert sol.rank >= 2 and not sol.tight and sol.W.shape == (3, 1)
    assert np.sum(sol.W ** 2) <= 4.0 * (1 + 1e-9)


def test_json_is_deterministic_and_complete():
    a = LayerPeeled(Y3, 1, 1).solve("full").to_json()
    b = LayerPeeled(Y3, 1, 1).solve("full").to_json()
    assert a == b
    data = json.loads(a)
    for key in ("loss", "method", "budget_active", "rank", "tight", "gap", "Z", "WWt", "HtH"):
        assert key in data
    assert "solve_time" not in data


def test_cli_solve(tmp_path, capsys):
    path = tmp_path / "Y.csv"
    path.write_text("1/2,1/4,1/4\n1/4,1/2,1/4\n1/4,1/4,1/2\n")
    out = tmp_path / "sol.json"
    assert main(["solve", str(path), "--ew", "2", "--eh", "1/2", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["method"] == "etf" and data["budget_active"] and data["rank"] == 2
    assert main(["solve", str(path), "--method", "nope"]) == 2
    assert "unknown method" in capsys.readouterr().err


def test_shape_mismatches_are_named():
    P = LayerPeeled(cyclic_orbit([0.5, 0.3, 0.2]), 1, 1)
    with pytest.raises(InvalidInput, match=r"generator 0 has degree 2 but 3 points"):
        P.solve("etf", group=[(1, 0)])
    from logitgeom.convex import dual_value
    with pytest.raises(InvalidInput, match="A has shape"):
        dual_value(np.eye(2), np.eye(3), 1.0)
