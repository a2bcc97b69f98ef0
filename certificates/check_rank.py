"""Checker of ``layer-peeled-rank-bracket``: a proven bracket for the program with hidden width d.

Standard library only.  The program (docs/beyond-symmetry.md, section 1):

    J*_d = min J(W H)  s.t.  ||W||_F^2 <= E_W, ||H||_F^2 <= E_H,  W in R^{m x d}, H in R^{d x n}.

Proof obligation, in order: ``d`` a positive integer and W exactly m x d (the rank bound is
the shape of W: rank W H <= d); ||W||_F^2 <= E_W and ||H||_F^2 <= E_H exactly; upper >= J(W H)
(rigorous exp/log of :mod:`certificates.check_bracket`); P column-stochastic, s^2 I -
(P - Y)(P - Y)^T PSD (exact LDL^T), rho_up^2 >= E_W E_H, lower <= Ent(P) - rho_up s (the
Fenchel bound of the convex relaxation ||Z||_* <= rho, valid for every d); upper - lower <= eps
(absolute or relative).  ``relaxation`` is ``"exact"`` or ``"gap"``: "exact" further needs
the relative width ``(upper - lower) / |upper| <= 10^-9`` (:data:`EXACT_WIDTH`).

Then: lower <= J*_conv <= J*_d <= upper, so the relaxation gap J*_d - J*_conv is at most
upper - lower ("exact": the rank-d program reaches the convex value up to that width).
Nothing is claimed about a positive gap: the upper end is one feasible point, not J*_d.

Examples
--------
>>> cert = {"format": "logitgeom-certificate", "version": 1,
...         "kind": "layer-peeled-rank-bracket", "Y": [["1/2"], ["1/2"]], "E_W": "1",
...         "E_H": "1", "d": 1, "W": [["0"], ["0"]], "H": [["0"]], "P": [["1/2"], ["1/2"]],
...         "s": "0", "rho_up": "1", "precision": 30, "lower": "693147/1000000",
...         "upper": "433217/625000", "eps": "1/100000", "eps_mode": "absolute",
...         "relaxation": "exact", "construction": "zero"}
>>> check(cert)
"""

from __future__ import annotations

from fractions import Fraction

from certificates import check_bracket as CB
from certificates import kernel as K

__all__ = ["KIND", "FIELDS", "EXACT_WIDTH", "check"]

KIND = "layer-peeled-rank-bracket"
FIELDS = {"Y", "E_W", "E_H", "d", "W", "H", "P", "s", "rho_up", "precision", "lower", "upper",
          "eps", "eps_mode", "relaxation", "construction"}
#: the largest relative width of a bracket whose relaxation is called "exact"
EXACT_WIDTH = Fraction(1, 10 ** 9)


def _num(obj, key, loc) -> Fraction:
    return K.read_field(K.read_number, obj, key, loc)


def _sq(M) -> Fraction:
    return sum((x * x for r in M for x in r), Fraction(0))


def check(obj, loc="") -> None:
    """Verify a ``layer-peeled-rank-bracket``; raise :class:`certificates.errors.Fail`."""
    Y = K.read_field(K.read_matrix, obj, "Y", loc)
    m, n = len(Y), len(Y[0])
    CB._stochastic(Y, "target", f"{loc}/Y")
    d = K.read_int(K.get(obj, "d", loc), f"{loc}/d", 1)
    W = K.read_field(K.read_matrix, obj, "W", loc, rows=m)
    K.fail_if(len(W[0]) != d, "rank", f"{loc}/W",
              f"W has {len(W[0])} columns, not d = {d} (the rank bound is the shape of W)")
    H = K.read_field(K.read_matrix, obj, "H", loc, rows=d, cols=n)
    P = K.read_field(K.read_matrix, obj, "P", loc, rows=m, cols=n)
    EW, EH = _num(obj, "E_W", loc), _num(obj, "E_H", loc)
    K.fail_if(EW <= 0 or EH <= 0, "budget", f"{loc}/E_W", "budgets must be > 0")
    prec = K.get(obj, "precision", loc)
    K.fail_if(type(prec) is not int or not CB.PRECISION[0] <= prec <= CB.PRECISION[1],
              "precision", f"{loc}/precision", f"precision must be an integer in {CB.PRECISION}")
    ctx, rho, s = CB.context(prec), _num(obj, "rho_up", loc), _num(obj, "s", loc)
    lower, upper = _num(obj, "lower", loc), _num(obj, "upper", loc)
    K.fail_if(_sq(W) > EW, "budget", f"{loc}/W", "||W||_F^2 > E_W")
    K.fail_if(_sq(H) > EH, "budget", f"{loc}/H", "||H||_F^2 > E_H")
    K.fail_if(CB.loss_upper(Y, W, H, ctx) > upper, "upper", f"{loc}/upper",
              "J(W H) may exceed the stated upper bound")
    CB._stochastic(P, "dual-stochastic", f"{loc}/P")
    Bi, D = K.scaled_matrix([[p - y for p, y in zip(rp, ry, strict=True)]
                             for rp, ry in zip(P, Y, strict=True)])
    G = K.matmul(Bi, [list(c) for c in zip(*Bi, strict=True)])
    k = K.psd_fails([[s * s * D * D * (i == j) - x for j, x in enumerate(g)]
                     for i, g in enumerate(G)])
    K.fail_if(s < 0 or k is not None, "spectral", f"{loc}/s",
              f"s < 0 or s^2 I - (P-Y)(P-Y)^T is not PSD (pivot {k})")
    K.fail_if(rho < 0 or rho * rho < EW * EH, "radius", f"{loc}/rho_up",
              "rho_up^2 < E_W E_H (or rho_up < 0)")
    K.fail_if(CB.entropy_lower(P, ctx) - rho * s < lower, "lower", f"{loc}/lower",
              "Ent(P) - rho_up s may be below the stated lower bound (the relaxation's bound)")
    eps, mode = _num(obj, "eps", loc), K.get(obj, "eps_mode", loc)
    K.fail_if(mode not in ("absolute", "relative"), "schema", f"{loc}/eps_mode",
              "eps_mode is 'absolute' or 'relative'")
    K.fail_if(upper - lower > eps * (abs(upper) if mode == "relative" else 1), "width",
              f"{loc}/eps", f"upper - lower exceeds the {mode} eps")
    rel = K.get(obj, "relaxation", loc)
    K.fail_if(rel not in ("exact", "gap"), "schema", f"{loc}/relaxation",
              "relaxation is 'exact' or 'gap'")
    K.fail_if(rel == "exact" and (upper <= 0 or upper - lower > EXACT_WIDTH * upper),
              "relaxation-exact", f"{loc}/relaxation", "the claim 'exact' needs a relative "
              f"width <= {EXACT_WIDTH}")
    K.fail_if(not isinstance(K.get(obj, "construction", loc), str) or
              len(obj["construction"]) > 200, "schema", f"{loc}/construction",
              "construction is a short string (how the point was found; not a claim)")
