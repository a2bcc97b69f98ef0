"""Kinds ``layer-peeled-orbit-bracket`` and ``layer-peeled-theorem`` (standard library only).

``layer-peeled-orbit-bracket``: Y = [P_g y_b : g in G, b] is never built: the bases
(``target``), the generators (``generator``), the group order (computed by Schreier-Sims:
``group-order``), W invariant under every generator (``structure-invariant``); then the one
bracket obligation (:func:`.convex.bracket`) with every column sum |G| times a sum over the
bases, and (P - Y)(P - Y)^T = |G| x the orbital mean of sum_b v_b v_b^T, v_b = p_b - y_b.
``layer-peeled-theorem``: its one bracket part (checked first) carries the structure claims
and the generators the theorem's hypotheses need (certificates/SPEC.md section 8).

Examples
--------
>>> sorted(THEOREMS)
['cyclic-circulant', 'group-block-form', 'transitive-etf']
"""

from __future__ import annotations

from fractions import Fraction

from . import check_bracket as CB
from . import convex as C
from . import kernel as K
from .groups import group_order

KINDS = CB.KINDS
#: theorem -> the structure claim its part must carry (besides ``invariant``); the generators
#: must hold the cyclic shift (circulant), act 2-homogeneously (ETF), or anything (block form)
THEOREMS = {"cyclic-circulant": "circulant", "transitive-etf": "simplex-etf",
            "group-block-form": "invariant"}
#: Largest permutation degree (labels m) of a group whose order is computed.
MAX_DEGREE = 4096


def check_orbit(obj: K.Obj, loc: str = "", parts: object = None) -> C.Reading:
    """A ``layer-peeled-orbit-bracket`` (module docstring)."""
    Yb = K.read_field(K.read_matrix, obj, "bases", loc)
    m = len(Yb[0])
    K.fail_if(m > MAX_DEGREE, "group-order", f"{loc}/bases", f"{m} labels: group orders are "
              f"computed for at most {MAX_DEGREE}")
    Y = tuple(zip(*Yb, strict=True))  # m x B, one column per base
    C.stochastic(Y, "target", f"{loc}/bases")
    gens = C.read_perms(K.get(obj, "generators", loc), f"{loc}/generators", m)
    claimed = K.read_int(K.get(obj, "group_order", loc), f"{loc}/group_order")
    N = group_order(gens, m)
    K.fail_if(claimed != N, "group-order", f"{loc}/group_order",
              f"the generators generate a group of order {N}")
    W = K.read_field(K.read_matrix, obj, "W", loc, rows=m, cols=m)
    for r, g in enumerate(gens):
        K.fail_if(C.moved(W, g), "structure-invariant", f"{loc}/generators/{r}",
                  f"W is not invariant under generator {r}")
    H, P = (tuple(zip(*K.read_field(K.read_matrix, obj, key, loc, rows=len(Yb), cols=m),
                      strict=True)) for key in ("H_bases", "P_bases"))  # m x B

    def spread(G: list[list[int]]) -> list[list[Fraction]]:  # the orbital mean of |G| x G
        return C.orbit_means([[N * Fraction(x) for x in r] for r in G], [(g, g) for g in gens])

    return C.bracket(obj, loc, Y, W, H, P, N=N, spread=spread, names=("H_bases", "P_bases"),
                     claims=tuple(c for c in C.PLAIN_CLAIMS if c != "invariant"), group=gens)


def check_theorem(obj: K.Obj, loc: str, parts: K.Checker) -> None:
    """A ``layer-peeled-theorem``: one bracket part (checked first by ``parts``, the
    checker's dispatch) whose claims and generators meet the theorem's hypotheses."""
    name = K.get(obj, "theorem", loc)
    K.fail_if(name not in THEOREMS, "unsupported-kind", f"{loc}/theorem",
              f"unknown theorem {ascii(name)[:40]}")
    listed = K.read_field(K.read_list, obj, "parts", loc)
    got = [parts(p, f"{loc}/parts/{n}") for n, p in enumerate(listed)]
    K.fail_if(len(listed) != 1 or listed[0]["kind"] not in (KINDS[0], KINDS[2]), "theorem-parts",
              f"{loc}/parts", f"{name} needs one bracket part")
    part, where = got[0], f"{loc}/parts/0/structure"
    assert isinstance(part, C.Reading)
    m, need = len(part.W), THEOREMS[name]
    K.fail_if(need not in part.claims or "invariant" not in part.claims, "theorem-mismatch",
              where, f"{name} needs the claims '{need}' and 'invariant' (the group acting on Y)")
    K.fail_if(name == "cyclic-circulant" and (*range(1, m), 0) not in part.generators,
              "theorem-mismatch", where, "the generators must include the shift [1, ..., m-1, 0]")
    # 2-homogeneous (transitive on labels and on unordered pairs: every invariant symmetric
    # matrix is alpha I + beta J): one orbital on the diagonal, and every pair (i, j), i != j,
    # in the orbital of (0, 1) or (1, 0): the orbital mean of their indicator has no zero
    K.fail_if(name == "transitive-etf" and m > 1 and not all(map(all, C.orbit_means([[Fraction(
        i + j <= 1) for j in range(m)] for i in range(m)], [(g, g) for g in part.generators]))),
              "transitivity", where, "the generators do not act transitively on the labels and "
              "on unordered pairs (2-homogeneously)")


KIND_TABLE = {KINDS[1]: (check_theorem, {"theorem", "label", "parts"}),
              KINDS[2]: (check_orbit, C.FIELDS | {"bases", "generators", "group_order",
                                                  "H_bases", "P_bases"})}
