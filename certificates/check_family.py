"""Checker of the layer-peeled family brackets: weighted columns, per-column feature budgets,
and the losses CE, MSE and BCE; and of the minority-collapse theorems built on them.

Standard library only.  Derivations: docs/layer-peeled-family.md; format: certificates/SPEC.md
(section "layer-peeled family").  Kinds and losses:
``layer-peeled-weighted-bracket`` (cross-entropy), ``layer-peeled-mse-bracket``
(L(z; y) = ||z - y||^2 / 2), ``layer-peeled-bce-bracket`` (sum_i log(1 + e^z_i) - y_i z_i).

Proof obligation of a bracket: Y (m x n), weights w_j > 0, budget weights beta_j > 0,
budgets E_W, E_H > 0, a label set B (``equal_rows``, empty for the plain program), a primal
pair W (m x d), H (d x n), a dual A (m x n), s and rho_up:
||W||_F^2 <= E_W; sum_j beta_j ||h_j||^2 <= E_H; the rows of W on B equal;
upper >= sum_j w_j L(z_j; y_j) at Z = W H (rigorous exp/log); A admissible (CE: probability
columns, BCE: entries in [0, 1]); with M = Pi (A - Y) (rows on B replaced by their mean),
s^2 I - M diag(w^2 / beta) M^T PSD (exact LDL^T); rho_up^2 >= E_W E_H;
lower <= sum_j w_j c(a_j; y_j) - rho_up s (c: entropy, (||y||^2 - ||a||^2)/2, binary
entropy); the width; the structure claims.  Then lower <= J*_B <= upper, J*_B the optimum
over W with equal rows on B (over all W when B is empty).

``layer-peeled-family-theorem``:
``minority-separation``: parts (plain bracket, bracket restricted to B) of one program;
upper_0 < lower_1 proves that no feasible point with equal classifiers on B is optimal.
``minority-collapse``: parts (restricted at radius rho_0, restricted at rho_1 > rho_0),
Y = I, w and beta constant on B; (lower_0 - upper_1) / (rho_1 - rho_0) >= w_B / sqrt(beta_B)
proves that some optimum of the plain program at rho_0 has equal classifiers on B.

Examples
--------
>>> cert = {"format": "logitgeom-certificate", "version": 1,
...         "kind": "layer-peeled-mse-bracket", "Y": [["1"]], "E_W": "1", "E_H": "1",
...         "weights": ["1"], "h_budget": ["1"], "equal_rows": [], "W": [["1"]],
...         "H": [["1"]], "A": [["1"]], "s": "0", "rho_up": "1", "precision": 30,
...         "lower": "0", "upper": "0", "eps": "0", "eps_mode": "absolute", "structure": []}
>>> check(cert)
"""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

from . import kernel as K
from .check_bracket import context, exp_up, log_up

__all__ = ["KINDS", "LOSS_OF", "THEOREMS", "FIELDS", "check", "check_theorem", "bounds"]

LOSS_OF = {"layer-peeled-weighted-bracket": "ce", "layer-peeled-mse-bracket": "mse",
           "layer-peeled-bce-bracket": "bce"}
THEOREM_KIND = "layer-peeled-family-theorem"
KINDS = (*LOSS_OF, THEOREM_KIND)
THEOREMS = ("minority-separation", "minority-collapse")
STRUCTURES = ("invariant", "span-I-J", "simplex-etf", "equal-rows")
PRECISION = (20, 200)
_BRACKET_FIELDS = {"Y", "E_W", "E_H", "weights", "h_budget", "equal_rows", "W", "H", "A", "s",
                   "rho_up", "precision", "lower", "upper", "eps", "eps_mode", "structure"}
FIELDS = {**{k: _BRACKET_FIELDS for k in LOSS_OF},
          THEOREM_KIND: {"theorem", "parts", "label"}}


def _num(obj, key, loc) -> Fraction:
    return K.read_field(K.read_number, obj, key, loc)


