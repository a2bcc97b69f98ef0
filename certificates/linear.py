"""Judgements of linear feasibility, in exact integer arithmetic (standard library only).

* :func:`witness` - every row (a, c) is strictly positive at x;
* :func:`gordan` - multipliers prove that no x makes every row positive (Gordan's
  alternative, or its box form on max_j |x_j| <= R).

Examples
--------
>>> from fractions import Fraction
>>> witness([((1, 0), 0), ((0, 1), 0)], (Fraction(1), Fraction(1, 2)), "/witness")
>>> gordan([((1,), 0), ((-1,), 0)], (Fraction(1), Fraction(1)), "/multipliers")
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from operator import mul
from typing import Any

from .kernel import charge, fail, fail_if, scaled, weight

#: A row (a, c) meaning a . x + c > 0; None: not a constraint.
Row = tuple[Sequence[Any], Any] | None


def witness(rows: Sequence[Row], x: Sequence[Fraction], loc: str) -> None:
    """Every row (a, c) is strictly positive at x: a.x + c > 0, decided as a.p + c q > 0 for
    x = p / q (integers, q > 0)."""
    p, q = scaled(x)
    w = len(p) * weight(q, *(r[1] for r in rows if r is not None))  # the dearest row's units
    for i, r in enumerate(rows):
        if r is not None:
            charge(w)
            if len(r[0]) != len(p) or sum(map(mul, r[0], p)) + r[1] * q <= 0:
                fail("witness", loc, f"row {i} is not strictly positive at the witness")


def gordan(rows: Sequence[Row], y: Sequence[Fraction], loc: str,
           radius: Fraction | None = None) -> None:
    """Multipliers y prove that no x makes every row (a_i, c_i) positive: y >= 0, y = 0 on
    ``None`` rows, some y_i > 0, and sum y_i a_i = 0 with sum y_i c_i <= 0 (Gordan), or, on
    the box max_j |x_j| <= R, sum y_i c_i + R ||sum y_i a_i||_1 <= 0."""
    fail_if(any(q < 0 for q in y), "gordan-nonnegative", loc, "a multiplier is negative")
    bad = next((i for i, r in enumerate(rows) if r is None and y[i]), None)
    fail_if(bad is not None, "gordan-support", f"{loc}/{bad}", "multiplier on a row that is not"
            " a constraint (sign 0 or a tied pair) must be 0")
    fail_if(not any(y), "gordan-nonzero", loc, "all multipliers are zero")
    yi, _ = scaled(y)  # a positive scaling of y proves the same
    live = [(q, r) for q, r in zip(yi, rows, strict=True) if r is not None and q]
    charge(sum(len(a) * weight(q, max(map(abs, a), default=0)) for q, (a, _) in live))
    v = [sum(q * a[j] for q, (a, _) in live) for j in range(len(live[0][1][0]))]
    beta = sum((q * r[1] for q, r in live), 0)
    nz = next((j for j, t in enumerate(v) if t), None)
    fail_if(radius is None and nz is not None, "gordan-combination", loc,
            f"coordinate {nz} of sum y_i a_i is not 0")
    if beta + (0 if radius is None else radius * sum(map(abs, v))) > 0:
        fail("gordan-combination", loc, "sum y_i c_i (bias part) is positive" if radius
             is None else "sum y_i c_i + R ||sum y_i a_i||_1 > 0")

