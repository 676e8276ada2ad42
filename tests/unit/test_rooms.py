"""The house rules a newcomer relies on: files small enough to read, kernels called with named
arguments, and what differs between games kept in the game registry (``sim/games.py``)."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("sim", "exact", "solitaire")
MAX_LINES = 800
MAX_POSITIONAL = 16
#: where a game's name may be compared with a literal: the registry, and kernels guarding their input
GAME_NAME_ALLOWED = {"sim/games.py", "sim/kernels/hand/tables.py"}


def _sources():
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            yield path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8")


def _is_click_command(node: ast.FunctionDef) -> bool:
    """A click command's parameters are its options: not a kernel's argument list."""
    return any("click" in ast.unparse(d) or "option" in ast.unparse(d) for d in node.decorator_list)


def _names_a_game(node: ast.expr) -> bool:
    return (isinstance(node, ast.Name) and node.id == "game") or (isinstance(node, ast.Attribute) and node.attr == "game")


def _game_literal_comparisons(tree: ast.AST) -> list[int]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and len(node.comparators) == 1:
            left, right = node.left, node.comparators[0]
            literal = [side for side in (left, right) if isinstance(side, ast.Constant) and isinstance(side.value, str)]
            if literal and (_names_a_game(left) or _names_a_game(right)):
                found.append(node.lineno)
    return found


def test_no_file_is_too_long_to_read():
    assert [(name, text.count("\n")) for name, text in _sources() if text.count("\n") > MAX_LINES] == []


def test_no_function_takes_more_than_sixteen_positional_parameters():
    found = []
    for name, text in _sources():
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef) and not _is_click_command(node):
                positional = len(node.args.posonlyargs) + len(node.args.args)
                if positional > MAX_POSITIONAL:
                    found.append(f"{name}:{node.lineno} {node.name} ({positional})")
    assert found == []


def test_a_game_is_named_in_a_comparison_only_in_the_registry():
    found = [f"{name}:{line}" for name, text in _sources() if name not in GAME_NAME_ALLOWED
             for line in _game_literal_comparisons(ast.parse(text))]
    assert found == []


@pytest.mark.parametrize("source, count", [
    ("if trace.game == 'prisoners': pass", 1),
    ("if 'hand' != game: pass", 1),
    ("if variant.game != game: pass", 0),  # two games compared: no game named
    ("if name == 'prisoners': pass", 0),
])
def test_the_comparison_finder_sees_a_named_game(source, count):
    assert len(_game_literal_comparisons(ast.parse(source))) == count
