"""Budgets that hold inside native code (issue 44, item 4), and labels a hair inside a face.

The stuck native call is a genuinely slow exact instance (one ``cdd.gmp`` LP of the exact
completion stage on a float64 head with a label pushed 1e-13 inside a 10-row face: about
ten CPU seconds in a single call on a quiet machine), never a mock.  The planted verdicts
are compared with :func:`oracle`, an exact LP (tests/_audit_oracle.py: Fractions, Bland's
rule), which shares no code with the audit.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from _audit_oracle import oracle

from logitgeom.audit import Options, audit_argmax
from logitgeom.audit.bounded import note_stage, run_bounded
from logitgeom_certificates.check import check
from logitgeom_certificates.check_audit import check_file


def hair_head(k: int, d: int, pushes=(1e-9, 1e-11, 1e-13), faces=(5, 10), seed: int = 0):
    """Standard-normal float64 rows; for each (face size m, push e) one label on a random
    convex combination p of m other rows, pushed inside the hull: p (1 - e) (the rows are
    centred at the origin, which is inside their hull)."""
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((k, d))
    labs = rng.choice(k, size=len(pushes) * len(faces), replace=False)
    pool = np.setdiff1d(np.arange(k), labs)
    kinds = {}
    n = 0
    for m in faces:
        for e in pushes:
            lab = int(labs[n])
            n += 1
            src = rng.choice(pool, size=m, replace=False)
            W[lab] = (rng.dirichlet(np.ones(m)) @ W[src]) * (1 - e)
            kinds[lab] = (m, e)
    return W, kinds


# ------------------------------------------------------------------ the independent oracle
def test_oracle_on_a_square():
    W = np.array([[1.0, 0], [-1, 0], [0, 1], [0, -1], [0.25, 0.25], [0.5, 0.5]])
    assert [oracle(W, k) for k in range(6)] == ["argmaxable"] * 4 + ["never", "never"]


def _slow_instance():
    """The integer rows of the exact completion stage's first LP for a label pushed 1e-13
    inside a 10-row face of a 400 x 64 float64 head (one cdd call of about ten CPU s)."""
    from logitgeom.audit.complete import _homogeneous_rows, _initial_active
    from logitgeom.audit.head import HeadSpec, open_head

    W, kinds = hair_head(400, 64, pushes=(1e-13,), faces=(10,))
    lab = next(iter(kinds))
    h = open_head(HeadSpec.from_array(W))
    return W, lab, _homogeneous_rows(h, lab, _initial_active(h, lab, []))


# ------------------------------------------------------------------ budgets
def test_budget_stops_a_single_native_exact_lp():
    from logitgeom.exact.lp import strictly_feasible

    _, _, H = _slow_instance()
    kind, _, cpu = run_bounded(strictly_feasible, (H,), 0.5)
    assert kind == "budget"
    assert 0.5 <= cpu < 0.5 + 1.0  # the budget holds inside cdd (within its poll and kill)


def test_budget_stops_a_single_native_flint_solve():
    """The exact Gordan solve's routine on a 500-square system of 60-bit integers: one call
    into FLINT of a few CPU seconds (its conversion to FLINT takes a few hundredths)."""
    import random

    from logitgeom.exact.intmat import solve_square

    rng = random.Random(0)
    A = [[rng.getrandbits(60) - (1 << 59) for _ in range(500)] for _ in range(500)]
    b = [rng.getrandbits(60) for _ in range(500)]
    kind, _, cpu = run_bounded(solve_square, (A, b), 0.5)
    assert kind == "budget"
    assert 0.5 <= cpu < 0.5 + 1.0  # the budget holds inside FLINT (within a look and a kill)


def test_run_bounded_returns_values_stages_and_errors():
    def staged():
        note_stage("exact")
        while True:
            pass

    assert run_bounded(sorted, ([3, 1, 2],), 10.0)[:2] == ("ok", [1, 2, 3])
    kind, stage, cpu = run_bounded(staged, (), 0.3)
    assert (kind, stage) == ("budget", "exact") and cpu >= 0.3
    with pytest.raises(ZeroDivisionError):
        run_bounded(divmod, (1, 0), None)


def test_label_seconds_holds_in_native_code_and_a_rerun_decides(tmp_path):
    W, lab, _ = _slow_instance()
    out = tmp_path / "o"
    r = audit_argmax(W, tokens=[lab], out=out, progress=False,
                     options=Options(label_seconds=0.05))
    assert r.undecided() == [lab]
    assert r.label_cpu[lab] < 0.05 + 1.0
    rec = json.loads((out / "shards" / "block-000000.jsonl").read_text())["all"]
    assert rec["verdict"] == "undecided" and "label_seconds=0.05" in rec["reason"]
    assert rec["stage"] in {"start", "wolfe", "refine", "lp", "exact"}
    assert check_file(str(out / "audit.json"), max_work=None).ok
    state = json.loads((out / "run.json").read_text())
    assert state["undecided"] == {"block-000000.jsonl": [lab]}
    # the rerun in the same folder (no budget) re-decides the undecided label only
    r2 = audit_argmax(W, tokens=[lab], out=out, progress=False)
    assert r2.counts["all"]["undecided"] == 0
    assert json.loads((out / "run.json").read_text())["undecided"] == {}
    assert check_file(str(out / "audit.json"), max_work=None).ok
    assert r2.verdicts["all"][lab] == "never"


# ------------------------------------------------------------------ decided, not left over
def test_labels_a_hair_inside_faces_are_decided_and_agree_with_the_oracle():
    W, kinds = hair_head(60, 6)
    r = audit_argmax(W, progress=False)
    assert r.counts["all"]["undecided"] == 0
    assert check(r.certificate(), None).ok
    for k in range(len(W)):
        assert r.verdicts["all"][k] == oracle(W, k), k
    assert set(kinds) <= set(r.never())


def test_labels_pushed_1e13_inside_faces_of_the_acceptance_head_are_decided():
    """Issue 44's size, 3,000 x 128 float64: without a budget the labels pushed 1e-13 inside
    a 5- and a 10-row face are proven never (the stdlib checker verifies the multipliers
    exactly), none left undecided."""
    W, kinds = hair_head(3000, 128, pushes=(1e-13,))
    r = audit_argmax(W, tokens=sorted(kinds), progress=False)
    assert r.counts["all"] == {"argmaxable": 0, "never": 2, "undecided": 0}
    assert check(r.certificate(), None).ok


# ------------------------------------------------------------------ proofs of any size
def _split_run(tmp_path, monkeypatch, part_bytes=24):
    import logitgeom.audit.shards as shards_mod

    monkeypatch.setattr(shards_mod, "PROOF_PART_BYTES", part_bytes)
    W, kinds = hair_head(40, 5, pushes=(1e-9,), faces=(5, 10))
    out = tmp_path / "o"
    r = audit_argmax(W, out=out, progress=False)
    return W, kinds, out, r


def test_a_never_proof_split_over_part_files_is_written_resumed_and_checked(tmp_path,
                                                                            monkeypatch):
    W, kinds, out, r = _split_run(tmp_path, monkeypatch)
    assert r.counts["all"]["undecided"] == 0 and set(kinds) <= set(r.never())
    for k in kinds:
        assert oracle(W, k) == "never"
    recs = [json.loads(x) for x in (out / "shards" / "block-000000.jsonl").read_text().split()]
    split = [x for x in recs if x["all"]["verdict"] == "never"
             and isinstance(x["all"]["multipliers"], dict)]
    assert split and all(len(x["all"]["multipliers"]["parts"]) > 1 for x in split)
    parts = sorted((out / "shards").glob("proof-*.json"))
    assert all(len(json.loads(p.read_text())) >= 1 for p in parts)
    assert check_file(str(out / "audit.json"), max_work=None).ok
    # the work meter charges the parts: a tiny budget refuses, the default accepts
    assert not check_file(str(out / "audit.json"), max_work=10).ok
    # resumed: same folder, nothing recomputed, the same certificate
    before = (out / "audit.json").read_bytes()
    r2 = audit_argmax(W, out=out, progress=False)
    assert r2.label_cpu == {} and (out / "audit.json").read_bytes() == before
    # a missing part: its block is decided again and the part rewritten
    parts[0].unlink()
    audit_argmax(W, out=out, progress=False)
    assert parts[0].exists() and check_file(str(out / "audit.json"), max_work=None).ok


def test_tampering_with_one_digit_of_a_split_proof_is_rejected(tmp_path, monkeypatch):
    import hashlib

    _, _, out, _ = _split_run(tmp_path, monkeypatch)
    part = sorted((out / "shards").glob("proof-*.json"))[0]
    texts = json.loads(part.read_text())
    digit = texts[0][-1]
    texts[0] = texts[0][:-1] + ("1" if digit != "1" else "2")
    part.write_text(json.dumps(texts, separators=(",", ":")) + "\n")
    v = check_file(str(out / "audit.json"), max_work=None)
    assert not v.ok and v.failed_check == "file-hash"
    # the hashes made consistent again: the arithmetic refuses the proof
    sha = hashlib.sha256(part.read_bytes()).hexdigest()
    shard = out / "shards" / "block-000000.jsonl"
    name = f"shards/{part.name}"
    lines = []
    for line in shard.read_text().splitlines():
        rec = json.loads(line)
        for e in (rec[d] for d in rec if d != "label"):
            for ref in e.get("multipliers", {}).get("parts", []) if isinstance(
                    e.get("multipliers"), dict) else []:
                if ref["file"] == name:
                    ref["sha256"] = sha
        lines.append(json.dumps(rec, sort_keys=True, separators=(",", ":")))
    shard.write_text("\n".join(lines) + "\n")
    cert = json.loads((out / "audit.json").read_text())
    cert["shards"][0]["sha256"] = hashlib.sha256(shard.read_bytes()).hexdigest()
    (out / "audit.json").write_text(json.dumps(cert))
    v = check_file(str(out / "audit.json"), max_work=None)
    assert not v.ok and v.failed_check.startswith("gordan")


# ------------------------------------------------------------------ one child per label
def _all_then_spin(head, k, doms, rec, opts, stats):
    """A label body whose first domain is finished and whose second never ends."""
    from logitgeom.audit.bounded import note_partial

    note_partial(("all", {"verdict": "never", "stage": "refine", "rows": [], "multipliers": []}))
    note_stage("lp")
    while True:
        pass


def test_the_budget_covers_the_whole_label_and_keeps_its_finished_domain():
    from logitgeom.audit.labelrun import run_label

    stats: dict = {}
    out, m = run_label(_all_then_spin, None, 3, ["all", "box"], {"label": 3},
                       Options(label_seconds=0.2, domains=("all", "box")), stats)
    assert out["all"]["verdict"] == "never" and m is None
    assert out["box"]["verdict"] == "undecided" and out["box"]["stage"] == "lp"
    assert "label_seconds=0.2 CPU s ran out in the lp stage" in out["box"]["reason"]
    assert stats["killed_labels"] == 1 and 0.2 <= stats["_child_cpu"] < 0.2 + 1.0
    assert stats["budget_stopped"] == stats["_child_cpu"]


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), float("inf"), "5", True])
def test_a_bad_budget_is_refused_by_the_api(bad):
    from logitgeom.errors import InvalidInput

    with pytest.raises(InvalidInput, match="label_seconds must be a finite positive number"):
        audit_argmax(np.eye(3), progress=False, options=Options(label_seconds=bad))


@pytest.mark.parametrize("bad", ["0", "-2", "nan", "inf"])
def test_a_bad_budget_is_refused_by_the_cli(tmp_path, capsys, bad):
    from logitgeom.cli.main import main

    np.save(tmp_path / "W.npy", np.eye(3))
    assert main(["audit-argmax", str(tmp_path / "W.npy"), "--label-seconds", bad]) == 2
    err = capsys.readouterr().err.strip()
    assert "--label-seconds must be a finite positive number" in err and "\n" not in err


def _children(pid: int) -> list[int]:
    from logitgeom.run.worker import child_pids

    return child_pids(pid)


def test_sigint_inside_a_label_stops_the_run_and_a_rerun_resumes(tmp_path):
    """SIGINT to the CLI process (as ``kill -INT``) while a label's child process works:
    exit 130 with one line, the child gone, run.json names the signal; the rerun in the same
    folder (here with a small budget, to stay fast) decides the run again and clears it."""
    import os
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    # a label of many CPU seconds unbounded (the budget bites at 5 CPU s on this shape), so
    # that a loaded machine's scheduling delays cannot let it finish before the signal
    W, kinds = hair_head(1500, 512, pushes=(1e-13,), faces=(10,))
    lab = next(iter(kinds))
    np.save(tmp_path / "W.npy", W)
    out = tmp_path / "o"
    cmd = [sys.executable, "-m", "logitgeom", "audit-argmax", str(tmp_path / "W.npy"),
           "--tokens", str(lab), "-o", str(out), "--no-progress"]
    def as_in_a_terminal() -> None:  # SIGINT as a shell gives it, whatever this worker
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # inherited (ignored or blocked by
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # an earlier test)

    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=dict(os.environ), preexec_fn=as_in_a_terminal)
    child = None
    t0 = time.monotonic()
    while child is None and p.poll() is None and time.monotonic() - t0 < 120:
        kids = _children(p.pid)
        child = kids[0] if kids else None
        time.sleep(0.01)
    assert child is not None, "the label's child process was never seen"
    assert Path(f"/proc/{child}").exists(), "the label finished before the signal"
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)  # generous: the run must end, not hang
    assert p.returncode == 130 and "interrupted" in err, err
    assert not Path(f"/proc/{child}").exists()
    state = json.loads((out / "run.json").read_text())
    assert state["stopped"].startswith("SIGINT") and state["done"] == {}
    again = subprocess.run(cmd + ["--label-seconds", "0.3"], capture_output=True, text=True,
                           env=dict(os.environ), timeout=300)
    assert again.returncode == 0, again.stderr
    state = json.loads((out / "run.json").read_text())
    assert "stopped" not in state and list(state["done"]) == ["block-000000.jsonl"]
    rec = json.loads((out / "shards" / "block-000000.jsonl").read_text())["all"]
    assert rec["verdict"] in {"never", "undecided"}
    if rec["verdict"] == "undecided":
        assert "label_seconds=0.3" in rec["reason"]
        assert state["undecided"] == {"block-000000.jsonl": [lab]}


def _dies(head, k, doms, rec, opts, stats):
    """A label body whose process is killed from outside the budget (as the kernel's
    out-of-memory killer would)."""
    import os
    import signal

    os.kill(os.getpid(), signal.SIGKILL)


def test_a_child_killed_by_the_system_is_a_one_line_error_naming_the_label():
    from logitgeom.audit.bounded import ChildDied
    from logitgeom.audit.labelrun import run_label
    from logitgeom.errors import SolverFailed

    with pytest.raises(ChildDied, match="killed by SIGKILL"):
        run_bounded(_dies, (None, 0, [], {}, None, {}), None)
    with pytest.raises(SolverFailed, match="label 7: .*killed by SIGKILL.*rerun"):
        run_label(_dies, None, 7, ["all"], {"label": 7}, Options(), {})
