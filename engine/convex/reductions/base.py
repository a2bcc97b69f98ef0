"""The contract every reduction of the logit-level program states (after cvxpy ``reductions/``).

A reduction maps the convex program ``min_Z J(Z) s.t. ||Z||_* <= rho`` on the full
target ``Y`` (m x n) to a smaller program (or a closed form), and maps its solution back
to a full-size logit matrix ``Z`` (m x n).  Everything after that (factor recovery,
Grams, dual bound, diagnostics) is done once, on the full-size ``Z``, by
:class:`logitgeom.convex.problem.LayerPeeled`; so a reduction is checked against the
original problem, never against itself (see docs/symmetry-reduction.md).

Contract
--------
``accepts(problem, **options) -> Acceptance``
    Decides whether the reduction applies *exactly* and returns what it found (a frozen
    ``plan``: the orbit classes, the group, the decomposition), or ``ok=False`` with the
    reason.  It has no side effects and caches nothing.
``apply(problem, acceptance, **options) -> ReducedProblem``
    Builds the smaller program from ``acceptance.plan`` (never re-deriving it).
    ``inverse`` is a frozen dataclass holding what ``invert`` needs.
``solve(reduced, solver=None, solver_options=None) -> Solved``
    Conic reductions solve ``reduced.problem`` (via :mod:`logitgeom.convex.solvers`) and
    invert; a closed-form reduction (``closed_form = True``, e.g. the ETF one) computes
    ``Z`` directly and says so in ``Solved.solver``.
``invert(reduced) -> numpy.ndarray``
    After solving, the full-size optimal ``Z`` (m x n).
``refine(problem, acceptance) -> (Reduction, Acceptance) or None``
    A cheaper exact reduction the found structure admits (``method="auto"`` takes it):
    the orbit reduction offers the group it verified to the ETF closed form.

Plans are typed (a subclass of :class:`Plan` per reduction) and say, as typed
attributes, what ``LayerPeeled`` and the certificate builders need to know: the label
group verified exactly on Y (``label_generators``), whether Z keeps an OrbitTargets'
own group (``keeps_target_group``) and the structure claims the optimum is proven to
have (``claims``).  Nothing outside a reduction tests a reduction's name.

Each reduction lists the keyword ``options`` it understands; ``LayerPeeled.solve``
rejects any other keyword.
"""

from __future__ import annotations

import abc
import enum
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["Acceptance", "Plan", "ReducedProblem", "Reduction", "Solved", "Status"]


class Status(enum.StrEnum):
    """How a solve ended (a ``str`` enum: ``Status.OPTIMAL == "optimal"``)."""

    #: the conic solver (or the closed form) returned an optimal point
    OPTIMAL = "optimal"
    #: the budget is not active: Z* is the centred log Y, nothing was solved
    BUDGET_INACTIVE = "budget_inactive"
    #: approximate symmetry (``tol``): optimal for Y averaged over the group, not for Y (its
    #: relative duality gap on Y is above logitgeom.limits.GAP_LIMIT: the asymmetry's cost)
    APPROXIMATE = "approximate"


class Plan:
    """Base of the reductions' typed plans (each a frozen dataclass of its own).

    Attributes
    ----------
    label_generators : tuple of permutations or None
        Generators (image form, on the labels) of a group verified *exactly* on Y: Y's
        column multiset is invariant under it and the reduced Z is invariant under it
        (None when the plan verified no group, or only approximately).
    keeps_target_group : bool
        Whether the Z of this plan is invariant under the group an
        :class:`logitgeom.symmetry.OrbitTargets` target brings (its sums then reduce to the
        base columns).
    claims : tuple of str
        Structure claims of the ``layer-peeled-bracket`` certificate the optimum is
        proven to have ("simplex-etf", "circulant"; docs/certified-optima.md).

    Examples
    --------
    >>> Plan().label_generators is None, Plan().keeps_target_group, Plan().claims
    (True, False, ())
    """

    @property
    def label_generators(self) -> tuple[tuple[int, ...], ...] | None:
        return None

    @property
    def keeps_target_group(self) -> bool:
        return False

    @property
    def claims(self) -> tuple[str, ...]:
        return ()


@dataclass(frozen=True)
class Acceptance:
    """Verdict of :meth:`Reduction.accepts`: ``ok``, why not, and what was found.

    ``plan`` is the reduction's own frozen record of the structure it found (a
    :class:`Plan`; None when not ok); ``apply`` builds from it.
    """

    ok: bool
    reason: str = ""
    plan: Any = None

    def __bool__(self) -> bool:
        return self.ok


@dataclass(frozen=True)
class ReducedProblem:
    """A reduced program, the data to map its solution back, and size information.

    ``problem`` is a CVXPY problem, or None for a closed form (then ``inverse`` holds the
    solution's parameters).  ``plan`` is the acceptance plan it was built from.
    """

    problem: Any
    inverse: Any
    info: dict = field(default_factory=dict)
    plan: Any = None


@dataclass(frozen=True)
class Solved:
    """A solved reduction: full-size Z, who solved it, how it ended."""

    Z: np.ndarray
    solver: str
    status: Status
    #: the solver registry's note (e.g. which tolerance tier's point was kept), or ""
    note: str = ""
    #: the solver status of the tolerance tier whose point was kept ("" for closed forms)
    kept_status: str = ""


class Reduction(abc.ABC):
    """Base class of the layer-peeled reductions (full, circulant, etf, orbit)."""

    #: the ``method=`` name that selects this reduction
    name: str = ""
    #: keyword options ``accepts`` / ``apply`` understand (others are rejected)
    options: frozenset[str] = frozenset()
    #: True when ``solve`` needs no conic solver
    closed_form: bool = False

    @abc.abstractmethod
    def accepts(self, problem: Any, **options: Any) -> Acceptance:
        """Whether this reduction applies exactly to ``problem``, and what it found."""

    @abc.abstractmethod
    def apply(self, problem: Any, acceptance: Acceptance, **options: Any) -> ReducedProblem:
        """Build the reduced program from ``acceptance.plan``."""

    @abc.abstractmethod
    def invert(self, reduced: ReducedProblem) -> np.ndarray:
        """Full-size optimal logits Z (numpy array, m x n) from the solved reduced program."""

    def refine(self, problem: Any, acceptance: Acceptance) -> tuple[Reduction, Acceptance] | None:
        """A cheaper exact reduction that the structure in ``acceptance`` admits, with its
        acceptance, or None (the default: nothing cheaper)."""
        return None

    def solve(self, reduced: ReducedProblem, solver: str | None = None,
              solver_options: dict | None = None, score: Any = None) -> Solved:
        """Solve ``reduced.problem`` with the registry's accurate tolerances and invert;
        ``score`` (a callable, lower is better) picks among the tolerance tiers' points."""
        from logitgeom.convex.solvers import solve as conic_solve

        rep = conic_solve(reduced.problem, solver, accurate=True, score=score,
                          **(solver_options or {}))
        return Solved(self.invert(reduced), rep.solver, Status(rep.status), rep.note,
                      rep.kept_status)
