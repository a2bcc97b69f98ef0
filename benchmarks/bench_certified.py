"""Benchmark of the layer-peeled brackets: emit and check on every paper instance.

Goals: checking one paper-size certificate (n <= 72 columns) <= 1 s; emitting <= 5 s (solve
time reported separately); relative width <= 1e-9, also on optima of rank < m - 1 (m > n,
n = 1, Q8 on two copies) and a 2-homogeneous group other than S_m (PSL(2,7)).  Also the S_9
orbit (362,880 columns) as an orbit bracket.

Run:  .venv/bin/python benchmarks/bench_certified.py [--quick]

Times are CPU seconds of this process (``time.process_time``); peak RSS from
``resource.getrusage``.  The machine may be shared: rerun before drawing conclusions.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from logitgeom.convex import (  # noqa: E402
    LayerPeeled,
    concat_blocks,
    cyclic_orbit,
    group_orbit,
)
from logitgeom.convex.reductions.etf import group_generators  # noqa: E402
from logitgeom.emit import dumps  # noqa: E402
from logitgeom.symmetry import symmetric  # noqa: E402
from logitgeom_certificates.check import check  # noqa: E402

WEEKDAYS = ["0", "1/2", "1/4", "1/8", "1/16", "1/32", "1/32"]


def instances():
    """(name, Y, budgets, method, solve options, certificate options)."""
    from logitgeom.symmetry import affine_line, orbit_targets
    from logitgeom.symmetry.examples import app_f_examples

    S3 = symmetric(3)
    out = [
        ("Thm 1 weekdays", cyclic_orbit(WEEKDAYS, exact=True), (1, 4), "circulant", {}, {}),
        ("Thms 2-3 S_4", group_orbit(["1/2", "1/4", "1/4", "0"], symmetric(4),
                                     exact=True), (1, 4), "etf", {}, {}),
        ("Thm 4 AGL(1,5)", group_orbit(["1/2", "1/4", "1/8", "1/8", "0"], affine_line(5),
                                       exact=True), (1, 4), "etf", {"group": affine_line(5)},
         {"generators": [list(g) for g in group_generators(affine_line(5), 5)]}),
        ("Thm 5 3 cyclic blocks", concat_blocks(*[cyclic_orbit(y, exact=True) for y in (
            ["1/2", "1/4", "1/4", "0", "0"], ["0", "1/3", "1/3", "1/3", "0"],
            ["1/5"] * 5)]), (1, 4), "circulant", {}, {}),
        ("Thm 6 S_3 blocks", concat_blocks(group_orbit(["1", "0", "0"], S3, exact=True),
                                           group_orbit(["1/2", "1/2", "0"], S3, exact=True),
                                           group_orbit(["1/3", "1/3", "1/3"], S3, exact=True)),
         (1, 4), "etf", {}, {}),
    ]
    for name, ex in app_f_examples().items():
        T = orbit_targets(ex.group, ex.y)
        gens = [[int(x) for x in g] for g in T.action.row_generators]
        out.append((f"App. F {name}", T.exact_Y(), (4, 16), "orbit", {"group": T.action},
                    {"generators": gens}))
    # optima of rank < m - 1 (the H least squares needs its singular-value cut-off) and
    # 2-homogeneous groups other than S_m (the certificate uses the solved group)
    from logitgeom.symmetry import as_group, parse_group

    rng = np.random.default_rng(1)

    def rational(m, n):
        A = rng.integers(1, 9, size=(m, n))
        return [[str(Fraction(int(A[i, j]), int(A[:, j].sum()))) for j in range(n)]
                for i in range(m)]

    q8 = [[1, 4, 3, 6, 5, 0, 7, 2], [2, 7, 4, 1, 6, 3, 0, 5]]  # Q8, left multiplication
    q8x2 = as_group([[c * 8 + g[i] for c in range(2) for i in range(8)] for g in q8])
    out += [
        ("m > n (6 x 3)", rational(6, 3), (1, 4), "full", {}, {}),
        ("n = 1", rational(5, 1), (1, 1), "auto", {}, {}),
        ("Q8 on two copies", orbit_targets(q8x2, [f"{k}/136" for k in range(1, 17)]),
         (1, 4), "auto", {}, {}),
        ("PSL(2,7), solved group", orbit_targets(parse_group("PSL(2,7)"),
                                                 [f"{k}/36" for k in range(1, 9)]).exact_Y(),
         (1, 4), "auto", {}, {}),
    ]
    return out


def s9(quick: bool):
    from logitgeom.symmetry import orbit_targets, symmetric

    m = 7 if quick else 9
    y = ["1/2", "1/4", "1/8", "1/16", "1/32", "1/64", "1/128", "1/256", "1/256"][:m - 1]
    y.append(str(1 - sum(Fraction(x) for x in y)))
    T = orbit_targets(symmetric(m), y)
    t0 = time.process_time()
    sol = LayerPeeled(T, 1, 4).solve("orbit")  # the float Y of T is never built
    ts = time.process_time() - t0
    t0 = time.process_time()
    c = sol.certificate(orbit=True, claims=("simplex-etf",))
    te = time.process_time() - t0
    t0 = time.process_time()
    ok = check(c).ok
    tc = time.process_time() - t0
    return f"S_{m} orbit (orbit bracket)", T.shape, ts, te, tc, ok, c, len(dumps(c))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="S_7 instead of S_9")
    args = ap.parse_args()
    rows = []
    for name, Y, budgets, method, sopts, copts in instances():
        lp = LayerPeeled(Y, *budgets)
        t0 = time.process_time()
        sol = lp.solve(method, **sopts)
        ts = time.process_time() - t0
        t0 = time.process_time()
        c = sol.certificate(eps="1/100000000", **copts)
        te = time.process_time() - t0
        text = dumps(c)
        t0 = time.process_time()
        ok = check(json.loads(text)).ok
        tc = time.process_time() - t0
        rows.append((name, lp.shape, ts, te, tc, ok, c, len(text)))
    rows.append(s9(args.quick))
    print(f"{'instance':34s} {'m x n':>12s} {'solve s':>8s} {'emit s':>7s} {'check s':>8s} "
          f"{'rel. width':>10s} {'file kB':>8s}  ok")
    for name, shape, ts, te, tc, ok, c, size in rows:
        lo, up = Fraction(c["lower"]), Fraction(c["upper"])
        print(f"{name:34s} {f'{shape[0]} x {shape[1]}':>12s} {ts:8.3f} {te:7.3f} {tc:8.3f} "
              f"{float((up - lo) / up):10.1e} {size / 1000:8.1f}  {ok}")
    worst = max(r[4] for r in rows[:-1])
    widths = [(Fraction(r[6]["upper"]) - Fraction(r[6]["lower"])) / Fraction(r[6]["upper"])
              for r in rows]
    print(f"worst relative width {float(max(widths)):.2e} (goal <= 1e-9)")
    print(f"worst check {worst:.3f} s (goal <= 1 s), worst emit {max(r[3] for r in rows):.3f} s"
          f" (goal <= 5 s); peak RSS "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    return 0 if all(r[5] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
