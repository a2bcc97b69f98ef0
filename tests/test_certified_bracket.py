"""Layer-peeled brackets: emission, tampering, accepted-implies-true, every reduction.

The oracle below is independent of ``certificates/check_bracket.py``: logarithms and
exponentials by fixed-point series at 2^-320 (atanh series for log, halving + Taylor for exp),
the spectral bound by the signs of sympy's exact characteristic polynomial, structure by
sympy matrices.  No float and no mpmath decide anything.
"""

from __future__ import annotations

import copy
import json
import math
import random
from collections import Counter
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from logitgeom.certify.convex import bracket_certificate, orbital_average, theorem_certificate
from logitgeom.convex import LayerPeeled, cyclic_orbit, group_orbit
from logitgeom.errors import InexactResult, InvalidInput
from logitgeom.symmetry import symmetric
from logitgeom_certificates.check import check

ROOT = Path(__file__).resolve().parents[1]
WEEKDAYS = ["0", "1/2", "1/4", "1/8", "1/16", "1/32", "1/32"]

# ------------------------------------------------------------------------------ oracle
_S = 2 ** 320
_TOL = Fraction(1, 10 ** 60)  # far above the oracle's error (~1e-90), far below any margin


def _fix(x: Fraction) -> Fraction:
    return Fraction(round(x * _S), _S)


def _atanh(t: Fraction) -> Fraction:
    total, power, k = Fraction(0), _fix(t), 0
    t2 = _fix(t * t)
    while abs(power) > Fraction(1, 10 ** 95):
        total += power / (2 * k + 1)
        power, k = _fix(power * t2), k + 1
    return total


_LN2 = 2 * _atanh(Fraction(1, 3))


def ln(q: Fraction) -> Fraction:
    k = q.numerator.bit_length() - q.denominator.bit_length()
    r = q / Fraction(2) ** k
    while r >= 2:
        r, k = r / 2, k + 1
    while r < 1:
        r, k = r * 2, k - 1
    return k * _LN2 + 2 * _atanh(_fix((r - 1) / (r + 1)))


def exp(x: Fraction) -> Fraction:
    if x < -400:
        return Fraction(0)
    j = max(0, math.ceil(math.log2(abs(float(x)) + 1e-300)) + 10)
    y = _fix(x / 2 ** j)
    total, term, k = Fraction(1), Fraction(1), 1
    while abs(term) > Fraction(1, 10 ** 100):
        term = _fix(term * y / k)
        total, k = total + term, k + 1
    for _ in range(j):
        total = _fix(total * total)
    return total


def _m(M):
    return [[Fraction(x) for x in r] for r in M]


def _stochastic(M) -> bool:
    return all(min(c) >= 0 and sum(c) == 1 for c in zip(*M, strict=True))


def _psd(A) -> bool:
    """All eigenvalues of the symmetric rational A are >= 0: the characteristic polynomial
    det(x I - A) (real-rooted) has coefficients alternating in sign (Descartes)."""
    coeffs = sympy.Matrix(A).charpoly().all_coeffs()
    return all(c * (-1) ** k >= 0 for k, c in enumerate(coeffs))


