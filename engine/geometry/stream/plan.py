"""The plan of a streamed run: the input, its exact count, the units, batches, waves, groups.

Every choice here that the output depends on (the unit plan, the number of buckets, float
or exact proposals) is a function of the input only; the grouping of units into batch
tasks and of buckets into group tasks may depend on the executor (the rows are merged in
unit order either way).  The tunables are module attributes read at run time.

Examples
--------
>>> plan_groups(8, 3_000_000, 1)
[[0, 3], [3, 5], [5, 8]]
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from logitgeom.errors import InvalidInput
from logitgeom.exact.lattice import count_rankings_exact
from logitgeom.exact.numbers import matrix_to_str, to_matrix, to_vector, vector_to_str
from logitgeom.geometry import search
from logitgeom.geometry.counting import count_regions_parallel
from logitgeom.geometry.patterns import arrangement_rows

__all__ = ["DEFAULT_SHARD_ROWS", "REGIONS_PER_UNIT", "MAX_DEFAULT_UNITS", "BATCH_ROWS",
           "UNITS_PER_BATCH", "FLUSH_ROWS", "GROUP_ROWS", "WAVE_REGIONS", "STREAM_EXACT_BITS",
           "default_units", "stream_exact", "input_doc", "input_hash", "Setup", "setup",
           "counted", "unit_bounds", "plan_batches", "plan_waves", "plan_groups"]

#: target rows per shard (and so per bucket): the memory a phase-2 task needs
DEFAULT_SHARD_ROWS = 250_000
#: expected regions per work unit when the caller gives no unit count
REGIONS_PER_UNIT = 20_000
#: at most this many units by default
MAX_DEFAULT_UNITS = 4096


def default_units(expected: int) -> int:
    """Target number of work units for an enumeration of ``expected`` regions.

    A function of the input only (never of the executor), so the witnesses, which depend
    on the unit plan, are the same for every executor.

    Examples
    --------
    >>> default_units(1_000), default_units(3_628_800)
    (1, 181)
    """
    return max(1, min(MAX_DEFAULT_UNITS, expected // REGIONS_PER_UNIT))


#: the exact twin proposes the points of a streamed run when (bits of the largest entry) x
#: (dimension) is at most this; otherwise float proposals (every sign still exact)
STREAM_EXACT_BITS = 16


def stream_exact(Hc: tuple) -> bool:
    """Whether phase 1 proposes points with the exact twin (speed only: every sign vector
    and every witness is exact either way, and a float run that misses a region is redone
    exactly).  The exact twin's points grow with the depth of the recursion: on the random
    56 x 7 head with entries in [-9, 9] (4 bits x 7 = 28) they exceed int64 inside the
    units and the exact twin took 5 to 8 times the CPU and 4 times the memory of float
    proposals on sampled units (docs/enumeration-at-scale.md), so the threshold is
    stricter than :func:`search.prefer_exact`'s (30, for the in-memory path, whose units
    are whole chunks).

    Examples
    --------
    >>> stream_exact(((1, 0, 1), (0, 1, 1))), stream_exact(((9, -4, 7, 1, 2, 3, 5),))
    (True, False)
    """
    if not Hc:
        return True
    bits = max(abs(v).bit_length() for r in Hc for v in r)
    return bits * len(Hc[0]) <= STREAM_EXACT_BITS


# ----------------------------------------------------------------------------- inputs


def input_doc(kind: str, Wm: tuple, b: tuple | None) -> dict[str, Any]:
    """The input as the manifest stores it (exact decimal strings)."""
    return {"kind": kind, "W": matrix_to_str(Wm),
            "bias": None if b is None else vector_to_str(b)}


def input_hash(doc: dict[str, Any]) -> str:
    """The SHA-256 of an :func:`input_doc` (canonical JSON)."""
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


@dataclass(frozen=True)
class Setup:
    """A validated input: exact W and bias, the reduced arrangement, the exact count."""

    kind: str
    Wm: tuple
    b: tuple | None
    red: search.Reduced
    expected: int | None
    keep: tuple[int, int] | None


def setup(kind: str, W: object, bias: object, executor: Any = None,
          count: bool = True) -> Setup:
    """Validate the input and reduce its arrangement; with ``count``, count it exactly."""
    if kind not in ("sign", "ranking"):
        raise InvalidInput(f"kind must be 'sign' or 'ranking'; got {kind!r}")
    Wm = to_matrix(W, what="W")
    b = None if bias is None else to_vector(bias, what="bias", length=len(Wm))
    rows = arrangement_rows(kind, Wm, b)
    red = search.reduce_rows(rows)
    keep = red.where[-1] if b is not None else None
    st = Setup(kind, Wm, b, red, None, keep)
    return counted(st, executor) if count else st


def counted(st: Setup, executor: Any, stats: dict | None = None) -> Setup:
    """The exact Zaslavsky count: sign patterns as parallel tasks on the executor (the
    search splits into independent subtrees), rankings by the ranking formula (cheap)."""
    from dataclasses import replace

    if st.kind == "sign":
        n = count_regions_parallel(st.Wm, bias=st.b, executor=executor, stats=stats)
    else:
        n = count_rankings_exact(st.Wm, st.b)
    return replace(st, expected=n)


BATCH_ROWS = 1_000_000
#: at most this many units per batch task (so a killed run loses little)
UNITS_PER_BATCH = 32
#: rows a phase-1 task buffers uncompressed before compressing them (memory bound)
FLUSH_ROWS = 500_000
#: phase-1 rows read by one merge or phase-2 task (memory bound: about 150 to 290 bytes per
#: row at the peak: predict2 measured 734 MB for 2 million rows of resonance-7)
GROUP_ROWS = 1_000_000
#: expected regions per wave of phase 1: the phase-1 files of a wave are merged into the
#: merged files (distinct rows only) and deleted before the next wave starts
WAVE_REGIONS = 40_000_000


def unit_bounds(Hc: tuple, plan: list) -> np.ndarray:
    """The generic bound of every unit (ranks units by size)."""
    return np.array([search.unit_estimate(Hc, tuple(p)) if p else 1 for p in plan],
                    dtype=float)


def plan_batches(est: np.ndarray, expected_rows: int, workers: int) -> list[list[int]]:
    """Consecutive ranges of units, balanced by the units' generic bounds ``est``.

    Only the grouping of units into tasks: the output does not depend on it (rows are
    merged in unit order), so it may depend on the executor."""
    n = len(est)
    nb = max(4 * workers, -(-2 * expected_rows // BATCH_ROWS), -(-n // UNITS_PER_BATCH))
    nb = max(1, min(n, nb))
    cum = np.concatenate([[0.0], np.cumsum(est)])
    cuts = np.searchsorted(cum, cum[-1] * np.arange(1, nb) / nb, side="left")
    bounds = sorted({0, n, *[int(min(max(c, 1), n - 1)) for c in cuts]})
    return [[lo, hi] for lo, hi in zip(bounds[:-1], bounds[1:], strict=True) if hi > lo]


def plan_waves(nbatches: int, expected: int) -> list[list[int]]:
    """Consecutive ranges of batches (in unit order) of about :data:`WAVE_REGIONS`
    expected regions each, the last one halved: after each wave but the last, its phase-1
    files are merged into the merged files of the earlier waves and deleted (bounded
    disk); the last wave's files stay until the shards are written, beside them.

    Examples
    --------
    >>> plan_waves(10, 1), plan_waves(12, 3 * WAVE_REGIONS)
    ([[0, 10]], [[0, 4], [4, 8], [8, 10], [10, 12]])
    """
    nw = max(1, min(nbatches, -(-expected // WAVE_REGIONS)))
    cuts = [nbatches * i / nw for i in range(nw + 1)]
    if nw > 1:  # the last wave in two halves: its files stay until phase 2 has finished
        cuts.insert(nw, (cuts[nw - 1] + cuts[nw]) / 2)
    bounds = sorted({round(c) for c in cuts})
    return [[lo, hi] for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)]


def plan_groups(buckets: int, rows: int, workers: int) -> list[list[int]]:
    """Consecutive bucket ranges of about GROUP_ROWS phase-1 rows each (hash buckets are
    balanced), at least two per worker when there are enough buckets."""
    ng = max(1, min(buckets, max(-(-rows // GROUP_ROWS), 2 * workers)))
    bounds = sorted({round(buckets * i / ng) for i in range(ng + 1)})
    return [[lo, hi] for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)]

