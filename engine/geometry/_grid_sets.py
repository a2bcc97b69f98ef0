"""Set comparisons for the verification grid (private helpers of :mod:`logitgeom.geometry.grid`).

* Sign vectors are handled as ``int8`` arrays (one row per pattern) and compared as sets.
* :func:`transported_gram_patterns` decides ``S(G_c) = S(A)`` for the Gram column basis
  ``G_c = (A A^T)[:, cols]`` of a matrix ``A`` whose patterns are known (enumerated): an
  integer matrix ``N`` with ``G_c N = c A`` (``c > 0``), checked exactly once, maps the
  witness ``x`` of every pattern of ``A`` to a witness ``y = N x`` of the same pattern of
  ``G_c``, and the Zaslavsky count of ``G_c``'s own arrangement certifies that there are
  no others.  Nothing is rounded and nothing is assumed.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from logitgeom.exact.lattice import count_regions_exact
from logitgeom.exact.linalg import det_integer, integer_rows_common, row_basis

__all__: list[str] = []


def ranking_sign_array(rankings: Sequence[Sequence[int]], k: int) -> np.ndarray:
    """Rows ``sign(B z)`` (pairs i < j, lexicographic) for logits ordered as each ranking."""
    R = np.asarray(rankings, dtype=np.int64).reshape(len(rankings), k)
    pos = np.empty(R.shape, dtype=np.int16)
    np.put_along_axis(pos, R, np.arange(k, dtype=np.int16)[None, :], axis=1)
    iu, ju = np.triu_indices(k, 1)
    out = np.full((len(R), len(iu)), -1, dtype=np.int8)
    out[pos[:, iu] < pos[:, ju]] = 1
    return out


def pattern_array(patterns: Sequence[Sequence[int]], m: int) -> np.ndarray:
    """Sign patterns as an ``int8`` array of shape ``(len(patterns), m)``."""
    return np.asarray(patterns, dtype=np.int8).reshape(len(patterns), m)


def same_sets(A: np.ndarray, B: np.ndarray) -> bool:
    """Whether two arrays of sign rows hold the same set of rows."""
    if A.shape[1] != B.shape[1]:
        return False
    if np.any(A == 0) or np.any(B == 0):  # sign 0 present: compare the rows themselves
        return {tuple(r) for r in A.tolist()} == {tuple(r) for r in B.tolist()}
    ka, kb = _keys(A), _keys(B)
    return ka.shape == kb.shape and bool(np.all(ka == kb))


def _keys(A: np.ndarray) -> np.ndarray:
    """The distinct rows of a +-1 array, packed to bytes and sorted."""
    P = np.ascontiguousarray(np.packbits(A > 0, axis=1))
    return np.unique(P.view(np.dtype((np.void, P.shape[1]))).ravel())


def _int_rows(M: Sequence[Sequence[Fraction]]) -> list[list[int]]:
    N, _ = integer_rows_common(M)
    return [list(r) for r in N]


def _adjugate(H: list[list[int]]) -> tuple[list[list[int]], int]:
    """``(adj(H), det(H))`` of a square integer matrix, exactly (adj(H) H = det(H) I)."""
    n = len(H)
    A = [[Fraction(x) for x in H[i]] + [Fraction(int(i == j)) for j in range(n)]
         for i in range(n)]
    for c in range(n):  # Gauss-Jordan on [H | I] in rationals
        p = next(i for i in range(c, n) if A[i][c] != 0)
        A[c], A[p] = A[p], A[c]
        inv = 1 / A[c][c]
        A[c] = [x * inv for x in A[c]]
        for i in range(n):
            if i != c and A[i][c] != 0:
                f = A[i][c]
                A[i] = [x - f * y for x, y in zip(A[i], A[c], strict=True)]
    D = det_integer(H)
    adj = [[D * A[i][n + j] for j in range(n)] for i in range(n)]
    if any(x.denominator != 1 for r in adj for x in r):  # pragma: no cover - adj is integral
        raise ArithmeticError("adjugate of an integer matrix is not integral")
    return [[int(x) for x in r] for r in adj], D


def transport_map(
    A: Sequence[Sequence[Fraction]], Gc: Sequence[Sequence[Fraction]]
) -> list[list[int]] | None:
    """An integer matrix ``N`` with ``sign(G_c (N x)) = sign(A x)`` for every ``x``, or None.

    With ``A_i = a A`` and ``G_i = g G_c`` the common-denominator integer forms, ``I`` a
    row basis of ``G_i`` and ``H = G_i[I]`` (square when ``G_c`` is a column basis),
    ``N = sign(det H) adj(H) A_i[I]``.  When the column spaces of ``A`` and ``G_c`` agree,
    ``G_i N = |det H| A_i``; that identity is *checked exactly* here (integer matrices), and
    it proves the claim for every point at once.  ``None`` when the identity fails
    (different column spaces: the patterns may differ).
    """
    Ai, Gi = _int_rows(A), _int_rows(Gc)
    I = list(row_basis(Gi))
    if not I or len(I) != len(Gi[0]):
        return None
    adj, D = _adjugate([Gi[i] for i in I])
    sg = 1 if D > 0 else -1
    AI = [Ai[i] for i in I]
    d = len(Ai[0])
    N = [[sg * sum(adj[r][t] * AI[t][c] for t in range(len(I))) for c in range(d)]
         for r in range(len(I))]
    for g, a in zip(Gi, Ai, strict=True):  # the identity G_i N = |det H| A_i, row by row
        if any(sum(g[t] * N[t][c] for t in range(len(I))) != abs(D) * a[c] for c in range(d)):
            return None
    return N


def transported_gram_patterns(
    A: Sequence[Sequence[Fraction]],
    Gc: Sequence[Sequence[Fraction]],
    signs: np.ndarray,
    witnesses: object = None,
) -> tuple[bool, int]:
    """Decide ``S(G_c) == {rows of signs}`` given that the rows of ``signs`` are ``S(A)``.

    Returns ``(verified, zaslavsky count of G_c)``.  ``verified`` is True when the exact
    identity of :func:`transport_map` holds (so every pattern of ``A`` is a pattern of
    ``G_c``, realised at ``y = N x`` for its witness ``x``) and ``G_c`` has exactly as many
    regions as there are rows: this *proves* equality.  False only means equality was not
    proven this way (the counts differ, which disproves it, or the column spaces differ);
    callers then enumerate ``S(G_c)`` directly.  ``witnesses`` (the points ``x``) are not
    needed: the identity covers every point at once.
    """
    del witnesses
    n_pat = signs.shape[0]
    total = count_regions_exact(Gc)
    if total != n_pat:
        return False, total
    return transport_map(A, Gc) is not None, total
