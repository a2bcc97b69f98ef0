"""Cosine similarity of label representations, and the translations that change it.

Softmax is invariant under ``W -> W + 1 v^T`` (every logit moves by ``v . x``), yet the
cosine similarity of two rows can be driven to -1 or +1 by such a translation
(the cosine paper, "What Cosine Similarity of Label Representations Can and Cannot Tell
us", Lemmas 3.1-3.3, Thm 3.4; see docs/paper-output.md for the Lemma 3.3 edge cases).
Everything here is exact except :func:`cosine_matrix`, which is a float matrix for display.

Examples
--------
>>> W = [[1, 0], [0, 1], [1, 1]]
>>> v = translation_for_cosine(W, 0, 1, -1)
>>> [str(x) for x in v]
['-1/2', '-1/2']
>>> Wv = translate(W, v)
>>> [[str(x) for x in r] for r in Wv]
[['1/2', '-1/2'], ['-1/2', '1/2'], ['1/2', '1/2']]
>>> round(float(cosine_matrix(Wv)[0, 1]), 12)
-1.0
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from logitgeom.errors import InvalidInput, TooLarge
from logitgeom.exact.numbers import ExactMatrix, ExactVector, to_fraction, to_matrix, to_vector

__all__ = [
    "cosine_matrix",
    "difference_matrix",
    "difference_pairs",
    "translate",
    "translation_for_cosine",
    "gram_exact",
    "cosine_equal",
]


def _zero_rows_error(rows: list[int], what: str) -> InvalidInput:
    return InvalidInput(
        f"{what} has zero rows {rows}: the cosine similarity of a zero vector is undefined; "
        "drop those rows or translate W first"
    )


def _binary_scaled(r: ExactVector) -> ExactVector:
    """The row times the power of two that brings its largest entry into [1/2, 2)."""
    e = max((abs(v.numerator).bit_length() - v.denominator.bit_length() for v in r if v),
            default=0)
    f = Fraction(1, 1 << e) if e >= 0 else Fraction(1 << -e)
    return tuple(v * f for v in r)


def cosine_matrix(W: object) -> np.ndarray:
    """Cosine similarities of the rows of ``W`` (float64, for display and diagnostics).

    ``C = D^-1 W W^T D^-1`` with ``D`` the diagonal of row norms.  A float numpy array is
    used as it is (after a finite check); anything else goes through the exact conversion
    and the Gram matrix is formed exactly before the one float division per entry.

    Parameters
    ----------
    W : array_like, k x d

    Returns
    -------
    numpy.ndarray, k x k
        Entries clipped to [-1, 1]; exactly 1 on the diagonal.

    Raises
    ------
    InvalidInput
        A zero row (its cosine is undefined; the message lists the rows), NaN/inf, bad
        shape.

    Examples
    --------
    >>> cosine_matrix([[1, 0], [1, 1]]).round(4).tolist()
    [[1.0, 0.7071], [0.7071, 1.0]]
    >>> cosine_matrix([[1, 0], [0, 0]])
    Traceback (most recent call last):
    ...
    logitgeom.errors.InvalidInput: W has zero rows [1]: the cosine similarity of a zero vector \
