"""The bracket obligation every convex kind uses, and its judgements (standard library only).

One program covers every layer-peeled kind (docs/certified-optima.md,
docs/layer-peeled-family.md):

    J* = min sum_j w_j L(W h_j; y_j)  s.t. ||W||_F^2 <= E_W, sum_j beta_j ||h_j||^2 <= E_H,
         rows of W equal on B,

with L a :class:`Loss` given as a value: cross-entropy (:data:`CE`, here), MSE or BCE (with
the family kinds, :mod:`.check_family`); the plain bracket is cross-entropy with unit
weights and B empty, an orbit bracket the same with every column sum |G| times a sum over
bases (``N``).  :func:`bracket` discharges, in this order: budgets > 0,
precision, the primal norms, equal rows on B, ``upper`` >= the loss at W H (rigorous
exp/log), the dual point admissible, the spectral bound ``s^2 I - M diag(w^2/beta) M^T``
PSD (exact LDL^T), ``rho_up^2 >= E_W E_H``, ``lower`` <= the dual value - rho_up s, the
width, then the structure claims; and returns the frozen :class:`Reading` that rank,
stability and theorem obligations consume (they never parse the fields again).

Examples
--------
>>> psd_fails([[Fraction(1), Fraction(2)], [Fraction(2), Fraction(1)]])
1
>>> Y = ((Fraction(1, 2),), (Fraction(1, 2),))
>>> stochastic(Y, "target", "/Y")
"""

from __future__ import annotations

import decimal
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, NamedTuple

from . import kernel as K
from .reals import PRECISION, context, exp_up, log_up

#: The fields the bracket obligation reads (W too, read by each kind with its shape).
FIELDS = frozenset({"E_W", "E_H", "W", "s", "rho_up", "precision", "lower", "upper", "eps",
                    "eps_mode", "structure"})
#: Structure claims of the plain kinds and of the family kinds.
PLAIN_CLAIMS = ("circulant", "simplex-etf", "span-I-J", "invariant", "budget-inactive")
FAMILY_CLAIMS = ("invariant", "span-I-J", "simplex-etf", "equal-rows")
Spread = Callable[[list[list[int]]], list[list[Any]]]


@dataclass(frozen=True)
class Reading:
    """The fields of a checked bracket, read once (exact rationals)."""

    Y: K.Mat
    W: K.Mat
    H: K.Mat
    w: K.Vec
    beta: K.Vec
    B: tuple[int, ...]
    EW: Fraction
    EH: Fraction
    rho: Fraction
    lower: Fraction
    upper: Fraction
    #: the decimal context of the rigorous bounds (the certificate's precision)
    ctx: decimal.Context
    #: the structure claims made (an orbit bracket is invariant by construction) and the
    #: generators of the last ``invariant`` claim (of an orbit bracket: its group's)
    claims: frozenset[str] = frozenset()
    generators: tuple[tuple[int, ...], ...] = ()


# --------------------------------------------------------------------------- judgements
def read_perm(v: object, loc: str, m: int) -> tuple[int, ...]:
    """A permutation of 0..m-1 in image form (``generator`` otherwise)."""
    K.fail_if(not isinstance(v, list) or sorted(x if type(x) is int else -1 for x in v)
            != list(range(m)), "generator", loc, f"not a permutation of 0..{m - 1} in image form")
    return tuple(v)  # type: ignore[arg-type]


def read_perms(v: object, loc: str, m: int) -> list[tuple[int, ...]]:
    """A non-empty list of permutations of 0..m-1."""
    K.fail_if(not isinstance(v, list) or not v, "schema", loc, "a non-empty list of permutations")
    return [read_perm(g, f"{loc}/{r}", m) for r, g in enumerate(K.read_list(v, loc))]


def stochastic(M: Sequence[Sequence[Fraction]], check: str, loc: str) -> None:
    """Every column of M is a probability vector (entries >= 0 summing to exactly 1)."""
    for j, col in enumerate(zip(*M, strict=True)):
        K.fail_if(any(x < 0 for x in col) or sum(col) != 1, check, f"{loc}/column {j}",
                  f"column {j} is not a probability vector (entries >= 0 summing to exactly 1)")


def norm_at_most(M: Sequence[Sequence[Fraction]], bound: Fraction, loc: str, what: str,
                 w: Sequence[Fraction], N: int = 1) -> None:
    """N sum_j w_j ||M[:, j]||^2 <= bound (``budget``)."""
    total = sum((wj * sum((x * x for x in c), Fraction(0)) for wj, c in zip(w, zip(
        *M, strict=True), strict=True)), Fraction(0))
    K.fail_if(N * total > bound, "budget", loc, f"{what} exceeds its budget")


