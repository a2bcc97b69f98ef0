"""Orbit brackets: Y given by base columns and group generators.

Soundness is tested by materialising small instances: the orbit certificate, expanded to
one column per group element (elements enumerated by closure here, not by the checker),
must be accepted by the explicit ``layer-peeled-bracket`` checker with the same bounds, and
the fixed-point oracle of ``test_certified_bracket`` must confirm it.
"""

from __future__ import annotations

import copy
import random
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy.combinatorics import Permutation, PermutationGroup
from test_certified_bracket import claim_true

from logitgeom.certify.convex import orbit_bracket_certificate
from logitgeom_certificates.check import check
from logitgeom_certificates.groups import group_order

S4 = [[1, 0, 2, 3], [1, 2, 3, 0]]


def _elements(gens, m):
    e = tuple(range(m))
    seen, todo = {e}, [e]
    while todo:
        a = todo.pop()
        for g in gens:
            b = tuple(g[a[i]] for i in range(m))
            if b not in seen:
                seen.add(b)
                todo.append(b)
    return sorted(seen)


def expand(c) -> dict:
    """The explicit layer-peeled-bracket certificate of an orbit bracket (small groups)."""
    m = len(c["bases"][0])
    els = _elements(c["generators"], m)

    def cols(vectors):
        out = []
        for v in vectors:
            for g in els:
                col = [None] * m
                for i in range(m):
                    col[g[i]] = v[i]
                out.append(col)
        return [list(r) for r in zip(*out, strict=True)]

    e = {k: c[k] for k in ("format", "version", "E_W", "E_H", "W", "s", "rho_up",
                           "precision", "lower", "upper", "eps", "eps_mode", "structure")}
    return e | {"kind": "layer-peeled-bracket", "Y": cols(c["bases"]),
                "H": cols(c["H_bases"]), "P": cols(c["P_bases"])}


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 7), st.lists(st.permutations(range(7)), min_size=1, max_size=3))
def test_group_order_matches_sympy(m, perms):
    gens = [[p for p in g if p < m] for g in perms]
    assert group_order([tuple(g) for g in gens], m) == \
        PermutationGroup([Permutation(g) for g in gens]).order()


@pytest.fixture(scope="module")
def s4():
    ys = [["1/2", "1/4", "1/4", "0"], ["1/3", "1/3", "1/3", "0"]]
    z = np.array([[0.9, 0.2, 0.2, -1.3], [0.5, 0.5, 0.5, -1.5]]).T
    return orbit_bracket_certificate(ys, S4, 1, 4, z, claims=("simplex-etf",))


def test_orbit_bracket_equals_its_expansion(s4):
    assert check(s4).ok and s4["group_order"] == 24
    full = expand(s4)
    assert len(full["Y"][0]) == 48
    assert check(full).ok  # the explicit checker, on all 48 columns, agrees
    assert claim_true(full) in (True, None)


@pytest.mark.parametrize("change, failed", [
    (lambda c: c.update(group_order=12), "group-order"),
    (lambda c: c["W"][0].__setitem__(1, str(Fraction(c["W"][0][1]) + Fraction(1, 10 ** 9))),
     "structure-invariant"),
    (lambda c: c["H_bases"][0].__setitem__(0, str(Fraction(c["H_bases"][0][0]) * 2)),
     "budget"),
    (lambda c: c.update(s=str(Fraction(c["s"]) * Fraction(999, 1000))), "spectral"),
    (lambda c: c.update(upper=c["lower"]), "upper"),
    (lambda c: c.update(generators=[[0, 1, 2, 3], [1, 2, 3, 0]], group_order=4), "lower"),
    (lambda c: c["P_bases"][0].__setitem__(0, "1"), "dual-stochastic"),
    (lambda c: c.update(structure=[{"claim": "invariant", "generators": S4}]), "schema"),
])
def test_orbit_tampering(s4, change, failed):
    c = copy.deepcopy(s4)
    change(c)
    v = check(c)
    assert not v.ok and v.failed_check == failed, v


@settings(max_examples=6, deadline=None)
@given(st.integers(0, 10 ** 6))
def test_orbit_accepted_implies_true(seed):
    rng = random.Random(seed)
    ys = [["1/2", "1/4", "1/4", "0"], ["1/3", "1/3", "1/3", "0"]]
    z = np.random.default_rng(seed).standard_normal((4, 2))
    gens = rng.choice([S4, [[1, 2, 3, 0]], [[1, 0, 2, 3], [0, 1, 3, 2]]])
    c = orbit_bracket_certificate(ys, gens, 1, 4, z)
    assert check(c).ok and check(expand(c)).ok
    for _ in range(3):
        t = copy.deepcopy(c)
        key = rng.choice(["W", "H_bases", "P_bases", "s", "lower", "upper", "E_H"])
        d = Fraction(rng.choice([-1, 1]), 10 ** rng.randint(2, 9))
        if isinstance(t[key], list):
            i, j = rng.randrange(len(t[key])), rng.randrange(len(t[key][0]))
            t[key][i][j] = str(Fraction(t[key][i][j]) + d)
            if key == "W":  # keep W invariant: change the whole orbital of (i, j)
                for a in range(4):
                    for b in range(4):
                        if c["W"][a][b] == c["W"][i][j]:
                            t[key][a][b] = t[key][i][j]
        else:
            t[key] = str(Fraction(t[key]) + d)
        if check(t).ok:
            assert claim_true(expand(t)) is not False, key


def test_s9_orbit_is_certified_without_materialising():
    """The S_9 orbit (362,880 columns): the file and the checker stay 9 x 9."""
    from scipy.optimize import brentq

    y = ["1/2", "1/4", "1/8", "1/16", "1/32", "1/64", "1/128", "1/256", "1/256"]
    yf = np.array([float(Fraction(x)) for x in y])
    m, N = 9, 362880
    # the ETF closed form: z = -kappa (alpha - y) with kappa = rho / ((m-1) s_C)
    rho = 2.0

    def F(kappa):
        a = _alpha(yf, kappa)
        s = np.sqrt(N / (m - 1)) * np.linalg.norm(a - yf)
        return kappa * (m - 1) * s - rho

    kappa = brentq(F, 1e-9, 1e3, xtol=1e-15)
    z = -kappa * (_alpha(yf, kappa) - yf)
    c = orbit_bracket_certificate([y], [[1, 0, *range(2, 9)], [*range(1, 9), 0]], 1, 4,
                                  z[:, None], eps="1/100000000", claims=("simplex-etf",))
    assert check(c).ok and c["group_order"] == N
    assert (Fraction(c["upper"]) - Fraction(c["lower"])) / Fraction(c["upper"]) <= 1e-8


def _alpha(y, kappa):
    """The stationarity system log a_i + kappa (a_i - y_i) = mu, sum a = 1 (bisection on mu)."""
    from scipy.optimize import brentq
    from scipy.special import lambertw

    def a_of(mu):
        return np.real(lambertw(kappa * np.exp(mu + kappa * y))) / kappa

    mu = brentq(lambda mu: a_of(mu).sum() - 1, -50, 50, xtol=1e-15)
    return a_of(mu)


def test_orbit_part_in_a_theorem(s4):
    from logitgeom.certify.convex import theorem_certificate

    thm = theorem_certificate("transitive-etf", s4, label="Thms 2-3, implicit S_4 orbit")
    assert check(thm).ok
    c = copy.deepcopy(s4)
    c["generators"], c["group_order"] = [[1, 2, 3, 0]], 4  # C_4: not 2-transitive
    bad = theorem_certificate("transitive-etf", c)
    assert check(bad).failed_check in ("transitivity", "lower")
