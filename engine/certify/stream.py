"""The ``pattern-complete-stream`` certificate of a streamed enumeration.

The rows of a result directory (written by :func:`logitgeom.geometry.enumerate_to_dir`) are
re-written as gzip'd JSON-lines shards (``StoredResult.write_twins``) that the stdlib
checker verifies one line at a time; the certificate references them by SHA-256 and path
relative to the certificate's folder, and inlines the intersection lattice for the exact
Zaslavsky count (certificates/SPEC.md section 10).  The builder takes the opened result, so
this module imports nothing above the exact kernel.

Examples
--------
>>> import os, tempfile
>>> from logitgeom.geometry import enumerate_to_dir
>>> d = tempfile.mkdtemp()
>>> r = enumerate_to_dir([[1, 0], [0, 1]], d, progress=False)
>>> c = stream_certificate(r, os.path.join(d, "cert.json"))
>>> c["kind"], sum(s["rows"] for s in c["shards"]), c["shards"][0]["file"][:5]
('pattern-complete-stream', 4, 'twin/')
"""

from __future__ import annotations

import os
from typing import Any, Protocol

from logitgeom.certify.common import SELF_CHECK, SelfCheck, header
from logitgeom.certify.geometry import exact_model, lattice, model_fields
from logitgeom.errors import InvalidInput
from logitgeom_certificates import api as sm

__all__ = ["StreamedRows", "ChangedShards", "self_check", "stream_certificate"]


class StreamedRows(Protocol):
    """What the builder needs of a result directory (:class:`logitgeom.geometry.StoredResult`)."""

    root: Any
    manifest: dict[str, Any]

    def write_twins(self, folder: str | os.PathLike,
                    buckets: int | None = None) -> list[dict[str, Any]]: ...

    def recheck_changed(self, executor: Any = None) -> dict[str, Any]: ...


class ChangedShards(InvalidInput):
    """A result directory's shard changed after the run checked it, and fails its check."""


def stream_certificate(result: StreamedRows, out: str | os.PathLike, *,
                       twin: str | os.PathLike | None = None, buckets: int | None = None,
                       statement: str | None = None,
                       provenance: dict | None = None,
                       report: dict | None = None) -> dict[str, Any]:
    """A ``pattern-complete-stream`` certificate for an opened result directory.

    Parameters
    ----------
    result : StoredResult
        The opened directory (:func:`logitgeom.geometry.open_result`).
    out : path
        Where the certificate will be written (shard paths are made relative to its folder).
    twin : path, optional
        Folder of the twin shards (default ``<directory>/twin``).
    buckets : int, optional
        Number of twin shards (default: the directory's number of Parquet shards).
    statement : str, optional
        The certificate's statement (default: the kind's theorem).
    provenance : dict, optional
        Recorded as is.
    report : dict, optional
        Receives ``witness_bits``: the bit length of the largest stored witness number
        (:func:`self_check` bounds the work of a full check with it), and ``rechecked``:
        the shards changed since the run checked them, checked again here.

    Returns
    -------
    dict

    Raises
    ------
    InvalidInput
        The run is incomplete, a shard is unreadable, a shard changed since the run
        checked it fails its check again, ``buckets`` is below 1, or the stored input is
        not a valid head.
    """
    if not result.manifest.get("complete"):
        raise InvalidInput(f"{result.root} is an incomplete run (not certified complete; a run "
                           "killed or left by a full disk?); finish it first: run the same "
                           "`logitgeom patterns ... -o DIR` again, which resumes it")
    # the run's per-shard verdicts hold for the files it hashed: a shard changed since is
    # checked again, never trusted
    again = result.recheck_changed()
    if not again["ok"]:
        raise ChangedShards(f"{result.root} does not certify ({again['failed']}): its shards "
                           "were changed after the run; run the same `logitgeom patterns ... "
                           "--out DIR` with --restart")
    if report is not None:
        report["rechecked"] = again["rechecked"]
    doc = result.manifest["input"]
    Wq, b, bz = exact_model(doc["W"], doc["bias"])
    ptype = doc["kind"]
    if twin is None:
        from logitgeom._fsio import check_inside

        twin = check_inside(result.root, os.path.join(os.fspath(result.root), "twin"),
                            "result folder")
    twin = os.fspath(twin)
    shards = result.write_twins(twin, buckets)
    if report is not None:
        report["witness_bits"] = max((s.get("witness_bits", 0) for s in shards), default=0)
    base = os.path.dirname(os.path.abspath(os.fspath(out)))
    cert = header("pattern-complete-stream", statement, provenance)
    cert.update(model_fields(Wq, b))
    cert["pattern"] = ptype
    cert["lattice"] = lattice(sm.arrangement(Wq, bz, ptype))
    cert["buckets"] = len(shards)
    cert["shards"] = [{"file": os.path.relpath(s["file"], base).replace(os.sep, "/"),
                       "sha256": s["sha256"], "rows": s["rows"]} for s in shards]
    return cert


