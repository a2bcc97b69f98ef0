"""Reading the layer-peeled program's inputs: the target Y and the budgets, validated.

Float input stays float (columns must sum to 1 within :data:`SUM_TOL`, or a multiple of the
dtype's epsilon for narrower floats); exact input (strings, Fractions, integers) stays
exact.  Bad input raises :class:`~logitgeom.errors.InvalidInput` with a one-line message.

Examples
--------
>>> E, F, normalized = read_target([["1/2", "1/4"], ["1/2", "3/4"]])
>>> E[1, 1], float(F[1, 1]), normalized
(Fraction(3, 4), 0.75, False)
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from logitgeom.errors import InvalidInput
from logitgeom.exact.numbers import exact_if_extended, to_fraction, to_matrix
from logitgeom.symmetry.constructors import OrbitTargets

__all__ = ["SUM_TOL", "float_sum_tol", "read_target", "read_budget", "check_orbit_bases"]

#: tolerance on each column sum of Y (the contract: "columns sum to 1 within 1e-9")
SUM_TOL = 1e-9


def read_budget(x: object, name: str) -> Fraction:
    """A squared Frobenius budget, exact, positive, and usable by the float side.

    Parameters
    ----------
    x : number or string
        The budget as given (exact conversion).
    name : str
        ``"E_W"`` or ``"E_H"`` (names it in a message).

    Returns
    -------
    Fraction

    Raises
    ------
    InvalidInput
        Not a number, not positive, or outside the float range the solvers work in (its
        float is 0 or infinite).

    Examples
    --------
    >>> read_budget("1/2", "E_W")
    Fraction(1, 2)
    >>> read_budget("1e-400", "E_H")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    logitgeom.errors.InvalidInput: E_H = '1e-400' is below the smallest positive float ...
    """
    q = to_fraction(x, what=name)
    if q <= 0:
        raise InvalidInput(f"{name} must be > 0 (a squared Frobenius budget); got {x!r}")
    if q < _TINY:
        raise InvalidInput(f"{name} = {x!r} is below the smallest positive float (about "
                           "2.2e-308); the solvers need a budget between 2.2e-308 and 1.8e308")
    if q > _HUGE:
        raise InvalidInput(f"{name} = {x!r} is beyond the float range (about 1.8e308); the "
                           "solvers need a budget between 2.2e-308 and 1.8e308")
    return q


#: the smallest positive normal float and the largest float, exactly
_TINY = Fraction(float.fromhex("0x1p-1022"))
_HUGE = Fraction(float.fromhex("0x1.fffffffffffffp+1023"))



def float_sum_tol(dtype: Any, m: int) -> float:
    """Tolerance on a column sum of float input: ``max(SUM_TOL, m * eps(dtype))``.

    Examples
    --------
    >>> float_sum_tol(np.float64, 10), float_sum_tol(np.float32, 10) > 1e-6
    (1e-09, True)
    """
    return max(SUM_TOL, m * float(np.finfo(dtype).eps))


def read_target(Y: Any, normalize: bool = False) -> tuple[np.ndarray, np.ndarray, bool]:
    """(exact entries: float array or object array of Fraction, float64 array, whether the
    columns were divided by their sums)."""
    Y = exact_if_extended(Y, what="Y")  # float128: its exact rationals, never rounded
    if isinstance(Y, np.ndarray) and Y.dtype.kind in "fiu":
        if Y.ndim != 2:
            raise InvalidInput(f"Y must be a 2-D matrix; got an array of shape {Y.shape}")
        if Y.size == 0:
            raise InvalidInput(f"Y is empty (shape {Y.shape})")
        F = np.asarray(Y, dtype=float)  # float64 input is not copied: taken read-only
        if F is Y or F.base is Y:
            F = F.view()
            F.flags.writeable = False
        if Y.dtype.kind == "f":
            bad = np.argwhere(~np.isfinite(F))
            if bad.size:
                i, j = bad[0]
                raise InvalidInput(f"Y[{i},{j}] is {F[i, j]}; every entry must be finite")
        neg = np.argwhere(F < 0)
        if neg.size:
            i, j = neg[0]
            raise InvalidInput(f"Y[{i},{j}] = {float(F[i, j])!r} is negative; Y holds "
                               f"probabilities ({len(neg)} negative entries)")
        # summed in sorted order: columns that are permutations of each other get the same
        # float sum, so normalising keeps a symmetry of Y exact (rounding ~ m * 1e-16)
        sums = np.sort(F, axis=0).sum(axis=0)
        low = Y.dtype.kind == "f" and np.finfo(Y.dtype).eps > np.finfo(np.float64).eps
        tol = float_sum_tol(Y.dtype, F.shape[0]) if low else SUM_TOL
        if normalize or low:
            zero = np.flatnonzero(sums <= 0)
            if zero.size:
                raise InvalidInput(f"Y column {int(zero[0])} sums to 0; cannot normalise it")
        if not normalize:
            bad = np.flatnonzero(np.abs(sums - 1.0) > tol)
            if bad.size:
                j = int(bad[0])
                kind = f"{Y.dtype} input" if Y.dtype.kind == "f" else "integer input"
                raise InvalidInput(f"Y column {j} sums to {float(sums[j]):.12g}, not 1 "
                                   f"(tolerance {tol:g} for {kind}); pass normalize=True "
                                   "(CLI: --normalize) to "
                                   "divide each column by its sum")
        if normalize or low:
            F = F / sums[None, :]
            return F, F, True
        return F, F, False
    exact = to_matrix(Y, what="Y")
    E = np.empty((len(exact), len(exact[0])), dtype=object)
    for i, row in enumerate(exact):
        for j, q in enumerate(row):
            if q < 0:
                raise InvalidInput(f"Y[{i},{j}] = {q} is negative; Y holds probabilities")
            E[i, j] = q
    sums = [sum(E[:, j], Fraction(0)) for j in range(E.shape[1])]
    if normalize:
        for j, tot in enumerate(sums):
            if tot == 0:
                raise InvalidInput(f"Y column {j} sums to 0; cannot normalise it")
            E[:, j] = [q / tot for q in E[:, j]]
    else:
        for j, tot in enumerate(sums):
            if abs(tot - 1) > SUM_TOL:
                raise InvalidInput(f"Y column {j} sums to {float(tot):.12g}, not 1 (tolerance "
                                   f"{SUM_TOL:g}); pass normalize=True "
                                   "(CLI: --normalize) to divide each column "
                                   "by its sum")
    F = np.array([[float(q) for q in row] for row in E.tolist()], dtype=float)
    return E, F, normalize




def check_orbit_bases(T: OrbitTargets) -> None:
    """An OrbitTargets' columns are permutations of its bases: checking the bases checks Y
    (entries >= 0, sums 1 within ``SUM_TOL``), with no pass over the n columns."""
    for b, v in enumerate(T.base):
        if min(v) < 0:
            raise InvalidInput(f"base vector {b} of the orbit target has a negative entry")
        tot = sum(v, Fraction(0))
        if abs(tot - 1) > SUM_TOL:
            raise InvalidInput(f"base vector {b} of the orbit target sums to {float(tot):.12g}, "
                               f"not 1 (tolerance {SUM_TOL:g}); pass normalize=True "
                               "(CLI: --normalize) to divide "
                               "each column by its sum")