def _labels(obj, loc, m) -> tuple:
    v = K.get(obj, "equal_rows", loc)
    K.fail_if(not isinstance(v, list), "schema", f"{loc}/equal_rows", "a list of labels")
    B = K.read_ints(v, f"{loc}/equal_rows", 0, m - 1) if v else ()
    K.fail_if(list(B) != sorted(set(B)) or len(B) == 1, "schema", f"{loc}/equal_rows",
              "equal_rows is empty or at least two distinct labels in increasing order")
    return tuple(B)


# ------------------------------------------------------------------ the loss bounds
def _column_upper(loss, z, y, D, ctx) -> Fraction:
    """A rational >= L(z / D; y) for integer logits z over the denominator D."""
    if loss == "mse":
        return sum((Fraction(zi, D) - yi) ** 2 for zi, yi in zip(z, y, strict=True)) / 2
    if loss == "ce":
        top = max(z)
        S = sum((exp_up(Fraction(zi - top, D), ctx) for zi in z), Fraction(0))
        lin = sum((yi * zi for yi, zi in zip(y, z, strict=True)), Fraction(0))
        return Fraction(top, D) + log_up(S, ctx) - lin / D
    total = Fraction(0)  # softplus(t) = max(t, 0) + log(1 + exp(-|t|))
    for zi, yi in zip(z, y, strict=True):
        t = Fraction(zi, D)
        total += max(t, Fraction(0)) + log_up(1 + exp_up(-abs(t), ctx), ctx) - yi * t
    return total


def _column_constant(loss, a, y, ctx) -> Fraction:
    """A rational <= c(a; y): entropy, (||y||^2 - ||a||^2) / 2 or the binary entropy."""
    if loss == "mse":
        return (sum(x * x for x in y) - sum(x * x for x in a)) / 2
    terms = [p for p in a if p] if loss == "ce" else \
        [p for q in a for p in (q, 1 - q) if p]
    return -sum((p * log_up(p, ctx) for p in terms), Fraction(0))


def bounds(obj, loc="") -> tuple[Fraction, Fraction]:
    """(a rational >= sum_j w_j L(z_j; y_j) at Z = W H, a rational <= sum_j w_j c(a_j; y_j)
    - rho_up s): the checker's own bounds, which the emitter states as upper and lower."""
    loss = LOSS_OF[obj["kind"]]
    Y = K.read_field(K.read_matrix, obj, "Y", loc)
    m, n = len(Y), len(Y[0])
    w = K.read_field(K.read_vector, obj, "weights", loc, n)
    W = K.read_field(K.read_matrix, obj, "W", loc, rows=m)
    H = K.read_field(K.read_matrix, obj, "H", loc, rows=len(W[0]), cols=n)
    A = K.read_field(K.read_matrix, obj, "A", loc, rows=m, cols=n)
    prec = K.get(obj, "precision", loc)
    K.fail_if(type(prec) is not int or not PRECISION[0] <= prec <= PRECISION[1], "precision",
              f"{loc}/precision", f"precision must be an integer in {PRECISION}")
    ctx = context(prec)
    (Wi, a), (Hi, b) = K.scaled_matrix(W), K.scaled_matrix(H)
    Zi, D = K.matmul(Wi, Hi), a * b
    K.charge(m * n * (prec if loss != "mse" else 1))
    cols = list(zip(*Zi, strict=True))
    ycols = list(zip(*Y, strict=True))
    acols = list(zip(*A, strict=True))
    upper = sum((w[j] * _column_upper(loss, cols[j], ycols[j], D, ctx) for j in range(n)),
                Fraction(0))
    const = sum((w[j] * _column_constant(loss, acols[j], ycols[j], ctx) for j in range(n)),
                Fraction(0))
    return upper, const - _num(obj, "rho_up", loc) * _num(obj, "s", loc)


