"""The float twin of :mod:`logitgeom.exact.lp`, and the engine's strict-feasibility decision.

:func:`propose` and :func:`propose_support` run the exact kernel's own LPs
(:func:`logitgeom.exact.lp.margin_lp`, :func:`logitgeom.exact.lp.gordan_lp`, written once for
both pycddlib arithmetics) on ``cdd`` floats: they only *propose* a point of the open cone
{x : r . x > 0} or the support of Gordan multipliers, and decide nothing.  :func:`decide`
is the one place that calls both sides: float proposals first, then
:func:`logitgeom.exact.lp.decide`, which accepts a proposal only after an exact check and
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
import os
from collections.abc import Sequence
from fractions import Fraction

import cdd
import numpy as np

from logitgeom.exact import lp, wide

__all__ = ["decide", "propose", "propose_support", "MarginLP"]

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
    """Float twin of :func:`logitgeom.exact.lp.strictly_feasible` (``cdd`` float LP): proposes.

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
    """Float twin of :func:`logitgeom.exact.lp.gordan_multipliers`: the indices of the clearly
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
    multipliers); :func:`logitgeom.exact.lp.decide` decides with those hints, accepting them
    only after exact checks.  Same answer and certificate contract as
    :func:`logitgeom.exact.lp.decide`: a small primitive integer witness, or primitive integer
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


_BANNER_SHOWN = False


def _new_highs():
    """A silent ``highspy.Highs`` (the library prints a banner to fd 1 on its first
    construction in a process; it is kept off the user's stdout)."""
    global _BANNER_SHOWN
    import highspy

    if _BANNER_SHOWN:
        h = highspy.Highs()
    else:
        saved = os.dup(1)
        try:
            with open(os.devnull, "wb") as null:
                os.dup2(null.fileno(), 1)
                h = highspy.Highs()
        finally:
            os.dup2(saved, 1)
            os.close(saved)
        _BANNER_SHOWN = True
    h.setOptionValue("output_flag", False)
    return h


class MarginLP:
    """The float LP  max s  subject to  a_i . z - s >= c_i (rows added over time),
    lo <= z <= hi, s <= 1, solved by HiGHS's primal simplex from a warm vertex.

    A proposal device only: its points, bases and duals are candidates that the caller
    decides exactly.  :meth:`solve` starts from the vertex of the box nearest to a point
    (every bounded z_j at the bound on its side, s basic at the smallest margin there), which
    is primal feasible, so cutting-plane rounds neither restart from the origin (where every
    row is tight and the simplex stalls) nor pay a phase 1.

    Parameters
    ----------
    lo, hi : array_like of float
        Bounds of z (finite).
    tol : float
        HiGHS's primal and dual feasibility tolerances.

    Examples
    --------
    >>> lp = MarginLP([-1.0, -1.0], [1.0, 1.0])
    >>> lp.add_rows(np.array([[1.0, 0.0], [0.0, 1.0]]), np.zeros(2))
    >>> z, s = lp.solve(np.array([1.0, 1.0]))
    >>> z.tolist(), s
    ([1.0, 1.0], 1.0)
    >>> set(lp.tight_rows().tolist()) <= {0, 1}
    True
    """

    def __init__(self, lo, hi, tol: float = 1e-9):
        import highspy

        self._hs = highspy
        self.lo = np.asarray(lo, dtype=np.float64)
        self.hi = np.asarray(hi, dtype=np.float64)
        self.n = self.lo.size
        self.h = _new_highs()
        for key, v in (("primal_feasibility_tolerance", tol),
                       ("dual_feasibility_tolerance", tol), ("simplex_strategy", 4)):
            self.h.setOptionValue(key, v)
        inf = highspy.kHighsInf
        self.h.addVars(self.n + 1, np.r_[self.lo, -inf], np.r_[self.hi, 1.0])
        self.h.changeColsCost(1, np.array([self.n], dtype=np.int32), np.array([-1.0]))
        self.A = np.zeros((0, self.n))
        self.c = np.zeros(0)
        self._solved = False

    def set_option(self, key: str, value) -> None:
        """Set a HiGHS option (e.g. tighter tolerances for a second pass)."""
        self.h.setOptionValue(key, value)

    def add_rows(self, A: np.ndarray, c: np.ndarray) -> None:
        """Add rows a_i . z - s >= c_i."""
        A = np.ascontiguousarray(A, dtype=np.float64)
        m = A.shape[0]
        if m == 0:
            return
        full = np.hstack([A, -np.ones((m, 1))])
        nz = full != 0
        starts = np.r_[0, np.cumsum(nz.sum(axis=1))[:-1]].astype(np.int32)
        idx = np.nonzero(nz)[1].astype(np.int32)
        self.h.addRows(m, np.asarray(c, dtype=np.float64), np.full(m, self._hs.kHighsInf),
                       int(nz.sum()), starts, idx, full[nz])
        self.A = np.vstack([self.A, A])
        self.c = np.r_[self.c, np.asarray(c, dtype=np.float64)]

    def _warm(self, z0: np.ndarray) -> None:
        BS = self._hs.HighsBasisStatus
        zb = np.where(z0 - self.lo >= self.hi - z0, self.hi, self.lo)
        b = self.h.getBasis()
        b.col_status = [BS.kUpper if v == h else BS.kLower
                        for v, h in zip(zb.tolist(), self.hi.tolist(), strict=True)] + [BS.kBasic]
        rs = [BS.kBasic] * self.A.shape[0]
        if rs:
            rs[int(np.argmin(self.A @ zb - self.c))] = BS.kLower
        b.row_status = rs
        b.valid = True
        self.h.setBasis(b)

    def solve(self, z0: np.ndarray | None = None) -> tuple[np.ndarray, float] | None:
        """Solve; (z, s), or None when HiGHS does not report an optimum.

        With ``z0``: primal simplex from the box vertex nearest to ``z0``; without it: dual
        simplex from the last basis (after :meth:`add_rows` of a few cuts)."""
        warm = z0 is not None and np.all(np.isfinite(z0))
        if warm:
            self._warm(np.asarray(z0, dtype=np.float64))
        # primal simplex from a primal feasible vertex; dual simplex from the last optimal
        # basis (a few rows added to it keep it dual feasible)
        self.h.setOptionValue("simplex_strategy", 4 if warm or not self._solved else 1)
        self.h.run()
        self._solved = True
        if self.h.getModelStatus() != self._hs.HighsModelStatus.kOptimal:
            return None
        v = np.array(self.h.getSolution().col_value, dtype=np.float64)
        return v[:self.n], float(v[self.n])

    def tight_rows(self) -> np.ndarray:
        """Indices of the rows that are non-basic in the final basis (at most n + 1: the
        support of a basic dual solution)."""
        BS = self._hs.HighsBasisStatus
        st = self.h.getBasis().row_status
        return np.array([i for i, v in enumerate(st) if v != BS.kBasic], dtype=np.int64)

    def vertex(self) -> np.ndarray | None:
        """z at the vertex of the final basis, re-solved in float64 with one step of
        iterative refinement (often more accurate than the simplex's own iterate): the
        non-basic rows tight, the non-basic columns at their bounds; None when the basis
        does not give a square system.

        Examples
        --------
        >>> lp = MarginLP([-1.0], [1.0])
        >>> lp.add_rows(np.array([[1.0], [-1.0]]), np.array([-0.5, -0.5]))
        >>> lp.solve(np.array([0.0])) is not None
        True
        >>> lp.vertex().round(12).tolist()
        [0.0]
        """
        BS = self._hs.HighsBasisStatus
        cs = list(self.h.getBasis().col_status)
        T = self.tight_rows()
        z = np.array(self.h.getSolution().col_value, dtype=np.float64)
        fixed = [j for j in range(self.n + 1) if cs[j] != BS.kBasic]
        free = [j for j in range(self.n + 1) if cs[j] == BS.kBasic]
        if len(free) != len(T) or not free:
            return None
        for j in fixed:
            if j < self.n:
                z[j] = self.hi[j] if cs[j] == BS.kUpper else self.lo[j]
            else:
                z[j] = 1.0
        M = np.hstack([self.A[T], -np.ones((len(T), 1))])
        rhs = self.c[T] - M[:, fixed] @ z[fixed]
        B = M[:, free]
        try:
            v = np.linalg.solve(B, rhs)
            v = v + np.linalg.solve(B, rhs - B @ v)
        except np.linalg.LinAlgError:
            return None
        z[free] = v
        return z[:self.n] if np.all(np.isfinite(z)) else None

    def duals(self) -> np.ndarray:
        """Magnitudes of the row duals (proposed Gordan weights)."""
        return np.abs(np.array(self.h.getSolution().row_dual, dtype=np.float64))
