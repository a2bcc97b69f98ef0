"""logitgeom's engine: exact geometry and convex optimisation of classifier heads.

Public names are re-exported here explicitly, grouped by topic; see
:mod:`logitgeom.geometry`, :mod:`logitgeom.convex`, :mod:`logitgeom.symmetry`,
:mod:`logitgeom.models`.
"""

from logitgeom._version import __version__
from logitgeom.audit import AuditResult, audit_argmax
from logitgeom.errors import (
    EngineError,
    InexactResult,
    Infeasible,
    InvalidInput,
    SolverFailed,
    SolverUnavailable,
    TooLarge,
)
from logitgeom.geometry import (
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
from logitgeom.models.diagnostics import (
    delta_circ,
    delta_etf,
    delta_group,
    nearest_circulant,
    nearest_etf,
    nearest_invariant,
    normalized_gram,
)
from logitgeom.symmetry import (
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

_LAZY_CONVEX = frozenset({
    "LayerPeeled", "LayerPeeledSolution", "PredictedGeometry", "concat_blocks", "cyclic_orbit",
    "group_orbit", "predicted_geometry", "solve_layer_peeled",
})


def __getattr__(name: str):  # PEP 562: logitgeom.convex (and cvxpy) load on first use
    if name in _LAZY_CONVEX:
        import logitgeom.convex

        return getattr(logitgeom.convex, name)
    raise AttributeError(f"module 'engine' has no attribute {name!r}")
