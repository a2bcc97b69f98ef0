"""A permutation group's stabiliser chain, and the least image of a set under it, exactly.

:class:`StabilizerChain` holds a group ``G`` of permutations of ``0..m-1`` (given by
generators in array form, ``g[p]`` the image of ``p``) as the chain
``G = G_0 >= G_1 >= ... >= G_m = 1``, ``G_i`` the pointwise stabiliser of ``0..i-1``,
with a transversal of ``G_{i+1}`` in ``G_i`` at each level (the base is ``0, 1, ..., m-1``
in that order, which is what the least-image search needs).  The strong generators come
from sympy's Schreier-Sims (``schreier_sims_incremental`` with that base); the orbits and
transversals are rebuilt here from them, and the group's order (the product of the orbit
sizes) is checked against sympy's, so a chain that does not describe the group is refused
rather than used.

:meth:`StabilizerChain.least_image` returns the lexicographically least sorted image of a
set ``S`` under ``G`` together with the order of the stabiliser of ``S`` (so the orbit of
``S`` has ``|G| / |Stab(S)|`` elements).  Every ``g`` in ``G`` is uniquely
``t_0 t_1 ... t_{m-1}`` with ``t_i`` from the (inverted) transversal of level ``i``;
``t_{i+1} ... `` fix ``0..i``, so after choosing ``t_0 .. t_i`` it is decided whether ``i``
lies in the final image.  The search keeps, level by level, the distinct partial images
with the number of transversal paths reaching each (two paths with the same partial image
have the same continuations), and drops the images without ``i`` when some image has it
(they cannot be least: a sorted set with ``i`` beats one without, given equal points
below ``i``).  At the end one image is left, reached by exactly the ``g`` with
``S^g = least``, a coset of ``Stab(S)``: their number is ``|Stab(S)|``.  Nothing is
sampled or hashed: two sets get the same least image exactly when they are in one orbit.

Examples
--------
>>> c = StabilizerChain([(1, 2, 3, 0)], 4)        # the cyclic group of order 4
>>> c.order
4
>>> c.least_image((1, 3))                          # {0, 2}, fixed by the rotation by 2
((0, 2), 2)
>>> c.least_image((2, 3))
((0, 1), 1)
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Sequence

from logitgeom.errors import EngineError, InvalidInput, TooLarge

__all__ = ["StabilizerChain", "MAX_STATES"]

Perm = tuple[int, ...]

#: Most partial images the least-image search keeps at one level before it gives up.
MAX_STATES = 2_000_000


def _inverse(g: Perm) -> Perm:
    out = [0] * len(g)
    for i, x in enumerate(g):
        out[x] = i
    return tuple(out)


class StabilizerChain:
    """The stabiliser chain of a permutation group on ``0..m-1`` with base ``0, 1, ...``.

    Parameters
    ----------
    generators : iterable of sequences of int
        Permutations in array form (``g[p]`` is the image of ``p``), each of length ``m``.
    m : int
        The number of points.

    Attributes
    ----------
    order : int
        ``|G|``, exact.
    levels : list of (int, dict)
        ``(i, {q: t})`` for each base point ``i`` whose orbit under ``G_i`` is not just
        ``i``: ``t`` maps ``q`` to ``i`` (the inverse of a transversal element).

    Examples
    --------
    >>> StabilizerChain([(1, 0, 2), (0, 2, 1)], 3).order     # S_3
    6
    >>> StabilizerChain([], 3).order
    1
    """

    def __init__(self, generators: Iterable[Sequence[int]], m: int) -> None:
        gens = []
        for n, g in enumerate(generators):
            t = tuple(int(x) for x in g)
            if len(t) != m or sorted(t) != list(range(m)):
                raise InvalidInput(f"group generator {n + 1} is not a permutation of "
                                   f"0..{m - 1}")
            if t != tuple(range(m)):
                gens.append(t)
        self.m = m
        self.generators = tuple(gens)
        self.levels: list[tuple[int, dict[int, Perm]]] = []
        self.order = 1
        self.points: tuple[int, ...] = tuple(range(m))
        self.relabel: tuple[int, ...] = tuple(range(m))
        if not gens:
            return
        from sympy.combinatorics import Permutation, PermutationGroup

        G = PermutationGroup([Permutation(list(g)) for g in gens])
        self.points = _point_order(G, m)
        new = [0] * m
        for i, p in enumerate(self.points):
            new[p] = i
        self.relabel = tuple(new)
        rgens = [tuple([new[g[p]] for p in self.points]) for g in gens]
        H = PermutationGroup([Permutation(list(g)) for g in rgens])
        _, strong = H.schreier_sims_incremental(base=list(range(m)))
        sgens = [tuple(int(x) for x in s.array_form) for s in strong]
        sgens = [s + tuple(range(len(s), m)) for s in sgens]
        for i in range(m):
            level = [s for s in sgens if all(s[j] == j for j in range(i))]
            if all(s[i] == i for s in level):
                continue
            trans: dict[int, Perm] = {i: tuple(range(m))}  # q -> u with u[i] = q
            todo = [i]
            while todo:
                p = todo.pop()
                u = trans[p]
                for s in level:
                    q = s[p]
                    if q not in trans:
                        trans[q] = tuple([s[x] for x in u])  # u then s
                        todo.append(q)
            self.levels.append((i, {q: _inverse(u) for q, u in trans.items()}))
            self.order *= len(trans)
        if self.order != int(G.order()):  # pragma: no cover - a chain must give the order
            raise EngineError("internal error: the stabiliser chain's order "
                              f"{self.order} differs from the group's {G.order()}")

    def image(self, g: Sequence[int], s: Iterable[int]) -> tuple[int, ...]:
        """The sorted image of the set ``s`` under the permutation ``g``.

        Examples
        --------
        >>> StabilizerChain([], 3).image((2, 0, 1), (0, 1))
        (0, 2)
        """
        return tuple(sorted(g[x] for x in s))

    def least_image(self, s: Iterable[int], *, max_states: int = MAX_STATES
                    ) -> tuple[tuple[int, ...], int]:
        """The least sorted image of the set ``s`` under the group, and ``|Stab(s)|``.

        Parameters
        ----------
        s : iterable of int
            A set of points (repeats ignored).
        max_states : int
            :class:`~logitgeom.errors.TooLarge` if the search holds more partial images
            than this at one level.

        Returns
        -------
        (tuple of int, int)
            The least image, sorted, and the order of the set's stabiliser.

        Examples
        --------
        >>> c = StabilizerChain([(1, 0, 2, 3), (1, 2, 3, 0)], 4)     # S_4
        >>> c.least_image((3, 1))
        ((0, 1), 4)
        """
        new = self.relabel
        states: dict[tuple[int, ...], int] = {tuple(sorted({new[x] for x in s})): 1}
        for i, trans in self.levels:
            if len(states) > 1:
                states = _least_below(states, i)
            # t maps q to i: i is in the image exactly when q is in the set; when some
            # state has such a q, only those branches can lead to the least image
            keys = trans.keys()
            hit = not all(keys.isdisjoint(st) for st in states)
            nxt: dict[tuple[int, ...], int] = {}
            get = nxt.get
            for st, c in states.items():
                for q in ([q for q in st if q in trans] if hit else trans):
                    img = tuple(sorted(map(trans[q].__getitem__, st)))
                    nxt[img] = get(img, 0) + c
            if len(nxt) > max_states:
                raise TooLarge(f"the least-image search holds more than {max_states:,} "
                               "partial images")
            states = nxt
        if len(states) > 1:
            states = _least_below(states, self.m)
        if len(states) != 1:  # pragma: no cover - all points decided: one image is left
            raise EngineError("internal error: the least-image search ended with "
                              f"{len(states)} images")
        (best, count), = states.items()
        return best, count


def _least_below(states: dict[tuple[int, ...], int], bound: int
                 ) -> dict[tuple[int, ...], int]:
    """The images whose points below ``bound`` (all decided: the rest of the chain fixes
    them) form the least set, point by point: at each point in turn, an image without it
    is dropped when another has it.  That is the least ``sorted points below bound +
    (bound,)`` (the sentinel makes a set beat its own prefix)."""
    keys = {st: st[:bisect_left(st, bound)] + (bound,) for st in states}
    least = min(keys.values())
    return {st: c for st, c in states.items() if keys[st] == least}


def _point_order(G: object, m: int) -> tuple[int, ...]:
    """An order of the points fixed by the group alone: repeatedly the least point of the
    smallest non-trivial orbit of the current stabiliser, then the points that stabiliser
    fixes (decided from then on), so that the least-image search branches over small
    orbits first."""
    from sympy.combinatorics import PermutationGroup

    order: list[int] = []
    placed: set[int] = set()
    H: PermutationGroup = G  # type: ignore[assignment]
    while True:
        gens = [tuple(int(x) for x in g.array_form) + tuple(range(g.size, m))
                for g in H.generators]
        gens = [g for g in gens if any(g[p] != p for p in range(m))]
        for q in range(m):
            if q not in placed and all(g[q] == q for g in gens):
                order.append(q)
                placed.add(q)
        if not gens:
            break
        orbs = [o for o in H.orbits() if len(o) > 1]
        p = min(min(o) for o in orbs if len(o) == min(len(x) for x in orbs))
        order.append(p)
        placed.add(p)
        # a strong generating set of H for the base [p, ...]: those fixing p generate H_p
        _, strong = H.schreier_sims_incremental(base=[p])
        stab = [g for g in strong if g(p) == p]
        if not stab:
            order.extend(q for q in range(m) if q not in placed)
            break
        H = PermutationGroup(stab)
    return tuple(order)
