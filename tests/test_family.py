"""The layer-peeled family: weighted columns, per-column budgets, CE / MSE / BCE losses,
Fang et al.'s imbalanced model, certified brackets and the minority-collapse theorems."""

from __future__ import annotations

import copy
import json
from fractions import Fraction as F

import numpy as np
import pytest
from _family_gd import gd_optimum
from _proven import contains, meet, narrow

from logitgeom.convex.family import (
    LayerPeeledFamily,
    minority_program,
    minority_samples,
    sm_mse_value,
    two_orbits,
)
from logitgeom.convex.minority import minority_point
from logitgeom.errors import InvalidInput
from logitgeom.symmetry import orbit_targets, symmetric
from logitgeom_certificates.api import check

LOSSES = ("ce", "mse", "bce")


def _rel(a: float, b: float) -> float:
    return abs(a - b) / max(1.0, abs(a), abs(b))


# ------------------------------------------------------------- reductions vs full program
@pytest.mark.parametrize("loss", LOSSES)
def test_class_level_equals_sample_level(loss):
    """Fang et al.'s per-class program (Jensen) equals the unreduced per-sample program."""
    cls = minority_program(2, 2, 3, 1, 1, loss=loss).solve("full")
    smp = minority_samples(2, 2, 3, 1, 1, 1, loss=loss).solve("full")
    assert meet(cls, smp)
    assert narrow(smp) and narrow(cls)


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("collapsed", [False, True])
def test_two_orbit_equals_full(loss, collapsed):
    P = minority_program(3, 2, 7, 2, 1, loss=loss, collapsed=collapsed)
    assert two_orbits(P) == ([0, 1, 2], [3, 4])
    red, full = P.solve("two-orbit"), P.solve("full")
    assert red.method == "two-orbit" and full.method == "full"
    assert meet(red, full)  # both brackets hold the optimum: the reduction loses nothing
    assert narrow(red) and narrow(full)


def test_weighted_budget_is_the_substituted_program():
    """beta enters as Z' = Z diag(sqrt(beta)): a program with h_budget beta and targets Y
    equals the GD optimum of the factor program with that budget (checked below), and
    scaling all beta by c is dividing E_H by c."""
    rng = np.random.default_rng(3)
    Y = rng.dirichlet(np.ones(3), size=4).T
    w, beta = [1, 2, "1/2", 3], [2, 1, "1/3", 4]
    a = LayerPeeledFamily(Y, 1, 2, weights=w, h_budget=beta).solve()
    b = LayerPeeledFamily(Y, 1, 1, weights=w, h_budget=[F(x) / 2 for x in beta]).solve()
    assert meet(a, b) and narrow(a) and narrow(b)


def test_two_orbit_rejects_other_targets():
    P = LayerPeeledFamily([[1, 0], [0, 1]], 1, 1, weights=[1, 2], h_budget=[1, 3])
    assert two_orbits(P) is not None
    Q = LayerPeeledFamily([["1/2", 0], ["1/2", 1]], 1, 1)
    with pytest.raises(InvalidInput, match="two-orbit"):
        Q.solve("two-orbit")


# --------------------------------------------------- independent optimum inside brackets
def _instances():
    rng = np.random.default_rng(7)
    Yce = np.round(rng.dirichlet(np.ones(3), size=4).T * 64) / 64
    Yce[2] = 1 - Yce[0] - Yce[1]   # exact probability columns (binary fractions)
    Ybce = np.round(rng.uniform(size=(3, 4)) * 8) / 8
    Ymse = np.round(rng.normal(size=(3, 5)) * 8) / 8
    return [
        ("K5+5 R=1", minority_program(5, 5, 1)),
        ("K5+5 R=10", minority_program(5, 5, 10)),
        ("K5+5 R=100", minority_program(5, 5, 100)),
        ("K5+5 R=100 E=3", minority_program(5, 5, 100, 3, 3)),
        ("K3+2 R=7", minority_program(3, 2, 7, 2, 1)),
        ("K2+3 R=4 mse", minority_program(2, 3, 4, loss="mse")),
        ("K3+3 R=10 bce", minority_program(3, 3, 10, loss="bce")),
        ("samples 2+2", minority_samples(2, 2, 3, 1)),
        ("ce weighted", LayerPeeledFamily(Yce, 2, 1, weights=[1, 2, "1/2", 3],
                                          h_budget=[2, 1, "1/3", 4])),
        ("mse weighted", LayerPeeledFamily(Ymse, 1, 2, loss="mse", weights=[1, 3, 2, 1, 1],
                                           h_budget=[1, 1, 2, "1/2", 1])),
        ("bce weighted", LayerPeeledFamily(Ybce, 3, 1, loss="bce", weights=[2, 1, 1, "1/4"],
                                           h_budget=["1/2", 1, 2, 1])),
    ]


