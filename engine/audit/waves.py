"""Phase 2 of an audit run with shared supports: the hard labels in waves, and the labels
a float prefilter puts inside a never-proof's support proven together in shared batches
(:mod:`logitgeom.audit.shared`).  :func:`shared_waves` is called by
:mod:`logitgeom.audit.run` for heads without a bias with ``Options.shared_supports`` on
(:func:`shares`); its work units are :func:`_phase2_unit`.

Examples
--------
>>> import numpy as np
>>> from logitgeom.audit.head import HeadSpec
>>> shares(HeadSpec.from_array(np.eye(2)), Options(shared_supports=False))
False
"""

from __future__ import annotations

import time

from logitgeom.audit.head import open_head
from logitgeom.audit.proofs import Options
from logitgeom.audit.shared import (
    SupportPool,
    applies,
    column_cap,
    full_support,
    outside_simplex,
    run_batch,
    shared_record,
    supports_after,
)

__all__ = ["shares", "shared_waves", "run_hard", "add_stats", "one_blas_thread"]


def shares(spec, opts: Options) -> bool:
    """Whether phase 2 runs in shared waves (:func:`logitgeom.audit.shared.applies`)."""
    return applies(open_head(spec), opts)


def run_hard(plan, hard: list, parts: dict, take, stage: dict, label_cpu: dict, executor,
             progress, label_unit) -> None:
    """Phase 2 of a run: the hard labels ``hard`` ((cost, label, block, domains), hardest
    first), each decided alone by the work unit ``label_unit`` (a module-level function of
    ``(spec, label, domains, record, opts)``) and handed to ``take(label, block, record,
    margin, stats, cpu)``; in shared waves when :func:`shares`, else one unit per label."""
    if hard and shares(plan.src.spec, plan.opts):
        shared_waves(plan, hard, parts, take, stage, label_cpu, executor, progress,
                     label_unit)
        return
    units = [(plan.src.spec, k, doms, parts[b][k], plan.opts) for _, k, b, doms in hard]
    for res in _run(label_unit, units, executor, progress, "hard labels"):
        _, k, b, _ = hard[res.index]
        _k, rec, m, st, cpu = res.value
        take(k, b, rec, m, st, cpu)


def _run(fn, units, executor, progress, desc):
    from logitgeom.run.executor import run_units

    return run_units(fn, units, executor=executor, progress=progress, desc=desc)


