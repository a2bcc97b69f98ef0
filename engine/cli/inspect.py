"""``logitgeom inspect MODEL --tokens ...``: geometry of a token set in a local model.

Parses arguments, calls :func:`logitgeom.models.report.inspect_model`, prints its summary and
writes the JSON report, the translation certificate and the heatmaps.  No mathematics here.
"""

from __future__ import annotations

import argparse
import json
import sys

from logitgeom.cli import _output
from logitgeom.errors import InvalidInput


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "inspect",
        help="geometry of a token set in a local model: delta_ETF/delta_circ, cosine audit",
        description=(
            "Load the LM-head rows of a token set from local weights (never downloads), report "
            "delta_ETF and delta_circ of their normalised Gram, audit their cosines (translated "
            "heads with identical probabilities and cosine -1 / +1, with a certificate), "
            "optionally run the model on a prompt template (one slot {TOKEN} or several, "
            "{TOKEN1}, {TOKEN2}, ..., filled from --contexts, which are separate from the "
            "candidate --tokens) and enumerate exact rankings in a small projected dimension."
        ),
    )
    p.add_argument("model", help="weight file (.safetensors/.npz/.npy/.bin) or model folder")
    p.add_argument("--tokens", required=True,
                   help='comma-separated words, e.g. "Monday,Tuesday,Wednesday" (or token ids)')
    p.add_argument("--tensor", help="name of the head tensor (default: lm_head.weight, ...)")
    p.add_argument("--bias", default="auto",
                   help="output-bias tensor name, 'auto' (default) or 'none'")
    p.add_argument("--transpose", action="store_true", help="the head is stored as (d, vocab)")
    p.add_argument("--tokenizer", help="tokenizer.json or its folder (default: next to MODEL)")
    p.add_argument("--space", choices=["auto", "leading", "none"], default="auto",
                   help="spelling: leading-space variant, bare word, or auto (leading first)")
    p.add_argument("--prompt",
                   help='template with {TOKEN} (or {TOKEN1}, {TOKEN2}, ...), e.g. "Today is '
                        '{TOKEN}. Tomorrow is"; runs the model (a transformers folder)')
    p.add_argument("--contexts", metavar="FILE_OR_LIST",
                   help="the contexts filled into --prompt, separate from --tokens: a file with "
                        "one context per line, or inline separated by ';'; the slot words of a "
                        "context are separated by '|', and '-> WORD' names the candidate that "
                        "continues it (builds the target Y), e.g. "
                        "\"orange|red -> yellow; orange|yellow -> red\" (default: each token "
                        "in a one-slot template)")
    p.add_argument("--device", default=None,
                   help="torch device of the --prompt run: cpu (default), cuda, cuda:N, mps")
    p.add_argument("--dtype", choices=["float32", "bfloat16", "float16"],
                   help="load the weights of the --prompt run in this dtype (default: as stored)")
    p.add_argument("--trust-remote-code", action="store_true",
                   help="allow a model folder that ships its own modelling code (e.g. RWKV-7); "
                        "off by default: read that code first")
    p.add_argument("--dim", type=int, help="project to D dimensions for the exact ranking audit")
    p.add_argument("--pair", default="0,1",
                   help="positions i,j in --tokens of the translation audit (default 0,1)")
    p.add_argument("--group",
                   help="also report delta_group for 'cyclic', 'symmetric' or a .json list of "
                        "permutations of the tokens")
    _output.add_output(p, what="the full report as JSON")
    p.add_argument("--cert", help="write the translation certificate (checkable) here")
    p.add_argument("--plot", help="save heatmaps of the Grams here (.png/.pdf/.svg)")
    p.add_argument("--no-progress", action="store_true", help="no progress bars")
    p.set_defaults(func=_inspect)


def _pair(text: str) -> tuple[int, int]:
    try:
        i, j = (int(x) for x in text.split(","))
    except ValueError:
        raise InvalidInput(f"--pair must be two positions 'i,j'; got {text!r}") from None
    return i, j


def _inspect(args: argparse.Namespace) -> int:
    from logitgeom.emit import dumps
    from logitgeom.models.context import check_run_options
    from logitgeom.models.report import inspect_model
    from logitgeom.models.tokens import parse_token_list

    check_run_options(args.device or "cpu", args.dtype)
    run = [o for o, v in (("--device", args.device), ("--dtype", args.dtype),
                          ("--trust-remote-code", args.trust_remote_code)) if v]
    if run and args.prompt is None:  # honoured or refused: only a --prompt run uses them
        verb = "applies" if len(run) == 1 else "apply"
        raise InvalidInput(f"{', '.join(run)} only {verb} to a --prompt run (the head itself "
                           "is read from disk as stored)")
    target = _output.json_target(args)
    _output.prepare(args, target, args.cert, args.plot)
    bias = None if args.bias.lower() in {"none", "no", "false"} else args.bias
    report = inspect_model(
        args.model,
        parse_token_list(args.tokens),
        tensor=args.tensor,
        bias=bias,
        tokenizer=args.tokenizer,
        space=args.space,
        prompt=args.prompt,
        dim=args.dim,
        pair=_pair(args.pair),
        transpose=args.transpose,
        group=args.group,
        progress=False if args.no_progress else None,
        contexts=args.contexts,
        device=args.device or "cpu",
        dtype=args.dtype,
        trust_remote_code=args.trust_remote_code,
    )
    text = json.dumps(report.as_dict(), indent=1, sort_keys=True, allow_nan=False) + "\n"
    if target == "-":
        _output.write(args, "-", text)
    else:
        for line in report.summary():
            print(line)
    say = print if target != "-" else (lambda m: print(m, file=sys.stderr))
    if target and target != "-":
        _output.write(args, target, text)
        say(f"report written to {target}")
    if args.cert:
        _output.write(args, args.cert, dumps(report.audit.certificate))
        say(f"certificate written to {args.cert} "
            "(check: python -m logitgeom_certificates.check FILE)")
    if args.plot:
        report.save_plot(args.plot)
        say(f"heatmaps saved to {args.plot}")
    return 0
