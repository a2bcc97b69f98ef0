"""Checker of the layer-peeled certificates: a proven bracket ``J* in [lower, upper]``.

Standard library only (``fractions``, ``decimal``); no float decides anything.  The
derivation of every inequality is in ``docs/certified-optima.md``, the format in
``certificates/SPEC.md`` (section "layer-peeled-bracket").

Proof obligation of ``layer-peeled-bracket``: for Y (m x n, exact probability columns),
budgets E_W, E_H, a primal pair W (m x d), H (d x n), a dual P (m x n, exact probability
columns), s and rho_up: ||W||_F^2 <= E_W, ||H||_F^2 <= E_H; upper >= J(W H) (rigorous
exp/log); rho_up^2 >= E_W E_H; s^2 I - (P - Y)(P - Y)^T is PSD (exact LDL^T in the kernel);
lower <= Ent(P) - rho_up s (rigorous log); upper - lower <= eps (absolute, or relative:
eps |upper|); then every structure claim on G = W W^T (and on Y) exactly.  The claim
``budget-inactive`` is never accepted: P = Y and s = 0 prove the value bracket, not that
the budget is inactive.

``layer-peeled-orbit-bracket``: the same with Y = [P_g y_b : g in G, b] never built; the
group order is computed (Schreier-Sims, work metered) and must equal the stated one.
``layer-peeled-theorem``: one bracket part whose claims meet a theorem's hypotheses.

Rigorous elementary functions: ``decimal`` at ``precision`` significant digits computes
``exp`` and ``ln`` correctly rounded; the argument is first rounded in the safe direction and
the result is widened by one unit in the last place, so every bound below is a true bound.

Examples
--------
>>> cert = {"format": "logitgeom-certificate", "version": 1, "kind": "layer-peeled-bracket",
...         "Y": [["1/2"], ["1/2"]], "E_W": "1", "E_H": "1", "W": [["0"], ["0"]],
...         "H": [["0"]], "P": [["1/2"], ["1/2"]], "s": "0", "rho_up": "1",
...         "precision": 30, "lower": "693147/1000000", "upper": "693149/1000000",
...         "eps": "1/100000", "eps_mode": "absolute", "structure": []}
>>> check(cert)
"""

from __future__ import annotations

import decimal
from collections import Counter
from fractions import Fraction

from . import kernel as K
from .groups import group_order, orbital_labels, orbital_mean

__all__ = ["KINDS", "THEOREMS", "check", "check_orbit", "theorem",
           "group_order", "orbital_labels", "orbital_mean", "exp_up", "log_up", "context",
           "loss_upper", "entropy_lower", "MAX_DEGREE"]

KINDS = ("layer-peeled-bracket", "layer-peeled-theorem", "layer-peeled-orbit-bracket")
#: theorem -> (structure claims its part must carry, what the generators must do)
THEOREMS = {"cyclic-circulant": ("circulant", "the cyclic shift"),
            "transitive-etf": ("simplex-etf", "a 2-homogeneous group"),
            "group-block-form": ("invariant", "any group")}
STRUCTURES = ("circulant", "simplex-etf", "span-I-J", "invariant")
PRECISION = (20, 200)  # allowed decimal precision (significant digits)
#: Largest permutation degree (labels m) of a group whose order is computed.
MAX_DEGREE = 4096
_NUMBERS = {"E_W", "E_H", "W", "s", "rho_up", "precision", "lower", "upper", "eps", "eps_mode",
            "structure"}
#: The fields of each bracket kind (besides the common ones), checked by the dispatch.
FIELDS = {"layer-peeled-bracket": _NUMBERS | {"Y", "H", "P"}, "layer-peeled-orbit-bracket":
          _NUMBERS | {"bases", "generators", "group_order", "H_bases", "P_bases"}}


def _num(obj, key, loc) -> Fraction:
    return K.read_field(K.read_number, obj, key, loc)


def _stochastic(M, check, loc):
    for j, col in enumerate(zip(*M, strict=True)):
        K.fail_if(any(x < 0 for x in col) or sum(col) != 1, check, f"{loc}/column {j}",
                  f"column {j} is not a probability vector (entries >= 0 summing to exactly 1)")


def _perms(gens, loc, m) -> list:
    K.fail_if(not isinstance(gens, list) or not gens, "schema", loc,
              "a non-empty list of permutations")
    for r, g in enumerate(gens):
        K.fail_if(not isinstance(g, list) or sorted(x if type(x) is int else -1 for x in g)
                  != list(range(m)), "generator", f"{loc}/{r}",
                  f"not a permutation of 0..{m - 1} in image form")
    return [tuple(g) for g in gens]


