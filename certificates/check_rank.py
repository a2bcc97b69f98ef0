"""Checker of ``layer-peeled-rank-bracket``: a proven bracket for the program with hidden width d.

Standard library only.  The program (docs/beyond-symmetry.md, section 1):

    J*_d = min J(W H)  s.t.  ||W||_F^2 <= E_W, ||H||_F^2 <= E_H,  W in R^{m x d}, H in R^{d x n}.

Proof obligation, in order: ``d`` a positive integer and W exactly m x d (the rank bound is
the shape of W: rank W H <= d); ||W||_F^2 <= E_W and ||H||_F^2 <= E_H exactly; upper >= J(W H)
(rigorous exp/log of :mod:`logitgeom_certificates.reals`); P column-stochastic, s^2 I -
(P - Y)(P - Y)^T PSD (exact LDL^T), rho_up^2 >= E_W E_H, lower <= Ent(P) - rho_up s (the
Fenchel bound of the convex relaxation ||Z||_* <= rho, valid for every d); upper - lower <= eps
(absolute or relative); the structure claims of a bracket, on G = W W^T (m x m whatever d
is).  All of this is :func:`logitgeom_certificates.check_bracket.check`.  ``relaxation`` is "exact"
or "gap": "exact" further needs the relative width ``(upper - lower) / |upper| <= 10^-9``
(:data:`EXACT_WIDTH`).

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
...         "relaxation": "gap", "construction": "zero", "structure": []}
>>> check(cert)
"""

from __future__ import annotations

from fractions import Fraction

from . import check_bracket as CB
from . import kernel as K

KIND = "layer-peeled-rank-bracket"
FIELDS = CB.FIELDS | {"d", "relaxation", "construction"}
#: the largest relative width of a bracket whose relaxation is called "exact"
EXACT_WIDTH = Fraction(1, 10 ** 9)


def check(obj: K.Obj, loc: str = "", parts: object = None) -> None:
    """Verify a ``layer-peeled-rank-bracket``: W has ``d`` columns, the bracket (on that W,
    read once), then the relaxation claim on the bracket's reading."""
    d = K.read_int(K.get(obj, "d", loc), f"{loc}/d", 1)
    W = K.read_field(K.read_matrix, obj, "W", loc)
    K.fail_if(len(W[0]) != d, "rank-bound", f"{loc}/W",
              f"W has {len(W[0])} columns, not d = {d} (the rank bound is the shape of W)")
    r = CB.check(obj, loc, W=W)  # Y, H, P; budgets, upper, dual bound, width, structure
    rel = K.read_choice(obj, "relaxation", loc, ("exact", "gap"))
    K.fail_if(rel == "exact" and (r.upper <= 0 or r.upper - r.lower > EXACT_WIDTH * r.upper),
              "relaxation-exact", f"{loc}/relaxation", "the claim 'exact' needs a relative "
              f"width <= {EXACT_WIDTH}")
    con = K.get(obj, "construction", loc)
    K.fail_if(not isinstance(con, str) or len(con) > 200, "schema", f"{loc}/construction",
              "construction is a short string (how the point was found; not a claim)")


KIND_TABLE = {KIND: (check, FIELDS)}
