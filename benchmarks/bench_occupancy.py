"""Benchmark of ``occupancy``: 1,000,000 inputs of width 64 on a 50 x 64 head (goal: <= 60 CPU s).

Writes a seeded Gaussian head (50 x 64, float64) and 1,000,000 seeded Gaussian inputs
(float64 .npy) into a temporary folder, runs :func:`logitgeom.occupancy.occupancy` serially with
Parquet shards, the argmax audit, the exact counts and the figures, and prints the CPU seconds
(user + sys of this process and its children, all threads) and the wall time.

    .venv/bin/python benchmarks/bench_occupancy.py [--n 1000000] [--workers 0]
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
from pathlib import Path

import numpy as np


def cpu() -> float:
    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--k", type=int, default=50)
    ap.add_argument("--d", type=int, default=64)
    ap.add_argument("--workers", type=int, default=0, help="0: serial in this process")
    args = ap.parse_args()
    from logitgeom.occupancy import occupancy
    from logitgeom.run.executor import make_executor

    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        W = rng.normal(size=(args.k, args.d))
        np.save(Path(tmp) / "head.npy", W)
        np.save(Path(tmp) / "inputs.npy", rng.normal(size=(args.n, args.d)))
        ex = make_executor(args.workers) if args.workers else None
        c0, t0 = cpu(), time.perf_counter()
        r = occupancy(Path(tmp) / "head.npy", Path(tmp) / "inputs.npy", out=Path(tmp) / "out",
                      executor=ex, progress=False, rows_are_labels=True)
        c1, t1 = cpu(), time.perf_counter()
        if ex is not None:
            ex.shutdown()
        print("\n".join(r.lines()))
        size = sum(p.stat().st_size for p in (Path(tmp) / "out" / "shards").glob("*.parquet"))
        print(f"{args.n:,} inputs, {args.k} x {args.d} head: {c1 - c0:.1f} CPU s "
              f"(user + sys, all threads), {t1 - t0:.1f} s wall; shards {size / 1e6:.0f} MB; "
              f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
