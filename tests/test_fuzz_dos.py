"""Small inputs that once hung, ran for minutes or crashed the engine side (second round).

Every command runs in a child under RLIMIT_CPU (5 CPU s, start-up included, see
``tests/_fuzz_limits.py``): it must end with a correct verdict or one clear error line.
The Python entry points get wrong types and absurd sizes and must raise an
:class:`~logitgeom.errors.EngineError`, never a raw TypeError/OverflowError or a hang.
"""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest
from _fuzz_limits import run

from logitgeom.errors import EngineError, TooLarge


def _csv(path, M) -> str:
    np.savetxt(path, np.asarray(M), fmt="%s", delimiter=",")
    return str(path)


# ------------------------------------------------------------------ refusal bounds
@pytest.mark.parametrize("argv", [
    ["symmetry", "gram", "S200"],
    ["symmetry", "target", "S200", "1"],
])
def test_big_group_refused_at_once(argv):
    r = run(argv)
    assert r.one_line_error(), (r.code, r.err[-500:])
    assert "estimated" in r.err and "--max-work" in r.err


def test_small_group_still_runs():
    r = run(["symmetry", "gram", "S4"])
    assert r.code == 0 and "|G| = 24" in r.out


def test_detect_constant_target_refused(tmp_path):
    r = run(["symmetry", "detect", _csv(tmp_path / "c.csv", np.ones((300, 300), int))])
    assert r.one_line_error(), r.err[-500:]
    assert "--max-work" in r.err


def test_certify_solve_big_target_refused(tmp_path):
    Y = np.full((400, 400), "1/400", dtype=object)
    r = run(["certify", "solve", _csv(tmp_path / "y.csv", Y)])
    assert r.one_line_error(), r.err[-500:]
    assert "400 x 400" in r.err and "--max-work" in r.err


def test_certify_argmax_tall_head_refused(tmp_path):
    W = np.random.default_rng(1).integers(-99, 100, (5000, 3))
    r = run(["certify", "argmax", _csv(tmp_path / "w.csv", W)])
    assert r.one_line_error(), r.err[-500:]
    assert "audit-argmax" in r.err


def test_max_work_must_be_positive(tmp_path):
    r = run(["certify", "argmax", _csv(tmp_path / "w.csv", [[1, 0], [0, 1]]), "--max-work", "0"])
    assert r.one_line_error(), r.err


# ------------------------------------------------------------------ wide heads: now fast
@pytest.mark.parametrize("cmd", [["certify", "argmax"], ["certify", "pattern"]])
def test_wide_head_certified_and_checked(tmp_path, cmd):
    """2 x 2,000 ran 149 CPU s (a dense LP in 2,000 unknowns): now a column basis."""
    W = np.random.default_rng(0).integers(-999, 1000, (2, 2000))
    out = tmp_path / "c.json"
    r = run([*cmd, _csv(tmp_path / "w.csv", W), "-o", str(out)])
    assert r.code == 0, r.err[-500:]
    cert = json.loads(out.read_text())
    from logitgeom_certificates.check import check

    assert check(cert, None).ok
    if cmd[1] == "argmax":
        assert cert["parameters"]["labels"] == [0, 1]
    else:
        # two independent rows: all four sign patterns
        assert sorted(p["pattern"] for p in cert["patterns"]) == \
            [[-1, -1], [-1, 1], [1, -1], [1, 1]]


def test_wide_lp_same_answer_as_narrow():
    """The column-basis reduction decides exactly like the full LP (both directions)."""
    from logitgeom.exact.lp import check_gordan, check_witness, decide

    rng = np.random.default_rng(5)
    for t in range(20):
        m, d = int(rng.integers(1, 5)), 40 + int(rng.integers(0, 20))
        R = rng.integers(-2, 3, (m, 3)) @ rng.integers(-2, 3, (3, d))  # rank <= 3
        if t % 3 == 0:
            R = np.vstack([R, -R[:1]])  # infeasible
        rows = [[int(v) for v in r] for r in R if any(r)]
        if not rows:
            continue
        ok, z = decide(rows)
        assert (check_witness(rows, z) if ok else check_gordan(rows, z))
        narrow = decide([r[:3] + [0] for r in rows])  # not a column basis: just runs
        assert narrow[0] in (True, False)


# ------------------------------------------------------------------ crashes / arguments
@pytest.mark.parametrize("tokens", ["-1,2", "1,-2"])
def test_negative_token_ids_refused(tmp_path, tokens):
    head = tmp_path / "h.npy"
    np.save(head, np.random.default_rng(0).normal(size=(5, 3)))
    for argv in (["audit-argmax", str(head), f"--tokens={tokens}", "--no-progress",
                  "--out", str(tmp_path / "a")],
                 ["inspect", str(head), f"--tokens={tokens}", "--no-progress"]):
        r = run(argv)
        assert r.one_line_error(), (argv, r.code, r.err[-500:])
        assert "-1" in r.err or "-2" in r.err


def test_second_run_into_a_locked_folder_is_refused(tmp_path):
    from logitgeom._fsio import folder_lock

    W = _csv(tmp_path / "w.csv", [[1, 0], [0, 1], [1, 1]])
    out = tmp_path / "run"
    with folder_lock(out):
        r = run(["patterns", "sign", W, "-o", str(out), "--no-progress"])
        assert r.one_line_error(), r.err
        assert "another logitgeom run" in r.err
        r = run(["audit-argmax", W, "--out", str(out), "--no-progress"])
        assert r.one_line_error() and "another logitgeom run" in r.err
    r = run(["patterns", "sign", W, "-o", str(out), "--no-progress"])  # released: runs
    assert r.code == 0, r.err


def _raises_engine_error(call):
    with pytest.raises(EngineError):
        call()


@pytest.mark.parametrize("call", [
    lambda: __import__("logitgeom").sign_pattern([[1, 0], [0, 1]], max_regions="abc"),
    lambda: __import__("logitgeom").ranking_pattern([[1, 0], [0, 1]], max_regions="abc"),
    lambda: __import__("logitgeom").ranking_count_generic(10**30, 3),
    lambda: __import__("logitgeom").affine_generic_count(10**30, 10**30),
    lambda: __import__("logitgeom").difference_matrix(10**30),
    lambda: __import__("logitgeom").cyclic(10**30),
    lambda: __import__("logitgeom").symmetric(10**30),
    lambda: __import__("logitgeom").orbit_targets("S3", None),
    lambda: __import__("logitgeom").orbit_targets("S3", ["1/2", "1/3", "1/6"], max_columns=None),
], ids=["sign max_regions", "ranking max_regions", "generic count k", "affine count k",
        "difference matrix", "cyclic", "symmetric", "orbit y", "orbit max_columns"])
def test_entry_points_raise_clear_errors(call):
    _raises_engine_error(call)


def test_generic_counts_unchanged_for_large_d():
    from logitgeom import affine_generic_count, ranking_count_generic

    assert ranking_count_generic(5, 10**30) == 120
    assert affine_generic_count(4, 10**30) == 16


def test_limits_estimates_are_monotone_upper_bounds():
    from logitgeom import limits

    assert limits.argmax_work(5000, 3) > limits.ARGMAX_LIMIT >= limits.argmax_work(2, 200_000)
    assert limits.solve_work(400, 400) > limits.SOLVE_LIMIT
    with pytest.raises(TooLarge):
        limits.check_detect(np.ones((300, 300), int))
    limits.check_detect(np.arange(90_000).reshape(300, 300))  # no equal rows: cheap
    assert Fraction(limits.group_work(10, [list(range(1, 10)) + [0]])) < 10**4
