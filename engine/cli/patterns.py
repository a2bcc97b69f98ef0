"""``logitgeom patterns sign|ranking``: exact enumeration of sign and ranking patterns."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "patterns",
        help="enumerate sign patterns S(W) or ranking patterns R(W) exactly, with witnesses",
        description="Exact, complete enumeration of the regions of a classifier head, one "
                    "rational witness each; completeness is certified by the exact "
                    "Zaslavsky count (or, for --top, by an exact LP per candidate).",
    )
    psub = p.add_subparsers(dest="patterns_kind", metavar="KIND", required=True)
    for kind, hlp in (("sign", "sign patterns sign(W x + b) of a sigmoid head"),
                      ("ranking", "rankings of the labels (largest logit first) of a "
                                  "softmax head")):
        q = psub.add_parser(kind, help=hlp)
        q.add_argument("W", help="k x d matrix file (.csv, .npy or .json); rows are labels")
        q.add_argument("--bias", default=None, metavar="B",
                       help="bias vector file (length k) for the affine arrangement")
        if kind == "ranking":
            q.add_argument("--top", type=int, default=None, metavar="T",
                           help="only the distinct top-T prefixes")
        q.add_argument("--json", dest="json_out", default=None, metavar="OUT",
                       help="write the result as JSON to OUT ('-' for stdout)")
        q.add_argument("--max-regions", type=int, default=None, metavar="N",
                       help="refuse (before any work) if the exact count exceeds N")
        q.add_argument("--no-progress", action="store_true", help="no progress bar")
        g = q.add_argument_group(
            "enumeration at scale",
            "stream the regions to a directory of Parquet shards (resumable, any executor); "
            "see docs/enumeration-at-scale.md")
        g.add_argument("--out", default=None, metavar="DIR",
                       help="write the regions to DIR (manifest.json + shards/*.parquet) "
                            "instead of memory; an interrupted run there is resumed")
        g.add_argument("--workers", type=int, default=None, metavar="N",
                       help="N local worker processes (with --scheduler local: the size "
                            "of the Dask LocalCluster)")
        g.add_argument("--scheduler", default=None, metavar="ADDRESS",
                       help="Dask scheduler address (tcp://host:8786), or 'local' for a "
                            "LocalCluster on this machine")
        g.add_argument("--units", type=int, default=None, metavar="N",
                       help="target number of work units (default: from the exact count)")
        g.add_argument("--shard-rows", type=int, default=None, metavar="N",
                       help="target rows per shard (bounds the memory of a merge task)")
        g.add_argument("--restart", action="store_true",
                       help="with --out: discard an interrupted run instead of resuming it")
        q.set_defaults(func=_run)


def _close(ex: object) -> None:
    if ex is None:
        return
    if hasattr(ex, "shutdown"):
        ex.shutdown()
        return
    cluster = getattr(ex, "cluster", None)
    ex.close()
    if cluster is not None:
        cluster.close()


def _run(args: argparse.Namespace) -> int:
    from engine.errors import InvalidInput
    from engine.geometry import ranking_pattern, sign_pattern
    from engine.io import read_matrix, read_vector
    from engine.run.executor import make_executor

    W = read_matrix(args.W, what="W")
    b = None if args.bias is None else read_vector(args.bias, length=len(W), what="bias")
    progress = False if args.no_progress else None
    if args.workers is not None and args.workers < 1:
        raise InvalidInput(f"--workers must be at least 1; got {args.workers}")
    if args.out is None and (args.units is not None or args.shard_rows is not None
                             or args.restart):
        raise InvalidInput("--units, --shard-rows and --restart only apply with --out DIR")
    if args.out is not None:
        if getattr(args, "top", None) is not None:
            raise InvalidInput("--top is not streamed; drop --out (prefixes are few) or --top")
        if args.json_out is not None:
            raise InvalidInput("--json and --out are exclusive (the directory is the output)")
    executor = make_executor(workers=args.workers, scheduler=args.scheduler)
    try:
        if args.out is not None:
            return _run_out(args, W, b, executor, progress)
        if args.patterns_kind == "sign":
            res = sign_pattern(W, bias=b, max_regions=args.max_regions, progress=progress,
                               executor=executor)
        else:
            res = ranking_pattern(W, bias=b, top=args.top, max_regions=args.max_regions,
                                  progress=progress, executor=executor)
    finally:
        _close(executor)
    text = json.dumps(res.to_json(), indent=1, sort_keys=True) + "\n"
    if args.json_out == "-":
        sys.stdout.write(text)
        return 0
    print(f"{res.kind}: k = {res.k}, d = {res.d}{'' if res.bias is None else ', affine'}"
          f"{'' if res.top is None else f', top {res.top}'}")
    print(f"count: {res.count}   complete: {res.complete} ({res.completeness})"
          + ("" if not res.ties else f"   ties: {[list(t) for t in res.ties]}"))
    if res.kind == "sign":
        shown = ["".join("+" if s > 0 else "-" if s < 0 else "0" for s in p)
                 for p in res.patterns[:20]]
    else:
        shown = [" ".join(str(i) for i in p) for p in res.patterns[:20]]
    for s in shown:
        print("  " + s)
    if res.count > len(shown):
        print(f"  ... ({res.count - len(shown)} more; use --json for all and the witnesses)")
    if args.json_out:
        Path(args.json_out).write_text(text)
        print(f"written to {args.json_out}")
    return 0


def _run_out(args: argparse.Namespace, W, b, executor, progress) -> int:
    from engine.exact.lattice import count_rankings_exact, count_regions_exact
    from engine.geometry.store import DEFAULT_SHARD_ROWS, enumerate_to_dir

    if args.max_regions is not None:
        n = count_regions_exact(W, b) if args.patterns_kind == "sign" else \
            count_rankings_exact(W, b)
        if n > args.max_regions:
            from engine.errors import TooLarge

            raise TooLarge(f"the exact count is {n}, above --max-regions {args.max_regions}")
    res = enumerate_to_dir(W, args.out, kind=args.patterns_kind, bias=b, executor=executor,
                           units=args.units, shard_rows=args.shard_rows or DEFAULT_SHARD_ROWS,
                           progress=progress, resume=not args.restart)
    m = res.manifest
    print(f"{res.kind}: k = {m['k']}, d = {m['d']}{', affine' if m['affine'] else ''}")
    print(f"count: {res.count}   exact count: {res.exact_count}   complete: {res.complete} "
          f"({res.completeness})")
    print(f"written to {args.out}: {len(m['units'])} work units, {m['buckets']} shards")
    return 0
