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
        help="exact number of sign patterns or rankings (Zaslavsky, no LP)",
        description="Exact count of the regions of a classifier head from its intersection "
        "lattice (Zaslavsky's theorem); no enumeration and no LP.",
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


def _count(args: argparse.Namespace) -> int:
    from logitgeom.geometry.counting import DEFAULT_MAX_COUNT, count_or_refuse, region_upper_bound
    from logitgeom.io import read_matrix, read_vector

    _output.prepare(args, _output.json_target(args))
    W = read_matrix(args.W, what="W")
    b = None if args.bias is None else read_vector(args.bias, length=len(W), what="bias")
    limit = DEFAULT_MAX_COUNT if args.max_regions is None else args.max_regions
    ranking = args.count_kind == "ranking"
    bound = region_upper_bound(W, bias=b, ranking=ranking)
    if bound > 1_000_000 and sys.stderr.isatty():  # the exact count walks ~1 node per region
        print(f"counting exactly: at most {bound:,} regions (general-position bound) ...",
              file=sys.stderr, flush=True)
    # the default tries a cheap exact search past the bound; an explicit N is the budget
    n = count_or_refuse(W, bias=b, ranking=ranking, limit=limit,
                        work=None if args.max_regions is None else limit)
    obj = {
        "kind": f"count-{args.count_kind}",
        "k": len(W),
        "d": len(W[0]),
        "affine": b is not None,
        "count": n,
        "method": "zaslavsky",
    }
    if _emit(obj, args):
        return 0
    what = "sign patterns" if args.count_kind == "sign" else "rankings"
    print(
        f"{n} {what} (k = {len(W)}, d = {len(W[0])}{', affine' if b is not None else ''}; "
        "exact, Zaslavsky)"
    )
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
