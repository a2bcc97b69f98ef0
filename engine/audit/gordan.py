"""Exact Gordan multipliers on a float support, and the float helpers every hard-label stage
shares (margins, the rows of smallest margin, a witness evaluated exactly).

:mod:`logitgeom.audit.decide` (relaxation, the cutting-plane LP, the refined LP) and
:mod:`logitgeom.audit.nearest` (Wolfe's stage) both end in :func:`gordan_from`: the float
weights of a support propose, the multipliers are solved and checked in integers.

Examples
--------
>>> import numpy as np
>>> from logitgeom.audit.head import HeadSpec, open_head
>>> from logitgeom.audit.proofs import Options
>>> h = open_head(HeadSpec.from_array(np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])))
>>> gordan_from(h, 3, np.array([0, 1]), False, Options(), {}, np.array([0.5, 0.5]))["rows"]
[0, 1]
"""

from __future__ import annotations

import math
import time
from fractions import Fraction

import numpy as np

from logitgeom.audit.basis import basis_never
from logitgeom.audit.bounded import note_stage
from logitgeom.audit.complete import gordan_on_rows
from logitgeom.audit.head import Head
from logitgeom.audit.proofs import (
    Options,
    _in_box,
    _never,
    _primitive,
    check_multipliers,
    exact_rows_int,
    violations,
)
from logitgeom.exact.intmat import solve_rational, solve_square

__all__ = ["CDD_REPAIR", "evaluate", "exact_gordan", "gordan_from", "margins", "pow2_scale",
           "smallest", "start_pool"]


def margins(head: Head, k: int, x: np.ndarray, s: np.ndarray | None = None) -> np.ndarray:
    """Float margins s_k - s_i (plus the bias difference) at x, for proposals only.

    Parameters
    ----------
    head : Head
    k : int
        The label.
    x : numpy.ndarray
        A float point of width d.
    s : numpy.ndarray, optional
        ``head.propose_matvec(x)`` when the caller already has it.

    Returns
    -------
    numpy.ndarray
        One float per row, ``inf`` at k. A decision uses :func:`violations` instead.

    Examples
    --------
    >>> import numpy as np
    >>> from logitgeom.audit.head import HeadSpec, open_head
    >>> h = open_head(HeadSpec.from_array(np.array([[1.0, 0.0], [0.0, 1.0]])))
    >>> margins(h, 0, np.array([2.0, 1.0])).tolist()
    [inf, 1.0]
    """
    if s is None:
        s = head.propose_matvec(x)
    bias = head.bias
    b = bias if bias is not None else 0.0
    m = (s[k] + (bias[k] if bias is not None else 0.0)) - (s + b)
    m[k] = np.inf
    return m


#: Largest support x width for the exact (cdd.gmp) repair of basis multipliers.
CDD_REPAIR = 8192


def pow2_scale(v: np.ndarray) -> float:
    """The power of two 2^-e with 2^(e-1) <= max|v| < 2^e (1 for a zero or non-finite v).

    Multiplying by it rescales v to O(1) without rounding.

    Examples
    --------
    >>> import numpy as np
    >>> pow2_scale(np.array([3.0, -5.0]))
    0.125
    """
    mx = float(np.max(np.abs(v))) if v.size else 0.0
    if mx == 0.0 or not np.isfinite(mx):
        return 1.0
    return math.ldexp(1.0, -math.frexp(mx)[1])


def exact_gordan(head: Head, k: int, support: list[int], lam: np.ndarray,
                  with_bias_row: bool) -> list[Fraction] | None:
    """Exact rationals lam with sum lam_i (w_k - w_i) = 0 and sum lam_i = 1 on a support.

    With ``with_bias_row`` also sum lam_i (b_k - b_i) = 0. A square system is solved over
    one denominator; otherwise free variables take their float values from ``lam``
    (:func:`logitgeom.exact.intmat.solve_rational`). The signs are not checked here.

    Returns
    -------
    list of Fraction or None
        None when the system has no solution.

    Examples
    --------
    >>> import numpy as np
    >>> from logitgeom.audit.head import HeadSpec, open_head
    >>> h = open_head(HeadSpec.from_array(np.array([[2.0, 0.0], [0.0, 2.0], [1.0, 1.0]])))
    >>> [str(q) for q in exact_gordan(h, 2, [0, 1], np.array([0.5, 0.5]), False)]
    ['1/2', '1/2']
    """
    R, b, _, _ = exact_rows_int(head, [k, *support])
    wk = R[0]
    n, d = len(support), head.d
    eqs = [[wk[j] - R[1 + i][j] for i in range(n)] for j in range(d)]
    eqs = [e for e in eqs if any(e)]
    rhs = [0] * len(eqs)
    eqs.append([1] * n)
    rhs.append(1)
    if with_bias_row and b is not None:
        eqs.append([b[0] - b[1 + i] for i in range(n)])
        rhs.append(0)
    if len(eqs) == n:  # a square system (a full basis): integers over one denominator
        sq = solve_square(eqs, rhs)
        if sq is not None:
            z, den = sq
            return [Fraction(v, den) for v in z]
    return solve_rational(eqs, rhs, [float(v) for v in lam])


