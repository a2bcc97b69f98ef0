"""Shared test configuration: the ``mosek`` marker skips when no licence is usable."""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

settings.register_profile("ci", max_examples=40, deadline=None, derandomize=True)
settings.register_profile("dev", max_examples=25, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


def pytest_collection_modifyitems(config, items):
    from logitgeom.convex.solvers import mosek_licensed

    if mosek_licensed():
        return
    skip = pytest.mark.skip(reason="MOSEK licence not usable on this machine")
    for item in items:
        if "mosek" in item.keywords:
            item.add_marker(skip)
