"""Coq export (docs/coq.md): the library's assumptions, the papers' certificates compiled by
coqc, and tampered certificates refused by the export or rejected by coqc, kind by kind.

Every test here needs ``coqc`` (``apt-get install coq``; scripts/setup.sh installs it).
"""

from __future__ import annotations

import copy
import json
import re
import shutil
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest

from logitgeom.cli.main import main as cli
from logitgeom.coq import (
    LIBRARY,
    ExportError,
    compile_files,
    compile_library,
    export_certificate,
    export_file,
    export_files,
)
from logitgeom.coq.export import export_checked
from logitgeom_certificates.check import check

ROOT = Path(__file__).resolve().parents[1]
PAPER = sorted((ROOT / "certificates" / "paper").glob("*.json"))
EXAMPLES = ROOT / "certificates" / "examples"
#: The axioms of the standard library's real numbers (Coq 8.16), and nothing else.
ALLOWED_AXIOMS = {"ClassicalDedekindReals.sig_not_dec", "ClassicalDedekindReals.sig_forall_dec",
                  "FunctionalExtensionality.functional_extensionality_dep"}

#: Coq's primitive 63-bit integer type and operations, with which ``Qrow`` and ``Ql`` read
#: long numbers (an audit's head): kernel primitives that ``Print Assumptions`` lists, not
#: axioms about them (no ``Uint63.add_spec`` and the like).
PRIMITIVES = {f"{p}{n}" for p in ("", "PrimInt63.") for n in
              ("int", "sub", "lsr", "land", "ltb", "leb", "eqb", "add", "mul", "lsl", "lor")}

pytestmark = pytest.mark.skipif(shutil.which("coqc") is None, reason="coqc not installed")


def _assumptions(output: str, n: int) -> set[str]:
    """Axiom names printed by n ``Print Assumptions`` commands (each closed or listed)."""
    closed = output.count("Closed under the global context")
    listed = output.count("Axioms:")
    assert closed + listed == n, output[:2000]
    return {m for m in re.findall(r"^([A-Za-z_][\w.']*) :", output, re.M)}


def _coq_names(text: str, kinds=("Lemma", "Theorem")) -> list[str]:
    return re.findall(rf"^(?:{'|'.join(kinds)}) +([\w']+)", text, re.M)


def test_library_has_no_admitted_or_axiom():
    text = LIBRARY.read_text()
    code = re.sub(r"\(\*.*?\*\)", "", text, flags=re.S)
    for word in ("Admitted", "admit", "Axiom", "Parameter", "Hypothesis", "Conjecture"):
        assert not re.search(rf"\b{word}\b", code), word


def test_print_assumptions_of_every_library_theorem(tmp_path):
    names = _coq_names(LIBRARY.read_text())
    assert len(names) > 50
    lib = compile_library()
    (tmp_path / "pa.v").write_text("From Logitgeom Require Import Logitgeom.\n" + "".join(
        f"Print Assumptions {n}.\n" for n in names))
    out = subprocess.run(["coqc", "-Q", str(lib), "Logitgeom", "pa.v"], cwd=tmp_path,
                         capture_output=True, text=True, check=True).stdout
    assert _assumptions(out, len(names)) <= ALLOWED_AXIOMS


@pytest.mark.slow
def test_every_paper_certificate_compiles_with_its_papers_name(tmp_path):
    written = export_files(PAPER, tmp_path)
    assert (tmp_path / "Logitgeom.v").read_text() == LIBRARY.read_text()
    names = {"thm_3_4_translation.v": "Thm_3_4", "app_c_2_centred_cosine.v": "App_C_2",
             "thm_5_5_cosine_ranking.v": "Thm_5_5", "app_h_2_sign_ranking.v": "App_H_2"}
    for v in written:
        text = v.read_text()
        main = _coq_names(text)[-1]
        assert main == names.get(v.name, "Thm_5_6" if "thm_5_6" in v.name else "Lemma_5_3")
        assert not re.search(r"\b(lia|lra|nra|auto|eauto|tauto|firstorder|Admitted)\b", text)
        v.write_text(text + f"\nPrint Assumptions {main}.\n")
    results = compile_files(written)
    bad = [(r.path.name, r.message[:300]) for r in results if not r.ok]
    assert not bad, bad
    for r in results:  # coqc's output: the main theorem's assumptions, the reals' at most
        assert _assumptions(r.message, 1) <= ALLOWED_AXIOMS, r.path.name


