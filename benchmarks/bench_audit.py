"""Benchmark of the argmax audit on synthetic LM heads with planted unargmaxable labels.

Builds (once, cached in --cache) a memory-mappable ``model.safetensors`` holding a float32
head of the requested shape: Gaussian rows on a 2^-12 grid (so the planted combinations are
exact in float32) with planted labels that are never the argmax:

* midpoints w_k = (w_a + w_b) / 2 (Gordan support 2);
* averages w_k = (w_a + w_b + w_c + w_d) / 4 (support 4);
* shrunken rows w_k = w_a / 32 (deep inside the hull; support up to d + 1; three of them);
* ``--triangles`` (default 200) near-boundary labels w_k = float32(l_a w_a + l_b w_b + l_c w_c)
  with random convex weights l: the float32 rounding moves them off the triangle by about
  1e-8, so each is argmaxable or never by a hair; every one must be *decided* (no verdict is
  expected in advance; the exact proofs say which).

With the defaults at 50,257 x 768 there are 40 midpoints + 40 averages + 3 shrunken = 83
deep-interior labels and 200 triangle labels.

Then runs ``audit_argmax`` on the model folder twice: on the ordinary labels (all, or a random
``--fraction`` of them) and on the planted ones; reports wall and CPU time, CPU time per label
by stage, peak RSS, the verdict counts (triangle labels argmaxable / never), whether every
deep-interior planted label was proven never-argmax, and checks with the stdlib checker every
planted never-proof, the planted witnesses (all, or ``--planted-witnesses N`` of them: each
costs O(n d) Python integer work) and a random sample of the ordinary labels' proofs.
The total for the whole head is (deciding CPU per ordinary label) x (ordinary labels) + the
rest of the ordinary run (load, tables, certificate, self-check; counted once) + the CPU of
the planted run, which always runs in full.

    python benchmarks/bench_audit.py --rows 50257 --cols 768 [--fraction 0.1] [--workers N]
    python benchmarks/bench_audit.py --rows 10000 --cols 128 --triangles 60   # quick
    python benchmarks/bench_audit.py --rows 32000 --cols 4096 --fraction 0.02

``--plain`` instead audits a plain head (issue 44's acceptance shapes): full-precision normal
rows (float32 of a standard normal times 0.02, or ``--dtype bf16`` / ``f16`` rounded from the
same float32 values; never on a grid), nothing planted, every label audited, and prints the
audit's CPU seconds (this process and its children) and its peak RSS as a multiple of the
head's stored bytes (the head is built before the peak is reset, so building it is not
counted)::

    python benchmarks/bench_audit.py --plain --rows 32000 --cols 4096
    python benchmarks/bench_audit.py --plain --rows 50257 --cols 768 [--rss-stages]

``--rss-stages`` adds the peak RSS of each stage of the audit (load, plan, screens, hard
labels, certificate, stdlib self-check, witness re-check, tables, margins.png), with the
anonymous and the file-backed (memory-mapped) parts at the stage's largest sample.

The machine is shared: CPU time is the fairer figure.  With --fraction < 1 the ordinary
labels' total is extrapolated linearly (their per-label work is independent).
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


#: Stage keys that count things, not CPU seconds.
NOT_SECONDS = ("exact_pairs", "exact_labels", "screen32_labels")
#: Stage seconds already inside another stage's (the float32 pass is part of "screen").
SUB_STAGES = ("screen32",)



def _cpu() -> float:
    """CPU s of this process and its waited-for children (user + sys): hard labels run in
    forked children, which ``time.process_time`` does not count."""
    a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime

def write_safetensors_head(file: Path, W: np.ndarray) -> None:
    """Write a float32 k x d head as ``lm_head.weight`` of a one-tensor safetensors file."""
    k, d = W.shape
    header = {"lm_head.weight": {"dtype": "F32", "shape": [k, d],
                                 "data_offsets": [0, k * d * 4]}}
    hb = json.dumps(header).encode()
    hb += b" " * (-len(hb) % 8)
    with open(file, "wb") as fh:
        fh.write(struct.pack("<Q", len(hb)))
        fh.write(hb)
        fh.write(np.ascontiguousarray(W, dtype=np.float32).tobytes())


def build_head(path: Path, k: int, d: int, seed: int = 0, n_plant: int | None = None,
               n_shrunken: int = N_SHRUNKEN, n_triangle: int = 0) -> dict:
    """Write model.safetensors with planted labels; return {label: kind}."""
    rng = np.random.default_rng(seed)
    meta_path = path / "planted.json"
    if (path / "model.safetensors").exists() and meta_path.exists():
        return {int(a): b for a, b in json.loads(meta_path.read_text()).items()}
    path.mkdir(parents=True, exist_ok=True)
    W = np.empty((k, d), dtype=np.float32)
    step = max(1, (1 << 24) // d)
    for r0 in range(0, k, step):
        r1 = min(k, r0 + step)
        W[r0:r1] = np.round(rng.standard_normal((r1 - r0, d)) * 4096.0) / 4096.0
    if n_plant is None:
        n_plant = max(4, min(40, k // 1000))
    labels = rng.choice(k, size=2 * n_plant + n_shrunken + n_triangle, replace=False)
    planted: dict[int, str] = {}
    pool = np.setdiff1d(np.arange(k), labels)
    for n, lab in enumerate(labels.tolist()):
        src = rng.choice(pool, size=4, replace=False)
        if n >= 2 * n_plant + n_shrunken:
            lam = rng.dirichlet(np.ones(3))
            W[lab] = (lam @ W[src[:3]].astype(np.float64)).astype(np.float32)
            planted[lab] = "triangle"
        elif n >= 2 * n_plant:
            W[lab] = W[src[0]] / np.float32(32)
            planted[lab] = "shrunken"
        elif n % 2 == 0:
            W[lab] = (W[src[0]] + W[src[1]]) / np.float32(2)
            planted[lab] = "midpoint"
        else:
            W[lab] = (W[src[0]] + W[src[1]] + W[src[2]] + W[src[3]]) / np.float32(4)
            planted[lab] = "average"
    write_safetensors_head(path / "model.safetensors", W)
    meta_path.write_text(json.dumps({str(a): b for a, b in sorted(planted.items())}))
    return planted


DTYPES = {"f32": ("F32", 4), "bf16": ("BF16", 2), "f16": ("F16", 2)}


def bf16_bits(W: np.ndarray) -> np.ndarray:
    """The bfloat16 bit patterns (uint16) of float32 values: round to nearest, ties to even,
    on the upper 16 bits of the float32 bits (finite values; what the bf16 writers of the
    benchmarks store)."""
    u = np.ascontiguousarray(W, dtype=np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return u.astype(np.uint16)


def build_plain_head(path: Path, k: int, d: int, dtype: str = "f32", seed: int = 0) -> Path:
    """Write (once) a plain k x d head of full-precision normal rows as ``lm_head.weight``."""
    file = path / "model.safetensors"
    if file.exists():
        return file
    path.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    name, size = DTYPES[dtype]
    header = {"lm_head.weight": {"dtype": name, "shape": [k, d],
                                 "data_offsets": [0, k * d * size]}}
    hb = json.dumps(header).encode()
    hb += b" " * (-len(hb) % 8)
    tmp = path / "model.safetensors.part"
    with open(tmp, "wb") as fh:
        fh.write(struct.pack("<Q", len(hb)))
        fh.write(hb)
        step = max(1, (1 << 22) // d)
        for r0 in range(0, k, step):
            r1 = min(k, r0 + step)
            W = rng.standard_normal((r1 - r0, d), dtype=np.float32) * np.float32(0.02)
            if dtype == "f16":
                W = W.astype(np.float16)
            elif dtype == "bf16":
                W = bf16_bits(W)
            fh.write(np.ascontiguousarray(W).tobytes())
    tmp.rename(file)
    return file


def _reset_peak_rss() -> None:
    """Reset this process's peak RSS (Linux: VmHWM), so building the head is not counted."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass


def _peak_rss_bytes() -> int:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _status_kb(*keys: str) -> dict:
    out = {}
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            key = line.split(":")[0]
            if key in keys:
                out[key] = int(line.split()[1])
    except OSError:
        pass
    return out


class StageRss:
    """Peak RSS by stage of the audit (``--rss-stages``): the audit's stage functions are
    wrapped so that each change of stage reads this process's peak (VmHWM) for the segment
    just ended and resets it; a stage's peak is the largest over its segments.  A sampler
    thread (every 10 ms) records the file-backed (the memory-mapped head) and anonymous
    parts of the resident set at the largest sample of each stage."""

    #: (module, function, stage name) wrapped for the breakdown.
    POINTS = (("logitgeom.audit.run", "load_source", "load"),
              ("logitgeom.audit.run", "_plan", "plan"),
              ("logitgeom.audit.run", "_decide", "decide (other)"),
              ("logitgeom.audit.run", "_block_unit", "decide: screens"),
              ("logitgeom.audit.run", "_label_unit", "decide: hard labels"),
              ("logitgeom.audit.run", "_certify", "certify (other)"),
              ("logitgeom.certify.audit", "audit_certificate", "certify: build"),
              ("logitgeom.certify.audit", "self_check", "certify: stdlib self-check"),
              ("logitgeom.audit.proofs", "recheck_witnesses", "certify: witness re-check"),
              ("logitgeom.audit.run", "_write_outputs", "write (other)"),
              ("logitgeom.audit.report", "write_table", "write: tables"),
              ("logitgeom.audit.report", "plot_margins", "write: margins.png"))

    def __init__(self):
        import importlib
        import threading

        self.stack = ["before"]
        self.peak: dict[str, int] = {}
        self.split: dict[str, tuple[int, int, int]] = {}
        self.saved = []
        for mod, fn, name in self.POINTS:
            m = importlib.import_module(mod)
            orig = getattr(m, fn)
            setattr(m, fn, self._wrap(orig, name))
            self.saved.append((m, fn, orig))
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._sample, daemon=True)
        _reset_peak_rss()
        self.thread.start()

    def _mark(self) -> None:
        kb = _status_kb("VmHWM").get("VmHWM", 0) * 1024
        top = self.stack[-1]
        self.peak[top] = max(self.peak.get(top, 0), kb)
        _reset_peak_rss()

    def _wrap(self, fn, name):
        def wrapped(*a, **kw):
            self._mark()
            self.stack.append(name)
            try:
                return fn(*a, **kw)
            finally:
                self._mark()
                self.stack.pop()
        return wrapped

    def _sample(self) -> None:
        while not self.stop.wait(0.01):
            st = _status_kb("VmRSS", "RssAnon", "RssFile")
            top = self.stack[-1]
            rss = st.get("VmRSS", 0)
            if rss > self.split.get(top, (0, 0, 0))[0]:
                self.split[top] = (rss, st.get("RssAnon", 0), st.get("RssFile", 0))

    def finish(self) -> int:
        """Restore the functions; print the table; return the overall peak (bytes)."""
        self._mark()
        self.stop.set()
        self.thread.join()
        for m, fn, orig in self.saved:
            setattr(m, fn, orig)
        print("peak RSS by stage (MB; anonymous + file-backed at the stage's largest 10 ms "
              "sample):")
        for _mod, _fn, name in (("", "", "before"),) + self.POINTS:
            if name in self.peak:
                rss, anon, file = self.split.get(name, (0, 0, 0))
                print(f"  {name:32s} {self.peak[name] / 1e6:7.0f}   (sample {rss / 1e3:.0f} = "
                      f"{anon / 1e3:.0f} anon + {file / 1e3:.0f} file)")
        return max(self.peak.values())


