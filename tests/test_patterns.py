"""Sign patterns, ranking patterns, top-t prefixes and argmaxable labels.

Exact assertions only.  The independent oracle decides every candidate sign vector /
permutation by an exact LP (logitgeom.exact.lp), so completeness is checked against
something other than the enumeration and the Zaslavsky count it is certified by.
"""

from __future__ import annotations

import itertools
import json
import math
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logitgeom.cli.main import main
from logitgeom.errors import InvalidInput, TooLarge
from logitgeom.exact.lattice import count_rankings_exact, count_regions_exact
from logitgeom.exact.lp import check_gordan, check_witness, decide
from logitgeom.geometry import argmaxable, ranking_pattern, sign_pattern

F = Fraction
W1 = [[1, "-4/5", 1], [1, "4/5", 1], [1, "11/20", "-1/2"], [1, -1, -1], [1, 1, -1]]
W2 = [[1, -1, 1], [1, 1, 1], [1, "7/20", "-1/2"], [1, "-4/5", -1], [1, "4/5", -1]]


# ----------------------------------------------------------------------------- oracles


def _fr(M):
    return [[F(v) for v in r] for r in M]


def _signs(W, b, x):
    out = []
    for i, w in enumerate(W):
        v = sum(F(a) * c for a, c in zip(w, x, strict=True)) + (F(b[i]) if b else 0)
        out.append((v > 0) - (v < 0))
    return tuple(out)


def _logits(W, b, x):
    return [sum(F(a) * c for a, c in zip(w, x, strict=True)) + (F(b[i]) if b else 0)
            for i, w in enumerate(W)]


def oracle_signs(W, b=None):
    """Every feasible strict sign vector, each decided by an exact LP."""
    W = _fr(W)
    d = len(W[0])
    H = [[F(b[i]) if b else F(0), *w] for i, w in enumerate(W)]
    const = [all(v == 0 for v in w) for w in W]
    free = [i for i in range(len(W)) if not const[i]]
    out = set()
    for s in itertools.product((-1, 1), repeat=len(free)):
        rows = [[si * v for v in H[i]] for si, i in zip(s, free, strict=True)]
        rows.append([F(1)] + [F(0)] * d)
        if b is None:
            rows = [r[1:] for r in rows[:-1]] or [[F(1)] + [F(0)] * (d - 1)]
            if not free:
                rows = None
        if rows is None or decide(rows)[0]:
            pat = [0] * len(W)
            for si, i in zip(s, free, strict=True):
                pat[i] = si
            for i in range(len(W)):
                if const[i]:
                    bi = F(b[i]) if b else F(0)
                    pat[i] = (bi > 0) - (bi < 0)
            out.add(tuple(pat))
    return out


def oracle_rankings(W, b=None):
    """Every permutation realised strictly (labels assumed pairwise distinct)."""
    W = _fr(W)
    d = len(W[0])
    H = [[F(b[i]) if b else F(0), *w] for i, w in enumerate(W)]
    out = set()
    for perm in itertools.permutations(range(len(W))):
        rows = [[x - y for x, y in zip(H[p], H[q], strict=True)]
                for p, q in zip(perm, perm[1:], strict=False)]
        if b is None:
            rows = [r[1:] for r in rows]
        else:
            rows.append([F(1)] + [F(0)] * d)
        if not rows or decide(rows)[0]:
            out.add(perm)
    return out


def assert_witnessed(res):
    W, b = res.W, res.bias
    assert len(res.patterns) == len(res.witnesses) == res.count
    assert list(res.patterns) == sorted(set(res.patterns))
    for p, x in zip(res.patterns, res.witnesses, strict=True):
        assert all(isinstance(v, Fraction) for v in x) and len(x) == len(W[0])
        if res.kind == "sign":
            assert _signs(W, b, x) == p
        else:
            L = _logits(W, b, x)
            full = tuple(sorted(range(len(W)), key=lambda i: (-L[i], i)))
            assert full[: len(p)] == p
            tied = {i: c for c in res.ties for i in c}
            upto = len(full) if res.kind == "ranking" else len(p)
            for u, v in zip(full[:upto], full[1:upto], strict=False):
                assert L[u] > L[v] or (u in tied and v in tied[u])
            if res.kind == "ranking-top":  # strictly above every label after the prefix
                last = p[-1]
                for j in full[len(p):]:
                    assert L[last] > L[j] or j in tied.get(last, ())


def _int_matrix(draw, k, d, lo=-4, hi=4):
    return [[draw(st.integers(lo, hi)) for _ in range(d)] for _ in range(k)]


@st.composite
def small_W(draw, kmax=6, dmax=4):
    k = draw(st.integers(1, kmax))
    d = draw(st.integers(1, dmax))
    return _int_matrix(draw, k, d)


