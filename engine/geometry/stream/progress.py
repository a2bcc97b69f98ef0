"""The progress of a streamed run, typed: one frozen record per phase, one writer per event.

A run's ``manifest.json`` records what it has finished (the JSON layout is unchanged and
documented in docs/enumeration-at-scale.md).  Reading it is :meth:`Phase1.of`,
:meth:`Phase2.of` and :meth:`Checks.of`: frozen, validated views that the phases decide
from (which tasks are left, which files are live).  Writing it is one function per event
(:func:`record_batch`, :func:`record_merge`, :func:`record_group`, :func:`record_checks`),
and :func:`reset_work` is the one definition of what "redo from phase 1" forgets.

Examples
--------
>>> man = {"batches": [[0, 2], [2, 4]], "batches_done": {}, "units_done": {}}
>>> p = Phase1.of(man)
>>> p.waves, p.waves_merged, p.pending(0)
(((0, 2),), 0, (0, 1))
>>> record_batch(man, 1, {"units": {"2": {"rows": 3}}, "cpu": 0.5, "bytes": 10,
...                        "maxrss_kb": 2048, "rss0_kb": 1024}, seconds=0.25)
>>> Phase1.of(man).pending(0), Phase1.of(man).rows_found()
((0,), 3)
>>> reset_work(man, mode="exact")
>>> sorted(man)
['batches_done', 'buckets_done', 'certified', 'mode', 'rows_written', 'units_done']
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from logitgeom.geometry.stream.manifest import added

__all__ = ["WORK_KEYS", "RECORD_KEYS", "reset_work", "Phase1", "Phase2", "Checks",
           "record_plan", "record_batch", "record_merge", "record_wave_merged", "record_group",
           "record_checks"]

#: the plan of the two phases: computed from the first batch of work, dropped on a redo
WORK_KEYS = ("batches", "groups", "groups_done", "waves", "waves_merged", "merged",
             "merges_done")
#: the records of finished tasks: emptied on a redo
RECORD_KEYS = ("units_done", "batches_done", "buckets_done", "certified")


def reset_work(man: dict[str, Any], **changes: Any) -> None:
    """Forget every finished task and the phases' plan (redo from phase 1), then apply
    ``changes`` (such as ``mode="exact"`` or the new ``work_format``).

    The one definition of a redo: used when the files are of an older layout and when the
    float proposals missed a region (the exact twin runs).

    Examples
    --------
    >>> m = {"waves": [[0, 1]], "units_done": {"0": {}}, "rows_written": 5}
    >>> reset_work(m)
    >>> m["units_done"], m["rows_written"], "waves" in m
    ({}, None, False)
    """
    for key in WORK_KEYS:
        man.pop(key, None)
    man.update({key: {} for key in RECORD_KEYS}, rows_written=None, **changes)


def _pairs(v: Any) -> tuple[tuple[int, int], ...]:
    return tuple((int(a), int(b)) for a, b in v)


@dataclass(frozen=True)
class Phase1:
    """Phase 1 as recorded: the batches of units, the waves, what is done and merged.

    Attributes
    ----------
    batches : tuple of (lo, hi)
        Units lo..hi-1 of each batch task.
    waves : tuple of (blo, bhi)
        Batches blo..bhi-1 of each wave (one wave covering all batches when not recorded).
    waves_merged : int
        Waves whose files are merged into the groups' merged files.
    done : frozenset of int
        Batch indices recorded as finished (their files are complete).
    merged : mapping of int to int
        Bucket group (its first bucket) -> the last wave merged into its merged file.
    units_rows : int
        Witnessed rows of the finished units (before the global de-duplication).
    """

    batches: tuple[tuple[int, int], ...]
    waves: tuple[tuple[int, int], ...]
    waves_merged: int
    done: frozenset[int]
    merged: Mapping[int, int]
    units_rows: int

    @classmethod
    def of(cls, man: Mapping[str, Any]) -> Phase1:
        """The record of ``man`` (after :func:`record_plan`, or with ``batches`` set)."""
        batches = _pairs(man["batches"])
        waves = _pairs(man.get("waves", [[0, len(batches)]]))
        return cls(batches=batches, waves=waves, waves_merged=int(man.get("waves_merged", 0)),
                   done=frozenset(int(i) for i in man.get("batches_done", {})),
                   merged={int(lo): int(w) for lo, w in man.get("merged", {}).items()},
                   units_rows=sum(int(v["rows"]) for v in man.get("units_done", {}).values()))

    def pending(self, wave: int) -> tuple[int, ...]:
        """The batches of ``wave`` not recorded as finished."""
        blo, bhi = self.waves[wave]
        return tuple(i for i in range(blo, bhi) if i not in self.done)

    def first_live(self) -> int:
        """The first batch whose file is not merged yet (all batches: ``len(batches)``)."""
        if self.waves_merged < len(self.waves):
            return self.waves[self.waves_merged][0]
        return len(self.batches)

    def rows_found(self) -> int:
        """Witnessed rows of the finished units so far."""
        return self.units_rows


@dataclass(frozen=True)
class Phase2:
    """Phase 2 as recorded: the bucket groups and which buckets have their shard.

    Attributes
    ----------
    groups : tuple of (lo, hi)
        Buckets lo..hi-1 of each phase-2 task.
    done : frozenset of int
        Buckets whose shard is written.
    rows : int
        Rows of the written shards.
    """

    groups: tuple[tuple[int, int], ...]
    done: frozenset[int]
    rows: int

    @classmethod
    def of(cls, man: Mapping[str, Any]) -> Phase2:
        """The record of ``man`` (its groups planned: ``ensure_groups``)."""
        done = man.get("buckets_done", {})
        return cls(groups=_pairs(man["groups"]), done=frozenset(int(p) for p in done),
                   rows=sum(int(v["rows"]) for v in done.values()))

    def pending(self) -> tuple[tuple[int, int], ...]:
        """The groups with a bucket whose shard is not written."""
        return tuple((lo, hi) for lo, hi in self.groups
                     if any(p not in self.done for p in range(lo, hi)))


@dataclass(frozen=True)
class Checks:
    """The certification as recorded: each checked shard's rows, failure and SHA-256.

    Attributes
    ----------
    verdicts : mapping of int to (rows, failed, sha256)
    """

    verdicts: Mapping[int, tuple[int, str | None, str | None]]

    @classmethod
    def of(cls, man: Mapping[str, Any]) -> Checks:
        """The record of ``man``."""
        return cls({int(p): (int(v["rows"]), v.get("failed"), v.get("sha256"))
                    for p, v in (man.get("certified") or {}).items()})


def _telemetry(seconds: float, v: Mapping[str, Any]) -> dict[str, Any]:
    return {"seconds": round(seconds, 6), "cpu": round(v["cpu"], 6),
            "maxrss_mb": round(v["maxrss_kb"] / 1024, 1), **added(dict(v))}


def record_plan(man: dict[str, Any], batches: list[list[int]], waves: list[list[int]]) -> None:
    """Record phase 1's plan (once per run): no wave merged yet, no merged file."""
    man["batches"], man["waves"], man["waves_merged"], man["merged"] = batches, waves, 0, {}


