"""The one place where user numbers become exact rationals, and back.

Every matrix that reaches the exact side passes through :func:`to_fraction`,
:func:`to_vector` or :func:`to_matrix`.  A float becomes the exact binary
rational it denotes (``0.1`` is ``3602879701896397/36028797018963968``), never a
rounded decimal; NaN and infinities are :class:`~logitgeom.errors.InvalidInput`.

Text is checked *before* it is parsed: a string must be an integer, a decimal (with an
optional exponent) or ``p/q``, with at most :data:`MAX_DIGITS` digits in each part and an
exponent of at most :data:`MAX_EXPONENT` in absolute value, so that no short string (such
as ``"1e100000000"``) can cost unbounded time or memory.  The limits are stated in
``docs/limits.md``.

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
import re
from collections.abc import Iterable, Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np

from logitgeom.errors import InvalidInput

#: MAX_DIGITS: most digits accepted in one part of a number written as text (integer part
#: plus fraction digits of a decimal, or each of p and q of ``p/q``); the checker's own
#: limit, one constant for the engine, the checker and the docs.
from logitgeom_certificates.api import MAX_DIGITS, int_to_str

__all__ = [
    "ExactMatrix",
    "ExactVector",
    "MAX_DIGITS",
    "MAX_EXPONENT",
    "check_number_text",
    "to_fraction",
    "exact_if_extended",
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

#: Largest absolute decimal exponent accepted in text (``1e1000`` is accepted, ``1e1001`` not).
MAX_EXPONENT = 1000

_DECIMAL = re.compile(r"[+-]?(?P<int>\d*)(?:\.(?P<frac>\d*))?(?:[eE](?P<exp>[+-]?\d+))?",
                      re.ASCII)
_RATIO = re.compile(r"[+-]?(?P<num>\d+)/(?P<den>\d+)", re.ASCII)


def _limit_error(what: str, text: str, detail: str) -> InvalidInput:
    shown = text if len(text) <= 40 else text[:20] + "..." + text[-10:]
    return InvalidInput(
        f"{what} = {shown!r} is too large to read: {detail} (limits: {MAX_DIGITS} digits, "
        f"exponent {MAX_EXPONENT}; see docs/limits.md)"
    )


#: bits of the largest numerator or denominator given as a number (not text): those of the
#: largest MAX_DIGITS-digit integer, so every accepted number has a decimal string
_MAX_BITS = 13288


def _bounded(q: Fraction, what: str) -> Fraction:
    """``q`` if its numerator and denominator have at most :data:`MAX_DIGITS` digits."""
    if q.numerator.bit_length() > _MAX_BITS or q.denominator.bit_length() > _MAX_BITS:
        big = max(q.numerator.bit_length(), q.denominator.bit_length())
        raise InvalidInput(f"{what} is too large to read: about {int(big * 0.30103) + 1} digits "
                           f"(limit: {MAX_DIGITS} digits; see docs/limits.md)")
    return q


def check_number_text(text: str, *, what: str = "value") -> str:
    """Check the textual form of a number before it is parsed; return it stripped.

    Accepted: an integer, a decimal with optional exponent (``-1.5e-3``) or ``p/q``; each
    part has at most :data:`MAX_DIGITS` digits and the exponent is at most
    :data:`MAX_EXPONENT` in absolute value.  Costs time linear in the text, whatever it is.

    Raises
    ------
    InvalidInput
        Not a number (the message says what is accepted) or over a limit (the message names
        the limit).

    Examples
    --------
    >>> check_number_text(" 3/4 ")
    '3/4'
    >>> check_number_text("1e100000000")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    logitgeom.errors.InvalidInput: value = '1e100000000' is too large to read: exponent ...
    """
    s = text.strip()
    if len(s) > 2 * MAX_DIGITS + 40:
        raise _limit_error(what, s, f"{len(s)} characters")
    m = _RATIO.fullmatch(s)
    if m:
        for part in ("num", "den"):
            if len(m[part]) > MAX_DIGITS:
                raise _limit_error(what, s, f"{len(m[part])} digits")
        return s
    m = _DECIMAL.fullmatch(s)
    if not m or not (m["int"] or m["frac"]):
        low = s.lower()
        if low in {"nan", "+nan", "-nan"}:
            raise InvalidInput(f"{what} is NaN; every entry must be a finite number")
        if low.lstrip("+-") in {"inf", "infinity"}:
            raise InvalidInput(f"{what} is {s}; every entry must be a finite number")
        shown = s if len(s) <= 40 else s[:37] + "..."
        raise InvalidInput(f"{what} = {shown!r} is not a number (use an integer, a decimal or "
                           "'p/q')")
    digits = len(m["int"] or "") + len(m["frac"] or "")
    if digits > MAX_DIGITS:
        raise _limit_error(what, s, f"{digits} digits")
    if m["exp"] is not None:
        e = m["exp"].lstrip("+-").lstrip("0")
        if len(e) > len(str(MAX_EXPONENT)) or int(e or 0) > MAX_EXPONENT:
            shown = e if len(e) <= 20 else e[:10] + "..."
            raise _limit_error(what, s, f"exponent {shown} exceeds {MAX_EXPONENT}")
    return s


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
        NaN, infinity, booleans, complex numbers, unparsable strings, other types, and
        numbers with more than :data:`MAX_DIGITS` digits (text, integers and fractions
        alike).

    Examples
    --------
    >>> to_fraction("0.1")
    Fraction(1, 10)
    >>> to_fraction(0.1) == Fraction(3602879701896397, 36028797018963968)
    True
    >>> to_fraction(float("nan"))
    Traceback (most recent call last):
    ...
    logitgeom.errors.InvalidInput: value is NaN; every entry must be a finite number
    """
    if isinstance(x, bool | np.bool_):
        raise InvalidInput(f"{what} is a boolean ({x!r}); give a number")
    if isinstance(x, Fraction):
        return _bounded(x, what)
    if isinstance(x, int | np.integer):
        return _bounded(Fraction(int(x)), what)
    if isinstance(x, np.floating) and x.dtype.itemsize > 8:  # extended precision: exactly
        if np.isnan(x):
            raise InvalidInput(f"{what} is NaN; every entry must be a finite number")
        if np.isinf(x):
            raise InvalidInput(f"{what} is {x}; every entry must be a finite number")
        num, den = x.as_integer_ratio()
        return _bounded(Fraction(int(num), int(den)), what)
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
        t = x.as_tuple()
        if len(t.digits) > MAX_DIGITS or abs(int(t.exponent)) > MAX_EXPONENT + MAX_DIGITS:
            raise _limit_error(what, str(x), "too many digits or too large an exponent")
        return Fraction(x)
    if isinstance(x, bytes):
        try:
            x = x.decode("ascii")
        except UnicodeDecodeError:
            raise InvalidInput(f"{what} is not text a number can be read from") from None
    if isinstance(x, str):
        s = check_number_text(x, what=what)
        try:
            q = Fraction(s)
        except (ValueError, ZeroDivisionError) as exc:
            raise InvalidInput(
                f"{what} = {s!r} is not a number (a zero denominator?); use an integer, a "
                "decimal or 'p/q' with q != 0"
            ) from exc
        return q
    if isinstance(x, numbers.Rational):
        return _bounded(Fraction(int(x.numerator), int(x.denominator)), what)
    if isinstance(x, complex | np.complexfloating):
        raise InvalidInput(f"{what} is complex ({x!r}); give a real number")
    raise InvalidInput(f"{what} has unsupported type {type(x).__name__}; give a real number")


