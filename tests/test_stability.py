"""Approximate symmetry with a proven stability bound (issue 32).

The bound |J*(Y) - J*(Y0)| <= rho ||Y - Y0||_2 is certified on 20 random perturbations of
cyclic, S_4- and PSL(2,7)-invariant targets (both sides certified); the distance bound is
compared with an independent solve; the strong-convexity constant with the Hessian; the
identity "best G-invariant point = J*(group average)" with the orbit program; tampered files
are rejected.
"""

from __future__ import annotations

import copy
import math
from fractions import Fraction

import numpy as np
import pytest

from logitgeom.convex.loss import cross_entropy, softmax
from logitgeom.convex.problem import LayerPeeled
from logitgeom.convex.stability import (
    group_average,
    stability_certificate,
    stability_report,
    strong_convexity,
)
from logitgeom.symmetry import cyclic, orbit_targets, symmetric
from logitgeom.symmetry.constructors import group_from_text
from logitgeom_certificates.api import check


def _target(name: str):
    if name == "cyclic":
        T = orbit_targets(cyclic(5), ["2/5", "1/4", "1/5", "1/10", "1/20"])
    elif name == "S4":
        T = orbit_targets(symmetric(4), ["1/2", "1/4", "1/8", "1/8"])
    else:
        T = orbit_targets(group_from_text("PSL(2,7)", m=8),   # on the projective line
                          ["1/3", "1/6", "1/8", "1/8", "1/12", "1/12", "1/24", "1/24"])
    return np.array(LayerPeeled(T, 1, 1).exact_entries(), dtype=object), T.action


def perturb(Y0: np.ndarray, seed: int, size: int = 40) -> np.ndarray:
    """Y0 plus random rationals of size <= size/1000 per entry, columns renormalised exactly."""
    rng = np.random.default_rng(seed)
    m, n = Y0.shape
    Y = np.empty_like(Y0)
    for j in range(n):
        col = [max(Fraction(0), Y0[i, j] + Fraction(int(rng.integers(-size, size + 1)), 1000))
               for i in range(m)]
        tot = sum(col, Fraction(0))
        Y[:, j] = [x / tot for x in col]
    return Y


CASES = [("cyclic", s) for s in range(8)] + [("S4", s) for s in range(7)] + \
        [("PSL27", s) for s in range(5)]


@pytest.mark.slow
@pytest.mark.parametrize("name,seed", CASES)
def test_stability_bound_certified(name, seed):
    Y0, action = _target(name)
    Y = perturb(Y0, seed)
    cert = stability_certificate(Y, 1, 4, action)
    assert check(cert).ok and cert["average"]
    b1, b0 = cert["brackets"]
    L1, U1, L0, U0 = (Fraction(b[k]) for b in (b1, b0) for k in ("lower", "upper"))
    stab = Fraction(cert["stability"])
    assert L1 - U0 <= stab and L0 - U1 <= stab          # the bound, on certified values
    assert Fraction(cert["gap_lower"]) >= 0 and Fraction(cert["gap_upper"]) <= stab
    dY = np.array(Y - group_average(Y, action), dtype=float)   # Y0 of the file: the average
    assert np.array_equal(np.array([[Fraction(x) for x in r] for r in b0["Y"]], dtype=object),
                          group_average(Y, action))
    assert float(stab) >= 2 * np.linalg.norm(dY, 2) - 1e-12   # rho = 2
    assert float(stab) <= 2 * np.linalg.norm(dY, "fro") + 1e-9
    # the distance bound against an independent solve (the full program), every case
    ind = LayerPeeled(Y, 1, 4).solve("full")
    mu = float(Fraction(cert["mu"]))
    Z0 = np.array([[float(Fraction(x)) for x in r] for r in b0["W"]]) @ np.array(
        [[float(Fraction(x)) for x in r] for r in b0["H"]])
    C = np.eye(Y.shape[0]) - 1.0 / Y.shape[0]
    dist = float(np.linalg.norm(C @ (Z0 - ind.Z)))
    slack = math.sqrt(max(0.0, 2 * (ind.loss - float(L1)) / mu))  # the solve's own error
    assert dist <= math.sqrt(float(Fraction(cert["distance2"]))) + slack


def test_strong_convexity_constant_against_hessian():
    """Var_p(v) >= mu ||v||^2 on 1-perp for random logits of norm <= rho."""
    rng = np.random.default_rng(1)
    for m, rho in ((3, 0.5), (5, 2.0), (7, 3.0)):
        mu = strong_convexity(m, rho)
        C = np.eye(m) - 1.0 / m
        for _ in range(200):
            z = rng.standard_normal(m)
            z *= rho * rng.random() / np.linalg.norm(z)
            p = softmax(z[:, None])[:, 0]
            Hs = C @ (np.diag(p) - np.outer(p, p)) @ C
            ev = np.linalg.eigvalsh(Hs)
            assert ev[1] >= mu * (1 - 1e-9)   # ev[0] = 0 is the all-ones direction


def test_best_invariant_point_equals_group_average_optimum():
    """The orbit program with tol (Y averaged over the group, invariant Z) gives J_Y(Z0) =
    J*(Y0): the best G-invariant point for Y has loss J*(group average)."""
    Y0, action = _target("cyclic")
    Y = perturb(Y0, 3, 10)
    Yf = np.array(Y, dtype=float)
    avg = group_average(Y, action)
    assert np.allclose(np.array(avg, dtype=float), group_average(Yf, action))
    s0 = LayerPeeled(avg, 1, 4).solve("full")
    Z0 = group_average(s0.Z, action)
    assert abs(cross_entropy(Z0, Yf) - cross_entropy(Z0, np.array(avg, dtype=float))) < 1e-9
    r = stability_report(Yf, 1, 4, action)
    assert r.gap[0] >= 0 and r.gap[1] <= r.bound + 1e-9
    full = LayerPeeled(Yf, 1, 4).solve("full")
    assert full.loss <= s0.loss + 1e-7                    # J*(Y) <= J*(Y0)
    assert s0.loss - full.loss <= r.bound + 1e-7


@pytest.fixture(scope="module")
def cert():
    Y0, action = _target("cyclic")
    return stability_certificate(perturb(Y0, 11), 1, 4, action)


def test_tampered_stability_rejected(cert):
    assert check(cert).ok
    for key, change, failure in (
            ("stability", Fraction(-1, 10 ** 4), "stability"),
            ("s_delta", Fraction(-1, 10), "spectral"),
            ("distance2", Fraction(-1, 10 ** 3), "distance"),
            ("mu", None, "strong-convexity"),
            ("gap_lower", Fraction(1, 10), "gap")):
        bad = copy.deepcopy(cert)
        bad[key] = str(Fraction(bad[key]) * 2 if change is None else Fraction(bad[key]) + change)
        assert check(bad).failed_check == failure, key
    bad = copy.deepcopy(cert)
    bad["average"] = False   # gaps stated without the average
    assert check(bad).failed_check == "schema"
    bad = copy.deepcopy(cert)
    bad["actions"][0]["contexts"] = list(reversed(bad["actions"][0]["contexts"]))
    assert not check(bad).ok


def test_explain_and_latex(cert):
    from logitgeom_certificates._render import explain, latex

    assert "rho ||Y - Y0||_2" in explain(cert)
    assert "\\rho" in latex(cert)


def test_group_average_is_the_orbit_reductions_symmetrized_target():
    from logitgeom.convex.reductions.orbit import symmetrized_target

    Y0, action = _target("S4")
    Yf = np.array(perturb(Y0, 5), dtype=float)
    assert np.allclose(group_average(Yf, action), symmetrized_target(Yf, action))
