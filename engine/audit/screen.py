"""The screens of the argmax audit: one blocked product decides the ordinary labels.

For a block of labels K the screen computes ``S = W X`` with ``X = [w_k]_(k in K)`` (one
float64 matrix product, docs/argmax-audit.md section 2, step 1) and proposes, per label,
the witness x = t w_k.  Every margin at every proposal is then compared with the rigorous
rounding-error bound of section 3 *for the whole block at once* (the same float
expressions as :func:`logitgeom.audit.proofs.violations`, one array operation per block
instead of one per label): a label all of whose margins exceed their bound is proven
``argmaxable`` without any exact work; only the labels the bound does not settle go
through :func:`logitgeom.audit.proofs.confirm_witness` (clearly negative margins reject the
proposal, ambiguous ones are decided in rational arithmetic).

The scale t of x = t w_k:

* no bias: t = 1 (the margins are t (w_k - w_i) . w_k, the sign does not depend on t);
* a bias, every g_i = (w_k - w_i) . w_k > 0: the smallest power of two with
  t g_i + (b_k - b_i) > 0 for all i (twice the largest -db_i / g_i, rounded up);
* otherwise (a bias, some g_i <= 0), and in the box domain when a bias makes the label
  non-homogeneous: the margins t g_i + db_i are linear in t, so the t that make them all
  positive form an interval (lo, hi) (intersected with (0, R / max_j |w_kj|] in the box),
  computed in floats; a dyadic t inside it with at most 20 significant bits (so that
  t w_k is exact in float64 for heads whose entries have at most 33 significant bits, as
  float32, float16 and bfloat16 heads have; checked) is proposed and decided as above.

On a head whose entries are float32 values (float32, float16, bfloat16), the proposals x =
sW w_k (with a bias: those with t = 1) are first tried in float32 arithmetic
(:func:`_row_screen32`: one sgemm per block, 2 to 3 times cheaper than the float64 product):
a label is decided there only when every margin clears the float32 bound
(docs/filtered-arithmetic.md, Lemma 5) plus twice the float64 one, so the float64 pass would
decide it identically; the rest go through the float64 product as before (``FLOAT32_SCREEN =
False`` skips the float32 pass).

Labels the screen does not decide are the hard ones; the number of rows violating the
proposal x = w_k is their expected cost (deeper inside the hull: more violated rows), by
which the run hands them to workers, hardest first.

Examples
--------
>>> import numpy as np
>>> from logitgeom.audit.head import HeadSpec, open_head
>>> from logitgeom.audit.proofs import Options
>>> h = open_head(HeadSpec.from_array(np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0],
...                                              [0.0, 0.25]])))
>>> s = screen_block(h, (0, 1, 2, 3), Options())
>>> sorted(s.pending), s.cost
([3], {3: 1})
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from logitgeom.audit.head import CHUNK_BYTES, Head
from logitgeom.audit.proofs import (
    Options,
    _in_box,
    _never,
    _witness_record,
    check_multipliers,
    confirm_witness,
    rounding_bound,
)
from logitgeom.exact.filtered import (
    MAX_TERMS,
    UNDERFLOW_SLACK,
    UNDERFLOW_SLACK32,
    margin_factor32,
    norm_bounds,
    scaled_norms,
)

__all__ = ["Screened", "screen_block", "columns_proven", "scale_interval"]

#: Columns of the block product handled at once by the vectorised bound (temporaries of
#: rows x this many float64 numbers: 6.4 MB each at 50,257 rows; element-wise, so the
#: width changes no bit).
_COLS = 16
#: Significant bits of a non-power-of-two scale t (t w_k stays exact in float64 for rows
#: with at most 53 - 20 = 33 significant bits).
_T_BITS = 20
#: The float32 first pass of the row screen (:func:`_row_screen32`); False runs every label
#: through the float64 pass alone (the tests compare the two).
FLOAT32_SCREEN = True
#: A column decided in float32 gets its margin figure from float64 dot products of the rows
#: that can be its minimum; a column with more such rows than this goes to the float64 pass.
_FIG_ROWS = 64


@dataclass
class Screened:
    """What the screens decided for a block.

    Attributes
    ----------
    out : dict
        ``{label: record}``, with the domains the screens decided.
    pending : dict
        ``{label: set of domains}`` still open (the hard labels).
    margins : dict
        ``{label: float}``, the table's margin figure for the labels decided here.
    cost : dict
        ``{label: int}`` expected cost of each pending label (rows violated at x = w_k).
    stats : dict
        CPU seconds (``twins``, ``screen``, and ``screen32`` of it for the float32 pass),
        ``exact_pairs`` and ``screen32_labels`` (labels the float32 pass decided).
    """

    out: dict
    pending: dict
    margins: dict = field(default_factory=dict)
    cost: dict = field(default_factory=dict)
    stats: dict = field(default_factory=dict)


# ------------------------------------------------------------------------ scales
def _pow2_at_least(v: float) -> float:
    if v <= 1.0:
        return 1.0
    return 2.0 ** math.ceil(math.log2(v))


def _scale_for(g: np.ndarray, db: np.ndarray | None) -> float | None:
    """A power of two t with t g_i + db_i > 0 for all i (float proposal), or None."""
    if not np.all(g > 0):
        return None
    if db is None:
        return 1.0
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        need = np.max(-db / g)
    if not np.isfinite(need) or need > 2.0**900:
        return None
    return _pow2_at_least(2.0 * need) if need > 0 else 1.0


def _short(t: float) -> float:
    """t rounded to :data:`_T_BITS` significant bits (a dyadic: exact products with short
    rows)."""
    m, e = math.frexp(t)
    return math.ldexp(round(math.ldexp(m, _T_BITS)), e - _T_BITS)


def scale_interval(g: np.ndarray, db: np.ndarray, tmax: float = math.inf) -> float | None:
    """A scale t in (0, tmax] with t g_i + db_i > 0 for every i, proposed in floats: the
    margins are linear in t, so such t form an interval (lo, hi); returns a power of two
    inside it when there is one, else a dyadic with at most 20 significant bits near its
    middle, else None.  ``g[k]`` is expected to be +inf (the label itself).  A proposal
    only: the caller decides every margin at the resulting witness exactly.

    Parameters
    ----------
    g : numpy.ndarray
        (w_k - w_i) . w_k (float values).
    db : numpy.ndarray
        b_k - b_i.
    tmax : float
        Largest allowed t (the box domain).

    Returns
    -------
    float or None

    Examples
    --------
    >>> scale_interval(np.array([np.inf, -1.0, 2.0]), np.array([0.0, 3.0, -1.0]))
    1.0
    >>> scale_interval(np.array([np.inf, -1.0]), np.array([0.0, -1.0])) is None
    True
    """
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        if np.any((g == 0) & ~(db > 0)) or not np.all(np.isfinite(db)):
            return None
        pos, neg = g > 0, g < 0
        lo = max(0.0, float(np.max(-db[pos] / g[pos]))) if np.any(pos) else 0.0
        hi = float(np.min(db[neg] / -g[neg])) if np.any(neg) else math.inf
    hi = min(hi, tmax)
    if not (np.isfinite(lo) and lo < hi) or hi <= 0 or not hi > lo * (1 + 2.0**-30):
        return None
    if hi == math.inf:
        return _pow2_at_least(2.0 * lo) if lo > 0 else 1.0
    if hi > 2.0**900 or hi < 2.0**-900:
        return None
    p = 2.0 ** math.floor(math.log2(hi))  # the largest power of two <= hi
    if p == hi:
        p /= 2
    if p > lo:
        # the power of two nearest the interval's geometric middle
        q = 2.0 ** round(math.log2(math.sqrt(hi * max(lo, hi * 2.0**-60))))
        return q if lo < q < hi else p
    t = _short(0.5 * (lo + hi))
    return t if lo < t < hi else None


def _exact_scaled(x: np.ndarray, t: float) -> np.ndarray | None:
    """t x when every product is exact in float64 (checked on the significant bits), or
    None."""
    if t == 2.0 ** math.frexp(t)[1] / 2:  # a power of two
        y = x * t
        return y if np.all(np.isfinite(y)) and np.array_equal(y / t, x) else None
    m = np.frexp(x)[0]
    ints = np.ldexp(m, 53).astype(np.int64)
    if np.any(ints & ((1 << _T_BITS) - 1)):
        return None  # more than 33 significant bits somewhere
    y = x * t
    return y if np.all(np.isfinite(y)) and np.all((np.abs(y) >= 2.0**-1000) | (x == 0)) \
        else None


# ------------------------------------------------------------------------ proofs
def columns_proven(head: Head, ks: np.ndarray, X: np.ndarray, S: np.ndarray) -> np.ndarray:
    """For each column j: whether every margin of label ks[j] at x = X[:, j] is proven
    positive by the float value against the rigorous bound alone (docs/argmax-audit.md
    section 3; the float expressions of :func:`logitgeom.audit.proofs.violations`, vectorised).
    ``S`` must be ``fl(W X)`` (float64).  False means "not proven here" (the caller
    decides exactly), never "not a witness".

    Parameters
    ----------
    head : Head
    ks : numpy.ndarray
        Labels (int), one per column.
    X : numpy.ndarray
        d x m candidate witnesses.
    S : numpy.ndarray
        k x m, ``fl(W X)``.

    Returns
    -------
    numpy.ndarray of bool

    Examples
    --------
    >>> from logitgeom.audit.head import HeadSpec, open_head
    >>> h = open_head(HeadSpec.from_array(np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])))
    >>> X = np.array([[1.0, 0.5], [0.0, 0.5]])
    >>> columns_proven(h, np.array([0, 2]), X, h.matmul(X)).tolist()
    [True, False]
    """
    ks = np.asarray(ks, dtype=np.int64)
    m = len(ks)
    out = np.zeros(m, dtype=bool)
    if m == 0:
        return out
    d = head.d
    fin = np.all(np.isfinite(X), axis=0) & np.all(np.isfinite(S), axis=0)
    nx = norm_bounds(np.where(np.isfinite(X), X, 0.0), axis=0)
    nrm = head.norms()
    b = head.bias if head.bias is not None else np.zeros(head.k)
    g = rounding_bound(d + (0 if head.binary else 1))
    ab = np.abs(b)
    for c0 in range(0, m, _COLS):
        c1 = min(m, c0 + _COLS)
        cols = np.arange(c1 - c0)
        kk = ks[c0:c1]
        Sb = S[:, c0:c1]
        with np.errstate(all="ignore"):
            top = Sb[kk, cols] + b[kk]
            M = top[None, :] - (Sb + b[:, None])
            B = g * ((nrm[kk][None, :] + nrm[:, None]) * nx[None, c0:c1]
                     + ab[kk][None, :] + ab[:, None]) + UNDERFLOW_SLACK
            ok = M > B
        ok[kk, cols] = True
        out[c0:c1] = np.all(ok, axis=0) & fin[c0:c1]
    return out


def _decide_columns(head: Head, ks: list[int], X: np.ndarray, S: np.ndarray,
                    stats: dict) -> list[bool]:
    """Exact decision for each column: the vectorised bound, then
    :func:`confirm_witness` for the columns it does not settle."""
    quick = columns_proven(head, np.asarray(ks, dtype=np.int64), X, S)
    res = quick.tolist()
    for j in np.flatnonzero(~quick).tolist():
        x = X[:, j]
        if np.all(np.isfinite(x)) and np.all(np.isfinite(S[:, j])):
            res[j] = confirm_witness(head, ks[j], x, s=S[:, j], stats=stats)
    return res


# ------------------------------------------------------------------------ the screens
def _fit_box(x: np.ndarray, radius: Fraction | None, homogeneous: bool
             ) -> tuple[np.ndarray, float] | None:
    """(f x, f): x itself (f = 1) if inside the box; for a homogeneous head a power-of-two
    down-scaling f (exact in floats); None if neither."""
    if radius is None or _in_box(x, radius):  # (_in_box is True without a radius)
        return x, 1.0
    if not homogeneous:
        return None
    mx = float(np.max(np.abs(x)))
    e = math.ceil(math.log2(mx / float(radius))) + 1
    y = np.ldexp(x, -e)
    if _in_box(y, radius) and np.array_equal(np.ldexp(y, e), x):
        return y, 2.0**-e
    return None


def _bias_screen(head: Head, labels: tuple[int, ...]) -> set[int]:
    """Labels whose bias is strictly the largest: x = 0 is a witness (every margin is
    b_k - b_i > 0), whatever the rows; decided on the exact biases."""
    if head.bias is None:
        return set()
    k = int(np.argmax(head.bias))
    if k not in labels:
        return set()
    bk = head.exact_bias(k)
    if all(bk > head.exact_bias(i) for i in range(head.k) if i != k):
        return {k}
    return set()


def _zero_record(d: int) -> dict:
    return {"verdict": "argmaxable", "witness": {"x": ["0"] * d}, "stage": "bias"}


_TWIN_CACHE: dict = {}


def _twins(head: Head, ks: list[int]) -> dict[int, int]:
    """{k: j} for labels ``ks`` whose float row (and bias) equals that of another label j
    (the first such j, by row order): proposals only, each checked exactly by the caller."""
    cached = _TWIN_CACHE.get(head.spec)
    if cached is None:  # once per head and process, not once per block
        _TWIN_CACHE.clear()
        _TWIN_CACHE[head.spec] = cached = _twin_groups(head)
    first, inv, counts = cached
    out = {}
    for k in ks:
        j = int(first[inv[k]])
        if j == k and counts[inv[k]] > 1:  # k is its group's first: pair it with the next
            j = int(np.flatnonzero(inv == inv[k])[1])
        if j != k:
            out[k] = j
    return out


def _twin_groups(head: Head) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(first, inverse, counts) of the groups of rows with equal bytes (and equal biases),
    as ``np.unique`` over the rows gives them: grouped by a hash of each row's bytes (one
    pass over the head in chunks, no copy of it), every group of more than one row then
    verified row by row (a hash collision falls back to sorting the rows themselves).  The
    groups, hence the result, do not depend on the hash values."""
    keys = np.empty(head.k, dtype=np.int64)
    b = head.bias
    for r0, _, c in head.blocks(np.float64, CHUNK_BYTES):
        for i in range(len(c)):
            keys[r0 + i] = hash(c[i].tobytes()) if b is None else \
                hash((c[i].tobytes(), float(b[r0 + i])))
    _, first, inv = np.unique(keys, return_index=True, return_inverse=True)
    counts = np.bincount(inv)
    for g in np.flatnonzero(counts > 1).tolist():
        members = np.flatnonzero(inv == g)
        rows = head.rows(members)
        if np.all(rows == rows[0][None, :]) and (b is None or np.all(b[members] ==
                                                                   b[members[0]])):
            continue
        rows = head.rows(list(range(head.k)))  # a collision: compare the rows themselves
        key = np.ascontiguousarray(rows if b is None else np.column_stack([rows, b]))
        v = key.view(np.dtype((np.void, key.dtype.itemsize * key.shape[1]))).ravel()
        _, first, inv = np.unique(v, return_index=True, return_inverse=True)
        return first, inv, np.bincount(inv)
    return first, inv, counts


