"""``logitgeom patterns sign|ranking``: exact enumeration of sign and ranking patterns."""

from __future__ import annotations

import argparse
import json

from logitgeom.cli import _output


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
        _output.add_output(q, what="the result (patterns and witnesses) as JSON")
        q.add_argument("--max-regions", type=int, default=None, metavar="N",
                       help="refuse (before any enumeration) if the count exceeds N; "
                       "without N, heads that may have more than 2,000,000 regions "
                       "(general-position bound) are refused at once")
        q.add_argument("--no-progress", action="store_true", help="no progress bar")
        g = q.add_argument_group(
            "enumeration at scale",
            "-o/--out DIR (a path not ending in .json, without --json) streams the regions to "
            "DIR: manifest.json + shards/*.parquet, resumable, on any executor; see "
            "docs/enumeration-at-scale.md")
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
                       help="with -o DIR: discard an interrupted run instead of resuming it")
        q.set_defaults(func=_run)


def _size_check(W, b, args: argparse.Namespace) -> None:
    """Refuse huge heads at once, from the general-position bound (no exact work)."""
    from logitgeom.geometry.counting import (
        DEFAULT_MAX_COUNT,
        DEFAULT_MAX_PATTERNS,
        check_region_bound,
    )

    ranking = args.patterns_kind == "ranking"
    if ranking and args.top is not None:  # at most k (k-1) ... (k-T+1) prefixes
        import math

        from logitgeom.errors import TooLarge

        bound = math.perm(len(W), max(0, min(args.top, len(W))))
        limit = DEFAULT_MAX_PATTERNS if args.max_regions is None else args.max_regions
        if bound > max(limit, DEFAULT_MAX_PATTERNS if args.max_regions is None else 0):
            raise TooLarge(f"a {len(W)}-label head may have up to {bound:,} top-{args.top} "
                           f"prefixes, above the limit {limit:,}; raise --max-regions or "
                           "lower --top (see docs/limits.md)")
        return
    if args.max_regions is None:
        from logitgeom.errors import TooLarge
        from logitgeom.geometry.counting import count_or_refuse, region_upper_bound

        if region_upper_bound(W, bias=b, ranking=ranking) <= DEFAULT_MAX_PATTERNS:
            return
        # the bound is loose for degenerate heads: the exact count decides when it is cheap
        n = count_or_refuse(W, bias=b, ranking=ranking, limit=DEFAULT_MAX_COUNT)
        if n > DEFAULT_MAX_PATTERNS:
            kind = "rankings" if ranking else "sign patterns"
            raise TooLarge(f"this head has {n:,} {kind} (exact count), above the default "
                           f"limit {DEFAULT_MAX_PATTERNS:,} of an in-memory result; stream "
                           "them with -o DIR, or raise --max-regions")
    else:  # the exact count decides against N, as long as counting itself is affordable
        check_region_bound(W, bias=b, ranking=ranking,
                           limit=max(args.max_regions, DEFAULT_MAX_COUNT))


def _close(ex: object) -> None:
    from logitgeom.run.executor import close_executor

    close_executor(ex)


def _streamed(args: argparse.Namespace) -> bool:
    """-o DIR streams: a path that is not stdout, not *.json, and no --json."""
    out = getattr(args, "out", None)
    return (out is not None and out != "-" and not str(out).endswith(".json")
            and getattr(args, "json_out", None) is None)


def _run(args: argparse.Namespace) -> int:
    from logitgeom.errors import InvalidInput
    from logitgeom.geometry import ranking_pattern, sign_pattern
    from logitgeom.io import read_matrix, read_vector
    from logitgeom.run.executor import make_executor

    streamed = _streamed(args)
    if args.workers is not None and args.workers < 1:
        raise InvalidInput(f"--workers must be at least 1; got {args.workers}")
    for name in ("units", "shard_rows"):
        value = getattr(args, name, None)
        if value is not None and value < 1:
            raise InvalidInput(f"--{name.replace('_', '-')} must be at least 1; got {value}")
    if not streamed and (args.units is not None or args.shard_rows is not None
                         or args.restart):
        raise InvalidInput("--units, --shard-rows and --restart only apply with -o DIR")
    if streamed and getattr(args, "top", None) is not None:
        raise InvalidInput("--top is not streamed; drop -o DIR (prefixes are few) or --top")
    target = None if streamed else _output.json_target(args)
    _output.prepare(args, target)
    W = read_matrix(args.W, what="W")
    b = None if args.bias is None else read_vector(args.bias, length=len(W), what="bias")
    progress = False if args.no_progress else None
    if not streamed:
        _size_check(W, b, args)
    executor = make_executor(workers=args.workers, scheduler=args.scheduler)
    try:
        if streamed:
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
    if target == "-":
        _output.write(args, "-", text)
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
    if target:
        _output.write(args, target, text)
        print(f"written to {target}")
    return 0


def _run_out(args: argparse.Namespace, W, b, executor, progress) -> int:
    from logitgeom.exact.lattice import count_rankings_exact, count_regions_exact
    from logitgeom.geometry.stream import DEFAULT_SHARD_ROWS, enumerate_to_dir

    if args.max_regions is not None:
        n = count_regions_exact(W, b) if args.patterns_kind == "sign" else \
            count_rankings_exact(W, b)
        if n > args.max_regions:
            from logitgeom.errors import TooLarge

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
