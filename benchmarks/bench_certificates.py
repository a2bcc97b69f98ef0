"""Benchmark of certificates: emitting and checking the papers' results and complete patterns.

Times (wall clock, one run each, this machine):
  * regenerating ``certificates/paper`` (the engine's exact LP and enumeration) and checking
    every file;
  * emitting and checking ``pattern-complete`` certificates for random integer W (entries in
    -5..5, seeded) with k labels in d = 3: S(W) and R(W), using the engine's enumeration.

Run:  .venv/bin/python benchmarks/bench_certificates.py [--k 5 6 7] [--seed 0]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from logitgeom import emit  # noqa: E402
from logitgeom.reproduce.paper import write_paper  # noqa: E402
from logitgeom_certificates.check import check, check_file  # noqa: E402


def _t(f):
    t = time.perf_counter()
    out = f()
    return out, time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k", type=int, nargs="+", default=[5, 6, 7])
    ap.add_argument("--d", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        paths, t_emit = _t(lambda: write_paper(tmp, progress=False))
        verdicts, t_check = _t(lambda: [check_file(p) for p in paths])
        size = sum(p.stat().st_size for p in paths)
    assert all(v.ok for v in verdicts)
    print(f"paper set: {len(paths)} files, {size / 1024:.0f} KiB; "
          f"emit {t_emit:.2f} s, check {t_check:.2f} s")

    rng = random.Random(args.seed)
    print(f"{'k':>3} {'d':>2} {'pattern':>8} {'regions':>8} {'flats':>6} {'emit s':>8} "
          f"{'check s':>8}")
    for k in args.k:
        W = [[rng.randint(-5, 5) for _ in range(args.d)] for _ in range(k)]
        for ptype in ("sign", "ranking"):
            cert, te = _t(lambda W=W, ptype=ptype: emit.complete_certificate(W, ptype))
            v, tc = _t(lambda cert=cert: check(cert))
            assert v.ok, v
            print(f"{k:>3} {args.d:>2} {ptype:>8} {len(cert['patterns']):>8} "
                  f"{len(cert['lattice']):>6} {te:>8.2f} {tc:>8.2f}")


if __name__ == "__main__":
    main()
