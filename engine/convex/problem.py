"""The layer-peeled program at the logit level (docs/layer-peeled.md).

``LayerPeeled(Y, E_W, E_H, d)`` holds a validated target (read by
:mod:`logitgeom.convex.reading`); ``.solve(method=...)`` picks a reduction from
:mod:`logitgeom.convex.reductions`, solves it, maps it back to the full-size Z* and then, once
and on the original problem, recovers W*, H*, the Grams, the rank, the dual bound and the
gap (:mod:`logitgeom.convex.solution`).

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

import math
import time
from fractions import Fraction
from typing import Any

import numpy as np

from logitgeom.convex import solution
from logitgeom.convex.dual import dual_bound
from logitgeom.convex.reading import SUM_TOL, check_orbit_bases, read_budget, read_target
from logitgeom.convex.recovery import RANK_TOL, thin_svd
from logitgeom.convex.reductions import AUTO_ORDER, GENERAL, REGISTRY, get_reduction
from logitgeom.convex.reductions.base import Status
from logitgeom.convex.solution import (
    LayerPeeledSolution,
    _finish,
    _nuclear_from_gram,
    _orbit_bound,
    orbital_mean,
)
from logitgeom.errors import InvalidInput, SolverFailed
from logitgeom.symmetry.constructors import OrbitTargets
from logitgeom.symmetry.group import GroupAction

__all__ = ["LayerPeeled", "LayerPeeledSolution", "Status", "solve_layer_peeled", "SUM_TOL"]

#: problems with at most this many entries of Y solve with one BLAS thread
ONE_BLAS_THREAD_MAX = 1_000_000


class LayerPeeled:
    """``min_{W,H} J(WH) s.t. ||W||_F^2 <= E_W, ||H||_F^2 <= E_H``, via its convex form.

    Parameters
    ----------
    Y : array_like or OrbitTargets
        m x n target; columns are probability vectors.  An
        :class:`logitgeom.symmetry.OrbitTargets` brings its exact codes and its group
        (``symmetry``), which the orbit reduction then uses without a search.  A float
        numpy array is taken as the exact binary rationals it holds; anything else (lists
        of ints, ``Fraction``, ``"p/q"`` strings) goes through
        :func:`logitgeom.exact.numbers.to_matrix`.  Structure detection (cyclic,
        2-homogeneous orbits, groups) compares entries exactly.
    E_W, E_H : number
        Budgets (> 0).  The radius is ``rho = sqrt(E_W E_H)``.
    d : int or None
        Hidden width (>= 1); None means ``min(m, n)`` (always tight).
    normalize : bool
        Divide every column by its sum (exactly for exact input) instead of requiring
        sums of 1.  Without it, a float64 column must sum to 1 within ``SUM_TOL`` (1e-9)
        and is kept as it is; a lower-precision float column (float32 softmax outputs)
        must sum to 1 within :func:`float_sum_tol` (``m`` units in the last place of
        its dtype, at least 1e-9) and is then divided by its sum in float64
        (``normalized`` says so).
    loss, weights, h_budget, equal_rows
        The layer-peeled family (docs/layer-peeled-family.md): ``loss`` in "ce", "mse",
        "bce"; column weights w_j > 0 of the loss; budget weights beta_j > 0
        (``sum_j beta_j ||h_j||^2 <= E_H``); equal classifiers on a label set.  With any of
        them other than the default, the constructor returns a
        :class:`logitgeom.convex.family.LayerPeeledFamily` (Fang et al.'s imbalanced model:
        :func:`logitgeom.convex.family.minority_program`).

    Raises
    ------
    InvalidInput
        Not a 2-D matrix, NaN/inf, negative entries, a column not summing to 1 within
        the tolerance (the column and the tolerance are named, and ``normalize=True``
        offered), a budget <= 0, d not a positive integer.

    Examples
    --------
    >>> LayerPeeled([[1, "1/2"], [0, "1/2"]], 2, 8).rho
    4.0
    >>> LayerPeeled([[1, 0.5], [0, 0.6]], 1, 1)
    Traceback (most recent call last):
    ...
    logitgeom.errors.InvalidInput: Y column 1 sums to 1.1, not 1 (tolerance 1e-09); pass ...
    >>> LayerPeeled([[1, 0.5], [0, 0.6]], 1, 1, normalize=True).Y[:, 1].round(4).tolist()
    [0.4545, 0.5455]
    >>> LayerPeeled(np.array([[0.3, 0.6], [0.7, 0.4]], dtype=np.float32), 1, 1).normalized
    True
    >>> type(LayerPeeled(np.eye(2), 1, 1, weights=[3, 1])).__name__  # the family's program
    'LayerPeeledFamily'
    """

    def __new__(cls, *args: Any, loss: str = "ce", weights: Any = None, h_budget: Any = None,
                equal_rows: Any = None, **kw: Any) -> Any:
        """With ``loss`` other than "ce", ``weights``, ``h_budget`` or ``equal_rows``: the
        layer-peeled family's program (:class:`logitgeom.convex.family.LayerPeeledFamily`,
        docs/layer-peeled-family.md) instead of the balanced cross-entropy one."""
        if loss == "ce" and weights is None and h_budget is None and equal_rows is None:
            return super().__new__(cls)
        from logitgeom.convex.family import LayerPeeledFamily

        if len(args) > 3 or kw.get("d") is not None or kw.get("normalize"):
            raise InvalidInput("loss/weights/h_budget/equal_rows do not combine with d or "
                               "normalize (the family program is solved at full width)")
        return LayerPeeledFamily(*args, loss=loss, weights=weights, h_budget=h_budget,
                                 equal_rows=equal_rows,
                                 **{k: v for k, v in kw.items() if k not in ("d", "normalize")})

    def __init__(self, Y: Any, E_W: Any, E_H: Any, d: int | None = None, *,
                 normalize: bool = False, loss: str = "ce", weights: Any = None,
                 h_budget: Any = None, equal_rows: Any = None) -> None:
        from logitgeom.limits import as_flag

        normalize = as_flag(normalize, "normalize")  # type: ignore[assignment]
        #: the group a target built by logitgeom.symmetry.orbit_targets carries (else None)
        self.symmetry: GroupAction | None = None
        self._codes: np.ndarray | None = None
        #: the sorted exact values behind ``codes`` when Y came as an OrbitTargets (its
        #: float Y is then only for the solvers; :meth:`exact_entries` rebuilds Fractions)
        self._values: tuple[Fraction, ...] | None = None
        self.orbit_target: OrbitTargets | None = None
        if isinstance(Y, OrbitTargets):
            # exact codes and the group come with the target: no n-sized sort, no search
            self.symmetry = Y.action
            self._codes = Y.codes()
            self._values = tuple(sorted({x for v in Y.base for x in v}))
            self.orbit_target = Y
            if not normalize:  # columns are permutations of the bases: check the bases only
                check_orbit_bases(Y)  # and Y itself is built only if some path needs it
                self._Y, self._entries, self.normalized = None, None, False
            else:
                Y = Y.Y
        if self.orbit_target is None or normalize:
            self._entries, self._Y, self.normalized = read_target(Y, bool(normalize))
        if self.normalized:
            self.symmetry, self._codes, self._values, self.orbit_target = None, None, None, None
        self.E_W_exact = read_budget(E_W, "E_W")
        self.E_H_exact = read_budget(E_H, "E_H")
        self.E_W = float(self.E_W_exact)
        self.E_H = float(self.E_H_exact)
        self.rho = math.sqrt(self.E_W * self.E_H)
        if not 0 < self.rho < math.inf:
            raise InvalidInput(f"E_W * E_H = {self.E_W:g} * {self.E_H:g} is outside the float "
                               "range the solvers work in; choose budgets nearer 1")
        if d is not None:
            if isinstance(d, bool) or not isinstance(d, int | np.integer) or int(d) < 1:
                raise InvalidInput(f"d must be a positive integer (the hidden width); got {d!r}")
            d = int(d)
            from logitgeom.limits import check_width

            check_width(d, *self.shape)
        self.d = d
        self._keys: list[tuple] | None = None
        self._free_radius: float | None = None

    # -- facts about the target ------------------------------------------------------
    @property
    def Y(self) -> np.ndarray:  # noqa: N802 - the target's name in the papers
        """The m x n target as float64 (of an OrbitTargets: built on first access)."""
        if self._Y is None:
            self._Y = self.orbit_target.Y
        return self._Y

    @property
    def entries(self) -> np.ndarray:
        """Y's exact entries: a float64 array (exact binary values) or an object array of
        Fractions (see :meth:`exact_entries` for an OrbitTargets' own values)."""
        return self.Y if self._entries is None else self._entries

    @property
    def shape(self) -> tuple[int, int]:
        """``(m, n)``."""
        if self._Y is None:
            return self.orbit_target.shape
        return self._Y.shape

    @property
    def m(self) -> int:
        return self.shape[0]

    @property
    def n(self) -> int:
        return self.shape[1]

    def column_keys(self) -> list[tuple]:
        """One hashable, exactly comparable tuple per column of Y (cached)."""
        if self._keys is None:
            src = self._codes if self._values is not None else self.entries
            self._keys = [tuple(c) for c in src.T.tolist()]
        return self._keys

    def exact_entries(self) -> list[list[Fraction]]:
        """Y's exact entries as rows of Fractions (an OrbitTargets' own exact values).

        Examples
        --------
        >>> from logitgeom.symmetry import cyclic, orbit_targets
        >>> LayerPeeled(orbit_targets(cyclic(2), ["1/3", "2/3"]), 1, 1).exact_entries()[0]
        [Fraction(1, 3), Fraction(2, 3)]
        """
        if self._values is not None:
            vals = self._values
            return [[vals[k] for k in row] for row in self._codes.tolist()]
        return [[x if isinstance(x, Fraction) else Fraction(x) for x in row]
                for row in self.entries.tolist()]

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
        if self._free_radius is None and self._orbit() is not None:
            N, idx, orbitals = self._orbit()
            yb = self.orbit_target.base_floats()
            if np.any(yb <= 0):
                self._free_radius = math.inf
            else:  # centred log Y has columns P_g c_b: its Gram is N x the orbital mean
                L = np.log(yb)
                L = L - L.mean(axis=0, keepdims=True)
                ev = np.linalg.eigvalsh(N * orbital_mean(L @ L.T, orbitals))
                self._free_radius = _nuclear_from_gram(ev)
        if self._free_radius is None:
            if np.any(self.Y <= 0):
                self._free_radius = math.inf
            elif self.n >= 8 * self.m:  # wide: the m x m Gram of the centred log Y
                L = np.log(self.Y)
                C = np.eye(self.m) - 1.0 / self.m
                ev = np.linalg.eigvalsh(C @ (L @ L.T) @ C)
                self._free_radius = _nuclear_from_gram(ev)
            else:
                L = np.log(self.Y)
                L = L - L.mean(axis=0, keepdims=True)
                self._free_radius = float(thin_svd(L)[1].sum())
        return self._free_radius

    @property
    def budget_active(self) -> bool:
        """False exactly when Y has full support and ``rho >= free_radius``."""
        return self.rho < self.free_radius

    def _orbit(self) -> tuple[int, np.ndarray, np.ndarray] | None:
        """(|G|, the base columns' indices, the orbitals of G) when Y is a large orbit target
        (above ``KEEP_PROBABILITIES`` entries), else None.  Sums over the columns of a
        G-invariant matrix then reduce to its base columns and an m x m orbital mean."""
        T = self.orbit_target
        if T is None or self.m * self.n <= solution.KEEP_PROBABILITIES:
            return None
        N = T.action.order
        return N, np.arange(len(T.base)) * N, T.action.orbitals()

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
        """The reduction ``solve`` would use (the first of :meth:`choose`).

        Examples
        --------
        >>> LayerPeeled(np.array([[0.7, 0.3], [0.3, 0.7]]), 1, 1).select().name
        'etf'
        """
        return self.choose(method, **options)[0]

    def choose(self, method: str = "auto", **options: Any):
        """The reduction ``solve`` would use and its acceptance (what it found).

        ``"auto"`` asks the reductions of :data:`AUTO_ORDER` in turn and takes the first
        that accepts, or what that one's :meth:`~logitgeom.convex.reductions.Reduction.refine`
        offers instead (unless ``group=`` or ``tol=`` was given): the circulant and orbit
        reductions offer the ETF closed form with a group they verified exactly on Y when it
        is 2-homogeneous on the labels.  No reduction is picked by its name.

        Returns
        -------
        (Reduction, Acceptance)
            The reduction and its acceptance (the plan ``apply`` builds from).

        Raises
        ------
        InvalidInput
            Unknown method, an option no candidate understands, or a named method that
            does not apply to this Y (with why).

        Examples
        --------
        >>> Y = np.array([[0.7, 0.3], [0.3, 0.7]])
        >>> red, acc = LayerPeeled(Y, 1, 1).choose()
        >>> red.name, type(acc.plan).__name__
        ('etf', 'ETFPlan')
        """
        name = str(method).lower()
        if name == "auto":
            cands = []
            for cand in AUTO_ORDER:
                if cand not in REGISTRY:
                    continue
                try:
                    cands.append(get_reduction(cand))
                except InvalidInput:
                    continue  # registered but not present in this build
            _check_options(options, cands, "auto")
            if options.get("group") is not None:
                from logitgeom.symmetry.constructors import as_group

                as_group(options["group"], m=self.m, Y=self.codes)  # a bad group is an error
            for red in cands:
                verdict = red.accepts(self, **_only(options, red))
                if not verdict:
                    continue
                if "group" not in options and not options.get("tol"):
                    better = red.refine(self, verdict)
                    if better is not None:
                        return better
                return red, verdict
            raise InvalidInput(f"no reduction accepts this problem (the {GENERAL!r} one always "
                               "should)")
        red = get_reduction(name)
        _check_options(options, [red], name)
        verdict = red.accepts(self, **options)
        if not verdict:
            raise InvalidInput(f"method {name!r} does not apply to this Y: {verdict.reason}")
        return red, verdict

    def solve(self, method: str = "auto", solver: str | None = None, *,
              solver_options: dict | None = None, rank_tol: float = RANK_TOL,
              **options: Any) -> LayerPeeledSolution:
        """Solve the program and recover everything on the full-size Z*.

        Parameters
        ----------
        method : {"auto", "full", "circulant", "etf", "orbit"}
            A name in :data:`logitgeom.convex.reductions.REGISTRY`, or "auto".
        solver : str or None
            Conic solver (see :mod:`logitgeom.convex.solvers`); unused by "etf".
        solver_options : dict, optional
            Passed to the conic solver (on top of the registry's tight tolerances,
            ``logitgeom.convex.solvers.ACCURATE_OPTIONS``).
        rank_tol : float
            Relative threshold of the numerical rank.
        **options
            Options of the reduction (each reduction lists its ``options``): ``form=``
            for "full", ``group=`` for "etf" and "orbit", ``detect=``, ``tol=`` and
            ``blocks=`` for "orbit".  Unknown names are rejected.

        Returns
        -------
        LayerPeeledSolution

        Raises
        ------
        InvalidInput
            Unknown method, option or solver name, or a method that does not apply.
        SolverUnavailable
            ``solver`` names a solver that is not installed (or MOSEK without a licence).
        SolverFailed
            The solver's status is not optimal (or it returned no values).

        Examples
        --------
        >>> Y = np.array([[0.6, 0.3], [0.4, 0.7]])
        >>> sol = LayerPeeled(Y, 100.0, 100.0).solve("full")
        >>> sol.budget_active, str(sol.status)
        (False, 'budget_inactive')
        >>> LayerPeeled(Y, 1, 1).solve(grup="S2")
        Traceback (most recent call last):
        ...
        logitgeom.errors.InvalidInput: unknown option 'grup' for method 'auto'; known: blocks, ...
        """
        if isinstance(rank_tol, bool) or not isinstance(rank_tol, int | float | np.floating) \
                or not 0 <= rank_tol < 1:
            raise InvalidInput(f"rank_tol must be a number in [0, 1) (relative to the largest "
                               f"singular value); got {rank_tol!r}"[:200])
        if solver_options is not None and not isinstance(solver_options, dict):
            raise InvalidInput(f"solver_options must be a dict; got "
                               f"{type(solver_options).__name__}")
        if solver is not None:  # refused by name also where a closed form needs no solver
            from logitgeom.convex.solvers import resolve_solver

            resolve_solver(solver)
        if self.m * self.n > ONE_BLAS_THREAD_MAX:
            return self._solve(method, solver, solver_options, rank_tol, options)
        from threadpoolctl import threadpool_limits

        # small matrices: one BLAS thread.  A thread pool on 96 x 96 work costs 10x the
        # CPU time (and on a loaded machine the wall time too) for no speed-up.
        with threadpool_limits(limits=1, user_api="blas"):
            return self._solve(method, solver, solver_options, rank_tol, options)

    def _solve(self, method: str, solver: str | None, solver_options: dict | None,
               rank_tol: float, options: dict) -> LayerPeeledSolution:
        red, verdict = self.choose(method, **options)
        t0 = time.perf_counter()
        info: dict[str, Any] = {}
        reduction = None
        if not self.budget_active:
            Z = self.unconstrained_optimum()
            solver_name, status = None, Status.BUDGET_INACTIVE
        else:
            try:
                reduced = red.apply(self, verdict, **_only(options, red))
            except SolverFailed:  # a closed form out of the float range: the general program
                if str(method).lower() != "auto" or not getattr(red, "closed_form", False):
                    raise
                red = get_reduction(GENERAL)
                verdict = red.accepts(self)
                reduced = red.apply(self, verdict)
            info.update(reduced.info)
            score = lambda: _full_size_gap(self, red.invert(reduced))  # noqa: E731
            orbit = self._orbit() if _invariant(red, verdict, self) else None
            base_logits = getattr(red, "base_logits", None)
            if orbit is not None and base_logits is not None:
                # the full-size gap of the invariant Z from its base columns alone
                score = lambda: _orbit_bound(self, base_logits(reduced), orbit,  # noqa: E731
                                             into_ball=True).gap
            done = red.solve(reduced, solver, solver_options,  # tiers kept by full-size gap
                             score=score)
            Z, solver_name, status = done.Z, done.solver, done.status
            if done.note:  # a fact about the kept point, never a raw solver warning
                info["solver_note"] = done.note
            if done.kept_status and done.kept_status != str(done.status):
                info["kept_status"] = done.kept_status
            reduction = reduced
            if Z is None or not np.all(np.isfinite(Z)):
                raise SolverFailed(f"method {red.name!r} returned no finite solution")
        elapsed = time.perf_counter() - t0
        orbit = self._orbit() if reduction is not None and _invariant(red, verdict, self) \
            else None
        return _finish(self, np.asarray(Z, dtype=float), red.name, solver_name, status,
                       elapsed, info, rank_tol, reduction, orbit)


def _only(options: dict, red: Any) -> dict:
    return {k: v for k, v in options.items() if k in red.options}


def _check_options(options: dict, reductions: list, method: str) -> None:
    known = set().union(*(r.options for r in reductions)) if reductions else set()
    for key in options:
        if key not in known:
            raise InvalidInput(f"unknown option {key!r} for method {method!r}; known: "
                               f"{', '.join(sorted(known)) or 'none'}")


def _full_size_gap(problem: LayerPeeled, Z: np.ndarray) -> float:
    """Duality gap of a full-size Z scaled into the ball (the score by which the solver's
    tolerance tiers are kept), without n-sized temporaries beyond Z itself."""
    Z = np.asarray(Z, dtype=float)
    if Z.shape[1] >= Z.shape[0]:  # a score only: singular values from the small Gram
        ev = np.linalg.eigvalsh(Z @ Z.T)
    else:
        ev = np.linalg.eigvalsh(Z.T @ Z)
    nuc = float(np.sqrt(np.clip(ev, 0, None)).sum())
    if nuc > problem.rho:
        Z = np.multiply(Z, problem.rho / nuc, out=Z if Z.flags.writeable else None)
    return dual_bound(Z, problem.Y, problem.rho, keep_A=False).gap


def _invariant(red: Any, verdict: Any, problem: LayerPeeled) -> bool:
    """Whether the reduction's Z is invariant under the OrbitTargets' own group (its plan
    says so: ``Plan.keeps_target_group``)."""
    plan = getattr(verdict, "plan", None)
    return problem.orbit_target is not None and bool(getattr(plan, "keeps_target_group", False))


def solve_layer_peeled(Y: Any, E_W: Any, E_H: Any, d: int | None = None, *,
                       normalize: bool = False, **kw: Any) -> LayerPeeledSolution:
    """``LayerPeeled(Y, E_W, E_H, d, normalize=normalize).solve(**kw)`` in one call.

    Parameters
    ----------
    Y, E_W, E_H, d, normalize
        As for :class:`LayerPeeled`.
    **kw
        As for :meth:`LayerPeeled.solve`.

    Returns
    -------
    LayerPeeledSolution

    Raises
    ------
    InvalidInput
        Bad Y, budgets, d, method or options.
    SolverFailed
        The solver did not reach an optimal status.

    Examples
    --------
    >>> sol = solve_layer_peeled(np.eye(2), 1.0, 1.0, method="full")
    >>> sol.budget_active, round(sol.nuclear_norm, 6)
    (True, 1.0)
    """
    return LayerPeeled(Y, E_W, E_H, d, normalize=normalize).solve(**kw)