def run_plain(args) -> int:
    """The plain-head run: every label, CPU seconds and peak RSS / head bytes."""
    from logitgeom.audit import audit_argmax
    from logitgeom.run.executor import make_executor

    k, d = args.rows, args.cols
    model = Path(args.cache) / f"plain-{k}x{d}-{args.dtype}"
    t0 = time.perf_counter()
    build_plain_head(model, k, d, args.dtype)
    head_bytes = k * d * DTYPES[args.dtype][1]
    print(f"plain head {k} x {d} {args.dtype} at {model} ({head_bytes / 1e6:.0f} MB) "
          f"[{time.perf_counter() - t0:.1f} s to build/load]", flush=True)
    out = Path(args.cache) / f"out-plain-{k}x{d}-{args.dtype}"
    if out.exists():
        import shutil

        shutil.rmtree(out)
    ex = make_executor(workers=args.workers)
    _reset_peak_rss()
    stages = StageRss() if args.rss_stages else None
    r0, c0 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(
        resource.RUSAGE_CHILDREN)
    w0 = time.perf_counter()
    try:
        if args.bias:  # the head as an array (a checkpoint's bias would be a tensor name)
            file = model / "model.safetensors"
            with open(file, "rb") as fh:
                hlen = struct.unpack("<Q", fh.read(8))[0]
            W = np.memmap(file, dtype=np.float32, mode="r", offset=8 + hlen, shape=(k, d))
            bias = (np.random.default_rng(1).standard_normal(k) * args.bias).astype(
                np.float32).tolist()  # (audit_argmax refuses an ndarray bias: "not in")
            res = audit_argmax(W, bias=bias, out=out, executor=ex, progress=False,
                               block_size=args.block)
        else:
            res = audit_argmax(model, out=out, executor=ex, progress=False,
                               block_size=args.block)
    finally:
        if ex is not None:
            ex.shutdown()
    wall = time.perf_counter() - w0
    r1, c1 = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(
        resource.RUSAGE_CHILDREN)
    cpu = sum(b.ru_utime + b.ru_stime - a.ru_utime - a.ru_stime
              for a, b in ((r0, r1), (c0, c1)))
    peak = _peak_rss_bytes() if stages is None else stages.finish()
    print("\n".join(res.summary()))
    st = res.stage_seconds
    print("  CPU s by stage: " + ", ".join(f"{key} {v:.1f}" for key, v in sorted(st.items())
                                          if key not in NOT_SECONDS))
    print(f"plain audit {k} x {d} {args.dtype}"
          + (f" (bias N(0, 1) x {args.bias:g})" if args.bias else "")
          + f": {len(res.labels)} labels, undecided "
          f"{len(res.undecided())}; CPU {cpu:.1f} s ({cpu / 60:.2f} CPU-min), wall {wall:.1f} s; "
          f"peak RSS {peak / 1e6:.0f} MB = {peak / head_bytes:.2f} x the head"
          + (f" (worker processes {c1.ru_maxrss / 1024:.0f} MB)" if ex is not None else ""))
    return 0 if not res.undecided() else 1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=50257)
    ap.add_argument("--cols", type=int, default=768)
    ap.add_argument("--fraction", type=float, default=1.0,
                    help="audit this fraction of the labels (planted ones always included)")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--block", type=int, default=256)
    ap.add_argument("--cache", default="/tmp/logitgeom-bench-audit")
    ap.add_argument("--plant", type=int, help="midpoints and averages to plant (each; default "
                                              "min(40, k / 1000))")
    ap.add_argument("--shrunken", type=int, default=N_SHRUNKEN,
                    help="deep-interior labels to plant (each needs an exact (d+1)-row solve)")
    ap.add_argument("--triangles", type=int, default=200,
                    help="near-boundary labels planted on triangles of other rows")
    ap.add_argument("--runs", default="planted,ordinary",
                    help="which runs: ordinary, planted or both (default)")
    ap.add_argument("--check-sample", type=int, default=3,
                    help="random non-planted labels whose proofs the stdlib checker re-checks")
    ap.add_argument("--planted-witnesses", type=int, default=None,
                    help="re-check every planted never-proof but only this many planted "
                         "witnesses (each costs O(n d) in the checker); default: all")
    ap.add_argument("--plain", action="store_true",
                    help="audit a plain full-precision head (nothing planted, every label)")
    ap.add_argument("--dtype", choices=sorted(DTYPES), default="f32",
                    help="storage of the --plain head (default f32)")
    ap.add_argument("--bias", type=float, default=0.0,
                    help="with --plain: a bias of float32 values, standard normal times this "
                         "(seed 1; default 0: no bias)")
    ap.add_argument("--no-float32-screen", action="store_true",
                    help="screens in float64 only (logitgeom.audit.screen.FLOAT32_SCREEN = "
                         "False; before/after comparisons of issue 44 item 3)")
    ap.add_argument("--rss-stages", action="store_true",
                    help="with --plain: print the peak RSS of each stage of the audit (a "
                         "sampler thread and wrapped stage functions; one process only)")
    args = ap.parse_args(argv)
    if args.bias and (not args.plain or args.dtype != "f32"):
        ap.error("--bias is an option of the --plain run of a float32 head")
    if args.rss_stages and (not args.plain or args.workers != 1):
        ap.error("--rss-stages measures one process: use it with --plain and --workers 1")
    if args.no_float32_screen:
        import logitgeom.audit.screen as screen_mod

        screen_mod.FLOAT32_SCREEN = False
    if args.plain:
        return run_plain(args)

    from logitgeom.audit import audit_argmax
    from logitgeom.run.executor import make_executor
    from logitgeom_certificates import check, check_audit  # noqa: F401 - loaded now, used at the end

    k, d = args.rows, args.cols
    model = Path(args.cache) / f"head-{k}x{d}-p{args.plant}-s{args.shrunken}-t{args.triangles}"
    t0 = time.perf_counter()
    planted = build_head(model, k, d, n_plant=args.plant, n_shrunken=args.shrunken,
                         n_triangle=args.triangles)
    print(f"head {k} x {d} float32 at {model} ({len(planted)} planted) "
          f"[{time.perf_counter() - t0:.1f} s to build/load]")
    rng = np.random.default_rng(1)
    ordinary = np.setdiff1d(np.arange(k), np.array(sorted(planted)))
    if args.fraction < 1.0:
        n = max(1, int(round(args.fraction * len(ordinary))))
        sample = sorted(rng.choice(ordinary, size=n, replace=False).tolist())
    else:
        sample = ordinary.tolist()
    runs = {"ordinary": sample, "planted": sorted(planted)}
    runs = {name: runs[name] for name in args.runs.split(",")}
    ex = make_executor(workers=args.workers)
    measured = {}
    try:
        for name, toks in runs.items():
            out = Path(args.cache) / f"out-{k}x{d}-{args.fraction}-{name}"
            if out.exists():
                import shutil

                shutil.rmtree(out)
            c0 = _cpu()
            w0 = time.perf_counter()
            res = audit_argmax(model, tokens=toks, out=out, executor=ex, progress=True,
                               block_size=args.block)
            measured[name] = (res, time.perf_counter() - w0, _cpu() - c0, out)
    finally:
        if ex is not None:
            ex.shutdown()
    rss_self = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    rss_children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    ok = True
    for name, (res, wall, cpu, out) in measured.items():
        n_lab = len(res.labels)
        print(f"--- {name} labels: {n_lab}; wall {wall:.1f} s, CPU {cpu:.1f} s "
              f"({cpu / n_lab * 1e3:.1f} ms CPU per label)")
        print("\n".join(res.summary()))
        st = res.stage_seconds
        print("  CPU ms per label by stage: " + ", ".join(
            f"{key} {v / n_lab * 1e3:.2f}" for key, v in sorted(st.items())
            if key not in NOT_SECONDS))
        print(f"  pairs decided in exact arithmetic: {st.get('exact_pairs', 0)}")
        if name == "planted":
            never = set(res.never())
            deep = [lab for lab, kind in planted.items() if kind != "triangle"]
            found = all(lab in never for lab in deep)
            tri = [lab for lab, kind in planted.items() if kind == "triangle"]
            tri_n = sum(1 for lab in tri if lab in never)
            print(f"  every deep-interior planted label ({len(deep)}) proven never-argmax: "
                  f"{found}; triangle labels: {len(tri) - tri_n} argmaxable, {tri_n} never, "
                  f"undecided {len(res.undecided())}")
            ok &= found and not res.undecided()
        else:
            print(f"  ordinary labels proven never: {res.never()[:20]}; undecided: "
                  f"{res.undecided()[:20]}")
        if name == "planted":
            only = set(res.never())
            wit = sorted(set(res.labels) - only)
            if args.planted_witnesses is not None and args.planted_witnesses < len(wit):
                wit = rng.choice(wit, size=args.planted_witnesses, replace=False).tolist()
            only |= set(wit)
        else:
            only = set(rng.choice(list(res.labels), size=min(args.check_sample, n_lab),
                                  replace=False).tolist())
        t1 = time.perf_counter()
        v = check_audit.check_file(out / "audit.json", labels=only)
        print(f"  stdlib checker, proofs of {len(only)} labels (+ hashes, structure, counts of "
              f"all {n_lab}): {v.ok} {v.failed_check or ''} [{time.perf_counter() - t1:.1f} s]")
        ok &= v.ok
    print(f"peak RSS {rss_self:.0f} MB (worker processes {rss_children:.0f} MB)")
    if set(measured) != {"ordinary", "planted"}:
        return 0 if ok else 1
    (res_o, _, cpu_o, _), (_, _, cpu_p, _) = measured["ordinary"], measured["planted"]
    # the deciding CPU (summed over blocks) scales with the number of labels; the rest of
    # the ordinary run (load, plan, tables, certificate, self-check) is counted once
    dec_o = sum(v for key, v in res_o.stage_seconds.items()
                if key not in NOT_SECONDS and key not in SUB_STAGES)
    per_o = dec_o / len(res_o.labels)
    total = per_o * len(ordinary) + (cpu_o - dec_o) + cpu_p
    note = "" if args.fraction >= 1.0 else " (ordinary labels extrapolated from the sample)"
    print(f"all {k} labels: ~{total / 60:.1f} CPU-minutes{note} = "
          f"{per_o * 1e3:.2f} ms deciding x {len(ordinary)} ordinary + {cpu_o - dec_o:.0f} s "
          f"rest of the ordinary run + {cpu_p:.0f} s for {len(planted)} planted (all of it)")
    # prediction for a 256,000 x 4,096 head from the sampled units: an ordinary label's
    # screen is one pass of W x (2 n d flops), so its CPU scales with n d
    per = per_o * (256_000 * 4096) / (k * d)
    print(f"prediction, 256,000 x 4,096: {per * 1e3:.0f} ms CPU per ordinary label x 256,000 = "
          f"{per * 256_000 / 3600:.1f} CPU-hours for the screens (divide by the number of "
          "workers), plus the LP/exact path of the labels that fail them")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
