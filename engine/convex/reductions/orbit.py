"""The orbit reduction of docs/symmetry.md: any finite permutation symmetry of Y.

If a group G acts on rows and columns with ``P_g Y Q_g^T = Y``, some optimal Z is
invariant, so Z has one variable per orbit of G on [m] x [n] and the loss is
``sum_O |O| CE(z_O; y_O)`` over column orbits O (representative column: the smallest).
The nuclear-norm ball becomes, with P in the (symmetric) commutant of the row action
(parametrised by the symmetrised orbitals of G on rows x rows):

    [[P, sqrt|O| z_O], [sqrt|O| z_O^T, s_O]] >= 0  for each column orbit O,
    (1/2) (tr P + sum_O s_O) <= rho

(``s_O = |O| t_O`` of docs/symmetry.md, rescaled by the congruence diag(1, sqrt|O|) so that the
program is well scaled when |O| is huge).  One (m+1) x (m+1) LMI per column orbit,
whatever |G| is.  The trivial group gives the split form (one LMI per column, P free).
The objective is divided by n for conditioning (``info["objective_scale"] = n``).

Examples
--------
>>> from engine.convex.solvers import solve
>>> from engine.symmetry import orbit_targets, symmetric
>>> T = orbit_targets(symmetric(3), ["1/2", "1/3", "1/6"])
>>> red = orbit_program(T.Y, 2.0, T.action)
>>> _ = solve(red.problem)
>>> Z = OrbitReduction().invert(red)
>>> Z.shape, round(float(np.linalg.svd(Z, compute_uv=False).sum()), 4)
((3, 6), 2.0)
"""

from __future__ import annotations

import math
from typing import Any

import cvxpy as cp
import numpy as np
import scipy.sparse as sp

from engine.convex.reductions.base import Acceptance, ReducedProblem, Reduction
from engine.errors import InvalidInput
from engine.symmetry._values import value_codes
from engine.symmetry.constructors import OrbitTargets, _orbit_matrix
from engine.symmetry.detect import detect_symmetry
from engine.symmetry.group import GroupAction

__all__ = ["DETECT_MAX_ENTRIES", "OrbitReduction", "orbit_program"]

#: Largest Y (m * n entries) on which the reduction looks for a group by itself.
DETECT_MAX_ENTRIES = 20_000


def _rep_labels(action: GroupAction, reps: np.ndarray) -> np.ndarray:
    """Pair-orbit labels of the representative columns (m x K), without n-sized work
    for regular actions."""
    if action.is_regular:
        m = action.m
        return (np.arange(m)[:, None] + m * np.arange(len(reps))[None, :]).astype(np.int64)
    return action.pair_orbit_labels()[:, reps]


def orbit_program(
    Y: object,
    rho: float,
    group: GroupAction,
    *,
    check: bool = True,
) -> ReducedProblem:
    """Build the orbit-reduced program for target Y, radius rho and a symmetry group.

    Parameters
    ----------
    Y : array_like (m x n) or OrbitTargets
        The target; its entries are compared exactly when ``check`` is True.
    rho : float
        Nuclear-norm radius (``sqrt(E_W E_H)``), > 0.
    group : GroupAction
        Acting on the m rows and n columns of Y.
    check : bool
        Verify exactly that every generator preserves Y (InvalidInput otherwise).

    Returns
    -------
    ReducedProblem
        ``inverse_data`` holds what :meth:`OrbitReduction.invert` needs; ``info`` holds
        the sizes (variables, LMIs, orbitals) and ``objective_scale``.

    Raises
    ------
    InvalidInput
        Not a GroupAction, shape mismatch, generators that do not preserve Y, rho <= 0.
    """
    if not isinstance(group, GroupAction):
        raise InvalidInput(f"group must be a GroupAction; got {type(group).__name__}")
    if not (isinstance(rho, int | float | np.floating | np.integer) and math.isfinite(rho)
            and rho > 0):
        raise InvalidInput(f"rho must be a finite positive number; got {rho!r}")
    if isinstance(Y, OrbitTargets):
        Yf, codes = Y.Y, (Y.codes() if check else None)
    else:
        if check:
            codes, values = value_codes(Y)
            vals = np.array([float(v) for v in values])
            Yf = vals[codes]
        else:
            Yf, codes = np.asarray(Y, dtype=float), None
    m, n = Yf.shape
    if (m, n) != (group.m, group.n):
        raise InvalidInput(f"Y has shape {(m, n)} but the group acts on {group.m} rows and "
                           f"{group.n} columns")
    if codes is not None:
        group.check_preserves(codes)

    reps, sizes = group.column_orbit_representatives()
    K = len(reps)
    lab = _rep_labels(group, reps)
    uniq, var_of = np.unique(lab, return_inverse=True)
    var_of = var_of.reshape(m, K)
    nv = len(uniq)
    x = cp.Variable(nv, name="z_orbits")
    S = sp.csr_matrix((np.ones(m * K), (np.arange(m * K), var_of.ravel(order="F"))),
                      shape=(m * K, nv))
    Zrep = cp.reshape(S @ x, (m, K), order="F")
    Yrep = Yf[:, reps]
    w = sizes.astype(float) / float(n)
    loss = w @ cp.log_sum_exp(Zrep, axis=0) - cp.sum(cp.multiply(Yrep * w[None, :], Zrep))

    orb = group.orbitals(symmetrized=True)
    no = int(orb.max()) + 1
    E = sp.csr_matrix((np.ones(m * m), (np.arange(m * m), orb.ravel(order="F"))),
                      shape=(m * m, no))
    a = cp.Variable(no, name="commutant")
    P = cp.reshape(E @ a, (m, m), order="F")
    s = cp.Variable(K, name="s_orbits")
    root = np.sqrt(sizes.astype(float))
    cons = []
    for k in range(K):
        zk = cp.reshape(Zrep[:, k] * root[k], (m, 1), order="F")
        M = cp.bmat([[P, zk], [zk.T, cp.reshape(s[k], (1, 1), order="F")]])
        cons.append((M + M.T) / 2 >> 0)
    diag_counts = np.bincount(np.diag(orb), minlength=no).astype(float)
    cons.append(0.5 * (diag_counts @ a + cp.sum(s)) <= rho)
    prob = cp.Problem(cp.Minimize(loss), cons)
    inverse = {"group": group, "x": x, "var_of_pair_label": dict(zip(uniq.tolist(),
                                                                      range(nv), strict=True)),
               "reps": reps, "m": m, "n": n}
    info = {"variables": nv, "lmis": K, "lmi_size": m + 1, "orbitals": no,
            "group_order": group.order, "objective_scale": float(n)}
    return ReducedProblem(prob, inverse, info)


