"""Writing exported Coq files and compiling them with ``coqc``.

The library ``certificates/coq/Logitgeom.v`` is compiled once per process into a temporary
folder (never committed, never written beside the sources); each exported file is compiled
in a temporary copy, so only ``.v`` files are written to the output folder.  coqc's verdict
is the result: exit status 0 means Coq's kernel accepted every proof.

Examples
--------
>>> LIBRARY.name
'Logitgeom.v'
"""

from __future__ import annotations

import hashlib
import resource
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from logitgeom._fsio import OutputError, write_atomic
from logitgeom.coq._read import ExportError, Reader
from logitgeom.coq._terms import ident, label
from logitgeom.coq.export import (
    _SAFE_COMMENT,
    HEADER,
    LIBRARY,
    STREAMED,
    _read_checked,
    export_file_set,
)

if TYPE_CHECKING:
    from logitgeom.coq.stream import StreamExport

__all__ = ["LIBRARY", "Compiled", "coqc_available", "compile_library", "compile_files",
           "export_files", "export_stream_set"]

_BUILT: dict[str, Path] = {}


@dataclass(frozen=True)
class Compiled:
    """coqc's verdict on one file: ``ok`` (exit 0), its output (the error when rejected),
    the CPU seconds (user + sys) of coqc."""

    path: Path
    ok: bool
    message: str
    cpu_seconds: float


def coqc_available() -> str | None:
    """The path of ``coqc``, or None when Coq is not installed (``apt-get install coq``)."""
    return shutil.which("coqc")


def _coqc() -> str:
    exe = coqc_available()
    if exe is None:
        raise ExportError("coqc not found: install Coq (Debian: apt-get install coq; "
                          "scripts/setup.sh does)")
    return exe


def _run(args: list[str], cwd: Path, preexec=None) -> tuple[int, str, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(args, cwd=cwd, capture_output=True, text=True, preexec_fn=preexec)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return proc.returncode, (proc.stdout + proc.stderr).strip(), cpu


def compile_library() -> Path:
    """Compile Logitgeom.v (once per process and library text); returns the folder that
    holds ``Logitgeom.vo`` (give it to coqc as ``-Q DIR Logitgeom``).

    Raises
    ------
    ExportError
        coqc is missing or rejects the library.
    """
    text = LIBRARY.read_bytes()
    key = hashlib.sha256(text).hexdigest()
    if key not in _BUILT:
        d = Path(tempfile.mkdtemp(prefix="logitgeom-coq-"))
        (d / "Logitgeom.v").write_bytes(text)
        code, msg, _ = _run([_coqc(), "-Q", ".", "Logitgeom", "Logitgeom.v"], d)
        if code:
            raise ExportError(f"coqc rejected the library {LIBRARY}: {msg[:2000]}")
        _BUILT[key] = d
    return _BUILT[key]


def compile_files(paths: list[str | Path]) -> list[Compiled]:
    """Compile exported ``.v`` files against the library; never raises on a rejected file.

    Parameters
    ----------
    paths : list of path
        Coq files written by :func:`export_files` (or by hand).

    Returns
    -------
    list of Compiled
    """
    lib = compile_library()
    out = []
    for p in map(Path, paths):
        with tempfile.TemporaryDirectory(prefix="logitgeom-coqc-") as tmp:
            shutil.copy(p, Path(tmp) / p.name)
            code, msg, cpu = _run([_coqc(), "-Q", str(lib), "Logitgeom", p.name], Path(tmp))
        out.append(Compiled(p, code == 0, msg, cpu))
    return out


def export_files(paths: list[str | Path], out: str | Path, *,
                 witnesses: bool = True, leaves: int | None = None) -> list[Path]:
    """Export certificate files to ``out``: one ``.v`` per certificate (a streamed
    enumeration: a set of files, :func:`logitgeom.coq.export.export_file_set`), plus a copy
    of ``Logitgeom.v`` so that the folder compiles on its own.  Each file is read and checked
    by the stdlib checker first (:func:`logitgeom.coq.export.export_file`): one it does not
    accept is refused, naming the check.  Every file is written atomically (a full disk
    leaves no partial file).

    Parameters
    ----------
    paths : list of path
        Certificate JSON files.
    out : path
        Output folder (created).
    witnesses : bool
        Prove the witnesses of argmax audits too (default); False: their never-proofs only.
    leaves : int, optional
        Streamed enumerations: patterns per subtree file, at most.

    Returns
    -------
    list of Path
        The ``.v`` file stating each certificate's claim, in the order of ``paths``.

    Raises
    ------
    ExportError
        A file the checker does not accept, or a certificate that cannot be exported (the
        message names the file's label and the place); a file that cannot be written.
    """
    out = Path(out)
    texts, mains, taken = [], [], {"Logitgeom.v"}
    for p in map(Path, paths):
        files, n = export_file_set(p, witnesses=witnesses, leaves=leaves), 1
        stem = files[-1][0][:-2]
        while any(name in taken for name, _ in files):  # a name taken: the next stem
            n += 1
            files = export_file_set(p, witnesses=witnesses, leaves=leaves, stem=f"{stem}_{n}")
        taken.update(name for name, _ in files)
        texts += files
        mains.append(files[-1][0])
    try:
        out.mkdir(parents=True, exist_ok=True)
        write_atomic(out / "Logitgeom.v", LIBRARY.read_bytes())
        written = {name: write_atomic(out / name, text) for name, text in texts}
        return [written[m] for m in mains]
    except OutputError as exc:
        raise ExportError(str(exc)) from None
    except OSError as exc:
        raise ExportError(f"cannot write into {out}: {exc.strerror or exc}") from None


def export_stream_set(path: str | Path, *, max_work: int | str | None = "default",
                      leaves: int | None = None, stem: str | None = None) -> StreamExport:
    """The Coq files of a streamed enumeration's certificate file, as
    :func:`logitgeom.coq.export.export_file_set` makes them, with the export's figures.

    Parameters
    ----------
    path : path
        A ``pattern-complete-stream`` certificate (read and checked by the stdlib checker).
    max_work, leaves, stem
        As for :func:`logitgeom.coq.export.export_file_set`.

    Returns
    -------
    logitgeom.coq.stream.StreamExport
        The files (the assembling file last), the split depth, the subtrees, the shard
        files and the exact LPs the refutations took.

    Raises
    ------
    ExportError
        A file the checker does not accept, a certificate of another kind, or one that
        cannot be exported.
    """
    from logitgeom.coq import stream  # lazy, as in export_file_set: the exact LP

    p, lab, obj = _read_checked(path, max_work)
    if obj.get("kind") != STREAMED:
        raise ExportError(f"{lab}: not a {STREAMED} certificate (export_file_set exports it)")
    return stream.export_stream(obj, p, Reader(lab), ident(stem or label(p.stem)), HEADER,
                                _SAFE_COMMENT, leaves=leaves)
