"""The SPEC examples of the ``argmax-audit`` certificate kind (certificates/SPEC.md, 9).

:func:`valid_certificate` is ``certificates/examples/valid-argmax-audit.json``;
:func:`invalid_certificates` are the files ``certificates/examples/argmax-audit/
invalid-<failed_check>.json``, each the valid one with a single change.  Regenerate with
``scripts/make_certificate_examples.py``.

Examples
--------
>>> from logitgeom_certificates.api import check
>>> check(valid_certificate()).ok
True
>>> all(check(c).failed_check == name for name, (c, _) in invalid_certificates().items()
...     if isinstance(c, dict))
True
"""

from __future__ import annotations

import copy
from pathlib import Path

__all__ = ["EXAMPLE_W", "EXAMPLE_BIAS", "valid_certificate", "invalid_certificates",
           "write_examples"]

#: Five labels in the plane: four vertices of a diamond and its centre with bias 1/2.  Every
#: label is the strict argmax somewhere, but in the box max_j |x_j| <= 1/4 only the centre.
EXAMPLE_W = [[1, 0], [-1, 0], [0, 1], [0, -1], [0, 0]]
EXAMPLE_BIAS = [0, 0, 0, 0, "1/2"]


def valid_certificate() -> dict:
    """A small ``argmax-audit`` certificate with a bias and both domains (records inline)."""
    from logitgeom.audit.run import audit_argmax

    r = audit_argmax(EXAMPLE_W, bias=EXAMPLE_BIAS, radius="1/4", progress=False,
                     block_size=8)
    cert = r.certificate()
    cert["statement"] = ("every label is the strict argmax for some input; inside "
                         "max_j |x_j| <= 1/4 only label 4 (the centre, bias 1/2) is")
    return cert


def invalid_certificates() -> dict[str, tuple[dict, str]]:
    """failed_check -> (certificate, one-line description of the single change)."""
    v = valid_certificate()

    def mut(fn):
        c = copy.deepcopy(v)
        fn(c)
        return c

    def rec(c, label):
        return next(r for r in c["records"] if r["label"] == label)

    never_box = next(r["label"] for r in v["records"] if r["box"]["verdict"] == "never")
    return {
        "schema": (mut(lambda c: rec(c, 0)["all"].pop("verdict")), "a verdict is missing"),
        "number": (mut(lambda c: c["bias"].__setitem__(4, "0.5")), "bias '0.5' (not p/q)"),
        "shape": (mut(lambda c: c["bias"].pop()), "four biases for five rows"),
        "witness": (mut(lambda c: rec(c, 4)["all"].__setitem__(
            "witness", {"x": ["1", "0"]})), "label 4's witness moved to (1, 0)"),
        "box": (mut(lambda c: rec(c, 4)["box"].__setitem__("witness", {"x": ["1", "0"]})),
                "a box witness with max |x_j| = 1 > 1/4"),
        "gordan-nonnegative": (mut(lambda c: rec(c, never_box)["box"]["multipliers"]
                                   .__setitem__(0, "-1")), "a negative multiplier"),
        "gordan-nonzero": (mut(lambda c: rec(c, never_box)["box"].update(rows=[],
                                                                         multipliers=[])),
                           "no multipliers"),
        "gordan-support": (mut(lambda c: rec(c, never_box)["box"]["rows"]
                               .__setitem__(0, never_box)), "the label itself in the support"),
        "gordan-combination": (mut(lambda c: rec(c, never_box)["box"]["rows"]
                                   .__setitem__(0, 1)), "multiplier moved to another row"),
        "count": (mut(lambda c: c["counts"]["box"].update(never=0)), "stated counts wrong"),
        "labels": (mut(lambda c: c["records"].pop()), "a label's record is missing"),
        "file": (mut(lambda c: (c.pop("records"), c.__setitem__(
            "shards", [{"file": "missing-shard.jsonl", "sha256": "0" * 64}]))),
                 "a shard file that does not exist"),
    }


def write_examples(examples_dir: str | Path) -> list[Path]:
    """Write valid-argmax-audit.json and argmax-audit/invalid-*.json; return the paths."""
    from logitgeom._fsio import write_atomic
    from logitgeom.certify.common import dumps

    root = Path(examples_dir)
    sub = root / "argmax-audit"
    sub.mkdir(parents=True, exist_ok=True)
    paths = [root / "valid-argmax-audit.json"]
    write_atomic(paths[0], dumps(valid_certificate()))
    for name, (c, _) in invalid_certificates().items():
        p = sub / f"invalid-{name}.json"
        write_atomic(p, dumps(c))
        paths.append(p)
    # the same records as a JSON-lines shard: a valid sharded certificate and a bad hash
    import hashlib
    import json

    v = valid_certificate()
    data = "".join(json.dumps(r, sort_keys=True, separators=(",", ":")) + "\n"
                   for r in v.pop("records")).encode()
    write_atomic(sub / "records.jsonl", data)
    for name, sha in (("valid-sharded", hashlib.sha256(data).hexdigest()),
                      ("invalid-file-hash", "0" * 64)):
        c = dict(v, shards=[{"file": "records.jsonl", "sha256": sha}])
        p = sub / f"{name}.json"
        write_atomic(p, dumps(c))
        paths.append(p)
    return [*paths, sub / "records.jsonl"]
