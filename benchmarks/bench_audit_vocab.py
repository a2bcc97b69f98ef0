"""Issue 44's vocabulary-scale acceptance run: a trained-looking head with 64 planted labels.

The head (cached in --cache as ``model.safetensors``, tensor ``lm_head.weight``, stored as
``--dtype`` float32, bf16 or float64) has rows scaled as a trained head's:

* row i is ``s_i g_i / sqrt(d)``, with ``g_i`` a standard normal vector (so each entry has
  standard deviation about ``1 / sqrt(d)``: 0.0156 at d = 4,096, the size of a trained LM
  head's entries) and a per-row norm factor ``s_i = exp(sigma z_i)``, ``z_i`` standard
  normal, ``sigma = --norm-sigma`` (default 0.15): row norms log-normal around 1, spread
  as a trained head's are (a few tens of percent between common and rare tokens);
* computed in float64 and rounded once to the stored dtype, so every mantissa bit is used
  (never on a grid).  bf16 is round-to-nearest-even of the float32 bits (float64 ->
  float32 -> bf16, the writer of ``bench_audit.py --plain --dtype bf16``).

``--planted`` labels (default 64) are then placed on faces of other rows and pushed: for
each, ``m`` other rows (``--faces``, default 2,5,10: edges and 5- and 10-row faces) are read
back *as stored* (widened exactly to float64), ``p`` is a random convex combination of them
(Dirichlet(1) weights) and the label's row is ``c + (p - c)(1 + e)`` ("out") or
``c + (p - c)(1 - e)`` ("in") for a relative push ``e`` in ``--pushes`` (default 1e-2,1e-3),
all in float64, then rounded to the stored dtype.  ``c`` is the mean of the unplanted rows
(as stored): it lies inside their hull even when the origin does not (a head with fewer
than about 2 d rows has all its rows in a half-space), so before rounding "in" lies inside
the hull of the other rows and "out" outside the face.  The kinds (m, out/in, e) are taken
in turn.  The rounding to bf16 moves a row by about 1e-3 relative, as much as the smaller
push: which labels end never argmax is not known in advance; every label must be *decided*.

Every label of the head is audited (``--only-planted``: the planted ones only, the per-label
figures), in this process or on ``--workers``; then the stdlib checker re-checks the
certificate from the command line (``python -m logitgeom_certificates.check_audit
audit.json --sample N``: every never-proof and N sampled witnesses, N = the checker's
default sample unless ``--check-sample``).  Printed: the verdict counts by planted kind,
undecided count, CPU seconds by stage and in all (user + sys of this process and its
children), peak RSS (this process; its children's largest), each never-proof's bytes (its
multipliers' text, inline or in part files), rows and largest multiplier, and the check's
CPU seconds and verdict.  Exit status 0 only when nothing is undecided and the check passes.

    python benchmarks/bench_audit_vocab.py --rows 128256 --cols 4096 --dtype bf16
    python benchmarks/bench_audit_vocab.py --rows 128256 --cols 4096 --dtype float32
    python benchmarks/bench_audit_vocab.py --rows 256000 --cols 2304 --dtype bf16
    python benchmarks/bench_audit_vocab.py --rows 2000 --cols 64 --planted 12   # quick
    # one never-proof end to end (issue 44's per-label cost at d = 4,096):
    python benchmarks/bench_audit_vocab.py --rows 6000 --cols 4096 --dtype bf16 \\
        --planted 1 --faces 10 --directions in --pushes 1e-2 --only-planted --cpu-limit 900

``--cpu-limit S`` stops a process of the run when it has used S CPU seconds (RLIMIT_CPU:
this process, and separately each child it forks, such as the child in which the audit
decides a hard label; that child's stop then ends the audit with its "child process ended
without a result" error) and ``--max-rss-mb M`` stops the run when this process and its
children hold more than M MB (default 4,000; pages shared with a forked child count twice):
all threads' Python stacks are printed first, naming the stage the run was in (e.g.
``intmat.solve_square`` under ``basis_never``: the exact solve), and the run exits.  A stack
can also be had at any time with ``kill -USR1 PID``.  The machine is shared: CPU seconds are
the figures to quote, wall times are inflated.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_audit import bf16_bits  # noqa: E402  (the same bf16 rounding as --plain)

#: --dtype: (safetensors name, bytes per value, stored numpy dtype).
DTYPES = {"float32": ("F32", 4, np.float32), "bf16": ("BF16", 2, np.uint16),
          "float64": ("F64", 8, np.float64)}


# ------------------------------------------------------------------ head building
def to_stored(W: np.ndarray, dtype: str) -> np.ndarray:
    """Round float64 values to the stored form of ``dtype`` (bf16: uint16 bit patterns)."""
    if dtype == "bf16":
        return bf16_bits(W.astype(np.float32))
    return W.astype(DTYPES[dtype][2])


def widen(S: np.ndarray, dtype: str) -> np.ndarray:
    """The stored values as float64, exactly (every bf16/float32 value is a float64)."""
    if dtype == "bf16":
        return (np.asarray(S, dtype=np.uint16).astype(np.uint32) << 16).view(
            np.float32).astype(np.float64)
    return np.asarray(S).astype(np.float64)


def head_file(file: Path, k: int, d: int, dtype: str) -> np.memmap:
    """Create ``file`` as a one-tensor safetensors file (``lm_head.weight``, k x d, ``dtype``)
    and return its data as a writable memory map (the stored form)."""
    name, size, npd = DTYPES[dtype]
    header = {"lm_head.weight": {"dtype": name, "shape": [k, d],
                                 "data_offsets": [0, k * d * size]}}
    hb = json.dumps(header).encode()
    hb += b" " * (-len(hb) % 8)
    with open(file, "wb") as fh:
        fh.write(len(hb).to_bytes(8, "little"))
        fh.write(hb)
        fh.truncate(8 + len(hb) + k * d * size)
    return np.memmap(file, dtype=npd, mode="r+", offset=8 + len(hb), shape=(k, d))


def trained_rows(rng: np.random.Generator, n: int, d: int, sigma: float) -> np.ndarray:
    """n float64 rows ``exp(sigma z) g / sqrt(d)`` (g standard normal, z standard normal)."""
    s = np.exp(sigma * rng.standard_normal(n))
    return rng.standard_normal((n, d)) * (s / np.sqrt(d))[:, None]


def plant_kinds(faces, directions, pushes) -> list[tuple[int, int, float]]:
    """The planted kinds (m, +1 out / -1 in, e), in the order they are taken in turn."""
    return [(m, sgn, e) for m in faces for sgn in directions for e in pushes]


def kind_name(m: int, sgn: int, e: float) -> str:
    return f"{'edge' if m == 2 else f'face{m}'}-{'out' if sgn > 0 else 'in'}-{e:g}"


def fill_rows(mm: np.ndarray, k: int, d: int, dtype: str, rng: np.random.Generator,
              sigma: float) -> None:
    """Fill the memory-mapped head with trained-looking rows, 4 M entries at a time."""
    step = max(1, (1 << 22) // d)
    for r0 in range(0, k, step):
        r1 = min(k, r0 + step)
        mm[r0:r1] = to_stored(trained_rows(rng, r1 - r0, d, sigma), dtype)


def pool_mean(mm: np.ndarray, pool: np.ndarray, dtype: str) -> np.ndarray:
    """The float64 mean of the rows ``pool`` as stored."""
    acc = np.zeros(mm.shape[1])
    step = max(1, (1 << 22) // mm.shape[1])
    for i in range(0, len(pool), step):
        acc += widen(mm[np.sort(pool[i:i + step])], dtype).sum(axis=0)
    return acc / len(pool)


def build_vocab_head(path: Path, k: int, d: int, dtype: str, n_planted: int, kinds,
                     sigma: float, seed: int) -> dict[int, str]:
    """Write (once) ``model.safetensors`` and ``planted.json``; return {label: kind}."""
    meta = path / "planted.json"
    if (path / "model.safetensors").exists() and meta.exists():
        return {int(a): b for a, b in json.loads(meta.read_text()).items()}
    path.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    part = path / "model.safetensors.part"
    mm = head_file(part, k, d, dtype)
    fill_rows(mm, k, d, dtype, rng, sigma)
    labels = rng.choice(k, size=n_planted, replace=False) if n_planted else np.array([], int)
    pool = np.setdiff1d(np.arange(k), labels)
    c = pool_mean(mm, pool, dtype)
    planted: dict[int, str] = {}
    for n, lab in enumerate(labels.tolist()):
        m, sgn, e = kinds[n % len(kinds)]
        src = np.sort(rng.choice(pool, size=m, replace=False))
        p = rng.dirichlet(np.ones(m)) @ widen(mm[src], dtype)
        mm[lab] = to_stored((c + (p - c) * (1.0 + sgn * e))[None, :], dtype)[0]
        planted[lab] = kind_name(m, sgn, e)
    mm.flush()
    del mm
    part.rename(path / "model.safetensors")
    meta.write_text(json.dumps({str(a): b for a, b in sorted(planted.items())}))
    return planted


# ------------------------------------------------------------------ measuring
def cpu_seconds() -> float:
    """User + sys CPU seconds of this process and its reaped children."""
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime


def reset_peak_rss() -> None:
    """Reset this process's peak RSS (Linux VmHWM), so building the head is not counted."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass


