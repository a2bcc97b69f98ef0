"""Issue 43, item 2 and 3: every option of ``solve`` / ``certify solve`` honoured or refused
(one validation, ``logitgeom.cli.solve.check_options``), solver results judged (a relative
duality gap over ``GAP_LIMIT`` is an error, never "optimal"; any solver exception, a Rust
panic included, is a one-line error), meaningless scales refused with the limit named."""

from __future__ import annotations

import numpy as np
import pytest

from logitgeom.cli.main import main
from logitgeom.errors import InexactResult, InvalidInput, SolverFailed

Y3 = "0.5,0.25,0.25\n0.25,0.5,0.25\n0.25,0.25,0.5\n"
W4 = "1,0\n0,1\n1,1\n-1,0\n"


def _refused(capsys, argv, *words):
    """Exit 2 with one error line naming ``words``, nothing written."""
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse: usage line + error line
        code = exc.code
    out, err = capsys.readouterr()
    assert code == 2, (code, out, err)
    last = err.strip().splitlines()[-1]
    assert "Traceback" not in err and "please report" not in err, err
    for w in words:
        assert w in last, (w, last)
    return last


@pytest.fixture
def y3(tmp_path):
    p = tmp_path / "Y.csv"
    p.write_text(Y3)
    return p


@pytest.mark.parametrize("family", [["--loss", "mse"], ["--weights", "1,2,3"],
                                    ["--h-budget", "1,2,3"], ["--equal-rows", "0,1"]])
@pytest.mark.parametrize("other", [["--d", "2"], ["--tol", "0.1"], ["--y0", "Y"],
                                   ["--normalize"]])
def test_certify_solve_family_options_with_d_tol_y0_refused(capsys, tmp_path, y3, family,
                                                            other):
    other = [str(y3) if a == "Y" else a for a in other]
    out = tmp_path / "c.json"
    _refused(capsys, ["certify", "solve", str(y3), *family, *other, "-o", str(out)],
             family[0], other[0], "does not combine")
    assert not out.exists()


def test_certify_solve_family_with_bases_refused(capsys, tmp_path, y3):
    _refused(capsys, ["certify", "solve", "--bases", str(y3), "--group", "S3", "--loss", "mse",
                      "-o", str(tmp_path / "c.json")], "--loss", "--bases")


@pytest.mark.parametrize("cmd", [["solve"], ["certify", "solve"]])
@pytest.mark.parametrize("tol", ["-1", "nan", "inf", "1e400", "x"])
def test_tol_must_be_finite_and_nonnegative_in_both(capsys, y3, cmd, tol):
    _refused(capsys, [*cmd, str(y3), "--tol", tol], "--tol", repr(tol))


@pytest.mark.parametrize("extra,word", [(["--method", "full"], "--method full"),
                                        (["--group", "S3"], "--group"),
                                        (["--generators", "[[1,2,0]]"], "--group")])
def test_certify_solve_d_refuses_what_the_rank_bracket_ignores(capsys, tmp_path, y3, extra,
                                                               word):
    _refused(capsys, ["certify", "solve", str(y3), "--d", "2", *extra, "-o",
                      str(tmp_path / "c.json")], word)


def test_certify_solve_tol_refuses_eps(capsys, tmp_path, y3):
    _refused(capsys, ["certify", "solve", str(y3), "--tol", "0.1", "--eps", "1e-6", "-o",
                      str(tmp_path / "c.json")], "--eps")


def test_shard_rows_zero_refused(capsys, tmp_path):
    (tmp_path / "W.csv").write_text(W4)
    _refused(capsys, ["patterns", "sign", str(tmp_path / "W.csv"), "-o", str(tmp_path / "d"),
                      "--shard-rows", "0"], "--shard-rows", "at least 1")


@pytest.mark.parametrize("cmd", ["audit-argmax", "occupancy"])
def test_transpose_with_rows_are_labels_refused(capsys, tmp_path, cmd):
    (tmp_path / "W.csv").write_text(W4)
    args = [str(tmp_path / "W.csv")] + ([str(tmp_path / "W.csv")] if cmd == "occupancy" else [])
    _refused(capsys, [cmd, *args, "--transpose", "--rows-are-labels", "-o",
                      str(tmp_path / "o")], "transpose", "rows_are_labels")


