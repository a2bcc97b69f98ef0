"""Entry point of the ``logitgeom`` command.

Each command group lives in its own module with a ``register(subparsers)`` function
that adds its parser and sets ``func`` (a callable taking the parsed arguments and
returning an exit code).  Add a module to :data:`COMMAND_MODULES` to add a group.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from logitgeom._fsio import folder_lock
from logitgeom._version import __version__
from logitgeom.errors import EngineError

#: Command-group modules, in the order they appear in ``--help``.
COMMAND_MODULES: list[str] = [
    "logitgeom.cli.info",
    "logitgeom.cli.certify",
    "logitgeom.cli.solve",
    "logitgeom.cli.inspect",
    "logitgeom.cli.patterns",
    "logitgeom.cli.count",
    "logitgeom.cli.reproduce",
    "logitgeom.cli.symmetry",
    "logitgeom.cli.audit",
    "logitgeom.cli.occupancy",
    "logitgeom.cli.export",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="logitgeom",
        description=(
            "Exact geometry and convex optimisation of classifier heads: sign and ranking "
            "patterns, certificates, layer-peeled programs and their symmetry reductions."
        ),
    )
    parser.add_argument("--version", action="version", version=f"logitgeom {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= 2000 else text[:2000] + " ..."


def _os_error(exc: OSError) -> str:
    what = exc.strerror or _one_line(exc) or type(exc).__name__
    names = [n for n in (exc.filename, exc.filename2) if n is not None]
    return f"{what}: {' -> '.join(map(str, names))}" if names else what


def _output_folder(args: argparse.Namespace) -> str | None:
    """The folder a command writes into as a whole run (locked while it runs), or None."""
    cmd = getattr(args, "command", None)
    if cmd in ("audit-argmax", "reproduce", "occupancy"):
        return getattr(args, "out", None)
    if cmd == "certify" and getattr(args, "certify_command", None) == "paper":
        return getattr(args, "out", None)
    if cmd == "patterns" and getattr(args, "out", None):
        from logitgeom.cli.patterns import _streamed

        return args.out if _streamed(args) else None
    return None


def main(argv: list[str] | None = None) -> int:
    """Run one command; every failure is one line on stderr and an exit code.

    Exit codes: 0 success, 1 a claim or check failed, 2 an error (bad input, over a limit,
    a file that cannot be read or written), 130 interrupted (Ctrl-C).
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        with folder_lock(_output_folder(args)):  # one run per output folder at a time
            code = int(args.func(args) or 0)
        sys.stdout.flush()  # a closed pipe (`| head`) surfaces here, not at interpreter exit
        return code
    except EngineError as exc:
        print(f"logitgeom: error: {type(exc).__name__}: {_one_line(exc)}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader stopped early: exit quietly, no traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        print("logitgeom: interrupted (Ctrl-C); pending work cancelled, workers stopped",
              file=sys.stderr)
        return 130
    except UnicodeError as exc:
        print(f"logitgeom: error: text that is not UTF-8: {_one_line(exc)[:300]}",
              file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"logitgeom: error: {_os_error(exc)}", file=sys.stderr)
        return 2
    except RecursionError:
        print("logitgeom: error: input nested too deeply to process", file=sys.stderr)
        return 2
    except MemoryError:
        print("logitgeom: error: out of memory; the input is too large for this machine "
              "(see docs/limits.md)", file=sys.stderr)
        return 2
    except OverflowError as exc:  # an exact number too large for the float (solver) side
        print(f"logitgeom: error: a number is beyond the float range (|x| > 1.8e308) that "
              f"the float side (solvers, plots) can use ({_one_line(exc)})", file=sys.stderr)
        return 2
    except ValueError as exc:  # a limit or check outside logitgeom.errors
        print(f"logitgeom: error: {type(exc).__name__}: {_one_line(exc)}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