def peak_rss_mb() -> tuple[float, float]:
    """(this process's peak RSS since the reset, the largest reaped child's) in MB."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                own = int(line.split()[1]) / 1024
    except OSError:
        pass
    return own, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


def _tree_rss_kb(pid: int) -> int:
    """Resident KB of ``pid`` and its descendants (from /proc)."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
            for t in Path(f"/proc/{p}/task").iterdir():
                todo += [int(x) for x in (t / "children").read_text().split()]
        except (OSError, ValueError):
            continue
    return total


def install_limits(cpu_limit: float | None, max_rss_mb: float) -> None:
    """Stop the run at ``cpu_limit`` CPU seconds of this process (RLIMIT_CPU) or when this
    process and its children hold more than ``max_rss_mb`` MB (a forked watcher polling
    /proc every 0.5 s), after printing every thread's stack (faulthandler: it runs even
    while native code holds the interpreter)."""
    import faulthandler

    faulthandler.register(signal.SIGUSR1, all_threads=True)
    if cpu_limit:
        faulthandler.register(signal.SIGXCPU, all_threads=True)
        lim = int(cpu_limit + resource.getrusage(resource.RUSAGE_SELF).ru_utime + 1)
        resource.setrlimit(resource.RLIMIT_CPU, (lim, lim + 2))
        print(f"CPU limit: {cpu_limit:.0f} CPU s of this process (stacks printed, then killed)",
              flush=True)
    if not max_rss_mb:
        return
    parent = os.getpid()
    if os.fork() == 0:  # the watcher: /proc reads and signals only
        try:
            while os.getppid() == parent:
                kb = _tree_rss_kb(parent)
                if kb > max_rss_mb * 1024:
                    os.write(2, f"\nmemory limit: {kb / 1024:.0f} MB > {max_rss_mb:.0f} MB; "
                                "stacks follow, then the run is stopped (exit 3)\n".encode())
                    os.kill(parent, signal.SIGUSR1)
                    time.sleep(1.0)
                    os.kill(parent, signal.SIGTERM)
                    time.sleep(2.0)
                    os.kill(parent, signal.SIGKILL)
                    break
                time.sleep(0.5)
        finally:
            os._exit(0)
    signal.signal(signal.SIGTERM, lambda *_: os._exit(3))