# ----------------------------------------------------------------------------- exact LP


def test_decide_certificates_and_circuit_support():
    rows = [[1, 0, 0], [0, 1, 0], [-1, -1, 0], [2, 3, 1], [5, -1, 7]]
    ok, y = decide(rows)
    assert not ok and check_gordan(rows, y)
    assert sum(1 for v in y if v) <= 3  # rank 3 -> at most rank + 1, here the circuit is 3
    ok, x = decide([[1, 2, 3], [-1, 0, 2]])
    assert ok and check_witness([[1, 2, 3], [-1, 0, 2]], x)
    with pytest.raises(InvalidInput):
        decide([])


# ----------------------------------------------------------------------------- the paper


def test_app_h2_pair():
    s1, s2 = sign_pattern(W1), sign_pattern(W2)
    assert s1.count == s2.count == 20 and s1.patterns == s2.patterns
    r1, r2 = ranking_pattern(W1), ranking_pattern(W2)
    assert r1.count == r2.count == 14

    def one_based(S):
        return {"".join(str(i + 1) for i in p) for p in S}

    assert one_based(set(r1.patterns) - set(r2.patterns)) == {"41325", "52314"}
    assert one_based(set(r2.patterns) - set(r1.patterns)) == {"14352", "25341"}
    for r in (s1, s2, r1, r2):
        assert_witnessed(r)
        assert r.complete and r.completeness == "zaslavsky"
    assert set(r1.patterns) == oracle_rankings(W1)


@pytest.mark.parametrize("k,d", [(5, 2), (5, 3), (5, 4), (10, 3)])
def test_generic_counts_cover(k, d):
    rng = np.random.default_rng(k * 10 + d)
    W = rng.integers(-50, 51, size=(k, d)).tolist()
    s = sign_pattern(W)
    assert s.count == count_regions_exact(W)
    r = ranking_pattern(W)
    assert r.count == count_rankings_exact(W)
    if s.count == 2 * sum(math.comb(k - 1, i) for i in range(d)):  # general position
        assert r.count == {(5, 2): 20, (5, 3): 72, (5, 4): 120, (10, 3): 1742}[(k, d)]
    assert_witnessed(s)
    assert_witnessed(r)


# ----------------------------------------------------------------------------- degenerate


@pytest.mark.parametrize(
    "W,b",
    [
        ([[0, 0], [1, 0], [2, 0], [0, 1]], None),  # zero row, parallel rows
        ([[1, 1], [1, 1], [-2, -2], [1, 0]], None),  # repeated and opposite rows
        ([[1, 2, 3], [2, 4, 6], [1, 0, 0], [0, 1, 0]], None),  # rank 2 < d? no: rank 3
        ([[1, 2, 3], [2, 4, 6], [1, 1, 1], [0, 1, 2]], None),  # rank 2 < d = 3
        ([[3], [-1], [0], [2]], None),  # d = 1
        ([[1, -1]], None),  # k = 1
        ([[0, 0, 0]], None),  # a single zero row: one region
        ([[1, 0], [0, 1], [1, 1], [0, 0]], [0, 1, -1, 2]),  # affine, constant row
        ([[1], [1], [2], [0]], [0, -1, 1, -3]),  # affine on a line
        ([[1, 0, 0], [0, 1, 0], [1, 1, 0], [2, 2, 0]], [1, 1, 2, 4]),  # affine, rank < d
    ],
)
def test_degenerate_sign_patterns(W, b):
    res = sign_pattern(W, bias=b)
    assert set(res.patterns) == oracle_signs(W, b)
    assert res.count == count_regions_exact(W, b)
    assert_witnessed(res)


@pytest.mark.parametrize(
    "W,b",
    [
        ([[1, 0], [0, 1], [1, 0], [-1, -1]], None),  # tie 0 ~ 2
        ([[1, 0], [2, 0], [3, 0], [0, 0]], None),  # collinear labels
        ([[1, 2], [1, 2], [1, 2]], None),  # everything tied
        ([[5, 1]], None),  # k = 1
        ([[1], [2], [4], [-3]], [0, 0, 1, 2]),  # affine, d = 1
        ([[1, 0], [1, 0], [0, 1]], [0, 1, 0]),  # same row, different bias: not tied
        ([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1], [1, 1, 1]], [0, 0, 0, 0, 0]),
    ],
)
def test_degenerate_rankings(W, b):
    res = ranking_pattern(W, bias=b)
    assert res.count == count_rankings_exact(W, b)
    assert_witnessed(res)
    if not res.ties:
        assert set(res.patterns) == oracle_rankings(W, b)
    for c in res.ties:
        for p in res.patterns:
            pos = [p.index(i) for i in c]
            assert pos == list(range(pos[0], pos[0] + len(c)))


