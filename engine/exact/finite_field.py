"""The finite-field method: ``chi(q)`` as a point count over ``F_q`` (Athanasiadis).

For a central arrangement of integer normals ``v_1, ..., v_m`` in ``Q^k`` and a prime
``q`` for which the arrangement *reduces well* (every subset of the normals has the same
rank modulo ``q`` as over ``Q``), ``chi(q)`` is the number of points of ``F_q^k`` on no
hyperplane ``v_i . x = 0 (mod q)``.  A sufficient condition for good reduction that is
cheap to check: ``q`` exceeds Hadamard's bound on every minor of the normals (a non-zero
integer minor of absolute value below ``q`` cannot vanish modulo ``q``).  Points are
counted projectively (``chi(q) = (q - 1) * #{projective points off the hyperplanes}``)
with numpy integer arithmetic, chunked; the cost is about ``m * q^(k-1)`` operations, so
this is a cross-check for small arrangements, not a way to count large ones.

Examples
--------
>>> chi_at_prime([(1, 0), (0, 1), (1, 1)], 2, 5)     # t^2 - 3t + 2 at 5
12
>>> hadamard_bound([(1, 0), (0, 1), (1, 1)], 2)
2
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from logitgeom.errors import InvalidInput, TooLarge

__all__ = ["chi_at_prime", "hadamard_bound", "good_primes", "MAX_POINT_WORK"]

#: refuse point counts needing more than this many (point, hyperplane) operations
MAX_POINT_WORK = 400_000_000


def hadamard_bound(vecs: Sequence[Sequence[int]], dim: int) -> int:
    """An integer at least the absolute value of every minor of the normals ``vecs``.

    The product of the ``dim`` largest Euclidean norms (each rounded up), Hadamard's
    inequality for the largest square submatrices and a fortiori for smaller ones.

    Examples
    --------
    >>> hadamard_bound([(3, 4), (1, 0)], 2)
    5
    """
    norms = sorted((math.isqrt(sum(x * x for x in v) - 1) + 1 for v in vecs if any(v)),
                   reverse=True)
    out = 1
    for x in norms[:dim]:
        out *= x
    return out


def _is_prime(q: int) -> bool:
    if q < 2:
        return False
    return all(q % p for p in range(2, math.isqrt(q) + 1))


def good_primes(vecs: Sequence[Sequence[int]], dim: int, count: int) -> list[int]:
    """The ``count`` smallest primes above :func:`hadamard_bound` (they reduce well).

    Examples
    --------
    >>> good_primes([(1, 0), (0, 1), (1, 1)], 2, 3)
    [3, 5, 7]
    """
    q = hadamard_bound(vecs, dim) + 1
    out: list[int] = []
    while len(out) < count:
        if _is_prime(q):
            out.append(q)
        q += 1
    return out


def chi_at_prime(vecs: Sequence[Sequence[int]], dim: int, q: int) -> int:
    """``chi(q)`` of the central arrangement ``vecs`` by counting points of ``F_q^dim``.

    Parameters
    ----------
    vecs : integer normals of length ``dim``
    dim : int
    q : int
        A prime above :func:`hadamard_bound` (checked; else the count would not be chi).

    Raises
    ------
    InvalidInput
        ``q`` is not a prime above the bound.
    TooLarge
        The count needs more than :data:`MAX_POINT_WORK` operations.

    Examples
    --------
    >>> chi_at_prime([(1, 0, 0), (0, 1, 0), (0, 0, 1)], 3, 7)   # (7 - 1)^3
    216
    """
    V = [tuple(int(x) for x in v) for v in vecs if any(v)]
    if not _is_prime(q) or q <= hadamard_bound(V, dim):
        raise InvalidInput(f"the finite-field count needs a prime above "
                           f"{hadamard_bound(V, dim)} (Hadamard's bound on the minors); got {q}")
    if not V:
        return int(q**dim)
    if len(V) * q ** (dim - 1) > MAX_POINT_WORK:
        raise TooLarge(f"a point count over F_{q} in dimension {dim} with {len(V)} hyperplanes "
                       f"needs about {len(V) * q ** (dim - 1):,} operations, above "
                       f"{MAX_POINT_WORK:,}")
    A = np.array(V, dtype=np.int64) % q  # m x dim
    off = 0
    # projective points: (0, ..., 0, 1, x_{j+1}, ..., x_{dim-1}) for j = 0..dim-1
    for j in range(dim):
        free = dim - j - 1
        base = A[:, j]
        rest = A[:, j + 1:]
        total = q**free
        chunk = max(1, 2_000_000 // max(1, len(V)))
        for start in range(0, total, chunk):
            idx = np.arange(start, min(total, start + chunk), dtype=np.int64)
            X = np.empty((len(idx), free), dtype=np.int64)
            t = idx.copy()
            for c in range(free - 1, -1, -1):
                X[:, c] = t % q
                t //= q
            vals = (X @ rest.T + base[None, :]) % q if free else np.broadcast_to(base % q,
                                                                                (len(idx), len(V)))
            off += int(np.count_nonzero(np.all(vals != 0, axis=1)))
    return (q - 1) * off
