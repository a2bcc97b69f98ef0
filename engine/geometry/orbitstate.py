"""The resume files of a count by flat orbits (:mod:`logitgeom.geometry.flatorbits`).

A count by flat orbits runs rank by rank: the representatives of rank ``r`` are extended
to the orbits of rank ``r + 1`` (a *level*), then those orbits' terms are summed in
chunks.  With a state folder, each finished level is written as one file
(``level-R.json``: the representatives in order, each with its least image, closed set,
restricted normals and orbit size, and the coefficient vector of the ranks below ``R``
with the counters so far), each finished chunk of terms as one file
(``terms-R-C.json``: its partial coefficient vector) and each finished chunk of the
extension of level ``R`` as one file (``extend-R-C.json``: the children it met).  A rerun
after a kill loads the highest level and the chunks of its terms and extension and goes
on from there.  The folder is keyed by
the arrangement, its dimension, the group's generators (as permutations of the
hyperplanes) and the low-rank formula, so another group or arrangement never reuses it.

Files are written whole or not at all (:func:`logitgeom._fsio.write_atomic`), as compact
JSON: a level of resonance ``n = 8`` holds some 20,000 representatives.

Examples
--------
>>> import tempfile
>>> f = folder(tempfile.mkdtemp(), [(1, 0), (0, 1)], 2, [(1, 0)], 2)
>>> f.name.startswith("orbits-")
True
>>> save_terms(f, 3, 0, 2, [0, -1, 0], {"computed": 1})
>>> load_terms(f, 3, 2)
({0: [0, -1, 0]}, {'computed': 1})
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from logitgeom._fsio import write_atomic
from logitgeom.errors import InvalidInput

__all__ = ["key", "folder", "save_level", "load_level", "save_terms", "load_terms",
           "save_extend", "load_extend"]

Vec = tuple[int, ...]
T = TypeVar("T")
#: least image -> (closed set, restricted normals by hyperplane, orbit size)
Level = dict[tuple[int, ...], tuple[tuple[int, ...], dict[int, Vec], int]]


def key(vecs: Sequence[Sequence[int]], dim: int, generators: Sequence[Sequence[int]],
        low: int) -> str:
    """A short hash of everything that fixes a count's files (the arguments of
    :func:`logitgeom.geometry.flatorbits.chi_flat_orbits`)."""
    blob = json.dumps([dim, low, [list(map(int, v)) for v in vecs],
                       [list(map(int, g)) for g in generators]])
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def folder(state_dir: str | os.PathLike, vecs: Sequence[Sequence[int]], dim: int,
           generators: Sequence[Sequence[int]], low: int) -> Path:
    """The state folder of this count (created), keyed by everything that fixes its files.

    Parameters
    ----------
    state_dir : path
        The parent folder (``--state``).
    vecs, dim, generators, low
        As :func:`logitgeom.geometry.flatorbits.chi_flat_orbits` takes them.

    Returns
    -------
    pathlib.Path
    """
    f = Path(state_dir) / f"orbits-{key(vecs, dim, generators, low)}"
    f.mkdir(parents=True, exist_ok=True)
    return f


def _write(path: Path, obj: object) -> None:
    write_atomic(path, json.dumps(obj, separators=(",", ":")) + "\n")


def _read(path: Path, parse: Callable[[Any], T]) -> T:
    """``parse`` of the JSON in ``path``; a file this module did not write is refused with
    a one-line error naming it."""
    try:
        return parse(json.loads(path.read_text()))
    except (OSError, ValueError, KeyError, TypeError, IndexError) as exc:
        raise InvalidInput(f"{path} is not a state file of this count ({exc!s:.80}); remove "
                           "it, or the folder, to start that part again") from None


def save_level(f: Path, rank: int, level: Level, out: Sequence[int], counters: dict) -> None:
    """Write the level of ``rank`` (and the coefficients of the ranks below it), then drop
    the files of lower ranks, which it supersedes.

    Parameters
    ----------
    f : pathlib.Path
        The state folder.
    rank : int
    level : dict
        Least image -> (closed set, restricted normals, orbit size), in order.
    out : sequence of int
        ``chi``'s coefficients summed over the ranks below ``rank``.
    counters : dict
        JSON-ready counters to restore (orbits and flats by rank, searches, ...).
    """
    reps = [[list(k), list(c), [[j, list(v)] for j, v in imgs.items()], n]
            for k, (c, imgs, n) in level.items()]
    _write(f / f"level-{rank}.json", {"rank": rank, "reps": reps, "out": list(out),
                                      "counters": counters})
    for p in f.glob("level-*.json"):
        if int(p.stem.split("-")[1]) < rank:
            p.unlink(missing_ok=True)
    for p in [*f.glob("terms-*.json"), *f.glob("extend-*.json")]:
        if int(p.stem.split("-")[1]) < rank:
            p.unlink(missing_ok=True)


def load_level(f: Path) -> tuple[int, Level, list[int], dict] | None:
    """The highest level kept in ``f`` (rank, level, coefficients below it, counters), or
    ``None``."""
    ranks = [int(p.stem.split("-")[1]) for p in f.glob("level-*.json")]
    if not ranks:
        return None
    def parse(rec: dict) -> tuple[int, Level, list[int], dict]:
        level: Level = {}
        for k, c, imgs, n in rec["reps"]:
            level[tuple(k)] = (tuple(c), {int(j): tuple(v) for j, v in imgs}, int(n))
        counters = rec["counters"]
        if not {"orbits", "flats", "least_images"} <= set(counters):
            raise KeyError("counters")
        return int(rec["rank"]), level, [int(x) for x in rec["out"]], counters

    return _read(f / f"level-{max(ranks)}.json", parse)


def save_terms(f: Path, rank: int, chunk: int, chunks: int, vec: Sequence[int],
               stats: dict) -> None:
    """Write one finished chunk of the terms of ``rank`` (one of ``chunks``)."""
    _write(f / f"terms-{rank}-{chunk}.json", {"rank": rank, "chunk": chunk, "chunks": chunks,
                                              "chi": list(vec), "stats": stats})


def load_terms(f: Path, rank: int, chunks: int) -> tuple[dict[int, list[int]], dict]:
    """The finished chunks of ``rank`` kept in ``f`` (chunk -> partial coefficients), with
    their counters summed; chunks of another split are ignored."""
    done: dict[int, list[int]] = {}
    st: dict = {}
    for p in sorted(f.glob(f"terms-{rank}-*.json")):
        rec = _read(p, lambda r: (r["rank"], r["chunks"], int(r["chunk"]),
                                  [int(x) for x in r["chi"]],
                                  {str(k): int(v) for k, v in r["stats"].items()}))
        if rec[0] != rank or rec[1] != chunks:
            continue
        done[rec[2]] = rec[3]
        for k, v in rec[4].items():
            st[k] = st.get(k, 0) + v
    return done, st


def save_extend(f: Path, rank: int, chunk: int, chunks: int, found: dict,
                searches: int) -> None:
    """Write one finished chunk of the extension of the level of ``rank`` (one of
    ``chunks``): per least image met, the child's closed set, stabiliser order, parent and
    added hyperplane, in order; and the searches it ran."""
    rows = [[list(k), list(c), stab, i, j] for k, (c, stab, i, j) in found.items()]
    _write(f / f"extend-{rank}-{chunk}.json", {"rank": rank, "chunk": chunk,
                                               "chunks": chunks, "found": rows,
                                               "searches": searches})


def load_extend(f: Path, rank: int, chunks: int) -> tuple[dict[int, dict], int]:
    """The finished chunks of the extension of ``rank`` kept in ``f`` (chunk -> children
    in order) and their searches; chunks of another split are ignored."""
    done: dict[int, dict] = {}
    searches = 0
    for p in sorted(f.glob(f"extend-{rank}-*.json")):
        rec = _read(p, lambda r: (r["rank"], r["chunks"], int(r["chunk"]),
                                  {tuple(k): (tuple(c), int(stab), int(i), int(j))
                                   for k, c, stab, i, j in r["found"]},
                                  int(r["searches"])))
        if rec[0] != rank or rec[1] != chunks:
            continue
        done[rec[2]] = rec[3]
        searches += rec[4]
    return done, searches
