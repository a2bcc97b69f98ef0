"""Set comparisons for the verification grid (private helpers of :mod:`engine.geometry.grid`).

* Sign vectors are handled as ``int8`` arrays (one row per pattern) and compared as sets.
* :func:`transported_gram_patterns` enumerates ``S(G_c)`` for the Gram column basis
  ``G_c = (A A^T)[:, cols]`` of a matrix ``A`` whose patterns and witnesses are known: a
  candidate witness ``y`` for each pattern is proposed by mapping the witness ``x`` of
  ``A`` through the column-space identity ``G_c y = A x`` (float solve, rounded to
  integers), every candidate is decided exactly (integer signs of ``G_c y``; a failed
  rounding is redone in rationals), and completeness is certified by the Zaslavsky count
  of ``G_c``'s own arrangement.  The map only *proposes*; nothing is assumed.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from engine.exact.lattice import count_regions_exact
from engine.exact.linalg import integer_rows_common, row_basis

__all__: list[str] = []

_LIMIT = 1 << 62


def ranking_sign_array(rankings: Sequence[Sequence[int]], k: int) -> np.ndarray:
    """Rows ``sign(B z)`` (pairs i < j, lexicographic) for logits ordered as each ranking."""
    R = np.asarray(rankings, dtype=np.int64).reshape(len(rankings), k)
    pos = np.empty_like(R)
    np.put_along_axis(pos, R, np.arange(k)[None, :], axis=1)
    iu, ju = np.triu_indices(k, 1)
    return np.where(pos[:, iu] < pos[:, ju], 1, -1).astype(np.int8)


def pattern_array(patterns: Sequence[Sequence[int]], m: int) -> np.ndarray:
    """Sign patterns as an ``int8`` array of shape ``(len(patterns), m)``."""
    return np.asarray(patterns, dtype=np.int8).reshape(len(patterns), m)


def same_sets(A: np.ndarray, B: np.ndarray) -> bool:
    """Whether two arrays of sign rows hold the same set of rows."""
    if A.shape[1] != B.shape[1]:
        return False
    if np.any(A == 0) or np.any(B == 0):  # sign 0 present: compare the rows themselves
        return {tuple(r) for r in A.tolist()} == {tuple(r) for r in B.tolist()}
    return {r.tobytes() for r in np.packbits(A > 0, axis=1)} == {
        r.tobytes() for r in np.packbits(B > 0, axis=1)
    }


def _int_rows(M: Sequence[Sequence[Fraction]]) -> list[list[int]]:
    N, _ = integer_rows_common(M)
    return [list(r) for r in N]


def _solve_exact(H: list[list[int]], b: list[Fraction]) -> list[Fraction]:
    n = len(H)
    A = [[Fraction(x) for x in H[i]] + [b[i]] for i in range(n)]
    for c in range(n):
        p = next(i for i in range(c, n) if A[i][c] != 0)
        A[c], A[p] = A[p], A[c]
        inv = 1 / A[c][c]
        A[c] = [x * inv for x in A[c]]
        for i in range(n):
            if i != c and A[i][c] != 0:
                f = A[i][c]
                A[i] = [x - f * y for x, y in zip(A[i], A[c], strict=True)]
    return [A[i][n] for i in range(n)]


def transported_gram_patterns(
    A: Sequence[Sequence[Fraction]],
    Gc: Sequence[Sequence[Fraction]],
    signs: np.ndarray,
    witnesses: Sequence[Sequence[Fraction]],
) -> tuple[bool, int]:
    """Decide ``S(G_c) == {rows of signs}`` given exact witnesses ``x`` with ``sign(A x) = row``.

    Returns ``(verified, zaslavsky count of G_c)``.  ``verified`` is True when every row is
    realised by an exactly checked point ``y`` (``sign(G_c y) = row``) and ``G_c`` has
    exactly that many regions: this *proves* equality.  False only means the transported
    points did not prove it (the counts differ, which disproves equality, or a point
    failed); callers then enumerate ``S(G_c)`` directly.
    """
    n_pat = signs.shape[0]
    total = count_regions_exact(Gc)
    if total != n_pat:
        return False, total
    Ai = np.array(_int_rows(A), dtype=float)
    Gi = _int_rows(Gc)
    I = list(row_basis(Gi))
    H = [Gi[i] for i in I]
    X = np.array(
        [[v.numerator / v.denominator for v in x] for x in witnesses], dtype=float
    ).reshape(n_pat, -1)
    Z = X @ Ai[I].T  # (A x)[I], up to the positive row scaling of A
    Y = np.linalg.solve(np.array(H, dtype=float), Z.T).T
    scale = float(1 << 40) / np.maximum(np.abs(Y).max(axis=1), 1e-300)
    Yi = np.rint(Y * scale[:, None]).astype(np.int64)
    G64 = np.array(Gi, dtype=object)
    l1 = int(np.abs(G64).sum(axis=1).max())
    if l1 * (1 << 41) >= _LIMIT:  # pragma: no cover - grid entries are small
        V = Yi.astype(object) @ G64.T
    else:
        V = Yi @ G64.astype(np.int64).T
    S = (V > 0).astype(np.int8) - (V < 0).astype(np.int8)
    bad = np.flatnonzero(np.any(S != signs, axis=1))
    Aq = [[Fraction(v) for v in row] for row in _int_rows(A)]
    for t in bad.tolist():  # rounding failed: decide this pattern in rational arithmetic
        x = witnesses[t]
        z = [sum((a * v for a, v in zip(Aq[i], x, strict=True)), Fraction(0)) for i in I]
        y = _solve_exact(H, z)
        vals = [sum((g * v for g, v in zip(row, y, strict=True)), Fraction(0)) for row in Gi]
        got = [(v > 0) - (v < 0) for v in vals]
        if got != signs[t].tolist():
            return False, total
    return True, total
