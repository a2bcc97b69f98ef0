"""Issue 44's cluster run: under-trained rows, proven never argmax alone and with shared supports.

The head (float32, cached in --cache) has the rows of ``bench_audit_vocab.py`` (standard
normal times ``exp(sigma z) / sqrt(d)``, computed in float64, rounded once) and ``--cluster``
under-trained rows (default 256) at random labels: a common vector

    c = (1 - a) m + a q,

``m`` the mean of the other rows and ``q`` a random convex combination (Dirichlet(1)) of
``--mix`` of them (default 16), ``a = --scale`` (default 0.5), all read back as stored and
in float64 (so ``c`` lies inside the hull of the other rows, away from its boundary), plus
for each cluster row its own full-precision noise ``--noise |c| g / sqrt(d)`` (``g``
standard normal; relative 1e-3 by default), then rounded to float32.  Each cluster row is
then expected never argmax (no verdict is assumed: every label must be decided), and its
proof needs a Gordan support of about d + 1 rows, the same few for every cluster row.

The cluster labels are audited twice (``--runs``): **alone**, every never-proof found and
solved on its own (``Options(shared_supports=False)``, the audit's default), and **shared**,
labels whose proofs can use one support proven together (``Options(shared_supports=True)``,
CLI ``--shared-supports``).  A logitgeom without ``Options.shared_supports`` is told apart
with a clear message: the alone run then uses the default path (each label alone) and the
shared run is skipped.  ``--all-labels``
audits every label of the head instead (the acceptance run).

For each run: the verdicts, undecided count, the run's CPU seconds (this process and its
children) and per never label (the audit's own per-label CPU, and the run's CPU over the
never labels: a shared support's cost is not any one label's), each never-proof's bytes
(its multipliers' text, plus any file it shares, counted once and spread over the labels),
peak RSS, and the stdlib checker's CPU on every never-proof (``python -m
logitgeom_certificates.check_audit audit.json --labels ...``, less a structure-only check:
the per-label check CPU); then the ratios alone / shared per label.

    python benchmarks/bench_audit_cluster.py --rows 32000 --cols 4096   # acceptance shape
    python benchmarks/bench_audit_cluster.py --rows 4000 --cols 256 --cluster 64
    python benchmarks/bench_audit_cluster.py --rows 1000 --cols 32 --cluster 16 --runs alone

``--cpu-limit`` and ``--max-rss-mb`` stop a run as in ``bench_audit_vocab.py`` (stacks
printed).  CPU seconds are the figures to quote; the machine is shared.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_audit_vocab import (  # noqa: E402
    add_limit_options,
    fill_rows,
    head_file,
    install_limits,
    peak_rss_mb,
    pool_mean,
    proof_stats,
    reset_peak_rss,
    run_audit,
    shared_bytes,
    stdlib_check,
    to_stored,
    widen,
)


def build_cluster_head(path: Path, k: int, d: int, n_cluster: int, mix: int, scale: float,
                       noise: float, sigma: float, seed: int) -> list[int]:
    """Write (once) a float32 ``model.safetensors`` with a cluster of under-trained rows and
    ``cluster.json``; return the cluster labels."""
    meta = path / "cluster.json"
    if (path / "model.safetensors").exists() and meta.exists():
        return [int(v) for v in json.loads(meta.read_text())]
    path.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    part = path / "model.safetensors.part"
    mm = head_file(part, k, d, "float32")
    fill_rows(mm, k, d, "float32", rng, sigma)
    labels = np.sort(rng.choice(k, size=n_cluster, replace=False))
    pool = np.setdiff1d(np.arange(k), labels)
    m = pool_mean(mm, pool, "float32")
    src = np.sort(rng.choice(pool, size=mix, replace=False))
    q = rng.dirichlet(np.ones(mix)) @ widen(mm[src], "float32")
    c = (1.0 - scale) * m + scale * q
    rows = c + rng.standard_normal((n_cluster, d)) * (noise * np.linalg.norm(c) / np.sqrt(d))
    mm[labels] = to_stored(rows, "float32")
    mm.flush()
    del mm
    part.rename(path / "model.safetensors")
    meta.write_text(json.dumps(labels.tolist()))
    return labels.tolist()


def has_shared_option() -> bool:
    """Whether this logitgeom's audit Options has ``shared_supports``."""
    from logitgeom.audit.proofs import Options

    return "shared_supports" in {f.name for f in dataclasses.fields(Options)}


