"""The exact completion stage of the argmax audit (docs/argmax-audit.md, section 2b).

When the float stages leave a label open, this stage decides it in exact rational
arithmetic, with no tolerance anywhere:

1. the system (A_k) restricted to an *active set* of rows (seeded from the float LP's basis
   and the rows violated at its points) is decided by an exact LP (``cdd.gmp``, through
   :mod:`logitgeom.exact.lp` and :func:`logitgeom.exact.lp.box_lp`);
2. infeasible on the active set: the exact LP's vertex solution gives Gordan multipliers on
   at most d + 1 (d + 2 with a bias) rows: a ``never`` proof for the whole head;
3. feasible: its exact optimum x is evaluated against every row of the head (floats with the
   rigorous bound, rational arithmetic for the close pairs); no violated row: a witness;
   otherwise the violated rows join the active set and the LP is solved again.

Termination: each round adds at least one row not yet active (a row violated by the optimum
of the restricted LP cannot be active: every active row has a positive margin there), and
there are finitely many rows; after at most k - 1 rounds the active set is the whole head,
and then the exact LP answers the question itself.

Examples
--------
>>> import numpy as np
>>> from logitgeom.audit.proofs import Options
>>> from logitgeom.audit.head import HeadSpec, open_head
>>> h = open_head(HeadSpec.from_array(np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0],
...                                            [0.0, 0.5]])))
>>> exact_stage(h, 3, False, Options(), {}, 0.0, [0])["verdict"]
'never'
>>> exact_stage(h, 2, False, Options(), {}, 0.0, [3])["verdict"]
'argmaxable'
"""

from __future__ import annotations

import time
from fractions import Fraction

import numpy as np

from logitgeom.audit.head import Head
from logitgeom.audit.proofs import (
    Options,
    _budget,
    _never,
    _primitive,
    _rational_witness_record,
    check_multipliers,
    exact_rows_int,
    violations,
)
from logitgeom.errors import SolverFailed
from logitgeom.exact.lp import box_lp, gordan_multipliers, strictly_feasible

__all__ = ["exact_stage", "gordan_on_rows"]


def _homogeneous_rows(head: Head, k: int, rows: list[int]) -> list[list[int]]:
    """Integer rows r_i with r_i . (x, t) > 0 iff (w_k - w_i) . x + (b_k - b_i) t > 0 (the
    bias column only with a bias), each a positive multiple of the exact difference."""
    R, b, den_w, den_b = exact_rows_int(head, [k, *rows])
    wk = R[0]
    out = []
    for n in range(len(rows)):
        u = [(a - w) * den_b for a, w in zip(wk, R[1 + n], strict=True)]
        if b is not None:
            u.append((b[0] - b[1 + n]) * den_w)
        out.append(u)
    return out


def _box_rows(head: Head, k: int, rows: list[int]) -> list[list[int]]:
    """Integer rows (u_i, beta_i) = L (w_k - w_i, b_k - b_i) with one common factor
    L = den_w den_b > 0: neither the box LP's feasibility nor the sign of
    sum c beta + R ||sum c u||_1 changes, and x keeps its meaning."""
    R, b, den_w, den_b = exact_rows_int(head, [k, *rows])
    wk = R[0]
    out = []
    for n in range(len(rows)):
        u = [(a - w) * den_b for a, w in zip(wk, R[1 + n], strict=True)]
        u.append(0 if b is None else (b[0] - b[1 + n]) * den_w)
        out.append(u)
    return out


def gordan_on_rows(head: Head, k: int, rows: list[int], radius: Fraction | None
                   ) -> tuple[list[int], list[int]] | None:
    """Exact Gordan multipliers on the given rows (a vertex of the exact LP: at most d + 1,
    or d + 2 with a bias, of them positive), or None when the rows admit none.

    Returns (rows, positive integer multipliers), unverified (the caller checks them with
    :func:`logitgeom.audit.decide.check_multipliers`).
    """
    rows = sorted({int(i) for i in rows if int(i) != k})
    if not rows:
        return None
    if radius is None:
        H = _homogeneous_rows(head, k, rows)
        if head.bias is not None:
            H.append([0] * head.d + [1])  # t > 0
        y = gordan_multipliers(H)
        if y is None:
            return None
        pos = [(rows[n], q) for n, q in enumerate(y[:len(rows)]) if q > 0]
    else:
        val, c = box_lp(_box_rows(head, k, rows), head.d, radius, gordan=True)
        if val > 0:
            return None
        pos = [(rows[n], q) for n, q in enumerate(c) if q > 0]
    if not pos:
        return None
    return [i for i, _ in pos], _primitive([q for _, q in pos])


