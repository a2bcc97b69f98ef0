"""Sign patterns, ranking patterns and argmaxable labels, exactly and completely.

Semantics (shared with :mod:`logitgeom.exact.lattice`):

* ``sign_pattern(W)``: the topes of the central arrangement {w_i . x = 0}; with ``bias=b``
  the regions of the affine arrangement {w_i . x + b_i = 0}.  A pattern is the tuple
  sign(W x (+ b)) in {-1, 0, +1}^k.  A constant row (w_i = 0) is not a hyperplane: its
  entry is 0 (central, or b_i = 0) or sign(b_i) in every pattern.  Parallel and repeated
  rows are one hyperplane; rank(W) < d, d = 1 and k = 1 are fine.
* ``ranking_pattern(W)``: R(W) = S(BW), B = difference matrix.  A ranking is a tuple of
  0-based labels from most to least likely (largest logit first).  Labels with identical
  rows (and identical biases) are always tied: the result lists their classes in ``ties``
  and every ranking lists the members of a class adjacently in increasing label order;
  ``count`` counts orders of the tie classes.
* ``ranking_pattern(W, top=t)``: the distinct first-t-label prefixes of R(W).
* Witnesses are exact rational points x (length d) that reproduce the pattern exactly.

How it is computed: deletion-restriction on the arrangement (no LP; see
:mod:`logitgeom.geometry.arrangement`), with the affine case homogenised (rows (b_i, w_i)
and x_0 > 0).  A fast float pass proposes one point per region; each point is rounded to
an integer point whose region is then computed exactly.  If the distinct regions found
number exactly the Zaslavsky count of :mod:`logitgeom.exact.lattice`, the enumeration is
complete (``completeness == "zaslavsky"``); otherwise the same algorithm runs in exact
integer arithmetic, which is complete by construction (and checked against the count).
Top-t prefixes are found by prefix search, each candidate decided by an exact LP
(``completeness == "exact-lp"``).

Examples
--------
>>> r = sign_pattern([[1, 0], [0, 1], [1, 1]])
>>> r.count, r.complete, str(r.completeness)
(6, True, 'zaslavsky')
>>> r.patterns[0], r.witnesses[0]
((-1, -1, -1), (Fraction(-1, 1), Fraction(-1, 1)))
>>> ranking_pattern([[1, 0], [0, 1], [1, 1]]).patterns
((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0))
"""

from __future__ import annotations

from concurrent.futures import Executor
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from functools import cached_property
from typing import Any

import numpy as np

from logitgeom import _display
from logitgeom.errors import EngineError, InvalidInput, TooLarge
from logitgeom.exact.lattice import count_rankings_exact, count_regions_exact, tie_classes
from logitgeom.exact.numbers import (
    ExactMatrix,
    ExactVector,
    fraction_to_str,
    matrix_to_str,
    to_matrix,
    to_vector,
    vector_to_str,
)
from logitgeom.geometry import search
from logitgeom.geometry.arrangement import pack_signs, unpack_signs
from logitgeom.geometry.cosine import difference_pairs
from logitgeom.lp_float import decide

__all__ = [
    "PatternKind",
    "Completeness",
    "PatternResult",
    "ArgmaxResult",
    "sign_pattern",
    "ranking_pattern",
    "argmaxable",
]


class PatternKind(StrEnum):
    """What a :class:`PatternResult` enumerates.

    Attributes
    ----------
    SIGN, RANKING, RANKING_TOP : str
        Sign patterns, full rankings, top-T prefixes of rankings.
    """

    SIGN = "sign"
    RANKING = "ranking"
    RANKING_TOP = "ranking-top"


class Completeness(StrEnum):
    """How completeness of an enumeration was established (all exact).

    Attributes
    ----------
    ZASLAVSKY : str
        Complete: the rows equal the exact Zaslavsky count.
    EXACT_LP : str
        Complete: every candidate decided by an exact LP (top-T prefixes).
    """

    #: the witnessed count equals the exact Zaslavsky count of the intersection lattice
    ZASLAVSKY = "zaslavsky"
    #: every candidate was decided by an exact LP (a witness or Gordan multipliers)
    EXACT_LP = "exact-lp"


