"""The valid and invalid examples of the layer-peeled kinds (SPEC.md, "layer-peeled-bracket").

Built exactly, without a solver, so they are byte-stable on every machine: ``Y = I_2``
(two one-hot contexts), ``E_W = E_H = 1``.  The optimum is ``Z = (1/2) [[1, -1], [-1, 1]]``;
the file's ``W = (707/1000) (1, -1)^T``, ``H = (707/1000) (1, -1)`` reach 0.9997 of it, the dual
``P = [[p, 1-p], [1-p, p]]`` with ``p = 7311/10000`` has ``P - Y = (1-p) [[-1, 1], [1, -1]]``,
so ``s = 2 (1 - p)`` exactly.  Imported by ``scripts/make_certificate_examples.py``.
"""

from __future__ import annotations

import copy
import math
from fractions import Fraction

from logitgeom_certificates import convex as cb
from logitgeom_certificates.api import bracket_bounds

_GRID = 10 ** 12


def _s(M) -> list:
    return [[str(Fraction(x)) for x in r] for r in M]


def _bound(c: dict, eps: str, mode: str) -> dict:
    """Fill upper / lower (the checker's own bounds rounded outwards) and eps."""
    up, lo = bracket_bounds(c)
    c["lower"] = str(Fraction(math.floor(lo * _GRID), _GRID))
    c["upper"] = str(Fraction(math.ceil(up * _GRID), _GRID))
    c["eps"], c["eps_mode"] = eps, mode
    c["structure"] = c.pop("structure", [])
    return c


def _cert(Y, W, H, P, s, structure, eps="1/1000", mode="absolute") -> dict:
    c = {"format": "logitgeom-certificate", "version": 1, "kind": "layer-peeled-bracket",
         "statement": "The layer-peeled optimum for Y = I_2, E_W = E_H = 1 lies in "
                      "[lower, upper].",
         "Y": _s(Y), "E_W": "1", "E_H": "1", "W": _s(W), "H": _s(H), "P": _s(P),
         "s": str(Fraction(s)), "rho_up": "1", "precision": 40}
    c = _bound(c, eps, mode)
    c["structure"] = structure
    return c


def _rebound(c: dict) -> dict:
    """A valid bracket for changed data: dual P = Y, s = 0 (so lower = Ent(Y)), wide eps."""
    c = copy.deepcopy(c)
    c["P"], c["s"] = c["Y"], "0"
    return _bound(c, "100", "absolute") | {"structure": c["structure"]}


p = Fraction(7311, 10000)
F = Fraction
I2 = [[1, 0], [0, 1]]
W0 = [[F(707, 1000)], [F(-707, 1000)]]
H0 = [[F(707, 1000), F(-707, 1000)]]
P0 = [[p, 1 - p], [1 - p, p]]
S2 = [[1, 0]]  # the transposition generates S_2


def valid() -> dict[str, dict]:
    b = _cert(I2, W0, H0, P0, 2 * (1 - p),
              [{"claim": "simplex-etf"}, {"claim": "circulant"},
               {"claim": "invariant", "generators": S2}])
    thm = {"format": "logitgeom-certificate", "version": 1, "kind": "layer-peeled-theorem",
           "theorem": "transitive-etf", "label": "Thm 2 at m = 2",
           "statement": "For the S_2 orbit target Y = I_2 a simplex-ETF solution is within "
                        "eps of the optimum.", "parts": [b]}
    return {"layer-peeled-bracket": b, "layer-peeled-theorem": thm,
            "layer-peeled-orbit-bracket": _orbit()}


def _orbit() -> dict:
    """The same instance as an orbit bracket: base y = (1, 0), G = S_2 (|G| = 2), invariant
    W = c [[1, -1], [-1, 1]], h = c (1, -1) with c = 4999/10000, p = (p, 1 - p)."""
    c = Fraction(4999, 10000)
    o = {"format": "logitgeom-certificate", "version": 1, "kind": "layer-peeled-orbit-bracket",
         "statement": "Y = [P_g (1, 0)^T : g in S_2] = I_2 given implicitly; E_W = E_H = 1.",
         "bases": [["1", "0"]], "generators": S2, "group_order": 2, "E_W": "1", "E_H": "1",
         "W": _s([[c, -c], [-c, c]]), "H_bases": _s([[c, -c]]), "P_bases": _s([[p, 1 - p]]),
         "s": str(2 * (1 - p)), "rho_up": "1", "precision": 40}
    ctx = cb.context(40)
    up = 2 * cb.loss_upper([[F(1)], [F(0)]], [[c, -c], [-c, c]], [[c], [-c]], ctx)
    lo = 2 * cb.entropy_lower([[p], [1 - p]], [[F(1)], [F(0)]], [F(1)], ctx) - 2 * (1 - p)
    o["lower"] = str(Fraction(math.floor(lo * _GRID), _GRID))
    o["upper"] = str(Fraction(math.ceil(up * _GRID), _GRID))
    o.update({"eps": "1/1000", "eps_mode": "absolute", "structure": [{"claim": "simplex-etf"}]})
    return o


