"""Exact verification and repair of a float basis for a Gordan ("never") proof.

Wolfe's algorithm (:mod:`logitgeom.audit.wolfe`) proposes a *basis*: d + 1 rows S whose points
p_i = w_i - w_k look affinely independent with 0 inside their simplex.  The barycentric
coordinates lambda of 0 on S solve the square system

    sum_i lambda_i p_i = 0,   sum_i lambda_i = 1                                  (B)

and S proves label k never argmax exactly when every lambda_i >= 0 (Gordan; the proof's
multipliers are the lambda's numerators over their one common denominator).
:func:`basis_weights` solves (B) exactly (FLINT, fraction-free; integers over one
denominator).  When a weight comes out negative (0 lies just outside the simplex, closer
than the float solver could see), :func:`repair` performs simplex pivots as an exact LP
does after a float solve (float basis, then rational verification and repair): the most
negative coordinate t leaves, a pool point on 0's side of the opposite facet enters (chosen
in floats by the ratio test on the exact current weights), and (B) is solved exactly again
on the new basis, at most a few times.  Floats only choose the pivots; every verdict rests
on the exact solve and the exact check of the multipliers (:func:`basis_never`, which the
Wolfe path and the cutting-plane LP's Gordan stage of :mod:`logitgeom.audit.decide` call).

Examples
--------
>>> import numpy as np
>>> from logitgeom.audit.head import HeadSpec, open_head
>>> W = np.array([[0.0, 0.0], [1.0, 0.0], [-1.0, 1.0], [-1.0, -1.0]])
>>> h = open_head(HeadSpec.from_array(W))
>>> basis_weights(h, 0, [1, 2, 3])
([2, 1, 1], 4)
"""

from __future__ import annotations

import math
import time
from fractions import Fraction

import numpy as np
from scipy.linalg import lu_factor, lu_solve

from logitgeom.audit.head import Head
from logitgeom.audit.proofs import _never, check_multipliers, exact_rows_int
from logitgeom.exact.intmat import solve_square

__all__ = ["basis_weights", "repair", "basis_never"]


