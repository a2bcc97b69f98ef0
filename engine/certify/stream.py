"""The ``pattern-complete-stream`` certificate of a streamed enumeration.

The rows of a result directory (written by :func:`engine.geometry.enumerate_to_dir`) are
re-written as gzip'd JSON-lines shards (``StoredResult.write_twins``) that the stdlib
checker verifies one line at a time; the certificate references them by SHA-256 and path
relative to the certificate's folder, and inlines the intersection lattice for the exact
Zaslavsky count (certificates/SPEC.md section 10).  The builder takes the opened result, so
this module imports nothing above the exact kernel.

Examples
--------
>>> import os, tempfile
>>> from engine.geometry import enumerate_to_dir
>>> d = tempfile.mkdtemp()
>>> r = enumerate_to_dir([[1, 0], [0, 1]], d, progress=False)
>>> c = stream_certificate(r, os.path.join(d, "cert.json"))
>>> c["kind"], sum(s["rows"] for s in c["shards"]), c["shards"][0]["file"][:5]
('pattern-complete-stream', 4, 'twin/')
"""

from __future__ import annotations

import os
from typing import Any, Protocol

from certificates import api as sm
from engine.certify.common import header
from engine.certify.geometry import exact_model, lattice, model_fields

__all__ = ["StreamedRows", "stream_certificate"]


class StreamedRows(Protocol):
    """What the builder needs of a result directory (:class:`engine.geometry.StoredResult`)."""

    root: Any
    manifest: dict[str, Any]

    def write_twins(self, folder: str | os.PathLike,
                    buckets: int | None = None) -> list[dict[str, Any]]: ...


def stream_certificate(result: StreamedRows, out: str | os.PathLike, *,
                       twin: str | os.PathLike | None = None, buckets: int | None = None,
                       statement: str | None = None,
                       provenance: dict | None = None) -> dict[str, Any]:
    """A ``pattern-complete-stream`` certificate for an opened result directory.

    Parameters
    ----------
    result : StoredResult
        The opened directory (:func:`engine.geometry.open_result`).
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

    Returns
    -------
    dict

    Raises
    ------
    InvalidInput
        ``buckets`` is below 1, or the stored input is not a valid head.
    """
    doc = result.manifest["input"]
    Wq, b, bz = exact_model(doc["W"], doc["bias"])
    ptype = doc["kind"]
    twin = os.path.join(os.fspath(result.root), "twin") if twin is None else os.fspath(twin)
    shards = result.write_twins(twin, buckets)
    base = os.path.dirname(os.path.abspath(os.fspath(out)))
    cert = header("pattern-complete-stream", statement, provenance)
    cert.update(model_fields(Wq, b))
    cert["pattern"] = ptype
    cert["lattice"] = lattice(sm.arrangement(Wq, bz, ptype))
    cert["buckets"] = len(shards)
    cert["shards"] = [{"file": os.path.relpath(s["file"], base).replace(os.sep, "/"),
                       "sha256": s["sha256"], "rows": s["rows"]} for s in shards]
    return cert
