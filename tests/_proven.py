"""What a float solve proves, for tests that must pass on every CPU, BLAS kernel and thread count.

A solve returns ``loss`` (the objective at a feasible point: an upper bound on the optimum J*)
and ``dual_bound`` (``loss - gap``: a lower bound, by weak duality).  Whatever digits the solver
and the BLAS kernel produce, ``dual_bound <= J* <= loss`` holds.  So two solves of programs
with the same optimum have brackets that *meet*, and a closed-form value lies in each bracket:
facts, not last digits.  The width of a bracket is a measure of the solve's quality, checked
against :data:`WIDE` (a margin of orders of magnitude over the solvers' own stopping
tolerances), never against a solver's tolerance tier.  The only slack in :func:`meet` is the
float evaluation of the two bounds (:data:`EVAL`).
"""

from __future__ import annotations

from fractions import Fraction

EVAL = 1e-11   # relative: rounding in evaluating loss and dual_bound in float
WIDE = 1e-4    # relative: a bracket at least this narrow is a meaningful solve


def bounds(sol) -> tuple[float, float]:
    """``(lower, upper)`` of a float solve: ``(loss - gap, loss)``."""
    return sol.loss - sol.gap, sol.loss


def _scale(*xs: float) -> float:
    return max(1.0, *(abs(x) for x in xs))


def meet(a, b) -> bool:
    """Two solves (or ``(lower, upper)`` pairs) of programs with the same optimum: each upper
    bound is at least the other's lower bound (both brackets contain J*)."""
    (la, ua), (lb, ub) = (x if isinstance(x, tuple) else bounds(x) for x in (a, b))
    s = EVAL * _scale(la, ua, lb, ub)
    return la <= ub + s and lb <= ua + s


def contains(sol, value: float) -> bool:
    """``value`` (a closed form of the optimum) lies in the solve's bracket."""
    lo, up = sol if isinstance(sol, tuple) else bounds(sol)
    s = EVAL * _scale(lo, up, value)
    return lo - s <= value <= up + s


def narrow(sol, rel: float = WIDE) -> bool:
    """The bracket's width is at most ``rel`` times the value's scale."""
    lo, up = sol if isinstance(sol, tuple) else bounds(sol)
    return up - lo <= rel * _scale(lo, up)


def certified(cert: dict) -> tuple[Fraction, Fraction]:
    """The exact ``(lower, upper)`` of a bracket certificate."""
    return Fraction(cert["lower"]), Fraction(cert["upper"])


def brackets_meet(c1: dict, c2: dict) -> bool:
    """Two checked bracket certificates of the same optimum intersect (exactly)."""
    (l1, u1), (l2, u2) = certified(c1), certified(c2)
    return l1 <= u2 and l2 <= u1
