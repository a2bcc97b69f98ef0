"""The verification grid (Lemma 5.3, Thm 5.6) and the count / verify-grid CLI."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from logitgeom.cli.main import main
from logitgeom.errors import InvalidInput
from logitgeom.geometry import check_cell, random_head, ranking_pattern, sign_pattern, verify_grid
from logitgeom.geometry.grid import gram_column_basis, ranking_to_signs

W1 = [[1, "-4/5", 1], [1, "4/5", 1], [1, "11/20", "-1/2"], [1, -1, -1], [1, 1, -1]]
W2 = [[1, -1, 1], [1, 1, 1], [1, "7/20", "-1/2"], [1, "-4/5", -1], [1, "4/5", -1]]


def test_small_grid_passes_and_is_deterministic():
    r = verify_grid(ns=(3, 5), seeds=2, progress=False)
    assert r.passed
    assert [(c.n, c.d) for c in r.cells[::2]] == [(3, 2), (3, 3), (5, 2), (5, 3), (5, 4), (5, 5)]
    assert all((c.ranking_equal is None) == (c.d >= c.n) for c in r.cells)
    again = verify_grid(ns=(3, 5), seeds=2, progress=False)
    assert json.dumps(r.to_json(), sort_keys=True) == json.dumps(again.to_json(), sort_keys=True)
    assert "Lemma 5.3" in r.table() and "all passed: True" in r.table()


def test_random_head_properties():
    W = random_head(10, 3, seed=4)
    assert W == random_head(10, 3, seed=4) != random_head(10, 3, seed=5)
    assert len(set(W)) == 10 and all(any(r) for r in W)
    assert all(isinstance(x, Fraction) and -5 <= x <= 5 for r in W for x in r)
    with pytest.raises(InvalidInput, match="distinct"):
        random_head(5, 1, seed=0, low=0, high=1)


def test_check_cell_on_the_h2_pair_and_a_negative_control():
    for W in (W1, W2):
        c = check_cell(W)
        assert c.passed and c.sign_count == 20 and c.ranking_count == 14
    # S(W1) == S(W2) but R(W1) != R(W2): the comparison is sensitive (the cosine paper, App. H.2)
    assert sign_pattern(W1).patterns == sign_pattern(W2).patterns
    R1 = {tuple(i + 1 for i in p) for p in ranking_pattern(W1).patterns}
    R2 = {tuple(i + 1 for i in p) for p in ranking_pattern(W2).patterns}
    assert R1 - R2 == {(4, 1, 3, 2, 5), (5, 2, 3, 1, 4)}
    assert R2 - R1 == {(1, 4, 3, 5, 2), (2, 5, 3, 4, 1)}
    BW2 = [
        [Fraction(a) - Fraction(b) for a, b in zip(W2[i], W2[j], strict=True)]
        for i in range(5)
        for j in range(i + 1, 5)
    ]
    S_C_BW2 = set(sign_pattern(gram_column_basis(BW2)).patterns)
    assert {ranking_to_signs(p, 5) for p in ranking_pattern(W1).patterns} != S_C_BW2


def test_helpers():
    assert ranking_to_signs((0, 1, 2), 3) == (1, 1, 1)
    assert ranking_to_signs((2, 1, 0), 3) == (-1, -1, -1)
    G = gram_column_basis([[1, 1], [2, 2], [1, 0]])
    assert len(G[0]) == 2
    with pytest.raises(InvalidInput, match="zero"):
        gram_column_basis([[0, 0]])


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: check_cell([[1, 0], [0, 0], [1, 1]]), r"zero rows \[1\]"),
        (lambda: check_cell([[1, 0], [1, 0], [1, 1]]), "repeated rows"),
        (lambda: verify_grid(ns=(3,), seeds=0), "seeds"),
        (lambda: verify_grid(ns=(1,), seeds=1), "empty"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(InvalidInput, match=match):
        call()


def test_cli_count_and_grid(tmp_path, capsys):
    w = tmp_path / "W.csv"
    w.write_text("1,0\n0,1\n1,1\n1/2,1/2\n")
    b = tmp_path / "b.csv"
    b.write_text("0\n1\n2\n3\n")
    assert main(["count", "sign", str(w)]) == 0
    assert capsys.readouterr().out.startswith("6 sign patterns")
    out = tmp_path / "c.json"
    assert main(["count", "ranking", str(w), "--bias", str(b), "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["kind"] == "count-ranking" and data["affine"] and data["k"] == 4
    from logitgeom.geometry import count_rankings

    assert data["count"] == count_rankings(
        [[1, 0], [0, 1], [1, 1], ["1/2", "1/2"]], bias=[0, 1, 2, 3]
    )
    capsys.readouterr()
    assert main(["verify-grid", "--n", "3", "--seeds", "1", "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "all passed: True" in text and "S(W W^T)" in text
    assert main(["verify-grid", "--n", "3", "--seeds", "1", "--method", "transport"]) == 0
    assert main(["verify-grid", "--n", "3,x"]) == 2
    assert main(["count", "sign", str(tmp_path / "missing.csv")]) == 2


def test_transport_method_agrees_and_detects_a_difference():
    from logitgeom.geometry._grid_sets import ranking_sign_array, transported_gram_patterns

    r1 = verify_grid(ns=(3, 5), seeds=2, progress=False, method="transport")
    r2 = verify_grid(ns=(3, 5), seeds=2, progress=False)
    assert r1.passed and r1.to_json()["cells"] == r2.to_json()["cells"]
    assert r1.to_json()["method"] == "transport"
    # App. H.2: R(W1) != R(W2); transporting W1's rankings onto C(B W2) must fail
    R1 = ranking_pattern(W1)
    M1 = [[Fraction(x) for x in r] for r in W1]
    M2 = [[Fraction(x) for x in r] for r in W2]
    BW1, BW2 = (
        [
            [a - b for a, b in zip(M[i], M[j], strict=True)]
            for i in range(5)
            for j in range(i + 1, 5)
        ]
        for M in (M1, M2)
    )
    signs = ranking_sign_array(R1.patterns, 5)
    assert transported_gram_patterns(BW1, gram_column_basis(BW1), signs, R1.witnesses)[0]
    ok, total = transported_gram_patterns(BW1, gram_column_basis(BW2), signs, R1.witnesses)
    assert not ok and total == 14
    with pytest.raises(InvalidInput, match="method"):
        check_cell([[1, 0], [0, 1]], method="guess")
