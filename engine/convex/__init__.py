"""The float side: the layer-peeled program and its reductions, via CVXPY.

Examples
--------
>>> from logitgeom.convex import LayerPeeled, cyclic_orbit
>>> LayerPeeled(cyclic_orbit([0.5, 0.3, 0.2, 0.0]), 1, 1).select().name
'circulant'
"""

from logitgeom.convex.certified import CertifiedSolve, certified_solve
from logitgeom.convex.dual import DualBound, dual_bound, dual_value
from logitgeom.convex.lowrank import RankResult, rank_constrained
from logitgeom.convex.predict import PredictedGeometry, predicted_geometry
from logitgeom.convex.problem import LayerPeeled, LayerPeeledSolution, Status, solve_layer_peeled
from logitgeom.convex.recovery import Factors, gram_matrices, recover_factors
from logitgeom.convex.solvers import available_solvers, default_solver, resolve_solver, solve
from logitgeom.convex.stability import StabilityReport, stability_report
from logitgeom.convex.targets import concat_blocks, cyclic_orbit, group_orbit

#: the group constructors' names before issue 36 (each had a second name here); the one
#: public name of each is in logitgeom.symmetry
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
        raise AttributeError(f"logitgeom.convex.{name} was removed (one name per group "
                             f"constructor): use logitgeom.symmetry.{_MOVED[name]}")
    raise AttributeError(f"module 'logitgeom.convex' has no attribute {name!r}")
