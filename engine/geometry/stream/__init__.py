"""Enumeration past one machine: compact, streamed, resumable and distributed region sets.

:func:`enumerate_to_dir` enumerates the sign patterns (or rankings) of a head into a
directory instead of memory; :func:`open_result` opens such a directory lazily.  The
directory (format ``logitgeom-regions``, version 2; see docs/enumeration-at-scale.md)::

    DIR/manifest.json          input, its hash, the exact Zaslavsky count, the unit plan,
                               finished units and shards (with durations), rows written,
                               the completeness verdict
    DIR/shards/part-00007.parquet
                               one shard per hash bucket: columns ``signs`` (the sign
                               vector on the distinct hyperplanes, bit-packed into uint64
                               words) and ``witness`` (an exact integer point), sorted by
                               ``signs``
    DIR/work/b000012.bin       phase-1 output of one batch of consecutive work units,
                               partitioned by bucket and compressed (removed once merged,
                               or at the end)
    DIR/work/m000040-0003.bin  the distinct rows of the waves merged so far, for the
                               bucket group starting at bucket 40 (same layout)

How a run goes (every step exact, every step a set of independent tasks on the executor):

1. The exact Zaslavsky count, split into independent subtrees of its search
   (:func:`logitgeom.geometry.counting.count_tasks`).  The arrangement is reduced to
   distinct hyperplanes (:func:`logitgeom.geometry.search.reduce_rows`) and split into work
   units, paths into the deletion-restriction recursion
   (:func:`logitgeom.geometry.search.plan_units`); consecutive units are grouped into
   batches (the tasks of phase 1).
2. Phase 1, one task per batch (any executor: serial, process pool, Dask): each unit's
   exact points and sign vectors, de-duplicated within the unit, witnesses shrunk, sign
   vectors packed into uint64 words; the batch keeps the first occurrence of each sign
   vector, partitions the rows by a hash of the words into ``buckets`` and writes one
   compressed file whose header gives each bucket's byte range (atomic rename).  The
   batches run in waves (consecutive batch ranges); after each wave but the last, one
   task per bucket group merges the wave's files into the group's merged file (first
   occurrence in unit order) and the wave's files are deleted: the phase-1 files on disk
   stay near the distinct rows found so far plus one wave.
3. Phase 2, one task per group of consecutive buckets: reads only its byte range of the
   merged file and of each batch file of the last wave, keeps the first occurrence (in
   unit order) of each sign vector, sorts, and
   writes one Parquet shard per bucket (atomic rename).  A sign vector lives in exactly
   one bucket, so shards are disjoint and no task holds more than its group in memory.
4. Certification, one task per group of shards (:meth:`StoredResult.certify`): every
   witness reproduces its sign vector exactly, sign vectors are strictly increasing within
   a shard and hash to the shard's bucket (so all rows are distinct); combined at the end:
   the number of rows equals the exact Zaslavsky count, so the set is complete.

A run killed at any point restarts from the batches, shards and shard checks the manifest
records as finished (``resume=True``); half-written files never have their final names.

The modules, one job each: :mod:`~logitgeom.geometry.stream.codec` (keys, the phase-1 frame
codec, the Parquet shards), :mod:`~logitgeom.geometry.stream.plan` (the input, its count, the
units, batches, waves and groups; the tunables), :mod:`~logitgeom.geometry.stream.manifest`
(the manifest and its recorder), :mod:`~logitgeom.geometry.stream.phases` (the tasks of phases
1 and 2), :mod:`~logitgeom.geometry.stream.check` (the streamed certification),
:mod:`~logitgeom.geometry.stream.result` (reading a directory) and
:mod:`~logitgeom.geometry.stream.driver` (:func:`enumerate_to_dir`).  Process concerns (one
BLAS thread, a task's memory, the run state and the kill hook) live in :mod:`logitgeom.run`;
the ``pattern-complete-stream`` certificate is built by :mod:`logitgeom.certify.stream`.

Examples
--------
>>> import tempfile
>>> d = tempfile.mkdtemp()
>>> r = enumerate_to_dir([[1, 0], [0, 1], [1, 1]], d, progress=False)
>>> r.count, r.exact_count, r.completeness
(6, 6, 'zaslavsky')
>>> sorted(p for p, _ in r)[0]
(-1, -1, -1)
>>> r.lookup((1, -1, 1))
(Fraction(2, 1), Fraction(-1, 1))
"""

from logitgeom.geometry.stream.codec import bucket_of
from logitgeom.geometry.stream.driver import enumerate_to_dir
from logitgeom.geometry.stream.manifest import FORMAT, VERSION
from logitgeom.geometry.stream.plan import DEFAULT_SHARD_ROWS, default_units
from logitgeom.geometry.stream.result import StoredResult, open_result

__all__ = ["enumerate_to_dir", "open_result", "StoredResult", "FORMAT", "VERSION",
           "DEFAULT_SHARD_ROWS", "default_units", "bucket_of"]
