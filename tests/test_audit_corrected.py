"""Corrected never-proofs (issue 44, item 2): logitgeom.audit.corrected.

Many never labels proven on one exact factorisation of a fixed simplex S: a rounded float
solution on each label's own rows plus S, and one exact correction on S.  The verdicts are
compared with the audit run alone and with the independent exact oracle
(tests/_audit_oracle.py), and the stdlib checker judges every proof.
"""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest
from _audit_oracle import oracle

from logitgeom.audit import Options, audit_argmax
from logitgeom.audit.corrected import exact_combination, prove_corrected
from logitgeom.audit.head import HeadSpec, open_head
from logitgeom.audit.proofs import check_multipliers
from logitgeom_certificates.check import check

ON = Options(shared_supports=True)


def ball_head(seed: int = 1, d: int = 8, n_outer: int = 60, n_cluster: int = 16,
              n_inside: int = 30, noise: float = 0.3) -> np.ndarray:
    """``n_outer`` rows of norm 100 in random directions (no simplex of them holds the
    inside), a cluster of ``n_cluster`` rows around a point of norm 20 with ``noise``
    full-precision noise, and ``n_inside`` random rows of norm below 60; float32."""
    rng = np.random.default_rng(seed)
    V = rng.standard_normal((n_outer, d))
    V *= 100 / np.linalg.norm(V, axis=1)[:, None]
    c = rng.standard_normal(d)
    c *= 20 / np.linalg.norm(c)
    C = c + noise * rng.standard_normal((n_cluster, d))
    R = rng.standard_normal((n_inside, d))
    R *= (rng.uniform(0, 60, n_inside) / np.linalg.norm(R, axis=1))[:, None]
    return np.vstack([V, C, R]).astype(np.float32)


@pytest.fixture(scope="module")
def head():
    return ball_head()


@pytest.fixture(scope="module")
def runs(head):
    on = audit_argmax(head, progress=False, block_size=32, options=ON)
    off = audit_argmax(head, progress=False, block_size=32,
                       options=Options(shared_supports=False))
    return on, off


def test_corrected_proofs_agree_with_the_oracle_and_the_checker(head, runs):
    on, off = runs
    cert = on.certificate()
    recs = {r["label"]: r["all"] for r in cert["records"]}
    corrected = [k for k, e in recs.items() if e["stage"] == "corrected"]
    assert len(corrected) >= 10
    d = head.shape[1]
    assert any(len(recs[k]["rows"]) > d + 1 for k in corrected)  # a basis plus S
    assert all(len(recs[k]["rows"]) <= 2 * (d + 1) for k in corrected)
    assert on.verdicts == off.verdicts
    inner = range(60, len(head))  # the cluster and the inside rows (the outer are vertices)
    assert {k: on.verdicts["all"][k] for k in inner} == {k: oracle(head, k) for k in inner}
    assert check(cert).ok
    st = on.stage_seconds
    assert {"corrected_float", "corrected_solve", "corrected_check"} <= set(st)
    assert not any(key.startswith("corrected") for key in off.stage_seconds)


def test_a_tampered_corrected_proof_is_rejected(runs):
    cert = json.loads(json.dumps(runs[0].certificate()))
    r = next(r for r in cert["records"] if r["all"]["stage"] == "corrected")
    r["all"]["multipliers"][-1] = str(int(r["all"]["multipliers"][-1]) + 1)
    assert not check(cert).ok
    cert = json.loads(json.dumps(runs[0].certificate()))
    r = next(r for r in cert["records"] if r["all"]["stage"] == "corrected")
    r["all"]["rows"], r["all"]["multipliers"] = r["all"]["rows"][1:], r["all"]["multipliers"][1:]
    assert not check(cert).ok


def test_prove_corrected_directly_on_a_simplex_that_holds_none_of_the_labels(head):
    h = open_head(HeadSpec.from_array(head))
    d = head.shape[1]
    cluster = list(range(60, 76))
    S = tuple(range(76, 76 + d + 1))  # inside rows: their simplex is not the cluster's hull
    stats: dict = {}
    recs = prove_corrected(h, S, cluster, range(60), Options(), stats)
    assert len(recs) >= len(cluster) // 2
    for k, r in recs.items():
        assert r["stage"] == "corrected" and set(S) <= set(r["rows"]) and k not in r["rows"]
        assert check_multipliers(h, k, r["rows"], [int(v) for v in r["multipliers"]], None)
        assert oracle(head, k) == "never"
    assert stats["corrected_solve"] >= 0
    assert prove_corrected(h, S, [S[0]], range(60), Options(), {}) == {}  # a row of S
    biased = open_head(HeadSpec.from_array(head, np.zeros(len(head))))
    assert prove_corrected(biased, S, cluster, range(60), Options(), {}) == {}


