"""2-transitive orbit targets: the scalar stationarity system (docs/layer-peeled.md, section 4).

Applies when the multiset of columns of Y is invariant under a 2-transitive group G of
label permutations (default: the symmetric group S_m; ``group=`` gives another, as
generators or the full element list, or a sympy ``PermutationGroup``).  Then
``Z* = -kappa (alpha(y_j) - y_j)`` column by column, where for each column class
(columns sharing one multiset of entries) ``alpha = f(y)`` is entrywise,

    log alpha_r + kappa (alpha_r - y_r) = mu,   sum_r alpha_r = 1,

i.e. ``alpha_r = W(kappa exp(kappa y_r + mu)) / kappa`` (Lambert W), and kappa solves
``(m - 1) kappa s(kappa) = rho`` with ``s^2 = sum_j ||alpha(y_j) - y_j||^2 / (m - 1)``
over all columns.  (``mu`` equals the mean of ``log alpha``: average the equations.)
Two nested 1-D root finds (Brent, full double precision); no conic solver.

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
from typing import Any

import numpy as np
from scipy.optimize import brentq
from scipy.special import lambertw

from engine.convex.reductions._structure import invariant_codes, pair_transitive
from engine.convex.reductions.base import Acceptance, ReducedProblem, Reduction
from engine.errors import InvalidInput, SolverFailed

__all__ = ["ETFReduction", "group_generators", "lambertw_exp", "alpha_of"]


def group_generators(group: Any, m: int) -> list[tuple[int, ...]]:
    """Permutations (tuples of images) generating ``group``; None means S_m.

    Parameters
    ----------
    group : None, GroupAction, sympy PermutationGroup, or sequence of permutations
        A permutation is a sequence ``g`` with ``g[i]`` the image of label i.
    m : int
        Number of labels.

    Raises
    ------
    InvalidInput
        A permutation of the wrong length or not a bijection of ``range(m)``.

    Examples
    --------
    >>> group_generators(None, 3)
    [(1, 0, 2), (1, 2, 0)]
    """
    if group is None:
        if m < 2:
            return []
        return [(1, 0, *range(2, m)), (*range(1, m), 0)]
    if hasattr(group, "row_generators") and hasattr(group, "m"):  # engine.symmetry.GroupAction
        if group.m != m:
            raise InvalidInput(f"group acts on {group.m} labels but Y has m = {m} rows")
        perms = [tuple(int(x) for x in g) for g in group.row_generators]
    elif hasattr(group, "generators") and hasattr(group, "degree"):
        if group.degree != m:
            raise InvalidInput(f"group acts on {group.degree} points but Y has m = {m} rows")
        perms = [tuple(int(x) for x in g.array_form) for g in group.generators]
    else:
        try:
            perms = [tuple(int(x) for x in g) for g in group]
        except (TypeError, ValueError) as exc:
            raise InvalidInput("group must be a sympy PermutationGroup or a list of "
                               "permutations (sequences of label images)") from exc
    for k, g in enumerate(perms):
        if sorted(g) != list(range(m)):
            raise InvalidInput(f"group element {k} = {list(g)} is not a permutation of "
                               f"0..{m - 1} (Y has m = {m} rows)")
    return sorted(set(perms))


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


class ETFReduction(Reduction):
    """2-transitive orbit targets -> two nested scalar root finds (module docstring)."""

    name = "etf"

    def accepts(self, problem: Any, group: Any = None, **options: Any) -> Acceptance:
        """Whether Y's column multiset is invariant under a 2-transitive ``group`` (S_m)."""
        m = problem.m
        gens = group_generators(group, m)
        if not pair_transitive(gens, m):
            return Acceptance(False, "the given group is not 2-transitive on the labels")
        ok, reason = invariant_codes(problem.codes, gens)
        if not ok:
            which = "S_m" if group is None else "the given group"
            return Acceptance(False, f"Y is not a union of orbits of {which}: {reason}")
        return Acceptance(True)

    def apply(self, problem: Any, group: Any = None, **options: Any) -> ReducedProblem:
        """Solve the stationarity system (no conic program: ``problem`` is None)."""
        m, rho = problem.m, problem.rho
        ys, counts, cols = _classes(problem)
        if m < 2:
            raise SolverFailed("m = 1: every logit matrix gives the same loss")

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
        classes = [{"y": y.tolist(), "alpha": a.tolist(), "mu": mu, "count": int(c),
                    "columns": cl} for (a, mu), y, c, cl in zip(res, ys, counts, cols,
                                                                 strict=True)]
        info = {"solver": "brentq", "kappa": kappa, "s": s, "blocks": len(classes),
                "variables": len(classes) * m + 1}
        return ReducedProblem(None, {"kappa": kappa, "classes": classes, "Y": problem.Y},
                              info | {"classes": [{k: v for k, v in c.items() if k != "columns"}
                                                  for c in classes]})

    def invert(self, reduced: ReducedProblem) -> np.ndarray:
        """``Z[:, j] = -kappa (alpha(Y[:, j]) - Y[:, j])`` with its class's mu."""
        kappa = reduced.inverse_data["kappa"]
        Y = reduced.inverse_data["Y"]
        mu = np.empty(Y.shape[1])
        for c in reduced.inverse_data["classes"]:
            mu[c["columns"]] = c["mu"]
        A = lambertw_exp(math.log(kappa) + kappa * Y + mu[None, :]) / kappa
        return -kappa * (A - Y)


