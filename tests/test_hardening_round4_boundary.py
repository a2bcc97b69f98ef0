"""Round 4 of the hardening (issue 43), the input and output boundary: one exact reading of
every number format, outputs whole (CSV through a CSV writer, ``--json`` carrying every
figure), writes that stay inside the output folder, and messages that name the problem.

Each test here failed before the change it covers (the issue's "Why" list)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from logitgeom._fsio import OutputError
from logitgeom.cli.main import main as cli
from logitgeom.errors import InvalidInput
from logitgeom.io import read_matrix, read_raw

DECIMALS = "1,0,0.1\n0,1,0.2\n1,1,0.3\n"
EXTENDED = np.finfo(np.longdouble).nmant >= 63  # x86 80-bit extended (float128 on disk)


def _count(capsys, path) -> str:
    assert cli(["count", "sign", str(path)]) == 0
    return capsys.readouterr().out.split(" sign patterns")[0]


def _error(capsys, argv) -> str:
    assert cli(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err


# -- 1. one exact reading of every number format ---------------------------------------------

def test_json_and_csv_decimals_are_the_same_exact_rationals(tmp_path, capsys):
    (tmp_path / "W.csv").write_text(DECIMALS)
    (tmp_path / "W.json").write_text("[[1,0,0.1],[0,1,0.2],[1,1,0.3]]")
    assert read_matrix(tmp_path / "W.json") == read_matrix(tmp_path / "W.csv")
    assert read_matrix(tmp_path / "W.json")[0][2] == Fraction(1, 10)
    assert _count(capsys, tmp_path / "W.csv") == _count(capsys, tmp_path / "W.json") == "6"


@pytest.mark.parametrize("literal, value", [("1e-400", Fraction(1, 10 ** 400)),
                                            ("1e400", Fraction(10 ** 400)),
                                            ("-2.5E-320", Fraction(-25, 10 ** 321))])
def test_json_numbers_beyond_the_float_range_are_read_exactly(tmp_path, capsys, literal, value):
    (tmp_path / "W.json").write_text(f"[[1, 0], [0, {literal}]]")
    assert read_matrix(tmp_path / "W.json")[1][1] == value  # never 0, never inf
    assert _count(capsys, tmp_path / "W.json") == "4"


def test_json_number_over_the_text_limit_is_refused_naming_it(tmp_path, capsys):
    (tmp_path / "W.json").write_text("[[1, 0], [0, 1e5000]]")
    err = _error(capsys, ["count", "sign", str(tmp_path / "W.json")])
    assert "1e5000" in err and "W.json" in err


@pytest.mark.skipif(not EXTENDED, reason="np.longdouble is float64 on this platform")
def test_extended_precision_npy_is_read_exactly(tmp_path, capsys):
    eps = np.longdouble(2) ** -63
    W = np.array([[1, 1], [1, 1 + eps]], dtype=np.longdouble)
    np.save(tmp_path / "W.npy", W)
    assert read_matrix(tmp_path / "W.npy")[1][1] == 1 + Fraction(1, 2 ** 63)
    assert _count(capsys, tmp_path / "W.npy") == "4"  # rounded to float64 it had 2
    raw = read_raw(tmp_path / "W.npy")
    assert raw.dtype == object and raw[1, 1] == 1 + Fraction(1, 2 ** 63)
    from logitgeom.exact.numbers import to_fraction

    assert to_fraction(W[1, 1]) == 1 + Fraction(1, 2 ** 63)  # the API too
    from logitgeom.convex.reading import read_target

    Y = np.array([[0.5, 0.5], [0.5, 0.5]], dtype=np.longdouble)
    Y[0, 0] += eps
    Y[1, 0] -= eps
    exact, _, _ = read_target(Y)
    assert exact[0, 0] == Fraction(1, 2) + Fraction(1, 2 ** 63)


@pytest.mark.skipif(not EXTENDED, reason="np.longdouble is float64 on this platform")
@pytest.mark.parametrize("suffix", [".npy", ".npz"])
def test_audit_refuses_an_extended_precision_head_instead_of_rounding(tmp_path, capsys,
                                                                      suffix):
    W = np.eye(3, dtype=np.longdouble)
    if suffix == ".npy":
        np.save(tmp_path / "W.npy", W)
    else:
        np.savez(tmp_path / "W.npz", W=W)
    err = _error(capsys, ["audit-argmax", str(tmp_path / f"W{suffix}"), "-o",
                          str(tmp_path / "o")])
    assert "extended precision" in err


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_float_arrays_stay_binary_floats(tmp_path, dtype):
    np.save(tmp_path / "W.npy", np.array([[1, 0.1]], dtype=dtype))
    assert read_matrix(tmp_path / "W.npy")[0][1] == Fraction(float(dtype(0.1)))


def test_number_table_is_documented_and_linked():
    root = Path(__file__).resolve().parents[1]
    doc = (root / "docs" / "limits.md").read_text()
    assert "## What a number in a file means" in doc
    for fmt in (".csv", ".json", ".npy", "float128", "1e-400"):
        assert fmt in doc.split("## What a number in a file means")[1], fmt
    assert "docs/limits.md#what-a-number-in-a-file-means" in (root / "README.md").read_text()


# -- 2. outputs whole and honest -------------------------------------------------------------

def test_every_csv_output_reads_back_with_pandas(tmp_path, capsys):
    pd = pytest.importorskip("pandas")
    from logitgeom.occupancy import occupancy

    W = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]])
    X = np.array([[1.0, 0.0], [2.0, 0.5]])  # only label 0 wins; 1 and 2 can win but never do
    np.save(tmp_path / "X.npy", X)
    res = occupancy(W, str(tmp_path / "X.npy"), out=tmp_path / "occ", plots=False)
    assert any(r["status"] == "can win, never wins" for r in res.labels)
    t = pd.read_csv(tmp_path / "occ" / "labels.csv")
    assert list(t.columns) == ["label", "wins", "verdict", "status"]
    assert t["label"].tolist() == [0, 1, 2]
    assert t["status"].tolist() == [r["status"] for r in res.labels]

    from logitgeom.audit import audit_argmax

    audit_argmax(W, out=tmp_path / "aud", progress=False)
    t = pd.read_csv(tmp_path / "aud" / "labels.csv")
    assert list(t.columns)[:3] == ["label", "name", "verdict"] and len(t) == 3

    out = tmp_path / "T.csv"
    assert cli(["symmetry", "target", "C3", "1/2", "1/4", "1/4", "-o", str(out)]) == 0
    t = pd.read_csv(out, header=None)
    assert t.shape == (3, 3)
    assert {str(x) for x in t.to_numpy().ravel()} <= {"1/2", "1/4"}


def test_solve_json_carries_the_rank_bracket_and_the_stability_bound(tmp_path, capsys):
    (tmp_path / "Y.csv").write_text("0.6,0.2,0.2\n0.2,0.6,0.2\n0.2,0.2,0.6\n")
    assert cli(["solve", str(tmp_path / "Y.csv"), "--d", "1"]) == 0
    text = capsys.readouterr().out
    assert cli(["solve", str(tmp_path / "Y.csv"), "--d", "1", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    rb = doc["rank_bracket"]
    assert rb["d"] == 1 and rb["lower"] <= rb["upper"]
    assert f"J*_d in [{rb['lower']:.12g}, {rb['upper']:.12g}]" in text

    (tmp_path / "P.csv").write_text("0.6,0.2,0.2\n0.2,0.6,0.2\n0.2,0.2,0.6001\n")
    argv = ["solve", str(tmp_path / "P.csv"), "--normalize", "--tol", "0.01"]
    assert cli(argv) == 0
    text = capsys.readouterr().out
    assert cli([*argv, "-o", str(tmp_path / "s.json")]) == 0
    st = json.loads((tmp_path / "s.json").read_text())["stability"]
    assert f"= {st['bound']:.4g}" in text and st["J_Y"][0] <= st["J_Y"][1]


# -- 3. paths stay inside --------------------------------------------------------------------

def _linked(folder: Path, name: str, elsewhere: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    elsewhere.mkdir()
    os.symlink(elsewhere, folder / name)


def test_audit_resume_through_a_linked_shards_folder_is_refused(tmp_path):
    from logitgeom.audit import audit_argmax

    _linked(tmp_path / "out", "shards", tmp_path / "elsewhere")
    with pytest.raises(OutputError, match="outside the output folder.*symlink"):
        audit_argmax([[1, 0], [0, 1], [1, 1]], out=tmp_path / "out", progress=False)
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_occupancy_resume_through_a_linked_shards_folder_is_refused(tmp_path):
    from logitgeom.occupancy import occupancy

    np.save(tmp_path / "X.npy", np.eye(2))
    _linked(tmp_path / "out", "shards", tmp_path / "elsewhere")
    with pytest.raises(OutputError, match="outside the output folder"):
        occupancy(np.eye(2), str(tmp_path / "X.npy"), out=tmp_path / "out", plots=False)
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_certify_pattern_from_a_folder_with_a_linked_twin_is_refused(tmp_path, capsys):
    from logitgeom.geometry import enumerate_to_dir

    d = tmp_path / "run"
    enumerate_to_dir([[1, 0], [0, 1]], str(d), progress=False)
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", d / "twin")
    err = _error(capsys, ["certify", "pattern", "--from", str(d), "-o",
                          str(tmp_path / "c.json")])
    assert "outside the result folder" in err and "twin" in err
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_reproduce_writes_stay_inside(tmp_path):
    from logitgeom.reproduce._artifacts import Context

    _linked(tmp_path / "out", "results", tmp_path / "elsewhere")
    ctx = Context(tmp_path / "out")
    with pytest.raises(OutputError, match="outside the output folder.*symlink"):
        ctx.write_json("results/x.json", {"a": 1})
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_reproduce_killed_while_writing_its_first_certificate_resumes(tmp_path):
    """The child dies (os._exit: no cleanup, as a kill) just after the first certificate is
    on disk and before the run could record it; the rerun must resume, not refuse."""
    out = tmp_path / "run"
    code = textwrap.dedent(f"""
        import os
        from logitgeom.reproduce import _artifacts
        real = _artifacts.write_atomic
        def dying(path, data, **kw):
            real(path, data, **kw)
            if str(path).endswith(".json") and os.path.dirname(str(path)) == {str(out)!r}:
                os._exit(9)
        _artifacts.write_atomic = dying
        from logitgeom.reproduce import reproduce
        reproduce({str(out)!r}, only="cos-lemma-3.2", progress=False, log=False)
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ), timeout=300)
    assert r.returncode == 9, r.stderr[-2000:]
    assert any(out.glob("*.json"))
    from logitgeom.reproduce import reproduce

    assert reproduce(out, only="cos-lemma-3.2", progress=False, log=False).ok


