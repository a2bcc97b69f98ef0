"""``logitgeom export coq CERT... -o DIR [--compile] [--no-witnesses]``: Coq proofs of
certificates; ``logitgeom check-coq FILE.v...``: the referee's check of Coq files.

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
                   help="run the referee's check on every file (check-coq: its form, coqc, "
                   "Print Assumptions of its theorem); exit 1 if one is not accepted")
    q.add_argument("--no-witnesses", action="store_true",
                   help="argmax audits: prove the never-proofs only, not the argmaxable "
                   "labels' witnesses (these cost k d products each in Coq: O(k^2 d) for a "
                   "k x d head)")
    q.set_defaults(func=_coq)
    c = sub.add_parser(
        "check-coq", help="the referee's check of Coq files (exported here or received)",
        description="Accept a .v file only if it holds nothing but the library import, data "
        "Definitions and Lemma/Theorem ... Proof. ... Qed. (no Admitted, Axiom, Parameter, "
        "Unset, native_compute, no redefinition of a name of Logitgeom.v), coqc accepts it "
        "against this project's certificates/coq/Logitgeom.v, and Print Assumptions of its "
        "last theorem lists only the standard reals' axioms (docs/coq.md). Prints the "
        "theorem's statement; exit 0 if every file is accepted, 1 if not.")
    c.add_argument("files", nargs="+", metavar="FILE.v", help="Coq files")
    c.add_argument("--quiet", action="store_true", help="one verdict line per file, no "
                   "statement")
    c.set_defaults(func=_check_coq)


def _report(v, quiet: bool = False) -> None:
    if v.ok:
        print(f"{v.path}: ACCEPTED by the referee's check: theorem {v.theorem} "
              f"({v.cpu_seconds:.2f} CPU s of coqc; assumes "
              f"{', '.join(v.axioms) if v.axioms else 'nothing'})")
        if not quiet:
            print(f"  {v.theorem} : {v.statement}")
    else:
        print(f"{v.path}: REJECTED by the referee's check: {'; '.join(v.reasons)}")


def _check_coq(args: argparse.Namespace) -> int:
    from logitgeom.coq import check_coq_file

    bad = 0
    for f in args.files:
        v = check_coq_file(f)
        bad += not v.ok
        _report(v, args.quiet)
    return 1 if bad else 0


def _coq(args: argparse.Namespace) -> int:
    from logitgeom.coq import export_files

    written = export_files(args.certificates, args.out, witnesses=not args.no_witnesses)
    for src, v in zip(args.certificates, written, strict=True):
        print(f"{src} -> {v}")
    if not args.compile:
        return 0
    from logitgeom.coq import check_coq_file

    bad = 0
    for v in written:
        r = check_coq_file(v)
        bad += not r.ok
        _report(r, quiet=True)
    return 1 if bad else 0
