"""One-Handed Solitaire kernels: many games, no per-game allocation, four games interleaved.

Design (why it is fast; ``benchmarks/bench_one_handed.py`` measures it):

* Cards are re-encoded as ``code = suit << rank_bits | rank``, so ``x = a ^ b`` is zero in the suit
  field exactly when ``a`` and ``b`` share a suit, and zero in the rank field when they share a rank.
* The top card of each row lives in a register (``top``); the rest of the row is a stack in memory.
  A step pushes ``top`` unconditionally (harmless when the step removes cards: the slot lies past the
  new end), so no load on the critical path reads a value stored by the step before.
* A step is one event: remove two, remove four, or deal one card. The row length and the deck
  position are packed in one word ``P = length | deck_index << 32``; its change (-2 or -4 cards, or
  +1 card and +1 deck index) and the new top card are chosen by selects marked *unpredictable*,
  which LLVM keeps as ``cmov`` (a branch would be mispredicted on about a third of all steps).
* Every row starts with four pad codes and every deck ends with sentinel codes, both taken from four
  values whose suits and ranks differ from every card and from each other, so "fewer than four cards"
  needs no test, and a finished game just keeps dealing sentinels (never a match) until the other
  games of its group of four are done: the loop has no per-step exit test, only one per two steps.
* Four games advance in the same loop so that the CPU overlaps their dependency chains.

* ``final=once`` (a single check after the last card) plays the first ``n - 1`` cards with the same
  loop, the last card's slot holding a sentinel for the time being, then makes the one check of the
  last card in plain code (:func:`_play_group_once`). The shuffle is untouched, so every variant
  draws the same decks from a seed, and the counts of the other variants do not change.

Public wrappers (validation, planning) are in :mod:`sim.montecarlo` and :func:`play_orders`; the
Monte Carlo chunk kernel and :func:`play_orders` call the very same group players (:func:`_play_group`,
or :func:`_play_group_emptied` for ``win=any``, and :func:`_play_group_once` for ``final=once``).
"""
from __future__ import annotations

import numpy as np
from numba.core import types
from numba.extending import intrinsic, overload

from .._jit import jit
from ..deck import Deck
from ..rng import SHORT_SHUFFLE_MAX, shuffle, shuffle_short4
from ..variant import Variant

LANES = 4
#: Number of distinct pad/sentinel values (the comparison reaches back three cards).
N_SENTINELS = 4
#: Largest card-code width in bits.
MAX_CODE_BITS = 62

_U = np.uint64
_LOW = np.uint64(0xFFFFFFFF)
# changes of ``packed = length | index << 32`` (uint64 arithmetic wraps)
_REMOVE_TWO = np.uint64(2**64 - 2)
_REMOVE_FOUR = np.uint64(2**64 - 4)
_DEAL = np.uint64(1 + (1 << 32))


def _select(cond, if_true, if_false):
    """``if_true if cond else if_false``; compiled as an LLVM select marked ``!unpredictable``.

    The metadata stops LLVM from turning the select back into a branch (it does so when an operand
    is a load), so the step stays branch-free (a ``cmov``). This plain definition is what runs with
    ``NUMBA_DISABLE_JIT=1``.
    """
    return if_true if cond else if_false


@intrinsic
def _unpredictable_select(typingctx, cond, if_true, if_false):
    if if_true != if_false or not isinstance(cond, types.Boolean):
        return None
    sig = if_true(cond, if_true, if_false)

    def codegen(context, builder, signature, args):
        value = builder.select(*args)
        value.set_metadata("unpredictable", builder.module.add_metadata([]))
        return value

    return sig, codegen


@overload(_select, inline="always")
def _select_jit(cond, if_true, if_false):
    return lambda cond, if_true, if_false: _unpredictable_select(cond, if_true, if_false)


