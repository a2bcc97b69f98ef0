"""Start-up CPU of the command line: ``--help``, each ``COMMAND --help``, ``check`` of a small file.

Each command runs in a fresh interpreter, ``--repeats`` times (default 5); the figure is the
median of the child's CPU seconds (user + sys, ``resource.getrusage(RUSAGE_CHILDREN)``), never
wall time (the machine may be shared).  The goal (issue 45): at most 0.15 CPU s each.
``--against REV`` also measures a git revision of this repository (checked out into a
temporary worktree and run as ``python -m engine``/``python -m logitgeom`` from it), so the
change is measured on the same machine in the same run.

Usage::

    python benchmarks/bench_startup.py                     # this checkout, 5 runs each
    python benchmarks/bench_startup.py --repeats 9
    python benchmarks/bench_startup.py --against e5361e4   # and the revision before the change
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SMALL = "certificates/paper/app-c.2-centred-cosine.json"  # 699 bytes
LIMIT = 0.15


def _commands(module: str, env: dict[str, str], cwd: Path) -> list[list[str]]:
    code = (f"import argparse\nfrom {module}.cli.main import build_parser\nout = []\n"
            "def walk(p, prefix):\n"
            "    for a in p._actions:\n"
            "        if isinstance(a, argparse._SubParsersAction):\n"
            "            for name, sp in a.choices.items():\n"
            "                out.append(prefix + [name]); walk(sp, prefix + [name])\n"
            "walk(build_parser(), [])\nprint(repr(out))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       cwd=cwd, check=True)
    return eval(r.stdout)  # a list literal printed by the child


def _cpu(argv: list[str], env: dict[str, str], cwd: Path) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=cwd)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(module: str, cwd: Path, env: dict[str, str], repeats: int) -> dict[str, float]:
    """Median CPU seconds of each start-up command, run as ``python -m MODULE ...``."""
    cases = [["--help"], *[[*c, "--help"] for c in _commands(module, env, cwd)],
             ["check", str(ROOT / SMALL)]]
    out = {}
    for case in cases:
        runs = [_cpu([sys.executable, "-m", module, *case], env, cwd) for _ in range(repeats)]
        out[" ".join(case)] = statistics.median(runs)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0],
                                 epilog="usage examples: see the module docstring")
    ap.add_argument("--repeats", type=int, default=5, help="runs per command (median)")
    ap.add_argument("--against", metavar="REV", help="also measure this git revision")
    args = ap.parse_args(argv)
    if args.repeats < 1:
        ap.error("--repeats must be at least 1")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    rows = {"this checkout": measure("logitgeom", ROOT, env, args.repeats)}
    if args.against:
        with tempfile.TemporaryDirectory(prefix="bench_startup_") as tmp:
            wt = Path(tmp) / "rev"
            subprocess.run(["git", "worktree", "add", "--detach", str(wt), args.against],
                           cwd=ROOT, check=True, capture_output=True)
            try:
                old = "engine" if (wt / "engine" / "cli" / "main.py").is_file() and \
                    "from engine" in (wt / "engine" / "cli" / "main.py").read_text() \
                    else "logitgeom"
                env_old = {**env, "PYTHONPATH": str(wt)}
                if old == "logitgeom":
                    env_old["PYTHONPATH"] = str(wt / "build" / "typing")
                    subprocess.run(["bash", "scripts/typing-links.sh"], cwd=wt, check=True)
                rows[f"revision {args.against}"] = measure(old, wt, env_old, args.repeats)
            finally:
                subprocess.run(["git", "worktree", "remove", "--force", str(wt)], cwd=ROOT,
                               capture_output=True)
    names = list(rows)
    print(f"# CPU s per command (median of {args.repeats}); goal <= {LIMIT}")
    print(f"{'command':40s} " + " ".join(f"{n:>22s}" for n in names))
    worst = {n: 0.0 for n in names}
    for case in rows[names[0]]:
        vals = [rows[n].get(case) for n in names]
        for n, v in zip(names, vals, strict=True):
            if v is not None:
                worst[n] = max(worst[n], v)
        print(f"{case:40s} " + " ".join(f"{v:>22.3f}" if v is not None else f"{'-':>22s}"
                                         for v in vals))
    for n in names:
        print(f"worst, {n}: {worst[n]:.3f} CPU s "
              f"({'within' if worst[n] <= LIMIT else 'NOT within'} {LIMIT})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
