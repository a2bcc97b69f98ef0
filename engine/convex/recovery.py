"""Factors W*, H* and Gram matrices from an optimal logit matrix Z* (docs/layer-peeled.md).

For ``Z = U S V^T`` (thin SVD, numerical rank r) and ``c = (E_W/E_H)^(1/4)``:
``W = c U S^(1/2)``, ``H = c^(-1) S^(1/2) V^T``, zero-padded to width d, so
``||W||_F^2 = sqrt(E_W/E_H) ||Z||_*`` and ``||H||_F^2 = sqrt(E_H/E_W) ||Z||_*``: both
budgets hold whenever ``||Z||_* <= sqrt(E_W E_H)``.  If d < r the factors come from
the best rank-d truncation and no longer reproduce Z (``tight`` is False).

Examples
--------
>>> import numpy as np
>>> Z = np.array([[2.0, 0.0], [0.0, -1.0]])
>>> f = recover_factors(Z, 4.0, 1.0)
>>> f.rank, f.tight, bool(np.allclose(f.W @ f.H, Z))
(2, True, True)
>>> round(float(np.sum(f.W ** 2)), 12)   # sqrt(E_W/E_H) ||Z||_* = 2 * 3
6.0
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Factors", "gram_matrices", "numerical_rank", "recover_factors", "thin_svd",
           "thin_svd_left"]

#: default relative tolerance of :func:`numerical_rank`
RANK_TOL = 1e-6


def thin_svd(Z: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``U, s, Vt`` of ``Z`` (s descending), fast for very wide or very tall matrices.

    For n >= 8 m (or m >= 8 n, by transposition) the small Gram ``Z Z^T`` gives ``U``; then
    ``B = U^T Z`` has rows ``s_i v_i``, so ``s`` (row norms) is accurate to about
    ``eps * s_max``: a 8 x 40,320 matrix takes milliseconds instead of 0.25 s.

    Examples
    --------
    >>> Z = np.random.default_rng(0).standard_normal((3, 40))
    >>> U, s, Vt = thin_svd(Z)
    >>> bool(np.allclose((U * s) @ Vt, Z)), bool(np.allclose(s, np.linalg.svd(Z)[1]))
    (True, True)
    """
    Z = np.asarray(Z, dtype=float)
    m, n = Z.shape
    if m >= 8 * n:
        U, s, Vt = thin_svd(Z.T)
        return Vt.T, s, U.T
    if n < 8 * m:
        return np.linalg.svd(Z, full_matrices=False)
    _, U = np.linalg.eigh(Z @ Z.T)
    order = np.arange(m)[::-1]  # eigh: ascending eigenvalues of Z Z^T
    U = np.ascontiguousarray(U[:, order])
    B = U.T @ Z
    s = np.sqrt(np.einsum("ij,ij->i", B, B))  # row norms (accurate; one pass)
    order = np.argsort(-s, kind="stable")
    if not np.array_equal(order, np.arange(m)):
        U, s = U[:, order], s[order]
        _permute_rows(B, order)
    pos = s > 0
    B /= np.where(pos, s, 1.0)[:, None]  # B becomes Vt in place
    if not pos.all():
        B[np.flatnonzero(~pos)] = 0.0
    return U, s, B


def thin_svd_left(Z: np.ndarray, chunk: int = 1 << 18) -> tuple[np.ndarray, np.ndarray]:
    """``U, s`` of :func:`thin_svd` for a wide Z without any n-sized array: ``U`` from the
    m x m Gram, ``s`` as the row norms of ``U^T Z`` accumulated over column chunks (as
    accurate as :func:`thin_svd`'s).

    Examples
    --------
    >>> Z = np.random.default_rng(1).standard_normal((3, 50))
    >>> U, s = thin_svd_left(Z, chunk=7)
    >>> bool(np.allclose(s, np.linalg.svd(Z)[1]))
    True
    """
    Z = np.asarray(Z, dtype=float)
    m, n = Z.shape
    _, U = np.linalg.eigh(Z @ Z.T)
    sq = np.zeros(m)
    for a in range(0, n, chunk):
        B = U.T @ Z[:, a:a + chunk]
        sq += np.einsum("ij,ij->i", B, B)
    s = np.sqrt(sq)
    order = np.argsort(-s, kind="stable")
    return np.ascontiguousarray(U[:, order]), s[order]


