"""The argmax audit's screens and scheduling: the vectorised rigorous bound never proves a
wrong margin, bias and box labels decided by the screen (x = t w_k with t in the interval of
positive margins), hardest-first scheduling of the labels the screens leave, and the same
certificate bytes with one or two workers."""

from __future__ import annotations

import json
import math
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from logitgeom.audit import audit_argmax
from logitgeom.audit.decide import confirm_witness, decide_block
from logitgeom.audit.head import HeadSpec, open_head
from logitgeom.audit.proofs import Options, violations
from logitgeom.audit.screen import columns_proven, scale_interval, screen_block
from logitgeom.geometry import argmaxable
from logitgeom.run.executor import make_executor
from logitgeom_certificates.check import check
from logitgeom_certificates.check_audit import check_file

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))


def _float_head(k: int, d: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((k, d)).astype(np.float32)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_columns_proven_implies_exact_positivity(seed):
    """Whatever the bound proves is true (checked exactly, margin by margin), and a
    candidate with a tiny margin is left to exact arithmetic, never proven by floats."""
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((60, 5)).astype(np.float32).astype(np.float64)
    W[5] = (W[0] + W[1]) / 2 * (1 + 2.0**-40)  # just outside a segment: tiny margins
    W[6] = W[7] * (1 + 2.0**-45)
    b = rng.standard_normal(60)
    for bias in (None, b):
        h = open_head(HeadSpec.from_array(W, bias))
        ks = np.arange(60)
        X = np.hstack([W.T, rng.standard_normal((5, 60))])
        ks2 = np.r_[ks, ks]
        ok = columns_proven(h, ks2, X, h.matmul(X))
        for j in np.flatnonzero(ok):
            assert violations(h, int(ks2[j]), X[:, j]).size == 0
            # every margin exactly positive
            xq = [Fraction(v) for v in X[:, j].tolist()]
            k = int(ks2[j])
            for i in range(60):
                if i != k:
                    m = sum((Fraction(a) - Fraction(c)) * x
                            for a, c, x in zip(W[k].tolist(), W[i].tolist(), xq, strict=True))
                    m += (0 if bias is None else Fraction(bias[k]) - Fraction(bias[i]))
                    assert m > 0
        if bias is None:
            assert not ok[5] and not ok[6] and not ok[7]  # too close for the float bound
        assert ok.sum() >= 10


def test_scale_interval():
    g = np.array([np.inf, 2.0, -1.0, 0.5])
    db = np.array([0.0, -1.0, 4.0, 1.0])
    t = scale_interval(g, db)  # (0.5, 4): a power of two inside
    assert 0.5 < t < 4 and t == 2.0 ** round(math.log2(t))
    assert scale_interval(g, db, tmax=0.25) is None
    t = scale_interval(g, db, tmax=0.75)  # (0.5, 0.75): no power of two; a short dyadic
    assert 0.5 < t < 0.75
    assert scale_interval(np.array([np.inf, 0.0]), np.array([0.0, 0.0])) is None
    assert scale_interval(np.array([np.inf, 1.0]), np.array([0.0, -3.0])) == 8.0


def _bias_saved_head():
    """A diamond with its centre (the largest bias), a row inside the hull saved by its bias
    for 1.6 < t < 2.9 along x = t w_5, and a far vertex with a low bias."""
    W = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, -1.0], [0.0, 0.0],
                  [0.25, 0.125], [3.0, 3.0]], dtype=np.float32)
    b = np.array([0.0, 0.0, 0.0, 0.0, 0.625, 0.5, -4.0], dtype=np.float32)
    return W, b


