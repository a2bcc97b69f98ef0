"""``logitgeom export coq CERT... -o DIR [--compile] [--no-witnesses]``: Coq proofs of certificates.

Thin: parse, call :mod:`logitgeom.coq`, print one line per file (docs/coq.md).
"""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("export", help="export certificates to a proof assistant (Coq)")
    es = p.add_subparsers(dest="export_target", metavar="TARGET", required=True)
    q = es.add_parser(
        "coq", help="one Coq file per certificate, its claim proved by computation",
        description="Write one .v file per certificate (plus the library Logitgeom.v) whose "
        "theorem states the certificate's claim and proves it with checkers proven sound "
        "in certificates/coq/Logitgeom.v; --compile runs coqc on every file (docs/coq.md).")
    q.add_argument("certificates", nargs="+", metavar="CERT", help="certificate JSON files")
    q.add_argument("-o", "--out", required=True, metavar="DIR", help="output folder")
    q.add_argument("--compile", action="store_true",
                   help="compile every file with coqc (exit 1 if coqc rejects one)")
    q.add_argument("--no-witnesses", action="store_true",
                   help="argmax audits: prove the never-proofs only, not the argmaxable "
                   "labels' witnesses (these cost k d products each in Coq: O(k^2 d) for a "
                   "k x d head)")
    q.set_defaults(func=_coq)


def _coq(args: argparse.Namespace) -> int:
    from logitgeom.coq import compile_files, export_files

    written = export_files(args.certificates, args.out, witnesses=not args.no_witnesses)
    for src, v in zip(args.certificates, written, strict=True):
        print(f"{src} -> {v}")
    if not args.compile:
        return 0
    bad = 0
    for c in compile_files(written):
        bad += not c.ok
        verdict = "accepted by coqc" if c.ok else "REJECTED by coqc: " + " ".join(
            c.message.split())[:500]
        print(f"{c.path}: {verdict} ({c.cpu_seconds:.2f} CPU s)")
    return 1 if bad else 0