def test_every_result_writer_is_atomic():
    """No file is written in place: a write to a result path goes through write_atomic (or a
    temporary name renamed over it); listed writes that are not are the exceptions below."""
    root = Path(__file__).resolve().parents[1] / "engine"
    bad = []
    for p in root.rglob("*.py"):
        for n, line in enumerate(p.read_text().splitlines(), 1):
            code = line.split("#")[0]
            if (".write_text(" in code or ".write_bytes(" in code
                    or "shutil.copy(" in code) and ">>>" not in code:
                bad.append(f"{p.relative_to(root)}:{n}: {line.strip()}")
    # coq/build.py: a temporary name renamed over each exported file, and copies into
    # private temporary folders (mkdtemp / TemporaryDirectory) that no user reads
    private = ('(d / "Logitgeom.v").write_bytes(text)', "shutil.copy(p, Path(tmp) / p.name)",
               "tmp.write_text(text)")
    bad = [b for b in bad if not (b.startswith("coq/build.py") and b.endswith(private))]
    # coq/referee.py: the probe, the file under check and the files it imports, inside its
    # TemporaryDirectory
    probe = ('(Path(tmp) / "Probe.v").write_text(HEADER + "".join(f"Fail Check {n}.\\n"',
             '(Path(tmp) / p.name).write_text(text + f"\\nPrint Assumptions {name}.\\n")',
             "(Path(tmp) / f.name).write_text(t)")
    bad = [b for b in bad if not (b.startswith("coq/referee.py") and b.endswith(probe))]
    assert bad == [], "\n".join(bad)


