"""The stdlib checker's fast witness check (certificates/SPEC.md section 9, "Fast witnesses").

A ``{"scale": t}`` witness on a float32 ``.npy`` head without bias is checked by one
``math.fsum`` a row of exact float64 products; its verdict must be the exact one, row by row:
against the checker's own integer path and an independent Fraction oracle, on float32 values
of every exponent (subnormal, the least normal, near the largest), exact ties, last-bit
near-ties and a margin a naive float dot product gets the wrong sign of.  Through whole
certificates: tampering is rejected, and float64 or biased heads keep the integer path.
"""

from __future__ import annotations

import hashlib
import json
from array import array
from fractions import Fraction
from operator import mul

import numpy as np
import pytest

from logitgeom.audit import audit_argmax
from logitgeom_certificates import check_audit
from logitgeom_certificates.check_audit import _Model, check_file
from logitgeom_certificates.errors import Fail

F32_MAX = float(np.finfo(np.float32).max)
F32_TINY = float(np.finfo(np.float32).tiny)       # least normal, 2^-126
F32_SUB = float(np.finfo(np.float32).smallest_subnormal)  # 2^-149


def _rows(W):
    """The checker's reader of a float32 .npy head: slices of one flat array('f')."""
    W = np.ascontiguousarray(W, dtype=np.float32)
    k, d = W.shape
    vals = array("f", W.tobytes())
    return (lambda i: vals[i * d:(i + 1) * d]), k, d


def verdict(W, k, fast):
    """Does label k's witness x = w_k pass the checker (fast path, or its integer path)?"""
    rows, n, d = _rows(W)
    M = _Model(rows, n, d, None)
    assert M.unbiased and rows(k).typecode == "f"  # the fast path applies
    x = [Fraction(v) for v in rows(k)]
    try:
        M.witness(k, x, "/w", f32=fast)
    except Fail as e:
        assert e.check == "witness"
        return False
    return True


def oracle(W, k, i):
    """The exact margin (w_k - w_i) . w_k, in Fractions (independent of the checker)."""
    W = np.asarray(W, dtype=np.float32)
    return sum(Fraction(float(a)) * (Fraction(float(a)) - Fraction(float(b)))
               for a, b in zip(W[k], W[i], strict=True))


def pairwise_agree(W):
    """Every label against every row: fast verdict == integer verdict == exact sign; the
    signs seen (-1, 0, 1) are returned."""
    W = np.asarray(W, dtype=np.float32)
    n, signs = len(W), set()
    for k in range(n):
        for i in range(n):
            if i == k:
                continue
            pair = W[[k, i]]
            m = oracle(W, k, i)
            signs.add((m > 0) - (m < 0))
            want = m > 0
            assert verdict(pair, 0, True) is want, (k, i)
            assert verdict(pair, 0, False) is want, (k, i)
        whole = all(oracle(W, k, i) > 0 for i in range(n) if i != k)
        assert verdict(W, k, True) is whole is verdict(W, k, False), k
    return signs


def wild_float32(rng, shape):
    """Finite float32 of every exponent: the exponent field uniform over 0 (subnormal) ..
    254 (the largest binade), random mantissas and signs."""
    exp = rng.integers(0, 255, size=shape, dtype=np.uint32)
    bits = (rng.integers(0, 2, size=shape, dtype=np.uint32) << 31) | (exp << 23) \
        | rng.integers(0, 1 << 23, size=shape, dtype=np.uint32)
    return bits.view(np.float32)


def near(W, rng, n):
    """Rows close to other rows: copies (exact ties; the first always) and copies with
    entries moved by one unit in the last place either way (near-ties)."""
    out = []
    for t in range(n):
        r = W[rng.integers(len(W))].copy()
        for j in rng.choice(r.size, size=rng.integers(0, 3) if t else 0, replace=False):
            r[j] = np.nextafter(r[j], np.float32(np.inf if rng.random() < 0.5 else -np.inf))
        out.append(r)
    return np.vstack([W, np.array(out, dtype=np.float32)])


