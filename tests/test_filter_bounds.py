"""One float filter with one proof (engine/exact/filtered.py, docs/filtered-arithmetic.md).

Two kinds of test:

* a grep: the unit roundoff, the logit-margin factor, the norm inflation and the underflow
  slack are each defined exactly once in the engine (in ``logitgeom.exact.filtered``);
* property tests (hypothesis) of every caller against exact ``Fraction`` arithmetic, with
  adversarial inputs: rows 1 ulp apart, entries of 1e-300 beside 1e300, subnormals, exact
  ties and exact zeros.  Each decision the float filter takes must be the exact one: the
  argmax audit's margins (``audit.proofs.violations``, ``audit.screen.columns_proven``),
  occupancy's signs and rankings (``occupancy.decide.decide_chunk``) and the enumeration's
  signs (``exact.filtered.sign_matrix``); the lemmas themselves are tested too.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from logitgeom.audit.head import HeadSpec, open_head
from logitgeom.audit.proofs import violations
from logitgeom.audit.screen import columns_proven
from logitgeom.exact import filtered
from logitgeom.occupancy.decide import decide_chunk

ENGINE = Path(__file__).resolve().parents[1] / "engine"

# --------------------------------------------------------------------------- the grep
#: each bound and constant: a pattern for its definition, which must occur once, in filtered.py
DEFINITIONS = {
    "unit roundoff": r"2(\.0)?\s*\*\*\s*\(?-\s*53|1\.1102230246251565e-16|"
                     r"ldexp\(1(\.0)?,\s*-53\)",
    "underflow slack": r"2(\.0)?\s*\*\*\s*\(?-\s*900",
    "logit-margin factor": r"1\.01\s*\*",
    "norm inflation": r"8(\.0)?\s*\*\s*\(\s*\w+(\.\w+)*(\.shape\[\d\])?\s*\+\s*4\s*\)",
    "dot-product factor": r"2(\.0)?\s*\*\s*\(\s*D\s*\+\s*1\s*\)",
    "float32 unit roundoff": r"2(\.0)?\s*\*\*\s*\(?-\s*24\b|5\.960464477539063e-08",
    "float32 underflow slack": r"2(\.0)?\s*\*\*\s*\(?-\s*100\b",
    "float32 margin factor": r"1\.02\s*\*",
    "filter function": r"def\s+(margin_factor32|margin_factor|rounding_bound|filter_factor|"
                       r"bound_factor|norm_inflation|norm_bounds?|_norm_bounds|_col_norms)\b",
}

#: the same literal used for something that is not an error bound: (module, code, why)
NOT_BOUNDS = [("audit/screen.py", "hi > 2.0**900 or hi < 2.0**-900",
               "the range in which a proposal is rescaled (a proposal, decides nothing)")]


def _code_lines(path: Path) -> list[tuple[int, str]]:
    """(line number, code) of a module, comments and docstring lines dropped."""
    out = []
    in_doc = False
    for n, line in enumerate(path.read_text().splitlines(), 1):
        s = line.strip()
        quotes = s.count('"""')
        if in_doc:
            if quotes % 2:
                in_doc = False
            continue
        if s.startswith('"""') or s.startswith('r"""'):
            if quotes == 1:
                in_doc = True
            continue
        out.append((n, line.split("#", 1)[0]))
    return out


def test_each_bound_is_defined_once_in_the_engine():
    found: dict[str, list[str]] = {name: [] for name in DEFINITIONS}
    for path in sorted(ENGINE.rglob("*.py")):
        for n, code in _code_lines(path):
            for name, pat in DEFINITIONS.items():
                rel = str(path.relative_to(ENGINE))
                if re.search(pat, code) and not any(rel == m and c in code
                                                    for m, c, _ in NOT_BOUNDS):
                    found[name].append(f"{path.relative_to(ENGINE)}:{n}: {code.strip()}")
    # margin_factor(32), bound_factor, norm_inflation, norm_bound(s)
    expect = {"filter function": 6}
    for name, hits in found.items():
        assert all(h.startswith("exact/filtered.py:") for h in hits), (name, hits)
        assert len(hits) == expect.get(name, 1), (name, hits)


