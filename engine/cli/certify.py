"""``logitgeom certify ...`` (emit certificates) and ``logitgeom check FILE...`` (verify them).

Thin: parse, call :mod:`logitgeom.emit` / :mod:`logitgeom_certificates.check`, write or print.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from fractions import Fraction

from logitgeom._version import __version__
from logitgeom.cli import _output
from logitgeom.errors import InvalidInput


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("certify", help="write a self-contained certificate (JSON) for a claim")
    cs = p.add_subparsers(dest="certify_command", metavar="CLAIM", required=True)

    q = cs.add_parser("pattern", help="complete sign pattern S(W) or ranking pattern R(W)")
    q.add_argument("W", nargs="?", help="matrix file (.csv, .npy, .json)")
    q.add_argument("--from", dest="from_dir", metavar="DIR",
                   help="certify a result directory (patterns --out DIR) streamed: writes "
                   "twin shards DIR/twin/*.jsonl.gz that the certificate references by hash")
    q.add_argument("--bias", help="bias vector file (affine model W x + b)")
    q.add_argument("--ranking", action="store_true", help="R(W) instead of S(W)")
    q.add_argument("--top", type=int, help="also state the top-T prefixes (implies --ranking)")
    _max_regions(q)
    _out(q)
    q.set_defaults(func=_pattern)

    q = cs.add_parser("differs", help="a pattern telling W1 and W2 apart, or proof of equality")
    q.add_argument("W1")
    q.add_argument("W2")
    q.add_argument("--ranking", action="store_true", help="compare R instead of S")
    _max_regions(q)
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
    q.add_argument("--max-work", type=int, default=None, metavar="N",
                   help="refuse at once when the estimated work k (k - 1) (d + 1) exceeds N "
                   "(default 20,000,000; engine/limits.py)")
    _out(q)
    q.set_defaults(func=_argmax)

    q = cs.add_parser("solve", help="a proven bracket J* in [L, U] for the layer-peeled "
                      "program (docs/certified-optima.md)")
    q.add_argument("Y", nargs="?", help="target matrix file (.csv, .npy, .json); exact "
                   "probability columns (or --normalize)")
    q.add_argument("--bases", metavar="FILE", default=None,
                   help="instead of Y: a matrix file whose columns are base vectors y_b; the "
                   "target is their orbit [g y_b : g in G] under --group (never written out) "
                   "and the certificate is an orbit bracket (m x m sized for any |G|)")
    q.add_argument("--ew", default="1", help="budget E_W on ||W||_F^2 (default 1)")
    q.add_argument("--eh", default="1", help="budget E_H on ||H||_F^2 (default 1)")
    q.add_argument("--method", default="auto", help="auto, full, circulant, etf or orbit")
    q.add_argument("--solver", default=None, help="CLARABEL, SCS or MOSEK")
    q.add_argument("--eps", default=None, help="required relative width, e.g. 1e-8 or 1/100000000 "
                   "(default: state the achieved width)")
    q.add_argument("--group", default=None, metavar="SPEC|JSON|FILE",
                   help="a group of label permutations preserving Y, used to solve and proven "
                   "in the certificate: a spec (S3, AGL5, D5, A5, PSL(2,7), PGL(2,5), M11, M12, "
                   "F(7,3), with +, x, wr), a JSON list of generators (0-based image form), or "
                   "a JSON file holding either (default: the group the solve detects)")
    q.add_argument("--generators", default=None, help="JSON list of label permutations (image "
                   "form) of a group preserving Y: proves W W^T invariant under it")
    q.add_argument("--normalize", action="store_true",
                   help="take every entry exactly as written (decimal text exactly, binary "
                   "floats of .npy exactly) and divide each column by its exact sum; the "
                   "certificate records (and proves its bracket for) this normalised Y")
    q.add_argument("--d", type=int, default=None, metavar="D",
                   help="hidden width D: a rank bracket (layer-peeled-rank-bracket, W of D "
                   "columns; docs/beyond-symmetry.md)")
    from logitgeom.cli.solve import tolerance

    q.add_argument("--tol", type=tolerance, default=None,
                   help="approximate symmetry: Y near its group average (group: --group, or "
                   "detected with entries within TOL equal); a layer-peeled-stability "
                   "certificate")
    q.add_argument("--allow-collapse", action="store_true",
                   help="with --tol: go on when TOL makes every entry one tolerance class, "
                   "detects only the identity or falls back to the uniform Y0 (refused by "
                   "default)")
    q.add_argument("--y0", default=None, metavar="FILE",
                   help="with --tol/--group: a G-invariant target Y0 near Y (default: the "
                   "group average of Y)")
    q.add_argument("--out", "-o", dest="output", metavar="FILE", help="write here")
    q.add_argument("--max-work", type=int, default=None, metavar="N",
                   help="refuse at once when the estimated work exceeds N (engine/limits.py); "
                   "with --d/--tol/--y0 also the budget of the emitter's own check of the "
                   "certificate (default: no budget; it says what `check --max-work` needs)")
    from logitgeom.cli.solve import add_family_arguments

    add_family_arguments(q)
    q.set_defaults(func=_solve_bracket)

    q = cs.add_parser("paper", help="regenerate the papers' certificates (certificates/paper)")
    q.add_argument("-o", "--out", required=True, metavar="DIR", help="output directory")
    q.add_argument("--force", action="store_true",
                   help="overwrite certificates already in DIR")
    q.add_argument("--no-progress", action="store_true", help="no progress bar")
    q.set_defaults(func=_paper)

    c = sub.add_parser("check", help="verify certificate files (the stdlib-only checker)")
    c.add_argument("files", nargs="+", metavar="FILE")
    c.add_argument("--explain", action="store_true", help="state the proven claim in words")
    c.add_argument("--latex", action="store_true", help="print a LaTeX snippet per valid file")
    c.add_argument("--one-based", action="store_true",
                   help="--explain/--latex: print labels from 1, as the papers do")
    c.add_argument("--zero-based", action="store_true",
                   help="--latex: labels from 0 also for a paper's result (default there: 1)")
    c.add_argument("--max-work", type=int, default=None, metavar="N",
                   help="stop (not checked) a certificate whose exact work, metered as it "
                   "is checked, exceeds N units (default: the checker's, 20,000,000; "
                   "docs/limits.md)")
    c.add_argument("--sample", type=int, default=None, metavar="N",
                   help="argmax audits: check every never-proof and N witnesses drawn from "
                   "--seed; streamed results: every line's structure and N lines' witnesses; "
                   "says how many were checked (other kinds: in full)")
    c.add_argument("--seed", type=int, default=None, help="seed of --sample (default 0)")
    c.add_argument("--workers", type=int, default=None, metavar="N",
                   help="check the shards of a streamed certificate in N processes")
    _output.add_output(c, what="the verdicts as JSON", json_flag=False)
    c.add_argument("--json", dest="json_out", action="store_const", const="-", default=None,
                   help="the verdicts as JSON (one object per file, with the run listings' "
                   "problems), on stdout or in -o PATH")
    c.set_defaults(func=_check)


def _max_regions(q: argparse.ArgumentParser) -> None:
    q.add_argument("--max-regions", type=int, default=None, metavar="N",
                   help="refuse at once a head whose general-position bound on the number of "
                   "patterns exceeds N (default 2,000,000; see docs/limits.md)")


def _size_check(W, bias, ranking: bool, args: argparse.Namespace) -> None:
    """A complete pattern list is enumerated: refuse huge heads before any work."""
    from logitgeom.geometry.counting import DEFAULT_MAX_PATTERNS, check_region_bound

    limit = DEFAULT_MAX_PATTERNS if args.max_regions is None else args.max_regions
    check_region_bound(W, bias=bias, ranking=ranking, limit=limit)


def _out(q: argparse.ArgumentParser) -> None:
    _output.add_output(q, what="the certificate", json_flag=False, dest="output",
                       aliases=("--output",))


def _prov(args: argparse.Namespace) -> dict:
    return {"engine": f"logitgeom {__version__}",
            "command": "logitgeom certify " + " ".join(_argv(args))}


def _argv(args: argparse.Namespace) -> list[str]:
    skip = {"func", "certify_command", "command", "output", "no_progress", "force"}
    words = [args.certify_command]
    for k, v in sorted(vars(args).items()):
        if k in skip or v is None or v is False:
            continue
        if k in ("W", "W1", "W2", "Y"):
            words.append(str(v))
        elif v is True:
            words.append(f"--{k}")
        else:
            name = "from" if k == "from_dir" else k
            words.append(f"--{name} " + (" ".join(map(str, v)) if isinstance(v, list) else str(v)))
    return words


def _emit(cert: dict, args: argparse.Namespace, checked: bool = False) -> int:
    from logitgeom_certificates.api import DEFAULT_MAX_WORK, check

    _output.prepare(args, args.output)
    if checked:  # by the engine, metered (logitgeom.convex.certified)
        return _write(cert, args)
    verdict = check(cert, 1 << 62)  # never write a certificate the trusted checker rejects
    over = verdict.ok and (verdict.work or 0) > DEFAULT_MAX_WORK  # metered: the exact work
    if not verdict.ok:
        print(f"logitgeom: error: emitted certificate failed {verdict.failed_check} at "
              f"{verdict.location}: {verdict.message} (please report this bug)", file=sys.stderr)
        return 1
    if over:
        print(f"note: checking this certificate takes {verdict.work:,} units of exact work, "
              f"more than the default budget of {DEFAULT_MAX_WORK:,}: check it with "
              f"`logitgeom check --max-work {verdict.work} FILE` (docs/limits.md)" + (
                  "; for a target that is the orbit of a few columns under a group, "
                  "`certify solve --bases FILE --group G` writes the orbit bracket instead "
                  "(m x m sized, checked within the default budget)"
                  if cert.get("kind") == "layer-peeled-bracket" else ""), file=sys.stderr)
    return _write(cert, args)


def _write(cert: dict, args: argparse.Namespace) -> int:
    from logitgeom.emit import dumps

    text = dumps(cert)
    if args.output and args.output != "-":
        _output.write(args, args.output, text)
        print(f"wrote {args.output} ({cert['kind']})")
    else:
        sys.stdout.write(text)
    return 0


def _pattern(args: argparse.Namespace) -> int:
    from logitgeom import emit
    from logitgeom.io import read_matrix, read_vector

    if args.from_dir is not None:
        return _pattern_stream(args)
    if args.W is None:
        raise InvalidInput("certify pattern needs a matrix file W or --from DIR")

    W = read_matrix(args.W, what="W")
    bias = read_vector(args.bias, length=len(W), what="bias") if args.bias else None
    ptype = "ranking" if (args.ranking or args.top is not None) else "sign"
    _size_check(W, bias, ptype == "ranking", args)
    cert = emit.complete_certificate(W, ptype, bias=bias, top=args.top,
                                     provenance=_prov(args))
    return _emit(cert, args)


def _rechecked(report: dict) -> str:
    """What the run's own verdicts did not cover: shards changed since, re-checked now."""
    n = len(report.get("rechecked", ()))
    return f"; {n} shard{'s' if n != 1 else ''} changed since, re-checked now" if n else ""


