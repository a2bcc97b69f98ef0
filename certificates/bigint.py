"""Decimal text of integers of any length, without Python's int/str digit limit.

Python (3.11+) refuses ``int(s)`` and ``str(n)`` beyond ``sys.get_int_max_str_digits()``
(4,300 digits by default), a limit the engine and the checker did not choose and that a
Gordan proof at d = 768 exceeds (its multipliers run to thousands of digits).  Instead of
raising that interpreter-wide limit, the checker reads through :func:`str_to_int` and the
engine writes through ``logitgeom_certificates.api.int_to_str`` (not part of any verdict,
so not here), which split a long number into pieces of at most :data:`PIECE` digits
(divide and conquer on powers of ten, :func:`pow10`: sub-quadratic with Python's Karatsuba
multiplication).  What bounds the length of a number is then the caller's own limit (the
checker's: certificates/SPEC.md, "Number sizes"), never the interpreter's.  Standard
library only.

Examples
--------
>>> s = "7" * 9000                        # beyond the interpreter's 4,300 digits
>>> str_to_int(s) % 100, str_to_int("-" + s) == -str_to_int(s), str_to_int("0")
(77, True, 0)
"""

from __future__ import annotations

import functools

#: Longest piece converted by the built-in ``int``/``str`` (below the default 4,300).
PIECE = 4000


@functools.lru_cache(maxsize=64)
def pow10(k: int) -> int:
    """10 ** k (cached: the splits of long numbers reuse the same powers)."""
    return int(10 ** k)


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
    if s.startswith("-") and not s.startswith("--"):  # one sign at most
        return -str_to_int(s[1:])
    if not s.isascii() or not s.isdigit():
        raise ValueError(f"not a decimal integer: {s[:40]!r}")
    if len(s) <= PIECE:
        return int(s)
    half = len(s) // 2
    return str_to_int(s[:-half]) * pow10(half) + str_to_int(s[-half:])
