"""Writing output files safely: atomically, and never over a file the user did not ask to lose.

Every file the engine writes goes through :func:`write_atomic`: the bytes go to a temporary
file in the same folder, are flushed to disk, and the temporary file is renamed over the
target.  A failed write (disk full, file-size limit, Ctrl-C) leaves the old file or no file,
never a truncated one (it is the one atomic writer: every module that writes a file whole
calls it).  :func:`folder_lock` keeps two runs from writing into one output folder at once.
:func:`check_writable` refuses an output path that already exists
unless ``force`` is given (the CLI's ``--force``), and turns "missing parent", "is a
directory" and "read-only" into one clear :class:`OutputError` before any work is done.
:func:`check_inside` keeps a run's writes inside its output folder (a symlinked ``shards/``
is refused, never followed); :func:`csv_text` makes every CSV through the :mod:`csv`
writer; :func:`check_input_file` is the other side of the boundary: an input file must be
a regular file (a missing one is "not found", a pipe or device is named and never read).

Examples
--------
>>> import tempfile, os
>>> d = tempfile.mkdtemp()
>>> p = write_atomic(os.path.join(d, "a.txt"), "hello\\n")
>>> open(p).read()
'hello\\n'
>>> check_writable(p)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
logitgeom._fsio.OutputError: ...a.txt exists; pass --force to overwrite it
>>> sorted(os.listdir(d))  # no temporary file left behind
['a.txt']
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from logitgeom.errors import EngineError, InvalidInput

__all__ = ["OutputError", "write_atomic", "check_writable", "folder_lock", "csv_text",
           "inside", "check_inside", "check_input_file", "file_kind"]


class OutputError(EngineError, OSError):
    """An output file cannot be written (or would overwrite a file without ``--force``)."""


def file_kind(p: str | Path) -> str | None:
    """What ``p`` is when it is not a regular file ("a directory", "a named pipe (FIFO)",
    "a character device", ...), None for a regular file; following symlinks.

    Examples
    --------
    >>> file_kind("/dev/null"), file_kind("/")
    ('a character device', 'a directory')
    """
    import stat

    mode = os.stat(p).st_mode
    for test, name in ((stat.S_ISREG, None), (stat.S_ISDIR, "a directory"),
                       (stat.S_ISFIFO, "a named pipe (FIFO)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"  # pragma: no cover - no other kinds on POSIX


def check_input_file(path: str | Path, what: str = "input file") -> Path:
    """``path`` if it names an existing regular file (every input file is checked so).

    A missing file is "not found"; a directory, pipe (FIFO), device or socket is refused at
    once, naming what it is (a pipe or device could block or never end).

    Raises
    ------
    InvalidInput
        Missing, or not a regular file.

    Examples
    --------
    >>> check_input_file("/no/such/G.json", "group file")
    Traceback (most recent call last):
    ...
    logitgeom.errors.InvalidInput: group file not found: /no/such/G.json
    """
    p = Path(path).expanduser()
    try:
        kind = file_kind(p)
    except FileNotFoundError:
        if p.is_symlink():
            raise InvalidInput(f"{what} not found: {p} (a symlink to a missing file)") from None
        raise InvalidInput(f"{what} not found: {p}") from None
    except NotADirectoryError:
        raise InvalidInput(f"{what} not found: {p} (a part of the path is a file)") from None
    except OSError as exc:
        raise InvalidInput(f"cannot read {what} {p}: {exc.strerror or exc}") from None
    if kind is not None:
        hint = ("give the file inside it" if kind == "a directory" else
                "it could block or never end; save the data to a file first")
        raise InvalidInput(f"{p} is {kind}, not a regular file; the {what} must be "
                           f"a regular file ({hint})")
    return p


def check_writable(path: str | Path, *, force: bool = False) -> Path:
    """Fail early, with one clear message, if ``path`` cannot or may not be written.

    Parameters
    ----------
    path : path
        The output file.
    force : bool
        Allow replacing an existing file.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    OutputError
        The path is a directory, its folder is missing or not writable, or the file
        exists and ``force`` is false.
    """
    p = Path(path)
    if p.is_dir():
        raise OutputError(f"cannot write {p}: it is a directory; give a file name")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise OutputError(f"cannot write {p}: folder {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(f"cannot write {p}: folder {parent} is not writable")
    if p.exists() and not force:
        raise OutputError(f"{p} exists; pass --force to overwrite it")
    return p


def write_atomic(path: str | Path, data: str | bytes, *, encoding: str = "utf-8") -> Path:
    """Write ``data`` to ``path`` atomically (temporary file in the same folder, then rename).

    Parameters
    ----------
    path : path
        The target file; its folder must exist.
    data : str or bytes
        The whole content.
    encoding : str
        Used when ``data`` is text.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    OutputError
        The write failed (the message names the file and the reason); the target is
        unchanged and no temporary file is left.
    """
    p = Path(path)
    raw = data.encode(encoding) if isinstance(data, str) else bytes(data)
    if p.is_dir():
        raise OutputError(f"cannot write {p}: it is a directory")
    parent = p.parent if str(p.parent) else Path(".")
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=parent)
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
            fh.flush()
            os.fsync(fh.fileno())
        try:
            mode = p.stat().st_mode & 0o777 if p.exists() else 0o666 & ~_umask()
            os.chmod(tmp, mode)
        except OSError:  # pragma: no cover - permissions are best effort
            pass
        os.replace(tmp, p)
        tmp = None
    except OSError as exc:
        raise OutputError(f"cannot write {p}: {exc.strerror or exc}") from None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
    return p


def inside(root: str | Path, path: str | Path) -> bool:
    """Whether ``path``, with every symlink on it resolved, lies in folder ``root`` (itself
    resolved).

    Examples
    --------
    >>> import tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> inside(d, os.path.join(d, "shards", "a.jsonl")), inside(d, os.path.dirname(d))
    (True, False)
    """
    r = Path(os.path.realpath(root))
    t = Path(os.path.realpath(path))
    return t == r or r in t.parents


def check_inside(root: str | Path, path: str | Path, what: str = "output folder") -> Path:
    """``path`` if writing it stays inside ``root``; else one clear :class:`OutputError`.

    A symlink inside a result folder (``shards/`` or ``twin/`` linked elsewhere) would make a
    resumed run write files outside the folder it was given: refused, naming the link.

    Raises
    ------
    OutputError
        ``path`` resolves outside ``root``.

    Examples
    --------
    >>> import tempfile, os
    >>> d, elsewhere = tempfile.mkdtemp(), tempfile.mkdtemp()
    >>> os.symlink(elsewhere, os.path.join(d, "shards"))
    >>> check_inside(d, os.path.join(d, "shards", "a.jsonl"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    logitgeom._fsio.OutputError: refusing to write .../shards/a.jsonl: it leads outside the ...
    """
    p = Path(path)
    if inside(root, p):
        return p
    link = next((q for q in (p, *p.parents) if q.is_symlink()), None)
    via = f" through the symlink {link}" if link is not None else ""
    raise OutputError(f"refusing to write {p}: it leads outside the {what} {root}{via} "
                      f"(to {os.path.realpath(p)}); remove the link or choose another folder")


def csv_text(header: Sequence[str] | None, rows: Iterable[Sequence[object]]) -> str:
    """A CSV table as text, through the :mod:`csv` writer: a cell holding a comma, a quote or
    a line break is quoted, so every row has exactly the header's columns (every CSV the
    engine writes is made here).

    Examples
    --------
    >>> print(csv_text(["label", "verdict"], [[3, "can win, never wins"]]), end="")
    label,verdict
    3,"can win, never wins"
    """
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    if header is not None:
        w.writerow(header)
    w.writerows(rows)
    return buf.getvalue()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def folder_lock(folder: str | Path | None) -> Iterator[Path | None]:
    """Hold an exclusive lock on an output folder while a run writes into it.

    The lock is an advisory ``flock`` on the folder itself (created if missing, when its
    parent exists), released when the run ends or its process dies; no lock file is left
    behind.  A folder this call created and the run left empty is removed again.  ``None``,
    a path that is an existing file, or a folder whose parent is missing is not locked (the
    command reports those itself).

    Parameters
    ----------
    folder : path or None

    Raises
    ------
    OutputError
        Another run holds the lock (the message names the folder).

    Examples
    --------
    >>> import tempfile, os
    >>> d = os.path.join(tempfile.mkdtemp(), "run")
    >>> with folder_lock(d):
    ...     with folder_lock(d):  # doctest: +ELLIPSIS
    ...         pass
    Traceback (most recent call last):
    ...
    logitgeom._fsio.OutputError: another logitgeom run is writing into .../run ...
    >>> os.path.exists(d)  # created for the run, left empty: removed
    False
    """
    if folder is None or str(folder) == "-":
        yield None
        return
    p = Path(folder)
    created = False
    if not p.exists():
        parent = p.parent if str(p.parent) else Path(".")
        if not parent.is_dir():
            yield None
            return
        try:
            p.mkdir()
            created = True
        except FileExistsError:  # another run created it just now: lock it below
            pass
        except OSError:
            yield None
            return
    if not p.is_dir():
        yield None
        return
    import fcntl

    fd = os.open(p, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise OutputError(f"another logitgeom run is writing into {p} (it holds the "
                              "folder's lock); wait for it to finish, or choose another "
                              "folder") from None
        try:
            yield p
        finally:
            if created:
                with contextlib.suppress(OSError):
                    p.rmdir()  # only when still empty
    finally:
        os.close(fd)
