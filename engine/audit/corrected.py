"""Corrected never-proofs: never labels proven on one exact factorisation of a fixed simplex.

The shared supports of :mod:`logitgeom.audit.shared` prove a label on a simplex S only when
its row lies inside S; with 1e-3 relative noise a cluster's labels mostly do not (one
simplex holds a shrinking share of a cluster as d grows).  A corrected proof needs no such
luck.  For a label k whose row lies inside the hull of a pool of rows P (with S in P):

1. **floats propose** ``lambda >= 0`` on P with ``sum lambda_i w_i = w_k``,
   ``sum lambda_i = 1`` and ``lambda_i >= beta / (d + 1)`` on S (every row of S keeps a
   share): Wolfe's corral of a point moved away from S's centre, mixed with beta on S, or a
   float LP (HiGHS) with those lower bounds when Wolfe stalls;
2. **dyadic rounding**: ``Lambda = floor(2^s lambda)`` (integers), improved by iterative
   refinement on the LP's basic rows with *exact* integer residuals until the residual
   ``r = 2^s w_k - sum Lambda_i w_i`` (and ``2^s - sum Lambda_i``) is small, then on S;
3. **one exact correction on S**: ``A_S N = D r`` with ``A_S = [W_S^T; 1]``, solved for all
   labels at once by p-adic lifting against one :class:`logitgeom.exact.dixon.Factorisation`
   (D = ``|det A_S|``);
4. **acceptance**: the multipliers ``c = D Lambda + N`` (N on S) satisfy
   ``sum c_i w_i = (sum c_i) w_k`` because ``A_S N = D r`` holds exactly: the lifting
   computes N in integer arithmetic only (Dixon's theorem, :mod:`logitgeom.exact.dixon`),
   and r is the exact residual of Lambda.  The label is proven if every ``c_i > 0`` and the
   proof has at most 2 (d + 1) rows and numbers the checker reads; a cheap modular
   re-check of the identity (:func:`_guard`) refuses it if the software erred, and the
   run's stdlib self-check re-checks the written Gordan identity of every never-proof.
   Floats never decide.

The proof has the label's basic rows plus S: at most 2 (d + 1) rows, which the certificate
format allows (certificates/SPEC.md section 9).  Only the last step is exact linear
algebra, and it is shared: per label, one lifted column instead of one exact solve of its
own (d + 1)-square system.  The derivation is in docs/argmax-audit.md, section 5.

Scope: heads without a bias, domain "all" (as :mod:`logitgeom.audit.shared`), integer rows
narrow enough for the lifting (:func:`logitgeom.exact.dixon.lifting_plan`); anything else
proves nothing here and the labels go the one-label path.

Examples
--------
>>> import numpy as np
>>> from logitgeom.audit.head import HeadSpec, open_head
>>> from logitgeom.audit.proofs import Options, check_multipliers
>>> W = np.array([[4.0, 0.0], [-2.0, 3.0], [-2.0, -3.0], [3.0, 3.0], [0.5, 0.25], [0.6, -0.5]])
>>> h = open_head(HeadSpec.from_array(W))
>>> recs = prove_corrected(h, (0, 1, 2), [4, 5], [0, 1, 2, 3], Options(), {})
>>> sorted(recs), recs[4]["stage"]
([4, 5], 'corrected')
>>> all(check_multipliers(h, k, r["rows"], [int(v) for v in r["multipliers"]], None)
...     for k, r in recs.items())
True
"""

from __future__ import annotations

import math
import time
import warnings

import numpy as np

from logitgeom.audit.bounded import note_partial, note_stage
from logitgeom.audit.head import Head
from logitgeom.audit.proofs import Options, _digits_fit, _never, exact_rows_int
from logitgeom.exact.dixon import split_limbs

__all__ = ["prove_corrected", "prepare", "simplex_matrix", "exact_combination", "BETA",
           "S_BITS"]

#: Each row of S keeps at least BETA / (d + 1) of the float solution's weight.
BETA = 1e-3
#: Lambda = floor(2^S_BITS lambda): the float solution's dyadic granularity.
S_BITS = 64
#: Float LP wall-clock limit (s) per label.
LP_SECONDS = 60.0
#: The lifting takes right-hand sides of at most this many bits.
_RHS_BITS = 60

