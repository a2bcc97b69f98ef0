"""Checker of the layer-peeled certificates: a proven bracket ``J* in [lower, upper]``.

Standard library only (``fractions``, ``decimal``); imports nothing from ``engine``; no
float decides anything.  The derivation of every inequality is in
``docs/certified-optima.md``; the format is in ``certificates/SPEC.md`` (section
"layer-peeled-bracket").  Two kinds:

``layer-peeled-bracket``
    Y (m x n, exact probability columns), budgets E_W, E_H, a primal pair W (m x d), H (d x n),
    a dual matrix P (m x n, exact probability columns), s, rho_up and a claimed bracket.
    Verified: ||W||_F^2 <= E_W, ||H||_F^2 <= E_H; upper >= J(W H) (rigorous exp/log);
    rho_up^2 >= E_W E_H; s^2 I - (P - Y)(P - Y)^T >= 0 (exact LDL^T); lower <= Ent(P) -
    rho_up s (rigorous log); upper - lower <= eps (absolute, or relative: eps * upper);
    then every structure claim on G = W W^T (and on Y) exactly.
``layer-peeled-theorem``
    One bracket part plus a theorem name whose hypotheses (group action on Y) and conclusion
    (structure of W W^T) the part must carry.

Rigorous elementary functions: ``decimal`` at ``precision`` significant digits computes
``exp`` and ``ln`` correctly rounded (round-half-even); the argument is first rounded in the
safe direction and the result is widened by one unit in the last place (``next_plus`` /
``next_minus``), so every bound below is a true bound.

Examples
--------
>>> cert = {"format": "logitgeom-certificate", "version": 1, "kind": "layer-peeled-bracket",
...         "Y": [["1/2"], ["1/2"]], "E_W": "1", "E_H": "1", "W": [["0"], ["0"]],
...         "H": [["0"]], "P": [["1/2"], ["1/2"]], "s": "0", "rho_up": "1",
...         "precision": 30, "lower": "693147/1000000", "upper": "693149/1000000",
...         "eps": "1/100000", "eps_mode": "absolute", "structure": []}
>>> check(cert)
>>> bounds(cert)[0] < Fraction(693149, 10**6)
True
"""

from __future__ import annotations

import decimal
from collections import Counter
from fractions import Fraction

from certificates.errors import Fail

__all__ = ["KINDS", "THEOREMS", "CHECKERS", "check", "check_orbit", "check_theorem", "bounds",
           "explain", "latex", "group_order", "orbital_labels"]

KINDS = ("layer-peeled-bracket", "layer-peeled-theorem", "layer-peeled-orbit-bracket")
#: theorem -> (structure claims its part must carry, what the generators must do)
THEOREMS = {"cyclic-circulant": ("circulant", "the cyclic shift"),
            "transitive-etf": ("simplex-etf", "a 2-homogeneous group"),
            "group-block-form": ("invariant", "any group")}
STRUCTURES = ("circulant", "simplex-etf", "span-I-J", "invariant", "budget-inactive")
PRECISION = (20, 200)  # allowed decimal precision (significant digits)


def _guarded(fn):
    """Arithmetic that fails on absurd numbers (decimal overflow, ...) is a failed check."""
    def run(obj, loc="", *args):
        try:
            return fn(obj, loc, *args)
        except ArithmeticError as exc:
            raise Fail("number", loc or "/", f"arithmetic failed: {exc!r}") from None
    run.__doc__, run.__name__ = fn.__doc__, fn.__name__
    return run


# ------------------------------------------------------------------------------ reading
def _get(obj, key, loc):
    if not isinstance(obj, dict) or key not in obj:
        raise Fail("schema", f"{loc}/{key}", f"missing field '{key}'")
    return obj[key]


def _num(s, loc) -> Fraction:
    if not isinstance(s, str):
        raise Fail("number", loc, f"numbers are canonical strings 'p/q'; got {s!r}")
    try:
        q = Fraction(s)
    except (ValueError, ZeroDivisionError):
        raise Fail("number", loc, f"{s!r} is not a rational 'p/q'") from None
    if str(q) != s:
        raise Fail("number", loc, f"{s!r} is not canonical; write {str(q)!r}")
    return q