def _radius_f(radius: Fraction) -> float:
    r = float(radius)
    return float(np.nextafter(r, 0.0)) if Fraction(r) > radius else r


def screen_block(head: Head, labels: tuple[int, ...], opts: Options) -> Screened:
    """Run the screens on a block of labels (bias, twins, x = t w_k, x = t (w_k - c)).

    Parameters
    ----------
    head : Head
    labels : tuple of int
    opts : Options

    Returns
    -------
    Screened
        The decided domains and the pending (hard) labels with their expected cost.
    """
    stats: dict = {}
    labels = tuple(int(k) for k in labels)
    out: dict[int, dict] = {k: {"label": k} for k in labels}
    margins: dict[int, float] = {}
    cost: dict[int, int] = {}
    t0 = time.process_time()
    for k in _bias_screen(head, labels):
        for dom in opts.domains:
            out[k][dom] = _zero_record(head.d)
    # twins: a label whose row another label repeats (bias no larger) is never the strict
    # argmax; one exact check each, before the screen and any LP (np.ones((100000, 1)))
    open_labels = [k for k in labels if len(out[k]) == 1]
    for k, j in (_twins(head, open_labels).items() if open_labels else ()):
        recs = {dom: _never([j], [1], "twin") for dom in opts.domains
                if check_multipliers(head, k, [j], [1], opts.radius if dom == "box" else None)}
        if len(recs) == len(opts.domains):
            out[k].update(recs)
    stats["twins"] = time.process_time() - t0
    t0 = time.process_time()
    sW = head.scale()
    todo = [k for k in labels if len(out[k]) == 1]
    pending: dict[int, set[str]] = {}
    if todo and FLOAT32_SCREEN:
        todo = _row_screen32(head, todo, opts, sW, out, margins, stats)
    if todo:
        _row_screen(head, todo, opts, sW, out, pending, margins, cost, stats)
    if pending and opts.center is not None:
        _center_screen(head, opts, sW, out, pending, stats)
    stats["screen"] = time.process_time() - t0
    pending = {k: v for k, v in pending.items() if v}
    cost = {k: cost.get(k, 0) for k in pending}
    return Screened(out, pending, margins, cost, stats)


