"""Minority collapse, certified point by point (docs/layer-peeled-family.md, section 5).

For Fang, He, Long and Su's imbalanced model (:func:`logitgeom.convex.family.minority_program`)
at one imbalance ratio R, :func:`minority_point` solves the plain program and the program
restricted to equal minority classifiers, certifies both, and proves one of

* ``"separated"``: a ``minority-separation`` theorem (no optimum has equal minority
  classifiers: the restricted lower bound exceeds the plain upper bound);
* ``"collapsed"``: a ``minority-collapse`` theorem (some optimum has exactly equal minority
  classifiers), and a plain bracket whose own point has them equal (``equal-rows``);
* ``"undecided"``: neither inequality holds at the achieved widths (near the threshold).

:func:`collapse_threshold` bisects (geometrically) between a separated and a collapsed
ratio, every step certified, so the threshold R* is bracketed by two proven verdicts.

Examples
--------
>>> p = minority_point(2, 2, 1, 3, 3)
>>> p.verdict, round(p.cos_minority, 6)
('separated', -0.333333)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from logitgeom.certify.family import (
    collapse_certificate,
    family_certificate,
    separation_certificate,
)
from logitgeom.convex.family import minority_program, two_orbit_generators
from logitgeom.errors import InexactResult, InvalidInput

__all__ = ["MinorityPoint", "minority_point", "collapse_threshold", "exact_cosines",
           "minority_curve", "CURVE_RATIOS", "CURVE_SETTING"]

#: relative radius steps h tried for the secant of the minority-collapse theorem
SECANT_STEPS = (Fraction(1, 16), Fraction(1, 64), Fraction(1, 256), Fraction(1, 1024),
                Fraction(1, 4096), Fraction(1, 4))


def exact_cosines(cert: dict, i: int, j: int) -> float:
    """cos(w_i, w_j) of the certificate's own W, from the exact Gram (0 for a zero row)."""
    W = [[Fraction(x) for x in r] for r in cert["W"]]
    g = [sum(a * b for a, b in zip(W[p], W[q], strict=True)) for p, q in ((i, j), (i, i), (j, j))]
    if g[1] == 0 or g[2] == 0:
        return 0.0
    return float(g[0]) / math.sqrt(float(g[1]) * float(g[2]))


@dataclass(frozen=True)
class MinorityPoint:
    """One certified point of the minority-collapse curve."""

    K_A: int
    K_B: int
    ratio: Fraction
    verdict: str
    #: the plain program's bracket (its own point: the solve's, or the collapsed one)
    bracket: dict
    #: the theorem proving the verdict (None when undecided)
    theorem: dict | None
    cos_minority: float
    cos_majority_minority: float
    norm_ratio: float
    info: dict = field(default_factory=dict)

    @property
    def lower(self) -> Fraction:
        return Fraction(self.bracket["lower"])

    @property
    def upper(self) -> Fraction:
        return Fraction(self.bracket["upper"])


def minority_point(K_A: int, K_B: int, ratio: Any, E_W: Any = 1, E_H: Any = 1, *,
                   loss: str = "ce", solver: str | None = None) -> MinorityPoint:
    """Solve and certify the imbalanced model at one ratio (see the module docstring).

    Parameters
    ----------
    K_A, K_B : int
        Majority and minority classes (K_B >= 2 for the collapse question).
    ratio : number
        R = n_A / n_B (exact).
    E_W, E_H : number
        Per-class budgets (Fang et al.'s averaged budgets).
    loss : {"ce", "mse", "bce"}

    Returns
    -------
    MinorityPoint

    Raises
    ------
    InvalidInput
        K_B < 2, or what :func:`minority_program` refuses.
    """
    if int(K_B) < 2:
        raise InvalidInput("the minority-collapse question needs K_B >= 2 minority classes")
    B = list(range(K_A, K_A + K_B))
    gens = two_orbit_generators(list(range(K_A)), B, K_A + K_B)
    plain = minority_program(K_A, K_B, ratio, E_W, E_H, loss=loss)
    sol = plain.solve(solver=solver)
    full = family_certificate(plain, sol.Z, generators=gens)
    coll = minority_program(K_A, K_B, ratio, E_W, E_H, loss=loss, collapsed=True)
    csol = coll.solve(solver=solver)
    restricted = family_certificate(coll, csol.Z, generators=gens)
    R = Fraction(plain.weights_exact[0] / plain.weights_exact[-1])
    info: dict = {"plain_float": sol.loss, "collapsed_float": csol.loss}
    if Fraction(full["upper"]) < Fraction(restricted["lower"]):
        thm = separation_certificate(full, restricted, label=f"R = {R}")
        return _point(K_A, K_B, R, "separated", full, thm, info)
    for h in SECANT_STEPS:
        larger = minority_program(K_A, K_B, ratio, Fraction(E_W) * (1 + h) ** 2, E_H,
                                  loss=loss, collapsed=True)
        up = family_certificate(larger, larger.solve(solver=solver).Z, generators=gens)
        try:
            thm = collapse_certificate(restricted, up, label=f"R = {R}")
        except InexactResult:
            continue
        info["secant_step"] = str(h)
        own = family_certificate(plain, csol.Z, equal_row_claims=[B], generators=gens)
        return _point(K_A, K_B, R, "collapsed", own, thm, info)
    return _point(K_A, K_B, R, "undecided", full, None, info)


