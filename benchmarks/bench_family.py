"""Benchmark of the layer-peeled family: solve, certify and check; the minority-collapse curve.

Reports, per case, CPU seconds (``time.process_time``, this process, all threads) of the
solve, of the emission (which runs the stdlib checker once) and of a separate check, and
the certified relative width; then the whole minority-collapse curve of ``reproduce``
(K_A = K_B = 5, per-class budgets 3, R = 1 .. 1e5, threshold bisection) with its verdicts
and the threshold bracket; peak RSS from ``resource.getrusage``.

Run:  .venv/bin/python benchmarks/bench_family.py [--quick]

The machine may be shared: CPU seconds are the fair figure; rerun before drawing conclusions.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from logitgeom.convex.family import (  # noqa: E402
    LayerPeeledFamily,
    minority_program,
    minority_samples,
)
from logitgeom.convex.minority import CURVE_RATIOS, CURVE_SETTING, minority_curve  # noqa: E402
from logitgeom_certificates.check import check  # noqa: E402


def _cases():
    rng = np.random.default_rng(0)
    Ybce = np.round(rng.uniform(size=(6, 12)) * 16) / 16
    Ymse = np.round(rng.normal(size=(6, 12)) * 16) / 16
    return [
        ("CE minority 5+5, R = 100 (two-orbit)", minority_program(5, 5, 100, 3, 3)),
        ("CE minority 5+5, R = 100 (full)", minority_program(5, 5, 100, 3, 3), "full"),
        ("CE samples 3+3, n_A = 4, n_B = 1 (18 columns)", minority_samples(3, 3, 4, 1, 3, 3)),
        ("MSE 6 x 12 weighted", LayerPeeledFamily(Ymse, 2, 2, loss="mse",
                                                  weights=rng.integers(1, 5, 12).tolist(),
                                                  h_budget=rng.integers(1, 5, 12).tolist())),
        ("BCE 6 x 12 weighted", LayerPeeledFamily(Ybce, 2, 2, loss="bce",
                                                  weights=rng.integers(1, 5, 12).tolist())),
    ]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="skip the minority curve")
    args = ap.parse_args()
    print(f"{'case':48s} {'solve s':>8s} {'emit s':>8s} {'check s':>8s} {'rel width':>10s}")
    for case in _cases():
        name, P = case[0], case[1]
        method = case[2] if len(case) > 2 else "auto"
        t0 = time.process_time()
        sol = P.solve(method)
        t1 = time.process_time()
        cert = sol.certificate()
        t2 = time.process_time()
        ok = check(cert).ok
        t3 = time.process_time()
        lo, up = Fraction(cert["lower"]), Fraction(cert["upper"])
        print(f"{name:48s} {t1 - t0:8.2f} {t2 - t1:8.2f} {t3 - t2:8.2f} "
              f"{float((up - lo) / abs(up)):10.1e}{'' if ok else '  REJECTED'}")
    if not args.quick:
        t0 = time.process_time()
        pts, thr = minority_curve(CURVE_RATIOS, **CURVE_SETTING)
        t1 = time.process_time()
        print(f"minority curve ({len(pts)} ratios + bisection): {t1 - t0:.1f} s CPU; verdicts "
              + ", ".join(f"{float(p.ratio):g}:{p.verdict[0]}" for p in pts))
        if thr is not None:
            print(f"threshold: separated (proven) at R = {thr[0].ratio} = "
                  f"{float(thr[0].ratio):.6g}, collapsed (proven) at R = {thr[1].ratio} = "
                  f"{float(thr[1].ratio):.6g}")
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