# --------------------------------------------------------------------------- brackets
def check(obj, loc="") -> None:
    """Verify a family bracket (any of the three kinds); raise ``Fail`` on the first failure."""
    loss = LOSS_OF[obj["kind"]]
    Y = K.read_field(K.read_matrix, obj, "Y", loc)
    m, n = len(Y), len(Y[0])
    cols = list(zip(*Y, strict=True))
    if loss == "ce":
        for j, c in enumerate(cols):
            K.fail_if(any(x < 0 for x in c) or sum(c) != 1, "target", f"{loc}/Y/column {j}",
                      f"column {j} is not a probability vector")
    if loss == "bce":
        K.fail_if(any(not 0 <= x <= 1 for r in Y for x in r), "target", f"{loc}/Y",
                  "BCE targets must lie in [0, 1]")
    w = K.read_field(K.read_vector, obj, "weights", loc, n)
    beta = K.read_field(K.read_vector, obj, "h_budget", loc, n)
    K.fail_if(any(x <= 0 for x in w), "weights", f"{loc}/weights", "weights must be > 0")
    K.fail_if(any(x <= 0 for x in beta), "weights", f"{loc}/h_budget", "h_budget must be > 0")
    B = _labels(obj, loc, m)
    EW, EH = _num(obj, "E_W", loc), _num(obj, "E_H", loc)
    K.fail_if(EW <= 0 or EH <= 0, "budget", f"{loc}/E_W", "budgets must be > 0")
    W = K.read_field(K.read_matrix, obj, "W", loc, rows=m)
    H = K.read_field(K.read_matrix, obj, "H", loc, rows=len(W[0]), cols=n)
    A = K.read_field(K.read_matrix, obj, "A", loc, rows=m, cols=n)
    K.fail_if(sum((x * x for r in W for x in r), Fraction(0)) > EW, "budget", f"{loc}/W",
              "||W||_F^2 > E_W")
    hn = sum((beta[j] * sum((r[j] * r[j] for r in H), Fraction(0)) for j in range(n)),
             Fraction(0))
    K.fail_if(hn > EH, "budget", f"{loc}/H", "sum_j beta_j ||h_j||^2 > E_H")
    K.fail_if(any(W[b] != W[B[0]] for b in B), "equal-rows", f"{loc}/W",
              "the rows of W on equal_rows are not equal")
    acols = list(zip(*A, strict=True))
    if loss == "ce":
        for j, c in enumerate(acols):
            K.fail_if(any(x < 0 for x in c) or sum(c) != 1, "dual-admissible",
                      f"{loc}/A/column {j}", f"column {j} of A is not a probability vector")
    if loss == "bce":
        K.fail_if(any(not 0 <= x <= 1 for r in A for x in r), "dual-admissible", f"{loc}/A",
                  "the entries of A must lie in [0, 1]")
    upper_c, lower_c = bounds(obj, loc)
    lower, upper = _num(obj, "lower", loc), _num(obj, "upper", loc)
    K.fail_if(upper_c > upper, "upper", f"{loc}/upper", "J(W H) may exceed the stated upper bound")
    s, rho = _num(obj, "s", loc), _num(obj, "rho_up", loc)
    M = [[p - y for p, y in zip(ra, ry, strict=True)] for ra, ry in zip(A, Y, strict=True)]
    if B:
        mean = [sum((M[b][j] for b in B), Fraction(0)) / len(B) for j in range(n)]
        for b in B:
            M[b] = list(mean)
    Mi, D1 = K.scaled_matrix(M)
    q = [x * x / y for x, y in zip(w, beta, strict=True)]
    qi, D2 = K.scaled(q)
    K.charge(m * m * n)
    G = [[sum(Mi[i][j] * qi[j] * Mi[k][j] for j in range(n)) for k in range(m)] for i in range(m)]
    k = K.psd_fails([[s * s * D1 * D1 * D2 * (i == j) - x for j, x in enumerate(g)]
                     for i, g in enumerate(G)])
    K.fail_if(s < 0 or k is not None, "spectral", f"{loc}/s",
              f"s < 0 or s^2 I - M diag(w^2/beta) M^T is not PSD (pivot {k})")
    K.fail_if(rho < 0 or rho * rho < EW * EH, "radius", f"{loc}/rho_up",
              "rho_up^2 < E_W E_H (or rho_up < 0)")
    K.fail_if(lower_c < lower, "lower", f"{loc}/lower",
              "sum_j w_j c(a_j; y_j) - rho_up s may be below the stated lower bound")
    eps, mode = _num(obj, "eps", loc), K.get(obj, "eps_mode", loc)
    K.fail_if(mode not in ("absolute", "relative"), "schema", f"{loc}/eps_mode",
              "eps_mode is 'absolute' or 'relative'")
    K.fail_if(upper - lower > eps * (abs(upper) if mode == "relative" else 1), "width",
              f"{loc}/eps", f"upper - lower exceeds the {mode} eps")
    _structure(obj, loc, Y, w, beta, W)


