"""The cosine paper's verification grid: exact complete enumeration vs the paper's float approach.

Run:  .venv/bin/python benchmarks/bench_grid.py [--n 3,5,10] [--seeds 5] [--method both]
      [--workers N] [--baseline-budget 300000]

Exact side: :func:`logitgeom.geometry.verify_grid` on the whole grid (Lemma 5.3:
S(W) == S(W W^T); Thm 5.6 for d < n: R(W) == S((BW)(BW)^T); every set complete with exact
witnesses and Zaslavsky-certified counts), with ``method="enumerate"`` (both sides
enumerated independently) and/or ``"transport"`` (the Gram side through an exactly checked
integer identity G_c N = c A, certified by its own Zaslavsky count).  The grid's cells run
on ``--workers`` processes (default: all available cores); the reported total is the wall
time of the whole grid, and each cell's own time is listed.

Baseline: a re-implementation of the paper's float check on the *same* heads: an equal sign
pattern is read off equal oriented matroids, i.e. the float64 signs of all d x d minors
(``np.linalg.det`` in a Python loop over ``itertools.combinations``, |det| < 1e-10 counted
as 0) of W vs of a rank-d factor of C(W) (top singular directions, seed App. E.2), equal up
to one global sign; the same for BW vs C(BW).  For n = 10 that is C(45, 6) = 8,145,060
determinants per side at d = 6, so cells with more than ``--baseline-budget`` minors are
timed on their first ``budget`` minors per side and extrapolated linearly by the exact
minor count (the report says which cells were extrapolated).  The baseline's verdict is
reported only where it ran in full.
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from logitgeom.geometry.cosine import difference_pairs  # noqa: E402
from logitgeom.geometry.grid import GRID_NOTE, random_head, verify_grid  # noqa: E402

CUTOFF = 1e-10


def _cos(A: np.ndarray) -> np.ndarray:
    nrm = np.linalg.norm(A, axis=1)
    return (A @ A.T) / np.outer(nrm, nrm)


def _factor(C: np.ndarray, d: int) -> np.ndarray:
    """k x d factor spanning the top-d singular directions of C (seed App. E.2)."""
    U, s, _ = np.linalg.svd(C)
    return U[:, :d] * s[:d]


def _minor_signs(A: np.ndarray, d: int, limit: int | None):
    signs = []
    for idx in itertools.combinations(range(A.shape[0]), d):
        v = np.linalg.det(A[list(idx)])
        signs.append(0 if abs(v) < CUTOFF else (1 if v > 0 else -1))
        if limit is not None and len(signs) >= limit:
            break
    return signs


def _same_om(A1, A2, d, limit):
    s1, s2 = _minor_signs(A1, d, limit), _minor_signs(A2, d, limit)
    return s1 == s2 or s1 == [-x for x in s2]


def baseline_cell(W, budget: int) -> tuple[float, bool | None, bool]:
    """(seconds, verdict or None if extrapolated, extrapolated?) of the paper's float check."""
    A = np.array([[float(x) for x in r] for r in W])
    n, d = A.shape
    jobs = [(A, _factor(_cos(A), d))]
    if d < n:
        BW = np.array([A[i] - A[j] for i, j in difference_pairs(n)])
        jobs.append((BW, _factor(_cos(BW), d)))
    total = sum(math.comb(M.shape[0], d) for M, _ in jobs)
    if total <= budget:
        t0 = time.perf_counter()
        ok = all(_same_om(M1, M2, d, None) for M1, M2 in jobs)
        return time.perf_counter() - t0, ok, False
    secs = 0.0
    for M1, M2 in jobs:
        m = math.comb(M1.shape[0], d)
        lim = min(m, budget)
        t0 = time.perf_counter()
        _same_om(M1, M2, d, lim)
        secs += (time.perf_counter() - t0) * m / lim
    return secs, None, True


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", default="3,5,10")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--d-max", type=int, default=6)
    ap.add_argument("--method", choices=("enumerate", "transport", "both"), default="both")
    ap.add_argument(
        "--baseline-budget",
        type=int,
        default=300_000,
        help="minors per side timed before extrapolating (0: no baseline)",
    )
    ap.add_argument("--workers", type=int, default=None, help="processes for the cells")
    args = ap.parse_args()
    ns = [int(x) for x in args.n.split(",")]
    methods = ("enumerate", "transport") if args.method == "both" else (args.method,)
    tot = dict.fromkeys(methods, 0.0)
    grids = {}
    for m in methods:
        w0 = time.perf_counter()
        grids[m] = verify_grid(ns, args.seeds, d_max=args.d_max, method=m, progress=False,
                               workers=args.workers)
        tot[m] = time.perf_counter() - w0
    by_cell = {m: {(c.n, c.d, c.seed): c for c in g.cells} for m, g in grids.items()}

    head = f"{'n':>3} {'d':>2} {'seed':>4} {'|S(W)|':>7} {'|R(W)|':>8} {'exact':>6}"
    for m in methods:
        head += f" {m[:9]:>9}"
    head += f" {'seed s':>9} {'seed ok':>8}"
    print(head)
    tot_base = 0.0
    extrapolated = 0
    all_ok = True
    for n in ns:
        for d in range(2, min(args.d_max, n) + 1):
            for s in range(args.seeds):
                W = random_head(n, d, s)
                cells = [by_cell[m][(n, d, s)] for m in methods]
                times = [c.seconds for c in cells]
                cell = cells[0]
                ok = all(c.passed for c in cells) and all(
                    c.to_json() == cell.to_json() for c in cells
                )
                all_ok &= ok
                if args.baseline_budget:
                    tb, verdict, ext = baseline_cell(W, args.baseline_budget)
                    extrapolated += ext
                    tot_base += tb
                    vb = "extrap." if ext else str(verdict)
                    tbs = f"{tb:>8.2f}{'*' if ext else ' '}"
                else:
                    tbs, vb = f"{'-':>9}", "-"
                rc = "-" if cell.ranking_count is None else str(cell.ranking_count)
                line = f"{n:>3} {d:>2} {s:>4} {cell.sign_count:>7} {rc:>8} "
                line += f"{'ok' if ok else 'FAIL':>6}"
                for t in times:
                    line += f" {t:>9.2f}"
                print(f"{line} {tbs} {vb:>8}", flush=True)
    print()
    print(f"exact grid: all passed = {all_ok}")
    for m in methods:
        cpu = sum(c.seconds for c in grids[m].cells)
        print(f"  method {m}: {tot[m]:.1f} s wall (whole grid; cells sum to {cpu:.1f} s)")
    if args.baseline_budget:
        print(
            f"seed float baseline: {tot_base:.1f} s ({extrapolated} cells extrapolated, marked *)"
        )
        for m in methods:
            print(f"speed-up (baseline / exact {m}): {tot_base / tot[m]:.1f}x")
    print(GRID_NOTE)
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
