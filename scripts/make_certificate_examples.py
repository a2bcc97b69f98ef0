"""Regenerate ``certificates/examples/*.json``: the valid and invalid examples of SPEC.md.

Run ``.venv/bin/python scripts/make_certificate_examples.py``.  Valid examples are built by
the emitters; each invalid example is a valid one with a single change, and its file name
``invalid-<failed_check>.json`` names the check the checker must report.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from make_bracket_examples import forged_inactive  # noqa: E402
from make_bracket_examples import invalid as bracket_invalid  # noqa: E402
from make_bracket_examples import valid as bracket_valid  # noqa: E402
from make_family_examples import invalid as family_invalid  # noqa: E402
from make_family_examples import valid as family_valid  # noqa: E402

from logitgeom import emit  # noqa: E402
from logitgeom.audit import examples as audit_examples  # noqa: E402
from logitgeom_certificates.check import check  # noqa: E402

OUT = ROOT / "certificates" / "examples"
H = emit.header


def valid() -> dict[str, dict]:
    W = [[1, 0], [0, 1], [1, 1]]
    v = {
        "sign-feasible": emit.sign_certificate(W, [1, -1, 1]),
        "sign-feasible-affine": emit.sign_certificate(W, [-1, -1, 1], bias=[1, 1, 3]),
        "sign-infeasible": emit.sign_certificate(W, [1, 1, -1]),
        "ranking-feasible": emit.ranking_certificate(W, [2, 0, 1]),
        "ranking-feasible-top": emit.ranking_certificate(W, [1]),
        "ranking-infeasible": emit.ranking_certificate([[1, 0], [0, 1], [-1, -1], [1, 1]],
                                                       [2, 3]),
        "translation": emit.translation_certificate(W, 0, 1, -1),
        "cosine-equal": emit.cosine_equal_certificate([[1, 0], [1, 1], [0, 1]],
                                                      [[2, 0], [3, 3], [0, 1]]),
        "same-chirotope": emit.chirotope_certificate(W, [[2, 0], [0, 3], [1, 2]]),
        "pattern-complete": emit.complete_certificate(W, "sign"),
        "pattern-complete-ranking": emit.complete_certificate(W, "ranking"),
        "pattern-differs": emit.differs_certificate([[1, 0], [0, 1], [1, 1]],
                                                    [[1, 0], [0, 1], [-1, 1]]),
        "theorem": emit.bundle_certificate(
            "translation-cosine", [emit.translation_certificate(W, 0, 1, t) for t in (-1, 1)],
            "W, W', W'' give identical probabilities; cos(w'_0, w'_1) = -1, "
            "cos(w''_0, w''_1) = +1"),
    }
    v["argmax-audit"] = audit_examples.valid_certificate()  # its invalid ones: argmax-audit/
    return v | bracket_valid() | family_valid()


def _set(c, path, value):
    *head, last = path
    for p in head:
        c = c[p]
    c[last] = value


def invalid(v: dict[str, dict]) -> dict[str, tuple[dict | str, str]]:
    """failed_check -> (certificate or raw text, one-line description of the change)."""

    def mut(name, path, value):
        c = copy.deepcopy(v[name])
        _set(c, path, value)
        return c

    def drop(name, key):
        c = copy.deepcopy(v[name])
        del c[key]
        return c

    pc = v["pattern-complete"]
    lat = pc["lattice"]
    return {
        "unreadable": ('{"format": "logitgeom-certificate", "version": 1,', "truncated JSON"),
        "unsupported-format": (mut("sign-feasible", ["format"], "vipr"), "format is not ours"),
        "unsupported-version": (mut("sign-feasible", ["version"], 2), "version 2"),
        "unsupported-kind": (mut("sign-feasible", ["kind"], "sign-magic"), "unknown kind"),
        "schema": (drop("sign-feasible", "witness"), "the witness is missing"),
        "number": (emit.dumps(v["sign-feasible"]).replace('["1", "0"]', '[1.0, "0"]', 1),
                   "a JSON float instead of a 'p/q' string"),
        "shape": (mut("sign-feasible", ["signs"], [1, -1]), "two signs for three rows"),
        "face-sign": (mut("sign-feasible", ["signs"], [1, 0, 1]), "sign 0 on a non-zero row"),
        "witness": (mut("sign-feasible", ["signs"], [1, -1, -1]), "a sign flipped"),
        "gordan-nonnegative": (mut("sign-infeasible", ["multipliers"], ["1", "1", "-1"]),
                               "a negative multiplier"),
        "gordan-support": (_support_example(), "multiplier on a tied pair"),
        "gordan-nonzero": (mut("sign-infeasible", ["multipliers"], ["0", "0", "0"]),
                           "all multipliers zero"),
        "gordan-combination": (mut("sign-infeasible", ["multipliers"], ["1", "2", "1"]),
                               "sum y_i s_i w_i is not zero"),
        "translation-rows": (mut("translation", ["W_translated", 2, 0], "7"),
                             "W' is not W + 1 v^T"),
        "zero-row": (mut("cosine-equal", ["W2", 2], ["0", "0"]), "a zero row has no cosine"),
        "not-parallel": (_not_parallel(v), "w'_0 and w'_1 not parallel"),
        "cosine-sign": (mut("translation", ["target"], 1), "target +1 but cos is -1"),
        "cosine-magnitude": (mut("cosine-equal", ["W2", 1], ["3", "2"]),
                             "one cosine changes, its sign does not"),
        "chirotope-sign": (mut("same-chirotope", ["W2", 2], ["-1", "2"]), "one minor flips"),
        "rank": (mut("same-chirotope", ["W2"], [["1", "0"], ["2", "0"], ["3", "0"]]) |
                 {"W1": [["1", "0"], ["2", "0"], ["-3", "0"]]}, "rank 1 < d = 2"),
        "flat-empty": (_affine_lattice_example(), "parallel affine lines listed as a flat"),
        "flat-rank": (mut("pattern-complete", ["lattice", 1, "rank"], 2), "rank 2 for a line"),
        "flat-closed": (mut("pattern-complete", ["lattice", 4, "hyperplanes"], [0, 1]),
                        "the origin flat misses hyperplane 2"),
        "flat-duplicate": (mut("pattern-complete", ["lattice"], lat + [lat[1]]),
                           "a flat listed twice"),
        "lattice-bottom": (mut("pattern-complete", ["lattice"], lat[1:]),
                           "the whole space is not listed"),
        "lattice-incomplete": (mut("pattern-complete", ["lattice"], lat[:4]),
                               "the origin is not listed"),
        "duplicate-pattern": (mut("pattern-complete", ["patterns", 1], pc["patterns"][0]),
                              "one pattern listed twice"),
        "count": (mut("pattern-complete", ["patterns"], pc["patterns"][:-1]),
                  "one region missing"),
        "theorem-parts": (mut("theorem", ["parts"], v["theorem"]["parts"][:1]),
                          "a part is missing"),
        "theorem-mismatch": (mut("theorem", ["parts"], v["theorem"]["parts"][::-1]),
                             "targets in the wrong order"),
        "work-budget": (mut("same-chirotope", ["W1"], _big()) | {"W2": _big()},
                        "20 x 10: C(20, 10) determinants, above the default --max-work"),
        **bracket_invalid(v),
        **family_invalid(v),
    }


def _big() -> list[list[str]]:
    # distinct rows of small integers; refused from its size before any determinant
    return [[str((3 * i + 7 * j) % 11 - 5) for j in range(10)] for i in range(20)]


def _support_example() -> dict:
    # labels 0 and 1 are tied; the pair (0, 1) is not a constraint, its multiplier must be 0
    c = emit.ranking_certificate([[1], [1], [2], [-1]], [0, 1, 2, 3])
    assert c["kind"] == "ranking-infeasible"
    c["multipliers"] = ["1", "3", "1"]
    return c


def _not_parallel(v) -> dict:
    c = copy.deepcopy(v["translation"])
    c["v"] = ["0", "0"]
    c["W_translated"] = c["W"]
    return c


def _affine_lattice_example() -> dict:
    c = emit.complete_certificate([[1, 0], [1, 0]], "sign", bias=[0, -1])
    c["lattice"].append({"hyperplanes": [0, 1], "rank": 1})
    return c


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("*.json"):
        old.unlink()
    v = valid()
    for name, c in v.items():
        assert check(c).ok, (name, check(c))
        (OUT / f"valid-{name}.json").write_text(emit.dumps(c), encoding="utf-8")
    for name, (c, _) in invalid(v).items():
        text = c if isinstance(c, str) else emit.dumps(c)
        (OUT / f"invalid-{name}.json").write_text(text, encoding="utf-8")
    audit_examples.write_examples(OUT)
    forged = OUT / "budget-inactive"  # rejected with structure-inactive (never accepted)
    forged.mkdir(exist_ok=True)
    for name, c in forged_inactive().items():
        (forged / f"invalid-{name}.json").write_text(emit.dumps(c), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
