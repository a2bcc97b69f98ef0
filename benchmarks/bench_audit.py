"""Benchmark of the argmax audit on synthetic LM heads with planted unargmaxable labels.

Builds (once, cached in --cache) a memory-mappable ``model.safetensors`` holding a float32
head of the requested shape: Gaussian rows on a 2^-12 grid (so the planted combinations are
exact in float32) with planted labels that are never the argmax:

* midpoints w_k = (w_a + w_b) / 2 (Gordan support 2);
* averages w_k = (w_a + w_b + w_c + w_d) / 4 (support 4);
* shrunken rows w_k = w_a / 32 (deep inside the hull; support up to d + 1; three of them).

Then runs ``audit_argmax`` on the model folder (all labels, or ``--fraction`` of them, always
including the planted ones) and reports wall and CPU time, time per label by stage, peak RSS,
the verdict counts, whether every planted label was found, and checks the certificates of
the planted labels and of a random sample with the stdlib checker.

    python benchmarks/bench_audit.py --rows 50257 --cols 768 [--fraction 0.1] [--workers N]
    python benchmarks/bench_audit.py --rows 32000 --cols 4096 --fraction 0.02

The machine is shared: CPU time is the fairer figure.  With --fraction < 1 the totals are
extrapolated linearly in the number of labels (the per-label work is independent).
"""

from __future__ import annotations

import argparse
import json
import resource
import struct
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


#: Deep-interior planted labels (each costs an LP on ~d rows and an exact d+1 solve).
N_SHRUNKEN = 3


def build_head(path: Path, k: int, d: int, seed: int = 0) -> dict:
    """Write model.safetensors with planted labels; return {label: kind}."""
    rng = np.random.default_rng(seed)
    meta_path = path / "planted.json"
    if (path / "model.safetensors").exists() and meta_path.exists():
        return {int(a): b for a, b in json.loads(meta_path.read_text()).items()}
    path.mkdir(parents=True, exist_ok=True)
    W = np.empty((k, d), dtype=np.float32)
    step = 1 << 20
    for r0 in range(0, k, step):
        r1 = min(k, r0 + step)
        W[r0:r1] = np.round(rng.standard_normal((r1 - r0, d)) * 4096.0) / 4096.0
    n_plant = max(4, min(40, k // 1000))
    labels = rng.choice(k, size=2 * n_plant + N_SHRUNKEN, replace=False)
    planted: dict[int, str] = {}
    pool = np.setdiff1d(np.arange(k), labels)
    for n, lab in enumerate(labels.tolist()):
        src = rng.choice(pool, size=4, replace=False)
        if n >= 2 * n_plant:
            W[lab] = W[src[0]] / np.float32(32)
            planted[lab] = "shrunken"
        elif n % 2 == 0:
            W[lab] = (W[src[0]] + W[src[1]]) / np.float32(2)
            planted[lab] = "midpoint"
        else:
            W[lab] = (W[src[0]] + W[src[1]] + W[src[2]] + W[src[3]]) / np.float32(4)
            planted[lab] = "average"
    header = {"lm_head.weight": {"dtype": "F32", "shape": [k, d],
                                 "data_offsets": [0, k * d * 4]}}
    hb = json.dumps(header).encode()
    hb += b" " * (-len(hb) % 8)
    with open(path / "model.safetensors", "wb") as fh:
        fh.write(struct.pack("<Q", len(hb)))
        fh.write(hb)
        fh.write(np.ascontiguousarray(W).tobytes())
    meta_path.write_text(json.dumps({str(a): b for a, b in sorted(planted.items())}))
    return planted


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=50257)
    ap.add_argument("--cols", type=int, default=768)
    ap.add_argument("--fraction", type=float, default=1.0,
                    help="audit this fraction of the labels (planted ones always included)")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--block", type=int, default=256)
    ap.add_argument("--cache", default="/tmp/logitgeom-bench-audit")
    ap.add_argument("--check-sample", type=int, default=3,
                    help="random non-planted labels whose proofs the stdlib checker re-checks")
    args = ap.parse_args(argv)

    from certificates import check_audit
    from engine.audit import audit_argmax
    from engine.run.executor import make_executor

    k, d = args.rows, args.cols
    model = Path(args.cache) / f"head-{k}x{d}"
    t0 = time.perf_counter()
    planted = build_head(model, k, d)
    print(f"head {k} x {d} float32 at {model} ({len(planted)} planted) "
          f"[{time.perf_counter() - t0:.1f} s to build/load]")
    rng = np.random.default_rng(1)
    if args.fraction < 1.0:
        n = max(1, int(round(args.fraction * k)))
        chosen = set(rng.choice(k, size=n, replace=False).tolist()) | set(planted)
        tokens = sorted(chosen)
    else:
        tokens = None
    out = Path(args.cache) / f"out-{k}x{d}-{args.fraction}"
    if out.exists():
        import shutil

        shutil.rmtree(out)
    ex = make_executor(workers=args.workers)
    c0 = time.process_time()
    w0 = time.perf_counter()
    try:
        res = audit_argmax(model, tokens=tokens, out=out, executor=ex, progress=True,
                           block_size=args.block)
    finally:
        if ex is not None:
            ex.shutdown()
    wall = time.perf_counter() - w0
    cpu = time.process_time() - c0
    rss_self = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    rss_children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    n_lab = len(res.labels)
    print("\n".join(res.summary()))
    never = set(res.never())
    found = all(lab in never for lab, kind in planted.items() if kind != "shrunken")
    print(f"planted midpoints/averages all found never-argmax: {found}; shrunken rows never: "
          f"{sum(1 for lab, kind in planted.items() if kind == 'shrunken' and lab in never)}/"
          f"{sum(1 for kind in planted.values() if kind == 'shrunken')}")
    others_never = sorted(never - set(planted))
    print(f"non-planted labels proven never: {others_never[:20]}")
    print(f"labels audited: {n_lab}; wall {wall:.1f} s, CPU (this process) {cpu:.1f} s; "
          f"peak RSS {rss_self:.0f} MB (workers {rss_children:.0f} MB)")
    per = {key: v / n_lab * 1e3 for key, v in res.stage_seconds.items() if key != "exact_pairs"}
    print("ms per label by stage: " + ", ".join(f"{key} {v:.2f}" for key, v in sorted(per.items())))
    print(f"pairs decided in exact arithmetic: {res.stage_seconds.get('exact_pairs', 0)}")
    if n_lab < k:
        scale = k / n_lab
        screened = n_lab - len(planted)
        print(f"extrapolated to all {k} labels (linear in labels, planted labels counted once): "
              f"~{(wall * screened / n_lab) * k / max(screened, 1) / 60:.1f} min wall, "
              f"~{cpu * scale / 60:.1f} min CPU upper bound")
    # stdlib checker on the planted labels and a sample
    sample = set(rng.choice(list(set(res.labels) - set(planted)),
                            size=min(args.check_sample, n_lab - len(planted)),
                            replace=False).tolist())
    only = frozenset(set(planted) | sample)
    t1 = time.perf_counter()
    v = check_audit.check_file(out / "audit.json", labels=only)
    print(f"stdlib checker on {len(only)} labels' proofs (+ structure/counts of all): {v} "
          f"[{time.perf_counter() - t1:.1f} s]")
    return 0 if v.ok and found else 1


if __name__ == "__main__":
    sys.exit(main())
