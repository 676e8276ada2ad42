"""The boundary: argument checks and coercions shared by the public functions and the CLI.

Every public function validates its arguments here before any work starts, so a user mistake gets
the same one-line :class:`~sim.errors.UsageError` whichever door it came in by (the Python API, the
CLI, a script). Each check returns the value coerced to its canonical type.
"""
from __future__ import annotations

import numbers

from .errors import UsageError


def positive_int(name: str, value, *, noun: str | None = None) -> int:
    """``value`` as a positive Python int, or a one-line error naming ``name``.

    Examples
    --------
    >>> positive_int("games", 10)
    10
    >>> positive_int("games", 0)
    Traceback (most recent call last):
    ...
    sim.errors.UsageError: games must be at least 1, got 0
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise UsageError(f"{name} must be a positive integer, got {value!r}")
    if value < 1:
        raise UsageError(f"{name} must be at least 1, got {value}" + (f": {noun}" if noun else ""))
    return int(value)


def check_decks(decks) -> int:
    """``decks`` (random start decks to decide, as in ``--decks``) as a positive int, or a one-line
    :class:`UsageError` that names decks (not games)."""
    return positive_int("decks", decks)
