"""Emit ``layer-peeled-stability`` certificates (approximate symmetry, docs/beyond-symmetry.md).

Two brackets (Y, and the G-invariant Y0: by default the exact group average of Y), the first
emitted by :func:`logitgeom.certify.convex.bracket_certificate`, the second with an *equivariant*
rational pair (W0 m x m commuting with G, H0 averaged over the orbits of G on label-context
pairs, then both scaled into the budgets: Z0 = W0 H0 is exactly G-invariant); then
``s_delta >= ||Y - Y0||_2`` (exact LDL^T), the stability bound ``rho_up s_delta``, the gap of
the best G-invariant point, the strong-convexity constant and the distance bound.  The stdlib
checker (:mod:`logitgeom_certificates.check_stability`) decides.

Examples
--------
>>> import numpy as np
>>> from fractions import Fraction as F
>>> from logitgeom.convex.problem import LayerPeeled
>>> from logitgeom.symmetry import cyclic, orbit_targets
>>> T = orbit_targets(cyclic(3), ["1/2", "1/3", "1/6"])
>>> Y = np.array(LayerPeeled(T, 1, 1).exact_entries(), dtype=object)
>>> Y[:, 0] = [F(13, 25), F(31, 100), F(17, 100)]
>>> from logitgeom.convex.stability import stability_certificate
>>> c = stability_certificate(Y, 1, 4, T.action)
>>> from logitgeom_certificates.api import check
>>> check(c).ok, c["average"]
(True, True)
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from logitgeom.certify.common import header, self_check
from logitgeom.certify.convex import (
    DEFAULT_PRECISION,
    _dual,
    _eps,
    _exact_target,
    _qmat,
    _qstochastic,
    _s,
    _spectral,
    _sqrt_down,
    _sqrt_up,
    bracket_certificate,
    orbital_average,
)
from logitgeom.errors import InexactResult
from logitgeom_certificates import api as cb

__all__ = ["stability_bracket_certificate", "invariant_bracket"]

_DIGITS = 10 ** 30
_RCOND = 1e-9


def _pair_mean(M: list[list[Fraction]], labels: np.ndarray) -> list[list[Fraction]]:
    tot: dict[int, Fraction] = {}
    cnt: dict[int, int] = {}
    flat = labels.ravel().tolist()
    vals = [x for r in M for x in r]
    for k, x in zip(flat, vals, strict=True):
        tot[k] = tot.get(k, Fraction(0)) + x
        cnt[k] = cnt.get(k, 0) + 1
    n = len(M[0])
    means = [tot[k] / cnt[k] for k in flat]
    return [means[i * n:(i + 1) * n] for i in range(len(M))]


def invariant_bracket(problem: Any, Z: np.ndarray, action: Any, *,
                      precision: int = DEFAULT_PRECISION, checked: bool = True) -> dict:
    """A ``layer-peeled-bracket`` for a G-invariant target whose pair (W0, H0) is equivariant:
    ``W0[g i][g k] = W0[i][k]``, ``H0[g k][q j] = H0[k][j]`` for every generator (g, q), so
    ``Z0 = W0 H0`` is G-invariant exactly.

    ``checked=False`` leaves its check to the caller (a stability certificate checks it as
    one of its brackets).

    Raises
    ------
    InvalidInput
        Y not exact.
    InexactResult
        The emitted bracket fails its check (please report).
    """
    Y = _exact_target(problem)
    m = len(Y)
    rows = [list(map(int, g)) for g in action.row_generators]
    Z = np.asarray(Z, dtype=float)
    lab = action.pair_orbit_labels()
    Zs = np.bincount(lab.ravel(), weights=Z.ravel())
    Z = (Zs / np.bincount(lab.ravel()))[lab].reshape(Z.shape)       # G-invariant float Z
    Z = Z - Z.mean(axis=0, keepdims=True)
    a = (float(problem.E_W_exact) / float(problem.E_H_exact)) ** 0.25
    U, S, _ = np.linalg.svd(Z, full_matrices=False)
    W = orbital_average(_qmat(a * (U * np.sqrt(S)) @ U.T), rows)
    cm = [sum(c, Fraction(0)) / m for c in zip(*W, strict=True)]
    W = [[x - c for x, c in zip(r, cm, strict=True)] for r in W]
    Wn = np.array([[float(x) for x in r] for r in W])
    H = _pair_mean(_qmat(np.linalg.lstsq(Wn, Z, rcond=_RCOND)[0]), lab)
    for M, E in ((W, problem.E_W_exact), (H, problem.E_H_exact)):
        norm = sum((x * x for r in M for x in r), Fraction(0))
        if norm and (problem.budget_active or norm > E):
            f = _sqrt_down(E / norm)
            M[:] = [[x * f for x in r] for r in M]
    Yf = np.array([[float(x) for x in r] for r in Y])
    Zq = np.array([[float(x) for x in r] for r in W]) @ np.array(
        [[float(x) for x in r] for r in H])
    if problem.budget_active:
        P = _qstochastic(_dual(Zq, Yf, problem.rho))
        s = _spectral(P, Y)
    else:
        P, s = [list(r) for r in Y], Fraction(0)
    cert = header(cb.BRACKET_KINDS[0], "The bracket of the G-invariant target Y0, attained "
                  "by an equivariant pair (W0 commutes with G, H0 is G-equivariant).")
    cert.update({"Y": _s(Y), "E_W": str(problem.E_W_exact), "E_H": str(problem.E_H_exact),
                 "W": _s(W), "H": _s(H), "P": _s(P), "s": str(s),
                 "rho_up": str(_sqrt_up(problem.E_W_exact * problem.E_H_exact)),
                 "precision": int(precision)})
    up, lo = cb.bracket_bounds(cert)
    upper = Fraction(math.ceil(up * _DIGITS), _DIGITS)
    lower = Fraction(math.floor(lo * _DIGITS), _DIGITS)
    width = (upper - lower) / abs(upper) if upper else Fraction(0)
    cert.update({"lower": str(lower), "upper": str(upper),
                 "eps": str(_eps(None, width, "relative")), "eps_mode": "relative",
                 "structure": [{"claim": "invariant", "generators": rows}]})
    if checked:
        self_check(cert, None, "invariant bracket")
    return cert


def _spectral_delta(Y: list, Y0: list) -> Fraction:
    B = [[a - b for a, b in zip(r1, r0, strict=True)] for r1, r0 in zip(Y, Y0, strict=True)]
    if not any(x for r in B for x in r):
        return Fraction(0)
    Bi, D = cb.int_matrix(B)
    BB = cb.matmul(Bi, [list(c) for c in zip(*Bi, strict=True)])
    sf = float(np.linalg.norm(np.array([[float(x) for x in r] for r in B]), 2))
    for k in range(40, 0, -4):
        s = Fraction(math.ceil(sf * (1 + 2.0 ** -k) * 2 ** 60) + 1, 2 ** 60)
        if cb.psd_fails([[(s * D) ** 2 * (i == j) - BB[i][j] for j in range(len(BB))]
                         for i in range(len(BB))]) is None:
            return s
    raise InexactResult("could not verify a spectral bound for Y - Y0 (please report this)")


def stability_bracket_certificate(P1: Any, P0: Any, Z1: np.ndarray, Z0: np.ndarray,
                                  action: Any, average: bool, *,
                                  precision: int = DEFAULT_PRECISION,
                                  provenance: dict | None = None, max_work: int | None = None,
                                  report: dict | None = None) -> dict:
    """A ``layer-peeled-stability`` certificate from the data handed in (the solves and the
    group average are :func:`logitgeom.convex.stability.stability_certificate`'s).

    Parameters
    ----------
    P1, P0 : LayerPeeled
        The problems of Y and of the G-invariant Y0 (exact probability columns, same budgets).
    Z1, Z0 : numpy.ndarray
        Float solutions of their convex programs.
    action : GroupAction
        G acting on labels and contexts (``generators``, ``row_generators``,
        ``pair_orbit_labels()``); Y0 must be invariant.
    average : bool
        Whether Y0 is the group average of Y (the checker verifies it).
    precision : int
        Decimal digits of the checker's exp/log.
    max_work : int, optional
        Budget of the self-check (``certify solve --max-work``; None: no budget).
    report : dict, optional
        Receives ``work``: the metered work of the self-check.

    Returns
    -------
    dict
        The certificate (already accepted by the stdlib checker).

    Raises
    ------
    InvalidInput
        Y or Y0 not exact.
    InexactResult
        An emitted part fails its check (please report).
    TooLarge
        The self-check needs more than ``max_work``.
    """
    b1 = bracket_certificate(P1, Z1, precision=precision)
    b0 = invariant_bracket(P0, Z0, action, precision=precision, checked=False)
    Y1q, Y0q = _exact_target(P1), _exact_target(P0)
    s = _spectral_delta(Y1q, Y0q)
    rho = Fraction(b1["rho_up"])
    stab = rho * s
    L1, U1 = Fraction(b1["lower"]), Fraction(b1["upper"])
    L0, U0 = Fraction(b0["lower"]), Fraction(b0["upper"])
    m = P1.m
    t = _sqrt_up(2 * rho * rho)
    ctx = cb.decimal_context(int(precision))
    mu = 1 / (1 + (m - 1) * cb.exp_up(t, ctx))     # t >= sqrt(2) rho; the checker's own exp
    W0 = [[Fraction(x) for x in r] for r in b0["W"]]
    H0 = [[Fraction(x) for x in r] for r in b0["H"]]
    cross = cb.loss_upper(Y1q, W0, H0, ctx)
    dist2 = Fraction(math.ceil(max(Fraction(0), 2 * (cross - L1) / mu) * _DIGITS), _DIGITS)
    cert = header("layer-peeled-stability", None, provenance)
    cert.update({"brackets": [b1, b0],
                 "actions": [{"labels": list(map(int, g)), "contexts": list(map(int, q))}
                             for g, q in action.generators],
                 "average": average, "s_delta": str(s), "stability": str(stab)})
    if average:
        cert["gap_lower"] = str(max(Fraction(0), L0 - U1))
        cert["gap_upper"] = str(min(U0 - L1, stab))
    cert.update({"t": str(t), "mu": str(mu), "distance2": str(dist2)})
    cert["statement"] = (
        "Proven by the checker: J*(Y) and J*(Y0) lie in the two brackets; |J*(Y) - J*(Y0)| <= "
        "rho ||Y - Y0||_2 <= stability; "
        + ("Y0 is the group average of Y, so the best G-invariant point for Y has loss J*(Y0) "
           "and J*(Y0) - J*(Y) lies in [gap_lower, gap_upper]; " if average else "")
        + "for every optimal Z* of Y's convex program, ||C (W0 H0 - Z*)||_F^2 <= distance2 "
        "(C = I - J/m; W0 H0 is the file's G-invariant point). Not proven: anything about "
        "the rank-constrained program, or which optimum of Y0 is selected.")
    self_check(cert, max_work, "stability certificate", report)
    return cert
