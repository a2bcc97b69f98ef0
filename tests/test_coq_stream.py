"""Streamed enumerations in Coq (docs/coq.md, "Streamed completeness"): the prefix tree split
over files, the assembling file's theorem, the referee's check of the files it imports, and
forgeries (a dropped pattern, a changed multiplier, a wrong count, an axiom or a duplicate
name in an imported file, an import cycle, a missing file) refused or rejected.

Every test here needs ``coqc`` (``apt-get install coq``; scripts/setup.sh installs it).
"""

from __future__ import annotations

import gzip
import json
import re
import shutil
from fractions import Fraction
from pathlib import Path

import pytest

from logitgeom.cli.main import main as cli
from logitgeom.coq import ExportError, check_coq_file, export_files
from logitgeom.coq.build import export_stream_set
from logitgeom.coq.export import HEADER, export_file, export_file_set
from logitgeom.coq.stream import stream_files
from logitgeom.emit import dumps, stream_certificate
from logitgeom.geometry import enumerate_to_dir

pytestmark = pytest.mark.skipif(shutil.which("coqc") is None, reason="coqc not installed")

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "certificates" / "examples" / "valid-pattern-complete-stream.json"
W = [[1, 0], [0, 1], [1, 1], [2, -1]]
B = [0, 1, -1, 2]


def _cert(tmp_path: Path, kind: str = "sign", bias=B) -> Path:
    d = tmp_path / "R"
    enumerate_to_dir(W, d, kind=kind, bias=bias, progress=False)
    out = tmp_path / "cert.json"
    out.write_text(dumps(stream_certificate(d, out, buckets=3)))
    return out


def _export(cert: Path, out: Path, leaves: int = 3) -> Path:
    [main] = export_files([cert], out, leaves=leaves)
    return main


@pytest.mark.parametrize("kind", ["sign", "ranking"])
def test_split_stream_is_accepted_by_the_referee(tmp_path, kind):
    """Several subtree files (at most 3 patterns each), the assembling file states the whole
    claim (all of them, their count, each once) and the referee's check accepts it."""
    main = _export(_cert(tmp_path, kind), tmp_path / "coq")
    shards = sorted((tmp_path / "coq").glob("cert_s*.v"))
    assert len(shards) > 1 and (tmp_path / "coq" / "cert_data.v").is_file()
    n = sum(1 for sh in json.loads((tmp_path / "cert.json").read_text())["shards"]
            for _ in gzip.open(tmp_path / sh["file"]))
    v = check_coq_file(main)
    assert v.ok, v.reasons
    claim = "all_rankings" if kind == "ranking" else "all_sign_patterns"
    assert v.statement == f"{claim} W b L /\\ (length L = {n})%nat /\\ NoDup L"
    assert not re.search(r"\b(lia|lra|auto|eauto|tauto|Admitted)\b", main.read_text())


