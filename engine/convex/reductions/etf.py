"""2-homogeneous orbit targets: the scalar stationarity system (docs/symmetry-reduction.md).

Applies when the multiset of columns of Y is invariant under a group G of label
permutations that is transitive on *unordered* pairs of labels (2-homogeneous; every
2-transitive group is, and so is F21 on 7 points, which is not 2-transitive).  The
default G is the symmetric group S_m; ``group=`` gives another in any spelling of
:func:`engine.symmetry.as_group`.  Then the symmetric matrices commuting with G are
``a I + b J``, every invariant centred Z has ``||Z||_* = sqrt(m - 1) ||Z||_F``, and the
program becomes a Frobenius-ball program solved column by column:
``Z* = -kappa (alpha(y_j) - y_j)``, where for each column class (columns sharing one
multiset of entries) ``alpha = f(y)`` is entrywise,

    log alpha_r + kappa (alpha_r - y_r) = mu,   sum_r alpha_r = 1,

i.e. ``alpha_r = W(kappa exp(kappa y_r + mu)) / kappa`` (Lambert W), and kappa solves
``(m - 1) kappa s(kappa) = rho`` with ``s^2 = sum_j ||alpha(y_j) - y_j||^2 / (m - 1)``
over all columns.  (``mu`` equals the mean of ``log alpha``: average the equations.)
Two nested 1-D root finds (Brent, full double precision); no conic solver: this is the
closed-form path of the reduction contract (``closed_form = True``).

Examples
--------
>>> import numpy as np
>>> from engine.convex.problem import LayerPeeled
>>> from engine.convex.targets import group_orbit, symmetric_group
>>> Y = group_orbit([0.6, 0.3, 0.1], symmetric_group(3))
>>> sol = LayerPeeled(Y, 2.0, 1.0).solve("etf")
>>> sol.solver, bool(np.allclose(sol.WWt, (2.0 / 2) * (np.eye(3) - 1 / 3), atol=1e-9))
('brentq', True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import brentq
from scipy.special import lambertw

from engine.convex.reductions._structure import invariant_codes, pair_homogeneous
from engine.convex.reductions.base import Acceptance, ReducedProblem, Reduction, Solved, Status
from engine.errors import InvalidInput, SolverFailed

__all__ = ["ETFInverse", "ETFPlan", "ETFReduction", "alpha_of", "group_generators",
           "lambertw_exp"]


def group_generators(group: Any, m: int) -> list[tuple[int, ...]]:
    """Label permutations generating ``group`` (any :func:`engine.symmetry.as_group`
    spelling); None means S_m.

    Raises
    ------
    InvalidInput
        Not a group spelling, or a group on a number of labels other than m.

    Examples
    --------
    >>> group_generators(None, 3)
    [(1, 0, 2), (1, 2, 0)]
    >>> group_generators([[1, 2, 0]], 3)
    [(1, 2, 0)]
    """
    if group is None:
        if m < 2:
            return []
        return [(1, 0, *range(2, m)), (*range(1, m), 0)]
    from engine.symmetry.constructors import as_group

    G = as_group(group, m=m)
    return sorted(set(G.row_generators))


def lambertw_exp(X: np.ndarray) -> np.ndarray:
    """``W(exp(X))`` without overflow: the w > 0 with ``w + log w = X``.

    Examples
    --------
    >>> w = lambertw_exp(np.array([-50.0, 0.0, 1000.0]))
    >>> bool(np.allclose(w + np.log(w), [-50.0, 0.0, 1000.0], rtol=1e-14))
    True
    """
    X = np.asarray(X, dtype=float)
    out = np.empty_like(X)
    lo = X < -40.0
    hi = X > 500.0
    mid = ~(lo | hi)
    out[lo] = np.exp(X[lo])
    out[mid] = lambertw(np.exp(X[mid])).real
    if np.any(hi):
        x = X[hi]
        w = x - np.log(x)
        for _ in range(6):
            w = w - (w + np.log(w) - x) / (1.0 + 1.0 / w)
        out[hi] = w
    return out


def alpha_of(y: np.ndarray, kappa: float) -> tuple[np.ndarray, float]:
    """The ``alpha`` (and ``mu``) of one column class at a given kappa > 0.

    Examples
    --------
    >>> a, mu = alpha_of(np.array([0.7, 0.2, 0.1]), 3.0)
    >>> round(float(a.sum()), 12), bool(np.allclose(np.log(a) + 3.0 * (a - [0.7, 0.2, 0.1]), mu))
    (1.0, True)
    """
    m = y.size
    lk = math.log(kappa)

    def excess(mu: float) -> float:
        return float(lambertw_exp(lk + kappa * y + mu).sum() / kappa - 1.0)

    lo = math.log(1.0 / m) + kappa / m - kappa * float(y.max()) - 1.0
    hi = math.log(1.0 / m) + 1.0
    while excess(lo) > 0:
        lo -= 1.0 + abs(lo)
    while excess(hi) < 0:
        hi += 1.0 + abs(hi)
    mu = brentq(excess, lo, hi, xtol=1e-300, rtol=4 * np.finfo(float).eps, maxiter=500)
    return lambertw_exp(lk + kappa * y + mu) / kappa, mu


def _classes(problem: Any) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """Column classes by multiset of entries: representative (sorted) y, counts, columns."""
    keys = np.sort(problem.codes, axis=0)
    _, first, inverse, counts = np.unique(keys, axis=1, return_index=True,
                                          return_inverse=True, return_counts=True)
    inverse = np.asarray(inverse).reshape(-1)
    order = np.argsort(first, kind="stable")  # classes in order of first appearance
    ys = np.sort(problem.Y[:, first[order]], axis=0).T
    cols = [np.flatnonzero(inverse == k) for k in order]
    return ys, counts[order].astype(float), cols


@dataclass(frozen=True, eq=False)
class ETFPlan:
    """What :meth:`ETFReduction.accepts` found: the group's generators (on labels), whether
    it was the default S_m, and the column classes (sorted representative y, count,
    columns)."""

    generators: tuple[tuple[int, ...], ...]
    default_group: bool
    ys: np.ndarray
    counts: np.ndarray
    columns: tuple[np.ndarray, ...]


@dataclass(frozen=True, eq=False)
class ETFInverse:
    """The closed-form solution's parameters: kappa and per class (alpha, mu, columns)."""

    kappa: float
    s: float
    alphas: tuple[np.ndarray, ...]
    mus: tuple[float, ...]
    columns: tuple[np.ndarray, ...]
    Y: np.ndarray


