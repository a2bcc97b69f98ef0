"""logitgeom's engine: exact geometry and convex optimisation of classifier heads.

Public names are re-exported here explicitly, grouped by topic; see
:mod:`engine.geometry`, :mod:`engine.convex`, :mod:`engine.symmetry`,
:mod:`engine.models`.
"""

from engine._version import __version__
from engine.errors import (
    EngineError,
    InexactResult,
    Infeasible,
    InvalidInput,
    SolverFailed,
    SolverUnavailable,
    TooLarge,
)

__all__ = [
    "__version__",
    "EngineError",
    "Infeasible",
    "InexactResult",
    "InvalidInput",
    "SolverFailed",
    "SolverUnavailable",
    "TooLarge",
]
