"""CPU seconds per witness of the stdlib checker's witness check: fast path and integer path.

Builds a float32 head like a trained one (default 8,000 x 4,096: Gaussian rows of scale
0.02, full precision; the first W rows scaled by 1.5 so that each wins at its own row),
writes it as a ``.npy`` in a temporary folder, reads it with the checker's own head reader
(``check_audit._head``: SHA-256, finiteness, the flat ``array('f')``) and times
``_Model.witness`` for W scale witnesses (x = w_k): with the fast path (one ``math.fsum`` a
row of exact float64 products, certificates/SPEC.md section 9, "Fast witnesses") and with
the integer path it replaces (every row converted to integers; what a float64 or biased head
still takes).  Both must accept every witness; the work units charged are printed too.

Usage::

    python benchmarks/bench_check_witness.py                    # 8,000 x 4,096, W = 2
    python benchmarks/bench_check_witness.py --rows 2000 --cols 512 --witnesses 4
    python benchmarks/bench_check_witness.py --skip-integer     # the fast path only

At the default size the integer path takes about 10-20 CPU s a witness; keep
rows x cols x witnesses modest on a shared machine (the default run is about a minute).
"""

from __future__ import annotations

import argparse
import hashlib
import shlex
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=8000, help="rows k of the head (default 8000)")
    ap.add_argument("--cols", type=int, default=4096, help="columns d (default 4096)")
    ap.add_argument("--witnesses", type=int, default=2, help="witnesses W timed (default 2)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the head (default 0)")
    ap.add_argument("--skip-integer", action="store_true",
                    help="time the fast path only (the integer path is 5-10x slower)")
    args = ap.parse_args(argv)
    if args.rows < 2 or args.cols < 1 or not 1 <= args.witnesses <= args.rows:
        ap.error("need --rows >= 2, --cols >= 1 and 1 <= --witnesses <= --rows")
    from logitgeom_certificates import check_audit
    from logitgeom_certificates.meter import budget, used

    print("command: python " + " ".join(map(shlex.quote, [sys.argv[0], *sys.argv[1:]])))
    k, d, nw = args.rows, args.cols, args.witnesses
    rng = np.random.default_rng(args.seed)
    W = np.empty((k, d), dtype=np.float32)
    for a in range(0, k, 1000):  # in blocks: no float64 copy of the whole head
        W[a:a + 1000] = rng.standard_normal((min(1000, k - a), d), dtype=np.float32) * 0.02
    W[:nw] *= np.float32(1.5)    # longer than every other row: each wins at x = w_k
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "head.npy"
        np.save(path, W)
        sha = hashlib.sha256(W.tobytes()).hexdigest()
        del W
        t0 = time.process_time()
        rows = check_audit._head({"format": "npy", "file": str(path), "sha256": sha}, k, d,
                                 "/head")
        read = time.process_time() - t0
    M = check_audit._Model(rows, k, d, None)
    print(f"head {k} x {d} float32 ({k * d * 4 / 2**20:.0f} MiB), read and checked by the "
          f"checker in {read:.2f} CPU s; fast path applies: "
          f"{M.unbiased and rows(0).typecode == 'f'}")
    paths = [("fast", True)] + ([] if args.skip_integer else [("integer", False)])
    per = {}
    for name, scale in paths:
        cpu, units = 0.0, 0
        for lab in range(nw):
            x = [] if scale else [Fraction(v) for v in rows(lab)]  # t = 1: x = w_k
            with budget(10**15):
                t0 = time.process_time()
                M.witness(lab, x, f"/records/{lab}/all", f32=scale)
                cpu += time.process_time() - t0
                units += used() or 0
        per[name] = cpu / nw
        print(f"{name} path: {cpu / nw:.2f} CPU s per witness "
              f"({cpu / nw / (k - 1) * 1e6:.1f} us per row), {units // nw:,} work units "
              f"per witness, {nw} witnesses accepted")
    if "integer" in per:
        print(f"speed-up: {per['integer'] / per['fast']:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
