"""``logitgeom count sign|ranking`` and ``logitgeom verify-grid``: exact counts, and the
cosine paper's verification grid."""

from __future__ import annotations

import argparse
import json
import os
import sys

from logitgeom.cli import _output


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "count",
        help="exact number of sign patterns or rankings, and chi(t) (Zaslavsky, no LP)",
        description="Exact characteristic polynomial chi(t) of a classifier head's sign or "
        "ranking arrangement, from its intersection lattice, and what it counts: regions "
        "= |chi(-1)| (Zaslavsky), bounded regions = |chi(1)| (affine), Betti numbers. "
        "No enumeration and no LP; the count is COMPUTED (see docs/counting.md for how it "
        "can be cross-checked).",
    )
    psub = p.add_subparsers(dest="count_kind", metavar="KIND", required=True)
    for kind, hlp in (
        ("sign", "number of sign patterns sign(W x + b) of a sigmoid head"),
        ("ranking", "number of rankings of the labels of a softmax head"),
    ):
        q = psub.add_parser(kind, help=hlp)
        q.add_argument("W", help="k x d matrix file (.csv, .npy or .json); rows are labels")
        q.add_argument(
            "--bias", default=None, metavar="B", help="bias vector file (length k), affine case"
        )
        _output.add_output(q)
        q.add_argument("--max-regions", type=int, default=None, metavar="N",
                       help="heads whose general-position bound is at most N are counted "
                       "(default 10,000,000: about a minute of exact work); above it, the "
                       "exact search is tried with a budget (N steps if N is given, else "
                       "10^6, a few seconds) and the head refused if it runs out")
        q.add_argument("--method", choices=("restriction", "nbc", "partitions"),
                       default="restriction",
                       help="restriction: deletion-restriction, each distinct restriction "
                       "computed once (default); nbc: the no-broken-circuit search "
                       "(sign) or set-partition formula with its fallback (ranking); "
                       "partitions (ranking): the set-partition formula alone, up to "
                       "--max-work nodes (default 10^9)")
        q.add_argument("--max-work", type=int, default=None, metavar="N",
                       help="at most N distinct restrictions (restriction method; default "
                       "above the --max-regions gate 20,000) or partition-search nodes "
                       "(partitions method; default above the gate 5,000,000, else 10^9); "
                       "given, it replaces the gate")
        q.add_argument("--crosscheck", default="", metavar="C1,C2",
                       help="recompute independently: nbc (the other algorithm), field "
                       "(point counts over F_q, small arrangements only)")
        q.add_argument("--primes", type=int, default=None, metavar="N",
                       help="primes for --crosscheck field (default 2)")
        q.add_argument("--workers", type=int, default=None, metavar="N",
                       help="processes for the top-level restrictions (restriction method)")
        q.add_argument("--scheduler", default=None, metavar="ADDR",
                       help="a Dask scheduler address, or 'local' (restriction method)")
        q.add_argument("--state", default=None, metavar="DIR",
                       help="keep finished top-level restrictions in DIR; rerun to resume "
                       "after a kill (restriction method)")
        q.add_argument("--symmetry", action="store_true",
                       help="also detect the head's label-and-coordinate symmetry group "
                       "exactly and report its order and hyperplane orbits (reported only: "
                       "the count does not use it yet, docs/counting.md section 6)")
        q.set_defaults(func=_count)

    g = sub.add_parser(
        "verify-grid",
        help="the cosine paper's verification grid (Lemma 5.3, Thm 5.6), exactly",
        description="For random integer heads W (n labels, d = 2..min(6, n), seeds 0..S-1) "
        "check S(W) == S(C(W)) and, for d < n, R(W) == S(C(BW)) by complete exact "
        "enumeration of both sides.",
    )
    g.add_argument(
        "--n", default="3,5,10", metavar="N1,N2,...", help="numbers of labels (default 3,5,10)"
    )
    g.add_argument("--seeds", type=int, default=5, help="heads per (n, d) (default 5)")
    g.add_argument("--d-max", type=int, default=6, help="largest width d (default 6)")
    _output.add_output(g, what="the report as JSON")
    g.add_argument(
        "--method",
        choices=("enumerate", "transport"),
        default="enumerate",
        help="Gram side: enumerate it independently (default) or transport witnesses "
        "and decide each exactly (faster; same exact verdict)",
    )
    g.add_argument(
        "--workers",
        type=int,
        default=None,
        help="processes for the grid's cells (default: all cores when n >= 10; same result)",
    )
    g.add_argument("--certificates", default=None, metavar="DIR",
                   help="also write a certificate per head checked into DIR (existing "
                   "folder): grid-nN-dD-sS-lemma-5.3.json and, for d < n, "
                   "grid-nN-dD-sS-thm-5.6.json (theorem certificates: logitgeom check, "
                   "logitgeom export coq)")
    g.add_argument("--timings", action="store_true", help="show (and write) wall times")
    g.add_argument("--no-progress", action="store_true", help="no progress bar")
    g.set_defaults(func=_grid)