def _mat(obj, key, loc, rows=None, cols=None) -> list:
    M, loc = _get(obj, key, loc), f"{loc}/{key}"
    if not isinstance(M, list) or not M or (rows is not None and len(M) != rows):
        raise Fail("shape", loc, f"expected a non-empty list of {rows or 'some'} rows")
    cols = cols if cols is not None else (len(M[0]) if isinstance(M[0], list) else 0)
    out = []
    for i, r in enumerate(M):
        if not isinstance(r, list) or len(r) != cols or not cols:
            raise Fail("shape", f"{loc}/{i}", f"expected a row of {cols} entries")
        out.append([_num(x, f"{loc}/{i}/{j}") for j, x in enumerate(r)])
    return out


def _scalar(obj, key, loc) -> Fraction:
    return _num(_get(obj, key, loc), f"{loc}/{key}")


def _stochastic(M, check, loc):
    for j, col in enumerate(zip(*M, strict=True)):
        if any(x < 0 for x in col) or sum(col) != 1:
            raise Fail(check, f"{loc}/column {j}", f"column {j} is not a probability vector"
                       " (entries >= 0 summing to exactly 1)")


def _perm(g, loc, m) -> list:
    if not isinstance(g, list) or sorted(x if isinstance(x, int) and not isinstance(x, bool)
                                         else -1 for x in g) != list(range(m)):
        raise Fail("generator", loc, f"not a permutation of 0..{m - 1} in image form")
    return g


# ---------------------------------------------------------------- rigorous exp and log
def _dec(q: Fraction, ctx, up: bool) -> decimal.Decimal:
    """A decimal >= q (up) or <= q, at the context's precision (directed division)."""
    c = ctx.copy()
    c.rounding = decimal.ROUND_CEILING if up else decimal.ROUND_FLOOR
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


def _context(prec: int):
    return decimal.Context(prec=prec, rounding=decimal.ROUND_HALF_EVEN,
                           Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)


# ----------------------------------------------------------------------- exact algebra
def _ints(M) -> tuple[list, int]:
    """(integer matrix, common denominator D) with M = ints / D."""
    D = 1
    for r in M:
        for x in r:
            D = D * x.denominator // _gcd(D, x.denominator)
    return [[int(x * D) for x in r] for r in M], D


def _gcd(a, b):
    while b:
        a, b = b, a % b
    return a


def _matmul(A, B) -> list:
    Bt = list(zip(*B, strict=True))
    return [[sum(a * b for a, b in zip(r, c, strict=True)) for c in Bt] for r in A]


def _psd_fails(S) -> int | None:
    """Exact LDL^T of a symmetric rational matrix: None when PSD, else the index of the first
    bad pivot (negative, or zero with a non-zero column below it)."""
    S = [[Fraction(x) for x in r] for r in S]
    n = len(S)
    for k in range(n):
        p = S[k][k]
        if p < 0 or (p == 0 and any(S[i][k] for i in range(k + 1, n))):
            return k
        if p == 0:
            continue
        for i in range(k + 1, n):
            f = S[i][k] / p
            if f:
                for j in range(k + 1, i + 1):
                    S[i][j] -= f * S[k][j]
                    S[j][i] = S[i][j]
    return None


def _sq_frob(M) -> Fraction:
    return sum((x * x for r in M for x in r), Fraction(0))


# --------------------------------------------------------------------------- the bounds
_COMMON = {"format", "version", "kind", "statement", "provenance"}
_NUMBERS = {"E_W", "E_H", "W", "s", "rho_up", "precision", "lower", "upper", "eps", "eps_mode",
            "structure"}
FIELDS = {"layer-peeled-bracket": _COMMON | _NUMBERS | {"Y", "H", "P"},
          "layer-peeled-orbit-bracket": _COMMON | _NUMBERS | {"bases", "generators",
                                                              "group_order", "H_bases",
                                                              "P_bases"},
          "layer-peeled-theorem": _COMMON | {"theorem", "label", "parts"}}


