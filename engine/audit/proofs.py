"""Exact proofs of the argmax audit: the rigorous float filter, exact margins, witness and
Gordan records, and the pipeline's options (docs/argmax-audit.md, sections 1 and 3).

Shared by the float stages (:mod:`logitgeom.audit.decide`) and the exact completion stage
(:mod:`logitgeom.audit.complete`); nothing here calls a solver.

Examples
--------
>>> import numpy as np
>>> from logitgeom.audit.head import HeadSpec, open_head
>>> h = open_head(HeadSpec.from_array(np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])))
>>> violations(h, 0, np.array([1.0, 0.0])).tolist(), check_multipliers(h, 2, [0, 1], [1, 1], None)
([], True)
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from logitgeom.audit.head import Head
from logitgeom.exact.filtered import UNDERFLOW_SLACK, margin_factor, norm_bound
from logitgeom.exact.filtered import margin_factor as rounding_bound
from logitgeom.exact.filtered import norm2 as _norm2  # noqa: F401 (audit.decide)
from logitgeom.exact.intmat import float_int64, float_ints, int_combination, int_str
from logitgeom.exact.numbers import fraction_to_str
from logitgeom_certificates.api import MAX_DIGITS

__all__ = ["Options", "BudgetExceeded", "rounding_bound", "exact_rows_int", "violations",
           "confirm_witness", "recheck_witnesses", "check_multipliers"]


@dataclass(frozen=True)
class Options:
    """Knobs of the pipeline (none of them changes what is proven, only what is tried).

    Attributes
    ----------
    radius : Fraction or None
        Infinity-norm radius R of the bounded domain ``max_j |x_j| <= R``.
    domains : tuple of str
        ``("all",)``, ``("box",)`` or ``("all", "box")``: which verdicts to report.
    center : tuple of float or None
        The vector c of the second screen (x = t (w_k - c)); default: none.
    ascent_steps : int
        Relaxation steps on the smallest margin before the LP.
    lp_rows, lp_add, lp_rounds : int
        Initial active rows (at least 2 (d + 2)), rows added per round (at least d + 2), and
        rounds of the float cutting-plane LP (after them the exact stage takes over; nothing
        is left undecided for lack of rounds).
    label_seconds : float or None
        Per-label CPU-second budget: every stage of a label past the screens, both domains,
        run in one child process that is killed when its CPU time reaches the budget
        (:mod:`logitgeom.audit.labelrun`).  None (the default): no budget, every label is
        decided.  When exceeded, the domains not yet decided are ``undecided`` with a
        reason naming this budget; a finite positive number, or refused.
    shared_supports : bool
        Prove clustered never labels together (:mod:`logitgeom.audit.shared`): once a label
        has a never-proof on d + 1 rows, the other labels inside the same rows are proven
        by one exact solve with many right-hand sides (heads without a bias, domain "all";
        elsewhere nothing is shared).  False (the default): every label is proven alone.
        On, a resumed run may prove a label on another support than an uninterrupted one
        (the same verdicts, other bytes).
    shared_columns : int
        Most labels (solution columns) per exact shared solve; fewer when the columns'
        estimated size asks for it (memory).
    """

    radius: Fraction | None = None
    domains: tuple[str, ...] = ("all",)
    center: tuple[float, ...] | None = None
    ascent_steps: int = 8
    lp_rows: int = 1024
    lp_add: int = 512
    lp_rounds: int = 60
    label_seconds: float | None = None
    shared_supports: bool = False
    shared_columns: int = 32


class BudgetExceeded(Exception):
    """The per-label budget (:attr:`Options.label_seconds`) ran out."""


# ------------------------------------------------------------------------ exact helpers
def exact_rows_int(head: Head, idx) -> tuple[list[list[int]], list[int] | None, int, int]:
    """Rows idx (and their biases) as integers over common denominators.

    Returns ``(rows, bias, den_w, den_b)`` with ``w_i = rows[n] / den_w`` and
    ``b_i = bias[n] / den_b`` exactly (``bias`` None without a bias).
    """
    idx = [int(i) for i in idx]
    if head.exact_rows_binary():
        A = head.rows(idx)
        flat, e = float_ints(A)
        d = head.d
        rows = [flat[n * d:(n + 1) * d] for n in range(len(idx))]
        den_w, rows = (1 << -e, rows) if e < 0 else (1, [[v << e for v in r] for r in rows])
    else:
        F = [head.exact_row(i) for i in idx]
        den_w = math.lcm(*(q.denominator for r in F for q in r))
        rows = [[q.numerator * (den_w // q.denominator) for q in r] for r in F]
    bias = None
    den_b = 1
    if head.bias is not None:
        bq = [head.exact_bias(i) for i in idx]
        den_b = math.lcm(*(q.denominator for q in bq))
        bias = [q.numerator * (den_b // q.denominator) for q in bq]
    return rows, bias, den_w, den_b


def _exact_margin(head: Head, k: int, i: int, xq: list[Fraction]) -> Fraction:
    wk, wi = head.exact_row(k), head.exact_row(i)
    s = sum(((a - b) * x for a, b, x in zip(wk, wi, xq, strict=True) if a != b), Fraction(0))
    return s + head.exact_bias(k) - head.exact_bias(i)


def _exact_margins_all(head: Head, k: int, xq: list[Fraction]) -> np.ndarray:
    """Signs of every margin at the rational x, in integer arithmetic (a slow fallback)."""
    den = math.lcm(*(q.denominator for q in xq))
    X = [q.numerator * (den // q.denominator) for q in xq]
    out = np.zeros(head.k, dtype=np.int8)
    step = max(1, (1 << 16) // max(1, head.d))
    ref, bref, den_w, den_b = exact_rows_int(head, [k])
    for r0 in range(0, head.k, step):
        idx = list(range(r0, min(head.k, r0 + step)))
        R, B, dw, db = exact_rows_int(head, idx)
        for n, i in enumerate(idx):
            s = Fraction(sum(a * x for a, x in zip(R[n], X, strict=True)), dw * den)
            m = Fraction(sum(a * x for a, x in zip(ref[0], X, strict=True)), den_w * den) - s
            if B is not None and bref is not None:  # both set exactly when the head has a bias
                m += Fraction(bref[0], den_b) - Fraction(B[n], db)
            out[i] = (m > 0) - (m < 0)
    out[k] = 1
    return out


def _in_box(x: np.ndarray, radius: Fraction | None) -> bool:
    if radius is None:
        return True
    return Fraction(float(np.max(np.abs(x)))) <= radius if x.size else True


def violations(head: Head, k: int, x: np.ndarray, xq: list[Fraction] | None = None,
               s: np.ndarray | None = None, stats: dict | None = None) -> np.ndarray:
    """The rows i != k whose margin at x is <= 0, decided exactly (increasing order).

    ``x`` is a float64 vector taken at its exact binary value, or, when ``xq`` (exact
    rationals) is given, the float rounding of ``xq`` used only to sort margins into
    "clearly positive", "clearly negative" and "decide exactly" (docs/argmax-audit.md,
    section 3; the bound is widened for the rounding of x and of non-binary heads).
    ``s`` may pass ``fl(W x)`` when already computed.
    """
    if xq is None and not np.all(np.isfinite(x)):
        raise ValueError("a witness proposal must be finite")
    if np.all(np.isfinite(x)):
        with np.errstate(over="ignore", invalid="ignore"):
            if s is None:
                s = head.matmul(x[:, None])[:, 0]
    else:
        s = None
    if s is None or not np.all(np.isfinite(s)):
        if xq is None:
            xq = [Fraction(v) for v in x.tolist()]
        if stats is not None:
            stats["exact_pairs"] = stats.get("exact_pairs", 0) + head.k - 1
        return np.flatnonzero(_exact_margins_all(head, k, xq) <= 0)
    b = head.bias if head.bias is not None else np.zeros(head.k)
    m = (s[k] + b[k]) - (s + b)
    extra = (0 if head.binary else 1) + (0 if xq is None else 1)
    nx = norm_bound(x)
    nrm = head.norms()
    bound = margin_factor(head.d, extra) * ((nrm[k] + nrm) * nx + abs(b[k]) + np.abs(b)) \
        + UNDERFLOW_SLACK
    m[k] = np.inf
    neg = np.flatnonzero(m < -bound)
    amb = np.flatnonzero(np.abs(m) <= bound)
    amb = amb[amb != k]
    if stats is not None:
        stats["exact_pairs"] = stats.get("exact_pairs", 0) + int(amb.size)
    if amb.size:
        if xq is None:
            xq = [Fraction(v) for v in x.tolist()]
        bad = [i for i in amb.tolist() if _exact_margin(head, k, i, xq) <= 0]
        if bad:
            neg = np.union1d(neg, np.array(bad, dtype=np.int64))
    return neg


def confirm_witness(head: Head, k: int, x: np.ndarray, s: np.ndarray | None = None,
                    stats: dict | None = None) -> bool:
    """Exactly decide whether every margin of label k at x is positive.

    ``s`` may pass ``fl(W x)`` when already computed.  Clear pairs are decided by the float
    value against :func:`logitgeom.exact.filtered.margin_factor`; the others in rational arithmetic.
    """
    if not np.all(np.isfinite(x)):
        return False
    return violations(head, k, x, s=s, stats=stats).size == 0


def recheck_witnesses(head: Head, entries: list[tuple[int, str, dict]],
                      radius: Fraction | None) -> str | None:
    """Re-check written witnesses against every row of the head, exactly; None when all hold,
    else what fails.

    ``entries`` are ``(label, domain, witness)`` with ``witness`` as written in the
    certificate (``{"scale": "p/q"}``: x = t w_k, or ``{"x": ["p/q", ...]}``).  All of them
    share one float64 pass over the head; each margin is then decided by
    :func:`violations` (the rigorous filter of :mod:`logitgeom.exact.filtered`, rational
    arithmetic for the pairs it leaves), so no row is converted to integers unless its
    margin is within the bound.  The stdlib checker's re-check of a witness converts every
    row of the head to integers (O(n d) Python integer work per witness); this is the
    self-check's way of covering a sample of them on a head too large for that.

    Examples
    --------
    >>> import numpy as np
    >>> from logitgeom.audit.head import HeadSpec, open_head
    >>> h = open_head(HeadSpec.from_array(np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])))
    >>> recheck_witnesses(h, [(0, "all", {"scale": "3"}), (1, "all", {"x": ["-1/3", "1"]})],
    ...                   None) is None
    True
    >>> recheck_witnesses(h, [(2, "all", {"x": ["1", "1"]})], None)
    'label 2: margin against label 0 is not positive at the witness'
    """
    if not entries:
        return None
    xqs = []
    for k, _dom, w in entries:
        if "scale" in w:
            t = Fraction(w["scale"])
            xqs.append([t * q for q in head.exact_row(k)])
        else:
            xqs.append([Fraction(v) for v in w["x"]])
    X = np.array([[float(q) for q in xq] for xq in xqs], dtype=np.float64).T
    with np.errstate(over="ignore", invalid="ignore"):
        S = head.matmul(X) if np.all(np.isfinite(X)) else None
    for j, ((k, dom, _w), xq) in enumerate(zip(entries, xqs, strict=True)):
        if dom == "box" and radius is not None and max(map(abs, xq)) > radius:
            return f"label {k}: witness outside max_j |x_j| <= {radius}"
        bad = violations(head, k, X[:, j], xq, s=None if S is None else S[:, j])
        if bad.size:
            return f"label {k}: margin against label {int(bad[0])} is not positive at the witness"
    return None


def _witness_record(x: np.ndarray, t: float | None, stage: str) -> dict:
    if t is not None:
        return {"verdict": "argmaxable", "witness": {"scale": fraction_to_str(Fraction(t))},
                "stage": stage}
    return {"verdict": "argmaxable",
            "witness": {"x": [fraction_to_str(Fraction(v)) for v in x.tolist()]},
            "stage": stage}


def _rational_witness_record(xq: list[Fraction], stage: str) -> dict:
    return {"verdict": "argmaxable", "witness": {"x": [fraction_to_str(q) for q in xq]},
            "stage": stage}


def _primitive(vals: list[Fraction]) -> list[int]:
    den = math.lcm(*(q.denominator for q in vals))
    ints = [q.numerator * (den // q.denominator) for q in vals]
    g = math.gcd(*ints)
    return [v // g for v in ints]


def hadamard_digits(head: Head, k: int, rows: list[int]) -> int:
    """The digit bound the checker allows for the multipliers of a never-proof on ``rows``
    (certificates/SPEC.md section 9, "Number sizes"): with g_i the integer vectors
    D L (w_k - w_i, b_k - b_i) (L the rows' common denominator, D that of the bias
    differences), floor(B log10 2) + 2 digits for B = sum_i (ceil(bitlen(||g_i||^2) / 2) + 1),
    Hadamard's bound on the minors that Cramer's rule makes of a basic solution.

    Examples
    --------
    >>> import numpy as np
    >>> from logitgeom.audit.head import HeadSpec, open_head
    >>> h = open_head(HeadSpec.from_array(np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])))
    >>> hadamard_digits(h, 2, [0, 1])
    3
    """
    if head.bias is None and head.exact_rows_binary():
        sq = _diff_sq_norms(head.rows([k, *rows]))
        if sq is not None:
            return sum((v.bit_length() + 1) // 2 + 1 for v in sq) * 30103 // 100000 + 2
    R, _, L, _ = exact_rows_int(head, [k, *rows])
    db = [head.exact_bias(k) - head.exact_bias(i) for i in rows] if head.bias is not None \
        else [Fraction(0)] * len(rows)
    D = math.lcm(*(q.denominator for q in db))
    bits = 0
    for r, q in zip(R[1:], db, strict=True):
        g = [(a - w) * D for a, w in zip(R[0], r, strict=True)]
        g.append(q.numerator * (D // q.denominator) * L)
        bits += (sum(a * a for a in g).bit_length() + 1) // 2 + 1
    return bits * 30103 // 100000 + 2


def _diff_sq_norms(A: np.ndarray) -> list[int] | None:
    """``||m (a_0 - a_i)||^2`` exactly for the rows i >= 1 of the float64 matrix A, with m
    the power of two that makes every entry of A an integer (the smallest such), as
    :func:`exact_rows_int` scales them; None when those integers do not fit int64 with room
    (then the caller takes Python integers).  The squares are summed as 21-bit limbs in
    int64: each product is below 2^42, and d < 2^21 of them stay below 2^63."""
    if A.shape[0] < 2 or A.shape[1] >= 1 << 21:
        return None
    try:
        mant, shift, _, width = float_int64(A)  # A = (mant << shift) 2^e, e the least exponent
    except ValueError:  # a NaN or infinite entry
        return None
    if width > 61:  # the widest integer's bits
        return None
    ints = mant << shift  # exact: integers below 2^61
    G = np.abs(ints[0][None, :] - ints[1:])  # < 2^62
    lim = [(G >> (21 * t)) & ((1 << 21) - 1) for t in range(3)]
    out = [0] * G.shape[0]
    for s in range(3):
        for t in range(s, 3):
            part = np.einsum("ij,ij->i", lim[s], lim[t])  # exact: < 2^21 2^42
            f = 2 if s != t else 1
            out = [o + ((f * int(v)) << (21 * (s + t))) for o, v in zip(out, part.tolist(),
                                                                       strict=True)]
    return out


def _digits_fit(head: Head, k: int, rows: list[int], c: list[int]) -> bool:
    """Whether the checker reads these multipliers: each at most 4,000 digits, or at most
    the Hadamard bound of the proof's rows (:func:`hadamard_digits`)."""
    if all(v.bit_length() <= 13000 for v in c):  # < 3,914 digits
        return True
    top = max(abs(v) for v in c)  # at most B digits <=> |v| < 10^B (no decimal text made)
    return top < 10 ** max(MAX_DIGITS, hadamard_digits(head, k, rows))


