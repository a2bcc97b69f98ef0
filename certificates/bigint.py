"""Decimal text of integers of any length, without Python's int/str digit limit.

Python (3.11+) refuses ``int(s)`` and ``str(n)`` beyond ``sys.get_int_max_str_digits()``
(4,300 digits by default), a limit the engine and the checker did not choose and that a
Gordan proof at d = 768 exceeds (its multipliers run to thousands of digits).  Instead of
raising that interpreter-wide limit, both sides convert through these two functions, which
split a long number into pieces of at most :data:`PIECE` digits (divide and conquer on
powers of ten: sub-quadratic with Python's Karatsuba multiplication).  What bounds the
length of a number is then the caller's own limit (the checker's: certificates/SPEC.md,
"Number sizes"), never the interpreter's.  Standard library only.

Examples
--------
>>> n = 7 ** 20000                       # 16,902 digits
>>> s = int_to_str(n)
>>> len(s), str_to_int(s) == n, str_to_int("-" + s) == -n
(16902, True, True)
>>> int_to_str(-12), str_to_int("0")
('-12', 0)
"""

from __future__ import annotations

import functools

__all__ = ["PIECE", "int_to_str", "str_to_int"]

#: Longest piece converted by the built-in ``int``/``str`` (below the default 4,300).
PIECE = 4000
_PIECE_BITS = 13000  # 13,000 bits < 3,914 + 1 digits: safely one piece


@functools.lru_cache(maxsize=64)
def _pow10(k: int) -> int:
    return int(10 ** k)


def int_to_str(n: int) -> str:
    """Decimal text of the integer ``n`` (any length; ``"-"`` for negatives).

    Parameters
    ----------
    n : int

    Returns
    -------
    str

    Examples
    --------
    >>> int_to_str(10 ** 5000) == "1" + "0" * 5000
    True
    """
    if n < 0:
        return "-" + int_to_str(-n)
    if n.bit_length() <= _PIECE_BITS:
        return str(n)
    half = (n.bit_length() * 30103 // 100000) // 2  # about half the digits
    hi, lo = divmod(n, _pow10(half))
    return int_to_str(hi) + int_to_str(lo).zfill(half)


def str_to_int(s: str) -> int:
    """The integer of a decimal text (optional ``-``, ASCII digits only; any length).

    The caller checks the text's form and length first (this function trusts both).

    Parameters
    ----------
    s : str

    Returns
    -------
    int

    Raises
    ------
    ValueError
        Text that is not an optionally signed run of ASCII digits.

    Examples
    --------
    >>> str_to_int("-" + "9" * 9000) == -(10 ** 9000 - 1)
    True
    """
    if s.startswith("-"):
        return -str_to_int(s[1:])
    if not s.isascii() or not s.isdigit():
        raise ValueError(f"not a decimal integer: {s[:40]!r}")
    if len(s) <= PIECE:
        return int(s)
    half = len(s) // 2
    return str_to_int(s[:-half]) * _pow10(half) + str_to_int(s[-half:])
