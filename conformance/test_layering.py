"""The package's import contract, read from the source (every import statement, those inside
functions too, so that a lazy import cannot hide a cycle):

* the import path is the file path: every module is `src/ptxconf/<path>.py`, and nothing in the
  repository root shadows the installed package;
* layers only import downwards: core < oracle < gpu < app (the entry points `ptxconf`,
  `ptxconf.__main__` and `ptxconf.mutants` above them all);
* no import cycles between modules.
"""

from __future__ import annotations

import ast
import tomllib
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from source_walk import statements

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"

#: Each layer and the layers it may import (its own included).
LAYERS: dict[str, tuple[str, ...]] = {
    "core": ("core",),
    "oracle": ("core", "oracle"),
    "gpu": ("core", "oracle", "gpu"),
    "app": ("core", "oracle", "gpu", "app"),
    "entry": ("core", "oracle", "gpu", "app", "entry"),
}


def module_files(src: Path) -> dict[str, Path]:
    """Every module under `src`, by its import name (a package by its __init__.py)."""
    out: dict[str, Path] = {}
    for path in sorted(src.rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _imported(module: str, is_package: bool, node: ast.AST, known: Mapping[str, Path]) -> Iterator[str]:
    """The import names one import statement asks for (`from p import m` names the module
    p.m where that is a module, else p)."""
    if isinstance(node, ast.Import):
        yield from (a.name for a in node.names)
    elif isinstance(node, ast.ImportFrom):
        base = node.module or ""
        if node.level:
            package = module if is_package else module.rpartition(".")[0]
            for _ in range(node.level - 1):
                package = package.rpartition(".")[0]
            base = f"{package}.{base}" if base else package
        for alias in node.names:
            yield f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base


def _owner(name: str, known: Mapping[str, Path]) -> str | None:
    """The module an import name lands in (the longest known prefix), or None."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def import_graph(src: Path) -> dict[str, set[str]]:
    """Module -> the ptxconf modules it imports, anywhere in its file."""
    known = module_files(src)
    graph: dict[str, set[str]] = {}
    for module, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        targets = {_owner(name, known) for node in statements(tree)
                   for name in _imported(module, path.name == "__init__.py", node, known)
                   if name.split(".")[0] == "ptxconf"}
        graph[module] = {t for t in targets if t is not None and t != module}
    return graph


def layer(module: str) -> str:
    """The layer of a ptxconf module."""
    parts = module.split(".")
    if len(parts) > 1 and parts[1] in LAYERS:
        return parts[1]
    if len(parts) > 1 and parts[1] == "spec":
        return "core"  # bundled data; its only Python is none
    return "core" if module == "ptxconf" else "entry"


def upward_imports(graph: Mapping[str, set[str]]) -> list[str]:
    """Every import of a higher layer: 'a -> b (layer -> layer)'."""
    return sorted(f"{a} -> {b} ({layer(a)} -> {layer(b)})" for a, targets in graph.items()
                  for b in targets if layer(b) not in LAYERS[layer(a)])


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    comp.append(top)
                    if top == node:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return import_graph(SRC)


def test_no_module_imports_a_higher_layer(graph: dict[str, set[str]]) -> None:
    assert upward_imports(graph) == []


def test_no_import_cycles(graph: dict[str, set[str]]) -> None:
    assert cycles(graph) == []


def test_the_layers_hold_the_design_cards_parts(graph: dict[str, set[str]]) -> None:
    """The contract checks something: each layer has modules, and the graph has edges."""
    by_layer = {layer(m) for m in graph}
    assert {"core", "oracle", "gpu", "app", "entry"} <= by_layer
    assert sum(len(t) for t in graph.values()) > 300


def test_the_checkers_see_an_upward_import_and_a_cycle() -> None:
    """The two checks fail where they should (a stand-in graph)."""
    bad = {"ptxconf.core.a": {"ptxconf.app.b"}, "ptxconf.app.b": {"ptxconf.app.c"},
           "ptxconf.app.c": {"ptxconf.app.b"}}
    assert upward_imports(bad) == ["ptxconf.core.a -> ptxconf.app.b (core -> app)"]
    assert cycles(bad) == [["ptxconf.app.b", "ptxconf.app.c"]]


def test_a_lazy_import_inside_a_function_counts(tmp_path: Path) -> None:
    """An import inside a function is an edge too (it cannot hide a cycle)."""
    pkg = tmp_path / "ptxconf" / "core"
    pkg.mkdir(parents=True)
    (tmp_path / "ptxconf" / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from ptxconf.oracle import b\n")
    (tmp_path / "ptxconf" / "oracle").mkdir()
    (tmp_path / "ptxconf" / "oracle" / "__init__.py").write_text("")
    (tmp_path / "ptxconf" / "oracle" / "b.py").write_text("from ..core import a\n")
    g = import_graph(tmp_path)
    assert g["ptxconf.core.a"] == {"ptxconf.oracle.b"}
    assert g["ptxconf.oracle.b"] == {"ptxconf.core.a"}
    assert cycles(g) == [["ptxconf.core.a", "ptxconf.oracle.b"]]


def test_the_import_path_is_the_file_path() -> None:
    """No package-dir remapping, and nothing in the repository root that Python could import
    as ptxconf (the checkout's root is on sys.path for `python -m`, `python -c` and spawned
    workers)."""
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "package-dir" not in setuptools
    assert setuptools["packages"]["find"]["where"] == ["src"]
    shadows = [p for p in (ROOT / "ptxconf.py", *(ROOT / "ptxconf").glob("**/*.py")) if p.exists()]
    assert shadows == []
    assert (SRC / "ptxconf" / "__init__.py").is_file()