def proof_stats(out: Path) -> dict[int, dict]:
    """{label: {bytes, rows, digits, stage, files}} of every never-proof in the output's shards.

    ``bytes`` is the text of the record's multipliers (inline: their JSON; in part files:
    the files' sizes); any other file a record refers to (a shared support, say) is listed
    in ``files`` and counted once in :func:`shared_bytes`.
    """
    stats: dict[int, dict] = {}
    for blk in sorted((out / "shards").glob("block-*.jsonl")):
        with open(blk) as fh:
            for line in fh:
                rec = json.loads(line)
                for dom, e in rec.items():
                    if dom == "label" or not isinstance(e, dict) or e.get("verdict") != "never":
                        continue
                    mult = e.get("multipliers")
                    files = sorted(_file_refs(e))
                    if isinstance(mult, list):
                        nbytes = len(json.dumps(mult, separators=(",", ":")))
                        digits = max((len(t) for t in mult), default=0)
                    else:
                        nbytes, digits = 0, 0
                        for ref in (mult or {}).get("parts", ()):
                            nbytes += (out / ref["file"]).stat().st_size
                            part = json.loads((out / ref["file"]).read_text())
                            digits = max([digits, *(len(t) for t in part)])
                    rows = e.get("rows")
                    stats[int(rec["label"])] = {
                        "bytes": nbytes, "rows": len(rows) if isinstance(rows, list) else None,
                        "digits": digits, "stage": e.get("stage"),
                        "files": [f for f in files if "/proof-" not in f]}
    return stats