def _gaps(S: np.ndarray, kk: np.ndarray, c0: int, c1: int) -> np.ndarray:
    """Columns c0..c1-1 of G = fl(z_k) - fl(z_i) (column j: label kk[j]'s margins at x_j,
    from S = fl(W X)), inf on the label's own row: the same floats as a whole-block G, in
    temporaries of rows x (c1 - c0) numbers."""
    cols = np.arange(c1 - c0)
    with np.errstate(all="ignore"):
        G: np.ndarray = S[kk[c0:c1], c0 + cols][None, :] - S[:, c0:c1]
    G[kk[c0:c1], cols] = np.inf
    return G


def _row_screen32(head: Head, todo: list[int], opts: Options, sW: float, out: dict,
                  margins: dict, stats: dict) -> list[int]:
    """The float32 first pass of x = sW w_k (docs/filtered-arithmetic.md, Lemma 5): for a head
    whose entries and proposals are float32 values (with a bias: for t = 1 only),
    ``S32 = fl32(W X)`` by sgemm (:meth:`Head.matmul32`), and a column is decided here only
    when every margin exceeds the float32 bound plus twice the float64 bound of Lemma 2 (and,
    with a bias, the float64 pass would choose t = 1), so the float64 pass
    would have proven the same label with the same witness.  Its margin figure is computed in
    float64 from the rows that can be the minimum (:func:`_figures`).  Returns the labels
    left for the float64 pass (:func:`_row_screen`), in order; everything is left when the
    pass does not apply."""
    if not head.binary or head.d > MAX_TERMS or not head.float32_exact():
        return todo
    t0 = time.process_time()
    X = head.rows(todo).T * sW
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        X32 = X.astype(np.float32)
    if not np.array_equal(X32.astype(np.float64), X):  # a proposal float32 does not hold
        return todo
    kk_all = np.asarray(todo, dtype=np.int64)
    sub = np.arange(len(todo))
    if head.bias is not None:  # only the labels for which t = 1 is plausible (no waste)
        sub = np.flatnonzero(_t1_plausible(head, kk_all, X, sW))
        if not sub.size:
            stats["screen32"] = stats.get("screen32", 0.0) + time.process_time() - t0
            return todo
        if sub.size < len(todo):
            X, X32 = X[:, sub], X32[:, sub]
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        S32 = head.matmul32(X32)
    del X32
    kk = kk_all[sub]
    nx = norm_bounds(X, axis=0)
    # Lemma 5: B32 + 2 B64 <= (g32 + 2 g64) P + 2^-100, P = (N_k + N_i) N_x
    g = margin_factor32(head.d) + 2.0 * rounding_bound(head.d)
    if head.bias is None:
        proven, cand = _columns32(head, S32, kk, nx, g)
    else:
        proven, cand = _bias_columns32(head, S32, kk, nx, g)
    del S32
    left = []
    done = 0
    figs = _figures(head, kk, X, proven, cand)
    at = np.full(len(todo), -1)
    at[sub] = np.arange(sub.size)  # column of label todo[i] in X (-1: not tried)
    for i, k in enumerate(todo):
        j = int(at[i])
        if j >= 0 and proven[j]:
            recs = {}
            if "all" in opts.domains:
                recs["all"] = _witness_record(X[:, j], sW, "row")
            if "box" in opts.domains:
                fit = _fit_box(X[:, j], opts.radius, head.bias is None)
                if fit is not None:
                    recs["box"] = _witness_record(fit[0], sW * fit[1], "row")
            if len(recs) == len(opts.domains):
                out[k].update(recs)
                margins[k] = figs[j]
                done += 1
                continue
        left.append(k)
    stats["screen32"] = stats.get("screen32", 0.0) + time.process_time() - t0
    stats["screen32_labels"] = stats.get("screen32_labels", 0) + done
    return left


