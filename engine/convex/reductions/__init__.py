"""Reductions of the logit-level layer-peeled program (accepts / apply / invert)."""

from engine.convex.reductions.base import Acceptance, ReducedProblem, Reduction

__all__ = ["Acceptance", "ReducedProblem", "Reduction"]
