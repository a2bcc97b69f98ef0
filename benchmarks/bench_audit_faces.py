"""Benchmark of the argmax audit on full-precision float32 heads with near-face labels.

The head (cached in --cache as ``model.safetensors``) has standard-normal float32 rows at
full precision (every mantissa bit used, never on a grid) and planted labels of two
recipes, each placed on a point p of the convex hull of other rows and then rounded to
float32:

* ``faces``: p a random convex combination of 2 (an edge), 5 or 10 other rows, pushed out
  (p (1 + e)) or in (p (1 - e)) by a relative e of 1e-5 or 1e-7 (the rows are centred at
  the origin, which is inside the hull, so "out" leaves the face's hull and "in" goes
  inside it); 12 kinds, --planted labels spread over them in turn;
* ``triangles``: p a random convex combination of 3 other rows (no push; the rounding to
  float32 alone moves it off the triangle).

No verdict is expected in advance: every label must be *decided* and its proof must check.

    python benchmarks/bench_audit_faces.py --rows 20000 --cols 768 --planted 60
    python benchmarks/bench_audit_faces.py --rows 20000 --cols 768 --planted 60 --workers 2
    python benchmarks/bench_audit_faces.py --rows 50257 --cols 768 --recipe triangles \
        --planted 200
    python benchmarks/bench_audit_faces.py --rows 2000 --cols 64 --planted 12   # quick

Prints the CPU seconds of the whole run (this process and its workers, user + sys), each
planted label's CPU seconds (median and worst), the verdict counts, peak RSS, and checks
the certificate with the stdlib checker (every never-proof, --check-witnesses witnesses).
The machine is shared: CPU seconds are the figures to quote, wall times are inflated.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

import numpy as np
from bench_audit import write_safetensors_head  # the same file layout as the grid benchmark

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

#: The near-face kinds: (face size, direction, relative push).
FACE_KINDS = [(m, sgn, e) for m in (2, 5, 10) for sgn in (1, -1) for e in (1e-5, 1e-7)]


def build_head(path: Path, k: int, d: int, n_planted: int, recipe: str, seed: int = 0
               ) -> dict[int, str]:
    """Write ``model.safetensors`` (tensor ``lm_head.weight``) and ``planted.json``; return
    {label: kind}."""
    meta = path / "planted.json"
    if (path / "model.safetensors").exists() and meta.exists():
        return {int(a): b for a, b in json.loads(meta.read_text()).items()}
    path.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((k, d), dtype=np.float32)
    labels = rng.choice(k, size=n_planted, replace=False)
    pool = np.setdiff1d(np.arange(k), labels)
    planted: dict[int, str] = {}
    for n, lab in enumerate(labels.tolist()):
        if recipe == "triangles":
            src = rng.choice(pool, size=3, replace=False)
            p = rng.dirichlet(np.ones(3)) @ W[src].astype(np.float64)
            planted[lab] = "triangle"
        else:
            m, sgn, e = FACE_KINDS[n % len(FACE_KINDS)]
            src = rng.choice(pool, size=m, replace=False)
            p = rng.dirichlet(np.ones(m)) @ W[src].astype(np.float64)
            p = p * (1.0 + sgn * e)
            planted[lab] = f"face{m}-{'out' if sgn > 0 else 'in'}-{e:g}"
        W[lab] = p.astype(np.float32)
    write_safetensors_head(path / "model.safetensors", W)
    meta.write_text(json.dumps({str(a): b for a, b in sorted(planted.items())}))
    return planted


def _cpu() -> float:
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=20000)
    ap.add_argument("--cols", type=int, default=768)
    ap.add_argument("--planted", type=int, default=60)
    ap.add_argument("--recipe", choices=("faces", "triangles"), default="faces")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--scheduler", default=None,
                    help="a Dask scheduler address, or 'local' (a LocalCluster of --workers)")
    ap.add_argument("--block", type=int, default=256)
    ap.add_argument("--only-planted", action="store_true",
                    help="audit the planted labels only (the per-label figures)")
    ap.add_argument("--check-witnesses", type=int, default=4,
                    help="witnesses the stdlib checker re-checks (every never-proof always)")
    ap.add_argument("--cache", default="/tmp/logitgeom-bench-faces")
    args = ap.parse_args(argv)

    from logitgeom.audit import audit_argmax
    from logitgeom.run.executor import close_executor, make_executor
    from logitgeom_certificates import check_audit

    k, d = args.rows, args.cols
    model = Path(args.cache) / f"head-{k}x{d}-{args.recipe}{args.planted}-s{args.seed}"
    planted = build_head(model, k, d, args.planted, args.recipe, args.seed)
    print(f"head {k} x {d} float32 (full precision) at {model}: {len(planted)} planted "
          f"({args.recipe})")
    out = Path(args.cache) / f"out-{k}x{d}-{args.recipe}{args.planted}-w{args.workers}" \
                             f"{'-p' if args.only_planted else ''}"
    if out.exists():
        import shutil

        shutil.rmtree(out)
    ex = make_executor(workers=args.workers, scheduler=args.scheduler)
    c0, w0 = _cpu(), time.perf_counter()
    try:
        res = audit_argmax(model, tokens=sorted(planted) if args.only_planted else None,
                           out=out, executor=ex, progress=False, block_size=args.block)
    finally:
        close_executor(ex)
    cpu, wall = _cpu() - c0, time.perf_counter() - w0
    print("\n".join(res.summary()))
    per = res.label_cpu
    hard = sorted(float(per[lab]) for lab in planted if lab in per)
    if hard:
        print(f"planted labels' CPU s (decide): median {float(np.median(hard)):.2f}, worst "
              f"{hard[-1]:.2f}, sum {sum(hard):.1f} over {len(hard)} past the screens "
              f"({len(planted) - len(hard)} planted labels decided by the screens)")
    slow = sorted(per.items(), key=lambda kv: -kv[1])[:5]
    print("slowest labels: " + ", ".join(f"{lab} ({planted.get(lab, 'ordinary')}, "
                                         f"{res.verdicts['all'][lab]}) {v:.1f} s"
                                         for lab, v in slow))
    (Path(args.cache) / f"{out.name}-label-cpu.json").write_text(json.dumps(
        {str(lab): [planted.get(lab), res.verdicts["all"][lab], round(v, 3)]
         for lab, v in sorted(per.items())}, indent=0))
    others = sorted(float(v) for lab, v in per.items() if lab not in planted)
    if others:
        print(f"other labels past the screens: {len(others)}, CPU s median "
              f"{float(np.median(others)):.2f}, worst {others[-1]:.2f}, sum {sum(others):.1f}")
    kinds: dict[str, list[str]] = {}
    for lab, kind in planted.items():
        kinds.setdefault(kind, []).append(res.verdicts["all"][lab])
    for kind, vs in sorted(kinds.items()):
        print(f"  {kind}: " + ", ".join(f"{vs.count(v)} {v}" for v in sorted(set(vs))))
    und = res.undecided()
    print(f"undecided: {len(und)}; stage CPU s: " + ", ".join(
        f"{key} {v:.1f}" for key, v in sorted(res.stage_seconds.items())
        if isinstance(v, float)))
    print(f"whole run: CPU {cpu:.1f} s ({cpu / 60:.2f} CPU-min, user+sys incl. workers), "
          f"wall {wall:.1f} s (shared machine), workers {args.workers}"
          f"{'' if args.scheduler is None else ', dask ' + args.scheduler}")
    print(f"self-check in the run: {res.checked}")
    rss = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
              resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024
    print(f"peak RSS {rss:.0f} MB (largest process)")
    rng = np.random.default_rng(1)
    wit = [lab for lab in res.labels if res.verdicts["all"][lab] == "argmaxable"]
    pick = set(rng.choice(wit, size=min(args.check_witnesses, len(wit)),
                          replace=False).tolist()) if wit else set()
    pick |= set(res.never())
    t1 = time.process_time()
    v = check_audit.check_file(out / "audit.json", labels=pick)
    nn = len(res.never())
    print(f"stdlib checker: every never-proof ({nn}) and {len(pick) - nn} witnesses: "
          f"{v.ok} {v.failed_check or ''} [{time.process_time() - t1:.1f} CPU s]")
    return 0 if v.ok and not und else 1


if __name__ == "__main__":
    sys.exit(main())
