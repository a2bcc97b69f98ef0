"""``logitgeom symmetry``: detect, target, gram (thin wrappers of logitgeom.symmetry)."""

from __future__ import annotations

import json

from logitgeom.cli.main import main


def test_target_then_detect_then_solve(tmp_path, capsys):
    path = tmp_path / "Y.csv"
    assert main(["symmetry", "target", "S2+S3", "3/40", "2/5", "3/10", "9/40", "0",
                 "--out", str(path)]) == 0
    capsys.readouterr()
    assert main(["symmetry", "detect", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["order"] == 12 and out["complete"] and not out["trivial"]
    assert main(["solve", str(path), "--method", "orbit"]) == 0
    assert "method: orbit" in capsys.readouterr().out


def test_gram_and_errors(capsys):
    assert main(["symmetry", "gram", "S3wrS2"]) == 0
    assert "3 classes" in capsys.readouterr().out
    assert main(["symmetry", "gram", "S3 x"]) == 2
    assert "group spec" in capsys.readouterr().err
    assert main(["symmetry", "target", "S3", "1/2", "1/2"]) == 2
    assert "length 2" in capsys.readouterr().err


def test_detect_with_tolerance(tmp_path, capsys):
    import numpy as np

    from logitgeom.symmetry import cyclic, orbit_targets

    Y = orbit_targets(cyclic(4), ["1/2", "1/4", "1/8", "1/8"]).Y
    noisy = Y + 1e-14 * np.arange(16).reshape(4, 4)
    path = tmp_path / "Y.csv"
    np.savetxt(path, noisy, delimiter=",", fmt="%.17g")
    assert main(["symmetry", "detect", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["order"] == 1
    assert main(["symmetry", "detect", str(path), "--tol", "1e-12", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["order"] == 4 and 0 < out["deviation"] <= 1e-12