def test_bias_labels_inside_the_hull_decided_by_the_screen():
    W, b = _bias_saved_head()
    h = open_head(HeadSpec.from_array(W, b))
    sc = screen_block(h, tuple(range(7)), Options())
    # label 5 is inside the hull of the others but its bias saves it; some g_i < 0, so
    # the power-of-two rule fails and the interval of t gives t = 2
    assert not sc.pending and sc.out[5]["all"] == {
        "verdict": "argmaxable", "witness": {"scale": "2"}, "stage": "row"}
    assert sc.out[4]["all"]["stage"] == "bias"
    ref = argmaxable(W.astype(np.float64), b.astype(np.float64))
    r = audit_argmax(W, bias=b, progress=False)
    assert sorted(k for k, v in r.verdicts["all"].items() if v == "argmaxable") == \
        list(ref.labels)
    assert check(r.certificate()).ok


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_bias_and_box_screen_against_the_full_pipeline(seed):
    """Random bias heads: the screen's verdicts (all and box) equal those of the pipeline
    without the new scales (the LP path), and every certificate checks."""
    rng = np.random.default_rng(seed)
    W = (rng.standard_normal((40, 3)) * 0.5).astype(np.float32)
    b = rng.standard_normal(40).astype(np.float32)
    R = Fraction(1, 2)
    r = audit_argmax(W, bias=b, radius=R, progress=False)
    assert check(r.certificate()).ok
    assert all(r.counts[d]["undecided"] == 0 for d in ("all", "box"))
    h = open_head(HeadSpec.from_array(W, b))
    opts = Options(radius=R, domains=("all", "box"))
    sc = screen_block(h, tuple(range(40)), opts)
    # every box verdict the screen gave is a witness inside the box, exactly
    for k, rec in sc.out.items():
        box = rec.get("box")
        if box is not None and box["verdict"] == "argmaxable" and "scale" in box["witness"]:
            t = Fraction(box["witness"]["scale"])
            x = np.array([float(t * Fraction(float(v))) for v in W[k]])
            assert all(abs(t * Fraction(float(v))) <= R for v in W[k])
            assert confirm_witness(h, k, x)
    # the box verdicts against the float brute-force LP where it is clear
    from tests.test_audit import brute_force  # noqa: PLC0415 - shared reference

    bf = brute_force(W, b, radius=float(R))
    assert all(r.verdicts["box"][k] == v for k, v in bf.items() if v != "unclear")


def test_box_with_bias_decided_by_the_screen_and_tamper_rejected():
    W, b = _bias_saved_head()
    R = Fraction(1)
    h = open_head(HeadSpec.from_array(W, b))
    sc = screen_block(h, tuple(range(7)), Options(radius=R, domains=("all", "box")))
    assert not sc.pending  # every box verdict from the screen
    r = audit_argmax(W, bias=b, radius=R, progress=False)
    cert = r.certificate()
    assert check(cert).ok
    recs = {rec["label"]: rec for rec in cert["records"]}
    assert recs[5]["box"] == recs[5]["all"]  # x = 2 w_5 = (1/2, 1/4) is in the box
    # label 6: x = w_6 = (3, 3) is its witness over R^d; in the box a t in (0.267, 1/3),
    # not a power of two
    box6 = recs[6]["box"]
    assert box6["verdict"] == "argmaxable" and box6["stage"] == "row"
    t = Fraction(box6["witness"]["scale"])
    assert Fraction(4, 15) < t <= Fraction(1, 3) and t.denominator & (t.denominator - 1) == 0
    box5 = recs[5]["box"]
    # a scale putting the witness outside the box is refused
    box5["witness"] = {"scale": "1000"}
    assert check(cert).failed_check in {"box", "witness"}


def test_decide_block_and_the_two_phase_run_agree(tmp_path):
    from bench_audit_faces import build_head

    build_head(tmp_path / "m", 400, 24, 12, "faces", seed=3)
    spec_run = audit_argmax(tmp_path / "m", progress=False, block_size=64)
    from logitgeom.audit.source import load_source

    src = load_source(tmp_path / "m", work=tmp_path, out_dir=None)
    h = open_head(src.spec)
    opts = Options(center=tuple(h.mean().tolist()))
    recs = []
    for r0 in range(0, 400, 64):
        recs.extend(decide_block(src.spec, tuple(range(r0, min(400, r0 + 64))), opts)[0])
    assert [r["all"] for r in recs] == [r["all"] for r in spec_run.certificate()["records"]]


