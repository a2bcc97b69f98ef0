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

from engine._version import __version__
from engine.errors import EngineError

#: Command-group modules, in the order they appear in ``--help``.
COMMAND_MODULES: list[str] = [
    "engine.cli.info",
    "engine.cli.certify",
    "engine.cli.solve",
    "engine.cli.inspect",
    "engine.cli.patterns",
    "engine.cli.count",
    "engine.cli.reproduce",
    "engine.cli.symmetry",
    "engine.cli.audit",
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


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        code = int(args.func(args) or 0)
        sys.stdout.flush()  # a closed pipe (`| head`) surfaces here, not at interpreter exit
        return code
    except EngineError as exc:
        print(f"logitgeom: error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader stopped early: exit quietly, no traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