# -- 4. messages that name the problem -------------------------------------------------------

@pytest.mark.parametrize("argv", [["count", "sign", "{f}"], ["audit-argmax", "{f}", "-o", "{o}"],
                                  ["occupancy", "{w}", "{f}", "-o", "{o}"],
                                  ["solve", "{y}", "--weights", "{f}"]])
def test_a_fifo_is_refused_at_once_naming_what_it_is(tmp_path, capsys, argv):
    fifo = tmp_path / "head.csv"
    os.mkfifo(fifo)
    (tmp_path / "W.csv").write_text("1,0\n0,1\n")
    (tmp_path / "Y.csv").write_text("0.5,0.25\n0.5,0.75\n")
    args = [a.format(f=fifo, o=tmp_path / "o", w=tmp_path / "W.csv", y=tmp_path / "Y.csv")
            for a in argv]
    err = _error(capsys, args)
    assert "named pipe (FIFO)" in err and "unsupported" not in err


@pytest.mark.parametrize("special, word", [("/dev/null", "character device"),
                                           ("dir", "is a directory")])
def test_devices_and_folders_are_named(tmp_path, capsys, special, word):
    path = special
    if special == "dir":
        path = str(tmp_path / "W.csv")
        os.mkdir(path)
    assert word in _error(capsys, ["count", "sign", path])