def basis_weights(head: Head, k: int, rows: list[int]) -> tuple[list[int], int] | None:
    """The exact barycentric coordinates of 0 on the points w_i - w_k (i in ``rows``): the
    solution of (B) as integers z over one denominator den > 0 (lambda = z / den).

    Parameters
    ----------
    head : Head
    k : int
        The label.
    rows : list of int
        d + 1 row indices (not k).

    Returns
    -------
    (list of int, int) or None
        None when (B) is not square (a coordinate on which every point is 0) or singular.

    Examples
    --------
    >>> import numpy as np
    >>> from logitgeom.audit.head import HeadSpec, open_head
    >>> h = open_head(HeadSpec.from_array(np.array([[0.0], [1.0], [-3.0]])))
    >>> basis_weights(h, 0, [1, 2])
    ([3, 1], 4)
    """
    R, _, _, _ = exact_rows_int(head, [k, *rows])
    wk = R[0]
    n = len(rows)
    eqs = [[R[1 + i][j] - wk[j] for i in range(n)] for j in range(head.d)]
    eqs = [e for e in eqs if any(e)]
    # each coordinate's equation divided by the gcd of its entries: the same solution (the
    # right-hand side is 0 there), about 10 % fewer bits for the exact solve (a common power
    # of two per coordinate of dyadic rows, about 9 bits a coordinate at d = 1,024)
    eqs = [[v // g for v in e] if (g := math.gcd(*e)) > 1 else e for e in eqs]
    eqs.append([1] * n)
    if len(eqs) != n:
        return None
    return solve_square(eqs, [0] * (n - 1) + [1])


def repair(head: Head, k: int, pool: np.ndarray, P: np.ndarray, S: list[int],
           z: list[int], den: int, max_pivots: int = 4
           ) -> tuple[list[int], list[int]] | None:
    """Exact simplex pivots from a basis whose exact weights have a negative entry.

    Parameters
    ----------
    head : Head
    k : int
        The label.
    pool : ndarray of int
        Head rows of the points (the candidates that may enter).
    P : ndarray
        Float points (one per pool row): p_i = w_i - w_k times any positive factor.
    S : list of int
        The basis, as indices into ``pool`` (d + 1 of them).
    z, den : list of int, int
        Its exact weights (:func:`basis_weights`), some negative.
    max_pivots : int
        At most this many exact re-solves.

    Returns
    -------
    (list of int, list of int) or None
        Head rows and their non-negative exact integer weights z (over one denominator) of a
        basis containing 0 (rows with weight 0 dropped), or None when the pivots found none
        (nothing is decided then; the caller's other stages run).

    Examples
    --------
    >>> import numpy as np
    >>> from logitgeom.audit.head import HeadSpec, open_head
    >>> W = np.array([[0.0, 0.0], [1.0, 0.0], [-1.0, 1.0], [-1.0, 2.0], [-1.0, -1.0]])
    >>> h = open_head(HeadSpec.from_array(W))
    >>> pool = np.array([1, 2, 3, 4]); P = W[pool] - W[0]
    >>> z, den = basis_weights(h, 0, [1, 2, 3])
    >>> min(z) < 0
    True
    >>> repair(h, 0, pool, P, [0, 1, 2], z, den)
    ([1, 2, 4], [2, 1, 1])
    """
    S = list(S)
    s = len(S)
    Pa = np.hstack([P, np.ones((len(P), 1))])  # the columns (p_j, 1) of (B)
    for _ in range(max_pivots):
        if min(z) >= 0:
            break
        lam = np.array([v / den for v in z], dtype=np.float64)  # exact to rounding
        t = int(np.argmin(lam))
        try:
            lu = lu_factor(Pa[S].T, check_finite=False)
        except (ValueError, np.linalg.LinAlgError):
            return None
        e = np.zeros(s)
        e[t] = 1.0
        r = lu_solve(lu, e, trans=1, check_finite=False)  # row t of the basis inverse
        h = Pa @ r  # barycentric coordinate of every pool point on the leaving vertex
        h[S] = 0.0
        nrm = np.sqrt(np.einsum("ij,ij->i", Pa, Pa))
        order = np.argsort(h / nrm, kind="stable")
        cand = order[h[order] < 0][:32]
        if cand.size == 0:
            return None
        Y = lu_solve(lu, Pa[cand].T, check_finite=False)  # coordinates of the candidates
        best, best_val = -1, -np.inf
        for c in range(cand.size):
            y = Y[:, c]
            if not y[t] < 0:
                continue
            th = lam[t] / y[t]  # > 0: the entering weight
            new = lam - th * y
            new[t] = th
            val = float(new.min())
            if val > best_val:
                best, best_val = int(cand[c]), val
        if best < 0:
            return None
        S[t] = best
        sol = basis_weights(head, k, [int(pool[i]) for i in S])
        if sol is None:
            return None
        z, den = sol
    if min(z) < 0:
        return None
    keep = [(int(pool[i]), v) for i, v in zip(S, z, strict=True) if v > 0]
    return [i for i, _ in keep], [v for _, v in keep]


def basis_never(head: Head, k: int, pool: np.ndarray, P: np.ndarray, S: list[int],
                 stats: dict, known: list[Fraction] | None = None, stage: str = "wolfe"
                 ) -> dict | None:
    """The never-proof of a full basis S (indices into ``pool``; P the float points, e.g. a
    Wolfe corral): its exact barycentric weights (one FLINT solve, integers over one
    denominator; ``known`` when already solved), repaired by exact simplex pivots when one is
    negative (:mod:`logitgeom.audit.basis`), checked exactly.

    Parameters
    ----------
    head : Head
    k : int
        The label.
    pool : ndarray of int
        Head rows (the candidates a repair pivot may bring in).
    P : ndarray
        Float points w_i - w_k of the pool rows (times any positive factor).
    S : list of int
        The basis: d + 1 indices into ``pool``.
    stats : dict
        CPU seconds are added under ``gordan_solve`` and ``gordan_check``.
    known : list of Fraction, optional
        The basis's exact weights when the caller has already solved for them.
    stage : str
        The record's stage note (``"-repair"`` is appended after a repair).

    Returns
    -------
    dict or None
        A ``never`` record whose multipliers passed :func:`check_multipliers`; None when the
        basis is singular or the repair finds nothing (nothing is decided then).

    Examples
    --------
    >>> import numpy as np
    >>> from logitgeom.audit.head import HeadSpec, open_head
    >>> W = np.array([[0.0, 0.0], [1.0, 0.0], [-1.0, 1.0], [-1.0, -1.0]])
    >>> rec = basis_never(open_head(HeadSpec.from_array(W)), 0, np.array([1, 2, 3]),
    ...                   W[1:], [0, 1, 2], {})
    >>> rec["rows"], rec["multipliers"], rec["stage"]
    ([1, 2, 3], ['2', '1', '1'], 'wolfe')
    """
    t1 = time.process_time()
    try:
        if known is not None:
            den = math.lcm(*(q.denominator for q in known))
            sol: tuple[list[int], int] | None = (
                [q.numerator * (den // q.denominator) for q in known], den)
        else:
            sol = basis_weights(head, k, [int(pool[i]) for i in S])
        if sol is None:
            return None
        z, den = sol
        if min(z) < 0:
            fixed = repair(head, k, pool, P, S, z, den)
            if fixed is None:
                return None
            rows, z = fixed
            stage += "-repair"
        else:
            rows = [int(pool[i]) for i, v in zip(S, z, strict=True) if v > 0]
            z = [v for v in z if v > 0]
    finally:
        stats["gordan_solve"] = stats.get("gordan_solve", 0.0) + time.process_time() - t1
    if not rows:
        return None
    t1 = time.process_time()
    try:
        g = math.gcd(*z)
        cand = [v // g for v in z]
        return _never(rows, cand, stage) if check_multipliers(head, k, rows, cand, None) \
            else None
    finally:
        stats["gordan_check"] = stats.get("gordan_check", 0.0) + time.process_time() - t1
