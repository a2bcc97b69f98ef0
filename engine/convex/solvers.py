"""The solver registry: the only module of the engine that names a conic solver.

Preference order: MOSEK when a licence is actually usable, else CLARABEL, else SCS.
MOSEK is never picked just because it is installed: with ``mosek`` installed and no
licence, CVXPY's own default ``solve()`` picks MOSEK and fails with
``err_missing_license_file`` (code 1008), so every solve here passes ``solver=``
explicitly.  Installation is checked without importing native code
(:func:`importlib.util.find_spec`); the MOSEK licence check runs once per process.

Examples
--------
>>> import cvxpy as cp
>>> x = cp.Variable()
>>> prob = cp.Problem(cp.Minimize((x - 1) ** 2))
>>> report = solve(prob)
>>> report.solver in {"CLARABEL", "SCS", "MOSEK"}, round(float(x.value), 4)
(True, 1.0)
"""

from __future__ import annotations

import enum
import functools
import importlib.util
import os
import time
import warnings
from dataclasses import dataclass

import cvxpy as cp

from logitgeom.errors import (
    InexactResult,
    Infeasible,
    InvalidInput,
    SolverFailed,
    SolverUnavailable,
    TooLarge,
)

__all__ = [
    "Solver",
    "SolveReport",
    "available_solvers",
    "default_solver",
    "is_installed",
    "mosek_licensed",
    "resolve_solver",
    "solve",
    "estimate_memory",
    "MEMORY_LIMIT_ENV",
]

#: environment variable overriding the memory limit (GB) of a CLARABEL solve
MEMORY_LIMIT_ENV = "LOGITGEOM_SOLVER_MAX_GB"


class Solver(enum.Enum):
    """Conic solvers the engine knows, with the module that provides each."""

    CLARABEL = "clarabel"
    SCS = "scs"
    MOSEK = "mosek"

    @property
    def needs_licence(self) -> bool:
        return self is Solver.MOSEK


#: Free solvers in preference order; MOSEK goes first only when licensed.
PREFERENCE: tuple[Solver, ...] = (Solver.CLARABEL, Solver.SCS)