def _emit(obj: dict, args: argparse.Namespace) -> bool:
    """Write JSON; True when it went to stdout (then nothing else may be printed)."""
    out = _output.json_target(args)
    if out is None:
        return False
    return _output.write(args, out, json.dumps(obj, indent=1, sort_keys=True) + "\n")


#: distinct restrictions allowed, by default, on a head above the --max-regions gate
DEFAULT_MAX_WORK = 20_000
#: nodes of the set-partition search (--method partitions) allowed above that gate
DEFAULT_PARTITION_WORK = 5_000_000


def _count(args: argparse.Namespace) -> int:
    from logitgeom.errors import InvalidInput, TooLarge
    from logitgeom.geometry.chipoly import CROSSCHECKS, characteristic_polynomial
    from logitgeom.geometry.counting import (
        DEFAULT_MAX_COUNT,
        HOPELESS_FACTOR,
        count_or_refuse,
        region_upper_bound,
    )
    from logitgeom.io import read_matrix, read_vector

    _output.prepare(args, _output.json_target(args))
    checks = tuple(c.strip() for c in args.crosscheck.split(",") if c.strip())
    bad = [c for c in checks if c not in CROSSCHECKS]
    if bad:
        raise InvalidInput(f"--crosscheck takes {', '.join(CROSSCHECKS)}; got {bad[0]!r}")
    for name in ("max_work", "workers", "primes", "max_regions"):
        v = getattr(args, name)
        if v is not None and v < 1:
            raise InvalidInput(f"--{name.replace('_', '-')} must be at least 1; got {v}")
    if args.method != "restriction" and (args.workers or args.scheduler or args.state):
        raise InvalidInput("--workers, --scheduler and --state apply to --method "
                           "restriction only")
    if args.primes is not None and "field" not in checks:  # honoured or refused
        raise InvalidInput("--primes applies to --crosscheck field only")
    if args.method == "nbc" and args.max_work is not None:
        raise InvalidInput("--max-work applies to --method restriction and partitions")
    W = read_matrix(args.W, what="W")
    b = None if args.bias is None else read_vector(args.bias, length=len(W), what="bias")
    limit = DEFAULT_MAX_COUNT if args.max_regions is None else args.max_regions
    ranking = args.count_kind == "ranking"
    bound = region_upper_bound(W, bias=b, ranking=ranking)
    if bound > 1_000_000 and sys.stderr.isatty():
        print(f"counting exactly: at most {bound:,} regions (general-position bound) ...",
              file=sys.stderr, flush=True)
    budget = args.max_work
    if args.method == "nbc":
        # the gate of the no-broken-circuit search: the bound, else a budgeted search
        count_or_refuse(W, bias=b, ranking=ranking, limit=limit,
                        work=None if args.max_regions is None else limit)
    elif budget is None and bound > limit:
        budget = DEFAULT_MAX_WORK if args.method == "restriction" else DEFAULT_PARTITION_WORK
        if bound > HOPELESS_FACTOR * limit:
            budget = 0
    executor = None
    if args.workers or args.scheduler:
        from logitgeom.run.executor import make_executor

        executor = make_executor(args.workers, args.scheduler)
    try:
        primes = 2 if args.primes is None else args.primes
        p = characteristic_polynomial(W, bias=b, ranking=ranking, method=args.method,
                                      crosscheck=checks, primes=primes,
                                      executor=executor, state_dir=args.state,
                                      budget=budget)
    except TooLarge as exc:
        if args.max_work is not None:
            raise
        kind = "rankings" if ranking else "sign patterns"
        if budget == 0:
            raise TooLarge(
                f"this {len(W)} x {len(W[0])} head may have up to {bound:,} {kind} (the "
                f"general-position bound), over {HOPELESS_FACTOR:,} times the limit "
                f"{limit:,}, so no exact count is tried; raise --max-regions to at least "
                f"{bound:,} or give --max-work to try anyway, or use a smaller head (see "
                "docs/limits.md)") from exc
        raise TooLarge(
            f"this {len(W)} x {len(W[0])} head may have up to {bound:,} {kind} (the "
            f"general-position bound), above the limit {limit:,}, and its exact count needs "
            f"more than {budget:,} "
            f"{'distinct restrictions' if args.method == 'restriction' else 'search nodes'}; "
            "raise --max-work (or "
            f"--max-regions to at least {bound:,}) to try anyway, or use a smaller head "
            "(see docs/limits.md)") from exc
    finally:
        if executor is not None:
            from logitgeom.run.executor import close_executor

            close_executor(executor)
    sym = None
    if args.symmetry:
        from logitgeom.geometry.headgroup import arrangement_symmetry

        sym = arrangement_symmetry(W, bias=b, ranking=ranking)
    obj = {
        "kind": f"count-{args.count_kind}",
        "k": len(W),
        "d": len(W[0]),
        "affine": b is not None,
        "count": p.regions,
        "method": "zaslavsky",
        "characteristic_polynomial": p.to_json(),
    }
    if sym is not None:
        obj["symmetry"] = sym.to_json()
    if _emit(obj, args):
        return 0
    what = "sign patterns" if args.count_kind == "sign" else "rankings"
    print(
        f"{p.regions} {what} (k = {len(W)}, d = {len(W[0])}{', affine' if b is not None else ''}; "
        "exact, Zaslavsky)"
    )
    print(f"chi(t) = {p.text()}")
    if p.affine:
        print(f"bounded regions |chi(1)| = {p.bounded}")
    print(f"Betti numbers {list(p.betti)}")
    how = f"{p.method}" + (f"; cross-checked: {', '.join(p.checks)}" if p.checks else
                           "; not cross-checked (--crosscheck nbc,field)")
    print(f"COMPUTED by {how}")
    if sym is not None:
        print(sym.text() + " (reported, not used by the count)")
    if _output.json_target(args):
        print(f"written to {_output.json_target(args)}")
    return 0


