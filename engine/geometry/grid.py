"""The cosine paper's verification grid, exactly: Lemma 5.3 and Theorem 5.6 by complete enumeration.

The cosine paper checked numerically, for random heads ``W`` (``n`` labels, width ``d``), that

* Lemma 5.3: ``S(W) == S(C(W))`` (cosine matrix of the rows determines the sign pattern);
* Theorem 5.6: ``R(W) == S(C(B W))`` (cosines of the row differences determine the
  ranking pattern), meaningful for ``d < n``.

Here both sides are enumerated exactly and completely (every region with a rational
witness, the count certified by Zaslavsky's theorem) with
:func:`logitgeom.geometry.sign_pattern` and :func:`logitgeom.geometry.ranking_pattern`, and the
two sets are compared.

``C(W) = D^-1 W W^T D^-1`` (``D`` = row norms) is irrational in general.  Scaling a row
by a positive number does not change any sign, so ``S(D G D) = S(G)`` for every positive
diagonal ``D``: we enumerate ``S(W W^T)`` and ``S((B W)(B W)^T)`` (exact rationals)
instead of the cosine matrices.  A ``k x k`` Gram matrix of rank ``r`` is first reduced to
``r`` of its columns spanning its column space (the sign pattern of a matrix depends only
on its column space).  Heads are seeded random small integers, deterministic across runs
and platforms; rows are non-zero and pairwise distinct (so ``B W`` has no zero row and
the cosine matrices are defined).

Examples
--------
>>> W = random_head(4, 2, seed=0)
>>> len(W), len(W[0])
(4, 2)
>>> cell = check_cell(W)
>>> cell.sign_equal, cell.ranking_equal, cell.passed
(True, True, True)
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Sequence
from concurrent.futures import Executor, as_completed
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from tqdm import tqdm

from logitgeom import _display
from logitgeom.errors import InvalidInput, TooLarge
from logitgeom.exact.linalg import column_basis
from logitgeom.exact.numbers import ExactMatrix, matrix_to_str, to_matrix
from logitgeom.geometry._grid_sets import (
    ranking_sign_array,
    same_sets,
    transported_gram_patterns,
)
from logitgeom.geometry.cosine import difference_pairs, gram_exact
from logitgeom.geometry.patterns import PatternResult, ranking_pattern, sign_pattern
from logitgeom.limits import as_executor, as_flag, as_size
from logitgeom.run.executor import cpu_count, in_worker, process_pool

__all__ = [
    "GridCell",
    "GridResult",
    "random_head",
    "check_cell",
    "verify_grid",
    "gram_column_basis",
    "ranking_to_signs",
    "grid_enumerations",
]

#: Text printed with every grid: what was compared and why it is the same statement.
GRID_NOTE = (
    "S(C(W)) is computed as S(W W^T) and S(C(BW)) as S((BW)(BW)^T): C = D^-1 G D^-1 with "
    "D > 0 diagonal, and positive row scaling leaves every sign unchanged; each k x k Gram "
    "matrix is reduced to a column basis of its column space.  Every set is enumerated "
    "exactly and completely (rational witnesses, Zaslavsky-certified counts); with method "
    "'transport' the Gram side's witnesses are y = N x for an integer matrix N with "
    "G_c N = c A (c > 0), an identity checked exactly, and its count is certified by its own "
    "Zaslavsky count."
)


#: :func:`random_head` draws at most this many entries
RANDOM_HEAD_MAX_ENTRIES = 1_000_000
#: :func:`verify_grid` refuses a grid whose regions bound (:func:`grid_work`) exceeds this; the
#: cosine paper's grid (n = 3, 5, 10, d = 2..6, 5 seeds) is 14,014,330
GRID_LIMIT = 30_000_000


def grid_work(ns: Sequence[int], seeds: int, d_min: int, d_max: int) -> int:
    """An upper bound on the regions a verification grid enumerates: per head, the rankings
    of ``n`` labels in ``d`` dimensions, at most ``min(n!, 2 sum_{i<d} C(m - 1, i))`` with
    ``m = C(n, 2)`` (the generic count of m central hyperplanes in R^d), times the seeds.

    Parameters
    ----------
    ns : sequence of int
    seeds, d_min, d_max : int

    Returns
    -------
    int

    Examples
    --------
    >>> grid_work((3, 5, 10), 5, 2, 6)
    14014330
    """
    from math import comb, factorial

    tot = 0
    for n in ns:
        m = comb(n, 2)
        for d in range(d_min, min(d_max, n) + 1):
            gen = 2 * sum(comb(m - 1, i) for i in range(d))
            tot += seeds * (min(gen, factorial(n)) if n <= 20 else gen)
    return tot


def random_head(n: int, d: int, seed: int, *, low: int = -5, high: int = 5) -> ExactMatrix:
    """A deterministic random ``n x d`` integer head with non-zero, pairwise distinct rows.

    Entries are uniform in ``low..high``; draws with a zero row or a repeated row are
    redrawn.  The generator is seeded by the string ``"logitgeom-grid/n/d/seed"``, so the
    head is the same on every run and platform.

    Parameters
    ----------
    n, d : int
        Rows (labels) and columns; ``n * d`` at most :data:`RANDOM_HEAD_MAX_ENTRIES`.
    seed : int
        The seed (any integer).
    low, high : int
        The range of the entries.

    Returns
    -------
    tuple of tuple of Fraction

    Raises
    ------
    InvalidInput
        ``n < 1``, ``d < 1``, ``low > high``, or a range too small for ``n`` distinct
        non-zero rows.
    TooLarge
        ``n * d`` above :data:`RANDOM_HEAD_MAX_ENTRIES`.

    Examples
    --------
    >>> [[int(x) for x in r] for r in random_head(3, 2, seed=1)] == \
