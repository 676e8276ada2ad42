"""One-Handed Solitaire kernels: many games, no per-game allocation, four games interleaved.

Cards are re-encoded for the kernel as ``code = suit << RANK_BITS | rank`` so that a suit or rank
match is one XOR and one mask. Each row lives in a buffer preceded by four sentinel codes whose suits
and ranks differ from every card and from each other, so "fewer than 4 cards" needs no test. Every
step of a game is branch-free: it either removes two, removes four or deals one card, chosen by
arithmetic rather than jumps. Four games advance in the same loop so that the CPU overlaps their
dependency chains; a finished game stays put (its step is idempotent) until all four are done.

Public wrappers (validation, planning) are in :mod:`sim.montecarlo` and :func:`play_orders`.
"""
from __future__ import annotations

import numpy as np

from .._jit import jit
from ..deck import Deck
from ..rng import shuffle
from ..variant import Variant

LANES = 4
PAD = 4  # sentinel slots in front of each row


class Encoding:
    """The kernel's code for each card, and the two masks (remove-two field, remove-four field)."""

    def __init__(self, deck: Deck, variant: Variant):
        rank_bits = int(deck.ranks + PAD).bit_length()
        suit_bits = int(deck.suits + PAD).bit_length()
        if rank_bits + suit_bits > 31:
            raise ValueError("deck too large for the kernel's card codes")
        rank_mask = (1 << rank_bits) - 1
        suit_mask = ((1 << suit_bits) - 1) << rank_bits
        self.codes = np.array([(deck.suit(c) << rank_bits) | deck.rank(c) for c in deck.cards()],
                              dtype=np.int32)
        self.sentinels = np.array([((deck.suits + k) << rank_bits) | (deck.ranks + k) for k in range(PAD)],
                                  dtype=np.int32)
        if variant["reverse"] == "on":
            self.mask_two, self.mask_four = rank_mask, suit_mask
        else:
            self.mask_two, self.mask_four = suit_mask, rank_mask
        self.win_any = variant["win"] == "any"
        self.first4_reversed = variant["first4"] == "reversed"


@jit(inline="always")
def _step(row, deck, length, i, n, mask_two, mask_four):
    """One branch-free event of one game. ``length`` is the physical end of the row (PAD + cards).

    Returns ``(length, i, removed, stuck)``; ``stuck`` means the game is over (nothing to remove, no
    card left), in which case nothing changed.
    """
    a = row[length - 1]
    x = a ^ row[length - 4]
    two = np.int64((x & mask_two) == 0)
    four = (1 - two) & np.int64((x & mask_four) == 0)
    removed = two | four
    deal = (1 - removed) & np.int64(i < n)
    # remove-two moves the last card down over the two removed ones (a select, not a branch)
    c = row[length - 3]
    row[length - 3] = a if two else c
    row[length] = deck[i]  # harmless unless dealing: it lands past the row's end
    length = length - 2 * two - 4 * four + deal
    i = i + deal
    stuck = (1 - removed) & (1 - deal)
    return length, i, removed, stuck


@jit(inline="always")
def _play4(rows, decks, n, mask_two, mask_four, scores, emptied):
    """Play the four games in ``decks[0..3, :n]`` (codes, with a sentinel pad at ``n``)."""
    l0 = l1 = l2 = l3 = PAD
    i0 = i1 = i2 = i3 = 0
    e0 = e1 = e2 = e3 = 0
    r0 = rows[0]
    r1 = rows[1]
    r2 = rows[2]
    r3 = rows[3]
    d0 = decks[0]
    d1 = decks[1]
    d2 = decks[2]
    d3 = decks[3]
    while True:
        l0, i0, m0, s0 = _step(r0, d0, l0, i0, n, mask_two, mask_four)
        l1, i1, m1, s1 = _step(r1, d1, l1, i1, n, mask_two, mask_four)
        l2, i2, m2, s2 = _step(r2, d2, l2, i2, n, mask_two, mask_four)
        l3, i3, m3, s3 = _step(r3, d3, l3, i3, n, mask_two, mask_four)
        e0 |= m0 & np.int64(l0 == PAD)
        e1 |= m1 & np.int64(l1 == PAD)
        e2 |= m2 & np.int64(l2 == PAD)
        e3 |= m3 & np.int64(l3 == PAD)
        if s0 & s1 & s2 & s3:
            break
    scores[0] = l0 - PAD
    scores[1] = l1 - PAD
    scores[2] = l2 - PAD
    scores[3] = l3 - PAD
    emptied[0] = e0
    emptied[1] = e1
    emptied[2] = e2
    emptied[3] = e3


