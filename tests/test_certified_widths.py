"""Certified brackets are tight on every kind of target, and the convex side says exactly
what it proves: widths (exact rationals of the certificate) <= 1e-9 on m > n targets,
rank-deficient Y, n = 1 and Q8 on two copies; one-hot ETF at E = 100; certificates of
2-homogeneous targets that are not S_m-invariant use the solved group; no budget-inactive
claim; the CLI's --normalize / --group / --bases, each file checked by the standard-library
checker in a separate, isolated interpreter."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from _groups import diagonal, quaternion_group

from logitgeom.convex import LayerPeeled
from logitgeom.errors import InvalidInput
from logitgeom.symmetry import as_group, orbit_targets, parse_group
from logitgeom.symmetry.constructors import group_from_text
from logitgeom.symmetry.named import mathieu, pgl2, psl2
from logitgeom_certificates.check import check

ROOT = Path(__file__).resolve().parents[1]
WIDTH = Fraction(1, 10 ** 9)


def _width(c: dict) -> Fraction:
    lo, up = Fraction(c["lower"]), Fraction(c["upper"])
    return (up - lo) / abs(up)


def _rational(m: int, n: int, seed: int) -> list[list[str]]:
    rng = np.random.default_rng(seed)
    A = rng.integers(1, 9, size=(m, n))
    return [[str(Fraction(int(A[i, j]), int(A[:, j].sum()))) for j in range(n)]
            for i in range(m)]


def _q8_twice():
    return as_group(diagonal(quaternion_group(), 2))


def _rank_one() -> list[list[str]]:
    col = _rational(4, 1, 5)
    return [[r[0]] * 5 for r in col]


def _rank_two() -> list[list[str]]:
    Y2 = _rational(5, 2, 6)
    return [[r[0], r[1]] * 3 for r in Y2]


CASES = {
    "m>n 6x3": (lambda: _rational(6, 3, 1), 1, 4),
    "m>n 8x2": (lambda: _rational(8, 2, 2), 2, 2),
    "n=1": (lambda: _rational(5, 1, 3), 1, 1),
    "rank-1 Y": (_rank_one, 1, 1),
    "rank-2 Y": (_rank_two, 1, 2),
    "Q8 on two copies": (lambda: orbit_targets(_q8_twice(),
                                               [f"{k}/136" for k in range(1, 17)]), 1, 4),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bracket_width_at_most_1e_9(name):
    make, ew, eh = CASES[name]
    sol = LayerPeeled(make(), ew, eh).solve()
    c = sol.certificate()
    assert check(c).ok
    assert _width(c) <= WIDTH, f"{name}: relative width {float(_width(c)):.3g}"


def test_rank_deficient_optimum_through_every_method():
    """m > n and n = 1 through the full program too (the rank of Z* is < m - 1)."""
    for Y in (_rational(6, 3, 1), _rational(5, 1, 3)):
        c = LayerPeeled(Y, 1, 4).solve("full").certificate()
        assert check(c).ok and _width(c) <= WIDTH


def test_orbit_targets_keep_exact_values_and_agree_with_the_matrix():
    G = _q8_twice()
    T = orbit_targets(G, [f"{k}/136" for k in range(1, 17)])
    lp = LayerPeeled(T, 1, 4)
    assert lp.exact_entries() == [list(r) for r in T.exact_Y()]
    sol = lp.solve()
    c = sol.certificate()
    ref = LayerPeeled(T.exact_Y(), 1, 4).solve("full").certificate()
    assert c["Y"] == ref["Y"]
    lo, up = max(Fraction(c["lower"]), Fraction(ref["lower"])), \
        min(Fraction(c["upper"]), Fraction(ref["upper"]))
    assert lo <= up  # the two proven brackets intersect: the same J*


def test_one_hot_etf_at_budget_100_is_solved_and_matches_the_full_program():
    for m in (3, 4, 6):
        lp = LayerPeeled(np.eye(m), 100, 100)
        etf = lp.solve("etf")
        full = lp.solve("full")
        assert etf.method == "etf" and lp.solve().method == "etf"
        assert abs(etf.loss - full.loss) <= 1e-6 * full.loss + 1e-13
        c = etf.certificate()
        assert check(c).ok
        up = Fraction(c["upper"])
        assert Fraction(c["lower"]) <= up and up - Fraction(c["lower"]) <= Fraction(1, 10 ** 15)
        # sol.loss is the best proven point: the certificate's own upper bound, not 1e-9
        assert abs(etf.loss - float(up)) <= 1e-9 * float(up)
        assert full.loss <= 10 * float(up)  # the boundary point, not the interior 1e-9


@pytest.mark.parametrize("spec", ["AGL5", "PSL(2,7)", "F(7,3)"])
def test_two_homogeneous_targets_certify_with_the_solved_group(spec):
    G = parse_group(spec)
    m = G.m
    y = [str(Fraction(k, m * (m + 1) // 2)) for k in range(1, m + 1)]
    T = orbit_targets(G, y)
    for Y in (T, T.exact_Y()):
        sol = LayerPeeled(Y, 1, 4).solve()
        assert sol.method == "etf"
        c = sol.certificate()
        assert check(c).ok and _width(c) <= WIDTH
        inv = [x for x in c["structure"] if x["claim"] == "invariant"]
        assert inv and as_group(inv[0]["generators"]).order == G.order
        assert "averaging" in c["statement"] and "Not proven" in c["statement"]
    # the ETF value equals the full nuclear-norm program's
    full = LayerPeeled(T.exact_Y(), 1, 4).solve("full")
    assert abs(full.loss - sol.loss) <= 1e-7 * sol.loss


def test_budget_inactive_is_never_claimed():
    for Y, rho in (([["1/2", "1/4"], ["1/2", "3/4"]], 100), (_rational(3, 3, 9), 1000)):
        lp = LayerPeeled(Y, rho, rho)
        assert not lp.budget_active
        c = lp.solve().certificate()
        assert check(c).ok and "budget-inactive" not in json.dumps(c)
        assert c["structure"] == [] and c["s"] == "0"


def test_named_groups_and_json_groups(tmp_path):
    assert (psl2(7).order, pgl2(7).order, mathieu(11).order, mathieu(12).order) == \
        (168, 336, 7920, 95040)
    assert parse_group("D6").order == 12 and parse_group("A6").order == 360
    assert parse_group("PSL(2,5) x S2").order == 120 and parse_group("D4 wr S2").order == 128
    assert parse_group("F(7,3)").order == 21 and parse_group("M11+S2").m == 13
    f = tmp_path / "g.json"
    f.write_text(json.dumps([list(g) for g in psl2(7).row_generators]))
    assert group_from_text(str(f), m=8).order == 168
    f.write_text(json.dumps({"group": "M12"}))
    assert group_from_text(str(f)).order == 95040
    assert group_from_text("[[1, 2, 0]]").order == 3
    with pytest.raises(InvalidInput, match="not valid JSON"):
        group_from_text("[[1, 2, 0]")
    with pytest.raises(InvalidInput, match="degree 2"):
        group_from_text("[[1, 0]]", m=3)
    with pytest.raises(InvalidInput, match="prime"):
        parse_group("PSL(2,8)")


def _isolated_check(tmp_path: Path, files: list[Path]) -> subprocess.CompletedProcess:
    """The checker alone: a copy of certificates/ in a fresh folder, an isolated interpreter
    (-I: no PYTHONPATH, no site dir, no current directory) whose only extra path is it."""
    lib = tmp_path / "lib"
    shutil.copytree(ROOT / "certificates", lib / "logitgeom_certificates",
                    ignore=shutil.ignore_patterns("__pycache__", "paper", "examples"))
    code = ("import sys; sys.path.insert(0, sys.argv[1]); "
            "import logitgeom_certificates.check as c; "
            "assert c.__file__.startswith(sys.argv[1]); "
            "assert not any(m == 'engine' or m.startswith('engine.') for m in sys.modules); "
            "sys.exit(c.main(sys.argv[2:]))")
    return subprocess.run([sys.executable, "-I", "-c", code, str(lib), *map(str, files)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)


def test_cli_normalize_group_file_and_orbit_bracket_checked_in_isolation(tmp_path, capsys):
    from logitgeom.cli.main import main

    rng = np.random.default_rng(0)
    yf = tmp_path / "float.csv"
    np.savetxt(yf, rng.dirichlet(np.ones(4), size=6).T, delimiter=",", fmt="%.10f")
    out1 = tmp_path / "normalized.json"
    assert main(["certify", "solve", str(yf), "--ew", "1", "--eh", "4", "-o", str(out1)]) != 0
    assert "--normalize" in capsys.readouterr().err and not out1.exists()
    assert main(["certify", "solve", str(yf), "--ew", "1", "--eh", "4", "--normalize",
                 "-o", str(out1)]) == 0
    c1 = json.loads(out1.read_text())
    assert all(sum(Fraction(r[j]) for r in c1["Y"]) == 1 for j in range(6))
    assert _width(c1) <= WIDTH
    # PSL(2,7) on 8 points from a JSON generator file
    G = psl2(7)
    T = orbit_targets(G, [f"{k}/36" for k in range(1, 9)])
    yp = tmp_path / "psl.csv"
    yp.write_text("\n".join(",".join(str(x) for x in r) for r in T.exact_Y()) + "\n")
    gf = tmp_path / "psl27.json"
    gf.write_text(json.dumps([list(g) for g in G.row_generators]))
    out2 = tmp_path / "psl.json"
    assert main(["certify", "solve", str(yp), "--ew", "1", "--eh", "4", "--group", str(gf),
                 "-o", str(out2)]) == 0
    c2 = json.loads(out2.read_text())
    assert {x["claim"] for x in c2["structure"]} == {"simplex-etf", "invariant"}
    assert "Not proven" in capsys.readouterr().out
    # the orbit bracket from base columns and a named group
    bases = tmp_path / "bases.csv"
    bases.write_text("".join(f"{k}/36,{9 - k}/36\n" for k in range(1, 9)))
    out3 = tmp_path / "orbit.json"
    assert main(["certify", "solve", "--bases", str(bases), "--group", "PSL(2,7)",
                 "--ew", "1", "--eh", "4", "-o", str(out3)]) == 0
    c3 = json.loads(out3.read_text())
    assert c3["kind"] == "layer-peeled-orbit-bracket" and c3["group_order"] == 168
    assert _width(c3) <= WIDTH
    r = _isolated_check(tmp_path, [out1, out2, out3])
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.count(": OK") == 3


def test_solve_cli_takes_named_and_json_groups(tmp_path, capsys):
    from logitgeom.cli.main import main

    T = orbit_targets(psl2(7), [f"{k}/36" for k in range(1, 9)])
    yp = tmp_path / "psl.csv"
    yp.write_text("\n".join(",".join(str(x) for x in r) for r in T.exact_Y()) + "\n")
    assert main(["solve", str(yp), "--group", "PSL(2,7)", "--method", "etf"]) == 0
    gens = json.dumps([list(g) for g in psl2(7).row_generators])
    assert main(["solve", str(yp), "--group", gens, "--method", "orbit"]) == 0
    assert "method: orbit" in capsys.readouterr().out


def test_no_raw_solver_warning_reaches_the_caller():
    """Facts, not warnings: whatever tier a solve keeps, no warning escapes."""
    G = parse_group("S3xS3")
    T = orbit_targets(G, [f"{k}/45" for k in range(1, 10)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sol = LayerPeeled(T.exact_Y(), 1, 64).solve("full", form="split")
    assert sol.status == "optimal"
    kept = sol.info.get("kept_status")  # which tier is kept depends on float round-off
    assert kept is None or (kept == "optimal_inaccurate"
                            and "kept the point" in sol.info["solver_note"])


def test_orbit_target_shortcuts_agree_with_the_matrix_and_the_full_program(monkeypatch):
    """The base-column sums (dual bound, free radius, entropy, tier score) of a large orbit
    target, forced here on a small one, and the ETF Z built from the bases, against the
    same quantities on the materialised matrix and the full nuclear-norm program."""
    from logitgeom.convex import solution as solution_mod

    T = orbit_targets(parse_group("AGL5"), ["1/2", "1/4", "1/8", "1/16", "1/16"])
    ref = LayerPeeled(T.exact_Y(), 1, 4)
    full = ref.solve("full")
    etf_ref = ref.solve("etf", group="AGL5")
    monkeypatch.setattr(solution_mod, "KEEP_PROBABILITIES", 10)
    for method in ("orbit", "etf"):
        lp = LayerPeeled(T, 1, 4)
        sol = lp.solve(method)
        assert lp._Y is None  # the float Y of the orbit target was never built
        assert abs(sol.loss - full.loss) <= 1e-7 * full.loss
        assert abs(sol.entropy - full.entropy) <= 1e-12 * full.entropy
        assert abs(lp.free_radius - ref.free_radius) <= 1e-9 * ref.free_radius
        assert abs(sol.gap) <= 1e-6 * sol.loss
    assert np.allclose(sol.Z, etf_ref.Z, rtol=0, atol=1e-12)
    inf = LayerPeeled(orbit_targets(parse_group("AGL5"), ["1/2", "1/2", "0", "0", "0"]), 1, 4)
    assert inf.free_radius == float("inf") and inf._Y is None


def test_symmetry_cli_takes_named_and_json_groups(capsys):
    from logitgeom.cli.main import main

    assert main(["symmetry", "gram", "PSL(2,7)"]) == 0
    assert "|G| = 168, m = 8, 2 classes" in capsys.readouterr().out
    assert main(["symmetry", "target", "[[1, 2, 0]]", "1/2", "1/3", "1/6"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "1/2,1/6,1/3"