@pytest.mark.slow
def test_hardest_first_and_same_bytes_with_two_workers(tmp_path, monkeypatch):
    """The labels the screens leave run hardest first (the screen's cost estimate), and the
    certificate and shards are byte-identical with a serial run and two worker processes."""
    from bench_audit_faces import build_head

    import logitgeom.audit.run as run_mod

    planted = build_head(tmp_path / "m", 600, 32, 12, "faces", seed=5)
    order = []
    real = run_mod._label_unit
    monkeypatch.setattr(run_mod, "_label_unit", lambda u: order.append(u[1]) or real(u))
    costs = {}
    real_block = run_mod._block_unit

    def block(u):
        v = real_block(u)
        costs.update(v[3])
        return v

    monkeypatch.setattr(run_mod, "_block_unit", block)
    a = audit_argmax(tmp_path / "m", out=tmp_path / "a", progress=False, block_size=64)
    assert order and set(planted) >= set(order) - set(costs) and len(order) == len(costs)
    assert [costs[k] for k in order] == sorted(costs.values(), reverse=True)
    monkeypatch.undo()
    ex = make_executor(workers=2)
    try:
        b = audit_argmax(tmp_path / "m", out=tmp_path / "b", executor=ex, progress=False,
                         block_size=64)
    finally:
        ex.shutdown()
    assert (tmp_path / "a" / "audit.json").read_bytes() == \
        (tmp_path / "b" / "audit.json").read_bytes()
    for f in sorted((tmp_path / "a" / "shards").iterdir()):
        assert f.read_bytes() == (tmp_path / "b" / "shards" / f.name).read_bytes()
    assert a.verdicts == b.verdicts and a.counts["all"]["undecided"] == 0
    assert check_file(tmp_path / "b" / "audit.json").ok
    state = json.loads((tmp_path / "b" / "run.json").read_text())
    assert len(state["done"]) == len(list((tmp_path / "b" / "shards").iterdir()))


def _bias_face_head(seed: int, k: int = 120, d: int = 6):
    """Rows on and near faces of other rows (as in the near-face benchmark) with small
    biases: the labels the screens leave go through the homogenised Wolfe method."""
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((k, d))
    for n, lab in enumerate(range(k - 12, k)):
        m = (2, 3, 5)[n % 3]
        src = rng.choice(k - 12, size=m, replace=False)
        W[lab] = rng.dirichlet(np.ones(m)) @ W[src] * (1 + (-1) ** n * 1e-3)
    b = (rng.standard_normal(k) * 1e-3).astype(np.float32)
    return W.astype(np.float32), b


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bias_labels_through_the_homogenised_wolfe(seed, monkeypatch, tmp_path):
    import logitgeom.audit.nearest as homog

    W, b = _bias_face_head(seed)
    # A hard label is decided in a child forked from the run (logitgeom.audit.bounded), so the
    # spy records its calls in a file the parent reads, not in a list of its own.
    log = tmp_path / "calls"
    real = homog.wolfe_label_bias

    def spy(*a):
        with open(log, "a") as fh:
            fh.write(f"{a[1]}\n")
        return real(*a)

    monkeypatch.setattr(homog, "wolfe_label_bias", spy)
    r = audit_argmax(W, bias=b, progress=False)
    calls = log.read_text().split() if log.exists() else []
    assert calls and r.counts["all"]["undecided"] == 0
    cert = r.certificate()
    assert check(cert).ok
    assert any(rec["all"]["stage"] == "wolfe" for rec in cert["records"])
    ref = argmaxable(W.astype(np.float64), b.astype(np.float64))
    assert sorted(k for k, v in r.verdicts["all"].items() if v == "argmaxable") == \
        list(ref.labels)
    # the same verdicts without it (the cutting-plane LP path)
    monkeypatch.setattr(homog, "wolfe_label_bias", lambda *a: None)
    r2 = audit_argmax(W, bias=b, progress=False)
    assert r2.verdicts == r.verdicts