class Encoding:
    """The kernel's code of each card, the pad/sentinel codes and the two masks."""

    def __init__(self, deck: Deck, variant: Variant):
        rank_bits = int(deck.ranks + N_SENTINELS - 1).bit_length()
        suit_bits = int(deck.suits + N_SENTINELS - 1).bit_length()
        bits = rank_bits + suit_bits
        if bits > MAX_CODE_BITS:
            raise ValueError(f"deck {deck} too large for the kernel's card codes ({bits} bits)")
        rank_mask = (1 << rank_bits) - 1
        suit_mask = ((1 << suit_bits) - 1) << rank_bits
        self.codes = np.array([(deck.suit(c) << rank_bits) | deck.rank(c) for c in deck.cards()],
                              dtype=np.uint64)
        self.sentinels = np.array([((deck.suits + k) << rank_bits) | (deck.ranks + k)
                                   for k in range(N_SENTINELS)], dtype=np.uint64)
        if variant.rules.reverse:
            mask_two, mask_four = rank_mask, suit_mask
        else:
            mask_two, mask_four = suit_mask, rank_mask
        self.mask_two, self.mask_four = np.uint64(mask_two), np.uint64(mask_four)
        self.win_any = variant.rules.win_any
        self.first4_reversed = variant.rules.first4_reversed
        self.final_once = variant.rules.final_once


@jit(inline="always")
def _step(buf, top, packed, mask_two, mask_four):
    """One branch-free event of one game; returns the new ``(top, packed)``.

    ``packed`` holds the row's memory end ``length`` (low half; the row is ``buf[..length]`` then
    ``top``) and the index of the next card to deal (high half), both positions in ``buf``, which
    therefore has fewer than ``2**32`` entries.
    """
    length = packed & _LOW
    index = packed >> _U(32)
    x = top ^ buf[length - _U(3)]  # top card vs the 4th card from the end
    below4 = buf[length - _U(4)]  # the new top if the last four go
    card = buf[index]  # the new top if a card is dealt
    buf[length] = top  # push; past the new end unless a card is dealt
    two = (x & mask_two) == _U(0)
    four = (x & mask_four) == _U(0)
    top = _select(two, top, _select(four, below4, card))
    return top, packed + _select(two, _REMOVE_TWO, _select(four, _REMOVE_FOUR, _DEAL))


@jit(inline="always")
def _play_group_inline(buf, row_starts, deck_starts, n, mask_two, mask_four, scores, emptied,
                       track_emptied):
    """Play the four games whose decks are at ``buf[deck_starts[k]:][:n]``.

    Writes each game's score and (if ``track_emptied``) how many times its row was empty after a
    removal. Rows start with three pads in memory and the fourth as top card.
    """
    pad_top = buf[row_starts[0] + _U(3)]
    t0 = t1 = t2 = t3 = pad_top
    p0 = (row_starts[0] + _U(3)) | (deck_starts[0] << _U(32))
    p1 = (row_starts[1] + _U(3)) | (deck_starts[1] << _U(32))
    p2 = (row_starts[2] + _U(3)) | (deck_starts[2] << _U(32))
    p3 = (row_starts[3] + _U(3)) | (deck_starts[3] << _U(32))
    # a game is over once it has dealt its first sentinel: index > deck start + n
    e0 = ((deck_starts[0] + _U(n)) << _U(32)) | _LOW
    e1 = ((deck_starts[1] + _U(n)) << _U(32)) | _LOW
    e2 = ((deck_starts[2] + _U(n)) << _U(32)) | _LOW
    e3 = ((deck_starts[3] + _U(n)) << _U(32)) | _LOW
    # an empty row (only pads) at the start of a step: once at the start, then after each emptying
    z0 = row_starts[0] + _U(3)
    z1 = row_starts[1] + _U(3)
    z2 = row_starts[2] + _U(3)
    z3 = row_starts[3] + _U(3)
    c0 = c1 = c2 = c3 = _U(0)
    while True:
        for _ in range(2):
            if track_emptied:
                c0 += _U((p0 & _LOW) == z0)
                c1 += _U((p1 & _LOW) == z1)
                c2 += _U((p2 & _LOW) == z2)
                c3 += _U((p3 & _LOW) == z3)
            t0, p0 = _step(buf, t0, p0, mask_two, mask_four)
            t1, p1 = _step(buf, t1, p1, mask_two, mask_four)
            t2, p2 = _step(buf, t2, p2, mask_two, mask_four)
            t3, p3 = _step(buf, t3, p3, mask_two, mask_four)
        if (p0 > e0) & (p1 > e1) & (p2 > e2) & (p3 > e3):
            break
    scores[0] = _score(p0, row_starts[0], deck_starts[0], n)
    scores[1] = _score(p1, row_starts[1], deck_starts[1], n)
    scores[2] = _score(p2, row_starts[2], deck_starts[2], n)
    scores[3] = _score(p3, row_starts[3], deck_starts[3], n)
    if track_emptied:
        emptied[0] = np.int64(c0) - 1
        emptied[1] = np.int64(c1) - 1
        emptied[2] = np.int64(c2) - 1
        emptied[3] = np.int64(c3) - 1