@pytest.mark.parametrize("option", ["--weights", "--h-budget", "--equal-rows"])
def test_a_missing_list_file_is_not_found(tmp_path, capsys, option):
    (tmp_path / "Y.csv").write_text("0.5,0.25\n0.5,0.75\n")
    err = _error(capsys, ["solve", str(tmp_path / "Y.csv"), option, str(tmp_path / "w.csv")])
    assert "not found" in err and "w.csv" in err and "entry" not in err


def _lying_npy(path: Path, shape: bytes) -> None:
    np.save(path, np.eye(3))
    data = path.read_bytes()
    head = data[:128].replace(b"(3, 3), }", shape + b", }")[:-1].rstrip(b" ")
    path.write_bytes(head + b" " * (127 - len(head)) + b"\n" + data[128:])


@pytest.mark.parametrize("shape", [b"(100000000000000000000000, 3)", b"(30, 3)", b"(-3, 3)"])
@pytest.mark.parametrize("cmd", [["count", "sign", "{f}"], ["audit-argmax", "{f}", "-o", "{o}"],
                                 ["occupancy", "{w}", "{f}", "-o", "{o}"]])
def test_a_lying_npy_header_is_named(tmp_path, capsys, shape, cmd):
    _lying_npy(tmp_path / "W.npy", shape)
    np.save(tmp_path / "H.npy", np.eye(3))
    args = [a.format(f=tmp_path / "W.npy", o=tmp_path / "o", w=tmp_path / "H.npy") for a in cmd]
    err = _error(capsys, args)
    assert "header says" in err and "float range" not in err, err


def test_missing_input_files_say_not_found(tmp_path, capsys):
    for argv in (["count", "sign", str(tmp_path / "W.csv")],
                 ["occupancy", str(tmp_path / "W.csv"), str(tmp_path / "X.npy")]):
        assert "not found" in _error(capsys, argv)
    with pytest.raises(InvalidInput, match="not found"):
        read_matrix(tmp_path / "W.json")


def test_option_files_are_named_by_what_they_are(tmp_path, capsys):
    (tmp_path / "W.csv").write_text("1,0\n0,1\n")
    (tmp_path / "Y.csv").write_text("0.5,0.25\n0.5,0.75\n")
    err = _error(capsys, ["count", "sign", str(tmp_path / "W.csv"), "--bias",
                          str(tmp_path / "b.csv")])
    assert "bias file not found" in err
    os.mkfifo(tmp_path / "G.json")
    err = _error(capsys, ["solve", str(tmp_path / "Y.csv"), "--group", str(tmp_path / "G.json")])
    assert "named pipe (FIFO)" in err and "group file" in err
    err = _error(capsys, ["certify", "pattern", "--from", str(tmp_path / "none"), "-o",
                          str(tmp_path / "c.json")])
    assert "--from" in err and "not found" in err and "Errno" not in err


def test_patterns_resume_through_a_linked_shards_folder_is_refused(tmp_path):
    from logitgeom.geometry import enumerate_to_dir

    _linked(tmp_path / "run", "shards", tmp_path / "elsewhere")
    with pytest.raises(OutputError, match="outside the output folder"):
        enumerate_to_dir([[1, 0], [0, 1]], str(tmp_path / "run"), progress=False)
    assert list((tmp_path / "elsewhere").iterdir()) == []