def test_callers_import_the_filter():
    for mod in ("audit/proofs.py", "audit/screen.py", "audit/head.py", "occupancy/decide.py",
                "geometry/arrangement/_overflow.py"):
        assert re.search(r"from logitgeom\.exact(\.filtered)? import|logitgeom\.exact import "
                         r"filtered", (ENGINE / mod).read_text()), mod


# --------------------------------------------------------------------------- strategies
_MAGS = [0.0, 5e-324, 2.0**-1074 * 3, 2.0**-1022, 1e-300, 1e-200, 1e-20, 1.0, 1e20, 1e200,
         1e300]


def _ulp_neighbours(v: float, n: int) -> float:
    for _ in range(abs(n)):
        v = math.nextafter(v, math.inf if n > 0 else -math.inf)
    return v


floats = st.one_of(
    st.sampled_from(_MAGS).flatmap(lambda m: st.sampled_from([m, -m])),
    st.floats(-4, 4, allow_nan=False, allow_infinity=False),
    st.integers(-8, 8).map(float),
    st.floats(allow_nan=False, allow_infinity=False, min_value=-1e300, max_value=1e300),
    st.floats(allow_nan=False, allow_infinity=False, allow_subnormal=True,
              min_value=-1e-300, max_value=1e-300),
)


@st.composite
def adversarial_heads(draw, max_k=5, max_d=4, bias=None):
    """A float head whose rows include exact copies and 1-ulp neighbours of other rows."""
    d = draw(st.integers(1, max_d))
    k = draw(st.integers(2, max_k))
    rows = [draw(st.lists(floats, min_size=d, max_size=d))]
    while len(rows) < k:
        how = draw(st.sampled_from(["fresh", "copy", "ulp", "scaled"]))
        src = rows[draw(st.integers(0, len(rows) - 1))]
        if how == "fresh":
            rows.append(draw(st.lists(floats, min_size=d, max_size=d)))
        elif how == "copy":
            rows.append(list(src))
        elif how == "ulp":
            j = draw(st.integers(0, d - 1))
            r = list(src)
            r[j] = _ulp_neighbours(r[j], draw(st.sampled_from([-2, -1, 1, 2])))
            rows.append(r)
        else:
            rows.append([v * 2.0 ** draw(st.integers(-3, 3)) for v in src])
    W = np.array(rows, dtype=np.float64)
    b = None
    if bias if bias is not None else draw(st.booleans()):
        b = np.array(draw(st.lists(st.sampled_from([0.0, 1.0, -1.0, 1e-300, 1e300, 0.5]),
                                   min_size=k, max_size=k)))
    return W, b


def _points(draw, W, n):
    """Inputs: on boundaries (differences of rows, rows themselves, zeros) and random."""
    k, d = W.shape
    out = []
    for _ in range(n):
        how = draw(st.sampled_from(["row", "zero", "free", "scaled-row", "ulp"]))
        if how == "row":
            out.append(W[draw(st.integers(0, k - 1))].copy())
        elif how == "zero":
            out.append(np.zeros(d))
        elif how == "scaled-row":
            out.append(W[draw(st.integers(0, k - 1))] * 2.0 ** draw(st.integers(-60, 60)))
        elif how == "ulp":
            x = W[draw(st.integers(0, k - 1))].copy()
            j = draw(st.integers(0, d - 1))
            x[j] = _ulp_neighbours(x[j], draw(st.sampled_from([-1, 1])))
            out.append(x)
        else:
            out.append(np.array(draw(st.lists(floats, min_size=d, max_size=d))))
    X = np.array(out, dtype=np.float64)
    return np.where(np.isfinite(X), X, 0.0)


def _exact_logits(W, b, x):
    return [sum((Fraction(float(w)) * Fraction(float(v)) for w, v in zip(r, x, strict=True)),
                Fraction(0)) + (Fraction(float(b[i])) if b is not None else 0)
            for i, r in enumerate(W)]


SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# --------------------------------------------------------------------------- the lemmas
@SETTINGS
@given(st.data())
def test_margin_lemma_bounds_the_float_margin(data):
    """Lemma 2: |fl(z_a) - fl(z_b) - (z_a - z_b)| <= g (sum of the absolute terms) + slack."""
    W, b = data.draw(adversarial_heads(max_k=3, max_d=6))
    x = _points(data.draw, W, 1)[0]
    with np.errstate(all="ignore"):
        z = W @ x + (b if b is not None else 0.0)
    if not np.all(np.isfinite(z)):
        return
    ex = _exact_logits(W, b, x)
    g = Fraction(filtered.margin_factor(W.shape[1]))
    for a in range(len(W)):
        for c in range(len(W)):
            terms = sum(abs(Fraction(float(w)) * Fraction(float(v)))
                        for w, v in zip(np.concatenate([W[a], W[c]]), np.concatenate([x, x]),
                                        strict=True))
            if b is not None:
                terms += abs(Fraction(float(b[a]))) + abs(Fraction(float(b[c])))
            fm = float(z[a]) - float(z[c])
            if not math.isfinite(fm):
                continue
            err = abs(Fraction(fm) - (ex[a] - ex[c]))
            assert err <= g * terms + Fraction(filtered.UNDERFLOW_SLACK)


@SETTINGS
@given(st.lists(floats, min_size=1, max_size=8))
def test_norm_bound_dominates_the_exact_norm(xs):
    """Lemma 3: norm_bound(x)^2 >= sum x_j^2 exactly; also row and column forms."""
    x = np.array(xs)
    exact_sq = sum(Fraction(v) ** 2 for v in xs)
    assert Fraction(filtered.norm_bound(x)) ** 2 >= exact_sq
    assert Fraction(float(filtered.norm_bounds(x[None, :])[0])) ** 2 >= exact_sq
    assert Fraction(float(filtered.norm_bounds(x[:, None], axis=0)[0])) ** 2 >= exact_sq
    assert Fraction(float(filtered.norm_bounds(x[None, :])[0])) \
        == Fraction(filtered.norm_bound(x)) or x.size > 1  # one summation order: equal


def test_roundoff_is_half_an_ulp_of_one():
    assert filtered.ROUNDOFF == (math.nextafter(1.0, 2.0) - 1.0) / 2
    assert filtered.bound_factor(6) == 2 * 7 * filtered.ROUNDOFF


# --------------------------------------------------------------------------- the callers
@SETTINGS
@given(st.data())
def test_audit_violations_are_exact(data):
    """audit.proofs.violations (and confirm_witness through it) equals the exact set."""
    W, b = data.draw(adversarial_heads())
    head = open_head(HeadSpec.from_array(W, bias=b))
    for x in _points(data.draw, W, 3):
        k = data.draw(st.integers(0, len(W) - 1))
        ex = _exact_logits(W, b, x)
        want = [i for i in range(len(W)) if i != k and ex[k] - ex[i] <= 0]
        assert violations(head, k, x).tolist() == want


@SETTINGS
@given(st.data())
def test_audit_columns_proven_only_when_exact(data):
    """audit.screen.columns_proven says True only for columns whose every margin is > 0."""
    W, b = data.draw(adversarial_heads())
    head = open_head(HeadSpec.from_array(W, bias=b))
    X = _points(data.draw, W, 4)
    ks = np.array([data.draw(st.integers(0, len(W) - 1)) for _ in range(len(X))])
    with np.errstate(all="ignore"):
        S = head.matmul(X.T)
    got = columns_proven(head, ks, X.T, S)
    for j, x in enumerate(X):
        if got[j]:
            ex = _exact_logits(W, b, x)
            assert all(ex[ks[j]] > ex[i] for i in range(len(W)) if i != ks[j])


