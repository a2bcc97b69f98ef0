"""``logitgeom occupancy HEAD INPUTS``: which regions of a head real inputs occupy.

Parses arguments, builds the executor, reads hidden states of a model folder from a text file
when asked, calls :func:`logitgeom.occupancy.occupancy` and prints its summary.  No mathematics
here (see docs/occupancy.md).
"""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "occupancy",
        help="which sign patterns, rankings and argmax labels real inputs produce, "
             "decided exactly, against those the head can produce",
        description=(
            "For every input (a hidden state) decide its sign pattern, ranking (exact ties "
            "reported as ties), top-t prefix and argmax exactly (float filter with a rigorous "
            "error bound, integer arithmetic where it does not separate); report the regions "
            "realized against the exact region count (and the enumerated set when small), "
            "each label's argmax wins against the argmax audit's verdict, each input's "
            "distance to the nearest boundary; Parquet shards per input, resumable, on a "
            "pool or Dask.  INPUTS: .npy or .parquet hidden states; or, when HEAD is a model "
            "folder, a text file with one context per line (run through the model)."
        ),
    )
    p.add_argument("head", help="the head: matrix file (.npy/.csv/.json), model folder or "
                                "weight file")
    p.add_argument("inputs", help="hidden states (.npy or .parquet, n x d), or a .txt file "
                                  "of contexts (one per line) when HEAD is a model folder")
    p.add_argument("--bias", nargs="?", const="auto", default=None,
                   help="use an output bias: alone, the model's usual bias tensor; or a tensor "
                        "name (models) / vector file (matrix files)")
    p.add_argument("--top", type=int, default=3, help="t of the top-t prefixes (default 3)")
    p.add_argument("-o", "--out", help="output folder (rerun with the same folder to resume)")
    p.add_argument("--chunk-rows", type=int, default=1 << 16,
                   help="inputs per work unit and Parquet shard (default 65536)")
    p.add_argument("--no-audit", action="store_true",
                   help="skip the argmax audit (per-label verdicts)")
    p.add_argument("--no-count", action="store_true",
                   help="skip the exact region counts and enumerations")
    p.add_argument("--scheduler", help="Dask scheduler address (tcp://host:8786) or 'local'")
    p.add_argument("--workers", type=int, help="local worker processes (default: serial)")
    p.add_argument("--tensor", help="name of the head tensor (default: lm_head.weight, ...)")
    p.add_argument("--transpose", action="store_true", help="the head is stored as (d, vocab)")
    p.add_argument("--rows-are-labels", action="store_true",
                   help="the matrix's rows are the labels even though it has fewer rows than "
                        "columns (otherwise such a matrix file needs --transpose or this flag)")
    p.add_argument("--device", default=None,
                   help="torch device for a model's contexts: cpu (default), cuda, cuda:N, mps")
    p.add_argument("--dtype", default=None, choices=["float32", "bfloat16", "float16"],
                   help="dtype of the model run on a model's contexts (default: as stored)")
    p.add_argument("--trust-remote-code", action="store_true",
                   help="allow a model folder that ships its own modelling code")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=_occupancy)


def _occupancy(args: argparse.Namespace) -> int:
    from pathlib import Path

    from logitgeom.errors import InvalidInput
    from logitgeom.models.context import check_run_options
    from logitgeom.occupancy import occupancy
    from logitgeom.occupancy.run import hidden_states_from_text
    from logitgeom.run.executor import make_executor

    check_run_options(args.device or "cpu", args.dtype)
    inputs = args.inputs
    contexts = Path(args.head).is_dir() and Path(inputs).suffix.lower() not in (".npy",
                                                                              ".parquet")
    run = [o for o, v in (("--device", args.device), ("--dtype", args.dtype),
                          ("--trust-remote-code", args.trust_remote_code)) if v]
    if run and not contexts:  # honoured or refused: only a model run on contexts uses them
        verb = "applies" if len(run) == 1 else "apply"
        raise InvalidInput(f"{', '.join(run)} only {verb} when HEAD is a model folder and "
                           "INPUTS a text file of contexts (run through the model)")
    if contexts:
        inputs = hidden_states_from_text(args.head, inputs, device=args.device or "cpu",
                                         dtype=args.dtype,
                                         trust_remote_code=args.trust_remote_code,
                                         progress=False if args.no_progress else None)
    executor = make_executor(workers=args.workers, scheduler=args.scheduler)
    try:
        result = occupancy(args.head, inputs, bias=args.bias, top=args.top, out=args.out,
                           executor=executor, progress=False if args.no_progress else None,
                           chunk_rows=args.chunk_rows, audit=not args.no_audit,
                           counts=not args.no_count, tensor=args.tensor,
                           transpose=args.transpose, rows_are_labels=args.rows_are_labels)
    finally:
        if executor is not None:
            (getattr(executor, "close", None) or executor.shutdown)()
    for line in result.lines():
        print(line)
    return 0
