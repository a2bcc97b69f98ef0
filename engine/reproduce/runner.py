"""Run the registered claims, check every certificate with the stdlib checker, write SUMMARY.md.

Examples
--------
>>> import tempfile
>>> from logitgeom.reproduce import reproduce  # the package's name registers the claims
>>> tmp = tempfile.TemporaryDirectory()
>>> rep = reproduce(tmp.name, only="cos-lemma-3.2", progress=False)
>>> rep.ok, [r.status.value for r in rep.rows], rep.certificates_checked
(True, ['CERTIFIED'], 3)
>>> tmp.cleanup()
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
import subprocess
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from logitgeom._fsio import OutputError, write_atomic
from logitgeom._version import __version__
from logitgeom.reproduce._artifacts import Context
from logitgeom.reproduce.manifest import (
    MANIFEST,
    RUN_RECORD,
    read_run_record,
    write_manifest,
    write_run_record,
)
from logitgeom.reproduce.registry import (
    _OLD_VALUES,
    CLAIMS,
    NOT_COVERED,
    Row,
    Status,
    select_claims,
)

__all__ = ["Report", "reproduce", "check_certificates", "summary_markdown"]

_HEADER = ["claim", "instance", "method", "result", "artifact", "status"]


@dataclass(frozen=True)
class Report:
    """What a reproduction run produced.

    Attributes
    ----------
    out : Path
    rows : tuple of Row
    certificates_checked : int
        Certificates verified by ``python -m logitgeom_certificates.check``.
    certificates_invalid : tuple of str
        Certificates the checker rejected (their rows are FAIL).
    """

    out: Path
    rows: tuple[Row, ...]
    certificates_checked: int
    certificates_invalid: tuple[str, ...]
    captions: tuple[tuple[str, str], ...] = ()

    @property
    def ok(self) -> bool:
        """Every row passed and every certificate checked."""
        return all(r.ok for r in self.rows) and not self.certificates_invalid

    @property
    def exit_code(self) -> int:
        """0 when :attr:`ok`, else 1."""
        return 0 if self.ok else 1


#: Work budget of the checker on a run's own certificates (see docs/limits.md).
_RUN_MAX_WORK = 10**11


def checker_command() -> list[str]:
    """The command line of the trusted checker, isolated from the current directory.

    ``python -I`` (no current directory or script folder on ``sys.path``, no
    ``PYTHON*`` environment variables, no user site) imports ``logitgeom_certificates`` from the
    folder this installation's package lives in, named explicitly, so a ``certificates/``
    package planted in the output directory (or anywhere else) cannot run instead.
    """
    import logitgeom_certificates

    folder = Path(logitgeom_certificates.__file__).resolve().parent
    # Imported by its folder's name (``logitgeom_certificates`` in a wheel, ``certificates``
    # in a checkout's editable install): the checker's imports of itself are relative.
    code = ("import sys, importlib; sys.path.insert(0, sys.argv.pop(1)); "
            "main = importlib.import_module(sys.argv.pop(1) + '.api').main; "
            "sys.exit(main(sys.argv[1:]))")
    return [sys.executable, "-I", "-c", code, str(folder.parent), folder.name]


#: certificates per checker subprocess: progress is reported after each batch
CHECK_BATCH = 8


def check_certificates(out: str | Path, names: list[str],
                       progress: Callable[[int, int], None] | None = None) -> dict[str, str]:
    """Verdicts of the trusted checker on ``names`` (relative to ``out``), run in a subprocess.

    The checker is ``logitgeom_certificates.check`` (standard library only) run by
    :func:`checker_command` (isolated: ``python -I``, explicit package folder), so the
    verdicts depend neither on anything the engine computed in this process nor on files
    in ``out``.

    The names are checked in batches of :data:`CHECK_BATCH` (one subprocess each);
    ``progress(done, total)`` is called after each batch.

    Returns
    -------
    dict
        name -> ``"OK"`` or the checker's message.
    """
    verdicts: dict[str, str] = {}
    for i in range(0, len(names), CHECK_BATCH):
        batch = names[i:i + CHECK_BATCH]
        # the engine's own certificates: a generous budget (the run was asked for; it ends)
        proc = subprocess.run([*checker_command(), f"--max-work={_RUN_MAX_WORK}", "--", *batch],
                              cwd=out, capture_output=True, text=True, check=False)
        for line in proc.stdout.splitlines():
            path, _, rest = line.partition(": ")
            if path in batch:
                verdicts[path] = "OK" if rest.startswith("OK") else rest
        for n in batch:
            verdicts.setdefault(n, f"no verdict (checker exit {proc.returncode}: "
                                   f"{proc.stderr.strip()[-200:]})")
        if progress is not None:
            progress(min(i + CHECK_BATCH, len(names)), len(names))
    return verdicts


def _step_reporter(show: bool, sink):
    """``start(desc, total)`` -> ``advance(done, total, note="")`` -> None: a tqdm bar on a
    terminal, else a line per step to ``sink`` (``None``: silent), so that no long step of
    a run is silent (the checker over every certificate, the Coq export and coqc)."""
    from tqdm import tqdm

    def start(desc: str, total: int):
        if show:
            bar = tqdm(total=total, desc=desc, unit="file")

            def advance(done: int, total: int, note: str = "") -> None:
                bar.update(done - bar.n)
                if note:
                    bar.set_postfix_str(note, refresh=False)
                if done >= total:
                    bar.close()
            if total == 0:
                bar.close()
            return advance
        if sink is not None and total:
            print(f"{desc}: {total} file{'s' if total != 1 else ''} ...", file=sink, flush=True)

        every = max(1, total // 10)  # about ten lines per step, and every noted file

        def advance_line(done: int, total: int, note: str = "") -> None:
            if sink is not None and total and (note or done == total or done % every == 0):
                print(f"[{desc} {done}/{total}]" + (f" {note}" if note else ""), file=sink,
                      flush=True)
        return advance_line
    return start


def _failed(key: str, exc: BaseException) -> Row:
    msg = f"{type(exc).__name__}: {exc}".splitlines()[0][:300]
    return Row(key, "-", "-", "error: " + msg, (), Status.FAIL)


#: What each status of SUMMARY.md means (printed under the table).
STATUS_NOTE = (
    "Statuses: CERTIFIED = the row's certificates (listed as artifacts) were verified by the "
    "standard-library checker in a subprocess; COMPUTED = computed by the engine, exactly or "
    "within the tolerance the row states, with no checked file; MEASURED = an experiment's "
    "outcome (a trained or real model), with its figure or numbers; NEEDS WEIGHTS = a "
    "real-model row whose weights (or optional extra) are not on this machine, with the "
    "command that runs it; FAIL = the claim did not hold.")


def status_counts(rows) -> str:
    """``"12 CERTIFIED, 3 COMPUTED, ..."`` (every status present, in a fixed order)."""
    order = (Status.CERTIFIED, Status.COMPUTED, Status.MEASURED, Status.NEEDS_WEIGHTS,
             Status.FAIL, Status.PASS)
    parts = [f"{sum(r.status is s for r in rows)} {s.value}" for s in order
             if any(r.status is s for r in rows)]
    return f"{len(rows)} rows: " + ", ".join(parts)


def summary_markdown(rep: Report) -> str:
    """The Markdown summary (deterministic: no timings, no dates)."""
    lines = ["# logitgeom reproduction", "",
             f"Generated by `logitgeom reproduce` (logitgeom {__version__}). Labels are 0-based "
             "in the JSON artifacts and 1-based in the figures, as in both papers. "
             "Certificates are the top-level `*.json` files here: check them with "
             "`logitgeom check *.json` or `python -m logitgeom_certificates.check *.json` "
             "(standard library only); `logitgeom check` also reports certificates listed in "
             "`CERTIFICATES.sha256` that are missing or changed (`sha256sum -c` works too). "
             "Solutions are in `solutions/`, other results in `results/`, "
             "figures in `figures/`.", "",
             "Radius: the symmetry rows solve the convex reformulation with the nuclear-norm "
             "radius rho = sqrt(E_W E_H), derived from ||W H||_* <= ||W||_F ||H||_F <= "
             "sqrt(E_W) sqrt(E_H) and pinned by tests that minimise over (W, H) directly; the "
             "extracted text of the symmetry paper lost its square-root signs, so the radius "
             "is not read from it (see docs/layer-peeled.md).", "",
             "| " + " | ".join(_HEADER) + " |", "|" + "---|" * len(_HEADER)]
    lines += ["| " + " | ".join(r.markdown_cells()) + " |" for r in rep.rows]
    lines += ["", "**" + status_counts(rep.rows)
              + f"; {rep.certificates_checked} certificates checked by the stdlib checker, "
              f"{len(rep.certificates_invalid)} invalid.**", "", STATUS_NOTE, "",
              "## Stated in the papers, no row", ""]
    lines += [f"* {what}: {why}." for what, why in NOT_COVERED] + [""]
    real = [r for r in rep.rows if r.paper is not None or r.ours is not None]
    if real:
        lines += ["## Real-model deltas: ours vs the paper's", "",
                  "| experiment | model | paper | ours |", "|---|---|---|---|"]
        for r in real:
            model = r.instance.split(":")[0]
            paper = "-" if r.paper is None else f"{r.paper:.3f}"
            ours = ("not run (" + str(r.status) + ")") if r.ours is None else f"{r.ours:.3f}"
            lines.append(f"| {r.claim} | {model} | {paper} | {ours} |")
        lines.append("")
    if rep.captions:
        lines += ["## Figures", ""]
        lines += [f"- `{rel}`: {cap}" for rel, cap in rep.captions]
        lines.append("")
    return "\n".join(lines)


def _row_to_json(row: Row) -> dict:
    return {"claim": row.claim, "instance": row.instance, "method": row.method,
            "result": row.result, "artifacts": list(row.artifacts), "status": row.status.value,
            "paper": row.paper, "ours": row.ours}


def _num(x) -> float | None:
    return float(x) if isinstance(x, int | float) and not isinstance(x, bool) else None


def _row_from_json(d: dict) -> Row | None:
    try:
        st = _OLD_VALUES.get(d["status"], d["status"])
        if st == "PASS":  # a run before the evidence kinds
            st = "CERTIFIED" if d.get("certificates") else "COMPUTED"
        return Row(str(d["claim"]), str(d["instance"]), str(d["method"]), str(d["result"]),
                   tuple(str(a) for a in d["artifacts"]), Status(st),
                   _num(d.get("paper")), _num(d.get("ours")))
    except (KeyError, TypeError, ValueError):
        return None


def _digest(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _owned_files(out: Path, force: bool) -> dict[str, str | None]:
    """Files in ``out`` that logitgeom runs wrote, with the SHA-256 they were written with.

    Such a file may be replaced without ``--force`` while its bytes are unchanged (a file
    the user edited since is the user's).  Raises OutputError when ``out`` holds files but
    no run record (not a run directory), unless ``force``.
    """
    if not out.exists():
        return {}
    if not out.is_dir():
        raise OutputError(f"cannot write into {out}: it is not a directory")
    record = read_run_record(out)
    if record is not None:
        files = record.get("files") or {}
        if isinstance(files, list):
            return {str(f): None for f in files}
        return {str(k): (str(v) if v else None) for k, v in files.items()}
    if force:
        return {}
    present = sorted(p.name for p in out.iterdir())
    if present:
        raise OutputError(
            f"{out} already holds files that no logitgeom run wrote ({', '.join(present[:5])}"
            f"{', ...' if len(present) > 5 else ''}); choose another --out folder or pass "
            "--force to overwrite them")
    return {}


def _remember(out: Path, record: dict, ctx: Context, hashed: set[str]) -> None:
    """Add the files written so far (with their digests) to the run record, on disk."""
    record["files"].update({rel: _digest(out / rel) for rel in ctx.written if rel not in hashed})
    hashed |= ctx.written
    write_run_record(out, record)


#: the torch devices and dtypes of the real-model runs (refused otherwise, before any row)
_DEVICE = re.compile(r"(cpu|mps|cuda(:\d+)?)")
_DTYPES = (None, "float32", "bfloat16", "float16")


def _check_model_options(device, dtype) -> None:
    """Refuse a device or dtype the real-model rows could not use: an option is honoured on
    every path or refused, also when no row that uses it runs (no --models)."""
    from logitgeom.errors import InvalidInput

    if not isinstance(device, str) or not _DEVICE.fullmatch(device):
        raise InvalidInput(f"--device {device!r}: choose cpu, cuda, cuda:N or mps")
    if dtype not in _DTYPES:
        raise InvalidInput(f"--dtype {dtype!r}: choose float32, bfloat16 or float16")


def reproduce(out: str | Path = "reproduction", *, only: str | None = None,
              progress: bool | None = None, force: bool = False,
              models: str | Path | None = None, device: str = "cpu", dtype: str | None = None,
              trust_remote_code: bool = False, log=None) -> Report:
    """Run every claim of both papers (or those matching ``only``) and write the artifacts.

    Parameters
    ----------
    out : path
        Output directory (created): certificates ``*.json``, ``solutions/``, ``results/``,
        ``figures/`` and ``SUMMARY.md``.
    only : str, optional
        Comma-separated claim keys or globs (see :func:`logitgeom.reproduce.select_claims`).
        The rows and certificates of the other claims from an earlier run in ``out`` are
        kept: ``SUMMARY.md`` and ``CERTIFICATES.sha256`` are merged, not replaced.
    progress : bool, optional
        Progress bar; default: only when stderr is a terminal.
    force : bool
        Overwrite files in ``out`` that no logitgeom run wrote (by default such a file is
        never replaced: the run stops with an error before writing it).
    models : path, optional
        A folder holding local model folders named as in
        :data:`logitgeom.reproduce._real_models.MODELS`: the real-model rows whose folder is
        there run and compare with the paper's printed values.
    device, dtype, trust_remote_code
        Options of those runs (see :func:`logitgeom.models.context.context_embeddings`).
    log : file-like, optional
        Where a line per finished claim goes when the progress bar is off (default: stderr;
        ``False``: nowhere).

    Returns
    -------
    Report

    Raises
    ------
    InvalidInput
        ``only`` matches no claim, or ``device`` / ``dtype`` is not one torch knows.
    OutputError
        ``out`` cannot be written, or a file there would be overwritten without ``force``.

    Notes
    -----
    Every file is written atomically; ``out/.logitgeom-run`` says ``"incomplete"``
    from the start until the run has finished (``logitgeom check`` reports it).
    """
    from tqdm import tqdm

    _check_model_options(device, dtype)
    claims = select_claims(only)
    out = Path(out)
    owned = _owned_files(out, force)
    prior = read_run_record(out) or {}
    if models is not None and not Path(models).expanduser().is_dir():
        from logitgeom.errors import InvalidInput

        raise InvalidInput(f"--models {models}: not a folder (it should hold one folder per "
                           "model, e.g. gpt-oss-20b/)")
    ctx = Context(out)
    ctx.owned, ctx.force = owned, force
    ctx.models = None if models is None else Path(models).expanduser()
    ctx.model_options = {"device": device, "dtype": dtype,
                         "trust_remote_code": trust_remote_code}
    for rel in ("SUMMARY.md", MANIFEST):
        ctx.check_overwrite(rel)
    prior_rows = {k: v for k, v in (prior.get("rows") or {}).items() if isinstance(v, dict)}
    record = {"engine": f"logitgeom {__version__}", "status": "incomplete",
              "files": dict(owned), "rows": prior_rows,
              "captions": dict(prior.get("captions") or {})}
    write_run_record(out, record)
    hashed: set[str] = set()

    def pending(rel: str) -> None:
        """Record ``rel`` as this run's (digest unknown) before writing it: a run killed
        during the write finds it listed as its own when resumed."""
        if rel in record["files"] and record["files"][rel] is None:
            return
        record["files"][rel] = None
        hashed.discard(rel)
        write_run_record(out, record)

    ctx.before_write = pending
    show = sys.stderr.isatty() if progress is None else bool(progress)
    rows: list[Row] = []
    keys: list[str] = []
    owner: dict[str, int] = {}
    bar = tqdm(claims, desc="reproduce", unit="claim", disable=not show)
    sink = None if (show or log is False) else (log or sys.stderr)
    for c in bar:
        bar.set_postfix_str(c.key, refresh=False)
        before = len(ctx.certificates)
        try:
            row = c.func(ctx)
        except OutputError:
            _remember(out, record, ctx, hashed)
            raise  # a file that may not be overwritten: stop the run, say which
        except Exception as exc:  # a failing claim is a FAIL row, never a crash of the run
            if show:
                traceback.print_exc()
            row = _failed(c.key, exc)
        except BaseException:  # Ctrl-C: the run stays incomplete but knows what it wrote
            _remember(out, record, ctx, hashed)
            raise
        for name in ctx.certificates[before:]:
            owner[name] = len(rows)
        rows.append(row)
        keys.append(c.key)
        if sink is not None:  # no bar (a log file, CI): one line per finished claim
            print(f"[{len(rows)}/{len(claims)}] {c.key}: {row.status}", file=sink, flush=True)
        _remember(out, record, ctx, hashed)  # an interrupted run still knows what it wrote
    start = _step_reporter(show, sink)
    verdicts = check_certificates(
        ctx.out, ctx.certificates,
        progress=start("checking certificates (stdlib checker)", len(ctx.certificates)))
    bad = tuple(sorted(n for n, v in verdicts.items() if v != "OK"))
    for n in bad:
        i = owner[n]
        r = rows[i]
        rows[i] = Row(r.claim, r.instance, r.method,
                      r.result + f"; CERTIFICATE {n} REJECTED: {verdicts[n]}", r.artifacts,
                      Status.FAIL)
    for i, r in enumerate(rows):  # PASS -> the kind of evidence (docs/paper-output.md)
        if r.status is Status.PASS:
            mine = [n for n, j in owner.items() if j == i]
            rows[i] = dataclasses.replace(
                r, status=Status.CERTIFIED if mine else Status.COMPUTED)
    rep = Report(ctx.out, tuple(rows), len(verdicts), bad, tuple(ctx.captions.items()))
    pending(MANIFEST)
    pending("SUMMARY.md")
    write_manifest(ctx.out, ctx.certificates, merge=only is not None)
    # SUMMARY.md: this run's rows, plus (for --only) the earlier rows of the other claims
    for k, r in zip(keys, rows, strict=True):
        record["rows"][k] = {**_row_to_json(r), "certificates": sorted(
            n for n, i in owner.items() if rows[i] is r)}
    if only is None:
        record["rows"] = {k: record["rows"][k] for k in keys}
        record["captions"] = {}
    record["captions"].update(ctx.captions)
    order = {k: i for i, k in enumerate(CLAIMS)}
    merged_keys = sorted(record["rows"], key=lambda k: (order.get(k, len(order)), k))
    merged = [r for r in (_row_from_json(record["rows"][k]) for k in merged_keys) if r]
    if only is None:
        total = rep
    else:
        invalid = {n for k in merged_keys for n in record["rows"][k].get("certificates", [])
                   if record["rows"][k].get("status") == "FAIL"} & set(bad)
        n_certs = len({n for k in merged_keys for n in record["rows"][k].get("certificates", [])})
        total = Report(ctx.out, tuple(merged), n_certs, tuple(sorted(invalid)),
                       tuple(sorted(record["captions"].items())))
    from logitgeom.reproduce._coq import coq_proofs  # Coq files beside the JSON (docs/coq.md)

    coq = coq_proofs(ctx, [n for n in ctx.certificates if n not in bad], progress=start)
    write_atomic(ctx.out / "SUMMARY.md", "\n".join([summary_markdown(total), *coq]))
    ctx.written |= {"SUMMARY.md", MANIFEST}
    record["files"].update({rel: _digest(out / rel) for rel in ctx.written})
    record["status"] = "complete"
    write_run_record(out, record)
    return rep


__all__ += ["checker_command", "RUN_RECORD", "status_counts", "STATUS_NOTE"]
