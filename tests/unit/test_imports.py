"""The project's modules import one another without a circle, of any length.

Every import is counted: at the top of a module and inside a function (an import inside a function
still closes a circle, it only hides it until the function runs). A package's ``__init__`` that
imports its own modules is not a circle with them: importing ``sim.store.codec`` runs
``sim/store/__init__.py`` first, but that is Python loading the parent, not an import written in
``codec``, so only written imports are edges.
"""
from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("sim", "exact", "solitaire")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))}


def _resolve(name: str, modules: dict) -> str | None:
    """The project module that ``import name`` loads (the longest prefix that is one), or None."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def written_imports(module: str, path: Path, modules: dict) -> set[str]:
    """The project modules that ``module`` imports, anywhere in its code (``from package import
    name`` counts as importing ``package.name`` when that is a module, else ``package``)."""
    is_package = path.name == "__init__.py"
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[:len(base) - (node.level - 1)]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module or ""
            targets = [f"{origin}.{alias.name}" if f"{origin}.{alias.name}" in modules else origin
                       for alias in node.names]
        else:
            continue
        for target in targets:
            resolved = _resolve(target, modules)
            if resolved is not None and resolved != module:
                found.add(resolved)
    return found


def import_graph() -> nx.DiGraph:
    modules = _modules()
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for module, path in modules.items():
        for target in written_imports(module, path, modules):
            graph.add_edge(module, target)
    return graph


def circles(graph: nx.DiGraph) -> list[list[str]]:
    """The groups of modules that reach one another through imports (strongly connected, more than one)."""
    return sorted(sorted(group) for group in nx.strongly_connected_components(graph) if len(group) > 1)


def test_the_graph_sees_module_and_function_level_imports():
    graph = import_graph()
    assert graph.has_edge("sim.montecarlo", "sim.games")  # at module level
    assert graph.has_edge("sim.store.transactions", "sim.store.layout")  # relative, in a package
    assert graph.has_edge("solitaire.commands.play", "sim.trace")  # inside the command's function


def test_a_circle_is_found_whatever_its_length():
    graph = nx.DiGraph([("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")])
    assert circles(graph) == [["a", "b", "c"]]
    assert circles(nx.DiGraph([("a", "b"), ("b", "c")])) == []


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_circle(package):
    found = [group for group in circles(import_graph()) if any(m.split(".")[0] == package for m in group)]
    assert found == [], f"import circles: {found}"
