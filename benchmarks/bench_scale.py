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
    python benchmarks/bench_scale.py run NAME DIR [WORKERS]      # any instance, in full
    python benchmarks/bench_scale.py predict2 NAME [UNITS|-] [REPORT.json] [--cheap]  # every term
    python benchmarks/bench_scale.py calibrate DIR                # perm-8, the constants
    python benchmarks/bench_scale.py spread NAME [WORKERS] [RUNS]   # identical runs, each term
    python benchmarks/bench_scale.py kill-verify NAME DIR WORKERS phase1:40 merge:5 ...
    python benchmarks/bench_scale.py verify-pieces DIR ENGINE_CHECKOUT

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

from _args import guard

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
    from logitgeom.geometry.stream import enumerate_to_dir
    from logitgeom.run.executor import make_executor

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
                from logitgeom.run.executor import close_executor

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


def _instance(name: str):
    """(W, kind) of a named instance (the cases, resonance-7, random-56x7)."""
    import numpy as np

    if name in CASES:
        return CASES[name][0](), CASES[name][1]
    if name == "resonance-7":
        return resonance(7), "sign"
    if name.startswith("random-"):  # random-KxD: integers in [-9, 9], seed K
        k, d = (int(x) for x in name[7:].split("x"))
        return np.random.default_rng(k).integers(-9, 10, size=(k, d)).tolist(), "sign"
    raise SystemExit(f"unknown instance {name}")


def _rows(name: str):
    from logitgeom.exact.numbers import to_matrix
    from logitgeom.geometry import search
    from logitgeom.geometry.patterns import arrangement_rows

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

    from logitgeom.geometry import search

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
        P, _ = search.unit_rows(rows, plan[i], True)  # what phase 1 runs
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


# ----------------------------------------------------------------------------- prediction


def _forked(fn, *args):
    """Run ``fn(*args)`` in a forked child: its value, CPU seconds and the peak memory it
    added (its peak RSS, VmHWM, minus its RSS at the fork), in MB."""
    import pickle

    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        try:
            os.close(r)
            import ctypes

            # the parent's free heap is resident here and would absorb what fn allocates
            # unseen; a worker's task starts with it handed back (logitgeom.run.worker.task_start)
            ctypes.CDLL("libc.so.6").malloc_trim(0)
            rss0 = _rss_mb()
            _reset_peak()
            c0 = time.process_time()
            v = fn(*args)
            cpu = time.process_time() - c0
            peak = _peak_mb()
            with os.fdopen(w, "wb") as fh:
                pickle.dump((v, cpu, peak - rss0), fh)
        finally:
            os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as fh:
        v, cpu, added = pickle.load(fh)
    os.waitpid(pid, 0)
    return v, cpu, max(0.0, added)


def _reset_peak() -> None:
    """Reset this process's peak-RSS mark (``VmHWM``; Linux ``/proc/self/clear_refs``)."""
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")


def _peak_mb() -> float:
    """This process's peak RSS since the last :func:`_reset_peak` (``VmHWM``), in MB.
    Not ``ru_maxrss``: that keeps a forked parent's peak across the fork (and exec)."""
    from logitgeom.run.worker import status_kb

    return status_kb("VmHWM:") / 1024


def _rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _unit_measure(rows, path, keep):
    from logitgeom.geometry.stream.phases import unit_rows

    K, _ = unit_rows(rows, path, True, keep)
    return len(K)


def _unit_full_measure(rows, path, keep, exact, buckets, D, cols):
    """One unit as phase 1 runs it, then its rows through the merge's per-row work:
    (rows, phase-1 CPU, phase-1 bytes, merge CPU, shard bytes, memory after phase 1,
    memory after writing the shards, a subsample of the rows as one frame).

    The phase-1 bytes are those of the unit's rows cut into frames of the size a batch
    writes (``FLUSH_ROWS / buckets`` rows, sorted by sign words, compressed); the merge
    CPU is that of decoding these frames, sorting, keeping first occurrences and encoding
    them again; the shard bytes those of the frames written as Parquet shards.  Phase 2
    and the check are timed apart, on a bucket of the run's size (:func:`_bucket_measure`).
    Run in a forked child (memory)."""
    import numpy as np

    from logitgeom.geometry.stream import codec, phases
    from logitgeom.geometry.stream import plan as splan
    c0 = time.process_time()
    K, P = phases.unit_rows(rows, path, exact, keep)
    p1 = time.process_time() - c0
    rss1 = _peak_mb()
    n = len(K)
    if n == 0:
        return (0, p1, 0, 0.0, 0, rss1, rss1, b"")
    # a uniform subsample of the unit's rows, for the synthetic bucket of _bucket_frames
    sub = np.sort(np.random.default_rng(n).choice(n, size=min(n, SUBSAMPLE_ROWS),
                                                  replace=False))
    sub_frame = codec.encode(K[sub], P[sub])
    sim = max(1, round(buckets * n / splan.FLUSH_ROWS))  # frames of FLUSH_ROWS / buckets rows
    b = codec.bucket_of(K, sim)
    order = np.lexsort((*K.T[::-1], b))
    K, P, b = K[order], P[order], b[order]
    cut = np.searchsorted(b, np.arange(sim + 1))
    frames = [(q, codec.encode(K[cut[q]:cut[q + 1]], P[cut[q]:cut[q + 1]])) for q in range(sim)
              if cut[q + 1] > cut[q]]
    nbytes = sum(len(f) for _, f in frames)
    del K, P
    # merge: decode, sort, first, encode (per frame, as a group task does per bucket)
    # run twice and the second is timed: the first pays the copy-on-write faults of a
    # forked child, which a long-lived worker does not
    for _ in range(2):
        c0 = time.process_time()
        dec = []
        for _, f in frames:
            k, x, _ = codec.decode(f, 0)
            dec.append((k, x))
        for k, x in dec:
            k1, x1 = phases.first_rows([(k, x)], len(cols))
            codec.encode(k1, x1)
        del dec
        merge = time.process_time() - c0
    tmp = Path(tempfile.mkdtemp(prefix="predict-"))
    try:  # the shards these rows make (their bytes)
        task = phases.GroupTask(0, sim, 0, 0, str(tmp), str(tmp), tuple(cols), D)
        for q, f in frames:
            k, x, _ = codec.decode(f, 0)
            phases.write_shard(task, q, [(k, x)])
        rss2 = _peak_mb()
        shard_bytes = sum(codec.shard_path(tmp, q).stat().st_size for q, _ in frames)
    finally:
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)
    return (n, p1, nbytes, merge, shard_bytes, rss1, rss2, sub_frame)


#: rows of each sampled unit kept for the synthetic phase-2 bucket
SUBSAMPLE_ROWS = 32768


