"""One label's decision in one bounded child process: a budget for the whole label.

:func:`run_label` runs the work of one label the screens left open (both domains, every
stage: Wolfe's method, the refined float LP, the cutting-plane LP, the exact Gordan solve
in FLINT, the exact completion stage in cdd) in a child forked by
:func:`logitgeom.audit.bounded.run_bounded`.  The child is killed when its CPU time reaches
the label's budget (:attr:`Options.label_seconds`) or on Ctrl-C, wherever it is, native
code included.  Each domain the child finished before the kill is kept (it handed the
record over at once); the others become ``undecided`` records whose reason names the
budget, the stage it ran out in and the CPU seconds spent.  Those are the only
``undecided`` records the audit writes, and a rerun in the same folder decides them again.

:func:`label_seconds_option` is the one check of a budget given by a user (CLI and Python
API): a finite positive number of CPU seconds, or None for no budget.

Examples
--------
>>> label_seconds_option(5)
5.0
>>> undecided_record(0.5, "exact", 0.52)["reason"]
'per-label budget label_seconds=0.5 CPU s ran out in the exact stage (stopped after 0.52 CPU s)'
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import Any

from logitgeom.audit.bounded import ChildDied, run_bounded
from logitgeom.errors import InvalidInput, SolverFailed

__all__ = ["run_label", "label_seconds_option", "undecided_record"]


def label_seconds_option(value: Any) -> float | None:
    """A per-label CPU budget as given by a user, checked: None (no budget) or a finite
    positive number of seconds.

    Raises
    ------
    InvalidInput
        For anything else (a string, a boolean, zero, a negative number, NaN, infinity).

    Examples
    --------
    >>> label_seconds_option(None) is None, label_seconds_option(0.25)
    (True, 0.25)
    >>> try:
    ...     label_seconds_option(float("inf"))
    ... except InvalidInput as exc:
    ...     print(str(exc)[-7:])
    got inf
    """
    if value is None:
        return None
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    v = float(value) if ok else math.nan
    if not (math.isfinite(v) and v > 0):
        raise InvalidInput("label_seconds must be a finite positive number of CPU seconds "
                           f"(or None for no budget); got {value!r}")
    return v


def undecided_record(budget: float, stage: str, cpu: float) -> dict:
    """The record of a domain the label's budget stopped (``stage``: the last stage the
    child noted; ``cpu``: the label's CPU seconds when it was stopped)."""
    return {"verdict": "undecided", "stage": stage,
            "reason": f"per-label budget label_seconds={budget:g} CPU s ran out in the "
                      f"{stage} stage (stopped after {cpu:.2f} CPU s)"}


def run_label(body: Callable, head, k: int, doms, rec: dict, opts, stats: dict
              ) -> tuple[dict, float | None]:
    """``body(head, k, doms, rec, opts, stats)`` (returning the record and the margin
    figure) in a bounded child; the child's stage seconds are added to ``stats`` (those of
    a child the budget stopped are lost with it: its CPU seconds go to
    ``stats["budget_stopped"]``, the number of such labels to ``stats["killed_labels"]``)
    and its CPU seconds to ``stats["_child_cpu"]`` (they are not on this process's clock).

    Returns
    -------
    (dict, float or None)
        The label's record and margin figure; when the budget ran out, the domains the
        child had finished and :func:`undecided_record` for the others (margin None).

    Raises
    ------
    SolverFailed
        The child died otherwise (killed by the system, a crash in native code), naming the
        label and how it ended.
    """
    partials: list = []
    try:
        kind, val, cpu = run_bounded(_child, (body, head, k, doms, rec, opts),
                                     opts.label_seconds, partials)
    except ChildDied as exc:
        raise SolverFailed(f"label {k}: {exc} while deciding it (out of memory?); what "
                           "finished is kept: rerun into the same output folder") from None
    stats["_child_cpu"] = stats.get("_child_cpu", 0.0) + cpu
    if kind == "ok":
        out, m, st = val
        for key, v in st.items():
            stats[key] = stats.get(key, 0) + v
        return out, m
    stats["killed_labels"] = stats.get("killed_labels", 0) + 1
    # the child's per-stage seconds died with it: its CPU is counted here instead
    stats["budget_stopped"] = stats.get("budget_stopped", 0.0) + cpu
    out = dict(rec)
    out.update(dict(partials))
    stage = val or "start"
    for dom in doms:
        if dom not in out:
            out[dom] = undecided_record(opts.label_seconds, stage, cpu)
    return out, None


def _child(body: Callable, head, k: int, doms, rec: dict, opts
           ) -> tuple[dict, float | None, dict]:  # pragma: no cover - runs in the child
    stats: dict = {}
    out, m = body(head, k, doms, rec, opts, stats)
    return out, m, stats
