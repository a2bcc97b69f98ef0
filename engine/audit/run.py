"""Running an argmax audit in five stages: load, plan, decide, write, certify.

* **load** (:mod:`logitgeom.audit.source`): the head as the checker will read it (inline, the
  user's file in place, or a canonical ``head.npy``), its bias, tokenizer and provenance;
* **plan**: the labels, their blocks, the run's configuration fingerprint and, with an
  output folder, what a previous run already finished (resume);
* **decide**: label blocks are independent work units handed to
  :func:`logitgeom.run.executor.run_units` (serial, a process pool or a Dask
  ``distributed.Client``); each finished block is a JSON-lines shard
  (``shards/block-NNNNNN.jsonl``) recorded with its SHA-256 in ``run.json``;
* **write**: ``summary.json``, the per-label table ``labels.csv`` / ``labels.parquet``, the
  nearest-to-unargmaxable ranking and ``margins.png`` (:mod:`logitgeom.audit.report`);
* **certify**: the batch certificate ``audit.json`` (kind ``argmax-audit``,
  :mod:`logitgeom.certify.audit`), re-checked by the stdlib checker before the run returns:
  a certificate that does not check fails the run.

Files are written atomically with the user's umask.  Maths: docs/argmax-audit.md.
"""

from __future__ import annotations

import gc
import hashlib
import json
import os
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import numpy as np

from logitgeom._fsio import write_atomic
from logitgeom.audit import shards as _shards
from logitgeom.audit.decide import Options, _witness_margin, decide_label
from logitgeom.audit.head import open_head
from logitgeom.audit.labelrun import label_seconds_option
from logitgeom.audit.screen import screen_block
from logitgeom.audit.shards import (
    block_files,
    read_block,
    share_rows,
    split_lines,
    split_proofs,
)
from logitgeom.audit.shared import columns_option
from logitgeom.audit.source import INLINE_ENTRIES, Source, load_source
from logitgeom.audit.waves import add_stats as _add_stats
from logitgeom.audit.waves import one_blas_thread as _one_blas_thread
from logitgeom.audit.waves import run_hard
from logitgeom.errors import InvalidInput, SolverFailed
from logitgeom.exact.numbers import fraction_to_str, to_fraction
from logitgeom.limits import as_flag
from logitgeom.run.state import kill_hook, write_json

__all__ = ["AuditResult", "audit_argmax", "VERDICTS", "INLINE_ENTRIES"]

