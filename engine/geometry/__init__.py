"""Hyperplane arrangements of classifier heads: sign patterns, ranking patterns, counts.

Exact throughout: floats may propose candidate regions, rational arithmetic decides.
"""

from logitgeom.geometry.cosine import (
    cosine_equal,
    cosine_matrix,
    difference_matrix,
    difference_pairs,
    gram_exact,
    translate,
    translation_for_cosine,
)
from logitgeom.geometry.counting import (
    affine_generic_count,
    count_rankings,
    count_regions,
    cover_count,
    ranking_count_generic,
    ranking_count_generic_affine,
)
from logitgeom.geometry.grid import (
    GridCell,
    GridResult,
    check_cell,
    random_head,
    verify_grid,
)
from logitgeom.geometry.patterns import (
    ArgmaxResult,
    Completeness,
    PatternKind,
    PatternResult,
    argmaxable,
    ranking_pattern,
    sign_pattern,
)
from logitgeom.geometry.stream import StoredResult, enumerate_to_dir, open_result

__all__ = [
    "GridCell",
    "GridResult",
    "check_cell",
    "random_head",
    "verify_grid",
    "cosine_equal",
    "cosine_matrix",
    "difference_matrix",
    "difference_pairs",
    "gram_exact",
    "translate",
    "translation_for_cosine",
    "affine_generic_count",
    "count_rankings",
    "count_regions",
    "cover_count",
    "ranking_count_generic",
    "ranking_count_generic_affine",
    "ArgmaxResult",
    "Completeness",
    "PatternKind",
    "PatternResult",
    "argmaxable",
    "ranking_pattern",
    "sign_pattern",
    "StoredResult",
    "enumerate_to_dir",
    "open_result",
]
