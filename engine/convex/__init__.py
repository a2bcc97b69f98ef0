"""The float side: the layer-peeled program and its reductions, via CVXPY.

Examples
--------
>>> from engine.convex import LayerPeeled, cyclic_orbit
>>> LayerPeeled(cyclic_orbit([0.5, 0.3, 0.2, 0.0]), 1, 1).select().name
'circulant'
"""

from engine.convex.certified import CertifiedSolve, certified_solve
from engine.convex.dual import DualBound, dual_bound, dual_value
from engine.convex.lowrank import RankResult, rank_constrained
from engine.convex.predict import PredictedGeometry, predicted_geometry
from engine.convex.problem import LayerPeeled, LayerPeeledSolution, Status, solve_layer_peeled
from engine.convex.recovery import Factors, gram_matrices, recover_factors
from engine.convex.solvers import available_solvers, default_solver, resolve_solver, solve
from engine.convex.stability import StabilityReport, stability_report
from engine.convex.targets import concat_blocks, cyclic_orbit, group_orbit

#: the group constructors' names before issue 36 (each had a second name here); the one
#: public name of each is in engine.symmetry
_MOVED = {"symmetric_group": "symmetric", "cyclic_group": "cyclic", "affine_group": "affine_line"}

__all__ = [
    "CertifiedSolve",
    "DualBound",
    "Factors",
    "LayerPeeled",
    "LayerPeeledSolution",
    "PredictedGeometry",
    "RankResult",
    "StabilityReport",
    "Status",
    "available_solvers",
    "certified_solve",
    "concat_blocks",
    "cyclic_orbit",
    "default_solver",
    "dual_bound",
    "dual_value",
    "gram_matrices",
    "group_orbit",
    "predicted_geometry",
    "rank_constrained",
    "recover_factors",
    "resolve_solver",
    "solve",
    "solve_layer_peeled",
    "stability_report",
]


def __getattr__(name: str):  # PEP 562: a clear message for the removed second names
    if name in _MOVED:
        raise AttributeError(f"engine.convex.{name} was removed (one name per group "
                             f"constructor): use engine.symmetry.{_MOVED[name]}")
    raise AttributeError(f"module 'engine.convex' has no attribute {name!r}")
