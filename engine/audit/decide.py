"""Deciding, per label, whether it can be the strict argmax; see docs/argmax-audit.md.

Floats propose (screens, relaxation steps, HiGHS LPs); exact arithmetic decides:

* an ``argmaxable`` verdict is a witness x whose k - 1 margins
  (w_k - w_i) . x + (b_k - b_i) are all proven positive: by the float value when it exceeds
  the rigorous rounding-error bound of docs/argmax-audit.md section 3, else in rational
  arithmetic;
* a ``never`` verdict is a set of positive integer Gordan multipliers whose identities are
  verified in integer arithmetic;
* when the float stages do not settle a label, the exact completion stage
  (:mod:`engine.audit.complete`) does, so ``undecided`` only means that a per-label budget
  the caller set (:attr:`Options.label_seconds`) ran out, and the record says so.

The unit of work is a block of labels (:func:`decide_block`), run by any executor.

Examples
--------
>>> import numpy as np
>>> from engine.audit.head import HeadSpec
>>> W = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, 0.25]])
>>> recs, _ = decide_block(HeadSpec.from_array(W), (0, 3), Options())
>>> [r["all"]["verdict"] for r in recs]
['argmaxable', 'never']
"""

from __future__ import annotations

import contextvars
import math
import time
from fractions import Fraction

import numpy as np

from engine.audit.complete import exact_stage, gordan_on_rows
from engine.audit.head import Head, HeadSpec, open_head
from engine.audit.proofs import (
    BudgetExceeded,
    Options,
    _budget,
    _in_box,
    _never,
    _norm2,
    _primitive,
    _rational_witness_record,
    _witness_record,
    check_multipliers,
    confirm_witness,
    exact_rows_int,
    rounding_bound,
    violations,
)
from engine.exact.intmat import solve_rational

__all__ = ["Options", "decide_block", "rounding_bound", "exact_rows_int", "confirm_witness",
           "violations", "check_multipliers", "BudgetExceeded"]

#: HiGHS at its tightest feasibility tolerances: near-boundary labels have LP optima of
#: 1e-8 and below, under the default 1e-7 (proposals only; nothing is decided by them).
_HIGHS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}
#: The tolerances of the current float pass: HiGHS's defaults first (fast at d = 768), the
#: tight ones only for labels the first pass leaves open.
_TOL: contextvars.ContextVar[dict | None] = contextvars.ContextVar("_TOL", default=None)


def _margins(head: Head, k: int, x: np.ndarray, s: np.ndarray | None = None) -> np.ndarray:
    """Float margins for proposals (fast product; decisions use :func:`violations`)."""
    if s is None:
        s = head.propose_matvec(x)
    b = head.bias if head.bias is not None else 0.0
    m = (s[k] + (b[k] if head.bias is not None else 0.0)) - (s + b)
    m[k] = np.inf
    return m


# ------------------------------------------------------------------------ witnesses
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


def _fit_box(x: np.ndarray, radius: Fraction | None, homogeneous: bool
             ) -> tuple[np.ndarray, float] | None:
    """(f x, f): x itself (f = 1) if inside the box; for a homogeneous head a power-of-two
    down-scaling f (exact in floats); None if neither."""
    if _in_box(x, radius):
        return x, 1.0
    if not homogeneous:
        return None
    mx = float(np.max(np.abs(x)))
    e = math.ceil(math.log2(mx / float(radius))) + 1
    y = np.ldexp(x, -e)
    if _in_box(y, radius) and np.array_equal(np.ldexp(y, e), x):
        return y, 2.0**-e
    return None


def _pow2_scale(v: np.ndarray) -> float:
    """2^-e with 2^(e-1) <= max|v| < 2^e (1 for a zero vector): exact rescaling to O(1)."""
    mx = float(np.max(np.abs(v))) if v.size else 0.0
    if mx == 0.0 or not np.isfinite(mx):
        return 1.0
    return math.ldexp(1.0, -math.frexp(mx)[1])