def _count_measure(node, dim):
    from logitgeom.exact.lattice import evaluate
    from logitgeom.geometry.counting import count_task

    return abs(evaluate(count_task((node, dim)), -1))


def _strata(sizes, k: int):
    """Indices split into k strata of consecutive size ranks."""
    import numpy as np

    order = np.argsort(sizes, kind="stable")
    return [s for s in np.array_split(order, min(k, len(order))) if len(s)]


def _stratified(strata, per: int, measure, cache: dict, rng, ratio=None):
    """Stratified estimate of totals: sum over strata of N_k * mean of a random sample
    (with ``ratio``, an auxiliary value per index: the stratum's total of it times the
    sample's ratio of each quantity to it).
    Returns (totals per measured quantity, max of each quantity over the sample)."""
    import numpy as np

    tot, top = None, None
    for s in strata:
        pick = rng.choice(s, size=min(per, len(s)), replace=False)
        vals = []
        for i in pick:
            i = int(i)
            if i not in cache:
                cache[i] = measure(i)
            vals.append(cache[i])
        v = np.array(vals, dtype=float)
        aux = None if ratio is None else float(np.sum(ratio[pick]))
        t = (len(s) * v.mean(axis=0) if not aux
             else float(np.sum(ratio[s])) * v.sum(axis=0) / aux)
        tot = t if tot is None else tot + t
        top = v.max(axis=0) if top is None else np.maximum(top, v.max(axis=0))
    return tot, top


#: per-row constants of phase 2, the certification and the files, measured on a
#: calibration instance run in full (``calibrate``); not on the instances validated
CALIBRATION = ROOT / "benchmarks" / "scale_calibration.json"


def calibrate(out: str) -> dict:
    """Run the calibration instance in full (perm-8: the rankings of the identity head of 9
    labels, 362,880 regions) and keep its per-row constants."""
    row = run_case("calibration", out, W=identity(9), kind="ranking", workers=1)
    m = json.loads(Path(row["manifest"]).read_text())
    emitted = sum(v["rows"] for v in m["units_done"].values())
    s = m["steps"]
    c = {"instance": "perm-8 (rankings of the identity head of 9 labels)",
         "regions": row["regions"],
         "emitted_rows": emitted,
         "phase2_cpu_per_emitted_row_us": 1e6 * s["phase2"]["cpu_tasks"] / emitted,
         "certify_cpu_per_region_us": 1e6 * s["certify"]["cpu_tasks"] / row["regions"],
         "phase1_bytes_per_emitted_row": s["phase1"]["bytes"] / emitted,
         "shard_bytes_per_region": row["bytes_per_region_on_disk"],
         "worker_baseline_rss_mb": s["phase1"]["max_task_rss_mb"],
         "fixed_cpu_s": max(0.0, row["cpu_s"] - s["phase1"]["cpu_tasks"]
                            - s["phase2"]["cpu_tasks"] - s["certify"]["cpu_tasks"]
                            - s["count"]["cpu_driver"])}
    CALIBRATION.write_text(json.dumps(c, indent=1) + "\n")
    return c