@SETTINGS
@given(st.data())
def test_occupancy_decisions_are_exact(data):
    """occupancy.decide.decide_chunk: signs, ranking, ties and argmax equal the exact ones."""
    W, b = data.draw(adversarial_heads())
    head = open_head(HeadSpec.from_array(W, bias=b))
    X = _points(data.draw, W, 4)
    dec = decide_chunk(head, X)
    for r, x in enumerate(X):
        ex = _exact_logits(W, b, x)
        assert dec.sign[r].tolist() == [(v > 0) - (v < 0) for v in ex]
        order = dec.order[r].tolist()
        assert all(ex[order[j]] >= ex[order[j + 1]] for j in range(len(W) - 1))
        assert dec.tie[r].tolist() == [ex[order[j]] == ex[order[j + 1]]
                                       for j in range(len(W) - 1)]
        top = max(ex)
        winners = [i for i, v in enumerate(ex) if v == top]
        assert int(dec.argmax[r]) == (winners[0] if len(winners) == 1 else -1)


def test_occupancy_non_binary_head_is_exact():
    """A head with non-binary rational entries (one rounding more per term: margin_factor's
    ``rounded``): exact ties at x with 1/3 entries."""
    head = open_head(HeadSpec.from_array([[Fraction(1, 3), 0], [0, Fraction(1, 3)],
                                          [Fraction(1, 6), Fraction(1, 6)]]))
    dec = decide_chunk(head, np.array([[3.0, 3.0], [1.0, 1.0 + 2**-52], [1.0, 0.0]]))
    assert dec.tie.tolist() == [[True, True], [False, False], [False, False]]
    assert dec.order[1].tolist() == [1, 2, 0]
    assert dec.argmax.tolist() == [-1, 1, 0]


_ints = st.one_of(st.integers(-3, 3), st.integers(-(1 << 53), 1 << 53),
                  st.builds(lambda m, e: m << e, st.integers(-(1 << 53) + 1, (1 << 53) - 1),
                            st.integers(0, 70)))


@SETTINGS
@given(st.data())
def test_enumeration_signs_are_exact(data):
    """exact.filtered.sign_matrix (the enumeration's signs): exact zeros built from huge
    cancelling terms, points 1 apart beyond 2^53, normals of two limbs."""
    D = data.draw(st.integers(1, 4))
    A = [data.draw(st.lists(_ints, min_size=D, max_size=D)) for _ in range(data.draw(
        st.integers(1, 4)))]
    P = []
    for _ in range(data.draw(st.integers(1, 5))):
        a = A[data.draw(st.integers(0, len(A) - 1))]
        if D >= 2 and data.draw(st.booleans()):  # on the hyperplane of a (p . a = 0) +- 1 ulp
            t = data.draw(st.integers(1, 1 << 60))
            p = [0] * D
            p[0], p[1] = a[1] * t, -a[0] * t
            p[0] += data.draw(st.sampled_from([-1, 0, 1]))
            P.append(p)
        else:
            P.append(data.draw(st.lists(_ints, min_size=D, max_size=D)))
    Po, Ao = np.array(P, dtype=object), np.array(A, dtype=object)
    want = [[(v > 0) - (v < 0) for v in (sum(x * y for x, y in zip(p, a, strict=True))
                                         for a in A)] for p in P]
    assert filtered.sign_matrix(Po, Ao).tolist() == want


def test_audit_non_binary_head_is_exact():
    """The audit on a head of rationals rounded to float64 (``margin_factor(d, 1)``): exact
    ties at x = (3, 3) and a 1-ulp input are decided as the Fractions say."""
    head = open_head(HeadSpec.from_array([[Fraction(1, 3), 0], [0, Fraction(1, 3)],
                                          [Fraction(1, 6), Fraction(1, 6)]]))
    assert violations(head, 2, np.array([3.0, 3.0])).tolist() == [0, 1]
    assert violations(head, 1, np.array([1.0, 1.0 + 2**-52])).tolist() == []
    assert violations(head, 0, np.array([1.0, 1.0 + 2**-52])).tolist() == [1, 2]