@jit
def _play_group(buf, row_starts, deck_starts, n, mask_two, mask_four, scores):
    """:func:`_play_group_inline` without the emptiness count (a call of its own, so that the
    register allocator sees only the play loop)."""
    _play_group_inline(buf, row_starts, deck_starts, n, mask_two, mask_four, scores, scores,
                       False)


@jit
def _play_group_emptied(buf, row_starts, deck_starts, n, mask_two, mask_four, scores,
                        emptied):
    """:func:`_play_group_inline` with the emptiness count (for ``win=any``)."""
    _play_group_inline(buf, row_starts, deck_starts, n, mask_two, mask_four, scores, emptied,
                       True)


@jit
def _play_group_once(buf, row_starts, deck_starts, n, mask_two, mask_four, scores, emptied, win_any):
    """The four games of a group under ``final=once``: the first ``n - 1`` cards with the usual loop,
    then one check of the last card (no cascade after it).

    While the first ``n - 1`` cards are played, the last card's slot holds the sentinel that a deck of
    ``n - 1`` cards would have there (``_buffers`` lays sentinel ``k % 4`` at ``n + k``, so the slot
    gets sentinel 0 and the run ``0, 0, 1, 2, 3, 0, ...`` follows: any two sentinels three apart
    still differ, and the first differs from the pads). After that play the settled row of lane
    ``k`` is ``buf[row_starts[k] + 4:][:score]`` (the first sentinel dealt pushed its last card), so
    the card three below the last card is ``buf[row_starts[k] + 1 + score]``, a pad (which matches
    nothing) when the row holds fewer than three cards.
    """
    last = np.empty(LANES, dtype=np.uint64)
    for lane in range(LANES):
        slot = deck_starts[lane] + _U(n - 1)
        last[lane] = buf[slot]
        buf[slot] = buf[row_starts[lane]]  # the first pad is sentinel 0
    if win_any:
        _play_group_emptied(buf, row_starts, deck_starts, n - 1, mask_two, mask_four, scores, emptied)
    else:
        _play_group(buf, row_starts, deck_starts, n - 1, mask_two, mask_four, scores)
    for lane in range(LANES):
        buf[deck_starts[lane] + _U(n - 1)] = last[lane]
        score = scores[lane]
        x = last[lane] ^ buf[row_starts[lane] + _U(1 + score)]
        if (x & mask_two) == _U(0):
            scores[lane] = score - 1
        elif (x & mask_four) == _U(0):
            scores[lane] = score - 3
        else:
            scores[lane] = score + 1