def _point(K_A, K_B, R, verdict, bracket, thm, info) -> MinorityPoint:
    b0, b1, a0 = K_A, K_A + 1, 0
    W = [[Fraction(x) for x in r] for r in bracket["W"]]
    na = math.sqrt(float(sum(x * x for x in W[a0])))
    nb = math.sqrt(float(sum(x * x for x in W[b0])))
    return MinorityPoint(K_A, K_B, R, verdict, bracket, thm, exact_cosines(bracket, b0, b1),
                         exact_cosines(bracket, a0, b0), nb / na if na else math.inf, info)


def collapse_threshold(K_A: int, K_B: int, low: Any, high: Any, E_W: Any = 1, E_H: Any = 1, *,
                       steps: int = 6, loss: str = "ce") -> tuple[MinorityPoint, MinorityPoint]:
    """Certified bracket of the collapse threshold: ratios ``(R_sep, R_col)`` with a proven
    separation at R_sep and a proven collapse at R_col, bisected geometrically ``steps``
    times from ``(low, high)`` (an undecided midpoint ends the bisection).

    Raises
    ------
    InvalidInput
        ``low`` is not proven separated or ``high`` not proven collapsed.
    """
    lo = minority_point(K_A, K_B, low, E_W, E_H, loss=loss)
    hi = minority_point(K_A, K_B, high, E_W, E_H, loss=loss)
    if lo.verdict != "separated" or hi.verdict != "collapsed":
        raise InvalidInput(f"need a separated low ratio and a collapsed high one; got "
                           f"{lo.verdict} at {low} and {hi.verdict} at {high}")
    for _ in range(steps):
        mid = Fraction(round(math.sqrt(float(lo.ratio) * float(hi.ratio)) * 1024), 1024)
        if not lo.ratio < mid < hi.ratio:
            break
        p = minority_point(K_A, K_B, mid, E_W, E_H, loss=loss)
        if p.verdict == "separated":
            lo = p
        elif p.verdict == "collapsed":
            hi = p
        else:
            break
    return lo, hi


#: the ratios of the reproduced curve (decades), per-class budgets and class counts
CURVE_RATIOS = (1, 3, 10, 30, 100, 300, 1000, 10_000, 100_000)
CURVE_SETTING = {"K_A": 5, "K_B": 5, "E_W": 3, "E_H": 3}


def minority_curve(ratios=CURVE_RATIOS, *, K_A: int = 5, K_B: int = 5, E_W: Any = 3,
                   E_H: Any = 3, loss: str = "ce", threshold_steps: int = 8
                   ) -> tuple[list[MinorityPoint], tuple[MinorityPoint, MinorityPoint] | None]:
    """Every ratio certified (:func:`minority_point`), and the collapse threshold bracketed
    by :func:`collapse_threshold` between the last separated and the first collapsed ratio
    (None when the curve has no such pair).

    Examples
    --------
    >>> pts, thr = minority_curve((1, 1000), K_A=2, K_B=2, threshold_steps=0)
    >>> [p.verdict for p in pts]
    ['separated', 'collapsed']
    """
    pts = [minority_point(K_A, K_B, R, E_W, E_H, loss=loss) for R in ratios]
    sep = [p for p in pts if p.verdict == "separated"]
    col = [p for p in pts if p.verdict == "collapsed"]
    if not sep or not col or sep[-1].ratio > col[0].ratio:
        return pts, None
    lo, hi = sep[-1], col[0]
    if threshold_steps:
        lo, hi = collapse_threshold(K_A, K_B, lo.ratio, hi.ratio, E_W, E_H,
                                    steps=threshold_steps, loss=loss)
    return pts, (lo, hi)
