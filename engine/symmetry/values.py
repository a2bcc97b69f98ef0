"""Exact value codes of a matrix: equal codes iff equal exact entries (private helper)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from logitgeom.errors import InvalidInput
from logitgeom.exact.numbers import exact_if_extended, to_fraction

__all__ = ["tolerant_codes", "value_codes"]


def value_codes(Y: object, *, what: str = "Y") -> tuple[np.ndarray, list[Fraction]]:
    """Integer codes of the entries of Y and the sorted distinct exact values.

    A float64 array is compared as the exact binary rationals its entries denote
    (``==`` on floats is exact equality; no tolerance is used).  Anything else goes
    through :func:`logitgeom.exact.numbers.to_fraction` entry by entry.

    Parameters
    ----------
    Y : array_like, 2-D
    what : str
        Name used in error messages.

    Returns
    -------
    codes : numpy.ndarray of int64, shape (m, n)
    values : list of Fraction
        ``values[codes[i, j]]`` is the exact value of ``Y[i, j]``; sorted increasingly.

    Raises
    ------
    InvalidInput
        Not 2-D, empty, ragged, NaN/inf, non-numbers.

    Examples
    --------
    >>> K, vals = value_codes([["1/2", 0.5], [0, "1/3"]])
    >>> K.tolist(), [str(v) for v in vals]
    ([[2, 2], [0, 1]], ['0', '1/3', '1/2'])
    """
    Y = exact_if_extended(Y, what=what)  # float128: its exact rationals, never rounded
    if isinstance(Y, np.ndarray) and Y.dtype.kind == "f":
        if Y.ndim != 2 or Y.size == 0:
            raise InvalidInput(f"{what} must be a non-empty 2-D matrix; got shape {Y.shape}")
        if not np.all(np.isfinite(Y)):
            i, j = (int(x) for x in np.argwhere(~np.isfinite(Y))[0])
            raise InvalidInput(f"{what}[{i},{j}] is {Y[i, j]}; every entry must be finite")
        uniq, inv = np.unique(Y + 0.0, return_inverse=True)  # + 0.0 maps -0.0 to 0.0
        return inv.reshape(Y.shape).astype(np.int64), [Fraction(float(u)) for u in uniq]
    if isinstance(Y, np.ndarray) and Y.dtype.kind in "iu":
        if Y.ndim != 2 or Y.size == 0:
            raise InvalidInput(f"{what} must be a non-empty 2-D matrix; got shape {Y.shape}")
        uniq, inv = np.unique(Y, return_inverse=True)
        return inv.reshape(Y.shape).astype(np.int64), [Fraction(int(u)) for u in uniq]
    if isinstance(Y, np.ndarray):
        if Y.ndim != 2:
            raise InvalidInput(f"{what} must be a 2-D matrix; got shape {Y.shape}")
        rows = Y.tolist()
    else:
        try:
            rows = [list(r) for r in Y]  # type: ignore[union-attr]
        except TypeError:
            raise InvalidInput(f"{what} must be a 2-D matrix (a list of rows)") from None
    if not rows or not rows[0]:
        raise InvalidInput(f"{what} is empty")
    n = len(rows[0])
    cache: dict[object, Fraction] = {}
    exact = []
    for i, r in enumerate(rows):
        if len(r) != n:
            raise InvalidInput(f"{what} is ragged: row 0 has {n} entries but row {i} has {len(r)}")
        out = []
        for j, x in enumerate(r):
            key = (type(x), x) if isinstance(x, int | float | str | Fraction) else None
            q = cache.get(key) if key is not None else None
            if q is None:
                q = to_fraction(x, what=f"{what}[{i},{j}]")
                if key is not None:
                    cache[key] = q
            out.append(q)
        exact.append(out)
    values = sorted({q for r in exact for q in r})
    pos = {q: k for k, q in enumerate(values)}
    codes = np.array([[pos[q] for q in r] for r in exact], dtype=np.int64)
    return codes, values


def tolerant_codes(Y: np.ndarray, tol: float) -> np.ndarray:
    """Integer codes of a float matrix where entries closer than ``tol`` share a code
    (chained along the sorted values: 0, 0.6 tol, 1.2 tol all share one).

    Examples
    --------
    >>> tolerant_codes(np.array([[0.5, 0.5 + 1e-15], [0.25, 0.75]]), 1e-12).tolist()
    [[1, 1], [0, 2]]
    """
    flat = np.asarray(Y, dtype=float).ravel()
    order = np.argsort(flat, kind="stable")
    v = flat[order]
    new = np.concatenate([[0], (np.diff(v) > tol).astype(np.int64)]).cumsum()
    codes = np.empty_like(new)
    codes[order] = new
    return codes.reshape(np.shape(Y))
