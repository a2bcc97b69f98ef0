"""The orbit reduction: any finite permutation symmetry of Y, block-diagonalised
(docs/symmetry.md, docs/symmetry-reduction.md).

If a group G acts on rows and columns with ``P_g Y Q_g^T = Y``, some optimal Z is
invariant, so Z has one variable per orbit of G on [m] x [n] and the loss is
``sum_O |O| CE(z_O; y_O)`` over column orbits O (representative column: the smallest).
For invariant Z, ``||Z||_* = min_P (tr P + sum_O |O| z_O^T P^{-1} z_O) / 2`` over P in the
commutant of the row action; in the symmetry-adapted basis of
:func:`logitgeom.symmetry.isotypic.isotypic_decomposition` P is block diagonal, and the ball
``||Z||_* <= rho`` becomes (docs/symmetry-reduction.md)

    sum_rho t_rho <= rho,
    t_rho >= sqrt(d_rho) ||M_rho||_F          (multiplicity 1: one second-order cone)
    t_rho >= sqrt(d_rho) ||M_rho||_*          (real type, multiplicity k > 1: k x d K)
    t_rho >= sqrt(d_rho) ||W_rho||_*          (complex type, k > 1: W complex k x (d/2) K)

with ``M_rho`` the rho-coordinates of ``sqrt|O| z_O`` (copy index by row, coordinate and
orbit by column).  Components of quaternionic type with multiplicity > 1 keep
one LMI ``[[P_rho, x_O], [x_O^T, s_O]] >= 0`` per orbit on their own isotypic block (P
in the commutant).  When the decomposition cannot be verified (it always could so far)
the undecomposed program is used: one (m+1) x (m+1) LMI per column orbit
(``blocks="none"`` forces it, for comparison).  The objective is divided by n for
conditioning (``info["objective_scale"] = n``).

Examples
--------
>>> from logitgeom.convex.solvers import solve
>>> from logitgeom.symmetry import orbit_targets, symmetric
>>> T = orbit_targets(symmetric(3), ["1/2", "1/3", "1/6"])
>>> red = orbit_program(T.Y, 2.0, T.action)
>>> _ = solve(red.problem)
>>> Z = OrbitReduction().invert(red)
>>> Z.shape, round(float(np.linalg.svd(Z, compute_uv=False).sum()), 4)
((3, 6), 2.0)
>>> red.info["isotypic_blocks"]
[[1, 1, 'real'], [2, 1, 'real']]
"""

from __future__ import annotations

import enum
import math
import warnings
from dataclasses import dataclass
from typing import Any

import cvxpy as cp
import numpy as np
import scipy.sparse as sp

from logitgeom.convex.reductions.base import Acceptance, Plan, ReducedProblem, Reduction
from logitgeom.convex.reductions.etf import etf_with_group
from logitgeom.convex.reductions.full import nuclear_epigraph
from logitgeom.errors import InexactResult, InvalidInput
from logitgeom.symmetry.constructors import OrbitTargets, as_group, orbit_matrix
from logitgeom.symmetry.detect import detect_label_symmetry, detect_symmetry
from logitgeom.symmetry.group import GroupAction
from logitgeom.symmetry.isotypic import IsotypicDecomposition, isotypic_decomposition
from logitgeom.symmetry.values import tolerant_codes, value_codes

__all__ = ["DETECT_MAX_ENTRIES", "LABEL_FIRST_MAX", "GroupSource", "OrbitInverse", "OrbitPlan",
           "OrbitReduction", "orbit_program", "symmetrized_target"]

#: Largest Y (m * n entries) on which the reduction runs the full search by itself; above
#: it (and when the row-action-first search does not settle it), ``accepts`` says no *and
#: warns* with how to pass ``group=``.
DETECT_MAX_ENTRIES = 200_000

#: Largest m * m * n for the row-action-first search (:func:`detect_label_symmetry`:
#: m^2 sorts of n pair codes, then a search on an m x 2m summary, verified on Y).
LABEL_FIRST_MAX = 50_000_000

BLOCKS = ("auto", "none")


class GroupSource(enum.StrEnum):
    """Where the orbit reduction's group came from (``info["group_source"]``)."""

    #: passed as ``group=``
    GIVEN = "given"
    #: found on Y by the detection
    DETECTED = "detected"
    #: the group an OrbitTargets target was built from
    TARGET = "target"


