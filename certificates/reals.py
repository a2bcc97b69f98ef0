"""Rigorous exp and log in rationals (standard library only: ``decimal``, ``fractions``).

``decimal`` at ``prec`` significant digits computes ``exp`` and ``ln`` correctly rounded;
the argument is first rounded in the safe direction (directed division) and the result is
widened by one unit in the last place (``next_plus``), so each function returns a true
upper bound.  ``exp(q)`` for q < -300 is bounded by 10^-100.

Examples
--------
>>> ctx = context(30)
>>> exp_up(Fraction(0), ctx) - 1, log_up(Fraction(1), ctx)
(Fraction(1, 100000000000000000000000000000), Fraction(0, 1))
>>> exp_up(Fraction(1), ctx) > Fraction(271828182845904523536, 10 ** 20)
True
"""

from __future__ import annotations

import decimal
from fractions import Fraction

from .meter import charge, weight

#: Allowed decimal precision of a certificate (significant digits).
PRECISION = (20, 200)


def context(prec: int) -> decimal.Context:
    """The decimal context of the rigorous bounds at ``prec`` significant digits."""
    return decimal.Context(prec=prec, rounding=decimal.ROUND_HALF_EVEN,
                           Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)


def _dec(q: Fraction, ctx: decimal.Context) -> decimal.Decimal:
    """A decimal >= q at the context's precision (directed division)."""
    c = ctx.copy()
    c.rounding = decimal.ROUND_CEILING
    charge(100 + ctx.prec ** 2 // 40 + weight(q))
    return c.divide(decimal.Decimal(q.numerator), decimal.Decimal(q.denominator))


def exp_up(q: Fraction, ctx: decimal.Context) -> Fraction:
    """A rational >= exp(q): exp is increasing, round q up, widen the result by one ulp."""
    if q < -300:
        return Fraction(1, 10 ** 100)
    return Fraction(ctx.next_plus(ctx.exp(_dec(q, ctx))))


def log_up(q: Fraction, ctx: decimal.Context) -> Fraction:
    """A rational >= log(q) for q > 0 (same rounding argument).  A zero result is exact (ln
    is 0 only at 1), so it is not widened to the tiniest decimal."""
    r = ctx.ln(_dec(q, ctx))
    return Fraction(ctx.next_plus(r) if r else r)
