"""The exact kernel's certificates are canonical: small primitive integer witnesses and
primitive integer Gordan multipliers of circuit support, deterministic, checked exactly;
with or without the float twin's proposals, and the exact side never imports the float one."""

from __future__ import annotations

import ast
import math
import random
from fractions import Fraction
from pathlib import Path

import pytest

from logitgeom import lp_float
from logitgeom.exact import lp
from logitgeom.exact.linalg import rank
from logitgeom.exact.lp import check_gordan, check_witness, small_integer_point


def _systems(n, seed=3):
    rng = random.Random(seed)
    for _ in range(n):
        k, d = rng.randint(1, 6), rng.randint(1, 4)
        yield [[Fraction(rng.randint(-4, 4), rng.choice((1, 1, 2, 3))) for _ in range(d)]
               for _ in range(k)]


@pytest.mark.parametrize("decide", [lp.decide, lp_float.decide], ids=["exact", "proposed"])
def test_witnesses_and_multipliers_are_primitive_integers(decide):
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


def test_float_proposals_never_decide():
    """Both sides agree on every system; bad hints (a point outside the cone, nan, a support
    that carries no multipliers) change nothing but the work done."""
    for rows in _systems(60, seed=11):
        ok, z = lp.decide(rows)
        assert lp_float.decide(rows)[0] == ok
        for hint in ({"point": [float("nan")] * len(rows[0])},
                     {"point": [-v for v in z] if ok else [1.0] * len(rows[0])},
                     {"support": [0]}):
            got = lp.decide(rows, **hint)
            assert got[0] == ok
            assert (check_witness if ok else check_gordan)(rows, got[1])


def test_exact_side_never_imports_the_float_side():
    root = Path(lp.__file__).parent
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            for name in names:
                assert not name.startswith(("logitgeom.lp_float", "logitgeom.convex", "cvxpy")), \
                    f"{path.name} imports {name}"


#: ``logitgeom solvers`` imports cdd.gmp only to report that it is installed; the audit
#: branch of this round moves the FLINT solve of engine/audit/decide.py to engine/exact.
_BACKEND_IMPORT_OK = {"engine/cli/info.py", "engine/audit/decide.py"}


def test_exact_back_ends_are_chosen_through_engine_exact():
    """The one way to choose a back end is its logitgeom.exact module: nothing else imports
    cdd.gmp or FLINT (the float ``cdd`` of the float twin is not an exact back end)."""
    root = Path(lp.__file__).parents[2]
    for path in sorted((root / "engine").rglob("*.py")):
        rel = str(path.relative_to(root))
        if rel.startswith("engine/exact/") or rel in _BACKEND_IMPORT_OK:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [f"{node.module}.{a.name}" for a in node.names]
                     if isinstance(node, ast.ImportFrom) and node.module else [])
            for name in names:
                assert not name.startswith(("cdd.gmp", "flint")), f"{rel} imports {name}"


def test_app_c3_witness_is_the_small_one():
    """The App. C.3 ranking (0, 2, 3, 1) has the printable witness (0, 2, 1)."""
    from logitgeom import emit

    W = [["40/41", "9/41", "0"], ["40/41", "-9/41", "0"], ["-40/41", "0", "9/41"],
         ["-40/41", "0", "-9/41"]]
    assert emit.ranking_certificate(W, (0, 2, 3, 1))["witness"] == ["0", "2", "1"]
