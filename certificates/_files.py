"""Reading a certificate file for the public API and the command line (presentation).

Not trusted and not counted: it hands the path to the trusted
:func:`logitgeom_certificates.check.read_and_check` and returns its verdict, except that a
*rejected* file which turns out to be a result directory's manifest (``logitgeom-regions``)
gets a pointer to the certificate it can be turned into (a rejection stays a rejection:
nothing here can make a file valid).

Examples
--------
>>> check_file("/nonexistent.json").failed_check
'unreadable'
"""

from __future__ import annotations

import os
from typing import Any

from ._cli import named
from .check import read_and_check as _trusted
from .kernel import Verdict

__all__ = ["check_file", "read_and_check"]

def read_and_check(path: Any, max_work: int | str | None = "default", sample: int | None = None,
                   seed: int = 0, tally: dict[str, Any] | None = None) -> tuple[Verdict, Any]:
    """:func:`logitgeom_certificates.check.read_and_check`, with a manifest named as such."""
    v, obj = _trusted(os.fspath(path), max_work, sample, seed, tally)
    return named(os.fspath(path), v), obj


def check_file(path: Any, max_work: int | str | None = "default") -> Verdict:
    """Read and check one certificate file (:func:`read_and_check`'s verdict)."""
    return read_and_check(path, max_work)[0]