@pytest.mark.slow
@pytest.mark.parametrize("name,P", _instances(), ids=[n for n, _ in _instances()])
def test_bracket_contains_gradient_descent_optimum(name, P):
    cert = P.solve().certificate()
    assert check(cert).ok
    lo, up = F(cert["lower"]), F(cert["upper"])
    g = gd_optimum(P.loss.name, P.Y, P.E_W, P.E_H, P.weights, P.h_budget, starts=3,
                   iters=6000)
    assert float(lo) <= g + 1e-12           # a feasible point is never below a lower bound
    assert g <= float(up) + 1e-6 * max(1.0, abs(float(up)))   # GD reached the bracket


# ------------------------------------------------------------------- MSE closed form
@pytest.mark.parametrize("E", [1, 4])
def test_mse_sm_targets_closed_form_and_etf(E):
    base = ["1/2", "1/4", "1/8", "1/8"]
    Y = orbit_targets(symmetric(4), base).exact_Y()
    P = LayerPeeledFamily(Y, E, E, loss="mse")
    sol = P.solve()
    assert sol.method == "svt"
    value, s0, sc = sm_mse_value(base, P.rho)
    assert _rel(sol.loss, value) < 1e-12  # the closed form (one SVD, no solver) vs its formula
    full = P.solve("full")
    assert contains(full, value) and narrow(full)
    cert = sol.certificate(claims=("span-I-J",), generators=[[1, 0, 2, 3], [1, 2, 3, 0]])
    assert check(cert).ok
    assert F(cert["lower"]) <= F(value * (1 + 1e-12)) and F(value * (1 - 1e-12)) <= F(
        cert["upper"])
    G = [[sum(F(a) * F(b) for a, b in zip(r, q, strict=True)) for q in cert["W"]]
         for r in cert["W"]]
    alpha = G[0][0] - G[0][1]  # G = alpha I + beta J: the centred rows are alpha (I - J/m)
    # the centred rows form a simplex ETF iff sigma_c > tau; else Z* has rank one
    etf = sc > sol.info["tau"]
    assert etf == (E == 4)
    assert (alpha / G[0][0] > F(1, 1000)) if etf else (alpha / G[0][0] < F(1, 10 ** 12))


def test_bce_bracket_checks_and_is_tight():
    rng = np.random.default_rng(1)
    Y = np.round(rng.uniform(size=(4, 6)) * 16) / 16
    P = LayerPeeledFamily(Y, 2, 2, loss="bce")
    cert = P.solve().certificate()
    assert cert["kind"] == "layer-peeled-bce-bracket" and check(cert).ok
    assert (F(cert["upper"]) - F(cert["lower"])) / F(cert["upper"]) < 1e-6


def test_certificates_are_deterministic():
    P = minority_program(2, 2, 5, loss="bce")
    a = json.dumps(P.solve().certificate(), sort_keys=True)
    b = json.dumps(minority_program(2, 2, 5, loss="bce").solve().certificate(), sort_keys=True)
    assert a == b


# ------------------------------------------------------------------- minority collapse
def test_minority_separation_and_collapse_are_proven():
    sep = minority_point(5, 5, 30, 3, 3)
    assert sep.verdict == "separated" and check(sep.theorem).ok
    assert sep.cos_minority < 0.5
    col = minority_point(5, 5, 100, 3, 3)
    assert col.verdict == "collapsed" and check(col.theorem).ok and check(col.bracket).ok
    assert col.cos_minority == 1.0
    assert any(c["claim"] == "equal-rows" for c in col.bracket["structure"])
    assert F(col.bracket["lower"]) <= F(col.theorem["parts"][0]["upper"])


