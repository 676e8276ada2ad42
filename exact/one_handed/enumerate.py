"""Exact One-Handed score distribution by enumerating every deck order (numba, depth-first).

The orders are the leaves of a tree whose nodes are prefixes; the settled row after each prefix is
kept per depth, so each prefix is played once and a leaf costs one card and one settle, not a game.
The rules mirror :func:`sim.rules.one_handed.settle` line for line (the tests compare the two).

One exact reduction is used, and only one: the first card of the order is fixed to card 0 and the
counts are multiplied by ``S*R``. Suit and rank relabellings map games onto games (the rules only
test equality) and act transitively on cards, so for every card ``c`` the orders starting with ``c``
have the same score distribution as those starting with card 0. ``first4=reversed`` is played
literally (the first four cards reach the row as c4, c3, c2, c1), which is what lets the tests prove
it equal in distribution to ``first4=kept`` rather than assume it. ``final=once`` settles the last
card with a single check (at most one removal), as the reference does.
"""
from __future__ import annotations

import numpy as np

from exact.one_handed.settle import CHECK_DEPTH, REMOVE_BETWEEN, REMOVE_FOUR, _removal
from sim._jit import jit
from sim.deck import Deck
from sim.variant import Variant


@jit
def _settle(row, length, suit, rank, reverse, max_removals):
    """Settle ``row[:length]`` in place, making at most ``max_removals`` removals; return
    ``(length, removals)`` (mirrors the reference)."""
    removals = 0
    while length >= CHECK_DEPTH and removals < max_removals:
        a = row[length - 1]
        b = row[length - CHECK_DEPTH]
        kind = _removal(suit[a] == suit[b], rank[a] == rank[b], reverse)
        if kind == REMOVE_BETWEEN:
            row[length - 3] = a
            length -= 2
        elif kind == REMOVE_FOUR:
            length -= 4
        else:
            break
        removals += 1
    return length, removals


@jit
def _enumerate(suit, rank, reverse, win_any, first4_reversed, final_once):
    """Score counts and wins over the ``(n-1)!`` orders that start with card 0."""
    n = suit.shape[0]
    score_counts = np.zeros(n + 1, dtype=np.int64)
    wins = 0
    rows = np.zeros((n + 1, n), dtype=np.int64)  # rows[d]: settled row after d cards
    lens = np.zeros(n + 1, dtype=np.int64)
    emptied = np.zeros(n + 1, dtype=np.int64)
    next_try = np.zeros(n + 1, dtype=np.int64)
    order = np.zeros(n, dtype=np.int64)
    used = np.zeros(n, dtype=np.bool_)
    used[0] = True
    rows[1, 0] = 0
    lens[1] = 1
    d = 1
    if n == 1:
        score_counts[1] += 1
        return score_counts, wins
    while True:
        if d == n:
            score = lens[n]
            score_counts[score] += 1
            if score == 0 or (win_any and emptied[n]):
                wins += 1
            d -= 1
            used[order[d]] = False
            continue
        c = next_try[d]
        while c < n and used[c]:
            c += 1
        if c == n:
            if d == 1:
                break
            d -= 1
            used[order[d]] = False
            continue
        next_try[d] = c + 1
        order[d] = c
        used[c] = True
        length = lens[d]
        src = rows[d]
        dst = rows[d + 1]
        if first4_reversed and d + 1 == 4:
            # the first four reach the row as order[3], order[2], order[1], order[0]
            for k in range(4):
                dst[k] = order[3 - k]
        else:
            for k in range(length):
                dst[k] = src[k]
            dst[length] = c
        limit = 1 if final_once and d + 1 == n else n
        length, removals = _settle(dst, length + 1, suit, rank, reverse, limit)
        lens[d + 1] = length
        emptied[d + 1] = emptied[d] | (removals > 0 and length == 0)
        next_try[d + 1] = 0
        d += 1
    return score_counts, wins


def enumerate_distribution(deck: Deck, variant: Variant):
    """Score counts and wins over all ``(S*R)!`` deck orders, by enumeration.

    Returns
    -------
    score_counts : list of Python ints, index = score
    wins : int
    """
    suit = deck.suit_array()
    rank = deck.rank_array()
    counts, wins = _enumerate(suit, rank, variant.rules.reverse, variant.rules.win_any,
                              variant.rules.first4_reversed, variant.rules.final_once)
    n = deck.size
    return [int(c) * n for c in counts], int(wins) * n
