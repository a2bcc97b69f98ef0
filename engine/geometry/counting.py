"""Exact counts of sign patterns and ranking patterns, and the generic-position formulas.

:func:`count_regions` and :func:`count_rankings` are exact for *every* input (no LP, no
floats): they evaluate the characteristic polynomial of the intersection lattice
(Zaslavsky's theorem) in :mod:`logitgeom.exact.lattice`.  The closed formulas
(:func:`cover_count`, :func:`affine_generic_count`, :func:`ranking_count_generic`,
:func:`ranking_count_generic_affine`) hold only for inputs in general position;
small-integer matrices are often *not* in general position, so compare enumerations
with the exact counts, not with the formulas.

Degenerate input (shared semantics of :mod:`logitgeom.geometry`):

* a constant row (``w_i = 0``, with ``b_i = 0`` or no bias: sign 0 everywhere; with
  ``b_i != 0``: sign of ``b_i`` everywhere) is not a hyperplane; the count is the number
  of regions of the remaining rows;
* repeated or parallel rows define one hyperplane;
* tied labels (identical rows, and identical biases with a bias) are always tied in a
  ranking; :func:`count_rankings` counts the orders of the tie classes;
* ``rank(W) < d``, ``d = 1`` and ``k = 1`` need no special care.

Examples
--------
>>> count_regions([[1, 0], [0, 1], [1, 1]]), cover_count(3, 2)
(6, 6)
>>> count_rankings([[0, 0], [1, 0], [0, 1], [3, 5], [-2, 7]]), ranking_count_generic(5, 2)
(20, 20)
"""

from __future__ import annotations

from collections.abc import Sequence
from math import comb

from logitgeom.errors import InvalidInput, TooLarge
from logitgeom.exact.lattice import (
    SearchBudgetExhausted,
    chi_nodes,
    children,
    count_rankings_exact,
    count_regions_exact,
    evaluate,
    hyperplane_vectors,
    tie_classes,
)
from logitgeom.exact.linalg import canonical_direction
from logitgeom.exact.numbers import to_matrix, to_vector

__all__ = [
    "count_regions",
    "count_rankings",
    "cover_count",
    "affine_generic_count",
    "ranking_count_generic",
    "ranking_count_generic_affine",
    "stirling_first",
    "region_upper_bound",
    "check_region_bound",
    "DEFAULT_MAX_COUNT",
    "DEFAULT_MAX_PATTERNS",
    "count_tasks",
    "count_task",
    "combine_count",
    "count_regions_within",
    "count_regions_parallel",
    "count_or_refuse",
]

#: Default limit of ``logitgeom count`` on the general-position bound (the exact count
#: visits about one node per region: ~2e5 regions/s, so this is about a minute at most).
DEFAULT_MAX_COUNT = 10_000_000
#: Default limit of ``logitgeom patterns`` (every region is stored with a witness).
DEFAULT_MAX_PATTERNS = 2_000_000


def _exact_input(W: object, bias: object) -> tuple:
    M = to_matrix(W, what="W")
    b = None if bias is None else to_vector(bias, what="bias", length=len(M))
    return M, b


def region_upper_bound(W: object, *, bias: object = None, ranking: bool = False) -> int:
    """A cheap upper bound on ``|S(W)|`` (or ``|R(W)|``): the general-position count.

    The number of regions of an arrangement never exceeds that of an arrangement of as
    many hyperplanes in general position (each region of the former contains an open ball,
    which keeps its sign vector under a small perturbation into general position).  Sign
    patterns: Cover's count of the distinct hyperplanes (affine: ``sum_{i<=d} C(n, i)``);
    rankings: the generic ranking count of the tie classes (at most ``m!``).  Costs
    ``O(k d)`` exact operations, whatever the count (see docs/limits.md).

    Examples
    --------
    >>> region_upper_bound([[1, 0], [0, 1], [2, 0]])   # two distinct lines: at most 4
    4
    >>> region_upper_bound([[1, 0], [0, 1], [1, 1]], ranking=True)
    6
    """
    M, b = _exact_input(W, bias)
    d = len(M[0])
    if ranking:
        m = len(tie_classes(M, b))
        if m <= 1:
            return 1
        return (ranking_count_generic(m, d) if b is None
                else ranking_count_generic_affine(m, d))
    vecs, dim = hyperplane_vectors(M, b)
    if b is None:
        n = len(vecs)
        return cover_count(n, min(d, n)) if n else 1
    n = len(vecs) - 1  # hyperplane_vectors adds the hyperplane at infinity
    return sum(comb(n, i) for i in range(min(d, n) + 1))


