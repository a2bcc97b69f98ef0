"""Checker of ``layer-peeled-stability``: approximate symmetry with a proven stability bound.

Standard library only.  Derivations: docs/beyond-symmetry.md, section 2.  The file holds two
``layer-peeled-bracket`` certificates (``brackets``: for Y, then for Y0, same budgets and
rho_up), the generators of a group G acting on labels and contexts (``actions``: pairs of
permutations in image form), and rational bounds.  Obligations, in order:

1. both brackets are valid (:func:`logitgeom_certificates.check_bracket.check`), same shape, E_W,
E_H,
   rho_up;
2. Y0 is G-invariant: Y0[g i][q j] = Y0[i][j] for every generator (g, q); the Y0 bracket's W0
   is m x m with W0[g i][g k] = W0[i][k] and H0[g k][q j] = H0[k][j], so Z0 = W0 H0 is
   G-invariant (the file's G-structured point);
3. ``average`` true: Y0 is the mean of Y over each orbit of G on label-context pairs (the group
   average, i.e. the orthogonal projection of Y on G-invariant matrices);
4. s_delta >= ||Y - Y0||_2: s_delta >= 0 and s_delta^2 I - (Y - Y0)(Y - Y0)^T PSD (exact LDL^T);
   stability >= rho_up s_delta;  then |J*(Y) - J*(Y0)| <= stability;
5. (no check: implied) L(Y) <= U(Y0) + stability and L(Y0) <= U(Y) + stability;
6. ``average`` true: gap_upper >= min(U(Y0) - L(Y), stability) and
   gap_lower <= max(0, L(Y0) - U(Y)): the best G-invariant point for Y has loss J*(Y0), and
   J*(Y0) - J*(Y) lies in [gap_lower, gap_upper];
7. t >= 0, t^2 >= 2 rho_up^2 (t >= sqrt(2) rho), 0 < mu <= 1 / (1 + (m - 1) exp_up(t)): the
   strong-convexity constant of the loss on centred logits over the feasible set;
8. distance2 >= 2 (U_cross - L(Y)) / mu, with U_cross >= J_Y(W0 H0) (rigorous exp/log): for every
   optimal Z* of Y's convex program, ||C (Z0 - Z*)||_F^2 <= distance2, C = I - J/m.
"""

from __future__ import annotations

from fractions import Fraction

from . import check_bracket as CB
from . import convex as C
from . import kernel as K
from .reals import exp_up

KIND = "layer-peeled-stability"
FIELDS = {"brackets", "actions", "average", "s_delta", "stability", "gap_lower", "gap_upper",
          "t", "mu", "distance2"}


def check(obj: K.Obj, loc: str, parts: K.Checker) -> None:
    """Verify a ``layer-peeled-stability`` certificate (module docstring), consuming the
    readings of its two brackets (each checked by ``parts``, the checker's dispatch)."""
    got = []
    for k, b in enumerate(K.read_list(K.get(obj, "brackets", loc), f"{loc}/brackets", 2)):
        K.header(b, f"{loc}/brackets/{k}", (CB.KINDS[0],))
        got.append(parts(b, f"{loc}/brackets/{k}"))
    r1, r0 = got
    assert isinstance(r1, C.Reading) and isinstance(r0, C.Reading)
    Y, Y0, W0, H0 = r1.Y, r0.Y, r0.W, r0.H
    m, n = len(Y), len(Y[0])
    K.fail_if(len(Y0) != m or len(Y0[0]) != n, "shape", f"{loc}/brackets/1/Y",
              "Y0 and Y differ in shape")
    for key, a, b in (("E_W", r1.EW, r0.EW), ("E_H", r1.EH, r0.EH), ("rho_up", r1.rho, r0.rho)):
        K.fail_if(a != b, "schema", f"{loc}/brackets/1/{key}", f"the two brackets differ in {key}")
    rho = r1.rho
    K.fail_if(len(W0[0]) != m, "shape", f"{loc}/brackets/1/W", "W0 must be m x m (equivariant)")
    acts = K.read_list(K.get(obj, "actions", loc), f"{loc}/actions")
    K.fail_if(not acts, "schema", f"{loc}/actions", "at least one generator")
    gens = []
    for r, a in enumerate(acts):
        al = f"{loc}/actions/{r}"
        K.only(a, {"labels", "contexts"}, al, "a generator")
        gens.append((C.read_perm(K.get(a, "labels", al), f"{al}/labels", m),
                     C.read_perm(K.get(a, "contexts", al), f"{al}/contexts", n)))
    for r, (g, q) in enumerate(gens):
        al = f"{loc}/actions/{r}"
        K.fail_if(C.moved(Y0, g, q), "target-invariant", al, "Y0 is not invariant under it")
        K.fail_if(C.moved(W0, g), "structure-invariant", al, "W0 does not commute with it")
        K.fail_if(C.moved(H0, g, q), "structure-invariant", al, "H0 is not equivariant under it")
    average = K.get(obj, "average", loc)
    K.fail_if(type(average) is not bool, "schema", f"{loc}/average", "average is true or false")
    K.fail_if(average and C.orbit_means(Y, gens) != list(map(list, Y0)), "average",
              f"{loc}/average", "Y0 is not the group average of Y")
    s = C.num(obj, "s_delta", loc)
    G, D2 = C.weighted_gram([[a - b for a, b in zip(x, y, strict=True)]
                             for x, y in zip(Y, Y0, strict=True)], (Fraction(1),) * n)
    C.spectral_at_most(s, G, D2, f"{loc}/s_delta", "(Y - Y0)(Y - Y0)^T")
    stab = C.num(obj, "stability", loc)
    K.fail_if(stab < rho * s, "stability", f"{loc}/stability", "stability < rho_up s_delta")
    if average:
        gl, gu = C.num(obj, "gap_lower", loc), C.num(obj, "gap_upper", loc)
        K.fail_if(gu < min(r0.upper - r1.lower, stab), "gap", f"{loc}/gap_upper",
                  "gap_upper < min(U(Y0) - L(Y), stability)")
        K.fail_if(gl > max(Fraction(0), r0.lower - r1.upper), "gap", f"{loc}/gap_lower",
                  "gap_lower > max(0, L(Y0) - U(Y))")
    else:
        K.fail_if("gap_lower" in obj or "gap_upper" in obj, "schema", f"{loc}/gap_lower",
                  "the gap to the best invariant point needs Y0 the group average of Y")
    t, mu, dist2 = C.num(obj, "t", loc), C.num(obj, "mu", loc), C.num(obj, "distance2", loc)
    K.fail_if(t < 0 or t * t < 2 * rho * rho, "strong-convexity", f"{loc}/t", "t < sqrt(2) rho_up")
    K.fail_if(mu <= 0 or mu * (1 + (m - 1) * exp_up(t, r1.ctx)) > 1, "strong-convexity",
              f"{loc}/mu", "mu > 1 / (1 + (m - 1) exp(t)) (or mu <= 0)")
    K.fail_if(dist2 * mu < 2 * (C.loss_upper(Y, W0, H0, r1.ctx) - r1.lower), "distance",
              f"{loc}/distance2", "distance2 < 2 (J_Y(W0 H0) - L(Y)) / mu")


KIND_TABLE = {KIND: (check, FIELDS)}
