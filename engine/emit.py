"""The certificate families, one import: ``from logitgeom import emit``.

Every certificate the engine writes is built in one module of :mod:`logitgeom.certify` (one
floor, from exact data), one per family, all on the header and canonical text of
:mod:`logitgeom.certify.common`; this index sits above the results, since it enumerates first:

* geometry (:mod:`logitgeom.certify.geometry`, from exact data, and this module, from a bare
  matrix): sign, ranking, complete-pattern, pattern-differs, argmaxable labels,
  verification-grid bundles, translation, cosine-equal, chirotope, ``theorem`` bundles;
* convex (``engine/certify/convex.py``): layer-peeled brackets and their theorems;
* audit (``engine/certify/audit.py``): argmax audits of real heads;
* stream (``engine/certify/stream.py``): complete enumerations streamed from a result
  directory (:func:`stream_certificate`).

This index re-exports the geometry builders and adds the entry points that start from a
bare matrix: :func:`complete_certificate`, :func:`differs_certificate` and
:func:`grid_certificate` run the engine's enumeration first (:mod:`logitgeom.geometry`), then
build; :func:`translation_certificate`, :func:`cosine_equal_certificate` and
:func:`chirotope_certificate` state claims about a matrix alone.  Witnesses from here are
the canonical small ones of :func:`decide`, so the same input gives byte-identical
:func:`dumps`; a result object's ``.certificate()`` instead reuses the witnesses its
enumeration found (:func:`pattern_certificate`).  The checker (:mod:`logitgeom_certificates.check`)
re-derives every claim.

Examples
--------
>>> c = translation_certificate([[1, 0], [0, 1]], 0, 1, 1)
>>> c["kind"], c["W_translated"]
('translation', [['2', '-2'], ['1', '-1']])
>>> from logitgeom_certificates.api import check
>>> check(c).ok and check(sign_certificate([[1], [-1]], [1, -1])).ok
True
"""

from __future__ import annotations

from logitgeom.certify.common import dumps, header
from logitgeom.certify.geometry import (
    GRID_CLAIMS,
    argmax_certificate,
    bundle_certificate,
    decide,
    difference_rows,
    enumeration_certificate,
    exact_model,
    grid_bundle,
    lattice,
    pattern_certificate,
    pattern_differs_certificate,
    ranking_certificate,
    sign_certificate,
)
from logitgeom.errors import EngineError, InvalidInput
from logitgeom.exact.numbers import matrix_to_str, to_matrix, to_vector, vector_to_str
from logitgeom.geometry.cosine import translation_for_cosine
from logitgeom.geometry.grid import grid_enumerations
from logitgeom.geometry.patterns import ranking_pattern, sign_pattern

__all__ = [
    "dumps",
    "header",
    "decide",
    "sign_certificate",
    "ranking_certificate",
    "lattice",
    "enumeration_certificate",
    "complete_certificate",
    "pattern_certificate",
    "argmax_certificate",
    "differs_certificate",
    "pattern_differs_certificate",
    "bundle_certificate",
    "difference_rows",
    "GRID_CLAIMS",
    "grid_bundle",
    "grid_certificate",
    "translation_certificate",
    "cosine_equal_certificate",
    "chirotope_certificate",
    "stream_certificate",
]


def _enumerate(Wq, b, ptype):
    """The patterns of the engine's complete enumeration of S(W) or R(W)."""
    res = (sign_pattern if ptype == "sign" else ranking_pattern)(Wq, bias=b, progress=None)
    return list(res.patterns)


def complete_certificate(W, pattern: str = "sign", *, bias=None, patterns=None,
                         top: int | None = None, statement=None, provenance=None) -> dict:
    """A ``pattern-complete`` certificate for S(W) (``pattern="sign"``) or R(W).

    As :func:`enumeration_certificate` without its witnesses (each pattern gets the canonical
    small one of :func:`decide`), with ``patterns`` optional: when omitted, the engine's
    complete enumeration (:func:`logitgeom.geometry.sign_pattern` or
    :func:`logitgeom.geometry.ranking_pattern`) is run first.

    Parameters
    ----------
    W : k x d matrix
    pattern : {"sign", "ranking"}
    bias : length-k vector, optional
    patterns : list, optional
        The complete set (default: enumerated here).
    top : int, optional
        State the top-``top`` prefixes of the rankings (1..k; ranking patterns only).
    statement, provenance : optional
        As for every certificate.

    Returns
    -------
    dict

    Raises
    ------
    InvalidInput
        Bad W, bias, pattern or ``top``.

    Examples
    --------
    >>> c = complete_certificate([[1, 0], [0, 1]], "sign")
    >>> [p["pattern"] for p in c["patterns"]]
    [[-1, -1], [-1, 1], [1, -1], [1, 1]]
    """
    if pattern not in ("sign", "ranking"):
        raise InvalidInput(f"pattern must be 'sign' or 'ranking', got {pattern!r}")
    Wq, b, _ = exact_model(W, bias)
    if top is not None:  # checked before any enumeration, with the message of ranking_pattern
        if pattern != "ranking":
            raise InvalidInput("top applies to ranking patterns only (pattern='ranking')")
        if isinstance(top, bool) or not isinstance(top, int) or not 1 <= top <= len(Wq):
            raise InvalidInput(f"top must be an integer between 1 and k = {len(Wq)}; "
                               f"got {top!r}")
    if patterns is None:
        patterns = _enumerate(Wq, b, pattern)
    return enumeration_certificate(W, pattern, patterns, bias=bias, top=top,
                                   statement=statement, provenance=provenance)


