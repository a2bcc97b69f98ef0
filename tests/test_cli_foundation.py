"""CLI skeleton: help, version, and the set-up smoke command."""

from __future__ import annotations

import subprocess
import sys

import pytest

import logitgeom
from logitgeom.cli.main import main


def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert logitgeom.__version__ in capsys.readouterr().out


def test_help_lists_commands(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "logitgeom" in out and "solvers" in out


def test_console_script_runs():
    out = subprocess.run([sys.executable, "-m", "logitgeom", "--version"], capture_output=True,
                         text=True, check=True).stdout
    assert out.strip() == f"logitgeom {logitgeom.__version__}"


def test_demo_runs(capsys):
    assert main(["demo"]) == 0
    assert "status=optimal" in capsys.readouterr().out


def test_exact_arithmetic_available():
    from fractions import Fraction

    import cdd.gmp

    m = cdd.gmp.matrix_from_array([[1, -1], [0, 1]])
    assert isinstance(m.array[0][0], Fraction)


def test_closed_pipe_exits_quietly(tmp_path):
    # `logitgeom ... | head`: the reader has gone; exit code 1, no traceback
    import os
    import subprocess
    import sys

    W = tmp_path / "W.csv"
    W.write_text("1,0\n0,1\n1,1\n")
    r, w = os.pipe()
    os.close(r)  # every write to w now fails with EPIPE
    try:
        run = subprocess.run([sys.executable, "-m", "logitgeom", "patterns", "sign", str(W),
                              "--no-progress"], stdout=w, stderr=subprocess.PIPE, timeout=60)
    finally:
        os.close(w)
    err = run.stderr.decode()
    assert run.returncode == 1 and "Traceback" not in err and "BrokenPipe" not in err, err
