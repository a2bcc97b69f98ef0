"""``logitgeom certify ...`` (emit certificates) and ``logitgeom check FILE...`` (verify them).

Thin: parse, call :mod:`engine.certify.emit` / :mod:`certificates.check`, write or print.
"""

from __future__ import annotations

import argparse
import sys

from engine._version import __version__


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("certify", help="write a self-contained certificate (JSON) for a claim")
    cs = p.add_subparsers(dest="certify_command", metavar="CLAIM", required=True)

    q = cs.add_parser("pattern", help="complete sign pattern S(W) or ranking pattern R(W)")
    q.add_argument("W", help="matrix file (.csv, .npy, .json)")
    q.add_argument("--bias", help="bias vector file (affine model W x + b)")
    q.add_argument("--ranking", action="store_true", help="R(W) instead of S(W)")
    q.add_argument("--top", type=int, help="also state the top-T prefixes (implies --ranking)")
    _out(q)
    q.set_defaults(func=_pattern)

    q = cs.add_parser("differs", help="a pattern telling W1 and W2 apart, or proof of equality")
    q.add_argument("W1")
    q.add_argument("W2")
    q.add_argument("--ranking", action="store_true", help="compare R instead of S")
    _out(q)
    q.set_defaults(func=_differs)

    q = cs.add_parser("translation", help="W + 1 v^T with cos(w'_I, w'_J) = -1 or +1")
    q.add_argument("W")
    q.add_argument("--labels", type=int, nargs=2, required=True, metavar=("I", "J"),
                   help="two 0-based labels")
    q.add_argument("--cos", type=int, choices=(-1, 1), required=True, help="target cosine")
    _out(q)
    q.set_defaults(func=_translation)

    q = cs.add_parser("argmax", help="exactly which labels some input ranks first")
    q.add_argument("W")
    q.add_argument("--bias", help="bias vector file")
    _out(q)
    q.set_defaults(func=_argmax)

    q = cs.add_parser("paper", help="regenerate the papers' certificates (certificates/paper)")
    q.add_argument("--out", required=True, metavar="DIR", help="output directory")
    q.add_argument("--no-progress", action="store_true", help="no progress bar")
    q.set_defaults(func=_paper)

    c = sub.add_parser("check", help="verify certificate files (the stdlib-only checker)")
    c.add_argument("files", nargs="+", metavar="FILE")
    c.add_argument("--explain", action="store_true", help="state the proven claim in words")
    c.add_argument("--latex", action="store_true", help="print a LaTeX snippet per valid file")
    c.add_argument("--one-based", action="store_true",
                   help="--explain/--latex: print labels from 1, as the papers do")
    c.set_defaults(func=_check)


def _out(q: argparse.ArgumentParser) -> None:
    q.add_argument("-o", "--output", metavar="FILE", help="write here (default: stdout)")


def _prov(args: argparse.Namespace) -> dict:
    return {"engine": f"logitgeom {__version__}",
            "command": "logitgeom certify " + " ".join(_argv(args))}


def _argv(args: argparse.Namespace) -> list[str]:
    skip = {"func", "certify_command", "command", "output", "no_progress"}
    words = [args.certify_command]
    for k, v in sorted(vars(args).items()):
        if k in skip or v is None or v is False:
            continue
        if k in ("W", "W1", "W2"):
            words.append(str(v))
        elif v is True:
            words.append(f"--{k}")
        else:
            words.append(f"--{k} " + (" ".join(map(str, v)) if isinstance(v, list) else str(v)))
    return words


def _emit(cert: dict, args: argparse.Namespace) -> int:
    from certificates.check import check
    from engine.certify.emit import dumps

    verdict = check(cert)  # never write a certificate the trusted checker rejects
    if not verdict.ok:
        print(f"logitgeom: error: emitted certificate failed {verdict.failed_check} at "
              f"{verdict.location}: {verdict.message} (please report this bug)", file=sys.stderr)
        return 1
    text = dumps(cert)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(text)
        print(f"wrote {args.output} ({cert['kind']})")
    else:
        sys.stdout.write(text)
    return 0


def _pattern(args: argparse.Namespace) -> int:
    from engine.certify import emit
    from engine.io import read_matrix, read_vector

    W = read_matrix(args.W, what="W")
    bias = read_vector(args.bias, length=len(W), what="bias") if args.bias else None
    ptype = "ranking" if (args.ranking or args.top) else "sign"
    cert = emit.complete_certificate(W, ptype, bias=bias, top=args.top,
                                     provenance=_prov(args))
    return _emit(cert, args)


def _differs(args: argparse.Namespace) -> int:
    from engine.certify import emit
    from engine.io import read_matrix

    W1, W2 = read_matrix(args.W1, what="W1"), read_matrix(args.W2, what="W2")
    return _emit(emit.differs_certificate(W1, W2, ranking=args.ranking, provenance=_prov(args)),
                 args)


def _translation(args: argparse.Namespace) -> int:
    from engine.certify import emit
    from engine.io import read_matrix

    W = read_matrix(args.W, what="W")
    i, j = args.labels
    return _emit(emit.translation_certificate(W, i, j, args.cos, provenance=_prov(args)), args)


def _argmax(args: argparse.Namespace) -> int:
    from engine.certify import emit
    from engine.io import read_matrix, read_vector

    W = read_matrix(args.W, what="W")
    bias = read_vector(args.bias, length=len(W), what="bias") if args.bias else None
    return _emit(emit.argmax_certificate(W, bias=bias, provenance=_prov(args)), args)


def _paper(args: argparse.Namespace) -> int:
    from engine.certify.paper import write_paper

    paths = write_paper(args.out, progress=False if args.no_progress else None)
    for p in paths:
        print(f"wrote {p}")
    return 0


def _check(args: argparse.Namespace) -> int:
    from certificates.check import main as check_main
    from engine.reproduce.manifest import MANIFEST, verify_manifests

    argv = list(args.files) + (["--explain"] if args.explain else []) + \
        (["--latex"] if args.latex else []) + (["--one-based"] if args.one_based else [])
    code = check_main(argv)
    for path, problem, c in verify_manifests(args.files):  # deleted / edited files of a run
        print(f"{path}: {problem} (listed in {path.parent / MANIFEST})")
        code = max(code, c)
    return code
