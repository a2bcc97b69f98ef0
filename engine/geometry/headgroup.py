"""The symmetry group of a head's arrangement (labels and coordinates together), exactly.

:func:`arrangement_symmetry` finds the pairs (label permutation ``r``, coordinate
permutation ``c``) with ``W[r(i), c(j)] = W[i, j]`` (and ``b[r(i)] = b[i]``) by
:func:`logitgeom.symmetry.detect_symmetry` on the exact matrix, and the action each
induces on the hyperplanes of the sign or ranking arrangement: the coordinate permutation
maps the normal ``v`` to ``u`` with ``u[c(j)] = v[j]``, a linear automorphism of the
arrangement (checked exactly for every generator: the set of normals is mapped onto
itself).  It returns the group's order and the orbits of the hyperplanes with their sizes.

The counting code does not use the group to reduce its work yet (docs/counting.md,
section 6): :func:`arrangement_symmetry` reports it, and its orbit sizes are the weights a
per-orbit computation would use.

Examples
--------
>>> from logitgeom.geometry.families import circulant
>>> s = arrangement_symmetry(circulant([3, 1, 0, -1, 2]), ranking=True)
>>> s.order, s.orbit_sizes
(5, (5, 5))
>>> arrangement_symmetry([[1, 0], [0, 2]]).order
1
"""

from __future__ import annotations

from dataclasses import dataclass

from logitgeom.errors import EngineError
from logitgeom.exact.linalg import canonical_direction
from logitgeom.exact.numbers import to_matrix, to_vector
from logitgeom.geometry.chipoly import arrangement_normals

__all__ = ["ArrangementSymmetry", "arrangement_symmetry"]


@dataclass(frozen=True)
class ArrangementSymmetry:
    """A group of label-and-coordinate permutations preserving a head, and its hyperplane orbits.

    Attributes
    ----------
    order : int
        The order of the group found (on labels and coordinates).
    complete : bool
        False when the search stopped at ``max_order`` (a subgroup), or when generators
        moving the bias column were dropped.
    generators : tuple of (label permutation, coordinate permutation)
    orbit_sizes : tuple of int
        Sizes of the orbits of the arrangement's hyperplanes (largest first).
    """

    order: int
    complete: bool
    generators: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]
    orbit_sizes: tuple[int, ...]

    def text(self) -> str:
        """One line for the command line."""
        what = "a group" if self.complete else "a subgroup (search cut off)"
        sizes = ", ".join(str(s) for s in self.orbit_sizes[:12])
        more = ", ..." if len(self.orbit_sizes) > 12 else ""
        return (f"symmetry: {what} of order {self.order:,} on labels and coordinates; "
                f"{len(self.orbit_sizes)} hyperplane orbits of sizes {sizes}{more}")

    def to_json(self) -> dict:
        """A JSON-ready dict."""
        return {"order": self.order, "complete": self.complete,
                "generators": [[list(r), list(c)] for r, c in self.generators],
                "orbit_sizes": list(self.orbit_sizes)}


def arrangement_symmetry(W: object, *, bias: object = None, ranking: bool = False,
                         max_order: int = 10**9) -> ArrangementSymmetry:
    """The label-and-coordinate symmetry group of a head and its orbits on hyperplanes.

    Parameters
    ----------
    W : array_like, k x d
    bias : array_like of length k, optional
    ranking : bool
        Orbits on the ranking arrangement's hyperplanes instead of the sign arrangement's.
    max_order : int
        Stop the search past this order (the result then says ``complete=False``).

    Returns
    -------
    ArrangementSymmetry

    Raises
    ------
    EngineError
        A generator found does not map the hyperplanes onto themselves (a bug).

    Examples
    --------
    >>> from logitgeom.geometry.families import simplex_etf
    >>> s = arrangement_symmetry(simplex_etf(4), ranking=True)
    >>> s.order, s.orbit_sizes
    (24, (6,))
    """
    from logitgeom.symmetry import detect_symmetry

    M = to_matrix(W, what="W")
    b = None if bias is None else to_vector(bias, what="bias", length=len(M))
    d = len(M[0])
    Y = [list(r) + ([b[i]] if b is not None else []) for i, r in enumerate(M)]
    det = detect_symmetry(Y, max_order=max_order, progress=False)
    gens = []
    complete = det.complete
    for r, c in det.action.generators:
        if b is not None and c[d] != d:
            complete = False  # moves the bias column: not a symmetry of the arrangement
            continue
        gens.append((tuple(r), tuple(c[:d])))
    vecs, _, affine = arrangement_normals(M, bias=b, ranking=ranking)
    index = {v: i for i, v in enumerate(vecs)}
    parent = list(range(len(vecs)))

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    off = 1 if affine else 0  # cone coordinates: (bias, x)
    for _, c in gens:
        for i, v in enumerate(vecs):
            u = list(v)
            for j in range(d):
                u[off + c[j]] = v[off + j]
            k = index.get(canonical_direction(u))
            if k is None:
                raise EngineError("internal error: a detected symmetry does not map the "
                                  "hyperplanes onto themselves; please report this input")
            parent[find(i)] = find(k)
    sizes: dict[int, int] = {}
    for i in range(len(vecs)):
        root = find(i)
        sizes[root] = sizes.get(root, 0) + 1
    order = det.order if complete else _order_of(gens, len(M), d)
    return ArrangementSymmetry(order, complete, tuple(gens),
                               tuple(sorted(sizes.values(), reverse=True)))


def _order_of(gens, k: int, d: int) -> int:
    from logitgeom.symmetry import GroupAction

    if not gens:
        return 1
    return GroupAction([(list(r), list(c)) for r, c in gens], m=k, n=d).order