def _fields(obj, loc):
    """Unknown fields are rejected: a look-alike key must not change the claim."""
    kind = obj.get("kind") if isinstance(obj, dict) else None
    extra = sorted(set(obj) - FIELDS[kind], key=str) if kind in FIELDS else []
    if extra:
        raise Fail("schema", f"{loc}/{ascii(extra[0])[1:-1][:60]}", f"unknown field "
                   f"{ascii(extra[0])[:60]} in a {kind} certificate")
    for n, c in enumerate(obj.get("structure") or []):
        if isinstance(c, dict) and set(c) - {"claim", "generators"}:
            raise Fail("schema", f"{loc}/structure/{n}", "a structure claim has the fields "
                       "'claim' and (for 'invariant') 'generators' only")


def _read(obj, loc=""):
    _fields(obj, loc)
    Y = _mat(obj, "Y", loc)
    m, n = len(Y), len(Y[0])
    _stochastic(Y, "target", f"{loc}/Y")
    EW, EH = _scalar(obj, "E_W", loc), _scalar(obj, "E_H", loc)
    if EW <= 0 or EH <= 0:
        raise Fail("budget", f"{loc}/E_W", "budgets must be > 0")
    W = _mat(obj, "W", loc, rows=m)
    H = _mat(obj, "H", loc, rows=len(W[0]), cols=n)
    P = _mat(obj, "P", loc, rows=m, cols=n)
    prec = _get(obj, "precision", loc)
    if not isinstance(prec, int) or isinstance(prec, bool) or not \
            PRECISION[0] <= prec <= PRECISION[1]:
        raise Fail("precision", f"{loc}/precision", f"precision must be an integer in {PRECISION}")
    return Y, EW, EH, W, H, P, prec


def _upper(Y, W, H, ctx) -> Fraction:
    """A rational >= J(W H) = sum_j [log sum_i exp(z_ij) - y_j . z_j], with Z = W H exact."""
    Wi, a = _ints(W)
    Hi, b = _ints(H)
    Zi, D = _matmul(Wi, Hi), a * b  # Z = Zi / D exactly
    total = Fraction(0)
    for j, zc in enumerate(zip(*Zi, strict=True)):
        top = max(zc)  # log sum exp(z) = M + log sum exp(z - M); each exp(z_i - M) <= 1
        S = sum(exp_up(Fraction(z - top, D), ctx) for z in zc)
        lin = sum((y * z for y, z in zip((r[j] for r in Y), zc, strict=True)), Fraction(0))
        total += Fraction(top, D) + log_up(S, ctx) - lin / D
    return total


def _entropy_lower(P, ctx) -> Fraction:
    """A rational <= sum_ij -P_ij log P_ij (0 log 0 = 0): -p log p >= -p log_up(p)."""
    return -sum((p * log_up(p, ctx) for r in P for p in r if p), Fraction(0))


def bounds(obj) -> tuple[Fraction, Fraction]:
    """(a rational >= J(W H), a rational <= Ent(P) - rho_up s): the checker's own bounds.

    Used by the emitter to state ``upper`` and ``lower``; assumes the fields parse.
    """
    Y, _, _, W, H, P, prec = _read(obj)
    ctx = _context(prec)
    low = _entropy_lower(P, ctx) - _scalar(obj, "rho_up", "") * _scalar(obj, "s", "")
    return _upper(Y, W, H, ctx), low


def _gram(W) -> list:
    return _matmul(W, [list(c) for c in zip(*W, strict=True)])


