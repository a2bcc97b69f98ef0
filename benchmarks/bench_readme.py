"""Re-measure the enumeration and certification figures README.md and docs/ quote.

Each case runs in a fresh interpreter (so imports and peak memory are its own) and is
measured in CPU seconds of that process and its children (user + sys,
``resource.getrusage(RUSAGE_CHILDREN)``), never wall time: the machine may be shared.
The script prints, per figure, the value measured here beside the value quoted and where it
is quoted, and the ratio.  Usage::

    python benchmarks/bench_readme.py            # every case but perm-9 (about 2 CPU-minutes)
    python benchmarks/bench_readme.py --full     # also perm-9 (about 40 more CPU s)
    python benchmarks/bench_readme.py shi-7 f64-40x6   # some cases
    python benchmarks/bench_readme.py --only shi-7,notebooks   # cases and groups
    python benchmarks/bench_readme.py --list     # every figure README.md and docs/ quote,
                                                 # file:line, re-measured here or not
    make bench-readme

Each re-measured figure is printed as ``KEY: measured X, quoted Q at FILE:LINE (ratio
X/Q)``; :data:`FIGURES` lists them (the quoting line is found by its text, so the line
number follows edits; ``tests/test_bench_readme_figures.py`` checks each is still there).
``--list`` greps README.md and docs/*.md for CPU, memory, disk and rate figures and marks
which lines this script re-measures: the others are not reproduced by it.

Cases: ``resonance-6`` and ``perm-8``/``perm-9`` (``bench_scale.py _case``, streamed with
witnesses, certified complete); ``f64-40x6``, ``f32-40x6``, ``int-40x6`` (``logitgeom
patterns sign HEAD --out DIR``, serial, on a random N(0, 1) float64 / float32 head and an
integer head with entries up to 10^6, seed 7: all three have 1,335,856 regions); ``shi-7``
(the Shi arrangement in R^7: enumeration, ``certify pattern --from``, the default
``check`` and its rate in regions per CPU second).

The other README rows come from their own scripts; ``--groups`` runs them (each in its
own process, CPU seconds and peak memory of the process and its children) and prints
each group's output beside the README figures that group stands for (the scripts print
their own detailed figures)::

    python benchmarks/bench_readme.py --quick            # the cheap groups only
    python benchmarks/bench_readme.py --groups patterns,counting,certified
    python benchmarks/bench_readme.py --groups all       # every group (long, see below)

Groups and their cost in CPU (quoted figures, shared 2-core machine): ``patterns``
(``bench_patterns.py --quick``, about 1 CPU-minute), ``counting`` (``bench_counting.py
--quick``, under 1 minute), ``certified`` (``bench_certified.py --quick``, under 1
minute), ``symmetry`` (``bench_symmetry.py --goals-only --s10``, 1-2 minutes), ``grid``
(``bench_grid.py``, about 2 CPU-minutes), ``models`` (``bench_models.py``, under 1
minute plus a 512 MiB file), ``notebooks`` (about 21 CPU s), ``audit``
(``bench_audit.py`` at the two README sizes: 8 + 6 CPU-minutes, 1.7 GB), ``reproduce``
(``logitgeom reproduce``: about 150 CPU s, 8 minutes wall on a shared machine).
``--quick`` runs ``patterns``, ``counting`` and ``certified``; ``all`` runs every group
(about half an hour of CPU).  The enumeration cases above take, after the cache of
:func:`engine.geometry.arrangement.exact.regions`, well under a CPU-minute each.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

#: every figure README.md and docs/ quote that this script re-measures: (measurement key,
#: quoted value, unit, file, a piece of text of the quoting line).  The line number is
#: looked up when printed (the text must occur on exactly one line of the file);
#: ``--list`` shows every figure-like line of README.md and docs/ and which are not here.
FIGURES = [
    ("resonance-6 cpu_s", 13.9, "CPU s", "README.md", "| 13.9 s CPU (*shared*, load 9"),
    ("resonance-6 peak_rss_mb", 373, "MB", "README.md", "| 373 MB peak, 11.8 B/region"),
    ("resonance-6 bytes_per_region", 11.8, "B/region", "README.md",
     "| 373 MB peak, 11.8 B/region"),
    ("perm-8 cpu_s", 4.0, "CPU s", "README.md", "| 4.0 s CPU / 33.2 s (load 2-3"),
    ("perm-8 peak_rss_mb", 315, "MB", "README.md", "| 315 MB / 443 MB peak"),
    ("perm-8 bytes_per_region", 8.0, "B/region", "README.md", "8.0 / 10.9 B/region"),
    ("perm-9 cpu_s", 33.2, "CPU s", "README.md", "| 4.0 s CPU / 33.2 s (load 2-3"),
    ("perm-9 peak_rss_mb", 443, "MB", "README.md", "| 315 MB / 443 MB peak"),
    ("perm-9 bytes_per_region", 10.9, "B/region", "README.md", "8.0 / 10.9 B/region"),
    ("f64-40x6 cpu_s", 26.8, "CPU s", "README.md", "| 26.8 / 24.1 / 24.8 s CPU"),
    ("f32-40x6 cpu_s", 24.1, "CPU s", "README.md", "| 26.8 / 24.1 / 24.8 s CPU"),
    ("int-40x6 cpu_s", 24.8, "CPU s", "README.md", "| 26.8 / 24.1 / 24.8 s CPU"),
    ("f64-40x6 cpu_s", 26.8, "CPU s", "docs/filtered-arithmetic.md",
     "| float64 N(0, 1) | 26.8"),
    ("f64-40x6 phase1_cpu_s", 20.2, "CPU s", "docs/filtered-arithmetic.md",
     "| float64 N(0, 1) | 26.8"),
    ("f64-40x6 certification_cpu_s", 0.48, "CPU s", "docs/filtered-arithmetic.md",
     "| float64 N(0, 1) | 26.8"),
    ("f32-40x6 cpu_s", 24.1, "CPU s", "docs/filtered-arithmetic.md",
     "| float32 N(0, 1) | 24.1"),
    ("f32-40x6 phase1_cpu_s", 18.5, "CPU s", "docs/filtered-arithmetic.md",
     "| float32 N(0, 1) | 24.1"),
    ("f32-40x6 certification_cpu_s", 0.71, "CPU s", "docs/filtered-arithmetic.md",
     "| float32 N(0, 1) | 24.1"),
    ("int-40x6 cpu_s", 24.8, "CPU s", "docs/filtered-arithmetic.md",
     "| integer, entries up to 10^6 | 24.8"),
    ("int-40x6 phase1_cpu_s", 19.2, "CPU s", "docs/filtered-arithmetic.md",
     "| integer, entries up to 10^6 | 24.8"),
    ("int-40x6 certification_cpu_s", 0.75, "CPU s", "docs/filtered-arithmetic.md",
     "| integer, entries up to 10^6 | 24.8"),
    ("shi-7 enumerate_cpu_s", 10.6, "CPU s", "README.md", "| enumerate 10.6 s"),
    ("shi-7 certify_cpu_s", 9.8, "CPU s", "README.md", "`certify pattern --from` 9.8 s"),
    ("shi-7 check_cpu_s", 6.9, "CPU s", "README.md", "default `check` 6.9 s CPU"),
    ("shi-7 check_regions_per_cpu_s", 37882, "regions/CPU s", "README.md",
     "37,882 regions per CPU second"),
    ("shi-7 enumerate_cpu_s", 10.6, "CPU s", "docs/enumeration-at-scale.md",
     "enumeration 10.6 CPU s"),
    ("shi-7 certify_cpu_s", 9.8, "CPU s", "docs/enumeration-at-scale.md",
     "`certify pattern --from` 9.8 CPU s"),
    ("shi-7 check_cpu_s", 6.9, "CPU s", "docs/enumeration-at-scale.md",
     "`logitgeom check` 6.9 CPU s"),
    ("group:notebooks cpu_s", 42.1, "CPU s", "README.md", "| 42.1 s CPU (*shared*, load 10"),
    ("group:notebooks peak_rss_mb", 484, "MB", "README.md", "| 484 MB peak |"),
    ("group:audit cpu_s", 480, "CPU s", "README.md", "| 8.0 CPU-minutes (4.1 ms"),
    ("group:audit peak_rss_mb", 832, "MB", "README.md", "| 832 MB |"),
]
#: the old name: key -> (quoted value, unit, where), the README's quote of each key
QUOTED = {k: (v, u, f) for k, v, u, f, _ in reversed(FIGURES)}
#: what makes a line of README.md or docs/*.md quote a figure (``--list``)
FIGURE_RE = re.compile(r"\d[\d,.]*\s*(?:s CPU|CPU[ -]?s\b|CPU seconds|CPU-minutes|CPU-hours|"
                       r"MB\b|GB\b|MiB\b|B/region|regions per|us per|us a row|ms per)")


def where(path: str, text: str) -> str:
    """``file:line`` of the one line of ``path`` holding ``text`` (``file:?`` if it is not
    there exactly once: the quote moved or changed)."""
    lines = (ROOT / path).read_text().splitlines()
    hits = [i + 1 for i, line in enumerate(lines) if text in line]
    return f"{path}:{hits[0]}" if len(hits) == 1 else f"{path}:? ({len(hits)} lines hold {text!r})"


def figure_lines() -> list[tuple[str, int, str]]:
    """Every line of README.md and docs/*.md quoting a CPU, memory, disk or rate figure."""
    out = []
    for path in ["README.md", *sorted(str(p.relative_to(ROOT))
                                      for p in (ROOT / "docs").glob("*.md"))]:
        for i, line in enumerate((ROOT / path).read_text().splitlines()):
            if FIGURE_RE.search(line):
                out.append((path, i + 1, line.strip()))
    return out


def list_figures() -> int:
    """Print every figure-quoting line and whether this script re-measures it."""
    mapped: dict = {}
    for key, val, unit, path, text in FIGURES:
        loc = where(path, text)
        mapped.setdefault(loc, []).append(f"{key} (quoted {val} {unit})")
    lines = figure_lines()
    hit = 0
    for path, n, line in lines:
        keys = mapped.get(f"{path}:{n}")
        hit += bool(keys)
        tag = "MEASURED " + "; ".join(keys) if keys else "not re-measured here"
        print(f"{path}:{n}: [{tag}] {line[:160]}")
    print(f"# {len(lines)} lines quote figures; {hit} re-measured by this script "
          f"({len(FIGURES)} figures), {len(lines) - hit} not")
    return 0


def _run(cmd: list[str]) -> tuple[float, str]:
    """(CPU seconds of the child and its children, stdout) of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode not in (0,):
        raise SystemExit(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return round(cpu, 2), p.stdout


def _engine(*args: str) -> list[str]:
    return [sys.executable, "-m", "engine", *args]


def _scale(name: str, tmp: Path) -> dict:
    cpu, out = _run([sys.executable, str(ROOT / "benchmarks" / "bench_scale.py"), "_case", name,
                     str(tmp / name)])
    row = json.loads(out.strip().splitlines()[-1])
    return {"cpu_s": row["cpu_s"], "peak_rss_mb": row["peak_rss_mb"],
            "bytes_per_region": row["bytes_per_region_on_disk"], "process_cpu_s": cpu}


def heads(tmp: Path) -> dict[str, Path]:
    """The 40 x 6 heads of the float-filter figures (seed 7)."""
    rng = np.random.default_rng(7)
    f64 = rng.standard_normal((40, 6))
    f32 = rng.standard_normal((40, 6)).astype(np.float32)
    i64 = rng.integers(-10 ** 6, 10 ** 6, (40, 6))
    out = {}
    for name, W in (("f64-40x6", f64), ("f32-40x6", f32), ("int-40x6", i64)):
        out[name] = tmp / f"{name}.npy"
        np.save(out[name], W)
    return out


def _head(name: str, tmp: Path) -> dict:
    path = heads(tmp)[name]
    cpu, _ = _run(_engine("patterns", "sign", str(path), "--out", str(tmp / f"o-{name}"),
                          "--no-progress"))
    man = json.loads((tmp / f"o-{name}" / "manifest.json").read_text())
    steps = man["steps"]
    return {"cpu_s": cpu, "regions": man["rows_written"],
            "phase1_cpu_s": steps["phase1"]["cpu_tasks"],
            "certification_cpu_s": steps["certify"]["cpu_driver"]}


def shi(n: int, tmp: Path) -> tuple[Path, Path]:
    """The Shi arrangement in R^n: x_i - x_j in {0, 1} for i < j ((n+1)^(n-1) regions)."""
    W, b = [], []
    for i, j in itertools.combinations(range(n), 2):
        for c in (0, -1):
            r = [0] * n
            r[i], r[j] = 1, -1
            W.append(r)
            b.append(c)
    wf, bf = tmp / "shiW.csv", tmp / "shib.csv"
    wf.write_text("\n".join(",".join(map(str, r)) for r in W) + "\n")
    bf.write_text("\n".join(map(str, b)) + "\n")
    return wf, bf


def _shi(tmp: Path) -> dict:
    wf, bf = shi(7, tmp)
    d = tmp / "o-shi"
    enum, _ = _run(_engine("patterns", "sign", str(wf), "--bias", str(bf), "--out", str(d),
                           "--no-progress"))
    cert = d / "cert.json"
    certify, _ = _run(_engine("certify", "pattern", "--from", str(d), "-o", str(cert)))
    check, out = _run(_engine("check", str(cert)))
    regions = json.loads((d / "manifest.json").read_text())["rows_written"]
    return {"enumerate_cpu_s": enum, "certify_cpu_s": certify, "check_cpu_s": check,
            "check_ok": ": OK " in out, "regions": regions,
            "check_regions_per_cpu_s": round(regions / check)}


#: group -> (command after ``python``, README figures it stands for, as quoted)
GROUPS = {
    "patterns": (["benchmarks/bench_patterns.py", "--quick"],
                 "README limits: S(W) k=20, d=5 0.90 s wall; R(W) k=10, d=6 40.9 s wall "
                 "with witnesses, 24.1 s without"),
    "counting": (["benchmarks/bench_counting.py", "--quick"],
                 "README limits: exact count rankings k=12, d=6 34 s / sign k=60, d=6 45 s"),
    "certified": (["benchmarks/bench_certified.py", "--quick"],
                  "README limits: emit <= 0.09 s, check <= 0.05 s CPU, 333 MB"),
    "symmetry": (["benchmarks/bench_symmetry.py", "--goals-only", "--s10"],
                 "README limits: orbit 0.4-0.7 s / 1.6 s CPU, S_10 4.3 s CPU; 195 / 245 / "
                 "957 MB"),
    "grid": (["benchmarks/bench_grid.py"], "README limits: the whole grid 62 s on 2 cores"),
    "models": (["benchmarks/bench_models.py"],
               "README limits: 0.001 s to read 7 rows, 0.9 s audit + certificate"),
    "notebooks": (["notebooks/build.py", "--execute", "{tmp}/nb"],
                  "README limits: 42.1 s CPU, 484 MB peak"),
    "audit": (["benchmarks/bench_audit.py", "--rows", "50257", "--cols", "768"],
              "README limits: 8.0 CPU-minutes, 832 MB (the 32,000 x 4,096 row: run "
              "bench_audit.py --rows 32000 --cols 4096 by hand, 6.1 CPU-minutes)"),
    "reproduce": (["-m", "engine", "reproduce", "-o", "{tmp}/repro", "--no-progress"],
                  "README limits: 147 s CPU, 658 MB peak"),
}
QUICK_GROUPS = ("patterns", "counting", "certified")


def _group(name: str, tmp: Path) -> dict:
    """Run one group's script; its CPU seconds, peak memory and last lines of output."""
    args, quoted = GROUPS[name]
    cmd = [sys.executable, *(a.format(tmp=tmp) for a in args)]
    log = tmp / f"{name}.log"
    with open(log, "w") as f:  # wait4: the rusage of this child and its descendants only
        p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, cwd=ROOT,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
    tail = (log.read_text().strip().splitlines() or [""])[-25:]
    return {"group": name, "returncode": p.returncode,
            "cpu_s": round(ru.ru_utime + ru.ru_stime, 1),
            "peak_rss_mb": round(ru.ru_maxrss / 1024, 1), "quoted": quoted, "output": tail}


CASES = {
    "resonance-6": lambda tmp: _scale("resonance-6", tmp),
    "perm-8": lambda tmp: _scale("perm-8", tmp),
    "perm-9": lambda tmp: _scale("perm-9", tmp),
    "f64-40x6": lambda tmp: _head("f64-40x6", tmp),
    "f32-40x6": lambda tmp: _head("f32-40x6", tmp),
    "int-40x6": lambda tmp: _head("int-40x6", tmp),
    "shi-7": _shi,
}


def _report(prefix: str, got: dict) -> None:
    """Each quoted figure of these measurements: measured, quoted, where, ratio."""
    for key, val in got.items():
        for fkey, quoted, unit, path, text in FIGURES:
            if fkey == f"{prefix} {key}" and isinstance(val, (int, float)):
                print(f"   {fkey}: measured {val} {unit}, quoted {quoted} at "
                      f"{where(path, text)} (ratio {val / quoted:.2f})")


def main(argv: list[str]) -> int:
    if "--list" in argv:
        return list_figures()
    full = "--full" in argv
    groups: list[str] = []
    if "--only" in argv:  # cases and groups, comma-separated
        i = argv.index("--only")
        if i + 1 >= len(argv):
            raise SystemExit("--only needs a comma-separated list of cases and groups")
        picked = argv[i + 1].split(",")
        argv = argv[:i] + argv[i + 2:]
        bad = [x for x in picked if x not in CASES and x not in GROUPS]
        if bad:
            raise SystemExit(f"unknown case or group {bad[0]!r}; cases: {', '.join(CASES)}; "
                             f"groups: {', '.join(GROUPS)}")
        groups = [x for x in picked if x in GROUPS]
        argv = argv + [x for x in picked if x in CASES]
        if not any(x in CASES for x in picked):
            argv.append("--no-cases")
    if "--groups" in argv:
        i = argv.index("--groups")
        if i + 1 >= len(argv):
            raise SystemExit("--groups needs a comma-separated list of groups, or all")
        groups = list(GROUPS) if argv[i + 1] == "all" else argv[i + 1].split(",")
        argv = argv[:i] + argv[i + 2:]
        bad = [g for g in groups if g not in GROUPS]
        if bad:
            raise SystemExit(f"unknown group {bad[0]!r}; groups: {', '.join(GROUPS)}")
    if "--quick" in argv:
        groups = groups or list(QUICK_GROUPS)
    names = [a for a in argv if not a.startswith("--")]
    bad = [n for n in names if n not in CASES]
    if bad:
        raise SystemExit(f"unknown case {bad[0]!r}; cases: {', '.join(CASES)}")
    if not names and not groups and "--no-cases" not in argv:
        names = [c for c in CASES if full or c != "perm-9"]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip()
    print(f"# commit {commit}; load average {os.getloadavg()[0]:.1f} at the start "
          "(CPU seconds are the fair figure on a shared machine)")
    with tempfile.TemporaryDirectory(prefix="bench_readme_") as t:
        tmp = Path(t)
        for name in names:
            got = CASES[name](tmp)
            print(json.dumps({"case": name, **got}))
            _report(name, got)
        for g in groups:
            r = _group(g, tmp)
            print(json.dumps({k: v for k, v in r.items() if k != "output"}))
            _report(f"group:{g}", r)
            print("\n".join(f"   | {line}" for line in r["output"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