VERDICTS = ("argmaxable", "never", "undecided")
#: The options run.json records under "options" (they change no proof).
OPTION_KEYS = ("label_seconds", "shared_supports", "shared_columns")
@dataclass
class AuditResult:
    """Per-label verdicts of an argmax audit.

    Attributes
    ----------
    labels : tuple of int
        The audited labels, increasing.
    verdicts : dict
        ``{domain: {label: verdict}}`` with domain ``"all"`` (every x in R^d) and/or
        ``"box"`` (max_j abs(x_j) <= radius), verdict one of :data:`VERDICTS`.
    counts : dict
        ``{domain: {verdict: n}}``.
    names : dict
        Token strings of the labels that are not argmaxable (when a tokenizer was found).
    radius : Fraction or None
    certificate_path : Path or None
        ``audit.json`` when ``out`` was given.
    stage_seconds : dict
        CPU seconds (all threads of the worker) summed over blocks per pipeline stage
        (screen, ascent, lp, gordan, exact, exact_lp), the number of exactly decided pairs
        and of labels finished by the exact stage.
    table : list of dict
        One row per label (label, name, verdict, margin, proof; logitgeom.audit.report).
    nearest : list of dict
        The argmaxable labels with the smallest margin (nearest to unargmaxable).
    checked : str
        What the stdlib checker re-checked before the run returned.
    source : dict or None
        ``{"file", "sha256"}`` of the user's head file.
    records : list of dict or None
        The per-label records (kept in memory only without ``out``).
    label_cpu : dict
        ``{label: CPU seconds}`` of the labels that went past the screens in this run (the
        hard ones: Wolfe, LP and exact stages); a figure, not part of any proof.
    """

    labels: tuple[int, ...]
    verdicts: dict
    counts: dict
    names: dict
    radius: Fraction | None
    certificate_path: Path | None
    stage_seconds: dict
    records: list | None = field(default=None, repr=False)
    certificate_obj: dict | None = field(default=None, repr=False)
    k: int = 0
    d: int = 0
    seconds: float = 0.0
    table: list = field(default_factory=list, repr=False)
    nearest: list = field(default_factory=list, repr=False)
    checked: str = ""
    source: dict | None = None
    label_cpu: dict = field(default_factory=dict, repr=False)

    def never(self, domain: str = "all") -> list[int]:
        """Labels proven never to be the strict argmax."""
        return [k for k, v in self.verdicts[domain].items() if v == "never"]

    def undecided(self, domain: str = "all") -> list[int]:
        return [k for k, v in self.verdicts[domain].items() if v == "undecided"]

    def certificate(self) -> dict:
        """The ``argmax-audit`` certificate (records inline when run without ``out``)."""
        if self.certificate_obj is not None:
            return self.certificate_obj
        if self.certificate_path is None:
            raise ValueError("this AuditResult holds neither a certificate nor its path")
        return json.loads(Path(self.certificate_path).read_text())

    def summary(self) -> list[str]:
        """Human-readable lines: counts per domain and the unargmaxable tokens by name."""
        lines = [f"argmax audit of {len(self.labels)} of {self.k} labels (d = {self.d})"
                 f" in {self.seconds:.1f} s"]
        for dom, c in self.counts.items():
            what = "all inputs" if dom == "all" else f"inputs with max_j |x_j| <= {self.radius}"
            lines.append(f"  {what}: " + ", ".join(f"{c[v]} {v}" for v in VERDICTS))
            nv = self.never(dom)
            if nv:
                shown = ", ".join(f"{k} {self.names.get(k, '')!r}" if k in self.names else str(k)
                                  for k in nv[:50])
                more = f" (+{len(nv) - 50} more)" if len(nv) > 50 else ""
                lines.append(f"    never the argmax: {shown}{more}")
        und = sorted({k for dom in self.counts for k in self.undecided(dom)})
        if und:  # run.json lists them: a rerun in the same folder decides them again
            again = "; rerun into the same output folder with a larger budget or none" \
                if self.certificate_path is not None else ""
            lines.append(f"    undecided (the per-label budget ran out{again}): {und[:20]}")
        if self.nearest:
            shown = ", ".join(f"{r['label']}" + (f" {r['name']!r}" if r.get("name") else "")
                              + f" ({r['margin']:.3g})" for r in self.nearest[:5])
            lines.append(f"  nearest to unargmaxable (margin at the witness / ||x||): {shown}")
        if self.checked:
            lines.append(f"  self-check: {self.checked}")
        if self.certificate_path is not None:
            lines.append(f"  certificate: {self.certificate_path} (check: python -m "
                         "logitgeom_certificates.check_audit FILE); table: labels.csv, "
                         "labels.parquet")
        return lines

# ----------------------------------------------------------------------------- labels
def _labels(tokens, k: int, tok) -> tuple[int, ...]:
    if tokens is None:
        return tuple(range(k))
    if isinstance(tokens, str):
        tokens = [t for t in (s.strip() for s in tokens.split(",")) if t]
    out: list[int] = []
    words: list[str] = []
    for t in tokens:
        if isinstance(t, int | np.integer) and not isinstance(t, bool):
            out.append(int(t))
        elif isinstance(t, str) and t.lstrip("-").isdigit():
            out.append(int(t))
        elif isinstance(t, str) and "-" in t and all(s.isdigit() for s in t.split("-", 1)):
            a, b = (int(s) for s in t.split("-", 1))
            out.extend(range(a, b + 1))
        else:
            words.append(str(t))
    if words:
        if tok is None:
            raise InvalidInput(f"tokens {words[:5]} are words but no tokenizer.json was found; "
                               "give token ids or --tokenizer")
        from logitgeom.models.tokens import resolve_tokens

        out.extend(resolve_tokens(words, tok).ids)
    bad = [t for t in out if not 0 <= t < k]
    if bad:
        raise InvalidInput(f"token ids {bad[:5]} out of range for a head with {k} rows")
    if not out:
        raise InvalidInput("tokens is empty")
    return tuple(sorted(set(out)))


# ----------------------------------------------------------------------------- plan
@dataclass
class _Plan:
    src: Source
    k: int
    d: int
    labels: tuple[int, ...]
    blocks: list[tuple[int, ...]]
    opts: Options
    out_dir: Path | None
    work: Path
    state: dict
    names: dict
    bias_field: list[str] | None
    radius: Fraction | None


def _write(path: Path, data: bytes) -> None:
    write_atomic(path, data)