def test_cli_export_and_compile(tmp_path, capsys):
    code = cli(["export", "coq", str(EXAMPLES / "valid-sign-infeasible.json"),
                str(EXAMPLES / "valid-argmax-audit.json"), "-o", str(tmp_path), "--compile"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.count("ACCEPTED by the referee's check") == 2
    text = (tmp_path / "valid_argmax_audit.v").read_text()
    assert "~ exists x, in_box (1#4) x /\\ strict_argmax W b k x" in text
    assert "forall k, (k < length W)%nat -> exists x, strict_argmax W b k x" in text
    assert "forall k, In k [4]%nat -> exists x, in_box (1#4) x /\\ strict_argmax W b k x" in text


def test_cli_refuses_uncovered_kind(tmp_path, capsys):
    code = cli(["export", "coq", str(EXAMPLES / "valid-layer-peeled-bracket.json"),
                "-o", str(tmp_path)])
    assert code == 2
    assert "not covered by the Coq export" in capsys.readouterr().err


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.glob("valid-layer-peeled-*")))
def test_every_layer_peeled_kind_is_refused_as_not_discrete(name):
    """Each convex kind (brackets, family, rank, stability) is named "not discrete (convex
    bracket)", not "unknown kind"; a kind the checker does not know is "unknown"."""
    cert = _load(name)
    with pytest.raises(ExportError, match=r"not covered by the Coq export: not discrete \(convex "
                       r"bracket\)"):
        export_certificate(cert, "c")
    with pytest.raises(ExportError, match="refused: the stdlib checker .*unsupported-kind"):
        export_certificate({**cert, "kind": "layer-peeled-nothing"}, "c")
    with pytest.raises(ExportError, match="unknown kind 'layer-peeled-nothing'"):
        export_checked({**cert, "kind": "layer-peeled-nothing"}, "c")


def test_cli_no_witnesses_exports_the_never_proofs_only(tmp_path, capsys):
    code = cli(["export", "coq", str(EXAMPLES / "valid-argmax-audit.json"), "-o", str(tmp_path),
                "--no-witnesses"])
    assert code == 0, capsys.readouterr()
    text = (tmp_path / "valid_argmax_audit.v").read_text()
    assert "never_box_list_sound" in text and "argmax_list" not in text
    assert "without its witnesses (--no-witnesses)" in text


def test_export_is_deterministic():
    cert = json.loads((ROOT / "certificates" / "paper" / "app-h.2-sign-ranking.json").read_text())
    assert export_certificate(cert, "a") == export_certificate(copy.deepcopy(cert), "a")


# ------------------------------------------------------------------ tampering
def _bump(s: str) -> str:
    """p/q -> (p+1)/q, canonical: a one-digit change of a number."""
    f = Fraction(s) + Fraction(1, Fraction(s).denominator)
    return str(f)


