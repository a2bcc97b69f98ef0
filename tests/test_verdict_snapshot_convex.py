"""Verdict snapshot of the convex kinds (``layer-peeled-*`` and the theorems over them).

Issue 42 shrinks the trusted checker; this test pins what it decides while it shrinks.  For
every certificate file of a convex kind in the repository, and for deterministic mutations
of every valid one (each number changed, each field dropped, each list cut, an unknown field
added, ...), the verdict (the failed check's name and its location, or valid) must equal
the one recorded in ``tests/verdict_snapshot_convex.json`` before the refactoring.

Regenerate the record (only when a verdict is meant to change, and say why in the commit)::

    python tests/test_verdict_snapshot_convex.py --write
"""

from __future__ import annotations

import copy
import json
import sys
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from logitgeom_certificates.check import check
from logitgeom_certificates.kernel import FILE_BASE
from logitgeom_certificates.meter import setting

ROOT = Path(__file__).resolve().parents[1]
RECORD = Path(__file__).with_name("verdict_snapshot_convex.json")
FOLDERS = ("certificates/examples", "certificates/paper")


def _files() -> list[Path]:
    """Every certificate JSON of a convex kind (a ``layer-peeled-*`` kind) in the repository."""
    out = []
    for folder in FOLDERS:
        for p in sorted((ROOT / folder).rglob("*.json")):
            try:
                kind = json.loads(p.read_text()).get("kind", "")
            except (ValueError, AttributeError):
                continue
            if isinstance(kind, str) and kind.startswith("layer-peeled"):
                out.append(p)
    return out


def _leaves(x: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """(path, value) of every node of a JSON value, parents before children."""
    yield path, x
    if isinstance(x, dict):
        for k, v in x.items():
            yield from _leaves(v, (*path, k))
    elif isinstance(x, list):
        for i, v in enumerate(x):
            if isinstance(v, (list, dict)) or i in (0, len(x) - 1):  # ends of number lists
                yield from _leaves(v, (*path, i))


def _set(obj: Any, path: tuple[Any, ...], value: Any) -> Any:
    out = copy.deepcopy(obj)
    if not path:
        return value
    node = out
    for p in path[:-1]:
        node = node[p]
    if value is _DROP:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return out


_DROP = object()


def _mutations(obj: Any) -> Iterator[tuple[str, Any]]:
    """Deterministic mutations of a certificate: (name, mutated certificate)."""
    yield "extra-field", dict(obj, extra_field="1")
    for path, v in _leaves(obj):
        name = "/".join(map(str, path))
        if path and isinstance(path[-1], str):
            yield f"{name}:drop", _set(obj, path, _DROP)
        if isinstance(v, str):
            try:
                q = Fraction(v)
            except (ValueError, ZeroDivisionError):
                yield f"{name}:other", _set(obj, path, v + "x")
                continue
            for tag, r in (("+1", q + 1), ("-1", q - 1), ("neg", -q), ("half", q / 2),
                           ("zero", Fraction(0))):
                if r != q:
                    yield f"{name}:{tag}", _set(obj, path, str(r))
            yield f"{name}:int", _set(obj, path, 1)
        elif isinstance(v, bool):
            yield f"{name}:flip", _set(obj, path, not v)
        elif isinstance(v, int):
            for tag, r in (("+1", v + 1), ("-1", v - 1)):
                yield f"{name}:{tag}", _set(obj, path, r)
        elif isinstance(v, list):
            if v:
                yield f"{name}:cut", _set(obj, path, v[:-1])
                yield f"{name}:dup", _set(obj, path, [*v, v[0]])
                if len(v) > 1:
                    yield f"{name}:swap", _set(obj, path, [v[-1], *v[1:-1], v[0]])
            else:
                yield f"{name}:fill", _set(obj, path, ["0"])


def _verdict(obj: Any, folder: Path) -> list[Any]:
    with setting(FILE_BASE, str(folder)):
        v = check(obj)
    return [v.failed_check, v.location] if not v.ok else ["valid", None]


def snapshot() -> dict[str, list[Any]]:
    """{file[::mutation]: [failed check or "valid", location]} of every case."""
    out = {}
    for p in _files():
        obj = json.loads(p.read_text())
        rel = str(p.relative_to(ROOT))
        out[rel] = _verdict(obj, p.parent)
        if p.name.startswith("valid-"):
            for name, mutated in _mutations(obj):
                out[f"{rel}::{name}"] = _verdict(mutated, p.parent)
    return out


def test_convex_verdicts_are_those_recorded():
    want = json.loads(RECORD.read_text())
    got = snapshot()
    assert got.keys() == want.keys(), sorted(set(got) ^ set(want))[:20]
    diff = {k: (want[k], got[k]) for k in want if want[k] != got[k]}
    assert not diff, f"{len(diff)} changed (recorded, now): {dict(list(diff.items())[:20])}"
    # the record is not trivial: every valid file is accepted, mutations are rejected by name
    checks = {v[0] for v in want.values()}
    assert "valid" in checks and len(checks) > 25, checks


@pytest.mark.parametrize("path", [p for p in _files() if not p.name.startswith("valid-")],
                         ids=lambda p: p.name)
def test_invalid_convex_examples_are_rejected(path):
    assert _verdict(json.loads(path.read_text()), path.parent)[0] != "valid"


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        RECORD.write_text(json.dumps(snapshot(), indent=0, sort_keys=True) + "\n")
    else:
        print(__doc__)
