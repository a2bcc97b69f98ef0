"""The one place where user numbers become exact rationals, and back.

Every matrix that reaches the exact side passes through :func:`to_fraction`,
:func:`to_vector` or :func:`to_matrix`.  A float becomes the exact binary
rational it denotes (``0.1`` is ``3602879701896397/36028797018963968``), never a
rounded decimal; NaN and infinities are :class:`~engine.errors.InvalidInput`.

Exact matrices are tuples of tuples of :class:`fractions.Fraction` (immutable,
hashable, usable as cache keys).

Examples
--------
>>> from fractions import Fraction
>>> to_fraction("3/4"), to_fraction(0.5), to_fraction(-2)
(Fraction(3, 4), Fraction(1, 2), Fraction(-2, 1))
>>> to_matrix([[1, "1/2"], [0.25, 0]])
((Fraction(1, 1), Fraction(1, 2)), (Fraction(1, 4), Fraction(0, 1)))
>>> fraction_to_str(Fraction(-6, 4))
'-3/2'
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Sequence
from decimal import Decimal
from fractions import Fraction

import numpy as np

from engine.errors import InvalidInput

__all__ = [
    "ExactMatrix",
    "ExactVector",
    "to_fraction",
    "to_vector",
    "to_matrix",
    "fraction_to_str",
    "vector_to_str",
    "matrix_to_str",
    "to_float",
    "to_float_array",
]

ExactVector = tuple[Fraction, ...]
ExactMatrix = tuple[ExactVector, ...]


def to_fraction(x: object, *, what: str = "value") -> Fraction:
    """Convert one number to an exact :class:`~fractions.Fraction`.

    Parameters
    ----------
    x : int, Fraction, float, Decimal, str, or numpy scalar
        Strings may be integers, decimals (``"0.1"`` is exactly 1/10) or ``"p/q"``.
        Floats (Python or numpy) become the exact binary rational they denote.
    what : str
        Name used in error messages (e.g. ``"W[2,3]"``).

    Returns
    -------
    Fraction

    Raises
    ------
    InvalidInput
        NaN, infinity, booleans, complex numbers, unparsable strings, other types.

    Examples
    --------
    >>> to_fraction("0.1")
    Fraction(1, 10)
    >>> to_fraction(0.1) == Fraction(3602879701896397, 36028797018963968)
    True
    >>> to_fraction(float("nan"))
    Traceback (most recent call last):
    ...
    engine.errors.InvalidInput: value is NaN; every entry must be a finite number
    """
    if isinstance(x, bool | np.bool_):
        raise InvalidInput(f"{what} is a boolean ({x!r}); give a number")
    if isinstance(x, Fraction):
        return x
    if isinstance(x, int | np.integer):
        return Fraction(int(x))
    if isinstance(x, float | np.floating):
        xf = float(x)
        if math.isnan(xf):
            raise InvalidInput(f"{what} is NaN; every entry must be a finite number")
        if math.isinf(xf):
            raise InvalidInput(f"{what} is {xf}; every entry must be a finite number")
        return Fraction(xf)
    if isinstance(x, Decimal):
        if not x.is_finite():
            raise InvalidInput(f"{what} is {x}; every entry must be a finite number")
        return Fraction(x)
    if isinstance(x, str):
        s = x.strip()
        try:
            q = Fraction(s)
        except (ValueError, ZeroDivisionError) as exc:
            low = s.lower()
            if low in {"nan", "+nan", "-nan"}:
                raise InvalidInput(f"{what} is NaN; every entry must be a finite number") from None
            if low.lstrip("+-") in {"inf", "infinity"}:
                raise InvalidInput(f"{what} is {s}; every entry must be a finite number") from None
            raise InvalidInput(
                f"{what} = {x!r} is not a number (use an integer, a decimal or 'p/q')"
            ) from exc
        return q
    if isinstance(x, numbers.Rational):
        return Fraction(x.numerator, x.denominator)
    if isinstance(x, complex | np.complexfloating):
        raise InvalidInput(f"{what} is complex ({x!r}); give a real number")
    raise InvalidInput(f"{what} has unsupported type {type(x).__name__}; give a real number")


def _as_rows(M: object, what: str) -> list:
    if isinstance(M, np.ndarray):
        if M.ndim != 2:
            raise InvalidInput(f"{what} must be a 2-D matrix; got an array of shape {M.shape}")
        return [list(r) for r in M]
    if isinstance(M, str | bytes) or not isinstance(M, Iterable):
        raise InvalidInput(f"{what} must be a matrix (a list of rows); got {type(M).__name__}")
    rows = list(M)
    out = []
    for i, r in enumerate(rows):
        if isinstance(r, np.ndarray):
            if r.ndim != 1:
                raise InvalidInput(f"{what} row {i} is not a 1-D sequence (shape {r.shape})")
            out.append(list(r))
        elif isinstance(r, str | bytes) or not isinstance(r, Iterable):
            raise InvalidInput(
                f"{what} must be a matrix (a list of rows); row {i} is {type(r).__name__}"
            )
        else:
            out.append(list(r))
    return out


def to_matrix(M: object, *, what: str = "W", allow_empty_columns: bool = False) -> ExactMatrix:
    """Convert a matrix (nested sequences or a 2-D numpy array) to exact rationals.

    Parameters
    ----------
    M : array_like
        k rows of equal length d.
    what : str
        Name used in error messages.
    allow_empty_columns : bool
        Accept d = 0 (rows of length zero).

    Returns
    -------
    tuple of tuple of Fraction

    Raises
    ------
    InvalidInput
        Not 2-D, no rows, ragged rows, or any entry :func:`to_fraction` rejects.

    Examples
    --------
    >>> to_matrix(np.array([[1, 2], [3, 4]]))[1]
    (Fraction(3, 1), Fraction(4, 1))
    >>> to_matrix([[1, 2], [3]])
    Traceback (most recent call last):
    ...
    engine.errors.InvalidInput: W is ragged: row 0 has 2 entries but row 1 has 1
    """
    rows = _as_rows(M, what)
    if not rows:
        raise InvalidInput(f"{what} is empty: it needs at least one row")
    d = len(rows[0])
    for i, r in enumerate(rows):
        if len(r) != d:
            raise InvalidInput(f"{what} is ragged: row 0 has {d} entries but row {i} has {len(r)}")
    if d == 0 and not allow_empty_columns:
        raise InvalidInput(f"{what} has no columns: each row needs at least one entry")
    return tuple(
        tuple(to_fraction(x, what=f"{what}[{i},{j}]") for j, x in enumerate(r))
        for i, r in enumerate(rows)
    )


def to_vector(v: object, *, what: str = "v", length: int | None = None) -> ExactVector:
    """Convert a 1-D sequence to a tuple of Fractions, optionally checking its length.

    Examples
    --------
    >>> to_vector([1, "2/3"], length=2)
    (Fraction(1, 1), Fraction(2, 3))
    >>> to_vector([1, 2], what="bias", length=3)
    Traceback (most recent call last):
    ...
    engine.errors.InvalidInput: bias has length 2 but 3 entries are needed
    """
    if isinstance(v, np.ndarray):
        if v.ndim != 1:
            raise InvalidInput(f"{what} must be 1-D; got an array of shape {v.shape}")
        items = list(v)
    elif isinstance(v, str | bytes) or not isinstance(v, Iterable):
        raise InvalidInput(f"{what} must be a sequence of numbers; got {type(v).__name__}")
    else:
        items = list(v)
    if length is not None and len(items) != length:
        raise InvalidInput(f"{what} has length {len(items)} but {length} entries are needed")
    return tuple(to_fraction(x, what=f"{what}[{i}]") for i, x in enumerate(items))


def fraction_to_str(q: Fraction | int) -> str:
    """Canonical text of a rational: ``"p/q"`` in lowest terms, ``"p"`` when q = 1.

    Examples
    --------
    >>> fraction_to_str(Fraction(4, 2)), fraction_to_str(Fraction(-1, 3))
    ('2', '-1/3')
    """
    return str(Fraction(q))


def vector_to_str(v: Sequence[Fraction]) -> list[str]:
    """A vector as a list of canonical ``"p/q"`` strings."""
    return [fraction_to_str(x) for x in v]


def matrix_to_str(M: Sequence[Sequence[Fraction]]) -> list[list[str]]:
    """A matrix as a list of rows of canonical ``"p/q"`` strings."""
    return [vector_to_str(r) for r in M]


def to_float(q: Fraction) -> float:
    """The nearest float to an exact rational (for display and float search only)."""
    return float(q)


def to_float_array(M: Sequence[Sequence[Fraction]] | Sequence[Fraction]) -> np.ndarray:
    """An exact vector or matrix as a float64 numpy array (for display and float search).

    Examples
    --------
    >>> to_float_array(((Fraction(1, 2), Fraction(3)),)).tolist()
    [[0.5, 3.0]]
    """
    return np.array([[float(x) for x in r] if isinstance(r, Sequence) else float(r) for r in M],
                    dtype=float)
