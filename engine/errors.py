"""The one exception hierarchy of :mod:`logitgeom`.

Every error the engine raises on purpose is an :class:`EngineError`; messages say
what was wrong and what to do about it.

Examples
--------
>>> from logitgeom.errors import EngineError, InvalidInput
>>> issubclass(InvalidInput, EngineError) and issubclass(InvalidInput, ValueError)
True
"""

from __future__ import annotations

__all__ = [
    "EngineError",
    "InvalidInput",
    "SolverUnavailable",
    "SolverFailed",
    "Infeasible",
    "InexactResult",
    "TooLarge",
]


class EngineError(Exception):
    """Base class of every error raised by :mod:`logitgeom`.

    Parameters
    ----------
    *args : str
        The message: one line that names the problem (what, where, what to do).
    """


class InvalidInput(EngineError, ValueError):
    """The input is malformed: wrong shape, NaN/inf, negative probability, ...

    Parameters
    ----------
    *args : str
        The message: one line that names the problem (what, where, what to do).
    """


class SolverUnavailable(EngineError, RuntimeError):
    """A solver was requested that is not installed or not licensed.

    Parameters
    ----------
    *args : str
        The message: one line that names the problem (what, where, what to do).
    """


class SolverFailed(EngineError, RuntimeError):
    """A solver ran but did not return an optimal solution.

    Parameters
    ----------
    *args : str
        The message: one line that names the problem (what, where, what to do).
    """


class Infeasible(SolverFailed):
    """The solver reported the problem infeasible or unbounded.

    Parameters
    ----------
    *args : str
        The message: one line that names the problem (what, where, what to do).
    """


class InexactResult(SolverFailed):
    """The solver returned a result flagged inaccurate (e.g. ``optimal_inaccurate``).

    Parameters
    ----------
    *args : str
        The message: one line that names the problem (what, where, what to do).
    """


class TooLarge(EngineError, RuntimeError):
    """The work exceeds a limit the user set (the message names the exact size).

    Parameters
    ----------
    *args : str
        The message: one line that names the problem (what, where, what to do).
    """
