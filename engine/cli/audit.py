"""``logitgeom audit-argmax SOURCE``: which tokens of a head can ever be the strict argmax.

Parses arguments, builds the executor, calls :func:`logitgeom.audit.audit_argmax` and prints
its summary.  No mathematics here (see docs/argmax-audit.md).
"""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "audit-argmax",
        help="decide for every token whether some input makes it the strict argmax, "
             "with a checkable certificate",
        description=(
            "Audit an LM head (a model folder or weight file: safetensors, sharded "
            "safetensors, PyTorch .bin/.pt, GGUF, .npz; or a matrix file .npy/.csv/.json): "
            "every label is decided 'argmaxable' (an exactly confirmed witness input) or "
            "'never' (Gordan multipliers verified exactly); 'undecided' only when a "
            "--label-seconds budget ran out.  Writes shards, a resumable run state, the batch "
            "certificate audit.json (re-checked by the stdlib checker before exit), "
            "summary.json, the per-label table labels.csv/labels.parquet and margins.png "
            "to --out."
        ),
    )
    p.add_argument("source", help="model folder, .safetensors/.npy/.npz/.bin/.pt/.gguf, or "
                                  ".csv/.json matrix")
    p.add_argument("--bias", nargs="?", const="auto", default=None,
                   help="use an output bias: alone, the model's usual bias tensor; or a tensor "
                        "name (models) / vector file (matrix files)")
    p.add_argument("--tokens", help="labels to audit: ids, ranges a-b, or words (with a "
                                    "tokenizer), comma-separated; default all")
    p.add_argument("--radius", help="also decide the bounded domain max_j |x_j| <= R "
                                    "(infinity norm; rational, e.g. 10 or 5/2)")
    p.add_argument("-o", "--out", help="output folder (rerun with the same folder to resume)")
    p.add_argument("--labels", dest="label_names", metavar="FILE",
                   help="label names for heads without a tokenizer: a JSON list or one name "
                        "per line (one per row of the head)")
    p.add_argument("--label-seconds", type=float, default=None, metavar="S",
                   help="per-label CPU budget (the label's every stage, both domains, native "
                        "code included: the label runs in a child process killed when the "
                        "budget is spent); a label that exceeds it is 'undecided' and a rerun "
                        "with the same --out decides it again (default: no budget, every label "
                        "decided)")
    p.add_argument("--shared-supports", dest="shared_supports",
                   action=argparse.BooleanOptionalAction, default=False,
                   help="prove never labels inside the same d + 1 rows of a head without a "
                        "bias together: one exact solve for many labels, each proof checked "
                        "exactly; with a bias nothing is shared (default: off, every never "
                        "label proven alone; a resumed run with it on may prove a label on "
                        "another support than an uninterrupted run: same verdicts, other bytes)")
    p.add_argument("--scheduler", help="Dask scheduler address (tcp://host:8786) or 'local'")
    p.add_argument("--workers", type=int, help="local worker processes (default: serial)")
    p.add_argument("--tensor", help="name of the head tensor (default: lm_head.weight, ...)")
    p.add_argument("--transpose", action="store_true", help="the head is stored as (d, vocab)")
    p.add_argument("--rows-are-labels", action="store_true",
                   help="the matrix's rows are the labels even though it has fewer rows than "
                        "columns (otherwise such a matrix file needs --transpose or this flag)")
    p.add_argument("--tokenizer", help="tokenizer.json or its folder (default: next to SOURCE)")
    p.add_argument("--block-size", type=int, default=256, help="labels per work unit")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=_audit)


def _audit(args: argparse.Namespace) -> int:
    from logitgeom.audit import Options, audit_argmax
    from logitgeom.errors import InvalidInput
    from logitgeom.run.executor import make_executor

    if args.label_seconds is not None and not 0 < args.label_seconds < float("inf"):
        raise InvalidInput("--label-seconds must be a finite positive number of CPU seconds; "
                           f"got {args.label_seconds}")

    executor = make_executor(workers=args.workers, scheduler=args.scheduler)
    try:
        result = audit_argmax(
            args.source,
            bias=args.bias,
            tokens=args.tokens,
            radius=args.radius,
            out=args.out,
            executor=executor,
            progress=False if args.no_progress else None,
            tensor=args.tensor,
            transpose=args.transpose,
            rows_are_labels=args.rows_are_labels,
            tokenizer=args.tokenizer,
            block_size=args.block_size,
            options=Options(label_seconds=args.label_seconds,
                            shared_supports=args.shared_supports),
            label_names=args.label_names,
        )
    finally:
        if executor is not None:
            (getattr(executor, "close", None) or executor.shutdown)()
    for line in result.summary():
        print(line)
    return 0
