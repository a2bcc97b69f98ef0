"""Sign patterns, ranking patterns and argmaxable labels (placeholder during development)."""

from __future__ import annotations

__all__ = ["ArgmaxResult", "PatternResult", "argmaxable", "ranking_pattern", "sign_pattern"]


class PatternResult:  # replaced by the real implementation shortly
    pass


class ArgmaxResult:
    pass


def sign_pattern(W, *, bias=None, executor=None, max_regions=None, progress=None):
    raise NotImplementedError("sign_pattern is being implemented")


def ranking_pattern(W, *, bias=None, top=None, executor=None, max_regions=None, progress=None):
    raise NotImplementedError("ranking_pattern is being implemented")


def argmaxable(W, bias=None):
    raise NotImplementedError("argmaxable is being implemented")
