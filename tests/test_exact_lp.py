"""The exact kernel's certificates are canonical: small primitive integer witnesses and
primitive integer Gordan multipliers of circuit support, deterministic, checked exactly."""

from __future__ import annotations

import math
import random
from fractions import Fraction

from engine.exact.linalg import rank
from engine.exact.lp import check_gordan, check_witness, decide, small_integer_point


def _systems(n, seed=3):
    rng = random.Random(seed)
    for _ in range(n):
        k, d = rng.randint(1, 6), rng.randint(1, 4)
        yield [[Fraction(rng.randint(-4, 4), rng.choice((1, 1, 2, 3))) for _ in range(d)]
               for _ in range(k)]


def test_witnesses_and_multipliers_are_primitive_integers():
    seen = {True: 0, False: 0}
    for rows in _systems(150):
        ok, z = decide(rows)
        seen[ok] += 1
        assert all(v.denominator == 1 for v in z)
        ints = [int(v) for v in z]
        if ok:
            assert check_witness(rows, z)
            assert math.gcd(*ints) == 1
            assert max(abs(v) for v in ints) <= 1000  # thin cones need more than 1 digit
        else:
            assert check_gordan(rows, z) and math.gcd(*ints) == 1
            support = [r for r, y in zip(rows, ints, strict=True) if y]
            # a circuit: at most rank + 1 rows, and dropping any one leaves them independent
            assert len(support) <= rank(rows) + 1
            for i in range(len(support)):
                rest = support[:i] + support[i + 1:]
                assert not rest or rank(rest) == len(rest)
        assert decide(rows) == (ok, z)  # deterministic
    assert seen[True] and seen[False]


def test_small_integer_point_moves_entries_towards_zero():
    assert small_integer_point([[1, 0]], [1.0, -1.0]) == (1, 0)
    assert small_integer_point([[1, 1], [1, -1]], [3.0, 0.2]) == (1, 0)
    assert small_integer_point([[1, 0], [-1, 0]], [1.0, 0.0]) is None  # empty cone
    assert small_integer_point([[1]], [0.0]) is None  # no direction proposed


def test_app_c3_witness_is_the_small_one():
    """Issue 16: the App. C.3 ranking (0, 2, 3, 1) has the printable witness (0, 2, 1)."""
    from engine.certify import emit

    W = [["40/41", "9/41", "0"], ["40/41", "-9/41", "0"], ["-40/41", "0", "9/41"],
         ["-40/41", "0", "-9/41"]]
    assert emit.ranking_certificate(W, (0, 2, 3, 1))["witness"] == ["0", "2", "1"]