@dataclass(frozen=True, eq=False)
class OrbitPlan(Plan):
    """What :meth:`OrbitReduction.accepts` found.

    ``group`` acts on Y's rows and columns (verified: exactly, or to ``tol`` with the
    largest deviation ``deviation``); ``source`` is "given", "detected" or "target" (the
    group an :class:`OrbitTargets` was built from); ``target`` is
    the target the reduced program uses (Y itself, or its average over the pair orbits
    when the symmetry is approximate); ``decomposition`` the verified isotypic
    decomposition of the row action (None: undecomposed program).
    """

    group: GroupAction
    source: GroupSource
    deviation: float
    tol: float
    target: np.ndarray
    decomposition: IsotypicDecomposition | None

    @property
    def label_generators(self) -> tuple[tuple[int, ...], ...] | None:
        """The group's label generators when it preserves Y exactly (``tol`` 0)."""
        return self.group.row_generators if self.tol == 0 else None

    @property
    def keeps_target_group(self) -> bool:
        """The program was solved with the OrbitTargets' own group, exactly."""
        return self.source is GroupSource.TARGET and self.tol == 0


@dataclass(frozen=True, eq=False)
class OrbitInverse:
    """The orbit variables, the map pair label -> variable, the group and the shape."""

    group: GroupAction
    x: cp.Variable
    var_of_pair_label: dict
    reps: np.ndarray
    m: int
    n: int


def _rep_labels(action: GroupAction, reps: np.ndarray) -> np.ndarray:
    """Pair-orbit labels of the representative columns (m x K), without n-sized work
    for regular actions."""
    if action.is_regular:
        m = action.m
        return (np.arange(m)[:, None] + m * np.arange(len(reps))[None, :]).astype(np.int64)
    return action.pair_orbit_labels()[:, reps]


def symmetrized_target(Y: np.ndarray, group: GroupAction) -> np.ndarray:
    """Y averaged over the orbits of ``group`` on [m] x [n] (exactly invariant).

    Examples
    --------
    >>> G = GroupAction([([1, 0], [1, 0])], m=2, n=2)
    >>> symmetrized_target(np.array([[0.5, 0.25], [0.5, 0.75]]), G).tolist()
    [[0.625, 0.375], [0.375, 0.625]]
    """
    lab = group.pair_orbit_labels().ravel()
    tot = np.bincount(lab, weights=np.asarray(Y, dtype=float).ravel())
    cnt = np.bincount(lab)
    return (tot / cnt)[lab].reshape(Y.shape)


def _block_constraints(Zs: cp.Expression, dec: IsotypicDecomposition, rho: float,
                       group: GroupAction) -> tuple[list, list]:
    """The ball ``||Z||_* <= rho`` on the isotypic blocks (module docstring)."""
    cons, t = [], cp.Variable(len(dec.types), name="t_types")
    a = P_full = None
    sizes = []
    for r, typ in enumerate(dec.types):
        X = typ.basis.T @ Zs  # (k d) x K
        d, k = typ.dim, typ.multiplicity
        if k == 1:
            cons.append(math.sqrt(d) * cp.norm(cp.vec(X, order="F"), 2) <= t[r])
            sizes.append([d, k, typ.kind])
        elif typ.kind == "real":
            M = cp.hstack([X[q::d, :] for q in range(d)])  # k x (d K)
            cons += nuclear_epigraph(M, t[r] / math.sqrt(d))
            sizes.append([d, k, typ.kind])
        elif typ.kind == "complex":
            # coordinates l < c of each copy are real parts, c + l imaginary parts: the
            # k x (c K) complex matrix W, realified [[Re, -Im], [Im, Re]] (nuclear norm 2x)
            c = d // 2
            Re = cp.hstack([X[q::d, :] for q in range(c)])
            Im = cp.hstack([X[c + q::d, :] for q in range(c)])
            R = cp.bmat([[Re, -Im], [Im, Re]])
            cons += nuclear_epigraph(R, 2 * t[r] / math.sqrt(d))
            sizes.append([d, k, typ.kind])
        else:
            if a is None:
                orb = group.orbitals(symmetrized=True)
                no = int(orb.max()) + 1
                m = group.m
                E = sp.csr_matrix((np.ones(m * m), (np.arange(m * m), orb.ravel(order="F"))),
                                  shape=(m * m, no))
                a = cp.Variable(no, name="commutant")
                P_full = cp.reshape(E @ a, (m, m), order="F")
            Pr = typ.basis.T @ P_full @ typ.basis
            Pr = (Pr + Pr.T) / 2
            K = X.shape[1]
            s = cp.Variable(K)
            for o in range(K):
                xo = cp.reshape(X[:, o], (k * d, 1), order="F")
                cons.append(cp.bmat([[Pr, xo], [xo.T, cp.reshape(s[o], (1, 1), order="F")]])
                            >> 0)
            cons.append((cp.trace(Pr) + cp.sum(s)) / 2 <= t[r])
            sizes.append([d, k, typ.kind])
    cons.append(cp.sum(t) <= rho)
    return cons, sizes


