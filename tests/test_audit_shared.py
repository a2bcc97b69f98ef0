"""Shared never-proofs of clustered labels (issue 44, item 2): logitgeom.audit.shared.

The head has a planted cluster (under-trained tokens: a common point plus small
full-precision noise) inside a simplex of large rows, and random rows inside.  The verdicts
are compared with the audit run alone (``shared_supports=False``) and with :func:`oracle`,
an exact LP (tests/_audit_oracle.py: Fractions, Bland's rule) that shares no code with the audit.
"""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest
from _audit_oracle import oracle

from logitgeom.audit import Options, audit_argmax
from logitgeom.errors import InvalidInput
from logitgeom_certificates.check import check
from logitgeom_certificates.check_audit import check_file

#: shared supports are opt-in (a resumed run may prove a label on another support)
ON = Options(shared_supports=True)


def cluster_head(seed: int = 3, d: int = 8, n_cluster: int = 8, n_inside: int = 31,
                 dtype=np.float32) -> tuple[np.ndarray, list[int]]:
    """d + 1 rows of norm 100 (a regular simplex around the origin, randomly rotated; its
    inradius is 100 / d), ``n_cluster`` rows at one point inside it (norm 30 / d) plus 1e-3
    full-precision noise, ``n_inside`` random rows of norm below 80 / d; rows shuffled.
    Returns (W, the cluster's labels)."""
    rng = np.random.default_rng(seed)
    E = np.eye(d + 1) - 1.0 / (d + 1)  # the simplex's vertices in the plane sum = 0
    V = E @ np.linalg.svd(E)[0][:, :d]  # coordinates in an orthonormal basis of the plane
    Q2, _ = np.linalg.qr(rng.standard_normal((d, d)))
    V = V @ Q2
    V *= 100 / np.linalg.norm(V, axis=1)[:, None]
    c = rng.standard_normal(d)
    c *= (30 / d) / np.linalg.norm(c)
    C = c + 1e-3 * rng.standard_normal((n_cluster, d))
    R = rng.standard_normal((n_inside, d))
    R *= (rng.uniform(0, 80 / d, n_inside) / np.linalg.norm(R, axis=1))[:, None]
    W = np.vstack([V, C, R]).astype(dtype)
    perm = rng.permutation(len(W))
    cluster = sorted(int(np.flatnonzero(perm == i)[0]) for i in range(d + 1, d + 1 + n_cluster))
    return W[perm], cluster


# ------------------------------------------------------------------ the independent oracle
def test_oracle_on_a_square():
    W = np.array([[1.0, 0], [-1, 0], [0, 1], [0, -1], [0.25, 0.25], [0.5, 0.5]])
    assert [oracle(W, k) for k in range(6)] == ["argmaxable"] * 4 + ["never", "never"]


# ------------------------------------------------------------------ the audit
@pytest.fixture(scope="module")
def head():
    return cluster_head()


@pytest.fixture(scope="module")
def truth(head):
    W, _ = head
    return {k: oracle(W, k) for k in range(len(W))}


@pytest.fixture(scope="module")
def runs(head):
    W, _ = head
    on = audit_argmax(W, progress=False, block_size=16, options=ON)
    off = audit_argmax(W, progress=False, block_size=16,
                       options=Options(shared_supports=False))
    return on, off


def test_cluster_labels_are_proven_shared_and_agree(head, runs, truth):
    W, cluster = head
    on, off = runs
    cert = on.certificate()
    recs = {r["label"]: r for r in cert["records"]}
    shared = [k for k, r in recs.items() if r["all"]["stage"] == "shared"]
    assert shared and set(cluster) & set(shared)
    def rows(k):  # a support written once: later entries name it ({"as": label})
        r = recs[k]["all"]["rows"]
        return rows(r["as"]) if isinstance(r, dict) else r

    for k in shared:  # the usual never record, on d + 1 rows
        assert recs[k]["all"]["verdict"] == "never" and len(rows(k)) == W.shape[1] + 1
    assert any(isinstance(recs[k]["all"]["rows"], dict) for k in shared)
    assert check(cert).ok
    assert on.verdicts == off.verdicts
    assert on.verdicts["all"] == truth
    assert all(r["all"]["stage"] != "shared" for r in off.certificate()["records"])
    st = on.stage_seconds
    assert st["shared_labels"] == len(shared) and st["shared_batches"] >= 1
    assert {"shared", "shared_solve", "shared_check", "shared_prefilter"} <= set(st)
    assert not any(key.startswith("shared") for key in off.stage_seconds)
    assert set(shared) <= set(on.label_cpu) and all(on.label_cpu[k] > 0 for k in shared)


