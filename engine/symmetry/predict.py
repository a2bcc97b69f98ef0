"""The Gram pattern a symmetric optimum must have, and a check of a solution against it.

If G preserves Y, an optimal Z can be taken invariant, and then ``W W^T`` (a function of
``Z Z^T``) commutes with every row permutation P_g: entries ``(i, j)`` and
``(g(i), g(j))`` are equal, and so are ``(i, j)`` and ``(j, i)`` (symmetry).  The classes
of equal entries are the *symmetrised orbitals* of G on rows x rows.

The block forms of docs/symmetry.md (for factors acting 2-transitively, e.g. S_k):

* direct sums: diagonal blocks ``alpha_i I + beta_i (J - I)``, off-diagonal blocks
  ``kappa_ij 1 1^T`` (:func:`direct_sum_form`);
* direct products on vec(P): the span of ``I (x) I``, ``I (x) (J-I)``, ``(J-I) (x) I``,
  ``(J-I) (x) (J-I)`` (Kronecker type; :func:`direct_product_form`);
* wreath products: ``alpha I + beta I_b (x) (J_s - I_s) + gamma (J_b - I_b) (x) J_s``
  (:func:`wreath_form`).

Examples
--------
>>> from logitgeom.symmetry import direct_sum, symmetric
>>> S = predicted_gram_structure(direct_sum(symmetric(2), symmetric(3)))
>>> S.n_classes, S.same_pattern(direct_sum_form([2, 3]))
(5, True)
>>> S.check(np.eye(5)).max_deviation
0.0
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from logitgeom.errors import InvalidInput
from logitgeom.symmetry.group import GroupAction

__all__ = [
    "GramCheck",
    "GramStructure",
    "direct_product_form",
    "direct_sum_form",
    "predicted_gram_structure",
    "wreath_form",
]


def _canonical(labels: np.ndarray) -> np.ndarray:
    """Renumber labels by first occurrence in row-major order."""
    flat = labels.ravel()
    _, first, inv = np.unique(flat, return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first)] = np.arange(len(first))
    return rank[inv.ravel()].reshape(labels.shape)


@dataclass(frozen=True)
class GramCheck:
    """How far a Gram matrix is from a predicted pattern.

    Attributes
    ----------
    max_deviation : float
        ``max |G_ij - mean of G over the class of (i, j)|``.
    relative : float
        ``max_deviation / max |G_ij|`` (0 for the zero matrix).
    worst : tuple of int
        An entry (i, j) attaining ``max_deviation``.
    class_values : tuple of float
        Mean of G over each class (the alpha, beta, kappa of the block forms).
    """

    max_deviation: float
    relative: float
    worst: tuple[int, int]
    class_values: tuple[float, ...]

    def ok(self, tol: float = 1e-6) -> bool:
        """``relative <= tol``."""
        return self.relative <= tol


@dataclass(frozen=True, eq=False)
class GramStructure:
    """Which entries of an m x m Gram matrix must be equal.

    Attributes
    ----------
    labels : numpy.ndarray of int, shape (m, m)
        Equal labels = entries that must be equal (canonically numbered).
    name : str
    """

    labels: np.ndarray
    name: str = ""

    @property
    def m(self) -> int:
        return self.labels.shape[0]

    @property
    def n_classes(self) -> int:
        return int(self.labels.max()) + 1

    def same_pattern(self, other: GramStructure) -> bool:
        """Whether both structures put the same pairs of entries in one class (exact).

        Examples
        --------
        >>> GramStructure(np.array([[0, 1], [1, 0]])).same_pattern(
        ...     GramStructure(np.array([[5, 2], [2, 5]])))
        True
        """
        return bool(np.array_equal(_canonical(self.labels), _canonical(other.labels)))

    def refines(self, other: GramStructure) -> bool:
        """Whether every class of ``self`` lies inside a class of ``other``.

        Examples
        --------
        >>> fine, coarse = direct_sum_form([2, 2]), wreath_form(2, 2)
        >>> fine.refines(coarse), coarse.refines(fine)
        (True, False)
        """
        a, b = self.labels.ravel(), other.labels.ravel()
        seen: dict[int, int] = {}
        for x, y in zip(a.tolist(), b.tolist(), strict=True):
            if seen.setdefault(x, y) != y:
                return False
        return True

    def project(self, G: object) -> np.ndarray:
        """G averaged over each class (the nearest matrix with this pattern, Frobenius).

        Examples
        --------
        >>> GramStructure(np.array([[0, 1], [1, 0]])).project([[1.0, 0.0], [0.0, 3.0]])
        array([[2., 0.],
               [0., 2.]])
        """
        A = self._matrix(G)
        lab = self.labels.ravel()
        sums = np.bincount(lab, weights=A.ravel(), minlength=self.n_classes)
        cnt = np.bincount(lab, minlength=self.n_classes)
        return (sums / cnt)[self.labels]

    def check(self, G: object) -> GramCheck:
        """Compare a Gram matrix (e.g. a solution's W W^T) with the pattern.

        Raises
        ------
        InvalidInput
            G is not an m x m matrix of finite numbers.

        Examples
        --------
        >>> S = GramStructure(np.array([[0, 1], [1, 0]]))
        >>> c = S.check([[2.0, 1.0], [1.0, 2.5]])
        >>> c.max_deviation, c.worst, c.ok()
        (0.25, (0, 0), False)
        """
        A = self._matrix(G)
        P = self.project(A)
        dev = np.abs(A - P)
        k = int(np.argmax(dev))
        mx = float(dev.ravel()[k])
        scale = float(np.max(np.abs(A)))
        cls = np.bincount(self.labels.ravel(), weights=A.ravel(), minlength=self.n_classes)
        cls = cls / np.bincount(self.labels.ravel(), minlength=self.n_classes)
        return GramCheck(mx, mx / scale if scale > 0 else 0.0, (k // self.m, k % self.m),
                         tuple(float(v) for v in cls))

    def _matrix(self, G: object) -> np.ndarray:
        try:
            A = np.asarray(G, dtype=float)
        except (TypeError, ValueError):
            raise InvalidInput("the Gram matrix must be a numeric m x m matrix") from None
        if A.shape != self.labels.shape:
            raise InvalidInput(f"the Gram matrix has shape {A.shape}; the pattern is "
                               f"{self.labels.shape}")
        if not np.all(np.isfinite(A)):
            raise InvalidInput("the Gram matrix has NaN or infinite entries")
        return A


def predicted_gram_structure(group: object) -> GramStructure:
    """The pattern of ``W W^T`` at a G-invariant optimum: symmetrised orbitals of G.

    Parameters
    ----------
    group : GroupAction or any spelling of :func:`logitgeom.symmetry.as_group`
        Only its action on the rows (labels) matters.

    Returns
    -------
    GramStructure

    Raises
    ------
    InvalidInput
        Not a group spelling.
    TooLarge
        Computing the group's orbitals is estimated over
        :data:`logitgeom.symmetry.group.ORDER_WORK_LIMIT` (as the CLI's refusal bound).

    Examples
    --------
    >>> from logitgeom.symmetry import cyclic
    >>> predicted_gram_structure(cyclic(4)).labels.tolist()
    [[0, 1, 2, 1], [1, 0, 1, 2], [2, 1, 0, 1], [1, 2, 1, 0]]
    >>> predicted_gram_structure("S3").n_classes
    2
    """
    from logitgeom.errors import TooLarge
    from logitgeom.symmetry.group import ORDER_WORK_LIMIT, order_work

    if not isinstance(group, GroupAction):
        from logitgeom.symmetry.constructors import as_group

        group = as_group(group)
    work = order_work(group.m, group.row_generators)  # the CLI's refusal bound (logitgeom.limits)
    if work > ORDER_WORK_LIMIT and "order" not in group.__dict__:
        raise TooLarge(f"predicted_gram_structure of {group.name or 'a group'} (degree "
                       f"{group.m}): estimated {work:,} units of work for its orbitals, over "
                       f"the limit of {ORDER_WORK_LIMIT:,}; refused before any work")
    return GramStructure(_canonical(group.orbitals(symmetrized=True)),
                         f"orbitals of {group.name or 'G'}")


def _sizes(sizes: Sequence[int], what: str) -> list[int]:
    out = [int(s) for s in sizes]
    if not out or any(s < 1 for s in out):
        raise InvalidInput(f"{what} must be positive integers; got {list(sizes)!r}")
    return out


def direct_sum_form(sizes: Sequence[int]) -> GramStructure:
    """Blocks ``alpha_i I + beta_i (J - I)`` on the diagonal, ``kappa_ij 1 1^T`` off it.

    Examples
    --------
    >>> direct_sum_form([1, 2]).labels.tolist()
    [[0, 1, 1], [1, 2, 3], [1, 3, 2]]
    """
    sz = _sizes(sizes, "direct_sum_form sizes")
    block = np.repeat(np.arange(len(sz)), sz)
    m = len(block)
    lab = np.empty((m, m), dtype=np.int64)
    r = len(sz)
    for i in range(m):
        for j in range(m):
            bi, bj = block[i], block[j]
            if bi == bj:
                lab[i, j] = 2 * bi + (i != j)
            else:
                lo, hi = min(bi, bj), max(bi, bj)
                lab[i, j] = 2 * r + lo * r + hi
    return GramStructure(_canonical(lab), f"direct sum {sz}")


def direct_product_form(a: int, l: int) -> GramStructure:
    """Kronecker type: class of ((i, j), (i', j')) is (i == i', j == j'); label ``i + a j``.

    Examples
    --------
    >>> direct_product_form(2, 2).n_classes
    4
    """
    a, l = _sizes([a, l], "direct_product_form sizes")
    idx = np.arange(a * l)
    i, j = idx % a, idx // a
    lab = 2 * (i[:, None] != i[None, :]) + (j[:, None] != j[None, :])
    return GramStructure(_canonical(lab), f"direct product {a} x {l}")


def wreath_form(s: int, b: int) -> GramStructure:
    """``alpha I + beta I_b (x) (J_s - I_s) + gamma (J_b - I_b) (x) J_s``; label ``k s + i``.

    Examples
    --------
    >>> wreath_form(2, 2).labels.tolist()
    [[0, 1, 2, 2], [1, 0, 2, 2], [2, 2, 0, 1], [2, 2, 1, 0]]
    """
    s, b = _sizes([s, b], "wreath_form sizes")
    idx = np.arange(s * b)
    blk = idx // s
    lab = np.where(idx[:, None] == idx[None, :], 0,
                   np.where(blk[:, None] == blk[None, :], 1, 2))
    return GramStructure(_canonical(lab), f"wreath {s} wr {b}")