@dataclass(frozen=True, repr=False)
class PatternResult(_display.ResultDisplay):
    """An exact, complete enumeration of sign patterns, rankings or top-t prefixes.

    Attributes
    ----------
    W : tuple of tuple of Fraction
        The k x d input matrix (exact).
    bias : tuple of Fraction or None
    kind : PatternKind
        ``"sign"``, ``"ranking"`` or ``"ranking-top"``.
    top : int or None
        t for ``"ranking-top"``.
    patterns : tuple of tuple of int
        Sorted.  Sign vectors (entries -1, 0, 1) or label tuples (0-based, most likely
        first).  Built on first access from the compact store (``pattern_source``): sign
        vectors bit-packed into uint64 words, rankings as small-integer label arrays.
    witnesses : tuple of tuple of Fraction
        Aligned with ``patterns``: a point x in Q^d reproducing the pattern exactly
        (a cached property, built from ``witness_source`` on first access).
    witness_source
        The witnesses, or the exact integer points they are built from.
    count : int
        ``len(patterns)``.
    complete : bool
        Read-only: True exactly when ``completeness`` records how completeness was proven
        (every constructor in this module proves it or raises, so results are complete).
    completeness : Completeness
    ties : tuple of tuple of int
        Tie classes of size >= 2 (rankings only; empty for sign patterns).
    exact_count : int or None
        The Zaslavsky count the enumeration was checked against (None for prefixes).
    pattern_source
        The compact sorted patterns (:class:`_Patterns`), or the tuples themselves.
    """

    W: ExactMatrix
    bias: ExactVector | None
    kind: PatternKind
    top: int | None
    #: the sorted patterns, compact (a :class:`_Patterns`) or as tuples
    pattern_source: Any = field(repr=False, compare=False)
    #: the witnesses, or a :class:`_Witnesses` that builds them on first access
    witness_source: Any = field(repr=False, compare=False)
    count: int
    completeness: Completeness
    ties: tuple[tuple[int, ...], ...] = ()
    exact_count: int | None = None

    @property
    def complete(self) -> bool:
        """True when a completeness proof is recorded (``completeness`` is set)."""
        return self.completeness is not None

    @cached_property
    def patterns(self) -> tuple[tuple[int, ...], ...]:
        """Sorted patterns as tuples (built on first access from the compact store)."""
        src = self.pattern_source
        return src.tuples() if isinstance(src, _Patterns) else tuple(src)

    @cached_property
    def witnesses(self) -> tuple[tuple[Fraction, ...], ...]:
        """Aligned with ``patterns``: exact points reproducing each pattern.

        Built on first access (and cached) from the exact integer points of the
        enumeration; callers that only need the patterns never pay for Fractions.
        """
        src = self.witness_source
        return src.build() if isinstance(src, _Witnesses) else tuple(src)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PatternResult):
            return NotImplemented
        return (self.W, self.bias, self.kind, self.top, self.patterns, self.count,
                self.completeness, self.ties, self.exact_count,
                self.witnesses) == (other.W, other.bias, other.kind, other.top,
                                    other.patterns, other.count,
                                    other.completeness, other.ties, other.exact_count,
                                    other.witnesses)

    def __hash__(self) -> int:
        return hash((self.W, self.bias, self.kind, self.top, self.patterns))

    def pattern_array(self) -> np.ndarray:
        """The sorted patterns as a numpy array, one row per pattern.

        ``int8`` sign vectors for ``kind == "sign"``, ``int64`` label tuples for rankings
        and prefixes (a copy; cheaper than the tuples for big enumerations).

        Examples
        --------
        >>> sign_pattern([[1, 0], [0, 1]]).pattern_array().tolist()
        [[-1, -1], [-1, 1], [1, -1], [1, 1]]
        """
        if isinstance(self.pattern_source, _Patterns):
            return self.pattern_source.array()
        dt = np.int8 if self.kind == PatternKind.SIGN else np.int64
        width = self.k if self.kind != PatternKind.RANKING_TOP else (self.top or 0)
        return np.array(self.patterns, dtype=dt).reshape(len(self.patterns), width)

    @property
    def k(self) -> int:
        """Number of labels (rows of W)."""
        return len(self.W)

    @property
    def d(self) -> int:
        """Dimension (columns of W)."""
        return len(self.W[0])

    def to_json(self) -> dict[str, Any]:
        """A deterministic JSON-ready dict; every number is a ``"p/q"`` string.

        Examples
        --------
        >>> sign_pattern([[1]]).to_json()["witnesses"]
        [['-1'], ['1']]
        """
        return {
            "kind": str(self.kind),
            "k": self.k,
            "d": self.d,
            "W": matrix_to_str(self.W),
            "bias": None if self.bias is None else vector_to_str(self.bias),
            "top": self.top,
            "count": self.count,
            "exact_count": self.exact_count,
            "complete": self.complete,
            "completeness": str(self.completeness),
            "ties": [list(t) for t in self.ties],
            "patterns": [list(p) for p in self.patterns],
            "witnesses": [vector_to_str(x) for x in self.witnesses],
        }

    def certificate(self) -> dict[str, Any]:
        """The ``pattern-complete`` certificate of this result.

        Built by :func:`logitgeom.certify.geometry.pattern_certificate` from the witnesses this
        enumeration found (each verified exactly, no LP); a top-t result is certified
        through the complete rankings R(W), enumerated here.

        Examples
        --------
        >>> from logitgeom_certificates.check import check
        >>> c = sign_pattern([[1, 0], [0, 1]]).certificate()
        >>> check(c).ok, len(c["patterns"])
        (True, 4)
        """
        from logitgeom.certify.geometry import pattern_certificate  # loads the checker

        full = None
        if self.kind == PatternKind.RANKING_TOP:
            full = ranking_pattern(self.W, bias=self.bias, progress=False)
        return pattern_certificate(self, full=full)