def differs_certificate(W1, W2, *, ranking: bool = False, bias1=None, bias2=None,
                        provenance=None) -> dict:
    """Decide whether P(W1) = P(W2) (P = S, or R with ``ranking``) and certify the answer.

    Returns a ``pattern-differs`` certificate (a pattern of W1 absent from W2, or, when only
    W2 has an extra pattern, with W1 and W2 swapped, said in the statement) or a
    ``theorem`` ``patterns-equal`` bundling two complete enumerations.

    Examples
    --------
    >>> differs_certificate([[1, 0], [0, 1]], [[1, 0], [1, 0]])["kind"]
    'pattern-differs'
    """
    ptype = "ranking" if ranking else "sign"
    P = "R" if ranking else "S"
    A = exact_model(W1, bias1)
    B = exact_model(W2, bias2)
    if len(A[0]) != len(B[0]):
        raise InvalidInput(f"W1 has {len(A[0])} rows but W2 has {len(B[0])}")
    pa, pb = (sorted(tuple(int(v) for v in p) for p in _enumerate(M[0], M[1], ptype))
              for M in (A, B))
    for (X, Y, px, py, swapped) in ((A, B, pa, pb, False), (B, A, pb, pa, True)):
        extra = sorted(set(px) - set(py))
        if extra:
            note = " (the given W2 is W1 here, and vice versa)" if swapped else ""
            try:
                return pattern_differs_certificate(
                    X[0], Y[0], extra[0], ranking=ranking, bias1=X[1], bias2=Y[1],
                    statement=f"{P}(W1) != {P}(W2){note}", provenance=provenance)
            except InvalidInput as exc:  # the enumerations and the LPs disagree
                raise EngineError(f"{exc}, although the enumerations say otherwise; please "
                                  "report this as a bug") from None
    parts = [complete_certificate(M[0], ptype, bias=M[1], patterns=pp)
             for M, pp in ((A, pa), (B, pb))]
    return bundle_certificate("patterns-equal", parts, f"{P}(W1) = {P}(W2)",
                               provenance=provenance)


def grid_certificate(W, claim: str = "lemma-5.3", *, statement=None, provenance=None) -> dict:
    """A ``theorem`` certificate of one verification-grid head (the cosine paper).

    ``claim="lemma-5.3"``: S(C(W)) = S(W) via ``cosine-determines-sign`` (complete S(W) and
    complete S(W W^T)); ``claim="thm-5.6"``: S(C(BW)) = R(W) via
    ``difference-cosine-determines-ranking`` (complete R(W) and complete S((BW)(BW)^T)).
    Both enumerations are run here (:func:`logitgeom.geometry.grid.grid_enumerations`); the
    witnesses are the canonical small ones (:func:`logitgeom.certify.geometry.grid_bundle`).

    Examples
    --------
    >>> from logitgeom_certificates.check import check
    >>> check(grid_certificate([[1, 0], [0, 1], [1, 1]], "thm-5.6")).ok
    True
    """
    first, second = grid_enumerations(W, claim)
    return grid_bundle(claim, first, second, canonical=True, statement=statement,
                       provenance=provenance)


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
    else:  # Lemmas 3.2/3.3, including a = b (see logitgeom.geometry.cosine)
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
                       statement=None, provenance=None, report: dict | None = None) -> dict:
    """A ``pattern-complete-stream`` certificate for a result directory (streamed).

    Opens ``directory`` (written by :func:`logitgeom.geometry.enumerate_to_dir`) and builds the
    certificate with :func:`logitgeom.certify.stream.stream_certificate`, whose parameters
    (``out``, ``twin``, ``buckets``) this takes.

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
    statement, provenance : optional
        As for every certificate (:func:`header`).
    report : dict, optional
        Receives ``witness_bits`` (see :func:`logitgeom.certify.stream.stream_certificate`).

    Returns
    -------
    dict

    Raises
    ------
    InvalidInput
        ``directory`` is not a readable result directory.

    Examples
    --------
    >>> import os, tempfile
    >>> from logitgeom.geometry import enumerate_to_dir
    >>> d = tempfile.mkdtemp()
    >>> _ = enumerate_to_dir([[1, 0], [0, 1]], d, progress=False)
    >>> c = stream_certificate(d, os.path.join(d, "cert.json"))
    >>> c["kind"], sum(s["rows"] for s in c["shards"]), c["shards"][0]["file"][:5]
    ('pattern-complete-stream', 4, 'twin/')
    """
    from logitgeom.certify import stream
    from logitgeom.geometry.stream import open_result

    return stream.stream_certificate(open_result(directory), out, twin=twin, buckets=buckets,
                                     statement=statement, provenance=provenance,
                                     report=report)