def _variants(obj, path=()):
    """(path, new value): every number bumped by one unit of its last digit's place (p/q to
    (p+1)/q) or its sign flipped, every sign negated."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _variants(v, (*path, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _variants(v, (*path, i))
    elif isinstance(obj, str) and re.fullmatch(r"-?\d+(/\d+)?", obj):
        yield path, _bump(obj)
        if obj != "0":  # a sign flipped: one character
            yield path, obj[1:] if obj.startswith("-") else "-" + obj
    elif type(obj) is int and path and path[-2:-1] and path[-2] in ("signs", "pattern", "value"):
        yield path, -obj if obj else 1


def _set(obj, path, value):
    out = copy.deepcopy(obj)
    cur = out
    for p in path[:-1]:
        cur = cur[p]
    cur[path[-1]] = value
    return out


#: (certificate, field whose one-digit change the stdlib checker rejects), every covered kind.
TAMPER = [
    ("valid-sign-feasible.json", "witness"), ("valid-sign-infeasible.json", "multipliers"),
    ("valid-ranking-feasible.json", "witness"), ("valid-ranking-infeasible.json", "multipliers"),
    ("valid-translation.json", "v"), ("valid-cosine-equal.json", "W2"),
    ("valid-same-chirotope.json", "W2"), ("valid-pattern-complete.json", "witness"),
    ("valid-pattern-complete.json", "pattern"), ("valid-pattern-complete-ranking.json", "witness"),
    ("valid-pattern-differs.json", "witness"), ("valid-pattern-differs.json", "multipliers"),
    ("valid-theorem.json", "v"), ("valid-argmax-audit.json", "multipliers"),
    ("valid-argmax-audit.json", "witness"),
    ("paper/app-h.2-sign-ranking.json", "multipliers"),
    ("paper/app-c.2-centred-cosine.json", "witness"),
    ("paper/thm-5.5-cosine-ranking.json", "multipliers"),
    ("paper/grid-5x3-c-lemma-5.3.json", "witness"),
    ("paper/grid-5x3-c-thm-5.6.json", "witness"),
]


def _load(name: str) -> dict:
    base = ROOT / "certificates" if name.startswith("paper/") else EXAMPLES
    return json.loads((base / name).read_text())


def _rejected_variant(cert, field):
    for path, value in _variants(cert):
        if field in path:
            bad = _set(cert, path, value)
            if not check(bad).ok:
                return path, bad
    raise AssertionError(f"no rejected variant of {field}")


@pytest.mark.slow
def test_tampered_certificates_are_refused_or_rejected_by_coqc(tmp_path):
    """Every covered kind: a one-digit change that the stdlib checker rejects is refused by
    the export, naming the check; and written without the check (``export_checked``, the
    generator alone), it is refused by the generator or yields a file coqc rejects."""
    to_compile, refused = [], []
    for n, (name, field) in enumerate(TAMPER):
        path, bad = _rejected_variant(_load(name), field)
        with pytest.raises(ExportError, match=rf"^t{n}: refused: the stdlib checker does not "
                           r"accept it \(check '"):
            export_certificate(bad, f"t{n}")
        try:
            fname, text = export_checked(bad, f"t{n}")
        except ExportError as exc:
            assert str(exc).startswith(f"t{n}: /") and len(str(exc).splitlines()) == 1
            refused.append((name, field))
            continue
        (tmp_path / fname).write_text(text)
        to_compile.append((tmp_path / fname, name, field))
    results = compile_files([p for p, _, _ in to_compile])
    accepted = [(n, f) for (_, n, f), r in zip(to_compile, results, strict=True) if r.ok]
    assert not accepted, accepted
    assert ("valid-pattern-complete.json", "pattern") in refused  # now incomplete: refused
    assert len(to_compile) >= len(TAMPER) - 2


@pytest.mark.parametrize("name", ["valid-sign-feasible.json", "valid-translation.json",
                                  "valid-pattern-complete.json", "valid-argmax-audit.json",
                                  "valid-theorem.json", "valid-same-chirotope.json",
                                  "valid-cosine-equal.json", "valid-pattern-differs.json"])
def test_malformed_number_refused_by_export(name):
    cert = json.loads((EXAMPLES / name).read_text())
    path = next(p for p, _ in _variants(cert))
    with pytest.raises(ExportError, match="refused: the stdlib checker"):
        export_certificate(_set(cert, path, "1.0"), "m")
    with pytest.raises(ExportError, match="not a canonical rational"):
        export_checked(_set(cert, path, "1.0"), "m")


# ------------------------------------------------------------------ argmax witnesses
def _audit_cert(**fields) -> dict:
    from logitgeom.certify.common import header

    return {**header("argmax-audit"), **fields}


#: W = [[1], [-1]] in the box |x| <= 1/4: label 0 wins at x = 1/4, label 1 at x = -1/4.
BOX = _audit_cert(head={"W": [["1"], ["-1"]]}, rows=2, cols=1, domains=["box"], radius="1/4",
                  labels=[[0, 1]], counts={"box": {"argmaxable": 2, "never": 0, "undecided": 0}},
                  records=[{"label": n, "box": {"verdict": "argmaxable", "witness": {"x": [x]}}}
                           for n, x in enumerate(["1/4", "-1/4"])])


def test_audit_witnesses_compile_and_a_changed_coordinate_fails_in_coq(tmp_path):
    """Witnesses of an audit are Coq theorems (every label; the box's labels) and a one-digit
    change of a witness coordinate, which the stdlib checker rejects, yields a file coqc
    rejects: in ``all`` another label wins (label 4 moved from (0, 0) to (1, 0)); in ``box``
    the point leaves the box (1/4 -> 1/2, label 0 still wins)."""
    audit = _load("valid-argmax-audit.json")
    moved = copy.deepcopy(audit)
    moved["records"][4]["all"]["witness"]["x"][0] = "1"
    outside = copy.deepcopy(BOX)
    outside["records"][0]["box"]["witness"]["x"][0] = "1/2"
    assert check(BOX).ok and check(audit).ok
    assert check(moved).failed_check == "witness" and check(outside).failed_check == "box"
    for cert in (moved, outside):
        with pytest.raises(ExportError, match="refused: the stdlib checker"):
            export_certificate(cert, "bad")
    files = []
    for name, cert in [("ok_all", audit), ("ok_box", BOX), ("moved", moved),
                       ("outside", outside)]:
        fname, text = export_checked(cert, name)
        assert "argmax_" in text and "_sound" in text
        assert not re.search(r"\b(lia|lra|nra|auto|eauto|tauto|firstorder|Admitted)\b", text)
        (tmp_path / fname).write_text(text)
        files.append(tmp_path / fname)
    assert "forall k, (k < length W)%nat -> exists x, in_box (1#4) x /\\ strict_argmax W [] k x" \
        in files[1].read_text()
    ok = [r.ok for r in compile_files(files)]
    assert ok == [True, True, False, False], ok


def test_audit_witness_changed_in_a_shard_or_malformed_is_refused_by_export(tmp_path):
    """A one-digit change of a witness coordinate in a shard breaks its SHA-256, and a
    coordinate made non-canonical by one digit ("1/4" -> "2/4"): the export refuses, with a
    one-line error naming the place."""
    src = EXAMPLES / "argmax-audit"
    shutil.copy(src / "records.jsonl", tmp_path / "records.jsonl")
    shutil.copy(src / "valid-sharded.json", tmp_path / "sharded.json")
    name, text = export_file(tmp_path / "sharded.json")
    (tmp_path / name).write_text(text)
    (r,) = compile_files([tmp_path / name])
    assert r.ok, r.message[:500]
    lines = (tmp_path / "records.jsonl").read_text().splitlines()
    assert '"x":["0","0"]' in lines[4]
    lines[4] = lines[4].replace('"x":["0","0"]', '"x":["1","0"]', 1)
    (tmp_path / "records.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(ExportError, match="SHA-256") as e:
        export_file(tmp_path / "sharded.json")
    assert len(str(e.value).splitlines()) == 1
    cert = json.loads((src / "valid-sharded.json").read_text())
    with pytest.raises(ExportError, match="SHA-256") as e:  # the generator checks it too
        export_checked(cert, "sharded", base_dir=str(tmp_path))
    bad = copy.deepcopy(BOX)
    bad["records"][0]["box"]["witness"]["x"][0] = "2/4"
    with pytest.raises(ExportError, match="refused: the stdlib checker"):
        export_certificate(bad, "b")
    with pytest.raises(ExportError, match="/records/0/box/witness/x/0: '2/4' is not in lowest"):
        export_checked(bad, "b")


def test_audit_of_a_float32_head_with_bias_both_domains_compiles(tmp_path):
    """A float32 head with bias and a planted midpoint label, audited in ``all`` and in the
    box: never-proofs and witnesses of both domains in one file, accepted; the main theorem
    assumes nothing but the primitive integers the head is read with."""
    import numpy as np

    from logitgeom.audit import audit_argmax

    rng = np.random.default_rng(1)
    W = rng.standard_normal((12, 3)).astype(np.float32)
    W[5] = (W[0] + W[1]) / np.float32(2)
    cert = audit_argmax(W, bias=rng.standard_normal(12).astype(np.float32), radius=1.0,
                        progress=False).certificate()
    assert check(cert).ok
    counts = cert["counts"]
    assert all(counts[d]["never"] and counts[d]["argmaxable"] for d in ("all", "box"))
    fname, text = export_certificate(cert, "float_head")
    for lemma in ("never_argmax_all", "argmaxable_all", "never_argmax_box", "argmaxable_box"):
        assert f"Lemma {lemma} :" in text
    main = _coq_names(text)[-1]
    (tmp_path / fname).write_text(text + f"\nPrint Assumptions {main}.\n")
    (r,) = compile_files([tmp_path / fname])
    assert r.ok, r.message[:1000]
    assert _assumptions(r.message, 1) <= ALLOWED_AXIOMS | PRIMITIVES


def test_paper_certificates_tampered_fail_in_coq(tmp_path):
    cert = json.loads((ROOT / "certificates" / "paper" / "thm-3.4-translation.json").read_text())
    path, bad = _rejected_variant(cert, "v")
    fname, text = export_checked(bad, "thm_bad")
    (tmp_path / fname).write_text(text)
    (r,) = compile_files([tmp_path / fname])
    assert not r.ok and "Error" in r.message


def test_affine_tied_and_zero_rows_compile(tmp_path):
    """Complete lists with a bias, tied labels, an identically zero row, a top-t claim, and
    a ranking refuted through a tied pair: exported and accepted by coqc."""
    from logitgeom import emit

    certs = {
        "rank_bias_tie": emit.complete_certificate([[1, 0], [0, 1], [1, 0], [-1, -1]], "ranking",
                                                   bias=[0, 1, 0, "1/2"]),
        "sign_bias_zero": emit.complete_certificate([[1, 0], [0, 0], [1, 1], [0, 1]], "sign",
                                                    bias=[1, 0, -1, "1/3"]),
        "rank_top": emit.complete_certificate([[3, 0], [1, 2], [-1, 2], [-2, -1]], "ranking",
                                              top=2),
        "rank_tie_never": emit.ranking_certificate([[1, 0], [1, 0], [0, 1]], [1, 0, 2]),
    }
    files = []
    for name, cert in certs.items():
        assert check(cert).ok
        fname, text = export_certificate(cert, name)
        (tmp_path / fname).write_text(text)
        files.append(tmp_path / fname)
    assert all(r.ok for r in compile_files(files)), [r.message[:300] for r in compile_files(files)]


# ------------------------------------------------------------------ prefix trees
def _lying_gordan(monkeypatch):
    """Make the (untrusted) generator answer every realised prefix with made-up multipliers."""
    from logitgeom.coq import _tree

    real = _tree.gordan

    def lying(rows, d):
        ok, y = real(rows, d)
        return (False, [Fraction(1)] * len(rows)) if ok else (ok, y)
    monkeypatch.setattr(_tree, "gordan", lying)


@pytest.mark.parametrize("name,part", [("paper/grid-5x3-c-thm-5.6.json", 0),
                                       ("paper/grid-5x3-c-thm-5.6.json", 1),
                                       ("valid-pattern-complete.json", None),
                                       ("valid-pattern-complete-ranking.json", None)])
def test_prefix_tree_refuses_a_removed_pattern(name, part):
    cert = _load(name)
    bad = copy.deepcopy(cert)
    target = bad if part is None else bad["parts"][part]
    del target["patterns"][len(target["patterns"]) // 2]
    with pytest.raises(ExportError, match="refused: the stdlib checker"):
        export_certificate(bad, "t")
    with pytest.raises(ExportError, match="the list is not complete: .* no listed"):
        export_checked(bad, "t")


def test_prefix_tree_with_made_up_multipliers_rejected_by_coqc(tmp_path, monkeypatch):
    """A listed pattern removed and the generator lying (multipliers for realised prefixes):
    the file is written, and coqc rejects it (the tree checker is what decides)."""
    _lying_gordan(monkeypatch)
    files = []
    names = ["valid-pattern-complete.json", "valid-pattern-complete-ranking.json"]
    for n, name in enumerate(names):
        bad = _load(name)
        del bad["patterns"][0]
        fname, text = export_checked(bad, f"lie{n}")
        assert "tree_sign_sound" in text or "tree_rank_sound" in text
        (tmp_path / fname).write_text(text)
        files.append(tmp_path / fname)
    results = compile_files(files)
    assert not any(r.ok for r in results), [r.path.name for r in results]


def test_prefix_tree_tampered_multiplier_rejected_by_coqc(tmp_path):
    """One digit of a prefix refutation changed: coqc rejects the file."""
    fname, text = export_certificate(_load("paper/grid-5x3-c-thm-5.6.json"), "tam")
    head, block = text.split("Definition certs : list vec :=\n", 1)
    assert block.startswith("[[")
    lines = block.split("\n")  # one refutation a line; the first on two or more rows
    n = next(i for i, ln in enumerate(lines) if len(re.findall(r"\([1-9]\d*#1\)", ln)) >= 2)
    m = re.search(r"\(([1-9]\d*)#1\)", lines[n])
    lines[n] = lines[n][:m.start(1)] + str(int(m.group(1)) + 1) + lines[n][m.end(1):]
    block = "\n".join(lines)
    (tmp_path / fname).write_text(head + "Definition certs : list vec :=\n" + block)
    (r,) = compile_files([tmp_path / fname])
    assert not r.ok and "Error" in r.message


@pytest.mark.slow
def test_thm_5_6_on_ten_labels_compiles(tmp_path):
    """``make demo``'s grid-n10-d2-thm-5.6.json: 10! candidate rankings and 2^45 candidate sign
    vectors of the 45 x 45 Gram matrix, proven complete by their prefix trees; a removed
    ranking is refused by the export."""
    from logitgeom import emit
    from logitgeom.geometry.grid import random_head

    cert = emit.grid_certificate(random_head(10, 2, 0), "thm-5.6")
    assert check(cert).ok
    bad = copy.deepcopy(cert)
    del bad["parts"][0]["patterns"][17]
    with pytest.raises(ExportError, match="not complete"):
        export_checked(bad, "grid-n10-d2-thm-5.6")
    fname, text = export_certificate(cert, "grid-n10-d2-thm-5.6")
    assert "tree_rank_sound" in text and "tree_sign_sound" in text
    main = _coq_names(text)[-1]
    assert main == "Thm_5_6"
    (tmp_path / fname).write_text(text + f"\nPrint Assumptions {main}.\n")
    (r,) = compile_files([tmp_path / fname])
    assert r.ok, r.message[:1000]
    assert _assumptions(r.message, 1) <= ALLOWED_AXIOMS