@dataclass(frozen=True, repr=False)
class ArgmaxResult(_display.ResultDisplay):
    """Which labels some input ranks first, with a certificate for every label.

    Attributes
    ----------
    W, bias
        The exact input.
    labels : tuple of int
        The argmaxable labels (sorted).  A label in a tie class counts as argmaxable when
        its class can be ranked first (tied labels are always tied).
    witnesses : tuple
        Per label (index = label): a point x in Q^d where the label's logit strictly
        exceeds every logit outside its tie class, or ``None``.
    multipliers : tuple
        Per label: ``None`` if argmaxable, else Gordan multipliers as sorted pairs
        (j, y_j) with y_j > 0 such that sum_j y_j (w_i - w_j) = 0 and
        sum_j y_j (b_i - b_j) <= 0 (so sum_j y_j (logit_i - logit_j) <= 0 everywhere).
    ties : tuple of tuple of int
        Tie classes of size >= 2.
    """

    W: ExactMatrix
    bias: ExactVector | None
    labels: tuple[int, ...]
    witnesses: tuple[tuple[Fraction, ...] | None, ...] = field(repr=False)
    multipliers: tuple[tuple[tuple[int, Fraction], ...] | None, ...] = field(repr=False)
    ties: tuple[tuple[int, ...], ...] = ()

    def certificate(self) -> dict[str, Any]:
        """A ``theorem`` ``argmaxable-labels`` certificate of this result.

        Built by :func:`logitgeom.certify.geometry.argmax_certificate` from this result's
        witnesses and multipliers (verified exactly, no LP).

        Examples
        --------
        >>> from logitgeom_certificates.api import check
        >>> check(argmaxable([[1], [0], [-1]]).certificate()).ok
        True
        """
        from logitgeom.certify.geometry import argmax_certificate  # loads the checker

        return argmax_certificate(self.W, bias=self.bias, result=self)

    def to_json(self) -> dict[str, Any]:
        """A deterministic JSON-ready dict; numbers as ``"p/q"`` strings.

        Examples
        --------
        >>> argmaxable([[1], [0], [-1]]).to_json()["labels"]
        [0, 2]
        """
        return {
            "kind": "argmax",
            "k": len(self.W),
            "d": len(self.W[0]),
            "W": matrix_to_str(self.W),
            "bias": None if self.bias is None else vector_to_str(self.bias),
            "labels": list(self.labels),
            "ties": [list(t) for t in self.ties],
            "witnesses": [None if x is None else vector_to_str(x) for x in self.witnesses],
            "multipliers": [None if m is None else [[j, fraction_to_str(y)] for j, y in m]
                            for m in self.multipliers],
        }


# ----------------------------------------------------------------------------- helpers


def _inputs(W: object, bias: object, executor: object = None,
            progress: object = None) -> tuple[ExactMatrix, ExactVector | None]:
    from logitgeom.limits import as_executor, as_flag

    as_executor(executor)  # refused also where a small head runs without it
    as_flag(progress, "progress", allow_none=True)
    Wm = to_matrix(W, what="W")
    b = None if bias is None else to_vector(bias, what="bias", length=len(Wm))
    return Wm, b


