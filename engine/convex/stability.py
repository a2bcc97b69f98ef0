"""Approximate symmetry: how far a target Y near a G-invariant Y0 moves the optimum.

For fixed logits, J(Z; Y) - J(Z; Y0) = -<Y - Y0, Z> (columns of both sum to 1), and
|<E, Z>| <= ||E||_2 ||Z||_* <= rho ||E||_2 on the feasible set, so (docs/beyond-symmetry.md,
section 2; the loss is a *sum* over the n columns, not a mean, so no 1/n appears)

    |J*(Y) - J*(Y0)| <= rho ||Y - Y0||_2 <= rho ||Y - Y0||_F,      rho = sqrt(E_W E_H).

With Y0 the group average of Y (orthogonal projection on G-invariant matrices), every
G-invariant Z has <Y, Z> = <Y0, Z>, so the best G-invariant point for Y has loss exactly
J*(Y0), and 0 <= J*(Y0) - J*(Y) <= rho ||Y - Y0||_2.  The loss is strongly convex on centred
logits over the feasible set with constant mu = 1 / (1 + (m - 1) exp(sqrt(2) rho)), so for every
feasible Z, ||C (Z - Z*)||_F^2 <= 2 (J(Z; Y) - J*(Y)) / mu (C = I - J/m).

Examples
--------
>>> from logitgeom.symmetry import cyclic, orbit_targets
>>> T = orbit_targets(cyclic(3), ["1/2", "1/3", "1/6"])
>>> Y = np.array(T.Y, dtype=float); Y[:, 0] = [0.52, 0.31, 0.17]
>>> r = stability_report(Y, 1, 4, T.action)
>>> r.J_Y[0] <= r.J_Y0[1] + r.bound and 0 <= r.gap[1] <= r.bound + 1e-9
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from logitgeom.convex.loss import cross_entropy
from logitgeom.errors import InvalidInput

__all__ = ["StabilityReport", "stability_report", "strong_convexity", "group_average",
           "collapse_reason", "resolve_action", "model_stability", "stability_certificate"]


def strong_convexity(m: int, rho: float) -> float:
    """``1 / (1 + (m - 1) exp(sqrt(2) rho))``: a lower bound on the curvature of J on centred
    logits over the nuclear ball of radius rho (docs/beyond-symmetry.md, section 2.3).

    Examples
    --------
    >>> round(strong_convexity(2, 0.0), 12)
    0.5
    """
    t = math.sqrt(2.0) * rho
    return 0.0 if t > 700 else 1.0 / (1.0 + (m - 1) * math.exp(t))


def group_average(Y: Any, action: Any) -> Any:
    """The mean of Y over each orbit of ``action`` on label-context pairs: exact (Fractions)
    for an object array, float otherwise.

    Examples
    --------
    >>> from logitgeom.symmetry.group import GroupAction
    >>> G = GroupAction([([1, 0], [1, 0])], m=2, n=2)
    >>> group_average(np.array([[0.5, 0.25], [0.5, 0.75]]), G).tolist()
    [[0.625, 0.375], [0.375, 0.625]]
    """
    lab = action.pair_orbit_labels().ravel()
    Y = np.asarray(Y)
    if Y.dtype != object:
        tot = np.bincount(lab, weights=Y.astype(float).ravel())
        return (tot / np.bincount(lab))[lab].reshape(Y.shape)
    tot: dict[int, Fraction] = {}
    cnt: dict[int, int] = {}
    for k, x in zip(lab.tolist(), Y.ravel().tolist(), strict=True):
        tot[k] = tot.get(k, Fraction(0)) + Fraction(x)
        cnt[k] = cnt.get(k, 0) + 1
    out = np.empty(Y.shape, dtype=object)
    out.ravel()[:] = [tot[k] / cnt[k] for k in lab.tolist()]
    return out


def resolve_action(group: Any, Y: np.ndarray, *, Y0: Any = None, tol: float = 1e-6):
    """A group acting on labels and contexts of Y: a :class:`GroupAction` with Y's n columns
    as given; else the label group's action on the columns of Y0 (exact), or of Y with
    entries closer than ``tol`` counted equal.

    Raises
    ------
    InvalidInput
        The group does not permute the columns (of Y0, or of Y to ``tol``).
    """
    from logitgeom.symmetry.constructors import as_group
    from logitgeom.symmetry.group import GroupAction, column_action
    from logitgeom.symmetry.values import tolerant_codes

    m, n = np.shape(Y)
    if isinstance(group, GroupAction) and group.n == n:
        return group
    G = as_group(group, m=m)
    if Y0 is not None:
        return column_action(G, np.asarray(Y0))
    return column_action(G, tolerant_codes(np.asarray(Y, dtype=float), tol),
                         what=f"Y (entries within tol {tol:g} counted equal)")


def collapse_reason(Y: Any, action: Any, tol: float, avg: Any) -> str | None:
    """Why the approximate symmetry found at ``tol`` says nothing about Y, or None: ``tol``
    chains every entry of Y into one tolerance class, the action is the identity (Y0 = Y),
    it moves labels but takes the identity on contexts, or the group average ``avg`` is the
    uniform target while Y is not.

    Examples
    --------
    >>> from logitgeom.symmetry.group import GroupAction
    >>> Y = np.array([[0.6, 0.3], [0.4, 0.7]])
    >>> G = GroupAction([([1, 0], [0, 1])], m=2, n=2)
    >>> collapse_reason(Y, G, 0.5, group_average(Y, G))  # doctest: +ELLIPSIS
    'tol 0.5 chains every entry of Y into one tolerance class ...'
    """
    from logitgeom.symmetry.values import tolerant_codes

    Yf = np.asarray(Y, dtype=float)
    A = np.asarray(avg, dtype=float)
    gens = [(list(map(int, g)), list(map(int, q))) for g, q in action.generators]
    if not any(g != sorted(g) for g, _ in gens):
        return "the group found acts as the identity on the labels (Y0 = Y: no symmetry)"
    if np.array_equal(np.asarray(avg), np.asarray(Y)):
        return None  # Y is G-invariant itself: nothing was approximated
    if len(np.unique(tolerant_codes(Yf, tol))) == 1:
        return (f"tol {tol:g} chains every entry of Y into one tolerance class (every "
                "permutation then looks like a symmetry)")
    if all(q == sorted(q) for _, q in gens):
        return "the action moves labels but takes the identity on contexts"
    if np.allclose(A, A.flat[0], rtol=0, atol=0):
        return "the group average Y0 is the uniform target (every entry equal)"
    return None


def _refuse_collapse(Y: Any, action: Any, tol: float, avg: Any, allow: bool) -> None:
    reason = collapse_reason(Y, action, tol, avg)
    if reason is not None and not allow:
        raise InvalidInput(f"approximate symmetry at tol {tol:g}: {reason}; a smaller --tol, "
                           "an exact --group or --y0 says something about Y (pass "
                           "--allow-collapse / allow_collapse=True to go on anyway)")


@dataclass(frozen=True)
class StabilityReport:
    """Float figures of the approximate-symmetry analysis (certified versions:
    :func:`logitgeom.certify.stability.stability_certificate`).

    ``J_Y`` / ``J_Y0``: (dual bound, loss) of each convex solve; ``bound = rho ||Y - Y0||_2``;
    ``gap``: interval of J*(Y0) - J*(Y) (the loss gap of the best G-invariant point, when Y0
    is the group average; else None); ``mu``: the strong-convexity constant; ``distance``:
    ``sqrt(2 (J(Z0; Y) - lower J*(Y)) / mu) >= ||C (Z0 - Z*)||_F`` for the G-invariant
    point Z0 (Y0's optimum averaged over G).
    """

    delta_spectral: float
    delta_frobenius: float
    rho: float
    bound: float
    J_Y: tuple[float, float]
    J_Y0: tuple[float, float]
    gap: tuple[float, float] | None
    mu: float
    distance: float
    average: bool
    Z0: np.ndarray = field(repr=False)
    Z: np.ndarray = field(repr=False)

    def lines(self) -> list[str]:
        """Human-readable lines (the CLI prints them)."""
        out = [f"approximate symmetry: ||Y - Y0||_2 = {self.delta_spectral:.4g} "
               f"(||.||_F = {self.delta_frobenius:.4g}); |J*(Y) - J*(Y0)| <= rho ||Y - Y0||_2 "
               f"= {self.bound:.4g}",
               f"  J*(Y) in [{self.J_Y[0]:.10g}, {self.J_Y[1]:.10g}],  J*(Y0) in "
               f"[{self.J_Y0[0]:.10g}, {self.J_Y0[1]:.10g}]"]
        if self.gap is not None:
            out.append(f"  best G-invariant point loses J*(Y0) - J*(Y) in [{self.gap[0]:.4g}, "
                       f"{self.gap[1]:.4g}]")
        out.append(f"  optimal logits within ||C (Z0 - Z*)||_F <= {self.distance:.4g} of the "
                   f"G-invariant Z0 (strong convexity mu = {self.mu:.3g})")
        return out

    def as_dict(self) -> dict:
        return {"delta_spectral": self.delta_spectral, "delta_frobenius": self.delta_frobenius,
                "rho": self.rho, "bound": self.bound, "J_Y": list(self.J_Y),
                "J_Y0": list(self.J_Y0), "gap": None if self.gap is None else list(self.gap),
                "mu": self.mu, "distance": None if math.isinf(self.distance) else self.distance,
                "average": self.average}


def stability_report(Y: Any, E_W: Any, E_H: Any, group: Any, *, Y0: Any = None,
                     tol: float = 1e-6, solver: str | None = None,
                     normalize: bool = False, allow_collapse: bool = False) -> StabilityReport:
    """Solve Y and its G-invariant neighbour Y0 and bound what the asymmetry costs.

    Parameters
    ----------
    Y : array_like
        m x n target.
    E_W, E_H : number
        Budgets.
    group : GroupAction, spec or generators
        G; a label group acts on the columns of Y0 (or of Y, entries within ``tol`` equal).
    Y0 : array_like, optional
        A G-invariant target near Y (default: the group average of Y).
    solver : str, optional
        Conic solver.
    allow_collapse : bool
        Go on when the symmetry found at ``tol`` collapses (:func:`collapse_reason`);
        refused by default.

    Returns
    -------
    StabilityReport

    Raises
    ------
    InvalidInput
        Shapes differ, Y0 is not G-invariant, or the symmetry collapses.
    """
    from logitgeom.convex.problem import LayerPeeled

    P1 = LayerPeeled(Y, E_W, E_H, normalize=normalize)
    action = resolve_action(group, P1.Y, Y0=Y0, tol=tol)
    avg = group_average(P1.entries, action)
    if Y0 is None:
        _refuse_collapse(P1.entries, action, tol, avg, allow_collapse)
        P0, average = LayerPeeled(avg, E_W, E_H), True
    else:
        P0 = LayerPeeled(Y0, E_W, E_H)
        if P0.shape != P1.shape:
            raise InvalidInput(f"Y0 has shape {P0.shape}, Y has shape {P1.shape}")
        if not np.array_equal(group_average(P0.entries, action), P0.entries):
            raise InvalidInput("Y0 is not invariant under the group")
        average = bool(np.array_equal(avg, P0.entries))
    s1, s0 = P1.solve(solver=solver), P0.solve(solver=solver)
    D = P1.Y - P0.Y
    d2 = float(np.linalg.norm(D, 2))
    rho = P1.rho
    bound = rho * d2
    Z0 = group_average(s0.Z, action)
    L1, U1, L0, U0 = s1.dual_bound, s1.loss, s0.dual_bound, s0.loss
    gap = (max(0.0, L0 - U1), min(U0 - L1, bound)) if average else None
    mu = strong_convexity(P1.m, rho)
    cross = cross_entropy(Z0, P1.Y)
    dist = math.sqrt(max(0.0, 2.0 * (cross - L1) / mu)) if mu > 0 else math.inf
    return StabilityReport(delta_spectral=d2, delta_frobenius=float(np.linalg.norm(D)), rho=rho,
                           bound=bound, J_Y=(L1, U1), J_Y0=(L0, U0), gap=gap, mu=mu,
                           distance=dist, average=average, Z0=Z0, Z=s1.Z)


def model_stability(P: np.ndarray, W: np.ndarray, H: np.ndarray, group: Any, *,
                    solver: str | None = None) -> StabilityReport:
    """:func:`stability_report` for a model's own contexts: Y = the next-token probabilities
    P (m x m: context j is the one-token context of token j, so G acts on tokens and contexts
    by the same permutation), budgets E_W = ||W||_F^2 and E_H = ||H||_F^2 of the head rows
    (m x d) and the context states (d x m).

    Raises
    ------
    InvalidInput
        P is not square (the contexts are not one per token).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> W, H = rng.standard_normal((3, 4)), rng.standard_normal((4, 3))
    >>> from logitgeom.convex.loss import softmax
    >>> r = model_stability(softmax(W @ H), W, H, "C3")
    >>> r.bound >= 0 and r.average
    True
    """
    from logitgeom.symmetry.constructors import as_group
    from logitgeom.symmetry.group import GroupAction

    P = np.asarray(P, dtype=float)
    m, n = P.shape
    if m != n:
        raise InvalidInput(f"the contexts must be one per token (P is {m} x {n})")
    rows = as_group(group, m=m).row_generators
    action = GroupAction([(g, g) for g in rows], m=m, n=m)
    E_W = float(np.sum(np.asarray(W, dtype=float) ** 2))
    E_H = float(np.sum(np.asarray(H, dtype=float) ** 2))
    return stability_report(P, E_W, E_H, action, solver=solver, normalize=True)


def stability_certificate(Y: Any, E_W: Any, E_H: Any, group: Any, *, Y0: Any = None,
                          tol: float = 1e-6, solver: str | None = None,
                          normalize: bool = False, allow_collapse: bool = False,
                          **kw: Any) -> dict:
    """A ``layer-peeled-stability`` certificate for Y near the G-invariant Y0: solve both,
    then :func:`logitgeom.certify.stability.stability_bracket_certificate` (keywords
    ``precision``, ``provenance``).

    Parameters
    ----------
    Y : array_like
        m x n target with exact probability columns (or ``normalize=True``).
    E_W, E_H : number
        Budgets.
    group : GroupAction, spec or generators
        G (see :func:`resolve_action`).
    Y0 : array_like, optional
        G-invariant target (default: the exact group average of Y; then the gap of the best
        G-invariant point is certified too).
    allow_collapse : bool
        Go on when the symmetry found at ``tol`` collapses (:func:`collapse_reason`);
        refused by default.

    Returns
    -------
    dict
        The certificate (already accepted by the stdlib checker).

    Raises
    ------
    InvalidInput
        Y or Y0 not exact, shapes differ, Y0 not G-invariant.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> from logitgeom.convex.targets import cyclic_orbit
    >>> from logitgeom.symmetry import cyclic
    >>> from logitgeom.symmetry.group import column_action
    >>> Y0 = cyclic_orbit(["1/2", "1/3", "1/6"], exact=True)
    >>> Y = Y0.copy(); Y[:, 0] = [F(13, 25), F(31, 100), F(17, 100)]
    >>> stability_certificate(Y, 1, 4, column_action(cyclic(3), Y0))["average"]
    True
    """
    from logitgeom.certify.stability import stability_bracket_certificate
    from logitgeom.convex.problem import LayerPeeled

    P1 = LayerPeeled(Y, E_W, E_H, normalize=normalize)
    Ye = np.array(_exact(P1), dtype=object)
    action = resolve_action(group, P1.Y, Y0=Y0, tol=tol)
    avg = group_average(Ye, action)
    if Y0 is None:
        _refuse_collapse(Ye, action, tol, avg, allow_collapse)
        P0, average = LayerPeeled(avg, E_W, E_H), True
    else:
        P0 = LayerPeeled(Y0, E_W, E_H)
        if P0.shape != P1.shape:
            raise InvalidInput(f"Y0 has shape {P0.shape}, Y has shape {P1.shape}")
        Y0e = np.array(_exact(P0), dtype=object)
        if not np.array_equal(group_average(Y0e, action), Y0e):
            raise InvalidInput("Y0 is not invariant under the group")
        average = bool(np.array_equal(avg, Y0e))
    return stability_bracket_certificate(P1, P0, P1.solve(solver=solver).Z,
                                         P0.solve(solver=solver).Z, action, average, **kw)


def _exact(problem: Any) -> list[list[Fraction]]:
    """Y's exact rows; every column must sum to exactly 1 (a certificate needs it)."""
    rows = problem.exact_entries()
    for j, col in enumerate(zip(*rows, strict=True)):
        if sum(col) != 1:
            raise InvalidInput(f"Y column {j} sums to {float(sum(col))!r}, not exactly 1: a "
                               "certificate needs exact probability columns (give Y as "
                               "rationals, or normalize=True / --normalize)")
    return rows