def test_ties_reported():
    res = ranking_pattern([[1, 0], [0, 1], [1, 0], [0, 1], [3, 3]])
    assert res.ties == ((0, 2), (1, 3))
    assert res.count == 6  # orders of three classes in R^2 in general position


# ----------------------------------------------------------------------------- laws


@settings(max_examples=15, deadline=None)
@given(small_W(), st.data())
def test_sign_laws(W, data):
    k, d = len(W), len(W[0])
    res = sign_pattern(W)
    assert set(res.patterns) == oracle_signs(W)
    assert_witnessed(res)
    Q = _int_matrix(data.draw, d, d, -3, 3)
    if np.linalg.matrix_rank(np.array(Q, dtype=float)) == d:  # integer: exact enough
        WQ = [[sum(F(W[i][a]) * Q[a][j] for a in range(d)) for j in range(d)]
              for i in range(k)]
        assert sign_pattern(WQ).patterns == res.patterns
    D = [F(data.draw(st.integers(1, 9)), data.draw(st.integers(1, 9))) for _ in range(k)]
    assert sign_pattern([[D[i] * v for v in W[i]] for i in range(k)]).patterns == res.patterns


@settings(max_examples=12, deadline=None)
@given(small_W(kmax=5, dmax=3), st.data())
def test_ranking_laws(W, data):
    k, d = len(W), len(W[0])
    res = ranking_pattern(W)
    assert_witnessed(res)
    v = [data.draw(st.integers(-5, 5)) for _ in range(d)]
    shifted = ranking_pattern([[W[i][j] + v[j] for j in range(d)] for i in range(k)])
    assert shifted.patterns == res.patterns
    if not res.ties:  # central: x -> -x reverses every ranking
        assert {p[::-1] for p in res.patterns} == set(res.patterns)
        assert set(res.patterns) == oracle_rankings(W)
    t = data.draw(st.integers(1, k))
    top = ranking_pattern(W, top=t)
    assert set(top.patterns) == {p[:t] for p in res.patterns}
    assert_witnessed(top)
    am = argmaxable(W)
    assert set(am.labels) == {p[0] for p in res.patterns} | {
        i for c in res.ties for i in c if c[0] in {p[0] for p in res.patterns}}


def test_top_prefixes_with_bias_and_ties():
    W = [[1, 0], [0, 1], [1, 0], [-1, -1], [2, 1]]
    b = [0, 1, 0, 0, -1]
    full = ranking_pattern(W, bias=b)
    assert_witnessed(full)
    for t in (1, 2, 3):
        top = ranking_pattern(W, bias=b, top=t)
        assert top.kind == "ranking-top" and top.completeness == "exact-lp"
        assert set(top.patterns) == {p[:t] for p in full.patterns}
        assert_witnessed(top)


def test_argmaxable_certificates():
    W = [[1, 0], [-1, 0], [0, 0], [0, 1], [0, -1], [1, 0]]
    am = argmaxable(W, bias=[0, 0, 1, 0, 0, 0])
    assert am.ties == ((0, 5),)
    for i in range(len(W)):
        if i in am.labels:
            L = _logits(am.W, am.bias, am.witnesses[i])
            assert all(L[i] > L[j] for j in range(len(W)) if j not in (i, 5 if i == 0 else 0)
                       and not (i == 5 and j == 0))
        else:
            y = dict(am.multipliers[i])
            assert y and all(v > 0 for v in y.values())
            for c in range(2):
                assert sum(v * (am.W[i][c] - am.W[j][c]) for j, v in y.items()) == 0
            assert sum(v * (am.bias[i] - am.bias[j]) for j, v in y.items()) <= 0
    assert argmaxable([[1, 0], [-1, 0], [0, 0]]).labels == (0, 1)


# ----------------------------------------------------------------------------- executors


@pytest.mark.parametrize("scale", [9, 10**6])  # small: exact pass; large: float pass
def test_executors_give_identical_results(scale):
    rng = np.random.default_rng(7)
    W = rng.integers(-scale, scale + 1, size=(7, 4)).tolist()
    base = ranking_pattern(W, executor=None).to_json()
    with ThreadPoolExecutor(3) as ex:
        assert ranking_pattern(W, executor=ex).to_json() == base
    with ProcessPoolExecutor(2) as ex:
        assert ranking_pattern(W, executor=ex).to_json() == base
        assert sign_pattern(W, bias=[1, 2, 3, 4, 5, 6, 7], executor=ex).to_json() == \
            sign_pattern(W, bias=[1, 2, 3, 4, 5, 6, 7]).to_json()


