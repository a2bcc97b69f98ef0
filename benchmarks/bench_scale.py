"""Enumeration at scale: streamed runs, peak memory, bytes per region, a scaling table.

Cases (each run in its own subprocess, so peak RSS is per case; CPU includes workers):

* ``resonance-6``: the resonance arrangement in R^6 (63 hyperplanes, 1,066,044 chambers),
  exact with witnesses, streamed to a directory (goal <= 30 s CPU, <= 300 MB peak RSS);
* ``perm-9``: the braid arrangement of 10 labels (the rankings of the identity head,
  3,628,800 chambers), exact with witnesses (goal <= 1 GB peak RSS);
* ``resonance-6-w2``: resonance-6 on 2 local worker processes (scaling table);
* the scaling simulation: list scheduling of the recorded per-unit CPU times on 64 and
  256 workers (makespan, critical path, imbalance, efficiency) from a run's manifest, and
  ``predict``: perm-9 and resonance-7 (347,326,352 chambers, too big to run here) split
  into ~16,000 units, a stratified sample of units timed (CPU), every unit's duration
  predicted by a fit on its generic bound, then simulated.

Usage::

    python benchmarks/bench_scale.py                 # all cases (long: perm-9 ~ minutes)
    python benchmarks/bench_scale.py resonance-6     # one case
    python benchmarks/bench_scale.py simulate DIR/manifest.json   # from a kept manifest
    python benchmarks/bench_scale.py predict [perm-9] [resonance-7] # sampled units

The machine these figures come from is shared (2 cores, 7 concurrent sessions): CPU
seconds are the meaningful figure, wall times are inflated.
"""

from __future__ import annotations

import heapq
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def resonance(d: int) -> list[list[int]]:
    return [[int(c) for c in format(i, f"0{d}b")] for i in range(1, 2**d)]


def identity(k: int) -> list[list[int]]:
    return [[int(i == j) for j in range(k)] for i in range(k)]


CASES = {
    # name: (W, kind, units, workers, scheduler)
    "resonance-6": (lambda: resonance(6), "sign", None, 1, None),
    "resonance-6-w2": (lambda: resonance(6), "sign", None, 2, None),
    "resonance-6-dask2": (lambda: resonance(6), "sign", None, 2, "local"),
    "perm-8": (lambda: identity(9), "ranking", None, 1, None),
    "perm-9": (lambda: identity(10), "ranking", None, 1, None),
    "perm-9-w2": (lambda: identity(10), "ranking", None, 2, None),
}


def _tree_cpu() -> float:
    """CPU seconds of this process and every live descendant (pool or Dask workers,
    nannies), read before the executor shuts down."""
    import psutil

    me = psutil.Process()
    total = time.process_time()
    for c in me.children(recursive=True):
        try:
            t = c.cpu_times()
            total += t.user + t.system + t.children_user + t.children_system
        except psutil.Error:
            pass
    return total