def _check_limit(count: int, max_regions: int | None, what: str) -> None:
    from logitgeom.limits import as_size

    max_regions = as_size(max_regions, "max_regions", allow_none=True)
    if max_regions is not None and count > max_regions:
        raise TooLarge(
            f"the exact {what} count is {count}, above max_regions={max_regions}; "
            "raise max_regions (or omit it) to enumerate them all"
        )


def _run_topes(rows, executor, progress, expected) -> search.Topes:
    """Float proposals verified exactly (or the exact pass directly, for small integers);
    if the float pass misses a region, the exact algorithm (complete by construction).
    Witnesses are not shrunk here (see :class:`_Witnesses`)."""
    own = executor is None
    ex = search.default_executor(expected) if own else executor
    try:
        t = search.topes_arrays(rows, executor=ex, progress=progress, expected=expected,
                                exact=None, shrink=False)
        if len(t.points) != expected:
            t = search.topes_arrays(rows, executor=ex, progress=progress, expected=expected,
                                    exact=True, shrink=False)
        return t
    finally:
        if own and ex is not None:
            ex.shutdown()


class _Patterns:
    """Sorted patterns held compactly; no Python object per region until asked.

    Sign patterns: the sign vectors on the distinct hyperplanes, bit-packed into uint64
    words (8 bytes per region up to 64 hyperplanes), and the map ``where`` from input rows
    to (hyperplane, orientation).  Rankings and prefixes: label arrays of the smallest
    unsigned integer type (k bytes per region for k <= 256 labels).
    """

    def __init__(self, kind: PatternKind, *, words: np.ndarray | None = None,
                 where: tuple[tuple[int, int], ...] = (), m: int = 0, affine: bool = False,
                 labels: np.ndarray | None = None) -> None:
        self.kind, self.words, self.where, self.m = kind, words, where, m
        self.affine, self.labels = affine, labels

    @property
    def nbytes(self) -> int:
        """Bytes held per the whole pattern set (the arrays only)."""
        return int((self.words if self.labels is None else self.labels).nbytes)

    def array(self) -> np.ndarray:
        """int8 sign vectors or int64 label rows (a new array)."""
        if self.labels is not None:
            return self.labels.astype(np.int64)
        S = unpack_signs(self.words, self.m)
        idx = np.array([max(c, 0) for c, _ in self.where], dtype=np.intp)
        ori = np.array([o for _, o in self.where], dtype=np.int8)
        pats = S[:, idx] * ori if self.m else np.zeros((len(S), len(idx)), dtype=np.int8)
        return pats[:, :-1] if self.affine else pats

    def tuples(self) -> tuple[tuple[int, ...], ...]:
        return tuple(map(tuple, self.array().tolist()))


def _small_labels(R: np.ndarray) -> np.ndarray:
    k = int(R.max()) + 1 if R.size else 1
    dt = np.uint8 if k <= 1 << 8 else (np.uint16 if k <= 1 << 16 else np.int64)
    return np.ascontiguousarray(R, dtype=dt)


class _Witnesses:
    """Exact witnesses on demand: integer points (shrunk when first needed) -> Fractions.

    Holds the integer points of the kept regions and their packed sign vectors only (the
    enumeration's int8 sign matrix is dropped): about 8 bytes per region besides the
    points.
    """

    def __init__(self, topes: search.Topes, rows: np.ndarray, affine: bool,
                 words: np.ndarray | None = None) -> None:
        self.points = topes.points[rows]
        self.words = pack_signs(topes.signs[rows]) if words is None else words
        self.m = topes.signs.shape[1]
        self.hyperplanes, self.small = topes.hyperplanes, topes.small
        self.cols, self.D, self.affine = topes.cols, topes.D, affine

    def build(self) -> tuple[tuple[Fraction, ...], ...]:
        P = self.points
        if not self.small and self.hyperplanes is not None:
            P = search.shrink(P, unpack_signs(self.words, self.m), self.hyperplanes)
        X = np.zeros((P.shape[0], self.D), dtype=P.dtype)
        if X.dtype == object:
            X[:] = 0
        X[:, list(self.cols)] = P
        return tuple(_points(X, self.affine))


