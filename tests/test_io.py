"""Matrix files: csv (integers, decimals, p/q), npy (exact binary floats), json."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

from logitgeom.errors import InvalidInput
from logitgeom.io import read_matrix, read_vector


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


# ---------------------------------------------------------------- files as people save them


def test_numpy_savetxt_default_and_delimited(tmp_path):
    W = np.array([[1.0, 0.5], [-3.0, 0.25]])
    for name, kw in (("a.txt", {}), ("b.csv", {}), ("c.csv", {"delimiter": ","}),
                     ("d.tsv", {"delimiter": "\t"}), ("e.csv", {"header": "x,y",
                                                                "delimiter": ","})):
        np.savetxt(tmp_path / name, W, **kw)
        assert read_matrix(tmp_path / name) == ((1, Fraction(1, 2)), (-3, Fraction(1, 4))), name


def test_header_row_and_index_column(tmp_path):
    (tmp_path / "h.csv").write_text("a,b\n1,2\n3,4\n")
    assert read_matrix(tmp_path / "h.csv") == ((1, 2), (3, 4))
    (tmp_path / "p.csv").write_text(",a,b\n0,1,2\n1,3,4\n")  # pandas to_csv
    assert read_matrix(tmp_path / "p.csv") == ((1, 2), (3, 4))
    (tmp_path / "q.csv").write_text('"1/2","3"\n')
    assert read_matrix(tmp_path / "q.csv") == ((Fraction(1, 2), 3),)


def test_npz_by_key(tmp_path):
    np.savez(tmp_path / "one.npz", anything=np.eye(2))
    assert read_matrix(tmp_path / "one.npz") == ((1, 0), (0, 1))
    np.savez(tmp_path / "two.npz", A=np.eye(2), W=np.ones((1, 2)))
    assert read_matrix(tmp_path / "two.npz") == ((1, 1),)
    assert read_matrix(f"{tmp_path / 'two.npz'}:A") == ((1, 0), (0, 1))
    np.savez(tmp_path / "amb.npz", A=np.eye(2), B=np.eye(2))
    with pytest.raises(InvalidInput, match=r"pick one as .*amb.npz:KEY"):
        read_matrix(tmp_path / "amb.npz")
    with pytest.raises(InvalidInput, match="no array named 'C'"):
        read_matrix(f"{tmp_path / 'amb.npz'}:C")


@pytest.mark.parametrize("content, where", [
    ("1,2\n3,x\n", "line 2, column 3"),
    ("1,2\n\n# c\n3, 1e99999\n", "line 4, column 4"),
    ("1 2\n3  nan\n", "line 2, column 4"),
    ("1,2\n3,\n", "line 2"),
])
def test_errors_name_file_line_column(tmp_path, content, where):
    (tmp_path / "W.csv").write_text(content)
    with pytest.raises(InvalidInput, match=where) as e:
        read_matrix(tmp_path / "W.csv")
    assert "W.csv" in str(e.value)


def test_hostile_files_are_clear_errors(tmp_path):
    (tmp_path / "bin.csv").write_bytes(b"1,2\n\xff\xfe,3\n")
    with pytest.raises(InvalidInput, match="line 2, column 1: not UTF-8"):
        read_matrix(tmp_path / "bin.csv")
    (tmp_path / "dir.csv").mkdir()
    with pytest.raises(InvalidInput, match="is a directory"):
        read_matrix(tmp_path / "dir.csv")
    with pytest.raises(InvalidInput, match="not a regular file"):
        read_matrix("/dev/zero")
    (tmp_path / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(InvalidInput, match="nested deeper"):
        read_matrix(tmp_path / "deep.json")
    (tmp_path / "big.json").write_text("[[" + "7" * 5000 + "]]")
    with pytest.raises(InvalidInput, match="5000 digits"):
        read_matrix(tmp_path / "big.json")
    (tmp_path / "syn.json").write_text("[[1, 2],\n [3, }")
    with pytest.raises(InvalidInput, match="line 2, column 6"):
        read_matrix(tmp_path / "syn.json")
    np.save(tmp_path / "s.npy", np.array([["a", "b"]]))
    with pytest.raises(InvalidInput, match="dtype"):
        read_matrix(tmp_path / "s.npy")
    (tmp_path / "junk.npy").write_bytes(b"\x93NUMPY garbage")
    with pytest.raises(InvalidInput, match="not a readable .npy"):
        read_matrix(tmp_path / "junk.npy")
    (tmp_path / "junk.npz").write_bytes(b"PK garbage")
    with pytest.raises(InvalidInput, match="not a readable .npz"):
        read_matrix(tmp_path / "junk.npz")