def test_a_tampered_shared_proof_is_rejected(runs):
    cert = json.loads(json.dumps(runs[0].certificate()))
    r = next(r for r in cert["records"] if r["all"]["stage"] == "shared")
    r["all"]["multipliers"][0] = str(int(r["all"]["multipliers"][0]) + 1)
    assert not check(cert).ok


def test_decide_block_shares_and_splits_the_batch_cpu(head, truth):
    from logitgeom.audit.decide import decide_block
    from logitgeom.audit.head import HeadSpec
    from logitgeom.audit.shared import _WORKER

    W, cluster = head
    _WORKER.clear()  # this process's pool starts empty
    recs, st = decide_block(HeadSpec.from_array(W), tuple(range(len(W))),
                            Options(shared_columns=2, shared_supports=True))
    stages = Counter(r["all"]["stage"] for r in recs)
    assert stages["shared"] >= 2 and st["shared_batches"] >= stages["shared"] // 2
    assert {r["label"]: r["all"]["verdict"] for r in recs} == truth
    cpu = st["_label_cpu"]
    assert all(cpu[r["label"]] > 0 for r in recs if r["all"]["stage"] == "shared")


def test_a_tiny_budget_still_ends_with_valid_records(head, truth, tmp_path):
    W, _ = head
    r = audit_argmax(W, progress=False, block_size=16, out=tmp_path / "o",
                     options=Options(label_seconds=1e-3, shared_supports=True))
    assert check_file(tmp_path / "o" / "audit.json").ok
    for rec in (json.loads(line) for f in sorted((tmp_path / "o" / "shards").glob("*.jsonl"))
                for line in f.read_text().splitlines()):
        a = rec["all"]
        if a["verdict"] == "undecided":
            assert "label_seconds=0.001" in a["reason"]
        else:
            assert a["verdict"] == truth[rec["label"]]
    assert sum(r.counts["all"].values()) == len(W)


def test_a_head_with_a_bias_shares_nothing(head, truth):
    W, _ = head
    r = audit_argmax(W, bias=np.zeros(len(W)), progress=False, block_size=16, options=ON)
    assert all(x["all"]["stage"] != "shared" for x in r.certificate()["records"])
    assert r.verdicts["all"] == truth
    assert not any(key.startswith("shared") for key in r.stage_seconds)


def test_the_box_domain_copies_a_shared_proof(head):
    W, _ = head
    r = audit_argmax(W, radius=10, progress=False, block_size=16, options=ON)
    recs = r.certificate()["records"]
    sh = [x for x in recs if x["all"]["stage"] == "shared"]
    assert sh and all(x["box"] == x["all"] for x in sh)
    assert check(r.certificate()).ok


@pytest.mark.parametrize("bad", [{"shared_supports": "no"}, {"shared_supports": 1},
                                 {"shared_columns": 0}, {"shared_columns": 2.5},
                                 {"shared_columns": True}])
def test_bad_shared_options_are_refused(bad):
    with pytest.raises(InvalidInput, match="shared_"):
        audit_argmax(np.eye(3), progress=False, options=Options(**bad))


def test_the_cli_flag_and_the_run_state(head, tmp_path, capsys):
    from logitgeom.cli.main import main

    W, _ = head
    np.save(tmp_path / "W.npy", W)
    out = tmp_path / "o"
    assert main(["audit-argmax", str(tmp_path / "W.npy"), "--out", str(out),
                 "--no-shared-supports", "--no-progress", "--block-size", "16"]) == 0
    state = json.loads((out / "run.json").read_text())
    assert state["options"]["shared_supports"] is False
    assert Options().shared_supports is False  # the default: every label alone
    recs = [json.loads(line) for f in sorted((out / "shards").glob("*.jsonl"))
            for line in f.read_text().splitlines()]
    assert recs and all(r["all"]["stage"] != "shared" for r in recs)
    # another value of the option resumes the same run (no proof depends on it)
    assert main(["audit-argmax", str(tmp_path / "W.npy"), "--out", str(out),
                 "--shared-supports", "--no-progress", "--block-size", "16"]) == 0
    assert json.loads((out / "run.json").read_text())["options"]["shared_supports"] is True
    capsys.readouterr()
    out2 = tmp_path / "o2"
    assert main(["audit-argmax", str(tmp_path / "W.npy"), "--out", str(out2),
                 "--shared-supports", "--no-progress", "--block-size", "16"]) == 0
    recs2 = [json.loads(line) for f in sorted((out2 / "shards").glob("*.jsonl"))
             for line in f.read_text().splitlines()]
    assert any(r["all"]["stage"] == "shared" for r in recs2)
    assert [r["all"]["verdict"] for r in recs2] == [r["all"]["verdict"] for r in recs]
    assert check_file(out2 / "audit.json").ok


