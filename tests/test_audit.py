"""Argmax audit: verdicts against the exact argmaxable and brute-force LPs, certificates,
tampering, bias, the bounded domain, resume, determinism, executors and the CLI."""

from __future__ import annotations

import json
import struct
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import linprog

from logitgeom.audit import audit_argmax
from logitgeom.audit.decide import Options, confirm_witness, rounding_bound
from logitgeom.audit.head import HeadSpec, open_head
from logitgeom.errors import InvalidInput
from logitgeom.geometry import argmaxable
from logitgeom_certificates import _cli, check_audit
from logitgeom_certificates.check import check
from logitgeom_certificates.check_audit import check_file


def planted_head(k=24, d=4, seed=0, bias=False):
    """Gaussian rows on a 2^-8 grid plus planted interior labels (midpoint, average)."""
    rng = np.random.default_rng(seed)
    W = (np.round(rng.standard_normal((k, d)) * 256) / 256).astype(np.float32)
    W[k - 1] = (W[0] + W[1]) / 2                      # on a segment: never
    W[k - 2] = (W[2] + W[3] + W[4] + W[5]) / 4        # inside a simplex: never
    W[k - 3] = W[6] / 64                              # shrunken: usually inside the hull
    b = (np.round(rng.standard_normal(k) * 64) / 64).astype(np.float32) if bias else None
    return W, b


def brute_force(W, b, radius=None):
    """Max-margin LP over all rows (float; only used where its margin is clear)."""
    k, d = W.shape
    W = W.astype(np.float64)
    b = np.zeros(k) if b is None else b.astype(np.float64)
    out = {}
    for lab in range(k):
        D = np.delete(W[lab] - W, lab, axis=0)
        db = np.delete(b[lab] - b, lab)
        if radius is None:  # homogenised (x, t), t >= s
            A = np.vstack([np.hstack([-D, -db[:, None], np.ones((k - 1, 1))]),
                           np.concatenate([np.zeros(d), [-1.0, 1.0]])])
            res = linprog(np.r_[np.zeros(d + 1), -1.0], A_ub=A, b_ub=np.zeros(k),
                          bounds=[(-1, 1)] * d + [(0, 1), (None, 1)], method="highs")
        else:
            A = np.hstack([-D, np.ones((k - 1, 1))])
            res = linprog(np.r_[np.zeros(d), -1.0], A_ub=A, b_ub=db,
                          bounds=[(-radius, radius)] * d + [(None, 1)], method="highs")
        s = -res.fun
        out[lab] = "argmaxable" if s > 1e-7 else ("never" if s < 1e-7 else "unclear")
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("with_bias", [False, True])
def test_matches_exact_argmaxable_and_brute_force(seed, with_bias):
    W, b = planted_head(seed=seed, bias=with_bias)
    r = audit_argmax(W, bias=b, progress=False)
    ref = argmaxable(W.astype(np.float64), None if b is None else b.astype(np.float64))
    assert r.counts["all"]["undecided"] == 0
    assert sorted(k for k, v in r.verdicts["all"].items() if v == "argmaxable") == \
        list(ref.labels)
    if not with_bias:
        assert {23, 22} <= set(r.never())
    bf = brute_force(W, b)
    assert all(r.verdicts["all"][k] == v for k, v in bf.items() if v != "unclear")
    assert check(r.certificate()).ok


def test_bias_saves_a_label_and_the_box_loses_one():
    W = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0], [0.0, 0.0]])
    r0 = audit_argmax(W, progress=False)
    assert r0.never() == [4]                              # the origin: inside the hull
    b = np.array([0.0, 0.0, 0.0, 0.0, 0.5])
    r1 = audit_argmax(W, bias=b, progress=False)
    assert r1.never() == []                               # saved by its bias
    b2 = np.array([0.0, 0.0, 0.0, 3.0, 0.0])
    r2 = audit_argmax(W, bias=b2, radius=1, progress=False)
    assert r2.verdicts["all"][2] == "argmaxable"          # far away it wins
    assert r2.verdicts["box"][2] == "never"               # lost in max|x_j| <= 1
    assert r2.verdicts["box"][4] == "never" and r2.verdicts["all"][4] == "never"
    assert check(r2.certificate()).ok
    bf = brute_force(W, b2, radius=1.0)
    assert all(r2.verdicts["box"][k] == v for k, v in bf.items() if v != "unclear")