#: This process's factorisations: (SHA-256 of A_S, Factorisation), the newest two.
_FACTORS: list = []


class _Limbs:
    """An int64 matrix M (entries of at most 62 bits) cut once into signed float64 limbs
    of cb bits (:func:`logitgeom.exact.dixon.split_limbs`), for many exact combinations
    ``sum_i lam_i M_i`` with the same rows (a label's refinement re-forms its residual up
    to a dozen times)."""

    def __init__(self, M: np.ndarray):
        m, self.d = M.shape
        top = max(int(M.max()), -int(M.min())) if M.size else 0  # |M| < 2^62
        room = 53 - max(1, (m - 1).bit_length())  # bits of one limb product (m <= 2^lg)
        self.cb = cb = max(1, min(room // 2, top.bit_length() or 1))
        self.lb = room - cb
        self.parts = split_limbs(M, cb)  # |limb| < 2^cb, M's sign

    def combine(self, lam: list[int]) -> list[int]:
        """``sum_i lam_i M_i`` exactly: every float64 product of a limb row of ``lam``
        (below 2^lb) with a limb of M (below 2^cb) sums m integers below 2^(53 - lg)."""
        lb, d = self.lb, self.d
        big = max((abs(v) for v in lam), default=0)
        count = max(1, -(-big.bit_length() // lb))
        mask = (1 << lb) - 1
        L = np.array([[((abs(v) >> (lb * s)) & mask) * (1 if v >= 0 else -1) for v in lam]
                      for s in range(count)], dtype=np.float64)  # |entries| < 2^lb
        out = [0] * d
        for t, Mt in enumerate(self.parts):
            P = (L @ Mt).astype(np.int64)  # exact: |sum| < m 2^(lb + cb) <= 2^53
            for s in range(count):
                sh = lb * s + self.cb * t
                out = [o + (int(p) << sh) for o, p in zip(out, P[s].tolist(), strict=True)]
        return out


def exact_combination(lam: list[int], M: np.ndarray) -> list[int]:
    """``sum_i lam_i M_i`` exactly (Python integers), for integers ``lam`` and an int64
    matrix M (one row per entry of ``lam``, entries of at most 62 bits).

    Both sides are cut into limbs narrow enough that every float64 product of a limb row
    of ``lam`` with a limb of M is a sum of ``len(lam)`` integers below 2^(53 - lg), so
    exact (lg = bits of ``len(lam)``); signs ride on M's limbs.  The limb products are
    then summed in Python integers, ``d`` numbers per pair of limbs.

    Examples
    --------
    >>> exact_combination([3, 2**70], np.array([[1, -2], [5, 7]], dtype=np.int64))
    [5902958103587056517123, 8264141345021879123962]
    """
    if not lam:
        return [0] * M.shape[1]
    if M.shape[0] > 1 << 30:  # pragma: no cover - far beyond any head
        return [int(v) for v in np.dot(np.array(lam, dtype=object), M.astype(object))]
    return _Limbs(M).combine(list(lam))


def _float_weights(P: np.ndarray, t: np.ndarray, lb: np.ndarray) -> np.ndarray | None:
    """A basic float solution of ``P^T lambda = t, sum lambda = 1, lambda >= lb`` (rows of
    P scaled), nearest rows weighted first (Delaunay heights), or None."""
    from scipy.optimize import linprog

    h = np.einsum("ij,ij->i", P - t, P - t)
    A = np.vstack([P.T, np.ones((1, P.shape[0]))])
    bounds = np.column_stack([lb, np.full(lb.size, np.inf)])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = linprog(h / max(float(h.max()), 1e-300), A_eq=A, b_eq=np.r_[t, 1.0],
                        bounds=bounds, method="highs-ds", options={"time_limit": LP_SECONDS})
    except ValueError:
        return None
    return r.x if r.status == 0 and r.x is not None else None


def _warm_start(Pk: np.ndarray, rows: list[int]) -> np.ndarray | None:
    """The barycentric weights of 0 on the d + 1 points ``rows`` of Pk (the previous label's
    corral; one float solve) when all are positive, else None.  A proposal only, like
    Wolfe's."""
    d = Pk.shape[1]
    if len(rows) != d + 1:
        return None
    A = np.vstack([Pk[rows].T, np.ones((1, d + 1))])
    e = np.zeros(d + 1)
    e[-1] = 1.0
    try:
        mu = np.linalg.solve(A, e)
    except np.linalg.LinAlgError:
        return None
    return mu if np.all(np.isfinite(mu)) and np.all(mu > 0) else None


def _proposal(P: np.ndarray, keep: np.ndarray, t: np.ndarray, centre: np.ndarray,
              floor: np.ndarray, beta: float, warm: list[int] | None = None,
              stats: dict | None = None) -> tuple[np.ndarray | None, list[int] | None]:
    """Float weights on the pool's rows (S first, the rows ``keep`` only) for the point t
    with at least ``floor`` on S: Wolfe's corral (:func:`logitgeom.audit.wolfe.min_norm_corral`)
    of ``q = (t - beta c_S) / (1 - beta)`` (c_S the centre of S), then
    ``(1 - beta) lambda_q + beta / (d + 1)`` on S; the float LP when Wolfe stalls.  ``warm``:
    the previous label's corral (pool positions), where a cluster's next label starts
    (:func:`_warm_start`): when that corral holds it, its weights are the proposal
    (``stats["corrected_warm_held"]`` counts them), else Wolfe starts from scratch.
    Returns the weights (or None) and this label's corral."""
    from logitgeom.audit.wolfe import min_norm_corral

    n = int(np.count_nonzero(floor))
    q = (t - beta * centre) / (1.0 - beta)
    Pk = P[keep] - q
    held = None
    if warm is not None:
        where = {int(p): i for i, p in enumerate(keep.tolist())}
        rows = [where[p] for p in warm if p in where]
        with np.errstate(all="ignore"):
            mu = _warm_start(Pk, rows)
        if mu is not None:
            held = ("in", rows, mu)
            if stats is not None:
                _count(stats, "corrected_warm_held")
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # else from scratch: a start from the positive part cost more on the cluster
        # benchmark's pool (27.3 against 22.4 CPU s for 8 labels)
        kind, C, lam = held if held is not None else min_norm_corral(Pk)
    full = np.zeros(P.shape[0])
    if kind == "in" and np.all(lam > 0):
        corral = keep[np.asarray(C, dtype=int)]
        full[corral] = (1.0 - beta) * lam / lam.sum()
        full[:n] += beta / n
        return full, [int(p) for p in corral]
    if kind == "out":
        return None, None
    x = _float_weights(P[keep], t, floor[keep])
    if x is None:
        return None, None
    full[keep] = x
    return full, None


class _System:
    """The integer rows of a pool (S first) over one common denominator, as int64, and
    the float factorisation of ``A_S`` for refinement."""

    def __init__(self, head: Head, S: tuple[int, ...], pool: list[int], labels: list[int]):
        import scipy.linalg as sla

        self.S, self.d = S, head.d
        self.pool = list(S) + [i for i in pool if i not in set(S)]
        R, _, den, _ = exact_rows_int(head, [*self.pool, *labels])
        top = max((abs(v) for r in R for v in r), default=0)
        if top.bit_length() > 62:
            raise ValueError("rows too wide for int64")
        self.M = np.array(R[:len(self.pool)], dtype=np.int64)
        self.L = {k: np.array(r, dtype=np.int64) for k, r in zip(labels, R[len(self.pool):],
                                                                   strict=True)}
        self.shift = max(0, top.bit_length() - 1)  # float rows scaled by 2^-shift
        n = len(S)
        self.A_S, den_s = simplex_matrix(head, S)
        self.A_q = np.array([[v % _GUARD_PRIME for v in r] for r in self.A_S], dtype=np.int64)
        # the pool's rows are S's own integers times g: A_S (g delta) = [r_top; g r_bottom]
        self.g, rest = divmod(den, den_s)
        if rest or self.g < 1:
            raise ValueError("the pool's denominator is not a multiple of the simplex's")
        Af = np.vstack([np.ldexp(self.M[:n].T.astype(np.float64), -self.shift),
                        np.ones((1, n))])
        self.lu = sla.lu_factor(Af, check_finite=False)

    def residual(self, k: int, lam: dict[int, int], rows: tuple[list[int], _Limbs]
                 ) -> list[int]:
        """``[2^s w_k - sum Lambda_i w_i; 2^s - sum Lambda_i]`` in integers (pool positions;
        ``rows`` the positions Lambda may use, with their limbs)."""
        pos, limbs = rows
        comb = limbs.combine([lam.get(i, 0) for i in pos])
        wk = self.L[k].tolist()
        r = [(a << S_BITS) - c for a, c in zip(wk, comb, strict=True)]
        r.append((1 << S_BITS) - sum(lam.values()))
        return r

    def scaled(self, r: list[int]) -> np.ndarray:
        return np.array([math.ldexp(float(v), -self.shift) if abs(v) < 1 << 1000 else
                         math.copysign(math.inf, v) for v in r[:-1]] + [float(r[-1])])


def _dyadic(sysm: _System, k: int, x: np.ndarray, beta: float
            ) -> tuple[dict[int, int], list[int]] | None:
    """Lambda (pool position -> integer) and the lifting's right-hand side
    ``[r_top; g r_bottom]`` from its exact residual r, refined until that fits the lifting;
    None when it does not."""
    import scipy.linalg as sla

    n = len(sysm.S)
    lam = {j: int(math.ldexp(float(v), S_BITS)) for j, v in enumerate(x.tolist()) if v > 0}
    lam = {j: v for j, v in lam.items() if v > 0 or j < n}
    basis = [j for j in lam if j >= n or x[j] > beta * (1 + 1e-6)]
    A = np.vstack([np.ldexp(sysm.M[basis].T.astype(np.float64), -sysm.shift),
                   np.ones((1, len(basis)))])
    with np.errstate(all="ignore"):
        Q, Rr = np.linalg.qr(A)
    pos = sorted(lam)  # every position the refinement may touch: basic rows and S
    rows = (pos, _Limbs(sysm.M[pos]))
    r = sysm.residual(k, lam, rows)
    for _ in range(8):  # refine on the basic rows
        if max(abs(v) for v in r).bit_length() <= _RHS_BITS - 20:
            break
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            df = sla.solve_triangular(Rr, Q.T @ sysm.scaled(r), check_finite=False)
        if not np.all(np.isfinite(df)):
            return None
        for j, v in zip(basis, df.tolist(), strict=True):
            lam[j] = lam.get(j, 0) + int(round(v))
        lam = {j: v for j, v in lam.items() if v > 0 or j < n}
        r = sysm.residual(k, lam, rows)
    for _ in range(4):  # then on S
        if max(abs(v) for v in r).bit_length() <= _RHS_BITS - 10:
            break
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            df = sla.lu_solve(sysm.lu, sysm.scaled(r), check_finite=False)
        if not np.all(np.isfinite(df)):
            return None
        for j, v in enumerate(df.tolist()):
            lam[j] = lam.get(j, 0) + int(round(v))
        r = sysm.residual(k, lam, rows)
    r[-1] *= sysm.g
    if max(abs(v) for v in r).bit_length() > _RHS_BITS or min(lam.get(j, 0) for j in range(n)) <= 0:
        return None
    return lam, r


#: The prime of :func:`_guard` (2^31 - 1): residues below 2^31, products below 2^62.
_GUARD_PRIME = (1 << 31) - 1


def _guard(A_S: np.ndarray, N: list[int], det: int, b: list[int]) -> bool:
    """``A N = det b`` modulo :data:`_GUARD_PRIME` (``A_S`` its residues, int64).  The
    lifting's answer satisfies the identity exactly by construction (Dixon's theorem,
    :mod:`logitgeom.exact.dixon`) and the run's stdlib self-check re-checks every written
    proof; this costs (d + 1)^2 int64 products and refuses a label only if the software
    that computed N is wrong (it never accepts one on its own)."""
    q = _GUARD_PRIME
    Nq = np.array([v % q for v in N], dtype=np.int64)
    lo, hi = Nq & 0xFFFF, Nq >> 16  # A (< 2^31) times 16-bit halves: sums < n 2^47
    got = ((A_S @ hi) % q * (1 << 16) + (A_S @ lo) % q) % q
    want = np.array([det % q * (v % q) % q for v in b], dtype=np.int64)
    return bool(np.array_equal(got, want))


def _reduced(values: list[int]) -> list[int]:
    """Positive integers divided by their gcd: first the common power of two (bit
    operations; the determinant of a simplex of dyadic rows carries a large one), then the
    odd part, stopping as soon as the gcd is 1 (usually after two or three numbers)."""
    tz = min((v & -v).bit_length() - 1 for v in values)
    vals = [v >> tz for v in values] if tz else list(values)
    h = 0
    for v in vals:
        h = math.gcd(h, v)
        if h == 1:
            return vals
    return [v // h for v in vals]


def _count(stats: dict, key: str) -> None:
    stats[key] = stats.get(key, 0) + 1


def simplex_matrix(head: Head, S) -> tuple[list[list[int]], int]:
    """``A_S = [W_S^T; 1 ... 1]`` in integers (S's rows over their own common denominator
    L, returned too): the matrix a simplex's factorisation is made of, the same for every
    batch on S."""
    own, _, den_s, _ = exact_rows_int(head, list(S))
    return [list(col) for col in zip(*own, strict=True)] + [[1] * len(own)], den_s


def _key(A_S: list[list[int]]) -> str:
    import hashlib

    return hashlib.sha256(repr(A_S).encode()).hexdigest()


def _make_factor(A_S: list[list[int]]):  # pragma: no cover - in a bounded child
    from logitgeom.exact.dixon import Factorisation

    note_stage("corrected_factor")
    return Factorisation(A_S)


def prepare(head: Head, S, budget: float | None, stats: dict | None = None) -> bool:
    """Make this process's factorisation of ``A_S`` (:func:`simplex_matrix`) once, in a
    bounded child (:func:`logitgeom.audit.bounded.run_bounded`, ``budget`` CPU seconds),
    so that every batch on S, each in a child forked from this process, finds it made.
    False when it cannot be made (singular, too wide, the budget ran out).  The child's CPU
    seconds are added to ``stats["corrected_factor"]``.

    Examples
    --------
    >>> import numpy as np
    >>> from logitgeom.audit.head import HeadSpec, open_head
    >>> h = open_head(HeadSpec.from_array(np.array([[4.0, 0.0], [-2.0, 3.0], [-2.0, -3.0]])))
    >>> prepare(h, (0, 1, 2), None)
    True
    """
    from logitgeom.audit.bounded import ChildDied, run_bounded

    S = tuple(sorted(int(i) for i in S))
    if len(S) != head.d + 1:
        return False
    A_S, _ = simplex_matrix(head, S)
    key = _key(A_S)
    if _cached(key) is not None:
        return True
    try:
        kind, F, cpu = run_bounded(_make_factor, (A_S,), budget)
    except (ChildDied, ValueError):
        return False
    if stats is not None:
        stats["corrected_factor"] = stats.get("corrected_factor", 0.0) + cpu
    if kind != "ok":
        return False
    _remember(key, F)
    return True


def _cached(key: str):
    return next((F for kk, F in _FACTORS if kk == key), None)


def _remember(key: str, F) -> None:
    _FACTORS.insert(0, (key, F))
    del _FACTORS[2:]


def _factor(A_S: list[list[int]]):
    from logitgeom.exact.dixon import Factorisation

    key = _key(A_S)
    F = _cached(key)
    if F is not None:
        return F
    F = Factorisation(A_S)
    _remember(key, F)
    return F


def prove_corrected(head: Head, S, labels, pool, opts: Options, stats: dict,
                    beta: float = BETA) -> dict[int, dict]:
    """Never records (stage ``"corrected"``) for the labels proven with one exact
    correction on the simplex S each (module docstring); labels not proven are left out.
    Each accepted record is also handed to a waiting parent (:func:`note_partial`).

    Parameters
    ----------
    head : Head
        A head without a bias.
    S : sequence of int
        d + 1 rows (not among ``labels``; labels in S are skipped).
    labels : sequence of int
        Labels to try.
    pool : sequence of int
        The rows the float LP may use (S is added).
    opts : Options
        Its :attr:`Options.shared_columns` bounds the columns of one lifting.
    stats : dict
        Stage seconds, updated: ``corrected_setup`` (the pool's exact rows and S's float
        factorisation), ``corrected_float`` (proposals and refinement), ``corrected_solve``
        (factorisation and lifting) and ``corrected_check``; and counts of the labels each
        step gave up on: ``corrected_no_lp`` (the LP found no solution: the pool's hull may
        not hold the row), ``corrected_no_rounding`` (the residual stayed too wide),
        ``corrected_negative`` (a multiplier came out negative: beta too small for this S)
        and ``corrected_rejected`` (the modular guard or the size checks refused; the
        guard is expected never to); ``corrected_warm_held`` (:func:`_proposal`).
    beta : float
        Each row of S keeps at least beta / (d + 1) of the float weight.

    Returns
    -------
    dict
        ``{label: never record}``.
    """
    S = tuple(sorted(int(i) for i in S))
    labels = [int(k) for k in labels if int(k) not in set(S)]
    d = head.d
    if not labels or head.bias is not None or len(S) != d + 1:
        return {}
    note_stage("corrected")
    t0 = time.process_time()
    try:
        sysm = _System(head, S, sorted({int(i) for i in pool} | set(S)), labels)
    except (ValueError, np.linalg.LinAlgError):
        return {}
    scale = head.scale()
    P = head.rows(sysm.pool) * scale
    floor = np.zeros(len(sysm.pool))
    floor[:d + 1] = beta / (d + 1)
    centre = P[:d + 1].mean(axis=0)
    stats["corrected_setup"] = stats.get("corrected_setup", 0.0) + time.process_time() - t0
    t0 = time.process_time()
    items = []
    warm = None
    for k in labels:
        keep = np.flatnonzero([i != k for i in sysm.pool])
        full, corral = _proposal(P, keep, head.rows([k])[0] * scale, centre, floor, beta,
                                 warm, stats)
        warm = corral if corral is not None else warm
        if full is None:
            _count(stats, "corrected_no_lp")
            continue
        got = _dyadic(sysm, k, full, beta)
        if got is None:
            _count(stats, "corrected_no_rounding")
        else:
            items.append((k, *got))
    stats["corrected_float"] = stats.get("corrected_float", 0.0) + time.process_time() - t0
    if not items:
        return {}
    t0 = time.process_time()
    try:
        F = _factor(sysm.A_S)
    except ValueError:
        return {}
    cap = max(1, int(opts.shared_columns))
    sols: list[list[int]] = []
    for c0 in range(0, len(items), cap):
        sols.extend(F.solve([rhs for _, _, rhs in items[c0:c0 + cap]]))
    stats["corrected_solve"] = stats.get("corrected_solve", 0.0) + time.process_time() - t0
    t0 = time.process_time()
    out: dict[int, dict] = {}
    D = F.det * sysm.g  # A_S N = F.det [r_top; g r_bottom]: c = g D Lambda + N
    cap = 2 * (d + 1)
    for (k, lam, rhs), N in zip(items, sols, strict=True):
        c = {j: D * v for j, v in lam.items()}
        for j, v in enumerate(N):
            c[j] = c.get(j, 0) + v
        if any(v < 0 for v in c.values()):
            _count(stats, "corrected_negative")
            continue
        pos = sorted((sysm.pool[j], v) for j, v in c.items() if v > 0)
        rows, mult = [i for i, _ in pos], _reduced([v for _, v in pos])
        if _guard(sysm.A_q, N, F.det, rhs) and k not in rows \
                and len(rows) <= cap and _digits_fit(head, k, rows, mult):
            out[k] = _never(rows, mult, "corrected")
            note_partial((k, out[k]))
        else:
            _count(stats, "corrected_rejected")
    stats["corrected_check"] = stats.get("corrected_check", 0.0) + time.process_time() - t0
    return out