def self_check(path: str | os.PathLike, cert: dict[str, Any], witness_bits: int,
               policy: SelfCheck = SELF_CHECK, report: dict[str, Any] | None = None
               ) -> tuple[Any, int]:
    """The stdlib checker on a streamed certificate just written, and the work its full
    check takes at most.

    What is re-checked is the one self-check policy (:data:`logitgeom.certify.common.SELF_CHECK`):
    the full check when the lines' witness work is small, else the one
    ``logitgeom check --sample N`` runs: the lattice in full, every shard line's form,
    order, shard and file hash, and the witnesses of N lines drawn at random (seed 0).  The
    rows come from a complete run, whose certification step checked every witness exactly
    when it was written; ``logitgeom check`` re-checks them all, independently.  The bound:
    the metered work of this check plus, for each line whose witness it did not check, what
    the checker charges for one (its numbers are at most ``witness_bits`` long: the
    witness's integers over their common denominator are at most the stored homogeneous
    ones).  ``report`` receives ``sample``: the witnesses re-checked (None: all).

    Parameters
    ----------
    path : path
        The certificate file.
    cert : dict
        Its content (as written).
    witness_bits : int
        Bit length of the largest stored witness number (``report`` of
        :func:`stream_certificate`).
    policy : SelfCheck
        The self-check policy (the one of every batch kind by default).
    report : dict, optional
        Receives ``sample``.

    Returns
    -------
    (Verdict, int)
        The verdict of the sampled check and the bound on a full check's work units.

    Examples
    --------
    >>> import os, tempfile
    >>> from logitgeom.geometry import enumerate_to_dir
    >>> d = tempfile.mkdtemp()
    >>> r = enumerate_to_dir([[1, 0], [0, 1]], d, progress=False)
    >>> info = {}
    >>> c = stream_certificate(r, os.path.join(d, "c.json"), report=info)
    >>> with open(os.path.join(d, "c.json"), "w") as f:
    ...     _ = f.write(__import__("json").dumps(c))
    >>> v, work = self_check(os.path.join(d, "c.json"), c, info["witness_bits"])
    >>> v.ok, work >= v.work
    (True, True)
    """
    W, b = sm.read_model(cert, "")
    Wi, bi = sm.integer_model(W, b)
    row_bits = max((abs(v).bit_length() for r in (*Wi, bi) for v in r), default=0)
    per = sm.line_units(len(Wi), len(Wi[0]), max(witness_bits, row_bits))
    rows = sum(s["rows"] for s in cert["shards"])
    sample = policy.witnesses(rows, per)
    if report is not None:
        report["sample"] = sample
    verdict, _ = sm.read_and_check(os.fspath(path), 1 << 62, sample=sample, seed=0)
    unchecked = 0 if sample is None else rows - sample
    return verdict, (verdict.work or 0) + unchecked * per
