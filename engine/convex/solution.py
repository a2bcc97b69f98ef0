"""The solution of the layer-peeled program: :class:`LayerPeeledSolution` and how it is built.

``_finish`` takes the full-size Z* a reduction returned and, once and on the original
problem, scales it into the nuclear ball, recovers W*, H*, the Grams and the rank, and
computes the dual bound and the gap (docs/layer-peeled.md).  A large orbit target's sums
reduce to its base columns and an orbital mean (:func:`orbital_mean`).

Examples
--------
>>> import numpy as np
>>> from logitgeom.convex.problem import LayerPeeled
>>> sol = LayerPeeled(np.eye(2) * 0.5 + 0.25, 1.0, 1.0).solve("full")
>>> isinstance(sol, LayerPeeledSolution), sol.rank
(True, 1)
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from logitgeom import _display
from logitgeom.convex.dual import dual_bound
from logitgeom.convex.loss import cross_entropy, entropy, softmax
from logitgeom.convex.recovery import recover_factors, thin_svd, thin_svd_left
from logitgeom.convex.reductions.base import ReducedProblem, Status
from logitgeom.errors import SolverFailed

__all__ = ["LayerPeeledSolution", "orbital_mean", "KEEP_PROBABILITIES", "JSON_MAX_N_GRAM"]

#: ``to_json`` writes ``HtH`` (n x n) only up to this n (else null; ``H`` is always there)
JSON_MAX_N_GRAM = 2000

#: softmax(Z) and H are stored in the solution up to this many entries of Z (else computed
#: on access: an S_10 orbit target then stays under 1 GB)
KEEP_PROBABILITIES = 4_000_000


@dataclass(frozen=True)
class LayerPeeledSolution:
    """Everything one solve produces, all computed on the full-size Z*.

    ``loss`` is J(Z) at the returned (feasible) Z; ``dual_bound`` the dual value at
    ``A = softmax(Z)``; ``gap = loss - dual_bound``.  ``HtH`` is computed on access, and
    ``to_json`` writes it only for n <= ``JSON_MAX_N_GRAM`` (null otherwise).
    ``rank`` is numerical (relative threshold ``rank_tol``); ``tight`` is ``d >= rank``:
    then (W, H) attain ``loss`` and the convex value is the nonconvex one.  When the
    budget is inactive, Z is the centred ``log Y``, ``status == "budget_inactive"``,
    ``solver is None`` and the loss is the total entropy of Y.

    Solver warnings never reach the caller; facts about the solve are kept in ``info``:
    ``info["kept_status"]`` is the solver status of the tolerance tier whose point was kept
    when it differs from ``status`` (e.g. a tight tier that ended "optimal_inaccurate" but
    had the smaller full-size duality gap), and ``info["solver_note"]`` says why.

    Attributes
    ----------
    Z, W, WWt : numpy.ndarray
        The optimal logits, the label factor and its Gram (H and HtH on access).
    loss, dual_bound, gap : float
        J(Z), the dual value at softmax(Z), their difference.
    method, solver, status
        The reduction, the solver (None when nothing was solved) and its status.
    rank, tight, d, rho, nuclear_norm, free_radius, entropy, singular_values
        As named; ``tight`` is ``d >= rank``.
    info : dict
        Facts about the solve (solver notes, the reduction's findings).
    problem, reduction
        The LayerPeeled solved and the reduced problem (None if budget inactive).
    """

    Z: np.ndarray
    W: np.ndarray
    WWt: np.ndarray
    loss: float
    budget_active: bool
    rank: int
    tight: bool
    method: str
    solver: str | None
    status: Status
    solve_time: float
    dual_bound: float
    gap: float
    rho: float
    d: int
    nuclear_norm: float
    free_radius: float
    entropy: float
    singular_values: np.ndarray
    info: dict = field(default_factory=dict)
    #: the :class:`~logitgeom.convex.problem.LayerPeeled` that was solved
    problem: Any = field(default=None, repr=False, compare=False)
    #: the reduced problem that was solved (its ``plan`` and ``inverse``: what the
    #: reduction found and solved), None when the budget is inactive
    reduction: ReducedProblem | None = field(default=None, repr=False, compare=False)
    #: softmax(Z), kept when Z has at most ``KEEP_PROBABILITIES`` entries
    stored_probabilities: np.ndarray | None = field(default=None, repr=False, compare=False)
    #: H, kept when Z has at most ``KEEP_PROBABILITIES`` entries (else rebuilt on access)
    stored_H: np.ndarray | None = field(default=None, repr=False, compare=False)

    @property
    def H(self) -> np.ndarray:
        """The context factor (d x n): kept, or for huge Z rebuilt on access from W and Z
        (``H = diag(1 / (c^2 s_i)) W_i^T Z`` on the top ``k = min(rank, d)`` rows, c^2 =
        sqrt(E_W/E_H), zero rows below: the same H as :func:`recover_factors`)."""
        if self.stored_H is not None:
            return self.stored_H
        return _rebuild_H(self.W, self.Z, self.singular_values, self.rank, self.d,
                          self.problem.E_W, self.problem.E_H)
    @property
    def probabilities(self) -> np.ndarray:
        """``softmax(Z)`` column by column (kept, or computed on access for huge Z)."""
        if self.stored_probabilities is not None:
            return self.stored_probabilities
        return softmax(self.Z)

    def __repr__(self) -> str:
        return _display.short_repr(self)

    def _repr_html_(self) -> str:
        return _display.html(self)

    @property
    def HtH(self) -> np.ndarray:
        """``H^T H`` (n x n), computed on access (n = 40,320 would need 13 GB)."""
        return self.H.T @ self.H

    def certificate(self, eps: Any = None, **kw: Any) -> dict:
        """A checkable proof that the optimum lies in ``[lower, upper]`` (width <= eps).

        Thin wrapper of :func:`logitgeom.certify.convex.solution_certificate` (keywords:
        ``eps_mode``, ``generators``, ``claims``, ``precision``, ``orbit``: the
        ``layer-peeled-orbit-bracket`` of an OrbitTargets); see docs/certified-optima.md.

        Examples
        --------
        >>> from logitgeom.convex.problem import LayerPeeled
        >>> sol = LayerPeeled([["1/2", "1/4"], ["1/2", "3/4"]], 1, 1).solve()
        >>> sol.certificate(eps="1/1000000")["kind"]
        'layer-peeled-bracket'
        """
        from logitgeom.certify.convex import solution_certificate

        return solution_certificate(self, eps=eps, **kw)

    def rank_certificate(self, **kw: Any) -> dict:
        """A ``layer-peeled-rank-bracket`` for this solution's width d: W of d columns, lower
        end the convex relaxation's certified bound (docs/beyond-symmetry.md).  Keywords of
        :func:`logitgeom.convex.lowrank.rank_certificate` (``eps``, ``precision``, ...).

        Examples
        --------
        >>> from logitgeom.convex.problem import LayerPeeled
        >>> sol = LayerPeeled([["1/2", "1/4"], ["1/2", "3/4"]], 1, 1, d=1).solve()
        >>> sol.rank_certificate()["relaxation"]
        'exact'
        """
        from logitgeom.convex.lowrank import rank_certificate

        return rank_certificate(self.problem, self.d, sol=self, **kw)

    def to_dict(self, *, include_timing: bool = False) -> dict:
        """Plain-JSON data (floats and nested lists), keys sorted by :meth:`to_json`."""
        fr = self.free_radius
        out = {
            "format": "logitgeom.layer_peeled_solution",
            "version": 1,
            "shape": list(self.Z.shape),
            "E_W": self.problem.E_W if self.problem else None,
            "E_H": self.problem.E_H if self.problem else None,
            "rho": self.rho,
            "d": self.d,
            "method": self.method,
            "solver": self.solver,
            "status": str(self.status),
            "budget_active": self.budget_active,
            "free_radius": None if math.isinf(fr) else fr,
            "loss": self.loss,
            "dual_bound": self.dual_bound,
            "gap": self.gap,
            "entropy": self.entropy,
            "nuclear_norm": self.nuclear_norm,
            "rank": self.rank,
            "tight": self.tight,
            "singular_values": self.singular_values.tolist(),
            "Z": self.Z.tolist(),
            "W": self.W.tolist(),
            "H": self.H.tolist(),
            "WWt": self.WWt.tolist(),
            "HtH": self.HtH.tolist() if self.Z.shape[1] <= JSON_MAX_N_GRAM else None,
            "probabilities": self.probabilities.tolist(),
            "info": _plain(self.info),
        }
        if include_timing:
            out["solve_time"] = self.solve_time
        return out

    def to_json(self, *, include_timing: bool = False, indent: int | None = None) -> str:
        """Deterministic JSON (sorted keys; no timing unless asked for).

        Examples
        --------
        >>> Y = np.array([[0.6, 0.3], [0.4, 0.7]])
        >>> from logitgeom.convex.problem import LayerPeeled
        >>> s = LayerPeeled(Y, 1.0, 1.0).solve("full").to_json()
        >>> json.loads(s)["method"]
        'full'
        """
        return json.dumps(self.to_dict(include_timing=include_timing), sort_keys=True,
                          indent=indent, allow_nan=False)


def _plain(x: Any) -> Any:
    """JSON-ready copy of reduction info (numpy scalars/arrays to Python, unknowns to str)."""
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_plain(v) for v in x]
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, np.generic):
        return x.item()
    if x is None or isinstance(x, bool | int | float | str):
        return x
    return str(x)


def _rebuild_H(W: np.ndarray, Z: np.ndarray, s: np.ndarray, rank: int, d: int,
               E_W: float, E_H: float) -> np.ndarray:
    """The H of :func:`recover_factors` from W and Z: ``diag(1/(c^2 s_i)) W_i^T Z`` on the
    top ``min(rank, d)`` rows (c^2 = sqrt(E_W/E_H)), zero rows below."""
    k = min(rank, d)
    H = np.zeros((d, Z.shape[1]))
    H[:k] = (W[:, :k].T @ Z) / (math.sqrt(E_W / E_H) * s[:k])[:, None]
    return H



def _nuclear_from_gram(ev: np.ndarray) -> float:
    """sum of sqrt(eigenvalues) of a Gram Z Z^T, eigenvalues below 1e-13 x the largest
    counted as 0: they are rounding noise (a centred Z has an exact zero direction) whose
    square roots would add ~1e-8 relative to the nuclear norm."""
    ev = np.array(ev, dtype=float)
    ev[ev < 1e-13 * max(float(ev.max(initial=0.0)), 0.0)] = 0.0
    return float(np.sqrt(ev).sum())


def orbital_mean(M: np.ndarray, orbitals: np.ndarray) -> np.ndarray:
    """The mean of an m x m matrix over each orbital (label matrix ``orbitals``): the
    average ``(1/|G|) sum_g P_g M P_g^T``.

    Examples
    --------
    >>> orbital_mean(np.array([[1.0, 2.0], [4.0, 3.0]]), np.array([[0, 1], [1, 0]])).tolist()
    [[2.0, 3.0], [3.0, 2.0]]
    """
    lab = orbitals.ravel()
    sums = np.bincount(lab, weights=np.asarray(M, dtype=float).ravel())
    return (sums / np.bincount(lab))[orbitals]


def _orbit_bound(problem: Any, zb: np.ndarray, orbit: tuple, *,
                 into_ball: bool = False):
    """:func:`dual_bound` of the invariant Z with base columns ``zb`` (m x B): every column
    sum is |G| times the base sum, ``(A - Y)(A - Y)^T`` is |G| times an orbital mean.
    ``into_ball`` (a score only): first scale Z into the nuclear ball, its nuclear norm from
    the eigenvalues of ``Z Z^T`` (those below ``1e-13 x`` the largest, rounding noise of the
    centred direction whose square roots would add ~1e-8, count as 0)."""
    from logitgeom.convex.dual import DualBound

    N, idx, orbitals = orbit
    yb = problem.orbit_target.base_floats()
    zb = np.asarray(zb, dtype=float)
    if into_ball:
        nuc = _nuclear_from_gram(np.linalg.eigvalsh(N * orbital_mean(zb @ zb.T, orbitals)))
        if nuc > problem.rho:
            zb = zb * (problem.rho / nuc)
    upper = N * cross_entropy(zb, yb)
    A = softmax(zb)
    V = A - yb
    top = float(np.linalg.eigvalsh(N * orbital_mean(V @ V.T, orbitals))[-1])
    lower = N * entropy(A) - problem.rho * math.sqrt(max(top, 0.0))
    return DualBound(upper=upper, lower=lower, gap=upper - lower, A=None)


def _finish(problem: Any, Z: np.ndarray, method: str, solver: str | None,
            status: Status, elapsed: float, info: dict, rank_tol: float,
            reduction: ReducedProblem | None = None,
            orbit: tuple | None = None) -> LayerPeeledSolution:
    if Z.shape != problem.shape:
        raise SolverFailed(f"method {method!r} returned Z of shape {Z.shape}, "
                           f"expected {problem.shape}")
    keep = Z.size <= KEEP_PROBABILITIES
    if keep or Z.shape[1] < 8 * Z.shape[0]:
        U, s, Vt = thin_svd(Z)
    else:  # huge and wide: H is rebuilt on access, so no n-sized Vt is made
        (U, s), Vt = thin_svd_left(Z), None
    nuc = float(s.sum())
    if nuc > problem.rho:  # solver tolerance: scale back into the ball, so loss is an upper bound
        scale = problem.rho / nuc
        Z = np.multiply(Z, scale, out=Z if Z.flags.writeable else None)  # no second copy
        s = s * scale
        nuc = problem.rho
    if problem.budget_active and 0 < nuc < problem.rho:
        # The optimum lies on the boundary ||Z||_* = rho; a solver stops inside it (for
        # near one-hot targets J falls exponentially along the ray, and the interior point
        # can be 1e4 x worse than the boundary one).  Keep the better of the two points.
        t = problem.rho / nuc
        if orbit is not None:
            zb, yb = Z[:, orbit[1]], problem.orbit_target.base_floats()
            better = cross_entropy(zb, yb, scale=t) < cross_entropy(zb, yb)
        else:
            better = cross_entropy(Z, problem.Y, scale=t) < cross_entropy(Z, problem.Y)
        if better:
            Z = np.multiply(Z, t, out=Z if Z.flags.writeable else None)
            s, nuc = s * t, problem.rho
    if orbit is not None:  # invariant Z of a large orbit target: sums over the base columns
        bound = _orbit_bound(problem, Z[:, orbit[1]], orbit)
    else:
        bound = dual_bound(Z, problem.Y, problem.rho, keep_A=keep)
    from logitgeom.limits import GAP_LIMIT, check_gap

    if "symmetry_deviation" not in info:
        check_gap(bound.upper, bound.lower, what=f"{solver or 'closed form'} on method {method}")
    elif not abs(bound.gap) <= GAP_LIMIT * max(1.0, abs(bound.upper)):
        # tol: optimal for the group average of Y, not for Y; the gap is the asymmetry's cost
        status = Status.APPROXIMATE
    f = recover_factors(Z, problem.E_W, problem.E_H, problem.d, rank_tol, svd=(U, s, Vt),
                        want_H=keep)
    del U, Vt
    if not f.tight:  # d < rank: the convex value is a lower bound the factors do not reach
        H = f.H if f.H is not None else _rebuild_H(f.W, Z, f.singular_values, f.rank, f.d,
                                                   problem.E_W, problem.E_H)
        info["factors_loss"] = cross_entropy(f.W @ H, problem.Y)
        info["bound_attained"] = False
        info["note"] = (f"d = {f.d} < rank {f.rank}: loss {bound.upper:.10g} is the convex "
                        f"lower bound, NOT attained by the returned factors (their loss "
                        f"J(W H) = {info['factors_loss']:.10g})")
    return LayerPeeledSolution(
        Z=Z, W=f.W, stored_H=f.H, WWt=f.WWt, loss=bound.upper,
        stored_probabilities=bound.A, budget_active=problem.budget_active, rank=f.rank,
        tight=f.tight, method=method, solver=solver, status=status, solve_time=elapsed,
        dual_bound=bound.lower, gap=bound.gap, rho=problem.rho, d=f.d, nuclear_norm=nuc,
        free_radius=problem.free_radius,
        entropy=(orbit[0] * entropy(problem.orbit_target.base_floats()) if orbit is not None
                 else entropy(problem.Y)),
        singular_values=f.singular_values, info=info, problem=problem, reduction=reduction)