def predict(W, kind: str, **kw) -> dict:
    """:func:`_predict` with one BLAS thread, as the run itself."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        return _predict(W, kind, **kw)


def _predict(W, kind: str, *, units: int | None = None, samples: int = 24, repeats: int = 5,
            strata: int = 6, count_tasks_target: int = 2000, seed: int = 0,
            workers: int = 2, wave_plan: list | None = None, cheap: bool = False) -> dict:
    """Predict every term of a streamed run without running it.

    * count: the exact search split into about ``count_tasks_target`` subtrees
      (:func:`logitgeom.geometry.counting.count_tasks`), a stratified sample of them run (strata
      by the number of hyperplanes left): CPU and the number of regions (each subtree's
      contribution to the count is positive); rankings: the ranking formula, timed;
    * phase 1: the unit plan of the run, a stratified sample of units (strata by generic
      bound) run in forked children: CPU, rows emitted, and the memory each adds;
    * merge and files: the sampled units' rows re-encoded as the run encodes them;
    * phase 2 and certification: one synthetic bucket of the run's size through the real
      phase-2 task and shard check, in as many concurrent fresh interpreters as the run
      has workers (:func:`_bucket_measure`), times the number of buckets;
    * memory: what the largest batches and a phase-2 group add (``VmHWM``);
    * error bars: ``repeats`` independent samples; every figure is reported as mean and
      standard deviation over them (and min..max).

    ``cheap``: two samples of one unit per stratum (five strata) with a ratio estimator on
    the units' generic bounds, 200 count subtrees (two per stratum), the bucket measured
    in one forked child (three passes), no whole phase-1 batch run (so no phase-1 task
    memory).  An experiment towards a prediction costing a small fraction of the run
    (``predictor_cpu_s`` says what it cost): it does not yet meet the goal (its phase-1
    term ignores the cache of repeated restrictions a worker keeps across units, its
    phase-2 and certification terms are off by up to 70 %; benchmarks/scale-log.md).
    """
    import numpy as np

    from logitgeom.geometry import search
    from logitgeom.geometry.counting import count_tasks
    from logitgeom.geometry.stream.plan import default_units, setup

    cpu0 = _cpu_with_children()
    if cheap:
        repeats, strata, count_tasks_target = 2, 5, 200
    cal = json.loads(CALIBRATION.read_text())
    st = setup(kind, W, None, count=False)
    rows = st.red.hyperplanes
    out: dict = {"kind": kind, "hyperplanes": len(rows), "D": st.red.D}
    # -- count
    c0 = time.process_time()
    if kind == "sign":
        from logitgeom.exact.lattice import evaluate

        dim, base, nodes = count_tasks(W, target=count_tasks_target)
        base_count = abs(evaluate(base, -1))  # every node counts with the same sign
        expand = time.process_time() - c0
        sizes = np.array([len(n[0]) for n in nodes], dtype=float)
        cstrata = _strata(sizes, 2 * strata)
        ccache: dict = {}

        def cmeasure(i):  # in this process: no memory to measure, no fork overhead
            c = time.process_time()
            v = _count_measure(nodes[i], dim)
            return (time.process_time() - c, v)
    else:
        from logitgeom.exact.lattice import count_rankings_exact

        n = count_rankings_exact(st.Wm, None)
        expand = time.process_time() - c0
    rng = np.random.default_rng(seed)

    def count_rep():
        if kind != "sign":
            return expand, n
        (ccpu, cnt), _ = _stratified(cstrata, 2 if cheap else 4 * max(2, samples // strata),
                                     cmeasure, ccache, rng)
        # a run packs the subtrees into a few tasks: the fixed cost of one call per subtree
        # (the cheapest sampled subtree's CPU, an upper bound of it) is not paid per subtree
        c_call = min(v[0] for v in ccache.values())
        return ccpu - len(nodes) * c_call + expand, cnt + base_count

    first = count_rep()
    # -- plan (from the count estimate, as the run decides it from the exact count)
    from logitgeom.geometry.stream import plan as splan
    t0 = time.process_time()
    plan = search.plan_units(rows, units or default_units(int(first[1])))
    out["plan_cpu_s"] = round(time.process_time() - t0, 2)
    exact = splan.stream_exact(rows)
    out["mode"] = "exact" if exact else "float"
    est = np.array([search.unit_estimate(rows, p) for p in plan], dtype=float)
    ustrata = _strata(est, strata)
    ucache: dict = {}
    buckets = max(1, -(-int(first[1]) // splan.DEFAULT_SHARD_ROWS))
    cols, D = st.red.cols, st.red.D
    # imports and caches, once, in this process (not in every forked child)
    _unit_full_measure(rows, plan[int(np.argmin(est))], st.keep, exact, buckets, D, cols)

    usub: dict = {}

    def umeasure(i):
        v, cpu, _ = _forked(_unit_full_measure, rows, plan[i], st.keep, exact, buckets, D,
                            cols)
        rss0 = _rss_mb()
        usub[i] = v[7]
        return (*v[:5], max(0.0, v[5] - rss0), max(0.0, v[6] - rss0))

    nbatches = len(splan.plan_batches(est, int(first[1]), workers))
    reps = []
    for r in range(repeats):
        ccpu, cnt = first if r == 0 else count_rep()
        tot, top = _stratified(ustrata, 1 if cheap else max(2, samples // strata), umeasure,
                               ucache, rng, ratio=est if cheap else None)
        emitted, p1, p1_bytes, merge_cpu, shard_bytes = tot[:5]
        per_row = {"merge": merge_cpu / emitted, "bytes": p1_bytes / emitted,
                   "shard": shard_bytes / emitted}
        # the waves of the run compared with, if given (an older revision's plan)
        waves = wave_plan or splan.plan_waves(nbatches, int(cnt))
        nbatches = waves[-1][1]
        W = len(waves)
        wave_rows = [emitted * (hi - lo) / nbatches for lo, hi in waves]
        # merged rows after w waves: at most the regions, at most the rows emitted so far
        merged = [min(cnt, sum(wave_rows[:w])) for w in range(W)]
        merge_read = sum(merged[w] + wave_rows[w] for w in range(W - 1))
        p2_read = merged[W - 1] + wave_rows[W - 1]
        disk = max((merged[w] + wave_rows[w]) * per_row["bytes"] for w in range(W))
        reps.append({"count_cpu_s": ccpu, "regions": cnt, "phase1_cpu_s": p1,
                     "emitted_rows": emitted, "waves": W, "phase2_rows": p2_read,
                     "merge_cpu_s": merge_read * per_row["merge"],
                     "phase2_cpu_s": 0.0, "certify_cpu_s": 0.0,  # below: one bucket
                     "fixed_cpu_s": cal["fixed_cpu_s"] + out["plan_cpu_s"],
                     "total_cpu_s": ccpu + p1 + merge_read * per_row["merge"]
                     + cal["fixed_cpu_s"] + out["plan_cpu_s"],
                     "phase1_disk_gb": emitted * per_row["bytes"] / 1e9,
                     "peak_work_disk_gb": disk / 1e9,
                     "shards_disk_gb": cnt * per_row["shard"] / 1e9,
                     # the end of phase 2: the last wave's files beside all the shards
                     "peak_disk_gb": max(disk, wave_rows[-1] * per_row["bytes"]
                                         + cnt * per_row["shard"]) / 1e9,
                     "sampled_unit_peak_mb": top[5]})
    # phase 2 and certification at the run's bucket size: one synthetic bucket of the
    # run's rows per bucket (distinct rows of sampled units, each row repeated as the
    # run's phase-1 files repeat it, in as many frames as a bucket reads), written as a
    # shard and checked, timed in a forked child; per-worker first-use costs apart
    mean = {k: float(np.mean([r[k] for r in reps])) for k in ("regions", "phase2_rows",
                                                               "emitted_rows")}
    W_ = reps[0]["waves"]
    waves = wave_plan or splan.plan_waves(nbatches, int(mean["regions"]))
    last = waves[-1][1] - waves[-1][0]
    per_batch = mean["emitted_rows"] / max(waves[-1][1], 1)
    nframes = (W_ > 1) + last * max(1, -(-int(per_batch) // splan.FLUSH_ROWS))
    out_rows = max(1, int(mean["regions"] / buckets))
    in_rows = max(out_rows, int(mean["phase2_rows"] / buckets))
    # each sampled unit stands for its stratum: weight = stratum size / units sampled in it
    weight = {}
    for sgroup in ustrata:
        got = [int(i) for i in sgroup if int(i) in ucache]
        for i in got:
            weight[i] = len(sgroup) / len(got)
    frames = _bucket_frames(usub, {i: weight[i] * ucache[i][0] for i in usub}, len(cols),
                            out_rows, in_rows, nframes, rng)
    ngroups = len(splan.plan_groups(buckets, int(mean["phase2_rows"]), workers))
    ncheck = len(splan.plan_groups(buckets, int(mean["regions"]), workers))
    bm = _bucket_measure(frames, rows, D, cols, st.keep, nfiles=last,
                         workers=1 if cheap else min(workers, ngroups),
                         per_worker=-(-buckets // max(1, min(workers, ngroups))),
                         **({"passes": 3, "rounds": 1, "fork": True} if cheap else {}))
    b_p2, b_cert, b_task = bm["phase2_s"], bm["certify_s"], bm["check_task_fixed_s"]
    b_cert *= out_rows / max(bm["rows_out"], 1)  # subsamples short of out_rows: per row
    # each worker's first buckets and checks cost more (see _bucket_measure), once
    warm_p2 = min(workers, ngroups) * bm["phase2_excess_s"]
    warm_c = min(workers, ncheck) * bm["certify_excess_s"]
    out["bucket_measure"] = {"rows_in": in_rows, "rows_out": out_rows, "frames": nframes,
                             **{k: round(v, 4) if isinstance(v, float) else v
                                for k, v in bm.items()}}
    for r in reps:
        p2 = buckets * b_p2 * r["phase2_rows"] / mean["phase2_rows"] + warm_p2
        ce = (buckets * b_cert * r["regions"] / mean["regions"] + ncheck * b_task
              + warm_c)
        r["total_cpu_s"] += p2 + ce
        r["phase2_cpu_s"], r["certify_cpu_s"] = p2, ce
    keys = reps[0].keys()
    out["units"] = len(plan)
    out["measured_units"] = len(ucache)
    out["terms"] = {k: {"mean": float(np.mean([r[k] for r in reps])),
                        "sd": float(np.std([r[k] for r in reps], ddof=1)) if repeats > 1
                        else 0.0,
                        "min": float(min(r[k] for r in reps)),
                        "max": float(max(r[k] for r in reps))} for k in keys}
    # memory of a phase-1 task: a fresh worker's own memory plus what the batch holding
    # the largest unit of the plan (by generic bound; 2-worker batch plan) adds, run here
    base = _worker_baseline_mb()
    out["worker_baseline_mb"] = round(base, 1)
    # the batch holding the largest unit, and the batch of the most rows (both by
    # generic bound); the larger of what they add
    big = int(np.argmax(est))
    bplan = splan.plan_batches(est, int(first[1]), workers)
    cands = {next(i for i, (lo, hi) in enumerate(bplan) if lo <= big < hi),
             int(np.argmax([est[lo:hi].sum() for lo, hi in bplan]))}
    meas_b = []
    for bi in ([] if cheap else sorted(cands)):
        _, bcpu, badd = _forked(_batch_measure, rows, plan, bplan[bi], exact, st.keep,
                                buckets)
        meas_b.append((badd, bplan[bi], bcpu))
    mem = np.array([(v[0], v[5]) for v in ucache.values() if v[0] > 0 and v[5] > 1])
    if len(mem) >= 3:
        q, b = np.polyfit(np.log(mem[:, 0]), np.log(mem[:, 1]), 1)
        k_emit = np.array([v[0] for v in ucache.values()])
        biggest = float(k_emit.max()) * est.max() / est[[int(i) for i in ucache][
            int(np.argmax(k_emit))]]
        out["largest_unit_rows_predicted"] = round(biggest)
        out["largest_unit_added_mb_predicted"] = round(float(np.exp(b) * biggest ** q), 1)
    if meas_b:  # (cheap: no whole batch run, no phase-1 task memory predicted)
        badd, bunits, bcpu = max(meas_b, key=lambda m: m[0])
        out["largest_batch"] = {"units": bunits, "cpu_s": round(bcpu, 2),
                                "added_mb": round(badd, 1)}
        out["phase1_task_mb_predicted"] = round(base + badd, 1)
    else:
        out["largest_batch"] = {"units": None, "cpu_s": 0.0, "added_mb": None}
    # a phase-2 task: the rows of the largest sampled unit, repeated to a group's rows,
    # through the phase-2 code in a forked child
    p2rows = out["terms"]["phase2_rows"]["mean"]
    rows_group = min(splan.GROUP_ROWS,
                     p2rows / len(splan.plan_groups(buckets, int(p2rows), workers)))
    ib = max(ucache, key=lambda i: ucache[i][0])
    frame, _, _ = _forked(_unit_frame, rows, plan[ib], st.keep, exact)
    _, _, gadd = _forked(_group_measure, frame, int(rows_group), D, cols)
    out["phase2_task_mb_predicted"] = round(base + gadd, 1)
    out["phase2_added_mb"] = round(gadd, 1)
    out["phase2_group_rows"] = round(rows_group)
    out["predictor_cpu_s"] = round(_cpu_with_children() - cpu0, 2)
    return out


def _cpu_with_children() -> float:
    """CPU seconds of this process and its waited-for children so far."""
    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime


def _bucket_frames(subs: dict, share: dict, ncols, out_rows, in_rows, nframes,
                   rng) -> list[bytes]:
    """A synthetic phase-2 bucket: about ``out_rows`` distinct rows drawn from the sampled
    units' subsamples ``subs`` in proportion to ``share`` (the rows each sampled unit
    stands for in the run: a bucket holds rows of every unit), ``in_rows`` rows in all
    (the rest repeats of them, as the run's phase-1 files repeat regions), cut into
    ``nframes`` frames, each sorted by sign words as a batch writes it."""
    import numpy as np

    from logitgeom.geometry.stream import codec, phases
    total = sum(share.values()) or 1.0
    Ks, Ps = [], []
    for i, fr in sorted(subs.items()):
        if not fr:
            continue
        k, p, _ = codec.decode(fr, 0)
        want = min(len(k), int(np.ceil(out_rows * share[i] / total)))
        pick = np.sort(rng.choice(len(k), size=want, replace=False))
        Ks.append(k[pick])
        Ps.append(p[pick])
    K, P = phases.first_rows(list(zip(Ks, Ps, strict=True)), ncols)
    del Ks, Ps
    idx = np.concatenate([np.arange(len(K)), rng.integers(0, len(K), max(0, in_rows - len(K)))])
    rng.shuffle(idx)
    frames = []
    for part in np.array_split(idx, max(1, min(nframes, len(idx)))):
        if len(part):
            o = codec.key_order(K[part])
            frames.append(codec.encode(K[part][o], P[part][o]))
    return frames


def _bucket_measure(frames, rows, D, cols, keep, nfiles: int, workers: int = 1,
                    passes: int = 8, per_worker: int = 8, rounds: int = 3,
                    fork: bool = False) -> dict:
    """Phase 2 and the check of one synthetic bucket, as the run's workers run them.

    ``workers`` fresh interpreters at once (the run's tasks share the cores, caches and
    memory bandwidth with the other workers'; no fork: a forked child pays copy-on-write
    faults a worker does not), each with the frames written as ``nfiles`` phase-1 files
    of one bucket, run ``passes`` times: the phase-2 task (``_run_group``: reads, first
    rows, Parquet shard) and the shard check (``check.check_shards``), CPU each.  A worker's
    first passes are slower (Parquet's first use, a heap growing to its working size):
    the steady cost is the median of the second half of the passes, and the excess over
    it of the first ``per_worker`` passes (the buckets one worker runs) is paid once per
    worker.  ``rounds`` such rounds one after another (a worker's first passes vary from
    process to process), averaged over every interpreter."""
    import pickle
    import shutil
    import statistics

    tmp = Path(tempfile.mkdtemp(prefix="predict-bucket-"))
    try:
        blob = pickle.dumps({"frames": frames, "rows": [list(r) for r in rows], "D": D,
                             "cols": list(cols), "keep": keep, "nfiles": nfiles,
                             "passes": passes})
        if os.environ.get("BENCH_SCALE_KEEP_BUCKET"):  # to re-time it: _bucket DIR
            Path(os.environ["BENCH_SCALE_KEEP_BUCKET"]).write_bytes(blob)
        res = []
        # rounds one after another, workers at once in each (none when forking)
        for rnd in range(0 if fork else rounds):
            procs = []
            for w in range(max(1, workers)):
                d = tmp / f"{rnd}-{w}"
                d.mkdir()
                (d / "in.pkl").write_bytes(blob)
                procs.append(subprocess.Popen(
                    [sys.executable, __file__, "_bucket", str(d)],
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                    env={**os.environ, "PYTHONPATH": str(ROOT)}))
            for p in procs:
                out, err = p.communicate()
                if p.returncode:
                    raise RuntimeError(f"bucket measure failed: {err[-2000:]}")
                res.append(json.loads(out.strip().splitlines()[-1]))
        if fork:  # one forked child (no interpreter start; the cheap prediction)
            d = tmp / "fork"
            d.mkdir()
            (d / "in.pkl").write_bytes(blob)
            res.append(_forked(_bucket_child, str(d))[0])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    def split(passes_s):  # the excess of a worker's first ``per_worker`` buckets
        steady = statistics.median(passes_s[len(passes_s) // 2:])
        return steady, sum(max(0.0, x - steady) for x in passes_s[:per_worker])

    p2 = [split(r["phase2_passes_s"]) for r in res]
    ce = [split(r["certify_passes_s"]) for r in res]
    mean = statistics.fmean
    return {"phase2_s": mean(x for x, _ in p2), "phase2_excess_s": mean(y for _, y in p2),
            "certify_s": mean(x for x, _ in ce), "certify_excess_s": mean(y for _, y in ce),
            "check_task_fixed_s": mean(r["check_task_fixed_s"] for r in res),
            "rows_out": res[0]["rows_out"], "shard_bytes": res[0]["shard_bytes"],
            "files": res[0]["files"], "interpreters": len(res),
            "phase2_passes_s": [r["phase2_passes_s"] for r in res],
            "certify_passes_s": [r["certify_passes_s"] for r in res]}


def _bucket_child(folder: str) -> dict:
    """The child side of :func:`_bucket_measure` (``bench_scale.py _bucket DIR``)."""
    import pickle

    import numpy as np

    from logitgeom.geometry.stream import check as scheck
    from logitgeom.geometry.stream import codec, phases
    from logitgeom.run import worker

    tmp = Path(folder)
    a = pickle.loads((tmp / "in.pkl").read_bytes())
    work, shards = tmp / "work", tmp / "shards"
    work.mkdir()
    shards.mkdir()
    worker.one_blas_thread()
    k, x, _ = codec.decode(a["frames"][0], 0)  # phase-1 work a worker did before
    codec.encode(k, x)
    parts = np.array_split(np.arange(len(a["frames"])), max(1, a["nfiles"]))
    nf = 0
    for part in parts:
        if len(part):
            out = codec.BatchWriter(1, 0)
            out.frames[0] = [a["frames"][i] for i in part]
            out.commit(codec.batch_path(work, nf))
            nf += 1
    cols, D = tuple(a["cols"]), a["D"]
    hyper = tuple(tuple(r) for r in a["rows"])
    keep = tuple(a["keep"]) if a["keep"] is not None else None
    p2, ce, fixed = [], [], []
    import ctypes

    trim = ctypes.CDLL("libc.so.6").malloc_trim
    # phase 2 passes, then check passes: as a run does its steps (the other workers
    # meanwhile run the same step, which the concurrent interpreters reproduce)
    for _ in range(a["passes"]):
        # as a worker's task starts (logitgeom.run.worker.task_start): the free heap returned
        trim(0)
        c0 = time.process_time()
        v = phases.run_group(phases.GroupTask(0, 1, 0, nf, str(work), str(shards), cols, D))
        p2.append(time.process_time() - c0)
    for _ in range(a["passes"]):
        c0 = time.process_time()
        scheck.check_normals(hyper, cols, D)
        fixed.append(time.process_time() - c0)
        trim(0)
        c0 = time.process_time()
        r = scheck.check_shards(scheck.CheckTask(0, 1, 1, str(shards), hyper, cols, D, keep))
        ce.append(max(0.0, time.process_time() - c0 - fixed[-1]))
        assert not r["0"]["failed"], r
    rows_out = v["buckets"]["0"]["rows"]
    return {"phase2_first_s": p2[0], "phase2_s": float(np.median(p2[1:])),
            "certify_first_s": ce[0], "certify_s": float(np.median(ce[1:])),
            "check_task_fixed_s": float(np.median(fixed)), "rows_out": rows_out,
            "shard_bytes": codec.shard_path(shards, 0).stat().st_size, "files": nf,
            "phase2_passes_s": [round(x, 4) for x in p2],
            "certify_passes_s": [round(x, 4) for x in ce]}


def _unit_frame(rows, path, keep, exact) -> bytes:
    """A unit's rows as one phase-1 frame (sorted by sign words)."""
    from logitgeom.geometry.stream import codec, phases
    K, P = phases.unit_rows(rows, path, exact, keep)
    o = codec.key_order(K)
    return codec.encode(K[o], P[o])


def _group_measure(frame: bytes, rows: int, D: int, cols) -> int:
    """A phase-2 bucket of ``rows`` rows (copies of one frame) written as a shard."""
    from logitgeom.geometry.stream import codec, phases
    n = codec.FRAME.unpack_from(frame, 0)[0]
    frames = [codec.decode(frame, 0)[:2] for _ in range(max(1, round(rows / max(n, 1))))]
    tmp = Path(tempfile.mkdtemp(prefix="predict-group-"))
    try:
        return phases.write_shard(phases.GroupTask(0, 1, 0, 0, str(tmp), str(tmp), tuple(cols), D),
                              0, frames)
    finally:
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)


def _worker_baseline_mb() -> float:
    """Peak memory of a fresh interpreter that imported what a worker imports."""
    code = ("import numpy, pyarrow, pyarrow.parquet, logitgeom.geometry.stream, threadpoolctl; "
            "print([int(x.split()[1]) for x in open('/proc/self/status') "
            "if x.startswith('VmHWM:')][0])")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True)
    return int(p.stdout.split()[-1]) / 1024