def _structure(obj, loc, Y, EW, W, P, s) -> list:
    claims = _get(obj, "structure", loc)
    if not isinstance(claims, list):
        raise Fail("schema", f"{loc}/structure", "structure is a list of claims")
    m, G = len(W), None
    for k, c in enumerate(claims):
        cl = f"{loc}/structure/{k}"
        name = _get(c, "claim", cl)
        if name not in STRUCTURES:
            raise Fail("schema", f"{cl}/claim", f"unknown structure claim {name!r}")
        G = G or _gram(W)
        if name == "circulant" and any(G[i][j] != G[(i + 1) % m][(j + 1) % m]
                                       for i in range(m) for j in range(m)):
            raise Fail("structure-circulant", cl, "W W^T is not circulant")
        if name == "span-I-J" and (len({G[i][i] for i in range(m)}) > 1 or
                                   len({G[i][j] for i in range(m) for j in range(m) if i != j})
                                   > 1):
            raise Fail("structure-span", cl, "W W^T is not alpha I + beta (J - I)")
        if name == "simplex-etf":
            t = G[0][0] * m / (m - 1) if m > 1 else Fraction(0)
            if t <= 0 or any(G[i][j] != t * ((i == j) - Fraction(1, m))
                             for i in range(m) for j in range(m)):
                raise Fail("structure-etf", cl, "W W^T is not t (I - J/m) with t > 0")
        if name == "invariant":
            gens = _get(c, "generators", cl)
            if not isinstance(gens, list) or not gens:
                raise Fail("schema", f"{cl}/generators", "a non-empty list of permutations")
            for r, g in enumerate(gens):
                g = _perm(g, f"{cl}/generators/{r}", m)
                if any(G[g[i]][g[j]] != G[i][j] for i in range(m) for j in range(m)):
                    raise Fail("structure-invariant", f"{cl}/generators/{r}",
                               f"W W^T is not invariant under generator {r}")
                cols = Counter(tuple(col) for col in zip(*Y, strict=True))
                moved = Counter(tuple(col[g.index(i)] for i in range(m))
                                for col in zip(*Y, strict=True))
                if cols != moved:
                    raise Fail("target-invariant", f"{cl}/generators/{r}",
                               f"generator {r} does not preserve the columns of Y")
        if name == "budget-inactive" and (P != Y or s != 0):
            raise Fail("structure-inactive", cl, "the budget-inactive proof has P = Y, s = 0")
    return claims


@_guarded
def check(obj, loc="") -> None:
    """Verify a ``layer-peeled-bracket`` certificate; raise :class:`Fail` on the first failure."""
    Y, EW, EH, W, H, P, prec = _read(obj, loc)
    ctx = _context(prec)
    if _sq_frob(W) > EW:
        raise Fail("budget", f"{loc}/W", "||W||_F^2 > E_W")
    if _sq_frob(H) > EH:
        raise Fail("budget", f"{loc}/H", "||H||_F^2 > E_H")
    upper, lower = _scalar(obj, "upper", loc), _scalar(obj, "lower", loc)
    if _upper(Y, W, H, ctx) > upper:
        raise Fail("upper", f"{loc}/upper", "J(W H) may exceed the stated upper bound")
    _stochastic(P, "dual-stochastic", f"{loc}/P")
    rho, s = _scalar(obj, "rho_up", loc), _scalar(obj, "s", loc)
    if rho < 0 or rho * rho < EW * EH:
        raise Fail("radius", f"{loc}/rho_up", "rho_up^2 < E_W E_H (or rho_up < 0)")
    if s < 0:
        raise Fail("spectral", f"{loc}/s", "s < 0")
    Bi, D = _ints([[p - y for p, y in zip(rp, ry, strict=True)] for rp, ry in zip(P, Y,
                                                                                 strict=True)])
    BB = _matmul(Bi, [list(c) for c in zip(*Bi, strict=True)])  # D^2 (P-Y)(P-Y)^T
    k = _psd_fails([[(s * D) ** 2 * (i == j) - BB[i][j] for j in range(len(BB))]
                    for i in range(len(BB))])
    if k is not None:
        raise Fail("spectral", f"{loc}/s", f"s^2 I - (P-Y)(P-Y)^T is not PSD (pivot {k})")
    if _entropy_lower(P, ctx) - rho * s < lower:
        raise Fail("lower", f"{loc}/lower", "Ent(P) - rho_up s may be below the stated lower"
                   " bound")
    _width(obj, loc, lower, upper)
    _structure(obj, loc, Y, EW, W, P, s)


