"""The boundary: argument checks and coercions shared by the public functions and the CLI.

Every public function validates its arguments here before any work starts, so a user mistake gets
the same one-line :class:`~sim.errors.UsageError` whichever door it came in by (the Python API, the
CLI, a script). Each check returns the value coerced to its canonical type (a Python int, a float).
"""
from __future__ import annotations

import math
import numbers
import os
from pathlib import Path

from .errors import UsageError


def positive_int(name: str, value, *, hint: str = "") -> int:
    """``value`` as a positive Python int, or a one-line error naming ``name``.

    Examples
    --------
    >>> positive_int("games", 10)
    10
    >>> positive_int("games", 0)
    Traceback (most recent call last):
    ...
    sim.errors.UsageError: games must be at least 1, got 0
    >>> positive_int("games", 2.5)
    Traceback (most recent call last):
    ...
    sim.errors.UsageError: games must be a positive integer, got 2.5
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise UsageError(f"{name} must be a positive integer, got {value!r}")
    if value < 1:
        raise UsageError(f"{name} must be at least 1, got {value}" + (f": {hint}" if hint else ""))
    return int(value)


def int_in_range(name: str, value, low: int, high: int, *, unit: str = "") -> int:
    """``value`` as an int with ``low <= value <= high``, or a one-line error naming the range."""
    if (isinstance(value, bool) or not isinstance(value, numbers.Integral)
            or not low <= value <= high):
        raise UsageError(f"{name} must be an integer from {low:,} to {high:,}"
                         + (f" ({unit})" if unit else "") + f", got {value!r}")
    return int(value)


def non_negative_int(name: str, value) -> int:
    """``value`` as a Python int that is at least 0, or a one-line error naming ``name``.

    >>> non_negative_int("iterations", 0)
    0
    >>> non_negative_int("iterations", -1)
    Traceback (most recent call last):
    ...
    sim.errors.UsageError: iterations must be at least 0, got -1
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise UsageError(f"{name} must be a non-negative integer, got {value!r}")
    if value < 0:
        raise UsageError(f"{name} must be at least 0, got {value}")
    return int(value)


def non_negative_number(name: str, value) -> float:
    """``value`` as a float ``>= 0``, infinity included (a time between checkpoints: ``inf`` is never
    on a timer, only when the run stops); a NaN is refused."""
    if (isinstance(value, bool) or not isinstance(value, numbers.Real) or math.isnan(value)
            or value < 0):
        raise UsageError(f"{name} must be a non-negative number, got {value!r}")
    return float(value)


def positive_number(name: str, value, *, unit: str = "") -> float:
    """``value`` as a finite float ``> 0`` (a NaN or an infinity is refused).

    >>> positive_number("time budget", 0.5, unit="CPU seconds")
    0.5
    >>> positive_number("time budget", 0, unit="CPU seconds")
    Traceback (most recent call last):
    ...
    sim.errors.UsageError: time budget must be a positive number (CPU seconds), got 0
    """
    if (isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value)
            or value <= 0):
        raise UsageError(f"{name} must be a positive number" + (f" ({unit})" if unit else "") + f", got {value!r}")
    return float(value)


def check_games(games) -> int:
    """Games to play: a positive int."""
    return positive_int("games", games)


def check_decks(decks) -> int:
    """``decks`` (random start decks to decide, as in ``--decks``) as a positive int, or a one-line
    :class:`UsageError` that names decks (not games)."""
    return positive_int("decks", decks)


def check_seed(seed) -> int:
    """A seed: a non-negative int; None draws a fresh one (:func:`sim.seeds.new_seed`)."""
    from .seeds import new_seed

    if seed is None:
        return new_seed()
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise UsageError(f"seed must be a non-negative integer, got {seed!r}")
    return int(seed)


#: The most parallel workers a run takes (threads, or Dask worker processes of a local cluster).
MAX_WORKERS = 4096


def check_workers(workers) -> int:
    """Parallel workers: a positive int, at most :data:`MAX_WORKERS`; None is every core."""
    if workers is None:
        return os.cpu_count() or 1
    if isinstance(workers, bool) or not isinstance(workers, numbers.Integral) or workers < 1:
        raise UsageError(f"workers must be a positive integer, got {workers!r}")
    if workers > MAX_WORKERS:
        raise UsageError(f"workers must be at most {MAX_WORKERS:,} (this machine has {os.cpu_count() or 1} "
                         f"cores), got {workers:,}")
    return int(workers)


def check_budget(name: str, budget, *, unit: str) -> int:
    """A search budget (nodes, deck orders): a positive int, its unit named in the error."""
    if isinstance(budget, bool) or not isinstance(budget, numbers.Integral) or budget < 1:
        raise UsageError(f"{name} must be a positive integer ({unit}), got {budget!r}")
    return int(budget)


def writable_file(path, *, option: str = "--out", missing_folder_ok: bool = False) -> None:
    """Refuse, before any work, a file that could not be created or replaced at ``path``: its
    folder must exist (a misspelt path on the command line never creates a chain of folders; with
    ``missing_folder_ok``, as the library's stores allow, the nearest folder above it that exists is
    checked instead) and be a folder we may write in. Nothing is created."""
    path = Path(path)
    if path.is_dir():
        raise UsageError(f"{path} is a folder: give {option} a file name such as {path / 'solitaire.h5'}")
    parent = path.parent if str(path.parent) else Path(".")
    existing = parent
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if existing.exists() and not existing.is_dir():
        raise UsageError(f"cannot write {path}: {existing} is a file, not a folder: choose another {option}")
    if existing != parent and not missing_folder_ok:
        raise UsageError(f"cannot write {path}: there is no folder {parent}: create it first, or choose another "
                         f"{option}")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise UsageError(f"cannot write {path}: no permission to write in {existing}: choose another {option}")


#: The figure formats ``--figure`` writes (by the file's extension).
FIGURE_FORMATS = (".png", ".svg", ".pdf")


def figure_file(path, *, option: str = "--figure") -> None:
    """Refuse, before any work, a figure that could not be drawn at ``path``: no name, an extension
    that is not a figure format, or a place where the file could not be written. Nothing is created."""
    text = str(path).strip()
    if not text:
        raise UsageError(f"{option} needs a file name, such as figure.png")
    suffix = Path(text).suffix.lower()
    if suffix not in FIGURE_FORMATS:
        raise UsageError(f"cannot draw {path}: a figure is a {', '.join(FIGURE_FORMATS[:-1])} or "
                         f"{FIGURE_FORMATS[-1]} file: choose another {option}")
    writable_file(path, option=option)


def writable_folder(path, *, option: str = "--dir") -> None:
    """Refuse, before any work, a folder that could not be created or written at ``path`` (nothing
    is created)."""
    path = Path(path)
    existing = path
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise UsageError(f"cannot write in {path}: {existing} is a file, not a folder: choose another {option}")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise UsageError(f"cannot write in {path}: no permission to write in {existing}: choose another {option}")
