"""Wolfe's minimum-norm-point algorithm: the float proposal device for hard audit labels.

Label k is never the strict argmax (without a bias, over R^d) exactly when 0 lies in the
convex hull of the points p_i = w_i - w_k (i != k) (docs/argmax-audit.md, section 1).  Wolfe's
algorithm (P. Wolfe, "Finding the nearest point in a polytope", Math. Programming 11, 1976)
finds the point q of that hull nearest to 0 by an active-set method over a *corral*: a set
S of affinely independent points whose affine hull's nearest point to 0 lies in their
relative interior.  It is a simplex-like method on the same basis structure as the float
simplex, at O(|S|^2) per step (a Cholesky factor of 1 1^T + P_S P_S^T updated by appending
and by Givens rotations), so a corral of d + 1 rows at d = 768 costs seconds, not the
minutes of a dense simplex on thousands of rows.

It only *proposes*, and the caller decides exactly:

* ``"in"``: a corral of d + 1 rows whose weights are all positive in floats, i.e. 0 looks
  inside conv(S): the caller solves sum lambda_i p_i = 0, sum lambda_i = 1 on S in exact
  integer arithmetic (FLINT) and checks the multipliers exactly (a Gordan ``never`` proof);
* ``"out"``: q != 0 with p_j . q >= |q|^2 (up to rounding) for every row of the pool: the
  caller re-solves q on the affine hull of S (least squares, refined) and confirms x = -q as
  a witness over every row of the head with the rigorous float filter and exact arithmetic.

Examples
--------
>>> import numpy as np
>>> P = np.array([[1.0, 0.0], [-1.0, 1.0], [-1.0, -1.0]])   # 0 inside the triangle
>>> kind, S, lam = min_norm_corral(P)
>>> kind, sorted(S)
('in', [0, 1, 2])
>>> kind, S, lam = min_norm_corral(P + 2.0)                    # shifted away from 0
>>> kind
'out'
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import qr, qr_delete, solve_triangular
from scipy.linalg.blas import dtrsv as _trsv

__all__ = ["min_norm_corral", "affine_nearest"]

#: Partial pricing: after a full pass over the points, the next entering points are sought
#: among this many rows of smallest p_j . x first (a full pass again when none improves).
_CAND = 256


class _Chol:
    """Upper-triangular R with R^T R = 1 1^T + P_S P_S^T for the corral's points P_S.

    Stored as the leading s x s block of a Fortran-ordered cap x cap array whose trailing
    block is the identity, so the triangular solves run on the whole array (BLAS ``dtrsv``,
    no copy of the s x s block per solve) and leave the trailing entries 0."""

    def __init__(self, d: int, cap: int):
        self.R = np.eye(cap, order="F")
        self.cap = cap
        self.s = 0

    def _solve(self, b: np.ndarray, trans: int) -> np.ndarray:
        full = np.zeros(self.cap)
        full[:b.size] = b
        return _trsv(self.R, full, trans=trans)[:self.s]

    def append(self, m: np.ndarray, mu: float) -> bool:
        s = self.s
        if s:
            r = self._solve(m, 1)
            rho2 = mu - float(r @ r)
        else:
            r, rho2 = np.zeros(0), mu
        if not rho2 > 1e-13 * mu:  # affinely dependent (numerically): refuse
            return False
        self.R[:s, s] = r
        self.R[s, s] = np.sqrt(rho2)
        self.s = s + 1
        return True

    def delete(self, t: int) -> None:
        s = self.s
        R = self.R
        m = s - t
        if m > 32:  # a long tail: LAPACK-level Givens on the trailing block (scipy.qr_delete)
            tail = qr_delete(np.eye(m), R[t:s, t:s], 0, 1, which="col", check_finite=False)[1]
            R[:t, t:s - 1] = R[:t, t + 1:s].copy()
            R[t:s, t:s - 1] = tail
            R[:s, s - 1] = 0.0
            R[s - 1, s - 1] = 1.0
            self.s = s - 1
            return
        R[:s, t:s - 1] = R[:s, t + 1:s].copy()
        R[:s, s - 1] = 0.0
        for j in range(t, s - 1):  # restore the triangle with Givens rotations
            a, b = R[j, j], R[j + 1, j]
            h = np.hypot(a, b)
            if h == 0.0:
                continue
            c, sn = a / h, b / h
            rj, rj1 = R[j, j:s - 1].copy(), R[j + 1, j:s - 1].copy()
            R[j, j:s - 1] = c * rj + sn * rj1
            R[j + 1, j:s - 1] = -sn * rj + c * rj1
            R[j + 1, j] = 0.0
        R[s - 1, :s] = 0.0
        R[s - 1, s - 1] = 1.0  # back to the identity block
        self.s = s - 1

    def affine_weights(self) -> np.ndarray | None:
        s = self.s
        full = np.zeros(self.cap)
        full[:s] = 1.0
        y = _trsv(self.R, full, trans=1)
        beta = _trsv(self.R, y, trans=0)[:s]
        tot = float(beta.sum())
        if not np.isfinite(tot) or tot == 0.0:
            return None
        return beta / tot


def min_norm_corral(P: np.ndarray, max_steps: int | None = None,
                    init: tuple[list[int], np.ndarray] | None = None
                    ) -> tuple[str, list[int], np.ndarray]:
    """Wolfe's algorithm on the rows of P (float64, n x d): the nearest point of conv(P) to 0.

    Parameters
    ----------
    P : ndarray
        The points (rows), finite, of moderate scale.
    max_steps : int, optional
        Cap on major plus minor steps (default 20 (d + 1) + 100).
    init : (list of int, ndarray), optional
        A corral to start from (row indices of P and positive weights, e.g. the result of a
        previous call on fewer rows); default: the point of least norm.

    Returns
    -------
    (kind, S, lam)
        ``kind`` is ``"in"`` (a corral of d + 1 points with positive weights: 0 looks inside
        the hull), ``"out"`` (the nearest point sum lam_i P[S_i] looks non-zero and optimal),
        or ``"stall"`` (the step cap or rounding stopped it); S the corral's row indices, lam
        their float weights.  A proposal only: nothing here is decided.

    Examples
    --------
    >>> min_norm_corral(np.array([[1.0], [2.0]]))[0]
    'out'
    """
    n, d = P.shape
    if max_steps is None:
        max_steps = 20 * (d + 1) + 100
    norms2 = np.einsum("ij,ij->i", P, P)
    pmax = float(np.sqrt(norms2.max())) if n else 0.0
    ch = _Chol(d, d + 2)
    C = np.empty((d + 2, d))  # the corral's points, in the Cholesky factor's order
    S: list[int] = []
    lam = np.zeros(0)
    if init is not None:
        for j, v in zip(init[0], init[1], strict=True):
            if ch.append(1.0 + C[:len(S)] @ P[j], 1.0 + norms2[j]):
                C[len(S)] = P[j]
                S.append(int(j))
                lam = np.r_[lam, v]
        lam = lam / lam.sum() if S else lam
    if not S:
        j0 = int(np.argmin(norms2))
        ch.append(np.zeros(0), 1.0 + norms2[j0])
        C[0] = P[j0]
        S, lam = [j0], np.ones(1)
    steps = 0
    in_s = np.zeros(n, dtype=bool)
    in_s[S] = True
    cand = np.zeros(0, dtype=np.int64)  # partial pricing: the best rows of the last full pass
    Pc = P[cand]
    while steps < max_steps:
        steps += 1
        s = len(S)
        x = lam @ C[:s]
        xx = float(x @ x)
        if s == d + 1:
            return ("in" if np.all(lam > 0) else "stall"), S, lam
        tol = 4e-16 * pmax * np.sqrt(xx) * (d + 2)
        j = -1
        if cand.size:  # any improving point will do (Wolfe's step rule needs no argmin)
            vc = Pc @ x
            i = int(np.argmin(vc))
            if xx - vc[i] > tol and not in_s[cand[i]]:
                j = int(cand[i])
        if j < 0:  # a full pass over the points: the candidates, or the proof of optimality
            v = P @ x
            j = int(np.argmin(v))
            if xx - v[j] <= tol or in_s[j]:
                return "out", S, lam
            if n > 2 * _CAND:
                cand = np.argpartition(v, _CAND)[:_CAND]
                Pc = P[cand]
        if not ch.append(1.0 + C[:s] @ P[j], 1.0 + norms2[j]):
            return "stall", S, lam
        C[s] = P[j]
        S.append(j)
        in_s[j] = True
        lam = np.r_[lam, 0.0]
        while steps < max_steps:  # minor cycle
            steps += 1
            alpha = ch.affine_weights()
            if alpha is None:
                return "stall", S, lam
            if np.all(alpha > 0):
                lam = alpha
                break
            # the step toward alpha stops where the first weight reaches 0; lam >= 0 and
            # alpha <= 0 on neg, so lam - alpha is 0 only where both are 0 (the entering
            # point with an affine weight of exactly 0): it leaves at step 0, not 0/0 = nan
            neg = alpha <= 0
            den = lam - alpha
            ratio = np.full(lam.shape, np.inf)
            np.divide(lam, den, out=ratio, where=neg & (den > 0))
            ratio[neg & ~(den > 0)] = 0.0
            t = int(np.argmin(ratio))
            lam = lam + float(ratio[t]) * (alpha - lam)
            lam[t] = 0.0
            for i in sorted((i for i in range(len(S)) if lam[i] <= 0.0), reverse=True):
                ch.delete(i)
                C[i:len(S) - 1] = C[i + 1:len(S)]
                in_s[S[i]] = False
                del S[i]
            lam = lam[lam > 0.0]
            if not S:
                return "stall", S, lam
            lam = lam / lam.sum()
    return "stall", S, lam


def affine_nearest(PS: np.ndarray) -> np.ndarray:
    """The point of the affine hull of the rows PS nearest to 0, by least squares on the
    differences (one step of refinement): accurate to rounding times the conditioning of
    the face, which is what a witness x = -q needs (its margins are confirmed exactly).

    Examples
    --------
    >>> affine_nearest(np.array([[1.0, -1.0], [1.0, 1.0]])).tolist()
    [1.0, 0.0]
    """
    p0 = PS[0]
    if len(PS) == 1:
        return p0.copy()
    D = (PS[1:] - p0).T
    Q, R = qr(D, mode="economic", check_finite=False)
    q = p0.copy()
    for _ in range(2):  # the solve, then one step of refinement with the same factors
        q = q + D @ solve_triangular(R, -(Q.T @ q), check_finite=False)
    return q
