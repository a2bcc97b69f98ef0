"""Running long work: executors (serial, process pool, Dask), work units, progress.

Knows nothing about geometry or convex programs; :mod:`logitgeom.geometry` and the argmax
audit hand it work units.  See :mod:`logitgeom.run.executor`.
"""

from logitgeom.run.executor import UnitResult, cpu_count, is_dask_client, make_executor, run_units

__all__ = ["UnitResult", "run_units", "make_executor", "is_dask_client", "cpu_count"]
