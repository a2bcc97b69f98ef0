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
from . import kernel as K

__all__ = ["KIND", "FIELDS", "check"]

KIND = "layer-peeled-stability"
FIELDS = {"brackets", "actions", "average", "s_delta", "stability", "gap_lower", "gap_upper",
          "t", "mu", "distance2"}


def _num(obj: dict, key: str, loc: str) -> Fraction:
    return K.read_field(K.read_number, obj, key, loc)


def _perm(p: list, size: int, loc: str) -> tuple:
    K.fail_if(not isinstance(p, list) or sorted(x if type(x) is int else -1 for x in p)
              != list(range(size)), "generator", loc,
              f"not a permutation of 0..{size - 1} in image form")
    return tuple(p)


def _pair_orbits(m: int, n: int, gens: list) -> list[int]:
    """Union-find labels of the orbits of the generated group on the m n label-context pairs."""
    parent = list(range(m * n))

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    K.charge(m * n * (len(gens) + 1))
    for g, q in gens:
        for i in range(m):
            for j in range(n):
                a, b = find(i * n + j), find(g[i] * n + q[j])
                if a != b:
                    parent[a] = b
    return [find(k) for k in range(m * n)]


def check(obj: dict, loc: str = "") -> None:
    """Verify a ``layer-peeled-stability`` certificate; raise :class:`Fail` on the first failure."""
    br = K.read_list(K.get(obj, "brackets", loc), f"{loc}/brackets", 2)
    for k, b in enumerate(br):
        bl = f"{loc}/brackets/{k}"
        K.fail_if(K.header(b, bl, (CB.KINDS[0],)) != CB.KINDS[0], "schema", bl, "a bracket")
        K.only(b, K.COMMON | CB.FIELDS[CB.KINDS[0]], bl, "a layer-peeled-bracket")
        CB.check(b, bl)
    b1, b0 = br
    Y = K.read_matrix(b1["Y"], f"{loc}/brackets/0/Y")
    Y0 = K.read_matrix(b0["Y"], f"{loc}/brackets/1/Y")
    m, n = len(Y), len(Y[0])
    K.fail_if(len(Y0) != m or len(Y0[0]) != n, "shape", f"{loc}/brackets/1/Y",
              "Y0 and Y differ in shape")
    for key in ("E_W", "E_H", "rho_up"):
        K.fail_if(Fraction(b1[key]) != Fraction(b0[key]), "schema", f"{loc}/brackets/1/{key}",
                  f"the two brackets differ in {key}")
    rho = Fraction(b1["rho_up"])
    W0 = K.read_matrix(b0["W"], f"{loc}/brackets/1/W")
    H0 = K.read_matrix(b0["H"], f"{loc}/brackets/1/H")
    K.fail_if(len(W0[0]) != m, "shape", f"{loc}/brackets/1/W", "W0 must be m x m (equivariant)")
    acts = K.read_list(K.get(obj, "actions", loc), f"{loc}/actions")
    K.fail_if(not acts, "schema", f"{loc}/actions", "at least one generator")
    gens = []
    for r, a in enumerate(acts):
        al = f"{loc}/actions/{r}"
        K.only(a, {"labels", "contexts"}, al, "a generator")
        gens.append((_perm(K.get(a, "labels", al), m, f"{al}/labels"),
                     _perm(K.get(a, "contexts", al), n, f"{al}/contexts")))
    K.charge(len(gens) * (m * n + m * m) * m)
    for r, (g, q) in enumerate(gens):
        al = f"{loc}/actions/{r}"
        K.fail_if(any(Y0[g[i]][q[j]] != Y0[i][j] for i in range(m) for j in range(n)),
                  "target-invariant", al, "Y0 is not invariant under this generator")
        K.fail_if(any(W0[g[i]][g[k]] != W0[i][k] for i in range(m) for k in range(m)),
                  "structure-invariant", al, "W0 does not commute with this generator")
        K.fail_if(any(H0[g[k]][q[j]] != H0[k][j] for k in range(m) for j in range(n)),
                  "structure-invariant", al, "H0 is not equivariant under this generator")
    average = K.get(obj, "average", loc)
    K.fail_if(type(average) is not bool, "schema", f"{loc}/average", "average is true or false")
    if average:
        lab = _pair_orbits(m, n, gens)
        tot: dict[int, Fraction] = {}
        cnt: dict[int, int] = {}
        for k, x in enumerate(v for row in Y for v in row):
            tot[lab[k]] = tot.get(lab[k], Fraction(0)) + x
            cnt[lab[k]] = cnt.get(lab[k], 0) + 1
        K.fail_if(any(Y0[k // n][k % n] != tot[lab[k]] / cnt[lab[k]] for k in range(m * n)),
                  "average", f"{loc}/average", "Y0 is not the group average of Y")
    s = _num(obj, "s_delta", loc)
    Bi, D = K.scaled_matrix([[a - b for a, b in zip(r1, r0, strict=True)]
                             for r1, r0 in zip(Y, Y0, strict=True)])
    G = K.matmul(Bi, [list(c) for c in zip(*Bi, strict=True)])
    piv = K.psd_fails([[s * s * D * D * (i == j) - x for j, x in enumerate(g)]
                       for i, g in enumerate(G)])
    K.fail_if(s < 0 or piv is not None, "spectral", f"{loc}/s_delta",
              f"s_delta < 0 or s_delta^2 I - (Y - Y0)(Y - Y0)^T is not PSD (pivot {piv})")
    stab = _num(obj, "stability", loc)
    K.fail_if(stab < rho * s, "stability", f"{loc}/stability", "stability < rho_up s_delta")
    L1, U1 = Fraction(b1["lower"]), Fraction(b1["upper"])
    L0, U0 = Fraction(b0["lower"]), Fraction(b0["upper"])
    if average:
        gl, gu = _num(obj, "gap_lower", loc), _num(obj, "gap_upper", loc)
        K.fail_if(gu < min(U0 - L1, stab), "gap", f"{loc}/gap_upper",
                  "gap_upper < min(U(Y0) - L(Y), stability)")
        K.fail_if(gl > max(Fraction(0), L0 - U1), "gap", f"{loc}/gap_lower",
                  "gap_lower > max(0, L(Y0) - U(Y))")
    else:
        K.fail_if("gap_lower" in obj or "gap_upper" in obj, "schema", f"{loc}/gap_lower",
                  "the gap to the best G-invariant point is stated only when Y0 is the "
                  "group average of Y")
    t, mu, dist2 = _num(obj, "t", loc), _num(obj, "mu", loc), _num(obj, "distance2", loc)
    K.fail_if(t < 0 or t * t < 2 * rho * rho, "strong-convexity", f"{loc}/t",
              "t < sqrt(2) rho_up")
    ctx = CB.context(int(b1["precision"]))
    K.fail_if(mu <= 0 or mu * (1 + (m - 1) * CB.exp_up(t, ctx)) > 1, "strong-convexity",
              f"{loc}/mu", "mu > 1 / (1 + (m - 1) exp(t)) (or mu <= 0)")
    cross = CB.loss_upper(Y, W0, H0, ctx)
    K.fail_if(dist2 * mu < 2 * (cross - L1), "distance", f"{loc}/distance2",
              "distance2 < 2 (J_Y(W0 H0) - L(Y)) / mu")