#: Stopping tolerances tried in turn by ``solve(..., accurate=True)``, tightest first; the
#: last tier restates the solver's defaults (CVXPY keeps a solver's last settings between
#: solves of one problem, so "no options" would not restore them).  The layer-peeled dual
#: bound is first-order sensitive to the primal error (sigma_max is nonsmooth at the
#: optimum): 1e-10 tolerances shrink its gap from ~1e-5 to ~1e-10..1e-8 for a few more
#: iterations (1e-12 was tried: it often stalls near double precision, 2-3x the iterations).
ACCURATE_OPTIONS: dict[Solver, tuple[dict, ...]] = {
    Solver.CLARABEL: (
        {"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10, "tol_feas": 1e-10, "tol_ktratio": 1e-8},
        {"tol_gap_abs": 1e-8, "tol_gap_rel": 1e-8, "tol_feas": 1e-8, "tol_ktratio": 1e-6},
    ),
    Solver.SCS: ({"eps_abs": 1e-8, "eps_rel": 1e-8}, {"eps_abs": 1e-5, "eps_rel": 1e-5}),
    Solver.MOSEK: ({},),
}

_STATUS_OK = {cp.OPTIMAL}
_STATUS_INEXACT = {cp.OPTIMAL_INACCURATE, cp.INFEASIBLE_INACCURATE, cp.UNBOUNDED_INACCURATE}
_STATUS_INFEASIBLE = {cp.INFEASIBLE, cp.UNBOUNDED}


def is_installed(solver: Solver) -> bool:
    """Whether the solver's Python package is importable (without importing it)."""
    return importlib.util.find_spec(solver.value) is not None


@functools.cache
def mosek_licensed() -> bool:
    """Whether a MOSEK licence is usable here (checked once per process, then cached).

    Returns False when ``mosek`` is not installed, or when checking out a licence
    fails (no ``MOSEKLM_LICENSE_FILE``, no ``~/mosek/mosek.lic``, expired, ...).
    """
    if not is_installed(Solver.MOSEK):
        return False
    try:
        import mosek

        with mosek.Env() as env:
            env.checkoutlicense(mosek.feature.pts)
        return True
    except Exception:  # noqa: BLE001 - any failure means "not usable"
        return False


def _usable(solver: Solver) -> bool:
    if not is_installed(solver):
        return False
    if solver.needs_licence:
        return mosek_licensed()
    return solver.name in cp.installed_solvers()


def available_solvers() -> list[str]:
    """Names of the usable solvers in the order the engine would try them.

    Examples
    --------
    >>> "CLARABEL" in available_solvers()
    True
    """
    order = (Solver.MOSEK, *PREFERENCE)
    return [s.name for s in order if _usable(s)]


def default_solver() -> str:
    """The solver used when none is asked for: MOSEK if licensed, else CLARABEL, else SCS."""
    names = available_solvers()
    if not names:
        raise SolverUnavailable(
            "no conic solver is usable: install clarabel or scs (pip install clarabel scs)"
        )
    return names[0]


def _licence_hint() -> str:
    env = os.environ.get("MOSEKLM_LICENSE_FILE")
    where = (f"MOSEKLM_LICENSE_FILE={env}" if env
             else "~/mosek/mosek.lic (MOSEKLM_LICENSE_FILE unset)")
    return (
        f"MOSEK was requested but no usable licence was found at {where}; "
        "put a licence file there (free academic licences: mosek.com) "
        "or omit solver= to use CLARABEL"
    )


def resolve_solver(solver: str | Solver | None) -> str:
    """Validate a user's solver choice and return the CVXPY solver name.

    Parameters
    ----------
    solver : str, Solver or None
        None picks :func:`default_solver`.  Names are case-insensitive.

    Raises
    ------
    InvalidInput
        Unknown solver name.
    SolverUnavailable
        Not installed, or MOSEK without a usable licence.

    Examples
    --------
    >>> resolve_solver("clarabel")
    'CLARABEL'
    >>> resolve_solver("gurobi")
    Traceback (most recent call last):
    ...
    logitgeom.errors.InvalidInput: unknown solver 'gurobi'; choose one of CLARABEL, SCS, MOSEK
    """
    if solver is None:
        return default_solver()
    if isinstance(solver, Solver):
        s = solver
    else:
        try:
            s = Solver[str(solver).upper()]
        except KeyError:
            names = ", ".join(x.name for x in Solver)
            raise InvalidInput(f"unknown solver {solver!r}; choose one of {names}") from None
    if not is_installed(s):
        raise SolverUnavailable(
            f"{s.name} was requested but the '{s.value}' package is not installed; "
            f"pip install {s.value}, or omit solver= to use the default"
        )
    if s.needs_licence and not mosek_licensed():
        raise SolverUnavailable(_licence_hint())
    return s.name


@dataclass(frozen=True)
class SolveReport:
    """What happened in one solve: solver name, CVXPY status, objective, wall time, the
    solver status of the tolerance tier whose point is kept, and a note when that point is
    not the last tier's (see ``solve(score=...)``).

    ``status`` is the status of the run ("optimal": some tier reached it); ``kept_status``
    is the status of the tier whose point is returned, which differs only when a tighter
    tier that ended "optimal_inaccurate" had the better score.  Solver warnings are never
    passed on: this record states the facts instead.
    """

    solver: str
    status: str
    value: float
    seconds: float
    note: str = ""
    kept_status: str = ""

    @property
    def inexact(self) -> bool:
        """Whether the kept point's own tier ended with an inaccurate status."""
        return self.kept_status in {str(s) for s in _STATUS_INEXACT}


def _walk(expr):
    yield expr
    for a in getattr(expr, "args", ()):
        yield from _walk(a)


def estimate_memory(prob: cp.Problem) -> int:
    """Bytes an interior-point solver (CLARABEL) needs for the PSD cones of ``prob``, roughly.

    A k x k PSD cone has t = k(k+1)/2 scaled entries, and its Nesterov-Todd scaling block in
    the KKT matrix is dense: 8 t^2 bytes (then factorised).  Cones come from ``PSD``
    constraints, variables declared PSD/NSD and nuclear-norm atoms (an (m+n) x (m+n) cone for
    an m x n argument).  A 200 x 200 nuclear norm gives t = 80,200: 51 GB.

    Examples
    --------
    >>> Z = cp.Variable((200, 200))
    >>> round(estimate_memory(cp.Problem(cp.Minimize(cp.normNuc(Z)))) / 1e9)
    51
    """
    sizes = []
    for c in prob.constraints:
        if isinstance(c, cp.constraints.PSD):
            sizes.append(c.args[0].shape[0])
    for v in prob.variables():
        if v.attributes.get("PSD") or v.attributes.get("NSD"):
            sizes.append(v.shape[0])
    for root in [prob.objective.expr, *(a for c in prob.constraints for a in c.args)]:
        for e in _walk(root):
            if isinstance(e, cp.atoms.normNuc):
                m, n = (e.args[0].shape + (1, 1))[:2]
                sizes.append(m + n)
    return sum(8 * (k * (k + 1) // 2) ** 2 for k in sizes)


def _memory_limit() -> float:
    env = os.environ.get(MEMORY_LIMIT_ENV)
    if env:
        return float(env) * 1e9
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            avail = next(int(line.split()[1]) * 1024 for line in fh
                         if line.startswith("MemAvailable:"))
        return 0.5 * avail
    except (OSError, StopIteration, ValueError):
        return 8e9


def _check_size(prob: cp.Problem, name: str) -> None:
    need, limit = estimate_memory(prob), _memory_limit()
    if name == "CLARABEL" and need > limit:
        raise TooLarge(
            f"CLARABEL would need about {need / 1e9:.3g} GB for this program's PSD cones "
            f"(limit {limit / 1e9:.3g} GB: half the available memory, or ${MEMORY_LIMIT_ENV}); "
            "use a reduced method (method='circulant', 'etf' or 'orbit' when Y has the "
            "symmetry; 'full' with form='split' for one small LMI per column), or "
            "solver='SCS' (first-order, low memory, less accurate)")


def _check_status(prob: cp.Problem, name: str) -> None:
    st = prob.status
    if st in _STATUS_OK:
        return
    if st in _STATUS_INEXACT:
        raise InexactResult(
            f"{name} returned status '{st}', which is not optimal; try another solver "
            "(solver='SCS' / 'CLARABEL') or rescale the problem"
        )
    if st in _STATUS_INFEASIBLE:
        raise Infeasible(f"{name} reported the problem '{st}'")
    raise SolverFailed(f"{name} returned status '{st}'")


def solve(
    prob: cp.Problem,
    solver: str | Solver | None = None,
    *,
    verbose: bool = False,
    accurate: bool = False,
    score=None,
    **options,
) -> SolveReport:
    """Solve a CVXPY problem with an explicit solver; non-optimal status is an error.

    When no solver is named, the preferred usable solver runs; if it errors out or
    returns a non-optimal status, the next one (SCS) is tried.  A solver named by
    the user is used alone.

    Parameters
    ----------
    prob : cvxpy.Problem
    solver : str, Solver or None
    verbose : bool
    accurate : bool
        Try the solver's tolerance tiers of :data:`ACCURATE_OPTIONS` in turn, tightest
        first, until one reaches "optimal" (explicit ``options`` win over a tier).
        Solver warnings (CVXPY's "Solution may be inaccurate") are never passed on: a try
        that ends inaccurate is repaired by the next tier or solver, or raised as an error,
        and the returned :class:`SolveReport` states the kept point's own status.
    score : callable or None
        With ``accurate``: evaluated after every tier that returns a point ("optimal" or
        "optimal_inaccurate"), on the problem's current variable values; lower is better
        (the layer-peeled solve passes the full-size duality gap).  Once a tier is
        "optimal", the best point seen is restored, so a tight tier that ends "inaccurate"
        but is better than a looser "optimal" one is kept (the status stays "optimal", the
        status of the run; ``SolveReport.kept_status`` is the kept tier's own status and
        ``SolveReport.note`` says why it was kept).
    **options
        Passed to ``prob.solve``.

    Returns
    -------
    SolveReport

    Raises
    ------
    SolverUnavailable, InexactResult, Infeasible, SolverFailed
    TooLarge
        CLARABEL would need more memory than allowed (:func:`estimate_memory`).
    """
    if solver is not None:
        candidates = [resolve_solver(solver)]
    else:
        candidates = available_solvers()
        if not candidates:
            default_solver()  # raises SolverUnavailable with the install hint
    last: Exception | None = None
    for name in candidates:
        _check_size(prob, name)
        # accurate: tight tolerances first; if the solver cannot meet them
        # ("optimal_inaccurate"), the same solver again with looser tiers.
        tries = ([{**tier, **options} for tier in ACCURATE_OPTIONS[Solver[name]]]
                 if accurate else [options])
        t0 = time.perf_counter()
        kept: list[tuple] = []  # (score, tier, status, value, {variable: value})
        for k, opts in enumerate(tries):
            # Every try's warnings ("Solution may be inaccurate") are captured and dropped:
            # an inaccurate try is retried (next tier / next solver) or raised as an error,
            # and a kept inaccurate point is reported as a fact in the SolveReport.
            with warnings.catch_warnings(record=True):
                warnings.simplefilter("always")
                try:
                    prob.solve(solver=name, verbose=verbose, **opts)
                    if score is not None and prob.status in _STATUS_INEXACT | _STATUS_OK \
                            and prob.value is not None:
                        kept.append((_score(score), k, str(prob.status), float(prob.value),
                                     {v: v.value for v in prob.variables()}))
                    _check_status(prob, name)
                except (cp.error.SolverError, SolverFailed) as exc:
                    last = (exc if isinstance(exc, SolverFailed)
                            else SolverFailed(f"{name} failed: {exc}"))
                    if isinstance(exc, Infeasible):
                        raise
                    continue
                except Exception as exc:  # noqa: BLE001 - any solver error is a failure
                    last = SolverFailed(f"{name} failed: {type(exc).__name__}: "
                                        f"{_first_line(exc)}")
                    continue
                except BaseException as exc:  # a Rust panic (pyo3 PanicException)
                    if type(exc).__name__ != "PanicException":
                        raise  # KeyboardInterrupt, SystemExit, ...
                    last = SolverFailed(f"{name} failed inside the solver (a panic: "
                                        f"{_first_line(exc)}); the input's scale is probably "
                                        "beyond what it can factorise")
                    continue
            note, status, value = "", str(prob.status), float(prob.value)
            kept_status = status
            if kept:  # the best point by the caller's score, not merely the last tier's
                best = min(kept, key=lambda t: (t[0], t[1]))
                if best[1] != k:  # status stays this tier's "optimal"; the note says why
                    for v, val in best[4].items():
                        v.value = val
                    value, kept_status = best[3], best[2]
                    note = (f"{name} kept the point of tolerance tier {best[1]} (its own "
                            f"status: {best[2]}): its score {best[0]:.3g} is better than that "
                            f"of the 'optimal' tier {k} ({kept[-1][0]:.3g})")
            return SolveReport(name, status, value, time.perf_counter() - t0, note,
                               kept_status)
    assert last is not None
    raise last


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return (text.splitlines()[0] if text else type(exc).__name__)[:200]


def _score(score) -> float:
    try:
        val = float(score())
    except Exception:  # noqa: BLE001 - a point the score cannot evaluate is the worst
        return float("inf")
    return val if val == val else float("inf")