@pytest.fixture(scope="module")
def wide():
    """A 101 x 48 float64 cluster head (an exact shared solve of about 0.1 CPU s)."""
    from logitgeom.audit.head import HeadSpec, open_head
    from logitgeom.audit.shared import SupportPool, cluster_supports

    W, cl = cluster_head(seed=1, d=48, n_cluster=12, n_inside=40, dtype=np.float64)
    spec = HeadSpec.from_array(W)
    h = open_head(spec)
    pool = SupportPool()
    sup = pool.add(h, list(cluster_supports(h, cl[0], (), cl))[1])
    assert sup is not None and not set(sup.rows) & set(cl)  # rows outside the cluster
    cands = pool.candidates(h, cl)[0][1]
    assert len(cands) >= len(cl) // 2
    return W, cands, spec, h, pool


def test_the_batch_budget_stops_a_shared_solve(wide):
    """label_seconds x (labels in the batch): 1e-4 x 12 CPU s stops the batch's child (in
    FLINT or the checks); nothing unproven comes back, the labels go the one-label path."""
    from logitgeom.audit.proofs import check_multipliers
    from logitgeom.audit.shared import prove_batch, run_batch

    W, cl, spec, h, pool = wide
    rows = pool.items[0].rows
    st: dict = {}
    got, cpu = run_batch(h, rows, cl, Options(label_seconds=1e-4), st)
    assert st["shared_stopped"] == 1 and st["shared_batches"] == 1 and cpu > 0
    for k, r in got.items():  # what a stopped batch hands back is proven
        assert check_multipliers(h, k, r["rows"], [int(c) for c in r["multipliers"]], None)
    full = prove_batch(h, rows, cl, Options(), {})
    assert sorted(full) == cl and all(r["stage"] == "shared" for r in full.values())


def test_a_stopped_batch_falls_back_to_the_label_path(wide):
    from logitgeom.audit.decide import decide_block
    from logitgeom.audit.shared import _WORKER

    W, cl, spec, h, pool = wide
    _WORKER[:] = [spec, pool]  # a support this process found in an earlier block
    recs, st = decide_block(spec, tuple(cl), Options(label_seconds=1e-4, shared_supports=True))
    assert st.get("shared_stopped", 0) >= 1
    for r in recs:
        a = r["all"]
        assert a["verdict"] in ("never", "undecided")
        if a["verdict"] == "undecided":
            assert "label_seconds=0.0001" in a["reason"]
    _WORKER[:] = [spec, pool]
    recs, st = decide_block(spec, tuple(cl), ON)
    assert [r["all"]["stage"] for r in recs] == ["shared"] * len(cl)
    _WORKER.clear()


def test_shared_runs_do_not_depend_on_the_executor_and_resume(head, tmp_path):
    """Waves of fixed sizes, results taken in unit order: the same bytes serially and on two
    worker processes (the shared units are pickled).  A resumed run re-decides its blocks
    with the supports it finds then: the same verdicts, every proof checked (the bytes may
    differ from an uninterrupted run's)."""
    from logitgeom.run.executor import make_executor

    W, _ = head
    a = audit_argmax(W, out=tmp_path / "a", block_size=16, progress=False, options=ON)
    ex = make_executor(workers=2)
    try:
        audit_argmax(W, out=tmp_path / "b", block_size=16, executor=ex, progress=False,
                     options=ON)
    finally:
        ex.shutdown()
    assert (tmp_path / "a" / "audit.json").read_bytes() == \
        (tmp_path / "b" / "audit.json").read_bytes()
    out = tmp_path / "a"
    state = json.loads((out / "run.json").read_text())
    for name in ("block-000001.jsonl", "block-000002.jsonl"):
        (out / "shards" / name).unlink()
        state["done"].pop(name)
    (out / "run.json").write_text(json.dumps(state))
    r = audit_argmax(W, out=out, block_size=16, progress=False, options=ON)
    assert r.verdicts == a.verdicts and check_file(out / "audit.json").ok