def _plan(src: Source, tokens, names_spec, R, doms, base: Options, block_size: int,
          out_dir: Path | None, work: Path) -> _Plan:
    head = open_head(src.spec)
    k, d = head.k, head.d
    if k < 2 or d < 1:
        raise InvalidInput(f"the audit needs at least 2 labels and 1 column; got {k} x {d}")
    names: dict[int, str] = {}
    if names_spec is not None:
        from logitgeom.audit.report import read_label_names

        names = read_label_names(names_spec, k)
    labels = _labels_named(tokens, k, src.tokenizer, names)
    opts = Options(radius=R, domains=doms, center=tuple(head.mean().tolist()),
                   ascent_steps=base.ascent_steps, lp_rows=base.lp_rows, lp_add=base.lp_add,
                   lp_rounds=base.lp_rounds,
                   label_seconds=label_seconds_option(base.label_seconds),
                   shared_supports=bool(as_flag(base.shared_supports, "shared_supports")),
                   shared_columns=columns_option(base.shared_columns))
    bias_field = None if head.bias is None else [fraction_to_str(head.exact_bias(i))
                                                 for i in range(k)]
    hf = src.head_field
    config = {"head": hf if "W" not in hf else
              hashlib.sha256(json.dumps(hf).encode()).hexdigest(),
              "bias": None if bias_field is None else
              hashlib.sha256(json.dumps(bias_field).encode()).hexdigest(),
              "radius": None if R is None else fraction_to_str(R), "domains": list(doms),
              "labels": hashlib.sha256(json.dumps(labels).encode()).hexdigest(),
              "block_size": block_size, "rows": k, "cols": d}
    blocks = [labels[i:i + block_size] for i in range(0, len(labels), block_size)]
    state = {"config": config, "done": {}, "stage_seconds": {}, "margins": {}, "undecided": {}}
    run_path = out_dir / "run.json" if out_dir is not None else None
    if run_path is not None and run_path.exists():
        try:
            old = json.loads(run_path.read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise InvalidInput(f"{run_path} is not a readable run state ({exc}); use another "
                               "--out folder") from None
        old_config = dict(old.get("config") or {})
        # a budget changes no proof: a rerun with another one (or none) resumes, and re-decides
        # the labels a budget left undecided (state["undecided"])
        old_config.pop("label_seconds", None)
        if old_config != config:
            raise InvalidInput(f"{out_dir} holds a different audit run (other head, bias, "
                               "labels, radius or block size); use another --out folder")
        state = old
        state["config"] = config
        state.setdefault("margins", {})
        state.setdefault("undecided", {})
    # how this run decides (no proof depends on it: a rerun with other values resumes)
    state["options"] = {f: getattr(opts, f) for f in OPTION_KEYS}
    return _Plan(src, k, d, labels, blocks, opts, out_dir, work, state, names, bias_field, R)


def _labels_named(tokens, k, tok, names: dict) -> tuple[int, ...]:
    if names and tokens is not None:
        index = {v: i for i, v in names.items()}
        items = tokens.split(",") if isinstance(tokens, str) else list(tokens)
        ids = [str(index[t.strip()]) if isinstance(t, str) and t.strip() in index else t
               for t in items]
        return _labels(ids, k, tok)
    return _labels(tokens, k, tok)


# ----------------------------------------------------------------------------- decide
def _dumps_line(rec: dict) -> str:
    return json.dumps(rec, sort_keys=True, separators=(",", ":"), allow_nan=False)


def _block_unit(unit):
    """Phase 1 work unit: the screens of one block (one blocked product, one BLAS thread).
    Returns (records so far, pending {label: domains}, margins, cost, stats)."""
    spec, labels, opts = unit
    with _one_blas_thread():
        head = open_head(spec)
        sc = screen_block(head, labels, opts)
        for k, rec in sc.out.items():
            if k in sc.pending or k in sc.margins:
                continue
            first = rec.get("all") or rec.get("box")
            if first["verdict"] == "argmaxable":
                sc.margins[k] = _witness_margin(head, k, first["witness"])
    return sc.out, sc.pending, sc.margins, sc.cost, sc.stats


def _label_unit(unit):
    """Phase 2 work unit: one label the screens left open.  Returns (label, record, margin
    or None, stats, CPU seconds)."""
    spec, k, doms, rec, opts = unit
    with _one_blas_thread():
        head = open_head(spec)
        stats: dict = {}
        t0 = time.process_time()
        rec, m = decide_label(head, k, doms, rec, opts, stats)
    # the Wolfe, LP and exact stages ran in a forked child (logitgeom.audit.bounded)
    return k, rec, m, stats, time.process_time() - t0 + stats.pop("_child_cpu", 0.0)


#: run.json (the resume state) is rewritten at most this often (seconds), and at the end.
_STATE_EVERY = 2.0


#: A block's records go to shard files of at most this many bytes (split between records),
#: well inside the checker's 64 MiB per file: a never-proof on 769 full-precision float32
#: rows is about 6.5 MB, so a block holding ten of them would not fit one file.  A single
#: record larger than this is written alone (the checker reads at most 64 MiB per file).
SHARD_BYTES = 32 * 1024 * 1024


class _Blocks:
    """Finished blocks: shards written in label order, run.json kept current."""

    def __init__(self, plan: _Plan, stage: dict, margins: dict):
        self.plan, self.stage, self.margins = plan, stage, margins
        self.results: dict[int, list[dict]] = {}
        self.last = 0.0

    def finish(self, b: int, recs: list[dict]) -> None:
        plan, state = self.plan, self.plan.state
        if plan.out_dir is None:
            self.results[b] = recs
            return
        name = f"block-{b:06d}.jsonl"
        proof_parts: list[list[str]] = []
        lines = []
        for r in share_rows(recs):  # a block's shard stands alone: references stay inside it
            r, written = split_proofs(r, plan.out_dir / "shards", _shards.PROOF_PART_BYTES)
            proof_parts.extend(written)
            lines.append(_dumps_line(r) + "\n")
        if proof_parts:  # checked on resume like the shard files
            state.setdefault("proof_parts", {})[name] = proof_parts
        else:
            state.setdefault("proof_parts", {}).pop(name, None)
        parts = split_lines(lines, SHARD_BYTES)
        files = []
        for i, data in enumerate(parts):
            part = name if i == 0 else f"block-{b:06d}.{i}.jsonl"
            _write(plan.out_dir / "shards" / part, data)
            files.append([part, hashlib.sha256(data).hexdigest()])
        # one part: the hash alone (the format of runs written before parts existed)
        state["done"][name] = files[0][1] if len(files) == 1 else files
        und = [r["label"] for r in recs if any(r[dom]["verdict"] == "undecided"
                                               for dom in plan.opts.domains)]
        if und:  # a rerun re-decides these (a budget ran out)
            state.setdefault("undecided", {})[name] = und
        else:
            state.setdefault("undecided", {}).pop(name, None)
        if time.monotonic() - self.last >= _STATE_EVERY:
            self.save()
        kill_hook("audit", len(state["done"]))  # resume tests: LOGITGEOM_STORE_KILL=audit:n:sig

    def save(self) -> None:
        if self.plan.out_dir is None:
            return
        state = self.plan.state
        state["stage_seconds"] = self.stage
        state["margins"] = {str(a): v for a, v in sorted(self.margins.items())}
        write_json(self.plan.out_dir / "run.json", state)  # the resume state (logitgeom.run.state)
        self.last = time.monotonic()


def _decide(plan: _Plan, executor, progress) -> tuple[list[dict], dict, dict, dict]:
    """Run the unfinished blocks; returns (records in label order, stage seconds, margins,
    CPU seconds of each label that went past the screens in this run).

    Phase 1 screens every block (one unit per block); phase 2 decides the labels the
    screens left open, one unit per label, hardest first (by the screen's cost estimate:
    rows violated at x = w_k), so that the long labels start first on the workers.  Each
    block's shard is written, in label order, once all its labels are decided: the output
    does not depend on the executor or the completion order."""
    out_dir, state = plan.out_dir, plan.state
    todo = []
    reopen: dict[int, list[dict]] = {}  # finished blocks with labels a budget left undecided
    for b, blk in enumerate(plan.blocks):
        name = f"block-{b:06d}.jsonl"
        entry = state["done"].get(name)
        if entry is not None and out_dir is not None:
            files = [(f"shards/{f}", h) for f, h in block_files(name, entry)] \
                + [(f, h) for f, h in state.get("proof_parts", {}).get(name, [])]
            if all((out_dir / f).exists() and hashlib.sha256(
                    (out_dir / f).read_bytes()).hexdigest() == h for f, h in files):
                if state.get("undecided", {}).get(name):
                    reopen[b] = read_block(out_dir, name, entry)
                continue
            state["done"].pop(name, None)
        todo.append((b, blk))
    stage = dict(state.get("stage_seconds", {}))
    margins = {int(a): v for a, v in state.get("margins", {}).items()}
    blocks = _Blocks(plan, stage, margins)
    label_cpu: dict[int, float] = {}
    parts: dict[int, dict] = {}
    waiting: dict[int, set[int]] = {}
    hard: list[tuple[int, int, int, list[str]]] = []
    doms_all = plan.opts.domains
    for b, recs in reopen.items():
        out = {r["label"]: r for r in recs}
        pending = {r["label"]: [dom for dom in doms_all if r[dom]["verdict"] == "undecided"]
                   for r in recs}
        pending = {lab: ds for lab, ds in pending.items() if ds}
        for lab, ds in pending.items():
            out[lab] = {key: v for key, v in out[lab].items() if key not in ds}
        parts[b], waiting[b] = out, set(pending)
        hard.extend((0, lab, b, ds) for lab, ds in pending.items())
    state.pop("stopped", None)
    try:  # Ctrl-C or an error: what finished so far is kept for the rerun
        units = [(plan.src.spec, blk, plan.opts) for _, blk in todo]
        for res in _run(_block_unit, units, executor, progress, "label blocks (screens)"):
            b, blk = todo[res.index]
            out, pending, m, cost, st = res.value
            margins.update(m)
            _add_stats(stage, st)
            if pending:
                parts[b], waiting[b] = out, set(pending)
                hard.extend((cost.get(k, 0), k, b, sorted(pending[k])) for k in pending)
            else:
                blocks.finish(b, [out[k] for k in blk])
        hard.sort(key=lambda h: (-h[0], h[1]))  # hardest first; ties by label

        def take(k: int, b: int, rec: dict, m, st: dict, cpu: float) -> None:
            parts[b][k] = rec
            if m is not None and k not in margins:
                margins[k] = m
            label_cpu[k] = label_cpu.get(k, 0.0) + cpu
            _add_stats(stage, st)
            waiting[b].discard(k)
            if not waiting[b]:
                blocks.finish(b, [parts[b][j] for j in plan.blocks[b]])
                del parts[b]
        run_hard(plan, hard, parts, take, stage, label_cpu, executor, progress, _label_unit)
    except KeyboardInterrupt:  # SIGINT: the labels running were killed with their children
        state["stopped"] = ("SIGINT (Ctrl-C); a rerun in this folder decides the blocks "
                            "not listed in 'done'")
        raise
    finally:
        blocks.save()
    records: list[dict] = []
    for b, _blk in enumerate(plan.blocks):
        if out_dir is None:
            records.extend(blocks.results[b])
        else:
            name = f"block-{b:06d}.jsonl"
            records.extend(read_block(out_dir, name, state["done"][name]))
    return records, stage, margins, label_cpu


def _run(fn, units, executor, progress, desc):
    from logitgeom.run.executor import run_units

    return run_units(fn, units, executor=executor, progress=progress, desc=desc)


# ----------------------------------------------------------------------------- write
def _names_for(plan: _Plan, verdicts: dict, doms) -> dict:
    names = dict(plan.names)
    tok = plan.src.tokenizer
    if tok is not None:
        for lab in plan.labels:
            if lab in names:
                continue
            try:
                names[lab] = tok.id_to_token(lab)
            except Exception:  # noqa: BLE001 - a name is decoration only
                pass
    return names


def _write_outputs(plan: _Plan, result: AuditResult, records, margins, stage) -> None:
    from logitgeom.audit.report import nearest, plot_margins, table_rows, write_table

    doms = plan.opts.domains
    rows = table_rows(records, result.names, margins, doms)
    result.table = rows
    result.nearest = nearest(rows)
    out_dir = plan.out_dir
    if out_dir is None:
        return
    paths = write_table(rows, out_dir, _write)
    fig = plot_margins(rows, open_head(plan.src.spec).norms(), out_dir / "margins.png", _write)
    summary = {"rows": plan.k, "cols": plan.d, "labels": len(plan.labels),
               "counts": result.counts,
               "radius": None if plan.radius is None else fraction_to_str(plan.radius),
               "source": plan.src.source, "converted": plan.src.converted,
               "never": {dom: [{"label": lab, "name": result.names.get(lab)}
                               for lab in result.never(dom)] for dom in doms},
               "undecided": {dom: result.undecided(dom) for dom in doms},
               "nearest_to_unargmaxable": [{"label": r["label"], "name": r["name"],
                                            "margin": r["margin"]} for r in result.nearest],
               "files": sorted(p.name for p in [*paths, *([fig] if fig else [])]),
               "certificate_covers": _coverage(plan.labels, plan.k),
               "reports_covered_by_certificate": False,  # this file and the tables: no hash
               "stage_seconds": {key: round(v, 3) for key, v in sorted(stage.items())}}
    _write(out_dir / "summary.json", (json.dumps(summary, indent=1, sort_keys=True)
                                      + "\n").encode())


def _coverage(labels, k: int) -> str:
    """'labels 0-48 of a 50-row head' (never 'all' for a part)."""
    from logitgeom.certify.audit import label_runs

    runs = label_runs(labels)
    if runs == [[0, k - 1]]:
        return f"all {k} labels of a {k}-row head"
    return "labels " + ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in runs[:20]) + \
        (f" and {len(runs) - 20} more runs" if len(runs) > 20 else "") + f" of a {k}-row head"


