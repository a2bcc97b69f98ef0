"""Full nuclear-norm program vs its exact reductions, side by side, same solver.

Run:  .venv/bin/python benchmarks/bench_convex.py [--solver CLARABEL] [--full-max-cyclic 24]
      [--full-max-sym 5]

Times are wall-clock seconds ("cpu": this process's CPU seconds, steadier on a shared
machine) of ``LayerPeeled(...).solve(method)``: structure detection, CVXPY compilation,
solver, recovery of W/H/Grams and the dual bound.  Reduced: the fastest of ``--repeat``
runs; full: one run.  "full" is skipped above the given sizes (it needs an (m+n) or
n x (m+1) semidefinite program: minutes and GBs).  Every target has one zero entry, so
the budget is active at any radius.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from logitgeom import SolverFailed  # noqa: E402
from logitgeom.convex import (  # noqa: E402
    LayerPeeled,
    concat_blocks,
    cyclic_orbit,
    group_orbit,
)
from logitgeom.symmetry import symmetric  # noqa: E402


def _with_zero(y):
    """One zero entry: the budget is then active for every radius (docs/layer-peeled.md)."""
    y = y.copy()
    y[-1] = 0.0
    return y / y.sum()


def _timed(P, method, solver):
    t0, c0 = time.perf_counter(), time.process_time()
    sol = P.solve(method, solver=None if method == "etf" else solver)
    return (time.perf_counter() - t0, time.process_time() - c0), sol


def _row(label, Y, method, solver, run_full, repeat):
    t0 = time.perf_counter()
    P = LayerPeeled(Y, 1.0, 1.0)
    t_build = time.perf_counter() - t0
    times, red = [], None
    for _ in range(repeat):
        t, red = _timed(P, method, solver)
        times.append(t)
    t_red, c_red = min(times)
    full_txt = f"{'skipped':>9} {'-':>7} {'-':>18} {'-':>9}"
    if run_full:
        try:
            (t_full, c_full), full = _timed(P, "full", solver)
        except SolverFailed as exc:
            full_txt = f"{'failed':>9} {'-':>7} {type(exc).__name__:>18} {'-':>9}"
        else:
            rel = abs(red.loss - full.loss) / abs(full.loss)
            full_txt = f"{t_full:9.3f} {c_full:7.3f} {full.loss:18.12f} {rel:9.1e}"
    m, n = Y.shape
    print(f"{label:24s} {m:3d} {n:6d} {t_build:7.3f} {t_red:8.4f} {c_red:7.4f} {red.loss:18.12f} "
          f"{red.gap:8.1e} {full_txt}", flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--solver", default="CLARABEL")
    ap.add_argument("--full-max-cyclic", type=int, default=24)
    ap.add_argument("--full-max-sym", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore", UserWarning)
    rng = np.random.default_rng(0)
    print(f"solver {args.solver}; E_W = E_H = 1; times in seconds")
    print(f"{'case':24s} {'m':>3} {'n':>6} {'build':>7} {'reduced':>8} {'cpu':>7} "
          f"{'reduced loss':>18} {'gap':>8} {'full':>9} {'cpu':>7} {'full loss':>18} "
          f"{'rel diff':>9}")
    for m in (7, 12, 24, 48, 96):
        Y = cyclic_orbit(_with_zero(rng.dirichlet(np.ones(m))))
        _row(f"cyclic m={m}", Y, "circulant", args.solver, m <= args.full_max_cyclic,
             args.repeat)
    for m in range(3, 9):
        Y = group_orbit(_with_zero(rng.dirichlet(np.ones(m))), symmetric(m))
        assert Y.shape[1] == math.factorial(m)
        _row(f"S_{m} orbit", Y, "etf", args.solver, m <= args.full_max_sym, args.repeat)
    Y = concat_blocks(*[cyclic_orbit(_with_zero(rng.dirichlet(np.ones(12)))) for _ in range(5)])
    _row("cyclic 5 blocks m=12", Y, "circulant", args.solver, True, args.repeat)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
