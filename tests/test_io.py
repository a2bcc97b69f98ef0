"""Matrix files: csv (integers, decimals, p/q), npy (exact binary floats), json."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

from engine.errors import InvalidInput
from engine.io import read_matrix, read_vector


def test_formats(tmp_path):
    (tmp_path / "a.csv").write_text("1, 1/2\n# comment\n-3,0.1\n")
    assert read_matrix(tmp_path / "a.csv") == ((1, Fraction(1, 2)), (-3, Fraction(1, 10)))
    np.save(tmp_path / "b.npy", np.array([[0.1, 2.0]]))
    assert read_matrix(tmp_path / "b.npy") == ((Fraction(0.1), 2),)
    (tmp_path / "c.json").write_text(json.dumps([[1, "2/3"], [0.5, 0]]))
    assert read_matrix(tmp_path / "c.json")[0] == (1, Fraction(2, 3))
    (tmp_path / "v.json").write_text(json.dumps(["1/2", 3]))
    assert read_vector(tmp_path / "v.json", length=2) == (Fraction(1, 2), 3)


def test_errors(tmp_path):
    with pytest.raises(InvalidInput, match="not found"):
        read_matrix(tmp_path / "missing.csv")
    (tmp_path / "r.csv").write_text("1,2\n3\n")
    with pytest.raises(InvalidInput, match="ragged"):
        read_matrix(tmp_path / "r.csv")
    (tmp_path / "x.xlsx").write_text("")
    with pytest.raises(InvalidInput, match="unsupported"):
        read_matrix(tmp_path / "x.xlsx")
    (tmp_path / "n.csv").write_text("1,nan\n")
    with pytest.raises(InvalidInput, match="NaN"):
        read_matrix(tmp_path / "n.csv")