@jit
def _buffers(n, sentinels):
    rows = np.empty((LANES, n + PAD + 1), dtype=np.int32)
    for lane in range(LANES):
        for k in range(PAD):
            rows[lane, k] = sentinels[k]
    decks = np.empty((LANES, n + 1), dtype=np.int32)
    for lane in range(LANES):
        decks[lane, n] = sentinels[0]
    return rows, decks


@jit
def _reverse_first4(deck, n):
    if n >= 4:
        t = deck[0]
        deck[0] = deck[3]
        deck[3] = t
        t = deck[1]
        deck[1] = deck[2]
        deck[2] = t
    else:  # fewer than 4 cards: reversing them all changes nothing that matters
        pass


@jit
def _play_orders(orders, codes, sentinels, mask_two, mask_four, first4_reversed):
    """Scores and emptied flags of the given deck orders (``orders``: games x n card indices)."""
    games, n = orders.shape
    rows, decks = _buffers(n, sentinels)
    scores4 = np.empty(LANES, dtype=np.int64)
    emptied4 = np.empty(LANES, dtype=np.int64)
    scores = np.empty(games, dtype=np.int64)
    emptied = np.empty(games, dtype=np.int64)
    for g0 in range(0, games, LANES):
        for lane in range(LANES):
            g = min(g0 + lane, games - 1)
            for k in range(n):
                decks[lane, k] = codes[orders[g, k]]
            if first4_reversed:
                _reverse_first4(decks[lane], n)
        _play4(rows, decks, n, mask_two, mask_four, scores4, emptied4)
        for lane in range(min(LANES, games - g0)):
            scores[g0 + lane] = scores4[lane]
            emptied[g0 + lane] = emptied4[lane]
    return scores, emptied


@jit
def _simulate_chunk(state, games, codes, sentinels, mask_two, mask_four, win_any, first4_reversed):
    """Play ``games`` uniformly shuffled games from stream ``state``.

    Returns ``(score_counts, wins)``: games per final score (index = score) and games won.
    """
    n = codes.shape[0]
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    rows, decks = _buffers(n, sentinels)
    for lane in range(LANES):
        decks[lane, :n] = codes
    score_counts = np.zeros(n + 1, dtype=np.int64)
    wins = 0
    scores4 = np.empty(LANES, dtype=np.int64)
    emptied4 = np.empty(LANES, dtype=np.int64)
    for g0 in range(0, games, LANES):
        # Shuffling the previous permutation again is still uniform: no reset needed.
        s0, s1, s2, s3 = shuffle(decks[0, :n], s0, s1, s2, s3)
        s0, s1, s2, s3 = shuffle(decks[1, :n], s0, s1, s2, s3)
        s0, s1, s2, s3 = shuffle(decks[2, :n], s0, s1, s2, s3)
        s0, s1, s2, s3 = shuffle(decks[3, :n], s0, s1, s2, s3)
        if first4_reversed:
            for lane in range(LANES):
                _reverse_first4(decks[lane], n)
        _play4(rows, decks, n, mask_two, mask_four, scores4, emptied4)
        for lane in range(min(LANES, games - g0)):
            score = scores4[lane]
            score_counts[score] += 1
            if score == 0 or (win_any and emptied4[lane]):
                wins += 1
    return score_counts, wins


def play_orders(orders, deck: Deck, variant: Variant):
    """Play each row of ``orders`` (games x cards, card indices) with the kernel.

    Returns ``(scores, won)`` as numpy arrays; the kernel twin of :func:`sim.rules.one_handed.play`.
    """
    orders = np.ascontiguousarray(orders, dtype=np.int64)
    if orders.ndim != 2 or orders.shape[1] != deck.size:
        raise ValueError(f"orders must have shape (games, {deck.size})")
    if orders.shape[0] == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=bool)
    enc = Encoding(deck, variant)
    scores, emptied = _play_orders(orders, enc.codes, enc.sentinels, enc.mask_two, enc.mask_four,
                                   enc.first4_reversed)
    won = (scores == 0) | (enc.win_any & (emptied != 0))
    return scores, won


def chunk_runner(deck: Deck, variant: Variant):
    """The Monte Carlo chunk runner (see :data:`sim.montecarlo.RUNNERS`)."""
    enc = Encoding(deck, variant)

    def run(state: np.ndarray, games: int) -> dict:
        counts, wins = _simulate_chunk(state, games, enc.codes, enc.sentinels, enc.mask_two,
                                       enc.mask_four, enc.win_any, enc.first4_reversed)
        return {"score_counts": counts, "wins": int(wins)}

    return run
