"""What every certificate family shares: the header and the canonical text.

The format string, the version and the theorem names are the checker's own constants
(``certificates/SPEC.md``); this module is the one place the engine reads them, and
:func:`header` the one place it writes them.  :func:`dumps` is the canonical text of a
certificate: same dict, byte-identical text.  :data:`SELF_CHECK` is the one policy of
what a builder of a batch certificate re-checks of the file it wrote.

Examples
--------
>>> h = header("translation", statement="demo")
>>> h["format"], h["version"], h["kind"], h["statement"]
('logitgeom-certificate', 1, 'translation', 'demo')
>>> print(dumps({"a": [["1", "2"]], "b": 1}), end="")
{
 "a": [
  ["1", "2"]
 ],
 "b": 1
}
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from logitgeom_certificates.api import FORMAT, THEOREMS, VERSION

__all__ = ["FORMAT", "VERSION", "THEOREMS", "header", "dumps", "self_check", "SelfCheck",
           "SELF_CHECK"]


@dataclass(frozen=True)
class SelfCheck:
    """What a builder of a batch certificate (an argmax audit, a streamed pattern set)
    re-checks, with the standard-library checker, of the file it has just written.

    Every proof when the witnesses' checker work (``witnesses x units`` each) is at most
    ``full_work``; above it the structure, hashes, coverage and counts of every record or
    shard line, every never-proof, and ``sample`` witnesses (an audit's spread evenly over
    its records, a streamed set's drawn at random with seed 0, as ``check --sample`` does).
    The run checked every witness exactly when it found it; ``logitgeom check`` re-checks
    them all.  The policy of both kinds: docs/argmax-audit.md, "Self-check".

    Examples
    --------
    >>> SELF_CHECK.witnesses(1000, 100), SELF_CHECK.witnesses(10 ** 6, 100)
    (None, 8)
    >>> SelfCheck(full_work=0, sample=3).witnesses(2, 1)
    2
    """

    #: re-check every witness when their checker work is at most this (units, or entries
    #: read for an audit: the checker charges about one unit each)
    full_work: int = 50_000_000
    #: witnesses re-checked above it
    sample: int = 8

    def witnesses(self, n: int, units: int) -> int | None:
        """None: re-check all ``n`` witnesses (``units`` of checker work each); else how many."""
        return None if n * units <= self.full_work else min(self.sample, n)


#: The one self-check policy (argmax audits and streamed pattern sets).
SELF_CHECK = SelfCheck()


def _scalar(o) -> bool:
    return not isinstance(o, dict | list)


def _dump(o, ind: int) -> str:
    pad, pad1 = " " * ind, " " * (ind + 1)
    if isinstance(o, dict):
        if all(_scalar(v) or (isinstance(v, list) and all(_scalar(x) for x in v))
               for v in o.values()) and ind > 1:
            return json.dumps(o)  # small records (a flat, a pattern with its witness): one line
        if not o:
            return "{}"
        items = [f"{pad1}{json.dumps(k)}: {_dump(v, ind + 1)}" for k, v in o.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(o, list):
        if all(_scalar(x) for x in o):
            return json.dumps(o)
        if all(isinstance(x, list) and all(_scalar(y) for y in x) for x in o):
            return "[\n" + ",\n".join(pad1 + json.dumps(x) for x in o) + "\n" + pad + "]"
        return "[\n" + ",\n".join(pad1 + _dump(x, ind + 1) for x in o) + "\n" + pad + "]"
    return json.dumps(o)


def dumps(cert: dict) -> str:
    """Canonical text of a certificate (deterministic; vectors and matrix rows on one line).

    Examples
    --------
    >>> dumps({"kind": "x", "v": ["1", "-1/2"]})
    '{\\n "kind": "x",\\n "v": ["1", "-1/2"]\\n}\\n'
    """
    return _dump(cert, 0) + "\n"


def header(kind: str, statement: str | None = None, provenance: dict | None = None) -> dict:
    """The common header: format, version, kind, then optional statement and provenance.

    Examples
    --------
    >>> header("translation")
    {'format': 'logitgeom-certificate', 'version': 1, 'kind': 'translation'}
    """
    out = {"format": FORMAT, "version": VERSION, "kind": kind}
    if statement:
        out["statement"] = statement
    if provenance:
        out["provenance"] = dict(provenance)
    return out


def self_check(cert: dict, max_work: int | None, what: str, report: dict | None = None) -> int:
    """Check an emitted certificate with the standard-library checker under the budget the
    user chose (``--max-work``; None: no budget, as for plain brackets) and return its
    metered work (also in ``report["work"]``); the file is never written unchecked.

    Raises
    ------
    TooLarge
        The check needs more than ``max_work`` units (nothing is wrong with it).
    InexactResult
        The checker rejects it (an emitter bug: please report).

    Examples
    --------
    >>> from logitgeom.emit import translation_certificate
    >>> c = translation_certificate([[1, 0], [0, 1], [1, 1]], 0, 1, -1)
    >>> self_check(c, None, "translation") > 0
    True
    """
    from logitgeom.errors import InexactResult, TooLarge
    from logitgeom_certificates.api import check

    v = check(cert, (1 << 62) if max_work is None else int(max_work))
    if not v.ok and v.failed_check == "work-budget":
        raise TooLarge(f"checking the {what} needs more than --max-work {max_work:,} units of "
                       "exact work; nothing was written: raise --max-work, or omit it to check "
                       "without a budget (docs/limits.md)")
    if not v.ok:
        raise InexactResult(f"the emitted {what} fails '{v.failed_check}' at {v.location}: "
                            f"{v.message} (please report this)")
    work = int(v.work or 0)
    if report is not None:
        report["work"] = work
    return work
