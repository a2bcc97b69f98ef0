"""``verify-grid --certificates DIR`` writes a theorem certificate per head it checks, and
each exports to Coq and is accepted by the referee's check (issue 41, item 4, grids)."""

from __future__ import annotations

import re
import shutil

import pytest

from logitgeom.cli.main import main as cli
from logitgeom_certificates.api import check_file


@pytest.mark.skipif(shutil.which("coqc") is None, reason="coqc not installed")
def test_verify_grid_certificates_export_and_pass_the_referees_check(tmp_path, capsys):
    certs = tmp_path / "certs"
    certs.mkdir()
    assert cli(["verify-grid", "--n", "3", "--seeds", "1", "--d-max", "3", "--no-progress",
                "--certificates", str(certs)]) == 0
    files = sorted(certs.glob("*.json"))
    assert [f.name for f in files] == ["grid-n3-d2-s0-lemma-5.3.json",
                                       "grid-n3-d2-s0-thm-5.6.json",
                                       "grid-n3-d3-s0-lemma-5.3.json"]
    assert all(check_file(str(f)).ok for f in files)
    capsys.readouterr()
    assert cli(["export", "coq", *map(str, files), "-o", str(tmp_path / "coq"),
                "--compile"]) == 0
    out = capsys.readouterr().out
    assert len(re.findall(r"ACCEPTED by the referee's check: theorem (Lemma_5_3|Thm_5_6) ",
                          out)) == 3, out


def test_verify_grid_certificates_needs_a_folder(tmp_path, capsys):
    assert cli(["verify-grid", "--n", "3", "--seeds", "1", "--d-max", "2", "--no-progress",
                "--certificates", str(tmp_path / "missing")]) == 2
    assert "is not an existing folder" in capsys.readouterr().err
