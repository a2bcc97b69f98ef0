"""Exact counts (Zaslavsky, logitgeom.exact.lattice): time table and the two headline goals.

Run:  .venv/bin/python benchmarks/bench_counting.py [--quick]

Goals: ``count_rankings`` for a generic k = 10, d = 6 head (557,640 rankings) in
<= 1 s; ``count_regions`` for a generic k = 20, d = 5 head (10,072 regions).  "Generic"
heads are seeded random integers in [-10^6, 10^6]; each count is checked against the
general-position formula (Cover 1965 / Cover 1967, Good-Tideman) so a non-generic draw
would show.  Times are wall seconds and process CPU seconds (the machine is shared, CPU is
the fairer figure), best of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from logitgeom.geometry import (  # noqa: E402
    affine_generic_count,
    count_rankings,
    count_regions,
    cover_count,
    ranking_count_generic,
    ranking_count_generic_affine,
)


def _head(k, d, seed):
    rng = random.Random(f"bench-counting/{k}/{d}/{seed}")
    W = [[rng.randint(-(10**6), 10**6) for _ in range(d)] for _ in range(k)]
    b = [rng.randint(-(10**6), 10**6) for _ in range(k)]
    return W, b


def _time(fn, repeat):
    best_w, best_c, out = float("inf"), float("inf"), None
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        best_w = min(best_w, time.perf_counter() - w0)
        best_c = min(best_c, time.process_time() - c0)
    return out, best_w, best_c


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="only the two headline goals")
    args = ap.parse_args()

    print("headline goals")
    W, _ = _head(10, 6, 0)
    n, w, c = _time(lambda: count_rankings(W), args.repeat)
    ok = n == ranking_count_generic(10, 6)
    print(
        f"  count_rankings k=10 d=6: {n:,} (generic formula {ok}); wall {w:.3f} s, "
        f"CPU {c:.3f} s; goal <= 1 s: {'met' if c <= 1 else 'MISSED'}"
    )
    W, _ = _head(20, 5, 0)
    n, w, c = _time(lambda: count_regions(W), args.repeat)
    ok = n == cover_count(20, 5)
    print(f"  count_regions  k=20 d=5: {n:,} (Cover formula {ok}); wall {w:.3f} s, CPU {c:.3f} s")
    if args.quick:
        return 0

    rows = []
    for kind, ks, ds in (
        ("regions", (10, 20, 30, 40), (3, 4, 5, 6)),
        ("regions+bias", (10, 20, 30), (3, 4, 5)),
        ("rankings", (6, 8, 10, 11), (2, 3, 4, 5, 6)),
        ("rankings+bias", (6, 8, 10), (2, 3, 4, 5)),
    ):
        for k in ks:
            for d in ds:
                W, b = _head(k, d, 1)
                if kind == "regions":
                    fn, ref = (lambda W=W: count_regions(W)), cover_count(k, d)
                elif kind == "regions+bias":
                    fn, ref = (
                        (lambda W=W, b=b: count_regions(W, bias=b)),
                        affine_generic_count(k, d),
                    )
                elif kind == "rankings":
                    fn, ref = (lambda W=W: count_rankings(W)), ranking_count_generic(k, d)
                else:
                    fn = lambda W=W, b=b: count_rankings(W, bias=b)  # noqa: E731
                    ref = ranking_count_generic_affine(k, d)
                n, w, c = _time(fn, 1 if k >= 11 else args.repeat)
                rows.append((kind, k, d, n, n == ref, w, c))
    print()
    print(
        f"{'kind':>14} {'k':>3} {'d':>2} {'count':>12} {'=formula':>8} {'wall s':>8} "
        f"{'CPU s':>8} {'us/region':>9}"
    )
    for kind, k, d, n, ok, w, c in rows:
        print(
            f"{kind:>14} {k:>3} {d:>2} {n:>12,} {ok!s:>8} {w:>8.3f} {c:>8.3f} {1e6 * c / n:>9.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
