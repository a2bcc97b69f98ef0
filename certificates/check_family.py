"""The layer-peeled family: weighted, MSE and BCE brackets, and the minority theorems.

Standard library only (certificates/SPEC.md section 11; docs/layer-peeled-family.md).  A
bracket reads Y (``target``: CE probability columns, BCE entries in [0, 1]), the weights w
and budget weights beta (> 0: ``weights``), the label set B (``equal_rows``), W, H and the
dual point A, and hands them to the one bracket obligation (:func:`.convex.bracket`).

``layer-peeled-family-theorem``: two brackets of one program (same kind, Y, w, beta), each
checked first; ``minority-separation``: (plain, restricted to B), same budgets,
upper_0 < lower_1; ``minority-collapse``: (restricted at rho_0, restricted at rho_1 > rho_0),
Y = I, w and beta constant on B, and (lower_0 - upper_1)^2 beta_B >= w_B^2 (rho_1 - rho_0)^2
with rho_0 rounded down and lower_0 - upper_1 > 0.

Examples
--------
>>> cert = {"format": "logitgeom-certificate", "version": 1,
...         "kind": "layer-peeled-mse-bracket", "Y": [["1"]], "E_W": "1", "E_H": "1",
...         "weights": ["1"], "h_budget": ["1"], "equal_rows": [], "W": [["1"]],
...         "H": [["1"]], "A": [["1"]], "s": "0", "rho_up": "1", "precision": 30,
...         "lower": "0", "upper": "0", "eps": "0", "eps_mode": "absolute", "structure": []}
>>> check(cert).upper
Fraction(0, 1)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import Context
from fractions import Fraction

from . import convex as C
from . import kernel as K
from .reals import exp_up, log_up


def _mse_upper(z: Sequence[int], y: Sequence[Fraction], D: int, ctx: Context) -> Fraction:
    return sum(((Fraction(zi, D) - yi) ** 2 for zi, yi in zip(z, y, strict=True)), Fraction(0)) / 2


def _bce_upper(z: Sequence[int], y: Sequence[Fraction], D: int, ctx: Context) -> Fraction:
    ts = [Fraction(zi, D) for zi in z]  # softplus(t) = max(t, 0) + log(1 + exp(-|t|))
    return sum((max(t, Fraction(0)) + log_up(1 + exp_up(-abs(t), ctx), ctx) - yi * t
                for t, yi in zip(ts, y, strict=True)), Fraction(0))


def _unit_box(M: K.Mat, check: str, loc: str) -> None:
    K.fail_if(any(not 0 <= x <= 1 for r in M for x in r), check, loc,
              "the entries must lie in [0, 1]")


#: kind -> its loss: MSE (any target or dual point, c(a; y) = (||y||^2 - ||a||^2) / 2) and
#: BCE (entries in [0, 1], c the binary entropy) beside cross-entropy
LOSS_OF = {"layer-peeled-weighted-bracket": C.CE,
           "layer-peeled-mse-bracket": C.Loss(lambda M, check, loc: None, _mse_upper,
                                              lambda a, y, ctx: (K.dot(y, y) - K.dot(a, a)) / 2),
           "layer-peeled-bce-bracket": C.Loss(_unit_box, _bce_upper, lambda a, y, ctx: C.entropy(
               [p for q in a for p in (q, 1 - q)], ctx))}
THEOREM_KIND = "layer-peeled-family-theorem"
KINDS = (*LOSS_OF, THEOREM_KIND)
THEOREMS = ("minority-separation", "minority-collapse")
#: the fields of a family bracket
FIELDS = C.FIELDS | {"Y", "weights", "h_budget", "equal_rows", "H", "A"}


def check(obj: K.Obj, loc: str = "", parts: object = None) -> C.Reading:
    """A family bracket (any of the three kinds)."""
    loss = LOSS_OF[obj["kind"]]
    Y = K.read_field(K.read_matrix, obj, "Y", loc)
    m, n = len(Y), len(Y[0])
    loss.admissible(Y, "target", f"{loc}/Y")
    w, beta = (K.read_field(K.read_vector, obj, key, loc, n) for key in ("weights", "h_budget"))
    for key, v in (("weights", w), ("h_budget", beta)):
        K.fail_if(any(x <= 0 for x in v), "weights", f"{loc}/{key}", f"{key} must be > 0")
    B = K.read_field(K.read_ints, obj, "equal_rows", loc, 0, m - 1)
    K.fail_if(list(B) != sorted(set(B)) or len(B) == 1, "schema", f"{loc}/equal_rows",
              "equal_rows is empty or at least two distinct labels in increasing order")
    W = K.read_field(K.read_matrix, obj, "W", loc, rows=m)
    H = K.read_field(K.read_matrix, obj, "H", loc, rows=len(W[0]), cols=n)
    A = K.read_field(K.read_matrix, obj, "A", loc, rows=m, cols=n)
    return C.bracket(obj, loc, Y, W, H, A, loss, w, beta, B, names=("H", "A"),
                     claims=C.FAMILY_CLAIMS)


def check_theorem(obj: K.Obj, loc: str, parts: K.Checker) -> None:
    """A ``layer-peeled-family-theorem``: each part checked by ``parts`` (the checker's
    dispatch), then the theorem's hypotheses and inequality on their readings."""
    name = K.get(obj, "theorem", loc)
    K.fail_if(name not in THEOREMS, "unsupported-kind", f"{loc}/theorem",
              f"unknown theorem {ascii(name)[:40]}")
    listed = K.read_field(K.read_list, obj, "parts", loc)
    K.fail_if(len(listed) != 2 or any(not isinstance(p, dict) or p.get("kind") not in LOSS_OF
                                      for p in listed), "theorem-parts", f"{loc}/parts",
              f"{name} needs two family brackets")
    r0, r1 = (parts(p, f"{loc}/parts/{n}") for n, p in enumerate(listed))
    assert isinstance(r0, C.Reading) and isinstance(r1, C.Reading)

    def mismatch(cond: object, what: str, where: str = f"{loc}/parts") -> None:
        K.fail_if(cond, "theorem-mismatch", where, what)

    mismatch((listed[0]["kind"], r0.Y, r0.w, r0.beta) != (listed[1]["kind"], r1.Y, r1.w, r1.beta),
             "both parts must be the same program (kind, Y, weights, h_budget)")
    if name == "minority-separation":
        mismatch((r0.EW, r0.EH) != (r1.EW, r1.EH), "both parts must have the same budgets")
        mismatch(r0.B or not r1.B, "part 0 is the plain program (equal_rows empty), part 1 the "
                 "restricted one")
        K.fail_if(r0.upper >= r1.lower, "theorem-inequality", f"{loc}/parts",
                  "upper of the plain program is not below lower of the restricted one")
        return
    mismatch(not r0.B or r0.B != r1.B, "both parts must be restricted to the same labels")
    m, B = len(r0.Y), r0.B
    K.fail_if(r0.Y != tuple(tuple(Fraction(i == j) for j in range(m)) for i in range(m)),
              "theorem-hypothesis", f"{loc}/parts/0/Y", "minority-collapse needs Y = I")
    K.fail_if(len({(r0.w[b], r0.beta[b]) for b in B}) > 1, "theorem-hypothesis", f"{loc}/parts/0",
              "weights and h_budget must be constant on the restricted labels")
    mismatch(r1.EW * r1.EH <= r0.EW * r0.EH, "part 1 must have the larger radius", f"{loc}/parts/1")
    drop = r0.lower - r1.upper
    rho0 = Fraction(math.isqrt(math.floor(r0.EW * r0.EH * 4 ** 80)), 2 ** 80)  # <= sqrt(E_W E_H)
    K.fail_if(drop <= 0 or drop * drop * r0.beta[B[0]] < r0.w[B[0]] ** 2 * (r1.rho - rho0) ** 2,
              "theorem-inequality", f"{loc}/parts",
              "(lower_0 - upper_1) / (rho_1 - rho_0) < w_B / sqrt(beta_B): the secant slope "
              "does not exceed the weight of the separating direction")


KIND_TABLE = {**{k: (check, FIELDS) for k in LOSS_OF},
              THEOREM_KIND: (check_theorem, {"theorem", "parts", "label"})}
