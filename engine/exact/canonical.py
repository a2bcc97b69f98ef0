"""A canonical form of a central integer arrangement under signed coordinate permutations.

Two arrangements (sets of primitive integer normals, each up to sign) are *isomorphic*
here when a permutation of the coordinates together with sign changes of some of them
maps one set of normals onto the other.  Such a map is an invertible linear map of the
space, so isomorphic arrangements have the same intersection lattice and the same
characteristic polynomial; :func:`canonical_form` returns one representative of each
class, so a table keyed by it computes each class once (:mod:`logitgeom.exact.restriction`).

The algorithm (partition refinement, then a bounded search within the ties):

1. Colour the columns by invariants of the absolute-value matrix ``|v_ij|`` (unchanged by
   sign changes of rows and columns), refined against the rows' colours and against the
   absolute values of the columns' Gram matrix ``G_jl = sum_i v_ij v_il`` (a row sign
   change leaves ``G`` unchanged; column sign changes ``s`` map ``G_jl`` to
   ``s_j s_l G_jl``) until the colour classes stop splitting.
2. Every ordering of the columns by colour, ties in every order, is a candidate; for each,
   the signs are fixed column by column: the first column keeps its sign, a later column
   ``l`` takes the sign that makes ``G_jl`` positive for the first earlier column ``j``
   with ``G_jl != 0``, and both signs are tried when there is none.
3. Each candidate maps the normals to primitive vectors with a positive first non-zero
   entry; the form is the smallest sorted tuple over all candidates.

Every step is equivariant (an isomorphic copy gets the same colours and the images of
the same candidates), so isomorphic arrangements get equal forms.  When the candidates
number more than ``bound`` (a highly symmetric arrangement with large colour classes),
only the first candidate is used: the result is still the image of the arrangement under
a signed permutation (a table keyed by it stays exact), but no longer canonical, so an
isomorphic copy may be computed again, never miscounted.  :func:`canonical_form` says
which case applied.

Examples
--------
>>> a = ((1, 0, 1), (0, 1, 1), (1, 1, 0))
>>> b = ((1, 0, 1), (1, -1, 0), (0, -1, 1))      # columns 1 and 3 swapped, 2 negated
>>> canonical_form(a) == canonical_form(b)
True
>>> canonical_form(a)
(((0, 1, 1), (1, 0, 1), (1, 1, 0)), True)
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import permutations, product
from math import factorial, gcd
from typing import Any

__all__ = ["canonical_form", "DEFAULT_BOUND"]

Vec = tuple[int, ...]

DEFAULT_BOUND = 64
"""Most candidate signed orderings tried before falling back to one (not canonical)."""


def _relabel(sigs: list[Any]) -> list[int]:
    """Colours as small integers, numbered by the sorted order of their signatures."""
    rank = {s: i for i, s in enumerate(sorted(set(sigs)))}
    return [rank[s] for s in sigs]


def _column_colours(rem: Sequence[Vec], k: int, gram: list[list[int]]) -> list[int]:
    absm = [[abs(x) for x in v] for v in rem]
    col = _relabel([tuple(sorted(r[j] for r in absm)) for j in range(k)])
    ncls = len(set(col))
    while True:
        row = _relabel([tuple(sorted((r[j], col[j]) for j in range(k) if r[j])) for r in absm])
        new = _relabel([(col[j],
                         tuple(sorted((r[j], row[i]) for i, r in enumerate(absm) if r[j])),
                         tuple(sorted((abs(gram[j][l]), col[l]) for l in range(k) if l != j)))
                        for j in range(k)])
        n2 = len(set(new))
        col = new
        if n2 == ncls or n2 == k:
            return col
        ncls = n2


def _signs(order: Sequence[int], gram: list[list[int]]) -> list[list[int]]:
    """The sign vectors (indexed by column) a candidate ordering allows (step 2)."""
    outs: list[list[int]] = [[0] * len(order)]
    outs[0][order[0]] = 1
    for p in range(1, len(order)):
        col = order[p]
        j = next((c for c in order[:p] if gram[c][col]), None)
        nxt = []
        for s in outs:
            if j is None:
                for e in (1, -1):
                    t = list(s)
                    t[col] = e
                    nxt.append(t)
            else:
                s[col] = s[j] * (1 if gram[j][col] > 0 else -1)
                nxt.append(s)
        outs = nxt
    return outs


def _image(rem: Sequence[Vec], order: Sequence[int], sign: Sequence[int]) -> tuple[Vec, ...]:
    out = set()
    for v in rem:
        w = tuple([v[j] * sign[j] for j in order])
        g = gcd(*w)
        if next(x for x in w if x) < 0:
            g = -g
        out.add(w if g == 1 else tuple([x // g for x in w]))
    return tuple(sorted(out))


def canonical_form(rem: Sequence[Sequence[int]], bound: int = DEFAULT_BOUND
                   ) -> tuple[tuple[Vec, ...], bool]:
    """The canonical form of the arrangement of non-zero integer normals ``rem``.

    Parameters
    ----------
    rem : sequence of integer vectors, all of one length ``k >= 1``, none zero
        The normals (a normal and its negative are one hyperplane; repeats merge).
    bound : int
        Most candidate signed orderings tried (module docstring, step 2).

    Returns
    -------
    (form, canonical) : (tuple of integer tuples, bool)
        ``form`` is the image of the normals under a signed coordinate permutation, made
        primitive with positive first non-zero entries, sorted.  ``canonical`` is True
        when every candidate was tried: then isomorphic arrangements get equal forms.

    Examples
    --------
    >>> canonical_form([(2, 0), (1, -1)])
    (((0, 1), (1, 1)), True)
    >>> canonical_form([(0, 1), (1, 1)])
    (((0, 1), (1, 1)), True)
    """
    rows = [tuple(v) for v in rem]
    k = len(rows[0])
    cols = list(zip(*rows))  # noqa: B905 (equal lengths)
    gram = [[sum(a * b for a, b in zip(cols[i], cols[j])) for j in range(k)]  # noqa: B905
            for i in range(k)]
    colour = _column_colours(rows, k, gram)
    classes: dict[int, list[int]] = {}
    for j in range(k):
        classes.setdefault(colour[j], []).append(j)
    groups = [classes[c] for c in sorted(classes)]
    count = 1
    for g in groups:
        count *= factorial(len(g))
        if count > bound:
            break
    if count > bound:
        order = [j for g in groups for j in g]
        return _image(rows, order, _signs(order, gram)[0]), False
    best: tuple[Vec, ...] | None = None
    tried = 0
    for parts in product(*(permutations(g) for g in groups)):
        order = [j for part in parts for j in part]
        for sign in _signs(order, gram):
            tried += 1
            if tried > bound:
                first = [j for g in groups for j in g]
                return _image(rows, first, _signs(first, gram)[0]), False
            img = _image(rows, order, sign)
            if best is None or img < best:
                best = img
    assert best is not None
    return best, True
