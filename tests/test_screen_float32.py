"""The float32 first pass of the row screen (docs/filtered-arithmetic.md, Lemma 5).

* the bound ``margin_factor32`` against exact ``Fraction`` arithmetic: float32 dot products
  evaluated in several orders (sequential, reversed, pairwise, ``np.cumsum``, by magnitude,
  fused multiply-add emulated exactly) on adversarial vectors (cancellation, every float32
  exponent range, subnormal products and sums, sums near overflow);
* the screen with and without the float32 pass on bfloat16 (safetensors), float16 (.npy),
  float32 heads, with planted never labels and near-ties (a margin the float32 bound cannot
  decide but the float64 one can): the same verdicts, witnesses, hard labels and costs;
* whole audits with and without it: the same records, certificates accepted by the stdlib
  checker.

Nothing here asserts *which* labels the float32 pass decided except where every margin is
far larger than any float32 error.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from logitgeom.audit import audit_argmax
from logitgeom.audit import screen as screen_mod
from logitgeom.audit.head import HeadSpec, open_head
from logitgeom.audit.proofs import Options
from logitgeom.audit.screen import screen_block
from logitgeom.exact.filtered import (
    ROUNDOFF32,
    UNDERFLOW_SLACK32,
    margin_factor,
    margin_factor32,
)
from logitgeom_certificates.check import check

F32_MAX = Fraction(float(np.finfo(np.float32).max))


# --------------------------------------------------------------------------- float32 model
def round32(q: Fraction) -> float:
    """``q`` rounded to the nearest float32 (ties to even, subnormals, overflow to inf),
    computed exactly (no double rounding through float64)."""
    if q == 0:
        return 0.0
    sign = -1.0 if q < 0 else 1.0
    a = abs(q)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    e = max(e, -126)  # below the normal range: the fixed spacing 2^-149
    step = Fraction(2) ** (e - 23)
    m = a / step
    r = math.floor(m)
    if m - r > Fraction(1, 2) or (m - r == Fraction(1, 2) and r % 2 == 1):
        r += 1
    v = r * step
    if v > F32_MAX:
        return sign * math.inf
    return sign * float(v)


def _dots(w: np.ndarray, x: np.ndarray) -> dict[str, float]:
    """fl32(w . x) in several evaluation orders (float32 arithmetic throughout)."""
    with np.errstate(all="ignore"):
        p = (w * x).astype(np.float32)  # each product rounded once
        out = {}
        acc = np.float32(0)
        for v in p:
            acc = np.float32(acc + v)
        out["sequential"] = float(acc)
        acc = np.float32(0)
        for v in p[::-1]:
            acc = np.float32(acc + v)
        out["reversed"] = float(acc)
        out["cumsum"] = float(np.cumsum(p, dtype=np.float32)[-1])
        out["magnitude"] = float(np.cumsum(p[np.argsort(np.abs(p))], dtype=np.float32)[-1])

        def pairwise(a: np.ndarray) -> np.float32:
            if a.size == 1:
                return np.float32(a[0])
            h = a.size // 2
            return np.float32(pairwise(a[:h]) + pairwise(a[h:]))

        out["pairwise"] = float(pairwise(p))
    # fused multiply-add: acc = fl32(w_j x_j + acc), one rounding of the exact value
    acc32 = 0.0
    for a, b in zip(w.tolist(), x.tolist(), strict=True):
        if not math.isfinite(acc32):
            break
        acc32 = round32(Fraction(a) * Fraction(b) + Fraction(acc32))
    out["fma"] = acc32
    return out


def _check_bound(wa: np.ndarray, wb: np.ndarray, x: np.ndarray) -> int:
    """Every pair of evaluation orders obeys Lemma 5; returns how many pairs were finite."""
    d = x.size
    M = sum((Fraction(a) - Fraction(b)) * Fraction(c)
            for a, b, c in zip(wa.tolist(), wb.tolist(), x.tolist(), strict=True))
    T = sum((abs(Fraction(a)) + abs(Fraction(b))) * abs(Fraction(c))
            for a, b, c in zip(wa.tolist(), wb.tolist(), x.tolist(), strict=True))
    gam = Fraction(d + 1) * Fraction(ROUNDOFF32) / (1 - Fraction(d + 1) * Fraction(ROUNDOFF32))
    exact_bound = gam * T + 4 * d * Fraction(2) ** -150 * (1 + Fraction(2) ** -53)
    coded = Fraction(margin_factor32(d)) * T + Fraction(UNDERFLOW_SLACK32)
    assert coded >= exact_bound
    da, db = _dots(wa, x), _dots(wb, x)
    n = 0
    for sa in da.values():
        for sb in db.values():
            if not (math.isfinite(sa) and math.isfinite(sb)):
                continue  # overflow: the screen leaves such a column undecided
            m = float(np.float64(sa) - np.float64(sb))
            assert abs(Fraction(m) - M) <= exact_bound, (sa, sb, M)
            n += 1
    return n


# --------------------------------------------------------------------------- the bound
_F32_MAGS = [0.0, 2.0**-149, 3 * 2.0**-149, 2.0**-126, 1e-38, 1e-30, 1e-20, 1e-10, 1.0, 1e10,
             1e19, 1e20, 1.8e19, 3e38]

f32s = st.one_of(
    st.sampled_from(_F32_MAGS).flatmap(lambda m: st.sampled_from([m, -m])),
    st.floats(width=32, allow_nan=False, allow_infinity=False),
    st.floats(-4, 4, width=32),
    st.floats(width=32, allow_subnormal=True, min_value=-(2.0**-123), max_value=2.0**-123),
)


@st.composite
def adversarial(draw):
    d = draw(st.integers(1, 8))
    x = np.array(draw(st.lists(f32s, min_size=d, max_size=d)), dtype=np.float32)
    wa = np.array(draw(st.lists(f32s, min_size=d, max_size=d)), dtype=np.float32)
    how = draw(st.sampled_from(["fresh", "ulp", "cancel", "scaled"]))
    if how == "fresh":
        wb = np.array(draw(st.lists(f32s, min_size=d, max_size=d)), dtype=np.float32)
    elif how == "ulp":  # a row 1 ulp from the other: margins near zero
        wb = wa.copy()
        j = draw(st.integers(0, d - 1))
        wb[j] = np.nextafter(wb[j], np.float32(draw(st.sampled_from([-np.inf, np.inf]))))
    elif how == "cancel":  # x . w_a sums to nearly zero through large cancelling terms
        wb = -wa[::-1].copy()
        x = np.concatenate([x, -x[::-1]])[:max(d, 1)] if d > 1 else x
        wa = np.concatenate([wa, wa[::-1]])[:x.size] if d > 1 else wa
        wb = wb[:x.size]
    else:
        with np.errstate(all="ignore"):
            wb = (wa * np.float32(2.0 ** draw(st.integers(-3, 3)))).astype(np.float32)
    return wa, wb, x


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(adversarial())
def test_float32_bound_against_exact_sums(v):
    wa, wb, x = v
    if not (np.all(np.isfinite(wa)) and np.all(np.isfinite(wb))):
        return
    _check_bound(wa, wb, x)


def test_float32_bound_in_every_exponent_range():
    rng = np.random.default_rng(5)
    checked = 0
    for e in range(-150, 128, 11):  # products from deep subnormal to near overflow
        for d in (3, 17, 64):
            s = 2.0 ** (e / 2)
            wa = (rng.standard_normal(d) * s).astype(np.float32)
            x = (rng.standard_normal(d) * s).astype(np.float32)
            wb = wa.copy()
            wb[0] = np.nextafter(wb[0], np.float32(np.inf))
            checked += _check_bound(wa, wb, x)
            x[1:] = -x[1:]  # signs changed: cancellation
            checked += _check_bound(wa, (wb * np.float32(0.5)).astype(np.float32), x)
    assert checked > 500  # most pairs are finite (overflow only at the top exponents)


def test_float32_bound_at_width_4096():
    rng = np.random.default_rng(6)
    d = 4096
    wa = (rng.standard_normal(d) / 64).astype(np.float32)
    wb = wa.copy()
    wb[:8] = np.nextafter(wb[:8], np.float32(0))
    x = wa.copy()
    assert _check_bound(wa, wb, x) == 36


def test_subnormal_products_are_covered():
    # every product 2^-150 exactly: rounds to 0 or 2^-149 (ties to even: 0), error 2^-150 each
    d = 64
    w = np.full(d, 2.0**-75, dtype=np.float32)
    x = np.full(d, 2.0**-75, dtype=np.float32)
    assert _check_bound(w, np.zeros(d, dtype=np.float32), x) == 36


def test_margin_factor32_range():
    with pytest.raises(ValueError):
        margin_factor32(0)
    assert margin_factor32(4096) > 1000 * margin_factor(4096)


# --------------------------------------------------------------------------- heads
def _rows(rng: np.random.Generator, n: int, d: int, dtype: str) -> np.ndarray:
    """float64 values of an n x d head stored as ``dtype``, with planted never labels (the
    midpoint of two rows, exact in every dtype) and near-ties (a margin of 2^-20 at x = w_k,
    which the float32 bound cannot decide and the float64 bound can)."""
    W = rng.standard_normal((n, d)) / math.sqrt(d) * 4
    W = _stored(W, dtype)
    # near-tie: rows 0 and 1 with (w_0 - w_1) . w_0 = 2^-20 exactly
    W[0, :3] = [1.0, 0.5, 2.0**-10]
    W[1] = W[0]
    W[1, :3] = [1.0 - 2.0**-8, 0.5 + 2.0**-7, 0.0]
    # never: row 3 is the midpoint of rows 2 and 4 (they differ in coordinate 0 only)
    W[4] = W[2]
    W[4, 0] = -W[2, 0]
    W[3] = W[2]
    W[3, 0] = 0.0
    # a row deep inside the hull: a shrunken copy (never, for a centred head)
    W[5] = _stored(W[6] * 0.25, dtype)
    return W


def _bf16(W: np.ndarray) -> np.ndarray:
    u = np.ascontiguousarray(W, dtype=np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def _stored(W: np.ndarray, dtype: str) -> np.ndarray:
    if dtype == "bf16":
        return (_bf16(W).astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return W.astype(dtype).astype(np.float64)


def _write(tmp: Path, W: np.ndarray, dtype: str) -> HeadSpec:
    if dtype == "bf16":
        data = _bf16(W).tobytes()
        hb = json.dumps({"lm_head.weight": {"dtype": "BF16", "shape": list(W.shape),
                                            "data_offsets": [0, len(data)]}}).encode()
        hb += b" " * (-len(hb) % 8)
        f = tmp / "model.safetensors"
        f.write_bytes(len(hb).to_bytes(8, "little") + hb + data)
        return HeadSpec("safetensors", path=str(f), tensor="lm_head.weight")
    f = tmp / f"head-{dtype}.npy"
    np.save(f, W.astype(dtype))
    return HeadSpec("npy", path=str(f))


def _screen_both(spec: HeadSpec, labels, opts, monkeypatch):
    h = open_head(spec)
    monkeypatch.setattr(screen_mod, "FLOAT32_SCREEN", False)
    a = screen_block(h, labels, opts)
    monkeypatch.setattr(screen_mod, "FLOAT32_SCREEN", True)
    b = screen_block(h, labels, opts)
    return a, b


@pytest.mark.parametrize("dtype", ["bf16", "float16", "float32"])
def test_screen_same_decisions_with_and_without_float32(tmp_path, monkeypatch, dtype):
    rng = np.random.default_rng({"bf16": 1, "float16": 2, "float32": 3}[dtype])
    W = _rows(rng, 600, 24, dtype)
    spec = _write(tmp_path, W, dtype)
    h = open_head(spec)
    assert h.float32_exact() and np.array_equal(h.rows(range(600)), W)
    for opts in (Options(), Options(domains=("all", "box"), radius=Fraction(100))):
        for labels in (tuple(range(0, 256)), tuple(range(256, 600))):
            a, b = _screen_both(spec, labels, opts, monkeypatch)
            assert a.out == b.out and a.pending == b.pending and a.cost == b.cost
            assert a.margins.keys() == b.margins.keys()
            for k, v in a.margins.items():  # the figure at float64 precision
                assert abs(b.margins[k] - v) <= 1e-12 * max(1.0, abs(v))
            assert set(labels) & {3, 5} <= set(b.pending)  # the never labels
            assert "screen32" in b.stats and "screen32" not in a.stats
            if labels[0] == 256:  # ordinary rows of a random head: margins of order 1
                assert b.stats["screen32_labels"] > 0


def test_near_tie_needs_float64(tmp_path, monkeypatch):
    """Row 1 loses to row 0 at x = w_1 by 2^-16 + 2^-14, and label 0 beats row 1 by 2^-20:
    neither margin clears the float32 bound; the float64 pass decides label 0 exactly as
    before (a witness, no exact work needed)."""
    W = _rows(np.random.default_rng(4), 40, 24, "float32")
    W[2:] = _stored(W[2:] * 0.01, "float32")  # far inside: only the tie matters for 0 and 1
    spec = HeadSpec.from_array(W)
    m = sum((Fraction(a) - Fraction(b)) * Fraction(a) for a, b in zip(W[0], W[1], strict=True))
    assert m == Fraction(2) ** -20
    a, b = _screen_both(spec, (0, 1), Options(), monkeypatch)
    assert a.out == b.out and a.pending == b.pending and a.cost == b.cost
    assert b.stats["screen32_labels"] <= 1  # label 0's margin 2^-20 is below the float32 bound
    assert b.out[0]["all"] == {"verdict": "argmaxable", "witness": {"scale": "1"},
                               "stage": "row"}


def test_far_margins_are_decided_in_float32(monkeypatch):
    """Orthogonal rows of norm 1 and 0: every margin is 1, far beyond any float32 error."""
    W = np.vstack([np.eye(8), np.zeros((1, 8))]).astype(np.float32)
    a, b = _screen_both(HeadSpec.from_array(W), tuple(range(9)), Options(), monkeypatch)
    assert b.stats["screen32_labels"] == 8 and a.out == b.out
    assert b.margins == a.margins == {k: 1.0 for k in range(8)}


def test_float64_heads_stay_on_the_float64_pass(monkeypatch):
    rng = np.random.default_rng(7)
    W = rng.standard_normal((50, 6))
    a, b = _screen_both(HeadSpec.from_array(W), tuple(range(50)), Options(), monkeypatch)
    assert a.out == b.out and "screen32" not in b.stats  # not float32 values


@pytest.mark.parametrize("spread", [0.0, 0.1, 3.0, 1e6])
def test_bias_same_decisions_with_and_without_float32(monkeypatch, spread):
    """Biased heads: the float32 pass takes only the columns for which the float64 pass would
    choose t = 1; every record, cost and pending label is the same.  Spreads: equal biases,
    small ones (t = 1 nearly everywhere), large ones (t > 1 or the interval of t), huge ones
    (the bias decides)."""
    rng = np.random.default_rng(11)
    W = _rows(rng, 400, 12, "float32")
    bias = _stored(rng.standard_normal(400) * spread, "float32")
    spec = HeadSpec.from_array(W, bias)
    for opts in (Options(), Options(domains=("all", "box"), radius=Fraction(1000))):
        for labels in (tuple(range(0, 200)), tuple(range(200, 400))):
            a, b = _screen_both(spec, labels, opts, monkeypatch)
            assert a.out == b.out and a.pending == b.pending and a.cost == b.cost
            assert a.margins.keys() == b.margins.keys()
            for k, v in a.margins.items():
                assert abs(b.margins[k] - v) <= 1e-12 * max(1.0, abs(v))
            assert "screen32" in b.stats


@pytest.mark.parametrize("dtype", ["bf16", "float32", "bias"])
def test_audits_agree_and_certificates_check(tmp_path, monkeypatch, dtype):
    W = _rows(np.random.default_rng(8), 60, 6, "float32" if dtype == "bias" else dtype)
    bias = None if dtype != "bias" else _stored(np.random.default_rng(9).standard_normal(60)
                                                * 0.01, "float32")
    res = []
    for flag in (False, True):
        monkeypatch.setattr(screen_mod, "FLOAT32_SCREEN", flag)
        r = audit_argmax(W, bias=bias, progress=False)
        cert = r.certificate()
        assert check(cert).ok
        res.append((r.verdicts, cert["records"]))
    assert res[0] == res[1]
    verdicts = res[0][0]["all"]
    if bias is None:
        assert verdicts[3] == "never" and verdicts[5] == "never"
        assert verdicts[0] == "argmaxable"


@pytest.mark.parametrize("scale", [2.0**-70, 2.0**-130, 2.0**60, 2.0**100])
def test_extreme_exponents_same_decisions(monkeypatch, scale):
    """Heads far from 1 (the screen's power-of-two rescaling sW, float32 subnormal entries,
    products near float32 overflow): with and without the float32 pass, the same records."""
    rng = np.random.default_rng(9)
    W = _rows(rng, 80, 6, "float32")
    with np.errstate(all="ignore"):
        W = _stored(W * scale, "float32")
    W[7, 0] = 2.0**-149 if scale < 1 else W[7, 0]  # a subnormal float32 entry
    assert np.all(np.isfinite(W))
    a, b = _screen_both(HeadSpec.from_array(W), tuple(range(80)), Options(), monkeypatch)
    assert a.out == b.out and a.pending == b.pending and a.cost == b.cost
    assert a.margins.keys() == b.margins.keys()
    for k, v in a.margins.items():
        assert abs(b.margins[k] - v) <= 1e-12 * abs(v)


@pytest.mark.parametrize("dtype", ["bf16", "float16", "float32", "float64"])
@pytest.mark.parametrize("d", [1, 7])
def test_head_passes_keep_their_chunks_and_dtypes(tmp_path, monkeypatch, dtype, d):
    """Head.matmul, matmul32 and propose_matvec read the stored rows through one chunk
    iterator: each product is still the BLAS call of its dtype on the same chunk of rows
    (float32 GEMMs of float32 data for the float32 screen, Lemma 5), chunk by chunk."""
    from logitgeom.audit import head as head_mod

    monkeypatch.setattr(head_mod, "CHUNK_BYTES", 1000)
    monkeypatch.setattr(head_mod, "_SUM_CHUNK_BYTES", 3000)
    rng = np.random.default_rng(d)
    W = _stored(rng.standard_normal((301, d)), "float32" if dtype == "float64" else dtype)
    h = head_mod.Head(_write(tmp_path, W, dtype))  # float64 storage: float32 values
    W32, X = W.astype(np.float32), rng.standard_normal((d, 5))
    X32, x = X.astype(np.float32), X[:, 0]

    def chunked(nbytes, itemsize, product, out_dtype):
        step = max(1, nbytes // (itemsize * d))
        return np.concatenate([product(r, r + step) for r in range(0, 301, step)]
                              ).astype(out_dtype)

    if d == 1:  # one product per entry: exact, whatever the chunks
        want32, want64 = W32 * X32, W * X
    else:
        want32 = chunked(1000, 4, lambda r0, r1: W32[r0:r1] @ X32, np.float32)
        want64 = chunked(1000, 8, lambda r0, r1: W[r0:r1] @ X, np.float64)
    got32 = h.matmul32(X32)
    assert got32.dtype == np.float32 and np.array_equal(got32, want32)
    assert np.array_equal(h.matmul(X), want64)
    if dtype == "float32":
        want = chunked(3000, 4, lambda r0, r1: W32[r0:r1] @ x.astype(np.float32), np.float64)
    else:  # matmul's float64 chunks
        want = want64[:, 0] if d == 1 else \
            chunked(1000, 8, lambda r0, r1: W[r0:r1] @ x[:, None], np.float64)[:, 0]
    assert np.array_equal(h.propose_matvec(x), want)