def claim_true(c) -> bool | None:
    """True / False, or None when a margin is below the oracle's tolerance (undecided)."""
    if c["kind"] == "layer-peeled-theorem":
        part = c["parts"][0]
        if part.get("kind") != "layer-peeled-bracket":
            return False
        return claim_true(part)
    Y, W, H, P = _m(c["Y"]), _m(c["W"]), _m(c["H"]), _m(c["P"])
    EW, EH, s = Fraction(c["E_W"]), Fraction(c["E_H"]), Fraction(c["s"])
    lower, upper, eps = Fraction(c["lower"]), Fraction(c["upper"]), Fraction(c["eps"])
    if not (_stochastic(Y) and _stochastic(P) and EW > 0 and EH > 0 and s >= 0):
        return False
    if sum(x * x for r in W for x in r) > EW or sum(x * x for r in H for x in r) > EH:
        return False
    Z = sympy.Matrix(W) * sympy.Matrix(H)
    J = Fraction(0)
    for j in range(Z.cols):
        col = [Fraction(int(sympy.fraction(v)[0]), int(sympy.fraction(v)[1])) for v in Z.col(j)]
        top = max(col)
        J += top + ln(sum(exp(z - top) for z in col)) - sum(
            y * z for y, z in zip((r[j] for r in Y), col, strict=True))
    B = sympy.Matrix(P) - sympy.Matrix(Y)
    if not _psd(s * s * sympy.eye(len(Y)) - B * B.T):
        return False
    ent = -sum(p * ln(p) for r in P for p in r if p)
    rho = Fraction(math.isqrt(math.ceil(EW * EH * _S * _S)) + 1, _S)  # >= sqrt(E_W E_H)
    low_true = ent - rho * s
    margins = [upper - J, low_true - lower]
    if min(margins) < -_TOL:
        return False
    width_ok = upper - lower <= eps * (abs(upper) if c["eps_mode"] == "relative" else 1)
    if not width_ok or not _structure_true(c, Y, W, P, s):
        return False
    return None if min(margins) < _TOL else True


def _structure_true(c, Y, W, P, s) -> bool:
    G = sympy.Matrix(W) * sympy.Matrix(W).T
    m = G.rows
    for cl in c["structure"]:
        k = cl["claim"]
        if k == "circulant" and G != sympy.Matrix(m, m, lambda i, j: G[0, (j - i) % m]):
            return False
        if k == "simplex-etf":
            t = G[0, 0] * m / (m - 1)
            if t <= 0 or G != t * (sympy.eye(m) - sympy.ones(m, m) / m):
                return False
        if k == "span-I-J" and G != G[0, 0] * sympy.eye(m) + G[0, 1] * (sympy.ones(m, m)
                                                                       - sympy.eye(m)):
            return False
        if k == "invariant":
            for g in cl["generators"]:
                if sorted(g) != list(range(m)):
                    return False
                Pm = sympy.zeros(m, m)
                for i in range(m):
                    Pm[g[i], i] = 1
                if Pm * G * Pm.T != G:
                    return False
                cols = Counter(tuple(col) for col in zip(*Y, strict=True))
                if Counter(tuple(Pm * sympy.Matrix(col)) for col in zip(*Y, strict=True)) \
                        != Counter({tuple(sympy.Matrix(k2)): v for k2, v in cols.items()}):
                    return False
        if k == "budget-inactive" and (P != Y or s != 0):
            return False
    return True


def test_oracle_functions():
    assert abs(ln(Fraction(2)) - Fraction(6931471805599453094172321, 10 ** 25)) < 1e-24
    assert abs(exp(Fraction(1)) - Fraction(2718281828459045235360287, 10 ** 24)) < 1e-23
    assert abs(exp(Fraction(-7, 3)) * exp(Fraction(7, 3)) - 1) < Fraction(1, 10 ** 70)


# ----------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def weekday():
    lp = LayerPeeled(cyclic_orbit(WEEKDAYS, exact=True), 1, 4)
    return lp.solve("circulant").certificate(eps="1/100000000")


def test_weekday_certificate_is_tight_and_true(weekday):
    assert check(weekday).ok
    lo, up = Fraction(weekday["lower"]), Fraction(weekday["upper"])
    assert (up - lo) / up <= Fraction(1, 10 ** 8)
    assert claim_true(weekday) is True
    assert [c["claim"] for c in weekday["structure"]] == ["circulant", "invariant"]


def _scale(c, key, f, i=None, j=None):
    c = copy.deepcopy(c)
    if i is None:
        c[key] = str(Fraction(c[key]) * f)
    else:
        c[key][i][j] = str(Fraction(c[key][i][j]) * f)
    return c


def _largest(M):
    return max(((i, j) for i in range(len(M)) for j in range(len(M[0]))),
               key=lambda ij: abs(Fraction(M[ij[0]][ij[1]])))


@pytest.mark.parametrize("what", ["W", "H-shrink", "P-sum", "P-move", "s-down", "s-up",
                                  "Y-sum", "Y-move", "E_W-down", "E_W-up", "E_H-down",
                                  "eps", "rho_up", "upper", "lower", "precision",
                                  "generator"])
