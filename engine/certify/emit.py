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
>>> from certificates.api import check
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
           "translation_certificate", "cosine_equal_certificate", "chirotope_certificate",
           "stream_certificate"]


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


def stream_certificate(directory, out, *, twin=None, buckets: int | None = None,
                       statement=None, provenance=None) -> dict:
    """A ``pattern-complete-stream`` certificate for a result directory (streamed).

    The rows of ``directory`` (written by :func:`engine.geometry.enumerate_to_dir`) are
    re-written as gzip'd JSON-lines shards (:meth:`StoredResult.write_twins`) that the
    stdlib checker verifies one line at a time; the certificate references them by SHA-256
    and path relative to the certificate's folder, and inlines the intersection lattice
    for the exact Zaslavsky count (certificates/SPEC.md section 10).

    Parameters
    ----------
    directory : path
        A result directory.
    out : path
        Where the certificate will be written (shard paths are made relative to its folder).
    twin : path, optional
        Folder of the twin shards (default ``directory/twin``).
    buckets : int, optional
        Number of twin shards (default: the directory's number of Parquet shards).

    Returns
    -------
    dict

    Examples
    --------
    >>> import os, tempfile
    >>> from engine.geometry import enumerate_to_dir
    >>> d = tempfile.mkdtemp()
    >>> _ = enumerate_to_dir([[1, 0], [0, 1]], d, progress=False)
    >>> c = stream_certificate(d, os.path.join(d, "cert.json"))
    >>> c["kind"], sum(s["rows"] for s in c["shards"]), c["shards"][0]["file"][:5]
    ('pattern-complete-stream', 4, 'twin/')
    """
    import os

    from certificates import api as sm
    from engine.geometry.emit import _exact_model, _model_fields
    from engine.geometry.store import open_result

    res = open_result(directory)
    doc = res.manifest["input"]
    Wq, b, bz = _exact_model(doc["W"], doc["bias"])
    ptype = doc["kind"]
    twin = os.path.join(os.fspath(directory), "twin") if twin is None else os.fspath(twin)
    shards = res.write_twins(twin, buckets)
    base = os.path.dirname(os.path.abspath(os.fspath(out)))
    cert = header("pattern-complete-stream", statement, provenance)
    cert.update(_model_fields(Wq, b))
    cert["pattern"] = ptype
    cert["lattice"] = lattice(sm.arrangement(Wq, bz, ptype))
    cert["buckets"] = len(shards)
    cert["shards"] = [{"file": os.path.relpath(s["file"], base).replace(os.sep, "/"),
                       "sha256": s["sha256"], "rows": s["rows"]} for s in shards]
    return cert
