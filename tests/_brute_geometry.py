"""Brute-force references for the counting tests: exact LPs (cdd.gmp) over all sign vectors.

Only for tiny inputs (2^m sign vectors).  Independent of logitgeom.exact.lattice.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import cdd
import cdd.gmp


def strictly_feasible(rows, signs, bias=None) -> bool:
    """Exists x with s_i (w_i . x + b_i) > 0 for all i?  Exact LP: max t, s_i(...) >= t, t <= 1."""
    d = len(rows[0])
    arr = []
    for i, (r, s) in enumerate(zip(rows, signs, strict=True)):
        b = Fraction(bias[i]) if bias is not None else Fraction(0)
        arr.append([s * b] + [s * Fraction(x) for x in r] + [Fraction(-1)])
    arr.append([Fraction(1)] + [Fraction(0)] * d + [Fraction(-1)])
    arr.append([Fraction(0)] + [Fraction(0)] * d + [Fraction(1)])
    lp = cdd.gmp.linprog_from_array(arr, obj_type=cdd.LPObjType.MAX)
    cdd.gmp.linprog_solve(lp)
    return lp.status == cdd.LPStatusType.OPTIMAL and lp.obj_value > 0


def brute_sign_vectors(rows, bias=None) -> set[tuple[int, ...]]:
    """All strict sign vectors of the non-constant rows (constant rows are skipped)."""
    idx = [i for i, r in enumerate(rows) if any(Fraction(x) != 0 for x in r)]
    sub = [rows[i] for i in idx]
    sb = [bias[i] for i in idx] if bias is not None else None
    if not sub:
        return {()}
    return {s for s in itertools.product((-1, 1), repeat=len(sub)) if strictly_feasible(sub, s, sb)}


def brute_regions(rows, bias=None) -> int:
    return len(brute_sign_vectors(rows, bias))


def brute_rankings(rows, bias=None) -> int:
    """Orders of the distinct labels (tie classes) realised strictly, by exact LP."""
    k = len(rows)
    keys = {}
    for i in range(k):
        key = (tuple(Fraction(x) for x in rows[i]), Fraction(bias[i]) if bias is not None else None)
        keys.setdefault(key, i)
    reps = sorted(keys.values())
    n = 0
    for perm in itertools.permutations(reps):
        chain = [
            [
                Fraction(a) - Fraction(b)
                for a, b in zip(rows[perm[t]], rows[perm[t + 1]], strict=True)
            ]
            for t in range(len(perm) - 1)
        ]
        cb = None
        if bias is not None:
            cb = [
                Fraction(bias[perm[t]]) - Fraction(bias[perm[t + 1]]) for t in range(len(perm) - 1)
            ]
        if not chain or (any(any(r) for r in chain) and _chain_ok(chain, cb)):
            n += 1
        elif chain and not any(any(r) for r in chain) and cb is not None and all(c > 0 for c in cb):
            n += 1
    return n


def _chain_ok(chain, cb):
    # constant rows (w difference 0) must have positive bias difference; others strict LP
    d = len(chain[0])
    rows, bias = [], []
    for t, r in enumerate(chain):
        c = cb[t] if cb is not None else Fraction(0)
        if not any(r):
            if c <= 0:
                return False
            continue
        rows.append(r)
        bias.append(c)
    if not rows:
        return True
    del d
    return strictly_feasible(rows, [1] * len(rows), bias)
