"""Symmetry-adapted basis of the row action: the real isotypic (Wedderburn) decomposition.

A group G permuting m labels acts on R^m by permutation matrices.  R^m splits into
isotypic components, one per irreducible real representation rho that occurs, each a
sum of ``m_rho`` copies (the multiplicity) of an irreducible of dimension ``d_rho``.  In
a basis adapted to that splitting every matrix commuting with G is block diagonal with
one block per rho; for rho of *real* type the block is ``B_rho (x) I_{d_rho}`` with
``B_rho`` of size ``m_rho`` (docs/symmetry-reduction.md).  The commutant has dimension
``sum_rho e_rho m_rho^2`` (``e_rho`` = 1, 2, 4 for real, complex, quaternionic type), which
equals the number of orbitals of G on [m] x [m]: that integer identity is how the
decomposition is verified to be complete.

Computation (floats, then verified): the eigenspaces of a random symmetric matrix in
the commutant (random values on the symmetrised orbitals) are irreducible submodules;
two are isomorphic iff a random commutant element couples them; ``e_rho`` is the rank of
random commutant elements restricted to one copy; copies of a real-type rho are aligned
by the (scaled orthogonal) intertwiners a random commutant element induces.  The result
is checked: the basis is orthonormal, every generator acts block-diagonally and
identically on aligned copies (largest residual reported as ``deviation``; refused above
``tol``), and the orbital count matches exactly.

Examples
--------
>>> from logitgeom.symmetry import cyclic, symmetric
>>> D = isotypic_decomposition(symmetric(5))
>>> [(t.dim, t.multiplicity, t.kind) for t in D.types]
[(1, 1, 'real'), (4, 1, 'real')]
>>> D = isotypic_decomposition(cyclic(6))
>>> sorted((t.dim, t.kind) for t in D.types)
[(1, 'real'), (1, 'real'), (2, 'complex'), (2, 'complex')]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from logitgeom.errors import InexactResult, InvalidInput
from logitgeom.symmetry.group import GroupAction
from logitgeom.symmetry.unionfind import UnionFind

__all__ = ["IrreducibleType", "IsotypicDecomposition", "isotypic_decomposition", "DEFAULT_TOL"]

#: residual above which a computed decomposition is refused (orthonormality, block form)
DEFAULT_TOL = 1e-9

_KINDS = {1: "real", 2: "complex", 4: "quaternionic"}


@dataclass(frozen=True, eq=False)
class IrreducibleType:
    """One isotypic component: ``multiplicity`` copies of an irreducible of dimension ``dim``.

    ``basis`` (m x multiplicity*dim) has orthonormal columns spanning the component; for
    ``kind`` "real" or "complex" column ``i * dim + k`` is coordinate k of copy i and G acts
    by the same matrices on every copy; for "complex" with multiplicity > 1 the first half
    of a copy's coordinates are real parts and the second half imaginary parts of its
    complex coordinates (docs/symmetry-reduction.md, section 3).
    """

    dim: int
    multiplicity: int
    kind: str
    basis: np.ndarray

    @property
    def commutant_dim(self) -> int:
        """``e m^2``: this component's share of the commutant's dimension."""
        return {"real": 1, "complex": 2, "quaternionic": 4}[self.kind] * self.multiplicity ** 2


@dataclass(frozen=True, eq=False)
class IsotypicDecomposition:
    """The symmetry-adapted basis of a row action, verified (see module docstring)."""

    m: int
    types: tuple[IrreducibleType, ...]
    orbitals: int
    deviation: float
    tol: float

    @property
    def block_sizes(self) -> list[tuple[int, int, str]]:
        """``(dim, multiplicity, kind)`` per type: the reduced program has one block of
        size ``multiplicity`` per real type (and a second-order cone when it is 1)."""
        return [(t.dim, t.multiplicity, t.kind) for t in self.types]

    def __str__(self) -> str:
        parts = ", ".join(f"{t.multiplicity}x{t.dim}{'' if t.kind == 'real' else t.kind[0]}"
                          for t in self.types)
        return (f"R^{self.m} = {parts} (multiplicity x dimension; c/q: complex/quaternionic "
                f"type); verified to {self.deviation:.1e}")


def _clusters(w: np.ndarray, scale: float) -> list[np.ndarray]:
    gap = 1e-7 * max(scale, 1.0)
    cuts = np.flatnonzero(np.diff(w) > gap) + 1
    return np.split(np.arange(len(w)), cuts)


def isotypic_decomposition(group: GroupAction, *, tol: float = DEFAULT_TOL,
                           seed: int = 0) -> IsotypicDecomposition:
    """The real isotypic decomposition of R^m under a group of label permutations.

    Parameters
    ----------
    group : GroupAction
        Its row action (m labels) is decomposed.
    tol : float
        Largest residual accepted in the verification (module docstring).
    seed : int
        Seed of the random commutant elements (the result is deterministic).

    Returns
    -------
    IsotypicDecomposition

    Raises
    ------
    InexactResult
        The verification failed (residual above ``tol`` or the orbital count differs);
        the orbit reduction then falls back to the undecomposed program.

    Examples
    --------
    >>> from logitgeom.symmetry import direct_sum, symmetric
    >>> D = isotypic_decomposition(direct_sum(symmetric(2), symmetric(3)))
    >>> D.block_sizes
    [(1, 2, 'real'), (1, 1, 'real'), (2, 1, 'real')]
    """
    if not isinstance(group, GroupAction):
        raise InvalidInput(f"group must be a GroupAction; got {type(group).__name__}")
    m = group.m
    rng = np.random.default_rng(seed)
    orb = np.asarray(group.orbitals())
    sym = np.asarray(group.orbitals(symmetrized=True))
    n_orb = int(orb.max()) + 1
    A = rng.uniform(1.0, 2.0, int(sym.max()) + 1)[sym]
    w, V = np.linalg.eigh(A)
    spaces = [V[:, idx] for idx in _clusters(w, float(np.abs(w).max()))]
    Cs = [rng.uniform(1.0, 2.0, n_orb)[orb] for _ in range(5)]
    C = Cs[0]
    # group isomorphic irreducibles (a random intertwiner couples them)
    k = len(spaces)
    iso = UnionFind(k)
    norm_c = float(np.linalg.norm(C))
    for i in range(k):
        for j in range(i + 1, k):
            if spaces[i].shape[1] != spaces[j].shape[1] or iso.find(i) == iso.find(j):
                continue
            if np.linalg.norm(spaces[i].T @ C @ spaces[j]) > 1e-6 * norm_c:
                iso.union(i, j)
    types = []
    for members in iso.blocks():
        Q1 = spaces[members[0]]
        d = Q1.shape[1]
        R = np.array([(Q1.T @ X @ Q1).ravel() for X in Cs])
        sv = np.linalg.svd(R, compute_uv=False)
        e = int(np.sum(sv > 1e-8 * sv[0]))
        if e not in _KINDS:
            raise InexactResult(f"isotypic decomposition: a component has a commutant of "
                                f"dimension {e} (expected 1, 2 or 4)")
        kind = _KINDS[e]
        if kind == "complex" and len(members) > 1:
            Q1 = Q1 @ _complex_basis(Q1.T @ C @ Q1, rng)  # columns e_1..e_c, J e_1..J e_c
        copies = [Q1]
        if kind in ("real", "complex"):
            for i in members[1:]:  # align: the intertwiners are scaled orthogonal maps
                T = spaces[i].T @ C @ Q1
                T = T / np.sqrt(np.trace(T.T @ T) / d)
                copies.append(spaces[i] @ T)
        else:
            copies.extend(spaces[i] for i in members[1:])
        basis = np.hstack(copies)
        types.append(IrreducibleType(d, len(members), kind, basis))
    types.sort(key=lambda t: (t.dim, -t.multiplicity, t.kind, tuple(np.round(
        np.abs(t.basis).sum(axis=1), 6))))
    dev = _verify(group, types)
    total = sum(t.commutant_dim for t in types)
    if total != n_orb:
        raise InexactResult(f"isotypic decomposition incomplete: the commutant has {n_orb} "
                            f"orbitals but the blocks account for {total}")
    if not dev <= tol:
        raise InexactResult(f"isotypic decomposition verified only to {dev:.2e} (> tol {tol:g})")
    return IsotypicDecomposition(m, tuple(types), n_orb, dev, tol)


def _complex_basis(X: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Orthogonal R (d x d) whose columns are e_1..e_c, J e_1..J e_c for the complex
    structure J of one copy (J from the non-scalar part of a commutant element X), so that
    the copy's coordinates read as c complex numbers (first half real, second imaginary)."""
    d = X.shape[0]
    Jp = X - np.trace(X) / d * np.eye(d)
    Jp = (Jp - Jp.T) / 2  # the non-scalar part of an element of span{I, J} is antisymmetric
    J = Jp / np.sqrt(np.trace(Jp.T @ Jp) / d)
    es: list[np.ndarray] = []
    for _ in range(d // 2):
        v = rng.standard_normal(d)
        for e in es:
            v -= (e @ v) * e + ((J @ e) @ v) * (J @ e)
        es.append(v / np.linalg.norm(v))
    return np.column_stack(es + [J @ e for e in es])


def _verify(group: GroupAction, types: list[IrreducibleType]) -> float:
    """Largest residual: orthonormality of the whole basis, block-diagonal generators,
    identical action on aligned copies of real-type components."""
    U = np.hstack([t.basis for t in types])
    m = group.m
    dev = float(np.max(np.abs(U.T @ U - np.eye(m)))) if U.shape[1] == m else np.inf
    bounds = np.cumsum([0] + [t.basis.shape[1] for t in types])
    for r in group.row_generators:
        inv = np.empty(m, dtype=np.int64)
        inv[np.asarray(r)] = np.arange(m)
        G = U.T @ U[inv]  # U^T P_g U with (P_g x)[g(i)] = x[i]
        for a, t in enumerate(types):
            lo, hi = bounds[a], bounds[a + 1]
            off = np.abs(np.delete(G[lo:hi], np.s_[lo:hi], axis=1))
            dev = max(dev, float(off.max()) if off.size else 0.0)
            if t.kind in ("real", "complex") and t.multiplicity > 1:
                d = t.dim
                B = G[lo:hi, lo:hi]
                R1 = B[:d, :d]
                expect = np.kron(np.eye(t.multiplicity), R1)
                dev = max(dev, float(np.max(np.abs(B - expect))))
    return dev
