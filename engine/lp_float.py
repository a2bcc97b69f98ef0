"""The float twin of :mod:`engine.exact.lp`, and the engine's strict-feasibility decision.

:func:`propose` and :func:`propose_support` run the exact kernel's own LPs
(:func:`engine.exact.lp.margin_lp`, :func:`engine.exact.lp.gordan_lp`, written once for
both pycddlib arithmetics) on ``cdd`` floats: they only *propose* a point of the open cone
{x : r . x > 0} or the support of Gordan multipliers, and decide nothing.  :func:`decide`
is the one place that calls both sides: float proposals first, then
:func:`engine.exact.lp.decide`, which accepts a proposal only after an exact check and
otherwise solves the exact LPs.  The exact side never imports this module.

Examples
--------
>>> propose([[1.0, 0.0], [0.0, 1.0]])
(1.0, 1.0)
>>> decide([[1, 0], [-1, 0]])
(False, (Fraction(1, 1), Fraction(1, 1)))
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import cdd

from engine.exact import lp, wide

__all__ = ["decide", "propose", "propose_support"]

#: What a failed float proposal may raise; it then means "no proposal" (the exact LP decides).
_PROPOSAL_FAILURES = (RuntimeError, ValueError, ArithmeticError)


def _float_rows(R: list[list[Fraction]]) -> list[list[float]]:
    """Rows as floats for the float LPs (proposals only), each row scaled by a power of two.

    Positive row scaling changes neither the open cone nor the supports of Gordan
    multipliers; it keeps huge rationals (beyond 1e308, or with 2^1000 denominators) from
    overflowing ``float`` and tiny ones from underflowing to zero.
    """
    out = []
    for r in R:
        e = max((abs(v.numerator).bit_length() - v.denominator.bit_length() for v in r
                 if v), default=0)
        e = e if abs(e) > 256 else 0  # moderate rows as they are (same float LPs as ever)
        if e >= 0:
            out.append([v.numerator / (v.denominator << e) for v in r])
        else:
            out.append([(v.numerator << -e) / v.denominator for v in r])
    return out


def _unit_rows(R: list[list[Fraction]]) -> list[list[float]]:
    """Float rows of unit Euclidean length: the margin LP then finds a well-centred ray."""
    out = []
    for r in _float_rows(R):
        n = math.sqrt(sum(v * v for v in r))
        out.append([v / n for v in r] if n > 0 else r)
    return out


def propose(rows: Sequence[Sequence[float]]) -> tuple[float, ...] | None:
    """Float twin of :func:`engine.exact.lp.strictly_feasible` (``cdd`` float LP): proposes.

    Returns a float point with apparently positive margin, or ``None``.  Nothing is
    decided by this function; callers re-check any point exactly.

    Examples
    --------
    >>> propose([[1.0, 0.0], [0.0, 1.0]])
    (1.0, 1.0)
    """
    R = [[float(v) for v in r] for r in rows]
    d = len(R[0])
    status, res = lp.margin_lp(R, d, cdd)
    if status != cdd.LPStatusType.OPTIMAL or res.obj_value <= 0:
        return None
    return tuple(float(v) for v in res.primal_solution[:d])


def propose_support(rows: Sequence[Sequence[float]]) -> list[int]:
    """Float twin of :func:`engine.exact.lp.gordan_multipliers`: the indices of the clearly
    nonzero multipliers of the float LP (a guess; empty when it finds none).

    Examples
    --------
    >>> propose_support([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0]])
    [0, 1]
    """
    res = lp.gordan_lp([[float(v) for v in r] for r in rows], cdd)
    if res.status != cdd.LPStatusType.OPTIMAL:
        return []
    y = list(res.primal_solution)
    top = max(y, default=0.0)
    return [i for i, v in enumerate(y) if v > 1e-9 * top] if top > 0 else []


def decide(rows: Sequence[Sequence[int | Fraction]]) -> tuple[bool, tuple[Fraction, ...]]:
    """Decide strict feasibility of {x : r . x > 0 for all rows}, exactly, with a certificate.

    Float LPs propose a witness (or, when they find none, the support of Gordan
    multipliers); :func:`engine.exact.lp.decide` decides with those hints, accepting them
    only after exact checks.  Same answer and certificate contract as
    :func:`engine.exact.lp.decide`: a small primitive integer witness, or primitive integer
    Gordan multipliers of circuit support, and the same errors.

    Examples
    --------
    >>> decide([[1, 2], [3, -1]])
    (True, (Fraction(1, 1), Fraction(0, 1)))
    >>> decide([[1, 1], [-2, -2], [0, 1]])
    (False, (Fraction(2, 1), Fraction(1, 1), Fraction(0, 1)))
    """
    R, d = lp.as_rows(rows)
    if wide.is_wide(len(R), d):  # d >> m: exact on a column basis, no d x d float tableau
        return lp.decide(R)
    point = support = None
    try:  # float proposals decide nothing: any failure means "no proposal"
        point = propose(_unit_rows(R))
        if point is None:
            support = propose_support(_float_rows(R))
    except _PROPOSAL_FAILURES:  # e.g. cdd's "LP cycling" on badly scaled rows
        pass
    return lp.decide(R, point=point, support=support)
