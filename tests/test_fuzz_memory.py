"""Memory on a wide head: certify / patterns / audit on a 2 x 200,000 matrix stay under 1 GB.

A 2.4 MB CSV of 2 labels in 200,000 dimensions once grew ``certify argmax`` to 22.7 GB (an
LP tableau dense in the 200,000 unknowns).  Each command runs in a child under an address
space limit of 1.5 GB (a regression dies with MemoryError instead of taking the machine);
the peak resident set of the children must stay under 1 GB, and each must finish or refuse
at once with one line.  The CPU limit only stops a runaway regression.
"""

from __future__ import annotations

import numpy as np
import pytest
from _fuzz_limits import run_own_peak

MEM = 1536 << 20  # RLIMIT_AS of each child
GB = 1 << 30


@pytest.fixture(scope="module")
def wide(tmp_path_factory):
    d = tmp_path_factory.mktemp("wide")
    W = np.random.default_rng(0).integers(-999, 1000, (2, 200_000))
    np.savetxt(d / "w.csv", W, fmt="%d", delimiter=",")
    np.save(d / "w.npy", W.astype(np.float64))
    return d


@pytest.mark.parametrize("argv", [
    ["certify", "argmax", "{d}/w.csv", "-o", "{d}/argmax.json", "--force"],
    ["certify", "pattern", "{d}/w.csv", "-o", "{d}/pattern.json", "--force"],
    ["patterns", "sign", "{d}/w.csv", "--no-progress"],
    ["count", "ranking", "{d}/w.csv"],
    ["audit-argmax", "{d}/w.npy", "--out", "{d}/audit", "--no-progress"],
], ids=["certify-argmax", "certify-pattern", "patterns", "count", "audit"])
def test_wide_head_under_one_gigabyte(wide, argv):
    args = [a.format(d=wide) for a in argv]
    r = run_own_peak(args, cpu=300, mem=MEM)
    assert not r.killed, f"killed: {r.err[-300:]}"
    assert r.code == 0 or r.one_line_error(), r.err[-500:]
    assert "MemoryError" not in r.err and "out of memory" not in r.err
    peak = r.peak_kb * 1024  # the child's own, KiB on Linux
    assert peak < GB, f"peak resident set {peak / GB:.2f} GB"