# ---------------------------------------------------------------- rigorous exp and log
def _dec(q: Fraction, ctx, up: bool) -> decimal.Decimal:
    """A decimal >= q (up) or <= q, at the context's precision (directed division)."""
    c = ctx.copy()
    c.rounding = decimal.ROUND_CEILING if up else decimal.ROUND_FLOOR
    K.charge(100 + ctx.prec ** 2 // 40 + K.weight(q))
    return c.divide(decimal.Decimal(q.numerator), decimal.Decimal(q.denominator))


def exp_up(q: Fraction, ctx) -> Fraction:
    """A rational >= exp(q): exp is increasing, round q up, widen the result by one ulp.
    Below -300 the bound 10^-100 > exp(-300) is used (no huge denominators)."""
    if q < -300:
        return Fraction(1, 10 ** 100)
    return Fraction(ctx.next_plus(ctx.exp(_dec(q, ctx, True))))


def log_up(q: Fraction, ctx) -> Fraction:
    """A rational >= log(q) for q > 0 (log is increasing; same rounding argument).  A zero
    result is exact (ln is 0 only at 1), so it is not widened to the tiniest decimal."""
    r = ctx.ln(_dec(q, ctx, True))
    return Fraction(ctx.next_plus(r) if r else r)


def context(prec: int):
    """The decimal context of the rigorous bounds at ``prec`` significant digits."""
    return decimal.Context(prec=prec, rounding=decimal.ROUND_HALF_EVEN,
                           Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)


def loss_upper(Y, W, H, ctx) -> Fraction:
    """A rational >= J(W H) = sum_j [log sum_i exp(z_ij) - y_j . z_j], with Z = W H exact."""
    (Wi, a), (Hi, b) = K.scaled_matrix(W), K.scaled_matrix(H)
    Zi, D = K.matmul(Wi, Hi), a * b  # Z = Zi / D exactly
    total = Fraction(0)
    for j, zc in enumerate(zip(*Zi, strict=True)):
        top = max(zc)  # log sum exp(z) = M + log sum exp(z - M); each exp(z_i - M) <= 1
        S = sum((exp_up(Fraction(z - top, D), ctx) for z in zc), Fraction(0))
        lin = sum((y * z for y, z in zip((r[j] for r in Y), zc, strict=True)), Fraction(0))
        total += Fraction(top, D) + log_up(S, ctx) - lin / D
    return total


def entropy_lower(P, ctx) -> Fraction:
    """A rational <= sum_ij -P_ij log P_ij (0 log 0 = 0): -p log p >= -p log_up(p)."""
    return -sum((p * log_up(p, ctx) for r in P for p in r if p), Fraction(0))


def _sq_frob(M) -> Fraction:
    return sum((x * x for r in M for x in r), Fraction(0))


# --------------------------------------------------------------------------- the bounds
def _bounds(obj, loc, Y, W, H, P, N, gram) -> None:
    """Shared by both bracket kinds, in order: the budgets, J(W H) <= upper, P stochastic,
    s^2 I - (P - Y)(P - Y)^T PSD (``gram()`` = (G, D2) with G = D2 (P - Y)(P - Y)^T), the
    radius, Ent(P) - rho s >= lower, the width; then the structure claims.  ``N``: |G|
    (each orbit bracket sum is |G| times the sum over its bases), 1 for a plain bracket."""
    EW, EH, orbit = _num(obj, "E_W", loc), _num(obj, "E_H", loc), obj["kind"] == KINDS[2]
    K.fail_if(EW <= 0 or EH <= 0, "budget", f"{loc}/E_W", "budgets must be > 0")
    prec = K.get(obj, "precision", loc)
    K.fail_if(type(prec) is not int or not PRECISION[0] <= prec <= PRECISION[1], "precision",
              f"{loc}/precision", f"precision must be an integer in {PRECISION}")
    ctx, rho, s = context(prec), _num(obj, "rho_up", loc), _num(obj, "s", loc)
    lower, upper = _num(obj, "lower", loc), _num(obj, "upper", loc)
    K.fail_if(_sq_frob(W) > EW, "budget", f"{loc}/W", "||W||_F^2 > E_W")
    K.fail_if(N * _sq_frob(H) > EH, "budget", f"{loc}/{'H_bases' if orbit else 'H'}",
              "|G| sum_b ||h_b||^2 > E_H" if orbit else "||H||_F^2 > E_H")
    K.fail_if(N * loss_upper(Y, W, H, ctx) > upper, "upper", f"{loc}/upper",
              "J(W H) may exceed the stated upper bound")
    _stochastic(P, "dual-stochastic", f"{loc}/{'P_bases' if orbit else 'P'}")
    G, D2 = gram()
    k = K.psd_fails([[s * s * D2 * (i == j) - x for j, x in enumerate(g)] for i, g in enumerate(G)])
    K.fail_if(s < 0 or k is not None, "spectral", f"{loc}/s",
              f"s < 0 or s^2 I - (P-Y)(P-Y)^T is not PSD (pivot {k})")
    K.fail_if(rho < 0 or rho * rho < EW * EH, "radius", f"{loc}/rho_up",
              "rho_up^2 < E_W E_H (or rho_up < 0)")
    K.fail_if(N * entropy_lower(P, ctx) - rho * s < lower, "lower", f"{loc}/lower",
              "Ent(P) - rho_up s may be below the stated lower bound")
    eps, mode = _num(obj, "eps", loc), K.get(obj, "eps_mode", loc)
    K.fail_if(mode not in ("absolute", "relative"), "schema", f"{loc}/eps_mode",
              "eps_mode is 'absolute' or 'relative'")
    K.fail_if(upper - lower > eps * (abs(upper) if mode == "relative" else 1), "width",
              f"{loc}/eps", f"upper - lower exceeds the {mode} eps")
    _structure(obj, loc, Y, W, orbit)


def _moved(M, g) -> bool:
    """Whether the permutation g does not preserve the square matrix M."""
    K.charge(len(M) ** 2)
    return any(M[g[i]][g[j]] != x for i, row in enumerate(M) for j, x in enumerate(row))


def _structure(obj, loc, Y, W, orbit) -> None:
    claims = K.get(obj, "structure", loc)
    K.fail_if(not isinstance(claims, list), "schema", f"{loc}/structure",
              "structure is a list of claims")
    m = len(W)
    G = K.matmul(W, [list(c) for c in zip(*W, strict=True)]) if claims else []
    cols = Counter(zip(*Y, strict=True))  # the columns of Y with their multiplicities
    for k, c in enumerate(claims):
        cl = f"{loc}/structure/{k}"
        K.only(c, {"claim", "generators"}, cl, "a structure claim")
        name = K.get(c, "claim", cl)
        K.fail_if(name == "budget-inactive", "structure-inactive", cl, "the claim "
                  "'budget-inactive' is not verifiable by this checker (P = Y and s = 0 prove "
                  "the bracket, not that the budget is inactive); it is never accepted")
        K.fail_if(name not in STRUCTURES or (orbit and name == "invariant"), "schema",
                  f"{cl}/claim", f"unknown structure claim {ascii(name)[:40]}"
                  + (" (orbit brackets are invariant by construction)" if orbit else ""))
        K.fail_if(name == "circulant" and any(G[i][j] != G[(i + 1) % m][(j + 1) % m] for i in
                  range(m) for j in range(m)), "structure-circulant", cl, "W W^T is not circulant")
        K.fail_if(name == "span-I-J" and (len({G[i][i] for i in range(m)}) > 1 or len(
                  {x for i, r in enumerate(G) for j, x in enumerate(r) if i != j}) > 1),
                  "structure-span", cl, "W W^T is not alpha I + beta (J - I)")
        if name == "simplex-etf":
            t = G[0][0] * m / (m - 1) if m > 1 else Fraction(0)
            K.fail_if(t <= 0 or any(G[i][j] != t * ((i == j) - Fraction(1, m))
                                    for i in range(m) for j in range(m)),
                      "structure-etf", cl, "W W^T is not t (I - J/m) with t > 0")
        if name == "invariant":
            for r, g in enumerate(_perms(K.get(c, "generators", cl), f"{cl}/generators", m)):
                K.fail_if(_moved(G, g), "structure-invariant", f"{cl}/generators/{r}",
                          f"W W^T is not invariant under generator {r}")
                K.charge(len(cols) * m)  # g preserves the multiset of columns iff g^-1 does
                moved = {tuple(map(col.__getitem__, g)): n for col, n in cols.items()}
                K.fail_if(moved != cols, "target-invariant", f"{cl}/generators/{r}",
                          f"generator {r} does not preserve the columns of Y")


def check(obj, loc="") -> None:
    """Verify a ``layer-peeled-bracket`` certificate; raise :class:`Fail` on the first failure."""
    Y = K.read_field(K.read_matrix, obj, "Y", loc)
    m, n = len(Y), len(Y[0])
    _stochastic(Y, "target", f"{loc}/Y")
    W = K.read_field(K.read_matrix, obj, "W", loc, rows=m)
    H = K.read_field(K.read_matrix, obj, "H", loc, rows=len(W[0]), cols=n)
    P = K.read_field(K.read_matrix, obj, "P", loc, rows=m, cols=n)

    def gram():  # D^2 (P-Y)(P-Y)^T on integers
        Bi, D = K.scaled_matrix([[p - y for p, y in zip(rp, ry, strict=True)]
                                 for rp, ry in zip(P, Y, strict=True)])
        return K.matmul(Bi, [list(c) for c in zip(*Bi, strict=True)]), D * D

    _bounds(obj, loc, Y, W, H, P, 1, gram)


# ----------------------------------------------------------- orbit brackets (implicit Y)
def check_orbit(obj, loc="") -> None:
    """Verify a ``layer-peeled-orbit-bracket``: Y = [P_g y_b : g in G, b] is never built.

    With W (m x m) invariant (W[g i][g j] = W[i][j] for every generator) and H's columns
    P_g h_b, column (g, b) of W H is P_g (W h_b); every column sum is |G| times a sum over the
    bases, and (P - Y)(P - Y)^T = |G| x the orbital mean of sum_b v_b v_b^T, v_b = p_b - y_b.
    """
    Yb = K.read_field(K.read_matrix, obj, "bases", loc)
    m = len(Yb[0])
    K.fail_if(m > MAX_DEGREE, "group-order", f"{loc}/bases", f"{m} labels: group orders are "
              f"computed for at most {MAX_DEGREE}")
    Y = [list(c) for c in zip(*Yb, strict=True)]  # m x B, one column per base
    _stochastic(Y, "target", f"{loc}/bases")
    gens = _perms(K.get(obj, "generators", loc), f"{loc}/generators", m)
    claimed = K.read_int(K.get(obj, "group_order", loc), f"{loc}/group_order")  # schema first
    K.fail_if(claimed != (N := group_order(gens, m)), "group-order", f"{loc}/group_order",
              f"the generators generate a group of order {N}")  # then the metered order
    W = K.read_field(K.read_matrix, obj, "W", loc, rows=m, cols=m)
    for n, g in enumerate(gens):
        K.fail_if(_moved(W, g), "structure-invariant", f"{loc}/generators/{n}",
                  f"W is not invariant under generator {n}")
    Hb, Pb = (K.read_field(K.read_matrix, obj, key, loc, rows=len(Yb), cols=m)
              for key in ("H_bases", "P_bases"))

    def gram():  # |G| x the orbital mean of sum_b v_b v_b^T
        V = [[p - y for p, y in zip(pb, yb, strict=True)] for pb, yb in zip(Pb, Yb, strict=True)]
        K.charge(m * m * len(V))
        M = orbital_mean([[sum((v[i] * v[j] for v in V), Fraction(0)) for j in range(m)]
                          for i in range(m)], gens)
        return [[N * x for x in row] for row in M], 1

    _bounds(obj, loc, Y, W, [list(c) for c in zip(*Hb, strict=True)],
            [list(c) for c in zip(*Pb, strict=True)], N, gram)


def _two_homogeneous(gens, m) -> bool:
    """Whether the group generated by ``gens`` is transitive on the labels and on unordered
    pairs of labels (2-homogeneous: every invariant symmetric matrix is alpha I + beta J, so
    the ETF argument applies; 2-transitive groups are the usual case).  With the orbitals
    (orbits on ordered pairs): one orbital on the diagonal, and every pair (i, j), i != j,
    in the orbital of (0, 1) or of (1, 0)."""
    lab = orbital_labels(m, gens)
    return m < 2 or (len({lab[i * m + i] for i in range(m)}) == 1 and
                     {lab[k] for k in range(m * m) if k % (m + 1)} <= {lab[1], lab[m]})


def theorem(name, part, loc) -> None:
    """The obligation of the ``layer-peeled-theorem`` ``name`` (its kinds and dispatch are
    :func:`logitgeom_certificates.check._theorem`'s): its one part, a bracket already checked at
    ``loc``, carries the claims and the generators the theorem's hypotheses need."""
    claims = {c["claim"]: c for c in part["structure"]}
    if part["kind"] == KINDS[2]:  # an orbit bracket is invariant under its group by design
        claims["invariant"] = {"generators": part["generators"]}
    m, need = len(part["W"]), THEOREMS[name][0]
    where = f"{loc}/structure"
    K.fail_if(need not in claims or "invariant" not in claims, "theorem-mismatch", where,
              f"{name} needs the claims '{need}' and 'invariant' (the group acting on Y)")
    gens = claims["invariant"]["generators"]
    K.fail_if(name == "cyclic-circulant" and [(i + 1) % m for i in range(m)] not in gens,
              "theorem-mismatch", where, "the cyclic shift [1, 2, ..., m-1, 0] must be among "
              "the generators")
    K.fail_if(name == "transitive-etf" and not _two_homogeneous(gens, m), "transitivity", where,
              "the generators do not act transitively on the labels and on unordered pairs "
              "(2-homogeneously)")

