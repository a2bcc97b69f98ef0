"""``logitgeom reproduce``: regenerate every claim of both source papers (see logitgeom.reproduce).

Thin: parse, call :func:`logitgeom.reproduce.reproduce`, print the summary, exit 1 on failure.
"""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "reproduce",
        help="reproduce every claim of the two papers (certificates, solutions, figures)",
        description="Run every claim of the two papers on concrete instances; write "
                    "certificates (checked by the stdlib checker), solutions (JSON), figures "
                    "(PNG) and SUMMARY.md into DIR. Exit code 1 if any claim fails.",
    )
    p.add_argument("-o", "--out", default="reproduction", metavar="DIR",
                   help="output directory (default ./reproduction)")
    p.add_argument("--force", action="store_true",
                   help="overwrite files in DIR that no logitgeom run wrote (never by default)")
    p.add_argument("--only", default=None, metavar="KEYS",
                   help="comma-separated claim keys or globs (prefixes match), e.g. "
                        "'cos-thm-3.4,sym-app-f*'; see --list")
    p.add_argument("--list", action="store_true",
                   help="list the claim keys, one line each with what the claim is, and exit")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar (a line per finished claim on stderr instead)")
    p.add_argument("--models", metavar="DIR",
                   help="folder of local model folders (gpt-oss-20b/, Mistral-7B-Instruct-"
                        "v0.3/, rwkv7-7.2B/, gpt-oss-120b/, gpt2-xl/): the real-model rows "
                        "whose folder is there run and compare with the paper's deltas")
    p.add_argument("--device", default="cpu",
                   help="torch device of the real-model context runs (default cpu)")
    p.add_argument("--dtype", choices=["float32", "bfloat16", "float16"],
                   help="dtype of the real-model context runs (default: as stored)")
    p.add_argument("--trust-remote-code", action="store_true",
                   help="allow model folders that ship their own code (RWKV-7); read it first")
    p.set_defaults(func=_reproduce)


def _reproduce(args: argparse.Namespace) -> int:
    from logitgeom.reproduce import reproduce, select_claims, summary_markdown

    if args.list:
        claims = select_claims(args.only)
        width = max(len(c.key) for c in claims)
        for c in claims:
            print(f"{c.key:<{width}}  [{c.paper}] {c.description}")
        return 0
    rep = reproduce(args.out, only=args.only, progress=False if args.no_progress else None,
                    force=args.force, models=args.models, device=args.device, dtype=args.dtype,
                    trust_remote_code=args.trust_remote_code)
    print(summary_markdown(rep), end="")
    print(f"artifacts in {rep.out}/ (summary: {rep.out / 'SUMMARY.md'})")
    return rep.exit_code