def _pattern_stream(args: argparse.Namespace) -> int:
    """``certify pattern --from DIR -o CERT``: a streamed certificate of a result directory."""
    from logitgeom import emit
    from logitgeom.certify.stream import ChangedShards, self_check

    if args.W is not None or args.bias or args.ranking or args.top is not None:
        raise InvalidInput("--from DIR takes W, bias and pattern type from DIR/manifest.json; "
                           "do not also give W, --bias, --ranking or --top")
    if not args.output or args.output == "-":
        raise InvalidInput("--from DIR needs -o CERT (shard paths are relative to its folder)")
    _output.prepare(args, args.output)
    from pathlib import Path

    src = Path(args.from_dir).expanduser()
    if not src.is_dir():  # named at once: not "not a readable ... [Errno 2]"
        what = "not found" if not src.exists() else "is not a folder"
        raise InvalidInput(f"--from {src}: {what}; give the result folder a `logitgeom "
                           "patterns ... -o DIR` run wrote")
    # The checker reads shards only by paths inside the certificate's folder (no '..'):
    # the certificate must sit in a folder that holds DIR.
    home = Path(args.output).expanduser().resolve().parent
    if not src.resolve().is_relative_to(home):
        raise InvalidInput(f"-o {args.output}: a streamed certificate names its shards by "
                           f"paths inside its own folder, and {src} is not inside "
                           f"{home}; write the certificate in {src.resolve().parent} or a "
                           "folder above it")
    report: dict = {}
    try:
        cert = emit.stream_certificate(args.from_dir, args.output, provenance=_prov(args),
                                       report=report)
    except ChangedShards as exc:  # changed or damaged after the run: not a bug
        print(f"logitgeom: error: {exc}", file=sys.stderr)
        return 1
    _output.write(args, args.output, emit.dumps(cert))
    # the stdlib checker on what was written (the lattice, every line's form, a sample of
    # witnesses: the run checked each witness when it was written); metered, to say what
    # --max-work a full check needs
    verdict, need = self_check(args.output, cert, report["witness_bits"], report=report)
    if not verdict.ok:
        os.remove(args.output)
        from logitgeom.errors import EngineError
        from logitgeom.geometry.stream import open_result

        where = f"{verdict.failed_check} at {verdict.location}: {verdict.message}"
        try:
            own = open_result(args.from_dir).certify()
        except (EngineError, OSError, ValueError, KeyError) as exc:
            own = {"ok": False, "failed": str(exc)[:200]}
        if not own["ok"]:  # the directory itself fails: changed or damaged, not a bug
            print(f"logitgeom: error: {args.from_dir} does not certify ({own.get('failed')}; "
                  f"the certificate written from it failed {where}): its shards or manifest "
                  "were changed or damaged after the run; run 'logitgeom patterns ... --out "
                  "DIR --restart' again", file=sys.stderr)
        else:
            print(f"logitgeom: error: emitted certificate failed {where} (please report this "
                  "bug)", file=sys.stderr)
        return 1
    print(f"wrote {args.output} (pattern-complete-stream, "
          f"{sum(s['rows'] for s in cert['shards'])} rows in {len(cert['shards'])} shards; "
          "checked: the lattice, every line, " + (  # as the one self-check policy chose
              f"every witness{_rechecked(report)}" if report["sample"] is None else
              f"{report['sample']} witnesses drawn at random (the run checked all"
              f"{_rechecked(report)}); 'logitgeom check {args.output}' checks every witness")
          + ")")
    from logitgeom_certificates.api import default_budget

    if need > default_budget(cert):
        print(f"its check needs more work than the default budget allows: check it with "
              f"'logitgeom check --max-work {need} {args.output}'")
    return 0