@pytest.mark.parametrize("seed", [3, 4])
def test_box_domain_against_brute_force(seed):
    W, b = planted_head(k=20, d=3, seed=seed, bias=True)
    r = audit_argmax(W, bias=b, radius="1/2", progress=False)
    bf = brute_force(W, b, radius=0.5)
    assert r.counts["box"]["undecided"] == 0
    assert all(r.verdicts["box"][k] == v for k, v in bf.items() if v != "unclear")
    assert check(r.certificate()).ok


def test_exact_rational_head_and_csv(tmp_path):
    p = tmp_path / "W.csv"
    p.write_text("1,0\n-1,0\n0,1\n1/3,1/3\n0,-1\n")
    r = audit_argmax(p, progress=False)
    assert r.never() == [3]  # (1/3, 1/3) = (1/3)(1,0) + (1/3)(0,1) + (1/3)(0,0)... inside
    ref = argmaxable([[1, 0], [-1, 0], [0, 1], [Fraction(1, 3), Fraction(1, 3)], [0, -1]])
    assert list(ref.labels) == [0, 1, 2, 4]
    assert check(r.certificate()).ok


def test_rounding_bound_sends_close_pairs_to_exact_arithmetic():
    e = 2.0**-40
    W = np.array([[1.0, 0.0], [1.0, e], [-1.0, 0.0], [0.0, -1.0]])
    h = open_head(HeadSpec.from_array(W))
    stats: dict = {}
    # at x = w_1 the margin against w_0 is e^2 = 2^-80, far below the float bound
    assert (W[1] - W[0]) @ W[1] < rounding_bound(2) * 4
    assert confirm_witness(h, 1, W[1].copy(), stats=stats)
    assert stats["exact_pairs"] >= 1
    # at x = (1, 0) label 1 ties with label 0: exactly zero margin is rejected
    assert not confirm_witness(h, 1, np.array([1.0, 0.0]), stats={})


def test_duplicate_rows_are_never_strict_argmax():
    W = np.array([[1.0, 0.0], [1.0, 0.0], [-1.0, 1.0], [0.0, -1.0]])
    r = audit_argmax(W, progress=False)
    assert r.never() == [0, 1]
    assert check(r.certificate()).ok


# ----------------------------------------------------------------------------- checker
def _cert(tmp_path=None, bias=True, radius=None):
    W, b = planted_head(k=16, d=3, seed=5, bias=bias)
    r = audit_argmax(W, bias=b, radius=radius, progress=False,
                     out=None if tmp_path is None else tmp_path)
    return r.certificate()


def _first(cert, verdict, dom="all", kind=None):
    for rec in cert["records"]:
        e = rec[dom]
        if e["verdict"] == verdict and (kind is None or kind in e.get("witness", {})):
            return e
    raise AssertionError("no such record")


@pytest.mark.parametrize("change,failed", [
    (lambda c: _first(c, "never")["multipliers"].__setitem__(0, "7"), "gordan-combination"),
    (lambda c: _first(c, "never")["multipliers"].__setitem__(0, "-1"), "gordan-nonnegative"),
    (lambda c: _first(c, "never")["multipliers"].__setitem__(0, "0"), "gordan-nonnegative"),
    (lambda c: _first(c, "never").update(rows=[], multipliers=[]), "gordan-nonzero"),
    # a never entry naming the rows of its own label (a support is named only by an earlier
    # never entry that lists it: certificates/SPEC.md section 9)
    (lambda c: (e := next(r for r in c["records"] if r["all"]["verdict"] == "never"))["all"]
     .update(rows={"as": e["label"]}), "gordan-support"),
    (lambda c: _first(c, "never").update(rows={"as": 0, "list": [1]}), "schema"),
    (lambda c: _first(c, "argmaxable", kind="scale")["witness"].update(scale="-1"), "witness"),
    (lambda c: _first(c, "argmaxable", kind="x")["witness"].update(
        x=["0"] * 3), "witness"),
    (lambda c: c["counts"]["all"].update(never=99), "count"),
    (lambda c: c["records"].pop(), "labels"),
    (lambda c: c["head"]["W"][0].__setitem__(0, "1.5"), "number"),
    (lambda c: c.update(domains=["box"]), "schema"),
])
def test_checker_rejects_tampering(change, failed):
    cert = _cert()
    assert check(cert).ok
    change(cert)
    v = check(cert)
    assert not v.ok and v.failed_check == failed, v