def _sorted_rows(P: np.ndarray) -> np.ndarray:
    """Row indices of P in lexicographic order of the rows (as tuples sort)."""
    if P.shape[0] == 0 or P.shape[1] == 0:
        return np.arange(P.shape[0])
    return np.lexsort(P.T[::-1])


def _points(X: np.ndarray, affine: bool) -> list[tuple[Fraction, ...]]:
    """Integer points as exact witnesses; homogeneous (x_0 > 0) ones dehomogenised."""
    if not affine:
        return [tuple(map(Fraction, r)) for r in X.tolist()]
    return [tuple(Fraction(int(v), int(r[0])) for v in r[1:]) for r in X.tolist()]


def _homogenise(W: ExactMatrix, b: ExactVector | None) -> list[list[Fraction]]:
    if b is None:
        return [list(r) for r in W]
    return [[bi, *r] for r, bi in zip(W, b, strict=True)]


def rankings_from_pairs(pats: np.ndarray, k: int) -> np.ndarray:
    """Rankings (label arrays, most likely first) from signs on the pair rows w_i - w_j.

    The pair rows are ordered as :func:`logitgeom.geometry.cosine.difference_pairs` lists
    them, (0,1), (0,2), ..., (0,k-1), (1,2), ... (i < j, lexicographic: the checker's
    order), as :func:`arrangement_rows` builds them.  The wins of label i are the labels it
    beats; tied labels have equal wins and are listed in increasing order (stable sort).

    Examples
    --------
    >>> rankings_from_pairs(np.array([[1, 1, 1, -1, -1, -1]]), 4).tolist()
    [[0, 3, 2, 1]]
    """
    wins = np.zeros((len(pats), k), dtype=np.int64)
    for col, (i, j) in enumerate(difference_pairs(k)):
        wins[:, i] += pats[:, col] > 0
        wins[:, j] += pats[:, col] < 0
    return np.argsort(-wins, axis=1, kind="stable")


def arrangement_rows(kind: str, Wm: ExactMatrix, b: ExactVector | None) -> list[list[Fraction]]:
    """The rows whose topes are enumerated for ``kind`` ``"sign"`` or ``"ranking"``.

    Sign: the rows of W (homogenised as (b_i, w_i) with the extra row e_0 for x_0 > 0
    when there is a bias).  Ranking: the pair rows w_i - w_j in the order of
    :func:`logitgeom.geometry.cosine.difference_pairs` (the checker's), same homogenisation.
    With a bias, only topes with x_0 > 0 (last row positive) count.
    """
    d = len(Wm[0])
    H = _homogenise(Wm, b)
    if kind == "sign":
        rows = [list(r) for r in H]
    else:
        rows = [[x - y for x, y in zip(H[i], H[j], strict=True)]
                for i, j in difference_pairs(len(Wm))]
    if b is not None:
        rows.append([Fraction(1)] + [Fraction(0)] * d)
    if not rows:
        rows = [[Fraction(0)] * len(H[0])]
    return rows


def _certify(found: int, exact: int, what: str) -> None:
    if found != exact:  # pragma: no cover - would be a bug in the enumeration
        raise EngineError(
            f"internal error: {found} {what} witnessed but the exact Zaslavsky count is "
            f"{exact}; please report this input"
        )


# ----------------------------------------------------------------------------- public


