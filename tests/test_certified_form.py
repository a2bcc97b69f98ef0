"""Issue 36: ``certify solve`` writes the orbit bracket when the full one's check would exceed
the default work budget and Y is the orbit target of a known group (the M11 case), and
otherwise says what a check needs, with the exact work and the ``--bases`` recipe."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

import logitgeom_certificates.api as capi
from logitgeom.convex import LayerPeeled
from logitgeom.convex.certified import Form, bracket_check_work, certified_solve, orbit_form
from logitgeom.errors import InvalidInput
from logitgeom.symmetry import affine_line, cyclic, orbit_bases, orbit_targets, parse_group
from logitgeom_certificates.api import check

AGL_BASE = ["1/2", "1/4", "1/8", "1/8", "0"]


def _agl_Y():
    return orbit_targets(affine_line(5), AGL_BASE).exact_Y()  # 5 x 20, a plain matrix


def _bracket(cert):
    return Fraction(cert["lower"]), Fraction(cert["upper"])


def test_orbit_form_when_the_estimate_exceeds_the_budget():
    P = LayerPeeled(_agl_Y(), 1, 2)
    full = certified_solve(P, form="full")
    assert full.form is Form.FULL and full.certificate["kind"] == "layer-peeled-bracket"
    assert bracket_check_work(5, 20) == 28_000 <= full.work  # the estimate is below the work
    out = certified_solve(P, budget=27_999)  # estimate over: the full file is never built
    assert out.form is Form.ORBIT and out.certificate["kind"] == "layer-peeled-orbit-bracket"
    assert out.certificate["group_order"] == 20 and out.work <= 27_999
    assert check(out.certificate).ok
    assert "would take about 28,000 units" in out.note and "orbit of 1 column" in out.note
    lo, up = _bracket(out.certificate)
    flo, fup = _bracket(full.certificate)
    assert max(lo, flo) <= min(up, fup)  # the same optimum
    assert _bracket(out.certificate) == _bracket(certified_solve(LayerPeeled(
        orbit_targets(affine_line(5), AGL_BASE), 1, 2)).certificate)  # as --bases writes it


def test_orbit_form_when_the_metered_check_exceeds_the_budget():
    P = LayerPeeled(_agl_Y(), 1, 2)
    work = certified_solve(P, form="full").work
    out = certified_solve(P, budget=work - 1)  # estimate under, exact work over: switch
    assert out.form is Form.ORBIT
    assert f"takes {work:,} units of exact work" in out.note
    assert certified_solve(P, budget=work).form is Form.FULL  # exactly the budget: full


def test_without_a_group_the_note_names_the_bases_recipe_and_the_exact_work():
    Y = [["1/2", "1/3", "1/5", "1/7"], ["1/2", "2/3", "4/5", "6/7"]]
    out = certified_solve(LayerPeeled(Y, 1, 1), budget=10)
    assert out.form is Form.FULL and check(out.certificate, None).ok
    assert f"takes {out.work:,} units of exact work" in out.note
    assert f"logitgeom check --max-work {out.work} FILE" in out.note
    assert "--bases FILE --group G" in out.note
    with pytest.raises(InvalidInput, match="not the orbit target"):
        certified_solve(LayerPeeled(Y, 1, 1), form="orbit")
    with pytest.raises(InvalidInput, match="unknown certificate form"):
        certified_solve(LayerPeeled(Y, 1, 1), form="small")


def test_a_given_group_gives_the_orbit_form_even_for_the_full_method():
    out = certified_solve(LayerPeeled(_agl_Y(), 1, 2), "full", group=affine_line(5),
                          budget=1_000)
    assert out.form is Form.ORBIT and out.solution.method == "full"
    assert check(out.certificate).ok


def test_orbit_bases_and_orbit_form_are_exact():
    T = orbit_targets(cyclic(5), [AGL_BASE, [1, 0, 0, 0, 0]])
    P = LayerPeeled(T.exact_Y(), 1, 1)
    assert orbit_bases(cyclic(5), P.codes) == [0, 5]
    assert orbit_form(P, cyclic(5)).base == T.base
    assert orbit_form(P, affine_line(5)) is None  # 10 columns, |G| = 20
    Y = [list(r) for r in T.exact_Y()]
    Y[0][1], Y[1][1] = Y[1][1], Y[0][1]  # one column moved off its orbit
    Y = [[str(x) for x in r] for r in Y]
    assert orbit_form(LayerPeeled(Y, 1, 1), cyclic(5)) is None


def _write_csv(path, Y):
    path.write_text("\n".join(",".join(str(x) for x in row) for row in Y) + "\n")


def test_certify_solve_writes_the_orbit_form_over_the_default_budget(tmp_path, monkeypatch,
                                                                       capsys):
    """The CLI path, with the default budget patched down (the real M11 case is the slow
    test below)."""
    from logitgeom.cli.main import main

    y = tmp_path / "Y.csv"
    _write_csv(y, _agl_Y())
    monkeypatch.setattr(capi, "DEFAULT_MAX_WORK", 10_000, raising=False)
    assert main(["certify", "solve", str(y), "-o", str(tmp_path / "c.json")]) == 0
    err = capsys.readouterr().err
    cert = json.loads((tmp_path / "c.json").read_text())
    assert cert["kind"] == "layer-peeled-orbit-bracket", err
    assert "wrote the orbit bracket instead" in err and "10,000" in err
    monkeypatch.setattr(capi, "DEFAULT_MAX_WORK", 10, raising=False)
    z = tmp_path / "Z.csv"
    _write_csv(z, [["1/2", "1/3", "1/5"], ["1/2", "2/3", "4/5"]])
    assert main(["certify", "solve", str(z), "-o", str(tmp_path / "d.json")]) == 0
    err = capsys.readouterr().err
    assert json.loads((tmp_path / "d.json").read_text())["kind"] == "layer-peeled-bracket"
    assert "--bases FILE --group G" in err and "logitgeom check --max-work" in err


@pytest.mark.slow
def test_the_m11_target_gets_the_orbit_form(tmp_path, capsys):
    """11 x 7,920, the orbit of one column under M11: the full bracket (9.5 MB) would take
    29 million units to check; the orbit bracket is written instead and checks within the
    default budget (about 8 CPU s on the shared machine)."""
    from logitgeom.cli.main import main

    G = parse_group("M11")
    base = [Fraction(k + 1, 66) for k in range(11)]
    Y = orbit_targets(G, [base]).exact_Y()
    y = tmp_path / "m11.csv"
    _write_csv(y, Y)
    out = tmp_path / "m11.json"
    assert main(["certify", "solve", str(y), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    cert = json.loads(out.read_text())
    assert cert["kind"] == "layer-peeled-orbit-bracket" and cert["group_order"] == 7920
    assert "24,393,600" in err and "orbit of 1 column under a group of order 7,920" in err
    assert out.stat().st_size < 100_000
    v = capi.check_file(str(out))
    assert v.ok and v.work <= capi.DEFAULT_MAX_WORK