def _differs(args: argparse.Namespace) -> int:
    from logitgeom import emit
    from logitgeom.io import read_matrix

    W1, W2 = read_matrix(args.W1, what="W1"), read_matrix(args.W2, what="W2")
    for W in (W1, W2):
        _size_check(W, None, args.ranking, args)
    return _emit(emit.differs_certificate(W1, W2, ranking=args.ranking, provenance=_prov(args)),
                 args)


def _translation(args: argparse.Namespace) -> int:
    from logitgeom import emit
    from logitgeom.io import read_matrix

    W = read_matrix(args.W, what="W")
    i, j = args.labels
    return _emit(emit.translation_certificate(W, i, j, args.cos, provenance=_prov(args)), args)


def _argmax(args: argparse.Namespace) -> int:
    from logitgeom import emit
    from logitgeom.io import read_matrix, read_vector
    from logitgeom.limits import check_argmax

    W = read_matrix(args.W, what="W")
    check_argmax(W, args.max_work)  # refusal bound before any LP (logitgeom.limits)
    bias = read_vector(args.bias, length=len(W), what="bias") if args.bias else None
    return _emit(emit.argmax_certificate(W, bias=bias, provenance=_prov(args)), args)


def _solve_bracket(args: argparse.Namespace) -> int:
    from logitgeom.cli.solve import check_options
    from logitgeom.errors import InvalidInput
    from logitgeom.io import read_matrix
    from logitgeom.limits import check_solve

    if (args.Y is None) == (args.bases is None):
        raise InvalidInput("certify solve needs exactly one of Y (a target file) or --bases "
                           "FILE (with --group)")
    check_options(args)  # the one validation of solve and certify solve
    eps = None
    if args.eps is not None:
        try:
            eps = Fraction(args.eps)  # "1e-8" and "1/100000000" are both exact
        except (ValueError, ZeroDivisionError):
            raise InvalidInput(f"--eps {args.eps!r} is not a number (e.g. 1e-8)") from None
    if args.generators is not None and args.group is not None:
        raise InvalidInput("give the group once: --group or --generators, not both")
    if args.bases is not None:
        if args.group is None:
            raise InvalidInput("--bases needs --group (the group whose orbit of the bases is "
                               "the target)")
        B = read_matrix(args.bases, what="bases")
        check_solve(B, args.method, args.max_work)  # refusal bound (logitgeom.limits)
        from logitgeom.convex.problem import LayerPeeled  # after the refusal: cvxpy's import
        from logitgeom.symmetry import orbit_targets  # is seconds of CPU
        from logitgeom.symmetry.constructors import group_from_text

        G = group_from_text(args.group, m=len(B))
        T = orbit_targets(G, [list(c) for c in zip(*B, strict=True)],
                          normalize=args.normalize)
        sol = LayerPeeled(T, args.ew, args.eh).solve(method=args.method, solver=args.solver)
        cert = sol.certificate(eps=eps, orbit=True, provenance=_prov(args))
        return _emit_bracket(cert, args, sol)
    Y = read_matrix(args.Y, what="Y")
    check_solve(Y, args.method, args.max_work)  # refusal bound (logitgeom.limits)
    from logitgeom.cli import _beyond
    from logitgeom.convex.problem import LayerPeeled
    from logitgeom.symmetry.constructors import group_from_text

    report: dict = {}
    cert = _beyond.certify_beyond(args, Y, eps, _prov(args), report)  # --d, --tol, --y0
    if cert is not None:  # checked by its emitter under --max-work (metered)
        code = _emit(cert, args, checked=True)
        if code == 0 and args.output and args.output != "-":
            _beyond.say(cert)
        _work_note(report.get("work", 0), args.output)
        return code
    gens = json.loads(args.generators) if args.generators else None
    G = None
    if args.group is not None:
        G = group_from_text(args.group, m=len(Y))
        gens = [list(g) for g in G.row_generators]
    from logitgeom.cli.solve import family_problem

    family = family_problem(args, Y)
    if family is not None:  # the layer-peeled family (docs/layer-peeled-family.md)
        sol = family.solve(method=args.method, solver=args.solver)
        kw = {} if gens is None else {"generators": gens}
        cert = sol.certificate(eps=eps, provenance=_prov(args), **kw)
        return _emit_bracket(cert, args, sol)
    from logitgeom.convex.certified import certified_solve

    problem = LayerPeeled(Y, args.ew, args.eh, normalize=args.normalize)
    # the full bracket, or the orbit bracket when the full one's check would exceed the
    # default work budget and Y is the orbit target of a known group (logitgeom.convex.certified)
    out = certified_solve(problem, args.method, args.solver, eps=eps, group=G,
                          generators=gens, provenance=_prov(args))
    if problem.normalized:
        print("note: Y was normalised exactly (each column divided by its exact sum); the "
              "certificate records and proves the bracket for that Y", file=sys.stderr)
    if out.note:
        print(f"note: {out.note}", file=sys.stderr)
    return _emit_bracket(out.certificate, args, out.solution, checked=True)