def sign_pattern(
    W: object,
    *,
    bias: object = None,
    executor: Executor | None = None,
    max_regions: int | None = None,
    progress: bool | None = None,
) -> PatternResult:
    """All sign patterns sign(W x (+ b)) of full-dimensional regions, with exact witnesses.

    Parameters
    ----------
    W : k x d matrix
        Anything :func:`logitgeom.exact.numbers.to_matrix` accepts (floats are their exact
        binary rationals).
    bias : length-k vector, optional
        Affine arrangement {x : w_i . x + b_i = 0}.
    executor : concurrent.futures.Executor, optional
        Runs the independent chunks; default: a process pool when the exact count exceeds
        :data:`logitgeom.geometry.search.PARALLEL_THRESHOLD`, else serial.  The result is the
        same whatever the executor.
    max_regions : int, optional
        Raise :class:`~logitgeom.errors.TooLarge` (naming the exact count) before enumerating
        if the exact count is larger.
    progress : bool, optional
        Progress bar; default only on a terminal for big runs.

    Returns
    -------
    PatternResult
        ``kind == "sign"``; sorted patterns, aligned exact witnesses, certified complete.

    Raises
    ------
    InvalidInput
        NaN/inf, ragged or empty W, wrong bias length.
    TooLarge
        The exact count exceeds ``max_regions``.

    Examples
    --------
    >>> r = sign_pattern([[1, 0], [0, 1], [2, 0]])
    >>> r.patterns
    ((-1, -1, -1), (-1, 1, -1), (1, -1, 1), (1, 1, 1))
    >>> sign_pattern([[1], [0]], bias=[0, -3]).patterns
    ((-1, -1), (1, -1))
    """
    Wm, b = _inputs(W, bias, executor, progress)
    expected = count_regions_exact(Wm, b)
    _check_limit(expected, max_regions, "region")
    rows = arrangement_rows("sign", Wm, b)
    t = _run_topes(rows, executor, progress, expected if b is None else 2 * expected)
    pats = t.pattern_array()
    keep = np.arange(len(pats))
    if b is not None:
        keep = np.flatnonzero(pats[:, -1] > 0)
        pats = pats[keep, :-1]
    order = _sorted_rows(pats)
    pats, keep = pats[order], keep[order]
    if len(pats) > 1 and np.any(np.all(pats[1:] == pats[:-1], axis=1)):  # pragma: no cover
        raise EngineError("internal error: a sign pattern was found twice; please report")
    _certify(len(pats), expected, "sign patterns")
    words = pack_signs(t.signs[keep])  # sorted, 8 bytes per region up to 64 hyperplanes
    src = _Patterns(PatternKind.SIGN, words=words, where=t.where, m=t.signs.shape[1],
                    affine=b is not None)
    return PatternResult(
        W=Wm, bias=b, kind=PatternKind.SIGN, top=None, pattern_source=src,
        witness_source=_Witnesses(t, keep, b is not None, words), count=len(pats),
        completeness=Completeness.ZASLAVSKY, ties=(), exact_count=expected,
    )


def ranking_pattern(
    W: object,
    *,
    bias: object = None,
    top: int | None = None,
    executor: Executor | None = None,
    max_regions: int | None = None,
    progress: bool | None = None,
) -> PatternResult:
    """All rankings of the labels a softmax head W (+ b) produces; or their top-t prefixes.

    Parameters
    ----------
    W : k x d matrix
        Row i is the unembedding of label i (exact conversion as in :func:`sign_pattern`).
    bias : length-k vector, optional
        Output bias: logits W x + b.
    top : int, optional
        Return the distinct feasible prefixes of length t (1 <= t <= k) instead.
    executor, max_regions, progress
        As in :func:`sign_pattern` (``max_regions`` bounds the number of full rankings,
        checked against the exact count before any work; with ``top`` the full count is
        computed only when ``max_regions`` is given, and the prefixes are found by exact
        LPs, one per candidate, without an executor).

    Returns
    -------
    PatternResult
        ``kind == "ranking"`` (or ``"ranking-top"``); rankings are tuples of 0-based labels
        from most to least likely; tied labels adjacent in increasing order (see ``ties``).

    Raises
    ------
    InvalidInput
        Bad W or bias, ``top`` not an integer in 1..k.
    TooLarge
        The exact ranking count exceeds ``max_regions``.

    Examples
    --------
    >>> ranking_pattern([[1], [2], [3]]).patterns
    ((0, 1, 2), (2, 1, 0))
    >>> ranking_pattern([[1, 0], [0, 1], [1, 0]]).ties
    ((0, 2),)
    >>> ranking_pattern([[1, 0], [0, 1], [-1, -1]], top=1).patterns
    ((0,), (1,), (2,))
    """
    Wm, b = _inputs(W, bias, executor, progress)
    k = len(Wm)
    if top is not None and (isinstance(top, bool) or not isinstance(top, int)
                            or not 1 <= top <= k):
        raise InvalidInput(f"top must be an integer between 1 and k = {k}; got {top!r}")
    classes = tie_classes(Wm, b)
    ties = tuple(c for c in classes if len(c) > 1)
    if top is not None and len(classes) > 2 and top < k - 1:  # else: truncate R(W)
        if max_regions is not None:  # bounds the full rankings; counted only when asked
            _check_limit(count_rankings_exact(Wm, b), max_regions, "ranking")
        return _ranking_top(Wm, b, top, classes, ties, progress)
    expected = count_rankings_exact(Wm, b)
    _check_limit(expected, max_regions, "ranking")
    rows = arrangement_rows("ranking", Wm, b)
    t = _run_topes(rows, executor, progress, expected if b is None else 2 * expected)
    pats = t.pattern_array()
    keep = np.arange(len(pats))
    if b is not None:
        keep = np.flatnonzero(pats[:, -1] > 0)
        pats = pats[keep, :-1]
    ranks = rankings_from_pairs(pats, k)
    order = _sorted_rows(ranks)
    ranks, keep = ranks[order], keep[order]
    if len(ranks) > 1 and np.any(np.all(ranks[1:] == ranks[:-1], axis=1)):  # pragma: no cover
        raise EngineError("internal error: a ranking was found twice; please report")
    _certify(len(ranks), expected, "rankings")
    kind, tt = PatternKind.RANKING, None
    if top is not None:  # prefixes of the full rankings (first, in sorted order, of each)
        pre = ranks[:, :top]
        first = np.concatenate([[True], np.any(pre[1:] != pre[:-1], axis=1)])
        ranks, keep, kind, tt = pre[first], keep[first], PatternKind.RANKING_TOP, top
    return PatternResult(
        W=Wm, bias=b, kind=kind, top=tt,
        pattern_source=_Patterns(kind, labels=_small_labels(ranks)),
        witness_source=_Witnesses(t, keep, b is not None), count=len(ranks),
        completeness=Completeness.ZASLAVSKY, ties=ties,
        exact_count=expected if tt is None else None,
    )


