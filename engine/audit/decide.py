"""Deciding, per label, whether it can be the strict argmax; see docs/argmax-audit.md.

Floats propose (screens, relaxation steps, HiGHS LPs); exact arithmetic decides:

* an ``argmaxable`` verdict is a witness x whose k - 1 margins
  (w_k - w_i) . x + (b_k - b_i) are all proven positive: by the float value when it exceeds
  the rigorous rounding-error bound of docs/argmax-audit.md section 3, else in rational
  arithmetic;
* a ``never`` verdict is a set of positive integer Gordan multipliers whose identities are
  verified in integer arithmetic;
* when the float stages do not settle a label, the exact completion stage
  (:mod:`logitgeom.audit.complete`) does, so ``undecided`` only means that a per-label budget
  the caller set (:attr:`Options.label_seconds`) ran out, and the record says so.

The unit of work is a block of labels (:func:`decide_block`), run by any executor.

Examples
--------
>>> import numpy as np
>>> from logitgeom.audit.head import HeadSpec
>>> W = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, 0.25]])
>>> recs, _ = decide_block(HeadSpec.from_array(W), (0, 3), Options())
>>> [r["all"]["verdict"] for r in recs]
['argmaxable', 'never']
"""

from __future__ import annotations

import time
from fractions import Fraction

import numpy as np

from logitgeom.audit import gordan, nearest
from logitgeom.audit.bounded import note_partial, note_stage
from logitgeom.audit.complete import exact_stage
from logitgeom.audit.head import Head, HeadSpec, open_head
from logitgeom.audit.proofs import (
    BudgetExceeded,
    Options,
    _budget,
    _in_box,
    _norm2,
    _rational_witness_record,
    _witness_record,
    check_multipliers,
    confirm_witness,
    exact_rows_int,
    rounding_bound,
    violations,
)
from logitgeom.audit.screen import _fit_box, screen_block

__all__ = ["Options", "decide_block", "decide_label", "rounding_bound", "exact_rows_int",
           "confirm_witness", "violations", "check_multipliers", "BudgetExceeded"]


#: Up to this many new rows, the LP continues from its last basis (dual simplex).
_FEW_CUTS = 64


# ------------------------------------------------------------------------ per label
def _relax(head: Head, k: int, x: np.ndarray, steps: int, box: bool, radius: float | None,
           stats: dict):
    """Relaxation (Agmon-Motzkin) steps on the smallest margin; returns (x, margins)."""
    bias_t = head.bias is not None or box
    wk = head.rows([k])[0]
    clip = None  # the box's radius, exactly when box
    if box:
        if radius is None:
            raise ValueError("_relax: the box needs a radius")
        clip = radius
    m = None
    for _ in range(steps):
        m = gordan.margins(head, k, x)
        if not np.all(np.isfinite(m)):
            return x, m
        if not bias_t:
            m = m / max(float(np.sqrt(x @ x)), 1e-300)
        i = int(np.argmin(m))
        if m[i] > 0:
            return x, m
        g = wk - head.rows([i])[0]
        gg = float(g @ g)
        if gg == 0.0 or not np.isfinite(gg):
            return x, m
        if bias_t:
            step = (1.5 * -m[i] + 1e-12 * (1 + abs(m[i]))) / gg
        else:
            step = (1.5 * -m[i] * float(np.sqrt(x @ x)) + 1e-9) / gg
        x = x + step * g
        if clip is not None:
            x = np.clip(x, -clip, clip)
    return x, gordan.margins(head, k, x)


def _decide_domain(head: Head, k: int, box: bool, x0: np.ndarray, opts: Options,
                   stats: dict, t_label: float) -> dict:
    """Relaxation steps, the warm-started cutting-plane LP with exact evaluation of its
    points and exact Gordan multipliers on its basis, then the exact completion stage
    (``t_label``: the label's start on the process clock, for the cooperative budget
    checks; the hard stop is the child's kill, :mod:`logitgeom.audit.labelrun`)."""
    try:
        note_stage("wolfe")
        if not box and head.bias is None:
            rec = nearest.wolfe_label(head, k, opts, stats)
            if rec is not None:
                return rec
            note_stage("refine")
            rec = _refined_never(head, k, opts, stats)
            if rec is not None:
                return rec
        elif not box:  # a bias: Wolfe's method on the homogenised problem
            rec = nearest.wolfe_label_bias(head, k, opts, stats)
            if rec is not None:
                return rec
        note_stage("lp")
        rec, seed = _decide_domain_float(head, k, box, x0, opts, stats, t_label)
        if rec is not None:
            return rec
        note_stage("exact")
        return exact_stage(head, k, box, opts, stats, t_label, seed)
    except BudgetExceeded as exc:
        return {"verdict": "undecided", "stage": str(exc),
                "reason": f"per-label budget label_seconds={opts.label_seconds} CPU s ran "
                          f"out in the {exc} stage"}


