"""The command lines of the checker: argument parsing and verdict lines (presentation).

Untrusted, like :mod:`logitgeom_certificates._render`: nothing here decides a verdict.  The entry
points ``logitgeom_certificates.check.main`` and ``python -m logitgeom_certificates.check_audit``
hand their trusted read-and-check function to :func:`check_main` / :func:`audit_main`, which parse
the flags, call it once per file and print the :class:`logitgeom_certificates.kernel.Verdict` it
returns (``--explain`` / ``--latex`` text only after a valid verdict, on the same parsed
bytes).  The exit code is the verdict's.

Examples
--------
>>> parse_labels("0,5,9-11")
[0, 5, 9, 10, 11]
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from .meter import DEFAULT_MAX_WORK

__all__ = ["run", "check_main", "audit_main", "parse_labels"]


def run(main: Any, argv: Any=None) -> int:
    """``main(argv)``; a closed pipe (``... | head -1``) ends the output quietly."""
    try:
        code = main(argv)
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 1
    return int(code)


#: the ``format`` of a result directory's manifest (logitgeom.geometry.store)
REGIONS_FORMAT = b'"logitgeom-regions"'


def named(path: str, v: Any) -> Any:
    """``v``, or for a *rejected* manifest of a result directory, a refusal that says which
    command writes its certificate (a rejection stays a rejection)."""
    if v.ok or v.failed_check not in ("number", "unsupported-format") or \
            not os.path.isfile(path):
        return v
    try:
        with open(path, "rb") as fh:
            if REGIONS_FORMAT not in fh.read(4096):
                return v
    except OSError:
        return v
    return type(v)(False, v.kind, "unsupported-format", "/", "this is the manifest of a "
                   "result directory (patterns --out DIR), not a certificate; write its "
                   "certificate with 'logitgeom certify pattern --from DIR -o CERT' and check CERT")


def _pool(workers: int) -> Any:
    """Run the shard jobs of a streamed check in ``workers`` standard-library processes
    (results in job order: the verdict is the first failing shard in shard order)."""
    def run(check: Any, jobs: list[Any]) -> list[Any]:
        if len(jobs) < 2:
            return [check(job) for job in jobs]
        from concurrent.futures import ProcessPoolExecutor
        with ProcessPoolExecutor(min(workers, len(jobs))) as pool:
            return list(pool.map(check, jobs))
    return run


def _invalid(path: Any, v: Any) -> str:
    if v.exit_code == 2:  # refused (work budget, unreadable file): nothing was found wrong
        return (f"{path}: NOT CHECKED {v.kind} failed_check={v.failed_check} "
                f"location={v.location}: {v.message}")
    return (f"{path}: INVALID {v.kind} failed_check={v.failed_check} location={v.location}: "
            f"{v.message}")


def check_main(argv: Any, read_and_check: Any) -> int:
    """``python -m logitgeom_certificates.check FILE... [--explain] [--latex] [--one-based]
    [--max-work N] [--sample N] [--seed S]``: one verdict line per file; exit 0 / 1 / 2."""
    ap = argparse.ArgumentParser(prog="python -m logitgeom_certificates.check",
                                 description="Check logitgeom certificates (stdlib only).")
    ap.add_argument("files", nargs="+", metavar="FILE")
    ap.add_argument("--explain", action="store_true", help="state the proven claim in words")
    ap.add_argument("--latex", action="store_true", help="print a LaTeX snippet per valid file")
    ap.add_argument("--max-work", type=int, default=None, metavar="N",
                    help="refuse (not checked, exit 2) a certificate whose work exceeds N "
                    f"units (default {DEFAULT_MAX_WORK:,}; none with --sample; docs/limits.md)")
    ap.add_argument("--one-based", action="store_true", help="labels from 1 in --explain/--latex")
    ap.add_argument("--zero-based", action="store_true",
                    help="--latex: labels from 0 also for a paper's result (default there: 1)")
    ap.add_argument("--sample", type=int, metavar="N", help="argmax audits: check every "
                    "never-proof and N witnesses drawn from --seed; streamed results: every "
                    "line's structure and N lines' witnesses (other kinds: in full)")
    ap.add_argument("--seed", type=int, default=0, help="seed of --sample (default 0)")
    ap.add_argument("--workers", type=int, default=1, metavar="N",
                    help="check the shards of a streamed certificate in N processes")
    args = ap.parse_args(argv)
    if args.one_based and args.zero_based:
        ap.error("--one-based and --zero-based exclude each other")
    if args.sample is not None and args.sample < 0:
        ap.error("--sample takes N >= 0")
    if args.workers < 1:
        ap.error("--workers takes N >= 1")
    from .check_stream import RUN_SHARDS
    from .meter import setting
    code = 0
    for path in args.files:
        tally: dict[str, Any] = {}
        with setting(RUN_SHARDS, _pool(args.workers) if args.workers > 1 else None):
            v, obj = read_and_check(path, args.max_work if args.max_work is not None
                                    else "default", args.sample, args.seed, tally)
        v = named(path, v)
        cover = f" ({coverage(obj)})" if v.ok and v.kind == "argmax-audit" else ""
        if v.ok and "witnesses" in tally and v.kind == "pattern-complete-stream":
            line = (f"{path}: OK {v.kind} (hashes, shards, order and count of every line; "
                    f"witnesses of {tally['checked']} of {tally['witnesses']} lines, drawn with "
                    f"seed {args.seed}: the others not checked)")
        elif v.ok and "witnesses" in tally:
            line = (f"{path}: OK {v.kind}{cover} (every never-proof; checked {tally['checked']} "
                    f"of {tally['witnesses']} witnesses, drawn with seed {args.seed})")
        else:
            line = f"{path}: OK {v.kind}{cover}" if v.ok else _invalid(path, v)
        if args.latex:  # stdout is LaTeX only: the verdict on stderr, and as a comment
            print(line, file=sys.stderr)
            print("% " + " ".join(line.splitlines()))
        else:
            print(line)
        code = max(code, v.exit_code)
        if v.ok and (args.explain or args.latex):  # untrusted presentation, stdlib only
            from . import _render
            if "witnesses" in tally:
                note = (f"  (this run checked every never-proof and {tally['checked']} of "
                        f"{tally['witnesses']} witnesses; the other witnesses were not checked)")
                print(("% " if args.latex else "") + note)
            print(_render.explain(obj, one_based=args.one_based, base=os.path.dirname(
                os.path.abspath(path))) if args.explain else "", end="")
            base = True if args.one_based else (False if args.zero_based else None)
            print(_render.latex(obj, one_based=base) if args.latex else "", end="")
    return code


def coverage(obj: Any) -> str:
    """Which labels a (checked) argmax audit covers and how many it decides, in words:
    "labels 0-48 of a 50-row head: 47 labels decided, 2 undecided", "all 50 labels of a
    50-row head" only when the runs are exactly 0..k-1 (per domain when there are two).

    Examples
    --------
    >>> c = {"all": {"argmaxable": 40, "never": 7, "undecided": 2}}
    >>> coverage({"rows": 50, "labels": [[0, 48]], "counts": c})
    'labels 0-48 of a 50-row head: 47 labels decided, 2 undecided'
    >>> coverage({"rows": 3, "labels": [[0, 2]]})
    'all 3 labels of a 3-row head'
    """
    k, runs = obj["rows"], obj["labels"]
    if runs == [[0, k - 1]]:
        head = f"all {k} labels of a {k}-row head"
    else:
        text = ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in runs[:20])
        more = f" and {len(runs) - 20} more runs" if len(runs) > 20 else ""
        head = (f"label{'s' if runs != [[runs[0][0]] * 2] else ''} {text}{more} of a "
                f"{k}-row head")
    counts = obj.get("counts") or {}
    told = [(d, c["argmaxable"] + c["never"], c["undecided"]) for d, c in counts.items()]
    if len(told) == 1:
        return f"{head}: {told[0][1]} labels decided, {told[0][2]} undecided"
    return head + "".join(f"; {d}: {n} labels decided, {u} undecided" for d, n, u in told)


def parse_labels(text: str) -> list[int]:
    """Labels and ranges ``a-b`` separated by commas (sorted, each once)."""
    out: set[int] = set()
    for part in filter(None, (p.strip() for p in text.split(","))):
        a, _, b = part.partition("-")
        if not a.isdigit() or (b and not b.isdigit()) or (b and int(b) - int(a) > 1 << 20):
            raise SystemExit(f"--labels: {part!r} is not a label or a range a-b (at most "
                             "2^20 labels)")
        out.update(range(int(a), int(b or a) + 1))
    return sorted(out)


def audit_main(argv: Any, check_file: Any) -> int:
    """``python -m logitgeom_certificates.check_audit FILE [--labels L] [--sample N] [--seed S]
    [--max-work N]``: one verdict line saying which proofs were re-checked."""
    ap = argparse.ArgumentParser(prog="python -m logitgeom_certificates.check_audit",
                                 description="Check an argmax-audit certificate (stdlib only); "
                                             "optionally only some labels' proofs.")
    ap.add_argument("file")
    ap.add_argument("--labels", help="check the proofs of these labels only ('0,5,9-12')")
    ap.add_argument("--sample", type=int, help="check every never-proof and N witnesses drawn "
                    "from --seed")
    ap.add_argument("--seed", type=int, default=0, help="seed of --sample (default 0)")
    ap.add_argument("--max-work", type=int, help="work budget of a full check (default: the "
                                                  "checker's); none with --labels/--sample")
    args = ap.parse_args(argv)
    if args.sample is not None and args.sample < 0:
        ap.error("--sample takes N >= 0")
    labels = set(parse_labels(args.labels)) if args.labels else None
    scope: dict[str, Any] = {}
    v = check_file(args.file, labels, args.max_work if args.max_work is not None else "default",
                   args.sample if labels is None else None, args.seed, scope)
    if labels is not None:
        what = f"{len(labels)} labels' proofs"
    elif args.sample is not None:
        what = (f"every never-proof and a sample of {args.sample} labels' proofs among the "
                f"witnesses: checked {scope.get('checked', 0)} of {scope.get('witnesses', 0)} "
                f"witnesses, seed {args.seed}")
    else:
        what = "every proof"
    if v.ok:  # which labels the certificate covers (the runs it lists, never "all" for a part)
        from . import kernel

        what = f"{coverage(kernel.parse_json(kernel.read_file(args.file, '/')))}: {what}"
    print(f"{args.file}: OK {v.kind} ({what}; structure and counts of every record)" if v.ok
          else _invalid(args.file, v))
    return int(v.exit_code)
