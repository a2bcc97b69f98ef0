"""The constraint rows of Logitgeom.v, mirrored in Python, and infeasibility certificates.

The Coq checkers build their rows themselves (``sign_rows``, ``rank_rows``); Gordan
multipliers must come in the same order, so this module lists the rows exactly as the Coq
functions do, and gets multipliers from the engine's exact LP (:func:`logitgeom.exact.lp.decide`).
Complete lists are proven by their prefix trees (:mod:`logitgeom.coq._tree`); the candidate
lists of the exhaustive checkers (``sign_candidates``, ``rank_candidates``) are kept for
reference.  Nothing here is trusted: coqc re-checks every multiplier.

Examples
--------
>>> from fractions import Fraction as F
>>> W = [[F(1), F(0)], [F(0), F(1)], [F(1), F(1)]]
>>> gordan(sign_rows(W, None, (1, 1, -1)), 2)
(False, [Fraction(1, 1), Fraction(1, 1), Fraction(1, 1)])
>>> list(sign_candidates(W, None))[:2]
[(1, 1, 1), (1, 1, -1)]
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from fractions import Fraction
from itertools import permutations, product

from logitgeom.exact.lp import decide

__all__ = ["sign_rows", "rank_rows", "rank_keep", "sign_candidates", "rank_candidates",
           "gordan", "tied"]

Row = tuple[list[Fraction], Fraction]


def _b(b, i) -> Fraction:
    return Fraction(0) if b is None else b[i]


def tied(W, b, a: int, c: int) -> bool:
    """Equal rows and biases (``tiedb``)."""
    return W[a] == W[c] and _b(b, a) == _b(b, c)


def sign_rows(W, b, s: Sequence[int]) -> list[Row]:
    """``sign_rows``: s_i (w_i, b_i) for every s_i != 0, in label order."""
    return [([si * x for x in W[i]], si * _b(b, i)) for i, si in enumerate(s) if si]


def rank_pairs(k: int, pi: Sequence[int]) -> list[tuple[int, int]]:
    """``rank_pairs``: consecutive pairs, then (last, j) for unlisted j, increasing."""
    pairs = list(zip(pi, pi[1:], strict=False))
    return pairs + [(pi[-1], j) for j in range(k) if j not in pi]


def rank_keep(W, b, pi: Sequence[int]) -> list[bool]:
    """Which chain pairs are constraints (``pair_row``: tied pairs a < c are not)."""
    return [not (a < c and tied(W, b, a, c)) for a, c in rank_pairs(len(W), pi)]


def rank_rows(W, b, pi: Sequence[int]) -> list[Row]:
    """``rank_rows``: (w_a - w_c, b_a - b_c) for the kept chain pairs."""
    return [([x - y for x, y in zip(W[a], W[c], strict=True)], _b(b, a) - _b(b, c))
            for (a, c), keep in zip(rank_pairs(len(W), pi), rank_keep(W, b, pi), strict=True)
            if keep]


def sign_candidates(W, b) -> Iterator[tuple[int, ...]]:
    """``sign_candidates``: 0 on identically zero rows, else +1 then -1, first row outermost."""
    opts = [(0,) if not any(W[i]) and not _b(b, i) else (1, -1) for i in range(len(W))]
    return product(*opts)


def rank_candidates(k: int) -> Iterator[tuple[int, ...]]:
    """``rank_candidates``: the permutations of 0..k-1 in lexicographic order."""
    return permutations(range(k))


def gordan(rows: list[Row], d: int) -> tuple[bool, list[Fraction]]:
    """(True, witness) when the rows are strictly feasible, else (False, multipliers y) with
    y >= 0, y != 0, sum y_i a_i = 0 and sum y_i c_i <= 0 (the affine rows are homogenised
    with one more coordinate t > 0, whose multiplier is dropped)."""
    if not rows:
        return True, [Fraction(0)] * d
    affine = any(c for _, c in rows)
    R = [list(a) + ([c] if affine else []) for a, c in rows]
    if affine:
        R.append([Fraction(0)] * d + [Fraction(1)])
    ok, cert = decide(R)
    if ok:
        x = list(cert)
        return True, ([v / x[-1] for v in x[:-1]] if affine else x)
    return False, list(cert[:len(rows)])
