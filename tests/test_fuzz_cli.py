"""The hostile-input CLI battery (bounded): no traceback, no hang, no wrong answer, no overwrite.

Every case runs in a forked child with a timeout (``scripts/fuzz_battery.py``); the full
battery is ``python scripts/fuzz_battery.py``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import fuzz_battery as fb  # noqa: E402

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="the battery forks")

BAD = ("traceback", "hang", "wrong", "overwrite")


def _run(cases, tmp_path, timeout=60.0):
    import logitgeom.cli.main  # noqa: F401 - imported once; the children fork from here

    out = [fb.run_case(c, timeout, tmp_path) for c in cases]
    bad = [f"{r.kind}: {r.case.name}: {r.detail}" for r in out if r.kind in BAD]
    assert not bad, "\n".join(bad)
    return out


def test_hostile_matrix_files_every_reader(tmp_path):
    cases = [c for c in fb.matrix_cases(tmp_path, quick=True)
             if c.argv[0] in ("count", "certify", "symmetry") and c.argv[1] != "differs"]
    res = _run(cases, tmp_path)
    assert sum(r.kind == "clear" for r in res) >= 60


def test_patterns_and_known_answers(tmp_path):
    cases = [c for c in fb.matrix_cases(tmp_path, quick=True) if c.argv[0] == "patterns"]
    _run(cases + fb.cycling_checks(tmp_path) + fb.degenerate_cases(tmp_path, 3, seed=1),
         tmp_path)


def test_outputs_are_never_overwritten_or_truncated(tmp_path):
    cases = [c for c in fb.output_cases(tmp_path) if c.argv[0] != "solve" or "--ew" in c.argv]
    _run(cases, tmp_path)


def test_checker_inputs_and_planted_package(tmp_path):
    _run(fb.check_cases(tmp_path) + [fb.planted_checker_case(tmp_path)], tmp_path)


def test_malformed_model_files(tmp_path):
    _run(fb.model_cases(tmp_path), tmp_path)


def test_mutated_certificates_never_crash_or_hang(tmp_path):
    tally = fb.certificate_battery(tmp_path, 150, seed=3, timeout=20.0)
    assert tally["traceback"] == 0 and tally["hang"] == 0, tally
    assert tally["valid"] + tally["invalid"] == 150


def test_huge_heads_are_refused_at_once(tmp_path):
    import numpy as np

    rng = np.random.default_rng(0)
    np.savetxt(tmp_path / "k200.csv", rng.integers(-9, 10, (200, 10)), fmt="%d", delimiter=",")
    np.savetxt(tmp_path / "k30.csv", rng.integers(-9, 10, (30, 10)), fmt="%d", delimiter=",")
    cases = [fb.Case(f"{' '.join(a)}", [*a, "--no-progress"] if a[0] == "patterns" else a, False,
                     check=lambda c, o, e: None if "general-position bound" in e else e)
             for a in (["patterns", "sign", str(tmp_path / "k200.csv")],
                       ["patterns", "ranking", str(tmp_path / "k200.csv")],
                       ["count", "sign", str(tmp_path / "k200.csv")],
                       ["count", "ranking", str(tmp_path / "k30.csv")])]
    _run(cases, tmp_path)  # each refused by its message (the bound), not by a clock


@pytest.mark.slow
def test_quick_battery_figures():
    results, certs = fb.battery(quick=True, timeout=60, seed=0, mutations=300, degenerate=4)
    s = fb.summarize(results, certs)
    assert s["tracebacks"] == s["hangs"] == s["wrong answers"] == s["overwrites"] == 0, s
