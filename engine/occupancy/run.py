"""``occupancy``: which regions of a head real inputs occupy, against the regions it has.

The cosine paper decides which label sets and rankings a head *can* produce; it leaves open
which ones inputs *do* produce.  Given a head and a set of inputs (hidden states), this
module decides, exactly, each input's sign pattern, ranking, top-t prefix and argmax
(:mod:`logitgeom.occupancy.decide`), streams them to Parquet shards (resumable, on a local
pool or Dask), and sets what is realized against what is possible: the exact number of
regions (Zaslavsky), the enumerated set when it is small, and the argmax audit's verdicts
per label ("can win, never wins on this data"; a label proven never to be the argmax that
wins on some input would be a bug and stops the run).

Examples
--------
>>> r = occupancy([[1, 0], [0, 1], [-1, -1]], [[2, 1], [1, 2], [-1, 3], [1, 1]],
...               progress=False, plots=False)
>>> r.summary["inputs"], r.summary["on_boundary"]["ranking"], r.summary["realized"]["argmax"]
(4, 1, 2)
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from logitgeom._fsio import check_input_file, check_inside, csv_text, write_atomic
from logitgeom.audit.head import open_head
from logitgeom.audit.source import load_source
from logitgeom.errors import EngineError, InvalidInput
from logitgeom.occupancy.inputs import open_inputs
from logitgeom.occupancy.shards import decide_unit, read_columns, shard_name
from logitgeom.run.executor import run_units

__all__ = ["OccupancyResult", "OccupancyError", "occupancy", "RUN_FILE", "hidden_states_from_text"]

RUN_FILE = "occupancy-run.json"
_FORMAT = "logitgeom-occupancy/1"


class OccupancyError(EngineError):
    """A label the audit proved never to be the argmax is the argmax of an input."""


@dataclass
class OccupancyResult:
    """What an occupancy run found.

    Attributes
    ----------
    summary : dict
        Deterministic (no timings): counts of inputs, realized regions per kind, the exact
        and enumerated region counts, boundary inputs, exactly decided inputs.
    labels : list of dict
        Per label: argmax wins, the audit's verdict and what it says about the data.
    coverage : dict
        ``{kind: (N list, realized-among-the-first-N list)}``.
    out : Path or None
    seconds : float
        Wall time of the run (not in ``summary``).
    """

    summary: dict
    labels: list
    coverage: dict
    out: Path | None
    seconds: float = 0.0
    margins: np.ndarray | None = field(default=None, repr=False)

    def lines(self) -> list[str]:
        """Human-readable summary lines."""
        s = self.summary
        out = [f"occupancy of {s['inputs']:,} inputs on a {s['k']} x {s['d']} head"
               + (" with bias" if s["bias"] else "")
               + f" ({s['exact_inputs']:,} decided in integer arithmetic, the rest by the "
               "float filter)"]
        for kind in ("sign", "ranking", f"top-{s['top']}", "argmax"):
            tot = s["regions"].get(kind)
            tot_s = (f" ({s['regions_how'][kind]})" if tot is None
                     else f" of {tot:,} regions ({s['regions_how'][kind]})")
            out.append(f"  {kind}: {s['realized'][kind]:,} realized{tot_s}; "
                       f"{s['on_boundary'].get(kind, 0):,} inputs on a boundary (exact tie)")
        never = [r["label"] for r in self.labels if r["status"] == "can win, never wins"]
        if never:
            shown = ", ".join(map(str, never[:30])) + (" ..." if len(never) > 30 else "")
            out.append(f"  can win, never wins on this data: {len(never)} labels ({shown})")
        proven = [r["label"] for r in self.labels if r["verdict"] == "never"]
        if proven:
            out.append(f"  proven never the argmax (audit): {len(proven)} labels; none wins "
                       "on this data")
        if self.margins is not None and self.margins.size:
            q = np.quantile(self.margins, [0.0, 0.5])
            out.append(f"  distance to the nearest argmax boundary: min {q[0]:.3g}, "
                       f"median {q[1]:.3g}")
        if self.out is not None:
            out.append(f"  written to {self.out}: summary.json, labels.csv, shards/*.parquet, "
                       "coverage.png, margins.png")
        return out


def _keys(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    return a.view(np.dtype((np.void, a.dtype.itemsize * a.shape[1]))).ravel()


def _first_seen(keys: np.ndarray, strict: np.ndarray) -> tuple[int, np.ndarray]:
    """Number of distinct strict keys and the sorted indices of their first occurrences."""
    idx = np.flatnonzero(strict)
    if idx.size == 0:
        return 0, np.zeros(0, dtype=np.int64)
    _, first = np.unique(keys[idx], return_index=True)
    return first.size, np.sort(idx[first])


def _curve(first: np.ndarray, n: int) -> tuple[list[int], list[int]]:
    grid = sorted({int(v) for v in np.unique(np.geomspace(1, max(n, 1), 60).astype(np.int64))}
                  | {n})
    return grid, [int(np.searchsorted(first, g, side="left")) for g in grid]


def _exact_counts(head, k: int, top: int) -> tuple[dict, dict, dict]:
    """Exact region counts (Zaslavsky) and, when small, the enumerated sets."""
    from logitgeom.geometry.counting import count_or_refuse

    rows = [list(head.exact_row(i)) for i in range(k)]
    b = None if head.bias is None else [head.exact_bias(i) for i in range(k)]
    counts: dict = {}
    how: dict = {}
    for kind, ranking in (("sign", False), ("ranking", True)):
        try:
            counts[kind] = count_or_refuse(rows, bias=b, ranking=ranking, limit=10**6)
            how[kind] = "exact count, Zaslavsky"
        except EngineError:
            from logitgeom.geometry.counting import region_upper_bound

            bound = region_upper_bound(rows, bias=b, ranking=ranking)
            counts[kind] = None
            digits = len(str(bound))
            size = f"{bound:,}" if digits <= 12 else f"about 10^{digits - 1}"
            how[kind] = (f"not counted: at most {size} regions (general-position bound), "
                         "over the exact-count budget")
    sets: dict = {}
    if k <= 12:
        from logitgeom.geometry.patterns import ranking_pattern, sign_pattern

        for kind, fn, kw in (("sign", sign_pattern, {}), ("ranking", ranking_pattern, {}),
                             (f"top-{top}", ranking_pattern, {"top": top})):
            if kind != "sign" and counts.get("ranking") is not None and counts["ranking"] > 20000:
                continue
            if kind == "sign" and (counts.get("sign") is None or counts["sign"] > 20000):
                continue
            res = fn(rows, bias=b, **kw)
            sets[kind] = {tuple(p) for p in res.patterns}
            if kind not in counts:
                counts[kind] = len(sets[kind])
                how[kind] = "enumerated, exact"
    return counts, how, sets


def occupancy(head, inputs, *, bias=None, top: int = 3, out=None, executor=None,
              progress: bool | None = None, chunk_rows: int = 1 << 16, audit: bool = True,
              counts: bool = True, plots: bool = True, tensor: str | None = None,
              transpose: bool = False, rows_are_labels: bool = False) -> OccupancyResult:
    """Decide every input's regions exactly and set the realized regions against the possible.

    Parameters
    ----------
    head : array_like or path
        The head (k x d), as :func:`logitgeom.audit.audit_argmax` reads it (matrix file, model
        folder or weight file; floats are their exact binary values).
    inputs : array_like or path
        (n, d) hidden states: an array, ``.npy`` or ``.parquet``
        (:func:`logitgeom.occupancy.inputs.open_inputs`).
    bias : array_like, path, "auto" or None
        Output bias (as in the audit).
    top : int
        t of the top-t prefixes (default 3, at most k - 1).
    out : path, optional
        Output folder: ``shards/part-*.parquet`` (one row per input), ``summary.json``,
        ``labels.csv``, ``coverage.png``/``.pdf``, ``margins.png``/``.pdf`` and the run record
        ``occupancy-run.json``.  A rerun with the same head, inputs and chunking resumes:
        shards already written are kept.  Without it a temporary folder is used.
    executor : None, concurrent.futures.Executor or distributed.Client
        Where units run (:mod:`logitgeom.run.executor`).
    progress : bool, optional
    chunk_rows : int
        Inputs per unit (``.npy`` and arrays).
    audit : bool
        Run the argmax audit and set each label's wins against its verdict.
    counts : bool
        Count the regions exactly (within a budget; a head over it is reported "not
        counted") and enumerate them when there are few.
    plots : bool
        Write the coverage and margin figures (with ``out``).
    tensor, transpose
        As in ``logitgeom inspect``.
    rows_are_labels : bool
        A matrix file with fewer rows than columns holds one label a row (as
        ``audit-argmax --rows-are-labels``); without it such a file is refused.

    Returns
    -------
    OccupancyResult

    Raises
    ------
    InvalidInput
        Bad head, inputs (shape, NaN, dtype) or ``top``; an ``out`` folder holding another run.
    OccupancyError
        A label proven never to be the argmax wins on some input, or a realized pattern is
        missing from the complete enumeration (either would be a bug).
    """
    import time

    from logitgeom.limits import as_size

    top = as_size(top, "top", least=1)
    chunk_rows = as_size(chunk_rows, "chunk_rows", least=1)
    if out is not None and not isinstance(out, str | os.PathLike):
        raise InvalidInput(f"out must be a folder path (str or Path); got "
                           f"{type(out).__name__} {out!r}"[:200])
    t0 = time.perf_counter()
    own_tmp = out is None
    folder = Path(tempfile.mkdtemp(prefix="occupancy-")) if own_tmp else Path(out)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        check_inside(folder, folder / "shards")  # a linked shards/ would take writes outside
        src = load_source(head, bias=bias, tensor=tensor, transpose=transpose, work=folder,
                          out_dir=folder, rows_are_labels=rows_are_labels)
        h = open_head(src.spec)
        k, d = h.k, h.d
        if not 1 <= top:
            raise InvalidInput(f"--top must be at least 1; got {top}")
        top = min(top, max(1, k - 1))
        ins = open_inputs(inputs, chunk_rows=chunk_rows)
        if ins.d != d:
            raise InvalidInput(f"inputs have width {ins.d}, the head has d = {d}")
        if ins.n == 0:
            raise InvalidInput("no inputs (0 rows)")
        head_id = json.dumps(src.head_field, sort_keys=True)
        record = {"format": _FORMAT, "head": __import__("hashlib").sha256(
            (head_id + json.dumps(None if h.bias is None else [str(h.exact_bias(i))
                                                                for i in range(k)])).encode()
        ).hexdigest(), "inputs": ins.digest, "n": ins.n, "units": len(ins.bounds)}
        rf = folder / RUN_FILE
        if rf.exists():
            try:
                old = json.loads(rf.read_text())
            except (OSError, ValueError):
                old = None
            if old != record:
                raise InvalidInput(f"{folder} holds an occupancy run of another head or "
                                   "other inputs (or chunking); use another --out folder")
        else:
            write_atomic(rf, json.dumps(record, indent=1, sort_keys=True) + "\n")
        todo = [u for u in ins.units() if not (folder / shard_name(u[4])).is_file()]
        for _ in run_units(decide_unit, [(src.spec, u, str(folder)) for u in todo],
                           executor=executor, progress=progress, desc="occupancy"):
            pass
        res = _aggregate(h, folder, len(ins.bounds), top, audit, counts, src)
        write_atomic(folder / "summary.json", json.dumps(res.summary, indent=1,
                                                         sort_keys=True) + "\n")
        write_atomic(folder / "labels.csv", _labels_csv(res.labels))
        if plots and not own_tmp:
            from logitgeom.occupancy.plots import plot_coverage, plot_margins

            plot_coverage(res.coverage, folder / "coverage.png")
            plot_margins(res.margins, folder / "margins.png")
        res.out = None if own_tmp else folder
        res.seconds = time.perf_counter() - t0
        return res
    finally:
        if own_tmp:
            shutil.rmtree(folder, ignore_errors=True)


def _labels_csv(rows: list[dict]) -> str:
    cols = ("label", "wins", "verdict", "status")
    return csv_text(cols, ([r[c] for c in cols] for r in rows))


def _aggregate(h, folder: Path, units: int, top: int, audit: bool, do_counts: bool,
               src) -> OccupancyResult:
    k, d = h.k, h.d
    c = read_columns(folder, units, ("argmax", "sign", "ranking", "ties", "exact",
                                     "dist_argmax"))
    n = c["argmax"].shape[0]
    sign, rank, ties = c["sign"], c["ranking"], c["ties"]
    tie_any = (ties == ord("=")).any(axis=1) if k > 1 else np.zeros(n, dtype=bool)
    zero_any = (sign == ord("0")).any(axis=1)
    tkey = np.concatenate([rank[:, :top].astype(np.int32).view(np.uint8).reshape(n, -1),
                           ties[:, :top]], axis=1)
    ttie = (ties[:, :top] == ord("=")).any(axis=1) if k > 1 else np.zeros(n, dtype=bool)
    kinds = {
        "sign": (_keys(sign), ~zero_any),
        "ranking": (_keys(np.ascontiguousarray(rank.astype(np.int32))), ~tie_any),
        f"top-{top}": (_keys(tkey), ~ttie),
        "argmax": (c["argmax"].astype(np.int64), c["argmax"] >= 0),
    }
    realized, coverage, onb = {}, {}, {}
    firsts = {}
    for kind, (keys, strict) in kinds.items():
        realized[kind], first = _first_seen(keys, strict)
        firsts[kind] = (keys, strict)
        coverage[kind] = _curve(first, n)
        onb[kind] = int((~strict).sum())
    regions, how, sets = ({}, {}, {})
    if do_counts:
        regions, how, sets = _exact_counts(h, k, top)
    for kind in ("sign", "ranking", f"top-{top}"):
        regions.setdefault(kind, None)
        how.setdefault(kind, "not counted" + ("" if do_counts else " (counts off)"))
    regions["argmax"] = None
    how["argmax"] = "argmaxable labels, argmax audit" if audit else "not audited"
    # a realized region missing from a complete enumeration would be a bug
    for kind, S in sets.items():
        keys, strict = firsts[kind]
        idx = np.flatnonzero(strict)
        if kind == "sign":
            pats = {tuple(1 if ch == ord("+") else -1 for ch in row)
                    for row in np.unique(sign[idx], axis=0)} if idx.size else set()
        else:
            w = k if kind == "ranking" else top
            pats = {tuple(int(v) for v in row) for row in np.unique(rank[idx, :w], axis=0)} \
                if idx.size else set()
        missing = pats - S
        if missing:
            raise OccupancyError(f"{kind}: {len(missing)} realized patterns are not in the "
                                 f"complete enumeration, e.g. {sorted(missing)[0]} (a bug)")
    wins = np.bincount(c["argmax"][c["argmax"] >= 0].astype(np.int64), minlength=k)
    verdicts = {}
    if audit:
        from logitgeom.audit import audit_argmax

        a = audit_argmax(src.spec.inline if src.spec.kind == "inline" else h.chunk(0, k),
                         bias=None if h.bias is None else [h.exact_bias(i) for i in range(k)],
                         progress=False)
        verdicts = a.verdicts["all"]
        regions["argmax"] = sum(v == "argmaxable" for v in verdicts.values())
    labels = []
    for i in range(k):
        v = verdicts.get(i, "not audited")
        w = int(wins[i])
        if v == "never" and w:
            raise OccupancyError(f"label {i} is proven never to be the strict argmax but is "
                                 f"the argmax of {w} inputs (a bug)")
        status = ("wins" if w else "can win, never wins" if v == "argmaxable"
                  else "never (proven)" if v == "never" else "never wins on this data")
        labels.append({"label": i, "wins": w, "verdict": v, "status": status})
    summary = {"format": _FORMAT, "k": k, "d": d, "bias": h.bias is not None, "inputs": n,
               "top": top, "exact_inputs": int(c["exact"].sum()), "realized": realized,
               "regions": regions, "regions_how": how, "on_boundary": onb,
               "enumerated": {kind: len(S) for kind, S in sets.items()},
               "argmax_wins": {str(i): int(wins[i]) for i in range(k) if wins[i]},
               "can_win_never_wins": [r["label"] for r in labels
                                      if r["status"] == "can win, never wins"]}
    m = c["dist_argmax"]
    return OccupancyResult(summary, labels, coverage, None, margins=m[np.isfinite(m)])


def hidden_states_from_text(model, text, *, device: str = "cpu", dtype: str | None = None,
                            trust_remote_code: bool = False,
                            progress: bool | None = None) -> np.ndarray:
    """Last-layer hidden states (the vectors the LM head multiplies) of a local causal LM at
    the last position of each line of a text file, through the context machinery of
    :func:`logitgeom.models.context.context_embeddings` (offline, the folder's tokenizer).

    Parameters
    ----------
    model : path
        A local model folder (``save_pretrained``; weights and ``tokenizer.json``).
    text : path
        A text file, one context per line (blank lines skipped).

    Returns
    -------
    numpy.ndarray
        (n, d) float64.

    Raises
    ------
    InvalidInput
        Missing or empty text file; the context machinery's errors (no torch, bad folder).
    """
    from logitgeom.models.context import context_embeddings
    from logitgeom.models.tokens import load_tokenizer

    p = check_input_file(text, "text file")  # missing: "not found"; a pipe or folder: named
    lines = [ln.strip() for ln in p.read_text(encoding="utf-8").splitlines() if ln.strip()]
    if not lines:
        raise InvalidInput(f"{p} has no contexts (one per line)")
    tok = load_tokenizer(Path(model).expanduser())
    first = tok.id_to_token(0)
    r = context_embeddings(model, [first], "{TOKEN}", contexts=[(ln,) for ln in lines],
                           space="none", progress=progress, device=device, dtype=dtype,
                           trust_remote_code=trust_remote_code)
    return np.ascontiguousarray(r.H.T)