def _t1_plausible(head: Head, kk: np.ndarray, X: np.ndarray, sW: float) -> np.ndarray:
    """For a biased head, per column: whether the float64 pass could choose t = 1 against the
    64 rows of largest bias (their gaps g_i = (w_k - w_i) . x in float64, from a 64-row
    product): t = 1 needs every g_i > 0 and (b_i - b_k) / g_i <= 1/2.  A filter only (a
    column it drops goes to the float64 pass), so the float32 product is not spent on labels
    that a bias pushes to another scale."""
    b = head.bias
    assert b is not None
    top = np.argsort(-b, kind="stable")[:64]
    with np.errstate(all="ignore"):
        G = np.einsum("ij,ij->j", X, X) / sW - head.rows(top) @ X  # 64 x m
        db = b[top][:, None] - b[kk][None, :]
        ok = (db <= 0) | ((G > 0) & (db <= 0.5 * (1 + 2.0**-20) * G))
    out: np.ndarray = np.all(ok, axis=0)
    return out


def _columns32(head: Head, S32: np.ndarray, kk: np.ndarray, nx: np.ndarray, g: float
               ) -> tuple[np.ndarray, list[np.ndarray]]:
    """(decided, candidate rows of the figure) per column, without a bias: one bound per
    column (docs/filtered-arithmetic.md, Lemma 5).  Overwrites the labels' own entries of
    ``S32``."""
    m = len(kk)
    cols = np.arange(m)
    nrm = head.norms()
    with np.errstate(all="ignore"):
        # C = (g32 + 2 g64) (N_k + N_max) N_x + 2^-100, at least every row's bound
        C = g * ((nrm[kk] + float(np.max(nrm))) * nx) + UNDERFLOW_SLACK32
        finite = np.isfinite(np.sum(S32, axis=0, dtype=np.float64))  # every entry finite
        top = S32[kk, cols].astype(np.float64)
        S32[kk, cols] = -np.inf
        smax = S32.max(axis=0).astype(np.float64)
        # min_i fl64(s_k - s_i) = fl64(s_k - max_i s_i): rounding is monotone
        good = finite & (top - smax > C)
        # the rows that can be the float64 minimum have s_i >= smax - 4 C; the float32
        # threshold, rounded down, keeps them all
        low = np.nextafter((smax - 8.0 * C).astype(np.float32), np.float32(-np.inf))
    proven = np.zeros(m, dtype=bool)
    cand: list[np.ndarray] = [np.zeros(0, dtype=np.int64)] * m
    for c0 in range(0, m, 4 * _COLS):
        js = np.flatnonzero(good[c0:c0 + 4 * _COLS])
        if not js.size:
            continue
        near = S32[:, c0 + js] >= low[None, c0 + js]
        for t, j in enumerate(js.tolist()):
            rows = np.flatnonzero(near[:, t])
            rows = rows[rows != kk[c0 + j]]  # (its own entry is -inf; low may be too)
            if rows.size <= _FIG_ROWS:
                proven[c0 + j] = True
                cand[c0 + j] = rows
    return proven, cand


