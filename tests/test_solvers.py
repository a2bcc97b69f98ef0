"""Solver registry: CLARABEL by default, MOSEK only when licensed, statuses enforced."""

from __future__ import annotations

import cvxpy as cp
import pytest

from logitgeom.convex import solvers
from logitgeom.errors import InexactResult, Infeasible, InvalidInput, SolverUnavailable


def _tiny():
    x = cp.Variable(2)
    return x, cp.Problem(cp.Minimize(cp.sum_squares(x - [1, 2])), [cp.norm(x, 2) <= 1])


def test_default_is_clarabel_without_mosek_licence():
    if solvers.mosek_licensed():
        pytest.skip("a MOSEK licence is usable here")
    assert solvers.default_solver() == "CLARABEL"
    assert solvers.available_solvers()[:2] == ["CLARABEL", "SCS"]


def test_solve_succeeds_with_mosek_installed_but_unlicensed():
    x, prob = _tiny()
    rep = solvers.solve(prob)
    assert rep.status == cp.OPTIMAL
    assert abs(rep.value - (5 ** 0.5 - 1) ** 2) < 1e-6
    if not solvers.mosek_licensed():
        assert rep.solver == "CLARABEL"


def test_explicit_mosek_without_licence_raises_helpful_error():
    if not solvers.is_installed(solvers.Solver.MOSEK):
        pytest.skip("mosek not installed")
    if solvers.mosek_licensed():
        pytest.skip("a MOSEK licence is usable here")
    with pytest.raises(SolverUnavailable, match="omit solver= to use CLARABEL"):
        solvers.resolve_solver("MOSEK")
    x, prob = _tiny()
    with pytest.raises(SolverUnavailable, match="licence"):
        solvers.solve(prob, solver="mosek")


@pytest.mark.mosek
def test_mosek_when_licensed():
    x, prob = _tiny()
    assert solvers.solve(prob, solver="MOSEK").solver == "MOSEK"


@pytest.mark.parametrize("name", ["CLARABEL", "SCS"])
def test_named_free_solvers(name):
    x, prob = _tiny()
    rep = solvers.solve(prob, solver=name.lower())
    assert rep.solver == name


def test_unknown_solver():
    with pytest.raises(InvalidInput, match="unknown solver"):
        solvers.resolve_solver("GUROBI")


def test_infeasible_is_an_error():
    x = cp.Variable()
    prob = cp.Problem(cp.Minimize(x), [x >= 1, x <= 0])
    with pytest.raises(Infeasible):
        solvers.solve(prob, solver="CLARABEL")


def test_inaccurate_is_not_optimal():
    x, prob = _tiny()
    with pytest.raises(InexactResult):
        # one SCS iteration cannot reach optimality; CVXPY reports optimal_inaccurate
        # or the registry maps the unfinished status to an error
        solvers._check_status(type("P", (), {"status": cp.OPTIMAL_INACCURATE})(), "SCS")


def test_failed_tiers_do_not_leak_solver_warnings():
    # every tier is capped at one iteration, so each reaches at best "optimal_inaccurate"
    # (CLARABEL warns "Solution may be inaccurate"); the outcome is the error alone
    import warnings

    from logitgeom.errors import SolverFailed

    x, prob = _tiny()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(SolverFailed):
            solvers.solve(prob, solver="CLARABEL", accurate=True, max_iter=1)
    # a tight tier that stops early ("optimal_inaccurate" + warning) and then a tier that
    # succeeds: the warning of the failed tier is not passed on (CVXPY keeps max_iter
    # between solves of one problem, hence a fresh one)
    x, prob = _tiny()
    tiers = ({"max_iter": 4}, {"max_iter": 200})
    old = solvers.ACCURATE_OPTIONS[solvers.Solver.CLARABEL]
    solvers.ACCURATE_OPTIONS[solvers.Solver.CLARABEL] = tiers
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            rep = solvers.solve(prob, solver="CLARABEL", accurate=True)
    finally:
        solvers.ACCURATE_OPTIONS[solvers.Solver.CLARABEL] = old
    assert rep.status == cp.OPTIMAL