# ------------------------------------------------------------------- tampering
def _all_kinds():
    ce = minority_program(2, 2, 3).solve().certificate()
    mse = minority_program(2, 2, 3, loss="mse").solve().certificate()
    bce = minority_program(2, 2, 3, loss="bce").solve().certificate()
    return {"ce": ce, "mse": mse, "bce": bce}


@pytest.mark.parametrize("loss", LOSSES)
def test_tampered_brackets_rejected(loss):
    cert = _all_kinds()[loss]
    assert check(cert).ok

    def bad(edit, expect=None):
        c = copy.deepcopy(cert)
        edit(c)
        v = check(c)
        assert not v.ok, edit
        if expect:
            assert v.failed_check == expect, (v.failed_check, v.message)

    up, lo = F(cert["upper"]), F(cert["lower"])
    bad(lambda c: c.update(upper=str(lo - F(1, 10 ** 6))), "upper")
    bad(lambda c: c.update(lower=str(up + F(1, 10 ** 6))))
    bad(lambda c: c.update(s=str(F(c["s"]) / 2)), "spectral")
    bad(lambda c: c.update(weights=[str(2 * F(x)) for x in c["weights"]]))
    bad(lambda c: c.update(weights=["0"] + c["weights"][1:]), "weights")
    bad(lambda c: c.update(h_budget=["-1"] + c["h_budget"][1:]), "weights")
    bad(lambda c: c.update(E_W=str(F(c["E_W"]) / 2)), "budget")
    bad(lambda c: c.update(rho_up="1"), "radius")
    bad(lambda c: c.update(equal_rows=[0, 1]), "equal-rows")
    bad(lambda c: c["structure"].append({"claim": "equal-rows", "labels": [0, 2]}),
        "structure-equal-rows")
    bad(lambda c: c["structure"].append({"claim": "invariant", "generators": [[2, 1, 0, 3]]}))
    bad(lambda c: c.update(eps="0"), "width")
    bad(lambda c: c.update(surprise=1), "schema")
    if loss == "ce":
        bad(lambda c: c["A"][0].__setitem__(0, "2"), "dual-admissible")
    if loss == "bce":
        bad(lambda c: c["A"][0].__setitem__(0, "3/2"), "dual-admissible")
        bad(lambda c: c["Y"][0].__setitem__(0, "2"), "target")


def test_tampered_theorems_rejected():
    sep = minority_point(2, 2, 1, 3, 3)
    col = minority_point(5, 5, 100, 3, 3)
    for thm in (sep.theorem, col.theorem):
        assert check(thm).ok
        c = copy.deepcopy(thm)
        c["parts"] = c["parts"][::-1]
        assert not check(c).ok
        c = copy.deepcopy(thm)
        c["parts"][1]["weights"] = ["1"] * len(c["parts"][1]["weights"])
        assert not check(c).ok
    c = copy.deepcopy(col.theorem)
    c["theorem"] = "minority-separation"
    assert not check(c).ok
    c = copy.deepcopy(col.theorem)  # the secant must beat w_B: a heavier minority breaks it
    for p in c["parts"]:
        p["h_budget"] = [str(F(1, 10 ** 6))] * len(p["h_budget"])
    assert not check(c).ok


# ------------------------------------------------------------------- bad input
@pytest.mark.parametrize("kw,match", [
    ({"weights": [1, 0]}, r"weights\[1\] must be > 0"),
    ({"weights": [1, -1]}, r"weights\[1\] must be > 0"),
    ({"h_budget": [0, 1]}, r"h_budget\[0\] must be > 0"),
    ({"weights": [1, 2, 3]}, "one entry per column"),
    ({"loss": "hinge"}, "unknown loss 'hinge'"),
    ({"equal_rows": [0]}, "at least two labels"),
])
def test_bad_input(kw, match):
    with pytest.raises(InvalidInput, match=match):
        LayerPeeledFamily([[1, 0], [0, 1]], 1, 1, **kw)


def test_bad_budgets_and_targets():
    with pytest.raises(InvalidInput, match="E_H must be > 0"):
        LayerPeeledFamily([[1, 0], [0, 1]], 1, 0)
    with pytest.raises(InvalidInput, match="targets in"):
        LayerPeeledFamily([[2, 0], [0, 1]], 1, 1, loss="bce")
    with pytest.raises(InvalidInput, match="probability columns"):
        LayerPeeledFamily([["1/2", 0], [0, 1]], 1, 1)
    with pytest.raises(InvalidInput, match="ratio must be > 0"):
        minority_program(2, 2, 0)


