"""Benchmarks of the exact pattern enumeration.

Run:  .venv/bin/python benchmarks/bench_patterns.py [--quick] [--serial]

Figures: R(W) for a generic W with k = 10, d = 6 (557,640 rankings, one exact witness
each): wall time and peak memory (this process and its worker processes);
count_rankings for it; S(W) for k = 20, d = 5 (10,072 regions); a scaling table of time
per region as k and d grow.  Every enumeration is certified complete by the Zaslavsky
count; the script asserts it.
"""

from __future__ import annotations

import argparse
import math
import resource
import time

import numpy as np

from logitgeom.exact.lattice import count_rankings_exact, count_regions_exact
from logitgeom.geometry import ranking_pattern, sign_pattern


def generic(k: int, d: int, seed: int = 0) -> list[list[int]]:
    rng = np.random.default_rng(seed)
    return rng.integers(-1000, 1001, size=(k, d)).tolist()


def cover_q(n: int, d: int) -> int:
    """Cover (1967) / Good-Tideman: Q(n, d) = Q(n-1, d) + (n-1) Q(n-1, d-1)."""
    if n == 1:
        return 1
    if d == 1:
        return 2
    return cover_q(n - 1, d) + (n - 1) * cover_q(n - 1, d - 1)


def peak_mb() -> tuple[float, float]:
    me = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return me, kids


def timed(f, *a, **kw):
    """Result and wall time; for pattern results the (lazily built) exact witnesses are
    built inside the timed region, so figures include one witness per region."""
    t = time.perf_counter()
    r = f(*a, **kw)
    if hasattr(r, "witnesses"):
        assert len(r.witnesses) == r.count
    return r, time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="skip the k=10, d=6 run")
    ap.add_argument("--serial", action="store_true", help="no process pool")
    args = ap.parse_args()
    ex = None
    if args.serial:
        from concurrent.futures import ThreadPoolExecutor

        ex = ThreadPoolExecutor(1)  # one thread: serial, but counts as "given"

    W = generic(20, 5)
    c, tc = timed(count_regions_exact, W)
    s, ts = timed(sign_pattern, W, executor=ex, progress=False)
    assert s.complete and s.count == c == 2 * sum(math.comb(19, i) for i in range(5))
    print(f"S(W) k=20 d=5: {s.count} regions in {ts:.2f} s (count_regions {tc:.3f} s)")

    if not args.quick:
        W = generic(10, 6)
        c, tc = timed(count_rankings_exact, W)
        t0 = time.perf_counter()
        r = ranking_pattern(W, executor=ex, progress=False)
        t1 = time.perf_counter()
        assert len(r.witnesses) == r.count  # exact Fraction witnesses, built lazily
        tr = time.perf_counter() - t0
        assert r.complete and r.count == c == cover_q(10, 6) == 557_640
        me, kids = peak_mb()
        print(f"R(W) k=10 d=6: {r.count} rankings in {tr:.1f} s with witnesses "
              f"({t1 - t0:.1f} s without); count_rankings {tc:.3f} s; "
              f"peak RSS main {me:.0f} MB, workers {kids:.0f} MB")

    print("\nscaling (time per region, microseconds)")
    print(f"{'kind':8s} {'k':>3s} {'d':>2s} {'regions':>9s} {'time s':>8s} {'us/region':>10s}")
    for kind, cases in (
        ("sign", [(10, 3), (20, 3), (40, 3), (20, 4), (30, 4), (20, 5), (24, 6)]),
        ("ranking", [(6, 3), (8, 3), (10, 3), (8, 4), (10, 4), (8, 5), (9, 5)]),
    ):
        for k, d in cases:
            W = generic(k, d, seed=1)
            f = sign_pattern if kind == "sign" else ranking_pattern
            res, t = timed(f, W, executor=ex, progress=False)
            assert res.complete
            print(f"{kind:8s} {k:3d} {d:2d} {res.count:9d} {t:8.3f} {1e6 * t / res.count:10.1f}")


if __name__ == "__main__":
    main()
