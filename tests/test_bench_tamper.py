"""benchmarks/bench_tamper.py, the acceptance's "one digit of a never-proof changed is
rejected" at any size, run on small audits: a proof inline in its shard and one split over
part files.  Both tampered copies must be refused (first by a hash, then, with the hashes
made consistent, by the arithmetic), the original accepted."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from test_audit_budget import hair_head

from logitgeom.audit import audit_argmax

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_tamper  # noqa: E402


@pytest.mark.parametrize("part_bytes", [None, 24])
def test_one_changed_digit_is_refused_inline_and_in_a_part_file(tmp_path, monkeypatch,
                                                                 part_bytes, capsys):
    import logitgeom.audit.shards as shards_mod

    if part_bytes is not None:
        monkeypatch.setattr(shards_mod, "PROOF_PART_BYTES", part_bytes)
    W, _ = hair_head(40, 5, pushes=(1e-9,), faces=(5,))
    out = tmp_path / "o"
    audit_argmax(W, out=out, progress=False)
    assert bench_tamper.main(["--out", str(out), "--untampered"]) == 0
    text = capsys.readouterr().out
    where = "proof-" if part_bytes else "(inline)"
    assert where in text and "as written: accepted" in text
    assert "one digit changed: refused" in text and "failed_check=file-hash" in text
    assert "hashes made consistent: refused" in text and "failed_check=gordan" in text