def test_cli_exports_the_stdlib_example_and_compiles(tmp_path, capsys):
    code = cli(["export", "coq", str(EXAMPLE), "-o", str(tmp_path), "--compile"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "ACCEPTED by the referee's check: theorem all_signs" in out
    with pytest.raises(ExportError, match="several files"):
        export_file(EXAMPLE)


def test_incomplete_list_is_refused_with_the_realised_prefix():
    F = Fraction
    Wf = [[F(1), F(0)], [F(0), F(1)], [F(1), F(1)]]
    listed = [((1, 1, 1), [F(1), F(1)]), ((1, -1, 1), [F(2), F(-1)]),
              ((1, -1, -1), [F(1), F(-2)]), ((-1, 1, 1), [F(-1), F(2)]),
              ((-1, -1, -1), [F(-1), F(-1)])]  # (-1, 1, -1) dropped
    with pytest.raises(ExportError, match=r"not complete: the prefix \[-1, 1, -1\] is realised"):
        stream_files(Wf, None, False, listed, "x", header=HEADER)
    with pytest.raises(ExportError, match="listed twice"):
        stream_files(Wf, None, False, listed + listed[:1], "x", header=HEADER)


def test_export_stream_set_returns_the_files_and_their_figures(tmp_path):
    """The figures of a streamed export are returned (they were a function attribute that
    the benchmark read): the same files as export_file_set, one shard file per pack, at
    least one subtree per shard file, an exact LP per refutation at most; another kind is
    refused."""
    cert = _cert(tmp_path)
    got = export_stream_set(cert, leaves=3)
    assert got.files == export_file_set(cert, leaves=3)
    assert got.shards == sum(1 for name, _ in got.files if "_s0" in name) > 1
    assert got.subtrees >= got.shards and got.depth >= 1 and got.lps >= 0
    assert f"Definition D : nat := {got.depth}." in got.files[-1][1]
    with pytest.raises(ExportError, match="not a pattern-complete-stream certificate"):
        export_stream_set(ROOT / "certificates" / "examples" / "valid-sign-feasible.json")


def test_certificate_the_checker_rejects_is_refused(tmp_path):
    cert = _cert(tmp_path)
    obj = json.loads(cert.read_text())
    obj["shards"][0]["rows"] += 1
    cert.write_text(json.dumps(obj))
    with pytest.raises(ExportError, match="refused: the stdlib checker does not accept it"):
        export_file_set(cert)


def _forged(tmp_path: Path, edit) -> tuple[bool, str]:
    main = _export(_cert(tmp_path), tmp_path / "coq")
    edit(tmp_path / "coq", main)
    v = check_coq_file(main)
    return v.ok, "; ".join(v.reasons)


def test_changed_multiplier_is_rejected_by_coqc(tmp_path):
    def edit(d, main):
        for f in sorted(d.glob("cert_s*.v")):
            t = f.read_text()
            m = re.search(r"PCutZ \[(\d+); (\d+)", t)
            if m:
                f.write_text(t[:m.start(2)] + str(int(m.group(2)) + 7) + t[m.end(2):])
                return
        raise AssertionError("no cut")
    ok, why = _forged(tmp_path, edit)
    assert not ok and "coqc rejects cert_s" in why


def test_wrong_count_is_rejected(tmp_path):
    def edit(d, main):
        t = main.read_text()
        n = int(re.search(r"length L = (\d+)", t).group(1))
        main.write_text(t.replace(f"= {n}", f"= {n + 1}").replace(f"Ls {n} top_ok",
                                                                  f"Ls {n + 1} top_ok"))
    ok, why = _forged(tmp_path, edit)
    assert not ok and "coqc rejects it" in why


@pytest.mark.parametrize("extra, reason", [
    ("Axiom cheat : False.", "'Axiom' is not allowed"),
    ("Definition W : nat := 0.", "'W' is defined in two of the files"),
    ("Definition all_sign_patterns : nat := 0.", "redefines a name of Logitgeom.v"),
])
def test_forged_imported_file_is_rejected(tmp_path, extra, reason):
    def edit(d, main):
        f = sorted(d.glob("cert_s*.v"))[0]
        f.write_text(f.read_text() + "\n" + extra + "\n")
    ok, why = _forged(tmp_path, edit)
    assert not ok and reason in why


def test_import_cycle_and_missing_file_are_rejected(tmp_path):
    def cycle(d, main):
        data = d / "cert_data.v"
        data.write_text(data.read_text().replace("Open Scope Q_scope.\n",
                                                 "Open Scope Q_scope.\nFrom Logitgeom Require "
                                                 "Import cert.\n", 1))
    ok, why = _forged(tmp_path, cycle)
    assert not ok and "import each other" in why
    (tmp_path / "coq" / "cert_data.v").unlink()
    v = check_coq_file(tmp_path / "coq" / "cert.v")
    assert not v.ok and "cert_data.v (imported by" in "; ".join(v.reasons)


def test_stream_names_do_not_collide_with_another_certificate(tmp_path):
    """A second certificate whose file name gives the same stem gets the next stem, in
    its file names and its imports."""
    a = _cert(tmp_path / "a")
    (tmp_path / "b").mkdir()
    shutil.copytree(tmp_path / "a" / "R", tmp_path / "b" / "R")
    shutil.copy(a, tmp_path / "b" / "cert.json")
    written = export_files([a, tmp_path / "b" / "cert.json"], tmp_path / "coq", leaves=3)
    assert [w.name for w in written] == ["cert.v", "cert_2.v"]
    assert "From Logitgeom Require Import cert_2_data cert_2_s00000" in written[1].read_text()
    assert check_coq_file(written[1]).ok


def test_shard_read_after_the_check_is_a_regular_file(tmp_path):
    """A shard replaced by a FIFO after the stdlib checker accepted the certificate is
    refused at once, not read (the read would block)."""
    import os

    from logitgeom.coq._read import Reader
    from logitgeom.coq.stream import read_stream

    cert = _cert(tmp_path)
    obj = json.loads(cert.read_text())
    shard = tmp_path / obj["shards"][0]["file"]
    shard.unlink()
    os.mkfifo(shard)
    with pytest.raises(ExportError, match="not a regular file"):
        read_stream(obj, tmp_path, Reader("cert.json"))
