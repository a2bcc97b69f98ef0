"""One exact factorisation, many right-hand sides: ``A N_j = D b_j`` for a square integer A.

Clustered never labels of an argmax audit share a Gordan support S: each label k asks for
lambda with ``sum_i lambda_i w_i = w_k`` and ``sum_i lambda_i = 1`` on the same matrix
``A = [W_S^T; 1]``.  :func:`solve_columns` solves all of them against one factorisation of A
and returns integer numerators over one positive denominator D.

The method is Dixon's p-adic lifting, with every step a dense floating-point matrix product
that is exact by construction (no rounding ever happens, so nothing is decided by floats):

* D = |det A| exactly (FLINT's ``fmpz_mat.det``, multi-modular); D = 0: A is singular;
* a prime p with n (p - 1)^2 < 2^53 that does not divide D, and A^{-1} mod p (FLINT's
  ``nmod_mat.inv``), held as float64: every product of it with a residue matrix (entries in
  [0, p)) is a sum of n terms below p^2, an integer below 2^53, computed exactly;
* the lifting: X_j = A^{-1} R_j mod p, R_{j+1} = (R_j - A X_j) / p, from R_0 = B.  A X_j is
  formed from A split into signed limbs below 2^s, s = 53 - lg - b (:func:`split_limbs`;
  p < 2^b, n <= 2^lg: each limb's product with X_j a sum of n terms below 2^(53 - lg) in
  magnitude, exact in float64; b is chosen for the fewest products per lifted bit) and
  summed modulo 2^64 (two's complement); the division by p is exact,
  so it is a multiplication by p^{-1} mod 2^64, and the quotient fits in int64 (the bound
  is checked before starting);
* after K steps with p^K > 2 H (H: Hadamard's bound on the numerators adj(A) b_j),
  X = sum_j X_j p^j is A^{-1} B mod p^K, and N = D X reduced to (-p^K/2, p^K/2] is exact.

:class:`Factorisation` holds the first three for one matrix (a shared support); its
:meth:`Factorisation.solve` is the lifting alone.  :func:`solve_columns` keeps the last
factorisation it made, so a support solved in chunks of columns is factorised once.
For one right-hand side, or entries too wide for the int64 residues, it is FLINT's
``fmpz_mat.solve`` (itself a p-adic solve for large n); without FLINT, fractions.

Examples
--------
>>> solve_columns([[2, 1], [1, 3]], [[1, 0], [0, 5]])
([[3, -1], [-5, 10]], 5)
>>> solve_columns([[1, 2], [2, 4]], [[1, 0]]) is None
True
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from logitgeom.exact.intmat import solve_square

_flint: Any
try:  # pragma: no cover - depends on the installation
    import flint as _flint
except ImportError:  # pragma: no cover
    _flint = None

__all__ = ["solve_columns", "lifting_plan", "Factorisation", "split_limbs"]

#: Systems smaller than this, or with one right-hand side, go to FLINT's own solve.
MIN_LIFT = 24


def split_limbs(M: np.ndarray, bits: int) -> list[np.ndarray]:
    """An int64 matrix cut into float64 limbs (sign and magnitude): ``M = sum_t L_t 2^(bits t)``.

    Parameters
    ----------
    M : numpy.ndarray
        An int64 matrix (any shape) without the entry -2^63.
    bits : int
        The limb width, 1 to 53 (a limb is then an exact float64).

    Returns
    -------
    list of numpy.ndarray
        float64 arrays of M's shape, as few as the widest entry needs (at least one): entry
        by entry, ``L_t`` is the t-th ``bits``-bit digit of ``|M|`` with M's sign, so every
        ``|L_t| < 2^bits``, and the sum holds exactly (each limb an integer below 2^53).

    Raises
    ------
    ValueError
        When M holds -2^63 (its magnitude is no int64).

    Notes
    -----
    What makes a product with the limbs exact is the caller's bound: a product of a limb
    with an m-row matrix whose entries are below ``2^c`` in magnitude sums m integers
    below ``2^(bits + c)``, exact in float64 when ``m 2^(bits + c) <= 2^53``.
    :class:`Factorisation` takes ``bits = 53 - lg - pb`` against digits below p < 2^pb,
    n <= 2^lg rows; :func:`logitgeom.audit.corrected.exact_combination` takes ``bits = cb``
    against limbs of its multipliers below ``2^lb``, ``lb + cb = 53 - lg``, m <= 2^lg rows.

    Examples
    --------
    >>> [L.tolist() for L in split_limbs(np.array([[5, -6]], dtype=np.int64), 2)]
    [[[1.0, -2.0]], [[1.0, -1.0]]]
    """
    low = int(M.min()) if M.size else 0
    if low == -1 << 63:
        raise ValueError("split_limbs needs entries above -2^63")
    top = max(int(M.max()), -low) if M.size else 0
    mag = np.abs(M)  # exact: no -2^63
    sign = np.where(M < 0, -1.0, 1.0)
    limbs = []
    for t in range(max(1, -(-top.bit_length() // bits))):
        digit = mag >> (bits * t)
        digit &= (1 << bits) - 1
        limb = digit.astype(np.float64)
        limb *= sign
        limbs.append(limb)
    return limbs


def _bits_norm(v: Sequence[int]) -> int:
    """An upper bound on log2 of the Euclidean norm of an integer vector, exactly."""
    return (sum(int(a) * int(a) for a in v).bit_length() + 1) // 2


def lifting_plan(A: Sequence[Sequence[int]], B: Sequence[Sequence[int]]
                 ) -> dict[str, int] | None:
    """The p-adic plan of :func:`solve_columns` (prime size, limb width, limbs, steps), or
    None when the entries are too wide for int64 residues (then FLINT's solve is used).

    Parameters
    ----------
    A : sequence of sequences of int
        A square n x n integer matrix (rows).
    B : sequence of sequences of int
        The right-hand sides.

    Returns
    -------
    dict or None
        ``prime_bits`` (p < 2^prime_bits), ``limb_bits``, ``limbs``, ``steps`` (K) and
        ``hadamard_bits`` (log2 of the bound H on |adj(A) b_j|).

    Examples
    --------
    >>> lifting_plan([[2, 1], [1, 3]], [[1, 0]])["prime_bits"]
    26
    """
    return _plan(_matrix_bits(A), B)


def _matrix_bits(A: Sequence[Sequence[int]]) -> tuple[int, int, list[int]] | None:
    """What the plan needs of A, computed once per matrix: log2 n rounded up, the widest
    entry's bits and each column's norm bits; None when A is too wide for int64 residues."""
    n = len(A)
    lg = max(1, (n - 1).bit_length())  # n <= 2^lg
    wa = max((abs(int(v)).bit_length() for r in A for v in r), default=0)
    # |R_{j+1}| <= |R_j| / p + n max|A|: below 2^62 when both parts are below 2^61
    if (53 - lg) // 2 < 8 or wa + lg > 60:
        return None
    return lg, wa, [_bits_norm([r[j] for r in A]) for j in range(n)]


def _plan(bits: tuple[int, int, list[int]] | None, B: Sequence[Sequence[int]]
          ) -> dict[str, int] | None:
    """:func:`lifting_plan` from A's :func:`_matrix_bits` and the right-hand sides."""
    wb = max((abs(int(v)).bit_length() for b in B for v in b), default=0)
    if bits is None or wb > 61:
        return None
    lg, wa, cols = bits
    # p < 2^pb with n (p - 1)^2 < 2^(lg + 2 pb) <= 2^53 (the product with A^{-1} mod p), and
    # A's limbs of c = 53 - lg - pb bits (n limbs times digits below p: below 2^53).  A step
    # costs 1 + limbs products and lifts pb - 1 bits at least: the pb of least cost per bit
    # (a smaller prime can save a limb: at n = 1,025 with 44-bit entries, 19 bits and two
    # limbs instead of 21 bits and three)
    best: tuple[float, int, int, int] | None = None
    for pb in range(8, (53 - lg) // 2 + 1):
        c = 53 - lg - pb
        limbs = max(1, -(-wa // c))  # split_limbs: |A| < 2^wa, digits of c bits
        cost = (1 + limbs) / (pb - 1)
        if best is None or cost < best[0]:
            best = (cost, pb, c, limbs)
    assert best is not None  # _matrix_bits guarantees (53 - lg) // 2 >= 8
    _, pb, c, limbs = best
    hb = sum(cols) + max(0, max(_bits_norm(b) for b in B) - min(cols)) + 1
    return {"prime_bits": pb, "limb_bits": c, "limbs": limbs,
            "steps": hb // (pb - 1) + 2, "hadamard_bits": hb}


def solve_columns(A: Sequence[Sequence[int]], B: Sequence[Sequence[int]]
                  ) -> tuple[list[list[int]], int] | None:
    """Integer numerators N_j and one denominator D > 0 with ``A N_j = D b_j`` exactly.

    Parameters
    ----------
    A : sequence of sequences of int
        A square n x n integer matrix (rows).
    B : sequence of sequences of int
        The right-hand sides b_j, each of length n (at least one).

    Returns
    -------
    (list of list of int, int) or None
        N (one integer vector per right-hand side) and D; None when A is singular.
        D divides det(A) times a unit; no minimality is promised: callers reduce each
        column themselves (gcd of the column and D).

    Raises
    ------
    ValueError
        When A is not square or a right-hand side has the wrong length.

    Examples
    --------
    >>> solve_columns([[1, 0], [0, 2]], [[1, 1]])
    ([[2, 1]], 2)
    """
    n = len(A)
    if any(len(r) != n for r in A) or not B or any(len(b) != n for b in B):
        raise ValueError("solve_columns needs a square matrix and right-hand sides of its size")
    if _flint is None:  # pragma: no cover - without FLINT: one Fraction solve per column
        sols = [solve_square(A, b) for b in B]
        if any(s is None for s in sols):
            return None
        D = math.lcm(*(s[1] for s in sols if s is not None))
        return [[v * (D // s[1]) for v in s[0]] for s in sols if s is not None], D
    if len(B) < 2 or n < MIN_LIFT or lifting_plan(A, B) is None:
        return _flint_solve(A, B)
    return _lift(A, B)


def _flint_solve(A: Sequence[Sequence[int]], B: Sequence[Sequence[int]]
                 ) -> tuple[list[list[int]], int] | None:
    n, m = len(A), len(B)
    M = _flint.fmpz_mat([[int(v) for v in r] for r in A])
    rhs = _flint.fmpz_mat(n, m, [int(B[j][i]) for i in range(n) for j in range(m)])
    try:
        X = M.solve(rhs)
    except ZeroDivisionError:
        return None
    num, den = X.numer_denom()
    D = int(den)
    vals = [int(v) for v in num.entries()]
    N = [[vals[i * m + j] for i in range(n)] for j in range(m)]
    if D < 0:
        N, D = [[-v for v in col] for col in N], -D
    return N, D


def _prime_below(bound: int, det: Any) -> int:
    """The largest prime p < bound that does not divide det (a nonzero fmpz)."""
    p = bound - 1
    while True:
        if _flint.fmpz(p).is_prime() and det % p != 0:
            return p
        p -= 1


class Factorisation:
    """One square integer matrix made ready for p-adic solves: |det A|, a prime p, A^{-1}
    mod p and A's limbs (see the module docstring); :meth:`solve` then costs only the
    lifting.  Hold one per shared support and solve its right-hand sides in chunks.

    Parameters
    ----------
    A : sequence of sequences of int
        A square n x n integer matrix (rows) whose entries satisfy :func:`lifting_plan`.

    Raises
    ------
    ValueError
        When A is not square, is singular, or its entries are too wide (no plan).

    Examples
    --------
    >>> F = Factorisation([[2, 1], [1, 3]])
    >>> F.det, F.solve([[1, 0], [0, 5]])
    (5, [[3, -1], [-5, 10]])
    """

    def __init__(self, A: Sequence[Sequence[int]]) -> None:
        n = len(A)
        if n == 0 or any(len(r) != n for r in A):
            raise ValueError("Factorisation needs a non-empty square matrix")
        self._bits = _matrix_bits(A)
        plan = _plan(self._bits, [[0] * n])
        if plan is None or _flint is None:
            raise ValueError("Factorisation needs FLINT and entries of at most "
                             f"{60 - max(1, (n - 1).bit_length())} bits")
        Ai = np.array(A, dtype=np.int64)  # fits: the plan bounds the entries
        det = _flint.fmpz_mat(Ai.tolist()).det()
        if det == 0:
            raise ValueError("Factorisation needs a non-singular matrix")
        self.n, self.det = n, abs(int(det))
        s = self.limb_bits = plan["limb_bits"]
        self.p = p = _prime_below(1 << plan["prime_bits"], det)
        inv = _flint.nmod_mat(n, n, np.mod(Ai, p).ravel().tolist(), p).inv()
        self._pinv = np.array([int(v) for v in inv.entries()], dtype=np.float64).reshape(n, n)
        # A = sum_l A_l 2^(s l), |A_l| < 2^s: plan["limbs"] of them (A's entries have at
        # most wa bits, sign and magnitude)
        self._limbs = split_limbs(Ai, s)

    def solve(self, B: Sequence[Sequence[int]]) -> list[list[int]]:
        """Numerators N_j with ``A N_j = det b_j`` (det = :attr:`det`, positive).

        Parameters
        ----------
        B : sequence of sequences of int
            Right-hand sides of length n (at least one), entries of at most 61 bits.

        Returns
        -------
        list of list of int

        Raises
        ------
        ValueError
            When a right-hand side has the wrong length or too wide entries.
        """
        n, m, p, s = self.n, len(B), self.p, self.limb_bits
        plan = _plan(self._bits, B) if B and all(len(b) == n for b in B) else None
        if plan is None:
            raise ValueError(f"Factorisation.solve needs right-hand sides of length {n} with "
                             "entries of at most 61 bits")
        K = plan["steps"]
        shifts = [np.uint64(s * t) for t in range(len(self._limbs))]
        pinv64 = np.uint64(pow(p, -1, 1 << 64))
        R = np.array([[int(b[i]) for b in B] for i in range(n)], dtype=np.int64)  # n x m
        group = 1
        while p ** (group + 1) < 1 << 63:
            group += 1
        digits = _Digits(_flint.fmpz(p) ** group)  # `group` p-adic digits at a time
        acc = np.zeros((n, m), dtype=np.int64)
        with np.errstate(over="ignore"):
            for j in range(K):
                # exact: the product is an integer below 2^53; int64 remainder (np.fmod on
                # floats cost as much as the product itself)
                Xi = (self._pinv @ np.mod(R, p).astype(np.float64)).astype(np.int64) % p
                X = Xi.astype(np.float64)
                AX = np.zeros((n, m), dtype=np.uint64)
                for Al, sh in zip(self._limbs, shifts, strict=True):
                    AX += (Al @ X).astype(np.int64).view(np.uint64) << sh
                R = ((R.view(np.uint64) - AX) * pinv64).view(np.int64)
                acc += Xi * (p ** (j % group))
                if j % group == group - 1 or j == K - 1:
                    digits.push(_flint.fmpz_mat(n, m, acc.ravel().tolist()))
                    acc[:] = 0
        X = digits.value()
        del digits
        pk = _flint.fmpz(p) ** K
        half, det = pk // 2, _flint.fmpz(self.det)
        out = []
        for j in range(m):  # D X reduced to (-p^K/2, p^K/2], entry by entry
            col = []
            for i in range(n):
                r = X[i, j] * det % pk
                col.append(int(r - pk if r > half else r))
            out.append(col)
        return out


#: The last factorisation made by :func:`solve_columns` (key: A's shape and bytes), reused
#: when the next call has the same matrix: a shared support solved chunk by chunk.
_LAST: list[tuple[bytes, Factorisation]] = []


def _lift(A: Sequence[Sequence[int]], B: Sequence[Sequence[int]]
          ) -> tuple[list[list[int]], int] | None:
    """Solve on the kept factorisation of A (made when A is new); A and B have a plan."""
    key = hashlib.sha256(np.array(A, dtype=np.int64).tobytes()).digest() \
        + len(A).to_bytes(8, "little")
    if _LAST and _LAST[0][0] == key:
        F = _LAST[0][1]
    else:
        _LAST.clear()  # one held at a time (n^2 floats and A's limbs)
        try:
            F = Factorisation(A)
        except ValueError:
            return None  # planned, so square with narrow entries: singular
        _LAST.append((key, F))
    return F.solve(B), F.det


class _Digits:
    """sum_t digit_t base^t of a stream of digit matrices, merged as a binary counter (two
    parts of equal length at a time, GMP underneath): at most log2 of the count held, about
    twice the final size in all (a whole list merged level by level held many small
    integers at once, several times the result)."""

    def __init__(self, base: Any) -> None:
        self.stack: list[tuple[Any, int]] = []
        self.powers = {1: base}  # base^c for the lengths c merged

    def _power(self, c: int) -> Any:
        if c not in self.powers:
            h = c // 2
            self.powers[c] = self._power(h) * self._power(c - h)
        return self.powers[c]

    def push(self, digit: Any) -> None:
        self.stack.append((digit, 1))
        while len(self.stack) > 1 and self.stack[-1][1] == self.stack[-2][1]:
            (hi, c), (lo, _) = self.stack.pop(), self.stack.pop()
            self.stack.append((lo + hi * self._power(c), 2 * c))

    def value(self) -> Any:
        acc, _ = self.stack.pop()
        while self.stack:
            lo, c = self.stack.pop()
            acc = lo + acc * self._power(c)
        return acc