def _batch_measure(rows, plan, lohi, exact, keep, buckets):
    """One phase-1 batch task (units lo..hi-1) into a temporary directory."""
    from logitgeom.geometry.stream import phases
    from logitgeom.geometry.stream import plan as splan
    work = Path(tempfile.mkdtemp(prefix="predict-batch-"))
    try:
        (work / "plan.json").write_text(json.dumps({"hyperplanes": [list(r) for r in rows],
                                                    "units": [list(p) for p in plan]}))
        phases.run_batch(phases.BatchTask(0, lohi[0], lohi[1], str(work), exact, keep, buckets,
                                  splan.FLUSH_ROWS))
    finally:
        import shutil

        shutil.rmtree(work, ignore_errors=True)


def spread(name: str, workers: int = 1, runs: int = 4) -> dict:
    """``runs`` identical full runs of instance ``name`` (each a fresh process and a fresh
    directory): every term :func:`compare` compares a prediction with, per run, and its
    min, max and max / min.  A term whose own runs differ by more than 20 % cannot be
    predicted within 20 % of every run (scale-log.md)."""
    import shutil

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    # the same child as kill_resume's: run_case under a name outside CASES, so the
    # instance's own name never overrides ``workers``
    code = _KR_RUN.format(bench=str(ROOT / "benchmarks"), name=name, workers=workers)
    terms: dict[str, list[float]] = {}
    for _ in range(runs):
        out = Path(tempfile.mkdtemp(prefix="bench_spread_"))
        try:
            p = subprocess.run([sys.executable, "-c", code, str(out / "run")], env=env,
                               capture_output=True, text=True, check=True)
        finally:
            shutil.rmtree(out, ignore_errors=True)
        row = json.loads(p.stdout.strip().splitlines()[-1])
        s = row["steps"]
        got = {k: v for k, v in measured_terms(row).items() if k.endswith("_cpu_s")}
        got |= {"phase1_task_mb": s["phase1"]["max_task_rss_mb"],
                "phase2_task_mb": s["phase2"]["max_task_rss_mb"]}
        for k, v in got.items():
            terms.setdefault(k, []).append(round(v, 3))
    return {"case": name, "workers": workers, "runs": runs,
            "terms": {k: {"runs": v, "min": min(v), "max": max(v),
                          "max_over_min": round(max(v) / min(v), 2) if min(v) else None}
                      for k, v in terms.items()}}


