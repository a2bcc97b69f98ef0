"""Exact basis solve and repair of the audit's never-proofs (logitgeom.audit.basis), and the
integer helpers of logitgeom.exact.intmat they use (issue 30, "hard labels in seconds")."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import logitgeom.exact.intmat as intmat
from logitgeom.audit.basis import basis_never, basis_weights, repair
from logitgeom.audit.decide import decide_block
from logitgeom.audit.head import HeadSpec, open_head
from logitgeom.audit.proofs import Options, check_multipliers


@pytest.mark.parametrize("flint", [True, False])
def test_solve_square_matches_fractions(monkeypatch, flint):
    if not flint:
        monkeypatch.setattr(intmat, "_flint", None)
    rng = np.random.default_rng(3)
    for n in (1, 2, 5, 9):
        M = rng.integers(-50, 50, size=(n, n)).tolist()
        b = rng.integers(-9, 9, size=n).tolist()
        got = intmat.solve_square(M, b)
        ref = intmat.solve_rational(M, b, [None] * n)
        if got is None:  # singular: the rational solve finds a free variable or no solution
            continue
        z, den = got
        assert den > 0
        assert [Fraction(v, den) for v in z] == ref
    assert intmat.solve_square([[1, 2], [2, 4]], [1, 2]) is None
    with pytest.raises(ValueError):
        intmat.solve_square([[1, 2]], [1])


@pytest.mark.parametrize("flint", [True, False])
def test_int_combination_and_str(monkeypatch, flint):
    if not flint:
        monkeypatch.setattr(intmat, "_flint", None)
    rng = np.random.default_rng(4)
    rows = [[int(v) << 200 for v in r] for r in rng.integers(-99, 99, size=(12, 10))]
    c = [int(v) ** 40 for v in rng.integers(1, 999, size=12)]
    ref = [sum(ci * r[j] for ci, r in zip(c, rows, strict=True)) for j in range(10)]
    assert intmat.int_combination(c, rows) == ref
    big = 7**20000  # 16,902 digits: beyond the interpreter's 4,300-digit str limit
    s = intmat.int_str(-big)
    assert s[0] == "-" and len(s) == 16903 and s.endswith(str(big % 10**9).zfill(9))
    with pytest.raises(ValueError):
        intmat.int_combination([1], [[1], [2]])


def test_repair_of_a_wrong_basis():
    """A basis whose exact weights have a negative entry (0 just outside its simplex, as a
    float corral is when 0 sits within rounding of a facet) is repaired by exact pivots into
    a never-proof that the exact check accepts."""
    d = 6
    rng = np.random.default_rng(1)
    B = rng.standard_normal((d + 1, d))
    delta = 2.0**-30
    lam = np.r_[-delta, np.full(d, (1.0 + delta) / d)]
    B = B - lam @ B  # 0 has barycentric weights ~lam on B: just past the facet opposite B[0]
    extra = -3.0 * B[0]  # on the ray from B[0] through 0, beyond 0
    W = np.vstack([np.zeros(d), B, extra, 5.0 * rng.standard_normal((4, d))])
    h = open_head(HeadSpec.from_array(W))
    pool = np.arange(1, len(W))
    S = list(range(d + 1))  # the wrong basis B, as indices into the pool
    z, den = basis_weights(h, 0, [int(pool[i]) for i in S])
    assert min(z) < 0
    fixed = repair(h, 0, pool, W[pool] - W[0], S, z, den)
    assert fixed is not None
    rows, c = fixed
    assert all(v > 0 for v in c) and len(rows) <= d + 1
    assert check_multipliers(h, 0, rows, c, None)
    rec = basis_never(h, 0, pool, W[pool] - W[0], S, {})
    assert rec is not None and rec["stage"] == "wolfe-repair" and rec["verdict"] == "never"
    assert check_multipliers(h, 0, rec["rows"], [int(v) for v in rec["multipliers"]], None)
    # no entering point on 0's side: nothing is claimed
    W2 = np.vstack([np.zeros(d), B])
    h2 = open_head(HeadSpec.from_array(W2))
    assert repair(h2, 0, np.arange(1, d + 2), B, S, z, den) is None
    # and the whole pipeline agrees (whatever path it takes)
    recs, _ = decide_block(HeadSpec.from_array(W), (0,), Options())
    assert recs[0]["all"]["verdict"] == "never"
    recs, _ = decide_block(HeadSpec.from_array(W2), (0,), Options())
    assert recs[0]["all"]["verdict"] == "argmaxable"


def test_basis_weights_singular_and_degenerate():
    W = np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [-1.0, 0.0]])
    h = open_head(HeadSpec.from_array(W))
    assert basis_weights(h, 0, [1, 2, 3]) is None  # a zero coordinate: not square
    W = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [-1.0, -1.0]])
    h = open_head(HeadSpec.from_array(W))
    assert basis_weights(h, 0, [1, 2, 3]) is None  # singular


def test_wolfe_never_proof_at_moderate_width():
    """A label pushed inside the hull of full-precision float32 rows (d = 40): proven never
    by the Wolfe path with d + 1 rows, integers over one denominator."""
    rng = np.random.default_rng(7)
    d = 40
    W = rng.standard_normal((400, d)).astype(np.float32)
    W[0] = ((rng.dirichlet(np.ones(5)) @ W[1:6].astype(np.float64)) * (1 - 1e-3)).astype(
        np.float32)
    recs, _ = decide_block(HeadSpec.from_array(W), (0,), Options(center=tuple(
        W.astype(np.float64).mean(axis=0).tolist())))
    rec = recs[0]["all"]
    assert rec["verdict"] == "never" and rec["stage"].startswith("wolfe")
    h = open_head(HeadSpec.from_array(W))
    assert check_multipliers(h, 0, rec["rows"], [int(v) for v in rec["multipliers"]], None)


def test_lp_basis_repaired_exactly_at_large_width():
    """The cutting-plane LP's path: a full basis (d + 1 rows, support x d beyond the cdd
    repair's size) whose exact weights have a negative entry is repaired by exact pivots
    with the LP's active rows as candidates (stage ``lp-repair``)."""
    from logitgeom.audit.gordan import gordan_from

    d = 100
    rng = np.random.default_rng(5)
    B = rng.standard_normal((d + 1, d))
    delta = 2.0**-30
    lam = np.r_[-delta, np.full(d, (1.0 + delta) / d)]
    B = B - lam @ B
    W = np.vstack([np.zeros(d), B, -3.0 * B[0], 5.0 * rng.standard_normal((20, d))])
    h = open_head(HeadSpec.from_array(W))
    active = np.arange(1, len(W))
    duals = np.zeros(len(active))
    duals[: d + 1] = np.abs(lam) + 1e-3  # the float basis: positive duals on B
    rec = gordan_from(h, 0, active, False, Options(), {}, duals)
    assert rec is not None and rec["verdict"] == "never" and rec["stage"] == "lp-repair"
    assert len(rec["rows"]) <= d + 1
    assert check_multipliers(h, 0, rec["rows"], [int(v) for v in rec["multipliers"]], None)


