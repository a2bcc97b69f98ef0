"""Ground truth for certificate claims, independent of ``certificates/check.py``.

Used by the tamper and property tests: when the checker *accepts* a (possibly tampered)
certificate, :func:`claim_true` must confirm the claim with the exact engine
(``logitgeom.exact.lp``, ``logitgeom.exact.lattice``) and sympy, never with the checker's code.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations

import sympy

from logitgeom.exact.lattice import count_rankings_exact, count_regions_exact
from logitgeom.exact.lp import decide


def _m(M):
    return [[Fraction(x) for x in r] for r in M]


def _model(c, w="W", b="bias"):
    W = _m(c[w])
    bias = [Fraction(x) for x in c[b]] if c.get(b) is not None else [Fraction(0)] * len(W)
    return W, bias


def _feasible(rows, d):
    """exists x: a . x + c > 0 for all (a, c) in rows (exact LP of the engine)."""
    if not rows:
        return True
    homog = [[c, *a] for a, c in rows] + [[Fraction(1)] + [Fraction(0)] * d]
    return decide(homog)[0]


def sign_in(W, b, s) -> bool:
    """s in S(W) (topes; sign 0 exactly on identically zero rows)."""
    rows = []
    for w, c, si in zip(W, b, s, strict=True):
        zero = not any(w) and not c
        if si not in (-1, 0, 1) or (si == 0) != zero:
            return False
        if si:
            rows.append(([si * x for x in w], si * c))
    return _feasible(rows, len(W[0]))


def ranking_in(W, b, pi) -> bool:
    """Some ranking of R(W) (tie classes adjacent, increasing) starts with the prefix pi."""
    k = len(W)
    if len(set(pi)) != len(pi) or any(not 0 <= a < k for a in pi) or not pi:
        return False
    tied = {(a, c) for a in range(k) for c in range(k) if W[a] == W[c] and b[a] == b[c]}
    rest = [j for j in range(k) if j not in pi]
    above = [(pi[i], pi[j]) for i, j in combinations(range(len(pi)), 2)]
    above += [(p, r) for p in pi for r in rest]
    rows = []
    for a, c in above:  # a must be strictly above c, or tied with a < c
        if (a, c) in tied:
            if a > c:
                return False
            continue
        rows.append(([x - y for x, y in zip(W[a], W[c], strict=True)], b[a] - b[c]))
    return _feasible(rows, len(W[0]))


def _in(c, key, w, bk):
    W, b = _model(c, w, bk)
    return sign_in(W, b, c[key]) if c["pattern"] == "sign" else ranking_in(W, b, c[key])


def _sym(M):
    return sympy.Matrix([[sympy.Rational(str(x)) for x in r] for r in M])


def _cos(u, v):
    return u.dot(v) / sympy.sqrt(u.dot(u) * v.dot(v))


def _pattern_set(c):
    W, b = _model(c)
    pats = [tuple(p["pattern"]) for p in c["patterns"]]
    f = sign_in if c["pattern"] == "sign" else ranking_in
    if len(set(pats)) != len(pats) or not all(f(W, b, p) for p in pats):
        return None
    if c["pattern"] == "ranking" and any(len(p) != len(W) for p in pats):
        return None
    count = (count_regions_exact if c["pattern"] == "sign" else count_rankings_exact)(
        W, b if c.get("bias") is not None else None)
    return frozenset(pats) if count == len(pats) else None


def claim_true(c) -> bool:  # noqa: C901 - one branch per kind, kept flat on purpose
    k = c["kind"]
    if k in ("sign-feasible", "sign-infeasible"):
        W, b = _model(c)
        return sign_in(W, b, c["signs"]) == (k == "sign-feasible")
    if k in ("ranking-feasible", "ranking-infeasible"):
        W, b = _model(c)
        return ranking_in(W, b, c["ranking"]) == (k == "ranking-feasible")
    if k == "translation":
        W, Wt, v = _sym(c["W"]), _sym(c["W_translated"]), _sym([c["v"]])
        i, j = c["labels"]
        if any(Wt.row(r) != W.row(r) + v for r in range(W.rows)) or i == j:
            return False
        a, b = Wt.row(i), Wt.row(j)
        return a.dot(a) != 0 and b.dot(b) != 0 and _cos(a, b) == c["target"]
    if k == "cosine-equal":
        A, B = _sym(c["W1"]), _sym(c["W2"])
        if A.rows != B.rows or any(A.row(i).dot(A.row(i)) == 0 for i in range(A.rows)) or \
                any(B.row(i).dot(B.row(i)) == 0 for i in range(B.rows)):
            return False
        return all(sympy.simplify(_cos(A.row(i), A.row(j)) - _cos(B.row(i), B.row(j))) == 0
                   for i, j in combinations(range(A.rows), 2))
    if k == "same-chirotope":
        A, B = _sym(c["W1"]), _sym(c["W2"])
        d = A.cols
        s1 = [sympy.sign(A.extract(list(S), list(range(d))).det())
              for S in combinations(range(A.rows), d)]
        s2 = [sympy.sign(B.extract(list(S), list(range(d))).det())
              for S in combinations(range(B.rows), d)]
        return any(s1) and (s1 == s2 or s1 == [-x for x in s2])
    if k == "pattern-complete":
        return _pattern_set(c) is not None
    if k == "pattern-differs":
        return _in(c, "value", "W1", "bias1") and not _in(c, "value", "W2", "bias2")
    if k == "theorem":
        return all(claim_true(p) for p in c["parts"]) and _theorem_extra(c)
    if k == "argmax-audit":
        return _audit_true(c)
    raise AssertionError(f"unknown kind {k}")


def _audit_true(c) -> bool:
    """Every stated verdict of an inline argmax-audit certificate (undecided claims nothing);
    the box max_j |x_j| <= R is closed, equivalently open here (the margins are strict)."""
    W, b = _model(dict(c, W=c["head"]["W"]))
    d = len(W[0])
    for rec in c["records"]:
        k = rec["label"]
        rows = [([x - y for x, y in zip(W[k], W[i], strict=True)], b[k] - b[i])
                for i in range(len(W)) if i != k]
        for dom in c["domains"]:
            v = rec[dom]["verdict"]
            extra = []
            if dom == "box":
                R = Fraction(c["radius"])
                for j in range(d):
                    e = [Fraction(int(t == j)) for t in range(d)]
                    extra += [(e, R), ([-x for x in e], R)]
            if v != "undecided" and _feasible(rows + extra, d) != (v == "argmaxable"):
                return False
    return True


def _theorem_extra(c) -> bool:
    name, parts = c["theorem"], c["parts"]
    kinds = [p["kind"] for p in parts]
    if name == "translation-cosine":
        return kinds == ["translation"] * 2 and parts[0]["W"] == parts[1]["W"] and \
            parts[0]["labels"] == parts[1]["labels"] and \
            [p["target"] for p in parts] == [-1, 1]
    if name == "centred-cosine-ranking":
        p = parts[0]
        W = _sym(p["W"])
        i, j = c["parameters"]["labels"]
        cmin = sympy.Rational(c["parameters"]["cosine_at_least"])
        return kinds == ["ranking-feasible"] and p.get("bias") is None and \
            all(sum(W.col(n)) == 0 for n in range(W.cols)) and cmin > 0 and \
            _cos(W.row(i), W.row(j)) >= cmin and len(p["ranking"]) == W.rows and \
            p["ranking"][0] == i and p["ranking"][-1] == j
    if name in ("cosine-not-ranking", "sign-not-ranking"):
        first = "cosine-equal" if name == "cosine-not-ranking" else "same-chirotope"
        pair = (_m(parts[0]["W1"]), _m(parts[0]["W2"]))
        return len(parts) >= 2 and kinds[0] == first and all(
            p["kind"] == "pattern-differs" and p["pattern"] == "ranking"
            and p.get("bias1") is None and p.get("bias2") is None
            and (_m(p["W1"]), _m(p["W2"])) in (pair, pair[::-1]) for p in parts[1:])
    if name == "argmaxable-labels":
        W, b = _model(parts[0])
        truth = [a for a in range(len(W)) if ranking_in(W, b, sorted(
            j for j in range(len(W)) if W[j] == W[a] and b[j] == b[a]))]
        return all(_model(p) == (W, b) for p in parts) and c["parameters"]["labels"] == truth
    sets = [_pattern_set(p) for p in parts] if kinds == ["pattern-complete"] * 2 else None
    if not sets or None in sets:
        return False
    if name == "patterns-equal":
        return parts[0]["pattern"] == parts[1]["pattern"] and sets[0] == sets[1]
    if any(p.get("bias") is not None for p in parts) or parts[1]["pattern"] != "sign":
        return False
    W = _sym(parts[0]["W"])
    if name == "cosine-determines-sign":
        return parts[0]["pattern"] == "sign" and _sym(parts[1]["W"]) == W * W.T and \
            sets[0] == sets[1]
    k = W.rows
    pairs = list(combinations(range(k), 2))
    BW = sympy.Matrix([list(W.row(a) - W.row(b)) for a, b in pairs])
    if parts[0]["pattern"] != "ranking" or _sym(parts[1]["W"]) != BW * BW.T:
        return False
    mapped = set()
    for r in sets[0]:
        pos = {a: n for n, a in enumerate(r)}
        mapped.add(tuple(0 if W.row(a) == W.row(b) else (1 if pos[a] < pos[b] else -1)
                         for a, b in pairs))
    return mapped == set(sets[1])