def _grid(args: argparse.Namespace) -> int:
    from logitgeom.errors import InvalidInput
    from logitgeom.geometry.grid import GRID_NOTE, verify_grid

    _output.prepare(args, _output.json_target(args))
    try:
        ns = tuple(int(x) for x in args.n.split(",") if x.strip())
    except ValueError as exc:
        raise InvalidInput(
            f"--n must be a comma-separated list of integers; got {args.n!r}"
        ) from exc
    if args.certificates is not None and not os.path.isdir(args.certificates):
        from logitgeom._fsio import OutputError

        raise OutputError(f"--certificates: {args.certificates} is not an existing folder")
    res = verify_grid(
        ns,
        args.seeds,
        d_max=args.d_max,
        progress=False if args.no_progress else None,
        method=args.method,
        workers=args.workers,
    )
    if args.certificates is not None:
        _grid_certificates(args, ns)
    if _emit(res.to_json(timings=args.timings), args):
        return 0 if res.passed else 1
    print(res.table(timings=args.timings))
    print(GRID_NOTE)
    if _output.json_target(args):
        print(f"written to {_output.json_target(args)}")
    return 0 if res.passed else 1


def _grid_certificates(args: argparse.Namespace, ns: tuple[int, ...]) -> None:
    """One theorem certificate per head of the grid (and claim), each checked by the stdlib
    checker before it is written (atomically) into ``--certificates``."""
    from pathlib import Path

    from logitgeom import emit
    from logitgeom._fsio import OutputError, write_atomic
    from logitgeom.geometry.grid import random_head
    from logitgeom_certificates.api import check

    folder = Path(args.certificates)
    for n in ns:
        for d in range(2, min(args.d_max, n) + 1):
            for seed in range(args.seeds):
                W = random_head(n, d, seed)
                for claim in ("lemma-5.3", "thm-5.6") if d < n else ("lemma-5.3",):
                    cert = emit.grid_certificate(W, claim)
                    verdict = check(cert)
                    if not verdict.ok:  # pragma: no cover - the emitter's certificates check
                        raise OutputError(f"grid certificate n={n} d={d} seed={seed} {claim} "
                                          f"not accepted by the checker: {verdict.message}")
                    write_atomic(folder / f"grid-n{n}-d{d}-s{seed}-{claim}.json",
                                 emit.dumps(cert))