def _bias_columns32(head: Head, S32: np.ndarray, kk: np.ndarray, nx: np.ndarray, g: float
                    ) -> tuple[np.ndarray, list[np.ndarray]]:
    """As :func:`_columns32` with a bias, for the scale t = 1 only: a column is decided when
    every row's margin clears its bound ``C_i`` (the float64 pass then finds every gap
    positive), ``m_i - C_i >= 2 |b_k - b_i|`` where ``b_k < b_i`` (so the float64 pass
    chooses t = 1), and ``m_i + (b_k - b_i)`` clears ``C_i + 3 g64 (|b_k| + |b_i|)`` (so it
    proves the biased margin); docs/filtered-arithmetic.md, Lemma 5."""
    m = len(kk)
    b = head.bias
    assert b is not None
    ab = np.abs(b)
    nrm = head.norms()
    g64 = rounding_bound(head.d)
    proven = np.zeros(m, dtype=bool)
    cand: list[np.ndarray] = [np.zeros(0, dtype=np.int64)] * m
    for c0 in range(0, m, _COLS):
        c1 = min(m, c0 + _COLS)
        cols = np.arange(c1 - c0)
        kb = kk[c0:c1]
        with np.errstate(all="ignore"):
            Sb = S32[:, c0:c1].astype(np.float64)
            M = Sb[kb, cols][None, :] - Sb
            C = g * ((nrm[kb][None, :] + nrm[:, None]) * nx[None, c0:c1]) + UNDERFLOW_SLACK32
            db = b[kb][None, :] - b[:, None]  # fl(b_k - b_i), as the float64 pass forms it
            V = M + db
            ok = (M > C) & ((db >= 0) | (M - C >= (-2.0 * (1.0 + 2.0**-40)) * db)) \
                & (V > C + (3.0 * g64) * (ab[kb][None, :] + ab[:, None]))
            ok[kb, cols] = True
            good = np.all(ok, axis=0) & np.all(np.isfinite(Sb), axis=0)
            # rows whose float64 figure term fl(G_i + db_i) can be the smallest
            Wd = 2.0 * C + 2.0**-50 * (np.abs(M) + np.abs(db))
            hi = V + Wd
            hi[kb, cols] = np.inf
            near = V - Wd <= np.min(hi, axis=0)[None, :]
            near[kb, cols] = False
        for j in np.flatnonzero(good).tolist():
            rows = np.flatnonzero(near[:, j])
            if rows.size <= _FIG_ROWS:
                proven[c0 + j] = True
                cand[c0 + j] = rows
    return proven, cand