@pytest.mark.parametrize("seed", range(4))
def test_wild_exponents_agree_row_by_row(seed):
    rng = np.random.default_rng(seed)
    W = wild_float32(rng, (7, 5))
    W[0, :2] = [F32_SUB, -F32_TINY]                 # the least subnormal, the least normal
    W[1, :2] = [F32_MAX, np.nextafter(np.float32(F32_MAX), np.float32(0))]  # near the top
    assert np.isfinite(W).all()
    assert pairwise_agree(near(W, rng, 5)) == {-1, 0, 1}  # exact ties among them


def test_same_binade_rows_agree_row_by_row():
    """Rows of one scale, as a trained head's, where margins are small relative to the norms."""
    rng = np.random.default_rng(7)
    base = (rng.standard_normal(6) * 0.02).astype(np.float32)
    W = (base + rng.standard_normal((8, 6)).astype(np.float32) * np.float32(1e-6))
    assert pairwise_agree(near(W.astype(np.float32), rng, 6)) == {-1, 0, 1}


def test_exact_tie_fails_and_last_bit_near_ties_are_decided_exactly():
    w = np.array([0.75, -3.0e-39, 1.5e38, 1e-45], dtype=np.float32)  # subnormals, large
    assert verdict(np.vstack([w, w]), 0, True) is False          # margin exactly 0
    for j in range(w.size):
        for to in (np.inf, -np.inf):
            v = w.copy()
            v[j] = np.nextafter(v[j], np.float32(to))
            W = np.vstack([w, v])
            m = oracle(W, 0, 1)
            assert m != 0
            assert verdict(W, 0, True) is (m > 0) is verdict(W, 0, False), (j, to)


def naive_trap():
    """w_k, w_i (float32) whose exact margin (w_k - w_i) . w_k is tiny and negative while the
    naive float64 dot products say it is positive: w_k . w_k rounds up at 2^40 (its second
    product lies just above half a unit in the last place), w_i . w_k rounds down (just
    below), and the third products tip the exact sum the other way."""
    f32 = np.float32
    h = 2.0 ** -13                                     # half an ulp of 2^40 in float64
    a = float(np.nextafter(f32(h ** 0.5), f32(1)))
    while Fraction(a) ** 2 <= h:
        a = float(np.nextafter(f32(a), f32(1)))
    c = float(np.nextafter(f32(h / a), f32(0)))
    while Fraction(a) * Fraction(c) >= h:
        c = float(np.nextafter(f32(c), f32(0)))
    b = 2.0 ** -40
    slack = (Fraction(a) ** 2 - h) + (h - Fraction(a) * Fraction(c)) + Fraction(b) ** 2
    e = float(np.nextafter(f32(float(slack / Fraction(b)) * 2), f32(1)))
    assert Fraction(b) * Fraction(e) < h                # w_i . w_k still rounds down
    return np.array([[2.0 ** 20, a, b], [2.0 ** 20, c, e]], dtype=np.float32)


def test_a_margin_the_naive_dot_product_gets_wrong():
    W = naive_trap()
    wk, wi = (list(map(float, r)) for r in W)
    exact = oracle(W, 0, 1)
    naive = sum(map(mul, wk, wk)) - sum(map(mul, wi, wk))
    assert exact < 0 < naive                            # naive: "label 0 wins"; it does not
    assert verdict(W, 0, True) is False and verdict(W, 0, False) is False
    # the same rows with w_i's last entry 0: the exact margin turns positive, and is accepted
    W2 = W.copy()
    W2[1, 2] = np.float32(0)
    assert oracle(W2, 0, 1) > 0 and verdict(W2, 0, True) is True


def test_no_overflow_at_the_float32_limit():
    """Products near 2^256 and a long row: the sums stay far below float64's range."""
    rng = np.random.default_rng(3)
    W = (rng.choice([-1, 1], size=(3, 512)) * F32_MAX).astype(np.float32)
    W[1] = W[0]
    W[1, 7] = np.nextafter(W[1, 7], np.float32(0))
    assert verdict(W[:2], 0, True) is (oracle(W, 0, 1) > 0) is verdict(W[:2], 0, False)


