"""Permutation groups shared by the symmetry and bracket tests (image form, 0-based)."""

from __future__ import annotations


def quaternion_group() -> list[list[int]]:
    """Q8 acting on itself by left multiplication (elements +-1, +-i, +-j, +-k)."""
    names = ["1", "i", "j", "k"]
    table = {("1", x): (1, x) for x in names}
    table.update({(x, "1"): (1, x) for x in names})
    for a, b, c in (("i", "j", "k"), ("j", "k", "i"), ("k", "i", "j")):
        table[(a, b)] = (1, c)
        table[(b, a)] = (-1, c)
    for x in "ijk":
        table[(x, x)] = (-1, "1")
    els = [(s, x) for s in (1, -1) for x in names]
    idx = {e: t for t, e in enumerate(els)}

    def mul(g, h):
        s, x = table[(g[1], h[1])]
        return (g[0] * h[0] * s, x)

    return [[idx[mul(g, h)] for h in els] for g in ((1, "i"), (1, "j"))]


def diagonal(gens: list[list[int]], copies: int) -> list[list[int]]:
    """The same permutations acting on ``copies`` consecutive blocks of labels at once."""
    k = len(gens[0])
    return [[c * k + g[i] for c in range(copies) for i in range(k)] for g in gens]
