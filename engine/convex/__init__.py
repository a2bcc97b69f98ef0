"""The float side: the layer-peeled program and its reductions, via CVXPY."""

from engine.convex.solvers import available_solvers, default_solver, resolve_solver, solve

__all__ = ["available_solvers", "default_solver", "resolve_solver", "solve"]