def test_fast_path_is_charged_d_units_a_row():
    from logitgeom_certificates.meter import budget, used

    W = np.random.default_rng(4).standard_normal((50, 16)).astype(np.float32)
    W[3] *= 10                                           # label 3 wins at its own row
    rows, n, d = _rows(W)
    M = _Model(rows, n, d, None)
    with budget(10 ** 9):
        M.witness(3, [], "/w", f32=True)
        work = used()
    assert n * d <= work <= (n + 16) * d                  # n - 1 rows, w_k's rest (<= 15)


# ------------------------------------------------------------------- whole certificates
@pytest.fixture
def npy_heads(monkeypatch):
    """Audits reference their .npy head (as vocabulary-sized heads are) and a spy counts the
    fast path's fsums."""
    import logitgeom.audit.run as run_mod
    import logitgeom.audit.source as src_mod

    monkeypatch.setattr(run_mod, "INLINE_ENTRIES", 16)
    monkeypatch.setattr(src_mod, "INLINE_ENTRIES", 16)
    calls = []
    real = check_audit.chain
    monkeypatch.setattr(check_audit, "chain", lambda *a: calls.append(1) or real(*a))
    return calls


def head(dtype=np.float32):
    """Full-precision rows (off any grid) plus a row that is argmaxable, but not at its own
    row (its witness is an explicit x), and one inside the hull (never)."""
    rng = np.random.default_rng(11)
    W = rng.standard_normal((30, 4)) * 0.3
    W[:, 3] *= 0.01                                     # thin in the last direction
    W[0] = [1.0, 0.2, -0.1, 0.0]
    W[28] = 0.98 * W[1:4].mean(0) + 0.02 * W[4:7].mean(0)  # inside the hull: never argmax
    W[29] = 0.6 * W[0] + [0, 0, 0, 0.05]  # wins at x = e_4, but label 0 wins at x = w_29
    return W.astype(dtype)


def audit(tmp_path, W, bias=None):
    np.save(tmp_path / "W.npy", W)
    audit_argmax(tmp_path / "W.npy", bias=bias, out=tmp_path / "o", progress=False)
    return tmp_path / "o" / "audit.json"


def records(path):
    """(certificate, [(shard path, [records])]) of an audit written with shards."""
    cert = json.loads(path.read_text())
    shards = [(path.parent / s["file"], [json.loads(x) for x in
                                         (path.parent / s["file"]).read_text().splitlines()
                                         if x.strip()]) for s in cert["shards"]]
    return cert, shards


def rewrite(path, cert, shards):
    """Write the records back, with honest hashes and counts (only the proof is wrong)."""
    for (p, recs), ref in zip(shards, cert["shards"], strict=True):
        p.write_text("".join(json.dumps(r) + "\n" for r in recs))
        ref["sha256"] = hashlib.sha256(p.read_bytes()).hexdigest()
    counts = {dom: {"argmaxable": 0, "never": 0, "undecided": 0} for dom in cert["domains"]}
    for _, recs in shards:
        for r in recs:
            for dom in cert["domains"]:
                counts[dom][r[dom]["verdict"]] += 1
    cert["counts"] = counts
    path.write_text(json.dumps(cert))


def entry(shards, label):
    return next(r for _, recs in shards for r in recs if r["label"] == label)["all"]


def test_float32_certificate_checked_fast_and_tampering_rejected(tmp_path, npy_heads):
    path = audit(tmp_path, head())
    cert, shards = records(path)
    assert "file" in cert["head"] and "bias" not in cert["head"]
    assert entry(shards, 28)["verdict"] == "never"
    assert "x" in entry(shards, 29)["witness"]              # argmaxable, not at w_29
    assert check_file(path).ok
    assert npy_heads                                        # the fast path ran
    # a never label given a scale witness: its own row is not the argmax there
    e = entry(shards, 28)
    e.clear()
    e.update(verdict="argmaxable", witness={"scale": "1"})
    rewrite(path, cert, shards)
    v = check_file(path)
    assert (v.failed_check, v.location.endswith("/all/witness")) == ("witness", True), v
    # an argmaxable label whose explicit witness is swapped for its own row: rejected
    (tmp_path / "b").mkdir()
    path = audit(tmp_path / "b", head())
    cert, shards = records(path)
    entry(shards, 29)["witness"] = {"scale": "3/2"}
    rewrite(path, cert, shards)
    assert check_file(path).failed_check == "witness"


