"""One int64 crossing from floats to integers (logitgeom.exact.intmat.float_int64): both
:func:`float_ints` and the audit's int64 squared norms (``audit.proofs._diff_sq_norms``)
stand on it, and give what their own copies gave before, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logitgeom.audit.proofs import _diff_sq_norms
from logitgeom.exact.intmat import float_int64, float_ints

TINY = float(np.nextafter(0.0, 1.0))
HUGE = float(np.finfo(np.float64).max)


def _float_ints_before(a):
    """float_ints as it was (a copy): a six-step trailing-zero loop, then Python shifts."""
    a = np.asarray(a, dtype=np.float64).ravel()
    if not np.all(np.isfinite(a)):
        raise ValueError("float_ints needs finite values")
    mant, ex = np.frexp(a)
    mi = (mant * 2.0**53).astype(np.int64)
    ee = ex.astype(np.int64) - 53
    nz = mi != 0
    if not nz.any():
        return [0] * a.size, 0
    tz = np.zeros_like(mi)
    m2 = np.abs(mi)
    for b in (32, 16, 8, 4, 2, 1):
        mask = nz & ((m2 & ((1 << b) - 1)) == 0)
        m2 = np.where(mask, m2 >> b, m2)
        tz = np.where(mask, tz + b, tz)
    mi = np.where(nz, np.sign(mi) * m2, 0)
    ee = ee + tz
    emin = int(ee[nz].min())
    sh = (ee - emin).tolist()
    return [int(m) << s if m else 0 for m, s in zip(mi.tolist(), sh, strict=True)], emin


def _diff_sq_norms_before(A):
    """audit.proofs._diff_sq_norms as it was (a copy): its own frexp scaling."""
    if A.shape[0] < 2 or A.shape[1] >= 1 << 21 or not np.all(np.isfinite(A)):
        return None
    mant, ex = np.frexp(A)
    mi = (mant * 2.0**53).astype(np.int64)
    nz = mi != 0
    if not nz.any():
        return [0] * (A.shape[0] - 1)
    low = np.frexp((mi & -mi).astype(np.float64))[1] - 1
    emin = int((ex.astype(np.int64) - 53 + low)[nz].min())
    if int(ex[nz].max()) - emin > 61:
        return None
    ints = np.ldexp(A, -emin).astype(np.int64)
    G = np.abs(ints[0][None, :] - ints[1:])
    lim = [(G >> (21 * t)) & ((1 << 21) - 1) for t in range(3)]
    out = [0] * G.shape[0]
    for s in range(3):
        for t in range(s, 3):
            part = np.einsum("ij,ij->i", lim[s], lim[t])
            f = 2 if s != t else 1
            out = [o + ((f * int(v)) << (21 * (s + t))) for o, v in zip(out, part.tolist(),
                                                                       strict=True)]
    return out


def _adversarial():
    rng = np.random.default_rng(16)
    yield np.array([])
    yield np.zeros(5)
    yield -np.zeros(5)
    yield np.array([0.0, -0.0, TINY, -TINY])
    yield np.array([TINY, HUGE, -HUGE])  # the widest spread a float64 holds
    yield np.array([5e-324, 2.2250738585072014e-308, 2.225073858507201e-308])  # subnormals
    yield np.array([2.0**62, -(2.0**62), 1.0])  # 63 bits: still int64
    yield np.array([2.0**63, 1.0])  # 64 bits: Python integers
    yield np.array([-(2.0**63), 1.0])
    yield np.array([2.0**61, 0.5, -0.25])  # 63 bits again, below 1
    yield np.array([3.0, 5.0, 2.0**52 + 1, -(2.0**53 - 1)])  # integer-valued, 53 bits
    yield np.array([[1.0, 2.0], [0.25, -0.0]])
    yield np.array([0.1, 1e-300, 1e300])
    yield np.array([1e-45, 3.4e38, -0.0], dtype=np.float32)
    yield (rng.standard_normal((40, 30)) * 1e-3).astype(np.float32)
    yield np.round(rng.standard_normal(50) * 1000)
    for n in (1, 7, 300):
        yield rng.standard_normal(n)
        yield rng.standard_normal(n).astype(np.float32)
        yield rng.standard_normal(n) * 2.0 ** rng.integers(-1074, 1000, n)
        yield np.ldexp(rng.integers(-2**53 + 1, 2**53, n).astype(np.float64),
                       rng.integers(-1100, 970, n))
        yield np.ldexp(rng.integers(-2**20, 2**20, n).astype(np.float64),
                       rng.integers(-60, 60, n))


@pytest.mark.parametrize("a", list(_adversarial()), ids=lambda a: f"{a.dtype}{a.shape}")
def test_float_ints_is_what_it_was(a):
    got, want = float_ints(a), _float_ints_before(a)
    assert got == want
    assert all(type(v) is int for v in got[0]) and type(got[1]) is int


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, width=64), max_size=24))
def test_float_ints_is_what_it_was_on_any_floats(values):
    a = np.array(values, dtype=np.float64)
    assert float_ints(a) == _float_ints_before(a)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, width=32), max_size=24))
def test_float_ints_is_what_it_was_on_float32(values):
    a = np.array(values, dtype=np.float32)
    assert float_ints(a) == _float_ints_before(a)


def test_float_int64_parts_and_width():
    a = np.array([[0.5, -3.0], [0.0, 0.25]])
    m, s, e, width = float_int64(a)
    assert m.shape == s.shape == a.shape and m.dtype == s.dtype == np.int64
    assert np.array_equal(np.ldexp((m << s).astype(np.float64), e), a)
    assert (m[m != 0] % 2 != 0).all() and (s[m == 0] == 0).all()
    assert e == -2 and width == 4  # 12 = 3 << 2 < 2^4
    for bad in (np.nan, np.inf, -np.inf):
        with pytest.raises(ValueError, match="finite"):
            float_int64(np.array([1.0, bad]))
        with pytest.raises(ValueError, match="finite"):
            float_ints([1.0, bad])


def test_float_int64_width_is_the_widest_integer():
    rng = np.random.default_rng(5)
    for _ in range(200):
        a = np.ldexp(rng.standard_normal(6), rng.integers(-70, 70, 6))
        a[rng.random(6) < 0.2] = 0.0
        ints, e = _float_ints_before(a)
        _, _, e2, width = float_int64(a)
        assert e2 == e and width == max(abs(v) for v in ints).bit_length()


@pytest.mark.parametrize("spread", [0, 10, 37, 58, 59, 60, 61, 62, 200])
def test_diff_sq_norms_is_what_it_was(spread):
    rng = np.random.default_rng(spread)
    for rows, d in ((2, 1), (3, 5), (9, 64)):
        A = rng.standard_normal((rows, d)).astype(np.float32).astype(np.float64)
        A[0, 0] = np.ldexp(1.0, spread)  # the widest integer spans ~ spread + 24 bits
        A[-1, -1] = 0.0
        assert _diff_sq_norms(A) == _diff_sq_norms_before(A)
    for A in (np.zeros((3, 4)), -np.zeros((2, 2)), np.array([[TINY, 0.0], [0.0, -TINY]]),
              np.array([[np.nan, 1.0], [0.0, 0.0]]), np.array([[1.0, 2.0]]),
              np.array([[2.0**60, 1.0], [-(2.0**60), 0.5]])):
        assert _diff_sq_norms(A) == _diff_sq_norms_before(A)
