"""Plain audits at memory speed (issue 44, item 3): a pass over a memory-mapped head leaves
none of it resident (the passes release the pages they read), with the same floats as an
in-memory head; the stdlib checker reads a referenced head's values in place and still
rejects a changed byte."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from logitgeom.audit import audit_argmax
from logitgeom.audit.head import HeadSpec, open_head
from logitgeom_certificates.check_audit import check_file


def _mapped_rss_kb(path: Path) -> int | None:
    """Resident kB of this process's mappings of ``path`` (None without /proc)."""
    try:
        lines = Path("/proc/self/smaps").read_text().splitlines()
    except OSError:
        return None
    total, inside = 0, False
    for line in lines:
        head = line.split()
        if head and "-" in head[0] and len(head) >= 5:  # a mapping's first line
            inside = line.endswith(str(path))
        elif inside and line.startswith("Rss:"):
            total += int(head[1])
    return total


def test_passes_release_the_mapped_head(tmp_path):
    W = np.random.default_rng(3).standard_normal((4000, 64)).astype(np.float32)
    path = tmp_path / "W.npy"
    np.save(path, W)
    h = open_head(HeadSpec("npy", path=str(path)))
    mem = open_head(HeadSpec.from_array(W))
    X = W[:7].T.astype(np.float64)
    assert np.array_equal(h.matmul(X), mem.matmul(X))
    assert np.array_equal(h.norms(), mem.norms())
    h.propose_matvec(X[:, 0])  # float32 products on the stored float32 rows
    assert np.array_equal(h.matmul32(X.astype(np.float32)), mem.matmul32(X.astype(np.float32)))
    rss = _mapped_rss_kb(path.resolve())
    if rss is None:
        pytest.skip("no /proc/self/smaps")
    assert rss * 1024 <= W.nbytes // 8  # 1 MB of float32 read four times; a page or two left
    open_head.cache_clear()


def test_checker_reads_the_head_in_place_and_rejects_a_changed_byte(tmp_path):
    W = np.random.default_rng(4).standard_normal((8, 10000)).astype(np.float32)
    path = tmp_path / "W.npy"
    np.save(path, W)  # 80,000 entries: referenced, not inline
    out = tmp_path / "out"
    audit_argmax(path, out=out, progress=False, rows_are_labels=True)
    open_head.cache_clear()
    assert check_file(out / "audit.json", labels={0, 1}).ok  # the head read, two proofs
    data = bytearray(path.read_bytes())
    data[-5] ^= 1
    path.write_bytes(bytes(data))
    assert check_file(out / "audit.json", labels={0, 1}).failed_check == "file-hash"
