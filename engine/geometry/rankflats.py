"""chi of a ranking arrangement's restriction to a flat, by the set-partition formula.

A flat ``X`` of the ranking arrangement of labels ``w_1, ..., w_k`` (hyperplanes
``(w_a - w_b) . x = 0``) is cut out by the hyperplanes of its closed set; the pairs of
labels of those hyperplanes join the labels into blocks ``pi``, and ``X`` is the set of
``x`` on which labels of one block score alike.  On ``X`` a label's score depends on its
block only, so the restriction ``A^X`` is the ranking arrangement of the blocks: its
hyperplanes are the pairs of blocks, and a set of them has the rank of the partition it
merges ``pi`` into, less the rank of ``pi``.  With the blocks' representatives reduced
modulo the span of the within-block differences (coordinates ``d - rank pi``, the
dimension of ``X``), :func:`logitgeom.exact.lattice.chi_rankings` (the set-partition
formula, docs/counting.md section 4) computes ``chi_{A^X}`` from ``b`` vectors, ``b`` the
number of blocks: Bell(``b``) nodes at most, and no table of restrictions.
:func:`logitgeom.geometry.flatorbits.chi_flat_orbits` takes it as ``chi_of`` for the
ranking arrangements of central heads (``logitgeom count ranking --method orbits``).

Examples
--------
>>> braid = [[1 if i == a else 0 for i in range(4)] for a in range(4)]
>>> from logitgeom.exact.lattice import arrangement_normals
>>> vecs, dim, _ = arrangement_normals(braid, ranking=True)
>>> r = RankingRestrictions(braid, vecs)
>>> closed = tuple(i for i, v in enumerate(vecs) if v == (1, -1, 0, 0))   # x_1 = x_2
>>> r(closed, 3)                                    # three blocks left: t (t - 1) (t - 2)
[0, 2, -3, 1]
"""

from __future__ import annotations

from collections.abc import Sequence

from logitgeom.errors import EngineError
from logitgeom.exact.lattice import chi_rankings, eliminate, label_vectors
from logitgeom.exact.linalg import canonical_direction

__all__ = ["RankingRestrictions"]

#: nodes of one restriction's set-partition search (Bell(12) is 4,213,597)
NODES = 10**8
#: restrictions with more blocks are left to the table of restrictions (``None``): the
#: set-partition search grows with the Bell number of the blocks (Bell(9) = 21,147), the
#: table catches restrictions isomorphic to one seen (the simplex-ETF head's)
MAX_BLOCKS = 9


class RankingRestrictions:
    """``chi_{A^X}`` for the flats ``X`` of a central head's ranking arrangement.

    Parameters
    ----------
    W : k x d matrix of exact numbers
        The head (no bias: affine ranking arrangements are not handled here).
    vecs : tuple of integer tuples
        The arrangement's normals as :func:`logitgeom.exact.lattice.arrangement_normals`
        gives them for ``W`` with ``ranking=True``; a closed set names hyperplanes by
        their position in ``vecs``.
    max_blocks : int
        Flats with more blocks give ``None`` (left to the caller's other method).
    """

    def __init__(self, W: object, vecs: Sequence[tuple[int, ...]],
                 max_blocks: int = MAX_BLOCKS) -> None:
        self.max_blocks = max_blocks
        from logitgeom.exact.numbers import to_matrix

        labels, d, affine = label_vectors(to_matrix(W, what="W"), None)
        if affine:  # pragma: no cover - no bias is passed
            raise ValueError("central heads only")
        self.labels = [tuple(v[:d]) for v in labels]
        self.d = d
        index = {v: i for i, v in enumerate(vecs)}
        self.pairs: list[list[tuple[int, int]]] = [[] for _ in vecs]
        k = len(self.labels)
        for a in range(k):
            for b in range(a + 1, k):
                diff = [x - y for x, y in zip(self.labels[a], self.labels[b], strict=True)]
                self.pairs[index[canonical_direction(diff)]].append((a, b))

    def __call__(self, closed: Sequence[int], dim: int) -> list[int] | None:
        """chi of the restriction to the flat of the closed set ``closed`` (of dimension
        ``dim``), coefficients from ``t**0``; ``None`` past :data:`MAX_BLOCKS` blocks."""
        from logitgeom.symmetry.unionfind import UnionFind  # lazy: symmetry loads numpy

        k = len(self.labels)
        blocks = UnionFind(k)
        res: list = list(self.labels)
        live = list(range(k))
        rank = 0
        for h in closed:
            for a, b in self.pairs[h]:
                if not blocks.union(a, b):
                    continue
                delta = tuple(x - y for x, y in zip(res[a], res[b], strict=True))
                if any(delta):
                    res = eliminate(res, delta, live)
                    rank += 1
        if self.d - rank != dim:
            raise EngineError(f"internal error: a closed set's blocks have rank {rank}, its "
                              f"flat's dimension is {dim} in {self.d}; please report")
        reps = [res[a] for a in range(k) if blocks.find(a) == a]
        if len(reps) > self.max_blocks:
            return None
        if len(set(reps)) != len(reps):
            raise EngineError("internal error: two blocks score alike on a flat (its set was "
                              "not closed); please report")
        return chi_rankings(reps, dim, False, budget=NODES)