def _figures(head: Head, kk: np.ndarray, X: np.ndarray, proven: np.ndarray,
             cand: list[np.ndarray]) -> np.ndarray:
    """The margin figure of each column decided in float32: ``min_i (s_k - s_i) / ||x||``
    over the candidate rows ``cand[j]`` (those whose float64 margin can be the smallest,
    docs/filtered-arithmetic.md, Lemma 5), with ``s = fl64(W x)`` from one float64 product
    of only those rows and the labels' own rows; the same formula as the float64 pass
    (:func:`_row_screen`), at float64 precision (the last digits may differ from a whole-head
    product: another summation order)."""
    figs = np.full(len(kk), np.nan)
    js = np.flatnonzero(proven)
    if not js.size:
        return figs
    U = np.unique(np.concatenate([kk[js]] + [cand[j] for j in js.tolist()]))
    F = head.rows(U) @ np.ascontiguousarray(X[:, js])
    with np.errstate(all="ignore"):
        nx = np.maximum(scaled_norms(X[:, js], axis=0), 2.0**-1000)
        for c, j in enumerate(js.tolist()):
            pos = np.searchsorted(U, cand[j])
            sk = F[np.searchsorted(U, kk[j]), c]
            v = sk - F[pos, c]
            if head.bias is not None:  # fl(G_i + fl(b_k - b_i)), as the float64 pass
                v = v + (head.bias[kk[j]] - head.bias[cand[j]])
            figs[j] = float(np.min(v)) / nx[c] if pos.size else np.inf
    return figs


