"""Wolfe's corral on a face (logitgeom.audit.nearest): a label exactly on a face of other rows
(a midpoint, an average) is proven by the exact solve on the corral's rows in the Wolfe stage,
not left to the refined LP; near the face (a hair off it, either side) the step concludes
nothing wrong.  Every verdict is compared with the exact oracle of tests/test_audit_exact.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from logitgeom.audit import Options, audit_argmax, nearest
from logitgeom.audit.head import HeadSpec, open_head
from logitgeom_certificates.check import check
from tests.test_audit_exact import oracle


def _face_head(seed: int, n: int = 40, d: int = 5):
    """Rows on a 2^-3 grid with first coordinate at most 1/2, except six rows on the facet
    x_1 = 1; labels 0..2 are a midpoint of two facet rows and averages of four (exact in
    binary), so each lies on that facet of the others' hull: never the argmax, and no
    corral of d + 1 rows can hold 0."""
    rng = np.random.default_rng(seed)
    W = rng.integers(-8, 9, (n, d)) / 8.0
    W[:, 0] = np.minimum(W[:, 0], 0.5)
    facet = np.arange(3, 9)
    W[facet, 0] = 1.0
    W[0] = (W[3] + W[4]) / 2
    W[1] = (W[5] + W[6] + W[7] + W[8]) / 4
    W[2] = (W[3] + W[6] + W[7] + W[8]) / 4
    return W


@pytest.mark.parametrize("seed", range(4))
def test_labels_on_a_face_are_proven_in_the_wolfe_stage(seed):
    W = _face_head(seed)
    head = open_head(HeadSpec.from_array(W))
    for k in range(3):
        stats: dict = {}
        rec = nearest.wolfe_label(head, k, Options(), stats)
        assert rec is not None and rec["verdict"] == "never" and rec["stage"] == "wolfe", k
        assert "refine" not in stats
    r = audit_argmax(W, progress=False)
    cert = r.certificate()
    assert check(cert).ok
    recs = {rec["label"]: rec["all"] for rec in cert["records"]}
    for k in range(3):
        assert recs[k]["verdict"] == "never" and recs[k]["stage"] == "wolfe", k
    for k in range(len(W)):
        assert r.verdicts["all"][k] == oracle(W, None, k), k


@pytest.mark.parametrize("push", [1e-13, -1e-13, 1e-9, -1e-9])
def test_a_hair_off_the_face_is_not_concluded_wrongly(push):
    W = _face_head(0)
    W[0, 0] += push  # off the facet: outside the hull (argmaxable) or inside it (never)
    head = open_head(HeadSpec.from_array(W))
    rec = nearest.wolfe_label(head, 0, Options(), {})
    truth = oracle(W, None, 0)
    assert truth == ("argmaxable" if push > 0 else "never")
    assert rec is None or rec["verdict"] == truth
    r = audit_argmax(W, progress=False)
    assert r.verdicts["all"][0] == truth
    assert check(r.certificate()).ok


def test_the_face_step_only_proposes(monkeypatch):
    # every corral counts as "0 up to rounding": the exact solve still decides each one
    monkeypatch.setattr(nearest, "ON_FACE", 1.0)
    W = _face_head(1)
    W[0, 0] += 1e-9
    head = open_head(HeadSpec.from_array(W))
    for k in range(len(W)):
        rec = nearest.wolfe_label(head, k, Options(), {})
        assert rec is None or rec["verdict"] == oracle(W, None, k), k


@pytest.mark.parametrize("seed", range(3))
def test_biased_labels_on_a_face(seed):
    W = _face_head(seed)
    rng = np.random.default_rng(100 + seed)
    b = rng.integers(-4, 5, len(W)) / 8.0
    b[0] = (b[3] + b[4]) / 2  # on the face in (w, b) too: never
    b[1] = (b[5] + b[6] + b[7] + b[8]) / 4 + 0.125  # above it: may be the argmax
    head = open_head(HeadSpec.from_array(W, b))
    rec = nearest.wolfe_label_bias(head, 0, Options(), {})  # by the face step or a full corral
    assert rec is not None and rec["verdict"] == "never"
    for k in range(len(W)):
        rec = nearest.wolfe_label_bias(head, k, Options(), {})
        assert rec is None or rec["verdict"] == oracle(W, b, k), k
    r = audit_argmax(W, bias=b, progress=False)
    assert check(r.certificate()).ok
    for k in range(len(W)):
        assert r.verdicts["all"][k] == oracle(W, b, k), k
