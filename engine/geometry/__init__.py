"""Hyperplane arrangements of classifier heads: sign patterns, ranking patterns, counts.

Exact throughout: floats may propose candidate regions, rational arithmetic decides.
"""

from engine.geometry.patterns import (
    ArgmaxResult,
    Completeness,
    PatternKind,
    PatternResult,
    argmaxable,
    ranking_pattern,
    sign_pattern,
)

__all__ = [
    "ArgmaxResult",
    "Completeness",
    "PatternKind",
    "PatternResult",
    "argmaxable",
    "ranking_pattern",
    "sign_pattern",
]
