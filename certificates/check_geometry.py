"""The geometric kinds: single claims, cosines, chirotopes, complete pattern sets, theorems.

Standard library only (certificates/SPEC.md sections 2-4; the proof obligations in
docs/certificates.md).  Every claim is re-derived from the file's W, bias, signs and
rankings (:mod:`.semantics`) and decided by the judgements of :mod:`.linear` in exact
arithmetic.

Examples
--------
>>> from logitgeom_certificates.check import check
>>> cert = {"format": "logitgeom-certificate", "version": 1, "kind": "sign-feasible",
...         "W": [["1", "0"], ["0", "1"]], "signs": [1, -1], "witness": ["1", "-1/2"]}
>>> check(cert).ok
True
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import combinations
from typing import Any, cast

from . import kernel as K
from . import semantics as sem

_PC = "pattern-complete pattern-complete"
#: Theorem -> the kinds of its parts, in order: a regular expression over the part kinds
#: joined by spaces (``theorem`` kinds; then those of ``layer-peeled-theorem``).
_PARTS = {"translation-cosine": "translation translation",
          "centred-cosine-ranking": "ranking-feasible",
          "cosine-not-ranking": "cosine-equal( pattern-differs)+",
          "sign-not-ranking": "same-chirotope( pattern-differs)+",
          "cosine-determines-sign": _PC, "difference-cosine-determines-ranking": _PC,
          "patterns-equal": _PC,
          "argmaxable-labels": "ranking-(in)?feasible( ranking-(in)?feasible)*"}
THEOREMS = tuple(_PARTS)
#: Fields of the theorems' parameters (listed patterns and flats: in semantics).
_PARAMETERS = {"centred-cosine-ranking": {"labels", "cosine_at_least"},
               "argmaxable-labels": {"labels"}}


def det_sign(M: Sequence[K.Vec]) -> int:
    """Sign of det M by fraction-free (Bareiss) elimination on integer rows."""
    A = [K.scaled(r)[0] for r in M]  # positive row scalings keep the sign of det
    n, sign, prev = len(A), 1, 1
    for c in range(n):
        p = next((i for i in range(c, n) if A[i][c]), None)
        if p is None:
            return 0
        A[c], A[p], sign = A[p], A[c], sign if p == c else -sign
        K.charge((n - c) ** 2 * K.weight(A[c][c], prev))
        for i in range(c + 1, n):
            for j in range(c + 1, n):
                A[i][j] = (A[i][j] * A[c][c] - A[i][c] * A[c][j]) // prev
        prev = A[c][c]
    return sign * K.sgn(A[n - 1][n - 1])


def _pair(obj: K.Obj, loc: str) -> tuple[tuple[K.Mat, K.Vec], tuple[K.Mat, K.Vec]]:
    """(W1, b1), (W2, b2) with the same number of rows (biases: fields bias1, bias2)."""
    one, two = sem.read_model(obj, loc, "W1", "bias1"), sem.read_model(obj, loc, "W2", "bias2")
    K.fail_if(len(one[0]) != len(two[0]), "shape", loc, "W1 and W2 differ in their rows' number")
    return one, two


# ---------------------------------------------------------------------- kind checkers
def _single(obj: K.Obj, loc: str, parts: object = None) -> Any:
    """sign-/ranking-feasible (witness) and -infeasible (Gordan multipliers); returns the
    reading (W, b, signs or ranking)."""
    ranking = obj["kind"].startswith("ranking")
    W, b = sem.read_model(obj, loc)
    rows, value = sem.claim_rows(obj, loc, "ranking" if ranking else "signs", ranking, W, b)
    sem.decide(rows, obj, loc, len(W[0]), obj["kind"].endswith("-feasible"))
    return W, b, value


def _translation(obj: K.Obj, loc: str, parts: object = None) -> Any:
    """A translation's rows, and the sign of a cosine (+1 or -1: parallel rows); returns
    the reading (W, labels, target)."""
    W, _ = sem.read_model(obj, loc)
    v = K.read_field(K.read_vector, obj, "v", loc, len(W[0]))
    Wt = K.read_field(K.read_matrix, obj, "W_translated", loc, len(W[0]), len(W))
    for r, (row, rowt) in enumerate(zip(W, Wt, strict=True)):
        if any(x + y != z for x, y, z in zip(row, v, rowt, strict=True)):
            K.fail("translation-rows", f"{loc}/W_translated/{r}", f"row {r} is not w_{r} + v")
    i, j = labels = K.read_field(K.read_labels, obj, "labels", loc, len(W), 2)
    target = K.read_int(K.get(obj, "target", loc), f"{loc}/target", -1, 1)
    K.fail_if(target == 0, "schema", f"{loc}/target", "target must be +1 or -1")
    a, c = Wt[i], Wt[j]
    K.fail_if(not any(a) or not any(c), "zero-row", f"{loc}/W_translated", "a zero row: no cosine")
    g = K.dot(a, c)  # Cauchy-Schwarz: equality iff a and c are parallel; then cos = sign(g)
    K.fail_if(g * g != K.dot(a, a) * K.dot(c, c), "not-parallel", f"{loc}/W_translated",
              f"rows {i} and {j} are not parallel")
    K.fail_if(K.sgn(g) != target, "cosine-sign", f"{loc}/target", f"cosine is {-target}")
    return W, labels, target


def _cosine_equal(obj: K.Obj, loc: str, parts: object = None) -> None:
    (W1, _), (W2, _) = _pair(obj, loc)
    for name, M in (("W1", W1), ("W2", W2)):
        i = next((i for i, r in enumerate(M) if not any(r)), None)
        K.fail_if(i is not None, "zero-row", f"{loc}/{name}/{i}", "a zero row has no cosine")
    A, B = ([K.scaled(r)[0] for r in M] for M in (W1, W2))  # a row's positive scaling keeps cosines
    big = max((abs(x) for r in A + B for x in r), default=0)
    unit = (len(W1[0]) + len(W2[0])) * K.weight(big) + 4 * K.weight(big * big)
    nA, nB = [K.dot(r, r) for r in A], [K.dot(r, r) for r in B]
    for i, j in combinations(range(len(W1)), 2):
        K.charge(unit)
        g, h = K.dot(A[i], A[j]), K.dot(B[i], B[j])
        K.fail_if(K.sgn(g) != K.sgn(h), "cosine-sign", loc, f"signs of <w_{i},w_{j}> differ")
        K.fail_if(g * g * nB[i] * nB[j] != h * h * nA[i] * nA[j], "cosine-magnitude", loc,
                  f"|cos(w_{i}, w_{j})| differ")


def _chirotope(obj: K.Obj, loc: str, parts: object = None) -> None:
    (W1, _), (W2, _) = _pair(obj, loc)
    k, d = len(W1), len(W1[0])
    K.fail_if(len(W2[0]) != d or d > k, "shape", loc, "W1 and W2 must both be k x d with d <= k")
    sigma = 0  # the global sign, from the first non-zero minor
    for S in combinations(range(k), d):
        s1, s2 = (det_sign([M[i] for i in S]) for M in (W1, W2))
        sigma = sigma or s1 * s2
        K.fail_if(s1 * (sigma or 1) != s2 or (s1 == 0) != (s2 == 0), "chirotope-sign", loc,
                  f"minor on rows {list(S)}: signs {s1}, {s2} do not agree up to one global sign")
    K.fail_if(not sigma, "rank", loc, f"rank is below d = {d}: every maximal minor is 0")


def _pattern_complete(obj: K.Obj, loc: str, parts: object = None) -> Any:
    """Returns (ptype, W, b, frozenset of patterns) for use by theorems."""
    W, b = sem.read_model(obj, loc)
    ptype = K.read_choice(obj, "pattern", loc, ("sign", "ranking"))
    if obj.get("top") is not None and (ptype != "ranking" or
                                       K.read_int(obj["top"], f"{loc}/top", 1, len(W)) is None):
        K.fail("schema", f"{loc}/top", "top applies to ranking patterns only")
    seen, (Wi, bi) = set(), sem.integer_model(W, b)  # one positive scaling: same claims
    for n, p in enumerate(K.read_list(K.get(obj, "patterns", loc), f"{loc}/patterns")):
        value = sem.listed_pattern(p, f"{loc}/patterns/{n}", ptype == "ranking", Wi, bi, len(W[0]))
        K.fail_if(value in seen, "duplicate-pattern", f"{loc}/patterns/{n}", "pattern listed twice")
        seen.add(value)
    count = sem.zaslavsky(sem.arrangement(Wi, bi, ptype), K.get(obj, "lattice", loc),
                          f"{loc}/lattice", len(W[0]))
    K.fail_if(count != len(seen), "count", f"{loc}/patterns", f"{len(seen)} witnessed patterns"
              f" but the arrangement has {count} regions")
    return ptype, W, b, frozenset(seen)


def _pattern_differs(obj: K.Obj, loc: str, parts: object = None) -> None:
    (W1, b1), (W2, b2) = _pair(obj, loc)
    ranking = K.read_choice(obj, "pattern", loc, ("sign", "ranking")) == "ranking"
    sem.decide(sem.claim_rows(obj, loc, "value", ranking, W1, b1)[0], obj, loc, len(W1[0]), True)
    try:
        rows2, _ = sem.claim_rows(obj, loc, "value", ranking, W2, b2)
    except K.Fail as f:  # the sign vector's zeros do not match W2's zero rows: not a tope of W2
        if f.check == "face-sign":
            return
        raise
    sem.decide(rows2, obj, loc, len(W2[0]), False)


def _theorem(obj: K.Obj, loc: str, parts: K.Checker) -> None:
    """A theorem on an instance: its parts (each checked first, by ``parts``, the checker's
    dispatch) are of the kinds the theorem needs, and meet its hypotheses."""
    K.only(obj.get("parameters"), _PARAMETERS.get(cast(str, obj.get("theorem")), ()),
           f"{loc}/parameters", f"the parameters of {obj.get('theorem')!r}")
    name = K.get(obj, "theorem", loc)
    K.fail_if(name not in _PARTS, "unsupported-kind", f"{loc}/theorem", f"unknown theorem {name!r}")
    listed: list[Any] = K.read_field(K.read_list, obj, "parts", loc)
    results: list[Any] = [parts(p, f"{loc}/parts/{n}") for n, p in enumerate(listed)]
    kinds = [p["kind"] for p in listed]
    K.fail_if(not re.fullmatch(_PARTS[name], " ".join(kinds)), "theorem-parts", f"{loc}/parts",
              f"{name} needs parts of the kinds {_PARTS[name]!r} (a regular expression)")

    def same(cond: object, what: str) -> None:
        K.fail_if(not cond, "theorem-mismatch", f"{loc}/parts", what)

    if name == "translation-cosine":
        p, q = results  # (W, labels, target)
        same(p[:2] == q[:2], "both translations must start from the same W and labels")
        same((p[2], q[2]) == (-1, 1), "targets must be -1 then +1")
    elif name == "centred-cosine-ranking":
        same(listed[0].get("bias") is None, "the model has no bias")
        W, _, ranking = results[0]
        prm = K.get(obj, "parameters", loc)
        i, j = K.read_field(K.read_labels, prm, "labels", f"{loc}/parameters", len(W), 2)
        c = K.read_field(K.read_number, prm, "cosine_at_least", f"{loc}/parameters")
        same(all(sum(col) == 0 for col in zip(*W, strict=True)), "W is not centred")
        g = K.dot(W[i], W[j])
        same(c > 0 and g > 0 and g * g >= c * c * K.dot(W[i], W[i]) * K.dot(W[j], W[j]),
             f"cos(w_{i}, w_{j}) >= {c} does not hold")
        same(len(ranking) == len(W) and ranking[0] == i and ranking[-1] == j,
             f"the ranking must be full, with label {i} first and label {j} last")
    elif name in ("cosine-not-ranking", "sign-not-ranking"):
        pair = [listed[0]["W1"], listed[0]["W2"]]  # checked parts: equal JSON is equal values
        same(all(p["pattern"] == "ranking" and p.get("bias1") is None and p.get("bias2") is None
                 and [p["W1"], p["W2"]] in (pair, pair[::-1]) for p in listed[1:]),
             "every further part must be a ranking pattern-differs between W1 and W2")
    elif name == "argmaxable-labels":
        W, b, _ = results[0]
        same(all(r[:2] == (W, b) for r in results), "all parts must share W, bias")
        classes = [r[2] for r in results]
        ties: dict[Any, list[int]] = {}
        for a in range(len(W)):  # the tie classes: labels with equal rows and biases
            ties.setdefault((W[a], b[a]), []).append(a)
        same(sorted(classes) == sorted(map(tuple, ties.values())), "the parts' prefixes must"
             " be the tie classes (tied labels in increasing order), each once")
        labels = sorted(a for c, k in zip(classes, kinds, strict=True)
                        if k == "ranking-feasible" for a in c)
        same(K.get(K.get(obj, "parameters", loc), "labels", loc) == labels,
             f"the argmaxable labels are {labels}")
    elif name == "patterns-equal":
        p, q = results
        same(p[0] == q[0], "both parts must be of the same pattern type")
        same(p[3] == q[3], "the two pattern sets differ")
    else:  # Lemma 5.3 / Thm 5.6 on an instance: S(G) = S(W) or R(W) with G = M M^T
        p, q = results
        ranking = name == "difference-cosine-determines-ranking"
        same(ranking or all(any(r) for r in p[1]), "W has a zero row, so C(W) is undefined:"
             " S(C(W)) = S(W) cannot be stated")
        same(p[0] == ("ranking" if ranking else "sign") and q[0] == "sign"
             and not any(p[2]) and not any(q[2]), "parts must be (pattern of W, sign of G),"
             " without bias")
        M = [a for a, _ in sem.arrangement(p[1], p[2], p[0])]
        same(list(map(list, q[1])) == K.matmul(M, list(zip(*M, strict=True))),
             "the second matrix is not G = M M^T")
        mapped = p[3]  # the sign patterns of W; of B W at the rankings of W:
        if ranking:  # row n of M is the pair (a, c): G's sign there is + iff a ranks above c
            pairs = list(combinations(range(len(p[1])), 2))
            mapped = {tuple(0 if not any(M[n]) else 1 if pos[a] < pos[c] else -1
                            for n, (a, c) in enumerate(pairs))
                      for pos in ({a: n for n, a in enumerate(r)} for r in p[3])}
        same(mapped == q[3], f"sign patterns of G differ from {'R' if ranking else 'S'}(W)")



#: kind -> (checker, the fields of the kind, SPEC.md section 3)
KIND_TABLE: dict[str, tuple[Any, set[str]]] = {
    **{f"{p}-{f}": (_single, {"W", "bias", key, proof}) for p, key in (
        ("sign", "signs"), ("ranking", "ranking")) for f, proof in (
        ("feasible", "witness"), ("infeasible", "multipliers"))},
    "translation": (_translation, {"W", "v", "W_translated", "labels", "target"}),
    "cosine-equal": (_cosine_equal, {"W1", "W2"}),
    "same-chirotope": (_chirotope, {"W1", "W2"}),
    "pattern-complete": (_pattern_complete, {"W", "bias", "pattern", "top", "patterns", "lattice"}),
    "pattern-differs": (_pattern_differs, {"W1", "bias1", "W2", "bias2", "pattern", "value",
                                           "witness", "multipliers"}),
    "theorem": (_theorem, {"theorem", "parts", "parameters"})}