def psd_fails(S: Sequence[Sequence[Any]]) -> int | None:
    """Exact LDL^T of a symmetric rational matrix: None when PSD, else the index of the first
    bad pivot (negative, or zero with a non-zero column below it)."""
    T = [[Fraction(x) for x in r] for r in S]
    n = len(T)
    for k in range(n):
        p = T[k][k]
        if p < 0 or (p == 0 and any(T[i][k] for i in range(k + 1, n))):
            return k
        K.charge(4 * (n - k) ** 2 * K.weight(p.numerator, p.denominator))
        for i in (i for i in range(k + 1, n) if T[i][k]):  # T[i][k] != 0: so p != 0
            f = T[i][k] / p
            for j in range(k + 1, i + 1):  # the lower triangle only (T is symmetric)
                T[i][j] -= f * T[j][k]
    return None


def spectral_at_most(s: Fraction, G: Sequence[Sequence[Any]], D2: int, loc: str, what: str) -> None:
    """s >= 0 and s^2 I - G / D2 PSD (``spectral``): s bounds the spectral norm."""
    k = psd_fails([[s * s * D2 * (i == j) - x for j, x in enumerate(g)] for i, g in enumerate(G)])
    K.fail_if(s < 0 or k is not None, "spectral", loc,
              f"s < 0 or s^2 I - {what} is not PSD (pivot {k})")


def weighted_gram(M: Sequence[Sequence[Fraction]], q: Sequence[Fraction]
                  ) -> tuple[list[list[Any]], int]:
    """(G, D2) with G / D2 = M diag(q) M^T, G an integer matrix."""
    (Mi, D1), (qi, Dq) = K.scaled_matrix(M), K.scaled(q)
    K.charge(len(Mi) ** 2 * len(qi))
    return [[sum(a * b * c for a, b, c in zip(r, qi, s, strict=True)) for s in Mi]
            for r in Mi], D1 * D1 * Dq


class Loss(NamedTuple):
    """A loss of the bracket program: what a target or dual point must satisfy
    (``admissible(M, check, loc)``), a rational >= L(z / D; y) at integer logits z over
    the denominator D (``upper``), and a rational <= its conjugate term c(a; y)
    (``lower``).  ``upper`` is charged at the context's precision per logit (the cost of
    rigorous exp/log; an upper bound for a rational loss)."""

    admissible: Callable[[K.Mat, str, str], None]
    upper: Callable[[Sequence[int], Sequence[Fraction], int, decimal.Context], Fraction]
    lower: Callable[[Sequence[Fraction], Sequence[Fraction], decimal.Context], Fraction]


def _ce_upper(z: Sequence[int], y: Sequence[Fraction], D: int, ctx: decimal.Context) -> Fraction:
    """log sum exp(z) = M + log sum exp(z - M), each exp(z_i - M) <= 1; minus <y, z>."""
    top = max(z)
    S = sum((exp_up(Fraction(zi - top, D), ctx) for zi in z), Fraction(0))
    return Fraction(top, D) + log_up(S, ctx) - Fraction(K.dot(y, z)) / D


def entropy(terms: Sequence[Fraction], ctx: decimal.Context) -> Fraction:
    """A rational <= -sum_p p log p over the non-zero terms (0 log 0 = 0)."""
    return -sum((p * log_up(p, ctx) for p in terms if p), Fraction(0))


#: Cross-entropy: probability columns, the entropy as conjugate term.
CE = Loss(stochastic, _ce_upper, lambda a, y, ctx: entropy(a, ctx))


def loss_upper(Y: Sequence[Sequence[Fraction]], W: Sequence[Sequence[Fraction]],
               H: Sequence[Sequence[Fraction]], ctx: decimal.Context, loss: Loss = CE,
               w: Sequence[Fraction] | None = None) -> Fraction:
    """A rational >= sum_j w_j L(z_j; y_j) at Z = W H (exact product)."""
    (Wi, a), (Hi, b) = K.scaled_matrix(W), K.scaled_matrix(H)
    Zi = K.matmul(Wi, Hi)
    K.charge(len(Zi) * len(Zi[0]) * ctx.prec)
    return sum(((w[j] if w else 1) * loss.upper(z, y, a * b, ctx) for j, (z, y) in
                enumerate(zip(zip(*Zi, strict=True), zip(*Y, strict=True), strict=True))),
               Fraction(0))


