"""One output convention for every subcommand.

* ``-o/--out PATH`` writes the command's result file to PATH (``-`` means stdout);
  reproduce and ``certify paper`` take a folder.
* ``--json`` asks for the result as JSON (on stdout unless ``-o`` is given).  The older
  spelling ``--json PATH`` still works and means ``--json -o PATH`` (not on ``check``,
  whose positional arguments are files: there ``--json`` takes no value).
* ``--force`` allows replacing an existing output file; without it an existing file is
  never overwritten (the command stops before doing any work).

Output paths are checked before the work starts (missing folder, a directory, a read-only
folder, an existing file) and every file is written atomically
(:func:`logitgeom._fsio.write_atomic`).
"""

from __future__ import annotations

import argparse
import sys

from logitgeom._fsio import check_writable, write_atomic

__all__ = ["add_output", "json_target", "prepare", "write"]


def add_output(p: argparse.ArgumentParser, *, what: str = "the result as JSON",
               json_flag: bool = True, dest: str = "out", aliases: tuple[str, ...] = ()) -> None:
    """Add ``-o/--out PATH`` (plus hidden ``aliases``), ``--force`` and optionally ``--json``."""
    p.add_argument("-o", "--out", dest=dest, default=None, metavar="PATH",
                   help=f"write {what} to PATH ('-' for stdout)")
    for a in aliases:
        p.add_argument(a, dest=dest, default=None, help=argparse.SUPPRESS)
    p.add_argument("--force", action="store_true", help="overwrite PATH if it exists")
    if json_flag:
        p.add_argument("--json", dest="json_out", nargs="?", const="-", default=None,
                       metavar="PATH", help="print JSON instead of text (--json PATH: the "
                       "same as --json -o PATH)")


def json_target(args: argparse.Namespace, dest: str = "out") -> str | None:
    """Where the JSON result goes: a path, ``"-"`` (stdout) or None (text only)."""
    out = getattr(args, dest, None)
    js = getattr(args, "json_out", None)
    if out is not None:
        return out
    return js


def prepare(args: argparse.Namespace, *paths: str | None) -> None:
    """Check every output path before any work (exists without --force, bad folder)."""
    for p in paths:
        if p is not None and p != "-":
            check_writable(p, force=bool(getattr(args, "force", False)))


def write(args: argparse.Namespace, path: str, text: str | bytes) -> bool:
    """Write ``text`` to ``path`` (``-``: stdout); True when it went to stdout."""
    if path == "-":
        if isinstance(text, bytes):
            sys.stdout.buffer.write(text)
        else:
            sys.stdout.write(text)
        return True
    check_writable(path, force=bool(getattr(args, "force", False)))
    write_atomic(path, text)
    return False
