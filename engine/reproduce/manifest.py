"""A run's list of certificates with their SHA-256, so that a deleted file is noticed.

``logitgeom check DIR/*.json`` only sees the files the shell finds: a deleted certificate
is simply not among them.  ``logitgeom reproduce`` therefore writes ``DIR/CERTIFICATES.sha256``
(the format of ``sha256sum``, so ``sha256sum -c CERTIFICATES.sha256`` works too), and
``logitgeom check`` compares every such listing next to the files it is given: a listed
certificate that is gone is MISSING (exit code 2), one whose bytes changed is CHANGED
(exit code 1), even when the changed file is still a valid certificate (e.g. an edited
``statement``).  The trusted checker ``python -m logitgeom_certificates.check`` is unaffected.

A run also keeps ``DIR/.logitgeom-run`` (:data:`RUN_RECORD`): its status
(``"incomplete"`` from the start of a run until it has finished, then ``"complete"``),
the files logitgeom runs wrote there (only those may be replaced without ``--force``) and
the rows of ``SUMMARY.md`` by claim key (so ``reproduce --only`` merges into the summary
and the listing instead of replacing them).  ``logitgeom check`` reports an incomplete
run.  Every file here is written atomically (:func:`logitgeom._fsio.write_atomic`).

Examples
--------
>>> import tempfile
>>> from pathlib import Path
>>> d = Path(tempfile.mkdtemp())
>>> _ = (d / "a.json").write_text("{}")
>>> write_manifest(d, ["a.json"]).name
'CERTIFICATES.sha256'
>>> verify_manifests([d / "a.json"])
[]
>>> (d / "a.json").unlink()
>>> [(p.name, problem, code) for p, problem, code in verify_manifests([d / "b.json"])]
[('a.json', 'MISSING', 2)]
>>> import shutil; shutil.rmtree(d)
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path

from logitgeom._fsio import write_atomic

__all__ = ["MANIFEST", "RUN_RECORD", "verify_manifests", "write_manifest", "read_run_record",
           "write_run_record"]

#: File name of the listing, at the top level of a reproduction directory.
MANIFEST = "CERTIFICATES.sha256"
#: File name of the run record (status, files written, summary rows), hidden from ``*.json``.
RUN_RECORD = ".logitgeom-run"


def read_run_record(out: str | Path) -> dict | None:
    """The run record of ``out``, or None when there is none or it is unreadable."""
    path = Path(out) / RUN_RECORD
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("files", []), list | dict):
        return None
    return data


def write_run_record(out: str | Path, record: dict) -> Path:
    """Write the run record atomically (sorted keys)."""
    text = json.dumps(record, indent=1, sort_keys=True) + "\n"
    return write_atomic(Path(out) / RUN_RECORD, text)


def _listing(path: Path) -> dict[str, str]:
    """name -> digest of an existing listing (empty when absent or unreadable)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    out = {}
    for line in text.splitlines():
        digest, sep, name = line.partition("  ")
        if sep and name:
            out[name] = digest
    return out


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write_manifest(out: str | Path, names: Iterable[str], *, merge: bool = False) -> Path:
    """Write ``out/CERTIFICATES.sha256``: one ``<sha256>  <name>`` line per file, sorted.

    Parameters
    ----------
    out : path
        The directory holding the files.
    names : iterable of str
        File names relative to ``out``.
    merge : bool
        Keep the entries of an existing listing for files not in ``names`` (a partial
        run, ``reproduce --only``).

    Returns
    -------
    pathlib.Path
        The listing written.
    """
    out = Path(out)
    path = out / MANIFEST
    entries = _listing(path) if merge else {}
    entries.update({n: _digest(out / n) for n in set(names)})
    write_atomic(path, "".join(f"{entries[n]}  {n}\n" for n in sorted(entries)))
    return path


def verify_manifests(files: Iterable[str | Path]) -> list[tuple[Path, str, int]]:
    """Compare the listing of every folder among ``files`` with what is on disk.

    Parameters
    ----------
    files : iterable of path
        Files given to ``logitgeom check``; only their folders matter.

    Returns
    -------
    list of (path, problem, exit code)
        ``"MISSING"`` (2) or ``"CHANGED"`` (1) per listed file that is gone or differs,
        ``"INCOMPLETE RUN ..."`` (2) for a folder whose run did not finish; empty when
        every listing matches or no folder has one.
    """
    problems = []
    for folder in sorted({Path(f).parent for f in files}):
        record = read_run_record(folder)
        if record is not None and record.get("status") != "complete":
            problems.append((folder / RUN_RECORD, "INCOMPLETE RUN (reproduce was interrupted "
                             "or failed before finishing; run it again)", 2))
        listing = folder / MANIFEST
        if not listing.is_file():
            continue
        try:
            text = listing.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            problems.append((listing, "UNREADABLE listing (not UTF-8 text)", 2))
            continue
        for line in text.splitlines():
            digest, _, name = line.partition("  ")
            if not name or "/" in name or name.startswith(".") or "\0" in name:
                problems.append((listing, f"UNREADABLE listing line {line[:60]!r}", 2))
                continue
            path = folder / name
            if not path.is_file():
                problems.append((path, "MISSING", 2))
            elif _digest(path) != digest:
                problems.append((path, "CHANGED", 1))
    return problems
