"""Reading a certificate's data for the Coq export: strict, with one-line errors.

The exporter is not trusted (coqc checks what it writes), but it refuses malformed data
with a clear message naming the file and the place, rather than writing a file that fails
for a reason nobody can see.  Numbers must be canonical ``"p/q"`` strings as in
certificates/SPEC.md.

Examples
--------
>>> r = Reader("c.json")
>>> r.num("-3/4", "/W/0/0")
Fraction(-3, 4)
>>> try:
...     r.num("1.0", "/W/0/0")
... except ExportError as e:
...     print(e)
c.json: /W/0/0: '1.0' is not a canonical rational "p/q"
"""

from __future__ import annotations

import re
from fractions import Fraction

from logitgeom.errors import InvalidInput

__all__ = ["ExportError", "Reader"]

_CANONICAL = re.compile(r"-?(0|[1-9][0-9]{0,3999})(/[1-9][0-9]{0,3999})?", re.ASCII)


class ExportError(InvalidInput):
    """The certificate cannot be exported (malformed, incomplete or not covered)."""


class Reader:
    """Typed access to one certificate's fields; every error names ``source`` and a path.

    Parameters
    ----------
    source : str
        The file name shown in errors.
    """

    def __init__(self, source: str):
        self.source = source

    def fail(self, loc: str, msg: str) -> ExportError:
        """The error to raise."""
        return ExportError(f"{self.source}: {loc or '/'}: {msg}")

    def get(self, obj, key: str, loc: str):
        """``obj[key]``, which must exist."""
        if not isinstance(obj, dict) or key not in obj:
            raise self.fail(loc, f"missing field {key!r}")
        return obj[key]

    def num(self, s, loc: str) -> Fraction:
        """A canonical rational string."""
        if not isinstance(s, str) or not _CANONICAL.fullmatch(s):
            raise self.fail(loc, f"{s!r} is not a canonical rational \"p/q\""[:200])
        f = Fraction(s)
        if "/" in s and (f.denominator == 1 or str(f) != s):
            raise self.fail(loc, f"{s!r} is not in lowest terms")
        return f

    def vec(self, v, loc: str, n: int | None = None) -> list[Fraction]:
        """A list of rationals (of length ``n`` when given)."""
        if not isinstance(v, list) or (n is not None and len(v) != n):
            raise self.fail(loc, f"expected a list of {n if n is not None else 'some'} numbers")
        return [self.num(x, f"{loc}/{i}") for i, x in enumerate(v)]

    def mat(self, M, loc: str) -> list[list[Fraction]]:
        """A non-empty matrix of equal-length non-empty rows."""
        if not isinstance(M, list) or not M or not isinstance(M[0], list) or not M[0]:
            raise self.fail(loc, "expected a non-empty matrix")
        return [self.vec(r, f"{loc}/{i}", len(M[0])) for i, r in enumerate(M)]

    def ints(self, v, loc: str, lo: int, hi: int) -> list[int]:
        """A list of JSON integers in [lo, hi]."""
        if not isinstance(v, list) or not all(type(x) is int and lo <= x <= hi for x in v):
            raise self.fail(loc, f"expected a list of integers in [{lo}, {hi}]")
        return list(v)

    def model(self, obj, loc: str, wkey: str = "W", bkey: str = "bias"):
        """(W, b or None) of a certificate or part."""
        W = self.mat(self.get(obj, wkey, loc), f"{loc}/{wkey}")
        b = obj.get(bkey)
        return W, None if b is None else self.vec(b, f"{loc}/{bkey}", len(W))
