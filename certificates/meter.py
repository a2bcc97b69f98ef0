"""Work metering of the checker (standard library only, imports nothing else).

Every exact step is charged to the budget of the current check *before* it is done; when
the budget is spent the check stops with ``work-budget`` (not checked).  One unit is about
0.02-0.15 microseconds of CPU here; the default budget (20,000,000) is a few seconds.

Examples
--------
>>> with budget(10):
...     charge(4)
>>> weight(1), weight(2 ** 4000) > 200
(1, True)
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

from .errors import Fail

#: Default budget of one certificate, in units (at most about 5 CPU seconds of checking).
DEFAULT_MAX_WORK = 20_000_000

#: [units left, units granted, whether the budget is the default one (only it takes
#: :func:`.batch.grant`)] of the current budget; None: unmetered
BUDGET: ContextVar[list[int] | None] = ContextVar("work_budget", default=None)


@contextlib.contextmanager
def setting(var: ContextVar[Any], value: Any) -> Iterator[None]:
    """The context variable ``var`` holds ``value`` inside the block."""
    token = var.set(value)
    try:
        yield
    finally:
        var.reset(token)


@contextlib.contextmanager
def budget(max_work: int | str | None) -> Iterator[None]:
    """Meter the exact work done inside the block; None: unmetered.  ``"default"``:
    :data:`DEFAULT_MAX_WORK`, a budget which :func:`.batch.grant` may raise (any other string: the
    same units, not raised)."""
    units = DEFAULT_MAX_WORK if isinstance(max_work, str) else max_work
    with setting(BUDGET, None if units is None else [units, units, max_work == "default"]):
        yield


def used() -> int | None:
    """Units charged so far in the current budget (None: unmetered)."""
    return None if (v := BUDGET.get()) is None else v[1] - v[0]


def charge(units: int) -> None:
    """Spend ``units`` before doing the work they stand for; Fail when the budget is gone."""
    if (left := BUDGET.get()) is not None:
        left[0] -= units
        if left[0] < 0:
            raise Fail("work-budget", "/", "the check needs more exact work than the budget "
                       "(--max-work) allows; NOT CHECKED (see docs/limits.md)")


def weight(*numbers: Any) -> int:
    """Units of one arithmetic step on these numbers: 1 for small ones, growing with the
    square of their length in 256-bit blocks (gcds in Fraction arithmetic are quadratic)."""
    bits = max((abs(x.numerator).bit_length() + x.denominator.bit_length() - 1 for x in numbers),
               default=0)  # an int is its own numerator, over 1
    return 1 + (bits >> 8) ** 2
