"""logitgeom's engine: exact geometry and convex optimisation of classifier heads.

Public names are re-exported here, grouped by topic, and imported on first use (PEP 562):
``import logitgeom`` itself loads nothing heavy (no numpy, cvxpy, scipy), so the command
line starts fast; see
:mod:`logitgeom.geometry`, :mod:`logitgeom.convex`, :mod:`logitgeom.symmetry`,
:mod:`logitgeom.models`.
"""

from __future__ import annotations

import importlib
from typing import Any

from logitgeom._version import __version__

__all__ = [
    "__version__",
    "EngineError",
    "Infeasible",
    "InexactResult",
    "InvalidInput",
    "SolverFailed",
    "SolverUnavailable",
    "TooLarge",
    # logitgeom.geometry (verification grid)
    "GridCell",
    "GridResult",
    "check_cell",
    "random_head",
    "verify_grid",
    # logitgeom.geometry (counting, cosine)
    "affine_generic_count",
    "count_rankings",
    "count_regions",
    "cover_count",
    "ranking_count_generic",
    "ranking_count_generic_affine",
    "cosine_equal",
    "cosine_matrix",
    "difference_matrix",
    "difference_pairs",
    "gram_exact",
    "translate",
    "translation_for_cosine",
    # logitgeom.geometry (patterns)
    "ArgmaxResult",
    "Completeness",
    "PatternKind",
    "PatternResult",
    "argmaxable",
    "ranking_pattern",
    # logitgeom.audit (argmax audit at vocabulary scale)
    "AuditResult",
    "audit_argmax",
    "sign_pattern",
    # logitgeom.symmetry
    "DetectedSymmetry",
    "GramStructure",
    "GroupAction",
    "OrbitTargets",
    "affine_line",
    "cyclic",
    "detect_symmetry",
    "direct_product",
    "direct_sum",
    "orbit_targets",
    "parse_group",
    "predicted_gram_structure",
    "symmetric",
    "wreath",
    # logitgeom.models (geometry diagnostics of real models)
    "delta_circ",
    "delta_etf",
    "delta_group",
    "nearest_circulant",
    "nearest_etf",
    "nearest_invariant",
    "normalized_gram",
    # logitgeom.convex (imported lazily: it loads cvxpy)
    "LayerPeeled",
    "LayerPeeledSolution",
    "PredictedGeometry",
    "concat_blocks",
    "cyclic_orbit",
    "group_orbit",
    "predicted_geometry",
    "solve_layer_peeled",
]

#: Where each public name lives; the module is imported when the name is first used.
_WHERE: dict[str, str] = {
    "AuditResult": "logitgeom.audit",
    "audit_argmax": "logitgeom.audit",
    "EngineError": "logitgeom.errors",
    "InexactResult": "logitgeom.errors",
    "Infeasible": "logitgeom.errors",
    "InvalidInput": "logitgeom.errors",
    "SolverFailed": "logitgeom.errors",
    "SolverUnavailable": "logitgeom.errors",
    "TooLarge": "logitgeom.errors",
    "ArgmaxResult": "logitgeom.geometry",
    "Completeness": "logitgeom.geometry",
    "GridCell": "logitgeom.geometry",
    "GridResult": "logitgeom.geometry",
    "PatternKind": "logitgeom.geometry",
    "PatternResult": "logitgeom.geometry",
    "affine_generic_count": "logitgeom.geometry",
    "argmaxable": "logitgeom.geometry",
    "check_cell": "logitgeom.geometry",
    "cosine_equal": "logitgeom.geometry",
    "cosine_matrix": "logitgeom.geometry",
    "count_rankings": "logitgeom.geometry",
    "count_regions": "logitgeom.geometry",
    "cover_count": "logitgeom.geometry",
    "difference_matrix": "logitgeom.geometry",
    "difference_pairs": "logitgeom.geometry",
    "gram_exact": "logitgeom.geometry",
    "random_head": "logitgeom.geometry",
    "ranking_count_generic": "logitgeom.geometry",
    "ranking_count_generic_affine": "logitgeom.geometry",
    "ranking_pattern": "logitgeom.geometry",
    "sign_pattern": "logitgeom.geometry",
    "translate": "logitgeom.geometry",
    "translation_for_cosine": "logitgeom.geometry",
    "verify_grid": "logitgeom.geometry",
    "delta_circ": "logitgeom.models.diagnostics",
    "delta_etf": "logitgeom.models.diagnostics",
    "delta_group": "logitgeom.models.diagnostics",
    "nearest_circulant": "logitgeom.models.diagnostics",
    "nearest_etf": "logitgeom.models.diagnostics",
    "nearest_invariant": "logitgeom.models.diagnostics",
    "normalized_gram": "logitgeom.models.diagnostics",
    "DetectedSymmetry": "logitgeom.symmetry",
    "GramStructure": "logitgeom.symmetry",
    "GroupAction": "logitgeom.symmetry",
    "OrbitTargets": "logitgeom.symmetry",
    "affine_line": "logitgeom.symmetry",
    "cyclic": "logitgeom.symmetry",
    "detect_symmetry": "logitgeom.symmetry",
    "direct_product": "logitgeom.symmetry",
    "direct_sum": "logitgeom.symmetry",
    "orbit_targets": "logitgeom.symmetry",
    "parse_group": "logitgeom.symmetry",
    "predicted_gram_structure": "logitgeom.symmetry",
    "symmetric": "logitgeom.symmetry",
    "wreath": "logitgeom.symmetry",
    "LayerPeeled": "logitgeom.convex",
    "LayerPeeledSolution": "logitgeom.convex",
    "PredictedGeometry": "logitgeom.convex",
    "concat_blocks": "logitgeom.convex",
    "cyclic_orbit": "logitgeom.convex",
    "group_orbit": "logitgeom.convex",
    "predicted_geometry": "logitgeom.convex",
    "solve_layer_peeled": "logitgeom.convex",
}


def __getattr__(name: str) -> Any:
    """Import the module of a public name on first use and cache the name here."""
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'logitgeom' has no attribute {name!r}")
    value = getattr(importlib.import_module(where), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
