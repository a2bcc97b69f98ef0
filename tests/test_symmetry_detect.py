"""detect_symmetry: known groups are recovered, generic targets have none, cut-offs say so."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from logitgeom.errors import InvalidInput
from logitgeom.symmetry import cyclic, detect_symmetry, orbit_targets, symmetric
from logitgeom.symmetry.examples import app_f_examples


def test_circulant_7():
    y = [f"{k}/28" for k in range(1, 8)]
    T = orbit_targets(cyclic(7), y)
    r = detect_symmetry(T.exact_Y())
    assert (r.order, r.complete, r.is_trivial) == (7, True, False)
    assert r.action.order == 7
    assert "order 7" in str(r)


def test_s4_orbit_4_by_24():
    T = orbit_targets(symmetric(4), ["1/10", "2/10", "3/10", "4/10"])
    r = detect_symmetry(T.Y)
    assert T.Y.shape == (4, 24)
    assert r.order == 24 and r.action.order == 24


@pytest.mark.parametrize("name", list(app_f_examples()))
def test_app_f_targets(name):
    ex = app_f_examples()[name]
    T = orbit_targets(ex.group, ex.y)
    r = detect_symmetry(T.exact_Y())
    assert r.complete
    # the image on rows is the group itself (|G| = n columns, one per element)
    assert r.row_order == ex.group.order
    # every generator of the input group is found in the detected group
    for gen in T.action.generators:
        assert r.action.contains(*gen)
    dup = sum(len(c) - 1 for c in r.column_classes)
    if dup == 0:
        assert r.order == ex.group.order
    else:  # repeated images: identical columns may also be permuted among themselves
        import math
        mult = [len(c) for c in r.column_classes]
        assert r.order == ex.group.order * math.prod(math.factorial(k) for k in mult)
        assert "duplicate columns merged" in str(r)


def test_wreath_s3_s2_has_repeated_images():
    ex = app_f_examples()["wreath_S3_S2"]
    r = detect_symmetry(orbit_targets(ex.group, ex.y).Y)
    assert len(r.column_classes) == 36 and r.merged_order == 72


def test_generic_has_no_symmetry():
    Y = np.random.default_rng(3).dirichlet(np.ones(6), size=9).T
    r = detect_symmetry(Y)
    assert r.is_trivial and r.order == 1
    assert str(r).startswith("no symmetry")


def test_search_cut_off_is_reported():
    T = orbit_targets(symmetric(4), ["1/10", "2/10", "3/10", "4/10"])
    r = detect_symmetry(T.Y, max_order=5)
    assert not r.complete and not r.is_trivial
    assert "cut off" in str(r) and r.order <= 24


def test_exact_comparison_distinguishes_close_values():
    near = "33333333333333333333/100000000000000000001"
    assert float(Fraction(near)) == 1 / 3  # rounds to the same float as 1/3
    Y = [["1/3", "1/2"], [near, "1/2"]]
    assert detect_symmetry(Y).order == 1  # exactly 1/3 != near: swapping rows is no symmetry
    assert detect_symmetry(Y, exact=False).order == 2  # documented behaviour of exact=False


def test_bad_input():
    with pytest.raises(InvalidInput):
        detect_symmetry([[1, float("nan")]])
    with pytest.raises(InvalidInput, match="max_order"):
        detect_symmetry([[1]], max_order=0)
    with pytest.raises(InvalidInput, match="ragged"):
        detect_symmetry([[1, 2], [3]])


def test_networkx_fallback_gives_the_same_groups(monkeypatch):
    import logitgeom.symmetry.detect as det

    monkeypatch.setattr(det, "IR_BUDGET", 1)  # every non-trivial search goes to VF2
    for name in ("direct_product_S3_S3", "wreath_S2_S3"):
        ex = app_f_examples()[name]
        r = detect_symmetry(orbit_targets(ex.group, ex.y).Y)
        assert r.complete and r.row_order == ex.group.order


def test_larger_symmetric_orbit_is_fast_enough():
    T = orbit_targets(symmetric(6), [f"{k}/21" for k in range(1, 7)])
    r = detect_symmetry(T.Y)
    assert r.order == 720 and r.complete
