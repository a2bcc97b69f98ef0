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

import math
import re
from collections.abc import Sequence
from fractions import Fraction

__all__ = ["q", "qvec", "qmat", "qmat_common", "qvec_common", "integers", "nats", "zs", "ident",
           "label", "SMALL", "LABEL_CHARS"]

#: The longest label (file stem) taken from a certificate's file name.
LABEL_CHARS = 60

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


def _over(p: int, d: int) -> str:
    """p/d written with this denominator (not reduced)."""
    if abs(p) < SMALL and d < SMALL:
        return f"({p}#{d})"
    return f"Ql {'true' if p < 0 else 'false'} {_limbs(abs(p))} {_limbs(d)}"


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
    return _over(f.numerator, f.denominator)


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


def label(name: str) -> str:
    """The label a file name gives an exported file: ASCII letters, digits, ``.``, ``-`` and
    ``_`` are kept, every other character (comment delimiters, quotes, newlines, non-ASCII)
    becomes ``_``, runs of ``_`` are merged, and at most :data:`LABEL_CHARS` characters are
    kept.  Nothing else of a file name reaches a ``.v`` file.

    Examples
    --------
    >>> label("a*) Axiom b : False. (*")
    'a_Axiom_b_False._'
    >>> len(label("x" * 10000))
    60
    """
    s = re.sub(r"_+", "_", re.sub(r"[^A-Za-z0-9._-]", "_", name, flags=re.ASCII))
    return s[:LABEL_CHARS].strip("-.") or "certificate"


def ident(name: str) -> str:
    """A Coq identifier (and file stem) made from ``name``'s :func:`label`: other characters
    become ``_``.

    Examples
    --------
    >>> ident("3x")
    'c_3x'
    """
    s = re.sub(r"[^A-Za-z0-9_]", "_", label(name), flags=re.ASCII).strip("_") or "claim"
    return s if s[0].isalpha() else "c_" + s


def qmat_common(M: Sequence[Sequence[Fraction]], D: int | None = None) -> str:
    """A matrix written over one common denominator D (the lcm of its entries'), so that
    the Coq checkers' sums of its rows need no gcd (``qadd`` in Logitgeom.v).  A row whose
    numerators fit in 63-bit signed integers is written ``Qrow [D]%uint63 [n...]%sint63``
    (primitive integers: fast to read), any other row entry by entry.

    Examples
    --------
    >>> qmat_common([[Fraction(1, 2), Fraction(-1, 4)]])
    '[Qrow [4]%uint63 [2; -1]%sint63]'
    >>> qmat_common([[Fraction(1, 2)]], D=6)
    '[Qrow [6]%uint63 [3]%sint63]'
    """
    if D is None:
        D = math.lcm(*(Fraction(x).denominator for r in M for x in r))
    out = []
    for r in M:
        ns = [int(Fraction(x) * D) for x in r]
        if all(-(1 << 62) <= n < (1 << 62) for n in ns):
            out.append(f"Qrow {_limbs(D)} [" + "; ".join(map(str, ns)) + "]%sint63")
        else:
            out.append("[" + "; ".join(_over(n, D) for n in ns) + "]")
    return "[" + ";\n ".join(out) + "]"


def qvec_common(v: Sequence[Fraction], D: int | None = None) -> str:
    """A vector over one common denominator (``D``, a multiple of every entry's, or the
    lcm; see :func:`qmat_common`)."""
    return qmat_common([v], D)[1:-1]


def integers(v: Sequence[Fraction]) -> list[Fraction]:
    """The positive multiple of ``v`` with integer entries (the lcm of the denominators):
    Gordan multipliers stay valid under positive scaling.

    Examples
    --------
    >>> integers([Fraction(1, 2), Fraction(1, 3)])
    [Fraction(3, 1), Fraction(2, 1)]
    """
    D = math.lcm(*(Fraction(x).denominator for x in v)) if len(v) else 1
    return [Fraction(x) * D for x in v]