def test_exact_combination_equals_integer_arithmetic():
    rng = np.random.default_rng(0)
    for bits in (3, 30, 52):
        M = rng.integers(-(1 << bits), 1 << bits, size=(40, 7), dtype=np.int64)
        lam = [int(v) for v in rng.integers(-(1 << 62), 1 << 62, size=40)]
        lam[3] = 1 << 90
        want = [sum(a * int(M[i, j]) for i, a in enumerate(lam)) for j in range(7)]
        assert exact_combination(lam, M) == want
    # the widest entries the int64 rows allow, many rows, both signs at the extremes
    M = rng.integers(-(1 << 62), 1 << 62, size=(3000, 5), dtype=np.int64)
    M[0] = (1 << 62) - 1
    M[1] = -(1 << 62) + 1
    lam = [int(v) for v in rng.integers(-(1 << 63), 1 << 63, size=3000, dtype=np.int64)]
    lam[0], lam[1] = (1 << 200) - 1, -(1 << 130)
    want = [sum(a * int(M[i, j]) for i, a in enumerate(lam)) for j in range(5)]
    assert exact_combination(lam, M) == want
    assert exact_combination([], np.zeros((0, 3), dtype=np.int64)) == [0, 0, 0]


# ------------------------------------------------------------------ the checker's row cap
def _line_cert(rows: list[int], mults: list[str]) -> dict:
    W = np.array([[0.0], [-1.0], [-2.0], [1.0], [2.0], [3.0]])
    cert = audit_argmax(W, progress=False).certificate()
    rec = next(r for r in cert["records"] if r["label"] == 0)
    assert rec["all"]["verdict"] == "never"
    rec["all"] = {"verdict": "never", "rows": rows, "multipliers": mults, "stage": "shared"}
    return cert


def test_a_never_proof_may_have_2_d_plus_2_rows_and_no_more():
    assert check(_line_cert([1, 2, 3, 4], ["1", "1", "1", "1"])).ok  # d = 1: 4 rows
    v = check(_line_cert([1, 2, 3, 4, 5], ["2", "2", "1", "1", "1"]))  # valid, but 5 rows
    assert not v.ok and v.failed_check == "gordan-support"


def test_corrected_stages_counted(runs):
    stages = Counter(r["all"]["stage"] for r in runs[0].certificate()["records"])
    assert stages["corrected"] == runs[0].stage_seconds["shared_labels"] - stages["shared"]


def test_the_modular_guard_refuses_a_wrong_correction():
    from logitgeom.audit.corrected import _GUARD_PRIME, _guard

    A = np.array([[2, 1], [1, 3]], dtype=np.int64)
    assert _guard(A, [3, -1], 5, [1, 0])  # A [3, -1] = 5 [1, 0]
    assert not _guard(A, [3, -1], 5, [1, 1])
    assert not _guard(A, [3 + 10**40, -1], 5, [1, 0])
    # wide entries: residues below 2^31 times 16-bit halves, no int64 overflow
    rng = np.random.default_rng(3)
    M = [[int(v) for v in r] for r in rng.integers(-(1 << 40), 1 << 40, size=(300, 300))]
    N = [int(v) * (1 << 200) + 7 for v in rng.integers(-(1 << 60), 1 << 60, size=300)]
    b = [sum(a * x for a, x in zip(r, N, strict=True)) for r in M]
    Aq = np.array([[v % _GUARD_PRIME for v in r] for r in M], dtype=np.int64)
    assert _guard(Aq, N, 1, b)
    b[17] += 1
    assert not _guard(Aq, N, 1, b)


def test_the_fast_hadamard_bound_equals_the_integer_one():
    from logitgeom.audit.proofs import _diff_sq_norms, exact_rows_int, hadamard_digits

    rng = np.random.default_rng(1)
    fast_used = 0
    for trial in range(24):
        n, d = int(rng.integers(3, 25)), int(rng.integers(1, 30))
        W = rng.standard_normal((n, d))
        if trial % 3 == 1:  # float32, a wide exponent range (the int64 path may refuse)
            W = (W * np.exp2(rng.integers(-30, 30, size=(n, d)))).astype(np.float32)
        elif trial % 3 == 0:
            W = W.astype(np.float32)
        W = W.astype(np.float64)
        W[rng.random((n, d)) < 0.2] = 0.0
        h = open_head(HeadSpec.from_array(W))
        rows = list(range(1, n))
        R, _, _, _ = exact_rows_int(h, [0, *rows])
        sq = [sum((a - w) ** 2 for a, w in zip(R[0], r, strict=True)) for r in R[1:]]
        bits = sum((v.bit_length() + 1) // 2 + 1 for v in sq)
        assert hadamard_digits(h, 0, rows) == bits * 30103 // 100000 + 2
        fast_used += _diff_sq_norms(h.rows([0, *rows])) is not None
    assert fast_used >= 8


def test_a_warm_start_from_a_neighbours_corral():
    from logitgeom.audit.corrected import _warm_start
    from logitgeom.audit.wolfe import min_norm_corral

    rng = np.random.default_rng(5)
    d = 6
    P = rng.standard_normal((40, d))
    Pk = P - P.mean(axis=0)
    kind, C, lam = min_norm_corral(Pk)  # 0 inside: the centroid
    assert kind == "in"
    mu = _warm_start(Pk, C)  # the same point: its corral holds it, weights positive
    assert mu is not None and np.allclose(mu, lam / lam.sum())
    # the point moved away from the vertex of least weight: its weight turns negative, so
    # the neighbour's corral is no proposal (Wolfe starts from scratch)
    far = Pk + 0.3 * Pk[C[int(np.argmin(lam))]]
    assert _warm_start(far, C) is None
    assert min_norm_corral(far)[0] == "in"
    assert _warm_start(Pk, C[:-1]) is None  # not d + 1 rows
