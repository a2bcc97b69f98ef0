"""docs/architecture.md names every module of every room, as the floors test
(tests/test_import_graph.py) keeps its floors true.

A room is a package of ``engine/`` (a folder with ``__init__.py``, the top level included).
The section "Every module, room by room" has one table per room, headed
``### `engine/<room>/` (`logitgeom.<room>`)``, with one row per module: the test fails when
a module has no row, a row names no module, or a room has no table.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ROOT / "engine"
SECTION = "## Every module, room by room"


def _documented() -> dict[str, set[str]]:
    doc = (ROOT / "docs" / "architecture.md").read_text()
    assert SECTION in doc, f"docs/architecture.md has no section {SECTION!r}"
    body = doc.split(SECTION, 1)[1].split("\n## ", 1)[0]
    rooms: dict[str, set[str]] = {}
    room = None
    for line in body.splitlines():
        m = re.match(r"### `(engine/[\w/]*)` \(`(logitgeom[\w.]*)`\)\s*$", line)
        if m:
            room = m.group(1)
            dotted = "logitgeom" + "".join("." + p for p in Path(room).parts[1:])
            assert m.group(2) == dotted, f"{line!r}: the import name is {dotted}"
            assert room not in rooms, f"{room} has two tables"
            rooms[room] = set()
            continue
        m = re.match(r"\| `([\w.]+\.py)` \| (.*) \|\s*$", line)
        if m:
            assert room is not None, f"a module row outside a room: {line!r}"
            assert m.group(2).strip(), f"{room}{m.group(1)} has no job"
            assert m.group(1) not in rooms[room], f"{room}{m.group(1)} has two rows"
            rooms[room].add(m.group(1))
    return rooms


def _on_disk() -> dict[str, set[str]]:
    out = {}
    for init in ENGINE.rglob("__init__.py"):
        folder = init.parent
        room = "engine/" + "".join(p + "/" for p in folder.relative_to(ENGINE).parts)
        out[room] = {p.name for p in folder.glob("*.py")}
    return out


def test_docs_name_every_module_of_every_room():
    doc, disk = _documented(), _on_disk()
    assert sorted(set(disk) - set(doc)) == [], "rooms with no table in docs/architecture.md"
    assert sorted(set(doc) - set(disk)) == [], "tables of rooms that do not exist"
    for room in sorted(disk):
        missing = sorted(disk[room] - doc[room])
        stale = sorted(doc[room] - disk[room])
        assert not missing, f"{room}: modules with no row in docs/architecture.md: {missing}"
        assert not stale, f"{room}: rows of modules that do not exist: {stale}"