class ETFReduction(Reduction):
    """2-homogeneous orbit targets -> two nested scalar root finds (module docstring)."""

    name = "etf"
    options = frozenset({"group"})
    closed_form = True

    def accepts(self, problem: Any, group: Any = None, **options: Any) -> Acceptance:
        """Whether Y's column multiset is invariant under a 2-homogeneous ``group`` (S_m)."""
        m = problem.m
        if m < 2:
            return Acceptance(False, "m = 1: every logit matrix gives the same loss")
        try:
            gens = group_generators(group, m)
        except InvalidInput as exc:
            return Acceptance(False, str(exc))
        if not pair_homogeneous(gens, m):
            return Acceptance(False, "the given group is not 2-homogeneous (transitive on "
                                     "unordered pairs of labels)")
        ok, reason = invariant_codes(problem.codes, gens)
        if not ok:
            which = "S_m" if group is None else "the given group"
            return Acceptance(False, f"Y is not a union of orbits of {which}: {reason}")
        ys, counts, cols = _classes(problem)
        return Acceptance(True, plan=ETFPlan(tuple(gens), group is None, ys, counts,
                                             tuple(cols)))

    def apply(self, problem: Any, acceptance: Acceptance, **options: Any) -> ReducedProblem:
        """Solve the stationarity system (no conic program: ``problem`` is None)."""
        plan: ETFPlan = acceptance.plan
        m, rho = problem.m, problem.rho
        ys, counts = plan.ys, plan.counts

        def state(kappa: float):
            res = [alpha_of(y, kappa) for y in ys]
            s2 = sum(c * float(np.sum((a - y) ** 2)) for (a, _), y, c in zip(res, ys, counts,
                                                                                strict=True))
            return res, math.sqrt(s2 / (m - 1))

        def F(kappa: float) -> float:
            return (m - 1) * kappa * state(kappa)[1] - rho

        hi = 1.0
        while F(hi) < 0:
            hi *= 4.0
            if hi > 1e15:
                raise SolverFailed("the ETF stationarity system has no root: the budget is "
                                   "not active for this Y (rho >= min_c ||log Y + 1c^T||_*)")
        lo = hi / 4.0
        while F(lo) > 0:
            lo /= 4.0
        kappa = brentq(F, lo, hi, xtol=1e-300, rtol=4 * np.finfo(float).eps, maxiter=500)
        res, s = state(kappa)
        inverse = ETFInverse(kappa, s, tuple(a for a, _ in res), tuple(mu for _, mu in res),
                             plan.columns, problem.Y)
        classes = [{"y": y.tolist(), "alpha": a.tolist(), "mu": mu, "count": int(c)}
                   for (a, mu), y, c in zip(res, ys, counts, strict=True)]
        info = {"solver": "brentq", "kappa": kappa, "s": s, "blocks": len(classes),
                "variables": len(classes) * m + 1, "classes": classes}
        return ReducedProblem(None, inverse, info, plan)

    def solve(self, reduced: ReducedProblem, solver: str | None = None,
              solver_options: dict | None = None, score: Any = None) -> Solved:
        """The closed form: nothing left to solve (``solver`` is not used)."""
        return Solved(self.invert(reduced), "brentq", Status.OPTIMAL)

    def invert(self, reduced: ReducedProblem) -> np.ndarray:
        """``Z[:, j] = -kappa (alpha(Y[:, j]) - Y[:, j])`` with its class's mu."""
        inv: ETFInverse = reduced.inverse
        kappa, Y = inv.kappa, inv.Y
        mu = np.empty(Y.shape[1])
        for cols, m_ in zip(inv.columns, inv.mus, strict=True):
            mu[cols] = m_
        A = lambertw_exp(math.log(kappa) + kappa * Y + mu[None, :]) / kappa
        return -kappa * (A - Y)