# ----------------------------------------------------------- orbit brackets (implicit Y)
def _mul(a, b) -> tuple:
    """(a o b)(i) = a[b[i]]."""
    return tuple(a[i] for i in b)


def _inv(a) -> tuple:
    r = [0] * len(a)
    for i, x in enumerate(a):
        r[x] = i
    return tuple(r)


def group_order(gens, n) -> int:
    """|<gens>| by the deterministic Schreier-Sims algorithm: levels (base point, strong
    generators fixing the earlier base points, transversal), grown until every Schreier
    generator of every level sifts to the identity through the levels below it (Sims'
    criterion); the order is the product of the basic orbit lengths."""
    e = tuple(range(n))
    base, strong = [], []  # strong[k]: generators added at level k

    def orbit(k):
        gs = [g for lv in strong[k:] for g in lv]
        t, todo = {base[k]: e}, [base[k]]
        while todo:
            x = todo.pop()
            for g in gs:
                if g[x] not in t:
                    t[g[x]] = _mul(g, t[x])
                    todo.append(g[x])
        return gs, t

    def sift(g, k):
        while k < len(base):
            t = orbit(k)[1]
            if g[base[k]] not in t:
                return g, k
            g, k = _mul(_inv(t[g[base[k]]]), g), k + 1
        return g, k

    def add(h, j):
        if j == len(base):
            base.append(next(i for i in range(n) if h[i] != i))
            strong.append([])
        strong[j].append(h)

    for g in gens:
        h, j = sift(tuple(g), 0)
        if h != e:
            add(h, j)
    changed = True
    while changed:
        changed = False
        for k in reversed(range(len(base))):
            gs, t = orbit(k)
            for x, u in t.items():
                for g in gs:
                    h, j = sift(_mul(_inv(t[g[x]]), _mul(g, u)), k + 1)
                    if h != e:
                        add(h, j)
                        changed = True
                        break
                if changed:
                    break
            if changed:
                break
    order = 1
    for k in range(len(base)):
        order *= len(orbit(k)[1])
    return order


def orbital_labels(m: int, gens) -> list[int]:
    """Label each pair (i, j) of range(m) x range(m), at index i * m + j, by its orbital (orbit
    of the group generated by the permutations ``gens``, image form, on pairs), numbered
    0, 1, ... in order of first appearance; union-find with the generators alone.

    Examples
    --------
    >>> orbital_labels(2, [[1, 0]])
    [0, 1, 1, 0]
    """
    parent = list(range(m * m))

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for g in gens:
        for i in range(m):
            for j in range(m):
                a, b = find(i * m + j), find(g[i] * m + g[j])
                if a != b:
                    parent[a] = b
    relabel: dict[int, int] = {}
    return [relabel.setdefault(find(k), len(relabel)) for k in range(m * m)]


def _width(obj, loc, lower, upper) -> None:
    """The bracket is as narrow as stated: upper - lower <= eps (absolute) or
    eps |upper| (relative)."""
    eps, mode = _scalar(obj, "eps", loc), _get(obj, "eps_mode", loc)
    if mode not in ("absolute", "relative"):
        raise Fail("schema", f"{loc}/eps_mode", "eps_mode is 'absolute' or 'relative'")
    if upper - lower > eps * (abs(upper) if mode == "relative" else 1):
        raise Fail("width", f"{loc}/eps", f"upper - lower exceeds the {mode} eps")


