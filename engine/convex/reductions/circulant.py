"""The DFT program for cyclic targets (docs/layer-peeled.md, section 3; Thms 1 and 5 of the
symmetry paper).

Applies when the multiset of columns of Y is invariant under the cyclic shift
``(P y)_i = y_{i-1 mod m}``, i.e. Y is, up to a column permutation, a union of cyclic
orbits ``[y, P y, ..., P^{m-1} y]`` (several blocks, repeats and periodic y allowed).
One variable ``z_i`` per orbit class; with ``w_i = c_i p_i / m`` (c_i copies of the
p_i distinct rotations) the program is

    min sum_i w_i m CE(z_i; y_i)  s.t.  sum_k ||(sqrt(w_i) zhat_{i,k})_i||_2 <= rho,
    1^T z_i = 0,

one second-order cone per frequency pair (k, m - k); ``invert`` puts ``P^j z_i`` in
every column equal to ``P^j y_i``.

Examples
--------
>>> import numpy as np
>>> from logitgeom.convex.problem import LayerPeeled
>>> from logitgeom.convex.targets import cyclic_orbit
>>> Y = cyclic_orbit([0.5, 0.3, 0.2, 0.0])
>>> sol = LayerPeeled(Y, 1.0, 1.0).solve("circulant")
>>> sol.method, bool(np.allclose(sol.Z[:, 1], np.roll(sol.Z[:, 0], 1), atol=1e-7))
('circulant', True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cvxpy as cp
import numpy as np

from logitgeom.convex.loss import cross_entropy_expr
from logitgeom.convex.reductions._structure import column_counts, invariant_codes, shift
from logitgeom.convex.reductions.base import Acceptance, Plan, ReducedProblem, Reduction

__all__ = ["CirculantInverse", "CirculantPlan", "CirculantReduction", "CyclicClass",
           "cyclic_classes", "dft_rows"]


def cyclic_classes(keys: list[tuple]) -> tuple[list[dict] | None, str]:
    """Split columns into cyclic orbit classes, or say why the multiset is not cyclic.

    Returns
    -------
    (classes, reason)
        ``classes[i]`` has ``key`` (the representative y_i: the first column of its
        class), ``period`` p, ``copies`` c, ``columns`` (column indices) and ``shifts``
        (for each of those columns the j with column = P^j y_i).  None when not cyclic.

    Examples
    --------
    >>> cls, _ = cyclic_classes([(1, 0), (0, 1), (1, 0), (0, 1)])
    >>> [(c["period"], c["copies"]) for c in cls]
    [(2, 2)]
    >>> cyclic_classes([(1, 0, 0), (0, 1, 0)])[1]
    'the column [0, 0, 1] (a cyclic shift of column 0) appears 0 time(s) but column 0 appears 1'
    """
    counts = column_counts(keys)
    first: dict[tuple, int] = {}
    for j, k in enumerate(keys):
        first.setdefault(k, j)
    owner: dict[tuple, tuple[int, int]] = {}
    classes: list[dict] = []
    for j, k in enumerate(keys):
        if k in owner:
            continue
        m = len(k)
        rots = [k]
        for s in range(1, m):
            r = shift(k, s)
            if r == k:
                break
            rots.append(r)
        c = counts[k]
        for s, r in enumerate(rots):
            if counts.get(r, 0) != c:
                return None, (f"the column {_show(r)} (a cyclic shift of column {j}) appears "
                              f"{counts.get(r, 0)} time(s) but column {j} appears {c}")
            owner[r] = (len(classes), s)
        classes.append({"key": k, "period": len(rots), "copies": c, "columns": [],
                        "shifts": []})
    for j, k in enumerate(keys):
        i, s = owner[k]
        classes[i]["columns"].append(j)
        classes[i]["shifts"].append(s)
    return classes, ""


def dft_rows(m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cos and sin rows of the frequencies k = 1..floor(m/2), and their multiplicities.

    ``|zhat_k| = ||(C[k] . z, S[k] . z)||``; frequency k stands for k and m - k (weight 2)
    except k = m/2 (weight 1).

    Examples
    --------
    >>> C, S, mult = dft_rows(4)
    >>> C.shape, mult.tolist()
    ((2, 4), [2.0, 1.0])
    """
    ks = np.arange(1, m // 2 + 1)
    ang = 2 * np.pi * np.outer(ks, np.arange(m)) / m
    mult = np.where(2 * ks == m, 1.0, 2.0)
    return np.cos(ang), np.sin(ang), mult


@dataclass(frozen=True)
class CyclicClass:
    """One cyclic orbit class: representative column, period, copies, and for each of its
    columns the shift j with column = P^j y."""

    representative: int
    period: int
    copies: int
    columns: tuple[int, ...]
    shifts: tuple[int, ...]


@dataclass(frozen=True)
class CirculantPlan(Plan):
    """What :meth:`CirculantReduction.accepts` found: the cyclic orbit classes of Y (the
    optimum's ``W W^T`` is then circulant: claim "circulant")."""

    classes: tuple[CyclicClass, ...]

    @property
    def claims(self) -> tuple[str, ...]:
        return ("circulant",)


@dataclass(frozen=True)
class CirculantInverse:
    """The variable holding one m-vector per class, the classes, and the full shape."""

    Z: cp.Variable
    classes: tuple[CyclicClass, ...]
    shape: tuple[int, int]


def _plan(keys: list[tuple]) -> tuple[CirculantPlan | None, str]:
    classes, reason = cyclic_classes(keys)
    if classes is None:
        return None, reason
    out = tuple(CyclicClass(c["columns"][c["shifts"].index(0)], c["period"], c["copies"],
                            tuple(c["columns"]), tuple(c["shifts"])) for c in classes)
    return CirculantPlan(out), ""


class CirculantReduction(Reduction):
    """Cyclic orbit targets -> one m-vector per orbit class, one SOC per frequency pair."""

    name = "circulant"

    def accepts(self, problem: Any, **options: Any) -> Acceptance:
        """Whether the column multiset of Y is invariant under the cyclic label shift; the
        plan holds its orbit classes."""
        m = problem.m
        ok, _ = invariant_codes(problem.codes, [tuple((i + 1) % m for i in range(m))])
        if not ok:
            _, reason = cyclic_classes(problem.column_keys())
            return Acceptance(False, "Y is not a union of cyclic orbits "
                                     f"(even after permuting columns): {reason}")
        plan, reason = _plan(problem.column_keys())
        return Acceptance(True, plan=plan)

    def refine(self, problem: Any, acceptance: Acceptance) -> tuple[Reduction, Acceptance] | None:
        """The ETF closed form when the group detected on Y (a search, under
        :data:`~logitgeom.convex.reductions.orbit.DETECT_MAX_ENTRIES` entries) is
        2-homogeneous: AGL(1, p) and M11 targets are cyclic too."""
        from logitgeom.convex.reductions.orbit import DETECT_MAX_ENTRIES, OrbitReduction

        if problem.m * problem.n > DETECT_MAX_ENTRIES:
            return None
        orbit = OrbitReduction()
        verdict = orbit.accepts(problem, blocks="none")
        return orbit.refine(problem, verdict) if verdict else None

    def apply(self, problem: Any, acceptance: Acceptance, **options: Any) -> ReducedProblem:
        """Build the DFT program (module docstring) from the planned classes."""
        classes = acceptance.plan.classes
        m = problem.m
        b = len(classes)
        Yb = np.stack([problem.Y[:, c.representative] for c in classes], 1)
        w = np.array([c.copies * c.period / m for c in classes])
        Zb = cp.Variable((m, b))
        obj = cross_entropy_expr(Zb, Yb, weights=m * w)
        cons = [cp.sum(Zb, axis=0) == 0]
        if m >= 2:
            C, S, mult = dft_rows(m)
            sw = np.sqrt(w)
            M = cp.hstack([C @ Zb @ np.diag(sw), S @ Zb @ np.diag(sw)])
            cons.append(mult @ cp.norm(M, 2, axis=1) <= problem.rho)
        prob = cp.Problem(cp.Minimize(obj), cons)
        return ReducedProblem(prob, CirculantInverse(Zb, classes, problem.shape),
                              {"blocks": b, "weights": w.tolist(), "variables": m * b},
                              acceptance.plan)

    def invert(self, reduced: ReducedProblem) -> np.ndarray:
        """Full-size Z: ``P^j z_i`` in each column equal to ``P^j y_i``."""
        inv: CirculantInverse = reduced.inverse
        Zb = np.asarray(inv.Z.value, dtype=float)
        Z = np.empty(inv.shape)
        for i, c in enumerate(inv.classes):
            for col, s in zip(c.columns, c.shifts, strict=True):
                Z[:, col] = np.roll(Zb[:, i], s)
        return Z


def _show(key: tuple) -> str:
    return "[" + ", ".join(str(x) for x in key) + "]"
