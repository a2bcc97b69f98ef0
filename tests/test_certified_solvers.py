"""Solver robustness found while certifying."""

from __future__ import annotations

import warnings

import cvxpy as cp
import numpy as np
import pytest

from logitgeom.convex import LayerPeeled
from logitgeom.convex import solvers as S
from logitgeom.errors import TooLarge


def test_memory_estimate_and_refusal(monkeypatch):
    Z = cp.Variable((200, 200))
    assert 50e9 < S.estimate_memory(cp.Problem(cp.Minimize(cp.normNuc(Z)))) < 53e9
    Y = np.random.default_rng(0).dirichlet(np.ones(200), size=200).T
    with pytest.raises(TooLarge, match=r"(?s)51.*GB.*orbit.*split.*SCS"):
        LayerPeeled(Y, 1.0, 1.0).solve("full", solver="CLARABEL", form="joint")
    monkeypatch.setenv(S.MEMORY_LIMIT_ENV, "1e-9")  # 1 byte: even a 2 x 2 program is refused
    with pytest.raises(TooLarge, match="CLARABEL would need"):
        LayerPeeled(np.eye(2), 1.0, 1.0).solve("full", solver="CLARABEL")


def test_best_point_kept_across_tiers(monkeypatch):
    """Tier 0 stops after 5 iterations ("optimal_inaccurate") at a better point than tier 1
    (very loose tolerances, "optimal"): the better point is kept and the report says so."""
    monkeypatch.setitem(S.ACCURATE_OPTIONS, S.Solver.CLARABEL, (
        {"max_iter": 5},
        {"tol_gap_abs": 0.3, "tol_gap_rel": 0.3, "tol_feas": 0.3, "tol_ktratio": 0.9}))
    x = cp.Variable(3)
    target = np.array([1.0, 2.0, 3.0])
    prob = cp.Problem(cp.Minimize(cp.sum_squares(x - target) + cp.norm(x, 1)))

    def score():
        return float(np.sum((x.value - target) ** 2) + np.sum(np.abs(x.value)))

    with warnings.catch_warnings():  # the kept inaccurate tier is a fact, not a warning
        warnings.simplefilter("error")
        rep = S.solve(prob, "CLARABEL", accurate=True, score=score)
    assert "kept the point of tolerance tier 0 (its own status: optimal_inaccurate)" in rep.note
    assert rep.kept_status == "optimal_inaccurate" and rep.inexact
    assert rep.status == "optimal"
    assert abs(score() - 5.25) < 1e-6
    rep = S.solve(prob, "CLARABEL", accurate=True)  # without a score: the last tier's point
    assert rep.note == "" and rep.status == "optimal" and not rep.inexact


def test_d_below_rank_reports_factor_loss():
    Y = np.eye(3) * 0.7 + 0.1
    sol = LayerPeeled(Y, 1.0, 4.0, d=1).solve("full")
    assert sol.rank > 1 and not sol.tight
    assert sol.info["bound_attained"] is False
    assert sol.info["factors_loss"] > sol.loss + 1e-3
    assert "NOT attained" in sol.info["note"]
