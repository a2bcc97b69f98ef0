"""The shape every reduction of the logit-level program has (after cvxpy ``reductions/``).

A reduction maps the convex program ``min_Z J(Z) s.t. ||Z||_* <= rho`` on the full
target ``Y`` (m x n) to a smaller program, solves nothing itself, and maps a solution
of the smaller program back to a full-size logit matrix ``Z`` (m x n).  Everything
after that (factor recovery, Grams, dual bound, diagnostics) is done once, on the
full-size ``Z``, by :class:`engine.convex.problem.LayerPeeled`; so a reduction is
checked against the original problem, never against itself.

Contract
--------
``accepts(problem) -> Acceptance``
    Whether the reduction applies *exactly* to this problem, with a reason when not.
    A reduction that cannot apply says so here, never by failing halfway.
``apply(problem, **options) -> ReducedProblem``
    Builds the smaller CVXPY problem; ``inverse_data`` holds what ``invert`` needs.
``invert(reduced) -> numpy.ndarray``
    After ``reduced.problem`` has been solved, the full-size optimal ``Z`` (m x n).
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import Any

import cvxpy as cp

__all__ = ["Acceptance", "ReducedProblem", "Reduction"]


@dataclass(frozen=True)
class Acceptance:
    """Verdict of :meth:`Reduction.accepts`: ``ok`` and, when not ok, why."""

    ok: bool
    reason: str = ""

    def __bool__(self) -> bool:
        return self.ok


@dataclass
class ReducedProblem:
    """A reduced CVXPY problem and the data needed to map its solution back."""

    problem: cp.Problem
    inverse_data: dict[str, Any] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)


class Reduction(abc.ABC):
    """Base class of the layer-peeled reductions (full, circulant, etf, orbit)."""

    #: the ``method=`` name that selects this reduction
    name: str = ""

    @abc.abstractmethod
    def accepts(self, problem: Any) -> Acceptance:
        """Whether this reduction applies exactly to ``problem`` (a LayerPeeled)."""

    @abc.abstractmethod
    def apply(self, problem: Any, **options: Any) -> ReducedProblem:
        """Build the reduced program."""

    @abc.abstractmethod
    def invert(self, reduced: ReducedProblem) -> Any:
        """Full-size optimal logits Z (numpy array, m x n) from the solved reduced program."""