def check_region_bound(W: object, *, bias: object = None, ranking: bool = False,
                       limit: int, what: str = "--max-regions") -> int:
    """Refuse, before any enumeration, a head whose region bound exceeds ``limit``.

    Returns the bound when it is at most ``limit``.

    Raises
    ------
    TooLarge
        The general-position bound exceeds ``limit`` (the message gives the bound).

    Examples
    --------
    >>> check_region_bound([[1, 0], [0, 1]], limit=10)
    4
    """
    bound = region_upper_bound(W, bias=bias, ranking=ranking)
    if bound > limit:
        M = to_matrix(W, what="W")
        kind = "rankings" if ranking else "sign patterns"
        raise TooLarge(
            f"this {len(M)} x {len(M[0])} head may have up to {bound:,} {kind} (the "
            f"general-position bound), above the limit {limit:,}; the exact work grows with "
            f"that number. Raise {what} to at least {bound:,} to try anyway, or use a "
            "smaller head (see docs/limits.md)")
    return bound


def count_regions(W: object, *, bias: object = None) -> int:
    """Exact number of sign patterns ``|S(W)|`` of ``sign(W x)`` (or ``sign(W x + b)``).

    Parameters
    ----------
    W : array_like, k x d
        Anything :func:`logitgeom.exact.numbers.to_matrix` accepts (floats are their exact
        binary rationals).
    bias : array_like of length k, optional
        Count the regions of the affine arrangement ``{x : w_i . x + b_i = 0}``.

    Returns
    -------
    int
        The number of regions of the arrangement of the non-constant rows; every region
        is one strict sign vector on those rows (constant rows keep their constant sign).

    Raises
    ------
    InvalidInput
        NaN/inf, ragged or empty matrix, wrong bias length.

    Examples
    --------
    >>> count_regions([[1, 0], [0, 1], [1, 1], [2, 2]])    # the repeated direction counts once
    6
    >>> count_regions([[1], [1], [1]], bias=[0, -1, -2])    # three points on a line
    4
    >>> count_regions([[0, 0], [1, 0]])                    # a zero row is not a hyperplane
    2
    """
    M, b = _exact_input(W, bias)
    return count_regions_exact(M, b)


def count_rankings(W: object, *, bias: object = None) -> int:
    """Exact number of rankings ``|R(W)| = |S(B W)|`` a softmax head can produce.

    Parameters
    ----------
    W : array_like, k x d
    bias : array_like of length k, optional
        Logits ``W x + b``.

    Returns
    -------
    int
        Number of strict orders of the tie classes (labels with identical rows, and
        identical biases) realised by some ``x``.

    Raises
    ------
    InvalidInput
        NaN/inf, ragged or empty matrix, wrong bias length.

    Examples
    --------
    >>> count_rankings([[1, 0], [0, 1], [1, 0]])     # labels 0 and 2 are tied
    2
    >>> count_rankings([[1], [2], [3]], bias=[0, 0, 1])
    4
    """
    M, b = _exact_input(W, bias)
    return count_rankings_exact(M, b)


