"""The driver of a streamed run: plan, phase 1, phase 2, certification, resume.

See :mod:`logitgeom.geometry.stream` for the directory and the steps of a run.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

from logitgeom.errors import EngineError, InvalidInput
from logitgeom.geometry import search
from logitgeom.geometry.stream.codec import WORK_FORMAT
from logitgeom.geometry.stream.manifest import (
    FORMAT,
    MANIFEST,
    VERSION,
    added,
    check_version,
    steps,
)
from logitgeom.geometry.stream.phases import phase1, phase2
from logitgeom.geometry.stream.plan import (
    DEFAULT_SHARD_ROWS,
    counted,
    default_units,
    input_doc,
    input_hash,
    setup,
    stream_exact,
)
from logitgeom.geometry.stream.progress import Phase2, reset_work
from logitgeom.geometry.stream.result import StoredResult
from logitgeom.run.state import write_json

__all__ = ["enumerate_to_dir"]


def enumerate_to_dir(
    W: object,
    out: str | os.PathLike,
    *,
    kind: str = "sign",
    bias: object = None,
    executor: Any = None,
    units: int | None = None,
    shard_rows: int = DEFAULT_SHARD_ROWS,
    progress: bool | None = None,
    resume: bool = True,
    keep_work: bool = False,
) -> StoredResult:
    """Enumerate every sign pattern (or ranking) of a head into a directory, exactly.

    Parameters
    ----------
    W : k x d matrix
        As for :func:`logitgeom.geometry.sign_pattern` (exact conversion).
    out : path
        The result directory (created; a finished or interrupted run of the same input
        there is resumed, see ``resume``).
    kind : {"sign", "ranking"}
    bias : length-k vector, optional
    executor : None, concurrent.futures.Executor or distributed.Client
        Runs every step's tasks (see :func:`logitgeom.run.executor.run_units`): the exact
        count, phase 1, phase 2 and the certification.  With a Dask cluster, ``out`` must
        be on a file system every worker sees.  The result does not depend on the
        executor.
    units : int, optional
        Target number of work units (default :func:`default_units` of the exact count).
    shard_rows : int
        Target rows per shard; bounds the memory of a phase-2 task.
    progress : bool, optional
        Progress bars over the steps, with regions found and an ETA.
    resume : bool
        Reuse the finished batches, shards and shard checks recorded in
        ``out/manifest.json`` (the input hash must match).  ``False`` starts afresh.
    keep_work : bool
        Keep the phase-1 files (for inspection).

    Returns
    -------
    StoredResult
        The opened directory (lazy), certified complete.

    Raises
    ------
    InvalidInput
        Bad input, or ``out`` holds a result of another input.

    Examples
    --------
    >>> import tempfile
    >>> r = enumerate_to_dir([[1, 0], [0, 1], [1, 1]], tempfile.mkdtemp(), progress=False)
    >>> r.count, r.completeness
    (6, 'zaslavsky')
    """
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):  # small products: see one_blas_thread
        return _enumerate_to_dir(W, out, kind, bias, executor, units, shard_rows, progress,
                                 resume, keep_work)


def _enumerate_to_dir(W: object, out: str | os.PathLike, kind: str, bias: object,
                      executor: Any, units: int | None, shard_rows: int,
                      progress: bool | None, resume: bool, keep_work: bool) -> StoredResult:
    st = setup(kind, W, bias, count=False)
    if isinstance(shard_rows, bool) or not isinstance(shard_rows, int) or shard_rows < 1:
        raise InvalidInput(f"shard_rows must be a positive integer; got {shard_rows!r}")
    if units is not None and (isinstance(units, bool) or not isinstance(units, int)
                              or units < 1):
        raise InvalidInput(f"units must be a positive integer; got {units!r}")
    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    from logitgeom._fsio import check_inside

    for sub in ("work", "shards"):  # a linked subfolder would take a resumed run's writes out
        check_inside(root, root / sub)
    doc = input_doc(kind, st.Wm, st.b)
    digest = input_hash(doc)
    mpath = root / MANIFEST
    man: dict[str, Any] | None = None
    if mpath.exists():
        try:
            man = json.loads(mpath.read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise InvalidInput(f"{mpath} is unreadable ({exc}); remove the directory") from exc
        if man.get("format") != FORMAT or man.get("input_sha256") != digest:
            raise InvalidInput(f"{root} holds a result of another input (or not a "
                               f"{FORMAT} directory); choose another --out or remove it")
        check_version(root, man)
        if not resume:
            shutil.rmtree(root / "work", ignore_errors=True)
            shutil.rmtree(root / "shards", ignore_errors=True)
            man = None
        elif man.get("work_format") != WORK_FORMAT and not man.get("complete"):
            shutil.rmtree(root / "work", ignore_errors=True)  # an older layout: redo
            reset_work(man, work_format=WORK_FORMAT)
    Hc = st.red.hyperplanes
    resumed = man is not None
    if man is None:
        c0, w0 = time.process_time(), time.perf_counter()
        cstats: dict = {}
        st = counted(st, executor, cstats)
        count_step = {"cpu_driver": round(time.process_time() - c0, 3),
                      "wall": round(time.perf_counter() - w0, 3)}
        if executor is not None and cstats:  # serially the driver ran the tasks itself
            count_step["cpu_tasks"] = round(cstats["cpu_tasks"], 3)
        total = st.expected if st.b is None else 2 * st.expected
        target = default_units(total) if units is None else units
        plan = search.plan_units(Hc, target) if Hc else [()]
        man = {
            "format": FORMAT, "version": VERSION, "input": doc, "input_sha256": digest,
            "kind": kind, "k": len(st.Wm), "d": len(st.Wm[0]), "affine": st.b is not None,
            "exact_count": st.expected, "work_format": WORK_FORMAT,
            "arrangement": {"D": st.red.D, "cols": list(st.red.cols),
                            "where": [list(w) for w in st.red.where],
                            "hyperplanes": [list(h) for h in Hc]},
            "mode": "exact" if stream_exact(Hc) else "float",
            "units": [list(p) for p in plan],
            "buckets": max(1, -(-st.expected // shard_rows)),
            "units_done": {}, "batches_done": {}, "buckets_done": {}, "certified": {},
            "rows_written": None, "completeness": None, "complete": False,
            "steps": {"count": count_step},
        }
        write_json(mpath, man)
    else:
        from dataclasses import replace

        st = replace(st, expected=int(man["exact_count"]))
    if man.get("complete") and man.get("completeness") == "zaslavsky":
        return StoredResult(root, man)
    while True:
        phase1(root, man, st, executor, progress, keep_work)
        phase2(root, man, st, executor, progress, keep_work)
        rows = Phase2.of(man).rows
        man["rows_written"] = rows
        if rows == st.expected:
            break
        if man["mode"] == "float":  # proposals missed a region: the exact twin
            shutil.rmtree(root / "work", ignore_errors=True)
            shutil.rmtree(root / "shards", ignore_errors=True)
            reset_work(man, mode="exact")
            write_json(mpath, man)
            continue
        if resumed:  # the count came from the manifest, the rows from its files
            raise InvalidInput(f"{root}: {rows} regions written but its manifest records an "
                               f"exact count of {st.expected}: the directory was changed or "
                               "damaged after the run started; run the same command with "
                               "--restart")
        raise EngineError(f"internal error: {rows} regions written but the exact "
                          f"Zaslavsky count is {st.expected}; please report this input")
    write_json(mpath, man)
    if not keep_work:  # the shards are final: phase-1 files are no longer needed
        shutil.rmtree(root / "work", ignore_errors=True)
    res = StoredResult(root, man)
    c0, w0 = time.process_time(), time.perf_counter()
    verdict = res._certify(st, progress, executor, record=man)
    steps(man)["certify"] = {"cpu_driver": round(time.process_time() - c0, 3),
                              "wall": round(time.perf_counter() - w0, 3),
                              "cpu_tasks": round(sum(v.get("cpu", 0) for v in
                                                     man["certified"].values()), 3),
                              "max_task_rss_mb": round(max(
                                  (v.get("maxrss_kb", 0) for v in man["certified"].values()),
                                  default=0) / 1024, 1),
                              "max_task_added_mb": max(
                                  (added(v)["added_mb"] for v in man["certified"].values()
                                   if "maxrss_kb" in v), default=0)}
    man["completeness"] = "zaslavsky" if verdict["ok"] else None
    man["complete"] = bool(verdict["ok"])
    man["certification"] = verdict
    write_json(mpath, man)
    if not verdict["ok"] and resumed:
        raise InvalidInput(f"{root} does not certify ({verdict.get('failed')}): the directory "
                           "was changed or damaged after the run started; run the same "
                           "command with --restart")
    if not verdict["ok"]:  # pragma: no cover - would be a bug
        raise EngineError(f"internal error: streamed certification failed: {verdict}")
    return StoredResult(root, man)


#: expected phase-1 rows per batch task (fewer, larger tasks than units)
