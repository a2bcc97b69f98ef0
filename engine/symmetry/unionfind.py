"""Disjoint sets on ``range(n)``: the one union-find of the engine (orbits, blocks).

Each set's root is its smallest element, so the result of a sequence of unions does not
depend on the order of the pairs' members.

Examples
--------
>>> uf = UnionFind(5)
>>> uf.union(3, 1), uf.union(1, 3), uf.union(4, 0)
(True, False, True)
>>> uf.find(3), uf.blocks()
(1, [[0, 4], [1, 3], [2]])
"""

from __future__ import annotations

__all__ = ["UnionFind"]


class UnionFind:
    """Disjoint sets on ``range(n)`` with path halving; a set's root is its least element.

    Parameters
    ----------
    n : int
        The number of elements, each first in a set of its own.
    """

    __slots__ = ("parent",)

    def __init__(self, n: int):
        self.parent = list(range(n))

    def find(self, a: int) -> int:
        """The root (least element) of the set holding ``a``.

        Parameters
        ----------
        a : int
            An element of ``range(n)``.

        Returns
        -------
        int
        """
        parent = self.parent
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    def union(self, a: int, b: int) -> bool:
        """Merge the sets holding ``a`` and ``b``.

        Parameters
        ----------
        a, b : int
            Elements of ``range(n)``.

        Returns
        -------
        bool
            True if they were in different sets.
        """
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return False
        self.parent[max(ra, rb)] = min(ra, rb)
        return True

    def blocks(self) -> list[list[int]]:
        """The sets, each in increasing order, ordered by their least elements.

        Returns
        -------
        list of list of int
        """
        out: dict[int, list[int]] = {}
        for a in range(len(self.parent)):
            out.setdefault(self.find(a), []).append(a)
        return list(out.values())
