"""Emit ``layer-peeled-rank-bracket`` certificates: hidden width D below the optimum's rank.

The lower end is the convex relaxation's certified Fenchel bound (the dual point P, s and
rho_up of :func:`logitgeom.certify.convex.bracket_certificate`: valid for every width); the
upper end is the loss of an exactly feasible rational pair (W, H) with D columns, the best
point of :func:`logitgeom.convex.lowrank.rank_constrained` rounded to the 2^-48 grid and scaled
into the budgets by a dyadic factor <= sqrt(budget / ||.||_F^2).  The stdlib checker
(:mod:`logitgeom_certificates.check_rank`) decides; docs/beyond-symmetry.md derives every step.
Like every builder of :mod:`logitgeom.certify` it imports nothing above the exact kernel: the
float search arrives as data (:func:`logitgeom.convex.lowrank.rank_certificate` runs it).

Examples
--------
>>> from logitgeom.convex.lowrank import rank_constrained
>>> from logitgeom.convex.problem import LayerPeeled
>>> from logitgeom.convex.targets import cyclic_orbit
>>> lp = LayerPeeled(cyclic_orbit(["1/2", "1/4", "1/8", "1/8"], exact=True), 1, 4)
>>> c = rank_bracket_certificate(lp, rank_constrained(lp, 2))
>>> c["kind"], len(c["W"][0]), c["relaxation"]
('layer-peeled-rank-bracket', 2, 'gap')
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from logitgeom.certify.common import header, self_check
from logitgeom.certify.convex import (
    DEFAULT_PRECISION,
    _eps,
    _exact_target,
    _qmat,
    _s,
    _sqrt_down,
    bracket_certificate,
)
from logitgeom.errors import InexactResult, InvalidInput
from logitgeom_certificates import api as cb

__all__ = ["rank_bracket_certificate", "rank_statement", "EXACT_WIDTH"]

_DIGITS = 10 ** 30
#: the checker's limit on the relative width of an "exact" claim
EXACT_WIDTH = Fraction(1, 10 ** 9)


def rank_statement(D: int, relaxation: str, width: Fraction) -> str:
    """What a ``layer-peeled-rank-bracket`` proves, in words.

    Examples
    --------
    >>> rank_statement(2, "gap", Fraction(1, 100)).split(" for ")[0]
    'Proven by the checker: lower <= J*_conv <= J*_D <= upper'
    """
    out = (f"Proven by the checker: lower <= J*_conv <= J*_D <= upper for the layer-peeled "
           f"program with hidden width D = {D} (W of D columns), where J*_conv is its convex "
           "relaxation (nuclear-norm ball, every width); the file's own (W, H) with D columns "
           "is exactly feasible and J(W H) <= upper.  So the relaxation gap J*_D - J*_conv is "
           f"at most upper - lower = {float(width):.3g}.")
    if relaxation == "exact":
        out += (" Relaxation exact: width <= 10^-9 relative, the rank-D program reaches the "
                "convex value up to that width.")
    else:
        out += (" Not proven: that the gap is positive (upper is one feasible point, not "
                "J*_D).")
    return out


def rank_bracket_certificate(problem: Any, result: Any, *, eps: Any = None,
                             eps_mode: str = "relative", precision: int = DEFAULT_PRECISION,
                             provenance: dict | None = None, max_work: int | None = None,
                             report: dict | None = None) -> dict:
    """A ``layer-peeled-rank-bracket`` from a float rank-D search (built from the data handed
    in; the search itself is :func:`logitgeom.convex.lowrank.rank_certificate`'s).

    Parameters
    ----------
    problem : LayerPeeled
        Target (exact probability columns) and budgets.
    result : RankResult
        The float search: ``D``, ``W`` (m x D), ``H``, ``construction`` and the convex
        ``solution`` (its ``Z`` gives the certified lower bound).
    eps, eps_mode : optional
        Required width (None: the achieved width, rounded up to two digits).
    precision : int
        Decimal digits of the checker's exp/log.
    max_work : int, optional
        Budget of the self-check (``certify solve --max-work``; None: no budget).
    report : dict, optional
        Receives ``work``: the metered work of the self-check (what ``check --max-work``
        needs).

    Returns
    -------
    dict
        The certificate (already accepted by the stdlib checker).

    Raises
    ------
    InvalidInput
        Y not exact, bad eps_mode.
    InexactResult
        The width exceeds ``eps``.
    TooLarge
        The self-check needs more than ``max_work``.
    """
    D = result.D
    Y = _exact_target(problem)
    conv = bracket_certificate(problem, result.solution.Z, precision=precision)
    W, H = _qmat(result.W), _qmat(result.H)
    for M, E in ((W, problem.E_W_exact), (H, problem.E_H_exact)):
        norm = sum((x * x for r in M for x in r), Fraction(0))
        if norm > E:
            f = _sqrt_down(E / norm)
            M[:] = [[x * f for x in r] for r in M]
    ctx = cb.decimal_context(int(precision))
    up = cb.loss_upper(Y, W, H, ctx)
    upper = Fraction(math.ceil(up * _DIGITS), _DIGITS)
    lower = Fraction(conv["lower"])
    if upper < lower:  # impossible for a correct checker; never state an empty bracket
        raise InexactResult("the rank-D point's loss is below the relaxation bound "
                            "(please report this)")
    if eps_mode not in ("relative", "absolute"):
        raise InvalidInput(f"eps_mode must be 'relative' or 'absolute'; got {eps_mode!r}")
    width = (upper - lower) / (abs(upper) if eps_mode == "relative" else 1)
    rel_width = (upper - lower) / abs(upper) if upper else Fraction(0)
    relaxation = "exact" if upper > 0 and rel_width <= EXACT_WIDTH else "gap"
    cert = header("layer-peeled-rank-bracket",
                  rank_statement(D, relaxation, upper - lower), provenance)
    cert.update({"Y": _s(Y), "E_W": str(problem.E_W_exact), "E_H": str(problem.E_H_exact),
                 "d": D, "W": _s(W), "H": _s(H), "P": conv["P"], "s": conv["s"],
                 "rho_up": conv["rho_up"], "precision": int(precision), "lower": str(lower),
                 "upper": str(upper), "eps": str(_eps(eps, width, eps_mode)),
                 "eps_mode": eps_mode, "relaxation": relaxation,
                 "construction": result.construction[:200], "structure": []})
    self_check(cert, max_work, "rank bracket", report)
    return cert