def _structure(obj, loc, Y, w, beta, W) -> None:
    claims = K.get(obj, "structure", loc)
    K.fail_if(not isinstance(claims, list), "schema", f"{loc}/structure",
              "structure is a list of claims")
    m = len(W)
    G = K.matmul(W, [list(c) for c in zip(*W, strict=True)]) if claims else []
    cols = Counter(zip(zip(*Y, strict=True), w, beta, strict=True))
    for k, c in enumerate(claims):
        cl = f"{loc}/structure/{k}"
        K.only(c, {"claim", "generators", "labels"}, cl, "a structure claim")
        name = K.get(c, "claim", cl)
        K.fail_if(name not in STRUCTURES, "schema", f"{cl}/claim",
                  f"unknown structure claim {ascii(name)[:40]}")
        if name == "span-I-J":
            K.fail_if(len({G[i][i] for i in range(m)}) > 1 or len(
                {x for i, r in enumerate(G) for j, x in enumerate(r) if i != j}) > 1,
                "structure-span", cl, "W W^T is not alpha I + beta (J - I)")
        if name == "simplex-etf":
            t = G[0][0] * m / (m - 1) if m > 1 else Fraction(0)
            K.fail_if(t <= 0 or any(G[i][j] != t * ((i == j) - Fraction(1, m))
                                    for i in range(m) for j in range(m)),
                      "structure-etf", cl, "W W^T is not t (I - J/m) with t > 0")
        if name == "equal-rows":
            L = K.read_ints(K.get(c, "labels", cl), f"{cl}/labels", 0, m - 1)
            K.fail_if(len(L) < 2 or any(W[b] != W[L[0]] for b in L), "structure-equal-rows",
                      cl, "the rows of W on these labels are not all equal")
        if name == "invariant":
            gens = K.get(c, "generators", cl)
            K.fail_if(not isinstance(gens, list) or not gens, "schema", f"{cl}/generators",
                      "a non-empty list of permutations")
            for r, g in enumerate(gens):
                K.fail_if(not isinstance(g, list) or sorted(x if type(x) is int else -1
                                                            for x in g) != list(range(m)),
                          "generator", f"{cl}/generators/{r}",
                          f"not a permutation of 0..{m - 1} in image form")
                K.charge(m * m + len(cols) * m)
                K.fail_if(any(G[g[i]][g[j]] != x for i, row in enumerate(G)
                              for j, x in enumerate(row)), "structure-invariant",
                          f"{cl}/generators/{r}", f"W W^T is not invariant under generator {r}")
                moved = {(tuple(map(col.__getitem__, g)), a, b): n
                         for (col, a, b), n in cols.items()}
                K.fail_if(moved != cols, "target-invariant", f"{cl}/generators/{r}",
                          f"generator {r} does not preserve the columns of Y with their "
                          "weights and budgets")


