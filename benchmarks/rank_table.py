"""The rank-constrained table of docs/beyond-symmetry.md: certified brackets for hidden width
D = 1..m-1 on cyclic targets (m = 5..12) and S_m-invariant (ETF) targets, every one emitted
and checked by the stdlib checker.

Targets (exact rationals), budgets E_W = 1 and E_H = 4 (rho = 2) or E_H = m^2 (rho = m):
- cyclic:   Y = circ(y), y_l = 2^(m-1-l) / (2^m - 1)  (geometric, generic: full-rank optimum);
- periodic: Y = circ(y) with y of period p | m (rank of the optimum <= p - 1);
- ETF:      Y = a I + (1 - a)/(m - 1) (J - I), a = 1/2 (S_m-invariant; the optimum is a
            simplex ETF of rank m - 1).

Run:  .venv/bin/python benchmarks/rank_table.py [--quick] [--json FILE]

Prints a markdown table (one row per instance) and the CPU seconds of this process
(``time.process_time``; the machine may be shared).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from logitgeom.convex.lowrank import (
    rank_certificate,  # noqa: E402
    rank_constrained,  # noqa: E402
)
from logitgeom.convex.problem import LayerPeeled  # noqa: E402
from logitgeom.convex.targets import cyclic_orbit  # noqa: E402
from logitgeom_certificates.check import check  # noqa: E402


def geometric(m: int) -> list[Fraction]:
    return [Fraction(2 ** (m - 1 - k), 2 ** m - 1) for k in range(m)]


def periodic(m: int, p: int) -> list[Fraction]:
    base = [Fraction(2 ** (p - 1 - k), 2 ** p - 1) for k in range(p)]
    return [base[k % p] * p / m for k in range(m)]


def etf(m: int, a: Fraction = Fraction(1, 2)) -> np.ndarray:
    b = (1 - a) / (m - 1)
    return np.array([[a if i == j else b for j in range(m)] for i in range(m)], dtype=object)


def instances(quick: bool):
    ms = range(5, 8) if quick else range(5, 13)
    for m in ms:
        yield "cyclic", m, cyclic_orbit(geometric(m), exact=True)
    for m, p in ((6, 2), (6, 3), (8, 4), (12, 3), (12, 4)):
        if not quick or m <= 8:
            yield f"cyclic period {p}", m, cyclic_orbit(periodic(m, p), exact=True)
    for m in ms:
        yield "ETF", m, etf(m)


def compact(rows: list[dict]) -> None:
    """One line per (target, m, rho): the convex rank, the smallest D certified exact, and the
    certified relative width for D = 1, 2, ..., m - 1 (0 when "exact")."""
    print("| target | m | rho | rank | exact from D = | relative width, D = 1, 2, ... | best "
          "construction at D = 1, 2, ... |")
    print("|---|---|---|---|---|---|---|")
    keys = sorted({(r["target"], r["m"], r["rho"]) for r in rows},
                  key=lambda k: (k[0] != "cyclic", k[0], k[1], k[2]))
    short = {"convex optimum (rank <= D)": "opt", "spectrum truncation": "trunc",
             "top-D column space": "colsp"}
    for k in keys:
        rs = sorted((r for r in rows if (r["target"], r["m"], r["rho"]) == k),
                    key=lambda r: r["D"])
        ex = [r["D"] for r in rs if r["relaxation"] == "exact"]
        widths = ", ".join("0" if r["relaxation"] == "exact" else f"{r['relative']:.1g}"
                           for r in rs)
        cons = []
        for r in rs:
            c = r["construction"].replace("descent from ", "d:")
            for a, b in short.items():
                c = c.replace(a, b)
            cons.append(c.replace("Fourier modes ", "F").replace(", ", "/"))
        print(f"| {k[0]} | {k[1]} | {k[2]:g} | {rs[0]['rank']} | {min(ex) if ex else '-'} | "
              f"{widths} | {', '.join(cons)} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--json", default=None)
    ap.add_argument("--compact", metavar="JSON", default=None,
                    help="print the compact table of docs/beyond-symmetry.md from a --json file")
    args = ap.parse_args()
    if args.compact:
        compact(json.loads(Path(args.compact).read_text()))
        return 0
    rows = []
    t0 = time.process_time()
    print("| target | m | rho | D | rank | lower | upper | width | relative | relaxation | best "
          "construction |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, m, Y in instances(args.quick):
        for EH in (4, m * m):
            problem = LayerPeeled(Y, 1, EH)
            sol = problem.solve()
            for D in range(1, m):
                res = rank_constrained(problem, D, sol=sol)
                cert = rank_certificate(problem, D, result=res)
                assert check(cert).ok
                lo, up = Fraction(cert["lower"]), Fraction(cert["upper"])
                row = {"target": name, "m": m, "rho": problem.rho, "D": D,
                       "rank": res.convex_rank,
                       "lower": float(lo), "upper": float(up), "width": float(up - lo),
                       "relative": float((up - lo) / up), "relaxation": cert["relaxation"],
                       "construction": cert["construction"],
                       "candidates": res.candidates}
                rows.append(row)
                print(f"| {name} | {m} | {problem.rho:g} | {D} | {res.convex_rank} | "
                      f"{float(lo):.10f} | "
                      f"{float(up):.10f} | {float(up - lo):.3g} | {row['relative']:.2g} | "
                      f"{cert['relaxation']} | {cert['construction']} |", flush=True)
    print(f"\n{len(rows)} certified brackets, CPU {time.process_time() - t0:.1f} s "
          "(time.process_time; shared machine)")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