def test_checker_rejects_support_with_the_label_itself():
    cert = _cert()
    e = next(rec for rec in cert["records"] if rec["all"]["verdict"] == "never")
    e["all"]["rows"][0] = e["label"]
    assert check(cert).failed_check == "gordan-support"


def test_checker_rejects_box_witness_outside_the_radius():
    cert = _cert(radius="1/4")
    e = next(r["box"] for r in cert["records"] if r["box"]["verdict"] == "argmaxable")
    e["witness"] = {"scale": "1000"}
    assert check(cert).failed_check in {"box", "witness"}


def test_files_shards_hashes_and_resume(tmp_path, monkeypatch):
    import logitgeom.audit.run as run_mod
    import logitgeom.audit.source as src_mod

    monkeypatch.setattr(run_mod, "INLINE_ENTRIES", 100)
    monkeypatch.setattr(src_mod, "INLINE_ENTRIES", 100)  # reference the .npy, as for LM heads
    W, _ = planted_head(k=300, d=4, seed=6)
    W = np.ascontiguousarray(W)
    p = tmp_path / "W.npy"
    np.save(p, W)
    out = tmp_path / "out"
    # proven alone, a label's proof depends on its block only: a resumed run writes the same
    # bytes (with shared supports, on by default, the verdicts are the same but a re-decided
    # block may get proofs on other supports: tests/test_audit_shared.py)
    alone = Options(shared_supports=False)
    r = audit_argmax(p, out=out, block_size=64, progress=False, options=alone)
    assert len(list((out / "shards").glob("*.jsonl"))) == 5
    text = (out / "audit.json").read_text()
    assert "file" in json.loads(text)["head"]  # large enough to be referenced, not inlined
    assert check_file(out / "audit.json").ok
    # resume: drop two blocks, rerun; only those are recomputed and the files are identical
    state = json.loads((out / "run.json").read_text())
    for name in ("block-000001.jsonl", "block-000003.jsonl"):
        (out / "shards" / name).unlink()
    state["done"].pop("block-000003.jsonl")
    (out / "run.json").write_text(json.dumps(state))
    calls = []
    real = run_mod._block_unit
    monkeypatch.setattr(run_mod, "_block_unit", lambda u: calls.append(u[1][0]) or real(u))
    r2 = audit_argmax(p, out=out, block_size=64, progress=False, options=alone)
    assert sorted(calls) == [64, 192]
    assert (out / "audit.json").read_text() == text
    assert r2.verdicts == r.verdicts
    # tampering with a shard or the head file is caught by hash
    shard = out / "shards" / "block-000000.jsonl"
    shard.write_text(shard.read_text().replace('"never"', '"undecided"', 1))
    assert check_file(out / "audit.json").failed_check == "file-hash"
    shard.write_text(shard.read_text().replace('"undecided"', '"never"', 1))
    assert check_file(out / "audit.json").ok
    W2 = W.copy()
    W2[0, 0] += 1
    np.save(p, W2)
    assert check_file(out / "audit.json").failed_check == "file-hash"
    np.save(p, W)
    # a different run into the same folder is refused
    with pytest.raises(InvalidInput, match="different audit run"):
        audit_argmax(p, out=out, block_size=32, progress=False)


def test_same_input_byte_identical_and_executor(tmp_path):
    W, b = planted_head(k=40, d=3, seed=7, bias=True)
    a = audit_argmax(W, bias=b, out=tmp_path / "a", block_size=8, progress=False)
    with ThreadPoolExecutor(2) as ex:
        audit_argmax(W, bias=b, out=tmp_path / "b", block_size=8, executor=ex, progress=False)
    assert (tmp_path / "a" / "audit.json").read_bytes() == \
        (tmp_path / "b" / "audit.json").read_bytes()
    assert a.counts["all"]["undecided"] == 0