@jit(inline="always")
def _play_group_variant(buf, row_starts, deck_starts, n, mask_two, mask_four, scores, emptied,
                        win_any, final_once):
    """Play a group with the loop the variant needs: :func:`_play_group_once` for ``final=once``,
    else :func:`_play_group_emptied` for ``win=any`` and :func:`_play_group` otherwise."""
    if final_once:
        _play_group_once(buf, row_starts, deck_starts, n, mask_two, mask_four, scores, emptied,
                         win_any)
    elif win_any:
        _play_group_emptied(buf, row_starts, deck_starts, n, mask_two, mask_four, scores, emptied)
    else:
        _play_group(buf, row_starts, deck_starts, n, mask_two, mask_four, scores)


@jit(inline="always")
def _score(packed, row_start, deck_start, n):
    """Cards left: row length minus the four pads minus the sentinels dealt after the last card."""
    row_cards = np.int64((packed & _LOW) - row_start) - 3
    sentinels_dealt = np.int64((packed >> _U(32)) - deck_start) - n
    return row_cards - sentinels_dealt


@jit
def _buffers(n, sentinels):
    """One buffer for the four rows and the four decks; returns it and the start offsets.

    A game takes at most ``n`` deals and ``n // 2`` removals, and the loop checks for the end every
    two steps, so a finished game deals at most ``n // 2 + 3`` sentinels while it waits.
    """
    spare = n // 2 + 16
    row_size = 1 + N_SENTINELS + n + spare
    deck_size = n + spare
    buf = np.empty(LANES * (row_size + deck_size), dtype=np.uint64)
    row_starts = np.empty(LANES, dtype=np.uint64)
    deck_starts = np.empty(LANES, dtype=np.uint64)
    for lane in range(LANES):
        row = lane * row_size + 1  # buf[row - 1] may be read (never used) on an empty row
        buf[row - 1] = sentinels[0]
        for k in range(N_SENTINELS):
            buf[row + k] = sentinels[k]
        row_starts[lane] = row
        deck = LANES * row_size + lane * deck_size
        deck_starts[lane] = deck
        for k in range(n, deck_size):
            # sentinel k - n follows the deck; cycling through the four values keeps any two
            # sentinels three apart different, and the first one differs from the pads it can meet
            buf[deck + k] = sentinels[(k - n) % N_SENTINELS]
    return buf, row_starts, deck_starts


