"""Shared never-proofs: clustered never labels proven together on one support (issue 44).

Under-trained tokens come in clusters: many labels k whose rows ``w_k`` lie in the interior
of the hull of the same d + 1 other rows S.  Once one of them has a never-proof in the
domain "all" whose support S has the full d + 1 rows, every other label with
``w_k = sum_{i in S} lambda_i w_i``, ``sum lambda_i = 1``, ``lambda > 0`` is never the strict
argmax, with Gordan multipliers ``lambda`` made integer.  Each such label asks for a solve
of the same square matrix ``A_S = [W_S^T; 1 ... 1]``, so they share one exact factorisation:

* **float prefilter** (:meth:`SupportPool.candidates`): one float LU factorisation of
  ``A_S`` per support, many right-hand sides ``[w_k; 1]``; a label is a candidate when
  every float ``lambda_i`` is clearly positive.  Floats only choose candidates, never decide;
* **one exact solve** (:func:`prove_batch`): the candidates of a support in one
  :func:`logitgeom.exact.dixon.solve_columns` call (W_S and every w_k over one common
  denominator, a power of two for binary heads; the ones row unscaled), at most
  :attr:`Options.shared_columns` columns per call (fewer when a column's estimated size
  says so: at d = 4,096 one column is about 4,097 integers of tens of thousands of digits);
* **exact check**: each column made primitive and accepted only if
  :func:`logitgeom.audit.proofs.check_multipliers` accepts it; the record is the usual
  never record (rows: the support), with stage ``"shared"``.

A batch runs in one bounded child (:func:`run_batch`, :func:`logitgeom.audit.bounded.run_bounded`)
with the budget ``label_seconds`` times the number of its labels; what it proved before a
kill is kept, the rest go the one-label path.  Ctrl-C stops it as it stops a label.

Scope: heads without a bias, domain "all" (a never-proof in "all" of a homogeneous head
also closes the box domain, so the box verdict copies it).  With a bias, or when only the
box domain is audited, nothing is shared (:func:`applies`): those proofs need the bias row
or the box's slack, and the labels go the one-label path.

Examples
--------
>>> import numpy as np
>>> from logitgeom.audit.head import HeadSpec, open_head
>>> W = np.array([[4.0, 0.0], [-2.0, 3.0], [-2.0, -3.0], [0.5, 0.25], [0.25, -0.5]])
>>> h = open_head(HeadSpec.from_array(W))
>>> pool = SupportPool()
>>> s = pool.add(h, [0, 1, 2])
>>> [(sup.rows, labs) for sup, labs in pool.candidates(h, [3, 4])]
[((0, 1, 2), [3, 4])]
>>> recs = prove_batch(h, s.rows, [3, 4], Options(), {})
>>> [(k, r["stage"], r["rows"]) for k, r in sorted(recs.items())]
[(3, 'shared', [0, 1, 2]), (4, 'shared', [0, 1, 2])]
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass

import numpy as np

from logitgeom.audit.bounded import ChildDied, note_partial, note_stage, run_bounded
from logitgeom.audit.head import Head
from logitgeom.audit.proofs import Options, _never, check_multipliers, exact_rows_int

__all__ = ["applies", "full_support", "SupportPool", "prove_batch", "run_batch",
           "column_cap", "prove_candidates", "worker_pool", "cluster_supports",
           "supports_after", "shared_record", "columns_option", "outside_simplex"]

#: A float lambda_i is "clearly positive" above this (the lambdas sum to 1).
_CLEAR = 1e-9
#: Labels per float right-hand-side block of the prefilter.
_RHS_CHUNK = 1024
#: Wall-clock limit (s) of one float LP of the support search (it runs in the parent, outside
#: any label's budget; HiGHS may use two threads); past it the search gives up on that
#: cluster.
LP_SECONDS = 60.0
#: The Delaunay LP's dual simplex iterations times its matrix's entries, at most (a float
#: proposal's budget, deterministic).  On the cluster benchmark's 4 (d + 2) nearest rows
#: the LP ended after 830 iterations at d = 256 (a fifth of this limit there), and ran about
#: 2,000 iterations at d = 512 and 1,024 (15 and 35 CPU s) to find no support; corrected
#: proofs take the labels a search does not hold.
LP_WORK = 10**9
#: The support search runs an LP only for at least this many labels of a cluster not yet
#: held, and keeps a support only if it holds that many: one LP costs about as much as
#: proving a few labels alone (3 CPU s at d = 384, where a label alone takes 1.2).
MIN_GROUP = 4
#: The exact solution of one batch is kept under about this many bytes (column cap).
SOLUTION_BYTES = 1 << 30


def applies(head: Head, opts: Options) -> bool:
    """Whether shared proofs are tried: the option is on, the head has no bias and the
    domain "all" is audited.

    Examples
    --------
    >>> import numpy as np
    >>> from logitgeom.audit.head import HeadSpec, open_head
    >>> h = open_head(HeadSpec.from_array(np.eye(2)))
    >>> applies(h, Options(shared_supports=True)), applies(h, Options())
    (True, False)
    """
    return bool(opts.shared_supports) and head.bias is None and "all" in opts.domains


def full_support(head: Head, rec: dict | None) -> tuple[int, ...] | None:
    """The support of a never record in the domain "all" when it has the full d + 1 rows
    (the square systems that can be shared), else None.

    Examples
    --------
    >>> import numpy as np
    >>> from logitgeom.audit.head import HeadSpec, open_head
    >>> h = open_head(HeadSpec.from_array(np.eye(2)))
    >>> full_support(h, {"verdict": "never", "rows": [0, 1, 3]})
    (0, 1, 3)
    >>> full_support(h, {"verdict": "never", "rows": [0, 1]}) is None
    True
    """
    if rec is None or rec.get("verdict") != "never" or len(rec.get("rows", ())) != head.d + 1:
        return None
    return tuple(int(i) for i in rec["rows"])


@dataclass
class Support:
    """A shared support: its rows and the float LU factorisation of ``A_S`` (rows scaled by
    ``scale``, a power of two)."""

    rows: tuple[int, ...]
    lu: tuple
    scale: float


class SupportPool:
    """The recent full supports of never-proofs (at most ``cap``, newest first).

    Parameters
    ----------
    cap : int
        How many supports are kept (the oldest is dropped).
    """

    def __init__(self, cap: int = 16):
        self.cap = cap
        self.items: list[Support] = []
        #: labels whose cluster was searched for supports (:func:`cluster_supports`)
        self.searched: set[int] = set()

    def add(self, head: Head, rows) -> Support | None:
        """Factor ``A_S`` in floats and keep it; None when it is already kept or its float
        factorisation is singular or not finite."""
        import scipy.linalg as sla

        rows = tuple(sorted(int(i) for i in rows))
        if len(rows) != head.d + 1 or any(s.rows == rows for s in self.items):
            return None
        s = head.scale()
        A = np.vstack([head.rows(list(rows)).T * s, np.ones((1, len(rows)))])
        if not np.all(np.isfinite(A)):
            return None
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                lu = sla.lu_factor(A, check_finite=False)
        except (ValueError, np.linalg.LinAlgError):
            return None
        if not np.all(np.isfinite(lu[0])) or np.any(np.diag(lu[0]) == 0):
            return None
        sup = Support(rows, lu, s)
        self.items.insert(0, sup)
        del self.items[self.cap:]
        return sup

    def candidates(self, head: Head, labels, only: Support | None = None
                   ) -> list[tuple[Support, list[int]]]:
        """For each kept support (or only ``only``), the labels whose float
        ``lambda = A_S^{-1} [w_k; 1]`` is clearly positive (each label goes to the first,
        newest, support that takes it; labels of a support's own rows never).  A choice of
        candidates, not a decision."""
        import scipy.linalg as sla

        left = [int(k) for k in labels]
        out = []
        for sup in ([only] if only is not None else self.items):
            if not left:
                break
            own = set(sup.rows)
            todo = [k for k in left if k not in own]
            took: list[int] = []
            for c0 in range(0, len(todo), _RHS_CHUNK):
                part = todo[c0:c0 + _RHS_CHUNK]
                B = np.vstack([head.rows(part).T * sup.scale, np.ones((1, len(part)))])
                with np.errstate(all="ignore"):
                    L = sla.lu_solve(sup.lu, B, check_finite=False)
                ok = np.all(np.isfinite(L), axis=0) & np.all(L > _CLEAR, axis=0)
                took.extend(k for k, y in zip(part, ok.tolist(), strict=True) if y)
            if took:
                out.append((sup, took))
                taken = set(took)
                left = [k for k in left if k not in taken]
        return out


def column_cap(head: Head, rows, opts: Options) -> int:
    """Columns per exact solve: :attr:`Options.shared_columns`, fewer when one solution
    column (d + 1 integers of about Hadamard's bound of ``A_S`` in bits) would make the
    batch's solution exceed :data:`SOLUTION_BYTES`.

    Examples
    --------
    >>> import numpy as np
    >>> from logitgeom.audit.head import HeadSpec, open_head
    >>> h = open_head(HeadSpec.from_array(np.eye(2)))
    >>> column_cap(h, [0, 1], Options(shared_columns=8))
    8
    """
    norms = head.norms()[list(rows)]
    s = head.scale()
    bits = 0.0
    for v in norms.tolist():  # Hadamard: sum of log2 of the column norms (with the ones row)
        bits += 0.5 * math.log2(1.0 + (v * s) ** 2) + 53.0  # 53: a float's own bits
    col_bytes = (head.d + 1) * (bits / 8.0 + 32.0)
    return max(1, min(int(opts.shared_columns), int(SOLUTION_BYTES // max(col_bytes, 1.0))))


def prove_batch(head: Head, rows, labels, opts: Options, stats: dict) -> dict[int, dict]:
    """Never records (stage ``"shared"``) for the labels proven on the support ``rows`` by
    one exact :func:`logitgeom.exact.dixon.solve_columns` call; labels it does not prove are
    left out.  Each accepted record is also handed to a waiting parent at once
    (:func:`logitgeom.audit.bounded.note_partial`).

    Parameters
    ----------
    head : Head
        A head without a bias.
    rows : sequence of int
        The support S (d + 1 rows).
    labels : sequence of int
        Candidate labels (not in S).
    opts : Options
    stats : dict
        Stage seconds, updated: ``shared_solve`` (building and solving the exact system)
        and ``shared_check`` (the exact checks).

    Returns
    -------
    dict
        ``{label: never record}`` of the labels proven.
    """
    from logitgeom.exact.dixon import solve_columns

    S = [int(i) for i in rows]
    labels = [int(k) for k in labels if int(k) not in set(S)]
    if not labels or head.bias is not None:
        return {}
    n, d = len(S), head.d
    note_stage("shared")
    t0 = time.process_time()
    R, _, _, _ = exact_rows_int(head, [*S, *labels])  # one common denominator for all
    A = [[R[i][j] for i in range(n)] for j in range(d)]
    A.append([1] * n)
    B = [[*R[n + t], 1] for t in range(len(labels))]
    del R
    sol = solve_columns(A, B) if len(A) == n else None
    del A, B
    stats["shared_solve"] = stats.get("shared_solve", 0.0) + time.process_time() - t0
    if sol is None:
        return {}
    N, _den = sol  # lambda = N_t / den, den > 0
    out: dict[int, dict] = {}
    t0 = time.process_time()
    for t, k in enumerate(labels):
        col, N[t] = N[t], []  # free each column once used
        if any(v < 0 for v in col):
            continue
        pos = [(i, v) for i, v in zip(S, col, strict=True) if v > 0]
        if not pos:
            continue
        g = math.gcd(*(v for _, v in pos))
        rk = [i for i, _ in pos]
        c = [v // g for _, v in pos]
        if check_multipliers(head, k, rk, c, None):
            rec = _never(rk, c, "shared")
            out[k] = rec
            note_partial((k, rec))
    stats["shared_check"] = stats.get("shared_check", 0.0) + time.process_time() - t0
    return out


def _batch_child(head: Head, rows, labels, opts: Options, pool=None
                 ) -> tuple[dict[int, dict], dict]:  # pragma: no cover - in the child
    stats: dict = {}
    if pool is None:
        return prove_batch(head, rows, labels, opts, stats), stats
    from logitgeom.audit.corrected import prove_corrected

    return prove_corrected(head, rows, labels, pool, opts, stats), stats


def run_batch(head: Head, rows, labels, opts: Options, stats: dict, pool=None
              ) -> tuple[dict[int, dict], float]:
    """:func:`prove_batch` (or, given the float LP's ``pool`` of rows,
    :func:`logitgeom.audit.corrected.prove_corrected` on the simplex ``rows``) in one
    bounded child (budget ``label_seconds`` times the number
    of labels when :attr:`Options.label_seconds` is set; Ctrl-C stops it and propagates).

    Returns
    -------
    (dict, float)
        The never records proven (on a kill, those the child finished before it) and the
        child's CPU seconds.  The child's stage seconds are added to ``stats``, with
        ``shared`` (the batch's CPU), ``shared_batches``, ``shared_labels`` (proven) and, when
        the budget stopped a batch, ``shared_stopped``; a child that died otherwise (out
        of memory) proves nothing here (``shared_died``): its labels go the one-label path.
    """
    labels = [int(k) for k in labels]
    budget = None if opts.label_seconds is None else float(opts.label_seconds) * len(labels)
    partials: list = []
    stats["shared_batches"] = stats.get("shared_batches", 0) + 1
    try:
        kind, val, cpu = run_bounded(_batch_child, (head, tuple(rows), labels, opts, pool),
                                     budget, partials)
    except ChildDied:
        stats["shared_died"] = stats.get("shared_died", 0) + 1
        return {}, 0.0
    if kind == "ok":
        out, st = val
        for key, v in st.items():
            stats[key] = stats.get(key, 0) + v
    else:
        out = dict(partials)
        stats["shared_stopped"] = stats.get("shared_stopped", 0) + 1
    stats["shared"] = stats.get("shared", 0.0) + cpu
    stats["shared_labels"] = stats.get("shared_labels", 0) + len(out)
    return out, cpu


def prove_candidates(head: Head, pool: SupportPool, labels, opts: Options, stats: dict,
                     only: Support | None = None) -> tuple[dict[int, dict], dict[int, float]]:
    """The float prefilter of ``labels`` against the pool's supports (or ``only``), then
    :func:`run_batch` on each support's candidates, at most :func:`column_cap` per batch.

    Returns
    -------
    (dict, dict)
        ``{label: never record}`` of the labels proven, and ``{label: CPU seconds}`` for
        every label that was in a batch (the batch's CPU split evenly over its labels).
        Stage seconds: ``shared_prefilter`` here, the others as :func:`run_batch`.
    """
    t0 = time.process_time()
    groups = pool.candidates(head, labels, only)
    stats["shared_prefilter"] = stats.get("shared_prefilter", 0.0) + time.process_time() - t0
    recs: dict[int, dict] = {}
    cpu: dict[int, float] = {}
    for sup, labs in groups:
        cap = column_cap(head, sup.rows, opts)
        for c0 in range(0, len(labs), cap):
            part = labs[c0:c0 + cap]
            got, c = run_batch(head, sup.rows, part, opts, stats)
            recs.update(got)
            for k in part:
                cpu[k] = cpu.get(k, 0.0) + c / len(part)
    return recs, cpu


#: This process's pool of recent supports: (the head's spec, pool), across blocks.
_WORKER: list = []


def worker_pool(spec) -> SupportPool:
    """The pool of recent supports of this process for the head ``spec`` (a new, empty pool
    when the last blocks this process decided were of another head)."""
    if not _WORKER or _WORKER[0] != spec:
        _WORKER[:] = [spec, SupportPool()]
    return _WORKER[1]


def _outside_pool(head: Head, k: int, bad: np.ndarray) -> np.ndarray:
    """Rows outside ``bad`` for the support search: every such row of a small head, else the
    8 (d + 2) with the smallest float margins at x = w_k (the rows that hold w_k in)."""
    d = head.d
    idx = np.flatnonzero(~bad)
    if idx.size <= 8 * (d + 2):
        return idx
    s = head.propose_matvec(head.rows([k])[0] * head.scale())
    m = np.where(np.isfinite(s), s[k] - s, -np.inf)
    m[bad] = np.inf
    order = np.argsort(m, kind="stable")
    return np.sort(order[~bad[order]][:8 * (d + 2)])


def _lp_support(P: np.ndarray, t: np.ndarray) -> tuple[np.ndarray | None, bool]:
    """Indices of d + 1 rows of P (n x d, scaled) whose hull holds t: a basic solution of
    ``min sum_i h_i lambda_i, P^T lambda = t, sum lambda = 1, lambda >= 0`` with the heights
    h_i = ||p_i - t||^2 (the simplex of t in the Delaunay triangulation of the rows: fatter
    than a minimum-norm corral, so it holds more of a cluster around t), by HiGHS' dual
    simplex in floats; (None, infeasible) when it finds none, ``infeasible`` True when the
    rows do not hold t (False: the time or iteration limit or another failure)."""
    from scipy.optimize import linprog

    d = P.shape[1]
    h = np.einsum("ij,ij->i", P - t, P - t)
    A = np.vstack([P.T, np.ones((1, P.shape[0]))])
    iters = max(100, LP_WORK // max(1, P.size))  # deterministic, unlike the time limit
    try:
        r = linprog(h / max(float(h.max()), 1e-300), A_eq=A, b_eq=np.r_[t, 1.0],
                    bounds=(0, None), method="highs-ds",
                    options={"time_limit": LP_SECONDS, "maxiter": iters})
    except ValueError:
        return None, False
    if r.status != 0 or r.x is None:
        return None, r.status == 2
    S = np.flatnonzero(r.x > 0)
    return (S, False) if S.size == d + 1 else (None, False)


def outside_simplex(head: Head, k: int, exclude) -> tuple[int, ...] | None:
    """The d + 1 rows nearest w_k (Euclidean, in floats: a choice, never a decision) outside
    ``exclude`` and k, or None when there are fewer.  A shared simplex for corrected proofs
    (:mod:`logitgeom.audit.corrected`), which need no simplex that holds w_k: only one whose
    centre is near the labels (so that each keeps a share on it) and whose matrix is
    non-singular (the exact factorisation decides that).

    Examples
    --------
    >>> import numpy as np
    >>> from logitgeom.audit.head import HeadSpec, open_head
    >>> W = np.array([[4.0, 0.0], [-2.0, 3.0], [-2.0, -3.0], [0.5, 0.25], [0.25, -0.5]])
    >>> outside_simplex(open_head(HeadSpec.from_array(W)), 3, {4})
    (0, 1, 2)
    """
    bad = np.zeros(head.k, dtype=bool)
    bad[sorted({int(j) for j in exclude} | {int(k)})] = True
    if head.k - int(bad.sum()) < head.d + 1:
        return None
    s = head.scale()
    wk = head.rows([k])[0] * s
    d2 = (head.norms() * s) ** 2 - 2.0 * s * head.propose_matvec(wk)  # + ||s w_k||^2
    d2 = np.where(np.isfinite(d2) & ~bad, d2, np.inf)
    near = np.argsort(d2, kind="stable")[:head.d + 1]
    return None if not np.all(np.isfinite(d2[near])) else tuple(sorted(int(i) for i in near))


def cluster_supports(head: Head, k: int, rows, open_labels, exclude=(), covered=None,
                     searched: set | None = None, most: int = 4):
    """Supports for the cluster of label k (just proven never on the d + 1 ``rows``), proposed
    in floats: ``rows`` themselves, then supports of rows outside the open labels from the
    Delaunay LP (:func:`_lp_support`, on the 4 (d + 2) rows nearest the target, or on all
    when those do not hold it) for the centroid of the cluster's labels that no support so
    far (nor ``covered(labels)``, the labels a pool's supports already hold) seems to hold,
    then for one of those left, at most ``most`` in all, while at least :data:`MIN_GROUP`
    labels are left and each support holds at least that many of them.  Labels in
    ``searched`` (a set, updated) took part in a search before and are not searched again.

    The supports' rows are outside the open labels and ``exclude`` (the run's hard labels:
    rows inside the hull make thin simplices); the cluster is k and the open labels nearer to
    w_k than half the distance from w_k to the nearest of those rows.  A label's own
    never-proof usually rests on the rows of its cluster (its nearest rows), which hold the
    other labels of the cluster outside;
    Wolfe's corral for a point has weights down to 1e-7 and holds almost none of a cluster of
    1e-3 relative noise at d = 256.  Floats only propose: each label is proven on a support by
    the exact solve and check.

    Examples
    --------
    >>> import numpy as np
    >>> from logitgeom.audit.head import HeadSpec, open_head
    >>> W = np.array([[4.0, 0.0], [-2.0, 3.0], [-2.0, -3.0], [0.5, 0.25], [0.5, 0.3],
    ...               [0.45, 0.25], [0.5, 0.2], [0.55, 0.25]])
    >>> h = open_head(HeadSpec.from_array(W))
    >>> list(cluster_supports(h, 3, (0, 1, 4), [4, 5, 6, 7]))
    [(0, 1, 4), (0, 1, 2)]
    >>> list(cluster_supports(h, 3, (0, 1, 4), [4, 5]))  # too few left for an LP
    [(0, 1, 4)]
    """
    import scipy.linalg as sla

    d = head.d
    rows = tuple(int(i) for i in rows)
    yield rows
    open_set = {int(j) for j in open_labels} - {k}
    if not open_set or most <= 0:
        return
    bad = np.zeros(head.k, dtype=bool)
    bad[sorted(open_set | {int(j) for j in exclude})] = True
    bad[k] = True
    sW = head.scale()
    wk = head.rows([k])[0] * sW
    opens = sorted(open_set)
    X = head.rows(opens) * sW
    dist = np.sqrt(np.einsum("ij,ij->i", X - wk, X - wk))
    own = [i for i in rows if not bad[i]]  # a bound on r_k below, without a pass over the head
    if own:
        R = head.rows(own) * sW
        r_own = float(np.sqrt(np.min(np.einsum("ij,ij->i", R - wk, R - wk))))
        if 1 + int(np.sum(dist < r_own / 2)) < MIN_GROUP:
            return
    pool = _outside_pool(head, k, bad)
    if pool.size < d + 1:
        return
    P = head.rows(pool) * sW
    r_k = float(np.sqrt(np.min(np.einsum("ij,ij->i", P - wk, P - wk))))
    near = dist < r_k / 2
    members = np.vstack([wk[None, :], X[near]])
    labels = [k, *(j for j, y in zip(opens, near.tolist(), strict=True) if y)]
    held = set(covered(labels)) if covered is not None else set()
    if searched is not None:  # a cluster's search is not repeated for its labels
        held |= searched
    uncovered = np.array([j not in held for j in labels], dtype=bool)

    def covered_by(idx) -> np.ndarray:
        if len(idx) != d + 1:
            return np.zeros(len(members), dtype=bool)
        A = np.vstack([(head.rows(list(idx)) * sW).T, np.ones((1, d + 1))])
        B = np.vstack([members.T, np.ones((1, len(members)))])
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                L = sla.solve(A, B, check_finite=False)
            except (ValueError, np.linalg.LinAlgError):
                return np.zeros(len(members), dtype=bool)
        return np.all(np.isfinite(L), axis=0) & np.all(L > _CLEAR, axis=0)

    uncovered &= ~covered_by(rows)
    if uncovered.sum() < MIN_GROUP:
        return
    target = members[uncovered].mean(axis=0)
    if searched is not None:
        searched.update(j for j, u in zip(labels, uncovered.tolist(), strict=True) if u)
    for _ in range(most):
        if uncovered.sum() < MIN_GROUP:
            return
        near_t = np.argsort(np.einsum("ij,ij->i", P - target, P - target), kind="stable")
        near_t = np.sort(near_t[:4 * (d + 2)])
        S, infeasible = _lp_support(P[near_t], target)
        if S is not None:
            S = near_t[S]
        elif infeasible and near_t.size < len(P):  # the nearest rows do not hold it: all
            S, _ = _lp_support(P, target)
        if S is None:
            return
        sup = tuple(sorted(int(pool[i]) for i in S))
        got = covered_by(sup)
        if (got & uncovered).sum() < MIN_GROUP:
            return
        uncovered &= ~got
        yield sup
        target = members[int(np.flatnonzero(uncovered)[0])] if uncovered.any() else target


def supports_after(head: Head, k: int, rows, open_labels, exclude=(), pool=None,
                   most: int = 4):
    """The supports to share after label k was proven never on the d + 1 ``rows``
    (:func:`cluster_supports`, skipping the labels the supports of ``pool`` seem to hold, at
    most ``most`` searched for; 0: ``rows`` alone), proposed lazily.

    Examples
    --------
    >>> import numpy as np
    >>> from logitgeom.audit.head import HeadSpec, open_head
    >>> h = open_head(HeadSpec.from_array(np.eye(2)))
    >>> list(supports_after(h, 2, (0, 1, 3), []))
    [(0, 1, 3)]
    """
    def covered(labels):
        return [] if pool is None else [j for _, js in pool.candidates(head, labels) for j in js]

    return cluster_supports(head, k, rows, open_labels, exclude, covered,
                            None if pool is None else pool.searched, most)


def shared_record(rec: dict, never: dict, doms) -> dict:
    """A label's record with a shared never-proof in "all" (and, for a head without a bias,
    the same proof closing the box domain: v = 0 and a zero bias sum).

    Examples
    --------
    >>> shared_record({"label": 3}, {"verdict": "never"}, ["all", "box"])["box"]
    {'verdict': 'never'}
    """
    out = dict(rec)
    out["all"] = never
    if "box" in doms:
        out["box"] = dict(never)
    return out


def columns_option(value) -> int:
    """:attr:`Options.shared_columns` as given by a user, checked: a positive integer.

    Examples
    --------
    >>> columns_option(16)
    16
    """
    from logitgeom.errors import InvalidInput

    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise InvalidInput(f"shared_columns must be a positive integer; got {value!r}")
    return int(value)