def _check_kd(k: object, d: object) -> tuple[int, int]:
    for name, v in (("k", k), ("d", d)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise InvalidInput(f"{name} must be an integer; got {v!r}")
    if k < 1:
        raise InvalidInput(f"k must be at least 1 (number of rows/labels); got {k}")
    if d < 1:
        raise InvalidInput(f"d must be at least 1 (dimension); got {d}")
    d = min(d, k)  # every generic count is the same for all d >= k (no term beyond d = k)
    if k * d > 10**8:  # k * d steps of exact integer sums
        raise TooLarge(f"a generic count for k = {k:,} labels needs about {k * d:,} exact steps, "
                       "above the supported 100,000,000")
    return k, d


def cover_count(k: int, d: int) -> int:
    """Regions of ``k`` central hyperplanes in general position in ``R^d`` (Cover 1965).

    ``2 * sum_{i < d} C(k - 1, i)``.

    Parameters
    ----------
    k : int
        Number of hyperplanes.
    d : int
        Dimension.

    Returns
    -------
    int

    Raises
    ------
    InvalidInput
        k or d is not a non-negative integer.

    Examples
    --------
    >>> cover_count(20, 5), cover_count(3, 5)
    (10072, 8)
    """
    k, d = _check_kd(k, d)
    return 2 * sum(comb(k - 1, i) for i in range(d))


def affine_generic_count(k: int, d: int) -> int:
    """Regions of ``k`` affine hyperplanes in general position in ``R^d``: ``sum_{i<=d} C(k, i)``.

    Parameters
    ----------
    k : int
        Number of hyperplanes.
    d : int
        Dimension.

    Returns
    -------
    int

    Raises
    ------
    InvalidInput
        k or d is not a non-negative integer.

    Examples
    --------
    >>> affine_generic_count(3, 2), affine_generic_count(20, 5)
    (7, 21700)
    """
    k, d = _check_kd(k, d)
    return sum(comb(k, i) for i in range(d + 1))


def stirling_first(n: int, m: int) -> int:
    """Unsigned Stirling number of the first kind ``c(n, m)`` (permutations of n with m cycles).

    Examples
    --------
    >>> [stirling_first(4, m) for m in range(5)]
    [0, 6, 11, 6, 1]
    """
    if n < 0 or m < 0:
        return 0
    row = [1]  # c(0, 0) = 1
    for i in range(n):
        new = [0] * (len(row) + 1)
        for j, c in enumerate(row):
            new[j + 1] += c
            new[j] += i * c
        row = new
    return row[m] if m < len(row) else 0


def ranking_count_generic(k: int, d: int) -> int:
    """Rankings of ``k`` labels with unembeddings in general position in ``R^d``.

    Cover (1967) / Good and Tideman: ``Q(n, d) = Q(n-1, d) + (n-1) Q(n-1, d-1)`` with
    ``Q(1, d) = 1`` and ``Q(n, 1) = 2`` for ``n >= 2``; equals ``k!`` when ``d >= k - 1``.

    Parameters
    ----------
    k : int
        Number of labels.
    d : int
        Dimension.

    Returns
    -------
    int

    Raises
    ------
    InvalidInput
        k or d is not a non-negative integer.

    Examples
    --------
    >>> [ranking_count_generic(5, d) for d in (2, 3, 4)]
    [20, 72, 120]
    >>> ranking_count_generic(10, 3), ranking_count_generic(10, 6)
    (1742, 557640)
    """
    k, d = _check_kd(k, d)
    # table Q[n][e] for n = 1..k, e = 1..d
    prev = [0] + [1] * d  # n = 1
    for n in range(2, k + 1):
        cur = [0] * (d + 1)
        cur[1] = 2
        for e in range(2, d + 1):
            cur[e] = prev[e] + (n - 1) * prev[e - 1]
        prev = cur
    return prev[d]


def ranking_count_generic_affine(k: int, d: int) -> int:
    """Rankings of ``k`` labels of a head with a generic bias, unembeddings generic in ``R^d``.

    ``sum_{i <= d} c(k, k - i)`` (``c``: unsigned Stirling numbers of the first kind).

    Parameters
    ----------
    k : int
        Number of labels.
    d : int
        Dimension.

    Returns
    -------
    int

    Raises
    ------
    InvalidInput
        k or d is not a non-negative integer.

    Examples
    --------
    >>> ranking_count_generic_affine(3, 1), ranking_count_generic_affine(10, 6)
    (4, 1066644)
    """
    k, d = _check_kd(k, d)
    return sum(stirling_first(k, k - i) for i in range(min(d, k - 1) + 1))


# ----------------------------------------------------------------------------- parallel


def _generic(m: int, dim: int) -> int:
    """Regions of m generic central hyperplanes in R^dim: ranks subtrees by size."""
    return 2 * sum(comb(m - 1, i) for i in range(dim)) if m else 1


def count_tasks(W: object, *, bias: object = None, target: int = 64
                ) -> tuple[int, list[int], list[tuple]]:
    """Split the exact count of sign patterns into independent tasks.

    The search over no-broken-circuit sets (Zaslavsky's theorem) is expanded breadth
    first from the root until at least ``target`` open subtrees exist (or none can be
    split further); each open subtree is a task for :func:`count_task`.

    Returns
    -------
    (dim, coeffs, tasks)
        The dimension, the chi(t) contributions of the expanded nodes, and the open
        nodes.  The count is :func:`combine_count` of them and the tasks' results.

    Examples
    --------
    >>> dim, c, tasks = count_tasks([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]], target=2)
    >>> combine_count(dim, c, [count_task((t, dim)) for t in tasks], affine=False)
    14
    """
    M, b = _exact_input(W, bias)
    vecs, dim = hyperplane_vectors(M, b)
    coeffs = [0] * (dim + 1)
    frontier = [(tuple(canonical_direction(v) for v in vecs), 1, 0)]
    while len(frontier) < target:
        nxt, grew = [], False
        for node in frontier:
            rem, sgn, rk = node
            if rem and len(rem[0]) >= 3 and len(nxt) + len(frontier) < 64 * target:
                coeffs[dim - rk] += sgn
                nxt.extend(children(rem, sgn, rk))
                grew = True
            else:
                nxt.append(node)
        frontier = nxt
        if not grew:
            break
    return dim, coeffs, frontier


def count_task(args: tuple) -> list[int]:
    """chi(t) contributions of one task of :func:`count_tasks` (any worker).

    Examples
    --------
    >>> count_task(((((1, 0), (0, 1)), 1, 0), 2))
    [1, -2, 1]
    """
    node, dim = args
    return chi_nodes(node if isinstance(node, list) else [node], dim)


def combine_count(dim: int, coeffs: list[int], parts: Sequence[list[int]], *,
                  affine: bool) -> int:
    """The exact count from :func:`count_tasks` and the results of its tasks."""
    total = list(coeffs)
    for part in parts:
        total = [a + c for a, c in zip(total, part, strict=True)]
    n = abs(evaluate(total, -1))
    return n // 2 if affine else n


def count_regions_within(W: object, *, bias: object = None, max_work: int) -> int | None:
    """The exact count of sign patterns, or ``None`` when it needs more than ``max_work``
    nodes of the exact search (each node is a few exact integer operations; about
    2 * 10^5 nodes per second).

    Lets callers refuse from the real cost of the exact count instead of the
    general-position bound, which overestimates degenerate heads by orders of magnitude.

    Examples
    --------
    >>> count_regions_within([[1, 0], [0, 1], [1, 1]], max_work=100)
    6
    >>> count_regions_within([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1],
    ...                       [1, 1, 1, 1]], max_work=3) is None
    True
    """
    M, b = _exact_input(W, bias)
    vecs, dim = hyperplane_vectors(M, b)
    root = (tuple(canonical_direction(v) for v in vecs), 1, 0)
    try:
        coeffs = chi_nodes([root], dim, budget=max_work)
    except SearchBudgetExhausted:
        return None
    n = abs(evaluate(coeffs, -1))
    return n // 2 if b is not None else n


def count_regions_parallel(W: object, *, bias: object = None, executor: object = None,
                           tasks: int | None = None, stats: dict | None = None) -> int:
    """:func:`count_regions` as independent tasks on an executor (same exact result).

    Parameters
    ----------
    executor : None, concurrent.futures.Executor or distributed.Client
    tasks : int, optional
        Target number of tasks (default: 8 per worker, 1 serially).
    stats : dict, optional
        Receives ``cpu_tasks``: the CPU seconds of the tasks (in whichever process ran
        them) and ``tasks``.

    Examples
    --------
    >>> count_regions_parallel([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]], tasks=3)
    14
    """
    import heapq

    from logitgeom.run.executor import run_units, worker_count

    target = tasks or (1 if executor is None else 8 * worker_count(executor))
    # many small subtrees, packed into ``target`` tasks of about equal generic size
    dim, coeffs, nodes = count_tasks(W, bias=bias, target=64 * target if target > 1 else 1)
    bins: list[tuple[int, int, list]] = [(0, i, []) for i in range(min(target, len(nodes)))]
    size = [_generic(len(n[0]), dim - n[2]) for n in nodes]
    for i in sorted(range(len(nodes)), key=lambda i: -size[i]):
        load, b, members = heapq.heappop(bins)
        members.append(nodes[i])
        heapq.heappush(bins, (load + size[i], b, members))
    work = [(members, dim) for _, _, members in sorted(bins, key=lambda t: t[1])]
    done = [r.value for r in run_units(_count_task_cpu, work, executor=executor,
                                       progress=False, desc="count")]
    if stats is not None:
        stats.update(cpu_tasks=sum(c for _, c in done), tasks=len(done))
    return combine_count(dim, coeffs, [v for v, _ in done], affine=bias is not None)


def _count_task_cpu(args: tuple) -> tuple[list[int], float]:
    """:func:`count_task` and the CPU seconds it took (in the process that ran it)."""
    import time

    c0 = time.process_time()
    v = count_task(args)
    return v, time.process_time() - c0


#: nodes of exact search tried, by default, on a head whose general-position bound is
#: above the limit (about 2 to 5 s): enough for resonance-6 and the braid arrangement of 9
CHEAP_COUNT_WORK = 1_000_000
#: above this multiple of the limit the bound refuses at once (no search is tried)
HOPELESS_FACTOR = 10_000


def count_or_refuse(W: object, *, bias: object = None, ranking: bool = False,
                    limit: int = DEFAULT_MAX_COUNT, work: int | None = None,
                    what: str = "--max-regions") -> int:
    """The exact count, refused only when the exact count itself is expensive.

    Heads whose general-position bound is at most ``limit`` are counted as usual.  Above
    it (and below ``HOPELESS_FACTOR`` times it) the exact search runs with a budget of
    ``work`` nodes (default ``min(limit, CHEAP_COUNT_WORK)``; a few exact integer
    operations each, 2 to 5 us): degenerate heads (the braid and resonance arrangements,
    small-integer heads) have far fewer regions than the bound and are counted; the rest
    are refused when the budget runs out.

    Raises
    ------
    TooLarge
        The exact count needs more than ``limit`` nodes of search.

    Examples
    --------
    >>> braid = [[1 if i == a else -1 if i == b else 0 for i in range(6)]
    ...          for b in range(6) for a in range(b)]
    >>> count_or_refuse(braid, limit=1000)            # bound 5.6e5, exact count 6! = 720
    720
    """
    bound = region_upper_bound(W, bias=bias, ranking=ranking)
    if bound <= limit:
        return (count_rankings if ranking else count_regions)(W, bias=bias)
    budget = min(limit, CHEAP_COUNT_WORK) if work is None else work
    M, b = _exact_input(W, bias)
    n = None
    if bound > HOPELESS_FACTOR * limit:
        pass
    elif ranking:
        from logitgeom.exact import lattice
        from logitgeom.geometry.patterns import arrangement_rows

        vecs, d, affine = lattice.label_vectors(M, b)
        try:  # the ranking formula (its own small budget), else the search below
            n = abs(evaluate(lattice.chi_rankings(vecs, d, affine), -1))
        except lattice.TooManyPartitions:
            rows = arrangement_rows("ranking", M, b)
            r = count_regions_within(rows, max_work=budget)
            n = None if r is None else (r // 2 if b is not None else r)
    else:
        n = count_regions_within(M, bias=b, max_work=budget)
    if n is None:
        kind = "rankings" if ranking else "sign patterns"
        raise TooLarge(
            f"this {len(M)} x {len(M[0])} head may have up to {bound:,} {kind} (the "
            f"general-position bound), above the limit {limit:,}, and its exact count needs "
            f"more than {budget:,} steps of exact search; raise {what} to at least "
            f"{bound:,} to try anyway, or use a smaller head (see docs/limits.md)")
    return n
