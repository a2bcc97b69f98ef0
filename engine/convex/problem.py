"""The layer-peeled program at the logit level (docs/layer-peeled.md) and its solution.

``LayerPeeled(Y, E_W, E_H, d)`` holds a validated target; ``.solve(method=...)`` picks a
reduction from :mod:`engine.convex.reductions`, solves it, maps it back to the full-size
Z* and then, once and on the original problem, recovers W*, H*, the Grams, the rank, the
dual bound and the gap.

Examples
--------
>>> import numpy as np
>>> Y = np.array([[0.8, 0.1, 0.1], [0.1, 0.8, 0.1], [0.1, 0.1, 0.8]])
>>> sol = LayerPeeled(Y, 1.0, 1.0).solve()
>>> sol.method, sol.budget_active, sol.rank
('etf', True, 2)
>>> abs(sol.gap) < 1e-8
True
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from engine import _display
from engine.convex._loss import cross_entropy, entropy, softmax
from engine.convex.dual import dual_bound
from engine.convex.recovery import RANK_TOL, recover_factors, thin_svd
from engine.convex.reductions import AUTO_ORDER, REGISTRY, get_reduction
from engine.convex.solvers import full_size_gap
from engine.convex.solvers import solve as conic_solve
from engine.errors import InvalidInput, SolverFailed
from engine.exact.numbers import to_fraction, to_matrix

__all__ = ["LayerPeeled", "LayerPeeledSolution", "solve_layer_peeled", "SUM_TOL"]

#: ``to_json`` writes ``HtH`` (n x n) only up to this n (else null; ``H`` is always there)
JSON_MAX_N_GRAM = 2000

#: tolerance on each column sum of Y (the contract: "columns sum to 1 within 1e-9")
SUM_TOL = 1e-9


def _budget(x: object, name: str) -> Fraction:
    q = to_fraction(x, what=name)
    if q <= 0:
        raise InvalidInput(f"{name} must be > 0 (a squared Frobenius budget); got {x!r}")
    return q


class LayerPeeled:
    """``min_{W,H} J(WH) s.t. ||W||_F^2 <= E_W, ||H||_F^2 <= E_H``, via its convex form.

    Parameters
    ----------
    Y : array_like
        m x n target; columns are probability vectors.  A float numpy array is taken as
        the exact binary rationals it holds; anything else (lists of ints, ``Fraction``,
        ``"p/q"`` strings) goes through :func:`engine.exact.numbers.to_matrix`.  Structure
        detection (cyclic, 2-transitive orbits) compares entries exactly.
    E_W, E_H : number
        Budgets (> 0).  The radius is ``rho = sqrt(E_W E_H)``.
    d : int or None
        Hidden width (>= 1); None means ``min(m, n)`` (always tight).

    Raises
    ------
    InvalidInput
        Not a 2-D matrix, NaN/inf, negative entries, a column not summing to 1 within
        1e-9 (the column is named), a budget <= 0, d not a positive integer.

    Examples
    --------
    >>> LayerPeeled([[1, "1/2"], [0, "1/2"]], 2, 8).rho
    4.0
    >>> LayerPeeled([[1, 0.5], [0, 0.6]], 1, 1)
    Traceback (most recent call last):
    ...
    engine.errors.InvalidInput: Y column 1 sums to 1.1, not 1 (tolerance 1e-09)
    """

    def __init__(self, Y: Any, E_W: Any, E_H: Any, d: int | None = None) -> None:
        self.entries, self.Y = _read_target(Y)
        self.E_W_exact = _budget(E_W, "E_W")
        self.E_H_exact = _budget(E_H, "E_H")
        self.E_W = float(self.E_W_exact)
        self.E_H = float(self.E_H_exact)
        self.rho = math.sqrt(self.E_W * self.E_H)
        if d is not None:
            if isinstance(d, bool) or not isinstance(d, int | np.integer) or int(d) < 1:
                raise InvalidInput(f"d must be a positive integer (the hidden width); got {d!r}")
            d = int(d)
        self.d = d
        self._keys: list[tuple] | None = None
        self._codes: np.ndarray | None = None
        self._free_radius: float | None = None

    # -- facts about the target ------------------------------------------------------
    @property
    def shape(self) -> tuple[int, int]:
        """``(m, n)``."""
        return self.Y.shape

    @property
    def m(self) -> int:
        return self.Y.shape[0]

    @property
    def n(self) -> int:
        return self.Y.shape[1]

    def column_keys(self) -> list[tuple]:
        """One hashable, exactly comparable tuple per column of Y (cached)."""
        if self._keys is None:
            self._keys = [tuple(c) for c in self.entries.T.tolist()]
        return self._keys

    @property
    def codes(self) -> np.ndarray:
        """m x n integer matrix: equal codes exactly when the exact entries are equal (cached).

        Examples
        --------
        >>> LayerPeeled([["1/2", 1], ["1/2", 0]], 1, 1).codes.tolist()
        [[1, 2], [1, 0]]
        """
        if self._codes is None:
            if self.entries.dtype == object:
                flat = self.entries.ravel().tolist()
                rank = {q: i for i, q in enumerate(sorted(set(flat)))}
                codes = np.array([rank[q] for q in flat], dtype=np.int64)
            else:
                codes = np.unique(self.entries, return_inverse=True)[1].astype(np.int64)
            self._codes = codes.reshape(self.shape)
        return self._codes

    @property
    def free_radius(self) -> float:
        """``min_c ||log Y + 1 c^T||_*`` (inf when Y has a zero entry).

        The minimum is attained at centred columns: ``(I - J/m)`` is a contraction and
        removes every ``1 c^T``, so the value is ``||(I - J/m) log Y||_*``.
        """
        if self._free_radius is None:
            if np.any(self.Y <= 0):
                self._free_radius = math.inf
            else:
                L = np.log(self.Y)
                L = L - L.mean(axis=0, keepdims=True)
                self._free_radius = float(thin_svd(L)[1].sum())
        return self._free_radius

    @property
    def budget_active(self) -> bool:
        """False exactly when Y has full support and ``rho >= free_radius``."""
        return self.rho < self.free_radius

    def unconstrained_optimum(self) -> np.ndarray:
        """The centred ``log Y`` (the optimum of least nuclear norm when the budget is slack).

        Raises
        ------
        InvalidInput
            Y has a zero entry (no unconstrained minimiser exists).
        """
        if np.any(self.Y <= 0):
            raise InvalidInput("Y has a zero entry, so J has no unconstrained minimiser")
        L = np.log(self.Y)
        return L - L.mean(axis=0, keepdims=True)

    # -- solving ---------------------------------------------------------------------
    def select(self, method: str = "auto", **options: Any):
        """The reduction ``solve`` would use (``method="auto"``: first that accepts).

        Raises
        ------
        InvalidInput
            Unknown method, or a named method that does not apply to this Y (with why).
        """
        name = str(method).lower()
        if name == "auto":
            for cand in AUTO_ORDER:
                if cand not in REGISTRY:
                    continue
                try:
                    red = get_reduction(cand)
                except InvalidInput:
                    continue  # registered but not present in this build
                if red.accepts(self, **options):
                    return red
            raise InvalidInput("no reduction accepts this problem (the 'full' one always should)")
        red = get_reduction(name)
        verdict = red.accepts(self, **options)
        if not verdict:
            raise InvalidInput(f"method {name!r} does not apply to this Y: {verdict.reason}")
        return red

    def solve(self, method: str = "auto", solver: str | None = None, *,
              solver_options: dict | None = None, rank_tol: float = RANK_TOL,
              **options: Any) -> LayerPeeledSolution:
        """Solve the program and recover everything on the full-size Z*.

        Parameters
        ----------
        method : {"auto", "full", "circulant", "etf", ...}
            A name in :data:`engine.convex.reductions.REGISTRY`, or "auto".
        solver : str or None
            Conic solver (see :mod:`engine.convex.solvers`); unused by "etf".
        solver_options : dict, optional
            Passed to the conic solver (on top of the registry's tight tolerances,
            ``engine.convex.solvers.ACCURATE_OPTIONS``).
        rank_tol : float
            Relative threshold of the numerical rank.
        **options
            Passed to the reduction's ``accepts`` and ``apply`` (e.g. ``form=`` for
            "full", ``group=`` for "etf").

        Returns
        -------
        LayerPeeledSolution

        Raises
        ------
        InvalidInput
            Unknown method or one that does not apply.
        SolverFailed
            The solver's status is not optimal (or it returned no values).

        Examples
        --------
        >>> Y = np.array([[0.6, 0.3], [0.4, 0.7]])
        >>> sol = LayerPeeled(Y, 100.0, 100.0).solve("full")
        >>> sol.budget_active, sol.status
        (False, 'budget_inactive')
        """
        red = self.select(method, **options)
        t0 = time.perf_counter()
        info: dict[str, Any] = {}
        if not self.budget_active:
            Z = self.unconstrained_optimum()
            solver_name, status = None, "budget_inactive"
        else:
            reduced = red.apply(self, **options)
            info.update(reduced.info)
            if reduced.problem is None:
                solver_name, status = reduced.info.get("solver", red.name), "optimal"
            else:
                rep = conic_solve(reduced.problem, solver, accurate=True,  # best tier by gap
                                  score=lambda: full_size_gap(self, red.invert(reduced)),
                                  **(solver_options or {}))
                solver_name, status = rep.solver, rep.status
                if rep.note:
                    info["solver_note"] = rep.note
            Z = red.invert(reduced)
            if Z is None or not np.all(np.isfinite(Z)):
                raise SolverFailed(f"method {red.name!r} returned no finite solution")
        elapsed = time.perf_counter() - t0
        return _finish(self, np.asarray(Z, dtype=float), red.name, solver_name, status,
                       elapsed, info, rank_tol)


def _read_target(Y: Any) -> tuple[np.ndarray, np.ndarray]:
    """(exact entries: float array or object array of Fraction, float64 array)."""
    if isinstance(Y, np.ndarray) and Y.dtype.kind in "fiu":
        if Y.ndim != 2:
            raise InvalidInput(f"Y must be a 2-D matrix; got an array of shape {Y.shape}")
        if Y.size == 0:
            raise InvalidInput(f"Y is empty (shape {Y.shape})")
        F = np.array(Y, dtype=float)
        if Y.dtype.kind == "f":
            bad = np.argwhere(~np.isfinite(F))
            if bad.size:
                i, j = bad[0]
                raise InvalidInput(f"Y[{i},{j}] is {F[i, j]}; every entry must be finite")
        neg = np.argwhere(F < 0)
        if neg.size:
            i, j = neg[0]
            raise InvalidInput(f"Y[{i},{j}] = {float(F[i, j])!r} is negative; Y holds "
                               f"probabilities ({len(neg)} negative entries)")
        sums = F.sum(axis=0)  # rounding error ~ m * 1e-16, far below the 1e-9 tolerance
        bad = np.flatnonzero(np.abs(sums - 1.0) > SUM_TOL)
        if bad.size:
            _check_sums([Fraction(float(sums[bad[0]]))], {0: sums[bad[0]]}, [int(bad[0])])
        return F, F
    exact = to_matrix(Y, what="Y")
    E = np.empty((len(exact), len(exact[0])), dtype=object)
    for i, row in enumerate(exact):
        for j, q in enumerate(row):
            if q < 0:
                raise InvalidInput(f"Y[{i},{j}] = {q} is negative; Y holds probabilities")
            E[i, j] = q
    sums = [sum(E[:, j], Fraction(0)) for j in range(E.shape[1])]
    F = np.array([[float(q) for q in row] for row in exact], dtype=float)
    _check_sums(sums, [float(s) for s in sums])
    return E, F


def _check_sums(exact_sums: list[Fraction], float_sums: Any,
                columns: list[int] | None = None) -> None:
    for k, s in enumerate(exact_sums):
        if abs(s - 1) > SUM_TOL:
            j = k if columns is None else columns[k]
            raise InvalidInput(f"Y column {j} sums to {float(float_sums[k]):.12g}, not 1 "
                               f"(tolerance {SUM_TOL:g})")


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
    """

    Z: np.ndarray
    W: np.ndarray
    H: np.ndarray
    WWt: np.ndarray
    loss: float
    probabilities: np.ndarray
    budget_active: bool
    rank: int
    tight: bool
    method: str
    solver: str | None
    status: str
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
    problem: LayerPeeled | None = field(default=None, repr=False, compare=False)

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

        Thin wrapper of :func:`engine.convex.certify.solution_certificate` (keywords:
        ``eps_mode``, ``generators``, ``claims``, ``precision``); see
        docs/certified-optima.md.

        Examples
        --------
        >>> sol = LayerPeeled([["1/2", "1/4"], ["1/2", "3/4"]], 1, 1).solve()
        >>> sol.certificate(eps="1/1000000")["kind"]
        'layer-peeled-bracket'
        """
        from engine.convex.certify import solution_certificate

        return solution_certificate(self, eps=eps, **kw)

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
            "status": self.status,
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


def _finish(problem: LayerPeeled, Z: np.ndarray, method: str, solver: str | None,
            status: str, elapsed: float, info: dict, rank_tol: float) -> LayerPeeledSolution:
    if Z.shape != problem.shape:
        raise SolverFailed(f"method {method!r} returned Z of shape {Z.shape}, "
                           f"expected {problem.shape}")
    nuc = float(thin_svd(Z)[1].sum())
    if nuc > problem.rho:  # solver tolerance: scale back into the ball, so loss is an upper bound
        Z = Z * (problem.rho / nuc)
        nuc = problem.rho
    bound = dual_bound(Z, problem.Y, problem.rho)
    f = recover_factors(Z, problem.E_W, problem.E_H, problem.d, rank_tol)
    if not f.tight:  # d < rank: the convex value is a lower bound the factors do not reach
        info["factors_loss"] = cross_entropy(f.W @ f.H, problem.Y)
        info["bound_attained"] = False
        info["note"] = (f"d = {f.d} < rank {f.rank}: loss {bound.upper:.10g} is the convex "
                        f"lower bound, NOT attained by the returned factors (their loss "
                        f"J(W H) = {info['factors_loss']:.10g})")
    return LayerPeeledSolution(
        Z=Z, W=f.W, H=f.H, WWt=f.WWt, loss=bound.upper,
        probabilities=softmax(Z), budget_active=problem.budget_active, rank=f.rank,
        tight=f.tight, method=method, solver=solver, status=status, solve_time=elapsed,
        dual_bound=bound.lower, gap=bound.gap, rho=problem.rho, d=f.d, nuclear_norm=nuc,
        free_radius=problem.free_radius, entropy=entropy(problem.Y),
        singular_values=f.singular_values, info=info, problem=problem)


def solve_layer_peeled(Y: Any, E_W: Any, E_H: Any, d: int | None = None,
                       **kw: Any) -> LayerPeeledSolution:
    """``LayerPeeled(Y, E_W, E_H, d).solve(**kw)`` in one call.

    Examples
    --------
    >>> sol = solve_layer_peeled(np.eye(2), 1.0, 1.0, method="full")
    >>> sol.budget_active, round(sol.nuclear_norm, 6)
    (True, 1.0)
    """
    return LayerPeeled(Y, E_W, E_H, d).solve(**kw)
