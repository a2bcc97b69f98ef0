"""The general program: ``min_Z J(Z) s.t. ||Z||_* <= rho`` on the whole target.

Two equivalent conic forms (docs/layer-peeled.md and docs/symmetry.md):

``"joint"``
    ``cp.normNuc(Z) <= rho``: one (m + n) x (m + n) semidefinite block.
``"split"``
    ``||Z||_* = min_{P >= 0} (tr P + sum_j t_j) / 2`` with one (m + 1) x (m + 1) LMI
    ``[[P, z_j], [z_j^T, t_j]] >= 0`` per column (or per row on ``Z^T`` when m > n).
    Much cheaper when one side is much longer than the other.

``form="auto"`` (default) picks by shape (:func:`choose_form`).

Examples
--------
>>> import numpy as np
>>> from logitgeom.convex.problem import LayerPeeled
>>> Y = np.array([[0.7, 0.2], [0.3, 0.8]])
>>> red = FullReduction()
>>> bool(red.accepts(LayerPeeled(Y, 1.0, 1.0)))
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cvxpy as cp
import numpy as np

from logitgeom.convex.loss import cross_entropy_expr
from logitgeom.convex.reductions.base import Acceptance, Plan, ReducedProblem, Reduction
from logitgeom.errors import InvalidInput

__all__ = ["FullInverse", "FullPlan", "FullReduction", "choose_form", "nuclear_ball_constraints",
           "nuclear_epigraph"]

FORMS = ("auto", "joint", "split")


def choose_form(m: int, n: int) -> str:
    """``"split"`` when one side is at least 8 times the other, else ``"joint"``.

    Measured with CLARABEL: S_5 targets (5 x 120) solve in 0.2 s split and minutes joint;
    five cyclic blocks (12 x 60) take 5.5 s joint and 15 s split (the shared P couples
    every LMI).

    Examples
    --------
    >>> choose_form(3, 3), choose_form(4, 120), choose_form(12, 60)
    ('joint', 'split', 'joint')
    """
    short, long_ = min(m, n), max(m, n)
    return "split" if long_ >= 8 * short else "joint"


def nuclear_ball_constraints(Z: cp.Expression, rho: float, form: str = "auto") -> list:
    """Constraints stating ``||Z||_* <= rho`` for a matrix expression ``Z``.

    Parameters
    ----------
    Z : cvxpy.Expression
        m x n.
    rho : float
        Radius (> 0).
    form : {"auto", "joint", "split"}

    Returns
    -------
    list of cvxpy constraints

    Raises
    ------
    InvalidInput
        Unknown form.

    Examples
    --------
    >>> Z = cp.Variable((2, 5))
    >>> len(nuclear_ball_constraints(Z, 1.0, "split"))
    6
    """
    if form not in FORMS:
        raise InvalidInput(f"unknown form {form!r} for the nuclear-norm ball; choose one of "
                           f"{', '.join(FORMS)}")
    m, n = Z.shape
    if form == "auto":
        form = choose_form(m, n)
    if form == "joint":
        return [cp.normNuc(Z) <= rho]
    return _split_sdp(Z, rho)


def nuclear_epigraph(M: cp.Expression, t: cp.Expression, form: str = "auto") -> list:
    """Constraints stating ``||M||_* <= t`` (t a scalar expression), in the conic form of
    :func:`nuclear_ball_constraints` (a vector or a single row/column: one second-order
    cone).

    Examples
    --------
    >>> M, t = cp.Variable((2, 6)), cp.Variable()
    >>> len(nuclear_epigraph(M, t, "split")), len(nuclear_epigraph(M[0:1, :], t))
    (7, 1)
    """
    m, n = M.shape if len(M.shape) == 2 else (1, M.shape[0])
    if min(m, n) == 1:
        return [cp.norm(cp.vec(M, order="F"), 2) <= t]
    if form == "auto":
        form = choose_form(m, n)
    if form == "joint":
        return [cp.normNuc(M) <= t]
    return _split_sdp(M, t)


def _split_sdp(M, bound) -> list:
    """The "split" form of ``||M||_* <= bound``: one small PSD block per column of the wider
    orientation, ``[[P, a_j], [a_j^T, s_j]] >> 0`` and ``(tr P + sum s) / 2 <= bound``."""
    m, n = M.shape
    A = M if n >= m else M.T
    k, cols = A.shape
    P = cp.Variable((k, k), symmetric=True)
    s = cp.Variable(cols)
    cons = [(cp.trace(P) + cp.sum(s)) / 2 <= bound]
    for j in range(cols):
        aj = cp.reshape(A[:, j], (k, 1), order="F")
        cons.append(cp.bmat([[P, aj], [aj.T, cp.reshape(s[j], (1, 1), order="F")]]) >> 0)
    return cons


@dataclass(frozen=True)
class FullPlan(Plan):
    """What :class:`FullReduction` decided: the conic form of the nuclear-norm ball."""

    form: str


@dataclass(frozen=True)
class FullInverse:
    """The CVXPY variable holding Z."""

    Z: cp.Variable


class FullReduction(Reduction):
    """The identity "reduction": the nuclear-norm program on the full target.

    Option: ``form`` in {"auto", "joint", "split"}.
    """

    name = "full"
    options = frozenset({"form"})

    def accepts(self, problem: Any, form: str = "auto", **options: Any) -> Acceptance:
        """Always applies (an unknown ``form`` is refused with the choices)."""
        if form not in FORMS:
            return Acceptance(False, f"unknown form {form!r}; choose one of {', '.join(FORMS)}")
        m, n = problem.shape
        return Acceptance(True, plan=FullPlan(choose_form(m, n) if form == "auto" else form))

    def apply(self, problem: Any, acceptance: Acceptance, **options: Any) -> ReducedProblem:
        """Build ``min J(Z) s.t. ||Z||_* <= rho`` in the planned conic form."""
        m, n = problem.shape
        Z = cp.Variable((m, n))
        obj = cross_entropy_expr(Z, problem.Y)
        form = acceptance.plan.form
        cons = nuclear_ball_constraints(Z, problem.rho, form)
        return ReducedProblem(cp.Problem(cp.Minimize(obj), cons), FullInverse(Z),
                              {"form": form, "variables": m * n}, acceptance.plan)

    def invert(self, reduced: ReducedProblem) -> np.ndarray:
        """The solved ``Z``."""
        return np.asarray(reduced.inverse.Z.value, dtype=float)
