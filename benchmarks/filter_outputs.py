"""Write the audit's and occupancy's output folders on small benchmark heads, for comparison.

A change to the float filters (``logitgeom.exact.filtered``) must not change any decision,
and should not change any output byte.  This script builds small instances of the benchmark
heads (``bench_audit.py``'s planted grid head, ``bench_audit_faces.py``'s near-face head,
``bench_occupancy.py``'s Gaussian head and inputs, plus a head with a bias and non-binary
entries), runs ``audit_argmax`` and ``occupancy`` on them serially, and writes every output
folder under OUT.  Run it at two commits and compare the folders::

    PYTHONPATH=<worktree>/build/typing .venv/bin/python benchmarks/filter_outputs.py /tmp/a
    ... (other commit) ... benchmarks/filter_outputs.py /tmp/b
    diff -r /tmp/a /tmp/b && echo identical

Files whose content is a measurement of time (CPU seconds, dates) are normalised: every
JSON key named ``*seconds*``, ``*cpu*``, ``*wall*``, ``created``/``date``/``time`` is
dropped, and the rest is rewritten with sorted keys.  Everything else is copied byte for byte.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np

_TIMED = ("second", "cpu", "wall", "elapsed", "created", "date", "time", "rss", "peak",
          "host", "python", "version", "platform")


def _scrub(v):
    if isinstance(v, dict):
        return {k: _scrub(x) for k, x in v.items()
                if not any(t in k.lower() for t in _TIMED)}
    if isinstance(v, list):
        return [_scrub(x) for x in v]
    return v


def _copy_normalised(src: Path, dst: Path) -> None:
    for p in sorted(src.rglob("*")):
        if p.is_dir():
            continue
        q = dst / p.relative_to(src)
        q.parent.mkdir(parents=True, exist_ok=True)
        if p.suffix == ".json":
            try:
                q.write_text(json.dumps(_scrub(json.loads(p.read_text())), sort_keys=True,
                                        indent=1))
                continue
            except ValueError:
                pass
        if p.suffix in (".jsonl",):
            lines = []
            for ln in p.read_text().splitlines():
                try:
                    lines.append(json.dumps(_scrub(json.loads(ln)), sort_keys=True))
                except ValueError:
                    lines.append(ln)
            q.write_text("\n".join(lines) + "\n")
            continue
        shutil.copyfile(p, q)


def _summary(path: Path, lines: list[str], tmp: Path) -> None:
    """The printed summary without the temporary folder's name and the run's seconds."""
    text = "\n".join(lines).replace(str(tmp), "<tmp>")
    path.write_text(re.sub(r" in [0-9.]+ (CPU )?s\b", " in <t> s", text) + "\n")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", nargs="?", help="folder to write (replaced; required)")
    ap.add_argument("--rows", type=int, default=600, help="labels of the audit heads")
    ap.add_argument("--cols", type=int, default=24, help="width of the audit heads")
    ap.add_argument("--inputs", type=int, default=20000, help="occupancy inputs")
    args = ap.parse_args(argv)
    if args.out is None:
        ap.error("the folder OUT to write is required")
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import bench_audit
    import bench_audit_faces

    from logitgeom.audit import audit_argmax
    from logitgeom.occupancy import occupancy

    out = Path(args.out)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        k, d = args.rows, args.cols
        heads = {}
        bench_audit.build_head(t / "grid", k, d, n_plant=4, n_triangle=12)
        heads["grid"] = t / "grid"
        bench_audit_faces.build_head(t / "faces", k, d, 12, "faces")
        heads["faces"] = t / "faces"
        rng = np.random.default_rng(0)
        W = rng.normal(size=(50, 16))
        np.save(t / "gauss.npy", W)
        heads["gauss"] = t / "gauss.npy"
        Wb = np.array([[1, 0, 0.1], [0, 1, 0.2], [1, 1, 0.3], [0.5, 0.5, 0.15],
                       [1e-300, 1e300, 0.0], [-1, -1, 0.0]])
        np.save(t / "mixed.npy", Wb)
        heads["mixed"] = t / "mixed.npy"
        for name, h in heads.items():
            res = audit_argmax(h, out=t / f"audit-{name}", progress=False)
            _summary(t / f"audit-{name}" / "summary.txt", res.summary(), t)
            _copy_normalised(t / f"audit-{name}", out / f"audit-{name}")
        X = rng.normal(size=(args.inputs, 16))
        X[: args.inputs // 4] = np.round(X[: args.inputs // 4])  # exact ties and zeros
        np.save(t / "inputs.npy", X)
        r = occupancy(t / "gauss.npy", t / "inputs.npy", out=t / "occ-gauss", progress=False,
                      rows_are_labels=True)
        _summary(t / "occ-gauss" / "summary.txt", r.lines(), t)
        _copy_normalised(t / "occ-gauss", out / "occ-gauss")
        Xg = np.round(rng.normal(size=(2000, 2)) * 4) / 4
        np.save(t / "inputs2.npy", Xg)
        np.save(t / "small.npy", np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0],
                                           [0.5, 0.5], [1e-300, 1e300]]))
        r = occupancy(t / "small.npy", t / "inputs2.npy", out=t / "occ-small", progress=False,
                      rows_are_labels=True)
        _summary(t / "occ-small" / "summary.txt", r.lines(), t)
        _copy_normalised(t / "occ-small", out / "occ-small")
    print(f"wrote {sum(1 for p in out.rglob('*') if p.is_file())} files under {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
