"""The geometry the symmetry theorems predict, and how far a solution is from it.

* 2-homogeneous orbit targets (docs/symmetry-reduction.md, active budget): ``W W^T = E_W/(m-1) (I -
  J/m)`` exactly (a simplex ETF; a sympy matrix of rationals when E_W is rational),
  ``softmax(Z*)`` columns ``alpha(y_j)`` from the stationarity system, ``Z* = -kappa (A - Y)``.
* cyclic targets: ``Z*``, ``W W^T`` and ``H^T H`` are invariant under the cyclic
  shift; ``W W^T`` is a symmetric circulant, given symbolically by its first column
  ``c_0, ..., c_{floor(m/2)}``, numerically by the shift-average of the solved Gram.
* anything else: the Gram identity ``W W^T = sqrt(E_W/E_H) (Z Z^T)^(1/2)``.

Deviations are relative Frobenius distances ``||X - X_pred||_F / ||X||_F``.

Examples
--------
>>> import numpy as np
>>> from logitgeom.convex.problem import LayerPeeled
>>> from logitgeom.convex.targets import group_orbit
>>> from logitgeom.symmetry import symmetric
>>> sol = LayerPeeled(group_orbit([0.5, 0.3, 0.2], symmetric(3)), 2, 1).solve()
>>> g = predicted_geometry(sol)
>>> g.kind, g.WWt_exact[0, 0], g.WWt_exact[0, 1], g.deviation["WWt"] < 1e-9
('etf', 2/3, -1/3, True)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy

from logitgeom.convex.recovery import gram_matrices
from logitgeom.convex.reductions._structure import shift
from logitgeom.convex.reductions.circulant import CirculantPlan, cyclic_classes
from logitgeom.convex.reductions.etf import ETFPlan, ETFReduction
from logitgeom.errors import InvalidInput
from logitgeom.exact.numbers import to_fraction

__all__ = ["PredictedGeometry", "predicted_geometry", "etf_gram_exact", "circulant_form"]


@dataclass(frozen=True)
class PredictedGeometry:
    """Predicted structure (``kind``), exact/symbolic forms, numeric predictions, deviations.

    Attributes
    ----------
    kind : str
        "etf", "circulant", "inactive" or "general".
    WWt_exact, WWt_form, WWt, HtH, Z : optional
        The predicted matrices (exact where the theorem gives them) and their form.
    deviation : dict
        Relative deviation of the solution from each prediction.
    details : dict
        What the prediction used (classes, group, parameters).
    """

    kind: str
    WWt_exact: sympy.Matrix | None
    WWt_form: sympy.Matrix | None
    WWt: np.ndarray
    HtH: np.ndarray | None
    Z: np.ndarray
    deviation: dict[str, float]
    details: dict[str, Any] = field(default_factory=dict)


def etf_gram_exact(m: int, E_W: Any) -> sympy.Matrix:
    """``E_W/(m-1) (I - J/m)`` as an exact sympy matrix.

    Examples
    --------
    >>> etf_gram_exact(3, 3).tolist()
    [[1, -1/2, -1/2], [-1/2, 1, -1/2], [-1/2, -1/2, 1]]
    """
    q = to_fraction(E_W, what="E_W")
    e = sympy.Rational(q.numerator, q.denominator)
    return e / (m - 1) * (sympy.eye(m) - sympy.ones(m, m) / m)


def circulant_form(m: int, name: str = "c") -> sympy.Matrix:
    """The symmetric circulant with first column ``(c_0, c_1, ..., c_1)`` (c_k = c_{m-k}).

    Examples
    --------
    >>> circulant_form(3)
    Matrix([
    [c0, c1, c1],
    [c1, c0, c1],
    [c1, c1, c0]])
    """
    c = sympy.symbols(f"{name}0:{m // 2 + 1}")
    return sympy.Matrix(m, m, lambda i, j: c[min((i - j) % m, (j - i) % m)])


#: above this many columns the n x n Gram H^T H is neither predicted nor compared
MAX_N_GRAM = 2000


def _gram_devs(solution: Any, G_W: np.ndarray, G_H: np.ndarray | None) -> dict[str, float]:
    dev = {"WWt": _rel(solution.WWt, G_W)}
    if G_H is not None:
        dev["HtH"] = _rel(solution.HtH, G_H)
    return dev


def _rel(X: np.ndarray, P: np.ndarray) -> float:
    nx = float(np.linalg.norm(X))
    return float(np.linalg.norm(X - P)) / nx if nx > 0 else float(np.linalg.norm(P))


def _column_shift_perm(keys: list[tuple]) -> np.ndarray:
    """perm q with column q[j] = P (column j) (a column permutation realising the shift)."""
    where: dict[tuple, list[int]] = {}
    for j, k in enumerate(keys):
        where.setdefault(k, []).append(j)
    used: dict[tuple, int] = {}
    q = np.empty(len(keys), dtype=int)
    for j, k in enumerate(keys):
        img = shift(k, 1)
        t = used.get(img, 0)
        q[j] = where[img][t]
        used[img] = t + 1
    return q


def predicted_geometry(solution: Any, **options: Any) -> PredictedGeometry:
    """Compare a :class:`LayerPeeledSolution` with what the theorems predict for its Y.

    Parameters
    ----------
    solution : LayerPeeledSolution
    **options
        ``group=`` for a 2-homogeneous group other than S_m (as for ``method="etf"``).
        Without options, the solve's own reduction result is reused (the ETF closed form,
        the cyclic classes) instead of being recomputed.

    Returns
    -------
    PredictedGeometry
        ``kind`` is "etf", "circulant", "inactive" (budget not active: the theorems do not
        apply; the Gram identity is still compared) or "general".

    Raises
    ------
    InvalidInput
        ``solution`` is not a solution of :class:`~logitgeom.convex.LayerPeeled` (with its
        problem), or an option is not understood.
    """
    from logitgeom.convex.solution import LayerPeeledSolution

    if not isinstance(solution, LayerPeeledSolution) or solution.problem is None:
        raise InvalidInput("predicted_geometry needs a LayerPeeledSolution (the result of "
                           f"LayerPeeled(...).solve()); got {type(solution).__name__}")
    P = solution.problem
    Z, Y = solution.Z, P.Y
    m = P.m
    big = Z.shape[1] > MAX_N_GRAM
    if big:  # only the m x m Gram: (Z Z^T)^(1/2) from the eigen-decomposition of Z Z^T
        ev, U = np.linalg.eigh(Z @ Z.T)
        G_W = np.sqrt(P.E_W / P.E_H) * (U * np.sqrt(np.clip(ev, 0, None))) @ U.T
        G_H = None
    else:
        G_W, G_H = gram_matrices(Z, P.E_W, P.E_H)
    dev = {}
    if not solution.budget_active:
        dev = _gram_devs(solution, G_W, G_H)
        return PredictedGeometry("inactive", None, None, G_W, G_H, Z, dev,
                                 {"note": "budget inactive: Z* = centred log Y"})
    etf = ETFReduction()
    red = solution.reduction
    if not (isinstance(getattr(red, "plan", None), ETFPlan) and not options):
        verdict = etf.accepts(P, **options) if m >= 2 else None
        red = etf.apply(P, verdict) if verdict else None
    if red is not None:  # the solve's own closed form is reused when it was the ETF one
        Zp = etf.invert(red)
        exact = etf_gram_exact(m, P.E_W_exact)
        Wp = np.array(exact.evalf(17).tolist(), dtype=float)
        A = solution.probabilities
        D = A - Y
        kappa_sol = -float(np.sum(Z * D)) / float(np.sum(D * D))
        with np.errstate(divide="ignore"):
            L = np.log(A)
        resid = L + kappa_sol * D - L.mean(axis=0, keepdims=True)
        dev = {"WWt": _rel(solution.WWt, Wp), "Z": _rel(Z, Zp),
               "probabilities": _rel(A, np.exp(Zp) / np.exp(Zp).sum(axis=0))}
        details = {"kappa": red.info["kappa"], "kappa_from_solution": kappa_sol,
                   "stationarity_residual": float(np.max(np.abs(resid))),
                   "classes": red.info["classes"]}
        return PredictedGeometry("etf", exact, exact, Wp, G_H, Zp, dev, details)
    plan = getattr(solution.reduction, "plan", None)
    if isinstance(plan, CirculantPlan):
        n_blocks = len(plan.classes)  # the circulant solve found the classes already
    else:
        classes = cyclic_classes(P.column_keys())[0]
        n_blocks = None if classes is None else len(classes)
    if n_blocks is not None and m >= 2 and not big:
        q = _column_shift_perm(P.column_keys())
        Zp = np.zeros_like(Z)
        Hp = np.zeros_like(solution.HtH)
        Wp = np.zeros_like(solution.WWt)
        perm = np.arange(Z.shape[1])
        for s in range(m):
            # (P^s Z Q_s^T): row shift by s, column j -> perm[j]
            Zp[:, perm] += np.roll(Z, s, axis=0)
            Hp[np.ix_(perm, perm)] += solution.HtH
            Wp += np.roll(np.roll(solution.WWt, s, axis=0), s, axis=1)
            perm = q[perm]
        Zp, Hp, Wp = Zp / m, Hp / m, Wp / m
        dev = {"WWt": _rel(solution.WWt, Wp), "HtH": _rel(solution.HtH, Hp), "Z": _rel(Z, Zp)}
        first = Wp[:, 0]
        return PredictedGeometry("circulant", None, circulant_form(m), Wp, Hp, Zp, dev,
                                 {"first_column": first.tolist(), "blocks": n_blocks})
    dev = _gram_devs(solution, G_W, G_H)
    return PredictedGeometry("general", None, None, G_W, G_H, Z, dev, {})
