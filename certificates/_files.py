"""Reading a certificate file for the public API and the command line (presentation).

Not trusted and not counted: it hands the path to the trusted
:func:`logitgeom_certificates.check.read_and_check` and returns its verdict, except that a
*rejected* file which turns out to be a result directory's manifest (``logitgeom-regions``)
gets a pointer to the certificate it can be turned into (a rejection stays a rejection:
nothing here can make a file valid).

Examples
--------
>>> from logitgeom_certificates.check import Verdict
>>> pointer(Verdict(False, None, "number", "/", "float"), b'{"format": "logitgeom-regions"}'
...         ).failed_check
'unsupported-format'
"""

from __future__ import annotations

import os
from typing import Any

from .check import read_and_check as _trusted
from .kernel import Verdict

__all__ = ["check_file", "read_and_check", "pointer"]

#: the ``format`` of a result directory's manifest (logitgeom.geometry.store)
REGIONS_FORMAT = b'"logitgeom-regions"'


def pointer(v: Verdict, head: bytes) -> Verdict:
    """``v``, or for a rejected manifest of a result directory, a refusal that says which
    command writes its certificate."""
    if v.ok or REGIONS_FORMAT not in head:
        return v
    return Verdict(False, v.kind, "unsupported-format", "/", "this is the manifest of a result "
                   "directory (patterns --out DIR), not a certificate; write its certificate "
                   "with 'logitgeom certify pattern --from DIR -o CERT' and check CERT")


def read_and_check(path: Any, max_work: int | str | None = "default", sample: int | None = None,
                   seed: int = 0, tally: dict[str, Any] | None = None) -> tuple[Verdict, Any]:
    """:func:`logitgeom_certificates.check.read_and_check`, with a manifest named as such."""
    v, obj = _trusted(os.fspath(path), max_work, sample, seed, tally)
    if not v.ok and v.failed_check in ("number", "unsupported-format") and os.path.isfile(path):
        try:
            with open(os.fspath(path), "rb") as fh:
                v = pointer(v, fh.read(4096))
        except OSError:
            pass
    return v, obj


def check_file(path: Any, max_work: int | str | None = "default") -> Verdict:
    """Read and check one certificate file (:func:`read_and_check`'s verdict)."""
    return read_and_check(path, max_work)[0]