def _file_refs(obj) -> set[str]:
    if isinstance(obj, dict):
        found = {obj["file"]} if isinstance(obj.get("file"), str) else set()
        for v in obj.values():
            found |= _file_refs(v)
        return found
    if isinstance(obj, list):
        found = set()
        for v in obj:
            found |= _file_refs(v)
        return found
    return set()


def shared_bytes(out: Path, stats: dict[int, dict]) -> int:
    """Bytes of the files that never-proofs refer to besides their own proof parts."""
    return sum((out / f).stat().st_size for f in {f for s in stats.values() for f in s["files"]}
               if (out / f).exists())


#: ``python -m logitgeom_certificates.check_audit ARGS`` that also writes its peak RSS (the
#: VmHWM of the process it runs in, fresh after exec, so the benchmark's pages forked with it
#: do not count) to stderr at exit.
_CHECK = ("import atexit, runpy, sys\n"
          "def _hwm():\n"
          "    for line in open('/proc/self/status'):\n"
          "        if line.startswith('VmHWM:'):\n"
          "            sys.stderr.write('VmHWM ' + line.split()[1] + '\\n')\n"
          "atexit.register(_hwm)\n"
          "sys.argv[0] = 'check_audit'\n"
          "runpy.run_module('logitgeom_certificates.check_audit', run_name='__main__')\n")


def stdlib_check(out: Path, sample: int | None = None, labels=None, workers: int = 1
                 ) -> tuple[bool, str, float, float]:
    """Run ``python -m logitgeom_certificates.check_audit`` on the output's certificate:
    every never-proof and ``sample`` witnesses (the checker's default sample when None), or
    ``labels``' proofs only; return (accepted, its line, its CPU seconds, its peak RSS MB)."""
    from logitgeom_certificates._cli import DEFAULT_SAMPLE  # the checker's default sample

    cmd = [sys.executable, "-c", _CHECK, str(out / "audit.json")]
    if labels is not None:
        cmd += ["--labels", ",".join(str(v) for v in sorted(labels))]
    else:
        cmd += ["--sample", str(DEFAULT_SAMPLE if sample is None else sample)]
    if workers > 1:
        cmd += ["--workers", str(workers)]
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    c0 = c.ru_utime + c.ru_stime
    r = subprocess.run(cmd, capture_output=True, text=True)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    hwm = [ln for ln in r.stderr.splitlines() if ln.startswith("VmHWM ")]
    err = "\n".join(ln for ln in r.stderr.splitlines() if not ln.startswith("VmHWM "))
    line = (r.stdout.strip() or err.strip()).splitlines()
    text = line[-1] if line else f"exit {r.returncode}"
    if len(text) > 400:
        text = text[:400] + " ..."
    rss = int(hwm[-1].split()[1]) / 1024 if hwm else float("nan")
    return r.returncode == 0, text, c.ru_utime + c.ru_stime - c0, rss