def check_multipliers(head: Head, k: int, rows: list[int], c: list[int],
                      radius: Fraction | None) -> bool:
    """Exactly: c > 0, and sum c_i (w_k - w_i) = 0 with sum c_i (b_k - b_i) <= 0 (radius
    None), or sum c_i (b_k - b_i) + R ||sum c_i (w_k - w_i)||_1 <= 0 (radius R); at most
    2 (d + 1) rows (2 (d + 2) with a bias), and numbers no longer than the checker reads
    (:func:`hadamard_digits`), as the certificate format requires."""
    cap = 2 * (head.d + (2 if head.bias is not None else 1))
    if not rows or any(v <= 0 for v in c) or k in rows or len(set(rows)) != len(rows) \
            or len(rows) > cap or not _digits_fit(head, k, rows, c):
        return False
    R, b, den_w, den_b = exact_rows_int(head, [k, *rows])
    # sum c_i (w_k - w_i) = (sum c) w_k - sum c_i w_i, in integers
    tot = sum(c)
    v = [tot * a - s for a, s in zip(R[0], int_combination(c, R[1:]), strict=True)]
    beta = 0 if b is None else sum(ci * (b[0] - bi) for ci, bi in zip(c, b[1:], strict=True))
    if radius is None:
        return not any(v) and beta <= 0
    total = Fraction(beta, den_b) + radius * Fraction(sum(abs(t) for t in v), den_w)
    return total <= 0


def _never(rows: list[int], c: list[int], stage: str) -> dict:
    order = sorted(range(len(rows)), key=lambda n: rows[n])
    return {"verdict": "never", "rows": [rows[n] for n in order],
            "multipliers": [int_str(c[n]) for n in order], "stage": stage}


def _budget(opts: Options, t_label: float, stage: str) -> None:
    if opts.label_seconds is not None and time.process_time() - t_label > opts.label_seconds:
        raise BudgetExceeded(stage)


