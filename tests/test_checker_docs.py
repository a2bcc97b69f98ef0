"""The checker's module lists in the docs are the modules on disk (issue 42).

README.md, certificates/SPEC.md and docs/architecture.md each name the modules of
``certificates/`` in one passage; docs/certificates.md's Trust tables (checked with their
figures by tests/test_import_graph.py) name the trusted ones.  Here: every module file of
``certificates/`` is named in each passage (``_render*`` stands for the ``_render``
modules), no passage names a module that does not exist, and the README's count of
trusted modules is the count the size test computes.
"""

from __future__ import annotations

import re
from pathlib import Path

from test_import_graph import trusted_modules

ROOT = Path(__file__).resolve().parents[1]
#: (file, text that opens the passage, text that closes it)
PASSAGES = (
    ("README.md", "`certificates/` (the checker, import name", "imports nothing outside"),
    ("certificates/SPEC.md", "The trusted checker `certificates/check.py`", "runs after a verdict"),
    ("docs/architecture.md", "the trusted checker (folder `certificates/`", "docs/certificates.md"),
)
NUMBERS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen "
           "fourteen fifteen sixteen seventeen eighteen nineteen twenty twenty-one "
           "twenty-two twenty-three twenty-four").split()


def _modules() -> set[str]:
    return {p.stem for p in (ROOT / "certificates").glob("*.py") if p.stem != "__init__"}


def _named(passage: str) -> set[str]:
    """Module names in backticks (``name`` or ``name.py``), ``_render*`` expanded."""
    names: set[str] = set()
    for m in re.findall(r"`(?:certificates/)?(\w+\*?)(?:\.py)?`", passage):
        if m.endswith("*"):
            names |= {x for x in _modules() if x.startswith(m[:-1])}
        else:
            names.add(m)
    return names


def _passage(file: str, start: str, end: str) -> str:
    text = (ROOT / file).read_text()
    assert start in text, f"{file}: no passage opening with {start!r}"
    body = text.split(start, 1)[1]
    assert end in body, f"{file}: the passage opening with {start!r} does not close"
    return body.split(end, 1)[0]


def test_every_checker_module_is_named_where_the_modules_are_listed():
    modules = _modules()
    for file, start, end in PASSAGES:
        named = _named(_passage(file, start, end))
        missing = sorted(modules - named)
        assert not missing, f"{file}: the checker's module list lacks {missing}"
        stale = sorted(n for n in named - modules
                       if n.startswith(("check_", "_render")) or n in {"kernel", "meter"})
        assert not stale, f"{file}: the checker's module list names missing modules {stale}"


def test_readme_counts_the_trusted_modules():
    n = len(trusted_modules())
    passage = " ".join(_passage(*PASSAGES[0]).split())
    assert f"{NUMBERS[n]} trusted modules" in passage, \
        f"README.md should say {NUMBERS[n]} trusted modules"