def measured_terms(row: dict) -> dict:
    """The terms of a full run's report (``run_case``) a prediction is compared on."""
    s = row["steps"]
    return {"count_cpu_s": s["count"]["cpu_driver"] + s["count"].get("cpu_tasks", 0),
            "phase1_cpu_s": s["phase1"]["cpu_tasks"],
            "merge_cpu_s": s.get("merge", {}).get("cpu_tasks", 0.0),
            "phase2_cpu_s": s["phase2"]["cpu_tasks"],
            "certify_cpu_s": s["certify"]["cpu_tasks"], "total_cpu_s": row["cpu_s"],
            "regions": row["regions"], "phase1_disk_gb": s["phase1"]["bytes"] / 1e9,
            "peak_work_disk_gb": s.get("disk", {}).get("work_peak_bytes", 0) / 1e9,
            "shards_disk_gb": row["bytes_per_region_on_disk"] * row["regions"] / 1e9}


def compare(pred: dict, row: dict) -> dict:
    """Predicted (mean +- sd) against measured, per term, from a full run's report."""
    s = row["steps"]
    meas = measured_terms(row)
    out = {}
    for k, v in meas.items():
        p = pred["terms"][k]
        out[k] = {"predicted": round(p["mean"], 3), "sd": round(p["sd"], 3),
                  "measured": round(v, 3),
                  "error_pct": round(100 * (p["mean"] - v) / v, 1) if v else None}
    for k, v in (("phase1_task_mb_predicted", s["phase1"]["max_task_rss_mb"]),
                 ("phase2_task_mb_predicted", s["phase2"]["max_task_rss_mb"])):
        if k in pred:
            out[k] = {"predicted": pred[k], "measured": v,
                      "error_pct": round(100 * (pred[k] - v) / v, 1) if v else None}
    # what one task adds to its worker (peak less start; recorded in worker processes,
    # so a serial run, whose tasks run in the driver, has no such figure)
    if (row.get("workers") or 1) > 1:
        for k, step, v in (("phase1_task_added_mb", "phase1", pred["largest_batch"]["added_mb"]),
                           ("phase2_task_added_mb", "phase2", pred.get("phase2_added_mb"))):
            m = s[step].get("max_task_added_mb")
            if m and v is not None:
                out[k] = {"predicted": v, "measured": m,
                          "error_pct": round(100 * (v - m) / m, 1)}
    return out


