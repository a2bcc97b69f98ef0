"""Distances of a Gram matrix to simplex-ETF, circulant and group-invariant geometry.

docs/symmetry.md, section 5 (the symmetry paper, Sec. 5 / App. D).  Vectors (rows of ``X``)
are mean-centred (the coordinate-wise mean over the set is subtracted) and rescaled by one
common factor so that their mean l2 norm is 1; ``G = X X^T``.  With ``M = (m/(m-1)) (I - 11^T/m)``:

* ``delta_etf(G) = ||G - c M||_F / ||G||_F`` with ``c = <G, M> / <M, M>``;
* ``delta_circ(G) = ||G - Pi_circ(G)||_F / ||G||_F``, ``Pi_circ`` averaging each cyclic
  diagonal ``(j - i) mod m``;
* ``delta_group(G, group) = ||G - avg_g P_g G P_g^T||_F / ||G||_F``.

The group average is computed without listing the group: for a permutation group the
average of ``P_g G P_g^T`` over the group is the orthogonal projection onto matrices that
are constant on each orbital (orbit of the group on pairs ``(i, j)``), and orbitals are the
connected components of the pairs under the generators.  So a list of generators (or of
all elements) gives the same answer, and S_8 costs no more than C_8.

These are float diagnostics (they report a distance, they decide nothing); all are
invariant to positive scaling of ``G`` and, through the preprocessing, to adding a common
vector to every row and to scaling the vectors.

Examples
--------
>>> import numpy as np
>>> X = np.eye(4)                      # a regular simplex after centring
>>> G = normalized_gram(X)
>>> round(delta_etf(G), 12), round(delta_circ(G), 12)
(0.0, 0.0)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from logitgeom.errors import InvalidInput
from logitgeom_certificates.api import orbital_labels

__all__ = [
    "delta_target",
    "centre_and_scale",
    "double_centre",
    "normalized_gram",
    "simplex_etf_gram",
    "nearest_etf",
    "nearest_circulant",
    "nearest_invariant",
    "delta_etf",
    "delta_circ",
    "delta_group",
    "orbitals",
    "GeometryDiagnostics",
    "diagnose",
]


def _float_matrix(A, what: str, *, square: bool) -> np.ndarray:
    try:
        M = np.array(A, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidInput(f"{what} must be a real matrix: {exc}") from exc
    except OverflowError:  # an exact number beyond the float range
        raise InvalidInput(f"{what} has an entry beyond the float range (|x| > 1.8e308); "
                           "the diagnostics are float computations") from None
    if M.ndim != 2:
        raise InvalidInput(f"{what} must be 2-D; got shape {M.shape}")
    if square and M.shape[0] != M.shape[1]:
        raise InvalidInput(f"{what} must be square; got shape {M.shape}")
    if M.shape[0] < 2:
        raise InvalidInput(f"{what} needs at least 2 rows (vectors); got {M.shape[0]}")
    if not np.all(np.isfinite(M)):
        bad = np.argwhere(~np.isfinite(M))[0].tolist()
        raise InvalidInput(f"{what} has a NaN or infinite entry at {bad}")
    return M


def centre_and_scale(X) -> np.ndarray:
    """Subtract the coordinate-wise mean of the rows, then scale so the mean row norm is 1.

    Parameters
    ----------
    X : array_like, shape (m, d)
        One vector per row (m >= 2).

    Returns
    -------
    numpy.ndarray, shape (m, d)

    Raises
    ------
    InvalidInput
        Not 2-D, fewer than 2 rows, NaN/inf, or all rows equal (nothing left after centring).

    Examples
    --------
    >>> centre_and_scale([[1.0, 0.0], [3.0, 0.0]]).tolist()
    [[-1.0, 0.0], [1.0, 0.0]]
    """
    A = _float_matrix(X, "X", square=False)
    C = A - A.mean(axis=0, keepdims=True)
    s = float(np.linalg.norm(C, axis=1).mean())
    if s == 0.0:
        raise InvalidInput("all vectors are equal: after mean-centring nothing is left, so the "
                           "geometry diagnostics are undefined")
    return C / s


def normalized_gram(X) -> np.ndarray:
    """Gram matrix of the mean-centred, commonly rescaled rows of ``X`` (docs/symmetry.md,
    section 5).

    Parameters
    ----------
    X : m x d real matrix
        One vector per row (m >= 2).

    Returns
    -------
    numpy.ndarray
        m x m.

    Raises
    ------
    InvalidInput
        X is not a real matrix with finite entries, has fewer than 2 rows, or all rows are
        equal.

    Examples
    --------
    >>> normalized_gram([[1.0, 0.0], [3.0, 0.0]]).tolist()
    [[1.0, -1.0], [-1.0, 1.0]]
    """
    C = centre_and_scale(X)
    G = C @ C.T
    return (G + G.T) / 2.0


def double_centre(A) -> np.ndarray:
    """Subtract row means and column means of a square matrix (add back the grand mean).

    The Gram of mean-centred vectors is the double-centred Gram, so this is how a square
    matrix that is not a Gram (a next-token probability matrix) is prepared for
    :func:`delta_etf` / :func:`delta_circ`: it removes the constant part ``J/m`` that every
    column-stochastic matrix shares and that would otherwise deflate the residuals.

    Examples
    --------
    >>> double_centre([[0.75, 0.25], [0.25, 0.75]]).tolist()
    [[0.25, -0.25], [-0.25, 0.25]]
    """
    M = _float_matrix(A, "A", square=True)
    return M - M.mean(axis=0, keepdims=True) - M.mean(axis=1, keepdims=True) + M.mean()


def simplex_etf_gram(m: int) -> np.ndarray:
    """The canonical simplex-ETF Gram ``M = (m/(m-1)) (I - 11^T/m)`` (unit diagonal).

    Examples
    --------
    >>> simplex_etf_gram(3).round(3).tolist()
    [[1.0, -0.5, -0.5], [-0.5, 1.0, -0.5], [-0.5, -0.5, 1.0]]
    """
    if not isinstance(m, int | np.integer) or m < 2:
        raise InvalidInput(f"a simplex ETF needs m >= 2 vectors; got {m!r}")
    m = int(m)
    return (m / (m - 1)) * (np.eye(m) - np.full((m, m), 1.0 / m))


def _norm_or_raise(G: np.ndarray) -> float:
    n = float(np.linalg.norm(G))
    if n == 0.0:
        raise InvalidInput("G is the zero matrix; the relative distances are undefined")
    return n


def nearest_etf(G) -> np.ndarray:
    """The best multiple ``c M`` of the simplex-ETF Gram in Frobenius norm.

    Parameters
    ----------
    G : m x m real matrix

    Returns
    -------
    numpy.ndarray

    Raises
    ------
    InvalidInput
        G is not a real square matrix with finite entries.

    Examples
    --------
    >>> nearest_etf(2.0 * simplex_etf_gram(3)).round(6).tolist()[0]
    [2.0, -1.0, -1.0]
    """
    A = _float_matrix(G, "G", square=True)
    M = simplex_etf_gram(A.shape[0])
    c = float(np.sum(A * M) / np.sum(M * M))
    return c * M


def delta_etf(G) -> float:
    """Relative Frobenius distance of ``G`` to the nearest multiple of the simplex-ETF Gram.

    Parameters
    ----------
    G : array_like, shape (m, m)

    Returns
    -------
    float
        0 for an exact simplex ETF; invariant to positive scaling of ``G``.

    Raises
    ------
    InvalidInput
        Not square, m < 2, NaN/inf, or G = 0.

    Examples
    --------
    >>> import numpy as np
    >>> round(delta_etf(np.eye(3) - 1/3), 12)
    0.0
    >>> delta_etf(np.eye(3)) > 0.5
    True
    """
    A = _float_matrix(G, "G", square=True)
    n = _norm_or_raise(A)
    return float(np.linalg.norm(A - nearest_etf(A)) / n)


def orbitals(m: int, generators: Sequence[Sequence[int]]) -> np.ndarray:
    """Label each pair ``(i, j)`` of ``[m] x [m]`` by its orbit under the generated group.

    Parameters
    ----------
    m : int
    generators : sequence of permutations
        Each a sequence ``p`` with ``p[i]`` the image of ``i`` (a permutation of range(m)).

    Returns
    -------
    numpy.ndarray of int, shape (m, m)
        Orbit labels 0, 1, ... numbered in order of first appearance (row-major).

    Examples
    --------
    >>> orbitals(3, [[1, 2, 0]]).tolist()
    [[0, 1, 2], [2, 0, 1], [1, 2, 0]]
    """
    return np.asarray(orbital_labels(m, generators), dtype=np.int64).reshape(m, m)


def _generators(group, m: int) -> list[tuple[int, ...]]:
    """Permutations of range(m) from a list of permutations, sympy objects or a GroupAction."""
    if group is None:
        raise InvalidInput("group is None; give permutations of range(m) or a GroupAction")
    if not isinstance(group, list | tuple | np.ndarray):  # a group object or a spec string:
        from logitgeom.symmetry.constructors import (
            as_group,  # the one conversion (logitgeom.symmetry)
        )

        return list(as_group(group, m=m).row_generators) or [tuple(range(m))]
    items: Iterable = group
    gens = []
    for k, p in enumerate(items):
        arr = getattr(p, "array_form", p)  # sympy Permutation
        try:
            perm = tuple(int(x) for x in arr)
        except (TypeError, ValueError) as exc:
            raise InvalidInput(f"group element {k} is not a permutation: {p!r}") from exc
        if hasattr(p, "array_form") and len(perm) < m and sorted(perm) == list(range(len(perm))):
            perm = perm + tuple(range(len(perm), m))  # sympy drops trailing fixed points
        if sorted(perm) != list(range(m)):
            raise InvalidInput(
                f"group element {k} = {list(perm)} is not a permutation of range({m}) "
                f"(G is {m} x {m})"
            )
        gens.append(perm)
    if not gens:
        raise InvalidInput("the group has no elements; give at least the identity")
    return gens


def nearest_invariant(G, group) -> np.ndarray:
    """Orthogonal projection of ``G`` onto ``{A : P_g A P_g^T = A for all g}`` (orbital averages).

    Parameters
    ----------
    G : array_like, shape (m, m)
    group : sequence of permutations, or a group object
        Generators or all elements (the result is the same); ``p[i]`` is the image of ``i``.
        Objects and spec strings go through :func:`logitgeom.symmetry.as_group` (a
        ``GroupAction``, a sympy ``PermutationGroup``, ``"S4"``, ...).

    Returns
    -------
    numpy.ndarray

    Raises
    ------
    InvalidInput
        G is not a real square matrix with finite entries, or not a group.

    Examples
    --------
    >>> import numpy as np
    >>> nearest_invariant(np.diag([1.0, 3.0]), [[1, 0]]).tolist()
    [[2.0, 0.0], [0.0, 2.0]]
    """
    A = _float_matrix(G, "G", square=True)
    m = A.shape[0]
    lab = orbitals(m, _generators(group, m)).ravel()
    k = int(lab.max()) + 1
    sums = np.bincount(lab, weights=A.ravel(), minlength=k)
    counts = np.bincount(lab, minlength=k)
    return (sums / counts)[lab].reshape(m, m)


def nearest_circulant(G) -> np.ndarray:
    """Projection onto circulant matrices: each cyclic diagonal ``(j - i) mod m`` averaged.

    Parameters
    ----------
    G : m x m real matrix

    Returns
    -------
    numpy.ndarray

    Raises
    ------
    InvalidInput
        G is not a real square matrix with finite entries.

    Examples
    --------
    >>> import numpy as np
    >>> nearest_circulant(np.array([[1.0, 2.0], [4.0, 3.0]])).tolist()
    [[2.0, 3.0], [3.0, 2.0]]
    """
    A = _float_matrix(G, "G", square=True)
    m = A.shape[0]
    i, j = np.indices((m, m))
    lab = ((j - i) % m).ravel()
    avg = np.bincount(lab, weights=A.ravel(), minlength=m) / m
    return avg[lab].reshape(m, m)


def delta_circ(G) -> float:
    """Relative Frobenius distance of ``G`` to the circulant matrices.

    Parameters
    ----------
    G : array_like, shape (m, m)

    Returns
    -------
    float
        0 exactly when G is circulant; invariant to positive scaling.

    Raises
    ------
    InvalidInput
        Not square, m < 2, NaN/inf, or G = 0.

    Examples
    --------
    >>> import numpy as np
    >>> round(delta_circ(np.array([[2.0, 1.0, 0.0], [0.0, 2.0, 1.0], [1.0, 0.0, 2.0]])), 12)
    0.0
    """
    A = _float_matrix(G, "G", square=True)
    n = _norm_or_raise(A)
    return float(np.linalg.norm(A - nearest_circulant(A)) / n)


def delta_group(G, group) -> float:
    """Relative Frobenius distance of ``G`` to the matrices invariant under a permutation group.

    Parameters
    ----------
    G : array_like, shape (m, m)
    group : sequence of permutations or a group object
        Generators or all elements, each ``p`` with ``p[i]`` the image of ``i``; or a
        group object (see :func:`nearest_invariant`), e.g. ``logitgeom.symmetry.cyclic(m)``.

    Returns
    -------
    float
        ``||G - avg_g P_g G P_g^T||_F / ||G||_F``.

    Raises
    ------
    InvalidInput
        Bad G (see :func:`delta_circ`) or an element that is not a permutation of range(m).

    Examples
    --------
    >>> import numpy as np
    >>> G = np.array([[2.0, 1.0, 0.0], [0.0, 2.0, 1.0], [1.0, 0.0, 2.0]])
    >>> round(delta_group(G, [[1, 2, 0]]), 12) == round(delta_circ(G), 12)
    True
    """
    A = _float_matrix(G, "G", square=True)
    n = _norm_or_raise(A)
    return float(np.linalg.norm(A - nearest_invariant(A, group)) / n)


@dataclass(frozen=True)
class GeometryDiagnostics:
    """Normalised Gram of a vector set and its distances to the predicted geometries.

    Attributes
    ----------
    gram : numpy.ndarray
        Gram of the centred, rescaled vectors.
    delta_etf, delta_circ : float
    delta_group : float or None
        Only when a group was given.
    """

    gram: np.ndarray
    delta_etf: float
    delta_circ: float
    delta_group: float | None = None

    def as_dict(self) -> dict:
        out = {"delta_etf": self.delta_etf, "delta_circ": self.delta_circ,
               "gram": self.gram.tolist()}
        if self.delta_group is not None:
            out["delta_group"] = self.delta_group
        return out


def delta_target(G, Y) -> float:
    """Relative distance of a context Gram ``G`` (n x n) to the span of ``Y^T Y`` and ``J``:
    the layer-peeled prediction for one-hot orbit targets ``Y`` (m x n).  Contexts with the
    same target have the same optimal feature, so ``H*^T H*`` depends only on whether two
    contexts share their target (the 0/1 pattern the symmetry paper prints in Sec. 5.2).

    Examples
    --------
    >>> Y = np.array([[1., 0, 1], [0, 1, 0]])
    >>> round(delta_target(3 * Y.T @ Y - 1, Y), 12)
    0.0
    """
    G = _float_matrix(G, "G", square=True)
    Y = np.asarray(Y, dtype=float)
    if Y.ndim != 2 or Y.shape[1] != G.shape[0]:
        raise InvalidInput(f"Y must have one column per context ({G.shape[0]}); got shape "
                           f"{Y.shape}")
    A = np.stack([(Y.T @ Y).ravel(), np.ones(G.size)], axis=1)
    coef, *_ = np.linalg.lstsq(A, G.ravel(), rcond=None)
    return float(np.linalg.norm(G.ravel() - A @ coef) / _norm_or_raise(G))


def diagnose(X, group=None) -> GeometryDiagnostics:
    """All diagnostics of the vectors in the rows of ``X`` (columns of H: pass ``H.T``).

    Examples
    --------
    >>> import numpy as np
    >>> t = 2 * np.pi * np.arange(5) / 5
    >>> d = diagnose(np.c_[np.cos(t), np.sin(t)] + 7.0)
    >>> d.delta_circ < 1e-12, d.delta_etf > 0.1
    (True, True)
    """
    G = normalized_gram(X)
    return GeometryDiagnostics(
        gram=G,
        delta_etf=delta_etf(G),
        delta_circ=delta_circ(G),
        delta_group=None if group is None else delta_group(G, group),
    )
