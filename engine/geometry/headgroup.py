"""The symmetry group of a head's arrangement (labels and coordinates together), exactly.

:func:`arrangement_symmetry` finds the pairs (label permutation ``r``, coordinate
permutation ``c``) with ``W[r(i), c(j)] = W[i, j]`` (and ``b[r(i)] = b[i]``) by
:func:`logitgeom.symmetry.detect_symmetry` on the exact matrix, and the action each
induces on the hyperplanes of the sign or ranking arrangement: the coordinate permutation
maps the normal ``v`` to ``u`` with ``u[c(j)] = v[j]``, a linear automorphism of the
arrangement (checked exactly for every generator: the set of normals is mapped onto
itself).  It returns the group's order and the orbits of the hyperplanes with their sizes.

:func:`hyperplane_permutations` turns coordinate permutations (detected, or given by the
user with ``logitgeom count --group``) into permutations of the hyperplanes, refusing any
that does not map the arrangement onto itself; :mod:`logitgeom.geometry.flatorbits` counts
one flat per orbit of the group they generate (docs/counting.md, section 6).

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

import math
from dataclasses import dataclass

from logitgeom.errors import EngineError, InvalidInput
from logitgeom.exact.lattice import arrangement_normals
from logitgeom.exact.linalg import canonical_direction
from logitgeom.exact.numbers import to_matrix, to_vector

__all__ = ["ArrangementSymmetry", "arrangement_symmetry", "hyperplane_permutations",
           "normal_symmetry", "is_full_symmetric", "read_group"]


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
    from logitgeom.symmetry.unionfind import UnionFind

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
    orbits = UnionFind(len(vecs))
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
            orbits.union(i, k)
    order = det.order if complete else _order_of(gens, len(M), d)
    return ArrangementSymmetry(order, complete, tuple(gens),
                               tuple(sorted(map(len, orbits.blocks()), reverse=True)))


def normal_symmetry(vecs: tuple[tuple[int, ...], ...], d: int, affine: bool, *,
                    max_order: int = 10**9) -> list[tuple[int, ...]]:
    """Coordinate permutations mapping the arrangement's set of hyperplanes onto itself.

    :func:`arrangement_symmetry` looks for symmetries of the *head*: a label must go to a
    label with its row permuted, sign included.  An automorphism of the arrangement only
    has to map each hyperplane to a hyperplane, so a normal may go to the negative of a
    normal (the Catalan head's rows ``e_i - e_j``, ``i < j``, with shifts ``-1, 0, 1``: a
    transposition of coordinates sends ``e_1 - e_2`` to ``-(e_1 - e_2)``).  This runs
    :func:`logitgeom.symmetry.detect_symmetry` on the normals and their negatives (rows)
    and keeps the generators fixing the cone's bias coordinate; each is exact, and is
    checked again by :func:`hyperplane_permutations` before use.

    Parameters
    ----------
    vecs, d, affine
        The arrangement, as for :func:`hyperplane_permutations`.
    max_order : int
        Stop the search past this order (the generators then give a subgroup; any
        subgroup gives the same count).

    Returns
    -------
    list of tuple of int
        Coordinate permutations of ``0..d-1`` in array form.

    Examples
    --------
    >>> from logitgeom.geometry.families import CATALAN, deformation
    >>> W, b = deformation(3, CATALAN)
    >>> vecs, _, affine = arrangement_normals(W, bias=b)
    >>> gens = normal_symmetry(vecs, 3, affine)
    >>> from logitgeom.geometry.permchain import StabilizerChain
    >>> StabilizerChain(hyperplane_permutations(vecs, 3, affine, gens), len(vecs)).order
    6
    """
    from logitgeom.symmetry import detect_symmetry

    if not vecs:
        return []
    rows = [list(v) for v in vecs] + [[-x for x in v] for v in vecs]
    det = detect_symmetry(rows, max_order=max_order, progress=False)
    off = 1 if affine else 0
    out = []
    for _, c in det.action.generators:
        if affine and c[0] != 0:
            continue  # moves the bias coordinate: not a linear map of the input space
        perm = tuple(int(c[off + j]) - off for j in range(d))
        if perm != tuple(range(d)):
            out.append(perm)
    return out


def is_full_symmetric(perms: list, d: int) -> bool:
    """Whether coordinate permutations generate every permutation of ``0..d-1``.

    Then no coordinate permutation (:func:`normal_symmetry`'s included) can enlarge the group
    they generate, nor the group of hyperplane permutations it induces.  Decided exactly: the
    group's order (Schreier-Sims) against ``d!``.

    Parameters
    ----------
    perms : list of sequences of int
        Permutations of ``0..d-1`` in array form (as :func:`arrangement_symmetry` gives them).
    d : int
        The number of coordinates.

    Returns
    -------
    bool

    Examples
    --------
    >>> is_full_symmetric([[1, 2, 0], [1, 0, 2]], 3), is_full_symmetric([[1, 2, 0]], 3)
    (True, False)
    """
    if d <= 1 or not perms:
        return d <= 1
    from sympy.combinatorics import Permutation, PermutationGroup

    return int(PermutationGroup([Permutation(list(p)) for p in perms]).order()) == \
        math.factorial(d)


def _order_of(gens, k: int, d: int) -> int:
    from logitgeom.symmetry import GroupAction

    if not gens:
        return 1
    return GroupAction([(list(r), list(c)) for r, c in gens], m=k, n=d).order


def hyperplane_permutations(vecs: tuple[tuple[int, ...], ...], d: int, affine: bool,
                            coordinate_perms: object, matrices: object = ()
                            ) -> list[tuple[int, ...]]:
    """The permutations of the hyperplanes ``vecs`` induced by permutations of ``d`` coordinates.

    The coordinate permutation ``c`` maps the normal ``v`` to ``u`` with ``u[c(j)] = v[j]``
    (in an affine arrangement's cone the bias coordinate ``0`` stays put), an invertible
    linear map; it is an automorphism of the arrangement exactly when every image is again
    one of the normals (up to sign), which is checked here with integers.

    Parameters
    ----------
    vecs : tuple of integer tuples
        The arrangement's distinct primitive normals (:func:`logitgeom.exact.lattice.
        arrangement_normals`).
    d : int
        The number of input coordinates (``len(v) - 1`` for an affine cone).
    affine : bool
    coordinate_perms : sequence of sequences of int
        Each a permutation of ``0..d-1`` in array form (``c[j]`` is the image of ``j``).
    matrices : sequence of integer matrices, optional
        Each an invertible ``n x n`` integer matrix ``M``, ``n = len(v)``, acting on the
        normals by ``v -> v M`` (a row vector times ``M``: the normal of the image of the
        hyperplane under the linear map ``x -> M^-1 x``); it is an automorphism exactly
        when every image is a multiple of one of the normals (checked here, with the
        determinant, in integers).  For example the resonance arrangement's symmetric
        group on ``n + 1`` letters, through ``x_(n+1) = -(x_1 + ... + x_n)``.

    Returns
    -------
    list of tuple of int
        ``p[i]`` is the index of the image of hyperplane ``i``.

    Raises
    ------
    InvalidInput
        A generator is not a permutation of the coordinates, or maps a hyperplane
        outside the arrangement (named in the message).

    Examples
    --------
    >>> hyperplane_permutations(((0, 1), (1, 0), (1, 1)), 2, False, [[1, 0]])
    [(1, 0, 2)]
    >>> try:
    ...     hyperplane_permutations(((0, 1), (1, 0), (1, 2)), 2, False, [[1, 0]])
    ... except InvalidInput as exc:
    ...     print(str(exc)[:58])
    group generator 1 does not map the arrangement onto itself
    """
    if not isinstance(coordinate_perms, (list, tuple)):
        raise InvalidInput("the group must be a list of coordinate permutations")
    index = {v: i for i, v in enumerate(vecs)}
    off = 1 if affine else 0
    out = []
    for n, c in enumerate(coordinate_perms):
        if (not isinstance(c, (list, tuple)) or len(c) != d
                or any(isinstance(x, bool) or not isinstance(x, int) for x in c)
                or sorted(c) != list(range(d))):
            raise InvalidInput(f"group generator {n + 1} is not a permutation of the {d} "
                               f"coordinates 0..{d - 1} (a list of {d} distinct integers)")

        def moved(v: tuple, c=c) -> list:  # coordinate j goes to c[j] (c bound now)
            u = list(v)
            for j in range(d):
                u[off + c[j]] = v[off + j]
            return u

        out.append(_images(vecs, index, moved, f"group generator {n + 1}"))
    if not isinstance(matrices, (list, tuple)):
        raise InvalidInput("the group's matrices must be a list of square integer matrices")
    k = len(vecs[0]) if vecs else d + off
    for n, M in enumerate(matrices):
        if (not isinstance(M, (list, tuple)) or len(M) != k
                or any(not isinstance(r, (list, tuple)) or len(r) != k for r in M)
                or any(isinstance(x, bool) or not isinstance(x, int) for r in M for x in r)):
            raise InvalidInput(f"group matrix {n + 1} is not a {k} x {k} matrix of integers "
                               "(it acts on the arrangement's normals, v -> v M)")
        if _det(M) == 0:
            raise InvalidInput(f"group matrix {n + 1} is singular")
        out.append(_images(vecs, index, lambda v, M=M: [
            sum(v[a] * M[a][b] for a in range(k)) for b in range(k)], f"group matrix {n + 1}"))
    return out


def _images(vecs, index: dict, image, what: str) -> tuple[int, ...]:
    """The permutation of the hyperplanes (normals ``vecs``, ``index``: canonical normal ->
    position) by the map ``image`` of normals; InvalidInput naming ``what`` when a normal
    goes outside the arrangement."""
    perm = []
    for i, v in enumerate(vecs):
        u = image(v)
        k = index.get(canonical_direction(u))
        if k is None:
            raise InvalidInput(
                f"{what} does not map the arrangement onto itself: hyperplane {i + 1} "
                f"(normal {tuple(v)}) goes to {tuple(u)}, which is not a hyperplane of it")
        perm.append(k)
    return tuple(perm)


def _det(M: object) -> int:
    """The determinant of a square integer matrix (fraction-free elimination, exact)."""
    A = [list(r) for r in M]  # type: ignore[attr-defined]
    n, sign, prev = len(A), 1, 1
    for c in range(n):
        p = next((r for r in range(c, n) if A[r][c]), None)
        if p is None:
            return 0
        if p != c:
            A[c], A[p] = A[p], A[c]
            sign = -sign
        for r in range(c + 1, n):
            A[r] = [(A[c][c] * A[r][j] - A[r][c] * A[c][j]) // prev for j in range(n)]
        prev = A[c][c]
    return sign * A[n - 1][n - 1] if n else 1


def read_group(path: str) -> dict:
    """Group generators from a JSON file: a list of coordinate permutations, or
    ``{"coordinates": [...], "matrices": [...]}`` (either key may be left out).

    Parameters
    ----------
    path : str
        The file.

    Returns
    -------
    dict
        ``{"coordinates": [...], "matrices": [...]}``.

    Raises
    ------
    InvalidInput
        The file cannot be read or is not of that shape (checked further, against the
        arrangement, by :func:`hyperplane_permutations`).

    Examples
    --------
    >>> import json, tempfile, os
    >>> f = os.path.join(tempfile.mkdtemp(), "g.json")
    >>> _ = open(f, "w").write(json.dumps({"coordinates": [[1, 2, 0]]}))
    >>> read_group(f)
    {'coordinates': [[1, 2, 0]], 'matrices': []}
    """
    import json

    try:
        with open(path, encoding="utf-8") as fh:
            obj = json.load(fh)
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"cannot read the group file {path}: {exc}") from None
    except ValueError as exc:
        raise InvalidInput(f"the group file {path} is not JSON: {exc}") from None
    if isinstance(obj, list):
        obj = {"coordinates": obj}
    if not isinstance(obj, dict) or not obj or not set(obj) <= {"coordinates", "matrices"}:
        raise InvalidInput(f"the group file {path} must be a list of coordinate "
                           'permutations or {"coordinates": [...], "matrices": [...]}')
    coords = obj.get("coordinates", [])
    mats = obj.get("matrices", [])
    if not isinstance(coords, list) or not all(isinstance(g, list) for g in coords):
        raise InvalidInput(f"the group file {path}: coordinates must be a list of "
                           "permutations (lists of integers)")
    if not isinstance(mats, list) or not all(
            isinstance(M, list) and all(isinstance(r, list) for r in M) for M in mats):
        raise InvalidInput(f"the group file {path}: matrices must be a list of square "
                           "integer matrices (lists of rows)")
    return {"coordinates": coords, "matrices": mats}
