"""The valid and invalid examples of the rank-bracket and stability kinds (SPEC.md, section 12).

Small instances (m = 3 cyclic targets, 20 decimal digits), emitted by the engine
(``logitgeom.certify.rank``, ``logitgeom.certify.stability``: a solver proposes, the checker
decides), each invalid file one documented change of a valid one.

Run:  .venv/bin/python scripts/make_beyond_examples.py
"""

from __future__ import annotations

import copy
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from logitgeom.certify.common import dumps  # noqa: E402
from logitgeom.convex.lowrank import rank_certificate  # noqa: E402
from logitgeom.convex.problem import LayerPeeled  # noqa: E402
from logitgeom.convex.stability import stability_certificate  # noqa: E402
from logitgeom.convex.targets import cyclic_orbit  # noqa: E402
from logitgeom.symmetry import cyclic  # noqa: E402
from logitgeom.symmetry.group import column_action  # noqa: E402
from logitgeom_certificates.api import check  # noqa: E402

EX = ROOT / "certificates" / "examples"
F = Fraction


def examples() -> dict[str, dict]:
    """{file name: certificate}."""
    Y = cyclic_orbit(["3/5", "3/10", "1/10"], exact=True)
    rank = rank_certificate(LayerPeeled(Y, 1, 4), 1, precision=20)
    rank["statement"] = ("Hidden width 1 for the cyclic target circ(3/5, 3/10, 1/10), E_W = 1, "
                         "E_H = 4: lower <= J*_conv <= J*_1 <= upper.")
    Yp = Y.copy()
    Yp[:, 0] = [F(13, 20), F(1, 4), F(1, 10)]
    G = column_action(cyclic(3), Y)
    stab = stability_certificate(Yp, 1, 4, G, precision=20)
    out = {"valid-layer-peeled-rank-bracket.json": rank,
           "valid-layer-peeled-stability.json": stab}

    def bad(base: dict, name: str, edit) -> None:
        c = copy.deepcopy(base)
        edit(c)
        out[f"invalid-{name}.json"] = c

    def wider(c):
        c["W"] = [r + ["0"] for r in c["W"]]
        c["H"] = c["H"] + [["0"] * len(c["H"][0])]

    bad(rank, "rank-bound", wider)
    bad(rank, "relaxation-exact", lambda c: c.update(relaxation="exact"))
    bad(stab, "stability", lambda c: c.update(
        stability=str(F(c["stability"]) - F(1, 10 ** 6))))
    bad(stab, "gap", lambda c: c.update(gap_lower=str(F(c["gap_lower"]) + F(1, 100))))
    bad(stab, "strong-convexity", lambda c: c.update(mu=str(2 * F(c["mu"]))))
    bad(stab, "distance", lambda c: c.update(distance2=str(F(c["distance2"]) / 2)))
    # Y0 = the unperturbed cyclic target (invariant, not the group average of Yp), claimed
    # to be the average
    other = stability_certificate(Yp, 1, 4, G, Y0=np.array(Y), precision=20)
    assert not other["average"]

    def claim_average(c):
        c["average"], c["gap_lower"], c["gap_upper"] = True, "0", c["stability"]
    bad(other, "average", claim_average)
    return out


def main() -> int:
    for name, c in examples().items():
        v = check(c)
        assert v.ok == name.startswith("valid-"), (name, v)
        assert name.startswith("valid-") or v.failed_check == name[8:-5], (name, v)
        (EX / name).write_text(dumps(c))
        print(f"wrote certificates/examples/{name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