class OrbitReduction(Reduction):
    """Orbit reduction for any finite permutation group preserving Y (``method="orbit"``).

    Options
    -------
    group : GroupAction, optional
        Acting on Y's rows and columns.  When omitted, :func:`detect_symmetry` looks for
        one (only if ``detect`` is True and Y has at most :data:`DETECT_MAX_ENTRIES`
        entries); the reduction accepts when a non-trivial group was found completely.
    detect : bool
        Allow detection when no group is given (default True).

    Examples
    --------
    >>> from engine.symmetry import cyclic, orbit_targets
    >>> T = orbit_targets(cyclic(3), ["1/2", "1/3", "1/6"])
    >>> class _P:  # any object with Y and rho
    ...     Y, rho = T.Y, 1.0
    >>> bool(OrbitReduction().accepts(_P(), group=T.action))
    True
    >>> OrbitReduction().accepts(_P(), detect=False).reason
    'the orbit reduction needs group=<GroupAction> (or detect=True)'
    """

    name = "orbit"

    def __init__(self) -> None:
        self._verified: tuple[int, int] | None = None
        self._detected: tuple[int, GroupAction] | None = None

    @staticmethod
    def _data(problem: Any) -> tuple[Any, np.ndarray, float]:
        exact = getattr(problem, "entries", None)  # LayerPeeled: exact entries
        Y = getattr(problem, "Y", None)
        rho = getattr(problem, "rho", None)
        if Y is None or rho is None:
            raise InvalidInput("the orbit reduction needs a problem with attributes Y and rho")
        return (Y if exact is None else exact), np.asarray(Y, dtype=float), float(rho)

    def _group(self, problem: Any, group: Any, detect: bool) -> GroupAction | Acceptance:
        if group is not None:
            if not isinstance(group, GroupAction):
                return Acceptance(False, "group must be an engine.symmetry.GroupAction, not "
                                         f"{type(group).__name__}")
            return group
        if self._detected is not None and self._detected[0] == id(problem):
            return self._detected[1]
        if not detect:
            return Acceptance(False, "the orbit reduction needs group=<GroupAction> "
                                     "(or detect=True)")
        exact, Yf, _ = self._data(problem)
        if Yf.size > DETECT_MAX_ENTRIES:
            return Acceptance(False, f"no group given and Y has {Yf.size} entries (> "
                                     f"{DETECT_MAX_ENTRIES}, the automatic detection limit); "
                                     "pass group= (see engine.symmetry.detect_symmetry)")
        found = detect_symmetry(exact)
        if not found.complete or found.is_trivial:
            return Acceptance(False, f"no group given; detection: {found}")
        self._detected = (id(problem), found.action)
        self._verified = (id(problem), id(found.action))
        return found.action

    def accepts(self, problem: Any, group: GroupAction | None = None, detect: bool = True,
                **options: Any) -> Acceptance:
        try:
            G = self._group(problem, group, detect)
            if isinstance(G, Acceptance):
                return G
            if self._verified == (id(problem), id(G)):
                return Acceptance(True)
            exact, _, _ = self._data(problem)
            codes, _ = value_codes(exact)
            G.check_preserves(codes)
        except InvalidInput as exc:
            return Acceptance(False, str(exc))
        self._verified = (id(problem), id(G))
        return Acceptance(True)

    def apply(self, problem: Any, group: GroupAction | None = None, detect: bool = True,
              **options: Any) -> ReducedProblem:
        G = self._group(problem, group, detect)
        if isinstance(G, Acceptance):
            raise InvalidInput(G.reason)
        exact, Yf, rho = self._data(problem)
        if self._verified == (id(problem), id(G)):
            red = orbit_program(Yf, rho, G, check=False)  # accepts() checked exactly
        else:
            red = orbit_program(exact, rho, G)
        red.info["group_source"] = "given" if group is not None else "detected"
        return red

    def invert(self, reduced: ReducedProblem) -> np.ndarray:
        d = reduced.inverse_data
        G: GroupAction = d["group"]
        xval = np.asarray(d["x"].value, dtype=float)
        m = d["m"]
        if G.is_regular:
            base = xval.reshape(G.blocks, m)  # label b*m + i -> variable index (sorted)
            return _orbit_matrix(G.row_elements(), base)
        L = G.pair_orbit_labels()
        lut = np.zeros(int(L.max()) + 1, dtype=np.int64)
        for lab, v in d["var_of_pair_label"].items():
            lut[lab] = v
        return xval[lut[L]]