# ------------------------------------------------------------------------ LPs
def _lp_witness(head: Head, k: int, active: np.ndarray, box: bool, radius: float | None):
    """Max-margin LP on the active rows (dual simplex: basic duals), after exact
    power-of-two rescaling of the row differences and of the bias differences.

    Returns (x or None, s*, lam) with x in the original coordinates and lam the duals of the
    active rows (Gordan proposals when s* <= 0)."""
    from scipy.optimize import linprog

    A = head.rows(active)
    wk = head.rows([k])[0]
    D = wk[None, :] - A
    a = _pow2_scale(D)
    D = D * a
    d = head.d
    bias = head.bias
    db = (bias[k] - bias[active]) if bias is not None else np.zeros(len(active))
    beta = _pow2_scale(db)
    db = db * beta
    if box or bias is None:
        # in the box |x_i| <= radius, or (no bias: a cone) in the unit box
        r = radius * beta / a if box else 1.0
        if not np.isfinite(r) or r == 0.0:
            return None, -np.inf, None
        A_ub = np.hstack([-D, np.ones((len(active), 1))])
        bounds = [(-r, r)] * d + [(None, 1.0)]
        c = np.zeros(d + 1)
        c[-1] = -1.0
        res = linprog(c, A_ub=A_ub, b_ub=db, bounds=bounds, method="highs-ds", options=_TOL.get())
        if res.status != 0:
            return None, -np.inf, None
        with np.errstate(over="ignore"):
            x = res.x[:d] * (a / beta) if box else res.x[:d] * a
        return x, float(res.x[-1]), _duals(res, len(active))
    # vars [x, t, s]: -(D x) - db t + s <= 0; -t + s <= 0
    A_ub = np.vstack([np.hstack([-D, -db[:, None], np.ones((len(active), 1))]),
                      np.concatenate([np.zeros(d), [-1.0, 1.0]])[None, :]])
    b_ub = np.zeros(len(active) + 1)
    bounds = [(-1.0, 1.0)] * d + [(0.0, 1.0), (None, 1.0)]
    c = np.zeros(d + 2)
    c[-1] = -1.0
    res = linprog(c, A_ub=A_ub, b_ub=b_ub, bounds=bounds, method="highs-ds", options=_TOL.get())
    if res.status != 0:
        return None, -np.inf, None
    t = float(res.x[d])
    s = float(res.x[-1])
    lam = _duals(res, len(active))
    if t <= 0:
        return None, min(s, 0.0), lam
    with np.errstate(over="ignore"):
        x = res.x[:d] * (a / beta) / t
    return x, s, lam


def _duals(res, n: int) -> np.ndarray | None:
    marg = getattr(getattr(res, "ineqlin", None), "marginals", None)
    if marg is None:
        return None
    return np.maximum(-np.asarray(marg[:n], dtype=np.float64), 0.0)


def _lp_gordan(head: Head, k: int, active: np.ndarray, box: bool, radius: float | None):
    """Float multipliers lambda >= 0 (sum 1) on the active rows, as a basic solution."""
    from scipy.optimize import linprog

    A = head.rows(active)
    wk = head.rows([k])[0]
    D = wk[None, :] - A  # n x d
    a = _pow2_scale(D)
    D = D * a
    n, d = D.shape
    bias = head.bias
    db = (bias[k] - bias[active]) if bias is not None else np.zeros(n)
    beta = _pow2_scale(db)
    db = db * beta
    if not box:
        A_eq = np.vstack([D.T, np.ones((1, n))])
        b_eq = np.concatenate([np.zeros(d), [1.0]])
        kw = {}
        if bias is not None:
            kw = {"A_ub": db[None, :], "b_ub": np.zeros(1)}
        res = linprog(db if bias is not None else np.zeros(n), A_eq=A_eq, b_eq=b_eq,
                      bounds=[(0, None)] * n, method="highs-ds", options=_TOL.get(), **kw)
        return res.x if res.status == 0 else None
    r = radius * beta / a
    if not np.isfinite(r):
        return None
    A_eq = np.vstack([np.hstack([D.T, -np.eye(d), np.eye(d)]),
                      np.concatenate([np.ones(n), np.zeros(2 * d)])[None, :]])
    b_eq = np.concatenate([np.zeros(d), [1.0]])
    c = np.concatenate([db, np.full(2 * d, r)])
    res = linprog(c, A_eq=A_eq, b_eq=b_eq, bounds=[(0, None)] * (n + 2 * d),
                  method="highs-ds", options=_TOL.get())
    return res.x[:n] if res.status == 0 else None


def _exact_gordan(head: Head, k: int, support: list[int], lam: np.ndarray,
                  with_bias_row: bool) -> list[Fraction] | None:
    """Solve sum lam_i (w_k - w_i) = 0, sum lam_i = 1 (and sum lam_i db_i = 0) exactly on
    the support (engine.exact.intmat); free variables take their float values."""
    R, b, _, _ = exact_rows_int(head, [k, *support])
    wk = R[0]
    n, d = len(support), head.d
    eqs = [[wk[j] - R[1 + i][j] for i in range(n)] for j in range(d)]
    eqs = [e for e in eqs if any(e)]
    rhs = [0] * len(eqs)
    eqs.append([1] * n)
    rhs.append(1)
    if with_bias_row and b is not None:
        eqs.append([b[0] - b[1 + i] for i in range(n)])
        rhs.append(0)
    return solve_rational(eqs, rhs, [float(v) for v in lam])