def run_case(name: str, out: str, W=None, kind=None, units=None, workers=None,
             scheduler=None) -> dict:
    """Run one case in this process and report its figures (called in a subprocess)."""
    from engine.geometry.store import enumerate_to_dir
    from engine.run.executor import make_executor

    if name in CASES:
        make_W, kind, units, workers, scheduler = CASES[name]
        W = make_W()
    t0, c0 = time.perf_counter(), time.process_time()
    ex = make_executor(workers=workers, scheduler=scheduler)
    try:
        r = enumerate_to_dir(W, out, kind=kind, units=units, executor=ex,
                             progress=False, resume=True)
        cpu_tree = _tree_cpu()
    finally:
        if ex is not None:
            if hasattr(ex, "shutdown"):
                ex.shutdown()
            else:
                from engine.run.executor import close_executor

                close_executor(ex)
    wall = time.perf_counter() - t0
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = max(cpu_tree, time.process_time() - c0 + kids.ru_utime + kids.ru_stime)
    disk = sum(p.stat().st_size for p in r.shards())
    words = max(1, -(-len(r.manifest["arrangement"]["hyperplanes"]) // 64))
    D = r.manifest["arrangement"]["D"]
    return {
        "case": name, "regions": r.count, "exact_count": r.exact_count,
        "complete": r.complete, "units": len(r.manifest["units"]),
        "batches": len(r.manifest["batches"]), "shards": r.manifest["buckets"],
        "workers": workers, "scheduler": scheduler,
        "wall_s": round(wall, 1), "cpu_s": round(cpu, 1),
        "peak_rss_mb": round(max(me.ru_maxrss, kids.ru_maxrss) / 1024, 1),
        "bytes_per_region_packed_signs": 8 * words,
        "bytes_per_region_witness": 8 * D,
        "bytes_per_region_on_disk": round(disk / max(r.count, 1), 1),
        "steps": r.manifest.get("steps"),
        "manifest": str(Path(out) / "manifest.json"),
    }


# ----------------------------------------------------------------------------- simulation


def list_schedule(durations: list[float], workers: int) -> float:
    """Makespan of greedy list scheduling in the given order (what a pool does)."""
    free = [0.0] * min(workers, max(len(durations), 1))
    heapq.heapify(free)
    end = 0.0
    for d in durations:
        t = heapq.heappop(free) + d
        end = max(end, t)
        heapq.heappush(free, t)
    return end


def simulate(units: list[float], buckets: list[float], workers: int) -> dict:
    """Two phases with a barrier; longest units first (the order the driver can submit)."""
    u = sorted(units, reverse=True)
    b = sorted(buckets, reverse=True)
    span = list_schedule(u, workers) + list_schedule(b, workers)
    work = sum(units) + sum(buckets)
    crit = (max(units) if units else 0) + (max(buckets) if buckets else 0)
    span, work, crit = float(span), float(work), float(crit)
    return {"workers": workers, "makespan_s": round(span, 2), "critical_path_s": round(crit, 2),
            "ideal_s": round(work / workers, 2),
            "imbalance": round(span / (work / workers), 3),
            "efficiency": round(work / (workers * span), 3)}


def simulate_manifest(path: str, workers=(1, 2, 64, 256)) -> list[dict]:
    m = json.loads(Path(path).read_text())
    units = [v.get("cpu", v["seconds"]) for v in m["units_done"].values()]
    buckets = [v.get("cpu", v["seconds"]) for v in m["buckets_done"].values()]
    return [simulate(units, buckets, w) for w in workers]


def _rows(name: str):
    from engine.exact.numbers import to_matrix
    from engine.geometry import search
    from engine.geometry.patterns import arrangement_rows

    if name == "resonance-7":
        return search.reduce_rows(resonance(7)).hyperplanes
    if name == "perm-9":
        return search.reduce_rows(arrangement_rows("ranking", to_matrix(identity(10)),
                                                   None)).hyperplanes
    raise SystemExit(f"no prediction for {name}")


#: units planned for the predictions (about 16 per worker at 256 workers, more for the
#: bigger arrangement)
PREDICT_UNITS = {"perm-9": 4096, "resonance-7": 16384}
QUANTILES = (0.05, 0.25, 0.4, 0.5, 0.6, 0.75, 0.85, 0.9, 0.95, 0.97, 0.99, 0.995, 1.0)


def prediction(name: str, target: int | None = None, quantiles=QUANTILES) -> dict:
    """Plan ``name`` into about ``target`` units, time a stratified sample of them (CPU,
    by quantile of the units' generic bounds), fit CPU ~ a * bound^p, predict every unit
    and simulate 64 and 256 workers (phase 1; phase 2 is about 1/10 of it here)."""
    import numpy as np

    from engine.geometry import search

    rows = _rows(name)
    t = time.process_time()
    plan = search.plan_units(rows, target or PREDICT_UNITS[name])
    plan_cpu = time.process_time() - t
    est = np.array([search.unit_estimate(rows, p) for p in plan], dtype=float)
    order = np.argsort(est)
    xs, ys, ns = [], [], []
    for q in quantiles:
        i = int(order[min(int(q * (len(plan) - 1)), len(plan) - 1)])
        c0 = time.process_time()
        P, _ = search._unit_job((rows, plan[i], True))
        ys.append(time.process_time() - c0)
        xs.append(est[i])
        ns.append(len(P))
    xs_, ys_, ns_ = np.array(xs), np.array(ys), np.array(ns)
    m = ys_ > 0.01
    p, loga = np.polyfit(np.log(xs_[m]), np.log(ys_[m]), 1)
    pred = np.exp(loga) * np.maximum(est, 1) ** p
    k = ns_ > 0
    q_, logb = np.polyfit(np.log(xs_[k]), np.log(ns_[k]), 1)
    emitted = float((np.exp(logb) * np.maximum(est, 1) ** q_).sum())
    return {"case": name, "units": len(plan), "plan_cpu_s": round(plan_cpu, 1),
            "depths": {str(d): sum(1 for x in plan if len(x) == d) for d in range(1, 5)},
            "sample": [{"bound": float(x), "cpu_s": round(y, 3), "rows": int(n)}
                       for x, y, n in zip(xs, ys, ns, strict=True)],
            "fit_exponent": round(float(p), 3),
            "predicted_total_cpu_h": round(float(pred.sum()) / 3600, 2),
            "predicted_rows_emitted": f"{emitted:.3g}",
            "largest_predicted_unit_s": round(float(pred.max()), 2),
            "simulation": [simulate(list(pred), [], w) for w in (64, 256)]}


def main(argv: list[str]) -> int:
    if argv[:1] == ["_case"]:
        print(json.dumps(run_case(argv[1], argv[2])))
        return 0
    if argv[:1] == ["simulate"]:
        for row in simulate_manifest(argv[1]):
            print(row)
        return 0
    if argv[:1] == ["predict"]:
        for name in argv[1:] or ["perm-9", "resonance-7"]:
            print(json.dumps(prediction(name), indent=1))
        return 0
    names = argv or list(CASES)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    keep = Path(tempfile.mkdtemp(prefix="bench_scale_"))
    for name in names:
        out = keep / name
        p = subprocess.run([sys.executable, __file__, "_case", name, str(out)], env=env,
                           capture_output=True, text=True)
        if p.returncode:
            print(p.stderr, file=sys.stderr)
            return p.returncode
        row = json.loads(p.stdout.strip().splitlines()[-1])
        print(json.dumps(row))
        for sim in simulate_manifest(row["manifest"]):
            print("   simulated", sim)
    if not argv:
        for name in ("perm-9", "resonance-7"):
            print(json.dumps(prediction(name), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