def _refined_never(head: Head, k: int, opts: Options, stats: dict) -> dict | None:
    """A never-proof from the iteratively refined float Gordan LP
    (:mod:`logitgeom.audit.refine`) on Wolfe's pool, solved and checked exactly on its
    support (labels a hair inside a face, where the float weights of the rows around the
    face are below every float tolerance); None when it does not prove the label."""
    from logitgeom.audit.refine import refined_support

    wk = head.rows([k])[0]
    pool = gordan.start_pool(head, k, wk, opts)
    found = refined_support(head, k, pool, stats)
    if found is None:
        return None
    rec = gordan.gordan_from(head, k, found[0], False, opts, stats, found[1])
    if rec is not None:
        rec["stage"] = "refine"
    return rec


class _Cutting:
    """The max-margin LP of label k on an active set of rows, in the coordinates z of
    :class:`logitgeom.lp_float.MarginLP` (row differences and bias differences rescaled by
    powers of two, so heads at 1e-200 or 1e150 behave like unit heads):

    * domain R^d without a bias: z = x, rows (w_k - w_i) . x >= s, |x_j| <= 1;
    * domain R^d with a bias: z = (x', t), rows a (w_k - w_i) . x' + beta (b_k - b_i) t >= s
      and t >= s, |x'_j| <= 1, 0 <= t <= 1; x = a x' / (beta t);
    * the box: z = x' = beta x / a, rows a (w_k - w_i) . x' + beta (b_k - b_i) >= s,
      |x'_j| <= R beta / a.

    Only proposals come out of it (points, supports); everything is decided exactly by the
    caller."""

    def __init__(self, head: Head, k: int, box: bool, radius_f: float | None,
                 rows: np.ndarray, tol: float):
        from logitgeom.lp_float import MarginLP

        self.head, self.k, self.box, self.d = head, k, box, head.d
        wk = head.rows([k])[0]
        self.wk = wk
        self.a = gordan.pow2_scale(wk[None, :] - head.rows(rows))
        bias = head.bias
        db_all = None if bias is None else bias[k] - bias
        self.db_all = db_all
        self.beta = 1.0 if db_all is None else gordan.pow2_scale(db_all)
        self.hom = not box and bias is not None
        d = self.d
        if box:
            if radius_f is None:
                raise ValueError("_Cutting: the box needs radius_f")
            r = radius_f * self.beta / self.a
            lo, hi = np.full(d, -r), np.full(d, r)
        elif self.hom:
            lo, hi = np.r_[np.full(d, -1.0), 0.0], np.r_[np.full(d, 1.0), 1.0]
        else:
            lo, hi = np.full(d, -1.0), np.full(d, 1.0)
        self.lp = MarginLP(lo, hi, tol=tol)
        self.rows = np.zeros(0, dtype=np.int64)  # head row of each LP row (-1: t >= s)
        if self.hom:
            self.lp.add_rows(np.r_[np.zeros(d), 1.0][None, :], np.zeros(1))
            self.rows = np.array([-1], dtype=np.int64)
        self.add(rows)

    def active(self) -> np.ndarray:
        return self.rows[self.rows >= 0]

    def add(self, rows: np.ndarray) -> None:
        rows = np.asarray(rows, dtype=np.int64)
        D = (self.wk[None, :] - self.head.rows(rows)) * self.a
        c = np.zeros(len(rows))
        if self.db_all is not None:
            db = self.db_all[rows] * self.beta
            if self.hom:
                D = np.hstack([D, db[:, None]])
            else:
                c = -db
        self.lp.add_rows(D, c)
        self.rows = np.r_[self.rows, rows]

    def z_of(self, x: np.ndarray) -> np.ndarray:
        if self.box:
            return x * (self.beta / self.a)
        if self.hom:
            return np.r_[x, 1.0]
        return x

    def x_of(self, z: np.ndarray) -> np.ndarray | None:
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            if self.box:
                x = z * (self.a / self.beta)
            elif self.hom:
                if not z[-1] > 0:
                    return None
                x = z[:-1] * (self.a / self.beta) / z[-1]
            else:
                x = z.copy()
        return x if np.all(np.isfinite(x)) else None

    def vertex(self) -> np.ndarray | None:
        """The vertex of the final basis, re-solved (:meth:`logitgeom.lp_float.MarginLP.vertex`)."""
        return self.lp.vertex()