def entropy_lower(A: Sequence[Sequence[Fraction]], Y: Sequence[Sequence[Fraction]],
                  w: Sequence[Fraction], ctx: decimal.Context, loss: Loss = CE) -> Fraction:
    """A rational <= sum_j w_j c(a_j; y_j): the conjugate terms of the loss at the dual
    point's columns (the entropy for cross-entropy)."""
    return sum((wj * loss.lower(a, y, ctx) for a, y, wj in zip(zip(*A, strict=True), zip(
        *Y, strict=True), w, strict=True)), Fraction(0))


def num(obj: K.Obj, key: str, loc: str) -> Fraction:
    """The canonical rational ``obj[key]``."""
    return K.read_number(K.get(obj, key, loc), f"{loc}/{key}")


def moved(M: Sequence[Sequence[Any]], g: Sequence[int], q: Sequence[int] = ()) -> bool:
    """Whether M[g i][q j] != M[i][j] for some entry (q: g when not given, M square)."""
    K.charge(len(M) * len(M[0]))
    return any(M[g[i]][(q or g)[j]] != x for i, row in enumerate(M) for j, x in enumerate(row))


def orbit_means(M: Sequence[Sequence[Any]], gens: Sequence[tuple[Sequence[int], Sequence[int]]]
                ) -> list[list[Any]]:
    """The mean of M over each orbit of pairs (i, j) -> (g i, q j), (g, q) in ``gens``: the
    group average of M (an orbit is the closure of a pair under the generators; each mean
    sums in the order of the pairs, so floats give the same result every time)."""
    m, n, mean = len(M), len(M[0]), {}  # type: int, int, dict[tuple[int, int], Any]
    K.charge(4 * m * n * len(gens))  # one image per pair and generator
    for start in [(i, j) for i in range(m) for j in range(n)]:
        if start not in mean:  # a new orbit: the closure of this pair under the generators
            orbit, todo = {start}, [start]
            while todo:
                i, j = todo.pop()
                new = {(g[i], q[j]) for g, q in gens} - orbit
                orbit |= new
                todo.extend(new)
            mean.update(dict.fromkeys(orbit, sum(M[i][j] for i, j in sorted(orbit)) / len(orbit)))
    return [[mean[i, j] for j in range(n)] for i in range(m)]  # Fraction / int: exact


# ---------------------------------------------------------------------- the obligation
def bracket(obj: K.Obj, loc: str, Y: K.Mat, W: K.Mat, H: K.Mat, A: K.Mat, loss: Loss = CE,
            w: K.Vec = (), beta: K.Vec = (), B: tuple[int, ...] = (), N: int = 1,
            spread: Spread | None = None, names: tuple[str, str] = ("H", "P"),
            claims: Sequence[str] = PLAIN_CLAIMS,
            group: Sequence[tuple[int, ...]] | None = None) -> Reading:
    """The bracket obligation (module docstring), on fields already read; returns the
    :class:`Reading`.  ``w``, ``beta``: the weights (default: all 1).  The spectral bound
    dominates M diag(w^2/beta) M^T = G / D2, M = A - Y with its rows on B averaged, or
    ``spread(G)`` / D2 (an orbit bracket: |G| x the orbital mean of G)."""
    w, beta = w or (Fraction(1),) * len(Y[0]), beta or (Fraction(1),) * len(Y[0])
    EW, EH = num(obj, "E_W", loc), num(obj, "E_H", loc)
    K.fail_if(EW <= 0 or EH <= 0, "budget", f"{loc}/E_W", "budgets must be > 0")
    prec = K.get(obj, "precision", loc)
    K.fail_if(type(prec) is not int or not PRECISION[0] <= prec <= PRECISION[1], "precision",
              f"{loc}/precision", f"precision must be an integer in {PRECISION}")
    ctx = context(prec)
    rho, s, lower, upper, eps = (num(obj, k, loc) for k in ("rho_up", "s", "lower", "upper", "eps"))
    norm_at_most(W, EW, f"{loc}/W", "||W||_F^2", [Fraction(1)] * len(W[0]))
    norm_at_most(H, EH, f"{loc}/{names[0]}", "sum_j beta_j ||h_j||^2", beta, N)
    K.fail_if(any(W[b] != W[B[0]] for b in B), "equal-rows", f"{loc}/W",
              "the rows of W on equal_rows are not equal")
    K.fail_if(N * loss_upper(Y, W, H, ctx, loss, w) > upper, "upper", f"{loc}/upper",
              "the loss at W H may exceed the stated upper bound")
    loss.admissible(A, "dual-admissible" if "equal-rows" in claims else "dual-stochastic",
                    f"{loc}/{names[1]}")
    M = [[p - y for p, y in zip(ra, ry, strict=True)] for ra, ry in zip(A, Y, strict=True)]
    mean = [sum(col, Fraction(0)) / len(B) for col in zip(*(M[b] for b in B), strict=True)]
    M = [mean if c in B else r for c, r in enumerate(M)]
    G, D2 = weighted_gram(M, [x * x / y for x, y in zip(w, beta, strict=True)])
    spectral_at_most(s, spread(G) if spread else G, D2, f"{loc}/s", "M diag(w^2/beta) M^T")
    K.fail_if(rho < 0 or rho * rho < EW * EH, "radius", f"{loc}/rho_up",
              "rho_up^2 < E_W E_H (or rho_up < 0)")
    K.fail_if(N * entropy_lower(A, Y, w, ctx, loss) - rho * s < lower, "lower", f"{loc}/lower",
              "the dual value - rho_up s may be below the stated lower bound")
    mode = K.read_choice(obj, "eps_mode", loc, ("absolute", "relative"))
    K.fail_if(upper - lower > eps * (abs(upper) if mode == "relative" else 1), "width",
              f"{loc}/eps", f"upper - lower exceeds the {mode} eps")
    made, gens = structure(obj, loc, Y, w, beta, W, claims, group)
    return Reading(Y, W, H, w, beta, B, EW, EH, rho, lower, upper, ctx, made, gens)