def _orbital_mean(M, gens) -> list:
    """The group average (1/|G|) sum_g P_g M P_g^T: the mean of M over each orbital (orbit of
    the group on pairs (i, j)), see :func:`orbital_labels`."""
    m = len(M)
    lab = orbital_labels(m, gens)
    sums, counts = {}, {}
    for k in range(m * m):
        sums[lab[k]] = sums.get(lab[k], 0) + M[k // m][k % m]
        counts[lab[k]] = counts.get(lab[k], 0) + 1
    return [[sums[lab[i * m + j]] / counts[lab[i * m + j]] for j in range(m)]
            for i in range(m)]  # Fraction / int: exact


@_guarded
def check_orbit(obj, loc="") -> None:
    """Verify a ``layer-peeled-orbit-bracket``: Y = [P_g y_b : g in G, b] is never built.

    With W (m x m) invariant (W[g i][g j] = W[i][j] for every generator) and H's columns
    P_g h_b, column (g, b) of W H is P_g (W h_b); every column sum is |G| times a sum over the
    bases, and (P - Y)(P - Y)^T = |G| x the orbital mean of sum_b v_b v_b^T, v_b = p_b - y_b.
    """
    _fields(obj, loc)
    Yb = _mat(obj, "bases", loc)
    m = len(Yb[0])
    Y = [list(c) for c in zip(*Yb, strict=True)]  # m x B, one column per base
    _stochastic(Y, "target", f"{loc}/bases")
    gens = _get(obj, "generators", loc)
    if not isinstance(gens, list) or not gens:
        raise Fail("schema", f"{loc}/generators", "a non-empty list of permutations")
    gens = [tuple(_perm(g, f"{loc}/generators/{r}", m)) for r, g in enumerate(gens)]
    N = group_order(gens, m)
    if _get(obj, "group_order", loc) != N:
        raise Fail("group-order", f"{loc}/group_order", f"the generators generate a group of"
                   f" order {N}")
    EW, EH = _scalar(obj, "E_W", loc), _scalar(obj, "E_H", loc)
    if EW <= 0 or EH <= 0:
        raise Fail("budget", f"{loc}/E_W", "budgets must be > 0")
    W = _mat(obj, "W", loc, rows=m, cols=m)
    for r, g in enumerate(gens):
        if any(W[g[i]][g[j]] != W[i][j] for i in range(m) for j in range(m)):
            raise Fail("structure-invariant", f"{loc}/generators/{r}",
                       f"W is not invariant under generator {r}")
    Hb = _mat(obj, "H_bases", loc, rows=len(Yb), cols=m)
    Pb = _mat(obj, "P_bases", loc, rows=len(Yb), cols=m)
    prec = _get(obj, "precision", loc)
    if not isinstance(prec, int) or isinstance(prec, bool) or not \
            PRECISION[0] <= prec <= PRECISION[1]:
        raise Fail("precision", f"{loc}/precision", f"precision must be an integer in {PRECISION}")
    ctx = _context(prec)
    if _sq_frob(W) > EW:
        raise Fail("budget", f"{loc}/W", "||W||_F^2 > E_W")
    if N * _sq_frob(Hb) > EH:
        raise Fail("budget", f"{loc}/H_bases", "|G| sum_b ||h_b||^2 > E_H")
    upper, lower = _scalar(obj, "upper", loc), _scalar(obj, "lower", loc)
    if N * _upper(Y, W, [list(c) for c in zip(*Hb, strict=True)], ctx) > upper:
        raise Fail("upper", f"{loc}/upper", "J(W H) may exceed the stated upper bound")
    P = [list(c) for c in zip(*Pb, strict=True)]
    _stochastic(P, "dual-stochastic", f"{loc}/P_bases")
    rho, s = _scalar(obj, "rho_up", loc), _scalar(obj, "s", loc)
    if rho < 0 or rho * rho < EW * EH:
        raise Fail("radius", f"{loc}/rho_up", "rho_up^2 < E_W E_H (or rho_up < 0)")
    V = [[p - y for p, y in zip(pb, yb, strict=True)] for pb, yb in zip(Pb, Yb, strict=True)]
    M = [[sum((v[i] * v[j] for v in V), Fraction(0)) for j in range(m)] for i in range(m)]
    M = _orbital_mean(M, gens)
    if s < 0 or _psd_fails([[s * s * (i == j) - N * M[i][j] for j in range(m)]
                            for i in range(m)]) is not None:
        raise Fail("spectral", f"{loc}/s", "s < 0 or s^2 I - (P-Y)(P-Y)^T is not PSD")
    if N * _entropy_lower(P, ctx) - rho * s < lower:
        raise Fail("lower", f"{loc}/lower", "Ent(P) - rho_up s may be below the stated lower"
                   " bound")
    _width(obj, loc, lower, upper)
    claims = _get(obj, "structure", loc)
    if not isinstance(claims, list) or any(not isinstance(c, dict) or c.get("claim") not in
                                           ("circulant", "simplex-etf", "span-I-J")
                                           for c in claims):
        raise Fail("schema", f"{loc}/structure", "orbit brackets claim circulant, simplex-etf"
                   " or span-I-J (invariance is built in)")
    _structure(obj, loc, Y, EW, W, P, s)


def _two_homogeneous(gens, m) -> bool:
    """Whether the group generated by ``gens`` is transitive on the labels and on unordered
    pairs of labels (2-homogeneous: every invariant symmetric matrix is alpha I + beta J, so
    the ETF argument applies; 2-transitive groups are the usual case)."""
    def closed(start, step):
        seen, todo = {start}, [start]
        while todo:
            x = todo.pop()
            for g in gens:
                y = step(g, x)
                if y not in seen:
                    seen.add(y)
                    todo.append(y)
        return seen

    if m < 2:
        return True
    pairs = closed(frozenset((0, 1)), lambda g, p: frozenset(g[i] for i in p))
    return len(closed(0, lambda g, i: g[i])) == m and len(pairs) == m * (m - 1) // 2


@_guarded
def check_theorem(obj, loc="", dispatch=None) -> None:
    """Verify a ``layer-peeled-theorem``: its part is a valid bracket with the right claims."""
    _fields(obj, loc)
    name = _get(obj, "theorem", loc)
    if name not in THEOREMS:
        raise Fail("unsupported-kind", f"{loc}/theorem", f"unknown theorem {name!r}")
    parts = _get(obj, "parts", loc)
    if not isinstance(parts, list) or len(parts) != 1 or not isinstance(parts[0], dict) \
            or parts[0].get("kind") not in (KINDS[0], KINDS[2]):
        raise Fail("theorem-parts", f"{loc}/parts", f"{name} needs one {KINDS[0]} or "
                   f"{KINDS[2]} part")
    (dispatch or CHECKERS[parts[0]["kind"]])(parts[0], f"{loc}/parts/0")
    part = parts[0]
    claims = {c["claim"]: c for c in part["structure"]}
    if part["kind"] == KINDS[2]:  # an orbit bracket is invariant under its group by design
        claims["invariant"] = {"generators": part["generators"]}
    m, need = len(part["W"]), THEOREMS[name][0]
    if need not in claims or "invariant" not in claims:
        raise Fail("theorem-mismatch", f"{loc}/parts/0/structure",
                   f"{name} needs the claims '{need}' and 'invariant' (the group acting on Y)")
    gens = claims["invariant"]["generators"]
    if name == "cyclic-circulant" and [(i + 1) % m for i in range(m)] not in gens:
        raise Fail("theorem-mismatch", f"{loc}/parts/0/structure", "the cyclic shift"
                   " [1, 2, ..., m-1, 0] must be among the generators")
    if name == "transitive-etf" and not _two_homogeneous(gens, m):
        raise Fail("transitivity", f"{loc}/parts/0/structure", "the generators do not act"
                   " transitively on the labels and on unordered pairs (2-homogeneously)")


CHECKERS = {KINDS[0]: check, KINDS[1]: check_theorem, KINDS[2]: check_orbit}


# -------------------------------------------------------------------------- explanation
def _short(q: Fraction) -> str:
    return f"{float(q):.15g}"


def explain(c) -> str:
    """The proven claim in words (presentation only; call after the certificate checked)."""
    if c["kind"] == KINDS[1]:
        part = c["parts"][0]
        what = {"cyclic-circulant": "W W^T circulant (cyclic target)",
                "transitive-etf": "W W^T a simplex ETF (2-homogeneous target)",
                "group-block-form": "W W^T constant on the orbitals of the group (block form)"}
        label = f" ({c['label']})" if c.get("label") else ""
        return (f"Claim: theorem {c['theorem']}{label}: a "
                f"solution with {what[c['theorem']]} is within the proven bracket of the "
                "optimum.\n" + explain(part))
    orbit = c["kind"] == KINDS[2]
    W = c["W"]
    Y = c["Y"] if not orbit else [list(r) for r in zip(*c["bases"], strict=True)]
    m, d = len(Y), len(W[0])
    n = len(Y[0]) * (c["group_order"] if orbit else 1)
    lo, up = Fraction(c["lower"]), Fraction(c["upper"])
    rel = (up - lo) / up if up else Fraction(0)
    out = [f"Claim: the layer-peeled optimum J* = min J(W H) s.t. ||W||_F^2 <= {c['E_W']}, "
           f"||H||_F^2 <= {c['E_H']} (m = {m} labels, n = {n} contexts) lies in",
           f"  [{_short(lo)}, {_short(up)}]  (width {float(up - lo):.3g}, relative "
           f"{float(rel):.3g}; eps = {c['eps']} {c['eps_mode']}).",
           f"  The upper bound is attained by the file's (W, H) with hidden width d = {d} "
           "(so it holds for every d' >= d);",
           "  the lower bound holds for every d (Fenchel dual at P, ||P - Y||_2 <= s).",
           f"  Decimal precision {c['precision']} digits, every result widened by one ulp."]
    if orbit:
        out.append(f"  Y = [P_g y_b : g in G, b] for {len(c['bases'])} base column(s) and the "
                   f"group G of order {c['group_order']} generated by {len(c['generators'])} "
                   "permutation(s), never materialised; W commutes with G, H's columns are "
                   "P_g h_b, P's columns P_g p_b.")
    for cl in c["structure"]:
        k = cl["claim"]
        if k == "circulant":
            out.append("  Structure: W W^T is circulant (exactly).")
        elif k == "simplex-etf":
            t = Fraction(_gram_entry(W, 0, 0)) * m / (m - 1)
            out.append(f"  Structure: W W^T = t (I - J/m) with t = {_short(t)} (simplex ETF; "
                       f"t (m - 1) = {_short(t * (m - 1))} <= E_W = {c['E_W']}).")
        elif k == "span-I-J":
            out.append("  Structure: W W^T = alpha I + beta (J - I) (exactly).")
        elif k == "invariant":
            out.append(f"  Structure: Y and W W^T are invariant under the group generated by "
                       f"{len(cl['generators'])} permutation(s) of the labels, so W W^T is "
                       "constant on each orbital of that group (the block form).")
        elif k == "budget-inactive":
            out.append("  Budget inactive: P = Y and s = 0, so J* >= sum_j Ent(Y[:, j]); the "
                       "optimum is the entropy sum, approached by the file's (W, H).")
    return "\n".join(out) + "\n"


def _gram_entry(W, i, j) -> Fraction:
    return sum((Fraction(a) * Fraction(b) for a, b in zip(W[i], W[j], strict=True)), Fraction(0))


def latex(c) -> str:
    """A LaTeX snippet: the claim in words and the target Y (presentation only)."""
    part = c["parts"][0] if c["kind"] == KINDS[1] else c
    lo, up = Fraction(part["lower"]), Fraction(part["upper"])
    Y = part["Y"] if "Y" in part else [list(r) for r in zip(*part["bases"], strict=True)]

    def frac(x):
        q = Fraction(x)
        return str(q) if q.denominator == 1 else f"\\frac{{{q.numerator}}}{{{q.denominator}}}"

    rows = " \\\\ ".join(" & ".join(frac(x) for x in r) for r in Y)
    return (f"% logitgeom certificate: {c['kind']}\n\\paragraph{{Claim.}} The layer-peeled "
            f"optimum $J^*$ for the target below with $E_W = {part['E_W']}$, $E_H = "
            f"{part['E_H']}$ lies in $[{_short(lo)}, {_short(up)}]$ (proven; the upper end is "
            f"attained by the certificate's $W, H$).\n\\[ {'Y' if 'Y' in part else 'y_b'} = "
            f"\\begin{{pmatrix}} {rows} "
            f"\\end{{pmatrix}} \\]\n")
