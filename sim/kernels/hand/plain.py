"""The plain Hand Solitaire engine: one iteration at a time on a linear stack of card numbers, suit and
rank looked up in tables. It is the kernel the whole-deck graph plays (:mod:`exact.hand.graph_kernel`,
through :data:`iteration_kernel`) and the kernel twin of :func:`sim.rules.hand.play_iteration`
(:func:`sim.kernels.hand.play_iterations`); the rotation phase is :mod:`sim.kernels.hand.rotation`'s,
the one the four-lane engine plays too.
"""
from __future__ import annotations

import numpy as np

from ..._jit import jit
from ...rules.hand import ROTATIONS_TO_STOP
from .rotation import settle_and_rotate


@jit(inline="always")
def _iteration(order, n, buf, disc, suit, rank, step7, rank_resets):
    """Play one iteration of ``order[:n]``; returns ``(base, top, nd)``: leftovers ``buf[base:top]``
    (bottom first) and discards ``disc[:nd]`` in the order appended. ``buf`` has ``4 n + 16`` slots
    (rotations per iteration are at most 3 per suit match plus 3)."""
    cards = (suit, rank)
    top = 0
    nd = 0
    for i in range(n):
        buf[top] = order[i]
        top += 1
        _, top, nd = settle_and_rotate(buf, 0, top, disc, nd, 1, cards, 0, rank_resets)  # the checks alone
    return settle_and_rotate(buf, 0, top, disc, nd, 1, cards, ROTATIONS_TO_STOP if step7 else 0, rank_resets)


#: :func:`_iteration` for other compiled kernels (compiled code can only call compiled code):
#: :mod:`exact.hand.graph_kernel` plays the iterations of the deck-order graph with it. The Monte
#: Carlo engine is the other one (:mod:`sim.kernels.hand.lanes`); both play the same checks and
#: rotation phase (:mod:`sim.kernels.hand.rotation`), and the tests compare each with the reference.
iteration_kernel = _iteration


@jit
def _play_iterations(orders, suit, rank, step7, rank_resets):
    """One iteration of each row: returns ``(discards, leftovers, n_leftovers)`` (rows padded)."""
    games, n = orders.shape
    buf = np.empty(4 * n + 16, dtype=np.int64)
    disc = np.empty(n, dtype=np.int64)
    discards = np.full((games, n), -1, dtype=np.int64)
    leftovers = np.full((games, n), -1, dtype=np.int64)
    n_left = np.empty(games, dtype=np.int64)
    for g in range(games):
        base, top, nd = _iteration(orders[g], n, buf, disc, suit, rank, step7, rank_resets)
        discards[g, :nd] = disc[:nd]
        leftovers[g, :top - base] = buf[base:top]
        n_left[g] = top - base
    return discards, leftovers, n_left