# ----------------------------------------------------------------------------- certify
def _check_unit(unit) -> tuple[bool, str, str]:
    """Work unit of the self-check: the stdlib checker on a written ``audit.json``, the
    proofs of the given labels only (structure, hashes, coverage and counts always)."""
    from logitgeom.certify.audit import self_check

    path, labels = unit
    v = self_check(path, labels)
    return bool(v.ok), str(getattr(v, "failed_check", "?")), str(getattr(v, "message", v))


#: The self-check of a written certificate runs as this many units on an executor (each
#: re-checks structure, hashes and counts, and the proofs of its share of the labels).
SELF_CHECK_UNITS = 4


def _parallel_check(path: Path, labels: list[int], never: set[int], executor, progress
                    ) -> tuple[bool, str, str]:
    """The self-check split over the executor: never-proofs (the long ones) dealt out first,
    round robin, so every unit gets its share; the union of the units' label sets is
    ``labels``, so all units passing is the one check passing."""
    order = sorted(labels, key=lambda x: (x not in never, x))
    parts = [sorted(order[i::SELF_CHECK_UNITS]) for i in range(SELF_CHECK_UNITS)]
    units = [(str(path), part) for part in parts if part] or [(str(path), [])]
    for res in _run(_check_unit, units, executor, progress, "self-check"):
        if not res.value[0]:
            return res.value
    return True, "", ""