def _gordan_from(head: Head, k: int, active: np.ndarray, box: bool, opts: Options,
                 stats: dict, lam: np.ndarray) -> dict | None:
    """Exact Gordan multipliers on the support of the float basis (every positive dual,
    however small: no relative cut), repaired by an exact LP on that support when the
    square solve is singular or negative."""
    t0 = time.process_time()
    try:
        keep = np.flatnonzero(lam > 0)
        if keep.size == 0:
            return None
        support = [int(active[i]) for i in keep]
        lam_s = lam[keep]
        radius = opts.radius if box else None
        # (1) the float multipliers themselves (enough with slack in the box case)
        if box:
            cand = _primitive([Fraction(float(v)) for v in lam_s])
            if check_multipliers(head, k, support, cand, radius):
                return _never(support, cand, "lp")
        # (2) solved exactly on the support (v = 0 exactly)
        if len(support) <= head.d + 2:
            for with_bias in (False, True):
                if with_bias and head.bias is None:
                    break
                sol = _exact_gordan(head, k, support, lam_s, with_bias)
                if sol is None or any(q < 0 for q in sol):
                    continue
                pos = [(i, q) for i, q in zip(support, sol, strict=True) if q > 0]
                if not pos:
                    continue
                rows = [i for i, _ in pos]
                cand = _primitive([q for _, q in pos])
                if check_multipliers(head, k, rows, cand, radius):
                    return _never(rows, cand, "lp")
        # (3) repair: an exact LP on the support (a vertex: at most d + 1 (d + 2) rows)
        found = gordan_on_rows(head, k, support, radius)
        if found is not None:
            rows, cand = found
            if check_multipliers(head, k, rows, cand, radius):
                return _never(rows, cand, "lp-exact")
        return None
    finally:
        stats["gordan"] = stats.get("gordan", 0.0) + time.process_time() - t0


# ------------------------------------------------------------------------ per label
def _relax(head: Head, k: int, x: np.ndarray, steps: int, box: bool, radius: float | None,
           stats: dict):
    """Relaxation (Agmon-Motzkin) steps on the smallest margin; returns (x, margins)."""
    bias_t = head.bias is not None or box
    wk = head.rows([k])[0]
    m = None
    for _ in range(steps):
        m = _margins(head, k, x)
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
        if box:
            x = np.clip(x, -radius, radius)
    return x, _margins(head, k, x)


def _decide_domain(head: Head, k: int, box: bool, x0: np.ndarray, opts: Options,
                   stats: dict) -> dict:
    """Relaxation steps, the float cutting-plane LP with exact evaluation of its points and
    exact Gordan multipliers on its basis, then the exact completion stage."""
    t_label = time.process_time()
    try:
        rec, seed = _decide_domain_float(head, k, box, x0, opts, stats, t_label)
        if rec is None:
            token = _TOL.set(_HIGHS)
            try:
                rec, seed2 = _decide_domain_float(head, k, box, x0, opts, stats, t_label)
            finally:
                _TOL.reset(token)
            seed = sorted(set(seed) | set(seed2))
        return rec if rec is not None else exact_stage(head, k, box, opts, stats, t_label, seed)
    except BudgetExceeded as exc:
        return {"verdict": "undecided", "stage": str(exc),
                "reason": f"per-label budget label_seconds={opts.label_seconds} CPU s ran "
                          f"out in the {exc} stage"}


