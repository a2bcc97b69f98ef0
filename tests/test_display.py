"""Result objects display briefly in notebooks: short repr, HTML table, data frame."""

from __future__ import annotations

import numpy as np
import pytest

from logitgeom.geometry import argmaxable, ranking_pattern, sign_pattern
from logitgeom.geometry.grid import verify_grid


@pytest.fixture(scope="module")
def big_ranking():
    W = np.random.default_rng(0).integers(-5, 6, (9, 5)).tolist()
    return ranking_pattern(W, progress=False)


def test_short_repr_of_a_big_ranking_pattern(big_ranking):
    r = big_ranking
    assert r.count > 40_000
    text = repr(r)
    assert len(text) < 200 and f"count={r.count}" in text and "k=9" in text


def test_html_shows_counts_and_first_rows(big_ranking):
    h = big_ranking._repr_html_()
    assert len(h) < 5000
    assert f"first 10 of {big_ranking.count} rankings" in h
    assert "<th>rank 1</th>" in h


def test_dataframes_match_the_patterns(big_ranking):
    df = big_ranking.to_dataframe()
    assert df.shape == (big_ranking.count, 9)
    assert tuple(df.iloc[0]) == big_ranking.patterns[0]
    s = sign_pattern([[1, 0], [0, 1], [1, 1]])
    ds = s.to_dataframe()
    assert list(ds.columns) == ["label 0", "label 1", "label 2"]
    assert [tuple(r) for r in ds.itertuples(index=False)] == list(s.patterns)


def test_argmax_and_grid_tables():
    a = argmaxable([[2, 0], [0, 2], [1, 1]])
    assert repr(a) == "ArgmaxResult(k=3, d=2, labels=[0, 1], never_first=[2])"
    df = a.to_dataframe()
    assert df["argmaxable"].tolist() == [True, True, False]
    assert df["witness x"].isna().tolist() == [False, False, True]
    g = verify_grid(ns=(3,), seeds=2, d_max=2, progress=False)
    assert "GridResult(cells=2" in repr(g) and "passed=True" in repr(g)
    assert g.to_dataframe()["passed"].all()
    assert repr(g.cells[0]).startswith("GridCell(n=3, d=2, seed=0")


def test_solution_repr_is_short():
    from logitgeom.convex import LayerPeeled

    s = LayerPeeled([[0.5, 0.5], [0.5, 0.5], [0, 0]], 1, 4).solve()
    assert repr(s).startswith("LayerPeeledSolution(shape=(3, 2)") and len(repr(s)) < 200
    assert "singular value of Z*" in s._repr_html_()
