"""One exact factorisation, many right-hand sides: p-adic lifting against FLINT's solve.

Builds a random n x n integer matrix with entries of ``--bits`` bits (float32 rows over one
power-of-two denominator have about 40; bf16 rows about 25) and ``--columns`` right-hand
sides, then prints CPU seconds (this process, user + sys, BLAS on one thread) of:

* ``flint-1``: FLINT's ``fmpz_mat.solve`` on one column (the one-label-at-a-time cost);
* ``dixon``: :class:`logitgeom.exact.dixon.Factorisation` (|det A|, A^{-1} mod p, limbs),
  then :meth:`~logitgeom.exact.dixon.Factorisation.solve` on all the columns at once;
* per column: (factorisation + lifting) / columns, and the ratio flint-1 / that;

and checks the first column against FLINT's answer exactly (same rational vector).

    python benchmarks/bench_dixon.py --n 800 --columns 16 --bits 24
    python benchmarks/bench_dixon.py --n 1024 --columns 16 --bits 40
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import sys
from fractions import Fraction
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from logitgeom.exact import dixon  # noqa: E402


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=800)
    ap.add_argument("--columns", type=int, default=16)
    ap.add_argument("--bits", type=int, default=24)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--skip-flint", action="store_true",
                    help="do not time FLINT's one-column solve (large n)")
    a = ap.parse_args(argv)
    rng = random.Random(a.seed)
    lo, hi = -(1 << a.bits), 1 << a.bits
    A = [[rng.randrange(lo, hi) for _ in range(a.n)] for _ in range(a.n)]
    B = [[rng.randrange(lo, hi) for _ in range(a.n)] for _ in range(a.columns)]
    plan = dixon.lifting_plan(A, B)
    print(f"n = {a.n}, {a.columns} columns, {a.bits}-bit entries; plan {plan}")
    if plan is None:
        print("entries too wide for the lifting (FLINT's solve would be used)")
        return 1
    t = _cpu()
    F = dixon.Factorisation(A)
    t_fac = _cpu() - t
    t = _cpu()
    N = F.solve(B)
    t_lift = _cpu() - t
    per = (t_fac + t_lift) / a.columns
    print(f"dixon: factorisation {t_fac:.2f} CPU s, lifting {t_lift:.2f} CPU s "
          f"({t_lift / plan['steps'] * 1000:.1f} ms a step), {per:.2f} CPU s a column")
    if not a.skip_flint:
        import flint
        t = _cpu()
        X = flint.fmpz_mat(A).solve(flint.fmpz_mat(a.n, 1, B[0]))
        t_one = _cpu() - t
        num, den = X.numer_denom()
        same = [Fraction(int(v), int(den)) for v in num.entries()] == \
            [Fraction(v, F.det) for v in N[0]]
        print(f"flint-1: {t_one:.2f} CPU s for one column; ratio flint-1 / dixon per column "
              f"{t_one / per:.1f}; first column equal: {same}")
    mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS {mb:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
