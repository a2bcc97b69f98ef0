"""Proofs of any size in the argmax audit (issue 30, item 1): no exact number goes through a
limit the engine or the checker did not choose (Python's int/str digit limit included), and
the checker reads a never-proof's long multipliers only up to the Hadamard bound of the
proof's own rows (certificates/SPEC.md section 9, "Number sizes")."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from logitgeom.audit import audit_argmax
from logitgeom.exact.numbers import fraction_to_str
from logitgeom_certificates import check_audit as A
from logitgeom_certificates import kernel as K
from logitgeom_certificates.api import int_to_str
from logitgeom_certificates.bigint import str_to_int
from logitgeom_certificates.errors import Fail
from logitgeom_certificates.meter import budget

ROOT = Path(__file__).resolve().parents[1]


def test_long_integers_round_trip_without_the_interpreter_limit():
    n = 3 ** 60000  # 28,628 digits, beyond sys.get_int_max_str_digits() = 4,300
    s = int_to_str(n)
    assert len(s) == 28628 and str_to_int(s) == n and str_to_int("-" + s) == -n
    assert fraction_to_str(Fraction(-n, 7)) == f"-{s}/7"
    with pytest.raises(ValueError):
        str_to_int("12a")


def test_read_long_number_bound_and_canonical_form():
    p = int_to_str(7 ** 8000)  # 6,761 digits
    with budget(None):
        assert A.read_long_number(p, "/x", 7000) == 7 ** 8000
        for text, limit in ((p, 6000), (p + "/7", 7000), ("0" + p, 7000), (p + "/1", 7000)):
            with pytest.raises(Fail) as e:
                A.read_long_number(text, "/x", limit)
            assert e.value.check == "number"
        with pytest.raises(Fail):  # beyond MAX_DIGITS without a bound: refused as before
            K.read_number(p, "/x")


def _big_never_head(d: int = 360, spread: int = 24, seed: int = 3) -> np.ndarray:
    """d + 1 float64 rows in general position with entries spread over 2^(+-spread), and a
    last row strictly inside their simplex: its only never-proof has d + 1 rows with
    multipliers of over 10,000 digits."""
    rng = np.random.default_rng(seed)
    V = rng.standard_normal((d + 1, d)) * np.ldexp(1.0, rng.integers(-spread, spread + 1,
                                                                      size=(d + 1, d)))
    return np.vstack([V, rng.dirichlet(np.ones(d + 1)) @ V])


def _check_cli(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "logitgeom_certificates.check_audit", str(path),
                           "--sample", "0"], cwd=ROOT, capture_output=True, text=True,
                          env={"PYTHONPATH": str(ROOT)})


@pytest.mark.slow
def test_never_proof_beyond_10000_digits_is_written_checked_and_tamper_evident(tmp_path):
    W = _big_never_head()
    k = W.shape[0] - 1
    out = tmp_path / "run"
    res = audit_argmax(W, tokens=[k], out=out, progress=False)
    assert res.never() == [k]
    shard = out / "shards" / "block-000000.jsonl"
    rec = json.loads(shard.read_text())
    mult = rec["all"]["multipliers"]
    assert max(map(len, mult)) > 10_000
    ok = _check_cli(out / "audit.json")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    # change one digit of the longest multiplier (keeping the shard hash consistent, so the
    # failure is the mathematics, not the hash)
    j = max(range(len(mult)), key=lambda n: len(mult[n]))
    s = mult[j]
    mult[j] = s[:5000] + ("1" if s[5000] != "1" else "2") + s[5001:]
    data = (json.dumps(rec, sort_keys=True, separators=(",", ":")) + "\n").encode()
    shard.write_bytes(data)
    cert = json.loads((out / "audit.json").read_text())
    cert["shards"][0]["sha256"] = hashlib.sha256(data).hexdigest()
    (out / "audit.json").write_text(json.dumps(cert))
    bad = _check_cli(out / "audit.json")
    assert bad.returncode == 1 and "gordan-combination" in bad.stdout, bad.stdout + bad.stderr
    # a multiplier longer than the rows' Hadamard bound is refused before it is parsed
    mult[j] = s + "0" * (len(s) + 10)
    data = (json.dumps(rec, sort_keys=True, separators=(",", ":")) + "\n").encode()
    shard.write_bytes(data)
    cert["shards"][0]["sha256"] = hashlib.sha256(data).hexdigest()
    (out / "audit.json").write_text(json.dumps(cert))
    bad = _check_cli(out / "audit.json")
    assert bad.returncode == 1 and "number" in bad.stdout, bad.stdout + bad.stderr


def test_small_file_with_long_multipliers_is_judged_under_the_default_budget():
    """A file under 10 KB whose multipliers are longer than 4,000 digits is judged (here:
    refused) under the default work budget: the long numbers are charged before they are
    parsed or multiplied."""
    m = int_to_str(10 ** 4500 + 7)
    cert = {"format": "logitgeom-certificate", "version": 1, "kind": "argmax-audit",
            "head": {"W": [["1", "0"], ["-1", "0"], ["0", "1"], ["0", "1/4"]]},
            "rows": 4, "cols": 2, "domains": ["all"], "labels": [[3, 3]],
            "counts": {"all": {"argmaxable": 0, "never": 1, "undecided": 0}},
            "records": [{"label": 3, "all": {"verdict": "never", "rows": [0, 1, 2],
                                             "multipliers": [m, m, m]}}]}
    assert len(json.dumps(cert)) < 15_000
    from logitgeom_certificates.api import check

    v = check(cert)
    assert not v.ok and v.failed_check == "number"  # 4,501 digits > the rows' bound
