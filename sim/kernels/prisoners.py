"""Prisoner's Patience kernels: the published policy for both ways of moving a pile.

The policy only ever looks at top cards, and the rank is all that matters about a card, so a pile is
kept as two ranks: its top, and its bottom. Moving pile ``i`` onto pile ``j`` sets ``top[j]`` to
``top[i]`` when the pile keeps its order (``moves=physical``), or to ``bottom[i]`` when it is moved card
by card and so reversed (``moves=published``); the bottom of pile ``j`` never changes. Pile ``i`` is
deleted at once (see :mod:`sim.rules.prisoners` for why that equals dropping it at the next pass).

Between deals no pile is playable (the last pass found nothing), so after a deal the first pass can
only start with the new pile: if that does not move, the full pass would make no move and the
settling ends. Otherwise passes scan the whole row exactly as the reference does.

Public wrappers: :func:`play_orders` (the kernel twin of :func:`sim.rules.prisoners.play`) and
:func:`chunk_runner` (Monte Carlo).
"""
from __future__ import annotations

import numpy as np

from .._jit import jit
from ..deck import Deck
from ..rng import shuffle
from ..rules.prisoners import adjacent_ranks
from ..variant import Variant


def adjacency_table(deck: Deck, wrap: bool) -> np.ndarray:
    """``table[a * R + b]`` is 1 when ranks ``a`` and ``b`` are adjacent (R = ``deck.ranks``)."""
    r = deck.ranks
    return np.array([adjacent_ranks(a, b, r, wrap) for a in range(r) for b in range(r)], dtype=np.uint8)


@jit(inline="always")
def _delete(tops, bottoms, i, m):
    for k in range(i, m - 1):
        tops[k] = tops[k + 1]
        bottoms[k] = bottoms[k + 1]


@jit
def _play(seq, adj, ranks, reverse, tops, bottoms):
    """Deal the ranks ``seq`` with the published policy; return the number of piles left."""
    m = 0
    for rank in seq:
        tops[m] = rank
        bottoms[m] = rank
        m += 1
        # First pass, new pile only (everything else is known to be unplayable).
        i = m - 1
        if i < 1:
            continue
        t = tops[i]
        if adj[t * ranks + tops[i - 1]]:
            target = i - 1
        elif i >= 3 and adj[t * ranks + tops[i - 3]]:
            target = i - 3
        else:
            continue
        tops[target] = bottoms[i] if reverse else t
        m -= 1  # the new pile is the last: nothing to shift
        i -= 1
        moved = True
        # rest of that pass, then full passes until one makes no move
        while True:
            while i >= 1:
                t = tops[i]
                if adj[t * ranks + tops[i - 1]]:
                    target = i - 1
                elif i >= 3 and adj[t * ranks + tops[i - 3]]:
                    target = i - 3
                else:
                    i -= 1
                    continue
                tops[target] = bottoms[i] if reverse else t
                _delete(tops, bottoms, i, m)
                m -= 1
                moved = True
                i -= 1
            if not moved or m == 1:
                break
            moved = False
            i = m - 1
    return m


@jit
def _play_orders(rank_orders, adj, ranks, reverse):
    games, n = rank_orders.shape
    tops = np.empty(n + 1, dtype=np.int64)
    bottoms = np.empty(n + 1, dtype=np.int64)
    scores = np.empty(games, dtype=np.int64)
    for g in range(games):
        scores[g] = _play(rank_orders[g], adj, ranks, reverse, tops, bottoms)
    return scores


@jit
def _simulate_chunk(state, games, card_ranks, adj, ranks, reverse, paired):
    """Play ``games`` uniformly shuffled decks from stream ``state``.

    Returns ``(score_counts, wins, other_wins)``; with ``paired`` each deck is also played with the
    other way of moving a pile and ``other_wins`` counts its wins (0 otherwise).
    """
    n = card_ranks.shape[0]
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    seq = card_ranks.copy()
    tops = np.empty(n + 1, dtype=np.int64)
    bottoms = np.empty(n + 1, dtype=np.int64)
    score_counts = np.zeros(n + 1, dtype=np.int64)
    other_wins = 0
    for _ in range(games):
        # Shuffling the previous permutation again is still uniform: no reset needed.
        s0, s1, s2, s3 = shuffle(seq, s0, s1, s2, s3)
        score_counts[_play(seq, adj, ranks, reverse, tops, bottoms)] += 1
        if paired:
            other_wins += _play(seq, adj, ranks, not reverse, tops, bottoms) == 1
    return score_counts, score_counts[1], other_wins


@jit
def shuffled_orders(state, games, n):
    """``games`` x ``n`` uniformly shuffled orders of ``0..n-1`` from stream ``state`` (each a fresh
    Fisher-Yates shuffle of the previous one, as in :func:`_simulate_chunk`)."""
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    seq = np.arange(n)
    out = np.empty((games, n), dtype=np.int64)
    for g in range(games):
        s0, s1, s2, s3 = shuffle(seq, s0, s1, s2, s3)
        out[g] = seq
    return out


def play_orders(orders, deck: Deck, variant: Variant) -> np.ndarray:
    """Scores (piles left) of each row of ``orders`` (games x cards, card indices) with the kernel."""
    orders = np.ascontiguousarray(orders, dtype=np.int64)
    if orders.ndim != 2 or orders.shape[1] != deck.size:
        raise ValueError(f"orders must have shape (games, {deck.size})")
    if orders.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    return _play_orders(orders % deck.ranks, adjacency_table(deck, variant.rules.wrap), deck.ranks,
                        variant.rules.reverse_piles)


def chunk_runner(deck: Deck, variant: Variant, *, paired: bool = True):
    """The Monte Carlo chunk runner (see :attr:`sim.games.Game.runner`).

    Counts ``score_counts`` (index = piles left) and ``wins`` (one pile) for ``variant``; with
    ``paired`` (default) the same decks are also played with the other ``moves`` value, whose wins
    are reported as ``wins_moves_published`` / ``wins_moves_physical`` beside this variant's.
    """
    adj = adjacency_table(deck, variant.rules.wrap)
    card_ranks = deck.rank_array()
    reverse = variant.rules.reverse_piles
    own, other = ("published", "physical") if reverse else ("physical", "published")

    def run(state: np.ndarray, games: int) -> dict:
        counts, wins, other_wins = _simulate_chunk(state, games, card_ranks, adj, deck.ranks, reverse,
                                                   paired)
        out = {"score_counts": counts, "wins": int(wins)}
        if paired:
            out[f"wins_moves_{own}"] = int(wins)
            out[f"wins_moves_{other}"] = int(other_wins)
        return out

    return run
