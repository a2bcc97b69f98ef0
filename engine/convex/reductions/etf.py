"""2-homogeneous orbit targets: the scalar stationarity system (docs/symmetry-reduction.md).

Applies when the multiset of columns of Y is invariant under a group G of label
permutations that is transitive on *unordered* pairs of labels (2-homogeneous; every
2-transitive group is, and so is F21 on 7 points, which is not 2-transitive).  The
default G is the symmetric group S_m; ``group=`` gives another in any spelling of
:func:`logitgeom.symmetry.as_group`.  Then the symmetric matrices commuting with G are
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
>>> from logitgeom.convex.problem import LayerPeeled
>>> from logitgeom.convex.targets import group_orbit
>>> from logitgeom.symmetry import symmetric
>>> Y = group_orbit([0.6, 0.3, 0.1], symmetric(3))
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

from logitgeom.convex.reductions._structure import invariant_codes, pair_homogeneous
from logitgeom.convex.reductions.base import (
    Acceptance,
    Plan,
    ReducedProblem,
    Reduction,
    Solved,
    Status,
)
from logitgeom.errors import InvalidInput, SolverFailed
from logitgeom.symmetry.group import GroupAction

__all__ = ["ETFInverse", "ETFPlan", "ETFReduction", "alpha_of", "etf_with_group",
           "group_generators", "lambertw_exp", "residual_of"]


def group_generators(group: Any, m: int) -> list[tuple[int, ...]]:
    """Label permutations generating ``group`` (any :func:`logitgeom.symmetry.as_group`
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
    from logitgeom.symmetry.constructors import as_group

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


def residual_of(Y: np.ndarray, log_kappa: float, mu: np.ndarray | float) -> np.ndarray:
    """``u = kappa (alpha - y)`` entrywise, where ``log alpha + kappa (alpha - y) = mu``.

    ``u`` solves ``u + log(y + u / kappa) = mu``: for moderate ``kappa y`` through Lambert W
    (``kappa alpha = W(kappa exp(kappa y + mu))``), and where ``kappa y`` is large (one-hot
    targets at large budgets need kappa ~ 1e30, where ``alpha = 1 - tiny`` cancels in
    float) by Newton's method on ``u + log y + log1p(u / (kappa y)) = mu`` from
    ``u = mu - log y``.  ``u`` stays of order ``log kappa`` while alpha - y underflows.

    Examples
    --------
    >>> u = residual_of(np.array([1.0, 0.0]), 70.0, -10.0)  # kappa = e^70
    >>> round(float(u[0]), 9), bool(abs(u[1] + np.log(u[1]) - 60.0) < 1e-12)
    (-10.0, True)
    """
    Y = np.asarray(Y, dtype=float)
    mu = np.broadcast_to(np.asarray(mu, dtype=float), Y.shape[-1:] if Y.ndim == 2 else ())
    kappa = math.exp(log_kappa)
    ky = kappa * Y
    big = ky > 1e6
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        u = np.where(big, 0.0, lambertw_exp(np.where(big, 0.0, log_kappa + ky + mu)) - ky)
        if np.any(big):
            yb = np.where(big, Y, 1.0)
            kyb = np.where(big, ky, 1.0)
            ly = np.log(yb)
            mub = mu + np.zeros_like(Y)
            ub = mub - ly
            for _ in range(60):
                g = ub + ly + np.log1p(ub / kyb) - mub
                step = g / (1.0 + 1.0 / (kyb + ub))
                ub = ub - step
                if float(np.max(np.abs(step), initial=0.0)) <= 1e-15 * (
                        1.0 + float(np.max(np.abs(ub), initial=0.0))):
                    break
            u = np.where(big, ub, u)
    return u


def alpha_of(y: np.ndarray, kappa: float) -> tuple[np.ndarray, float]:
    """The ``alpha`` (and ``mu``) of one column class at a given kappa > 0.

    Examples
    --------
    >>> a, mu = alpha_of(np.array([0.7, 0.2, 0.1]), 3.0)
    >>> round(float(a.sum()), 12), bool(np.allclose(np.log(a) + 3.0 * (a - [0.7, 0.2, 0.1]), mu))
    (1.0, True)
    """
    u, mu = _class_residual(np.asarray(y, dtype=float), math.log(kappa))
    return y + u / kappa, mu


def _class_residual(y: np.ndarray, log_kappa: float) -> tuple[np.ndarray, float]:
    """(u, mu) of one column class: ``sum_r u_r = 0`` fixes mu (alpha sums to 1)."""

    def excess(mu: float) -> float:
        return float(residual_of(y, log_kappa, mu).sum())

    lo, hi = -1.0, 1.0
    while excess(lo) > 0:
        lo -= 1.0 + abs(lo)
    while excess(hi) < 0:
        hi += 1.0 + abs(hi)
    mu = brentq(excess, lo, hi, xtol=1e-300, rtol=4 * np.finfo(float).eps, maxiter=500)
    return residual_of(y, log_kappa, mu), mu


def _classes(problem: Any) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    """Column classes by multiset of entries: representative (sorted) y, counts, columns."""
    T = getattr(problem, "orbit_target", None)
    if T is not None and getattr(problem, "_Y", None) is None:
        # an orbit target: block b's columns are permutations of base b (no n-sized sort)
        N = T.action.order
        reps: dict[tuple, list[int]] = {}
        for b, v in enumerate(T.base):
            reps.setdefault(tuple(sorted(v)), []).append(b)
        ys = np.array([[float(x) for x in key] for key in reps], dtype=float)
        counts = np.array([N * len(bs) for bs in reps.values()], dtype=float)
        cols = [np.concatenate([np.arange(b * N, (b + 1) * N) for b in bs])
                for bs in reps.values()]
        return ys, counts, cols
    keys = np.sort(problem.codes, axis=0)
    _, first, inverse, counts = np.unique(keys, axis=1, return_index=True,
                                          return_inverse=True, return_counts=True)
    inverse = np.asarray(inverse).reshape(-1)
    order = np.argsort(first, kind="stable")  # classes in order of first appearance
    ys = np.sort(problem.Y[:, first[order]], axis=0).T
    cols = [np.flatnonzero(inverse == k) for k in order]
    return ys, counts[order].astype(float), cols


@dataclass(frozen=True, eq=False)
class ETFPlan(Plan):
    """What :meth:`ETFReduction.accepts` found: the group's generators (on labels), whether
    it was the default S_m, and the column classes (sorted representative y, count,
    columns).  The closed-form Z is an entrywise function of each column, so it keeps every
    group preserving Y; the optimum's ``W W^T`` is a simplex ETF (claim "simplex-etf")."""

    generators: tuple[tuple[int, ...], ...]
    default_group: bool
    ys: np.ndarray
    counts: np.ndarray
    columns: tuple[np.ndarray, ...]

    @property
    def label_generators(self) -> tuple[tuple[int, ...], ...] | None:
        return self.generators

    @property
    def keeps_target_group(self) -> bool:
        return True

    @property
    def claims(self) -> tuple[str, ...]:
        return ("simplex-etf",)


@dataclass(frozen=True, eq=False)
class ETFInverse:
    """The closed-form solution's parameters: kappa and per class (alpha, mu, columns)."""

    kappa: float
    s: float
    alphas: tuple[np.ndarray, ...]
    mus: tuple[float, ...]
    columns: tuple[np.ndarray, ...]
    Y: np.ndarray | None
    #: log kappa (kappa itself may be ~1e30 and more for near one-hot targets)
    log_kappa: float = 0.0
    #: the OrbitTargets Y came as (then Y is None and Z is built from the base columns)
    orbit_target: Any = None


def etf_with_group(problem: Any, generators: Any) -> tuple[ETFReduction, Acceptance] | None:
    """The ETF reduction and its acceptance with the label group ``generators`` (found
    exactly on Y by another reduction), or None when it does not apply (the group is not
    2-homogeneous).

    Examples
    --------
    >>> from logitgeom.convex.problem import LayerPeeled
    >>> from logitgeom.symmetry import affine_line, orbit_targets
    >>> T = orbit_targets(affine_line(5), ["1/2", "1/4", "1/8", "1/8", "0"])
    >>> etf_with_group(LayerPeeled(T.Y, 1, 1), affine_line(5).row_generators)[0].name
    'etf'
    """
    red = ETFReduction()
    verdict = red.accepts(problem, group=GroupAction(list(generators), m=problem.m))
    return (red, verdict) if verdict else None


def _orbit_only(problem: Any) -> bool:
    """Whether Y is an OrbitTargets whose float matrix was never built (Z then comes from
    the base columns: S_10's 290 MB Y is not needed)."""
    return getattr(problem, "orbit_target", None) is not None and \
        getattr(problem, "_Y", None) is None


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
        sym = getattr(problem, "symmetry", None)
        if not ok and group is None and sym is not None:
            # an OrbitTargets brings its group (e.g. AGL(1, 5)): use it when 2-homogeneous
            own = group_generators(GroupAction(sym.row_generators, m=m), m)
            if pair_homogeneous(own, m):
                gens, group = own, sym
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

        def state(lk: float):  # in log kappa: one-hot targets at rho = 100 need kappa ~ 1e30
            res = [_class_residual(y, lk) for y in ys]
            s2 = sum(c * float(np.sum(u ** 2)) for (u, _), c in zip(res, counts, strict=True))
            return res, math.sqrt(s2 / (m - 1))  # = kappa s, s^2 = sum ||alpha - y||^2/(m-1)

        def F(lk: float) -> float:
            return (m - 1) * state(lk)[1] - rho

        hi = 0.0
        while F(hi) < 0:
            hi += 2.0
            if hi > 700.0:  # kappa > 1e304: ||Z*||_* cannot reach rho
                raise SolverFailed("the ETF stationarity system has no root below kappa = "
                                   "1e304, the float range (a near one-hot target at a large "
                                   "budget); method 'full' solves it (auto falls back to it)")
        lo = hi - 2.0
        while F(lo) > 0:
            lo -= 2.0
        lk = brentq(F, lo, hi, xtol=1e-14, rtol=4 * np.finfo(float).eps, maxiter=500)
        res, ks = state(lk)
        kappa = math.exp(lk)
        s = ks / kappa
        inverse = ETFInverse(kappa, s, tuple(y + u / kappa for (u, _), y in
                                             zip(res, ys, strict=True)),
                             tuple(mu for _, mu in res), plan.columns,
                             None if _orbit_only(problem) else problem.Y, lk,
                             problem.orbit_target if _orbit_only(problem) else None)
        classes = [{"y": y.tolist(), "alpha": a.tolist(), "mu": mu, "count": int(c)}
                   for a, mu, y, c in zip(inverse.alphas, inverse.mus, ys, counts,
                                          strict=True)]
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
        if inv.orbit_target is not None:  # Z = [P_g z_b]: the residual of the bases only
            from logitgeom.symmetry.constructors import orbit_matrix

            T = inv.orbit_target
            N = T.action.order
            yb = T.base_floats()
            mub = np.empty(yb.shape[1])
            for b in range(yb.shape[1]):
                k = next(k for k, c in enumerate(inv.columns)
                         if np.searchsorted(c, b * N) < len(c)
                         and c[np.searchsorted(c, b * N)] == b * N)
                mub[b] = inv.mus[k]
            zb = -residual_of(yb, inv.log_kappa, mub)
            return orbit_matrix(T.action.row_elements(), np.ascontiguousarray(zb.T),
                                 T.action.inverse_elements())
        Y = inv.Y
        mu = np.empty(Y.shape[1])
        for cols, m_ in zip(inv.columns, inv.mus, strict=True):
            mu[cols] = m_
        return -residual_of(Y, inv.log_kappa, mu)