def _lmi_constraints(Zs: cp.Expression, group: GroupAction, rho: float) -> tuple[list, int]:
    """The undecomposed ball: one (m+1) x (m+1) LMI per column orbit, P in the commutant."""
    m = group.m
    orb = group.orbitals(symmetrized=True)
    no = int(orb.max()) + 1
    E = sp.csr_matrix((np.ones(m * m), (np.arange(m * m), orb.ravel(order="F"))),
                      shape=(m * m, no))
    a = cp.Variable(no, name="commutant")
    P = cp.reshape(E @ a, (m, m), order="F")
    K = Zs.shape[1]
    s = cp.Variable(K, name="s_orbits")
    cons = []
    for k in range(K):
        zk = cp.reshape(Zs[:, k], (m, 1), order="F")
        M = cp.bmat([[P, zk], [zk.T, cp.reshape(s[k], (1, 1), order="F")]])
        cons.append((M + M.T) / 2 >> 0)
    diag_counts = np.bincount(np.diag(orb), minlength=no).astype(float)
    cons.append(0.5 * (diag_counts @ a + cp.sum(s)) <= rho)
    return cons, no


def orbit_program(
    Y: object,
    rho: float,
    group: Any,
    *,
    check: bool = True,
    blocks: str = "auto",
    decomposition: IsotypicDecomposition | None = None,
) -> ReducedProblem:
    """Build the orbit-reduced program for target Y, radius rho and a symmetry group.

    Parameters
    ----------
    Y : array_like (m x n) or OrbitTargets
        The target; its entries are compared exactly when ``check`` is True.
    rho : float
        Nuclear-norm radius (``sqrt(E_W E_H)``), > 0.
    group : any spelling of :func:`logitgeom.symmetry.as_group`
        On labels only (the column action is derived from Y) or on rows and columns.
    check : bool
        Verify exactly that the group preserves Y (InvalidInput otherwise).
    blocks : {"auto", "none"}
        "auto": block-diagonalise by the isotypic decomposition (falls back to "none"
        when it cannot be verified); "none": one (m+1) x (m+1) LMI per column orbit.
    decomposition : IsotypicDecomposition, optional
        A decomposition of the row action already computed (e.g. by ``accepts``).

    Returns
    -------
    ReducedProblem
        ``inverse`` is an :class:`OrbitInverse`; ``info`` holds the sizes (variables,
        blocks or LMIs, orbitals) and ``objective_scale``.

    Raises
    ------
    InvalidInput
        Not a group, shape mismatch, a group that does not preserve Y, rho <= 0.
    """
    if not (isinstance(rho, int | float | np.floating | np.integer) and math.isfinite(rho)
            and rho > 0):
        raise InvalidInput(f"rho must be a finite positive number; got {rho!r}")
    if blocks not in BLOCKS:
        raise InvalidInput(f"blocks must be one of {', '.join(BLOCKS)}; got {blocks!r}")
    if isinstance(Y, OrbitTargets):  # its float Y is never built here (S_10: 290 MB)
        Yf, codes = None, (Y.codes() if check else None)
    elif check:
        codes, values = value_codes(Y)
        vals = np.array([float(v) for v in values])
        Yf = vals[codes]
    else:
        Yf, codes = np.asarray(Y, dtype=float), None
    m, n = Y.shape if Yf is None else Yf.shape
    if isinstance(group, GroupAction) and group.n == n and group.m == m:
        G = group
        if codes is not None:
            G.check_preserves(codes)
    else:
        G = as_group(group, m=m, Y=codes if codes is not None else
                     (Y.codes() if Yf is None else Yf))

    reps, sizes = G.column_orbit_representatives()
    K = len(reps)
    lab = _rep_labels(G, reps)
    uniq, var_of = np.unique(lab, return_inverse=True)
    var_of = var_of.reshape(m, K)
    nv = len(uniq)
    x = cp.Variable(nv, name="z_orbits")
    S = sp.csr_matrix((np.ones(m * K), (np.arange(m * K), var_of.ravel(order="F"))),
                      shape=(m * K, nv))
    Zrep = cp.reshape(S @ x, (m, K), order="F")
    if Yf is None:  # the representative columns from the exact codes
        vals = np.array([float(v) for v in sorted({x for b in Y.base for x in b})])
        Yrep = vals[Y.codes()[:, reps]]
    else:
        Yrep = Yf[:, reps]
    w = sizes.astype(float) / float(n)
    loss = w @ cp.log_sum_exp(Zrep, axis=0) - cp.sum(cp.multiply(Yrep * w[None, :], Zrep))
    Zs = Zrep @ np.diag(np.sqrt(sizes.astype(float)))

    info: dict[str, Any] = {"variables": nv, "column_orbits": K, "group_order": G.order,
                            "objective_scale": float(n)}
    dec = decomposition
    if blocks == "auto" and dec is None:
        try:
            dec = isotypic_decomposition(G)
        except InexactResult as exc:
            info["decomposition_failed"] = str(exc)
            dec = None
    if blocks == "auto" and dec is not None:
        cons, sizes_ = _block_constraints(Zs, dec, float(rho), G)
        info.update({"isotypic_blocks": sizes_, "commutant_dim": dec.orbitals,
                     "orbitals": int(G.orbitals(symmetrized=True).max()) + 1,
                     "largest_block": max(k for _, k, _ in sizes_),
                     "decomposition_deviation": dec.deviation})
    else:
        cons, no = _lmi_constraints(Zs, G, float(rho))
        info.update({"lmis": K, "lmi_size": m + 1, "orbitals": no})
    prob = cp.Problem(cp.Minimize(loss), cons)
    inverse = OrbitInverse(G, x, dict(zip(uniq.tolist(), range(nv), strict=True)), reps, m, n)
    return ReducedProblem(prob, inverse, info)


