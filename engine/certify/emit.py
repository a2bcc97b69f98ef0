"""Emitters: build certificates (plain dicts, see ``certificates/SPEC.md``) from exact data.

The builders that :mod:`engine.geometry` results need (sign, ranking, complete patterns,
pattern-differs, argmaxable labels, grid heads, :func:`header`, :func:`dumps`,
:func:`decide`) live in :mod:`engine.geometry.emit` so that the package imports nothing
above itself; they are re-exported here, so ``from engine.certify.emit import X`` works for
every certificate kind.  This module adds the claims about a matrix alone: translations,
cosine equality and chirotopes.  The checker (:mod:`certificates.check`) re-derives every
claim; same input, byte-identical :func:`dumps`.

Examples
--------
>>> c = translation_certificate([[1, 0], [0, 1]], 0, 1, 1)
>>> c["kind"], c["W_translated"]
('translation', [['2', '-2'], ['1', '-1']])
>>> from certificates.check import check
>>> check(c).ok and check(sign_certificate([[1], [-1]], [1, -1])).ok
True
"""

from __future__ import annotations

from engine.errors import InvalidInput
from engine.exact.numbers import matrix_to_str, to_matrix, to_vector, vector_to_str
from engine.geometry import emit as _geometry_emit
from engine.geometry.cosine import translation_for_cosine
from engine.geometry.emit import (  # noqa: F401 - re-exported, see __all__
    argmax_certificate,
    complete_certificate,
    decide,
    difference_rows,
    differs_certificate,
    dumps,
    grid_certificate,
    header,
    lattice,
    pattern_certificate,
    pattern_differs_certificate,
    ranking_certificate,
    sign_certificate,
    theorem_certificate,
)

__all__ = [*_geometry_emit.__all__,
           "translation_certificate", "cosine_equal_certificate", "chirotope_certificate"]


def translation_certificate(W, i: int, j: int, target: int, *, v=None, statement=None,
                            provenance=None) -> dict:
    """A ``translation`` certificate: W' = W + 1 v^T with cos(w'_i, w'_j) = target.

    ``v`` defaults to the constructions of docs/geometry.md (Translations; t = 2 for
    target +1).

    Raises
    ------
    InvalidInput
        Equal rows i and j with target -1, or a bad label/target.

    Examples
    --------
    >>> translation_certificate([[1, 0], [0, 1]], 0, 1, -1)["v"]
    ['-1/2', '-1/2']
    """
    Wq = to_matrix(W)
    k = len(Wq)
    if not (0 <= i < k and 0 <= j < k) or i == j or target not in (-1, 1):
        raise InvalidInput(f"need distinct labels in 0..{k - 1} and target +1 or -1; got "
                           f"{i}, {j}, {target}")
    a, c = Wq[i], Wq[j]
    if a == c and target == -1:
        raise InvalidInput(f"rows {i} and {j} are equal: no translation makes their cosine -1")
    if v is not None:
        vq = to_vector(v, what="v", length=len(a))
    else:  # Lemmas 3.2/3.3, including a = b (see engine.geometry.cosine)
        vq = translation_for_cosine(Wq, i, j, target)
    out = header("translation", statement, provenance)
    out["W"] = matrix_to_str(Wq)
    out["v"] = vector_to_str(vq)
    out["W_translated"] = matrix_to_str(tuple(tuple(x + y for x, y in zip(r, vq, strict=True))
                                              for r in Wq))
    out["labels"] = [i, j]
    out["target"] = target
    return out


def cosine_equal_certificate(W1, W2, *, statement=None, provenance=None) -> dict:
    """A ``cosine-equal`` certificate (the checker decides C(W1) = C(W2)).

    Examples
    --------
    >>> cosine_equal_certificate([[1, 0], [0, 1]], [[2, 0], [0, 3]])["kind"]
    'cosine-equal'
    """
    return _pair_certificate("cosine-equal", W1, W2, statement, provenance)


def chirotope_certificate(W1, W2, *, statement=None, provenance=None) -> dict:
    """A ``same-chirotope`` certificate (the checker computes every maximal minor).

    Examples
    --------
    >>> chirotope_certificate([[1, 0], [0, 1]], [[2, 0], [0, 3]])["kind"]
    'same-chirotope'
    """
    return _pair_certificate("same-chirotope", W1, W2, statement, provenance)


def _pair_certificate(kind: str, W1, W2, statement, provenance) -> dict:
    """A two-matrix claim the checker decides from W1 and W2 alone."""
    out = header(kind, statement, provenance)
    out["W1"] = matrix_to_str(to_matrix(W1, what="W1"))
    out["W2"] = matrix_to_str(to_matrix(W2, what="W2"))
    return out