@pytest.mark.parametrize("case", ["float64", "bias"])
def test_float64_and_biased_heads_keep_the_integer_path(tmp_path, npy_heads, case):
    W = head(np.float64 if case == "float64" else np.float32)
    b = np.linspace(-0.01, 0.01, len(W)) if case == "bias" else None
    path = audit(tmp_path, W, b)
    assert check_file(path).ok
    assert not npy_heads                                    # no fsum: the integer path
    cert, shards = records(path)
    lab = next(r["label"] for _, recs in shards for r in recs
               if r["all"]["verdict"] == "never")
    e = entry(shards, lab)
    e.clear()
    e.update(verdict="argmaxable", witness={"scale": "1"})
    rewrite(path, cert, shards)
    assert check_file(path).failed_check == "witness"
    assert not npy_heads


def test_box_domain_scale_witnesses_checked_fast(tmp_path, npy_heads):
    """With a box, the witness's bound is checked on x = t w_k exactly and its margins by the
    fast path; a scale pushing x out of the box fails ``box``."""
    np.save(tmp_path / "W.npy", head())
    audit_argmax(tmp_path / "W.npy", radius=1, out=tmp_path / "o", progress=False)
    path = tmp_path / "o" / "audit.json"
    assert check_file(path).ok and npy_heads
    cert, shards = records(path)
    lab = next(r["label"] for _, recs in shards for r in recs
               if r["box"]["verdict"] == "argmaxable" and "scale" in r["box"]["witness"])
    e = next(r for _, recs in shards for r in recs if r["label"] == lab)["box"]
    e["witness"] = {"scale": "1000"}
    rewrite(path, cert, shards)
    assert check_file(path).failed_check == "box"


def test_fsum_sign_is_the_exact_sign_under_cancellation():
    """The property the fast path rests on, on this platform: math.fsum of exact products of
    float32 has the sign of their exact sum (0.0 exactly when it is 0), under cancellation
    down to the last bit."""
    import math

    rng = np.random.default_rng(5)
    for n in range(3000):
        a = wild_float32(rng, 6) if n % 2 else rng.standard_normal(6).astype(np.float32)
        b = a.copy()
        for j in rng.choice(6, size=rng.integers(0, 3), replace=False):
            b[j] = np.nextafter(b[j], np.float32(np.inf if rng.random() < 0.5 else -np.inf))
        terms = [float(x) * float(y) for x, y in zip(a, a, strict=True)] + \
            [-float(x) * float(y) for x, y in zip(b, a, strict=True)]
        exact = sum(Fraction(float(x)) * Fraction(float(y))
                    for x, y in zip(np.r_[a, -b], np.r_[a, a], strict=True))
        s = math.fsum(terms)
        assert (s > 0) - (s < 0) == (exact > 0) - (exact < 0), (a, b)


def test_w_k_dot_w_k_spread_over_every_exponent_takes_at_most_13_sums():
    """w_k . w_k whose exact value has about 550 significant bits (random 24-bit significands,
    squares from about 2^-297 to 2^255): the floats F summing to it exactly, 11, are found
    within the 13 sums SPEC.md section 9 counts on."""
    from logitgeom_certificates.meter import budget, used

    rng = np.random.default_rng(0)
    wk = np.array([np.ldexp(float(rng.integers(1 << 23, 1 << 24)), e)
                   for e in range(-172, 105, 6)], dtype=np.float32)
    assert np.isfinite(wk).all() and (wk != 0).all()
    exact = sum(Fraction(float(v)) ** 2 for v in wk)
    assert exact.numerator.bit_length() > 540           # dense: one float holds 53 bits
    rows, n, d = _rows(np.vstack([wk, np.zeros_like(wk)]))
    with budget(10 ** 9):
        _Model(rows, n, d, None).witness(0, [], "/w", f32=True)   # w_k beats the zero row
        calls = used() // d
    # F's sums (each float found, then the final 0), the top logit, the zero row
    assert 12 <= calls - 2 <= 13, calls