def test_repaired_proof_is_written_and_checked_by_the_stdlib_checker(tmp_path, monkeypatch):
    """End to end: the float proposer hands over a wrong basis (0 just outside it); the
    exact repair turns it into a never-proof that the audit writes and the stdlib checker
    accepts, and rejects once a multiplier is changed."""
    import hashlib
    import json

    import logitgeom.audit.wolfe as wolfe
    from logitgeom.audit import audit_argmax
    from logitgeom_certificates import check_audit

    d = 6
    rng = np.random.default_rng(1)
    B = rng.standard_normal((d + 1, d))
    delta = 2.0**-30
    lam = np.r_[-delta, np.full(d, (1.0 + delta) / d)]
    B = B - lam @ B
    W = np.vstack([np.zeros(d), B, -3.0 * B[0], 5.0 * rng.standard_normal((4, d))])
    real = wolfe.min_norm_corral

    def wrong_first(P, max_steps=None, init=None):  # pool = rows 1.. in order (all rows)
        if init is None and len(P) == len(W) - 1:
            return "in", list(range(d + 1)), np.full(d + 1, 1.0 / (d + 1))
        return real(P, max_steps, init)

    monkeypatch.setattr(wolfe, "min_norm_corral", wrong_first)
    out = tmp_path / "run"
    res = audit_argmax(W, tokens=[0], out=out, progress=False)
    assert res.never() == [0]
    shard = next((out / "shards").glob("*.jsonl"))
    rec = json.loads(shard.read_text())
    assert rec["all"]["stage"] == "wolfe-repair"
    assert check_audit.check_file(out / "audit.json").ok
    rec["all"]["multipliers"][0] = str(int(rec["all"]["multipliers"][0]) + 1)
    data = (json.dumps(rec, sort_keys=True, separators=(",", ":")) + "\n").encode()
    shard.write_bytes(data)
    cert = json.loads((out / "audit.json").read_text())
    cert["shards"][0]["sha256"] = hashlib.sha256(data).hexdigest()
    (out / "audit.json").write_text(json.dumps(cert))
    assert not check_audit.check_file(out / "audit.json").ok