def _permute_rows(B: np.ndarray, order: np.ndarray) -> None:
    """``B[:] = B[order]`` in place, one row of scratch (rows may be n-sized)."""
    done = np.zeros(len(order), dtype=bool)
    for start in range(len(order)):
        if done[start] or order[start] == start:
            done[start] = True
            continue
        tmp = B[start].copy()
        i = start
        while True:
            j = int(order[i])
            done[i] = True
            if j == start:
                B[i] = tmp
                break
            B[i] = B[j]
            i = j


def numerical_rank(s: np.ndarray, tol: float = RANK_TOL) -> int:
    """Number of singular values above ``tol * max(s)`` (a float diagnostic, not a proof).

    Parameters
    ----------
    s : numpy.ndarray
        Singular values, in any order.
    tol : float
        Relative threshold.

    Returns
    -------
    int

    Examples
    --------
    >>> numerical_rank(np.array([3.0, 1.0, 1e-12]))
    2
    """
    s = np.asarray(s, dtype=float)
    if s.size == 0 or float(np.max(s)) <= 0.0:
        return 0
    return int(np.sum(s > tol * float(np.max(s))))


@dataclass(frozen=True)
class Factors:
    """Recovered factors: ``W`` (m x d), ``H`` (d x n), their Grams, rank and tightness.

    ``HtH`` (n x n) is computed on access: for n = 40,320 it would need 13 GB.
    """

    W: np.ndarray
    H: np.ndarray | None
    WWt: np.ndarray
    singular_values: np.ndarray
    rank: int
    d: int
    tight: bool

    @property
    def HtH(self) -> np.ndarray:
        """``H^T H`` (n x n)."""
        return self.H.T @ self.H


def recover_factors(Z: np.ndarray, E_W: float, E_H: float, d: int | None = None,
                    rank_tol: float = RANK_TOL, *, svd: tuple | None = None,
                    want_H: bool = True) -> Factors:
    """Balanced factors of Z meeting the budgets (see module docstring).

    Parameters
    ----------
    Z : numpy.ndarray
        m x n logits with ``||Z||_* <= sqrt(E_W E_H)``.
    E_W, E_H : float
        Squared Frobenius budgets (> 0).
    d : int or None
        Hidden width; None means ``min(m, n)``.
    rank_tol : float
        Relative tolerance of :func:`numerical_rank`.
    svd : (U, s, Vt), optional
        :func:`thin_svd` of Z when the caller has it already; its ``Vt`` is then reused
        (scaled in place) as H when the shapes allow.
    want_H : bool
        False: ``H`` is None (the caller rebuilds it on demand; no n-sized array).

    Returns
    -------
    Factors

    Examples
    --------
    >>> f = recover_factors(np.ones((2, 3)), 1.0, 1.0, d=1)
    >>> f.W.shape, f.H.shape, f.rank, f.tight
    ((2, 1), (1, 3), 1, True)
    """
    Z = np.asarray(Z, dtype=float)
    m, n = Z.shape
    width = min(m, n) if d is None else int(d)
    U, s, Vt = thin_svd(Z) if svd is None else svd
    r = numerical_rank(s, rank_tol)
    k = min(r, width)
    c = (float(E_W) / float(E_H)) ** 0.25
    root = np.sqrt(s[:k])
    W = np.zeros((m, width))
    W[:, :k] = c * U[:, :k] * root
    if not want_H:
        H = None
    elif svd is not None and Vt.shape[0] == width and Vt.flags.writeable:
        H = Vt  # the caller's Vt is scaled in place into H (no second n-sized array)
        H[:k] *= (root / c)[:, None]
        H[k:] = 0.0
    else:
        H = np.zeros((width, n))
        H[:k, :] = (root[:, None] * Vt[:k, :]) / c
    return Factors(W=W, H=H, WWt=W @ W.T, singular_values=s, rank=r,
                   d=width, tight=width >= r)


def gram_matrices(Z: np.ndarray, E_W: float, E_H: float) -> tuple[np.ndarray, np.ndarray]:
    """``(sqrt(E_W/E_H) (Z Z^T)^(1/2), sqrt(E_H/E_W) (Z^T Z)^(1/2))`` (docs/layer-peeled.md).

    Examples
    --------
    >>> G, K = gram_matrices(np.diag([4.0, 1.0]), 1.0, 1.0)
    >>> np.diag(G).tolist(), np.diag(K).tolist()
    ([4.0, 1.0], [4.0, 1.0])
    """
    Z = np.asarray(Z, dtype=float)
    U, s, Vt = np.linalg.svd(Z, full_matrices=False)
    a = np.sqrt(float(E_W) / float(E_H))
    return a * (U * s) @ U.T, (Vt.T * s) @ Vt / a