def _set(c, path, value):
    c = copy.deepcopy(c)
    d = c
    for k in path[:-1]:
        d = d[k]
    d[path[-1]] = value
    return c


def invalid(v: dict[str, dict]) -> dict[str, tuple[dict, str]]:
    """failed_check -> (certificate, one-line description of the change)."""
    b, t = v["layer-peeled-bracket"], v["layer-peeled-theorem"]
    skew = _rebound(_set(b, ["W"], [["7/10"], ["-3/5"]]))  # W W^T not circulant, bracket ok
    m3 = [[F(1, 2) * ((i == j) - F(1, 3)) for j in range(3)] for i in range(3)]
    Y3 = [[int(i == j) for j in range(3)] for i in range(3)]
    etf3 = _rebound(_cert(Y3, m3, m3, Y3, 0, [{"claim": "simplex-etf"},
                                                {"claim": "invariant",
                                                 "generators": [[0, 1, 2]]}]) | {})
    half = _rebound(_set(b, ["Y"], [["1", "1/2"], ["0", "1/2"]]))
    return {
        "target": (_set(b, ["Y", 0, 0], "1/2"), "a column of Y sums to 1/2"),
        "budget": (_set(b, ["E_W"], "1/2"), "E_W below ||W||_F^2 = 0.999698"),
        "upper": (_set(b, ["upper"], "1/2"), "upper below J(W H)"),
        "dual-stochastic": (_set(b, ["P", 0, 0], "3/4"), "a column of P sums to 1.0189"),
        "radius": (_set(b, ["rho_up"], "99/100"), "rho_up^2 < E_W E_H"),
        "spectral": (_set(b, ["s"], "1/2"), "s below ||P - Y||_2 = 2689/5000"),
        "lower": (_set(b, ["lower"], "1"), "lower above Ent(P) - rho_up s"),
        "width": (_set(b, ["eps"], "1/1000000"), "eps below the width"),
        "precision": (_set(b, ["precision"], 5), "5 digits"),
        "structure-circulant": (_set(skew, ["structure"], [{"claim": "circulant"}]),
                                "W = (7/10, -3/5)^T: W W^T not circulant"),
        "structure-etf": (_set(skew, ["structure"], [{"claim": "simplex-etf"}]),
                          "same W, claimed a simplex ETF"),
        "structure-span": (_set(skew, ["structure"], [{"claim": "span-I-J"}]),
                           "same W, claimed alpha I + beta (J - I)"),
        "structure-invariant": (_set(skew, ["structure"], [{"claim": "invariant",
                                                            "generators": S2}]),
                                "same W, claimed invariant under the swap"),
        "target-invariant": (_set(half, ["structure"], [{"claim": "invariant",
                                                         "generators": S2}]),
                             "Y = [[1, 1/2], [0, 1/2]] is not preserved by the swap"),
        "structure-inactive": (_set(b, ["structure"], [{"claim": "budget-inactive"}]),
                               "budget-inactive claimed with P != Y"),
        "generator": (_set(b, ["structure", 2, "generators"], [[0, 0]]),
                      "a generator that is not a permutation"),
        "transitivity": (t | {"parts": [etf3]}, "ETF on m = 3 with only the identity as "
                         "generator: not 2-transitive"),
        "group-order": (v["layer-peeled-orbit-bracket"] | {"group_order": 3},
                        "|G| = 3 stated for S_2"),
    }


def forged_inactive() -> dict[str, dict]:
    """Two genuine brackets from the engine's emitter with the claim ``budget-inactive``
    added: a 4 x 6 target with zeros (the budget is always active there) and a 3 x 3
    full-support target at rho = 0.999 x its free radius (just active).  The checker never
    accepts the claim (it is not verifiable from the file), so both are invalid examples."""
    from logitgeom.convex.problem import LayerPeeled

    zeros = [["1/2", "0", "1/4", "0", "1", "1/3"], ["1/2", "1/2", "1/4", "0", "0", "1/3"],
             ["0", "1/2", "1/4", "1/2", "0", "1/3"], ["0", "0", "1/4", "1/2", "0", "0"]]
    full = [["1/2", "1/4", "1/5"], ["1/4", "1/2", "3/10"], ["1/4", "1/4", "1/2"]]
    r = LayerPeeled(full, 1, 1).free_radius * 999 / 1000
    rho = Fraction(r).limit_denominator(10 ** 6)
    out = {}
    for name, lp in (("zeros-4x6", LayerPeeled(zeros, 1, 1)),
                     ("near-free-3x3", LayerPeeled(full, rho * rho, 1))):  # rho = sqrt(E_W E_H)
        c = lp.solve().certificate()
        c["structure"] = c["structure"] + [{"claim": "budget-inactive"}]
        out[name] = c
    return out