def gordan_from(head: Head, k: int, active: np.ndarray, box: bool, opts: Options,
                 stats: dict, lam: np.ndarray) -> dict | None:
    """A never-proof from float weights on a support, decided in integers, or None.

    The support is every row of ``active`` with a positive weight in ``lam`` (however
    small). In turn: the float weights themselves (box case), the exact solve on the support
    (:func:`exact_gordan`), and an exact LP repair on the support when that solve is singular
    or negative. Every candidate is checked by
    :func:`logitgeom.audit.proofs.check_multipliers` before it is returned; floats only
    propose. ``stats`` gains the stage times (``gordan``, ``gordan_solve``,
    ``gordan_check``).

    Returns
    -------
    dict or None
        The never record (rows, multipliers, method), or None: nothing is concluded.
    """
    t0 = time.process_time()
    note_stage("gordan")
    try:
        keep = np.flatnonzero(lam > 0)
        if keep.size == 0:
            return None
        support = [int(active[i]) for i in keep]
        lam_s = lam[keep]
        radius = opts.radius if box else None
        # (1) the float multipliers themselves (enough with slack in the box case)
        if box:
            cand = _primitive([Fraction(float(v)) for v in lam_s])
            if check_multipliers(head, k, support, cand, radius):
                return _never(support, cand, "lp")
        # (2) solved exactly on the support (v = 0 exactly)
        neg: list[Fraction] | None = None
        if len(support) <= head.d + 2:
            for with_bias in (False, True):
                if with_bias and head.bias is None:
                    break
                t1 = time.process_time()
                sol = exact_gordan(head, k, support, lam_s, with_bias)
                stats["gordan_solve"] = stats.get("gordan_solve", 0.0) \
                    + time.process_time() - t1
                if sol is not None and any(q < 0 for q in sol) and not with_bias:
                    neg = sol
                if sol is None or any(q < 0 for q in sol):
                    continue
                pos = [(i, q) for i, q in zip(support, sol, strict=True) if q > 0]
                if not pos:
                    continue
                rows = [i for i, _ in pos]
                cand = _primitive([q for _, q in pos])
                t1 = time.process_time()
                ok = check_multipliers(head, k, rows, cand, radius)
                stats["gordan_check"] = stats.get("gordan_check", 0.0) \
                    + time.process_time() - t1
                if ok:
                    return _never(rows, cand, "lp")
        # (3) repair: an exact LP on the support (a vertex: at most d + 1 (d + 2) rows);
        # cdd.gmp is slow at large d, where a full basis is repaired by exact simplex pivots
        # (logitgeom.audit.basis) with the active rows as the entering candidates
        if len(support) * head.d > CDD_REPAIR:
            if neg is None or box or head.bias is not None or len(support) != head.d + 1:
                return None
            pool = np.asarray(active, dtype=np.int64)
            P = head.rows(pool) - head.rows([k])[0][None, :]
            return basis_never(head, k, pool, P * pow2_scale(P), [int(i) for i in keep],
                               stats, neg, "lp")
        found = gordan_on_rows(head, k, support, radius)
        if found is not None:
            rows, cand = found
            if check_multipliers(head, k, rows, cand, radius):
                return _never(rows, cand, "lp-exact")
        return None
    finally:
        stats["gordan"] = stats.get("gordan", 0.0) + time.process_time() - t0


def smallest(m: np.ndarray, k: int, n: int) -> np.ndarray:
    """The n rows (not k) with the smallest float margins, non-finite ones first.

    Examples
    --------
    >>> import numpy as np
    >>> smallest(np.array([np.inf, 3.0, -1.0, np.nan]), 0, 2).tolist()
    [3, 2]
    """
    m = np.where(np.isfinite(m), m, -np.inf)
    m[k] = np.inf
    order = np.argsort(m, kind="stable")
    return order[order != k][:n]


def start_pool(head: Head, k: int, wk: np.ndarray, opts: Options) -> np.ndarray:
    """The 4 (d + 2) rows of smallest float margin at x = w_k (row ``wk``), and at
    x = w_k - ``opts.center`` when a center is set: where Wolfe's method and the refined LP
    start.

    Examples
    --------
    >>> import numpy as np
    >>> from logitgeom.audit.head import HeadSpec, open_head
    >>> from logitgeom.audit.proofs import Options
    >>> h = open_head(HeadSpec.from_array(np.eye(3)))
    >>> start_pool(h, 0, h.rows([0])[0], Options()).tolist()
    [1, 2]
    """
    sW, n0 = head.scale(), 4 * (head.d + 2)
    pool = smallest(margins(head, k, wk * sW), k, n0)
    if opts.center is not None:
        xc = (wk - np.asarray(opts.center)) * sW
        pool = np.union1d(pool, smallest(margins(head, k, xc), k, n0))
    return pool


def evaluate(head: Head, k: int, x: np.ndarray, active: np.ndarray, box: bool,
              opts: Options, stats: dict) -> tuple[np.ndarray | None, np.ndarray]:
    """The rows that defeat x as a witness for k, and those among them outside ``active``.

    A float pass first: rows that look violated outside ``active`` are returned as
    ``(None, rows)`` for the caller to add, with no exact work. Otherwise the violated rows
    are decided exactly (:func:`logitgeom.audit.proofs.violations`) and returned as
    ``(bad, bad outside active)``; an x outside the box gives ``([-1], [])``.
    """
    t0 = time.process_time()
    try:
        mm = margins(head, k, x)
        fbad = np.flatnonzero(~(mm > 0))
        new = fbad[~np.isin(fbad, active)]
        if new.size:
            return None, new
        if box and not _in_box(x, opts.radius):
            return np.array([-1]), np.zeros(0, dtype=np.int64)
        bad = violations(head, k, x, stats=stats)
        return bad, bad[~np.isin(bad, active)]
    finally:
        stats["exact"] = stats.get("exact", 0.0) + time.process_time() - t0