def _certify(plan: _Plan, records, counts, executor=None, progress=None
             ) -> tuple[dict, Path | None, str]:
    """Build, write and re-check the certificate; raise SolverFailed when it does not check.
    With an executor the re-check of a written certificate is split over it."""
    from logitgeom.certify.audit import audit_certificate, self_check
    from logitgeom.certify.common import SELF_CHECK

    out_dir = plan.out_dir
    kw = {"records": share_rows(records)} if out_dir is None else {
        "shards": [{"file": f"shards/{f}", "sha256": h}
                   for b in range(len(plan.blocks))
                   for f, h in block_files(f"block-{b:06d}.jsonl",
                                            plan.state["done"][f"block-{b:06d}.jsonl"])]}
    cert = audit_certificate(head=plan.src.head_field, rows=plan.k, cols=plan.d,
                             domains=plan.opts.domains, labels=plan.labels, counts=counts,
                             bias=plan.bias_field, radius=None if plan.radius is None else
                             fraction_to_str(plan.radius), source=plan.src.source, **kw)
    witnesses = [r["label"] for r in records
                 if any(r[dom]["verdict"] == "argmaxable" for dom in plan.opts.domains)]
    if plan.src.spec.kind != "inline":
        # the stdlib checker reads the head itself (bytes, then values): unmap this
        # process's view first, so the copies are not resident at once (issue 44)
        open_head.cache_clear()
        gc.collect()
    # the one policy (certify.common.SELF_CHECK): every proof, or every never-proof and n
    # witnesses, re-checked against every row by proofs.recheck_witnesses
    n = SELF_CHECK.witnesses(len(witnesses), plan.k * plan.d)
    only = None
    sample: list[int] = []
    if n is not None:
        step = max(1, len(witnesses) // n)
        sample = witnesses[::step][:n]
        only = sorted({r["label"] for r in records if any(
            r[dom]["verdict"] == "never" for dom in plan.opts.domains)})
    if out_dir is None:
        path = None
        if only is None:
            v = self_check(cert)
        else:
            tmp = plan.work / "audit.json"
            _write(tmp, (json.dumps(cert, indent=1, sort_keys=True) + "\n").encode())
            v = self_check(tmp, only)
    else:
        path = out_dir / "audit.json"
        _write(path, (json.dumps(cert, indent=1, sort_keys=True) + "\n").encode())
        if executor is None:
            v = self_check(path, only)
        else:
            never = {r["label"] for r in records
                     if any(r[dom]["verdict"] == "never" for dom in plan.opts.domains)}
            labs = [r["label"] for r in records] if only is None else list(only)
            ok, failed, message = _parallel_check(path, labs, never, executor, progress)
            if not ok:
                raise SolverFailed(f"the audit certificate does not pass the stdlib checker "
                                   f"({failed}: {message})")
            v = None
    if v is not None and not v.ok:
        raise SolverFailed(f"the audit certificate does not pass the stdlib checker "
                           f"({getattr(v, 'failed_check', '?')}: {getattr(v, 'message', v)})")
    if sample:
        from logitgeom.audit.proofs import recheck_witnesses

        by_label = {r["label"]: r for r in records}
        entries = [(k, dom, by_label[k][dom]["witness"]) for k in sample
                   for dom in plan.opts.domains if by_label[k][dom]["verdict"] == "argmaxable"]
        with _one_blas_thread():
            bad = recheck_witnesses(open_head(plan.src.spec), entries, plan.radius)
        if bad is not None:
            raise SolverFailed(f"a witness of the audit certificate does not re-check ({bad})")
    n_never = sum(1 for r in records if any(r[dom]["verdict"] == "never"
                                            for dom in plan.opts.domains))
    how = ("every proof re-checked by the stdlib checker" if only is None else
           f"structure, hashes and counts checked and every never-proof ({n_never}) "
           f"re-checked by the stdlib checker; {len(sample)} of {len(witnesses)} witnesses "
           "re-checked against every row in exact arithmetic (float-filtered)")
    return cert, path, how


# ----------------------------------------------------------------------------- entry
def audit_argmax(
    source,
    bias=None,
    tokens=None,
    radius=None,
    out=None,
    executor=None,
    progress=None,
    *,
    tensor: str | None = None,
    transpose: bool = False,
    rows_are_labels: bool = False,
    tokenizer=None,
    block_size: int = 256,
    domains: Sequence[str] | None = None,
    options: Options | None = None,
    label_names=None,
) -> AuditResult:
    """Decide for every label whether some input makes it the strict argmax, with proofs.

    Parameters
    ----------
    source : array_like, or path
        A k x d matrix (floats are their exact binary values; Fractions / "p/q" strings are
        exact), a matrix file (``.npy``, ``.csv``, ``.json``), or a model folder / weight file
        (safetensors, sharded with ``model.safetensors.index.json``, PyTorch ``.bin``/``.pt``
        loaded with ``weights_only=True``, ``.npz``, GGUF); the head is found as ``inspect``
        finds it (tied input embeddings when there is no ``lm_head``).
    bias : array_like, path, "auto", str or None
        Output bias: a vector or a vector file (a ``pathlib.Path`` beside a model folder);
        for model folders also ``"auto"`` (the usual bias tensor, required to exist) or a
        tensor name (a string).  None: no bias.
    tokens : sequence or str, optional
        Labels to audit (ids, "a-b" ranges, or words with a tokenizer or label names); all
        by default.  Competitors are always every label of the head.
    radius : number or str, optional
        Also decide the bounded domain max_j abs(x_j) <= radius (infinity norm, so it stays
        an LP); both verdicts are reported.
    out : path, optional
        Output folder: shards, ``run.json`` (resume state), ``audit.json`` (certificate),
        ``summary.json``, ``labels.csv`` / ``labels.parquet``, ``margins.png`` and, for
        heads the checker cannot read in place, the canonical ``head.npy``.  A rerun with
        the same inputs resumes.  Without it the records stay in memory
        (``result.certificate()``; heads up to 2^20 entries inline).
    executor : None, concurrent.futures.Executor or distributed.Client
        Where label blocks run (see :mod:`logitgeom.run.executor`).
    progress : bool, optional
        Progress bar with ETA (default: when stderr is a terminal).
    tensor, transpose, tokenizer
        As in ``logitgeom inspect``.
    rows_are_labels : bool
        A matrix file with fewer rows than columns looks stored as (d, vocab): it needs
        ``transpose=True``, or this flag to say its rows really are the labels.
    block_size : int
        Labels per work unit.
    domains : sequence of str, optional
        Override the reported domains (``"all"``, ``"box"``).
    options : Options, optional
        Pipeline knobs (never change what is proven); ``Options(label_seconds=S)`` sets a
        per-label CPU budget, the only way a label can end ``undecided``;
        ``shared_supports=False``: no shared never-proofs (:mod:`logitgeom.audit.shared`).
    label_names : list of str or path, optional
        Names of the labels (a JSON list or a file with one name per line), for the table
        and the summary of heads without a tokenizer.

    Returns
    -------
    AuditResult

    Raises
    ------
    InvalidInput
        Bad source, bias, tokens or radius; an ``out`` folder holding a different run.
    SolverFailed
        The certificate did not pass the stdlib checker (never expected).

    Examples
    --------
    >>> r = audit_argmax([[1, 0], [-1, 0], [0, 1], [0, "1/4"]], progress=False)
    >>> r.counts["all"], r.never()
    ({'argmaxable': 3, 'never': 1, 'undecided': 0}, [3])
    >>> from logitgeom_certificates.api import check
    >>> check(r.certificate()).ok
    True
    """
    t_start = time.perf_counter()
    from logitgeom.limits import as_flag

    as_flag(transpose, "transpose")
    as_flag(rows_are_labels, "rows_are_labels")
    as_flag(progress, "progress", allow_none=True)
    if isinstance(block_size, bool) or not isinstance(block_size, int) or block_size < 1:
        raise InvalidInput(f"block_size must be a positive integer; got {block_size!r}")
    if tokens is not None and not isinstance(tokens, str | Sequence | np.ndarray):
        raise InvalidInput(f"tokens must be a list of token ids or names, or a string like "
                           f"'0-9,42'; got {type(tokens).__name__} {tokens!r}")
    if options is not None and not isinstance(options, Options):
        raise InvalidInput(f"options must be an logitgeom.audit.Options; got "
                           f"{type(options).__name__}")
    if executor is not None and not callable(getattr(executor, "submit", None)):
        raise InvalidInput(f"executor must have a submit method (a dask.distributed Client or "
                           f"a concurrent.futures executor); got {type(executor).__name__}")
    R = None
    if radius is not None:
        R = to_fraction(radius, what="radius")
        if R <= 0:
            raise InvalidInput(f"radius must be positive; got {radius}")
    if domains is not None and (isinstance(domains, str | bytes)
                                or not hasattr(domains, "__iter__")):
        raise InvalidInput(f"domains must be a subset of ('all', 'box'); got {domains!r}")
    doms = tuple(domains) if domains is not None else (("all", "box") if R is not None
                                                       else ("all",))
    if not doms or not all(isinstance(x, str) for x in doms) \
            or set(doms) - {"all", "box"} or len(set(doms)) != len(doms):
        raise InvalidInput(f"domains must be a subset of ('all', 'box'); got {doms}")
    if out is not None and not isinstance(out, str | os.PathLike):
        raise InvalidInput(f"out must be a folder path (str or Path); got "
                           f"{type(out).__name__} {out!r}")
    if "box" in doms and R is None:
        raise InvalidInput("the 'box' domain needs a radius")
    out_dir = Path(out) if out is not None else None
    tmp = None
    if out_dir is not None:
        if out_dir.exists() and not out_dir.is_dir():
            raise InvalidInput(f"--out {out_dir} exists and is not a folder")
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "shards").mkdir(exist_ok=True)
        from logitgeom._fsio import check_inside

        check_inside(out_dir, out_dir / "shards")  # a linked shards/ would take writes outside
        work = out_dir
    else:
        tmp = tempfile.TemporaryDirectory(prefix="logitgeom-audit-")
        work = Path(tmp.name)
    try:
        # 1. load
        src = load_source(source, bias=bias, tensor=tensor, transpose=transpose,
                          rows_are_labels=rows_are_labels,
                          tokenizer=tokenizer, work=work, out_dir=out_dir)
        # 2. plan
        plan = _plan(src, tokens, label_names, R, doms, options or Options(), block_size,
                     out_dir, work)
        # 3. decide
        records, stage, margins, label_cpu = _decide(plan, executor, progress)
        verdicts = {dom: {r["label"]: r[dom]["verdict"] for r in records} for dom in doms}
        counts = {dom: {v: sum(1 for x in verdicts[dom].values() if x == v) for v in VERDICTS}
                  for dom in doms}
        result = AuditResult(labels=plan.labels, verdicts=verdicts, counts=counts,
                             names=_names_for(plan, verdicts, doms), radius=R,
                             certificate_path=None, stage_seconds=stage,
                             records=records if out_dir is None else None,
                             certificate_obj=None, k=plan.k, d=plan.d,
                             label_cpu=label_cpu)
        # 4. certify (before the write stage reports on it)
        cert, path, how = _certify(plan, records, counts, executor, progress)
        result.certificate_path = path
        result.certificate_obj = cert if out_dir is None else None
        result.checked = how
        result.source = src.source
        # 5. write
        _write_outputs(plan, result, records, margins, stage)
        result.seconds = time.perf_counter() - t_start
        return result
    finally:
        if tmp is not None:
            open_head.cache_clear()
            tmp.cleanup()
