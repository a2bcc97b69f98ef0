"""logitgeom's engine: exact geometry and convex optimisation of classifier heads.

Public names are re-exported here explicitly, grouped by topic; see
:mod:`engine.geometry`, :mod:`engine.convex`, :mod:`engine.symmetry`,
:mod:`engine.models`.
"""

from engine._version import __version__
from engine.audit import AuditResult, audit_argmax
from engine.errors import (
    EngineError,
    InexactResult,
    Infeasible,
    InvalidInput,
    SolverFailed,
    SolverUnavailable,
    TooLarge,
)
from engine.geometry import (
    ArgmaxResult,
    Completeness,
    GridCell,
    GridResult,
    PatternKind,
    PatternResult,
    affine_generic_count,
    argmaxable,
    check_cell,
    cosine_equal,
    cosine_matrix,
    count_rankings,
    count_regions,
    cover_count,
    difference_matrix,
    difference_pairs,
    gram_exact,
    random_head,
    ranking_count_generic,
    ranking_count_generic_affine,
    ranking_pattern,
    sign_pattern,
    translate,
    translation_for_cosine,
    verify_grid,
)
from engine.models.diagnostics import (
    delta_circ,
    delta_etf,
    delta_group,
    nearest_circulant,
    nearest_etf,
    nearest_invariant,
    normalized_gram,
)
from engine.symmetry import (
    DetectedSymmetry,
    GramStructure,
    GroupAction,
    OrbitTargets,
    affine_line,
    cyclic,
    detect_symmetry,
    direct_product,
    direct_sum,
    orbit_targets,
    parse_group,
    predicted_gram_structure,
    symmetric,
    wreath,
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
    # engine.geometry (verification grid)
    "GridCell",
    "GridResult",
    "check_cell",
    "random_head",
    "verify_grid",
    # engine.geometry (counting, cosine)
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
    # engine.geometry (patterns)
    "ArgmaxResult",
    "Completeness",
    "PatternKind",
    "PatternResult",
    "argmaxable",
    "ranking_pattern",
    # engine.audit (argmax audit at vocabulary scale)
    "AuditResult",
    "audit_argmax",
    "sign_pattern",
    # engine.symmetry
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
    # engine.models (geometry diagnostics of real models)
    "delta_circ",
    "delta_etf",
    "delta_group",
    "nearest_circulant",
    "nearest_etf",
    "nearest_invariant",
    "normalized_gram",
    # engine.convex (imported lazily: it loads cvxpy)
    "LayerPeeled",
    "LayerPeeledSolution",
    "PredictedGeometry",
    "concat_blocks",
    "cyclic_orbit",
    "group_orbit",
    "predicted_geometry",
    "solve_layer_peeled",
]

_LAZY_CONVEX = frozenset({
    "LayerPeeled", "LayerPeeledSolution", "PredictedGeometry", "concat_blocks", "cyclic_orbit",
    "group_orbit", "predicted_geometry", "solve_layer_peeled",
})


def __getattr__(name: str):  # PEP 562: engine.convex (and cvxpy) load on first use
    if name in _LAZY_CONVEX:
        import engine.convex

        return getattr(engine.convex, name)
    raise AttributeError(f"module 'engine' has no attribute {name!r}")
