"""The float side: the layer-peeled program and its reductions, via CVXPY.

Examples
--------
>>> from engine.convex import LayerPeeled, cyclic_orbit
>>> LayerPeeled(cyclic_orbit([0.5, 0.3, 0.2, 0.0]), 1, 1).select().name
'circulant'
"""

from engine.convex.dual import DualBound, dual_bound, dual_value
from engine.convex.lowrank import RankResult, rank_constrained
from engine.convex.predict import PredictedGeometry, predicted_geometry
from engine.convex.problem import LayerPeeled, LayerPeeledSolution, Status, solve_layer_peeled
from engine.convex.recovery import Factors, gram_matrices, recover_factors
from engine.convex.solvers import available_solvers, default_solver, resolve_solver, solve
from engine.convex.stability import StabilityReport, stability_report
from engine.convex.targets import (
    affine_group,
    concat_blocks,
    cyclic_group,
    cyclic_orbit,
    group_orbit,
    symmetric_group,
)

__all__ = [
    "DualBound",
    "Factors",
    "LayerPeeled",
    "LayerPeeledSolution",
    "PredictedGeometry",
    "RankResult",
    "StabilityReport",
    "Status",
    "affine_group",
    "available_solvers",
    "concat_blocks",
    "cyclic_group",
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
    "symmetric_group",
]
