"""Wolfe's nearest point proposes, exact arithmetic decides: the audit's first hard-label stage.

Label k is never the strict argmax (without a bias, over R^d) exactly when 0 lies in the
convex hull of the points p_i = w_i - w_k (docs/argmax-audit.md, section 1); with a bias, of
the homogenised points (w_i - w_k, b_i - b_k) and (0, -1).  Wolfe's method
(:mod:`logitgeom.audit.wolfe`) finds the hull's point q nearest to 0 over a pool of rows, and
what it ends with is decided exactly:

* a corral of d + 1 rows (d + 2 with a bias) with positive float weights: the exact Gordan
  solve on those rows (:func:`logitgeom.audit.basis.basis_never`, else
  :func:`logitgeom.audit.gordan._gordan_from`);
* a corral of fewer rows whose nearest point is 0 up to rounding (q below ``ON_FACE`` times
  the corral's largest coordinate): 0 may lie *exactly* on that face, as for a row that is
  the midpoint or the average of others, and the exact solve on the corral's rows decides
  (a few rows: milliseconds, where the refined LP of :mod:`logitgeom.audit.refine` takes
  seconds at d = 1,024 and minutes at d = 4,096); when 0 is not exactly there nothing is
  concluded and the label goes on;
* a non-zero q: the witness x = -q, confirmed over every row of the head with the rigorous
  float filter and exact arithmetic; rows it violates join the pool and Wolfe runs again.

None means neither proved the label; the refined LP, the cutting-plane LP and the exact
stage then do (:func:`logitgeom.audit.decide._decide_domain`).

Examples
--------
>>> import numpy as np
>>> from logitgeom.audit.head import HeadSpec, open_head
>>> W = np.array([[1.0, 0.0], [-1.0, 0.5], [0.0, 0.25], [3.0, -2.0]])   # row 2: a midpoint
>>> rec = wolfe_label(open_head(HeadSpec.from_array(W)), 2, Options(), {})
>>> rec["verdict"], rec["stage"], rec["rows"], rec["multipliers"]
('never', 'wolfe', [0, 1], ['1', '1'])
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

from logitgeom.audit import gordan
from logitgeom.audit.basis import basis_never
from logitgeom.audit.head import Head
from logitgeom.audit.proofs import Options, _witness_record

__all__ = ["wolfe_label", "wolfe_label_bias", "ON_FACE"]

#: Wolfe's nearest point is "0 up to rounding" below this fraction of the largest coordinate
#: of its corral's points (a proposal only: the exact solve on the corral decides).
ON_FACE = 2.0 ** -30
#: Rows (in units of d + 2) a failed Wolfe witness adds to the pool.
_GROW = 4


class _Clock:
    """The ``wolfe`` stage's CPU seconds, paused while an exact stage runs (those count
    under their own keys)."""

    def __init__(self, stats: dict):
        self.stats = stats
        self.t0 = time.process_time()

    def stop(self) -> None:
        self.stats["wolfe"] = self.stats.get("wolfe", 0.0) + time.process_time() - self.t0

    @contextmanager
    def paused(self) -> Iterator[None]:
        self.stop()
        try:
            yield
        finally:
            self.t0 = time.process_time()


def _on_face(head: Head, k: int, rows: np.ndarray, weights: np.ndarray, PS: np.ndarray,
             lam: np.ndarray, opts: Options, stats: dict, tried: set) -> dict | None:
    """The exact Gordan solve on the ``rows`` (float ``weights``) of a corral of fewer than
    d + 1 (d + 2) points ``PS`` whose nearest point ``lam @ PS`` is 0 up to rounding; None
    when it is not that, when the rows were tried already, or when 0 is not exactly in
    their hull."""
    key = frozenset(rows.tolist())
    if not rows.size or key in tried:
        return None
    q = lam @ PS
    if not float(np.sqrt(q @ q)) <= ON_FACE * float(np.max(np.abs(PS))):
        return None
    tried.add(key)
    rec = gordan.gordan_from(head, k, rows, False, opts, stats, weights)
    if rec is not None:
        rec["stage"] = "wolfe"
    return rec


def wolfe_label(head: Head, k: int, opts: Options, stats: dict) -> dict | None:
    """Decide label k of a head without a bias over R^d by Wolfe's method, or return None.

    The pool starts with the 4 (d + 2) rows of smallest margin at x = w_k (and at
    w_k - center); a failed witness adds up to 4 (d + 2) of the rows it violates, for at
    most 16 rounds.  Runs with one BLAS thread: its products are small (a pool of a few
    thousand rows times one vector, triangular solves of order d), and OpenBLAS's spinning
    helper threads otherwise cost 2 to 4 times the CPU on a busy machine.

    Parameters
    ----------
    head : Head
        A head without a bias.
    k : int
    opts : Options
    stats : dict
        Stage CPU seconds (``wolfe``; the exact solves count under their own keys), updated.

    Returns
    -------
    dict or None
        The label's record, checked exactly: the witness x = -q, or Gordan multipliers on a
        full corral or on a face's rows; None when the stage proves neither.

    Examples
    --------
    >>> from logitgeom.audit.head import HeadSpec, open_head
    >>> W = np.array([[1.0, 0.0], [-1.0, 1.0], [-1.0, -1.0], [0.0, 0.1]])
    >>> wolfe_label(open_head(HeadSpec.from_array(W)), 3, Options(), {})["verdict"]
    'never'
    """
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        return _wolfe_body(head, k, opts, stats)


def _wolfe_body(head: Head, k: int, opts: Options, stats: dict) -> dict | None:
    from logitgeom.audit.wolfe import affine_nearest, min_norm_corral

    clock = _Clock(stats)
    try:
        d = head.d
        wk = head.rows([k])[0]
        pool = gordan.start_pool(head, k, wk, opts)
        init = None
        tried: set = set()
        D = head.rows(pool) - wk[None, :]
        for _ in range(16):
            a = gordan.pow2_scale(D)
            kind, S, lam = min_norm_corral(D * a, init=init)
            rows = pool[np.asarray(S, dtype=np.int64)]
            if kind == "in" or (kind == "stall" and len(S) == d + 1):
                # a full corral (a stalled one too) gets its exact weights
                with clock.paused():
                    rec = basis_never(head, k, pool, D * a, S, stats)
                    if rec is None and kind == "in":
                        rec = gordan.gordan_from(head, k, rows, False, opts, stats, lam)
                    return rec
            with clock.paused():
                rec = _on_face(head, k, rows, lam, D[S] * a, lam, opts, stats, tried)
            if rec is not None or kind != "out":
                return rec
            # the witness x = -q: first Wolfe's own q (free), then q re-solved on the affine
            # hull of S (a QR of d x |S|) only when the first fails on pool rows alone
            new = np.zeros(0, dtype=np.int64)
            for accurate in (False, True):
                x = -affine_nearest(D[S] * a) if accurate else -(lam @ D[S])
                if not np.all(np.isfinite(x)) or not np.any(x):
                    return None
                x = x * gordan.pow2_scale(x)
                bad, new = gordan.evaluate(head, k, x, pool, False, opts, stats)
                if bad is not None and bad.size == 0:
                    return _witness_record(x, None, "wolfe")
                if new.size:
                    break
            if new.size == 0:
                return None
            mm = gordan.margins(head, k, x)
            more = np.setdiff1d(new[np.argsort(mm[new], kind="stable")[:_GROW * (d + 2)]], pool)
            init = (list(S), lam)  # the corral keeps its indices: new rows go at the end
            pool = np.r_[pool, more]
            D = np.vstack([D, head.rows(more) - wk[None, :]])
        return None
    finally:
        clock.stop()


def wolfe_label_bias(head: Head, k: int, opts: Options, stats: dict) -> dict | None:
    """Decide label k of a head with a bias over R^d by Wolfe's method on the homogenised
    problem, or return None (then the cutting-plane LP and the exact stage decide).

    x makes k the strict argmax iff (x, t), t > 0, solves u_i . (x, t) > 0 for
    u_i = (w_k - w_i, b_k - b_i) and u_0 = (0, 1); Gordan: no solution iff 0 is in the hull
    of p_i = (w_i - w_k, b_i - b_k) and p_0 = (0, -1) of R^(d+1) (both coordinates
    rescaled by powers of two, which keeps the cone).  A corral of d + 2 points with
    positive weights, or of fewer whose nearest point is 0 up to rounding: its rows (p_0
    dropped: its weight is the slack of sum c_i (b_k - b_i) <= 0) go to the exact Gordan
    solve; a non-zero nearest point q: z = -q has z_t > 0 and proposes x = z_x / z_t,
    confirmed over every row exactly.

    Parameters
    ----------
    head : Head
        A head with a bias.
    k : int
    opts : Options
    stats : dict
        Stage CPU seconds (``wolfe``; the exact solve counts as ``gordan``), updated.

    Returns
    -------
    dict or None
        An exactly checked record (a witness or Gordan multipliers), or None.

    Examples
    --------
    >>> from logitgeom.audit.head import HeadSpec, open_head
    >>> W = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0], [0.5, 0.25]])
    >>> h = open_head(HeadSpec.from_array(W, [0.0, 0.0, 0.0, 0.0, 0.25]))
    >>> wolfe_label_bias(h, 4, Options(), {})["verdict"]
    'argmaxable'
    """
    from logitgeom.audit.wolfe import affine_nearest, min_norm_corral

    clock = _Clock(stats)
    try:
        d = head.d
        b = head.bias
        if b is None:
            raise ValueError("wolfe_label_bias needs a head with a bias")
        wk = head.rows([k])[0]
        pool = gordan.start_pool(head, k, wk, opts)
        D = head.rows(pool) - wk[None, :]
        db = b[pool] - b[k]
        init = None
        tried: set = set()
        for _ in range(16):
            a, be = gordan.pow2_scale(D), gordan.pow2_scale(db)
            P = np.zeros((len(pool) + 1, d + 1))  # row 0: p_0 = (0, -1); row j + 1: pool[j]
            P[0, d] = -1.0
            P[1:, :d] = D * a
            P[1:, d] = db * be
            kind, S, lam = min_norm_corral(P, init=init)
            Sa = np.asarray(S, dtype=np.int64)
            real = Sa > 0
            if kind == "in":
                with clock.paused():
                    return gordan.gordan_from(head, k, pool[Sa[real] - 1], False, opts,
                                              stats, lam[real])
            with clock.paused():
                rec = _on_face(head, k, pool[Sa[real] - 1], lam[real], P[S], lam, opts,
                               stats, tried)
            if rec is not None or kind != "out":
                return rec
            z = -affine_nearest(P[S])
            if not (np.all(np.isfinite(z)) and z[d] > 0):
                return None
            with np.errstate(all="ignore"):
                x = z[:d] * (be / (a * z[d]))
            if not np.all(np.isfinite(x)):
                return None
            bad, new = gordan.evaluate(head, k, x, pool, False, opts, stats)
            if bad is not None and bad.size == 0:
                return _witness_record(x, None, "wolfe")
            if new.size == 0:
                return None
            mm = gordan.margins(head, k, x)
            more = np.setdiff1d(new[np.argsort(mm[new], kind="stable")[:d + 2]], pool)
            if more.size == 0:
                return None
            init = (list(S), lam)  # indices are kept: new rows go at the end
            pool = np.r_[pool, more]
            D = np.vstack([D, head.rows(more) - wk[None, :]])
            db = np.r_[db, b[more] - b[k]]
        return None
    finally:
        clock.stop()