# ----------------------------------------------------------------------------- kill/resume


_KR_RUN = """
import json, sys, time, resource
sys.path.insert(0, {bench!r})
import bench_scale as b
W, kind = b._instance({name!r})
row = b.run_case("kill-resume", sys.argv[1], W=W, kind=kind, workers={workers})
print(json.dumps(row))
"""


def kill_resume(name: str, out: str, workers: int = 2) -> dict:
    """Run ``name`` to completion in ``out``, killed by SIGKILL once in each step (phase 1,
    phase 2, certification) at the first recorded task and resumed each time; then an
    uninterrupted run in ``out``-ref; the shards must be byte-identical.  The kill is sent
    by the run to itself (``LOGITGEOM_STORE_KILL``) once the step's first task is recorded:
    a deterministic point, with the same effect as a kill from outside (no cleanup runs;
    pool workers die with the driver)."""
    import signal

    code = _KR_RUN.format(bench=str(ROOT / "benchmarks"), name=name, workers=workers)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    sessions = []
    for step in ("phase1", "phase2", "certify", None):
        e = dict(env)
        if step:
            e["LOGITGEOM_STORE_KILL"] = f"{step}:1:{int(signal.SIGKILL)}"
        t0 = time.perf_counter()
        p = subprocess.run([sys.executable, "-c", code, out], env=e, capture_output=True,
                           text=True)
        ru = resource.getrusage(resource.RUSAGE_CHILDREN)
        m = json.loads((Path(out) / "manifest.json").read_text())
        sessions.append({"killed_in": step, "returncode": p.returncode,
                         "wall_s": round(time.perf_counter() - t0, 1),
                         "units_done": len(m["units_done"]),
                         "buckets_done": len(m["buckets_done"]),
                         "certified": len(m.get("certified", {})),
                         "complete": m["complete"],
                         "children_cpu_s_cumulative": round(ru.ru_utime + ru.ru_stime, 1),
                         "children_peak_rss_mb": round(ru.ru_maxrss / 1024, 1)})
        if step is None:
            final = json.loads(p.stdout.strip().splitlines()[-1])
    ref = out.rstrip("/") + "-ref"
    p = subprocess.run([sys.executable, "-c", code, ref], env=env, capture_output=True,
                       text=True)
    reference = json.loads(p.stdout.strip().splitlines()[-1])
    a = sorted((Path(out) / "shards").glob("part-*.parquet"))
    b = sorted((Path(ref) / "shards").glob("part-*.parquet"))
    same = [x.name for x in a] == [y.name for y in b] and all(
        x.read_bytes() == y.read_bytes() for x, y in zip(a, b, strict=True))
    return {"instance": name, "sessions": sessions, "byte_identical": same,
            "resumed_final_session": final, "uninterrupted": reference}