[[int(x) for x in r] for r in random_head(3, 2, seed=1)]
    True
    """
    for name, v in (("n", n), ("d", d), ("seed", seed), ("low", low), ("high", high)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise InvalidInput(f"{name} must be an integer; got {v!r}")
    if n < 1 or d < 1:
        raise InvalidInput(f"n and d must be at least 1; got n = {n}, d = {d}")
    if n * d > RANDOM_HEAD_MAX_ENTRIES:
        raise TooLarge(f"a random head of {n:,} x {d:,} entries is above the largest supported "
                       f"size ({RANDOM_HEAD_MAX_ENTRIES:,} entries)")
    if low > high:
        raise InvalidInput(f"low = {low} is larger than high = {high}")
    if d * (high - low + 1).bit_length() < 64 and \
            (high - low + 1) ** d - (1 if low <= 0 <= high else 0) < n:
        raise InvalidInput(
            f"only {(high - low + 1) ** d} integer rows in {low}..{high}^{d}: "
            f"cannot draw {n} distinct non-zero rows"
        )
    rng = random.Random(f"logitgeom-grid/{n}/{d}/{seed}")
    while True:
        rows = [tuple(rng.randint(low, high) for _ in range(d)) for _ in range(n)]
        if all(any(r) for r in rows) and len(set(rows)) == n:
            return tuple(tuple(Fraction(x) for x in r) for r in rows)


def gram_column_basis(M: object) -> ExactMatrix:
    """``(M M^T)[:, cols]`` for the first columns ``cols`` spanning the column space of ``M M^T``.

    Has the same sign pattern as ``M M^T`` and as the cosine matrix of ``M``'s rows.

    Examples
    --------
    >>> [[int(x) for x in r] for r in gram_column_basis([[1, 0], [2, 0], [0, 1]])]
    [[1, 0], [2, 0], [0, 1]]
    """
    G = gram_exact(M)
    cols = column_basis(G)
    if not cols:
        raise InvalidInput("the Gram matrix is zero: every row is zero")
    return tuple(tuple(r[c] for c in cols) for r in G)


def ranking_to_signs(ranking: Sequence[int], k: int) -> tuple[int, ...]:
    """The sign vector of ``B z`` for logits ordered as ``ranking`` (pairs i < j, lexicographic).

    Entry ``(i, j)`` is ``+1`` when label ``i`` is ranked above label ``j``.

    Examples
    --------
    >>> ranking_to_signs((2, 0, 1), 3)   # pairs (0, 1), (0, 2), (1, 2)
    (1, -1, -1)
    """
    pos = [0] * k
    for p, lab in enumerate(ranking):
        pos[lab] = p
    return tuple(1 if pos[i] < pos[j] else -1 for i, j in difference_pairs(k))


def grid_enumerations(W, claim: str) -> tuple[PatternResult, PatternResult]:
    """The two complete enumerations a verification-grid claim compares.

    ``"lemma-5.3"``: S(W) and S(W W^T); ``"thm-5.6"``: R(W) and S((BW)(BW)^T), the rows of
    BW being w_i - w_j in the order of :func:`difference_pairs`.

    Examples
    --------
    >>> a, b = grid_enumerations([[1, 0], [0, 1], [1, 1]], "thm-5.6")
    >>> a.count, b.count
    (6, 6)
    """
    if claim not in ("lemma-5.3", "thm-5.6"):
        raise InvalidInput(f"claim must be 'lemma-5.3' or 'thm-5.6'; got {claim!r}")
    M = to_matrix(W)
    if claim == "lemma-5.3":
        return sign_pattern(M, progress=False), sign_pattern(gram_exact(M), progress=False)
    BW = tuple(tuple(a - b for a, b in zip(M[i], M[j], strict=True))
               for i, j in difference_pairs(len(M)))
    return ranking_pattern(M, progress=False), sign_pattern(gram_exact(BW), progress=False)


@dataclass(frozen=True)
class GridCell:
    """One head of the grid and the outcome of both checks.

    Attributes
    ----------
    n, d, seed : int
        Size and seed (``seed`` is -1 for a head given by the user).
    W : tuple of tuple of Fraction
    sign_count : int
        ``|S(W)|`` (equal to ``|S(W W^T)|`` when ``sign_equal``).
    sign_equal : bool
        ``S(W) == S(W W^T)`` (Lemma 5.3).
    ranking_count : int or None
        ``|R(W)|``; None when ``d >= n`` (Theorem 5.6 not checked).
    ranking_equal : bool or None
        ``R(W) == S((BW)(BW)^T)`` (Theorem 5.6), with rankings written as sign vectors.
    seconds : float
        Wall time (not part of :meth:`to_json` unless asked, so reports are reproducible).
    """

    n: int
    d: int
    seed: int
    W: ExactMatrix = field(repr=False)
    sign_count: int
    sign_equal: bool
    ranking_count: int | None
    ranking_equal: bool | None
    seconds: float = field(default=0.0, compare=False)

    def __repr__(self) -> str:
        return _display.short_repr(self)

    def _repr_html_(self) -> str:
        return _display.html(self)

    @property
    def passed(self) -> bool:
        """Both checks that apply hold."""
        return self.sign_equal and self.ranking_equal is not False

    def certificate(self, claim: str | None = None) -> dict[str, Any]:
        """A ``theorem`` certificate of this head.

        ``claim`` is ``"lemma-5.3"`` (S(W) = S(C(W))) or ``"thm-5.6"`` (R(W) = S(C(BW)),
        only for d < n); default: Thm 5.6 when it was checked, else Lemma 5.3.  The file
        holds both complete enumerations (:func:`grid_enumerations`, with the witnesses
        they found, verified exactly) and their intersection lattices, built by
        :func:`logitgeom.certify.geometry.grid_bundle`; it is large for big heads (n = 10,
        d = 6: hundreds of thousands of rankings).

        Examples
        --------
        >>> from logitgeom_certificates.api import check
        >>> cell = check_cell([[1, 0], [0, 1], [1, 1]])
        >>> check(cell.certificate()).ok, check(cell.certificate("lemma-5.3")).ok
        (True, True)
        """
        if claim is None:
            claim = "thm-5.6" if self.ranking_count is not None else "lemma-5.3"
        if claim == "thm-5.6" and self.ranking_count is None:
            raise InvalidInput(f"Thm 5.6 is checked only for d < n (here n = {self.n}, "
                               f"d = {self.d})")
        from logitgeom.certify.geometry import grid_bundle  # loads the checker: only when asked

        first, second = grid_enumerations(self.W, claim)
        return grid_bundle(claim, first, second, statement=(
            f"{'Lemma 5.3' if claim == 'lemma-5.3' else 'Thm 5.6'} on grid head n = {self.n}, "
            f"d = {self.d}, seed {self.seed}"))

    def to_json(self, *, timings: bool = False) -> dict[str, Any]:
        out = {
            "n": self.n,
            "d": self.d,
            "seed": self.seed,
            "W": matrix_to_str(self.W),
            "sign_count": self.sign_count,
            "lemma_5_3": self.sign_equal,
            "ranking_count": self.ranking_count,
            "theorem_5_6": self.ranking_equal,
            "passed": self.passed,
        }
        if timings:
            out["seconds"] = round(self.seconds, 3)
        return out


@dataclass(frozen=True, repr=False)
class GridResult(_display.ResultDisplay):
    """All cells of a verification grid.

    Attributes
    ----------
    cells : tuple of GridCell
        One per (n, d, seed), in grid order.
    method : str
        How the Gram side was enumerated ("enumerate" or "transport").
    """

    cells: tuple[GridCell, ...]
    method: str = "enumerate"

    @property
    def passed(self) -> bool:
        """Every cell passed."""
        return all(c.passed for c in self.cells)

    def to_json(self, *, timings: bool = False) -> dict[str, Any]:
        """A JSON-ready report; byte-identical across runs unless ``timings=True``."""
        return {
            "kind": "verification-grid",
            "method": self.method,
            "note": GRID_NOTE,
            "passed": self.passed,
            "cells": [c.to_json(timings=timings) for c in self.cells],
        }

    def table(self, *, timings: bool = False) -> str:
        """A text table: one line per (n, d) with the counts and outcomes over the seeds."""
        groups: dict[tuple[int, int], list[GridCell]] = {}
        for c in self.cells:
            groups.setdefault((c.n, c.d), []).append(c)
        head = f"{'n':>3} {'d':>2} {'seeds':>5}  {'|S(W)|':>18}  {'Lemma 5.3':>9}  "
        head += f"{'|R(W)|':>26}  {'Thm 5.6':>7}"
        if timings:
            head += f"  {'time':>8}"
        lines = [head, "-" * len(head)]
        for (n, d), cs in groups.items():
            sc = ",".join(str(c.sign_count) for c in cs)
            rc = "-" if cs[0].ranking_count is None else ",".join(str(c.ranking_count) for c in cs)
            ok53 = "ok" if all(c.sign_equal for c in cs) else "FAIL"
            ok56 = (
                "n/a"
                if cs[0].ranking_equal is None
                else ("ok" if all(c.ranking_equal for c in cs) else "FAIL")
            )
            line = f"{n:>3} {d:>2} {len(cs):>5}  {sc:>18}  {ok53:>9}  {rc:>26}  {ok56:>7}"
            if timings:
                line += f"  {sum(c.seconds for c in cs):>7.2f}s"
            lines.append(line)
        lines.append(f"all passed: {self.passed}")
        return "\n".join(lines)


def check_cell(
    W: object,
    *,
    n_seed: int = -1,
    executor: Executor | None = None,
    ranking: bool | None = None,
    method: str = "enumerate",
) -> GridCell:
    """Check Lemma 5.3 (and Theorem 5.6 when ``d < n``) for one head, exactly.

    Parameters
    ----------
    W : array_like, n x d
        Non-zero rows; for Theorem 5.6 also pairwise distinct rows.
    n_seed : int
        Seed recorded in the cell (-1: given by the user).
    executor : Executor, optional
        Passed to the enumerations.
    ranking : bool, optional
        Force (True) or skip (False) Theorem 5.6; default: check it when ``d < n``.
    method : {"enumerate", "transport"}
        ``"enumerate"``: both sides enumerated independently by :func:`sign_pattern` /
        :func:`ranking_pattern`.  ``"transport"``: ``S(W)`` and ``R(W)`` are enumerated;
        the Gram side gets the witness ``y = N x`` for every pattern, where the integer
        matrix ``N`` satisfies ``G_c N = c A`` (``c > 0``; the identity is checked
        exactly, so ``sign(G_c y) = sign(A x)``), and completeness is certified by the
        Gram arrangement's own Zaslavsky count (if either fails, the Gram side is
        enumerated after all).  Both are exact and complete;
        "transport" usually needs one enumeration instead of two.

    Returns
    -------
    GridCell

    Raises
    ------
    InvalidInput
        A zero row (its cosine is undefined), tied rows when Theorem 5.6 is checked, an
        unknown ``method``.

    Examples
    --------
    >>> check_cell([[1, 0], [0, 1], [1, 1]]).sign_count
    6
    >>> check_cell([[1, 0], [0, 1], [1, 1]], method="transport").passed
    True
    """
    if method not in ("enumerate", "transport"):
        raise InvalidInput(f"method must be 'enumerate' or 'transport'; got {method!r}")
    n_seed = as_size(n_seed, "n_seed", least=-1)  # type: ignore[assignment]
    ranking = as_flag(ranking, "ranking", allow_none=True)
    as_executor(executor)
    t0 = time.perf_counter()
    M = to_matrix(W, what="W")
    n, d = len(M), len(M[0])
    zero = [i for i, r in enumerate(M) if not any(r)]
    if zero:
        raise InvalidInput(f"W has zero rows {zero}: their cosine similarity is undefined")
    do_rank = d < n if ranking is None else ranking
    if do_rank and len(set(M)) < n:
        raise InvalidInput("W has repeated rows: B W has a zero row, C(BW) is undefined")
    S1 = sign_pattern(M, executor=executor, progress=False)
    S1a = S1.pattern_array()
    Gc = gram_column_basis(M)
    if method == "enumerate":
        S2 = sign_pattern(Gc, executor=executor, progress=False)
        sign_equal = S1.complete and S2.complete and same_sets(S1a, S2.pattern_array())
    else:
        sign_equal, total = transported_gram_patterns(M, Gc, S1a)
        if not sign_equal and total == S1.count:  # not proven: decide by enumeration
            S2 = sign_pattern(Gc, executor=executor, progress=False)
            sign_equal = same_sets(S1a, S2.pattern_array())
    rcount = requal = None
    if do_rank:
        R = ranking_pattern(M, executor=executor, progress=False)
        BW = tuple(
            tuple(a - b for a, b in zip(M[i], M[j], strict=True)) for i, j in difference_pairs(n)
        )
        Ra = ranking_sign_array(R.pattern_array(), n)
        G2c = gram_column_basis(BW)
        if method == "enumerate":
            S3 = sign_pattern(G2c, executor=executor, progress=False)
            requal = (
                R.complete and S3.complete and same_sets(Ra, S3.pattern_array())
            )
        else:
            requal, total = transported_gram_patterns(BW, G2c, Ra)
            if not requal and total == R.count:  # not proven: decide by enumeration
                S3 = sign_pattern(G2c, executor=executor, progress=False)
                requal = same_sets(Ra, S3.pattern_array())
        rcount = R.count
    return GridCell(
        n=n,
        d=d,
        seed=n_seed,
        W=M,
        sign_count=S1.count,
        sign_equal=bool(sign_equal),
        ranking_count=rcount,
        ranking_equal=None if requal is None else bool(requal),
        seconds=time.perf_counter() - t0,
    )


def verify_grid(
    ns: Sequence[int] = (3, 5, 10),
    seeds: int = 5,
    *,
    d_min: int = 2,
    d_max: int = 6,
    low: int = -5,
    high: int = 5,
    executor: Executor | None = None,
    progress: bool | None = None,
    method: str = "enumerate",
    workers: int | None = None,
) -> GridResult:
    """The cosine paper's verification grid, exactly: every ``n`` in ``ns``,
    ``d = d_min..min(d_max, n)``.

    Parameters
    ----------
    ns : sequence of int
        Numbers of labels (the cosine paper: 3, 5, 10).
    seeds : int
        Heads per (n, d), seeds ``0..seeds-1`` (the cosine paper: 5).
    d_min, d_max : int
        Range of widths (capped at ``n``); Theorem 5.6 is checked for ``d < n``.
    low, high : int
        Entry range of the random integer heads.
    executor : Executor, optional
        Passed to the enumerations (the cells then run one after another here).
    progress : bool, optional
        Progress bar over the cells (default: only on a terminal).
    method : {"enumerate", "transport"}
        How the Gram side is enumerated (see :func:`check_cell`).
    workers : int, optional
        Cells run in this many processes (1: in this process).  Default: one per available
        core when the grid has a cell with ``n >= 10``, else 1.  The result is the same
        whatever the number of workers (cells are independent and kept in grid order).

    Returns
    -------
    GridResult

    Raises
    ------
    InvalidInput
        ``ns`` not a sequence of positive integers, bad ``seeds``, ``d_min``, ``d_max``,
        ``method`` or ``workers``, or an empty grid.
    TooLarge
        The grid's regions bound (:func:`grid_work`) is over :data:`GRID_LIMIT`.

    Examples
    --------
    >>> r = verify_grid(ns=(3,), seeds=1, progress=False)
    >>> [(c.n, c.d, c.passed) for c in r.cells]
    [(3, 2, True), (3, 3, True)]
    """
    if isinstance(seeds, bool) or not isinstance(seeds, int) or seeds < 1:
        raise InvalidInput(f"seeds must be a positive integer; got {seeds!r}")
    if isinstance(ns, str | bytes) or not isinstance(ns, Sequence):
        raise InvalidInput(f"ns must be a sequence of integers; got {ns!r}")
    ns = [as_size(n, "each n (labels)", least=1, most=1000) for n in ns]
    d_min = as_size(d_min, "d_min", least=1, most=1000)
    d_max = as_size(d_max, "d_max", least=1, most=1000)
    as_executor(executor)
    as_flag(progress, "progress", allow_none=True)
    work = grid_work(ns, seeds, d_min, d_max)
    if work > GRID_LIMIT:
        raise TooLarge(f"the grid (n = {','.join(map(str, ns))}, d = {d_min}..{d_max}, {seeds:,} "
                       f"seeds) may enumerate up to {work:,} regions, over the limit of "
                       f"{GRID_LIMIT:,}; choose smaller n, d or seeds")
    jobs = [(n, d, s) for n in ns for d in range(d_min, min(d_max, n) + 1) for s in range(seeds)]
    if not jobs:
        raise InvalidInput(f"the grid is empty: ns = {list(ns)}, d = {d_min}..{d_max}")
    if method not in ("enumerate", "transport"):
        raise InvalidInput(f"method must be 'enumerate' or 'transport'; got {method!r}")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)
                                or workers < 1):
        raise InvalidInput(f"workers must be a positive integer; got {workers!r}")
    show = sys.stderr.isatty() if progress is None else bool(progress)
    if workers is None:
        workers = cpu_count() if max(n for n, _, _ in jobs) >= 10 else 1
    if in_worker():  # no nested pools
        workers = 1
    args = [(n, d, s, low, high, method) for n, d, s in jobs]
    cells: list[GridCell | None] = [None] * len(jobs)
    bar = tqdm(total=len(jobs), desc="grid", unit="head", disable=not show, leave=False)
    if executor is not None or workers == 1 or len(jobs) == 1:
        for i, a in enumerate(args):
            cells[i] = _grid_job(a, executor)
            bar.update(1)
    else:  # biggest cells first (balance); results kept in grid order
        with process_pool(min(workers, len(jobs))) as pool:  # Ctrl-C: workers end at once
            order = sorted(range(len(jobs)), key=lambda i: (-jobs[i][0], -jobs[i][1], i))
            futs = {pool.submit(_grid_job, args[i]): i for i in order}
            for f in as_completed(futs):
                cells[futs[f]] = f.result()
                bar.update(1)
    bar.close()
    return GridResult(tuple(c for c in cells if c is not None), method)


def _grid_job(a: tuple, executor: Executor | None = None) -> GridCell:
    n, d, s, low, high, method = a
    W = random_head(n, d, s, low=low, high=high)
    return check_cell(W, n_seed=s, executor=executor, method=method)
