"""Occupancy: which regions of a head real inputs occupy (docs/occupancy.md).

:func:`occupancy` decides each input's sign pattern, ranking, top-t prefix and argmax exactly
(float filter, integer arithmetic where it does not separate) and sets the realized regions
against the possible ones; :func:`decide_chunk` is the per-chunk decision.
"""

from logitgeom.occupancy.decide import Decided, boundary_distances, decide_chunk, exact_logits
from logitgeom.occupancy.run import OccupancyError, OccupancyResult, occupancy

__all__ = ["occupancy", "OccupancyResult", "OccupancyError", "decide_chunk", "Decided",
           "boundary_distances", "exact_logits"]
