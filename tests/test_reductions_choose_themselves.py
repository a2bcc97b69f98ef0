"""Issue 36, item 2: the reductions choose themselves (typed plans, no name tests) and every
group constructor has one public name."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


def _reduction_names() -> set[str]:
    from logitgeom.convex.family import FamilyMethod
    from logitgeom.convex.reductions import REGISTRY
    from logitgeom.convex.reductions.orbit import GroupSource

    # the registered names, the DFT program's other name, the orbit plan's sources and the
    # family program's methods
    return set(REGISTRY) | {"dft"} | {s.value for s in GroupSource} | \
        {m.value for m in FamilyMethod} - {"auto"}


def _string_constants(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [s for e in node.elts for s in _string_constants(e)]
    return []


def _ident(node: ast.AST) -> str:
    """The last identifier of a Name or Attribute (``sol.method`` -> "method")."""
    return node.id if isinstance(node, ast.Name) else \
        node.attr if isinstance(node, ast.Attribute) else ""


#: structure claims of the certificates share words with the reductions ("circulant")
CLAIM_NAMES = {"claims", "claim", "name_of_claim"}


def test_no_comparison_against_a_reduction_name():
    """No ``==``/``!=``/``in`` test against a reduction's name (or a plan's source) in the
    programs or the certificate builders: choices live in the reductions' typed plans."""
    names = _reduction_names()
    bad = []
    for top in ("engine/convex", "engine/certify"):
        for path in sorted((ROOT / top).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                if not isinstance(node, ast.Compare):
                    continue
                parts = (node.left, *node.comparators)
                if any(_ident(p) in CLAIM_NAMES for p in parts):
                    continue
                hit = sorted({s for p in parts for s in _string_constants(p)} & names)
                if hit:
                    bad.append(f"{path.relative_to(ROOT)}:{node.lineno} compares with {hit}")
    assert not bad, "\n".join(bad)


CONSTRUCTORS = ("symmetric", "cyclic", "affine_line", "frobenius", "wreath", "direct_sum",
                "direct_product")


def test_each_group_constructor_has_one_public_name():
    import logitgeom
    import logitgeom.convex
    import logitgeom.convex.targets
    import logitgeom.symmetry
    import logitgeom.symmetry.constructors as cons

    funcs = {getattr(cons, n): n for n in CONSTRUCTORS}
    for mod in (logitgeom, logitgeom.convex, logitgeom.convex.targets, logitgeom.symmetry):
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name)
            if obj in funcs:
                assert name == funcs[obj], f"{mod.__name__}.{name} is a second name of " \
                                           f"logitgeom.symmetry.{funcs[obj]}"
    for old, new in (("symmetric_group", "symmetric"), ("cyclic_group", "cyclic"),
                     ("affine_group", "affine_line")):
        assert old not in logitgeom.convex.__all__
        with pytest.raises(AttributeError, match=f"logitgeom.symmetry.{new}"):
            getattr(logitgeom.convex, old)
    # and no wrapper elsewhere: a function whose body only returns a constructor's result
    wrappers = []
    for path in sorted((ROOT / "engine").rglob("*.py")):
        if path.parent.name == "symmetry":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.FunctionDef):
                continue
            body = [s for s in node.body if not isinstance(s, ast.Import | ast.ImportFrom)
                    and not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
            if len(body) == 1 and isinstance(body[0], ast.Return) \
                    and isinstance(body[0].value, ast.Call) \
                    and isinstance(body[0].value.func, ast.Name) \
                    and body[0].value.func.id in CONSTRUCTORS:
                wrappers.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert not wrappers, wrappers


def test_choose_asks_the_plans_not_the_names():
    """``LayerPeeled.choose`` has no name test; the ETF upgrade is the reductions' refine."""
    from logitgeom.convex import problem

    src = inspect.getsource(problem.LayerPeeled.choose) + inspect.getsource(problem._invariant)
    assert ".name ==" not in src and ".name in" not in src


def test_the_plans_say_what_they_found():
    from logitgeom.convex import LayerPeeled, cyclic_orbit
    from logitgeom.convex.reductions.base import Plan
    from logitgeom.convex.reductions.orbit import GroupSource
    from logitgeom.symmetry import affine_line, orbit_targets

    T = orbit_targets(affine_line(5), ["1/2", "1/4", "1/8", "1/8", "0"])
    # AGL(1, 5) targets are cyclic; the circulant plan's refine detects AGL(1, 5) (not S_5)
    # and offers the ETF closed form with it
    red, acc = LayerPeeled(T.Y, 1, 1).choose()
    assert red.name == "etf" and isinstance(acc.plan, Plan)
    assert acc.plan.claims == ("simplex-etf",) and acc.plan.keeps_target_group
    assert len(acc.plan.label_generators) >= 1 and not acc.plan.default_group
    # the orbit target's own group: kept by the orbit plan
    red, acc = LayerPeeled(T, 1, 1).choose("orbit")
    assert acc.plan.source is GroupSource.TARGET and acc.plan.keeps_target_group
    assert acc.plan.label_generators == T.action.row_generators
    # approximate symmetry verifies no exact group
    Y = np.asarray(T.Y, dtype=float).copy()
    Y[:, 0] = [0.5 + 1e-12, 0.25 - 1e-12, 0.125, 0.125, 0.0]
    red, acc = LayerPeeled(Y, 1, 1).choose("orbit", group=affine_line(5), tol=1e-9)
    assert acc.plan.label_generators is None and not acc.plan.keeps_target_group
    # the circulant plan claims circulant, the full one nothing
    red, acc = LayerPeeled(cyclic_orbit([0.5, 0.3, 0.2, 0.0]), 1, 1).choose()
    assert red.name == "circulant" and acc.plan.claims == ("circulant",)
    assert acc.plan.label_generators is None
    red, acc = LayerPeeled(cyclic_orbit([0.5, 0.3, 0.2, 0.0]), 1, 1).choose("full")
    assert acc.plan.claims == () and acc.plan.label_generators is None


def test_a_group_or_tol_keeps_the_first_acceptance():
    """With ``group=`` the first reduction that accepts is used as it is (no refine)."""
    from logitgeom.convex import LayerPeeled
    from logitgeom.symmetry import affine_line, cyclic, orbit_targets

    T = orbit_targets(affine_line(5), ["1/2", "1/4", "1/8", "1/8", "0"])
    assert LayerPeeled(T.Y, 1, 1).select().name == "etf"  # refined from the circulant plan
    red, _ = LayerPeeled(T.Y, 1, 1).choose(group=cyclic(5))
    assert red.name == "circulant"  # C_5 is not 2-homogeneous: the ETF refuses it, no refine