_KV_RUN = """
import json, sys
sys.path.insert(0, {root!r})
sys.path.insert(0, {bench!r})
import os
import bench_scale as b
from logitgeom.geometry.stream import plan as splan
from logitgeom.geometry.stream import enumerate_to_dir
from logitgeom.run.executor import make_executor
splan.WAVE_REGIONS = int(os.environ.get("BENCH_WAVE_REGIONS", splan.WAVE_REGIONS))
W, kind = b._instance({name!r})
ex = make_executor(workers={workers})
r = enumerate_to_dir(W, sys.argv[1], kind=kind, executor=ex, progress=False, resume=True,
                     keep_work=True)
ex.shutdown()
print(json.dumps({{"regions": r.count, "complete": r.complete}}))
"""


def _dir_bytes(path: Path) -> int:
    tot = 0
    for sub in ("work", "shards"):
        try:
            with os.scandir(path / sub) as it:
                for e in it:
                    try:
                        tot += e.stat().st_size
                    except OSError:
                        pass
        except OSError:
            pass
    return tot


def _watched(cmd: list[str], env: dict, out: Path, log) -> dict:
    """Run ``cmd`` in its own process group, sampling every 2 s the CPU and RSS of every
    process in the group and the bytes under ``out``; kill what is left of the group when
    the leader exits (pool workers orphaned by a SIGKILL of the leader)."""
    import psutil

    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=log, text=True,
                         start_new_session=True)
    cpu: dict[int, float] = {}
    rss: dict[int, float] = {}
    peak_disk = 0
    while p.poll() is None:
        try:
            procs = [psutil.Process(p.pid), *psutil.Process(p.pid).children(recursive=True)]
        except psutil.Error:
            procs = []
        for q in procs:
            try:
                t = q.cpu_times()
                cpu[q.pid] = t.user + t.system
                rss[q.pid] = max(rss.get(q.pid, 0), q.memory_info().rss / 2**20)
            except psutil.Error:
                pass
        peak_disk = max(peak_disk, _dir_bytes(out))
        time.sleep(2)
    stdout = p.stdout.read()
    try:
        os.killpg(p.pid, 9)  # orphaned workers of a killed leader (our own group only)
    except ProcessLookupError:
        pass
    return {"returncode": p.returncode, "wall_s": round(time.perf_counter() - t0, 1),
            "cpu_s_sampled": round(sum(cpu.values()), 1),
            "peak_rss_mb_sampled": round(max(rss.values(), default=0), 1),
            "peak_disk_gb_sampled": round(peak_disk / 1e9, 3), "stdout": stdout[-2000:]}


def kill_verify(name: str, out: str, workers: int, kills: list[str]) -> dict:
    """One run of ``name`` in ``out`` (process pool of ``workers``, phase-1 files kept),
    killed by SIGKILL at each point of ``kills`` (``step:n``: once ``n`` tasks of the step
    are recorded) and resumed, then finished.  After each kill the manifest's finished
    tasks and the temporary files left by the tasks in flight are recorded (they tell
    which pieces were redone); :func:`verify_pieces` recomputes those pieces independently.
    For instances too big for a second, uninterrupted reference run."""
    code = _KV_RUN.format(root=str(ROOT), bench=str(ROOT / "benchmarks"), name=name,
                          workers=workers)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    root = Path(out)
    report: dict = {"instance": name, "workers": workers, "sessions": []}
    rpath = Path(str(root).rstrip("/") + ".killverify.json")
    with open(str(root).rstrip("/") + ".sessions.log", "a") as log:
        for spec in [*kills, None]:
            e = dict(env)
            if spec:
                e["LOGITGEOM_STORE_KILL"] = f"{spec}:9"
            s = _watched([sys.executable, "-c", code, str(root)], e, root, log)
            m = json.loads((root / "manifest.json").read_text())
            s.update({"killed_at": spec, "batches_done": sorted(int(i) for i in
                                                                m.get("batches_done", {})),
                      "groups_done": sorted(int(i) for i in m.get("groups_done", {})),
                      "certified": sorted(int(i) for i in m.get("certified", {})),
                      "leftovers": sorted(
                          f"{d}/{x}" for d in ("work", "shards") if (root / d).exists()
                          for x in os.listdir(root / d) if x.startswith("."))})
            report["sessions"].append(s)
            rpath.write_text(json.dumps(report, indent=1))
        report["manifest_steps"] = m.get("steps")
        report["complete"] = m.get("complete")
        report["rows"] = m.get("rows_written")
        rpath.write_text(json.dumps(report, indent=1))
    return report