def _decide_domain_float(head: Head, k: int, box: bool, x0: np.ndarray, opts: Options,
                         stats: dict, t_label: float) -> tuple[dict | None, list[int]]:
    """The float stages; (record, []) when they decide, else (None, seed rows for the exact
    stage: the last float basis and the rows found violated at the float points)."""
    radius_f = None  # a float, the largest at most the radius, exactly when box
    if box:
        if opts.radius is None:
            raise ValueError("the 'box' domain needs Options.radius")
        radius_f = float(opts.radius)
        if Fraction(radius_f) > opts.radius:
            radius_f = float(np.nextafter(radius_f, 0.0))
        x0 = np.clip(x0, -radius_f, radius_f)
    t0 = time.process_time()
    x, m = _relax(head, k, x0.copy(), opts.ascent_steps, box, radius_f, stats)
    stats["ascent"] = stats.get("ascent", 0.0) + time.process_time() - t0
    if np.all(np.isfinite(x)) and np.all(m > 0) and (not box or _in_box(x, opts.radius)):
        t0 = time.process_time()
        ok = confirm_witness(head, k, x, stats=stats)
        stats["exact"] = stats.get("exact", 0.0) + time.process_time() - t0
        if ok:
            return _witness_record(x, None, "ascent"), []
    d = head.d
    add = max(opts.lp_add, d + 2)
    n0 = max(opts.lp_rows, 2 * (d + 2))
    first = gordan.smallest(m, k, n0)
    if opts.center is not None:
        # and the rows with the smallest margins at x = w_k - c (another view of the cone)
        t0 = time.process_time()
        xc = (head.rows([k])[0] - np.asarray(opts.center)) * head.scale()
        if radius_f is not None:  # box
            xc = np.clip(xc, -radius_f, radius_f)
        near = gordan.smallest(gordan.margins(head, k, xc), k, n0 // 2)
        first = np.union1d(first[: n0 // 2], near)
        stats["ascent"] = stats.get("ascent", 0.0) + time.process_time() - t0
    t0 = time.process_time()
    cut = _Cutting(head, k, box, radius_f, np.sort(first), 1e-9)
    stats["lp"] = stats.get("lp", 0.0) + time.process_time() - t0
    z_start = cut.z_of(x) if np.all(np.isfinite(x)) else None
    seed: list[int] = []
    tightened = False
    for _ in range(opts.lp_rounds):
        note_stage("lp")
        _budget(opts, t_label, "lp")
        t0 = time.process_time()
        if opts.label_seconds is not None:  # one LP cannot overrun the label's budget much
            left = opts.label_seconds - (t0 - t_label)
            cut.lp.set_option("time_limit", max(float(left), 0.01))
        sol = cut.lp.solve(z_start)
        tight = cut.rows[cut.lp.tight_rows()] if sol is not None else np.zeros(0, np.int64)
        stats["lp"] = stats.get("lp", 0.0) + time.process_time() - t0
        if sol is None:
            _budget(opts, t_label, "lp")
            break
        z, s = sol
        seed = sorted(set(tight[tight >= 0].tolist()))
        xo = cut.x_of(z) if s > 0 else None
        new = np.zeros(0, dtype=np.int64)
        if xo is not None:
            if radius_f is not None:  # box
                xo = np.clip(xo, -radius_f, radius_f)
            bad, new = gordan.evaluate(head, k, xo, cut.active(), box, opts, stats)
            if bad is not None and bad.size == 0:
                return _witness_record(xo, None, "lp"), []
            if new.size == 0:  # only active rows fail: the solver's tolerance; its vertex
                xv = cut.vertex()
                xv = None if xv is None else cut.x_of(xv)
                if xv is not None and (not box or _in_box(xv, opts.radius)):
                    bad2, new = gordan.evaluate(head, k, xv, cut.active(), box, opts, stats)
                    if bad2 is not None and bad2.size == 0:
                        return _witness_record(xv, None, "lp-vertex"), []
        if new.size == 0:
            # s <= 0 as far as the float LP can tell, or its points fail only on active
            # rows: exact Gordan multipliers on its basis
            T = cut.lp.tight_rows()
            keep = cut.rows[T] >= 0
            lam = np.maximum(cut.lp.duals()[T][keep], 2.0**-80)
            rec = gordan.gordan_from(head, k, cut.rows[T][keep], box, opts, stats, lam)
            if rec is not None:
                return rec, []
        if new.size:
            mm = gordan.margins(head, k, xo if xo is not None else x)
            worst = new[np.argsort(mm[new], kind="stable")[:add]]
            t0 = time.process_time()
            cut.add(worst)
            stats["lp"] = stats.get("lp", 0.0) + time.process_time() - t0
            seed = sorted(set(seed) | set(worst[: 2 * (d + 2)].tolist()))
            # many new rows: restart from the box vertex at z; a few: keep the basis
            z_start = z if worst.size > _FEW_CUTS else None
            continue
        if tightened:
            break
        tightened = True  # one more pass at HiGHS's tightest tolerances
        cut.lp.set_option("primal_feasibility_tolerance", 1e-10)
        cut.lp.set_option("dual_feasibility_tolerance", 1e-10)
        z_start = z
    return None, seed


def decide_block(spec: HeadSpec, labels: tuple[int, ...], opts: Options
                 ) -> tuple[list[dict], dict]:
    """Decide a block of labels; returns (records in label order, seconds per stage).

    The screens (:func:`logitgeom.audit.screen.screen_block`: one blocked product and a
    vectorised rigorous bound) decide the ordinary labels; the others go through
    :func:`decide_label`.  Each record is ``{"label": k, "<domain>": {"verdict": ...}}``
    for each domain in ``opts.domains`` (see certificates/SPEC.md, kind ``argmax-audit``).

    With :attr:`Options.shared_supports` (heads without a bias, domain "all"), each
    never-proof on d + 1 rows joins this process's pool of recent supports, and the block's
    open labels inside a support are proven together (:mod:`logitgeom.audit.shared`, stage
    ``"shared"``) before they would run alone; a batch's CPU is split evenly over its labels
    in ``stats["_label_cpu"]``.
    """
    from logitgeom.audit import shared

    head = open_head(spec)
    sc = screen_block(head, labels, opts)
    stats, margins, out = sc.stats, sc.margins, sc.out
    label_cpu: dict[int, float] = {}
    todo = sorted(sc.pending)
    pool = shared.worker_pool(spec) if shared.applies(head, opts) else None

    def share(only) -> None:  # prove the open labels inside the pool's supports together
        if pool is None:
            return
        cands = [j for j in todo if "all" in sc.pending[j]]
        if not cands or (only is None and not pool.items):
            return
        got, cpu = shared.prove_candidates(head, pool, cands, opts, stats, only)
        for j, c in cpu.items():
            label_cpu[j] = label_cpu.get(j, 0.0) + c
        for j, never in got.items():
            out[j] = shared.shared_record(out[j], never, sc.pending[j])
            todo.remove(j)

    share(None)  # supports of the blocks this process decided before
    while todo:
        k = todo.pop(0)
        t_k = time.process_time()
        rec, m = decide_label(head, k, sc.pending[k], out[k], opts, stats)
        out[k] = rec
        if m is not None and k not in margins:
            margins[k] = m
        label_cpu[k] = label_cpu.get(k, 0.0) + time.process_time() - t_k \
            + stats.pop("_child_cpu", 0.0)
        sup = shared.full_support(head, rec.get("all")) if pool is not None else None
        if sup is not None and todo and pool is not None:
            for rows in shared.supports_after(head, k, sup, todo, sc.pending, pool):
                new = pool.add(head, rows)
                if new is not None:
                    share(new)
    for k in out:
        rec = out[k].get("all") or out[k].get("box")
        if k not in margins and rec["verdict"] == "argmaxable":
            margins[k] = _witness_margin(head, k, rec["witness"])
    stats["_margins"] = margins
    stats["_label_cpu"] = label_cpu
    return [out[int(k)] for k in labels], stats


def decide_label(head: Head, k: int, doms: set[str] | list[str], rec: dict, opts: Options,
                 stats: dict) -> tuple[dict, float | None]:
    """Decide the open domains ``doms`` of a label the screens left (relaxation, Wolfe,
    the cutting-plane LP, exact Gordan multipliers, the exact completion stage), in one
    forked child process per label that is killed when its CPU time reaches
    ``opts.label_seconds`` or on Ctrl-C (:func:`logitgeom.audit.labelrun.run_label`): the
    budget covers the whole label, both domains, and holds inside FLINT, cdd and HiGHS.

    Parameters
    ----------
    head : Head
    k : int
    doms : set of str
        The domains still open.
    rec : dict
        The label's record so far (the domains the screens decided); not modified.
    opts : Options
    stats : dict
        Stage CPU seconds, updated.

    Returns
    -------
    (dict, float or None)
        The completed record and the table's margin figure (None for a never label).
        A domain the budget stopped is ``undecided``, its reason naming the budget.
    """
    from logitgeom.audit.labelrun import run_label

    out, m = run_label(_label_body, head, k, doms, rec, opts, stats)
    first = _first_record(out, k, doms)
    if m is None and first["verdict"] == "argmaxable":  # the budget stopped the second domain
        m = _witness_margin(head, k, first["witness"])
    return out, m


def _label_body(head: Head, k: int, doms: set[str] | list[str], rec: dict, opts: Options,
                stats: dict) -> tuple[dict, float | None]:
    """:func:`decide_label`'s work, in the child: each domain handed to the parent as it is
    decided (:func:`logitgeom.audit.bounded.note_partial`)."""
    t_label = time.process_time()
    out = dict(rec)
    doms = set(doms)
    homogeneous = head.bias is None
    x0 = head.rows([k])[0] * head.scale()
    if "all" in doms:
        out["all"] = _decide_domain(head, k, False, x0, opts, stats, t_label)
        note_partial(("all", out["all"]))
        doms.discard("all")
    if "box" in doms:
        a = out.get("all")
        box = None
        if a is not None and a["verdict"] == "never":
            box = dict(a)  # v = 0 and sum c (b_k - b_i) <= 0 also close the box
        elif a is not None and a["verdict"] == "argmaxable" and "x" in a["witness"]:
            xa = [Fraction(v) for v in a["witness"]["x"]]
            radius = opts.radius
            if radius is None or _fits_rational(xa, radius):
                box = dict(a)
            elif homogeneous:  # a cone: scale the witness into the box, exactly
                f = radius / (2 * max(abs(q) for q in xa))
                box = _rational_witness_record([q * f for q in xa], a["stage"])
            else:
                xf = np.array([float(q) for q in xa])
                if all(Fraction(v) == q for v, q in zip(xf.tolist(), xa, strict=True)):
                    fit = _fit_box(xf, radius, homogeneous)
                    if fit is not None and confirm_witness(head, k, fit[0], stats=stats):
                        box = _witness_record(fit[0], None, a["stage"])
        if box is None:
            box = _decide_domain(head, k, True, x0, opts, stats, t_label)
        out["box"] = box
        note_partial(("box", box))
    first = _first_record(out, k, doms)
    m = _witness_margin(head, k, first["witness"]) if first["verdict"] == "argmaxable" \
        else None
    return out, m


def _first_record(out: dict, k: int, doms) -> dict:
    """The label's first domain record ("all", else "box"): the one its margin comes from."""
    first = out.get("all") or out.get("box")
    if first is None:
        raise ValueError(f"label {k}: neither domain has a record (doms {sorted(doms)})")
    return first


def _witness_margin(head: Head, k: int, w: dict) -> float:
    """Float figure for the table: the smallest margin at the witness over ||x||_2 (the
    smallest bias gap at x = 0).  Reported, never used to decide."""
    if "scale" in w:
        x = head.rows([k])[0] * float(Fraction(w["scale"]))
    else:
        x = np.array([float(Fraction(v)) for v in w["x"]])
    with np.errstate(all="ignore"):
        s = head.matmul(x[:, None])[:, 0]
        b = head.bias if head.bias is not None else np.zeros(head.k)
        m = (s[k] + b[k]) - (s + b)
        m[k] = np.inf
        nx = _norm2(x)
        return float(np.min(m)) / (nx if nx > 0 else 1.0)


def _fits_rational(xq: list[Fraction], radius: Fraction | None) -> bool:
    return radius is None or max(abs(q) for q in xq) <= radius
