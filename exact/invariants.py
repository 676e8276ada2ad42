"""Invariant checks of the exact engines that ``python -O`` does not strip (unlike ``assert``).

An exact answer is only worth its checks: counts that must add up to ``(S*R)!``, parities, closed
sets without a win. A failed check is a bug, never a user mistake, so it raises
:class:`InvariantError` (a ``RuntimeError``), not :class:`sim.errors.UsageError`.
"""
from __future__ import annotations


class InvariantError(RuntimeError):
    """An exact engine broke one of its own invariants (a bug)."""


def require(condition, message: str) -> None:
    """Raise :class:`InvariantError` with ``message`` unless ``condition`` holds.

    Examples
    --------
    >>> require(1 + 1 == 2, "arithmetic")
    >>> require(False, "counts must add up")
    Traceback (most recent call last):
    ...
    exact.invariants.InvariantError: counts must add up
    """
    if not condition:
        raise InvariantError(message)
