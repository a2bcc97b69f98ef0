"""The referee's check (``logitgeom check-coq``, ``export coq --compile``; docs/coq.md):
a file is accepted only if its form is the library import, data Definitions and proved
Lemma/Theorems, coqc accepts it against the project's library, and ``Print Assumptions``
of its top theorem lists only the documented axioms.  Issue 41, item 3."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from logitgeom.cli.main import main as cli
from logitgeom.coq import check_coq_file, export_certificate, referee

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "certificates" / "examples"
PAPER = ROOT / "certificates" / "paper"
coqc = pytest.mark.skipif(shutil.which("coqc") is None, reason="coqc not installed")


def _text(name: str = "valid-sign-infeasible.json", base: Path = EXAMPLES) -> str:
    return export_certificate(json.loads((base / name).read_text()), "f")[1]


def _after_header(text: str, extra: str) -> str:
    return text.replace("Open Scope Q_scope.\n", "Open Scope Q_scope.\n" + extra, 1)


#: Hand edits of an exported file; each is rejected by the form check (no coqc run).
EDITS = {
    "redefined library name": lambda t: _after_header(
        t, "Definition strict_argmax (W : mat) (b : vec) (k : nat) (x : vec) : Prop := False.\n"),
    "Admitted lemma": lambda t: t + "\nLemma z : False.\nProof.\nAdmitted.\n",
    "extra Axiom": lambda t: t + "\nAxiom b : False.\n",
    "Axiom through a comment": lambda t: t.replace("(* logitgeom export coq: f",
                                                   "(* a*) Axiom b : False. (* c", 1),
    "Parameter": lambda t: _after_header(t, "Parameter p : nat.\n"),
    "Unset": lambda t: _after_header(t, "Unset Guard Checking.\n"),
    "native_compute": lambda t: t.replace("vm_cast_no_check (eq_refl true)",
                                          "native_compute; reflexivity"),
    "Notation": lambda t: _after_header(t, "Notation sign_pattern := (fun _ _ _ => True).\n"),
    "another import": lambda t: _after_header(t, "Require Import Classical.\n"),
    "string literal": lambda t: t + '\n(* " *) *)\n',
    "unclosed comment": lambda t: t + "\n(* \n",
    "Defined proof": lambda t: t.replace(" Qed.", " Defined.", 1),
    "header changed": lambda t: t.replace("Open Scope Q_scope.", "Open Scope Z_scope.", 1),
    "name twice": lambda t: t + "\nDefinition W : mat := [].\n",
}


@pytest.mark.parametrize("what", sorted(EDITS))
def test_hand_edits_are_rejected_by_the_form(what):
    text = _text()
    assert referee.scan(text)[0] is None
    bad = EDITS[what](text)
    assert bad != text
    reason, _, _ = referee.scan(bad)
    assert reason is not None, what


def test_scan_names_the_top_theorem():
    reason, name, stmt = referee.scan(_text("thm-3.4-translation.json", PAPER))
    assert reason is None and name == "Thm_3_4" and "softmax" in stmt


@coqc
def test_cli_check_coq_accepts_an_export_and_rejects_edits(tmp_path, capsys, monkeypatch):
    text = _text("app-c.2-centred-cosine.json", PAPER)
    (tmp_path / "good.v").write_text(text)
    (tmp_path / "axiom.v").write_text(EDITS["extra Axiom"](text))
    (tmp_path / "wrong.v").write_text(text.replace("last [0; 2; 1]%nat O = 1",
                                                   "last [0; 2; 1]%nat O = 2"))
    code = cli(["check-coq", *(str(tmp_path / n) for n in ("good.v", "axiom.v", "wrong.v"))])
    out = capsys.readouterr().out
    assert code == 1
    lines = out.splitlines()
    assert lines[0].endswith("ClassicalDedekindReals.sig_not_dec)") and "ACCEPTED" in lines[0]
    assert lines[1].startswith("  App_C_2 : (centred W)")
    assert "REJECTED by the referee's check: line" in lines[2] and "'Axiom'" in lines[2]
    assert "REJECTED by the referee's check: coqc rejects it" in lines[3]
    # a name of Coq's standard library defined again (not one of Logitgeom.v: the form
    # check passes, coqc confirms the name is bound)
    (tmp_path / "nodup.v").write_text(_after_header(text, "Definition NoDup : list nat -> "
                                                    "Prop := fun _ => True.\n"))
    v = check_coq_file(tmp_path / "nodup.v")
    assert not v.ok and "'NoDup' is a name of Coq's standard library" in v.reasons[0]
    # the axioms: the reals' are documented; with none allowed, the same file is rejected
    monkeypatch.setattr(referee, "ALLOWED_AXIOMS", frozenset())
    v = check_coq_file(tmp_path / "good.v")
    assert not v.ok and "assumes ClassicalDedekindReals.sig_not_dec" in v.reasons[0]


@coqc
def test_export_compile_runs_the_referees_check(tmp_path, capsys):
    code = cli(["export", "coq", str(EXAMPLES / "valid-sign-feasible.json"), "-o",
                str(tmp_path), "--compile"])
    out = capsys.readouterr().out
    assert code == 0 and "ACCEPTED by the referee's check: theorem claim" in out