# ------------------------------------------------------------------- command line
def test_cli_solve_and_certify_with_loss_and_weights(tmp_path, capsys):
    from logitgeom.cli.main import main as cli

    Y = tmp_path / "I3.csv"
    Y.write_text("1,0,0\n0,1,0\n0,0,1\n")
    assert cli(["solve", str(Y), "--loss", "mse", "--ew", "2", "--eh", "2",
                "--weights", "3,3,1"]) == 0
    assert "method: two-orbit" in capsys.readouterr().out
    out = tmp_path / "c.json"
    assert cli(["certify", "solve", str(Y), "--loss", "bce", "--weights", "3,3,1",
                "--h-budget", "1,1,2", "-o", str(out)]) == 0
    cert = json.loads(out.read_text())
    assert cert["kind"] == "layer-peeled-bce-bracket" and check(cert).ok
    assert cert["h_budget"] == ["1", "1", "2"]
    out2 = tmp_path / "d.json"
    assert cli(["certify", "solve", str(Y), "--weights", "4,1,1", "--equal-rows", "1,2",
                "--ew", "3", "--eh", "3", "-o", str(out2)]) == 0
    cert = json.loads(out2.read_text())
    assert cert["equal_rows"] == [1, 2] and check(cert).ok


@pytest.mark.parametrize("extra,match", [
    (["--loss", "hinge"], "unknown loss 'hinge'"),
    (["--weights", "1,0,1"], r"weights\[1\] must be > 0"),
    (["--h-budget", "1,-1,1"], r"h_budget\[1\] must be > 0"),
    (["--weights", "1,x"], "weights"),
])
def test_cli_bad_family_input(tmp_path, capsys, extra, match):
    import re

    from logitgeom.cli.main import main as cli

    Y = tmp_path / "I3.csv"
    Y.write_text("1,0,0\n0,1,0\n0,0,1\n")
    assert cli(["solve", str(Y), *extra]) == 2
    assert re.search(match, capsys.readouterr().err)


def test_layer_peeled_signature_builds_the_family():
    from logitgeom import LayerPeeled

    P = LayerPeeled(np.eye(4, dtype=int).tolist(), 8, 8, weights=["3/8", "3/8", "1/8", "1/8"])
    assert isinstance(P, LayerPeeledFamily) and P.loss.name == "ce"
    assert meet(P.solve(), minority_program(2, 2, 3, 2, 2).solve())
    assert type(LayerPeeled(np.eye(2), 1, 1)).__name__ == "LayerPeeled"
    with pytest.raises(InvalidInput, match="unknown loss"):
        LayerPeeled(np.eye(2), 1, 1, loss="hinge")
    with pytest.raises(InvalidInput, match="weights\\[0\\] must be > 0"):
        LayerPeeled(np.eye(2), 1, 1, weights=[-1, 1])
    with pytest.raises(InvalidInput, match="do not combine"):
        LayerPeeled(np.eye(2), 1, 1, 2, h_budget=[1, 1])


def test_collapse_theorem_refuses_a_separated_ratio():
    """Negative control: at R = 30 (separation proven) the collapse inequality fails for every
    secant step, and the plain program's own optimum separates the minority rows."""
    from fractions import Fraction as Q

    from logitgeom.certify.family import collapse_certificate, family_certificate
    from logitgeom.errors import InexactResult

    coll = minority_program(5, 5, 30, 3, 3, collapsed=True)
    at = family_certificate(coll, coll.solve().Z)
    for h in (Q(1, 256), Q(1, 16), Q(1, 4)):
        big = minority_program(5, 5, 30, Q(3) * (1 + h) ** 2, 3, collapsed=True)
        with pytest.raises(InexactResult):
            collapse_certificate(at, family_certificate(big, big.solve().Z))
    Z = minority_program(5, 5, 30, 3, 3).solve().Z
    assert Z[5, 5] - Z[5, 6] > 0.1          # e - f: the separating singular value
    Z = minority_program(5, 5, 100, 3, 3).solve().Z
    assert abs(Z[5, 5] - Z[5, 6]) < 1e-4    # collapsed: the plain solve agrees (to its accuracy)
