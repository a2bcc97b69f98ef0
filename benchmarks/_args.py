"""The command-line guard of the benchmark scripts that read ``sys.argv`` themselves.

Those scripts take cases and sub-commands by position; this guard gives them the two things
argparse would: ``-h``/``--help`` prints the script's docstring (its usage) and exits 0, and
an option the script does not know is refused (exit 2) before any work starts.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable


def guard(argv: list[str], doc: str | None, options: Iterable[str] = ()) -> None:
    """Print ``doc`` and exit 0 on ``-h``/``--help``; exit 2 naming an unknown ``--option``.

    ``options`` are the flags the script reads (``--name``; a valued one's value is the
    next word, which this guard does not inspect).  ``--`` and words not starting with
    ``-`` pass.
    """
    if "-h" in argv or "--help" in argv:
        print((doc or "").strip())
        raise SystemExit(0)
    known = set(options)
    for word in argv:
        if word.startswith("-") and word != "--" and word not in known \
                and not (word.startswith("--") and word.split("=", 1)[0] in known):
            try:
                float(word)  # a negative number is a value, not an option
                continue
            except ValueError:
                pass
            print(f"{sys.argv[0]}: error: unknown option {word!r} (try --help)", file=sys.stderr)
            raise SystemExit(2)