def test_tampering_is_rejected_with_the_check_named(weekday, what):
    c = weekday
    i, j = _largest(c["W"])
    width = Fraction(c["upper"]) - Fraction(c["lower"])
    F = Fraction
    cases = {
        "W": (_scale(c, "W", F(101, 100), i, j), {"budget"}),
        "H-shrink": ({**c, "H": [[str(F(x) * (1 - F(1, 10 ** 6))) for x in r]
                                 for r in c["H"]]}, {"upper"}),
        "P-sum": ({**c, "P": [[str(F(c["P"][0][0]) + F(1, 10 ** 9)), *c["P"][0][1:]],
                              *c["P"][1:]]}, {"dual-stochastic"}),
        "s-down": (_scale(c, "s", 1 - F(1, 10 ** 9)), {"spectral"}),
        "s-up": (_scale(c, "s", 1 + F(1, 10 ** 6)), {"lower"}),
        "E_W-down": (_scale(c, "E_W", F(999, 1000)), {"budget"}),
        "E_H-down": (_scale(c, "E_H", F(999, 1000)), {"budget"}),
        "E_W-up": (_scale(c, "E_W", F(1001, 1000)), {"radius"}),
        "eps": ({**c, "eps": str(width / Fraction(c["upper"]) / 2)}, {"width"}),
        "rho_up": (_scale(c, "rho_up", 1 - F(1, 10 ** 12)), {"radius"}),
        "upper": ({**c, "upper": str(F(c["upper"]) - width)}, {"upper"}),
        "lower": ({**c, "lower": str(F(c["lower"]) + width)}, {"lower"}),
        "precision": ({**c, "precision": 10}, {"precision"}),
        "Y-sum": ({**c, "Y": [[str(F(c["Y"][0][0]) + F(1, 7)), *c["Y"][0][1:]],
                              *c["Y"][1:]]}, {"target"}),
    }
    if what == "P-move":
        P = copy.deepcopy(c["P"])
        P[0][0], P[1][0] = str(F(P[0][0]) - F(1, 1000)), str(F(P[1][0]) + F(1, 1000))
        cases[what] = ({**c, "P": P}, {"spectral", "lower"})
    if what == "Y-move":
        Y = copy.deepcopy(c["Y"])
        Y[1][0], Y[2][0] = str(F(Y[1][0]) - F(1, 16)), str(F(Y[2][0]) + F(1, 16))
        cases[what] = ({**c, "Y": Y}, {"upper", "spectral", "lower", "target-invariant"})
    if what == "generator":
        m = copy.deepcopy(c)
        m["structure"][1]["generators"] = [[1, 0, 2, 3, 4, 5, 6]]
        cases[what] = (m, {"structure-invariant", "target-invariant"})
    tampered, expected = cases[what]
    v = check(tampered)
    assert not v.ok and v.failed_check in expected, v
    # rho_up and precision are helpers of the checker, not part of the claim
    assert claim_true(tampered) is not True or what in ("generator", "rho_up", "precision")


def _rand_cert(draw_seed: int):
    rng = np.random.default_rng(draw_seed)
    m, n = int(rng.integers(2, 4)), int(rng.integers(2, 4))
    cols = []
    for _ in range(n):
        w = rng.integers(0, 4, size=m)
        w[rng.integers(m)] += 1
        cols.append([Fraction(int(x), int(w.sum())) for x in w])
    Y = [list(r) for r in zip(*cols, strict=True)]
    EW, EH = Fraction(int(rng.integers(1, 9)), 4), Fraction(int(rng.integers(1, 9)), 2)
    lp = LayerPeeled([[str(x) for x in r] for r in Y], EW, EH)
    Z = rng.standard_normal((m, n))
    return bracket_certificate(lp, Z, eps_mode=str(rng.choice(["relative", "absolute"])))


