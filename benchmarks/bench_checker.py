"""How long the stdlib checker takes to judge or refuse small hostile files (CPU seconds).

Builds, in a temporary folder, files that used to run for minutes (an exponent in a bracket
number, a 4,100-digit number, orbit brackets of S_32 / S_40 / S_64 whose group order is
expensive) and a valid 200 x 40 cosine-equal certificate, checks each under the default
budget and prints size, CPU seconds and verdict.  The goal: every file judged or refused
within 5 CPU s.

Usage::

    python benchmarks/bench_checker.py
"""

from __future__ import annotations

import copy
import json
import random
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

from _args import guard

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from logitgeom_certificates.check import check_file  # noqa: E402

EXAMPLES = ROOT / "certificates" / "examples"


def _files(d: Path) -> list[Path]:
    b = json.loads((EXAMPLES / "valid-layer-peeled-bracket.json").read_text())
    o = json.loads((EXAMPLES / "valid-layer-peeled-orbit-bracket.json").read_text())
    out = {"bracket-exponent.json": dict(b, E_W="1e100000000"),
           "bracket-4100-digits.json": dict(b, E_W="1" * 4100)}
    for m in (32, 40, 64):
        c = copy.deepcopy(o)
        e = ["1"] + ["0"] * (m - 1)
        c.update(bases=[e], P_bases=[e], W=[["0"] * m] * m, H_bases=[["0"] * m],
                 generators=[[1, 0, *range(2, m)], [*range(1, m), 0]])
        out[f"orbit-S{m}.json"] = c
    r = random.Random(2)
    W = [[str(Fraction(r.randint(-9999, 9999), r.randint(1, 9999))) for _ in range(40)]
         for _ in range(200)]
    out["cosine-equal-200x40.json"] = {"format": "logitgeom-certificate", "version": 1,
                                       "kind": "cosine-equal", "W1": W, "W2": W}
    for name, c in out.items():
        (d / name).write_text(json.dumps(c))
    return [d / name for name in out]


def main() -> int:
    guard(sys.argv[1:], __doc__)
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for p in _files(Path(tmp)):
            t = time.process_time()
            v = check_file(p)
            dt = time.process_time() - t
            worst = max(worst, dt)
            print(f"{p.name:30s} {p.stat().st_size:>8,} B {dt:6.2f} CPU s  "
                  f"{'OK' if v.ok else v.failed_check}")
    print(f"worst: {worst:.2f} CPU s (goal: <= 5)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