def _decide_domain_float(head: Head, k: int, box: bool, x0: np.ndarray, opts: Options,
                         stats: dict, t_label: float) -> tuple[dict | None, list[int]]:
    """The float stages; (record, []) when they decide, else (None, seed rows for the exact
    stage: the float basis and the rows found violated at the float points)."""
    radius_f = None
    if box:
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
    m = np.where(np.isfinite(m), m, -np.inf)
    m[k] = np.inf
    order = np.argsort(m, kind="stable")
    order = order[order != k]
    active = np.sort(order[: min(opts.lp_rows, head.k - 1)])
    seed: list[int] = []
    for _ in range(opts.lp_rounds):
        _budget(opts, t_label, "lp")
        t0 = time.process_time()
        x, s, lam = _lp_witness(head, k, active, box, radius_f)
        stats["lp"] = stats.get("lp", 0.0) + time.process_time() - t0
        if lam is not None:
            seed = [int(active[i]) for i in np.flatnonzero(lam > 0)]
        if x is None or not s > 0 or not np.all(np.isfinite(x)):
            if lam is not None and np.max(lam, initial=0.0) > 0:
                rec = _gordan_from(head, k, active, box, opts, stats, lam)
                if rec is not None:
                    return rec, []
            t0 = time.process_time()
            lam2 = _lp_gordan(head, k, active, box, radius_f)
            stats["lp"] = stats.get("lp", 0.0) + time.process_time() - t0
            if lam2 is not None:
                rec = _gordan_from(head, k, active, box, opts, stats, lam2)
                if rec is not None:
                    return rec, []
                seed = sorted(set(seed) | {int(active[i]) for i in np.flatnonzero(lam2 > 0)})
            if x is None or not np.all(np.isfinite(x)):
                break
            # the float optimum may be wrong in sign by the solver's tolerance: refine
            x, bad, new = _polish(head, k, active, x, box, radius_f, opts, stats, 0)
            if bad.size == 0:
                return _witness_record(x, None, "lp-refined"), []
            if new.size == 0:
                break
        else:
            if box:
                x = np.clip(x, -radius_f, radius_f)
            # the float point, evaluated exactly (a positive exact margin on every row is a
            # proof), refined against the solver's tolerance when only active rows fail
            x, bad, new = _polish(head, k, active, x, box, radius_f, opts, stats, 3)
            if bad.size == 0:
                return _witness_record(x, None, "lp"), []
            if new.size == 0:
                seed = sorted(set(seed) | set(bad.tolist()))
                break
        mm = _margins(head, k, x)
        worst = new[np.argsort(mm[new], kind="stable")[: opts.lp_add]]
        active = np.union1d(active, worst)
        seed = sorted(set(seed) | set(worst[: 2 * (head.d + 2)].tolist()))
    return None, seed


def _polish(head: Head, k: int, active: np.ndarray, x: np.ndarray, box: bool,
            radius_f: float | None, opts: Options, stats: dict, rounds: int):
    """Evaluate x exactly; while only active rows fail, refine x (iterative refinement:
    an LP in the correction, scaled by the residuals) up to ``rounds`` (+1 when 0) times.
    Returns (x, violated rows, violated rows outside the active set)."""
    tries = 0
    while True:
        t0 = time.process_time()
        if box and not _in_box(x, opts.radius):
            bad = np.array([i for i in range(head.k) if i != k][:1], dtype=np.int64)
            bad = np.union1d(bad, violations(head, k, x, stats=stats))
        else:
            bad = violations(head, k, x, stats=stats)
        stats["exact"] = stats.get("exact", 0.0) + time.process_time() - t0
        new = bad[~np.isin(bad, active)]
        if bad.size == 0 or new.size or tries > rounds:
            return x, bad, new
        t0 = time.process_time()
        x2 = _refine(head, k, active, x, box, radius_f)
        stats["lp"] = stats.get("lp", 0.0) + time.process_time() - t0
        tries += 1
        if x2 is None:
            return x, bad, new
        x = x2


def _refine(head: Head, k: int, active: np.ndarray, x0: np.ndarray, box: bool,
            radius_f: float | None) -> np.ndarray | None:
    """One step of iterative refinement: with residual margins r_i at x0 (floats), solve
    max sigma s.t. (u_i / |U|) . y + r_i / |r| >= sigma, |y_j| <= 1 (and the box), and return
    x0 + (|r| / |U|) y: the solver's absolute tolerance now applies to the residuals' scale."""
    from scipy.optimize import linprog

    A = head.rows(active)
    U = head.rows([k])[0][None, :] - A
    db = (head.bias[k] - head.bias[active]) if head.bias is not None else 0.0
    with np.errstate(all="ignore"):
        r = U @ x0 + db
    if not np.all(np.isfinite(r)):
        return None
    R = float(np.max(np.abs(r)))
    um = float(np.max(np.abs(U)))
    if R == 0.0 or um == 0.0:
        return None
    R = math.ldexp(1.0, math.frexp(R)[1])
    um = math.ldexp(1.0, math.frexp(um)[1])
    eps = R / um
    d = head.d
    lo = np.full(d, -1.0)
    hi = np.full(d, 1.0)
    if box:
        lo = np.maximum(lo, (-radius_f - x0) / eps)
        hi = np.minimum(hi, (radius_f - x0) / eps)
        if np.any(lo > hi):
            return None
    A_ub = np.hstack([-(U / um), np.ones((len(active), 1))])
    res = linprog(np.r_[np.zeros(d), -1.0], A_ub=A_ub, b_ub=r / R,
                  bounds=[*zip(lo.tolist(), hi.tolist(), strict=True), (None, 1.0)],
                  method="highs-ds", options=_TOL.get())
    if res.status != 0 or not res.x[-1] > 0:
        return None
    x = x0 + eps * res.x[:d]
    if box:
        x = np.clip(x, -radius_f, radius_f)
    return x if np.all(np.isfinite(x)) else None


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