@pytest.mark.parametrize("flag,value,word", [("--weights", "1e300,1,1", "weights[0]"),
                                             ("--h-budget", "1e-300,1,1", "h_budget[0]")])
@pytest.mark.parametrize("loss", ["ce", "mse"])
def test_meaningless_scale_refused_with_the_limit_named(capsys, y3, flag, value, word, loss):
    _refused(capsys, ["solve", str(y3), "--loss", loss, flag, value], word, "SCALE_LIMIT")


def test_gap_above_the_limit_is_an_error_not_optimal(capsys, y3):
    # inside the scale limit, but Clarabel stops far from the optimum: judged, refused
    _refused(capsys, ["solve", str(y3), "--loss", "mse", "--weights", "1e8,1,1"],
             "InexactResult", "relative duality gap", "GAP_LIMIT")


def test_a_rust_panic_of_the_solver_is_a_solver_failure():
    import cvxpy as cp

    from logitgeom.convex.family import nuclear_ball_constraints
    from logitgeom.convex.losses import get_loss
    from logitgeom.convex.solvers import solve

    Y = np.array([[0.5, 0.25, 0.25], [0.25, 0.5, 0.25], [0.25, 0.25, 0.5]])
    Z = cp.Variable((3, 3))
    scale = np.diag(1 / np.sqrt([1e-300, 1.0, 1.0]))  # what --h-budget 1e-300,1,1 built
    prob = cp.Problem(cp.Minimize(get_loss("ce").expr(Z @ scale, Y, np.ones(3))),
                      nuclear_ball_constraints(Z, 1.0))
    with pytest.raises(SolverFailed):
        solve(prob, "CLARABEL", accurate=True)


def test_family_api_judges_the_gap_and_the_scale():
    from logitgeom.convex.family import LayerPeeledFamily

    Y = [[0.5, 0.25, 0.25], [0.25, 0.5, 0.25], [0.25, 0.25, 0.5]]
    with pytest.raises(InvalidInput, match="SCALE_LIMIT"):
        LayerPeeledFamily(Y, 1, 1, loss="mse", weights=[1e300, 1, 1])
    with pytest.raises(InexactResult, match="GAP_LIMIT"):
        LayerPeeledFamily(Y, 1, 1, loss="mse", weights=[1e8, 1, 1]).solve()


# -- --tol collapse -------------------------------------------------------------------
YA = "0.6,0.3,0.1\n0.3,0.3,0.5\n0.1,0.4,0.4\n"


@pytest.mark.parametrize("group", [[], ["--group", "S3"], ["--group", "C3"]])
def test_tol_chaining_every_entry_is_refused_unless_allowed(capsys, tmp_path, group):
    (tmp_path / "Y.csv").write_text(YA)
    out = tmp_path / "c.json"
    argv = ["certify", "solve", str(tmp_path / "Y.csv"), *group, "--tol", "0.5", "-o", str(out)]
    _refused(capsys, argv, "one tolerance class", "--allow-collapse")
    assert not out.exists()
    assert main([*argv, "--allow-collapse"]) == 0 and out.exists()


def test_collapse_reason_names_identity_contexts_and_uniform():
    from logitgeom.convex.stability import collapse_reason, group_average
    from logitgeom.symmetry.group import GroupAction

    Y = np.array([[0.6, 0.3, 0.1], [0.3, 0.3, 0.5], [0.1, 0.4, 0.4]])
    swap_labels = GroupAction([([1, 0, 2], [0, 1, 2])], m=3, n=3)
    assert "identity on contexts" in collapse_reason(Y, swap_labels, 0.01,
                                                     group_average(Y, swap_labels))
    trivial = GroupAction([([0, 1, 2], [0, 1, 2])], m=3, n=3)
    assert "identity on the labels" in collapse_reason(Y, trivial, 0.01,
                                                       group_average(Y, trivial))


