"""Every name ``logitgeom`` exports is documented in numpydoc form (issue 36): functions have
Parameters (when they take any), Returns and Raises sections; classes list their
Parameters or Attributes."""

from __future__ import annotations

import inspect

import logitgeom


def test_every_export_has_numpydoc_sections():
    missing = []
    for name in logitgeom.__all__:
        obj = getattr(logitgeom, name)
        doc = inspect.getdoc(obj) or ""
        if inspect.isfunction(obj):
            need = ["Returns", "Raises"]
            if inspect.signature(obj).parameters:
                need.append("Parameters")
        elif inspect.isclass(obj):
            need = [] if ("Parameters\n" in doc or "Attributes\n" in doc) else ["Attributes"]
        else:
            continue
        gaps = [s for s in need if f"{s}\n" not in doc]
        if gaps:
            missing.append(f"{name}: {', '.join(gaps)}")
    assert not missing, "\n".join(missing)