def _work_note(work: int, path: str | None) -> None:
    """Say (stderr) what ``--max-work`` a check of a certificate needs beyond the default."""
    from logitgeom_certificates.api import DEFAULT_MAX_WORK

    if work > DEFAULT_MAX_WORK:
        print(f"note: checked by the emitter ({work:,} units of exact work, more than the "
              f"checker's default budget of {DEFAULT_MAX_WORK:,}): check it with `logitgeom "
              f"check --max-work {work} {path if path and path != '-' else 'FILE'}` "
              "(docs/limits.md)", file=sys.stderr)


def _emit_bracket(cert: dict, args: argparse.Namespace, sol, checked: bool = False) -> int:
    """Write the bracket and say, on stderr, what it proves (the engine's statement);
    ``checked``: the engine checked it already (and said what a check needs)."""
    code = _emit(cert, args, checked=checked)
    if code == 0 and args.output and args.output != "-":
        lo, up = Fraction(cert["lower"]), Fraction(cert["upper"])
        rel = float((up - lo) / abs(up)) if up else 0.0
        print(f"J* in [{float(lo):.12g}, {float(up):.12g}] (relative width {rel:.2g}; method "
              f"{sol.method})")
        if cert.get("statement"):
            print(cert["statement"])
    return code


def _paper(args: argparse.Namespace) -> int:
    """Every paper certificate, checked, then written atomically; nothing is written when a
    file in DIR would be replaced by different bytes without --force."""
    from pathlib import Path

    from logitgeom._fsio import OutputError, write_atomic
    from logitgeom.emit import dumps
    from logitgeom.errors import EngineError
    from logitgeom.reproduce.paper import paper_certificates
    from logitgeom_certificates.api import check

    d = Path(args.out)
    if d.exists() and not d.is_dir():
        raise OutputError(f"cannot write into {d}: it is not a directory")
    texts = {}
    for name, cert in paper_certificates(False if args.no_progress else None).items():
        v = check(cert, None)
        if not v.ok:  # pragma: no cover - would be an emitter bug
            raise EngineError(f"{name}: {v.failed_check} at {v.location}: {v.message}")
        texts[name] = dumps(cert)
    for name, text in texts.items():
        p = d / name
        if p.exists() and not args.force and p.read_bytes() != text.encode("utf-8"):
            raise OutputError(f"{p} exists with different content; pass --force to overwrite "
                              "it (nothing was written)")
    d.mkdir(parents=True, exist_ok=True)
    for name, text in texts.items():
        write_atomic(d / name, text)
        print(f"wrote {d / name}")
    return 0


