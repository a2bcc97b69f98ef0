"""CPU seconds of the stdlib checker on one streamed certificate (``pattern-complete-stream``).

Builds, in a temporary folder, the sign vectors of a central arrangement of ``k`` random
integer hyperplanes in R^d (``logitgeom.geometry.enumerate_to_dir``; k = 24, d = 5: 21,806
regions, about 20,000 shard lines), its streamed certificate, and times
``logitgeom_certificates.check.check_file`` on it without a budget (best of ``--repeat``).
Prints the lines, the CPU seconds and the microseconds per line.

Usage::

    python benchmarks/bench_stream_check.py [--k 24] [--d 5] [--repeat 3] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--k", type=int, default=24)
    ap.add_argument("--d", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    from logitgeom.certify.stream import stream_certificate
    from logitgeom.geometry import enumerate_to_dir
    from logitgeom_certificates.check import check_file

    rnd = random.Random(args.seed)
    W = [[rnd.randint(-9, 9) for _ in range(args.d)] for _ in range(args.k)]
    with tempfile.TemporaryDirectory() as tmp:
        r = enumerate_to_dir(W, Path(tmp) / "R", progress=False)
        path = Path(tmp) / "c.json"
        cert = stream_certificate(r, path)
        path.write_text(json.dumps(cert))
        lines = sum(s["rows"] for s in cert["shards"])
        best = None
        for _ in range(args.repeat):
            t = time.process_time()
            v = check_file(str(path), None)
            dt = time.process_time() - t
            best = dt if best is None else min(best, dt)
        assert v.ok, v
    print(f"k={args.k} d={args.d}: {lines} lines, check {best:.2f} CPU s "
          f"({1e6 * best / lines:.0f} us a line)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