_VERIFY = """
import json, os, random, shutil, sys, tempfile
from pathlib import Path
sys.path.insert(0, {engine!r})
from logitgeom.geometry.stream import check as scheck, codec, phases, plan as splan
root = Path({out!r})
rep = json.loads(Path({report!r}).read_text())
m = json.loads((root / "manifest.json").read_text())
Hc = tuple(tuple(h) for h in m["arrangement"]["hyperplanes"])
est = splan.unit_bounds(Hc, m["units"])
rng = random.Random(24)
sample = lambda pop, k: rng.sample(pop, min(k, len(pop)))  # noqa: E731
tmp = Path(tempfile.mkdtemp(dir=str(root.parent), prefix=".verify-"))
(tmp / "work").mkdir(); (tmp / "shards").mkdir()
(tmp / "work" / "plan.json").write_text(json.dumps({{"hyperplanes": m["arrangement"]["hyperplanes"],
                                                     "units": m["units"]}}))
out = {{"engine": {engine!r}, "checks": []}}
sess = {{s["killed_at"].split(":")[0]: s for s in rep["sessions"] if s["killed_at"]}}

def in_flight(step, order, recorded, extra=4):
    # the first unrecorded tasks in submission order, and the batches whose temporary
    # files the kill left behind
    left = {{int(x.split(".tmp-b")[1][:6]) for x in sess[step]["leftovers"] if ".tmp-b" in x}}
    near = [x for x in order[:len(recorded) + extra] if x not in recorded]
    return near + sorted(left - set(near))

def check(kind, piece, why, same, detail=""):
    out["checks"].append({{"step": kind, "piece": piece, "why": why, "identical": same,
                          "detail": detail}})
    print(kind, piece, why, same, detail, flush=True)

# phase 1: batches
w0lo, w0hi = m["waves"][0]
size = {{i: est[lo:hi].sum() for i, (lo, hi) in enumerate(m["batches"])}}
order = sorted(range(w0lo, w0hi), key=lambda i: -size[i])
near = in_flight("phase1", order, set(sess["phase1"]["batches_done"]))
others = sample([i for i in range(len(m["batches"])) if i not in near], 4)
for i, why in [*[(i, "in flight at the kill") for i in near], *[(i, "random") for i in others]]:
    lo, hi = m["batches"][i]
    phases.run_batch(phases.BatchTask(i, lo, hi, str(tmp / "work"), m["mode"] == "exact", None,
                              m["buckets"], splan.FLUSH_ROWS))
    a, b = codec.batch_path(tmp / "work", i), codec.batch_path(root / "work", i)
    check("phase1", f"batch {{i}}", why, a.read_bytes() == b.read_bytes(),
          f"{{b.stat().st_size}} bytes")
    a.unlink()
# merges of wave 0 (inputs: the batch files of wave 0); the session record has no merge
# list: the first recorded-at-kill + 4 tasks in submission (group) order are all checked
groups = m["groups"]
gorder = [lo for lo, _ in groups]
if "merge" in sess:
    n = int(sess["merge"]["killed_at"].split(":")[1])
    near = gorder[:n + 4]
    others = sample([lo for lo in gorder if lo not in near], 2)
    for lo, why in [*[(x, "recorded or in flight at the kill") for x in near],
                    *[(x, "random") for x in others]]:
        hi = dict(groups)[lo]
        name = codec.merged_name(lo, 0)
        phases.run_group(phases.GroupTask(lo, hi, w0lo, w0hi, str(root / "work"), "", (), 0,
                                  into=str(tmp / "work" / name), buckets=m["buckets"]))
        a, b = tmp / "work" / name, root / "work" / name
        check("merge", f"group {{lo}}", why, a.read_bytes() == b.read_bytes(),
              f"{{b.stat().st_size}} bytes")
        a.unlink()
# phase 2: shards of groups
nw = m["waves_merged"]
blo = m["waves"][nw][0]
near = [lo for lo in gorder[:len(sess["phase2"]["groups_done"]) + 4]
        if lo not in set(sess["phase2"]["groups_done"])]
others = sample([lo for lo in gorder if lo not in near], 4)
for lo, why in [*[(x, "in flight at the kill") for x in near], *[(x, "random") for x in others]]:
    hi = dict(groups)[lo]
    merged = codec.merged_name(lo, m["merged"][str(lo)]) if str(lo) in m["merged"] else None
    phases.run_group(phases.GroupTask(lo, hi, blo, len(m["batches"]), str(root / "work"),
                              str(tmp / "shards"), tuple(m["arrangement"]["cols"]),
                              m["arrangement"]["D"], merged=merged))
    same = all(codec.shard_path(tmp / "shards", p).read_bytes() ==
               codec.shard_path(root / "shards", p).read_bytes() for p in range(lo, hi))
    check("phase2", f"buckets {{lo}}..{{hi - 1}}", why, same)
    for p in range(lo, hi):
        codec.shard_path(tmp / "shards", p).unlink()
# certification: verdicts of shard groups
st = splan.setup(m["kind"], m["input"]["W"], m["input"]["bias"], count=False)
red = st.red
cert = m["certified"]
crec = set(sess["certify"]["certified"])
B = m["buckets"]
near = [p for p in range(min(B, len(crec) + 4)) if p not in crec]
others = sample([p for p in range(B) if p not in near], 4)
for p, why in [*[(x, "in flight at the kill") for x in near], *[(x, "random") for x in others]]:
    v = scheck.check_shards(scheck.CheckTask(p, p + 1, B, str(root / "shards"), red.hyperplanes,
                                     red.cols, red.D, st.keep))[str(p)]
    same = (v["rows"], v["failed"]) == (cert[str(p)]["rows"], cert[str(p)]["failed"])
    check("certify", f"shard {{p}}", why, same, f"{{v['rows']}} rows")
shutil.rmtree(tmp)
out["all_identical"] = all(c["identical"] for c in out["checks"])
print(json.dumps(out))
"""


def verify_pieces(out: str, engine: str) -> dict:
    """Recompute independently (a separate process, no kill) the pieces a
    :func:`kill_verify` run redid after its kills (the tasks in flight at each kill: the
    temporary files left, and the first unrecorded tasks in submission order) and a random
    sample of the others, from the kept phase-1 files, and compare bytes (shard verdicts
    for the certification).  ``logitgeom`` is the checkout whose code the run used."""
    report = str(out).rstrip("/") + ".killverify.json"
    code = _VERIFY.format(engine=engine, out=str(out), report=report)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": engine})
    if p.returncode:
        raise SystemExit(p.stderr)
    return json.loads(p.stdout.strip().splitlines()[-1])


def main(argv: list[str]) -> int:
    guard(argv, __doc__, ("--cheap",))
    if argv[:1] == ["_bucket"]:
        print(json.dumps(_bucket_child(argv[1])))
        return 0
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
    if argv[:1] == ["kill-resume"]:  # kill-resume NAME OUT [WORKERS]
        print(json.dumps(kill_resume(argv[1], argv[2], int(argv[3]) if len(argv) > 3 else 2),
                         indent=1))
        return 0
    if argv[:1] == ["kill-verify"]:  # kill-verify NAME OUT WORKERS step:n [step:n ...]
        print(json.dumps(kill_verify(argv[1], argv[2], int(argv[3]), argv[4:]), indent=1))
        return 0
    if argv[:1] == ["verify-pieces"]:  # verify-pieces OUT ENGINE_ROOT
        print(json.dumps(verify_pieces(argv[1], argv[2]), indent=1))
        return 0
    if argv[:1] == ["run"]:  # run NAME OUT [WORKERS]: a named instance, in full
        W, kind = _instance(argv[1])
        print(json.dumps(run_case(argv[1], argv[2], W=W, kind=kind,
                                  workers=int(argv[3]) if len(argv) > 3 else 1)))
        return 0
    if argv[:1] == ["calibrate"]:
        print(json.dumps(calibrate(argv[1]), indent=1))
        return 0
    if argv[:1] == ["spread"]:  # spread NAME [WORKERS] [RUNS]: identical runs, every term
        print(json.dumps(spread(argv[1], int(argv[2]) if len(argv) > 2 else 1,
                                int(argv[3]) if len(argv) > 3 else 4), indent=1))
        return 0
    if argv[:1] == ["predict2"]:  # predict2 NAME [UNITS] [report.json to compare with]
        cheap = "--cheap" in argv
        argv = [a for a in argv if a != "--cheap"]
        W, kind = _instance(argv[1])
        report = json.loads(Path(argv[3]).read_text()) if len(argv) > 3 else None
        pred = predict(W, kind, units=int(argv[2]) if len(argv) > 2 and argv[2] != "-"
                       else None, workers=(report or {}).get("workers") or 2,
                       wave_plan=(report or {}).get("waves"), cheap=cheap)
        if report is not None:
            pred["validation"] = compare(pred, report)
            pred["validation"]["predictor_cpu_fraction"] = round(
                pred["predictor_cpu_s"] / report["cpu_s"], 3)
        print(json.dumps(pred, indent=1))
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
