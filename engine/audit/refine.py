"""Iterative refinement of a float Gordan LP: never-proofs for labels a hair inside a face.

A label pushed 1e-13 inside a 5-row face of a float64 head is a convex combination of the
face's rows (weights of order 1) and of rows around it (weights of order 1e-13): no float
LP at tolerance 1e-9 sees the small weights, Wolfe's corral cannot resolve them, and the
exact LP (``cdd.gmp``) on a few hundred rows of width d + 1 takes minutes.  This module
finds the support by *iterative refinement*, the way exact LP solvers repair a float
solution (Gleixner, Steffy and Wolter, "Iterative refinement for linear programming",
2016): floats propose, the residual is computed exactly, and a rescaled LP corrects it.

On a pool P of rows (the rows with the smallest margins at x = w_k and x = w_k - c), with
points p_i = w_i - w_k, the Gordan system is

    sum_i lambda_i p_i = 0,   sum_i lambda_i = 1,   lambda >= 0.                    (G)

Round 0 solves (G) in floats (HiGHS's simplex: a basic solution, at most d + 1 positive
weights).  Each round then computes the residual of the current lambda *exactly* (integer
arithmetic on the float rows and float weights, rounded once to float64),
r = -sum lambda_i p_i and s = 1 - sum lambda_i, scales it to unit size by sigma, and solves
the correction LP

    sum_i delta_i p_i = r / sigma,  sum_i delta_i = s / sigma,  delta_i >= -lambda_i / sigma,

so the weights of order 1e-13 become weights of order 1 for the float solver;
lambda <- lambda + sigma delta.  After each round the positive weights' rows are handed to
the exact Gordan solve on that support (:func:`logitgeom.audit.gordan.gordan_from`: one
FLINT solve, the multipliers checked in integers).  Nothing here decides: a failure only
means the label goes on to the other stages.

Examples
--------
>>> import numpy as np
>>> from logitgeom.audit.head import HeadSpec, open_head
>>> W = np.array([[1.0, 0.0], [-1.0, 1.0], [-1.0, -1.0], [0.0, 1e-13], [3.0, 3.0]])
>>> rows, lam = refined_support(open_head(HeadSpec.from_array(W)), 3, np.arange(5), {})
>>> len(rows) <= 3, bool(np.all(lam > 0))
(True, True)
"""

from __future__ import annotations

import time
from fractions import Fraction

import numpy as np

from logitgeom.audit.head import Head
from logitgeom.audit.proofs import exact_rows_int
from logitgeom.exact.intmat import float_ints

__all__ = ["refined_support", "ROUNDS", "GROW_ROUNDS"]

#: Refinement rounds (each one multiplies the attainable precision by about 1e-9).
ROUNDS = 4
#: Rounds of cutting planes growing the pool (4 (d + 2) rows each).
GROW_ROUNDS = 8


def _lp(P: np.ndarray, rhs: np.ndarray, s: float, lower: np.ndarray):
    """min sum |slack| s.t. sum_i delta_i p_i + u - v = rhs, sum delta = s, delta >= lower:
    a basic solution (delta, slack norm) from HiGHS's dual simplex, or None."""
    from scipy.optimize import linprog

    m, d = P.shape
    A = np.zeros((d + 1, m + 2 * d))
    A[:d, :m] = P.T
    A[:d, m:m + d] = np.eye(d)
    A[:d, m + d:] = -np.eye(d)
    A[d, :m] = 1.0
    c = np.r_[np.zeros(m), np.ones(2 * d)]
    bounds = [(float(v), None) for v in lower] + [(0.0, None)] * (2 * d)
    res = linprog(c, A_eq=A, b_eq=np.r_[rhs, s], bounds=bounds, method="highs-ds")
    if res.status != 0 or res.x is None:
        return None
    return res.x[:m], float(res.fun), np.asarray(res.eqlin.marginals[:d])


def _residual(head: Head, k: int, rows: np.ndarray, lam: np.ndarray
              ) -> tuple[np.ndarray, float]:
    """Exactly r = -sum lam_i (w_i - w_k) and s = 1 - sum lam_i (rounded once to floats)."""
    R, _, den_w, _ = exact_rows_int(head, [k, *rows.tolist()])
    ints, e = float_ints(lam)
    tot = sum(ints)
    d = head.d
    acc = [0] * d
    for c, row in zip(ints, R[1:], strict=True):
        if c:
            for j in range(d):
                acc[j] += c * row[j]
    # r_j = (tot w_kj - sum c_i w_ij) 2^e / den_w
    scale = Fraction(2) ** e / den_w
    r = np.array([float((tot * R[0][j] - acc[j]) * scale) for j in range(d)])
    s = float(1 - Fraction(tot) * Fraction(2) ** e)
    return r, s


def refined_support(head: Head, k: int, pool: np.ndarray, stats: dict
                    ) -> tuple[np.ndarray, np.ndarray] | None:
    """Rows and float weights of a refined basic solution of (G) on ``pool`` (at most
    d + 1 rows with positive weight), or None when the pool's float LP says 0 is not in
    their hull (the label may be argmaxable) or the refinement does not converge.

    Parameters
    ----------
    head : Head
        A head without a bias (domain R^d).
    k : int
    pool : ndarray of int
        Candidate rows (k is dropped).
    stats : dict
        ``refine`` CPU seconds, updated.

    Returns
    -------
    (ndarray, ndarray) or None
    """
    t0 = time.process_time()
    try:
        pool = np.asarray([i for i in pool.tolist() if i != k], dtype=np.int64)
        wk = head.rows([k])[0]
        grow = 4 * (head.d + 2)
        for _ in range(GROW_ROUNDS):  # the pool grows by cutting planes until 0 is inside
            P = head.rows(pool) - wk[None, :]
            a = float(np.max(np.abs(P))) or 1.0
            Ps = P / a  # scaling the points keeps (G)
            sol = _lp(Ps, np.zeros(head.d), 1.0, np.zeros(len(pool)))
            if sol is None:
                return None
            if sol[1] <= 1e-6:
                break
            # the dual y separates 0 from the pool's points: the rows on its wrong side join
            y = sol[2]
            m = head.matmul(y[:, None])[:, 0]
            m = m[k] - m if float(np.sum(Ps @ y)) < 0 else m - m[k]
            m[pool] = np.inf
            m[k] = np.inf
            new = np.argsort(m, kind="stable")[:grow]
            new = new[m[new] <= 0]
            if new.size == 0:
                return None
            pool = np.r_[pool, new]
        else:
            return None
        lam = np.maximum(sol[0], 0.0)
        for _ in range(ROUNDS):
            sup = np.flatnonzero(lam > 0)
            r, s = _residual(head, k, pool[sup], lam[sup])
            sigma = max(float(np.max(np.abs(r / a))), abs(s))
            if sigma == 0.0:
                break
            low = -lam / sigma
            corr = _lp(Ps, r / a / sigma, s / sigma, low)
            if corr is None:
                return None
            # a non-basic delta sits at its bound: that weight is 0 (not a rounding residue),
            # so the support stays basic (at most d + 1 rows)
            lam = np.where(corr[0] <= low, 0.0, np.maximum(lam + sigma * corr[0], 0.0))
        sup = np.flatnonzero(lam > 0)
        return pool[sup], lam[sup]
    finally:
        stats["refine"] = stats.get("refine", 0.0) + time.process_time() - t0