def exact_if_extended(a: object, *, what: str = "value") -> object:
    """An extended-precision float array (``np.longdouble``: float96/float128) as an object
    array of the exact Fractions its entries denote; anything else unchanged.

    Float64 and narrower arrays stay floats (every one of their values is a float64, which
    the float paths hold exactly); a wider float would be rounded by them, so it becomes
    exact rationals instead.

    Examples
    --------
    >>> a = np.array([1, 1 + np.longdouble(2) ** -63], dtype=np.longdouble)
    >>> exact_if_extended(a)[1] - 1 == Fraction(1, 2 ** 63) or np.finfo(np.longdouble).nmant < 63
    True
    >>> exact_if_extended(np.zeros(2)).dtype
    dtype('float64')
    """
    if not (isinstance(a, np.ndarray) and a.dtype.kind == "f" and a.dtype.itemsize > 8):
        return a
    out = np.empty(a.shape, dtype=object)
    for idx, x in np.ndenumerate(a):
        out[idx] = to_fraction(x, what=f"{what}[{','.join(map(str, idx))}]")
    return out


def _as_rows(M: object, what: str) -> list[Any]:
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
    logitgeom.errors.InvalidInput: W is ragged: row 0 has 2 entries but row 1 has 1
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
    def entry(x: object, i: int, j: int) -> Fraction:
        if type(x) is Fraction and x.numerator.bit_length() <= _MAX_BITS \
                and x.denominator.bit_length() <= _MAX_BITS:
            return x  # what to_fraction returns (a file's entries come read already)
        return to_fraction(x, what=f"{what}[{i},{j}]")

    return tuple(tuple(entry(x, i, j) for j, x in enumerate(r)) for i, r in enumerate(rows))


def to_vector(v: object, *, what: str = "v", length: int | None = None) -> ExactVector:
    """Convert a 1-D sequence to a tuple of Fractions, optionally checking its length.

    Examples
    --------
    >>> to_vector([1, "2/3"], length=2)
    (Fraction(1, 1), Fraction(2, 3))
    >>> to_vector([1, 2], what="bias", length=3)
    Traceback (most recent call last):
    ...
    logitgeom.errors.InvalidInput: bias has length 2 but 3 entries are needed
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
    >>> len(fraction_to_str(Fraction(10 ** 6000, 3)))  # no int/str digit limit
    6003
    """
    q = Fraction(q)
    num: str = int_to_str(q.numerator)
    if q.denominator == 1:
        return num
    return f"{num}/{int_to_str(q.denominator)}"


def vector_to_str(v: Sequence[Fraction]) -> list[str]:
    """A vector as a list of canonical ``"p/q"`` strings."""
    return [fraction_to_str(x) for x in v]


def matrix_to_str(M: Sequence[Sequence[Fraction]]) -> list[list[str]]:
    """A matrix as a list of rows of canonical ``"p/q"`` strings."""
    return [vector_to_str(r) for r in M]


def to_float(q: Fraction) -> float:
    """The nearest float to an exact rational (for display and float search only).

    Raises
    ------
    InvalidInput
        ``|q|`` is beyond the largest float (about 1.8e308).
    """
    try:
        return float(q)
    except OverflowError:
        raise InvalidInput(
            f"{fraction_to_str(q)[:30]}... is beyond the float range (|x| > 1.8e308); the "
            "float side cannot use it"
        ) from None


def to_float_array(M: Sequence[Sequence[Fraction]] | Sequence[Fraction]) -> np.ndarray:
    """An exact vector or matrix as a float64 numpy array (for display and float search).

    Examples
    --------
    >>> to_float_array(((Fraction(1, 2), Fraction(3)),)).tolist()
    [[0.5, 3.0]]
    """
    return np.array([[to_float(x) for x in r] if isinstance(r, Sequence) else to_float(r)
                     for r in M], dtype=float)
