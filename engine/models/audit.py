"""Cosine audit of a token set (the cosine paper): what cosine similarity of unembeddings can and
cannot tell.

For the rows W (m x d) of a token set, :func:`cosine_audit` reports

* ``C(W)``, the cosine matrix of the rows, and ``C(BW)``, the cosine matrix of all
  differences ``w_i - w_j`` (i < j, lexicographic): C(W) determines the sigmoid sign
  pattern but not the softmax ranking pattern; C(BW) determines the ranking pattern
  (the cosine paper, Lemma 5.3 and Thm 5.6);
* two translated heads ``W + 1 v^T`` with exactly the same softmax probabilities for every
  input, in which a chosen pair of tokens has cosine exactly -1 and exactly +1, as one
  ``theorem`` certificate (``translation-cosine``, checked by ``logitgeom_certificates.check``);
* optionally, the argmaxable tokens and the exact ranking pattern when contexts are
  restricted to a ``dim``-dimensional subspace (:func:`exact_projection`).

All exact claims are made on the exact binary rationals of the float weights.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from logitgeom.errors import InvalidInput
from logitgeom.exact.numbers import ExactMatrix, matrix_to_str, to_matrix, to_vector

__all__ = ["Projection", "ProjectionAudit", "CosineAudit", "exact_projection", "cosine_audit"]

#: Largest denominator of the rounded projection directions.
PROJECTION_DENOMINATOR = 1 << 10


@dataclass(frozen=True)
class Projection:
    """An exact linear map to ``dim`` dimensions and the projected (centred) rows.

    Attributes
    ----------
    basis : ExactMatrix, shape (d, dim)
        Rational directions ``V_q`` (top principal directions of the centred rows, each entry
        rounded to a fraction with denominator at most :data:`PROJECTION_DENOMINATOR`).
    projected : ExactMatrix, shape (m, dim)
        ``(W - 1 mean^T) V_q`` computed exactly.  Softmax rankings and argmax of
        ``projected @ y`` equal those of ``W @ (V_q y)``: the head with contexts restricted to
        the column space of ``V_q`` (centring adds the same number to every logit).
    """

    basis: ExactMatrix
    projected: ExactMatrix

    @property
    def dim(self) -> int:
        return len(self.basis[0])


def exact_projection(W, dim: int) -> Projection:
    """Project the rows of ``W`` exactly onto ``dim`` rounded principal directions.

    Parameters
    ----------
    W : array_like, shape (m, d)
        Rows (float or exact); floats are taken as the exact binary rationals they denote.
    dim : int
        1 <= dim <= d.

    Returns
    -------
    Projection

    Raises
    ------
    InvalidInput
        Bad ``dim``, bad W, or rounded directions of rank < dim.

    Examples
    --------
    >>> P = exact_projection([[0, 0, 0], [3, 0, 0], [0, 0, 0]], 1)
    >>> [str(b[0]) for b in P.basis], [str(r[0]) for r in P.projected]
    (['1', '0', '0'], ['-1', '2', '-1'])
    """
    Wq = to_matrix(W, what="W")
    m, d = len(Wq), len(Wq[0])
    if isinstance(dim, bool) or not isinstance(dim, int | np.integer) or not 1 <= dim <= d:
        raise InvalidInput(f"dim must be an integer in 1..{d} (the width of W); got {dim!r}")
    dim = int(dim)
    mean = tuple(sum(col, Fraction(0)) / m for col in zip(*Wq, strict=True))
    C = tuple(tuple(x - mu for x, mu in zip(r, mean, strict=True)) for r in Wq)
    Cf = np.array([[float(x) for x in r] for r in C])
    _, s, Vt = np.linalg.svd(Cf, full_matrices=True)
    V = Vt[:dim].T
    for k in range(dim):  # deterministic sign: largest-magnitude entry positive
        if V[np.argmax(np.abs(V[:, k])), k] < 0:
            V[:, k] = -V[:, k]
    basis = tuple(
        tuple(Fraction(float(x)).limit_denominator(PROJECTION_DENOMINATOR) for x in row)
        for row in V
    )
    if np.linalg.matrix_rank(np.array([[float(x) for x in r] for r in basis])) < dim:
        raise InvalidInput(f"the rounded projection has rank < {dim}; choose a smaller dim")
    cols = list(zip(*basis, strict=True))
    projected = tuple(
        tuple(sum((a * b for a, b in zip(r, c, strict=True) if a and b), Fraction(0))
              for c in cols)
        for r in C
    )
    return Projection(basis=basis, projected=projected)


@dataclass(frozen=True)
class ProjectionAudit:
    """Argmaxable tokens and the exact ranking pattern of the projected head.

    Attributes
    ----------
    projection : Projection
    argmaxable : tuple of bool
        Token i can be the top-1 prediction for some context in the subspace.
    rankings : tuple of tuple of int
        Every total order (most to least likely) some context in the subspace realises.
    complete : bool or None
        Whether the ranking enumeration is certified complete (as reported by the engine).
    ties : tuple of tuple of int
        Tokens whose projected rows coincide (always tied; adjacent in every ranking).
    """

    projection: Projection
    argmaxable: tuple[bool, ...]
    rankings: tuple[tuple[int, ...], ...]
    complete: bool | None
    ties: tuple[tuple[int, ...], ...] = ()

    def as_dict(self, labels: Sequence[str]) -> dict:
        return {
            "dim": self.projection.dim,
            "basis": matrix_to_str(self.projection.basis),
            "projected": matrix_to_str(self.projection.projected),
            "argmaxable": [labels[i] for i, ok in enumerate(self.argmaxable) if ok],
            "not_argmaxable": [labels[i] for i, ok in enumerate(self.argmaxable) if not ok],
            "n_rankings": len(self.rankings),
            "rankings": [[labels[i] for i in r] for r in self.rankings],
            "rankings_complete": self.complete,
            "ties": [[labels[i] for i in t] for t in self.ties],
        }


@dataclass(frozen=True)
class CosineAudit:
    """Result of :func:`cosine_audit` (see the module docstring).

    Attributes
    ----------
    labels : tuple of str
    cosine : numpy.ndarray, shape (m, m)
        C(W), floats (display only; ``logitgeom.geometry.cosine.cosine_matrix``); NaN rows for
        zero rows.
    difference_pairs : tuple of (int, int)
        Row order of B: (i, j) for i < j.
    difference_cosine : numpy.ndarray, shape (m(m-1)/2, m(m-1)/2)
        C(BW), floats; rows with w_i = w_j (zero differences) are NaN.
    pair : (int, int)
    certificate : dict
        ``theorem`` certificate ``translation-cosine`` with the two translations.
    verified : bool
        The trusted checker accepted the certificate.
    projection : ProjectionAudit or None
    """

    labels: tuple[str, ...]
    cosine: np.ndarray
    difference_pairs: tuple[tuple[int, int], ...]
    difference_cosine: np.ndarray
    pair: tuple[int, int]
    certificate: dict
    verified: bool
    projection: ProjectionAudit | None

    @property
    def translations(self) -> tuple[dict, dict]:
        """The two translation certificates (cos -1, then cos +1)."""
        return tuple(self.certificate["parts"])  # type: ignore[return-value]

    def as_dict(self) -> dict:
        i, j = self.pair
        neg, pos = self.translations
        return {
            "labels": list(self.labels),
            "cosine": _json_floats(self.cosine),
            "difference_pairs": [[self.labels[a], self.labels[b]]
                                 for a, b in self.difference_pairs],
            "difference_cosine": _json_floats(self.difference_cosine),
            "pair": [self.labels[i], self.labels[j]],
            "pair_cosine": _json_floats(self.cosine[i, j]),
            "translation_to_minus_one": {"v": neg["v"]},
            "translation_to_plus_one": {"v": pos["v"]},
            "certificate_verified": self.verified,
            "projection": None if self.projection is None
            else self.projection.as_dict(self.labels),
        }


def _json_floats(A):
    """Floats (array or scalar) as JSON-ready lists, NaN (undefined cosine) as None."""
    arr = np.asarray(A, dtype=float)
    return np.where(np.isnan(arr), None, arr).tolist()


def _cosines_nan_for_zero(M: np.ndarray) -> np.ndarray:
    """``cosine_matrix`` of the rows, with NaN rows/columns for zero rows (undefined)."""
    from logitgeom.geometry.cosine import cosine_matrix

    nz = np.flatnonzero(np.any(M != 0, axis=1))
    C = np.full((M.shape[0], M.shape[0]), np.nan)
    if len(nz):
        C[np.ix_(nz, nz)] = cosine_matrix(M[nz])
    return C


def _progress(progress: bool | None) -> bool:
    return sys.stderr.isatty() if progress is None else bool(progress)


def cosine_audit(
    W,
    labels: Sequence[str] | None = None,
    *,
    pair: tuple[int, int] = (0, 1),
    bias=None,
    dim: int | None = None,
    progress: bool | None = None,
) -> CosineAudit:
    """Audit what the cosines of a token set's unembeddings say (module docstring).

    Parameters
    ----------
    W : array_like, shape (m, d)
        Unembeddings of the set (floats are their exact binary rationals).
    labels : sequence of str, optional
        Token names; default ``"0", "1", ...``.
    pair : (int, int)
        The two tokens whose cosine is translated to -1 and to +1.
    bias : array_like, optional
        Output bias of the set (kept in the ranking pattern; translations do not touch it).
    dim : int, optional
        Restrict contexts to this many rounded principal directions and enumerate the exact
        ranking pattern and argmaxable tokens there.
    progress : bool, optional
        Progress bars of the enumeration; by default on when stderr is a terminal.

    Returns
    -------
    CosineAudit

    Raises
    ------
    InvalidInput
        Fewer than 2 rows, labels of the wrong length, a pair outside 0..m-1 or with equal
        rows, bad bias length, bad dim.

    Examples
    --------
    >>> a = cosine_audit([[1, 0], [0, 1], [1, 1]], ["a", "b", "c"], pair=(0, 1))
    >>> round(float(a.cosine[0, 1]), 6), a.verified, a.translations[0]["v"]
    (0.0, True, ['-1/2', '-1/2'])
    """
    Wq = to_matrix(W, what="W")
    m = len(Wq)
    if m < 2:
        raise InvalidInput(f"the audit needs at least 2 tokens; got {m}")
    labels = tuple(str(i) for i in range(m)) if labels is None else tuple(labels)
    if len(labels) != m:
        raise InvalidInput(f"{len(labels)} labels for {m} rows of W")
    i, j = (int(x) for x in pair)
    if not (0 <= i < m and 0 <= j < m) or i == j:
        raise InvalidInput(f"pair must be two different tokens in 0..{m - 1}; got {pair}")
    if Wq[i] == Wq[j]:
        raise InvalidInput(f"tokens {labels[i]!r} and {labels[j]!r} have equal unembeddings: "
                           "no translation changes their cosine (it is 1 or undefined)")
    bq = None if bias is None else to_vector(bias, what="bias", length=m)

    from logitgeom.emit import bundle_certificate, translation_certificate
    from logitgeom.geometry.cosine import difference_pairs, translation_for_cosine
    from logitgeom_certificates.api import check

    Wf = np.array([[float(x) for x in r] for r in Wq])
    pairs = difference_pairs(m)
    BW = np.array([Wf[a] - Wf[b] for a, b in pairs])
    prov = {"labels": list(labels), "pair": [labels[i], labels[j]]}
    parts = [translation_certificate(Wq, i, j, t, v=translation_for_cosine(Wq, i, j, t))
             for t in (-1, 1)]
    cert = bundle_certificate(
        "translation-cosine",
        parts,
        f"W + 1 v^T has the same softmax probabilities as W for every input; the translated "
        f"unembeddings of {labels[i]!r} and {labels[j]!r} have cosine -1 (first part) and "
        "+1 (second part)",
        provenance=prov,
    )
    verdict = check(cert)
    proj = None
    if dim is not None:
        proj = _projection_audit(Wq, bq, dim, progress)
    return CosineAudit(
        labels=labels,
        cosine=_cosines_nan_for_zero(Wf),
        difference_pairs=pairs,
        difference_cosine=_cosines_nan_for_zero(BW),
        pair=(i, j),
        certificate=cert,
        verified=bool(verdict.ok),
        projection=proj,
    )


def _projection_audit(Wq: ExactMatrix, bq, dim: int, progress: bool | None) -> ProjectionAudit:
    from logitgeom.geometry.patterns import argmaxable, ranking_pattern

    P = exact_projection(Wq, dim)
    arg = argmaxable(P.projected, bias=bq)
    rp = ranking_pattern(P.projected, bias=bq, progress=_progress(progress))
    return ProjectionAudit(
        projection=P,
        argmaxable=tuple(k in set(arg.labels) for k in range(len(Wq))),
        rankings=tuple(tuple(int(t) for t in r) for r in rp.patterns),
        complete=bool(rp.complete),
        ties=tuple(tuple(t) for t in rp.ties),
    )
