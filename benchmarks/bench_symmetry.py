"""Benchmark of logitgeom.symmetry and the orbit reduction.

0. The goals side by side in one run (each case in its own subprocess, so its CPU seconds
   (``time.process_time``: all threads of that process) and peak RSS are its own; run it
   under ``nice``): cyclic m = 96 by the orbit path (<= 1 s CPU with CLARABEL), AGL(1,101)
   (<= 5 s), S_10 orbit target (3,628,800 columns; end to end <= 5 s CPU, <= 1 GB); and the
   block-diagonal (isotypic) program against the undecomposed one (one (m+1) LMI per
   column orbit) and against the full nuclear-norm program where it runs: values equal to
   1e-8 relative, the predicted Gram structure (symmetrised orbitals) held to 1e-12.

1. S_m orbit targets, m = 5..9 (n = m! up to 362,880 columns): the orbit method
   (build the reduced program, solve, rebuild the full Z) against the ETF closed form
   (C's "etf" reduction) and, where it finishes, the full program (split form; the joint
   (m+n) SDP with ``--joint``).  Goal: orbit <= 2 s at m = 9, values equal to 1e-6.
2. Wreath products S3 wr S3 (n = 1,296) and S4 wr S2 (n = 1,152): orbit vs full.
3. detect_symmetry on each App. F target.

Run:  .venv/bin/python benchmarks/bench_symmetry.py [--quick] [--no-full] [--joint]
      [--goals-only] [--s10]

All values are J(Z) computed on the full-size Z by the same function, so the methods are
compared on the original problem.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np
from scipy.special import logsumexp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from logitgeom.convex.problem import LayerPeeled  # noqa: E402
from logitgeom.convex.reductions import get_reduction  # noqa: E402
from logitgeom.convex.reductions.orbit import OrbitReduction, orbit_program  # noqa: E402
from logitgeom.convex.solvers import solve  # noqa: E402
from logitgeom.symmetry import detect_symmetry, orbit_targets, symmetric, wreath  # noqa: E402
from logitgeom.symmetry.examples import app_f_examples  # noqa: E402

E_W, E_H = 1.0, 4.0
ACCURATE = True  # the tolerance tiers LayerPeeled.solve uses


def J(Z: np.ndarray, Y: np.ndarray) -> float:
    return float(np.sum(logsumexp(Z, axis=0)) - np.sum(Y * Z))


def nuc(Z: np.ndarray) -> float:
    return float(np.linalg.svd(Z, compute_uv=False).sum())


def run_orbit(T, rho):
    t0 = time.perf_counter()
    red = orbit_program(T, rho, T.action)
    rep = solve(red.problem, accurate=ACCURATE)
    Z = OrbitReduction().invert(red)
    return Z, time.perf_counter() - t0, rep.solver, red.info


def run_etf(lp):
    t0 = time.perf_counter()
    red = get_reduction("etf")
    if not red.accepts(lp):
        return None, math.nan
    reduced = red.apply(lp)
    Z = red.invert(reduced)
    return Z, time.perf_counter() - t0


def run_full(lp, form):
    t0 = time.perf_counter()
    red = get_reduction("full")
    reduced = red.apply(lp, form=form)
    solve(reduced.problem, accurate=ACCURATE)
    Z = red.invert(reduced)
    return Z, time.perf_counter() - t0


def symmetric_section(ms, full_upto, joint):
    print("== S_m orbit targets: y_i = i / (m(m+1)/2) ==")
    print(f"{'m':>2} {'n':>7} {'build s':>8} {'orbit s':>8} {'e2e s':>6} {'etf s':>7} "
          f"{'J orbit':>14} {'rel vs etf':>10} {'full s':>8} {'rel vs full':>11}")
    for m in ms:
        y = [f"{k}/{m * (m + 1) // 2}" for k in range(1, m + 1)]
        t0 = time.perf_counter()
        T = orbit_targets(symmetric(m), y)
        build = time.perf_counter() - t0
        lp = LayerPeeled(T.Y, E_W, E_H)
        Zo, t_orbit, _, info = run_orbit(T, lp.rho)
        jo = J(Zo, T.Y)
        t0 = time.perf_counter()  # end to end: LayerPeeled.solve incl. exact check, recovery
        lp.solve("orbit", group=T.action)
        t_e2e = time.perf_counter() - t0
        Ze, t_etf = run_etf(lp)
        rel_e = abs(jo - J(Ze, T.Y)) / abs(J(Ze, T.Y)) if Ze is not None else math.nan
        t_full, rel_f = math.nan, math.nan
        if m <= full_upto:
            Zf, t_full = run_full(lp, "joint" if joint else "split")
            rel_f = abs(jo - J(Zf, T.Y)) / abs(J(Zf, T.Y))
        print(f"{m:>2} {T.Y.shape[1]:>7} {build:8.3f} {t_orbit:8.3f} {t_e2e:6.2f} {t_etf:7.3f} "
              f"{jo:14.6f} "
              f"{rel_e:10.2e} {t_full:8.2f} {rel_f:11.2e}   (||Z||_*={nuc(Zo):.6f}, "
              f"rho={lp.rho}, blocks={info['isotypic_blocks']})")


def wreath_section(full: bool):
    print("== wreath products: orbit vs full (split form) ==")
    cases = [
        ("S3 wr S3", wreath(symmetric(3), symmetric(3)),
         ["1/12", "1/4", "1/6", "0", "1/6", "1/12", "1/24", "1/8", "1/12"]),
        ("S4 wr S2", wreath(symmetric(4), symmetric(2)),
         ["1/12", "1/4", "1/6", "0", "1/6", "1/12", "1/8", "1/8"]),
    ]
    for name, G, y in cases:
        T = orbit_targets(G, y)
        lp = LayerPeeled(T.Y, E_W, E_H)
        Zo, t_orbit, _, info = run_orbit(T, lp.rho)
        jo = J(Zo, T.Y)
        line = (f"{name}: m={G.m} n={T.Y.shape[1]} orbit {t_orbit:.3f} s J={jo:.8f} "
                f"(blocks={info['isotypic_blocks']}, orbitals={info['orbitals']})")
        if full:
            Zf, t_full = run_full(lp, "split")
            jf = J(Zf, T.Y)
            line += f"; full {t_full:.2f} s J={jf:.8f} rel diff {abs(jo - jf) / abs(jf):.2e}"
        print(line)


def detection_section():
    print("== detect_symmetry on the App. F targets ==")
    for name, ex in app_f_examples().items():
        T = orbit_targets(ex.group, ex.y)
        Y = T.exact_Y()
        t0 = time.perf_counter()
        r = detect_symmetry(Y)
        dt = time.perf_counter() - t0
        print(f"{name:22s} {T.Y.shape[0]}x{T.Y.shape[1]:<3} |G|={ex.group.order:<3} "
              f"row order={r.row_order:<3} full order={r.order:<14} {dt:6.3f} s")
    for name, G, y in [("S6 orbit", symmetric(6), [f"{k}/21" for k in range(1, 7)]),
                       ("S3 wr S3 orbit", wreath(symmetric(3), symmetric(3)),
                        ["1/12", "1/4", "1/6", "0", "1/6", "1/12", "1/24", "1/8", "1/12"])]:
        T = orbit_targets(G, y)
        t0 = time.perf_counter()
        r = detect_symmetry(T.Y)
        dt = time.perf_counter() - t0
        print(f"{name:22s} {T.Y.shape[0]}x{T.Y.shape[1]:<5} |G|={G.order:<5} "
              f"row order={r.row_order:<5} full order={r.order:<10} {dt:6.3f} s")


GOAL_CASES = ("cyclic96", "agl101", "s10")


def _goal_case(name: str, blocks: str = "auto") -> None:
    """One goal case, end to end: build the target, LayerPeeled, solve by the orbit path
    (block-diagonal unless blocks="none"), recover W, H, Grams and the dual bound.  Prints
    one line: name, wall s, CPU s, loss, gap, largest block."""
    import resource

    from logitgeom.symmetry import affine_line, cyclic

    t0, c0 = time.perf_counter(), time.process_time()
    rng = np.random.default_rng(0)
    if name == "s10":
        T = orbit_targets(symmetric(10), [f"{k}/55" for k in range(1, 11)])
    else:
        G = cyclic(96) if name == "cyclic96" else affine_line(101)
        y = rng.dirichlet(np.ones(G.m))
        y[-1] = 0.0
        T = orbit_targets(G, [float(v) for v in y / y.sum()], check_probability=False)
    lp = LayerPeeled(T, E_W, E_H)  # an OrbitTargets brings its group: no search
    sol = lp.solve("orbit", solver="CLARABEL", blocks=blocks)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{name} {blocks} {T.Y.shape[1]} {wall:.3f} {cpu:.3f} {rss:.0f} {sol.loss:.12g} "
          f"{sol.gap:.3g} {sol.info.get('largest_block', sol.info.get('lmi_size'))}")


def _run_case(name: str, blocks: str = "auto", timeout: float = 600) -> list[str]:
    import subprocess

    cmd = [sys.executable, str(Path(__file__).resolve()), "--case", name, "--blocks", blocks]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                             check=True).stdout.split()
    except subprocess.TimeoutExpired:
        return [name, blocks, "-", f">{timeout:.0f}", "-", "-", "timeout", "-", "-"]
    return out


def goals_section(s10: bool, undecomposed: bool):
    print("== goals: orbit path end to end (LayerPeeled(T).solve('orbit'), CLARABEL; "
          "each case in its own process; RSS = peak of that process) ==")
    print(f"{'case':9s} {'blocks':6s} {'n':>8} {'wall s':>8} {'cpu s':>8} {'RSS MB':>7} "
          f"{'loss':>20} {'gap':>9} {'block':>5}")
    for name in GOAL_CASES:
        if name == "s10" and not s10:
            continue
        runs = ["auto"] + (["none"] if undecomposed and name != "s10" else [])
        for blocks in runs:
            r = _run_case(name, blocks, timeout=150 if blocks == "none" else 600)
            print(f"{r[0]:9s} {r[1]:6s} {r[2]:>8} {r[3]:>8} {r[4]:>8} {r[5]:>7} {r[6]:>20} "
                  f"{r[7]:>9} {r[8]:>5}", flush=True)


def agreement_section():
    """Block-diagonal program vs the full nuclear-norm program (and the undecomposed orbit
    program), on small instances; and the predicted Gram structure on the reduced solution."""
    from logitgeom.symmetry import as_group, frobenius, parse_group, predicted_gram_structure

    print("== block-diagonal orbit program vs the full program (solve(\"full\")), same solver ==")
    print(f"{'group':10s} {'m':>3} {'n':>5} {'blocks':>22} {'orbit s':>8} {'full s':>8} "
          f"{'rel vs full':>11} {'rel vs none':>11} {'Gram dev':>9}")
    cases = [
        ("C12", as_group([[(i + 1) % 12 for i in range(12)]])),
        ("D5", as_group([[(i + 1) % 5 for i in range(5)], [(-i) % 5 for i in range(5)]])),
        ("A4", as_group([[1, 2, 0, 3], [1, 0, 3, 2]])),
        ("F21", frobenius(7, 3)),
        ("V4", as_group([[1, 0, 3, 2], [2, 3, 0, 1]])),
        ("S2wrS2", parse_group("S2wrS2")),
        ("S2+S3", parse_group("S2+S3")),
        ("S3wrS2", parse_group("S3wrS2")),
        ("S5", symmetric(5)),
    ]
    rng = np.random.default_rng(1)
    for name, G in cases:
        y = rng.dirichlet(np.ones(G.m))
        y[-1] = 0.0
        T = orbit_targets(G, [float(v) for v in y / y.sum()], check_probability=False)
        lp = LayerPeeled(T.Y, E_W, E_H)
        t0 = time.perf_counter()
        red = lp.solve("orbit", group=G)
        t_red = time.perf_counter() - t0
        none = lp.solve("orbit", group=G, blocks="none")
        t0 = time.perf_counter()
        full = lp.solve("full")  # the full nuclear-norm program (joint or split form by shape)
        t_full = time.perf_counter() - t0
        dev = predicted_gram_structure(G).check(red.WWt).relative
        blocks = ",".join(f"{k}x{d}{'' if kd == 'real' else kd[0]}"
                          for d, k, kd in red.info["isotypic_blocks"])
        print(f"{name:10s} {G.m:3d} {T.Y.shape[1]:5d} {blocks[:22]:>22} {t_red:8.3f} "
              f"{t_full:8.3f} {abs(red.loss - full.loss) / abs(full.loss):11.1e} "
              f"{abs(red.loss - none.loss) / abs(none.loss):11.1e} {dev:9.1e}", flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="m = 5..7 only, no wreath full")
    ap.add_argument("--no-full", action="store_true", help="skip every full program")
    ap.add_argument("--joint", action="store_true",
                    help="use the joint (m+n) SDP for the full S_5 program (slow: minutes, GBs)")
    ap.add_argument("--goals-only", action="store_true", help="only sections 0 (goals, "
                    "agreement)")
    ap.add_argument("--s10", action="store_true", help="include S_10 (3.6 M columns; GBs)")
    ap.add_argument("--case", choices=GOAL_CASES, help=argparse.SUPPRESS)
    ap.add_argument("--blocks", default="auto", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.case:
        _goal_case(args.case, args.blocks)
        return 0
    goals_section(args.s10, undecomposed=not args.quick)
    agreement_section()
    if args.goals_only:
        return 0
    ms = range(5, 8) if args.quick else range(5, 10)
    symmetric_section(ms, 0 if args.no_full else (5 if args.joint else 6), args.joint)
    wreath_section(full=not (args.no_full or args.quick))
    detection_section()
    return 0


if __name__ == "__main__":
    sys.exit(main())
