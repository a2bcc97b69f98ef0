"""Run state on disk: JSON written atomically, and the kill hook of the resume tests.

A long run (a streamed enumeration, an argmax audit) records what it has finished in a
JSON file rewritten atomically (:func:`write_json`); a run killed at any point restarts
from it.  :func:`kill_hook` lets the tests kill a run at a deterministic point.

Examples
--------
>>> import json, os, tempfile
>>> p = os.path.join(tempfile.mkdtemp(), "run.json")
>>> write_json(p, {"b": 1, "a": [2]})
>>> json.loads(open(p).read())
{'a': [2], 'b': 1}
>>> kill_hook("phase1", 3)  # no LOGITGEOM_STORE_KILL: nothing happens
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from logitgeom._fsio import write_atomic

__all__ = ["write_json", "KILL_ENV", "kill_armed", "kill_hook"]

#: ``step:n:signal``: send ``signal`` to this process once ``n`` tasks of ``step`` are recorded
KILL_ENV = "LOGITGEOM_STORE_KILL"


def write_json(path: str | os.PathLike, obj: Any) -> None:
    """Write ``obj`` as indented, key-sorted JSON, atomically
    (:func:`logitgeom._fsio.write_atomic`).

    Parameters
    ----------
    path : path
        The file (replaced whole, never left half-written).
    obj : JSON-serialisable object

    Returns
    -------
    None
    """
    write_atomic(Path(path), json.dumps(obj, indent=1, sort_keys=True) + "\n")


def kill_armed() -> bool:
    """Whether a test has set the kill hook (then every state write is immediate).

    Returns
    -------
    bool
    """
    return KILL_ENV in os.environ


def kill_hook(step: str, ndone: int) -> None:
    """Tests of the resume protocol: ``LOGITGEOM_STORE_KILL=step:n:signal``.

    Sends the signal to this process once ``n`` tasks of ``step`` (phase1, phase2, certify)
    are recorded, at a deterministic point instead of after a timed wait.

    Parameters
    ----------
    step : str
        The step whose tasks were just recorded.
    ndone : int
        How many of its tasks are recorded.

    Returns
    -------
    None
    """
    spec = os.environ.get(KILL_ENV)
    if spec:
        s, n, sig = spec.split(":")
        if s == step and ndone >= int(n):
            os.kill(os.getpid(), int(sig))
            time.sleep(5)  # the signal arrives (SIGINT raises KeyboardInterrupt here)
