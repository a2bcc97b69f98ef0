"""Wolfe's minimum-norm point for labels with a bias (domain R^d), by homogenisation.

With a bias, x makes k the strict argmax iff (x, t) with t > 0 solves
u_i . (x, t) > 0 for u_i = (w_k - w_i, b_k - b_i) (i != k) and u_0 = (0, 1)
(docs/argmax-audit.md, section 1).  Gordan: no solution iff 0 lies in the convex hull of the
points p_i = -u_i = (w_i - w_k, b_i - b_k) and p_0 = (0, -1) of R^(d+1).  So the
minimum-norm-point method of :mod:`engine.audit.wolfe` applies unchanged to these points
(the bias coordinate and the row differences rescaled by powers of two, which keeps the
cone):

* a corral of d + 2 points with positive float weights: the rows among them (p_0 dropped:
  its weight is the slack of sum c_i (b_k - b_i) <= 0) go to the exact Gordan solve
  (:func:`engine.audit.decide._gordan_from`), whose multipliers are checked exactly;
* a non-zero nearest point q: z = -q has z_t > 0 and proposes x = z_x / z_t (undoing the
  scalings), confirmed over every row exactly (section 3);
* anything else: None, and the cutting-plane LP decides as before.

Floats only propose; nothing here decides.
"""

from __future__ import annotations

import time

import numpy as np

from engine.audit.head import Head
from engine.audit.proofs import Options, _witness_record

__all__ = ["wolfe_bias"]


def wolfe_bias(head: Head, k: int, opts: Options, stats: dict) -> dict | None:
    """Decide label k of a head with a bias over R^d by the homogenised Wolfe method, or
    return None (then the cutting-plane LP and the exact stage decide).

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
    >>> from engine.audit.head import HeadSpec, open_head
    >>> W = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0], [0.5, 0.25]])
    >>> h = open_head(HeadSpec.from_array(W, [0.0, 0.0, 0.0, 0.0, 0.25]))
    >>> wolfe_bias(h, 4, Options(), {})["verdict"]
    'argmaxable'
    """
    from engine.audit.decide import _evaluate, _gordan_from, _margins, _pow2_scale, _smallest
    from engine.audit.wolfe import affine_nearest, min_norm_corral

    t0 = time.process_time()
    try:
        d = head.d
        b = head.bias
        wk = head.rows([k])[0]
        n0 = 4 * (d + 2)
        pool = _smallest(_margins(head, k, wk * head.scale()), k, n0)
        if opts.center is not None:
            xc = (wk - np.asarray(opts.center)) * head.scale()
            pool = np.union1d(pool, _smallest(_margins(head, k, xc), k, n0))
        D = head.rows(pool) - wk[None, :]
        db = b[pool] - b[k]
        init = None
        for _ in range(16):
            a, be = _pow2_scale(D), _pow2_scale(db)
            P = np.zeros((len(pool) + 1, d + 1))  # row 0: p_0 = (0, -1); row j + 1: pool[j]
            P[0, d] = -1.0
            P[1:, :d] = D * a
            P[1:, d] = db * be
            kind, S, lam = min_norm_corral(P, init=init)
            Sa = np.asarray(S, dtype=np.int64)
            if kind == "in":
                real = Sa > 0
                stats["wolfe"] = stats.get("wolfe", 0.0) + time.process_time() - t0
                try:
                    return _gordan_from(head, k, pool[Sa[real] - 1], False, opts, stats,
                                        lam[real])
                finally:
                    t0 = time.process_time()
            if kind != "out":
                return None
            z = -affine_nearest(P[S])
            if not (np.all(np.isfinite(z)) and z[d] > 0):
                return None
            with np.errstate(all="ignore"):
                x = z[:d] * (be / (a * z[d]))
            if not np.all(np.isfinite(x)):
                return None
            bad, new = _evaluate(head, k, x, pool, False, opts, stats)
            if bad is not None and bad.size == 0:
                return _witness_record(x, None, "wolfe")
            if new.size == 0:
                return None
            mm = _margins(head, k, x)
            more = np.setdiff1d(new[np.argsort(mm[new], kind="stable")[:d + 2]], pool)
            if more.size == 0:
                return None
            init = (list(S), lam)  # indices are kept: new rows go at the end
            pool = np.r_[pool, more]
            D = np.vstack([D, head.rows(more) - wk[None, :]])
            db = np.r_[db, b[more] - b[k]]
        return None
    finally:
        stats["wolfe"] = stats.get("wolfe", 0.0) + time.process_time() - t0
