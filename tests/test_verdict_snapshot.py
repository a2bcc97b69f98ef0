"""Every certificate of the repository (``certificates/paper``, ``certificates/examples``,
``invalid-*`` included) gets the verdict recorded in tests/data/verdict_snapshot.json:
accept or reject, the name of the failing check and its location.  Refactors of the
trusted checker (issue 42) must leave the file unchanged; regenerate it only for a
deliberate change of a verdict (``python tests/test_verdict_snapshot.py --write``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from logitgeom_certificates.check import check_file

ROOT = Path(__file__).resolve().parents[1]
SNAPSHOT = ROOT / "tests" / "data" / "verdict_snapshot.json"
FILES = sorted(str(p.relative_to(ROOT)) for d in ("certificates/paper", "certificates/examples")
               for p in (ROOT / d).rglob("*.json"))


def verdict(rel: str) -> list[object]:
    """[ok, kind, failed check, location] of one file, as the checker reads it."""
    v = check_file(str(ROOT / rel))
    return [v.ok, v.kind, v.failed_check, v.location]


def test_snapshot_lists_every_certificate():
    assert sorted(json.loads(SNAPSHOT.read_text())) == FILES


@pytest.mark.parametrize("rel", FILES)
def test_same_verdict(rel):
    assert verdict(rel) == json.loads(SNAPSHOT.read_text())[rel]


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    SNAPSHOT.write_text(json.dumps({f: verdict(f) for f in FILES}, indent=1) + "\n")
