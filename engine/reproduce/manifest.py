"""A run's list of certificates with their SHA-256, so that a deleted file is noticed.

``logitgeom check DIR/*.json`` only sees the files the shell finds: a deleted certificate
is simply not among them.  ``logitgeom reproduce`` therefore writes ``DIR/CERTIFICATES.sha256``
(the format of ``sha256sum``, so ``sha256sum -c CERTIFICATES.sha256`` works too), and
``logitgeom check`` compares every such listing next to the files it is given: a listed
certificate that is gone is MISSING (exit code 2), one whose bytes changed is CHANGED
(exit code 1), even when the changed file is still a valid certificate (e.g. an edited
``statement``).  The trusted checker ``python -m certificates.check`` is unaffected.

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
from collections.abc import Iterable
from pathlib import Path

__all__ = ["MANIFEST", "verify_manifests", "write_manifest"]

#: File name of the listing, at the top level of a reproduction directory.
MANIFEST = "CERTIFICATES.sha256"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write_manifest(out: str | Path, names: Iterable[str]) -> Path:
    """Write ``out/CERTIFICATES.sha256``: one ``<sha256>  <name>`` line per file, sorted.

    Parameters
    ----------
    out : path
        The directory holding the files.
    names : iterable of str
        File names relative to ``out``.

    Returns
    -------
    pathlib.Path
        The listing written.
    """
    out = Path(out)
    lines = [f"{_digest(out / n)}  {n}\n" for n in sorted(set(names))]
    path = out / MANIFEST
    path.write_text("".join(lines), encoding="utf-8")
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
        ``"MISSING"`` (2) or ``"CHANGED"`` (1) per listed file that is gone or differs;
        empty when every listing matches or no folder has one.
    """
    problems = []
    for folder in sorted({Path(f).parent for f in files}):
        listing = folder / MANIFEST
        if not listing.is_file():
            continue
        for line in listing.read_text(encoding="utf-8").splitlines():
            digest, _, name = line.partition("  ")
            path = folder / name
            if not path.is_file():
                problems.append((path, "MISSING", 2))
            elif _digest(path) != digest:
                problems.append((path, "CHANGED", 1))
    return problems
