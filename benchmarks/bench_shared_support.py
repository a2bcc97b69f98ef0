"""Checking never-proofs that share one support (issue 44, item 2), with the stdlib checker.

A cluster of labels is planted inside one simplex of d + 1 rows of a float64 head (each
label a random convex combination of the simplex's rows, weights at least 0.1 / (d + 1.1)
of the total, rounded to float64), and each is proven never argmax on that support: exact
barycentric multipliers from one FLINT solve of the support for every label
(``logitgeom.exact.dixon.solve_columns``).  The head has enough standard-normal rows that
k d > 2^22, so the checker keeps no row cache, as at vocabulary scale.  Only the planted
labels are audited.  The certificate is written twice: with the support listed once (the
others ``"rows": {"as": L}``, ``logitgeom.audit.shards.share_rows``) and with every list
written out, and each is checked (every proof) by ``logitgeom_certificates.check_audit``.

    python benchmarks/bench_shared_support.py                        # d = 128, 16 labels
    python benchmarks/bench_shared_support.py --cols 256 --labels 32
    python benchmarks/bench_shared_support.py --write DIR   # keep shared.json, explicit.json

(``--write``: the two certificates and ``head.npy`` stay in DIR, to be checked by another
checker, e.g. one from before shared supports: ``python -m
logitgeom_certificates.check_audit DIR/explicit.json``.)

Prints the bytes of each certificate and of its rows lists, the meter's units and the CPU
seconds of each check, the CPU seconds per never label (the first label, which converts
the support's rows to integers, and each later one, which reuses them) and the CPU seconds
of converting the support's rows once (what every label paid again before the support was
kept, twice for multipliers over 4,000 digits).  CPU seconds of this process; the machine
is shared, so quote CPU, not wall time.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from logitgeom.audit.shards import share_rows  # noqa: E402
from logitgeom.certify.audit import audit_certificate  # noqa: E402
from logitgeom.exact.dixon import solve_columns  # noqa: E402
from logitgeom_certificates import kernel  # noqa: E402
from logitgeom_certificates.api import int_to_str  # noqa: E402
from logitgeom_certificates.check_audit import check_file  # noqa: E402


def build(d: int, m: int, rows: int, seed: int) -> tuple[np.ndarray, list[int], list[list[int]]]:
    """(head, planted labels, positive integer multipliers on rows 0..d per planted label)."""
    rng = np.random.default_rng(seed)
    k = max(rows, (1 << 22) // d + 1, d + 1 + m)
    W = rng.standard_normal((k, d))
    lam = rng.random((m, d + 1)) + 0.1
    planted = list(range(d + 1, d + 1 + m))
    W[planted] = (lam / lam.sum(axis=1, keepdims=True)) @ W[: d + 1]
    exact = [[Fraction(float(x)) for x in W[i]] for i in range(d + 1 + m)]
    L = math.lcm(*(x.denominator for r in exact for x in r))
    S = [[int(x * L) for x in r] for r in exact[: d + 1]]
    A = [[S[i][j] for i in range(d + 1)] for j in range(d)] + [[1] * (d + 1)]
    B = [[int(x * L) for x in exact[k]] + [1] for k in planted]
    sol = solve_columns(A, B)
    if sol is None:
        raise SystemExit("the simplex is singular; try another --seed")
    N, D = sol
    mults = []
    for k, col in zip(planted, N, strict=True):
        g = math.gcd(*col)
        c = [v // g for v in col] if D > 0 else [-v // g for v in col]
        if min(c) <= 0:
            raise SystemExit(f"label {k} is not strictly inside the simplex after rounding")
        mults.append(c)
    return W, planted, mults


def write(folder: Path, name: str, W: np.ndarray, planted: list[int], mults, shared: bool
          ) -> Path:
    d = W.shape[1]
    np.save(folder / "head.npy", W)
    recs = [{"label": k, "all": {"verdict": "never", "rows": list(range(d + 1)),
                                 "multipliers": [int_to_str(v) for v in c], "stage": "exact"}}
            for k, c in zip(planted, mults, strict=True)]
    cert = audit_certificate(
        head={"format": "npy", "file": "head.npy",
              "sha256": hashlib.sha256(np.ascontiguousarray(W).tobytes()).hexdigest()},
        rows=W.shape[0], cols=d, domains=["all"], labels=planted,
        counts={"all": {"argmaxable": 0, "never": len(planted), "undecided": 0}},
        records=share_rows(recs) if shared else recs)
    path = folder / name
    path.write_text(json.dumps(cert, sort_keys=True))
    return path


def cpu() -> float:
    return time.process_time()


def timed(fn):
    t0 = cpu()
    v = fn()
    return v, cpu() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cols", type=int, default=128, help="d (default 128)")
    ap.add_argument("--labels", type=int, default=16, help="planted labels (default 16)")
    ap.add_argument("--rows", type=int, default=0,
                    help="rows of the head (at least 2^22 / d + 1 and d + 1 + labels)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--write", metavar="DIR", help="keep the certificates and head in DIR")
    args = ap.parse_args(argv)
    if args.cols < 2 or args.labels < 2:
        ap.error("--cols and --labels take at least 2")
    W, planted, mults = build(args.cols, args.labels, args.rows, args.seed)
    k, d = W.shape
    digits = max(len(int_to_str(v)) for c in mults for v in c)
    print(f"head {k} x {d} float64 (k d = {k * d:,} > 2^22: no row cache), {len(planted)} "
          f"labels planted in the simplex of rows 0..{d}; multipliers up to {digits:,} digits")
    with tempfile.TemporaryDirectory(prefix="bench-shared-") as tmp:
        folder = Path(args.write or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        for shared in (True, False):
            path = write(folder, "shared.json" if shared else "explicit.json", W, planted, mults,
                         shared)
            text = path.read_text()
            lists = sum(len(json.dumps(r["all"]["rows"])) for r in json.loads(text)["records"])
            v, t_all = timed(lambda p=path: check_file(p, max_work=10 ** 18))
            if not v.ok:
                raise SystemExit(f"the certificate does not check: {v}")
            _, t_none = timed(lambda p=path: check_file(p, labels=[]))
            _, t_one = timed(lambda p=path: check_file(p, labels=[planted[0]]))
            per = (t_all - t_none) / len(planted)
            later = (t_all - t_one) / (len(planted) - 1)
            print(f"{'support listed once' if shared else 'every list written out'}: "
                  f"{len(text):,} bytes ({lists:,} of rows lists); check of every proof: "
                  f"{v.work:,} units, {t_all:.2f} CPU s (structure alone {t_none:.2f}); per "
                  f"never label {per:.3f} CPU s: the first {t_one - t_none:.3f}, each later "
                  f"one {later:.3f}")
    support = [W[i].tolist() for i in range(d + 1)]
    _, t_conv = timed(lambda: [kernel.scaled(r) for r in support])
    print(f"converting the support's {d + 1} rows to integers once: {t_conv:.3f} CPU s (per "
          "label before the support was kept; twice with multipliers over 4,000 digits)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
