"""Coq terms for exported data: rationals, vectors, matrices, label and sign lists.

Short rationals are written ``(p#q)``; long ones with :coq:`Ql` (digits in base 2^62 as
Coq's primitive 63-bit integers, which Coq reads far faster than long decimal literals; see
``certificates/coq/Logitgeom.v``).  Nothing here decides anything: a wrong term makes coqc
reject the file.

Examples
--------
>>> from fractions import Fraction
>>> q(Fraction(-3, 4)), q(Fraction(2**70, 3))
('(-3#4)', 'Ql false [0; 256]%uint63 [3]%uint63')
>>> nats([0, 2, 1]), zs([1, -1, 0])
('[0; 2; 1]%nat', '[1; -1; 0]%Z')
>>> ident("thm-3.4-translation")
'thm_3_4_translation'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction

__all__ = ["q", "qvec", "qmat", "nats", "zs", "ident", "SMALL"]

#: Numerators and denominators below this are written as decimal literals.
SMALL = 10 ** 6
_BASE = 62


def _limbs(n: int) -> str:
    out = []
    while True:
        out.append(str(n & ((1 << _BASE) - 1)))
        n >>= _BASE
        if not n:
            return "[" + "; ".join(out) + "]%uint63"


def q(f: Fraction) -> str:
    """The rational ``f`` as a Coq term of type ``Q``.

    Parameters
    ----------
    f : Fraction

    Returns
    -------
    str

    Examples
    --------
    >>> q(Fraction(5))
    '(5#1)'
    """
    f = Fraction(f)
    p, d = f.numerator, f.denominator
    if abs(p) < SMALL and d < SMALL:
        return f"({p}#{d})"
    return f"Ql {'true' if p < 0 else 'false'} {_limbs(abs(p))} {_limbs(d)}"


def qvec(v: Sequence[Fraction]) -> str:
    """A vector (``vec``, a list of ``Q``).

    Examples
    --------
    >>> qvec([Fraction(1), Fraction(1, 2)])
    '[(1#1); (1#2)]'
    """
    return "[" + "; ".join(q(x) for x in v) + "]"


def qmat(M: Sequence[Sequence[Fraction]]) -> str:
    """A matrix (``mat``), one row a line.

    Examples
    --------
    >>> print(qmat([[Fraction(1), Fraction(0)], [Fraction(0), Fraction(1)]]))
    [[(1#1); (0#1)];
     [(0#1); (1#1)]]
    """
    return "[" + ";\n ".join(qvec(r) for r in M) + "]"


def nats(v: Sequence[int]) -> str:
    """A list of labels (``list nat``)."""
    return "[" + "; ".join(str(int(x)) for x in v) + "]%nat"


def zs(v: Sequence[int]) -> str:
    """A sign vector (``list Z``)."""
    return "[" + "; ".join(str(int(x)) for x in v) + "]%Z"


def ident(name: str) -> str:
    """A Coq identifier (and file stem) made from ``name``: other characters become ``_``.

    Examples
    --------
    >>> ident("3x")
    'c_3x'
    """
    s = re.sub(r"[^A-Za-z0-9_]", "_", name).strip("_") or "claim"
    return s if s[0].isalpha() else "c_" + s
