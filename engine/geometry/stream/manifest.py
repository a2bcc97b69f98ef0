"""The manifest of a result directory: format, version, and the run's state as it goes.

``DIR/manifest.json`` holds the input and its hash, the exact count, the unit plan, the
finished batches, merges, shards and shard checks (with their CPU and memory), and the
completeness verdict; :class:`Recorder` rewrites it atomically as tasks finish (through
:mod:`logitgeom.run.state`, which also holds the kill hook of the resume tests).

Examples
--------
>>> added({"maxrss_kb": 4096, "rss0_kb": 1024})
{'added_mb': 3.0}
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from logitgeom.errors import InvalidInput
from logitgeom.run.state import kill_armed, kill_hook, write_json

__all__ = ["FORMAT", "VERSION", "MANIFEST", "MANIFEST_INTERVAL", "Manifest", "check_version",
           "steps", "work_bytes", "Recorder", "added", "step_summary"]

FORMAT = "logitgeom-regions"
#: 2: ranking pair rows in the checker's order (``difference_pairs``); version 1 listed them
#: by j then i, so of version 1 only sign directories are still read (and resumed)
VERSION = 2
#: the manifest is rewritten at most this often while units finish (and at the end)
MANIFEST_INTERVAL = 0.5
MANIFEST = "manifest.json"


def check_version(root: Path, man: dict[str, Any]) -> None:
    """Refuse a directory of a format version this engine does not read.

    Parameters
    ----------
    root : pathlib.Path
        The result directory (named in the message).
    man : dict
        Its manifest.

    Returns
    -------
    None

    Raises
    ------
    InvalidInput
        The version is neither the current one nor a version-1 sign result.
    """
    v = man.get("version")
    if v != VERSION and not (v == 1 and man.get("kind") == "sign"):
        raise InvalidInput(f"{root}: {FORMAT} version {v!r} of a {man.get('kind')} result is "
                           f"not supported (this engine reads version {VERSION}, and version 1 "
                           "sign results); remove the directory and enumerate again")


@dataclass(frozen=True)
class Manifest:
    """The fixed part of a manifest, typed and validated: what a reader relies on.

    The run's progress (finished batches, shards, checks, telemetry) stays in the manifest's
    dictionary, which the run rewrites as it goes; this is read once, when a directory is
    opened, so a damaged or foreign ``manifest.json`` is one clear error.

    Examples
    --------
    >>> Manifest.from_json([], Path("d"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    logitgeom.errors.InvalidInput: d: manifest.json is not a logitgeom-regions manifest ...
    """

    kind: str
    k: int
    d: int
    affine: bool
    exact_count: int
    buckets: int
    D: int
    cols: tuple[int, ...]
    where: tuple[tuple[int, int], ...]
    hyperplanes: tuple[tuple[int, ...], ...]
    input: dict[str, Any]
    input_sha256: str

    @classmethod
    def from_json(cls, doc: object, root: Path) -> Manifest:
        """Validate a parsed ``manifest.json``.

        Parameters
        ----------
        doc : object
            The parsed JSON.
        root : pathlib.Path
            The directory (named in messages).

        Returns
        -------
        Manifest

        Raises
        ------
        InvalidInput
            Not a manifest of this format, an unsupported version, or a field missing or
            of the wrong type.
        """
        if not isinstance(doc, dict):
            raise InvalidInput(f"{root}: {MANIFEST} is not a {FORMAT} manifest (a JSON object "
                               "is expected)")
        if doc.get("format") != FORMAT:
            raise InvalidInput(f"{root}: not a {FORMAT} directory")
        check_version(root, doc)
        try:
            arr = doc["arrangement"]
            out = cls(kind=str(doc["kind"]), k=_int(doc["k"]), d=_int(doc["d"]),
                      affine=bool(doc["affine"]), exact_count=_int(doc["exact_count"]),
                      buckets=_int(doc["buckets"]), D=_int(arr["D"]),
                      cols=tuple(_int(c) for c in arr["cols"]),
                      where=tuple((_int(c), _int(o)) for c, o in arr["where"]),
                      hyperplanes=tuple(tuple(_int(v) for v in h) for h in arr["hyperplanes"]),
                      input=dict(doc["input"]), input_sha256=str(doc["input_sha256"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidInput(f"{root}: {MANIFEST} is damaged ({type(exc).__name__}: {exc}); "
                               "remove the directory and enumerate again") from None
        if out.kind not in ("sign", "ranking") or out.buckets < 1:
            raise InvalidInput(f"{root}: {MANIFEST} is damaged (kind {out.kind!r}, "
                               f"{out.buckets} buckets)")
        return out


def _int(v: object) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(f"{v!r} is not an integer")
    return v


def steps(man: dict) -> dict:
    """The manifest's per-step telemetry (``steps``), created if missing."""
    return man.setdefault("steps", {})


def work_bytes(work: Path) -> int:
    """The bytes of the files in ``work`` (files removed meanwhile count 0)."""
    tot = 0
    with os.scandir(work) as it:
        for e in it:
            try:
                tot += e.stat().st_size
            except OSError:  # removed meanwhile
                pass
    return tot


class Recorder:
    """Manifest writes (at most every MANIFEST_INTERVAL, always with the kill hook set),
    files removed only once a manifest write no longer needs them, and the peak bytes of
    ``work/`` seen at these points."""

    def __init__(self, root: Path, man: dict) -> None:
        self.root, self.man = root, man
        self.last = time.monotonic()
        self.pending: list[Path] = []

    def disk(self) -> None:
        work = self.root / "work"
        if work.exists():
            d = steps(self.man).setdefault("disk", {"work_peak_bytes": 0})
            d["work_peak_bytes"] = max(d["work_peak_bytes"], work_bytes(work))

    def tick(self, step: str, ndone: int, force: bool = False) -> None:
        if force or time.monotonic() - self.last > MANIFEST_INTERVAL or kill_armed():
            self.disk()
            write_json(self.root / MANIFEST, self.man)
            for f in self.pending:  # no longer named by the manifest just written
                f.unlink(missing_ok=True)
            self.pending = []
            self.last = time.monotonic()
            kill_hook(step, ndone)


def added(v: dict) -> dict:
    """What a task added to its process's memory, MB (its peak less its start)."""
    return {"added_mb": round(max(0, v["maxrss_kb"] - v.get("rss0_kb", 0)) / 1024, 1)}


def step_summary(done: dict, wall: float) -> dict:
    """A step's telemetry from its finished tasks: count, CPU, bytes, peak memory."""
    return {"tasks": len(done), "cpu_tasks": round(sum(v["cpu"] for v in done.values()), 3),
            "wall_last_session": round(wall, 3),
            "bytes": sum(v.get("bytes", 0) for v in done.values()),
            "max_task_rss_mb": max((v.get("maxrss_mb", 0) for v in done.values()), default=0),
            "max_task_added_mb": max((v.get("added_mb", 0) for v in done.values()),
                                     default=0)}

