"""The import graph of ``engine`` and ``certificates`` (read with ast, nothing imported).

Layers, bottom up: ``certificates`` (standard library only: the trusted checker) <-
``engine.exact`` (the exact kernel) <- ``engine.geometry`` / ``engine.convex`` / ... <-
``engine.cli`` / ``engine.reproduce``.  Every import counts, including those inside
functions.  The rooms of ``engine.certify`` (one module per certificate family) are nodes
of their own: a family builder that works from exact data (:mod:`engine.certify.geometry`)
sits below the results whose ``.certificate()`` delegates to it; the index
(:mod:`engine.certify.emit`), which enumerates first, sits above them.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _node(module: str) -> str | None:
    """The graph node of a module: ``certificates``, an ``engine`` subpackage, or a top-level
    ``engine`` module (``engine.errors``, the facade ``engine``, ...)."""
    parts = module.split(".")
    if parts[0] == "certificates":
        return "certificates"
    if parts[0] != "engine":
        return None
    if len(parts) == 1:
        return "engine"
    if parts[1] == "certify" and len(parts) > 2:
        return ".".join(parts[:3])
    return f"engine.{parts[1]}"


def _is_module(name: str) -> bool:
    p = ROOT.joinpath(*name.split("."))
    return p.is_dir() or p.with_suffix(".py").is_file()


def _imports(path: Path, module: str):
    """(imported module, lineno) for every import in the file, inside functions too."""
    tree = ast.parse(path.read_text())
    pkg = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                base = ".".join(up + ([node.module] if node.module else []))
            names = [f"{base}.{a.name}" if _is_module(f"{base}.{a.name}") else base
                     for a in node.names]
        else:
            continue
        for name in names:
            yield name, node.lineno


def _files():
    for top in ("engine", "certificates"):
        for path in sorted((ROOT / top).rglob("*.py")):
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            yield path, module.removesuffix(".__init__")


def test_certificates_imports_only_the_standard_library():
    for path, module in _files():
        if not module.startswith("certificates"):
            continue
        for name, line in _imports(path, module):
            top = name.split(".")[0]
            assert top in sys.stdlib_module_names or top == "certificates", \
                f"{path.relative_to(ROOT)}:{line} imports {name}"


def test_no_cycles_between_packages():
    edges: dict[str, dict[str, list[str]]] = {}
    for path, module in _files():
        src = _node(module)
        for name, line in _imports(path, module):
            dst = _node(name)
            if dst is None or dst == src:
                continue
            edges.setdefault(src, {}).setdefault(dst, []).append(
                f"{path.relative_to(ROOT)}:{line}")

    def path_between(a, b):
        seen, todo = {a: None}, [a]
        while todo:
            x = todo.pop()
            for y in edges.get(x, {}):
                if y not in seen:
                    seen[y] = x
                    todo.append(y)
        if b not in seen:
            return None
        out = [b]
        while out[-1] != a:
            out.append(seen[out[-1]])
        return out[::-1]

    for a in edges:
        for b in edges[a]:
            back = path_between(b, a)
            assert back is None, (f"import cycle {a} -> {' -> '.join(back)}: {a} -> {b} at "
                                  f"{edges[a][b][0]}, {back[0]} -> {back[1]} at "
                                  f"{edges[back[0]][back[1]][0]}")


def _names_used(path: Path, module: str):
    """(full dotted name, lineno) of every imported module or name in the file, and of every
    attribute read off an imported module (``cb._bounds`` after ``import ... as cb``)."""
    tree = ast.parse(path.read_text())
    pkg = module if path.name == "__init__.py" else module.rpartition(".")[0]
    alias: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                alias[a.asname or a.name.split(".")[0]] = a.name if a.asname else \
                    a.name.split(".")[0]
                yield a.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                base = ".".join(up + ([node.module] if node.module else []))
            for a in node.names:
                full = f"{base}.{a.name}"
                if _is_module(full):
                    alias[a.asname or a.name] = full
                yield full, node.lineno
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in alias):
            yield f"{alias[node.value.id]}.{node.attr}", node.lineno


def _private_scope(name: str) -> str | None:
    """The package a private name of the project belongs to (``None``: public, or not ours).

    A private name (``_x``) of ``certificates`` belongs to ``certificates``; one of
    ``engine`` to the subpackage holding it (``engine.geometry``, ...), or to ``engine`` for
    its top-level modules (``engine._display``); it may be used anywhere inside that."""
    parts = name.split(".")
    if parts[0] not in ("engine", "certificates"):
        return None
    for i, p in enumerate(parts):
        if p.startswith("_") and not p.startswith("__"):
            holder = parts[:i]
            if not ROOT.joinpath(*holder).is_dir():
                holder = holder[:-1]  # a module: its package
            return ".".join(holder[:2] if holder[0] == "engine" else holder[:1])
    return None


#: Uses the other branches of this round remove (kernel: the public checker API; audit:
#: public loader functions); the remaining two belong to engine/convex/reductions/orbit.py
#: and engine/reproduce/trained.py.  The integrator empties this set after merging.
_PENDING = {
    ("engine/audit/head.py", "engine.models._safetensors.SafetensorsFile"),
    ("engine/audit/run.py", "engine.models.loaders._open"),
    ("engine/audit/run.py", "engine.models.loaders._find_head"),
    ("engine/audit/run.py", "engine.models.loaders._find_bias"),
    ("engine/audit/run.py", "engine.models.loaders._SafetensorsStore"),
    *(("engine/convex/certify.py", f"certificates.check_bracket.{n}") for n in (
        "_ints", "_matmul", "_orbital_mean", "_context", "_upper", "_psd_fails",
        "_entropy_lower")),
    ("engine/convex/reductions/orbit.py", "engine.symmetry._values.tolerant_codes"),
    ("engine/convex/reductions/orbit.py", "engine.symmetry._values.value_codes"),
    ("engine/convex/reductions/orbit.py", "engine.symmetry.constructors._orbit_matrix"),
    ("engine/reproduce/trained.py", "engine.convex._loss.cross_entropy"),
}
#: The one file cycle the kernel branch of this round removes (the checker's own files).
_PENDING_CYCLES = [["certificates.check", "certificates.check_audit"]]


def test_no_private_reach_and_no_file_cycles():
    """No ``engine`` module uses a private name (``_x``) of another package or of
    ``certificates``; and no two files import each other, directly or round a cycle, even
    through imports inside functions."""
    edges: dict[str, dict[str, int]] = {}
    reach = []
    for path, module in _files():
        for name, line in _names_used(path, module):
            scope = _private_scope(name)
            where = str(path.relative_to(ROOT))
            if (module.startswith("engine") and scope is not None
                    and not (module == scope or module.startswith(scope + "."))
                    and (where, name) not in _PENDING):
                reach.append(f"{where}:{line} uses {name}")
        for name, line in _imports(path, module):
            if name.split(".")[0] in ("engine", "certificates") and name != module:
                edges.setdefault(module, {}).setdefault(name, line)
    assert not reach, "private names used across packages:\n" + "\n".join(reach)

    # Tarjan's strongly connected components: any component of two or more files is a cycle
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles = []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in edges.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1 and sorted(comp) not in _PENDING_CYCLES:
                cycles.append(sorted(comp))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for v in sorted(edges):
        if v not in index:
            visit(v)
    assert not cycles, "files importing each other in a cycle:\n" + "\n".join(
        " <-> ".join(c) + "  (" + "; ".join(f"{a} -> {b} line {edges[a][b]}" for a in c
                                            for b in edges.get(a, {}) if b in c) + ")"
        for c in cycles)