# -- --max-work governs the rank and stability self-checks ------------------------------
def test_rank_bracket_self_check_obeys_max_work(capsys, tmp_path, y3):
    from fractions import Fraction

    from logitgeom.convex.targets import cyclic_orbit

    Y = cyclic_orbit([Fraction(1, 2), Fraction(1, 4), Fraction(1, 8), Fraction(1, 8)],
                     exact=True)
    p = tmp_path / "Y.csv"
    p.write_text("\n".join(",".join(str(x) for x in r) for r in Y) + "\n")
    out = tmp_path / "r.json"
    last = _refused(capsys, ["certify", "solve", str(p), "--d", "1", "--max-work", "2000",
                             "-o", str(out)], "TooLarge", "--max-work 2,000")
    assert "please report" not in last and not out.exists()
    assert main(["certify", "solve", str(p), "--d", "1", "-o", str(out)]) == 0
    assert main(["check", str(out)]) == 0


def test_frequency_sets_do_not_enumerate_every_subset():
    from logitgeom.convex.lowrank import _frequency_sets

    # m = 64, D = 1 enumerated 2^32 subsets (30+ minutes); the one mode of dimension 1 is kept
    assert _frequency_sets(64, np.arange(64.0)[::-1], 1, 3) == [(32,)]
    sets = _frequency_sets(64, np.ones(64), 2, 3)
    assert len(sets) == 3 and all(len(S) == 1 for S in sets)


# -- API: the project's own errors, never raw exceptions --------------------------------
@pytest.mark.parametrize("kw", [{"top": "a"}, {"top": 1.5}, {"chunk_rows": 1.5},
                                {"chunk_rows": "a"}, {"out": 5}])
def test_occupancy_api_refuses_wrong_types(kw):
    from logitgeom.occupancy import occupancy

    W = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    with pytest.raises(InvalidInput):
        occupancy(W, W, progress=False, **kw)


@pytest.mark.parametrize("kw", [{"out": 1.5}, {"domains": 1.5}, {"domains": [[]]},
                                {"label_names": 1.5}])
def test_audit_api_refuses_wrong_types(kw):
    from logitgeom import audit_argmax

    with pytest.raises(InvalidInput):
        audit_argmax(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), progress=False, **kw)


def test_solve_api_refuses_huge_width_and_bad_options():
    from logitgeom import LayerPeeled, solve_layer_peeled
    from logitgeom.errors import EngineError, TooLarge

    Y = [[0.5, 0.25, 0.25], [0.25, 0.5, 0.25], [0.25, 0.25, 0.5]]
    with pytest.raises(TooLarge, match="FACTOR_LIMIT"):
        solve_layer_peeled(Y, 1, 1, d=10**20)
    with pytest.raises(InvalidInput):
        LayerPeeled(Y, 1, 1, equal_rows="a")
    with pytest.raises(InvalidInput):
        LayerPeeled(Y, 1, 1, equal_rows=1.5)
    P = LayerPeeled(Y, 1, 1)
    with pytest.raises(InvalidInput):
        P.solve(rank_tol="a")
    sol = P.solve()
    for kw in ({"eps": "a"}, {"eps": float("nan")}, {"precision": "a"},
               {"precision": 10**20}, {"precision": -1}, {"generators": "a"},
               {"generators": [[0, 0, 1]]}, {"provenance": "a"}, {"claims": 1.5}):
        with pytest.raises(EngineError):
            sol.certificate(**kw)


def test_tol_solve_of_an_asymmetric_target_is_not_called_optimal():
    from logitgeom import LayerPeeled

    Y = [[0.5, 0.26, 0.24], [0.25, 0.5, 0.26], [0.25, 0.24, 0.5]]
    sol = LayerPeeled(Y, 1, 1).solve(tol=0.03)
    assert sol.status in ("optimal", "approximate")
    if abs(sol.gap) > 1e-4 * max(1.0, abs(sol.loss)):
        assert sol.status == "approximate"


def test_numbers_beyond_the_float_range_are_engine_errors_not_overflow():
    from logitgeom import LayerPeeled, cyclic_orbit

    Y = [[0.5, 0.25, 0.25], [0.25, 0.5, 0.25], [0.25, 0.25, 0.5]]
    with pytest.raises(InvalidInput, match="SCALE_LIMIT"):
        LayerPeeled(Y, 1, 1, loss="mse", weights=[10**400, 1, 1])
    with pytest.raises(InvalidInput, match="float range"):
        cyclic_orbit([10**400, 1])
