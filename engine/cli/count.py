"""``logitgeom count sign|ranking`` and ``logitgeom verify-grid``: exact counts, and the
cosine paper's verification grid."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


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
        q.add_argument(
            "--json",
            dest="json_out",
            default=None,
            metavar="OUT",
            help="write the result as JSON to OUT ('-' for stdout)",
        )
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
    g.add_argument(
        "--json",
        dest="json_out",
        default=None,
        metavar="OUT",
        help="write the report as JSON to OUT ('-' for stdout)",
    )
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
    g.add_argument("--timings", action="store_true", help="show (and write) wall times")
    g.add_argument("--no-progress", action="store_true", help="no progress bar")
    g.set_defaults(func=_grid)


def _emit(obj: dict, out: str | None) -> bool:
    """Write JSON; True when it went to stdout (then nothing else may be printed)."""
    if out is None:
        return False
    text = json.dumps(obj, indent=1, sort_keys=True) + "\n"
    if out == "-":
        sys.stdout.write(text)
        return True
    Path(out).write_text(text)
    return False


def _count(args: argparse.Namespace) -> int:
    from engine.geometry import count_rankings, count_regions
    from engine.io import read_matrix, read_vector

    W = read_matrix(args.W, what="W")
    b = None if args.bias is None else read_vector(args.bias, length=len(W), what="bias")
    fn = count_regions if args.count_kind == "sign" else count_rankings
    n = fn(W, bias=b)
    obj = {
        "kind": f"count-{args.count_kind}",
        "k": len(W),
        "d": len(W[0]),
        "affine": b is not None,
        "count": n,
        "method": "zaslavsky",
    }
    if _emit(obj, args.json_out):
        return 0
    what = "sign patterns" if args.count_kind == "sign" else "rankings"
    print(
        f"{n} {what} (k = {len(W)}, d = {len(W[0])}{', affine' if b is not None else ''}; "
        "exact, Zaslavsky)"
    )
    if args.json_out:
        print(f"written to {args.json_out}")
    return 0


def _grid(args: argparse.Namespace) -> int:
    from engine.errors import InvalidInput
    from engine.geometry.grid import GRID_NOTE, verify_grid

    try:
        ns = tuple(int(x) for x in args.n.split(",") if x.strip())
    except ValueError as exc:
        raise InvalidInput(
            f"--n must be a comma-separated list of integers; got {args.n!r}"
        ) from exc
    res = verify_grid(
        ns,
        args.seeds,
        d_max=args.d_max,
        progress=False if args.no_progress else None,
        method=args.method,
        workers=args.workers,
    )
    if _emit(res.to_json(timings=args.timings), args.json_out):
        return 0 if res.passed else 1
    print(res.table(timings=args.timings))
    print(GRID_NOTE)
    if args.json_out:
        print(f"written to {args.json_out}")
    return 0 if res.passed else 1