def _check(args: argparse.Namespace) -> int:
    from logitgeom.reproduce.manifest import MANIFEST, verify_manifests
    from logitgeom_certificates.api import main as check_main

    target = _output.json_target(args)
    if target is not None:
        return _check_json(args, target)
    _output.prepare(args, args.out)
    argv = (["--explain"] if args.explain else []) + (["--latex"] if args.latex else []) + \
        (["--one-based"] if args.one_based else []) + \
        (["--zero-based"] if args.zero_based else []) + \
        ([f"--max-work={args.max_work}"] if args.max_work is not None else []) + \
        ([f"--sample={args.sample}"] if args.sample is not None else []) + \
        ([f"--seed={args.seed}"] if args.seed is not None else []) + \
        ([f"--workers={args.workers}"] if args.workers is not None else []) + \
        ["--", *args.files]  # a file named like an option stays a file
    code = check_main(argv)
    for path, problem, c in verify_manifests(args.files):  # deleted / edited files of a run
        listed = problem in ("MISSING", "CHANGED")
        where = f" (listed in {path.parent / MANIFEST})" if listed else ""
        print(f"{path}: {problem}{where}", file=sys.stderr if args.latex else sys.stdout)
        code = max(code, c)
    return code


def _check_json(args: argparse.Namespace, target: str) -> int:
    """``check --json``: one object per file, plus the run listings' problems."""
    from logitgeom.reproduce.manifest import verify_manifests
    from logitgeom_certificates.api import read_and_check

    _output.prepare(args, target)
    files = []
    code = 0
    for path in args.files:
        tally: dict = {}
        v, _ = read_and_check(path, args.max_work if args.max_work is not None else "default",
                              args.sample, args.seed or 0, tally)
        files.append({"path": str(path), "ok": v.ok, "kind": v.kind,
                      "failed_check": v.failed_check, "location": v.location,
                      "message": v.message, "exit_code": v.exit_code,
                      **({"witnesses": tally["witnesses"], "witnesses_checked": tally["checked"]}
                         if "witnesses" in tally else {})})
        code = max(code, v.exit_code)
    listings = []
    for path, problem, c in verify_manifests(args.files):
        listings.append({"path": str(path), "problem": problem, "exit_code": c})
        code = max(code, c)
    obj = {"exit_code": code, "files": files, "listings": listings,
           "valid": sum(f["ok"] for f in files), "invalid": sum(not f["ok"] for f in files)}
    _output.write(args, target, json.dumps(obj, indent=1, sort_keys=True) + "\n")
    if target != "-":
        print(f"{obj['valid']} valid, {obj['invalid']} not valid; verdicts written to {target}")
    return code
