"""The Coq export is a function of a checked certificate (docs/coq.md): it runs the stdlib
checker (its file-type and size refusals, its work budget) and refuses what it does not
accept, naming the check; nothing of a file name but a sanitized label reaches a ``.v``
file; a theorem is named after a paper result only for that result's kind; writes are
atomic (a full disk leaves no file).  Issue 41, item 1.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import time
from pathlib import Path

import pytest

from logitgeom.cli.main import main as cli
from logitgeom.coq import ExportError, export_certificate, export_file
from logitgeom.coq.export import result_name
from logitgeom_certificates.api import check_file

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "certificates" / "examples"
PAPER = ROOT / "certificates" / "paper"
coqc = pytest.mark.skipif(shutil.which("coqc") is None, reason="coqc not installed")

#: W = [[1,0],[0,1],[1,1]]: the sign pattern [1, 1, -1] is infeasible (Gordan 1, 1, 1).
HOSTILE = ["a*) Axiom b : False. (* c", "x\ny*)\nAxiom f : False.\n(*", 'q"uo\'te"s',
           "(* (* nested", "d\u00e9j\u00e0-\u2603", "*)" * 40, "x" * 10_000]


def _plain(text: str) -> bool:
    return text.isascii() and '"' not in text.split("Definition", 1)[0]


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_names_reach_no_file(name):
    cert = json.loads((EXAMPLES / "valid-sign-infeasible.json").read_text())
    fname, text = export_certificate(cert, name)
    head = text.split("From Coq", 1)[0]
    assert head.count("(*") == 1 and head.count("*)") == 1, head
    assert "Axiom" not in text.split("*)", 1)[1] and _plain(text)
    assert re.fullmatch(r"[A-Za-z][A-Za-z0-9_]{0,61}\.v", fname), fname
    assert len(head) < 1000


@coqc
def test_hostile_file_names_export_and_compile(tmp_path):
    """Files named with comment terminators, newlines and quotes (a 10 KB name is beyond the
    file system: its 255-byte form here): exported, compiled, none proves False."""
    src = (EXAMPLES / "valid-sign-infeasible.json").read_text()
    paths = []
    for n, name in enumerate(["a*) Axiom b : False. (* c", "x\ny*)\nAxiom f : False.\n(*",
                              'q"uo\'te"s', "z" * 240]):
        p = tmp_path / f"{n}{name}.json"
        p.write_text(src)
        paths.append(p)
    out = tmp_path / "out"
    assert cli(["export", "coq", *map(str, paths), "-o", str(out), "--compile"]) == 0
    files = sorted(out.glob("*.v"))
    assert len(files) == 5 and all(_plain(f.read_text()) for f in files)
    assert not any("Axiom" in f.read_text().split("*)", 1)[1] for f in files
                   if f.name != "Logitgeom.v")


def test_renamed_file_gets_a_neutral_name(tmp_path):
    """A valid sign-feasible certificate renamed after Thm 5.6 is no Thm 5.6; a theorem
    certificate keeps its own result's name whatever its file is called."""
    shutil.copy(EXAMPLES / "valid-sign-feasible.json", tmp_path / "thm-5.6-renamed.json")
    _, text = export_file(tmp_path / "thm-5.6-renamed.json")
    assert "Thm_5_6" not in text and "Thm 5.6" not in text
    shutil.copy(PAPER / "thm-3.4-translation.json", tmp_path / "thm-5.6-fake.json")
    _, text = export_file(tmp_path / "thm-5.6-fake.json")
    assert re.findall(r"^Theorem (\w+)", text, re.M)[-1] == "Thm_3_4"
    assert "Thm_5_6" not in text
    t = json.loads((EXAMPLES / "valid-translation.json").read_text())
    for name, target, want in [("lemma-3.2-x", -1, "Lemma_3_2"), ("lemma-3.3-x", -1, None),
                               ("lemma-3.3-x", 1, "Lemma_3_3")]:
        assert result_name({**t, "target": target}, name) == want


#: Discrete invalid examples: the export refuses each, naming the check the checker failed.
DISCRETE_INVALID = [p.name for p in sorted(EXAMPLES.glob("invalid-*.json"))
                    if "layer-peeled" not in p.read_text()[:2000]]


@pytest.mark.parametrize("name", DISCRETE_INVALID)
def test_every_invalid_example_is_refused_naming_the_check(name):
    verdict = check_file(str(EXAMPLES / name))
    with pytest.raises(ExportError, match=r"refused: the stdlib checker does not accept it "
                       r"\(check '[\w-]+'") as e:
        export_file(EXAMPLES / name)
    assert f"check '{verdict.failed_check}'" in str(e.value)
    assert len(str(e.value).splitlines()) == 1


def test_theorem_parts_forgery_is_refused():
    """The issue's forgery: invalid-theorem-parts.json exported as a Thm 3.4 proving half."""
    with pytest.raises(ExportError, match="check 'theorem-parts'"):
        export_file(EXAMPLES / "invalid-theorem-parts.json")


def _timed_refusal(path: Path) -> str:
    t = time.monotonic()
    with pytest.raises(ExportError) as e:
        export_file(path)
    assert time.monotonic() - t < 5
    return str(e.value)


def test_fifo_device_and_oversized_file_refused_at_once(tmp_path):
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    assert "not a regular file" in _timed_refusal(fifo)
    dev = tmp_path / "zero.json"
    dev.symlink_to("/dev/zero")
    assert "not a regular file" in _timed_refusal(dev)
    big = tmp_path / "big.json"
    with open(big, "wb") as fh:  # sparse: no disk used
        fh.truncate(2 ** 31)
    msg = _timed_refusal(big)
    assert "check 'unreadable'" in msg and "big.json" in msg


def test_stops_at_the_checkers_work_budget():
    cert = json.loads((PAPER / "grid-5x3-a-thm-5.6.json").read_text())
    with pytest.raises(ExportError, match="check 'work-budget'"):
        export_certificate(cert, "grid", max_work=1000)


def test_full_disk_leaves_no_partial_file(tmp_path, monkeypatch, capsys):
    from logitgeom import _fsio

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(_fsio.os, "fsync", full)
    out = tmp_path / "out"
    code = cli(["export", "coq", str(EXAMPLES / "valid-sign-feasible.json"), "-o", str(out)])
    err = capsys.readouterr().err
    assert code != 0 and "No space left on device" in err
    assert sorted(os.listdir(out)) == []  # neither the library nor a partial .v nor a temp file
    assert "Traceback" not in err
    for path in re.findall(r"/[\w./-]+", err):  # no machine path beyond the user's own
        assert path.startswith(str(out)) or path.startswith(str(EXAMPLES)), path
