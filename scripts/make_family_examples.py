"""The valid and invalid examples of the layer-peeled family's kinds (SPEC.md, section 11).

Built by the engine's emitters on small instances of Fang et al.'s model (K_A = K_B = 2,
per-class budgets 3): a CE bracket at R = 3, MSE and BCE brackets, a ``minority-separation``
theorem at R = 1 and a ``minority-collapse`` theorem at R = 1000.  Imported by
``scripts/make_certificate_examples.py``; ``python scripts/make_family_examples.py`` writes
only these files.  They come from a float solve, so another CPU or BLAS kernel writes other
bytes: ``tests/test_certificates_paper.py`` checks them for what they prove (they check,
state the same program, and their brackets meet a fresh build's), not byte for byte.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from logitgeom import emit  # noqa: E402
from logitgeom.convex.family import minority_program  # noqa: E402
from logitgeom.convex.minority import minority_point  # noqa: E402
from logitgeom_certificates.check import check  # noqa: E402

OUT = ROOT / "certificates" / "examples"


def valid() -> dict[str, dict]:
    ce = minority_program(2, 2, 3, 3, 3).solve().certificate()
    mse = minority_program(2, 2, 3, 3, 3, loss="mse").solve().certificate()
    bce = minority_program(2, 2, 3, 3, 3, loss="bce").solve().certificate()
    return {"layer-peeled-weighted-bracket": ce, "layer-peeled-mse-bracket": mse,
            "layer-peeled-bce-bracket": bce,
            "layer-peeled-family-theorem": minority_point(2, 2, 1000, 3, 3).theorem}


def invalid(v: dict) -> dict[str, tuple[dict, str]]:
    def mut(kind, edit, why):
        c = copy.deepcopy(v[kind])
        edit(c)
        return c, why

    ce, thm = "layer-peeled-weighted-bracket", "layer-peeled-family-theorem"
    sep = minority_point(2, 2, 1, 3, 3).theorem
    bad_sep = copy.deepcopy(sep)
    bad_sep["parts"][0].update(upper=bad_sep["parts"][1]["upper"], eps="1",
                               eps_mode="absolute")  # still a valid (wider) bracket
    return {
        "weights": mut(ce, lambda c: c.update(weights=["0"] + c["weights"][1:]),
                       "a weight 0"),
        "equal-rows": mut(ce, lambda c: c.update(equal_rows=[2, 3]),
                          "equal_rows on labels whose rows differ"),
        "dual-admissible": mut("layer-peeled-bce-bracket",
                               lambda c: c["A"][0].__setitem__(0, "3/2"), "A[0][0] = 3/2"),
        "structure-equal-rows": mut(ce, lambda c: c["structure"].append(
            {"claim": "equal-rows", "labels": [0, 2]}), "rows 0 and 2 claimed equal"),
        "theorem-hypothesis": (_unequal_budgets(v[thm]),
                               "h_budget not constant on the minority labels"),
        "theorem-inequality": (bad_sep, "separation: upper of the plain part raised above "
                                        "lower of the restricted part"),
    }


def _unequal_budgets(thm: dict) -> dict:
    """The collapse theorem's shape on a program whose minority budgets differ (valid parts)."""
    from fractions import Fraction

    from logitgeom.convex.family import LayerPeeledFamily

    w = [Fraction(x) for x in thm["parts"][0]["weights"]]
    parts = []
    for E in (Fraction(12), Fraction(12) * Fraction(17, 16) ** 2):
        P = LayerPeeledFamily([[int(i == j) for j in range(4)] for i in range(4)], E, 12,
                              weights=w, h_budget=[1, 1, 1, 2], equal_rows=[2, 3])
        parts.append(P.solve().certificate())
    return {**emit.header("layer-peeled-family-theorem"), "theorem": "minority-collapse",
            "parts": parts}


def main() -> int:
    v = valid()
    for name, c in v.items():
        assert check(c).ok, (name, check(c))
        (OUT / f"valid-{name}.json").write_text(emit.dumps(c), encoding="utf-8")
    for name, (c, _) in invalid(v).items():
        got = check(c).failed_check
        assert got == name, (name, got)
        (OUT / f"invalid-{name}.json").write_text(emit.dumps(c), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