def _tamper(c, rng: random.Random):
    c = copy.deepcopy(c)
    key = rng.choice(["W", "H", "P", "Y", "s", "E_W", "E_H", "eps", "rho_up", "lower",
                      "upper"])
    delta = Fraction(rng.choice([-1, 1]) * rng.randint(1, 9), 10 ** rng.randint(1, 12))
    if isinstance(c[key], list):
        i, j = rng.randrange(len(c[key])), rng.randrange(len(c[key][0]))
        c[key][i][j] = str(Fraction(c[key][i][j]) + delta)
        if key in ("P", "Y") and rng.random() < 0.7:  # keep the column sum: move mass
            k = (i + 1) % len(c[key])
            c[key][k][j] = str(Fraction(c[key][k][j]) - delta)
    else:
        c[key] = str(Fraction(c[key]) + delta)
    return key, c


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10 ** 6), st.integers(0, 10 ** 6))
def test_accepted_implies_true(seed, tseed):
    c = _rand_cert(seed)
    assert check(c).ok
    assert claim_true(c) in (True, None)
    rng = random.Random(tseed)
    for _ in range(3):
        key, t = _tamper(c, rng)
        if check(t).ok:
            assert claim_true(t) is not False, f"accepted a false claim after changing {key}"


# --------------------------------------------------------------- every reduction, cases
def _assert_certified(sol, **kw):
    c = sol.certificate(**kw)
    assert check(c).ok, check(c)
    lo, up = Fraction(c["lower"]), Fraction(c["upper"])
    assert lo <= up and abs(float(up) - sol.loss) <= 1e-6 * abs(sol.loss) + 1e-9
    return c


def test_every_reduction_certifies():
    Y = group_orbit(["1/2", "1/3", "1/6"], symmetric(3), exact=True)
    lp = LayerPeeled(Y, 1, 2)
    for method in ("full", "etf", "orbit", "circulant"):
        kw = {}
        if method == "orbit":
            from logitgeom.symmetry import detect_symmetry

            gens = [list(map(int, g)) for g in detect_symmetry(lp.Y).action.row_generators]
            kw = {"generators": gens}
        try:
            sol = lp.solve(method)
        except InvalidInput:
            assert method == "circulant"  # an S_3 orbit of a non-cyclic y needs all of S_3
            continue
        c = _assert_certified(sol, eps="1/10000000", **kw)
        assert (Fraction(c["upper"]) - Fraction(c["lower"])) / Fraction(c["upper"]) <= 1e-7
    sol = LayerPeeled(cyclic_orbit(["1/2", "1/4", "1/4", "0"], exact=True), 1, 1).solve(
        "circulant")
    c = _assert_certified(sol, eps="1/100000000")
    assert {x["claim"] for x in c["structure"]} == {"circulant", "invariant"}
    sol = LayerPeeled(cyclic_orbit(["1/2", "1/4", "1/4", "0"], exact=True), 1, 1).solve(
        "full", form="split")
    _assert_certified(sol, eps="1/10000000")


def test_etf_theorem_certificate_and_explain(capsys, tmp_path):
    Y = group_orbit(["1/2", "1/4", "1/4", "0"], symmetric(4), exact=True)
    sol = LayerPeeled(Y, 1, 4).solve("etf")
    part = sol.certificate(eps="1/100000000")
    thm = theorem_certificate("transitive-etf", part, label="Thms 2-3")
    assert check(thm).ok and claim_true(thm) is True
    from logitgeom.cli.main import main
    from logitgeom.emit import dumps

    f = tmp_path / "thm.json"
    f.write_text(dumps(thm))
    assert main(["check", str(f), "--explain"]) == 0
    out = capsys.readouterr().out
    assert "simplex ETF" in out and "lies in" in out and "2-homogeneous" in out
    bad = theorem_certificate("cyclic-circulant", part)
    assert check(bad).failed_check == "theorem-mismatch"


