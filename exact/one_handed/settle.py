"""The One-Handed rule, compiled once for the exact engines.

:func:`sim.rules.one_handed.removal` is the rule as written (what a check removes); here it is
compiled by numba, unchanged, so that enumeration (:mod:`exact.one_handed.enumerate`), the DP kernel
(:mod:`exact.one_handed.dp_kernel`) and the play-out of its last layers
(:mod:`exact.one_handed.finish`) share it. Cards are (suit, rank) labels; the DP's dead label -1
matches nothing.
"""
from __future__ import annotations

from sim._jit import jit
from sim.rules.one_handed import CHECK_DEPTH, NO_REMOVAL, REMOVE_BETWEEN, REMOVE_FOUR, removal

__all__ = ["CHECK_DEPTH", "NO_REMOVAL", "REMOVE_BETWEEN", "REMOVE_FOUR", "_removal", "_settle_labels"]

#: :func:`sim.rules.one_handed.removal`, compiled and inlined into each engine's loop.
_removal = jit(inline="always")(removal)


@jit
def _settle_labels(rs, rr, length, reverse, max_removals):
    """Settle a row of label pairs in place (-1 = dead, matches nothing), making at most
    ``max_removals`` removals (1 for the last card under ``final=once``); return
    ``(length, removed, removals)``."""
    removed = 0
    removals = 0
    while length >= CHECK_DEPTH and removals < max_removals:
        sa = rs[length - 1]
        ra = rr[length - 1]
        sb = rs[length - CHECK_DEPTH]
        rb = rr[length - CHECK_DEPTH]
        kind = _removal(sa == sb and sa >= 0, ra == rb and ra >= 0, reverse)
        if kind == REMOVE_BETWEEN:
            rs[length - 3] = sa
            rr[length - 3] = ra
            length -= 2
        elif kind == REMOVE_FOUR:
            length -= 4
        else:
            break
        removed += kind
        removals += 1
    return length, removed, removals
