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
import functools
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


#: Witnesses the default check of an argmax audit draws (with ``--seed``, 0 by default) when
#: the printed cost of its full check is over the default budget; every never-proof and the
#: structure, hashes and counts of every record are checked in any case (docs/certificates.md).
DEFAULT_SAMPLE = 8
#: Most worker processes (the engine's limit too, docs/limits.md).
MAX_WORKERS = 256
#: A budget no check reaches: the probes of a cost are metered, not stopped (default budget).
_METERED = 1 << 62


def audit_cost(path: Any, run: Any, max_work: Any, seed: int = 0, obj: Any = None) -> Any:
    """(units, units metered, witnesses in them, other witnesses, units of each) of a full
    check of an argmax audit, or None when a probe fails: the trusted check with ``--sample 1`` (the
    structure, hashes and counts of every record, every never-proof and one witness per
    domain drawn with ``seed``: exactly what the full check charges for them) and with
    ``--sample 2`` (one more witness per domain: its metered units stand for each witness not
    drawn; rows converted once are charged to the first).  Both run under ``max_work`` (an
    explicit budget) or metered without a limit (``"default"``); ``run`` is the check
    (:func:`judged`), ``obj`` the parsed file."""
    budget = _METERED if max_work == "default" else max_work
    t1: dict[str, Any] = {}
    v1 = run(path, None, budget, 1, seed, t1, obj)
    if not v1.ok or v1.work is None:
        return None
    n, c1 = t1.get("witnesses", 0), t1.get("checked", 0)
    if n == c1:
        return v1.work, v1.work, c1, 0, 0
    t2: dict[str, Any] = {}
    v2 = run(path, None, budget, 2, seed, t2, obj)
    if not v2.ok or v2.work is None or t2.get("checked", 0) <= c1:
        return None
    each = -(-(v2.work - v1.work) // (t2["checked"] - c1))
    return v1.work + (n - c1) * each, v1.work, c1, n - c1, each


def cost_line(path: Any, cost: Any, obj: Any) -> str:
    """The line printed (stderr) before a full check of an argmax audit: its work units and
    what they are made of."""
    total, metered, drawn, others, each = cost
    never = sum(c.get("never", 0) for c in (obj.get("counts") or {}).values()
                if isinstance(c, dict))
    made = (f"structure, hashes and counts of every record, {never} never-proofs, {drawn} "
            f"witness{'es' if drawn != 1 else ''}")
    if not others:
        return f"{path}: cost of a full check: {total:,} work units (metered: {made})"
    return (f"{path}: cost of a full check: about {total:,} work units = {metered:,} (metered: "
            f"{made}) + {others:,} other witnesses x {each:,} (the units of one more witness, "
            "metered)")


def audit_mode(cost: Any, max_work: Any, sample: Any, budget: int | None = None) -> Any:
    """What the check of an argmax audit runs: ``("sample", N)`` or ``("full", max_work)``.
    A chosen ``--sample`` is run; an explicit ``--max-work`` is a full check under it; the
    default is a full check when its ``cost`` (:func:`audit_cost`) is at most ``budget``
    (default :data:`.meter.DEFAULT_MAX_WORK`), else every never-proof and
    :data:`DEFAULT_SAMPLE` witnesses per domain drawn with the seed (also when the cost is
    unknown: a probe failed, and the sample holds what it checked, so it fails too).

    Examples
    --------
    >>> audit_mode((900, 100, 1, 8, 100), "default", None, budget=1000)
    ('full', 'default')
    >>> audit_mode((1100, 100, 1, 10, 100), "default", None, budget=1000)
    ('sample', 8)
    >>> audit_mode((1100, 100, 1, 10, 100), 5000, None, budget=1000)
    ('full', 5000)
    """
    if sample is not None:
        return "sample", sample
    if max_work != "default" or cost is not None and cost[0] <= (budget or DEFAULT_MAX_WORK):
        return "full", max_work
    return "sample", DEFAULT_SAMPLE


def _block(job: Any) -> Any:
    """One block of a split check (a worker process): the trusted check of its labels."""
    run, path, labels, max_work, seed, obj = job
    return run(path, labels, max_work, None, seed, {}, obj)


def split_check(run: Any, path: Any, labels: list[int], max_work: Any, workers: int,
                seed: int = 0, obj: Any = None) -> Any:
    """The trusted check ``run`` (:func:`judged`; sent to the workers by name, with the
    parsed file ``obj``) of ``labels`` (increasing) as contiguous blocks in ``workers``
    processes, each checking the structure, hashes and counts of every record and the proofs
    of its block's labels: all passing is the check of ``labels`` passing, and the verdict
    is the first failing block's (a failure every block sees comes first in each; so the
    first failing block reports what one process reports first)."""
    from concurrent.futures import ProcessPoolExecutor
    size = -(-len(labels) // (2 * workers))
    jobs = [(run, path, frozenset(labels[i:i + size]), max_work, seed, obj)
            for i in range(0, len(labels), size)]
    pool = ProcessPoolExecutor(min(workers, len(jobs)))
    try:
        for v in pool.map(_block, jobs):
            if not v.ok:
                return v
        return v
    finally:
        pool.shutdown(cancel_futures=True)


def judged(checker: Any, path: Any, labels: Any, max_work: Any, sample: Any, seed: int,
           scope: Any, obj: Any) -> Any:
    """The trusted ``checker`` (:func:`.check_audit.check_argmax_audit`) of the file ``path``
    as parsed in ``obj``, by :func:`.kernel.read_and_check`: the verdict."""
    from . import kernel as K
    return K.read_and_check(os.fspath(path), checker, max_work, scope, labels, sample, seed,
                            obj)[0]


def reread(check_file: Any, path: Any, labels: Any, max_work: Any, sample: Any, seed: int,
           scope: Any, obj: Any) -> Any:
    """The verdict of ``check_file`` (:func:`.check_audit.check_file`), which reads
    ``path`` itself."""
    return check_file(path, labels, max_work, sample, seed, scope)


def check_audit_file(path: Any, run: Any, max_work: Any, sample: Any, seed: int,
                     workers: int, labels: Any = None) -> Any:
    """(verdict, mode, tally, parsed certificate or None) of an argmax audit checked from the
    command line: a full check prints its cost first (stderr), then runs by
    :func:`audit_mode`; a full or ``labels`` check on ``workers`` > 1 processes is
    :func:`split_check`, else run in this process (``run``: :func:`judged` or
    :func:`reread`, on the file parsed once here).  None: the file is not an argmax audit,
    for the caller to check as before."""
    from . import kernel as K
    try:  # no "argmax-audit" in the text: no audit, the caller checks it
        data = K.read_file(path, "/", check="unreadable")
        obj = K.parse_json(data, "/") if b'"argmax-audit"' in data else None
    except K.Fail:
        obj = None
    if not isinstance(obj, dict) or obj.get("kind") != "argmax-audit":
        return None
    cost = None
    if labels is None and sample is None:
        cost = audit_cost(path, run, max_work, seed, obj)
        print(cost_line(path, cost, obj) if cost is not None else f"{path}: cost of a full "
              "check not measured: the check of its structure, never-proofs and a drawn "
              "witness fails or is over the budget", file=sys.stderr)
    mode, arg = ("labels", labels) if labels is not None else audit_mode(cost, max_work, sample)
    tally: dict[str, Any] = {}
    if workers > 1 and (mode == "full" and cost is not None
                        or mode == "labels" and _within(labels, obj)):
        budget = DEFAULT_MAX_WORK if max_work == "default" else max_work
        if cost is not None and cost[0] > budget:  # the meter's own refusal of that cost
            from .meter import budget as metered
            from .meter import charge
            try:
                with metered(budget):
                    charge(cost[0])
            except K.Fail as f:
                return K.Verdict(False, "argmax-audit", f.check, f.location, f.message), \
                    mode, tally, obj
        todo = sorted(labels) if mode == "labels" else \
            [x for a, b in obj["labels"] for x in range(a, b + 1)]
        from concurrent.futures.process import BrokenProcessPool
        try:
            return split_check(run, path, todo, max_work if mode == "labels" else budget,
                               workers, seed, obj), mode, tally, obj
        except (OSError, BrokenProcessPool) as exc:  # no processes: the check in this one
            print(f"{path}: --workers {workers}: no worker processes ({exc}); checking in one "
                  "process", file=sys.stderr)
    v = run(path, labels, arg if mode == "full" else max_work,
            arg if mode == "sample" else None, seed, tally, obj)
    return v, mode, tally, obj


def _within(labels: Any, obj: Any) -> bool:
    """Every label among the audited runs (else one process reports the first wrong one)."""
    import bisect
    runs = obj.get("labels")
    if not isinstance(runs, list) or not all(isinstance(r, list) and len(r) == 2 and
                                             all(type(x) is int for x in r) for r in runs):
        return False
    starts = [a for a, _ in runs]
    return all((i := bisect.bisect_right(starts, x) - 1) >= 0 and x <= runs[i][1]
               for x in labels)


def check_main(argv: Any, read_and_check: Any, audit_checker: Any = None) -> int:
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
                    help="check a full argmax audit's labels, or a streamed certificate's "
                    "shards, in N processes (same verdict)")
    args = ap.parse_args(argv)
    if args.one_based and args.zero_based:
        ap.error("--one-based and --zero-based exclude each other")
    if args.sample is not None and args.sample < 0:
        ap.error("--sample takes N >= 0")
    if not 1 <= args.workers <= MAX_WORKERS:
        ap.error(f"--workers takes 1 <= N <= {MAX_WORKERS}")
    from .check_stream import RUN_SHARDS
    from .meter import setting
    code = 0
    for path in args.files:
        tally: dict[str, Any] = {}
        mw = args.max_work if args.max_work is not None else "default"
        audit = None if audit_checker is None else check_audit_file(  # read once, as explained
            path, functools.partial(judged, audit_checker), mw, args.sample, args.seed,
            args.workers)
        if audit is not None:
            v, mode, tally, obj = audit
            # the default at this scale (a sample of every witness is a full check)
            chosen = mode == "sample" and args.sample is None
            full = chosen and tally.get("checked") == tally.get("witnesses")
            tally = {} if full else tally  # every witness drawn: said as a full check
        else:
            with setting(RUN_SHARDS, _pool(args.workers) if args.workers > 1 else None):
                v, obj = read_and_check(path, mw, args.sample, args.seed, tally)
            chosen = full = False
        v = named(path, v)
        cover = f" ({coverage(obj)})" if v.ok and v.kind == "argmax-audit" else ""
        if v.ok and chosen and not full:
            line = (f"{path}: OK {v.kind}{cover} (every never-proof; checked {tally['checked']} "
                    f"of {tally['witnesses']} witnesses, drawn with seed {args.seed}: the "
                    f"default check, a full check being over the default budget of "
                    f"{DEFAULT_MAX_WORK:,} units; a full check: --max-work N)")
        elif v.ok and "witnesses" in tally and v.kind == "pattern-complete-stream":
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
    [--max-work N] [--workers N]``: one verdict line saying which proofs were re-checked."""
    ap = argparse.ArgumentParser(prog="python -m logitgeom_certificates.check_audit",
                                 description="Check an argmax-audit certificate (stdlib only); "
                                             "optionally only some labels' proofs.")
    ap.add_argument("file")
    ap.add_argument("--labels", help="check the proofs of these labels only ('0,5,9-12')")
    ap.add_argument("--sample", type=int, help="check every never-proof and N witnesses drawn "
                    "from --seed")
    ap.add_argument("--seed", type=int, default=0, help="seed of --sample (default 0)")
    ap.add_argument("--max-work", type=int, help="work budget of a full check (default: "
                    f"{DEFAULT_MAX_WORK:,} units, over it every never-proof and "
                    f"{DEFAULT_SAMPLE} witnesses); none with --labels/--sample")
    ap.add_argument("--workers", type=int, default=1, metavar="N", help="check a full audit "
                    "or --labels in N processes (same verdict)")
    args = ap.parse_args(argv)
    if args.sample is not None and args.sample < 0:
        ap.error("--sample takes N >= 0")
    if not 1 <= args.workers <= MAX_WORKERS:
        ap.error(f"--workers takes 1 <= N <= {MAX_WORKERS}")
    labels = set(parse_labels(args.labels)) if args.labels else None
    mw = args.max_work if args.max_work is not None else "default"
    audit = check_audit_file(args.file, functools.partial(reread, check_file), mw, args.sample,
                             args.seed, args.workers, labels)
    if audit is None:  # not an argmax audit: the checker says what it is
        v, mode, scope = check_file(args.file, labels, mw, args.sample, args.seed, {}), "", {}
    else:
        v, mode, scope, _ = audit
    sample = args.sample if args.sample is not None else DEFAULT_SAMPLE
    if labels is not None:
        what = f"{len(labels)} labels' proofs"
    elif mode == "sample" and (args.sample is not None or scope.get("checked") !=
                               scope.get("witnesses")):  # (or every witness: every proof)
        what = (f"every never-proof and a sample of {sample} labels' proofs among the "
                f"witnesses: checked {scope.get('checked', 0)} of {scope.get('witnesses', 0)} "
                f"witnesses, seed {args.seed}")
        if args.sample is None:
            what += (f" (the default check: a full check is over the default budget of "
                     f"{DEFAULT_MAX_WORK:,} units; a full check: --max-work N)")
    else:
        what = "every proof"
    if v.ok:  # which labels the certificate covers (the runs it lists, never "all" for a part)
        from . import kernel

        what = f"{coverage(kernel.parse_json(kernel.read_file(args.file, '/')))}: {what}"
    print(f"{args.file}: OK {v.kind} ({what}; structure and counts of every record)" if v.ok
          else _invalid(args.file, v))
    return int(v.exit_code)