is undefined; drop those rows or translate W first
    """
    if isinstance(W, np.ndarray) and W.dtype.kind == "f":
        if W.ndim != 2:
            raise InvalidInput(f"W must be a 2-D matrix; got an array of shape {W.shape}")
        if W.size == 0:
            raise InvalidInput(f"W is empty (shape {W.shape})")
        bad = np.argwhere(~np.isfinite(W))
        if len(bad):
            i, j = bad[0]
            raise InvalidInput(f"W[{i},{j}] is {W[i, j]}; every entry must be a finite number")
        A = W.astype(np.float64)
        zero = [int(i) for i in np.flatnonzero(~np.any(A != 0, axis=1))]
        # each row times a power of two (exact; cosines unchanged): no overflow of the
        # squares near 1e300, no underflow to a "zero" norm near 1e-300
        _, e = np.frexp(np.abs(A).max(axis=1))
        A = np.ldexp(A, -e.reshape(-1, 1))
        G = A @ A.T
        norms = np.sqrt(np.einsum("ij,ij->i", A, A))
    else:
        M = to_matrix(W, what="W")
        zero = [i for i, r in enumerate(M) if not any(r)]
        G_exact = gram_exact(tuple(_binary_scaled(r) for r in M))
        G = np.array([[float(x) for x in r] for r in G_exact], dtype=np.float64)
        norms = np.sqrt(np.array([float(G_exact[i][i]) for i in range(len(G_exact))]))
    if zero:
        raise _zero_rows_error(zero, "W")
    C = G / np.outer(norms, norms)
    np.clip(C, -1.0, 1.0, out=C)
    np.fill_diagonal(C, 1.0)
    return C


def difference_pairs(k: int) -> tuple[tuple[int, int], ...]:
    """The label pairs ``(i, j)``, ``i < j``, in lexicographic order (the rows of ``B``).

    Parameters
    ----------
    k : int
        Number of labels (>= 1).

    Returns
    -------
    tuple of (int, int)

    Raises
    ------
    InvalidInput
        k is not a positive integer.

    Examples
    --------
    >>> difference_pairs(3)
    ((0, 1), (0, 2), (1, 2))
    """
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
        raise InvalidInput(f"k must be a positive integer (number of labels); got {k!r}")
    if k > 20_000:  # C(k, 2) pairs
        raise TooLarge(f"k = {k:,} labels give {k * (k - 1) // 2:,} pairs, above the supported "
                       "k <= 20,000")
    k = int(k)
    return tuple((i, j) for i in range(k) for j in range(i + 1, k))


def difference_matrix(k: int) -> ExactMatrix:
    """``B``: the ``C(k, 2) x k`` matrix with rows ``e_i - e_j`` for ``i < j`` (lexicographic).

    ``R(W) = S(B W)``: row ``(i, j)`` of ``B W x`` is positive iff label ``i`` is ranked
    above label ``j``.  For ``k = 1`` the matrix has no rows (an empty tuple).

    Parameters
    ----------
    k : int
        Number of labels (>= 1).

    Returns
    -------
    tuple of tuple of Fraction

    Raises
    ------
    InvalidInput
        k is not a positive integer.

    Examples
    --------
    >>> [[int(x) for x in r] for r in difference_matrix(3)]
    [[1, -1, 0], [1, 0, -1], [0, 1, -1]]
    """
    pairs = difference_pairs(k)
    if len(pairs) * k > 10**8:  # C(k, 2) x k exact entries
        raise TooLarge(f"the difference matrix of k = {k:,} labels has {len(pairs) * k:,} "
                       "entries, above the supported 100,000,000")
    one, zero = Fraction(1), Fraction(0)
    rows = []
    for i, j in pairs:
        r = [zero] * k
        r[i], r[j] = one, -one
        rows.append(tuple(r))
    return tuple(rows)


def translate(W: object, v: object) -> ExactMatrix:
    """``W + 1 v^T`` exactly: add ``v`` to every row (softmax probabilities are unchanged).

    Raises
    ------
    InvalidInput
        ``v`` does not have length ``d``.

    Parameters
    ----------
    W : k x d matrix
    v : length-d vector
        Both read exactly.

    Returns
    -------
    tuple of tuple of Fraction

    Examples
    --------
    >>> [[str(x) for x in r] for r in translate([[1, 2], [3, 4]], ["1/2", 0])]
    [['3/2', '2'], ['7/2', '4']]
    """
    M = to_matrix(W, what="W")
    d = len(M[0])
    t = to_vector(v, what="v", length=d)
    return tuple(tuple(a + b for a, b in zip(r, t, strict=True)) for r in M)


def translation_for_cosine(W: object, i: int, j: int, target: int, *,
                           t: object = None) -> ExactVector:
    """An exact ``v`` such that rows ``i`` and ``j`` of ``W + 1 v^T`` have cosine ``target``.

    With ``a = w_i``, ``b = w_j``:

    * ``target = -1``: ``v = -(a + b)/2`` gives ``a + v = (a - b)/2 = -(b + v)``;
    * ``target = +1``, ``a != b``: ``v = (t b - a)/(1 - t)`` for a rational ``t > 0``,
      ``t != 1`` (default 2, so ``v = a - 2 b``) gives ``a + v = t (b + v)``; both translated
      rows are non-zero because ``b + v = (b - a)/(1 - t)``.  This covers ``a = 0`` and
      ``a = -b``.
    * ``target = +1``, ``a = b`` (Lemma 3.3 holds for any ``a, b``): the rows stay equal under
      every translation, so ``v = 0`` already gives cosine 1 when ``a != 0``; when
      ``a = b = 0``, ``v = e_1`` makes both rows ``e_1``.

    Parameters
    ----------
    W : array_like, k x d
    i, j : int
        Distinct row indices.
    target : {-1, 1}
    t : rational, optional
        The ratio ``(a + v) / (b + v)`` for ``target = +1`` (default 2; refused with
        ``target = -1``, which has no such ratio).

    Returns
    -------
    tuple of Fraction, length d

    Raises
    ------
    InvalidInput
        ``i == j``, an index out of range, ``target`` not -1 or 1, ``t <= 0`` or
        ``t == 1``, ``t`` given with ``target = -1``, or ``target = -1`` with
        ``w_i == w_j`` (every translation keeps the rows equal: their cosine is 1 whenever
        it is defined, and -1 is impossible).

    Examples
    --------
    >>> W = [[1, 0], [0, 1]]
    >>> [str(x) for x in translation_for_cosine(W, 0, 1, 1)]
    ['1', '-2']
    >>> [str(x) for x in translation_for_cosine([[1, 1], [1, 1]], 0, 1, 1)]  # a = b: v = 0
    ['0', '0']
    >>> translation_for_cosine([[1, 1], [1, 1]], 0, 1, -1)
    Traceback (most recent call last):
    ...
    logitgeom.errors.InvalidInput: rows 0 and 1 of W are equal; a translation keeps them equal, \