def _row_screen(head: Head, todo: list[int], opts: Options, sW: float, out: dict,
                pending: dict, margins: dict, cost: dict, stats: dict) -> None:
    """x = t w_k for every label of ``todo``: one product, one vectorised bound.  Beyond the
    rows x labels product S, every rows-sized temporary is taken :data:`_COLS` columns at a
    time (at 50,257 rows a block-wide float64 temporary is 103 MB)."""
    b = head.bias
    homogeneous = b is None
    X = head.rows(todo).T * sW
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        S = head.matmul(X)
    kk = np.asarray(todo, dtype=np.int64)
    m = len(todo)
    finite = np.empty(m, dtype=bool)
    bad_rows = np.empty(m, dtype=np.int64)  # rows violated at x = w_k: the cost
    need = np.empty(m)
    for c0 in range(0, m, _COLS):
        c1 = min(m, c0 + _COLS)
        G = _gaps(S, kk, c0, c1)
        finite[c0:c1] = np.all(np.isfinite(S[:, c0:c1]), axis=0)
        bad_rows[c0:c1] = np.count_nonzero(~(G > 0), axis=0)
        if b is not None:
            with np.errstate(all="ignore"):
                need[c0:c1] = np.max(-(b[kk[c0:c1]][None, :] - b[:, None]) / G, axis=0)
    del G
    # scales (float proposals, vectorised): t = 1 without a bias
    T = np.where((bad_rows == 0) & finite, 1.0, np.nan)
    if b is not None:
        for j in np.flatnonzero(~np.isnan(T)).tolist():
            nd = float(need[j])
            T[j] = np.nan if not nd <= 2.0**900 else (_pow2_at_least(2.0 * nd) if nd > 0
                                                      else 1.0)
        for j in np.flatnonzero(np.isnan(T) & finite).tolist():
            t = scale_interval(_gaps(S, kk, j, j + 1)[:, 0], b[todo[j]] - b)
            T[j] = np.nan if t is None else t
    for j in np.flatnonzero(np.isnan(T)).tolist():
        cost[todo[j]] = int(bad_rows[j])
    have = np.flatnonzero(np.isfinite(T))
    ok = np.zeros(len(todo), dtype=bool)
    scaled = bool(np.any(T[have] != 1.0))
    Xt, St = (X.copy(), S.copy()) if scaled else (X, S)
    for j in have.tolist():
        if T[j] != 1.0:
            xj = _exact_scaled(X[:, j], T[j])
            if xj is None:
                T[j] = np.nan
                continue
            Xt[:, j] = xj
            if T[j] == 2.0 ** math.frexp(T[j])[1] / 2:
                St[:, j] = S[:, j] * T[j]  # fl(W (t x)) = t fl(W x) for a power of two t
            else:
                with np.errstate(all="ignore"):
                    St[:, j] = head.matmul(xj[:, None])[:, 0]
    have = np.flatnonzero(np.isfinite(T))
    if have.size:
        # every column (the usual case): no rows x labels copy of the product
        Xh, Sh = (Xt, St) if have.size == m else (Xt[:, have], St[:, have])
        res = _decide_columns(head, [todo[j] for j in have], Xh, Sh, stats)
        ok[have] = res
    del St
    # the table's margin figure: smallest margin at the witness over ||x||_2 (floats)
    with np.errstate(all="ignore"):
        nx = np.maximum(scaled_norms(np.where(ok, Xt, 0.0), axis=0), 2.0**-1000)
        mins = np.empty(m)
        for c0 in range(0, m, _COLS):
            c1 = min(m, c0 + _COLS)
            MM = _gaps(S, kk, c0, c1) * np.where(ok, T, 0.0)[None, c0:c1]
            if b is not None:
                MM += b[kk[c0:c1]][None, :] - b[:, None]
                MM[kk[c0:c1], np.arange(c1 - c0)] = np.inf
            mins[c0:c1] = np.min(MM, axis=0) / nx[c0:c1]
    del MM
    for j, k in enumerate(todo):
        done: set[str] = set()
        if ok[j]:
            x, t = Xt[:, j], float(T[j])
            margins[k] = float(mins[j])
            if "all" in opts.domains:
                out[k]["all"] = _witness_record(x, t * sW, "row")
                done.add("all")
            if "box" in opts.domains:
                fit = _fit_box(x, opts.radius, homogeneous)
                if fit is not None:
                    out[k]["box"] = _witness_record(fit[0], t * sW * fit[1], "row")
                    done.add("box")
        elif k not in cost:
            cost[k] = int(bad_rows[j])
        rest = set(opts.domains) - done
        if "box" in rest and finite[j] and b is not None:
            if _box_row(head, k, X[:, j], _gaps(S, kk, j, j + 1)[:, 0], S[:, j], opts, sW,
                        out, stats):
                rest.discard("box")
        if rest:
            pending[k] = rest