@pytest.mark.slow
def test_dask_local_cluster_same_verdicts(tmp_path):
    distributed = pytest.importorskip("distributed")
    W, b = planted_head(k=60, d=3, seed=8, bias=True)
    p = tmp_path / "W.npy"
    np.save(p, W)
    ref = audit_argmax(p, bias=None, block_size=16, progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        r = audit_argmax(p, block_size=16, executor=client, progress=False,
                         out=tmp_path / "dask")
    assert r.verdicts == ref.verdicts
    assert check_file(tmp_path / "dask" / "audit.json").ok


def test_safetensors_model_folder_and_cli(tmp_path, capsys):
    W, b = planted_head(k=30, d=4, seed=9, bias=True)
    model = tmp_path / "model"
    model.mkdir()
    header = {"lm_head.weight": {"dtype": "F32", "shape": [30, 4], "data_offsets": [0, 480]},
              "lm_head.bias": {"dtype": "F32", "shape": [30], "data_offsets": [480, 600]}}
    hb = json.dumps(header).encode()
    with open(model / "model.safetensors", "wb") as fh:
        fh.write(struct.pack("<Q", len(hb)) + hb + W.tobytes() + b.tobytes())
    from logitgeom.cli.main import main

    out = tmp_path / "out"
    assert main(["audit-argmax", str(model), "--bias", "--out", str(out), "--no-progress",
                 "--radius", "2"]) == 0
    text = capsys.readouterr().out
    assert "never the argmax" in text and "29" in text
    cert = json.loads((out / "audit.json").read_text())
    assert cert["bias"] and cert["radius"] == "2"
    assert check_file(out / "audit.json").ok
    ref = audit_argmax(W, bias=b, radius=2, progress=False)
    assert ref.verdicts == {dom: {int(k): v for k, v in d.items()}
                            for dom, d in ref.verdicts.items()}
    summary = json.loads((out / "summary.json").read_text())
    assert summary["counts"] == ref.counts
    assert main(["audit-argmax", str(model), "--tokens", "28,29", "--no-progress"]) == 0
    assert main(["audit-argmax", str(tmp_path / "missing"), "--no-progress"]) == 2


def test_check_audit_cli_sample(tmp_path, capsys, monkeypatch):
    import logitgeom.audit.run as run_mod
    import logitgeom.audit.source as src_mod

    monkeypatch.setattr(run_mod, "INLINE_ENTRIES", 100)
    monkeypatch.setattr(src_mod, "INLINE_ENTRIES", 100)
    W, _ = planted_head(k=300, d=4, seed=10)
    np.save(tmp_path / "W.npy", W)
    audit_argmax(tmp_path / "W.npy", out=tmp_path / "o", progress=False)
    assert _cli.audit_main([str(tmp_path / "o" / "audit.json"), "--sample", "5"],
                           check_audit.check_file) == 0
    assert "5 labels' proofs" in capsys.readouterr().out


def test_bad_inputs():
    W = np.eye(3)
    with pytest.raises(InvalidInput, match="radius"):
        audit_argmax(W, radius=0, progress=False)
    with pytest.raises(InvalidInput, match="out of range"):
        audit_argmax(W, tokens=[5], progress=False)
    with pytest.raises(InvalidInput, match="bias"):
        audit_argmax(W, bias=[1, 2], progress=False)
    with pytest.raises(InvalidInput):
        audit_argmax(np.array([[1.0, np.nan], [0.0, 1.0]]), progress=False)
    r = audit_argmax(W, tokens="0,2", progress=False, options=Options(ascent_steps=0))
    assert r.labels == (0, 2) and r.counts["all"]["argmaxable"] == 2


def test_model_folder_with_tokenizer_names_the_tokens(tmp_path):
    pytest.importorskip("tokenizers")
    import shutil

    from _tiny_models import day_ids, tokenizer_path, vocab_size
    from tokenizers import Tokenizer

    V, d = vocab_size(), 40
    rng = np.random.default_rng(11)
    W = (np.round(rng.standard_normal((V, d)) * 256) / 256).astype(np.float32)
    monday, tuesday, wednesday = day_ids()[:3]
    W[monday] = (W[tuesday] + W[wednesday]) / 2
    model = tmp_path / "model"
    model.mkdir()
    header = {"lm_head.weight": {"dtype": "F32", "shape": [V, d],
                                 "data_offsets": [0, V * d * 4]}}
    hb = json.dumps(header).encode()
    (model / "model.safetensors").write_bytes(struct.pack("<Q", len(hb)) + hb + W.tobytes())
    shutil.copy(tokenizer_path(), model / "tokenizer.json")
    r = audit_argmax(model, tokens="Monday,Tuesday", progress=False)
    assert monday in r.never() and tuesday not in r.never()
    piece = Tokenizer.from_file(str(tokenizer_path())).id_to_token(monday)
    assert r.names[monday] == piece and repr(piece) in "\n".join(r.summary())
    assert check(r.certificate()).ok


def test_bias_auto_needs_a_model(tmp_path):
    np.save(tmp_path / "W.npy", np.eye(3, dtype=np.float32))
    with pytest.raises(InvalidInput, match="bias 'auto'"):
        audit_argmax(tmp_path / "W.npy", bias="auto", progress=False)
    (tmp_path / "b.csv").write_text("0\n0\n1\n")
    r = audit_argmax(tmp_path / "W.npy", bias=tmp_path / "b.csv", progress=False)
    assert r.counts["all"]["argmaxable"] == 3


def test_a_bias_vector_beside_a_checkpoint(tmp_path):
    """An array or a vector file as the bias of a model checkpoint (not a tensor name): the
    same verdicts as the matrix with that bias (it crashed on the array's truth value)."""
    pytest.importorskip("safetensors")
    from safetensors.numpy import save_file

    W = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, 0.25]], dtype=np.float32)
    b = np.array([0.0, 0.0, -5.0, 1.0])
    save_file({"lm_head.weight": W}, str(tmp_path / "m.safetensors"))
    want = audit_argmax(W, bias=b, progress=False).verdicts
    got = audit_argmax(tmp_path / "m.safetensors", bias=b, progress=False)
    assert got.verdicts == want and check(got.certificate()).ok
    (tmp_path / "b.csv").write_text("0\n0\n-5\n1\n")
    assert audit_argmax(tmp_path / "m.safetensors", bias=tmp_path / "b.csv",
                        progress=False).verdicts == want
    with pytest.raises(InvalidInput, match="bias"):
        audit_argmax(tmp_path / "m.safetensors", bias=np.zeros(3), progress=False)


