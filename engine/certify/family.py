"""Emit the layer-peeled family's certificates (docs/layer-peeled-family.md, section 4).

Brackets ``layer-peeled-weighted-bracket`` (CE), ``layer-peeled-mse-bracket`` and
``layer-peeled-bce-bracket`` from a float solution of
:class:`logitgeom.convex.family.LayerPeeledFamily`, and the ``layer-peeled-family-theorem``
bundles ``minority-separation`` / ``minority-collapse``.  The float solve proposes; the
stdlib checker (:mod:`logitgeom_certificates.check_family`) decides, and every certificate is run
through it before it is returned.

Steps (as for the balanced bracket, docs/certified-optima.md section 8):

1. primal: ``Z' = Z diag(sqrt(beta)) = U S V^T``, ``W = a U S^(1/2) U^T`` rounded to 2^-48,
   averaged exactly over the orbitals of the claimed group, rows on ``equal_rows`` (and on
   claimed equal-row sets) replaced by their exact mean, centred for CE; H by least
   squares on Z, rounded; both scaled by dyadic factors so the budgets hold exactly (onto
   the boundary when that lowers the float loss);
2. dual: the loss's dual point at Z = W H, its residual ``Pi (A - Y) diag(w/sqrt(beta))``
   flattened (top r singular values set to the r-th, best r by float dual value),
   projected onto the admissible set and rounded (CE columns summing to exactly 1);
3. ``s``: the float spectral norm times ``1 + 2^-k``, raised until the exact LDL^T accepts;
4. ``upper`` / ``lower``: the checker's own bounds, rounded outwards to 10^-30.

Examples
--------
>>> from logitgeom.convex.family import minority_program
>>> P = minority_program(2, 1, 4)
>>> c = family_certificate(P, P.solve().Z)
>>> from logitgeom_certificates.api import check
>>> c["kind"], check(c).ok
('layer-peeled-weighted-bracket', True)
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from logitgeom.certify.common import header
from logitgeom.certify.convex import (
    DEFAULT_PRECISION,
    RCOND,
    _eps,
    _qmat,
    _qstochastic,
    _s,
    _sqrt_down,
    _sqrt_up,
    orbital_average,
)
from logitgeom.errors import InexactResult, InvalidInput
from logitgeom_certificates import api as cb

__all__ = ["family_certificate", "separation_certificate", "collapse_certificate", "KIND_OF",
           "family_statement"]

#: loss name -> bracket kind
KIND_OF = {"ce": "layer-peeled-weighted-bracket", "mse": "layer-peeled-mse-bracket",
           "bce": "layer-peeled-bce-bracket"}
_GRID = 2 ** 48
_DIGITS = 10 ** 30


def _mean_rows(W: list[list[Fraction]], rows) -> None:
    rows = list(rows)
    if len(rows) < 2:
        return
    mean = [sum(c, Fraction(0)) / len(rows) for c in zip(*(W[b] for b in rows), strict=True)]
    for b in rows:
        W[b] = list(mean)


def _primal(problem, Z: np.ndarray, gens, row_sets) -> tuple[list, list]:
    m = Z.shape[0]
    loss = problem.loss
    sq = np.sqrt(problem.h_budget)
    a = (problem.E_W / problem.E_H) ** 0.25
    U, S, _ = np.linalg.svd(Z * sq, full_matrices=False)
    # singular values below RCOND x the largest are the solver's noise around a rank-deficient
    # optimum: drop them, or their square roots (~3e-5 relative) make W H = Z amplify it
    S = np.where(S > RCOND * S.max(initial=0.0), S, 0.0)
    W = _qmat(a * (U * np.sqrt(S)) @ U.T)
    if gens:
        W = orbital_average(W, gens)
    for rows in row_sets:
        _mean_rows(W, rows)
    Zc = np.array(Z, dtype=float)
    if loss.name == "ce":  # (I - J/m) W: keeps invariance and equal rows, never a larger norm
        cm = [sum(c, Fraction(0)) / m for c in zip(*W, strict=True)]
        W = [[x - c for x, c in zip(r, cm, strict=True)] for r in W]
        Zc = Zc - Zc.mean(axis=0, keepdims=True)
    Wn = np.array([[float(x) for x in r] for r in W])
    H = _qmat(np.linalg.lstsq(Wn, Zc, rcond=RCOND)[0])
    beta = problem.h_budget_exact
    nw = sum((x * x for r in W for x in r), Fraction(0))
    nh = sum((beta[j] * sum((r[j] * r[j] for r in H), Fraction(0)) for j in range(len(beta))),
             Fraction(0))
    fw = _sqrt_down(problem.E_W_exact / nw) if nw else Fraction(1)
    fh = _sqrt_down(problem.E_H_exact / nh) if nh else Fraction(1)
    ZH = Wn @ np.array([[float(x) for x in r] for r in H])
    cands = [(min(fw, Fraction(1)), min(fh, Fraction(1))), (fw, fh)]
    best = min(cands, key=lambda f: problem.objective(float(f[0] * f[1]) * ZH))
    W = [[x * best[0] for x in r] for r in W]
    H = [[x * best[1] for x in r] for r in H]
    return W, H


def _flatten(V: np.ndarray, r: int) -> np.ndarray:
    U, S, Vt = np.linalg.svd(V, full_matrices=False)
    S = S.copy()
    S[:r] = S[r - 1]
    return (U * S) @ Vt


def _dual(problem, Zq: np.ndarray) -> np.ndarray:
    """The best admissible A among the dual point of Zq and its flattenings."""
    loss, Y = problem.loss, problem.Y
    scale = problem.weights / np.sqrt(problem.h_budget)
    A0 = loss.dual_point(Zq)
    V = (A0 - Y) * scale
    PV = problem.project_rows(V)
    rest = V - PV
    cands = [A0]
    for r in range(2, min(V.shape) + 1):
        cands.append(loss.admissible(Y + (_flatten(PV, r) + rest) / scale))
    return max(cands, key=lambda A: problem.dual_bound(Zq, A))


def _round_dual(loss, A: np.ndarray) -> list[list[Fraction]]:
    if loss.name == "ce":
        return _qstochastic(A)
    Q = _qmat(A)
    if loss.name == "bce":
        Q = [[min(max(x, Fraction(0)), Fraction(1)) for x in r] for r in Q]
    return Q


def _spectral(problem, A: list[list[Fraction]]) -> Fraction:
    Y, B = problem.exact_Y, problem.equal_rows
    m, n = len(Y), len(Y[0])
    M = [[p - y for p, y in zip(ra, ry, strict=True)] for ra, ry in zip(A, Y, strict=True)]
    if B:
        mean = [sum((M[b][j] for b in B), Fraction(0)) / len(B) for j in range(n)]
        for b in B:
            M[b] = list(mean)
    q = [w * w / b for w, b in zip(problem.weights_exact, problem.h_budget_exact, strict=True)]
    Mi, D1 = cb.int_matrix(M)
    qi, D2 = cb.int_matrix([q])
    qi = qi[0]
    G = [[sum(Mi[i][j] * qi[j] * Mi[k][j] for j in range(n)) for k in range(m)]
         for i in range(m)]
    Mf = np.array([[float(x) for x in r] for r in M]) * np.sqrt([float(x) for x in q])
    sf = float(np.linalg.norm(Mf, 2))
    for k in range(40, 0, -4):
        s = Fraction(math.ceil(sf * (1 + 2.0 ** -k) * 2 ** 60) + 1, 2 ** 60)
        if cb.psd_fails([[s * s * D1 * D1 * D2 * (i == j) - x for j, x in enumerate(g)]
                         for i, g in enumerate(G)]) is None:
            return s
    raise InexactResult("could not verify a spectral bound (please report this)")


def family_certificate(problem, Z: np.ndarray, *, eps: Any = None, eps_mode: str = "relative",
                       generators=None, claims=(), equal_row_claims=(),
                       precision: int = DEFAULT_PRECISION, statement: str | None = None,
                       provenance: dict | None = None) -> dict:
    """A bracket ``lower <= J*_B <= upper`` of a
    :class:`~logitgeom.convex.family.LayerPeeledFamily`.

    Parameters
    ----------
    problem : LayerPeeledFamily
    Z : numpy.ndarray
        Float logits (m x n) near the optimum (``sol.Z``).
    eps, eps_mode : as for :func:`logitgeom.certify.convex.bracket_certificate`.
    generators : list of permutations, optional
        A group preserving Y with its weights and budgets; claims ``invariant``
        (``FamilySolution.certificate`` passes S_A x S_B when the two-orbit structure
        applies).
    claims : iterable of str
        "span-I-J", "simplex-etf".
    equal_row_claims : iterable of label lists
        Claim (and make) the rows of W equal on each set.
    precision : int
        Decimal digits of the checker's exp/log.

    Returns
    -------
    dict
        The certificate, already accepted by the stdlib checker.

    Raises
    ------
    InvalidInput
        Bad eps, eps_mode or claim.
    InexactResult
        The width exceeds ``eps``, or a structure claim fails after exact symmetrisation.
    """
    if eps_mode not in ("relative", "absolute"):
        raise InvalidInput(f"eps_mode must be 'relative' or 'absolute'; got {eps_mode!r}")
    bad = set(claims) - {"span-I-J", "simplex-etf"}
    if bad:
        raise InvalidInput(f"unknown structure claims {sorted(bad)}")
    m, n = problem.shape
    if problem.loss.name == "ce":
        for j, col in enumerate(zip(*problem.exact_Y, strict=True)):
            if sum(col) != 1:
                raise InvalidInput(f"Y column {j} sums to {float(sum(col))!r}, not exactly 1: "
                                   "a certificate needs exact probability columns (give Y as "
                                   "rationals, e.g. 'p/q' strings)")
    Z = np.asarray(Z, dtype=float)
    if Z.shape != (m, n):
        raise InvalidInput(f"Z has shape {Z.shape}, Y has shape {(m, n)}")
    gens = [list(map(int, g)) for g in generators or []]
    row_sets = [list(problem.equal_rows)] + [sorted(map(int, L)) for L in equal_row_claims]
    W, H = _primal(problem, Z, gens, row_sets)
    Wf = np.array([[float(x) for x in r] for r in W])
    Hf = np.array([[float(x) for x in r] for r in H])
    A = _round_dual(problem.loss, _dual(problem, Wf @ Hf))
    s = _spectral(problem, A)
    structure = [{"claim": c} for c in claims]
    structure += [{"claim": "equal-rows", "labels": L} for L in row_sets[1:]]
    if gens:
        structure.append({"claim": "invariant", "generators": gens})
    if statement is None:
        statement = family_statement(structure, bool(problem.equal_rows))
    cert = header(KIND_OF[problem.loss.name], statement, provenance)
    cert.update({"Y": _s(problem.exact_Y), "E_W": str(problem.E_W_exact),
                 "E_H": str(problem.E_H_exact),
                 "weights": [str(x) for x in problem.weights_exact],
                 "h_budget": [str(x) for x in problem.h_budget_exact],
                 "equal_rows": list(problem.equal_rows), "W": _s(W), "H": _s(H), "A": _s(A),
                 "s": str(s), "rho_up": str(_sqrt_up(problem.E_W_exact * problem.E_H_exact)),
                 "precision": int(precision)})
    up, lo = cb.family_bounds(cert)
    upper = Fraction(math.ceil(up * _DIGITS), _DIGITS)
    lower = Fraction(math.floor(lo * _DIGITS), _DIGITS)
    width = (upper - lower) / (abs(upper) if eps_mode == "relative" and upper else 1)
    cert.update({"lower": str(lower), "upper": str(upper), "eps": str(_eps(eps, width, eps_mode)),
                 "eps_mode": eps_mode, "structure": structure})
    try:
        cb.check_family(cert)
    except cb.Fail as f:
        raise InexactResult(f"the emitted certificate fails '{f.check}' at {f.location}: "
                            f"{f.message}") from None
    return cert


def family_statement(structure: list[dict], restricted: bool) -> str:
    """The theorem a family bracket with these structure claims proves (what the checker
    verifies, and what follows by averaging; docs/layer-peeled-family.md, section 4).

    Examples
    --------
    >>> print(family_statement([], False))  # doctest: +ELLIPSIS
    Proven by the checker: lower <= J* <= upper...
    """
    names = [c["claim"] for c in structure]
    out = ("Proven by the checker: lower <= J* <= upper"
           + (" for the program restricted to equal classifiers on equal_rows" if restricted
              else "") + ", and the file's own (W, H) is feasible with loss <= upper")
    shapes = {"equal-rows": "the rows of W on the listed labels equal",
              "span-I-J": "W W^T = alpha I + beta (J - I)",
              "simplex-etf": "W W^T a simplex ETF",
              "invariant": "W W^T invariant under the listed group, which preserves Y with "
                           "its weights and budgets"}
    if names:
        out += ", with " + "; ".join(shapes[k] for k in names) + " (exactly, for this W)"
    out += "."
    if "invariant" in names:
        out += (" Averaging an optimum over the group gives an optimum with the same "
                "invariance.")
    return out + (" Not proven: that every optimum has this structure, or that the file's W "
                  "is near an optimal W (only its value is within the width).")


def _theorem(name: str, parts: list[dict], label: str | None) -> dict:
    cert = {**header("layer-peeled-family-theorem"), "theorem": name, "parts": parts}
    if label:
        cert["label"] = label
    v = cb.check(cert)
    if not v.ok:
        raise InexactResult(f"{name} does not follow at this width ({v.failed_check}: "
                            f"{v.message}); tighten the solve or move the ratio")
    return cert


def separation_certificate(plain: dict, restricted: dict, label: str | None = None) -> dict:
    """``minority-separation``: ``upper(plain) < lower(restricted)`` proves that no feasible
    point with equal classifiers on the restricted labels is optimal.

    Raises
    ------
    InexactResult
        The inequality does not hold at these widths.
    """
    return _theorem("minority-separation", [plain, restricted], label)


def collapse_certificate(at_rho: dict, at_larger: dict, label: str | None = None) -> dict:
    """``minority-collapse``: two restricted brackets (radius rho_0 and rho_1 > rho_0) whose
    secant slope exceeds ``w_B / sqrt(beta_B)``: some optimum of the plain program at rho_0
    has equal classifiers on the labels (docs/layer-peeled-family.md, section 5).

    Raises
    ------
    InexactResult
        The inequality does not hold at these widths.
    """
    return _theorem("minority-collapse", [at_rho, at_larger], label)
