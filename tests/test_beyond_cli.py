"""CLI of the programs beyond the symmetry paper: ``solve --d/--tol``, ``certify solve
--d/--tol`` (issue 32)."""

from __future__ import annotations

import json
from fractions import Fraction

from logitgeom.cli.main import main
from logitgeom_certificates.api import check


def _write(path, rows):
    path.write_text("\n".join(",".join(str(x) for x in r) for r in rows) + "\n")


def _cyclic(m=5):
    y = [Fraction(2, 5), Fraction(1, 4), Fraction(1, 5), Fraction(1, 10), Fraction(1, 20)][:m]
    return [[y[(i - j) % m] for j in range(m)] for i in range(m)]


def test_solve_reports_rank_bracket_and_stability(tmp_path, capsys):
    Y = _cyclic()
    _write(tmp_path / "y.csv", Y)
    assert main(["solve", str(tmp_path / "y.csv"), "--eh", "4", "--d", "2"]) == 0
    assert "rank-2 program: J*_d in [" in capsys.readouterr().out
    Y[0][0] += Fraction(1, 50)
    Y[1][0] -= Fraction(1, 50)
    _write(tmp_path / "yp.csv", Y)
    assert main(["solve", str(tmp_path / "yp.csv"), "--eh", "4", "--tol", "0.03"]) == 0
    out = capsys.readouterr().out
    assert "|J*(Y) - J*(Y0)| <= rho ||Y - Y0||_2" in out and "best G-invariant point" in out


def test_certify_solve_rank_and_stability(tmp_path, capsys):
    Y = _cyclic()
    _write(tmp_path / "y.csv", Y)
    out = tmp_path / "r.json"
    assert main(["certify", "solve", str(tmp_path / "y.csv"), "--eh", "4", "--d", "2",
                 "-o", str(out)]) == 0
    c = json.loads(out.read_text())
    assert check(c).ok and c["kind"] == "layer-peeled-rank-bracket" and c["d"] == 2
    Y[0][0] += Fraction(1, 50)
    Y[1][0] -= Fraction(1, 50)
    _write(tmp_path / "yp.csv", Y)
    out = tmp_path / "s.json"
    assert main(["certify", "solve", str(tmp_path / "yp.csv"), "--eh", "4", "--tol", "0.03",
                 "-o", str(out)]) == 0
    c = json.loads(out.read_text())
    assert check(c).ok and c["kind"] == "layer-peeled-stability" and c["average"]
    assert "|J*(Y) - J*(Y0)| <=" in capsys.readouterr().out
    assert main(["check", str(out), "--explain"]) == 0
    assert "group average of Y (checked)" in capsys.readouterr().out


def test_inspect_reports_approximate_symmetry_of_the_contexts(capsys, tmp_path):
    import pytest

    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    pytest.importorskip("safetensors")
    pytest.importorskip("tokenizers")
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    import _tiny_models as T

    out = tmp_path / "r.json"
    assert main(["inspect", str(T.tiny_lm()), "--tokens", ",".join(T.DAYS), "--prompt",
                 "Today is {TOKEN}. Tomorrow is", "--group", "cyclic", "--no-progress",
                 "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "approximate symmetry of P" in text and "|J*(Y) - J*(Y0)|" in text
    rep = json.loads(out.read_text())["approximate_symmetry"]
    assert rep["average"] and rep["bound"] >= 0
    assert rep["J_Y"][0] <= rep["J_Y0"][1] + rep["bound"] + 1e-6
