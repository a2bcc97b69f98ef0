"""The import graph of ``engine`` and ``certificates`` (read with ast, nothing imported).

Layers, bottom up: ``certificates`` (standard library only: the trusted checker) <-
``engine.exact`` (the exact kernel) <- ``engine.geometry`` / ``engine.convex`` / ... <-
``engine.certify`` (emission) <- ``engine.cli`` / ``engine.reproduce``.  Every import counts,
including those inside functions: the ``.certificate()`` methods of the ``engine.geometry``
results use :mod:`engine.geometry.emit`, which :mod:`engine.certify.emit` re-exports.
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