def _ranking_top(Wm, b, top, classes, ties, progress) -> PatternResult:
    d = len(Wm[0])
    H = _homogenise(Wm, b)
    extra = [[Fraction(1)] + [Fraction(0)] * d] if b is not None else []
    prefixes, zs = search.prefix_search(H, classes, top, extra=extra, progress=progress)
    out = {}
    for p, z in zip(prefixes, zs, strict=True):
        out[p] = z if b is None else tuple(v / z[0] for v in z[1:])
    keys = sorted(out)
    return PatternResult(
        W=Wm, bias=b, kind=PatternKind.RANKING_TOP, top=top, pattern_source=tuple(keys),
        witness_source=tuple(out[p] for p in keys), count=len(keys),
        completeness=Completeness.EXACT_LP, ties=ties, exact_count=None,
    )


def argmaxable(W: object, bias: object = None) -> ArgmaxResult:
    """Which labels some input ranks first; a witness or Gordan multipliers for each.

    Parameters
    ----------
    W : k x d matrix
    bias : length-k vector, optional

    Returns
    -------
    ArgmaxResult
        Every label is decided by an exact LP: a rational witness where its logit strictly
        exceeds all logits outside its tie class, or Gordan multipliers proving that no
        input does (the label is "never the argmax").

    Raises
    ------
    InvalidInput
        Bad W or bias.

    Examples
    --------
    >>> r = argmaxable([[1, 0], [-1, 0], [0, 0]])
    >>> r.labels
    (0, 1)
    >>> r.multipliers[2]
    ((0, Fraction(1, 1)), (1, Fraction(1, 1)))
    """
    Wm, b = _inputs(W, bias)
    k, d = len(Wm), len(Wm[0])
    classes = tie_classes(Wm, b)
    cls_of = {i: c for c in classes for i in c}
    H = _homogenise(Wm, b)
    wits: list[tuple[Fraction, ...] | None] = []
    mults: list[tuple[tuple[int, Fraction], ...] | None] = []
    for i in range(k):
        others = [j for j in range(k) if j not in cls_of[i]]
        rows = [[x - y for x, y in zip(H[i], H[j], strict=True)] for j in others]
        if b is not None:
            rows.append([Fraction(1)] + [Fraction(0)] * d)
        if not rows:
            wits.append(tuple(Fraction(0) for _ in range(d)))
            mults.append(None)
            continue
        ok, z = decide(rows)
        if ok:
            wits.append(z if b is None else tuple(v / z[0] for v in z[1:]))
            mults.append(None)
        else:
            wits.append(None)
            mults.append(tuple((j, y) for j, y in zip(others, z, strict=False) if y != 0))
    labels = tuple(i for i in range(k) if wits[i] is not None)
    return ArgmaxResult(W=Wm, bias=b, labels=labels, witnesses=tuple(wits),
                        multipliers=tuple(mults),
                        ties=tuple(c for c in classes if len(c) > 1))
