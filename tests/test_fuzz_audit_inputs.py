"""audit-argmax on a plain large CSV / JSON head and on a corrupt .npz (second round).

A ``.csv`` or ``.json`` head above 65,536 entries raised TypeError, a corrupt ``.npz`` a raw
BadZipFile.  These pass once the audit branch's fixes are merged.  Each run is a child
under RLIMIT_CPU (see ``tests/_fuzz_limits.py``); a correct verdict or one error line.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from _fuzz_limits import run


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_audit_large_text_head(tmp_path, fmt):
    W = np.random.default_rng(0).integers(-9, 10, (300, 300))
    p = tmp_path / f"w.{fmt}"
    if fmt == "csv":
        np.savetxt(p, W, fmt="%d", delimiter=",")
    else:
        p.write_text(json.dumps(W.tolist()))
    r = run(["audit-argmax", str(p), "--out", str(tmp_path / "a"), "--no-progress"], cpu=300)
    assert r.code == 0 or r.one_line_error(), r.err[-500:]
    assert "Traceback" not in r.err and "TypeError" not in r.err


def test_audit_corrupt_npz(tmp_path):
    p = tmp_path / "w.npz"
    p.write_bytes(b"PK\x03\x04" + bytes(range(256)) * 4)
    r = run(["audit-argmax", str(p), "--out", str(tmp_path / "a"), "--no-progress"])
    assert r.one_line_error(), r.err[-500:]
    assert "BadZipFile" not in r.err or "Traceback" not in r.err


@pytest.mark.parametrize("kw", [{"tokens": -1}, {"executor": "abc"}, {"options": "abc"},
                                {"block_size": None}])
def test_audit_argmax_bad_arguments_are_one_clear_error(kw):
    from logitgeom.audit import audit_argmax
    from logitgeom.errors import InvalidInput

    with pytest.raises(InvalidInput):
        audit_argmax([[1, 0], [0, 1], [1, 1]], progress=False, **kw)