def one_blas_thread():
    """One BLAS thread inside a work unit: parallelism comes from the units (--workers);
    OpenBLAS's spinning helper threads otherwise roughly double the CPU of the many small
    products of the hard labels (docs/argmax-audit.md section 6)."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1, user_api="blas")


def add_stats(stage: dict, st: dict) -> None:
    """Add a unit's stage seconds (keys not starting with "_") to the run's."""
    for key, v in st.items():
        if not key.startswith("_"):
            stage[key] = stage.get(key, 0) + v


def _shared_unit(unit):
    """Phase 2 work unit: the labels a float prefilter put inside one shared support,
    proven together (:func:`logitgeom.audit.shared.run_batch`, one bounded child).
    Returns ({label: never record}, stats, CPU seconds)."""
    spec, rows, labels, opts, pool = unit
    with one_blas_thread():
        head = open_head(spec)
        stats: dict = {}
        t0 = time.process_time()
        if pool is not None:  # the simplex's factorisation, once per process, before forking
            from logitgeom.audit.corrected import prepare

            budget = None if opts.label_seconds is None else opts.label_seconds * len(labels)
            if not prepare(head, rows, budget, stats):
                return {}, stats, time.process_time() - t0 + stats.get("corrected_factor", 0.0)
        got, cpu = run_batch(head, rows, labels, opts, stats, pool)
        cpu += stats.get("corrected_factor", 0.0)
    return got, stats, time.process_time() - t0 + cpu


def _phase2_unit(unit):
    """A phase 2 unit of a run with shared supports: ``("label", label_unit, args)`` or
    ``("shared", None, args)`` for :func:`_shared_unit`."""
    kind, fn, args = unit
    return _shared_unit(args) if kind == "shared" else fn(args)


def _corrected_units(head, pool: SupportPool, left: list, tried: dict, spec, opts: Options,
                     units: list, meta: list, hard: set, simplices: dict) -> None:
    """Corrected batches (:mod:`logitgeom.audit.corrected`) for the open labels ``left``
    no support holds.  The shared simplex is the d + 1 rows nearest the first label not yet
    searched, outside the hard labels ``hard`` (one search a wave,
    :func:`logitgeom.audit.shared.outside_simplex`; kept in ``simplices``, label -> rows);
    the float proposals may use its rows and those of every pool support.  A label is tried once
    on each simplex."""
    todo = [h[1] for h in left]
    S = next((simplices[k] for k in todo if k in simplices
              and ("corrected", simplices[k]) not in tried.get(k, ())), None)
    k = next((k for k in todo if k not in simplices), None) if S is None else None
    if k is not None:  # one search a wave (one float pass over the head)
        S = simplices[k] = outside_simplex(head, k, hard)
    if S is None:
        return
    key = ("corrected", S)
    labs = [k for k in todo if key not in tried.get(k, ())]
    for k in labs:
        tried.setdefault(k, set()).add(key)
    rows = tuple(sorted({i for sup in pool.items for i in sup.rows} | set(S)))
    cap = column_cap(head, S, opts)
    for c0 in range(0, len(labs), cap):
        part = labs[c0:c0 + cap]
        units.append(("shared", None, (spec, S, part, opts, rows)))
        meta.append(("shared", S, part))


#: Hard labels run alone in waves of 2, 4, 8, ... labels (the shared batches of a wave
#: besides): the never-proofs of a wave give the supports the next wave's labels are
#: prefiltered against.  Fixed sizes, so the records do not depend on the executor.
_FIRST_WAVE = 2


def shared_waves(plan, hard: list, parts: dict, take, stage: dict, label_cpu: dict,
                 executor, progress, label_unit) -> None:
    """Phase 2 with shared supports (:mod:`logitgeom.audit.shared`): the hard labels, hardest
    first, run alone in waves of growing size; after each wave, the support of every
    never-proof on d + 1 rows, and the supports of rows outside the hard labels that
    :func:`logitgeom.audit.shared.cluster_supports` proposes for its cluster, join a pool of
    recent supports; the open labels the float prefilter puts inside a support go, at most
    :func:`logitgeom.audit.shared.column_cap` per unit, to a shared batch in the next wave
    (the parent's CPU for the search and the prefilter is ``stage["shared_prefilter"]``).
    Labels a batch does not prove stay in the queue (and are not tried on that support
    again).  Results are taken in unit order within each wave, so
    the records do not depend on the executor or the completion order."""
    head = open_head(plan.src.spec)
    opts, spec = plan.opts, plan.src.spec
    pool = SupportPool()
    queue = list(hard)  # (cost, label, block, domains), hardest first
    order = {h[1]: n for n, h in enumerate(hard)}
    tried: dict[int, set] = {}
    simplices: dict[int, tuple | None] = {}
    size = _FIRST_WAVE
    while queue:
        units: list = []
        meta: list = []
        if pool.items:  # the shared batches of this wave
            t0 = time.process_time()
            left = [h for h in queue if "all" in h[3]]
            for sup in list(pool.items):
                labs = [h[1] for h in left if sup.rows not in tried.get(h[1], ())]
                got = pool.candidates(head, labs, only=sup) if labs else []
                for k in labs:  # tested once on each support (the float test is the same)
                    tried.setdefault(k, set()).add(sup.rows)
                for _, cands in got:
                    cap = column_cap(head, sup.rows, opts)
                    for c0 in range(0, len(cands), cap):
                        part = cands[c0:c0 + cap]
                        units.append(("shared", None, (spec, sup.rows, part, opts, None)))
                        meta.append(("shared", sup.rows, part))
                    taken = set(cands)
                    left = [h for h in left if h[1] not in taken]
            _corrected_units(head, pool, left, tried, spec, opts, units, meta, set(order),
                             simplices)
            batched = {k for u in meta for k in u[2]}
            queue = [h for h in queue if h[1] not in batched]
            stage["shared_prefilter"] = stage.get("shared_prefilter", 0.0) \
                + time.process_time() - t0
        wave, queue = queue[:size], queue[size:]
        for h in wave:
            _, k, b, doms = h
            units.append(("label", label_unit, (spec, k, doms, parts[b][k], opts)))
            meta.append(("label", h))
        size *= 2
        found: dict[int, tuple] = {}
        back: list = []
        desc = f"hard labels ({len(queue) + len(wave)} left; {len(meta) - len(wave)} batches)"
        for res in _run(_phase2_unit, units, executor, progress, desc):
            kind, *info = meta[res.index]
            if kind == "label":
                _, k, b, _ = info[0]
                _k, rec, m, st, cpu = res.value
                take(k, b, rec, m, st, cpu)
                full = full_support(head, rec.get("all"))
                if full is not None:
                    found[res.index] = (k, full)
            else:
                rows, part = info
                got, st, cpu = res.value
                add_stats(stage, st)
                for k in part:
                    h = hard[order[k]]
                    if k in got:
                        take(k, h[2], shared_record(parts[h[2]][k], got[k], h[3]), None, {},
                             cpu / len(part))
                    else:  # its share of the batch's CPU, then alone later
                        label_cpu[k] = label_cpu.get(k, 0.0) + cpu / len(part)
                        back.append(h)
        if back:  # not proven by the batch: back in the queue, in hardness order
            queue = sorted(queue + back, key=lambda h: order[h[1]])
        if queue and found:  # the supports of this wave's never-proofs, in unit order
            t0 = time.process_time()
            open_labels = [h[1] for h in queue]
            for i in sorted(found):
                k, sup = found[i]
                for rows in supports_after(head, k, sup, open_labels, order, pool):
                    pool.add(head, rows)
            stage["shared_prefilter"] = stage.get("shared_prefilter", 0.0) \
                + time.process_time() - t0