def run_audit(model: Path, out: Path, tokens, workers: int, block: int, options):
    """audit_argmax on the model folder into a fresh ``out``; (result, CPU s, wall s)."""
    import shutil

    from logitgeom.audit import audit_argmax
    from logitgeom.run.executor import close_executor, make_executor

    if out.exists():
        shutil.rmtree(out)
    ex = make_executor(workers=workers)
    c0, w0 = cpu_seconds(), time.perf_counter()
    try:
        res = audit_argmax(model, tokens=tokens, out=out, executor=ex, progress=False,
                           block_size=block, options=options)
    finally:
        close_executor(ex)
    return res, cpu_seconds() - c0, time.perf_counter() - w0


def floats(text: str) -> list[float]:
    return [float(v) for v in text.split(",") if v.strip()]



def add_limit_options(ap: argparse.ArgumentParser) -> None:
    """--no-check, --cpu-limit and --max-rss-mb (this script and bench_audit_cluster.py)."""
    ap.add_argument("--no-check", action="store_true", help="skip the stdlib checker")
    ap.add_argument("--cpu-limit", type=float, default=None,
                    help="stop a process of the run (this one, or a forked label child) "
                         "after this many of its CPU s, printing the stacks")
    ap.add_argument("--max-rss-mb", type=float, default=4000.0,
                    help="stop when this process and its children hold more (0: no limit)")

