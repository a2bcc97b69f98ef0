"""The docstring examples of every module of :mod:`logitgeom`, run under the import name.

The engine's folder is ``engine/`` but its import name is ``logitgeom`` (pyproject's
package-dir), so pytest's ``--doctest-modules`` on the folder would import each module a
second time as ``engine.*``; the examples run here instead, one test per module, on the
package as installed (editable in a checkout, the wheel elsewhere).
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import logitgeom


def _modules() -> list[str]:
    names = ["logitgeom"]
    for info in pkgutil.walk_packages(logitgeom.__path__, "logitgeom."):
        if info.name.rsplit(".", 1)[-1] == "__main__":
            continue
        names.append(info.name)
    return sorted(names)


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # an example that writes a file writes it here
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in finder.find(module, name, globs=None, extraglobs=None):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"
