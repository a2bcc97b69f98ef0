"""Strict feasibility of homogeneous systems, decided exactly on ``cdd.gmp``.

The question is whether the open cone {x : r . x > 0 for every row r} is non-empty.
The answer is always backed by a certificate that integer arithmetic re-checks:

* feasible: a rational witness x with r . x > 0 for every row;
* infeasible: Gordan multipliers y >= 0, y != 0 with sum_i y_i r_i = 0.  The multipliers
  are a *vertex* of {y >= 0, sum y = 1, R^T y = 0}, so their support is a circuit of the
  rows (a minimal dependent set, at most rank + 1 nonzeros).

:func:`decide` returns both in a canonical, printable form: the witness is a small
primitive integer vector (a point of the cone, scaled and rounded, accepted only after an
exact check: :func:`small_integer_point`), the multipliers are the primitive integer vector
of their circuit (unique up to scaling).  Both are deterministic.

Both LPs run in exact GMP rational arithmetic (``cdd.gmp``); every certificate is checked
in exact arithmetic before it is returned.  The LPs are written once (:func:`margin_lp`,
:func:`gordan_lp`, for either pycddlib arithmetic); the float twin :mod:`logitgeom.lp_float`
runs the same LPs on ``cdd`` floats to *propose* a point or a support, which
:func:`decide` accepts as hints and verifies.  This module never imports the float twin.

Examples
--------
>>> decide([[1, 0], [0, 1]])
(True, (Fraction(1, 1), Fraction(1, 1)))
>>> decide([[1, 0], [-1, 0]])
(False, (Fraction(1, 1), Fraction(1, 1)))
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import cdd
import cdd.gmp

from logitgeom.errors import InvalidInput, SolverFailed
from logitgeom.exact import wide
from logitgeom.exact.linalg import column_basis, primitive_integer_row

__all__ = ["decide", "strictly_feasible", "gordan_multipliers", "check_witness",
           "check_gordan", "small_integer_point", "as_rows", "margin_lp", "gordan_lp", "box_lp"]

Number = int | Fraction


def as_rows(rows: Sequence[Sequence[Number]]) -> tuple[list[list[Fraction]], int]:
    """The rows as exact :class:`~fractions.Fraction` lists, and their length d.

    Raises
    ------
    InvalidInput
        No rows, ragged rows, or rows of length 0.

    Examples
    --------
    >>> as_rows([[1, "1/2"]])
    ([[Fraction(1, 1), Fraction(1, 2)]], 2)
    """
    R = [[Fraction(v) for v in r] for r in rows]
    if not R:
        raise InvalidInput("the system has no rows; give at least one row r (meaning r . x > 0)")
    d = len(R[0])
    for i, r in enumerate(R):
        if len(r) != d:
            raise InvalidInput(f"rows are ragged: row 0 has {d} entries but row {i} has {len(r)}")
    if d == 0:
        raise InvalidInput("rows have no entries (dimension 0)")
    return R, d


def margin_lp(R: list[list[Any]], d: int, module: Any) -> tuple[Any, Any]:
    """Solve max t subject to r . x >= t, t <= 1, -1 <= x_i <= 1 with ``module``
    (``cdd.gmp`` exact here, ``cdd`` float in :mod:`logitgeom.lp_float`); (status, lp)."""
    # variables (x_1..x_d, t); cdd rows [b, a] mean b + a . z >= 0.
    A = [[0, *r, -1] for r in R]
    A.append([1] + [0] * d + [-1])  # t <= 1
    for i in range(d):  # -1 <= x_i <= 1
        e = [0] * d
        e[i] = 1
        A.append([1, *e, 0])
        e[i] = -1
        A.append([1, *e, 0])
    m = module.matrix_from_array(A, rep_type=cdd.RepType.INEQUALITY)
    m.obj_type = cdd.LPObjType.MAX
    m.obj_func = [0] * (d + 1) + [1]
    lp = module.linprog_from_matrix(m)
    module.linprog_solve(lp)
    return lp.status, lp


def gordan_lp(R: list[list[Any]], module: Any) -> Any:
    """Solve {y >= 0, sum y = 1, R^T y = 0} with ``module`` (``cdd.gmp`` exact, ``cdd`` float);
    a basic solution, so its support is a circuit of the rows."""
    k, d = len(R), len(R[0])
    # variables y_1..y_k; equalities sum y = 1 and R^T y = 0 (lin_set), y >= 0.
    A = [[-1] + [1] * k]
    A += [[0] + [R[i][j] for i in range(k)] for j in range(d)]
    lin = set(range(len(A)))
    A += [[0] + [1 if j == i else 0 for j in range(k)] for i in range(k)]
    m = module.matrix_from_array(A, lin_set=lin, rep_type=cdd.RepType.INEQUALITY)
    m.obj_type = cdd.LPObjType.MIN
    m.obj_func = [0] * (k + 1)
    lp = module.linprog_from_matrix(m)
    module.linprog_solve(lp)
    return lp


def check_witness(rows: Sequence[Sequence[Number]], x: Sequence[Number]) -> bool:
    """Exactly check r . x > 0 for every row (rational arithmetic).

    Examples
    --------
    >>> check_witness([[1, -1]], [2, 1]), check_witness([[1, -1]], [1, 1])
    (True, False)
    """
    return all(sum(Fraction(a) * Fraction(b) for a, b in zip(r, x, strict=True)) > 0
               for r in rows)


def check_gordan(rows: Sequence[Sequence[Number]], y: Sequence[Number]) -> bool:
    """Exactly check Gordan multipliers: y >= 0, y != 0 and sum_i y_i r_i = 0.

    Examples
    --------
    >>> check_gordan([[1, 0], [-2, 0]], [2, 1]), check_gordan([[1, 0], [-2, 0]], [1, 1])
    (True, False)
    """
    if len(y) != len(rows) or any(Fraction(v) < 0 for v in y) or all(v == 0 for v in y):
        return False
    d = len(rows[0])
    return all(sum(Fraction(yi) * Fraction(r[j]) for yi, r in zip(y, rows, strict=True)) == 0
               for j in range(d))


def strictly_feasible(rows: Sequence[Sequence[Number]]) -> tuple[Fraction, ...] | None:
    """An exact witness x with r . x > 0 for all rows, or ``None`` if there is none.

    Parameters
    ----------
    rows : sequence of sequences of int or Fraction
        The rows r_i (all of one length d >= 1).

    Returns
    -------
    tuple of Fraction or None
        A witness in the box [-1, 1]^d (checked exactly), or ``None`` when the open cone is
        empty (decided by an exact LP whose optimum is 0).

    Raises
    ------
    InvalidInput
        No rows, ragged rows.
    SolverFailed
        cdd did not report an optimum (never expected: the LP is bounded and feasible).

    Examples
    --------
    >>> strictly_feasible([[1, 1], [1, -1]])
    (Fraction(1, 1), Fraction(0, 1))
    >>> strictly_feasible([[1, 1], [-1, -1]]) is None
    True
    """
    R, d = as_rows(rows)
    status, lp = margin_lp(R, d, cdd.gmp)
    if status != cdd.LPStatusType.OPTIMAL:
        raise SolverFailed(f"exact cdd LP ended with status {status.name}, not OPTIMAL")
    if lp.obj_value <= 0:
        return None
    x = tuple(Fraction(v) for v in lp.primal_solution[:d])
    if not check_witness(R, x):  # pragma: no cover - cdd.gmp is exact
        raise SolverFailed("exact cdd LP returned a witness that fails the exact check")
    return x


def gordan_multipliers(rows: Sequence[Sequence[Number]]) -> tuple[Fraction, ...] | None:
    """Exact Gordan multipliers with circuit support, or ``None`` if the system is feasible.

    Solves the exact LP  y >= 0, sum y = 1, sum_i y_i r_i = 0  and returns a basic
    (vertex) solution: its support is a circuit of the rows, at most rank + 1 nonzeros.

    Parameters
    ----------
    rows : sequence of sequences of int or Fraction

    Returns
    -------
    tuple of Fraction or None
        y (length = number of rows), checked exactly, or ``None`` when no such y exists
        (then the open cone {r . x > 0} is non-empty, by Gordan's theorem).

    Raises
    ------
    InvalidInput
        No rows, ragged rows.
    SolverFailed
        cdd reported neither an optimum nor infeasibility.

    Examples
    --------
    >>> gordan_multipliers([[1, 0], [0, 1], [-1, -1]])
    (Fraction(1, 3), Fraction(1, 3), Fraction(1, 3))
    >>> gordan_multipliers([[1, 0]]) is None
    True
    """
    R, _ = as_rows(rows)
    lp = gordan_lp(R, cdd.gmp)
    if lp.status in (cdd.LPStatusType.INCONSISTENT, cdd.LPStatusType.STRUC_INCONSISTENT):
        return None
    if lp.status != cdd.LPStatusType.OPTIMAL:
        raise SolverFailed(f"exact cdd LP ended with status {lp.status.name}, not OPTIMAL")
    y = tuple(Fraction(v) for v in lp.primal_solution)
    if not check_gordan(R, y):  # pragma: no cover - cdd.gmp is exact
        raise SolverFailed("exact cdd LP returned Gordan multipliers that fail the exact check")
    return y


def small_integer_point(rows: Sequence[Sequence[int]], center: Sequence[Number | float],
                        ) -> tuple[int, ...] | None:
    """A small integer point strictly inside the open cone {x : r . x > 0}, near a ray.

    Tries ``round(m * center / max|center|)`` for m = 1, 2, ..., 32, then 64, 128, ...,
    2^40, takes the first that satisfies every row exactly, moves each entry in turn as
    close to 0 as the cone allows, and divides by the gcd of the entries (the cone is
    homogeneous, so that keeps it inside).  ``center`` only
    proposes (a float interior point is fine); the returned point is checked exactly.

    Parameters
    ----------
    rows : sequence of sequences of int
        Integer rows (scale rational rows by positive factors first; the cone is the same).
    center : sequence of float, int or Fraction
        A point inside or near the cone.

    Returns
    -------
    tuple of int or None
        ``None`` when no candidate lies strictly inside (e.g. a thin cone and a poor center).

    Examples
    --------
    >>> small_integer_point([[1, 1], [1, -1]], [0.9, 0.1])
    (1, 0)
    >>> small_integer_point([[1000, -999], [-1000, 1001]], [1.0, 0.0]) is None  # poor center
    True
    """
    c = [Fraction(v) for v in center]
    top = max((abs(v) for v in c), default=Fraction(0))
    if not top:
        return None
    def inside(z: list[int]) -> bool:
        return all(sum(a * b for a, b in zip(r, z, strict=True)) > 0 for r in rows)

    for m in [*range(1, 33), *(2 ** e for e in range(6, 41))]:
        z = [round(m * v / top) for v in c]
        if inside(z):
            break
    else:
        return None
    for j, v in enumerate(z):  # then each entry as close to 0 as the cone allows
        for u in _toward_zero(v, 64):
            if inside(z[:j] + [u] + z[j + 1:]):
                z[j] = u
                break
    return primitive_integer_row(z)


def _toward_zero(v: int, count: int) -> list[int]:
    """The first ``count`` integers u with |u| < |v|, in the order 0, 1, -1, 2, -2, ...
    (built without listing all 2|v| of them: |v| reaches 2^40 and beyond)."""
    out = [0] if v else []
    t = 1
    while len(out) < count and t < abs(v):
        out.extend((t, -t)[: count - len(out)])
        t += 1
    return out


#: What a bad hint may raise (a float point with nan or inf): the hint is then ignored.
_HINT_FAILURES = (ValueError, ArithmeticError)


def decide(rows: Sequence[Sequence[Number]], *, point: Sequence[Any] | None = None,
           support: Sequence[int] | None = None) -> tuple[bool, tuple[Fraction, ...]]:
    """Decide strict feasibility of {x : r . x > 0 for all rows} with a certificate.

    Hints only save exact LPs, they never decide: a proposed ``point`` is rounded to a small
    integer point that is accepted only after an exact check; a proposed ``support`` (row
    indices of Gordan multipliers) only after an exact LP on those rows returns multipliers
    that check exactly on the whole system.  Otherwise the exact LPs on all rows decide.
    :func:`logitgeom.lp_float.decide` computes the hints with float LPs and calls this.

    Parameters
    ----------
    rows : sequence of sequences of int or Fraction
    point : sequence of float, int or Fraction, optional
        A point inside or near the cone.
    support : sequence of int, optional
        Rows that may carry Gordan multipliers.

    Returns
    -------
    (True, x) or (False, y)
        x: a witness (r . x > 0 for every row), a small primitive integer vector;
        y: Gordan multipliers (y >= 0, y != 0, sum_i y_i r_i = 0) whose support is a
        circuit (<= rank + 1 nonzeros), as primitive integers.  Entries are
        :class:`~fractions.Fraction` (with denominator 1); both are verified exactly.

    Raises
    ------
    InvalidInput
        No rows, ragged rows.
    SolverFailed
        The two exact LPs disagree (never expected) or cdd failed.

    Examples
    --------
    >>> decide([[1, 2], [3, -1]], point=[0.9, 0.1])
    (True, (Fraction(1, 1), Fraction(0, 1)))
    >>> decide([[1, 1], [-2, -2], [0, 1]], support=[0, 1])
    (False, (Fraction(2, 1), Fraction(1, 1), Fraction(0, 1)))
    >>> decide([[1, 1], [-2, -2], [0, 1]])  # no hints: the exact LPs decide
    (False, (Fraction(2, 1), Fraction(1, 1), Fraction(0, 1)))
    """
    R, d = as_rows(rows)
    if wide.is_wide(len(R), d):  # d >> m: the same answer on a column basis (logitgeom.exact.wide)
        return _decide_wide(R, d)
    Ri = [primitive_integer_row(r) for r in R]  # positive row scalings: the same cone
    if point is not None:
        try:
            z = small_integer_point(Ri, point)
        except _HINT_FAILURES:
            z = None
        if z is not None:
            return True, tuple(Fraction(v) for v in z)
    elif support:
        ys = gordan_multipliers([R[i] for i in support])
        if ys is not None:
            full = [Fraction(0)] * len(R)
            for i, v in zip(support, ys, strict=True):
                full[i] = v
            if check_gordan(R, full):
                return False, tuple(Fraction(v) for v in primitive_integer_row(full))
    x = strictly_feasible(R)
    if x is not None:
        z = small_integer_point(Ri, x) or primitive_integer_row(x)
        return True, tuple(Fraction(v) for v in z)
    y = gordan_multipliers(R)
    if y is None:  # pragma: no cover - Gordan's theorem
        raise SolverFailed("exact LPs disagree: no witness and no Gordan multipliers")
    return False, tuple(Fraction(v) for v in primitive_integer_row(y))


def _decide_wide(R: list[list[Fraction]], d: int) -> tuple[bool, tuple[Fraction, ...]]:
    """:func:`decide` on the columns of a column basis; the answer is checked on all of R."""
    cols = list(column_basis(R))
    if not cols:  # every row is zero: no witness, y = (1, 0, ..., 0) would do; let cdd say
        cols = [0]
    ok, z = decide([[r[j] for j in cols] for r in R])
    if ok:
        x = wide.lift(z, cols, d)
        if not check_witness(R, x):  # pragma: no cover - the reduction is exact
            raise SolverFailed("a witness of the column-basis system fails the full system")
        return True, x
    if not check_gordan(R, z):  # pragma: no cover - the reduction is exact
        raise SolverFailed("multipliers of the column-basis system fail the full system")
    return False, z


def box_lp(rows: list[list[int]], d: int, radius: Fraction, gordan: bool
           ) -> tuple[Fraction, list[Fraction]]:
    """Exact LPs of the bounded domain on integer rows (u_i, beta_i) (u . x + beta > 0):

    * ``gordan=False``: maximise s with u_i . x + beta_i >= s, |x_j| <= R, s <= 1;
      returns (s*, x*);
    * ``gordan=True``: minimise sum c_i beta_i + R sum (p_j + q_j) subject to
      sum c_i u_i = p - q, sum c = 1, c, p, q >= 0; returns (value, c) at a vertex.

    Used by the argmax audit's exact completion on a box domain (``logitgeom.audit.complete``).

    Raises
    ------
    SolverFailed
        The exact LP ends with a status other than optimal.

    Examples
    --------
    >>> box_lp([[1, 0, 0], [-1, 1, 0]], 2, Fraction(1), gordan=False)  # x1 >= s, x2 - x1 >= s
    (Fraction(1, 2), [Fraction(1, 2), Fraction(1, 1)])
    """
    n = len(rows)
    A: list[list[Any]]
    if not gordan:
        A = [[r[d], *r[:d], -1] for r in rows]
        A.append([1] + [0] * d + [-1])
        for j in range(d):
            e = [0] * d
            e[j] = 1
            A.append([radius, *e, 0])
            e[j] = -1
            A.append([radius, *e, 0])
        m = cdd.gmp.matrix_from_array(A, rep_type=cdd.RepType.INEQUALITY)
        m.obj_type = cdd.LPObjType.MAX
        m.obj_func = [Fraction(0)] * (d + 1) + [Fraction(1)]
    else:
        nv = n + 2 * d
        A = [[-1] + [1] * n + [0] * (2 * d)]
        for j in range(d):
            row = [0] + [rows[i][j] for i in range(n)] + [0] * (2 * d)
            row[1 + n + j] = -1
            row[1 + n + d + j] = 1
            A.append(row)
        lin = set(range(len(A)))
        for v in range(nv):
            e = [0] * (nv + 1)
            e[1 + v] = 1
            A.append(e)
        m = cdd.gmp.matrix_from_array(A, lin_set=lin, rep_type=cdd.RepType.INEQUALITY)
        m.obj_type = cdd.LPObjType.MIN
        m.obj_func = [Fraction(0)] + [Fraction(r[d]) for r in rows] + [radius] * (2 * d)
    lp = cdd.gmp.linprog_from_matrix(m)
    cdd.gmp.linprog_solve(lp)
    if lp.status != cdd.LPStatusType.OPTIMAL:
        raise SolverFailed(f"exact cdd LP ended with status {lp.status.name}, not OPTIMAL")
    sol = [Fraction(v) for v in lp.primal_solution]
    if gordan:
        return Fraction(lp.obj_value), sol[:n]
    return Fraction(lp.obj_value), sol[:d]