def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=128256, help="labels (default 128,256)")
    ap.add_argument("--cols", type=int, default=4096, help="width d (default 4,096)")
    ap.add_argument("--dtype", choices=sorted(DTYPES), default="bf16",
                    help="stored dtype (default bf16)")
    ap.add_argument("--planted", type=int, default=64, help="planted labels (default 64)")
    ap.add_argument("--faces", default="2,5,10", help="face sizes (2: an edge; default 2,5,10)")
    ap.add_argument("--directions", default="out,in", help="out, in or both (default)")
    ap.add_argument("--pushes", default="1e-2,1e-3", help="relative pushes (default 1e-2,1e-3)")
    ap.add_argument("--norm-sigma", type=float, default=0.15,
                    help="log-normal spread of the row norms (default 0.15)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only-planted", action="store_true",
                    help="audit the planted labels only (default: every label)")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--block", type=int, default=256)
    ap.add_argument("--label-seconds", type=float, default=None,
                    help="per-label CPU budget (default none: every label decided)")
    ap.add_argument("--check-sample", type=int, default=None,
                    help="witnesses the stdlib checker re-checks (default: its default "
                         "sample); every never-proof always")
    ap.add_argument("--check-workers", type=int, default=1)
    add_limit_options(ap)
    ap.add_argument("--no-float32-screen", action="store_true",
                    help="screens in float64 only (logitgeom.audit.screen.FLOAT32_SCREEN = "
                         "False; before/after comparisons of issue 44 item 3)")
    ap.add_argument("--cache", default="/tmp/logitgeom-bench-vocab",
                    help="where heads and outputs are kept")
    args = ap.parse_args(argv)
    dirs = {"out": 1, "in": -1}
    try:
        faces = [int(v) for v in args.faces.split(",")]
        directions = [dirs[v.strip()] for v in args.directions.split(",")]
        pushes = floats(args.pushes)
    except (ValueError, KeyError) as exc:
        ap.error(f"bad --faces/--directions/--pushes: {exc}")
    if any(m < 2 for m in faces) or any(not 0 < e < 1 for e in pushes):
        ap.error("faces need at least 2 rows and pushes lie in (0, 1)")
    k, d = args.rows, args.cols
    if k <= args.planted + max(faces):
        ap.error("--rows must exceed --planted plus the largest face")
    install_limits(args.cpu_limit, args.max_rss_mb)
    if args.no_float32_screen:
        import logitgeom.audit.screen as screen_mod

        screen_mod.FLOAT32_SCREEN = False

    from logitgeom.audit.proofs import Options

    kinds = plant_kinds(faces, directions, pushes)
    tag = (f"vocab-{k}x{d}-{args.dtype}-p{args.planted}-f{args.faces}-{args.directions}-"
           f"e{args.pushes}-n{args.norm_sigma:g}-s{args.seed}").replace(",", "_")
    model = Path(args.cache) / tag
    c0 = cpu_seconds()
    planted = build_vocab_head(model, k, d, args.dtype, args.planted, kinds, args.norm_sigma,
                               args.seed)
    head_mb = k * d * DTYPES[args.dtype][1] / 1e6
    print(f"head {k} x {d} {args.dtype} ({head_mb:.0f} MB) at {model}: {len(planted)} planted "
          f"over {len(kinds)} kinds; rows exp({args.norm_sigma:g} z) g / sqrt(d) "
          f"[{cpu_seconds() - c0:.1f} CPU s to build or load]", flush=True)
    out = model / ("out-planted" if args.only_planted else "out-all")
    opts = Options(label_seconds=args.label_seconds)
    reset_peak_rss()
    res, cpu, wall = run_audit(model, out, sorted(planted) if args.only_planted else None,
                               args.workers, args.block, opts)
    own, kids = peak_rss_mb()
    und = res.undecided()
    print("\n".join(res.summary()))
    print("CPU s by stage: " + ", ".join(f"{key} {v:.1f}" for key, v in
                                         sorted(res.stage_seconds.items())
                                         if isinstance(v, float))
          + f"; labels decided in float32 {res.stage_seconds.get('screen32_labels', 0)}")
    stats = proof_stats(out)
    per = res.label_cpu
    print(f"{'label':>7} {'kind':<16} {'verdict':<10} {'CPU s':>8} {'proof bytes':>12} "
          f"{'rows':>5} {'digits':>7}")
    for lab in sorted(planted, key=lambda x: (planted[x], x)):
        st = stats.get(lab, {})
        print(f"{lab:>7} {planted[lab]:<16} {res.verdicts['all'][lab]:<10} "
              f"{per.get(lab, 0.0):>8.2f} {st.get('bytes', 0):>12,} "
              f"{st.get('rows') or '':>5} {st.get('digits', '') or '':>7}")
    for lab in sorted(set(stats) - set(planted)):
        st = stats[lab]
        print(f"{lab:>7} {'(not planted)':<16} {'never':<10} {per.get(lab, 0.0):>8.2f} "
              f"{st['bytes']:>12,} {st.get('rows') or '':>5} {st['digits'] or '':>7}")
    kinds_seen: dict[str, list[str]] = {}
    for lab, kind in planted.items():
        kinds_seen.setdefault(kind, []).append(res.verdicts["all"][lab])
    for kind, vs in sorted(kinds_seen.items()):
        print(f"  {kind}: " + ", ".join(f"{vs.count(v)} {v}" for v in sorted(set(vs))))
    never = res.never()
    pb = sum(s["bytes"] for s in stats.values()) + shared_bytes(out, stats)
    print(f"audit {k} x {d} {args.dtype}: {len(res.labels)} labels audited, "
          f"{len(never)} never, undecided {len(und)}; CPU {cpu:.1f} s ({cpu / 60:.2f} CPU-min, "
          f"this process and its children), wall {wall:.1f} s (shared machine), workers "
          f"{args.workers}; peak RSS {own:.0f} MB (this process; reaped children {kids:.0f} MB) = "
          f"{max(own, kids) / head_mb:.2f} x the head; never-proofs {pb:,} bytes "
          f"(largest {max((s['bytes'] for s in stats.values()), default=0):,})")
    print(f"self-check in the run: {res.checked}", flush=True)
    ok = not und
    if not args.no_check:
        good, line, ccpu, crss = stdlib_check(out, args.check_sample,
                                              workers=args.check_workers)
        print(f"stdlib checker (every never-proof, {len(never)}): "
              f"{'accepted' if good else 'REJECTED'} [{ccpu:.1f} CPU s; peak RSS {crss:.0f} MB]"
              f": {line}")
        print(f"audit + check: {cpu + ccpu:.1f} CPU s ({(cpu + ccpu) / 60:.2f} CPU-min)")
        ok &= good
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