def _box_row(head: Head, k: int, x1: np.ndarray, g: np.ndarray, s1: np.ndarray,
             opts: Options, sW: float, out: dict, stats: dict) -> bool:
    """The box domain with a bias: x = t w_k with t in the interval of positive margins
    cut at R / max_j |w_kj| (a float proposal, decided exactly)."""
    b, radius = head.bias, opts.radius
    mx = float(np.max(np.abs(x1)))
    if mx == 0.0:
        return False
    if b is None or radius is None:
        raise ValueError("_box_row needs a head with a bias and Options.radius (the box)")
    tmax = _radius_f(radius) / mx
    t = scale_interval(g, b[k] - b, tmax * (1 - 2.0**-40))
    if t is None:
        return False
    x = _exact_scaled(x1, t)
    if x is None or not _in_box(x, opts.radius):
        return False
    if t == 2.0 ** math.frexp(t)[1] / 2:
        s = s1 * t
    else:
        with np.errstate(all="ignore"):
            s = head.matmul(x[:, None])[:, 0]
    if not _decide_columns(head, [k], x[:, None], s[:, None], stats)[0]:
        return False
    out[k]["box"] = _witness_record(x, t * sW, "row")
    return True


def _center_screen(head: Head, opts: Options, sW: float, out: dict, pending: dict,
                   stats: dict) -> None:
    """x = t (w_k - c) on the labels still open (a power of two t, as for x = t w_k)."""
    b = head.bias
    homogeneous = b is None
    ks = sorted(pending)
    c = np.asarray(opts.center, dtype=np.float64)
    Xc = (head.rows(ks).T - c[:, None]) * sW
    with np.errstate(over="ignore", invalid="ignore"):
        Sc = head.matmul(Xc)
    for j, k in enumerate(ks):
        col = Sc[:, j]
        if not np.all(np.isfinite(col)):
            continue
        g = col[k] - col
        g[k] = np.inf
        t = _scale_for(g, None if b is None else b[k] - b)
        if t is None:
            continue
        x = Xc[:, j] * t
        if not confirm_witness(head, k, x, s=col * t, stats=stats):
            continue
        if "all" in pending[k]:
            out[k]["all"] = _witness_record(x, None, "center")
            pending[k].discard("all")
        if "box" in pending[k]:
            fit = _fit_box(x, opts.radius, homogeneous)
            if fit is not None:
                out[k]["box"] = _witness_record(fit[0], None, "center")
                pending[k].discard("box")