def structure_check_cpu(out: Path) -> float:
    """CPU s of a stdlib check of the certificate that re-checks no proof (structure,
    hashes, counts of every record): the part of a check that is not any label's."""
    code = ("import sys\nfrom logitgeom_certificates import check_audit\n"
            "v = check_audit.check_file(sys.argv[1], labels=set())\n"
            "sys.exit(0 if v.ok else 1)\n")
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    c0 = c.ru_utime + c.ru_stime
    subprocess.run([sys.executable, "-c", code, str(out / "audit.json")], check=False,
                   capture_output=True)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return c.ru_utime + c.ru_stime - c0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=32000, help="labels (default 32,000)")
    ap.add_argument("--cols", type=int, default=4096, help="width d (default 4,096)")
    ap.add_argument("--cluster", type=int, default=256, help="under-trained rows (default 256)")
    ap.add_argument("--mix", type=int, default=16,
                    help="rows in the convex combination q of the common vector (default 16)")
    ap.add_argument("--scale", type=float, default=0.5,
                    help="a in c = (1 - a) mean + a q (default 0.5)")
    ap.add_argument("--noise", type=float, default=1e-3,
                    help="relative noise of each cluster row (default 1e-3)")
    ap.add_argument("--norm-sigma", type=float, default=0.15)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--runs", default="alone,shared", help="alone, shared or both (default)")
    ap.add_argument("--all-labels", action="store_true",
                    help="audit every label of the head (default: the cluster labels)")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--block", type=int, default=256)
    add_limit_options(ap)
    ap.add_argument("--cache", default="/tmp/logitgeom-bench-cluster")
    args = ap.parse_args(argv)
    runs = [r.strip() for r in args.runs.split(",") if r.strip()]
    if not runs or set(runs) - {"alone", "shared"}:
        ap.error("--runs takes alone, shared or alone,shared")
    k, d = args.rows, args.cols
    if not 0 < args.cluster < k - args.mix or args.mix < 1 or not 0 < args.scale < 1 \
            or not 0 < args.noise < 1:
        ap.error("need 0 < --cluster < rows - mix, --mix >= 1, 0 < --scale < 1, "
                 "0 < --noise < 1")
    install_limits(args.cpu_limit, args.max_rss_mb)

    from logitgeom.audit.proofs import Options

    shared_ok = has_shared_option()
    if not shared_ok:
        print("NOTE: this logitgeom's Options has no shared_supports (the shared Gordan "
              "supports of issue 44 item 2 are not in this branch): the alone run uses the "
              "default path, which proves each label alone; the shared run is skipped.",
              flush=True)
    tag = (f"cluster-{k}x{d}-c{args.cluster}-m{args.mix}-a{args.scale:g}-e{args.noise:g}-"
           f"n{args.norm_sigma:g}-s{args.seed}")
    model = Path(args.cache) / tag
    c0 = time.process_time()
    cluster = build_cluster_head(model, k, d, args.cluster, args.mix, args.scale, args.noise,
                                 args.norm_sigma, args.seed)
    print(f"head {k} x {d} float32 ({k * d * 4 / 1e6:.0f} MB) at {model}: {len(cluster)} "
          f"cluster rows [{time.process_time() - c0:.1f} CPU s to build or load]", flush=True)
    figures: dict[str, dict] = {}
    ok = True
    for run in runs:
        if run == "shared" and not shared_ok:
            print("--- shared: skipped (no Options.shared_supports in this logitgeom)")
            continue
        opts = Options(shared_supports=run == "shared") if shared_ok else Options()  # type: ignore[call-arg]
        out = model / f"out-{run}{'-all' if args.all_labels else ''}"
        reset_peak_rss()
        res, cpu, wall = run_audit(model, out, None if args.all_labels else cluster,
                                   args.workers, args.block, opts)
        own, kids = peak_rss_mb()
        never = res.never()
        und = res.undecided()
        stats = proof_stats(out)
        sb = shared_bytes(out, stats)
        per = res.label_cpu
        print(f"--- {run}: {len(res.labels)} labels audited, {len(never)} never "
              f"({sum(1 for lab in cluster if lab in set(never))} of {len(cluster)} cluster "
              f"labels), undecided {len(und)}; CPU {cpu:.1f} s, wall {wall:.1f} s; peak RSS "
              f"{own:.0f} MB (children {kids:.0f} MB)")
        print("  CPU s by stage: " + ", ".join(f"{key} {v:.1f}" for key, v in
                                               sorted(res.stage_seconds.items())
                                               if isinstance(v, float)))
        counts = {key: v for key, v in sorted(res.stage_seconds.items()) if isinstance(v, int)}
        if counts:
            print("  counts: " + ", ".join(f"{key} {v}" for key, v in counts.items()))
        stages: dict[str, int] = {}
        for rec in stats.values():
            stages[str(rec.get("stage"))] = stages.get(str(rec.get("stage")), 0) + 1
        print("  never-proofs by stage: " + ", ".join(f"{key} {v}" for key, v in
                                                      sorted(stages.items())))
        cl_never = [lab for lab in cluster if lab in stats]
        lab_cpu = sorted(float(per.get(lab, 0.0)) for lab in cl_never)
        own_bytes = sorted(stats[lab]["bytes"] for lab in cl_never)
        if cl_never:
            print(f"  per cluster never label: audit CPU s (its own) median "
                  f"{float(np.median(lab_cpu)):.2f}, max {lab_cpu[-1]:.2f}; proof bytes median "
                  f"{int(np.median(own_bytes)):,}, max {own_bytes[-1]:,}; rows median "
                  f"{int(np.median([stats[lab]['rows'] or 0 for lab in cl_never]))}; "
                  f"shared files {sb:,} bytes")
        check_cpu = None
        if not args.no_check and never:
            good, line, ccpu, _ = stdlib_check(out, labels=never)
            base = structure_check_cpu(out)
            check_cpu = max(ccpu - base, 0.0) / len(never)
            print(f"  stdlib checker, every never-proof ({len(never)}): "
                  f"{'accepted' if good else 'REJECTED'} [{ccpu:.1f} CPU s; structure only "
                  f"{base:.1f}; {check_cpu:.3f} CPU s per never label]: {line}")
            ok &= good
        ok &= not und
        n = max(len(never), 1)
        figures[run] = {"cpu": cpu / n, "bytes": (sum(s["bytes"] for s in stats.values()) + sb)
                        / n, "check": check_cpu}
        print(f"  per never label (run totals / {len(never)}): CPU {cpu / n:.2f} s, proof "
              f"{figures[run]['bytes']:,.0f} bytes"
              + ("" if check_cpu is None else f", check {check_cpu:.3f} CPU s"), flush=True)
    if {"alone", "shared"} <= set(figures):
        a, s = figures["alone"], figures["shared"]

        def ratio(x, y):
            return "n/a" if not x or not y else f"{x / y:.1f}"

        print(f"alone / shared per never label: CPU {ratio(a['cpu'], s['cpu'])} x, proof bytes "
              f"{ratio(a['bytes'], s['bytes'])} x, check CPU {ratio(a['check'], s['check'])} x")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