def decide_block(spec: HeadSpec, labels: tuple[int, ...], opts: Options
                 ) -> tuple[list[dict], dict]:
    """Decide a block of labels; returns (records in label order, seconds per stage).

    Each record is ``{"label": k, "<domain>": {"verdict": ..., ...}}`` for each domain in
    ``opts.domains`` (see certificates/SPEC.md, kind ``argmax-audit``).
    """
    head = open_head(spec)
    stats: dict = {}
    labels = tuple(int(k) for k in labels)
    b = head.bias
    homogeneous = b is None
    t0 = time.process_time()
    out: dict[int, dict] = {k: {"label": k} for k in labels}
    pending: dict[int, set[str]] = {}
    margins: dict[int, float] = {}
    for k in _bias_screen(head, labels):
        for dom in opts.domains:
            out[k][dom] = _zero_record(head.d)
    sW = head.scale()
    todo = [k for k in labels if k not in out or len(out[k]) == 1]
    X = head.rows(todo).T * sW if todo else np.zeros((head.d, 0))
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        S = head.matmul(X) if todo else np.zeros((head.k, 0))
    stats["screen"] = time.process_time() - t0
    for j, k in enumerate(todo):
        t0 = time.process_time()
        col = S[:, j]
        g = col[k] - col
        g[k] = np.inf
        t = _scale_for(g, None if b is None else b[k] - b) if np.all(np.isfinite(col)) else None
        done: set[str] = set()
        if t is not None:
            x = X[:, j] * t
            if confirm_witness(head, k, x, s=col * t, stats=stats):
                with np.errstate(all="ignore"):
                    mm = g * t + (0.0 if b is None else b[k] - b)
                    margins[k] = float(np.min(mm)) / max(_norm2(x), 2.0**-1000)
                if "all" in opts.domains:
                    out[k]["all"] = _witness_record(x, t * sW, "row")
                    done.add("all")
                if "box" in opts.domains:
                    fit = _fit_box(x, opts.radius, homogeneous)
                    if fit is not None:
                        out[k]["box"] = _witness_record(fit[0], t * sW * fit[1], "row")
                        done.add("box")
        stats["screen"] += time.process_time() - t0
        rest = set(opts.domains) - done
        if rest:
            pending[k] = rest
    # screen 2: x = t (w_k - c), on the labels still open
    if pending and opts.center is not None:
        t0 = time.process_time()
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
        stats["screen"] += time.process_time() - t0
    # the rest: relaxation, cutting-plane LP, Gordan, exact completion
    for k in sorted(pending):
        doms = pending[k]
        if not doms:
            continue
        x0 = head.rows([k])[0] * sW
        if "all" in doms:
            rec = _decide_domain(head, k, False, x0, opts, stats)
            out[k]["all"] = rec
            doms.discard("all")
        if "box" in doms:
            a = out[k].get("all")
            rec = None
            if a is not None and a["verdict"] == "never":
                rec = dict(a)  # v = 0 and sum c (b_k - b_i) <= 0 also close the box
            elif a is not None and a["verdict"] == "argmaxable" and "x" in a["witness"]:
                xa = [Fraction(v) for v in a["witness"]["x"]]
                if _fits_rational(xa, opts.radius):
                    rec = dict(a)
                elif homogeneous:  # a cone: scale the witness into the box, exactly
                    f = opts.radius / (2 * max(abs(q) for q in xa))
                    rec = _rational_witness_record([q * f for q in xa], a["stage"])
                else:
                    xf = np.array([float(q) for q in xa])
                    if all(Fraction(v) == q for v, q in zip(xf.tolist(), xa, strict=True)):
                        fit = _fit_box(xf, opts.radius, homogeneous)
                        if fit is not None and confirm_witness(head, k, fit[0], stats=stats):
                            rec = _witness_record(fit[0], None, a["stage"])
            if rec is None:
                rec = _decide_domain(head, k, True, x0, opts, stats)
            out[k]["box"] = rec
    for k in labels:
        rec = out[k].get("all") or out[k].get("box")
        if k not in margins and rec["verdict"] == "argmaxable":
            margins[k] = _witness_margin(head, k, rec["witness"])
    stats["_margins"] = margins
    return [out[k] for k in labels], stats


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