so their cosine stays 1 (or undefined at 0): no translation reaches -1
    """
    M = to_matrix(W, what="W")
    k = len(M)
    for name, idx in (("i", i), ("j", j)):
        if isinstance(idx, bool) or not isinstance(idx, int | np.integer):
            raise InvalidInput(f"{name} must be a row index (an integer); got {idx!r}")
        if not 0 <= idx < k:
            raise InvalidInput(f"{name} = {idx} is out of range: W has {k} rows (0..{k - 1})")
    if i == j:
        raise InvalidInput(f"i and j must be different rows; both are {i}")
    if isinstance(target, bool) or target not in (-1, 1):
        raise InvalidInput(f"target must be -1 or 1; got {target!r}")
    a, b = M[i], M[j]
    if target == -1 and t is not None:
        raise InvalidInput(f"t (the ratio of the translated rows) applies to target = +1 only; "
                           f"got t={t!r} with target = -1"[:200])
    if target == 1:
        tq = to_fraction(2 if t is None else t, what="t")
        if tq <= 0 or tq == 1:
            raise InvalidInput(f"t must be a positive rational other than 1; got {tq}")
    if a == b:
        if target == -1:
            raise InvalidInput(
                f"rows {i} and {j} of W are equal; a translation keeps them equal, so their "
                "cosine stays 1 (or undefined at 0): no translation reaches -1"
            )
        zero = Fraction(0)
        if any(a):  # equal non-zero rows already have cosine 1
            return tuple(zero for _ in a)
        return (Fraction(1),) + tuple(zero for _ in a[1:])  # both rows become e_1
    if target == -1:
        return tuple(-(x + y) / 2 for x, y in zip(a, b, strict=True))
    return tuple((tq * y - x) / (1 - tq) for x, y in zip(a, b, strict=True))


def gram_exact(W: object) -> ExactMatrix:
    """The exact Gram matrix ``W W^T``.

    Parameters
    ----------
    W : k x d matrix
        Read exactly (at most 4,000 digits per number).

    Returns
    -------
    tuple of tuple of Fraction

    Raises
    ------
    InvalidInput
        W cannot be read exactly.

    Examples
    --------
    >>> [[int(x) for x in r] for r in gram_exact([[1, 2], [3, 4]])]
    [[5, 11], [11, 25]]
    """
    M = to_matrix(W, what="W")
    k = len(M)
    G = [[Fraction(0)] * k for _ in range(k)]
    for a in range(k):
        ra = M[a]
        for b in range(a, k):
            s = sum((x * y for x, y in zip(ra, M[b], strict=True)), Fraction(0))
            G[a][b] = G[b][a] = s
    return tuple(tuple(r) for r in G)


def cosine_equal(W1: object, W2: object) -> bool:
    """Exactly whether ``C(W1) == C(W2)`` (cosine matrices), with no square roots.

    ``cos_ij = g_ij / sqrt(g_ii g_jj)``, so the matrices agree iff for every pair the
    signs of ``g_ij`` agree and ``g1_ij^2 g2_ii g2_jj == g2_ij^2 g1_ii g1_jj``.  The
    widths ``d`` may differ.

    Raises
    ------
    InvalidInput
        Different numbers of rows, or a zero row (cosine undefined).

    Parameters
    ----------
    W1, W2 : k x d matrices
        Read exactly.

    Returns
    -------
    bool

    Examples
    --------
    >>> cosine_equal([[1, 0], [1, 1]], [[3, 0], [2, 2]])
    True
    >>> cosine_equal([[1, 0], [1, 1]], [[1, 0], [1, 2]])
    False
    """
    G1, G2 = gram_exact(W1), gram_exact(W2)
    if len(G1) != len(G2):
        raise InvalidInput(f"W1 has {len(G1)} rows but W2 has {len(G2)}; cosines need equal k")
    for name, G in (("W1", G1), ("W2", G2)):
        zero = [i for i in range(len(G)) if G[i][i] == 0]
        if zero:
            raise _zero_rows_error(zero, name)
    k = len(G1)
    for a in range(k):
        for b in range(a + 1, k):
            x, y = G1[a][b], G2[a][b]
            if (x > 0) != (y > 0) or (x < 0) != (y < 0):
                return False
            if x * x * G2[a][a] * G2[b][b] != y * y * G1[a][a] * G1[b][b]:
                return False
    return True