class OrbitReduction(Reduction):
    """Orbit reduction for any finite permutation group preserving Y (``method="orbit"``).

    Options
    -------
    group : any spelling of :func:`logitgeom.symmetry.as_group`, optional
        When omitted (and ``detect`` is True) the group is detected: row action first
        (:func:`detect_label_symmetry`, when m^2 n <= :data:`LABEL_FIRST_MAX`), else the
        full search :func:`detect_symmetry` when Y has at most :data:`DETECT_MAX_ENTRIES`
        entries; otherwise ``accepts`` warns and says how to pass the group.  The
        reduction accepts when a non-trivial group was found completely.
    detect : bool
        Allow detection when no group is given (default True).
    tol : float
        Approximate symmetry (default 0: exact).  Entries closer than ``tol`` count as
        equal in detection; the group is then verified on Y to ``tol`` and the reduced
        program solves Y averaged over the orbits (``info["symmetry_deviation"]``); the
        loss and dual bound are still those of the original Y, so the gap shows the cost.
    blocks : {"auto", "none"}
        Block-diagonalise (default) or keep one (m+1) x (m+1) LMI per column orbit.

    Examples
    --------
    >>> from logitgeom.convex.problem import LayerPeeled
    >>> from logitgeom.symmetry import cyclic, orbit_targets
    >>> T = orbit_targets(cyclic(3), ["1/2", "1/3", "1/6"])
    >>> P = LayerPeeled(T.Y, 1, 1)
    >>> OrbitReduction().accepts(P, group=cyclic(3)).plan.group.n
    3
    >>> OrbitReduction().accepts(P, detect=False).reason.startswith("the orbit reduction needs")
    True
    """

    name = "orbit"
    options = frozenset({"group", "detect", "tol", "blocks"})

    def accepts(self, problem: Any, group: Any = None, detect: bool = True,
                tol: float = 0.0, blocks: str = "auto", **options: Any) -> Acceptance:
        """Find (or take) the group, verify it on Y, decompose its row action."""
        if blocks not in BLOCKS:
            return Acceptance(False, f"blocks must be one of {', '.join(BLOCKS)}")
        if not (isinstance(tol, int | float) and tol >= 0 and math.isfinite(tol)):
            return Acceptance(False, f"tol must be a finite number >= 0; got {tol!r}")
        codes = problem.codes
        if tol > 0:
            codes = tolerant_codes(np.asarray(problem.Y, dtype=float), tol)
        try:
            if group is not None:
                G = as_group(group, m=problem.m, Y=codes)
                source = GroupSource.GIVEN
            elif getattr(problem, "symmetry", None) is not None and tol == 0:
                G, source = problem.symmetry, GroupSource.TARGET  # Y was built as its orbit target
            else:
                if not detect:
                    return Acceptance(False, "the orbit reduction needs group= (a "
                                             "GroupAction, a spec such as \"S3\", a sympy "
                                             "group or generators) or detect=True")
                found = None
                Yf = np.asarray(problem.Y, dtype=float)
                m, n = Yf.shape
                if m * m * n <= LABEL_FIRST_MAX:  # row action first: a search on m x 2m
                    found = detect_label_symmetry(codes)
                if found is None:
                    if Yf.size > DETECT_MAX_ENTRIES:
                        msg = (f"no group given and Y has {Yf.size} entries (> "
                               f"{DETECT_MAX_ENTRIES}, the automatic detection limit): pass "
                               "group= (e.g. group=\"S2wrS5\", a GroupAction or generators "
                               "on the labels) or call logitgeom.symmetry.detect_symmetry(Y) "
                               "yourself")
                        warnings.warn(msg, stacklevel=3)
                        return Acceptance(False, msg)
                    found = detect_symmetry(codes)
                if not found.complete or found.is_trivial:
                    return Acceptance(False, f"no group given; detection: {found}")
                G, source = found.action, GroupSource.DETECTED
        except InvalidInput as exc:
            return Acceptance(False, str(exc))
        T = getattr(problem, "orbit_target", None)
        exact_target = T is not None and source is GroupSource.TARGET and tol == 0
        target, dev = (T if exact_target else np.asarray(problem.Y, dtype=float)), 0.0
        if tol > 0:
            Yf = np.asarray(problem.Y, dtype=float)
            target = symmetrized_target(Yf, G)
            dev = float(np.max(np.abs(target - Yf)))
            if dev > tol:
                return Acceptance(False, f"the group preserves Y only to {dev:.2e} (> tol "
                                         f"{tol:g})")
        dec = None
        if blocks == "auto":
            try:
                dec = isotypic_decomposition(G)
            except InexactResult:
                dec = None
        return Acceptance(True, plan=OrbitPlan(G, source, dev, float(tol), target, dec))

    def refine(self, problem: Any, acceptance: Acceptance) -> tuple[Reduction, Acceptance] | None:
        """The ETF closed form when the group found exactly on Y is 2-homogeneous."""
        gens = acceptance.plan.label_generators
        return None if gens is None else etf_with_group(problem, gens)

    def apply(self, problem: Any, acceptance: Acceptance, blocks: str = "auto",
              **options: Any) -> ReducedProblem:
        """Build the block-diagonal orbit program from the plan (group verified already)."""
        plan: OrbitPlan = acceptance.plan
        red = orbit_program(plan.target, float(problem.rho), plan.group, check=False,
                            blocks=blocks, decomposition=plan.decomposition)
        info = dict(red.info, group_source=plan.source)
        if plan.tol > 0:
            info["symmetry_deviation"] = plan.deviation
        return ReducedProblem(red.problem, red.inverse, info, plan)

    def base_logits(self, reduced: ReducedProblem) -> np.ndarray | None:
        """The logits of the base columns (m x B: column b is that of block b's identity
        element) of a regular action, without building Z; None for other actions."""
        d: OrbitInverse = reduced.inverse
        if not d.group.is_regular or d.x.value is None:
            return None
        return np.asarray(d.x.value, dtype=float).reshape(d.group.blocks, d.m).T

    def invert(self, reduced: ReducedProblem) -> np.ndarray:
        """The invariant full-size Z from the orbit variables."""
        d: OrbitInverse = reduced.inverse
        G = d.group
        xval = np.asarray(d.x.value, dtype=float)
        if G.is_regular:
            base = xval.reshape(G.blocks, d.m)  # label b*m + i -> variable index (sorted)
            return orbit_matrix(G.row_elements(), base, G.inverse_elements())
        L = G.pair_orbit_labels()
        lut = np.zeros(int(L.max()) + 1, dtype=np.int64)
        for lab, v in d.var_of_pair_label.items():
            lut[lab] = v
        return xval[lut[L]]

