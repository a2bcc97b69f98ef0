"""Prefix-tree completeness proofs, mirrored from ``tree_ok`` of Logitgeom.v.

A complete list of patterns (rankings, or sign vectors, all of length k) is proven complete
in Coq by its prefix tree: at every node p (the first m entries of a listed pattern, m < k)
every possible next entry a (``rank_opts``: a label not in p; ``sign_opts``: +1 and -1, or 0
on an identically zero row) either extends p to a prefix of some listed pattern, or the
prefix p + [a] gets its own Gordan multipliers: no input realises it, so no pattern starting
with it is realised.  The Coq checker walks the candidates p + [a] in the order of
:func:`children` and takes one certificate from the list for each one that is not a prefix
of a listed pattern; this module produces that list, from the engine's exact LP (float LPs
only propose, :func:`logitgeom.lp_float.decide`).  A candidate the LP finds feasible means the
list is not complete: :class:`Incomplete`.  Nothing here is trusted: coqc re-checks it all.

Examples
--------
>>> from fractions import Fraction as F
>>> W = [[F(1), F(0)], [F(0), F(1)]]
>>> L = [(1, 1), (1, -1), (-1, 1), (-1, -1)]
>>> certs(L, 2, sign_opts(W, None), lambda p: sign_rows(W, None, p), 2)
[]
>>> certs(L[:3], 2, sign_opts(W, None), lambda p: sign_rows(W, None, p), 2)
Traceback (most recent call last):
...
logitgeom.coq._tree.Incomplete: ((-1, -1), [Fraction(-1, 1), Fraction(-1, 1)])
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction

from logitgeom.coq._rows import Row, gordan, rank_rows, sign_rows
from logitgeom.exact.linalg import column_basis

__all__ = ["Incomplete", "children", "certs", "rank_opts", "sign_opts", "enumerate_signs",
           "rank_rows", "sign_rows", "reduce_columns"]

Opts = Callable[[tuple[int, ...]], list[int]]


class Incomplete(Exception):
    """A prefix no listed pattern starts with is realised: (prefix, witness x)."""


def rank_opts(k: int) -> Opts:
    """``rank_opts k``: the labels 0..k-1 not in the prefix, increasing."""
    return lambda p: [j for j in range(k) if j not in p]


def sign_opts(W: Sequence, b: Sequence | None) -> Opts:
    """``sign_opts W b``: [0] on an identically zero row (w_i = 0, b_i = 0), else [1, -1]."""
    def opts(p: tuple[int, ...]) -> list[int]:
        i = len(p)
        zero = not any(W[i]) and (b is None or not b[i])
        return [0] if zero else [1, -1]
    return opts


def reduce_columns(W: Sequence[Sequence[Fraction]]) -> tuple[list[list[Fraction]],
                                                              Callable[[list], list]]:
    """W on a basis of its column space (the first independent columns), and the map that
    puts a witness of the reduced rows back in R^d (zeros off the basis).

    Every column of W is a combination of the basis columns, so multipliers with
    sum y_i a_i = 0 on the basis columns have it on every column: Gordan multipliers of the
    reduced rows (sign rows, rank rows, with the same biases) are Gordan multipliers of the
    full ones, and a witness on the basis coordinates is one in R^d.  This only makes the
    LPs smaller (a 45 x 45 Gram matrix of rank 2 becomes 45 x 2); Coq checks the full rows.

    Examples
    --------
    >>> Wr, lift = reduce_columns([[Fraction(1), Fraction(2)], [Fraction(2), Fraction(4)]])
    >>> Wr, lift([Fraction(3)])
    ([[Fraction(1, 1)], [Fraction(2, 1)]], [Fraction(3, 1), Fraction(0, 1)])
    """
    d = len(W[0])
    cols = column_basis(W) if any(any(r) for r in W) else ()
    if not cols:
        cols = (0,)
    Wr = [[r[j] for j in cols] for r in W]

    def lift(x: list) -> list:
        out = [Fraction(0)] * d
        for j, v in zip(cols, x, strict=True):
            out[j] = v
        return out
    return Wr, lift


def children(L: Sequence[Sequence[int]], k: int, opts: Opts) -> Iterator[tuple[int, ...]]:
    """``tree_children k L``: for each listed w, each m < k, each a in opts(w[:m]):
    w[:m] + (a,) (with repetitions, exactly as the Coq list)."""
    for w in L:
        for m in range(k):
            p = tuple(w[:m])
            for a in opts(p):
                yield p + (a,)


def certs(L: Sequence[Sequence[int]], k: int, opts: Opts,
          rows_of: Callable[[tuple[int, ...]], list[Row]], d: int) -> list[list[Fraction]]:
    """The certificate list ``tree_ok k L certs`` consumes: Gordan multipliers of
    ``rows_of(c)`` for each candidate c of :func:`children` that no listed pattern starts with.

    Raises
    ------
    Incomplete
        Such a c is realised (the LP's witness is attached): the list is not complete.
    ValueError
        L is empty or a listed pattern does not have length k.
    """
    if not L or any(len(w) != k for w in L):
        raise ValueError(f"a prefix tree needs a non-empty list of patterns of length {k}")
    prefixes = {tuple(w[:m]) for w in L for m in range(k + 1)}
    cache: dict[tuple[int, ...], list[Fraction]] = {}
    out = []
    for c in children(L, k, opts):
        if c in prefixes:
            continue
        if c not in cache:
            ok, y = gordan(rows_of(c), d)
            if ok:
                raise Incomplete(c, y)
            cache[c] = y
        out.append(cache[c])
    return out


def enumerate_signs(W: Sequence, b: Sequence | None, d: int) -> list[tuple[tuple[int, ...],
                                                                           list[Fraction]]]:
    """All sign vectors of the head with a witness each, by depth-first search over prefixes
    (a prefix is extended only while the exact LP finds it realised), in tree order.

    Examples
    --------
    >>> W = [[Fraction(1), Fraction(0)], [Fraction(1), Fraction(0)]]
    >>> [s for s, _ in enumerate_signs(W, None, 2)]
    [(1, 1), (-1, -1)]
    """
    k, opts, out = len(W), sign_opts(W, b), []
    Wr, lift = reduce_columns(W)

    def walk(p: tuple[int, ...]) -> None:
        for a in opts(p):
            c = p + (a,)
            ok, x = gordan(sign_rows(Wr, b, c), len(Wr[0]))
            if not ok:
                continue
            if len(c) == k:
                out.append((c, lift(x)))
            else:
                walk(c)
    walk(())
    return out
