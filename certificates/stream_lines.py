"""Fast exact check of one shard line of a streamed certificate (standard library only).

A line that the writer produced is in one canonical form,
``{"pattern":[s_0,...,s_{k-1}],"witness":["p_0/q_0",...]}`` (no spaces).  For such a line
the check below decides exactly what the general path (:func:`logitgeom_certificates.semantics.
listed_pattern` on the parsed JSON) decides, without building JSON objects or ``Fraction``
values:

* the pattern's tokens are canonical JSON integers (no leading zeros), a sign vector in
  {-1, 0, 1} with 0 exactly on the identically zero rows, or a full ranking (every label
  once);
* the witness's tokens are canonical rationals ``p/q`` (lowest terms, ``q > 1``, or ``p``;
  at most ``MAX_DIGITS`` digits each), read as integers;
* with ``Q = lcm(q_0, ..., q_{d-1})`` and ``P_j = p_j Q / q_j`` (integers), ``x = P / Q``
  with ``Q > 0``, so ``a . x + c > 0`` exactly when ``a . P + c Q > 0``: every constraint is
  one integer dot product of the integer model's row ``(a, c)`` with ``(P, Q)``.

A line in any other form (spaces, other key order, a failure) returns ``None`` and is
checked by the general path, which either accepts it or says precisely what is wrong; so
the verdict never depends on which path ran.

Examples
--------
>>> lc = LineCheck(((1, 0), (0, 1)), (0, 0), False)
>>> lc.check(b'{"pattern":[1,-1],"witness":["1/2","-3"]}\\n', True)
((1, -1), b'[1,-1]')
>>> lc.check(b'{"pattern":[1,1],"witness":["1/2","-3"]}\\n', True) is None
True
"""

from __future__ import annotations

import math
import re
from operator import mul

from .meter import charge

__all__ = ["LineCheck"]

_LINE = re.compile(rb'\{"pattern":\[([-0-9,]*)\],"witness":\[([-0-9/",]*)\]\}\n?')
_INT = re.compile(rb"-?(?:0|[1-9][0-9]{0,19})")
_D = rb"[1-9][0-9]{0,3999}"
_ONE = rb'"(-?(?:0|' + _D + rb'))(?:/(' + _D + rb'))?"'
_WITNESS = re.compile(_ONE + rb"(?:," + _ONE + rb")*")
_NUMS = re.compile(_ONE)
_SIGN = {b"1": 1, b"-1": -1, b"0": 0}
_TOP = bytes(0 if b < 128 else 1 for b in range(256))
_ONES = bytes.maketrans(b"+-", b"\x01\x00")


