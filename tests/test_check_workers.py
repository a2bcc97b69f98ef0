"""Checking an argmax audit at vocabulary scale, stated (issue 44, item 5): the cost of a
full check printed before it starts, the check split over ``--workers`` with the verdict of
one process, and the default over the budget: every never-proof plus a stated sample."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from logitgeom.audit import audit_argmax
from logitgeom_certificates import _cli, check, check_audit

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def audit(tmp_path_factory):
    """A 300 x 4 audit with its head in a ``.npy`` file and its records in shards."""
    import logitgeom.audit.run as run_mod
    import logitgeom.audit.source as src_mod

    d = tmp_path_factory.mktemp("workers")
    W = np.random.default_rng(0).standard_normal((300, 4))
    W /= np.linalg.norm(W, axis=1, keepdims=True)  # on the sphere: each row argmaxable
    W[7], W[9] = (W[1] + W[2]) / 2, (W[3] + W[4] + W[5]) / 3  # but these two
    np.save(d / "W.npy", W)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(run_mod, "INLINE_ENTRIES", 100)
        mp.setattr(src_mod, "INLINE_ENTRIES", 100)
        audit_argmax(d / "W.npy", out=d / "o", progress=False, block_size=64)
    cert = json.loads((d / "o" / "audit.json").read_text())
    assert "shards" in cert and "file" in cert["head"]
    assert cert["counts"]["all"]["argmaxable"] > 8 and cert["counts"]["all"]["never"] > 0
    return d / "o" / "audit.json"


def _run(main, argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _check(argv, capsys):
    return _run(lambda a: _cli.check_main(a, check.read_and_check, check_audit.check_argmax_audit),
                argv, capsys)


def _check_audit(argv, capsys):
    return _run(lambda a: _cli.audit_main(a, check_audit.check_file), argv, capsys)


def _tampered(src, tmp_path, edits):
    """A copy of the audit folder whose records ``edits`` ({label: function of the entry})
    changes, the shard hashes restated (so only the proofs are wrong)."""
    dst = tmp_path / "t"
    shutil.copytree(src.parent, dst)
    shutil.copy(src.parent.parent / "W.npy", tmp_path / "W.npy")
    cert = json.loads((dst / "audit.json").read_text())
    for sh in cert["shards"]:
        p = dst / sh["file"]
        lines = p.read_bytes().split(b"\n")
        for n, line in enumerate(lines):
            if line.strip() and (rec := json.loads(line))["label"] in edits:
                edits[rec["label"]](rec["all"])
                lines[n] = json.dumps(rec).encode()
        p.write_bytes(b"\n".join(lines))
        sh["sha256"] = hashlib.sha256(p.read_bytes()).hexdigest()
    (dst / "audit.json").write_text(json.dumps(cert))
    return dst / "audit.json"


def _verdicts(path):
    """label -> verdict of the records (read here, in the test)."""
    cert = json.loads(path.read_text())
    out = {}
    for sh in cert["shards"]:
        for line in (path.parent / sh["file"]).read_text().splitlines():
            if line.strip():
                rec = json.loads(line)
                out[rec["label"]] = rec["all"]["verdict"]
    return out


def test_two_workers_give_the_verdict_line_of_one(audit, capsys):
    for run in (_check, _check_audit):
        one = run([str(audit)], capsys)
        two = run([str(audit), "--workers", "2"], capsys)
        assert one[0] == two[0] == 0 and one[1] == two[1], (one, two)
        assert "every proof" in one[1] or "all 300 labels" in one[1]
        assert "cost of a full check" in one[2] and "cost of a full check" in two[2]
    one = _check_audit([str(audit), "--labels", "0-40,200"], capsys)
    two = _check_audit([str(audit), "--labels", "0-40,200", "--workers", "3"], capsys)
    assert one[0] == two[0] == 0 and one[1] == two[1] and "42 labels' proofs" in one[1]


def test_tampered_audit_is_rejected_by_workers_as_by_one_process(audit, tmp_path, capsys):
    verdict = _verdicts(audit)
    never = min(k for k, v in verdict.items() if v == "never")
    late = max(k for k, v in verdict.items() if v == "argmaxable")

    def flip(entry):
        entry["multipliers"][0] = str(2 * int(entry["multipliers"][0].split("/")[0])) + (
            "/" + entry["multipliers"][0].split("/")[1] if "/" in entry["multipliers"][0]
            else "")

    def away(entry):
        entry["witness"] = {"scale": "-1"}

    # one wrong witness late, then also a wrong never-proof early: the first in label order
    for edits, failed in (({late: away}, "witness"),
                          ({late: away, never: flip}, "gordan-combination")):
        bad = _tampered(audit, tmp_path / str(len(edits)), edits)
        for run in (_check, _check_audit):
            one = run([str(bad), "--max-work", "10000000"], capsys)
            two = run([str(bad), "--max-work", "10000000", "--workers", "2"], capsys)
            assert one[0] == two[0] == 1 and one[1] == two[1], (one, two)
            assert f"failed_check={failed}" in one[1], one[1]
    # with the default budget too (the probe finds the never-proof: no cost line)
    one = _check([str(bad)], capsys)
    two = _check([str(bad), "--workers", "2"], capsys)
    assert one[0] == two[0] == 1 and one[1] == two[1] and "INVALID" in one[1]


def test_cost_line_states_the_metered_units(audit, capsys):
    code, out, err = _check([str(audit)], capsys)
    run = functools.partial(_cli.judged, check_audit.check_argmax_audit)
    total, metered, drawn, others, each = _cli.audit_cost(str(audit), run, "default")
    # the structure, hashes, counts, never-proofs and a witness: a --sample 1 check's charge
    assert metered == check_audit.check_file(audit, None, 10 ** 15, 1, 0, {}).work
    n = sum(v == "argmaxable" for v in _verdicts(audit).values())
    assert drawn == 1 and others == n - 1 and total == metered + others * each
    full = check_audit.check_file(audit, None, 10 ** 15, None, 0, {}).work
    assert metered < full and abs(full - total) <= full // 10  # an estimate: within 10 % here
    assert f"about {total:,} work units = {metered:,}" in err
    assert f"{others:,} other witnesses x {each:,}" in err
    # an explicit budget below the cost: refused before the workers start, as one process
    small = str(metered // 2)
    a = _check([str(audit), "--max-work", small], capsys)
    b = _check([str(audit), "--max-work", small, "--workers", "2"], capsys)
    assert a[0] == b[0] == 2 and "NOT CHECKED" in a[1] and a[1] == b[1]


def test_default_over_the_budget_checks_never_proofs_and_a_stated_sample(audit, capsys,
                                                                         monkeypatch):
    assert _cli.audit_mode((10, 5, 1, 1, 5), "default", None, budget=10) == ("full", "default")
    assert _cli.audit_mode((11, 5, 1, 1, 6), "default", None, budget=10) == \
        ("sample", _cli.DEFAULT_SAMPLE)
    assert _cli.audit_mode(None, "default", None, budget=10) == ("sample", _cli.DEFAULT_SAMPLE)
    assert _cli.audit_mode((11, 5, 1, 1, 6), 10, None, budget=10) == ("full", 10)
    assert _cli.audit_mode((11, 5, 1, 1, 6), "default", 3, budget=10) == ("sample", 3)
    monkeypatch.setattr(_cli, "DEFAULT_MAX_WORK", 1000)  # this audit is over that budget
    code, out, err = _check([str(audit)], capsys)
    n = sum(v == "argmaxable" for v in _verdicts(audit).values())
    assert code == 0 and "every never-proof; checked 8 of " f"{n} witnesses" in out, out
    assert "the default check, a full check being over the default budget of 1,000" in out
    code, out, err = _check_audit([str(audit)], capsys)
    assert code == 0 and f"checked 8 of {n} witnesses, seed 0 (the default check" in out
    assert "every proof" not in out
    # an explicit budget is a full check (refused over it), never a sample
    code, out, err = _check([str(audit), "--max-work", "1000"], capsys)
    assert code == 2 and "NOT CHECKED" in out


def test_bad_workers_are_refused(audit, capsys):
    for run in (_check, _check_audit):
        for bad in ("0", "-1", "x", "257"):
            with pytest.raises(SystemExit) as e:
                run([str(audit), "--workers", bad], capsys)
            assert e.value.code == 2


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the battery forks")
def test_fuzz_battery_audit_cases(tmp_path):
    """The battery's cases of these options (scripts/fuzz_battery.py) end cleanly here too."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import fuzz_battery as fb

    import logitgeom.cli.main  # noqa: F401 - imported once; the children fork from here

    cases = fb.audit_check_cases(fb._copy_examples(tmp_path) / "argmax-audit")
    out = [fb.run_case(c, 60.0, tmp_path) for c in cases]
    bad = [f"{r.kind}: {r.case.name}: {r.detail}" for r in out
           if r.kind in ("traceback", "hang", "wrong", "overwrite")]
    assert not bad and len(out) >= 8, "\n".join(bad)


def test_default_sample_of_every_witness_is_said_as_a_full_check(capsys, monkeypatch):
    """Over the budget, a default that draws every witness (here 5 and 1, fewer than 8 per
    domain) checked every proof: its line is a full check's, not a sample's."""
    ex = ROOT / "certificates" / "examples" / "argmax-audit" / "valid-sharded.json"
    full = _check([str(ex)], capsys)
    monkeypatch.setattr(_cli, "DEFAULT_MAX_WORK", 10)
    code, out, err = _check([str(ex)], capsys)
    assert code == 0 and out == full[1] and "sample" not in out and "checked" not in out
    code, out, err = _check_audit([str(ex)], capsys)
    assert code == 0 and "every proof" in out


def test_no_worker_processes_checks_in_one(audit, capsys, monkeypatch):
    import concurrent.futures

    one = _check([str(audit)], capsys)

    def refuse(*a, **k):
        raise OSError("no processes here")

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", refuse)
    code, out, err = _check([str(audit), "--workers", "2"], capsys)
    assert (code, out) == one[:2] and "no worker processes (no processes here)" in err