def record_batch(man: dict[str, Any], index: int, v: Mapping[str, Any], seconds: float
                 ) -> None:
    """Record a finished batch task (its units' rows, its file's bytes, its telemetry)."""
    man["units_done"].update(v["units"])
    man["batches_done"][str(index)] = {**_telemetry(seconds, v), "bytes": v["bytes"]}


def record_merge(man: dict[str, Any], wave: int, lo: int, v: Mapping[str, Any],
                 seconds: float) -> None:
    """Record the merge of ``wave`` into the merged file of the group starting at ``lo``."""
    man.setdefault("merged", {})[str(lo)] = wave
    man.setdefault("merges_done", {})[f"{wave}:{lo}"] = {
        **_telemetry(seconds, v), "bytes": v["bytes"], "rows": v["rows"]}


def record_wave_merged(man: dict[str, Any], wave: int) -> None:
    """Record that every group has merged ``wave`` (its batch files may go)."""
    man["waves_merged"] = wave + 1


def record_group(man: dict[str, Any], lo: int, v: Mapping[str, Any], seconds: float) -> None:
    """Record a finished phase-2 task: its buckets' shards and its telemetry."""
    man["buckets_done"].update(v["buckets"])
    man.setdefault("groups_done", {})[str(lo)] = _telemetry(seconds, v)


def record_checks(man: dict[str, Any], verdicts: Mapping[str, Any]) -> None:
    """Record shard checks (rows, failure, SHA-256 of the file checked, telemetry)."""
    man.setdefault("certified", {}).update(verdicts)
