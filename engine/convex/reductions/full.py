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
>>> from engine.convex.problem import LayerPeeled
>>> Y = np.array([[0.7, 0.2], [0.3, 0.8]])
>>> red = FullReduction()
>>> bool(red.accepts(LayerPeeled(Y, 1.0, 1.0)))
True
"""

from __future__ import annotations

from typing import Any

import cvxpy as cp
import numpy as np

from engine.convex._loss import cross_entropy_expr
from engine.convex.reductions.base import Acceptance, ReducedProblem, Reduction
from engine.errors import InvalidInput

__all__ = ["FullReduction", "nuclear_ball_constraints", "choose_form"]

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
    M = Z if n >= m else Z.T
    k, cols = M.shape
    P = cp.Variable((k, k), symmetric=True)
    t = cp.Variable(cols)
    cons = [(cp.trace(P) + cp.sum(t)) / 2 <= rho]
    for j in range(cols):
        zj = cp.reshape(M[:, j], (k, 1), order="F")
        cons.append(cp.bmat([[P, zj], [zj.T, cp.reshape(t[j], (1, 1), order="F")]]) >> 0)
    return cons


class FullReduction(Reduction):
    """The identity "reduction": the nuclear-norm program on the full target.

    ``apply`` options: ``form`` in {"auto", "joint", "split"}; other options are ignored.
    """

    name = "full"

    def accepts(self, problem: Any, **options: Any) -> Acceptance:
        """Always applies."""
        return Acceptance(True)

    def apply(self, problem: Any, form: str = "auto", **options: Any) -> ReducedProblem:
        """Build ``min J(Z) s.t. ||Z||_* <= rho`` in the chosen conic form."""
        m, n = problem.shape
        Z = cp.Variable((m, n))
        obj = cross_entropy_expr(Z, problem.Y)
        cons = nuclear_ball_constraints(Z, problem.rho, form)
        chosen = choose_form(m, n) if form == "auto" else form
        return ReducedProblem(cp.Problem(cp.Minimize(obj), cons), {"Z": Z},
                              {"form": chosen, "variables": m * n})

    def invert(self, reduced: ReducedProblem) -> np.ndarray:
        """The solved ``Z``."""
        return np.asarray(reduced.inverse_data["Z"].value, dtype=float)
