"""CPU per never label of a cluster of under-trained rows, shared supports against alone
(issue 44, item 2).

Builds a float32 head of normal rows (scaled as a trained head's, 1/sqrt(d)) with a cluster
of ``--cluster`` rows: one common vector (``--depth`` times the rows' typical norm, inside
the hull of the others) plus ``--noise`` relative full-precision noise, rounded to float32.
Audits only the cluster's labels (every row of the head competes), once with shared
supports (``shared_supports=True``) and once with ``shared_supports=False``, each into
its own folder, and prints per run: the verdicts, how many proofs are shared, the CPU
seconds per never label (each label's CPU as the audit reports it, a batch's CPU split
evenly over its labels; and the whole run's CPU, this process and its children), the proof
bytes per never label and the stdlib checker's CPU per never label on the written
certificate.

    python benchmarks/bench_audit_shared.py                               # 2,000 x 256, 32
    python benchmarks/bench_audit_shared.py --rows 1000 --cols 128 --cluster 16    # quick
    python benchmarks/bench_audit_shared.py --rows 32000 --cols 4096 --cluster 256  # issue

CPU seconds (user + sys); the machine is shared, wall times are not quoted.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _cpu() -> float:
    s = resource.getrusage(resource.RUSAGE_SELF)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


def cluster_head(rows: int, cols: int, cluster: int, depth: float, noise: float, seed: int):
    """(W float32, the cluster's labels): normal rows / sqrt(d); the cluster's rows replace
    ``cluster`` random rows."""
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((rows, cols)) / np.sqrt(cols)
    labs = np.sort(rng.choice(rows, size=cluster, replace=False))
    v = rng.standard_normal(cols)
    v *= depth / np.linalg.norm(v)  # the rows' norms are about 1
    W[labs] = v + noise * depth * rng.standard_normal((cluster, cols)) / np.sqrt(cols)
    return W.astype(np.float32), [int(k) for k in labs]


def _run(W, labs, shared: bool, out: Path) -> dict:
    from logitgeom.audit import Options, audit_argmax
    from logitgeom_certificates.check_audit import check_file

    c0 = _cpu()
    r = audit_argmax(W, tokens=labs, out=out, progress=False,
                     options=Options(shared_supports=shared))
    cpu = _cpu() - c0
    recs = [json.loads(line) for f in sorted((out / "shards").glob("*.jsonl"))
            for line in f.read_text().splitlines()]
    never = [x for x in recs if x["all"]["verdict"] == "never"]
    nbytes = sum(len(json.dumps(x["all"])) for x in never)
    c0 = time.process_time()
    v = check_file(out / "audit.json", max_work=None)  # every proof, no work budget
    ok = v.ok or f"{getattr(v, 'failed_check', '?')}: {getattr(v, 'message', v)}"
    check_cpu = time.process_time() - c0
    n = max(1, len(never))
    return {"verdicts": r.verdicts["all"], "never": len(never),
            "shared": sum(1 for x in never if x["all"]["stage"] == "shared"),
            "label_cpu": sum(r.label_cpu.get(k, 0.0) for k in labs) / n,
            "search": r.stage_seconds.get("shared_prefilter", 0.0) / n,
            "run_cpu": cpu / n, "bytes": nbytes / n, "check": check_cpu / n, "ok": ok,
            "stages": {k: round(v, 2) for k, v in r.stage_seconds.items()
                       if k.startswith("shared") or k in ("wolfe", "gordan", "gordan_solve",
                                                          "gordan_check", "lp", "exact")}}


def _search(W, labs) -> int:
    from logitgeom.audit.head import HeadSpec, open_head
    from logitgeom.audit.shared import SupportPool, cluster_supports

    h = open_head(HeadSpec.from_array(W))
    c0 = time.process_time()
    found = list(cluster_supports(h, labs[0], (), labs[1:]))[1:]
    cpu = time.process_time() - c0
    held = []
    for rows in found:
        pool = SupportPool()
        pool.add(h, rows)
        held.append(sum(len(ls) for _, ls in pool.candidates(h, labs)))
    print(f"support search: {cpu:.1f} CPU s, {len(found)} supports holding {held} of the "
          f"{len(labs)} labels (a support is kept when it holds at least 4)")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=2000)
    ap.add_argument("--cols", type=int, default=256)
    ap.add_argument("--cluster", type=int, default=32)
    ap.add_argument("--depth", type=float, default=0.05,
                    help="the common vector's norm (the rows' norms are about 1)")
    ap.add_argument("--noise", type=float, default=1e-3, help="relative noise of the cluster")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", choices=("shared", "alone"), default=None,
                    help="run one of the two audits only")
    ap.add_argument("--search-only", action="store_true",
                    help="only the float support search for the cluster (no audit): its CPU "
                         "and how many of the cluster's labels each support holds")
    args = ap.parse_args(argv)

    W, labs = cluster_head(args.rows, args.cols, args.cluster, args.depth, args.noise,
                           args.seed)
    print(f"head {args.rows} x {args.cols} float32, cluster of {len(labs)} rows "
          f"(depth {args.depth}, noise {args.noise:g})")
    if args.search_only:
        return _search(W, labs)
    tmp = Path(tempfile.mkdtemp(prefix="bench-audit-shared-"))
    try:
        res = {}
        for name, shared in (("shared", True), ("alone", False)):
            if args.only not in (None, name):
                continue
            res[name] = v = _run(W, labs, shared, tmp / name)
            print(f"{name:7s} never {v['never']}/{len(labs)} (shared proofs {v['shared']}), "
                  f"CPU s per never label {v['label_cpu']:.3f} (+ {v['search']:.3f} of the "
                  f"parent's support search; whole run {v['run_cpu']:.3f}), "
                  f"proof bytes per never label {v['bytes']:.0f}, checker CPU s per never "
                  f"label {v['check']:.3f}, certificate checks {v['ok']}")
            print(f"        stage seconds {v['stages']}")
        if len(res) == 2:
            same = res["shared"]["verdicts"] == res["alone"]["verdicts"]
            sh = res["shared"]["label_cpu"] + res["shared"]["search"]
            ratio = res["alone"]["label_cpu"] / max(sh, 1e-9)
            rr = res["alone"]["run_cpu"] / max(res["shared"]["run_cpu"], 1e-9)
            print(f"same verdicts {same}; alone / shared CPU per never label (search "
                  f"included) {ratio:.1f}x "
                  f"(whole runs {rr:.1f}x)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
