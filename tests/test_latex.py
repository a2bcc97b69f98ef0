"""``check --latex`` writes mathematics that compiles; ``--explain`` names matrices once."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import logitgeom_certificates
from logitgeom.emit import bundle_certificate, ranking_certificate
from logitgeom_certificates import _render
from logitgeom_certificates.check import check, check_file

ROOT = Path(logitgeom_certificates.__file__).parent
FILES = sorted((ROOT / "examples").glob("valid-*.json")) + sorted((ROOT / "paper").glob("*.json"))


def _load(p: Path) -> dict:
    return json.loads(p.read_text(encoding="utf-8"))


def _tied() -> dict:
    """Labels 0 and 1 have identical rows: always tied."""
    c = ranking_certificate([[1, 0], [1, 0], [0, 1]], (2, 0, 1))
    assert check(c).ok
    return c


def test_latex_is_mathematics_not_escaped_prose():
    th = _load(ROOT / "paper" / "thm-3.4-translation.json")
    tex = _render.latex(th, one_based=False)
    assert r"$W' = W + \mathbf{1} v'^\top$" in tex
    assert r"\cos(w''_{0}, w''_{1}) = +1" in tex
    for bad in (r"\^{}", r"\_", r"$>$", "1 v'"):
        assert bad not in tex
    tied = _render.latex(_tied())
    assert r"$2 \succ 0 \sim 1$" in tied
    assert r"$3 \succ 1 \sim 2$" in _render.latex(_tied(), one_based=True)
    assert "3 > 1 ~ 2" in _render.explain(_tied(), one_based=True)


def test_each_matrix_once_with_a_name():
    h2 = _load(ROOT / "paper" / "app-h.2-sign-ranking.json")
    tex = _render.latex(h2, one_based=True)
    assert tex.count(r"\[ W_1 = \begin{pmatrix}") == 1
    assert tex.count(r"\[ W_2 = \begin{pmatrix}") == 1
    assert "the matrix" not in _render.explain(h2)
    # parts 3-4 hold the pair in the other order: the claim names them plainly
    assert re.search(r"\\in R\(W_2\)\$ but .* \\notin R\(W_1\)", tex)
    text = _render.explain(h2)
    assert text.count("W1 =") == 1 and text.count("W2 =") == 1


def test_gram_matrix_is_called_a_gram_matrix():
    grid = _load(ROOT / "paper" / "grid-5x3-a-thm-5.6.json")
    text = _render.explain(grid)
    assert "G =  (the Gram matrix G = (BW)(BW)^T" in text
    assert "S(G) has exactly" in text
    tex = _render.latex(grid)
    assert r"\begin{longtable}" in tex and r"\[ G = \begin{pmatrix}" in tex


def test_complete_patterns_are_tabulated():
    c = _load(ROOT / "examples" / "valid-pattern-complete-ranking.json")
    tex = _render.latex(c, one_based=True)
    assert tex.count(r" \tabularnewline" + "\n") >= len(c["patterns"])
    assert r"1 & \raggedright $1 \succ 2 \succ 3$" in tex


def test_argmaxable_and_theorem_render():
    from logitgeom.geometry import argmaxable

    cert = argmaxable([[2, 0], [0, 2], [1, 1]]).certificate()
    assert "exactly {0, 1}" in _render.explain(cert)
    assert r"exactly $\{1, 2\}$" in _render.latex(cert, one_based=True)
    part = ranking_certificate([[5, 1], [5, -1], [-10, 0]], (0, 2, 1))
    th = bundle_certificate("centred-cosine-ranking", [part], "App. C.2",
                            parameters={"labels": [0, 1], "cosine_at_least": "9/10"})
    assert r"\cos(w_{1}, w_{2}) \geq \tfrac{9}{10}" in _render.latex(th, one_based=True)


def _document(snippets: list[str]) -> str:
    pk = ",".join(_render.LATEX_PACKAGES)
    return ("\\documentclass{article}\n\\usepackage[margin=1cm,landscape]{geometry}\n"
            f"\\usepackage{{{pk}}}\n\\begin{{document}}\n" + "\n".join(snippets)
            + "\n\\end{document}\n")


@pytest.mark.skipif(shutil.which("pdflatex") is None,
                    reason="pdflatex is not installed (scripts/setup.sh installs "
                           "texlive-latex-base and texlive-latex-recommended)")
def test_latex_compiles_with_pdflatex(tmp_path):
    snippets = []
    for p in FILES:
        c = _load(p)
        assert check_file(p).ok, p  # check_file: shard files resolve beside the certificate
        snippets += [_render.latex(c), _render.latex(c, one_based=True)]
    snippets.append(_render.latex(_tied(), one_based=True))
    (tmp_path / "all.tex").write_text(_document(snippets), encoding="utf-8")
    proc = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "all.tex"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert (tmp_path / "all.pdf").stat().st_size > 1000
    log = (tmp_path / "all.log").read_text(errors="replace")
    assert "Missing $" not in log and "Undefined control sequence" not in log


_NEEDS_PDFLATEX = pytest.mark.skipif(shutil.which("pdflatex") is None,
                                     reason="pdflatex is not installed")


def _overfull(log: str) -> list[float]:
    return [float(w) for w in re.findall(r"Overfull \\hbox \(([0-9.]+)pt too wide\)", log)]


@_NEEDS_PDFLATEX
@pytest.mark.parametrize("one_based", [False, True, None])
def test_check_latex_body_inputs_into_an_article_without_overfull_boxes(tmp_path, one_based):
    """``logitgeom check --latex FILES > body.tex``: stdout is LaTeX only (the verdicts go to
    stderr, and into the file as comments), ``\\input{body}`` compiles in a plain article
    (default margins) and no box is wider than the text by more than 1 pt."""
    import sys

    files = [str(p) for p in FILES]
    argv = [sys.executable, "-m", "logitgeom", "check", "--latex", *files]
    if one_based is not None:
        argv.insert(4, "--one-based" if one_based else "--zero-based")
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=300,
                          cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stderr.count(": OK ") == len(files)
    assert all(line.startswith("% ") for line in proc.stdout.splitlines() if ": OK " in line)
    (tmp_path / "body.tex").write_text(proc.stdout, encoding="utf-8")
    pk = ",".join(_render.LATEX_PACKAGES)
    (tmp_path / "doc.tex").write_text(
        f"\\documentclass{{article}}\n\\usepackage{{{pk}}}\n\\begin{{document}}\n"
        "\\input{body}\n\\end{document}\n", encoding="utf-8")
    run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, run.stdout[-3000:]
    log = (tmp_path / "doc.log").read_text(errors="replace")
    assert not _overfull(log), f"overfull boxes (pt): {_overfull(log)}"


def test_bracket_snippet_states_structure_and_splits_wide_targets():
    c = _load(ROOT / "examples" / "valid-layer-peeled-theorem.json")
    tex = _render.latex(c)
    assert r"\paragraph{Structure.}" in tex and "simplex ETF" in tex
    assert r"J^* \in [" in tex
    wide = dict(c["parts"][0])
    Y = [["1/97"] * 40, ["96/97"] * 40]
    blocks = _render._column_blocks(Y)
    assert len(blocks) > 1 and blocks[0][0] == 0 and blocks[-1][1] == 40
    assert wide  # the split is used by every named matrix


@_NEEDS_PDFLATEX
def test_tall_and_wide_matrices_are_split_into_blocks_that_fit(tmp_path):
    """A 45 x 45 Gram (the n = 10 grid's G) and a 3 x 48 target of fractions: row and column
    blocks, each labelled, none wider than the text or taller than a page."""
    import random

    rnd = random.Random(5)
    G = [[str(rnd.randint(-68, 67)) for _ in range(45)] for _ in range(45)]
    Y = [[f"{rnd.randint(1, 95)}/{rnd.randint(96, 997)}" for _ in range(48)] for _ in range(3)]
    st = _render._Style(True, False)
    lines = _render._tex_named_matrix("G", G, st) + _render._tex_named_matrix("Y", Y, st)
    assert any(r"G_{30..44,\,0.." in t for t in lines) and any(r"Y_{:,\,0.." in t for t in lines)
    pk = ",".join(_render.LATEX_PACKAGES)
    (tmp_path / "m.tex").write_text(
        f"\\documentclass{{article}}\n\\usepackage{{{pk}}}\n\\begin{{document}}\n"
        + "\n".join(lines) + "\n\\end{document}\n", encoding="utf-8")
    run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "m.tex"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, run.stdout[-3000:]
    assert "Overfull" not in (tmp_path / "m.log").read_text(errors="replace")


def test_gordan_multipliers_name_their_rows():
    c = _load(ROOT / "examples" / "valid-ranking-infeasible.json")
    tex = _render.latex(c)
    assert "Gordan multipliers" in tex and r"(w_{" in tex and "= 0$" in tex


def test_check_cli_one_based(capsys):
    from logitgeom_certificates.check import main

    assert main([str(ROOT / "paper" / "app-h.2-sign-ranking.json"), "--explain",
                 "--one-based"]) == 0
    out = capsys.readouterr().out
    assert "4 > 1 > 3 > 2 > 5 is in R(W1)" in out


def test_paper_snippets_name_their_result_and_count_labels_from_1():
    want = {"thm-3.4-translation.json": "Thm 3.4", "app-c.2-centred-cosine.json": "App. C.2",
            "app-h.2-sign-ranking.json": "App. H.2", "thm-5.5-cosine-ranking.json": "Thm 5.5",
            "grid-5x3-a-lemma-5.3.json": "Lemma 5.3", "grid-5x3-b-thm-5.6.json": "Thm 5.6"}
    for p in sorted((ROOT / "paper").glob("*.json")):
        tex = _render.latex(_load(p))
        first = tex.splitlines()[1]
        assert first.startswith(r"\paragraph{Result.} The cosine paper (\emph{What Cosine"), p
        if p.name in want:
            assert f"}}), {want[p.name]}. " in first, (p.name, first)
        assert "Labels are numbered from 1, as in the paper" in first
        assert "labels 1-based" in tex.splitlines()[0]
        zero = _render.latex(_load(p), one_based=False)
        assert "Labels are numbered from 0, as in the certificate file" in zero
    th = _load(ROOT / "paper" / "thm-3.4-translation.json")
    assert r"\cos(w''_{1}, w''_{2}) = +1" in _render.latex(th)
    sym = {"kind": "layer-peeled-theorem", "theorem": "cyclic-circulant",
           "label": "Thm 1 (cyclic)"}
    assert _render.paper_result(sym) == ("symmetry", "Thm 1")
    assert _render.paper_result({"kind": "sign-feasible"}) is None
    assert "Zhehang Du" in _render.PAPERS["symmetry"][1]


@_NEEDS_PDFLATEX
def test_long_float_vectors_wrap_without_overfull_boxes(tmp_path):
    """An audit of a float32 head with a bias (long binary fractions in the bias vector and
    the matrix blocks, as in the spaCy rows of reproduce) fits the text width."""
    import numpy as np

    from logitgeom.audit import audit_argmax

    rng = np.random.default_rng(0)
    W = rng.normal(size=(40, 6)).astype(np.float32)
    b = rng.normal(size=40).astype(np.float32)
    cert = audit_argmax(W, bias=b, progress=False).certificate()
    pk = ",".join(_render.LATEX_PACKAGES)
    (tmp_path / "doc.tex").write_text(
        f"\\documentclass{{article}}\n\\usepackage{{{pk}}}\n\\begin{{document}}\n"
        + _render.latex(cert) + "\n\\end{document}\n", encoding="utf-8")
    run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, run.stdout[-3000:]
    assert not _overfull((tmp_path / "doc.log").read_text(errors="replace"))
