"""What certificates that reference other files add to the base (standard library only).

Audits and streamed results keep their proofs in files beside the certificate (shards, a
head's ``.npy``), and are checked in part on request; no other kind uses this module:

* :func:`resolve` - a referenced file's path, relative names against the certificate's
  folder (:data:`.kernel.FILE_BASE`), a shard's name kept inside it; :func:`referenced`
  the bytes of a file referenced as ``{"file", "sha256"}``, with the SHA-256 stated
  (:func:`same_sha256`: the one file-hash judgement, also of bytes hashed as read);
* :func:`grant` and :func:`left` - the default budget raised by work linear in data the
  user chose to check (the rows of a streamed certificate), and what is left of it.

Which proofs are re-checked (``--labels``, ``--sample``) is the context variable
:data:`.kernel.SCOPE`, which :func:`.kernel.read_and_check` sets.

Examples
--------
>>> from logitgeom_certificates.meter import budget
>>> with budget("default"):
...     grant(5)
...     left() > 20_000_000
True
"""

from __future__ import annotations

import hashlib
import os

from .kernel import FILE_BASE, SCOPE, charge, fail, fail_if, get, only, read_file
from .meter import BUDGET


def resolve(name: object, loc: str, inside: bool = False) -> str:
    """A referenced file's path (relative names against :data:`FILE_BASE`).  ``inside``
    (shards): the name is relative, has no ``..`` and its real path stays in the folder."""
    if not isinstance(name, str) or not name or "\x00" in name:
        fail("schema", loc, "expected a file name")
    base = FILE_BASE.get() or os.getcwd()
    if inside:
        parts = name.replace("\\", "/").split("/")
        fail_if(os.path.isabs(name) or ".." in parts, "file", loc, f"{name[:80]!r}: a shard "
                "is named by a path inside the certificate's folder (relative, without '..')")
        real, top = os.path.realpath(os.path.join(base, name)), os.path.realpath(base)
        fail_if(os.path.commonpath([real, top]) != top, "file", loc,
                f"{name[:80]!r} is a symlink leaving the certificate's folder")
    return name if os.path.isabs(name) else os.path.join(base, name)


def referenced(ref: object, loc: str, what: str, inside: bool = False) -> bytes:
    """The bytes of a file referenced as ``{"file", "sha256"}`` (its name by :func:`resolve`;
    a regular file, bounded), whose SHA-256 must be the stated one; charged as they are read
    (the numbers in them are charged when parsed)."""
    only(ref, {"file", "sha256"}, loc, what)
    path, sha256 = resolve(get(ref, "file", loc), f"{loc}/file", inside), get(ref, "sha256", loc)
    data = read_file(path, loc)
    same_sha256(hashlib.sha256(data), sha256, path, loc)
    charge(len(data) // 8)
    return data


def same_sha256(h: hashlib._Hash, sha: object, what: str, loc: str) -> None:
    """The SHA-256 ``h`` of referenced bytes (``what``: a file, the data of a head, a shard
    hashed as it is decompressed) is the certificate's ``sha``."""
    fail_if(h.hexdigest() != sha, "file-hash", loc,
            f"SHA-256 of {what} differs from the certificate")


def grant(units: int) -> None:
    """Raise the *default* budget by ``units`` (a kind whose work is linear in data the
    user chose to check, such as the rows of a streamed certificate; docs/limits.md).  A
    budget the user set (``--max-work``) is never raised."""
    if (v := BUDGET.get()) is not None and v[2]:
        v[0] += units
        v[1] += units


def left() -> int | None:
    """Units left in the current budget (None: unmetered)."""
    return None if (v := BUDGET.get()) is None else v[0]


def unmetered() -> None:
    """Lift the *default* budget for the rest of an audit's check if it is checked in part
    (:data:`.kernel.SCOPE` set: the caller chose the labels or the sample); a budget the user
    set stays."""
    if SCOPE.get() is not None and (v := BUDGET.get()) is not None and v[2]:
        BUDGET.set(None)
