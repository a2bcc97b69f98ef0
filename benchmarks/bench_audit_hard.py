"""Per-label benchmark of the argmax audit's hard labels (issue 30, "hard labels in seconds").

Builds (or reuses) the near-face head of ``bench_audit_faces.py`` (full-precision float32
normal rows; planted labels on edges and 5- and 10-row faces pushed out or in by 1e-5 or
1e-7, rounded to float32) and decides only the planted labels, one at a time, through the
block decider (``logitgeom.audit.decide.decide_block`` on a one-label block, the path every
audit takes), printing each label's CPU seconds by stage and its verdict:

* ``wolfe``: Wolfe's minimum-norm point (float proposals, pool growth, witness evaluation);
* ``solve``: the exact (FLINT) solve of the Gordan system on the float corral, including the
  exact basis repair when the float corral is wrong;
* ``check``: the exact integer check of the multipliers;
* ``lp``: the HiGHS cutting-plane fallback (and its evaluations), ``cplx`` the exact stage;
* ``total``: the whole one-label block (screens included).

    python benchmarks/bench_audit_hard.py                       # 20,000 x 768, 60 planted
    python benchmarks/bench_audit_hard.py --rows 2000 --cols 128 --planted 12   # quick
    python benchmarks/bench_audit_hard.py --kinds in-1e-07 --limit 3

CPU seconds (user + sys of this process); the machine is shared, wall times are not quoted.
"""

from __future__ import annotations

import argparse
import resource
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_audit_faces import build_head  # noqa: E402


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=20000)
    ap.add_argument("--cols", type=int, default=768)
    ap.add_argument("--planted", type=int, default=60)
    ap.add_argument("--recipe", choices=("faces", "triangles"), default="faces")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--kinds", default="", help="only planted kinds containing this text")
    ap.add_argument("--labels", default="", help="comma-separated labels (default: planted)")
    ap.add_argument("--limit", type=int, default=0, help="at most this many labels")
    ap.add_argument("--cache", default="/tmp/logitgeom-bench-faces")
    args = ap.parse_args(argv)

    from logitgeom.audit.decide import decide_block
    from logitgeom.audit.head import HeadSpec, open_head
    from logitgeom.audit.proofs import Options

    k, d = args.rows, args.cols
    model = Path(args.cache) / f"head-{k}x{d}-{args.recipe}{args.planted}-s{args.seed}"
    planted = build_head(model, k, d, args.planted, args.recipe, args.seed)
    spec = HeadSpec("safetensors", path=str(model / "model.safetensors"),
                    tensor="lm_head.weight")
    head = open_head(spec)
    opts = Options(center=tuple(head.mean().tolist()))
    labels = sorted(planted)
    if args.labels:
        labels = [int(v) for v in args.labels.split(",")]
    if args.kinds:
        labels = [lab for lab in labels if args.kinds in planted.get(lab, "")]
    if args.limit:
        labels = labels[:args.limit]
    print(f"head {k} x {d} float32 (full precision) at {model}; {len(labels)} labels "
          "(CPU s, shared machine)")
    cols = ("wolfe", "solve", "check", "lp", "cplx")
    print(f"{'label':>6} {'kind':<16} {'verdict':<10} {'stage':<9} {'rows':>5} {'digits':>6} "
          + " ".join(f"{c:>6}" for c in cols) + f" {'total':>7}")
    totals: list[float] = []
    by_stage = {c: 0.0 for c in cols}
    undecided = 0
    for lab in labels:
        c0 = _cpu()
        recs, st = decide_block(spec, (lab,), opts)
        t = _cpu() - c0
        rec = recs[0]["all"]
        fig = {"wolfe": st.get("wolfe", 0.0), "solve": st.get("gordan_solve", 0.0),
               "check": st.get("gordan_check", 0.0), "lp": st.get("lp", 0.0),
               "cplx": st.get("exact_lp", 0.0)}
        for c in cols:
            by_stage[c] += fig[c]
        totals.append(t)
        v = rec["verdict"]
        undecided += v == "undecided"
        nrows = len(rec.get("rows", ()))
        digits = max((len(m) for m in rec.get("multipliers", ())), default=0)
        print(f"{lab:>6} {planted.get(lab, '-'):<16} {v:<10} {rec.get('stage', ''):<9} "
              f"{nrows:>5} {digits:>6} " + " ".join(f"{fig[c]:>6.2f}" for c in cols)
              + f" {t:>7.2f}", flush=True)
    if totals:
        s = sorted(totals)
        print(f"{len(s)} labels: median {float(np.median(s)):.2f} CPU s, worst {s[-1]:.2f}, "
              f"sum {sum(s):.1f}; undecided {undecided}; by stage: "
              + ", ".join(f"{c} {by_stage[c]:.1f}" for c in cols))
    return 1 if undecided else 0


if __name__ == "__main__":
    sys.exit(main())
