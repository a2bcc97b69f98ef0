"""Benchmark of the Coq export: an argmax audit's never-proofs compiled by coqc.

Builds a float32 head (Gaussian rows on a 2^-12 grid, so planted combinations are exact)
with planted never-argmax labels: midpoints of two rows, averages of four, and shrunken
rows w_a / 32 (deep inside the hull: never-proofs on up to d + 1 rows), audits it with
``logitgeom.audit.audit_argmax`` (domain ``all``), exports the certificate with
``logitgeom export coq`` (:func:`logitgeom.coq.export_files`) and compiles the file with
coqc.  Reports the CPU seconds (user + sys) of the export and of coqc, the number of
never-proofs and the largest one, and coqc's verdict.  The machine may be shared: CPU
seconds are the figure to quote.

    python benchmarks/bench_coq.py --rows 1000 --cols 64        # the goal: coqc <= 60 CPU s
    python benchmarks/bench_coq.py --rows 2000 --cols 128
    python benchmarks/bench_coq.py --rows 300 --cols 64 --witnesses

The never-proofs are exported alone (``--no-witnesses``); with ``--witnesses`` the whole
audit is exported and compiled too, the argmaxable labels proven from their witnesses
(k d integer products each in Coq: O(k^2 d) for the head).

With ``--grid N D``: instead, the cosine paper's Thm 5.6 on the verification grid's head of
N labels in R^D (seed 0, :func:`logitgeom.geometry.grid.random_head`), as ``make demo``
certifies it (``grid-nN-dD-thm-5.6.json``): complete R(W) and complete S((BW)(BW)^T), both
proven complete in Coq by their prefix trees.  Reports the tree sizes and the CPU seconds.

    python benchmarks/bench_coq.py --grid 10 2                  # 10! rankings: the prefix tree

With ``--regions N [N ...]``: the cost curve of a complete enumeration against its number of
regions: for each N, a random integer head of k rows in R^D (``--dim``, default 3; k the
least with at least N regions in general position, 2 sum_{i<D} C(k-1, i)), its sign
patterns enumerated and certified (``pattern-complete``), exported (the prefix tree) and
checked by the referee's check (``logitgeom check-coq``: coqc, ``Print Assumptions``).
Prints per N: regions, tree refutations, the .v size, the export's CPU s, and coqc's CPU s
and peak resident memory (its own process, ``wait4``).

    python benchmarks/bench_coq.py --regions 1000 3000 10000

With ``--stream-shi N [N ...]`` / ``--stream-regions N [N ...]``: the same curve for streamed
enumerations (``pattern-complete-stream``, exported as a prefix tree split over files,
:mod:`logitgeom.coq.stream`): the Shi arrangement in R^N (x_i - x_j in {0, 1}; (N+1)^(N-1)
regions), or a random integer affine head in R^D (``--dim``) with at least N regions.  Each
is enumerated to a folder, certified, checked by the stdlib checker, exported and put
through the referee's check (``logitgeom check-coq`` in a child process: every file, coqc,
``Print Assumptions``).  Prints regions, subtree files, refutations, exact LPs of the
export, .v MB, the export's CPU s, the check's CPU s (its coqc processes included) and its
peak resident memory (the largest coqc).

    python benchmarks/bench_coq.py --stream-shi 5 6 7
    python benchmarks/bench_coq.py --stream-regions 1000 10000 --dim 4
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def build_head(k: int, d: int, seed: int = 0) -> tuple[np.ndarray, dict[int, str]]:
    """A k x d float32 head with planted never-argmax labels; returns (W, {label: kind})."""
    rng = np.random.default_rng(seed)
    W = (np.round(rng.standard_normal((k, d)) * 4096.0) / 4096.0).astype(np.float32)
    labels = rng.choice(k, size=12, replace=False).tolist()
    pool = np.setdiff1d(np.arange(k), labels)
    planted = {}
    for n, lab in enumerate(labels):
        src = rng.choice(pool, size=4, replace=False)
        if n < 4:
            W[lab], planted[lab] = (W[src[0]] + W[src[1]]) / np.float32(2), "midpoint"
        elif n < 8:
            W[lab], planted[lab] = W[src].sum(0) / np.float32(4), "average"
        else:
            W[lab], planted[lab] = W[src[0]] / np.float32(32), "shrunken"
    return W, planted


def _records(cert: dict, folder: Path):
    if "records" in cert:
        yield from cert["records"]
        return
    for sh in cert["shards"]:
        for line in (folder / sh["file"]).read_text().splitlines():
            if line.strip():
                yield json.loads(line)


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def grid(n: int, d: int, work: Path) -> int:
    """Thm 5.6 on the grid head (n, d, seed 0): build, export, compile; print the figures."""
    from logitgeom import emit
    from logitgeom.coq import compile_files, compile_library, export_files
    from logitgeom.geometry.grid import random_head

    t0 = _cpu()
    cert = emit.grid_certificate(random_head(n, d, 0), "thm-5.6")
    t_cert = _cpu() - t0
    path = work / f"grid-n{n}-d{d}-thm-5.6.json"
    path.write_text(json.dumps(cert))
    t0 = _cpu()
    (vfile,) = export_files([path], work / "coq")
    t_export = _cpu() - t0
    compile_library()
    (res,) = compile_files([vfile])
    text = vfile.read_text()
    blocks = [text.split(f"Definition {c} : list vec :=\n", 1)[1].split(".\n", 1)[0]
              for c in ("certs", "certs1")]  # one multiplier vector a line
    ncert = [0 if b == "[]" else b.count("\n") + 1 for b in blocks]
    print(f"Thm 5.6, grid head n = {n}, d = {d} (seed 0): {len(cert['parts'][0]['patterns'])} "
          f"rankings, {len(cert['parts'][1]['patterns'])} sign vectors of G "
          f"({len(cert['parts'][1]['W'])} rows); certificate {t_cert:.1f} CPU s")
    print(f"export: {vfile.name}, {len(text) / 1e6:.2f} MB, prefix-tree refutations "
          f"{ncert[0]} (rankings) + {ncert[1]} (sign vectors); {t_export:.1f} CPU s")
    print(f"coqc: {'accepted' if res.ok else 'REJECTED'}; {res.cpu_seconds:.1f} CPU s "
          "(user + sys of coqc)")
    if not res.ok:
        print(res.message[:2000])
    return 0 if res.ok else 1


def regions_for(k: int, d: int) -> int:
    """Regions of k central hyperplanes in general position in R^d."""
    return 2 * sum(math.comb(k - 1, i) for i in range(d))


def coqc_cost(vfile: Path) -> tuple[bool, float, float, str]:
    """(accepted, CPU s, peak resident MB, message) of coqc on ``vfile`` (with ``Print
    Assumptions`` of its top theorem appended: the referee's check), measured on coqc's own
    process with ``os.wait4``."""
    from logitgeom.coq import compile_library
    from logitgeom.coq.referee import ALLOWED_AXIOMS, PRIMITIVES, axioms_listed, scan

    text = vfile.read_text()
    reason, name, _ = scan(text)
    if reason:
        return False, 0.0, 0.0, reason
    lib = compile_library()
    with tempfile.TemporaryDirectory(prefix="bench-coqc-") as tmp:
        (Path(tmp) / vfile.name).write_text(text + f"\nPrint Assumptions {name}.\n")
        proc = subprocess.Popen(["coqc", "-Q", str(lib), "Logitgeom", vfile.name], cwd=tmp,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        out = proc.stdout.read().decode(errors="replace")
        _, status, ru = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    axioms = axioms_listed(out)
    ok = proc.returncode == 0 and axioms is not None and \
        not set(axioms) - ALLOWED_AXIOMS - PRIMITIVES
    return ok, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024, out[:2000]


def regions(targets: list[int], d: int, seed: int, work: Path) -> int:
    """The cost curve: per target N, enumerate, certify, export and check one head."""
    from logitgeom.coq import export_files
    from logitgeom.geometry import sign_pattern

    rng = np.random.default_rng(seed)
    print(f"{'regions':>8} {'k x d':>7} {'refutations':>11} {'.v MB':>6} {'export s':>8} "
          f"{'coqc s':>7} {'coqc MB':>8}  verdict")
    ok_all = True
    for n in targets:
        k = d
        while regions_for(k, d) < n:
            k += 1
        W = rng.integers(-50, 51, size=(k, d)).tolist()
        res = sign_pattern(W, progress=False)
        path = work / f"regions-{n}.json"
        path.write_text(json.dumps(res.certificate()))
        t0 = _cpu()
        (vfile,) = export_files([path], work / "coq")
        t_export = _cpu() - t0
        text = vfile.read_text()
        block = text.split("Definition certs : list vec :=\n", 1)[1].split(".\n", 1)[0]
        refs = 0 if block == "[]" else block.count("\n") + 1
        ok, cpu, mb, msg = coqc_cost(vfile)
        ok_all &= ok
        print(f"{res.count:>8} {f'{k} x {d}':>7} {refs:>11} {len(text) / 1e6:>6.2f} "
              f"{t_export:>8.1f} {cpu:>7.1f} {mb:>8.0f}  {'accepted' if ok else 'REJECTED'}",
              flush=True)
        if not ok:
            print(msg)
    return 0 if ok_all else 1


def _stream_case(W, b, work: Path, name: str) -> bool:
    from logitgeom.coq import LIBRARY
    from logitgeom.coq.build import export_stream_set
    from logitgeom.emit import dumps, stream_certificate
    from logitgeom.geometry import enumerate_to_dir
    from logitgeom_certificates.api import check_file

    d = work / name
    enumerate_to_dir(W, d / "R", kind="sign", bias=b, progress=False)
    cert = d / "cert.json"
    cert.write_text(dumps(stream_certificate(d / "R", cert)))
    if not check_file(str(cert)).ok:
        raise SystemExit(f"{name}: the stdlib checker rejects the certificate")
    t0 = _cpu()  # as export_files: check, export, write (the export's figures returned too)
    stats = export_stream_set(cert)
    (d / "coq").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(LIBRARY, d / "coq" / LIBRARY.name)
    for fname, text in stats.files:
        (d / "coq" / fname).write_text(text)
    main = d / "coq" / stats.files[-1][0]
    t_export = _cpu() - t0
    files = list((d / "coq").glob("cert*.v"))
    mb = sum(f.stat().st_size for f in files) / 1e6
    cuts = sum(f.read_text().count("(PCut") for f in files)
    proc = subprocess.Popen([sys.executable, "-m", "logitgeom", "check-coq", "--quiet",
                             str(main)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = proc.stdout.read().decode(errors="replace")
    _, status, ru = os.wait4(proc.pid, 0)
    ok = os.waitstatus_to_exitcode(status) == 0 and "ACCEPTED" in out
    regions = sum(s["rows"] for s in json.loads(cert.read_text())["shards"])
    print(f"{name:>12} {regions:>8} {stats.shards:>6} {cuts:>9} {stats.lps:>6} "
          f"{mb:>7.1f} {t_export:>8.1f} {ru.ru_utime + ru.ru_stime:>8.1f} "
          f"{ru.ru_maxrss / 1024:>7.0f}  {'accepted' if ok else 'REJECTED'}", flush=True)
    if not ok:
        print(out[-2000:])
    return ok


def streams(shi: list[int], targets: list[int], d: int, seed: int, work: Path) -> int:
    """The cost curve of streamed enumerations in Coq (module docstring)."""
    from logitgeom.geometry.families import deformation

    print(f"{'head':>12} {'regions':>8} {'files':>6} {'refuted':>9} {'LPs':>6} {'.v MB':>7} "
          f"{'export s':>8} {'check s':>8} {'peak MB':>7}  verdict")
    ok = True
    for n in shi:
        W, b = deformation(n, (0, 1))
        ok &= _stream_case(W, b, work, f"shi-{n}")
    rng = np.random.default_rng(seed)
    for n in targets:
        k = d
        while sum(math.comb(k, i) for i in range(d + 1)) < n:
            k += 1
        W = rng.integers(-50, 51, size=(k, d)).tolist()
        b = rng.integers(-50, 51, size=k).tolist()
        ok &= _stream_case(W, b, work, f"{k}x{d}+b")
    return 0 if ok else 1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=1000)
    ap.add_argument("--cols", type=int, default=64)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--dir", default=None, help="work folder (default: a temporary one)")
    ap.add_argument("--witnesses", action="store_true",
                    help="also export and compile the whole audit, witnesses included")
    ap.add_argument("--grid", type=int, nargs=2, metavar=("N", "D"), default=None,
                    help="Thm 5.6 on the grid head of N labels in R^D instead of an audit")
    ap.add_argument("--regions", type=int, nargs="+", metavar="N", default=None,
                    help="the cost curve of complete enumerations of about N regions each")
    ap.add_argument("--dim", type=int, default=3, help="--regions: the dimension (default 3)")
    ap.add_argument("--stream-shi", type=int, nargs="+", metavar="N", default=[],
                    help="streamed: the Shi arrangement in R^N, exported split over files")
    ap.add_argument("--stream-regions", type=int, nargs="+", metavar="N", default=[],
                    help="streamed: a random affine head in R^--dim with at least N regions")
    args = ap.parse_args(argv)
    if args.stream_shi or args.stream_regions:
        work = Path(args.dir or tempfile.mkdtemp(prefix="bench-coq-"))
        work.mkdir(parents=True, exist_ok=True)
        return streams(args.stream_shi, args.stream_regions, args.dim, args.seed, work)
    if args.regions:
        work = Path(args.dir or tempfile.mkdtemp(prefix="bench-coq-"))
        work.mkdir(parents=True, exist_ok=True)
        return regions(args.regions, args.dim, args.seed, work)
    if args.grid:
        work = Path(args.dir or tempfile.mkdtemp(prefix="bench-coq-"))
        work.mkdir(parents=True, exist_ok=True)
        return grid(*args.grid, work)
    from logitgeom.audit import audit_argmax
    from logitgeom.coq import compile_files, compile_library, export_files

    work = Path(args.dir or tempfile.mkdtemp(prefix="bench-coq-"))
    work.mkdir(parents=True, exist_ok=True)
    W, planted = build_head(args.rows, args.cols, args.seed)
    np.save(work / "head.npy", W)
    t0 = _cpu()
    audit_argmax(str(work / "head.npy"), out=str(work / "audit"), progress=False)
    t_audit = _cpu() - t0
    cert_path = work / "audit" / "audit.json"
    cert = json.loads(cert_path.read_text())
    t0 = _cpu()
    (vfile,) = export_files([cert_path], work / "coq", witnesses=False)
    t_export = _cpu() - t0
    compile_library()
    (res,) = compile_files([vfile])
    found = cert["counts"]["all"]["never"]
    biggest = max((len(e["all"]["rows"]) for e in _records(cert, cert_path.parent)
                   if e["all"]["verdict"] == "never"  # a {"as": L} names an earlier list
                   and isinstance(e["all"]["rows"], list)), default=0)
    text = vfile.read_text()
    print(f"head {args.rows} x {args.cols} float32, planted never-argmax labels: "
          f"{len(planted)} ({', '.join(sorted(set(planted.values())))})")
    print(f"audit: {found} labels proven never argmax (largest proof: {biggest} rows); "
          f"{t_audit:.1f} CPU s")
    print(f"export (never-proofs, --no-witnesses): {vfile.name}, {len(text) / 1e6:.2f} MB; "
          f"{t_export:.1f} CPU s")
    print(f"coqc: {'accepted' if res.ok else 'REJECTED'}; {res.cpu_seconds:.1f} CPU s "
          f"(user + sys of coqc; goal <= 60)")
    if not res.ok:
        print(res.message[:2000])
    ok = res.ok
    if args.witnesses:
        wins = cert["counts"]["all"]["argmaxable"]
        t0 = _cpu()
        (vfull,) = export_files([cert_path], work / "coq-full")
        t_export = _cpu() - t0
        (full,) = compile_files([vfull])
        print(f"export (never-proofs and {wins} witnesses): {vfull.name}, "
              f"{len(vfull.read_text()) / 1e6:.2f} MB; {t_export:.1f} CPU s")
        print(f"coqc: {'accepted' if full.ok else 'REJECTED'}; {full.cpu_seconds:.1f} CPU s "
              "(user + sys of coqc)")
        if not full.ok:
            print(full.message[:2000])
        ok = ok and full.ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
