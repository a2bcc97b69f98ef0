"""Presentation of the rank-constrained and stability certificates: ``--explain`` and LaTeX.

Standard library only; decides nothing (called after the checker accepted the file).  The
words are the theorems :mod:`logitgeom_certificates.check_rank` and
:mod:`logitgeom_certificates.check_stability`
verify, no stronger (docs/beyond-symmetry.md).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

KINDS = ("layer-peeled-rank-bracket", "layer-peeled-stability")


def _f(q: str | Fraction) -> str:
    return f"{float(Fraction(q)):.12g}"


def explain(c: dict[str, Any]) -> str:
    """The proven claim in words."""
    if c["kind"] == KINDS[1]:
        return _explain_stability(c)
    m, n, d = len(c["Y"]), len(c["Y"][0]), c["d"]
    lo, up = Fraction(c["lower"]), Fraction(c["upper"])
    out = [f"Claim: for the layer-peeled program with hidden width D = {d} (W of {d} columns, "
           f"||W||_F^2 <= {c['E_W']}, ||H||_F^2 <= {c['E_H']}; m = {m} labels, n = {n} "
           "contexts),",
           f"  lower = {_f(lo)} <= J*_conv <= J*_D <= upper = {_f(up)}  (width "
           f"{float(up - lo):.3g}),",
           "  J*_conv being the convex relaxation (||Z||_* <= sqrt(E_W E_H), every width): the "
           "lower end is its Fenchel dual bound, the upper end the loss of the file's own "
           f"exactly feasible (W, H) with {d} columns (found by: {c['construction']}; not a "
           "claim).",
           f"  So the relaxation gap J*_D - J*_conv is at most {float(up - lo):.3g}."]
    if c["relaxation"] == "exact":
        out.append("  Relaxation exact: the relative width is <= 10^-9, the rank-D program "
                   "reaches the convex value up to it.")
    else:
        out.append("  Relaxation: gap (a positive gap is not proven; the upper end is one "
                   "feasible point).")
    return "\n".join(out) + "\n"


def _explain_stability(c: dict[str, Any]) -> str:
    b1, b0 = c["brackets"]
    m, n = len(b1["Y"]), len(b1["Y"][0])
    out = [f"Claim: approximate symmetry of a target Y ({m} x {n}) near the G-invariant Y0 "
           f"({len(c['actions'])} generator(s) of G acting on labels and contexts):",
           f"  J*(Y)  in [{_f(b1['lower'])}, {_f(b1['upper'])}]  (a checked bracket);",
           f"  J*(Y0) in [{_f(b0['lower'])}, {_f(b0['upper'])}]  (a checked bracket);",
           f"  |J*(Y) - J*(Y0)| <= rho ||Y - Y0||_2 <= {_f(c['stability'])}  (||Y - Y0||_2 <= "
           f"{_f(c['s_delta'])}, rho <= {_f(b1['rho_up'])});"]
    if c["average"]:
        out.append(f"  Y0 is the group average of Y (checked), so the best G-invariant point "
                   f"for Y has loss J*(Y0) and its loss gap J*(Y0) - J*(Y) lies in "
                   f"[{_f(c['gap_lower'])}, {_f(c['gap_upper'])}];")
    out.append(f"  the file's G-invariant point Z0 = W0 H0 (Y0 bracket's pair, equivariant: "
               f"checked) satisfies ||C (Z0 - Z*)||_F^2 <= {_f(c['distance2'])} for the optimal "
               f"logits Z* of Y (C: column centring; strong convexity mu = {_f(c['mu'])} of the "
               "loss on the feasible set).")
    return "\n".join(out) + "\n"


def latex(c: dict[str, Any]) -> str:
    """A LaTeX paragraph of the claim."""
    if c["kind"] == KINDS[1]:
        b1, b0 = c["brackets"]
        out = ["% logitgeom certificate: layer-peeled-stability",
               "\\paragraph{Claim.} For the target $Y$ and its $G$-invariant neighbour $Y_0$:",
               f"\\[ J^*(Y) \\in [{_f(b1['lower'])},\\ {_f(b1['upper'])}] \\]",
               f"\\[ J^*(Y_0) \\in [{_f(b0['lower'])},\\ {_f(b0['upper'])}] \\]",
               "\\[ |J^*(Y) - J^*(Y_0)| \\le \\rho\\,\\|Y - Y_0\\|_2 \\le "
               f"{_f(c['stability'])} \\]"]
        if c["average"]:
            out.append("$Y_0$ is the group average of $Y$, so the best $G$-invariant point has "
                       "loss $J^*(Y_0)$ and")
            out.append(f"\\[ J^*(Y_0) - J^*(Y) \\in [{_f(c['gap_lower'])},\\ "
                       f"{_f(c['gap_upper'])}]. \\]")
        out.append("For the file's $G$-invariant logits $Z_0 = W_0 H_0$ and every optimum $Z^*$ "
                   f"of $Y$ (strong convexity $\\mu = {_f(c['mu'])}$, $C = I - J/m$):")
        out.append(f"\\[ \\|C(Z_0 - Z^*)\\|_F^2 \\le {_f(c['distance2'])}. \\]")
        return "\n".join(out) + "\n"
    lo, up = Fraction(c["lower"]), Fraction(c["upper"])
    tail = ("the relaxation is exact up to this width" if c["relaxation"] == "exact" else
            "this bounds the relaxation gap $J^*_D - J^*_{\\mathrm{conv}}$")
    return ("% logitgeom certificate: layer-peeled-rank-bracket\n"
            f"\\paragraph{{Claim.}} With hidden width $D = {c['d']}$, "
            f"$\\|W\\|_F^2 \\le {c['E_W']}$, $\\|H\\|_F^2 \\le {c['E_H']}$:\n"
            f"\\[ {_f(lo)} \\le J^*_{{\\mathrm{{conv}}}} \\le J^*_{{{c['d']}}} \\le {_f(up)} \\]\n"
            f"(width ${float(up - lo):.3g}$; {tail}).  The upper end is attained by the "
            f"certificate's $(W, H)$ with ${c['d']}$ columns; the lower end is the convex "
            "relaxation's Fenchel dual bound.\n")