def test_budget_inactive_proof():
    """A slack budget gives the entropy-sum bracket; inactivity itself is never claimed (the
    checker verifies P = Y, s = 0, which proves the value, not that the budget is slack)."""
    lp = LayerPeeled([["1/2", "1/4"], ["1/2", "3/4"]], 100, 100)
    assert not lp.budget_active
    c = lp.solve("full").certificate(eps="1/1000000000")
    assert check(c).ok and c["P"] == c["Y"] and c["s"] == "0"
    assert c["structure"] == [] and "budget-inactive" not in json.dumps(c)
    bad = dict(c, structure=[{"claim": "budget-inactive"}])
    assert check(bad).failed_check == "structure-inactive"
    ent = -sum(Fraction(p) * ln(Fraction(p)) for r in c["Y"] for p in r if Fraction(p))
    assert abs(Fraction(c["lower"]) - ent) < Fraction(1, 10 ** 25)
    assert claim_true(c) is True


def test_deterministic_and_errors():
    lp = LayerPeeled(cyclic_orbit(["1/2", "1/4", "1/4"], exact=True), 1, 1)
    sol = lp.solve("circulant")
    assert json.dumps(sol.certificate()) == json.dumps(sol.certificate())
    with pytest.raises(InexactResult, match="width"):
        sol.certificate(eps="1/10000000000000000000000000000")
    with pytest.raises(InvalidInput, match="eps_mode"):
        sol.certificate(eps_mode="percent")
    with pytest.raises(InvalidInput, match="exactly 1"):
        LayerPeeled(np.array([[0.1, 0.5], [0.9, 0.5]]) * (1 + 1e-12), 1, 1).solve(
            "full").certificate()


def test_orbital_average_is_invariant():
    F = Fraction
    W = [[F(i * 3 + j) for j in range(3)] for i in range(3)]
    A = orbital_average(W, [[1, 2, 0]])
    assert all(A[(i + 1) % 3][(j + 1) % 3] == A[i][j] for i in range(3) for j in range(3))


def test_cli_certify_solve(tmp_path, capsys):
    from logitgeom.cli.main import main

    y = tmp_path / "y.csv"
    y.write_text("0,1/2,1/2\n1/2,0,1/2\n1/2,1/2,0\n")
    out = tmp_path / "c.json"
    assert main(["certify", "solve", str(y), "--ew", "1", "--eh", "4", "--eps", "1e-8",
                 "--generators", "[[1, 2, 0]]", "--out", str(out)]) == 0
    c = json.loads(out.read_text())
    assert check(c).ok and c["eps"] == "1/100000000"
    assert main(["check", str(out), "--explain"]) == 0
    assert "invariant under the group" in capsys.readouterr().out


@settings(max_examples=6, deadline=None)
@given(st.integers(0, 10 ** 6), st.integers(0, 10 ** 6))
def test_structure_claims_accepted_implies_true(seed, tseed):
    """Cyclic targets with the circulant claim; tampering W or Y must not sneak through."""
    rng = np.random.default_rng(seed)
    m = int(rng.integers(3, 5))
    w = rng.integers(0, 5, size=m)
    w[0] += 1
    Y = cyclic_orbit([str(Fraction(int(x), int(w.sum()))) for x in w], exact=True)
    lp = LayerPeeled(Y, 1, 2)
    c = bracket_certificate(lp, rng.standard_normal((m, m)), claims=("circulant",))
    assert check(c).ok and claim_true(c) in (True, None)
    r = random.Random(tseed)
    for _ in range(3):
        t = copy.deepcopy(c)
        key = r.choice(["W", "Y"])
        i, j = r.randrange(m), r.randrange(len(t[key][0]))
        t[key][i][j] = str(Fraction(t[key][i][j]) + Fraction(r.choice([-1, 1]), 10 ** 6))
        if key == "Y":
            k = (i + 1) % m
            t[key][k][j] = str(Fraction(t[key][k][j]) - Fraction(r.choice([-1, 1]), 10 ** 6))
        if check(t).ok:
            assert claim_true(t) is not False, key


def test_unknown_fields_and_work_budget(weekday):
    assert check({**weekday, "Upper": "0"}).failed_check == "schema"
    bad = copy.deepcopy(weekday)
    bad["structure"][0]["note"] = "x"
    assert check(bad).failed_check == "schema"
    assert check(weekday, 10).failed_check == "work-budget"  # the meter stops the check