class LineCheck:
    """The integer model of one certificate, ready to check lines.

    Parameters
    ----------
    Wi, bi : integer model (rows ``(a_i, c_i)``, the certificate's W and bias times the lcm
        of their denominators: same signs)
    ranking : bool
        Rankings (``True``) or sign vectors.

    Notes
    -----
    Sign vectors without zero rows are checked with one packed integer: with
    ``v_i = a_i . P + c_i Q`` the claim is ``s_i v_i > 0`` for every row, that is
    ``u_i = 2 v_i - s_i`` has the sign ``s_i`` (``u_i`` is odd, never 0).  With ``K`` a
    multiple of 8 such that every ``|u_i| < 2^(K-1)``, the integer
    ``U = sum_i (u_i + 2^(K-1)) 2^(K i)`` has the digits ``u_i + 2^(K-1)`` in base ``2^K``
    (each in ``[0, 2^K)``), and ``u_i > 0`` exactly when the top bit of digit ``i`` is set.
    ``U = 2 sum_j P_j C_j - sum_i s_i 2^(K i) + O``, where ``C_j = sum_i A_ij 2^(K i)`` is
    column ``j`` of the rows ``(a_i, c_i)`` packed once and ``O = sum_i 2^(K-1) 2^(K i)``:
    ``d + 1`` big-integer products instead of ``k (d + 1)`` small ones, and the top bits
    read from ``U``'s bytes in one slice.
    """

    def __init__(self, Wi, bi, ranking: bool) -> None:
        self.rows = [(*a, c) for a, c in zip(Wi, bi, strict=True)]
        self.k, self.d = len(self.rows), len(Wi[0])
        self.ranking = ranking
        self.zero = [not any(r) for r in self.rows]
        self.packed = not ranking and not any(self.zero) and self.k > 0
        ids: dict = {}
        self.same = [ids.setdefault(r, i) for i, r in enumerate(self.rows)]
        self.row_bits = max((abs(v).bit_length() for r in self.rows for v in r), default=0)
        self.row_l1 = max((sum(map(abs, r)) for r in self.rows), default=0)
        #: units of one line with small numbers: a multiply-add per row entry, one per number
        self.units = self.k * (self.d + 1) + self.d + 1
        self._cols: dict = {}

    def _columns(self, K: int) -> tuple:
        """(C_0, ..., C_d, O) for digits of K bits (cached)."""
        got = self._cols.get(K)
        if got is None:
            cols = tuple(sum(r[j] << (K * i) for i, r in enumerate(self.rows))
                         for j in range(self.d + 1))
            off = sum(1 << (K * i + K - 1) for i in range(self.k))
            got = self._cols[K] = (cols, off)
        return got

    def check(self, line: bytes, witness: bool) -> tuple[tuple, bytes] | None:
        """(pattern value, its canonical key bytes) when ``line`` is canonical and valid
        (the witness checked only if ``witness``); None: use the general path.

        Charges the meter for the work, as the general path does, before doing it."""
        m = _LINE.fullmatch(line)
        if m is None:
            return None
        pat, wit = m.group(1), m.group(2)
        toks = pat.split(b",")
        if len(toks) != self.k:
            return None
        if self.ranking:
            if not all(_INT.fullmatch(t) for t in toks):
                return None
            value = tuple(map(int, toks))
            if sorted(value) != list(range(self.k)):
                return None
        else:
            try:
                value = tuple(map(_SIGN.__getitem__, toks))
            except KeyError:
                return None
            if self.packed:
                if 0 in value:
                    return None
            elif any((s == 0) != z for s, z in zip(value, self.zero, strict=True)):
                return None
        key = b"[" + pat + b"]"
        if not witness:
            charge(self.k + 1)
            return value, key
        if _WITNESS.fullmatch(wit) is None:
            return None
        nums = _NUMS.findall(wit)
        if len(nums) != self.d:
            return None
        ps = [int(p) for p, _ in nums]
        qs = [int(q) if q else 1 for _, q in nums]
        for (pt, qt), p, q in zip(nums, ps, qs, strict=True):
            if (qt and (q == 1 or math.gcd(p, q) != 1)) or pt == b"-0":
                return None  # not canonical ("3/1", "2/4", "0/5", "-0")
        Q = math.lcm(*qs)
        Ph = [p * (Q // q) for p, q in zip(ps, qs, strict=True)]
        Ph.append(Q)
        big = max(map(abs, Ph))
        charge(self.units * (1 + (max(big.bit_length(), self.row_bits) >> 8) ** 2))
        if self.packed:
            return (value, key) if self._packed_ok(pat, Ph, big) else None
        vals = [sum(map(mul, r, Ph)) for r in self.rows]
        if self.ranking:
            for a, c in zip(value, value[1:], strict=False):
                if not vals[a] > vals[c] and not (a < c and self.same[a] == self.same[c]):
                    return None
        else:
            for s, v, z in zip(value, vals, self.zero, strict=True):
                if not z and s * v <= 0:
                    return None
        return value, key

    def _packed_ok(self, pat: bytes, Ph: list, big: int) -> bool:
        """Every ``s_i v_i > 0`` (class notes), for a pattern without zeros."""
        # |u_i| <= 2 l1(row) max|Ph| + 1 < 2^(K-1)
        K = -(-((2 * self.row_l1 * big + 1).bit_length() + 1) // 8) * 8
        cols, off = self._columns(K)
        pm = pat.replace(b"-1", b"-").replace(b"1", b"+").replace(b",", b"")
        B = K // 8
        digits = bytearray(B * self.k)
        digits[0::B] = pm.translate(_ONES)
        plus = int.from_bytes(digits, "little")  # sum over s_i = +1 of 2^(K i)
        ones = off >> (K - 1)  # sum over all i of 2^(K i)
        U = 2 * sum(map(mul, Ph, cols)) - (2 * plus - ones) + off
        tops = U.to_bytes(B * self.k, "little")[B - 1::B].translate(_TOP)
        return tops == pm.translate(_ONES)
