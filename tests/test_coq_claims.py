"""Each exported theorem states the certificate's whole claim (docs/coq.md; issue 41,
item 2): counts with ``NoDup``, top-t prefixes, an audit's counts and covered labels, App.
C's label order and unit rows, Sec. 5's 2^k / k!, labels in range.  A certificate forged in
one of these (checked by the stdlib checker: refused; exported without the check: the file
coqc rejects) is tested here, files compiled together in one batch.
"""

from __future__ import annotations

import copy
import json
import re
import shutil
from pathlib import Path

import pytest

from logitgeom import emit
from logitgeom.coq import ExportError, compile_files, export_certificate
from logitgeom.coq.export import export_checked

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "certificates" / "examples"
PAPER = ROOT / "certificates" / "paper"
pytestmark = pytest.mark.skipif(shutil.which("coqc") is None, reason="coqc not installed")


def _load(path: Path) -> dict:
    return json.loads(path.read_text())


def _main(text: str) -> str:
    return re.findall(r"^Theorem (\w+) :\n((?:  .*\n)+)", text, re.M)[-1][1]


def test_statements_carry_the_whole_claim():
    """What the top theorem says, kind by kind (no coqc needed)."""
    _, t = export_certificate(_load(EXAMPLES / "valid-pattern-complete.json"), "pc")
    assert "all_sign_patterns W [] L" in _main(t) and "(length L = 6)%nat /\\ NoDup L" in _main(t)
    top = emit.complete_certificate([[3, 0], [1, 2], [-1, 2], [-2, -1]], "ranking", top=2)
    _, t = export_certificate(top, "top")
    assert "all_top_rankings W [] 2 L1" in _main(t) and "(length L1 = 8)%nat" in _main(t)
    _, t = export_certificate(_load(EXAMPLES / "valid-argmax-audit.json"), "audit")
    m = _main(t)
    assert "length never_labels_box = 4%nat /\\ length argmaxable_labels_box = 1%nat" in m
    assert "(forall k, In k (never_labels_box ++ argmaxable_labels_box ++ undecided_labels_box)"\
        " <-> In k covered)" in m
    _, t = export_certificate(_load(PAPER / "app-c.2-centred-cosine.json"), "app-c.2-x")
    assert "hd O [0; 2; 1]%nat = 0 /\\ last [0; 2; 1]%nat O = 1" in _main(t)
    eye = emit.complete_certificate([[1, 0, 0], [0, 1, 0], [0, 0, 1]], "ranking")
    _, t = export_certificate(eye, "sec-5-eye")
    assert re.search(r"^Theorem Sec_5 :", t, re.M) and "length L = fact (length W)" in _main(t)
    first = emit.argmax_certificate([[1, 0], [0, 1], [1, 1], [1, 0], ["1/2", "1/2"]])
    _, t = export_certificate(first, "first")
    assert _main(t).strip() == ("(forall k, (k < length W)%nat -> (can_be_first W [] k <-> "
                                "In k labels)).")
    assert "Definition labels : list nat :=\n[0; 1; 2; 3]%nat." in t
    _, t = export_certificate(eye, "prop-e.2-eye")  # a count, not the Prop's: still its kind
    assert "(length L = 6)%nat" in _main(t)
    two = emit.complete_certificate([[1, 0], [0, 1], [1, 1]], "sign")  # 6 patterns, not 2^3
    _, t = export_certificate(two, "sec-5-three")
    assert "Sec_5" not in t and "2 ^" not in t


def _forged(tmp_path: Path) -> dict[str, Path]:
    """Forgeries the checker refuses, exported without it: each must fail in coqc."""
    out = {}

    def put(name, cert):
        with pytest.raises(ExportError, match="refused: the stdlib checker"):
            export_certificate(cert, name)
        fname, text = export_checked(cert, name)
        (tmp_path / fname).write_text(text)
        out[name] = tmp_path / fname

    dup = _load(EXAMPLES / "valid-pattern-complete.json")  # "7 regions", truth 6
    dup["patterns"].append(copy.deepcopy(dup["patterns"][0]))
    put("duplicated_pattern", dup)
    audit = _load(EXAMPLES / "valid-argmax-audit.json")  # 5 never where 4 are proven
    audit["counts"]["box"]["never"] = 5
    put("wrong_count", audit)
    first = emit.argmax_certificate([[1, 0], [0, 1], [1, 1], [1, 0], ["1/2", "1/2"]])
    dropped = copy.deepcopy(first)  # "exactly 0, 1, 2 can be first": 3 (tied with 0) dropped
    dropped["parameters"]["labels"] = [0, 1, 2]
    put("dropped_label", dropped)
    noclass = copy.deepcopy(first)  # label 4's class (refuted) left out
    del noclass["parts"][3]
    put("dropped_class", noclass)
    swapped = _load(PAPER / "app-c.2-centred-cosine.json")  # "label 1 first, 0 last"
    swapped["parameters"]["labels"] = [1, 0]
    put("swapped_labels", swapped)
    return out


def test_forged_claims_refused_by_export_and_rejected_by_coqc(tmp_path):
    files = _forged(tmp_path)
    # a label out of range, by hand: "label 5 is never the argmax in the box" of a 5-row head
    _, text = export_certificate(_load(EXAMPLES / "valid-argmax-audit.json"), "audit")
    assert "(0%nat, [4]%nat" in text
    text = text.replace("(0%nat, [4]%nat", "(5%nat, [4]%nat")
    (tmp_path / "out_of_range.v").write_text(text.replace("In k [0; 1; 2; 3]%nat",
                                                          "In k [5; 1; 2; 3]%nat"))
    files["out_of_range"] = tmp_path / "out_of_range.v"
    assert "In k [5; 1; 2; 3]%nat" in files["out_of_range"].read_text()
    results = dict(zip(files, compile_files(list(files.values())), strict=True))
    accepted = [n for n, r in results.items() if r.ok]
    assert not accepted, accepted
    where = {n: re.search(r"^(?:Lemma|Theorem) (\w+)", _failing(files[n], r.message), re.M)
             for n, r in results.items()}
    assert {n: m.group(1) for n, m in where.items() if m} == {
        "duplicated_pattern": "count", "wrong_count": "counts_box", "swapped_labels": "label_order",
        "out_of_range": "never_argmax_box", "dropped_label": "exactly_these",
        "dropped_class": "exactly_these"}


def _failing(path: Path, message: str) -> str:
    """The text of the file from the sentence coqc's error points at."""
    line = int(re.search(r"line (\d+)", message).group(1))
    lines = path.read_text().splitlines()
    return "\n".join(ln for ln in reversed(lines[:line]) if ln.startswith(("Lemma", "Theorem")))
