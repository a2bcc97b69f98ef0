"""Outputs of the argmax audit say exactly what they cover (issue 30, item 3)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from logitgeom.audit import audit_argmax
from logitgeom.audit.report import marked, table_rows
from logitgeom.errors import InvalidInput

ROOT = Path(__file__).resolve().parents[1]


def _cli(module: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, text=True,
                          capture_output=True, env={"PYTHONPATH": str(ROOT)})


def _head(k: int = 50, d: int = 3, seed: int = 0) -> np.ndarray:
    W = np.random.default_rng(seed).standard_normal((k, d))
    W[7] = (W[1] + W[2]) / 2  # never the argmax
    return W


def test_a_part_is_named_by_its_labels_never_all(tmp_path):
    res = audit_argmax(_head(), progress=False)
    cert = json.loads(json.dumps(res.certificate()))
    cert["records"] = cert["records"][:49]  # drop the last record and shrink the labels
    cert["labels"] = [[0, 48]]
    cert["counts"] = {"all": {v: sum(r["all"]["verdict"] == v for r in cert["records"])
                              for v in ("argmaxable", "never", "undecided")}}
    p = tmp_path / "part.json"
    p.write_text(json.dumps(cert))
    for module in ("logitgeom_certificates.check", "logitgeom_certificates.check_audit"):
        out = _cli(module, str(p))
        assert out.returncode == 0, out.stdout + out.stderr
        assert "labels 0-48 of a 50-row head" in out.stdout and "all labels" not in out.stdout
    full = tmp_path / "full.json"
    full.write_text(json.dumps(res.certificate()))
    out = _cli("logitgeom_certificates.check", str(full)).stdout
    assert "all 50 labels of a 50-row head" in out


def test_explain_lists_never_labels_of_sharded_output_and_what_is_not_covered(tmp_path):
    out = tmp_path / "o"
    audit_argmax(_head(), out=out, progress=False, block_size=16)
    r = _cli("logitgeom_certificates.check", "--explain", str(out / "audit.json"))
    assert r.returncode == 0, r.stdout + r.stderr
    assert re.search(r"never argmaxable: [0-9, ]*\b7\b", r.stdout), r.stdout
    assert "summary.json, labels.csv" in r.stdout and "carry no hash" in r.stdout
    summary = json.loads((out / "summary.json").read_text())
    assert summary["certificate_covers"] == "all 50 labels of a 50-row head"
    assert summary["reports_covered_by_certificate"] is False


def test_small_npy_head_is_inlined_so_a_copied_folder_checks(tmp_path):
    p = tmp_path / "W.npy"
    np.save(p, _head().astype(np.float32))
    audit_argmax(p, out=tmp_path / "o", progress=False)
    cert = json.loads((tmp_path / "o" / "audit.json").read_text())
    assert list(cert["head"]) == ["W"]
    shutil.copytree(tmp_path / "o", tmp_path / "elsewhere" / "copy")
    p.unlink()
    shutil.rmtree(tmp_path / "o")
    r = _cli("logitgeom_certificates.check", str(tmp_path / "elsewhere" / "copy" / "audit.json"))
    assert r.returncode == 0, r.stdout + r.stderr


def test_fewer_rows_than_columns_needs_a_flag(tmp_path):
    W = np.random.default_rng(0).standard_normal((3, 8))  # looks like a (d, vocab) head
    p = tmp_path / "W.npy"
    np.save(p, W)
    with pytest.raises(InvalidInput, match="--transpose.*--rows-are-labels"):
        audit_argmax(p, progress=False)
    assert audit_argmax(p, rows_are_labels=True, progress=False).k == 3
    assert audit_argmax(p, transpose=True, progress=False).k == 8
    c = tmp_path / "W.csv"
    np.savetxt(c, W, delimiter=",")
    with pytest.raises(InvalidInput, match="fewer rows"):
        audit_argmax(c, progress=False)
    assert audit_argmax(c, transpose=True, progress=False).k == 8


def test_sharded_checkpoint_index_file_is_a_source(tmp_path):
    pytest.importorskip("safetensors")
    from safetensors.numpy import save_file

    W = _head(k=40, d=4).astype(np.float32)
    save_file({"lm_head.weight": W}, str(tmp_path / "model-00001-of-00002.safetensors"))
    save_file({"model.norm.weight": np.ones(4, np.float32)},
              str(tmp_path / "model-00002-of-00002.safetensors"))
    (tmp_path / "model.safetensors.index.json").write_text(json.dumps({"weight_map": {
        "lm_head.weight": "model-00001-of-00002.safetensors",
        "model.norm.weight": "model-00002-of-00002.safetensors"}}))
    r = audit_argmax(tmp_path / "model.safetensors.index.json", progress=False)
    assert r.k == 40 and 7 in r.never()


def test_figure_marks_labels_never_the_argmax_in_the_box():
    # a diamond with a centre of larger bias (certificates/SPEC.md section 9): every label
    # is argmaxable over R^2, only the centre inside the box of radius 1/4
    W = [[1, 0], [-1, 0], [0, 1], [0, -1], [0, 0]]
    res = audit_argmax(W, bias=[0, 0, 0, 0, "1/2"], radius="1/4", progress=False)
    rows = table_rows(res.records, {}, {}, ("all", "box"))
    arg, nev, nev_box = marked(rows)
    assert not nev and sorted(r["label"] for r in nev_box) == [0, 1, 2, 3]