def exact_stage(head: Head, k: int, box: bool, opts: Options, stats: dict, t_label: float,
                seed: list[int]) -> dict:
    """Decide label k (domain R^d, or the box when ``box``) exactly by the active-set exact
    LP with cutting planes; returns the verdict record (never ``undecided`` unless
    :attr:`Options.label_seconds` runs out, which raises
    :class:`logitgeom.audit.decide.BudgetExceeded`)."""
    t0 = time.process_time()
    try:
        return _exact_stage(head, k, box, opts, stats, t_label, seed)
    finally:
        stats["exact_lp"] = stats.get("exact_lp", 0.0) + time.process_time() - t0
        stats["exact_labels"] = stats.get("exact_labels", 0) + 1


def _initial_active(head: Head, k: int, seed: list[int]) -> list[int]:
    active = {int(i) for i in seed if int(i) != k}
    if len(active) < head.d + 2:
        # the rows closest to w_k in direction w_k (smallest margins at x = w_k)
        wk = head.rows([k])[0]
        with np.errstate(over="ignore", invalid="ignore"):
            s = head.propose_matvec(wk * head.scale())
        s = np.where(np.isfinite(s), s, -np.inf)
        s[k] = -np.inf
        order = np.argsort(-s, kind="stable")
        for i in order[: 2 * (head.d + 2)].tolist():
            if i != k:
                active.add(int(i))
    return sorted(active)


def _exact_stage(head, k, box, opts, stats, t_label, seed) -> dict:
    d = head.d
    radius = opts.radius if box else None
    active = _initial_active(head, k, seed)
    add = max(1, min(opts.lp_add, 4 * (d + 2)))
    while True:
        _budget(opts, t_label, "exact")
        xq = _solve_active(head, k, active, radius)
        if xq is None:
            found = gordan_on_rows(head, k, active, radius)
            if found is None:  # pragma: no cover - exact LP duality
                raise SolverFailed(f"label {k}: the exact LP found the active system "
                                   "infeasible but no Gordan multipliers")
            rows, c = found
            if not check_multipliers(head, k, rows, c, radius):  # pragma: no cover
                raise SolverFailed(f"label {k}: exact Gordan multipliers failed the check")
            return _never(rows, c, "exact")
        xf = np.array([float(q) for q in xq], dtype=np.float64)
        bad = violations(head, k, xf, xq=xq, stats=stats)
        if bad.size == 0:
            return _rational_witness_record(xq, "exact")
        new = bad[~np.isin(bad, np.array(active, dtype=np.int64))]
        if new.size == 0:  # pragma: no cover - an active row has a positive margin at x
            raise SolverFailed(f"label {k}: an active row is violated at the exact optimum")
        with np.errstate(over="ignore", invalid="ignore"):
            s = head.matmul(xf[:, None])[:, 0] if np.all(np.isfinite(xf)) else None
        if s is not None and np.all(np.isfinite(s[new])):
            new = new[np.argsort(s[new] - s[k], kind="stable")[::-1]]
        active = sorted(set(active) | set(new[:add].tolist()))


def _solve_active(head: Head, k: int, active: list[int], radius: Fraction | None
                  ) -> list[Fraction] | None:
    """An exact point x with every active margin positive (in the box when ``radius``), or
    None when there is none."""
    d = head.d
    if radius is None:
        H = _homogeneous_rows(head, k, active)
        if head.bias is not None:
            H.append([0] * d + [1])
        z = strictly_feasible(H)
        if z is None:
            return None
        if head.bias is None:
            return list(z)
        t = z[d]
        return [v / t for v in z[:d]]
    val, x = box_lp(_box_rows(head, k, active), d, radius, gordan=False)
    return x if val > 0 else None
