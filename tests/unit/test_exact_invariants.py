"""The exact engines' invariant checks survive ``python -O``; user input is named as the user gave it."""
import ast
import subprocess
import sys
from pathlib import Path

import pytest

import exact
from exact.invariants import InvariantError, require
from sim.checks import check_decks
from sim import UsageError

EXACT_MODULES = sorted(Path(exact.__file__).parent.rglob("*.py"))


@pytest.mark.parametrize("path", EXACT_MODULES, ids=lambda p: "/".join(p.parts[-2:]))
def test_no_assert_statements_in_exact(path):
    # `python -O` strips assert statements: the invariants of exact answers must not depend on them
    tree = ast.parse(path.read_text(), filename=str(path))
    lines = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Assert)]
    assert lines == [], f"{path.name}: assert on lines {lines}; use exact.invariants.require"


def test_require_raises_under_python_O():
    code = ("from exact.invariants import InvariantError, require\n"
            "try:\n    require(1 == 2, 'counts must add up')\nexcept InvariantError as exc:\n    print('raised', exc)\n")
    proc = subprocess.run([sys.executable, "-O", "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "raised counts must add up"


def test_require_passes_and_fails():
    require(True, "never raised")
    with pytest.raises(InvariantError, match="broken"):
        require(0, "broken")
    assert issubclass(InvariantError, RuntimeError) and not issubclass(InvariantError, UsageError)


@pytest.mark.parametrize("bad, message", [(0, "decks must be at least 1"), (-3, "decks must be at least 1"),
                                          (True, "decks must be a positive integer"),
                                          (2.5, "decks must be a positive integer")])
def test_check_decks_names_decks(bad, message):
    with pytest.raises(UsageError, match=message):
        check_decks(bad)
    assert check_decks(7) == 7