def test_checker_module_budget():
    """check_audit.py joins the trusted base for this kind: keep it small (code lines,
    docstrings included, as tests/test_certificates_check.py counts them)."""
    src = Path(check_audit.__file__).read_text().splitlines()
    assert sum(1 for line in src if line.strip() and not line.strip().startswith("#")) <= 450


def test_check_audit_as_a_module_resolves_files(tmp_path, monkeypatch):
    import subprocess
    import sys

    import logitgeom.audit.run as run_mod
    import logitgeom.audit.source as src_mod

    monkeypatch.setattr(run_mod, "INLINE_ENTRIES", 100)
    monkeypatch.setattr(src_mod, "INLINE_ENTRIES", 100)
    W, _ = planted_head(k=200, d=4, seed=12)
    np.save(tmp_path / "W.npy", W)
    audit_argmax(tmp_path / "W.npy", out=tmp_path / "o", progress=False)
    root = Path(__file__).resolve().parents[1]
    run = subprocess.run([sys.executable, "-m", "logitgeom_certificates.check_audit",
                          str(tmp_path / "o" / "audit.json"), "--sample", "2"],
                         cwd=tmp_path.parent, capture_output=True, text=True, timeout=120,
                         env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"})
    assert run.returncode == 0 and ": OK argmax-audit" in run.stdout, run.stdout + run.stderr


def test_unknown_fields_and_work_budget(tmp_path, monkeypatch):
    cert = _cert()
    assert check(cert).ok
    bad = json.loads(json.dumps(cert))
    bad["records"][0]["all"]["witnes"] = bad["records"][0]["all"].get("witness")
    assert check(bad).failed_check == "schema"
    bad = json.loads(json.dumps(cert))
    bad["radius_"] = "1"
    assert check(bad).failed_check == "schema"
    # a full check of a big head is refused by the budget; a chosen sample is checked
    import logitgeom.audit.run as run_mod
    import logitgeom.audit.source as src_mod

    monkeypatch.setattr(run_mod, "INLINE_ENTRIES", 100)
    monkeypatch.setattr(src_mod, "INLINE_ENTRIES", 100)
    W, _ = planted_head(k=300, d=4, seed=13)
    np.save(tmp_path / "W.npy", W)
    audit_argmax(tmp_path / "W.npy", out=tmp_path / "o", progress=False)
    path = tmp_path / "o" / "audit.json"
    assert check_file(path, max_work=1000).failed_check == "work-budget"
    assert check_file(path, labels=[0, 299]).ok


# ----------------------------------------------------------------------------- inputs
def _check_dir(out):
    from logitgeom.certify.audit import self_check

    v = self_check(out / "audit.json")
    assert v.ok, v
    return json.loads((out / "audit.json").read_text())


@pytest.mark.parametrize("make", [
    lambda W: W.astype(np.int32),
    lambda W: W.astype(np.int64),
    lambda W: np.asfortranarray(W.astype(np.float32)),
    lambda W: W.astype(">f4"),
    lambda W: W.astype(">f8"),
])
def test_npy_dtypes_the_checker_cannot_read_become_a_canonical_file(tmp_path, make):
    W = np.random.default_rng(0).integers(-9, 9, size=(300, 250)).astype(np.float64)
    p = tmp_path / "W.npy"
    np.save(p, make(W))
    r = audit_argmax(p, out=tmp_path / "o", tokens="0-3", progress=False)
    cert = _check_dir(tmp_path / "o")
    assert cert["head"]["file"] == "head.npy"
    assert cert["source"]["file"] == "W.npy" and len(cert["source"]["sha256"]) == 64
    assert r.counts["all"]["undecided"] == 0


def test_csv_head_above_65536_entries_and_in_memory_array(tmp_path):
    rng = np.random.default_rng(0)
    W = np.round(rng.standard_normal((300, 300)), 3)
    p = tmp_path / "W.csv"
    np.savetxt(p, W, delimiter=",", fmt="%.3f")
    r = audit_argmax(p, out=tmp_path / "o", tokens="0-2", progress=False)
    assert r.counts["all"]["undecided"] == 0
    _check_dir(tmp_path / "o")
    r2 = audit_argmax(W, tokens="0-2", progress=False)          # in memory, 90,000 entries
    assert check(r2.certificate(), None).ok


def test_outputs_table_ranking_figure_names_and_umask(tmp_path):
    import os
    import stat

    W, _ = planted_head(k=12, d=3, seed=5)
    names = tmp_path / "names.txt"
    names.write_text("\n".join(f"lab{i}" for i in range(12)) + "\n")
    old = os.umask(0o022)
    try:
        r = audit_argmax(W, out=tmp_path / "o", label_names=names, progress=False)
    finally:
        os.umask(old)
    out = tmp_path / "o"
    for f in ("audit.json", "summary.json", "labels.csv", "labels.parquet", "margins.png"):
        assert (out / f).is_file(), f
        assert stat.S_IMODE((out / f).stat().st_mode) == 0o644, f
    rows = (out / "labels.csv").read_text().splitlines()
    assert rows[0] == "label,name,verdict,margin,proof" and len(rows) == 13
    assert rows[12].startswith("11,lab11,never,,gordan:")
    assert r.nearest and all(x["verdict"] == "argmaxable" for x in r.nearest)
    assert r.nearest == sorted(r.nearest, key=lambda x: (x["margin"], x["label"]))
    import pyarrow.parquet as pq

    assert pq.read_table(out / "labels.parquet").num_rows == 12
    summ = json.loads((out / "summary.json").read_text())
    assert summ["never"]["all"][0]["name"].startswith("lab")
    (tmp_path / "names.json").write_text(json.dumps([f"n{i}" for i in range(12)]))
    r2 = audit_argmax(W, label_names=tmp_path / "names.json", tokens="n0,n11",
                      progress=False)
    assert r2.labels == (0, 11)


@pytest.mark.parametrize(("make", "match"), [
    (lambda p: np.save(p, np.array([[1.0, np.nan], [0.0, 1.0]])), "NaN or infinite"),
    (lambda p: np.save(p, np.zeros((0, 3))), "empty"),
    (lambda p: np.save(p, np.zeros((3, 0))), "empty"),
    (lambda p: np.save(p, np.zeros((3, 2), dtype=np.complex64)), "unreadable head dtype"),
    (lambda p: p.write_bytes(b"\x93NUMPY garbage"), "not a readable .npy"),
])
def test_bad_heads_are_one_line(tmp_path, make, match):
    p = tmp_path / "W.npy"
    make(p)
    with pytest.raises(InvalidInput, match=match):
        audit_argmax(p, out=tmp_path / "o", progress=False)


def test_corrupt_npz_is_one_line(tmp_path):
    p = tmp_path / "W.npz"
    p.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(InvalidInput, match="not a readable .npz"):
        audit_argmax(p, progress=False)


# ----------------------------------------------------------------------------- layouts
def _small_head(k=40, d=64, seed=0):
    W = (np.round(np.random.default_rng(seed).standard_normal((k, d)) * 256) / 256).astype(
        np.float32)
    W[k - 1] = (W[0] + W[1]) / np.float32(2)          # exactly the midpoint: never
    return W


def test_sharded_safetensors_with_tied_embeddings(tmp_path):
    pytest.importorskip("safetensors")
    from safetensors.numpy import save_file

    W = _small_head()
    save_file({"model.embed_tokens.weight": W},
              str(tmp_path / "model-00001-of-00002.safetensors"))
    save_file({"model.norm.weight": np.ones(64, np.float32)},
              str(tmp_path / "model-00002-of-00002.safetensors"))
    (tmp_path / "model.safetensors.index.json").write_text(json.dumps({"weight_map": {
        "model.embed_tokens.weight": "model-00001-of-00002.safetensors",
        "model.norm.weight": "model-00002-of-00002.safetensors"}}))
    r = audit_argmax(tmp_path, out=tmp_path / "o", progress=False)
    cert = _check_dir(tmp_path / "o")
    assert list(cert["head"]) == ["W"]  # small (<= 65,536 entries): inline, as documented
    assert cert["source"]["file"] == "model-00001-of-00002.safetensors"
    assert 39 in r.never() and r.counts["all"]["undecided"] == 0


def test_safetensors_integer_head_is_converted(tmp_path):
    pytest.importorskip("safetensors")
    from safetensors.numpy import save_file

    W = np.random.default_rng(0).integers(-50, 50, size=(30, 3)).astype(np.int32)
    save_file({"lm_head.weight": W}, str(tmp_path / "m.safetensors"))
    audit_argmax(tmp_path / "m.safetensors", out=tmp_path / "o", progress=False)
    cert = _check_dir(tmp_path / "o")
    assert cert["head"]["W"][0] == [str(int(v)) for v in W[0]]  # small: inline, exact


def test_gguf_q8_0_head(tmp_path):
    gguf = pytest.importorskip("gguf")
    W = _small_head()
    Q = gguf.GGMLQuantizationType
    w = gguf.GGUFWriter(str(tmp_path / "m.gguf"), "llama")
    q = gguf.quants.quantize(W, Q.Q8_0)
    w.add_tensor("token_embd.weight", q, raw_shape=q.shape, raw_dtype=Q.Q8_0)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    r = audit_argmax(tmp_path / "m.gguf", out=tmp_path / "o", progress=False)
    cert = _check_dir(tmp_path / "o")
    assert cert["source"]["file"] == "m.gguf" and list(cert["head"]) == ["W"]  # small: inline
    assert r.counts["all"]["undecided"] == 0


def test_torch_bin_weights_only(tmp_path):
    torch = pytest.importorskip("torch")
    W = _small_head(k=20, d=8)
    torch.save({"lm_head.weight": torch.from_numpy(W)}, tmp_path / "pytorch_model.bin")
    r = audit_argmax(tmp_path, out=tmp_path / "o", progress=False)
    cert = _check_dir(tmp_path / "o")
    assert cert["source"]["file"] == "pytorch_model.bin"
    assert 19 in r.never()


def test_cli_o_alias_and_labels_file(tmp_path, capsys):
    from logitgeom.cli.main import main

    W, _ = planted_head(k=12, d=3, seed=6)
    np.save(tmp_path / "W.npy", W)
    (tmp_path / "names.json").write_text(json.dumps([f"t{i}" for i in range(12)]))
    assert main(["audit-argmax", str(tmp_path / "W.npy"), "-o", str(tmp_path / "o"),
                 "--labels", str(tmp_path / "names.json"), "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "self-check" in text and "'t11'" in text
    assert main(["audit-argmax", str(tmp_path / "nope.npy")]) == 2
    assert "not found" in capsys.readouterr().err


def test_a_block_too_large_for_one_shard_file_is_split(tmp_path, monkeypatch):
    """A block whose records exceed SHARD_BYTES goes to several shard files (split between
    records, in label order): the certificate lists them all, the checker accepts it, a
    resumed run leaves the files as they are, and losing one part recomputes the block."""
    import logitgeom.audit.run as run_mod

    monkeypatch.setattr(run_mod, "SHARD_BYTES", 2000)
    W, _ = planted_head(k=120, d=4, seed=6)
    out = tmp_path / "out"
    alone = Options(shared_supports=False)  # the same bytes on resume (see above)
    r = audit_argmax(W, out=out, block_size=64, progress=False, options=alone)
    files = sorted(p.name for p in (out / "shards").glob("*.jsonl"))
    assert len(files) > 2 and "block-000000.1.jsonl" in files
    cert = json.loads((out / "audit.json").read_text())
    assert [s["file"] for s in cert["shards"]][:2] == ["shards/block-000000.jsonl",
                                                       "shards/block-000000.1.jsonl"]
    assert all((out / s["file"]).stat().st_size <= 2000 or
               (out / s["file"]).read_bytes().count(b"\n") == 1 for s in cert["shards"])
    assert check_file(out / "audit.json").ok
    text = (out / "audit.json").read_text()
    calls = []
    real = run_mod._block_unit
    monkeypatch.setattr(run_mod, "_block_unit", lambda u: calls.append(u[1][0]) or real(u))
    assert audit_argmax(W, out=out, block_size=64, progress=False,
                        options=alone).verdicts == r.verdicts
    assert calls == [] and (out / "audit.json").read_text() == text
    (out / "shards" / "block-000000.1.jsonl").unlink()
    assert audit_argmax(W, out=out, block_size=64, progress=False,
                        options=alone).verdicts == r.verdicts
    assert calls == [0] and (out / "audit.json").read_text() == text


def test_sampled_self_check_rechecks_witnesses_exactly(tmp_path, monkeypatch):
    """Above the policy's full work the sampled witnesses are re-checked by the engine against
    every row (filter, then rationals); an exact tie at the witness is refused, and the
    certificate still passes the stdlib checker in full."""
    import logitgeom.certify.common as common
    from logitgeom.audit.proofs import recheck_witnesses

    monkeypatch.setattr(common, "SELF_CHECK", common.SelfCheck(full_work=0))
    W, _ = planted_head(k=24, d=3, seed=5)
    np.save(tmp_path / "W.npy", W)
    res = audit_argmax(tmp_path / "W.npy", out=tmp_path / "o", progress=False)
    assert "witnesses re-checked against every row in exact arithmetic" in res.checked
    assert check_file(tmp_path / "o" / "audit.json", max_work=None).ok
    with ThreadPoolExecutor(2) as ex:  # the never-proofs-only stdlib units still run
        res = audit_argmax(tmp_path / "W.npy", out=tmp_path / "o2", progress=False,
                           executor=ex)
    assert "re-checked by the stdlib checker" in res.checked
    # ties and near-ties: the filter cannot decide them; rational arithmetic does
    h = open_head(HeadSpec.from_array(np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])))
    assert recheck_witnesses(h, [(0, "all", {"x": ["1", "1"]})], None) is not None
    tiny = f"1/{2 ** 80}"
    assert recheck_witnesses(h, [(0, "all", {"x": [str(Fraction(1) + Fraction(tiny)), "1"]})],
                             None) is None
    assert recheck_witnesses(h, [(2, "box", {"scale": "4"})], Fraction(1)) is not None