def structure(obj: K.Obj, loc: str, Y: K.Mat, w: K.Vec, beta: K.Vec, W: K.Mat,
              allowed: Sequence[str], group: Sequence[tuple[int, ...]] | None = None
              ) -> tuple[frozenset[str], tuple[tuple[int, ...], ...]]:
    """Each structure claim, verified exactly on G = W W^T (and on Y, w, beta); returns the
    claims' names and the generators of the last ``invariant`` claim (``group``: an orbit
    bracket's, invariant by construction)."""
    claims = K.read_list(K.get(obj, "structure", loc), f"{loc}/structure")
    m = len(W)
    G = K.matmul(W, list(zip(*W, strict=True))) if claims else []
    cols = Counter(zip(zip(*Y, strict=True), w, beta, strict=True))
    diag, off = {r[i] for i, r in enumerate(G)}, {x for i, r in enumerate(G) for x in r[:i]}
    last = tuple(group or ())
    for k, c in enumerate(claims):
        cl = f"{loc}/structure/{k}"
        K.only(c, {"claim", "generators"} | ({"labels"} if "equal-rows" in allowed else set()),
               cl, "a structure claim")
        name = K.get(c, "claim", cl)
        K.fail_if(name == "budget-inactive" and name in allowed, "structure-inactive", cl, "the "
                  "claim 'budget-inactive' is never accepted (P = Y, s = 0 prove the bracket only)")
        K.fail_if(name not in allowed, "schema", f"{cl}/claim",
                  f"unknown structure claim {ascii(name)[:40]}")
        K.fail_if(name == "circulant" and moved(G, [*range(1, m), 0]), "structure-circulant", cl,
                  "W W^T is not circulant")
        K.fail_if(name == "span-I-J" and max(len(diag), len(off)) > 1, "structure-span", cl,
                  "W W^T is not alpha I + beta (J - I)")
        K.fail_if(name == "simplex-etf" and (max(len(diag), len(off)) > 1 or G[0][0] <= 0 or sum(
            G[0]) != 0), "structure-etf", cl, "W W^T is not t (I - J/m) with t > 0 (rows sum to 0)")
        if name == "equal-rows":
            L = K.read_ints(K.get(c, "labels", cl), f"{cl}/labels", 0, m - 1)
            K.fail_if(len(L) < 2 or any(W[b] != W[L[0]] for b in L), "structure-equal-rows",
                      cl, "the rows of W on these labels are not all equal")
        if name == "invariant":
            last = tuple(read_perms(K.get(c, "generators", cl), f"{cl}/generators", m))
            for r, g in enumerate(last):
                K.fail_if(moved(G, g), "structure-invariant", f"{cl}/generators/{r}",
                          f"W W^T is not invariant under generator {r}")
                K.charge(len(cols) * m)  # g preserves the multiset of columns iff g^-1 does
                image = {(tuple(col[i] for i in g), a, b): n for (col, a, b), n in cols.items()}
                K.fail_if(image != cols, "target-invariant", f"{cl}/generators/{r}",
                          f"generator {r} does not preserve the columns of Y (with w, beta)")
    return frozenset({c["claim"] for c in claims} | ({"invariant"} if group else set())), last
