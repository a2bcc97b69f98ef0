"""The trusted checker of logitgeom certificates (format ``logitgeom-certificate``, v1).

Standard library only; imports nothing from ``logitgeom``, numpy, cvxpy or cdd.  Every claim
is re-derived from the data in the file (W, signs, rankings) in exact rational arithmetic;
derived data in the file (chain rows, B W, minors, closures) is never trusted.  The format
is specified in ``certificates/SPEC.md``, the proof obligations of each kind in
docs/certificates.md.  This module reads files and dispatches on ``kind``: every kind module
(``certificates/check_*.py``) exports ``KIND_TABLE``, {kind: (checker, fields)}, each checker
of one signature ``(obj, loc, parts)`` (``parts``: this dispatch, for the parts of a
theorem), raising :class:`logitgeom_certificates.errors.Fail` and returning its reading.
Usage::

    python -m logitgeom_certificates.check FILE... [--explain] [--latex] [--one-based]

Exit code 0: every file valid; 1: some file invalid; 2: some file unreadable or of an
unsupported format/version/kind.

Examples
--------
>>> cert = {"format": "logitgeom-certificate", "version": 1, "kind": "sign-feasible",
...         "W": [["1", "0"], ["0", "1"]], "signs": [1, -1], "witness": ["1", "-1/2"]}
>>> check(cert)
Verdict(ok=True, kind='sign-feasible', failed_check=None, location=None, message='valid')
>>> check(dict(cert, witness=["1", "1"])).failed_check
'witness'
"""

from __future__ import annotations

import os
import sys
from typing import Any

if not __package__:  # run as a script: its folder is the package, under the folder's own name
    sys.path.insert(0, os.path.dirname(_folder := os.path.dirname(os.path.abspath(__file__))))
    __package__ = os.path.basename(_folder)  # so a copied checker runs as is

from . import kernel as K
from .check_audit import KIND_TABLE as AUDIT
from .check_audit import check_argmax_audit
from .check_bracket import KIND_TABLE as BRACKET
from .check_family import KIND_TABLE as FAMILY
from .check_geometry import KIND_TABLE as GEOMETRY
from .check_orbit import KIND_TABLE as ORBIT
from .check_rank import KIND_TABLE as RANK
from .check_stability import KIND_TABLE as STABILITY
from .check_stream import KIND_TABLE as STREAM
from .errors import Fail as Fail

#: kind -> (checker(obj, loc, parts), fields of the kind besides the common ones; None: the
#: kind's module rejects unknown fields itself).  Any other field is rejected (``schema``),
#: so a look-alike key cannot make a claim be checked as a different one.
_KINDS: dict[str, tuple[Any, Any]] = {**GEOMETRY, **BRACKET, **ORBIT, **AUDIT, **FAMILY, **RANK,
                                      **STABILITY, **STREAM}
KINDS = tuple(_KINDS)


def _dispatch(obj: object, loc: str) -> Any:
    kind = K.header(obj, loc, _KINDS)
    checker, fields = _KINDS[kind]
    if fields is not None:
        K.only(obj, K.COMMON | fields, loc, f"a {kind} certificate")
    return checker(obj, loc, _dispatch)


def check(obj: object, max_work: int | str | None = "default") -> K.Verdict:
    """Check one parsed certificate (a dict); never raises on bad input.

    Parameters
    ----------
    obj : dict
        The certificate, as parsed by :func:`json.loads` (numbers as ``"p/q"`` strings).
    max_work : int, "default" or None
        Budget (see :mod:`logitgeom_certificates.meter`): a certificate whose metered work exceeds
        it is not checked (verdict ``work-budget``, never valid).  None: no budget;
        ``"default"``: :data:`DEFAULT_MAX_WORK`, raised for streamed certificates by their
        rows (docs/limits.md).

    Returns
    -------
    Verdict
    """
    return K.judge(obj, _dispatch, max_work)


def read_and_check(path: str, max_work: int | str | None = "default", sample: int | None = None,
                   seed: int = 0, tally: dict[str, Any] | None = None) -> tuple[K.Verdict, Any]:
    """(verdict, parsed certificate or None): the file is read once, so what is explained
    afterwards is exactly what was checked.  ``sample`` (audits, streamed results): re-check
    every never-proof (every line's structure) and ``sample`` witnesses drawn with ``seed``;
    ``tally`` (a dict) receives the counts ``witnesses`` and ``checked``.  ``max_work``:
    units, None (no budget) or "default"."""
    return K.read_and_check(os.fspath(path), _dispatch, max_work, tally, sample=sample, seed=seed)


def check_file(path: str, max_work: int | str | None = "default") -> K.Verdict:
    """Read and check one certificate file (bounded: a regular file of at most 64 MiB).

    Returns
    -------
    Verdict
        ``failed_check`` is ``'unreadable'`` when the file is not JSON (or not a regular
        file, too large, too deeply nested).
    """
    return read_and_check(path, max_work)[0]


def main(argv: list[str] | None = None) -> int:
    """Command line (presentation, in :mod:`logitgeom_certificates._cli`): one verdict line per
    file; exit 0 / 1 / 2 (see the module docstring)."""
    from . import _cli
    return _cli.check_main(argv, read_and_check, check_argmax_audit)


if __name__ == "__main__":  # pragma: no cover
    from . import _cli
    sys.exit(_cli.run(main))