@jit(inline="always")
def _reverse_first4(buf, start, n):
    """Reverse the first ``min(4, n)`` cards (the ``first4=reversed`` dealing order)."""
    m = min(4, n)
    for k in range(m // 2):
        a = start + _U(k)
        b = start + _U(m - 1 - k)
        t = buf[a]
        buf[a] = buf[b]
        buf[b] = t


@jit
def _play_orders(orders, codes, sentinels, mask_two, mask_four, win_any, first4_reversed, final_once):
    """Scores and emptied counts of the given deck orders (``orders``: games x n card indices).

    Calls the same group player as :func:`_simulate_chunk` for the same variant.
    """
    games, n = orders.shape
    buf, row_starts, deck_starts = _buffers(n, sentinels)
    scores4 = np.empty(LANES, dtype=np.int64)
    emptied4 = np.zeros(LANES, dtype=np.int64)  # stays 0 unless win=any
    scores = np.empty(games, dtype=np.int64)
    emptied = np.empty(games, dtype=np.int64)
    for g0 in range(0, games, LANES):
        for lane in range(LANES):
            g = min(g0 + lane, games - 1)
            start = deck_starts[lane]
            for k in range(n):
                buf[start + _U(k)] = codes[orders[g, k]]
            if first4_reversed:
                _reverse_first4(buf, start, n)
        _play_group_variant(buf, row_starts, deck_starts, n, mask_two, mask_four, scores4, emptied4,
                            win_any, final_once)
        for lane in range(min(LANES, games - g0)):
            scores[g0 + lane] = scores4[lane]
            emptied[g0 + lane] = emptied4[lane]
    return scores, emptied


@jit(inline="always")
def _simulate_chunk_inline(state, games, codes, sentinels, mask_two, mask_four, win_any,
                           first4_reversed, final_once):
    """Play ``games`` uniformly shuffled games from stream ``state``.

    Returns ``(score_counts, wins)``: games per final score (index = score) and games won.
    ``final_once`` is a constant in each caller (:func:`_simulate_chunk`, :func:`_simulate_chunk_once`),
    so the rules as written compile without the ``final=once`` branch.
    """
    n = codes.shape[0]
    s0, s1, s2, s3 = state[0], state[1], state[2], state[3]
    buf, row_starts, deck_starts = _buffers(n, sentinels)
    for lane in range(LANES):
        start = deck_starts[lane]
        for k in range(n):
            buf[start + _U(k)] = codes[k]
    score_counts = np.zeros(n + 1, dtype=np.int64)
    wins = 0
    scores4 = np.empty(LANES, dtype=np.int64)
    emptied4 = np.zeros(LANES, dtype=np.int64)  # stays 0 unless win=any
    d0, d1, d2, d3 = deck_starts[0], deck_starts[1], deck_starts[2], deck_starts[3]
    end = _U(n)
    for g0 in range(0, games, LANES):
        # Shuffling the previous permutation again is still uniform: no reset needed.
        if n <= SHORT_SHUFFLE_MAX:
            s0, s1, s2, s3 = shuffle_short4(buf[d0:d0 + end], buf[d1:d1 + end], buf[d2:d2 + end],
                                            buf[d3:d3 + end], s0, s1, s2, s3)
        else:
            s0, s1, s2, s3 = shuffle(buf[d0:d0 + end], s0, s1, s2, s3)
            s0, s1, s2, s3 = shuffle(buf[d1:d1 + end], s0, s1, s2, s3)
            s0, s1, s2, s3 = shuffle(buf[d2:d2 + end], s0, s1, s2, s3)
            s0, s1, s2, s3 = shuffle(buf[d3:d3 + end], s0, s1, s2, s3)
        if first4_reversed:
            for lane in range(LANES):
                _reverse_first4(buf, deck_starts[lane], n)
        _play_group_variant(buf, row_starts, deck_starts, n, mask_two, mask_four, scores4, emptied4,
                            win_any, final_once)
        for lane in range(min(LANES, games - g0)):
            score = scores4[lane]
            score_counts[score] += 1
            if score == 0 or emptied4[lane] > 0:
                wins += 1
    return score_counts, wins


@jit
def _simulate_chunk(state, games, codes, sentinels, mask_two, mask_four, win_any, first4_reversed):
    """:func:`_simulate_chunk_inline` under ``final=cascade``."""
    return _simulate_chunk_inline(state, games, codes, sentinels, mask_two, mask_four, win_any,
                                  first4_reversed, False)


@jit
def _simulate_chunk_once(state, games, codes, sentinels, mask_two, mask_four, win_any, first4_reversed):
    """:func:`_simulate_chunk_inline` under ``final=once``."""
    return _simulate_chunk_inline(state, games, codes, sentinels, mask_two, mask_four, win_any,
                                  first4_reversed, True)


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
    scores, emptied = _play_orders(orders, enc.codes, enc.sentinels, enc.mask_two,
                                   enc.mask_four, enc.win_any, enc.first4_reversed, enc.final_once)
    won = (scores == 0) | (enc.win_any & (emptied > 0))
    return scores, won


def chunk_runner(deck: Deck, variant: Variant):
    """The Monte Carlo chunk runner (see :attr:`sim.games.Game.runner`)."""
    enc = Encoding(deck, variant)
    simulate_chunk = _simulate_chunk_once if enc.final_once else _simulate_chunk

    def run(state: np.ndarray, games: int) -> dict:
        counts, wins = simulate_chunk(state, games, enc.codes, enc.sentinels, enc.mask_two,
                                      enc.mask_four, enc.win_any, enc.first4_reversed)
        return {"score_counts": counts, "wins": int(wins)}

    return run