# --------------------------------------------------------------------------- theorems
def _rho_down(EW: Fraction, EH: Fraction, bits: int = 80) -> Fraction:
    """A rational <= sqrt(E_W E_H)."""
    return Fraction(math.isqrt(math.floor(EW * EH * 4 ** bits)), 2 ** bits)


def check_theorem(obj, loc, dispatch) -> None:
    """Verify a ``layer-peeled-family-theorem``: each part is checked by ``dispatch`` (the
    checker's own dispatch), then the theorem's hypotheses and inequality."""
    name = K.get(obj, "theorem", loc)
    K.fail_if(name not in THEOREMS, "unsupported-kind", f"{loc}/theorem",
              f"unknown theorem {ascii(name)[:40]}")
    parts = K.read_field(K.read_list, obj, "parts", loc)
    K.fail_if(len(parts) != 2 or any(not isinstance(p, dict) or p.get("kind") not in LOSS_OF
                                     for p in parts), "theorem-parts", f"{loc}/parts",
              f"{name} needs two family brackets")
    for n, p in enumerate(parts):
        dispatch(p, f"{loc}/parts/{n}")
    p0, p1 = parts

    def same(keys, what):
        K.fail_if(any(p0[k] != p1[k] for k in keys), "theorem-mismatch", f"{loc}/parts", what)

    same(("kind", "Y", "weights", "h_budget"), "both parts must be the same program (kind, Y, "
         "weights, h_budget)")
    Bs = [tuple(p["equal_rows"]) for p in parts]

    def rd(p, k):
        return K.read_number(p[k], f"{loc}/{k}")

    if name == "minority-separation":
        same(("E_W", "E_H"), "both parts must have the same budgets")
        K.fail_if(Bs[0] or not Bs[1], "theorem-mismatch", f"{loc}/parts",
                  "part 0 is the plain program (equal_rows empty), part 1 the restricted one")
        K.fail_if(rd(p0, "upper") >= rd(p1, "lower"), "theorem-inequality", f"{loc}/parts",
                  "upper of the plain program is not below lower of the restricted one")
        return
    K.fail_if(not Bs[0] or Bs[0] != Bs[1], "theorem-mismatch", f"{loc}/parts",
              "both parts must be restricted to the same labels")
    Y = K.read_matrix(p0["Y"], f"{loc}/parts/0/Y")
    m = len(Y)
    K.fail_if(len(Y[0]) != m or any(Y[i][j] != (i == j) for i in range(m) for j in range(m)),
              "theorem-hypothesis", f"{loc}/parts/0/Y", "minority-collapse needs Y = I")
    w = K.read_vector(p0["weights"], f"{loc}/parts/0/weights", m)
    beta = K.read_vector(p0["h_budget"], f"{loc}/parts/0/h_budget", m)
    B = Bs[0]
    K.fail_if(len({w[b] for b in B}) > 1 or len({beta[b] for b in B}) > 1,
              "theorem-hypothesis", f"{loc}/parts/0", "weights and h_budget must be constant "
              "on the restricted labels")
    r0 = _rho_down(rd(p0, "E_W"), rd(p0, "E_H"))
    r1 = rd(p1, "rho_up")
    K.fail_if(rd(p1, "E_W") * rd(p1, "E_H") <= rd(p0, "E_W") * rd(p0, "E_H"),
              "theorem-mismatch", f"{loc}/parts/1", "part 1 must have the larger radius")
    drop = rd(p0, "lower") - rd(p1, "upper")
    K.fail_if(drop <= 0 or drop * drop * beta[B[0]] < w[B[0]] ** 2 * (r1 - r0) ** 2,
              "theorem-inequality", f"{loc}/parts",
              "(lower_0 - upper_1) / (rho_1 - rho_0) < w_B / sqrt(beta_B): the secant slope "
              "does not exceed the weight of the separating direction")