@settings(max_examples=10, deadline=None)
@given(small_W(kmax=5, dmax=3), st.data())
def test_affine_against_oracle(W, data):
    b = [data.draw(st.integers(-3, 3)) for _ in W]
    res = sign_pattern(W, bias=b)
    assert set(res.patterns) == oracle_signs(W, b)
    assert_witnessed(res)
    rk = ranking_pattern(W, bias=b)
    assert_witnessed(rk)
    if not rk.ties:
        assert set(rk.patterns) == oracle_rankings(W, b)


def test_float_input_is_exact_binary():
    W = [[0.1, 0.2], [0.3, -0.7], [1e-3, 2.5]]
    res = sign_pattern(W)
    assert res.W[0][0] == Fraction(0.1)
    assert res.count == count_regions_exact(res.W)
    assert_witnessed(res)


# ----------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "W,b,msg",
    [
        ([[1, float("nan")]], None, "NaN"),
        ([[1, float("inf")]], None, "inf"),
        ([[1, 2], [3]], None, "ragged"),
        ([], None, "empty"),
        ([[1, 2], [3, 4]], [1], "length 1"),
    ],
)
def test_bad_input(W, b, msg):
    for f in (sign_pattern, ranking_pattern):
        with pytest.raises(InvalidInput, match=msg):
            f(W, bias=b)


def test_max_regions_and_top_checked_before_work():
    with pytest.raises(TooLarge, match="count is 20"):
        sign_pattern(W1, max_regions=19)
    with pytest.raises(TooLarge, match="count is 14"):
        ranking_pattern(W1, max_regions=5)
    assert sign_pattern(W1, max_regions=20).count == 20
    with pytest.raises(InvalidInput, match="top"):
        ranking_pattern(W1, top=0)


# ----------------------------------------------------------------------------- CLI


def test_cli_json_deterministic(tmp_path, capsys):
    path = tmp_path / "W.csv"
    path.write_text("\n".join(",".join(str(v) for v in r) for r in W2) + "\n")
    (tmp_path / "b.csv").write_text("0,1,0,-1,0\n")
    outs = []
    for i in range(2):
        out = tmp_path / f"r{i}.json"
        assert main(["patterns", "ranking", str(path), "--json", str(out)]) == 0
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]
    data = json.loads(outs[0])
    for key in ("kind", "k", "d", "count", "complete", "patterns", "witnesses"):
        assert key in data
    assert data["count"] == 14 and data["kind"] == "ranking"
    assert all(isinstance(v, str) for w in data["witnesses"] for v in w)
    assert main(["patterns", "sign", str(path), "--bias", str(tmp_path / "b.csv"),
                 "--json", str(tmp_path / "s.json")]) == 0
    s = json.loads((tmp_path / "s.json").read_text())
    assert s["count"] == count_regions_exact(_fr(W2), [0, 1, 0, -1, 0])
    assert main(["patterns", "ranking", str(path), "--top", "2"]) == 0
    assert main(["patterns", "sign", str(path), "--max-regions", "3"]) == 2
    assert "count is 20" in capsys.readouterr().err


@pytest.mark.parametrize("seed", [0, 1])
def test_exact_and_float_passes_agree(seed):
    from logitgeom.geometry.search import topes_arrays

    rng = np.random.default_rng(seed)
    W = rng.integers(-2, 3, size=(9, 4)).tolist()  # small integers: degenerate
    rows = [[W[i][c] - W[j][c] for c in range(4)] for j in range(9) for i in range(j)]
    exact = topes_arrays(rows, exact=True)
    assert len(exact.points) == count_rankings_exact(W)  # complete by construction
    flt = topes_arrays(rows, exact=False)
    assert set(flt.patterns()) <= set(exact.patterns())  # float pass only ever proposes
    assert ranking_pattern(W).count == len(exact.points)


def test_vectorised_base_case_in_r3_matches_generic_recursion():
    from logitgeom.geometry.arrangement import exact as ar

    rng = np.random.default_rng(5)
    for _ in range(60):
        n, lo = int(rng.integers(1, 10)), int(rng.choice([1, 2, 50, 10**12]))
        seen = {}
        for r in rng.integers(-lo, lo + 1, size=(n, 3)).tolist():
            key, s = ar.canonical(r)
            if s:
                seen.setdefault(key, None)
        rows = tuple(seen)
        if not rows:
            continue
        A = ar.fit(np.array(rows, dtype=object))
        generic = np.concatenate([ar.chunk(rows, j).astype(object)
                                  for j in range(len(rows))])
        old = {tuple(r) for r in ar.dedupe(ar.fit(generic), A)[1].tolist()}
        pts = ar.regions3(rows)
        new = ar.dedupe(pts, A)[1]
        assert len(new) == len(pts) and {tuple(r) for r in new.tolist()} == old
        assert len(old) == count_regions_exact(rows)
