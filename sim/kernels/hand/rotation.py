"""The Hand Solitaire checks and the rotation phase, written once for both engines.

The plain engine (:mod:`sim.kernels.hand.plain`) keeps card numbers on its stack and looks their suit
and rank up in tables; the four-lane engine (:mod:`sim.kernels.hand.lanes`) keeps card codes
(``suit << rank_bits | rank``) and compares them with one XOR and two masks. :func:`card_match` is
the one point where the two differ: it is compiled for the kind of ``cards`` it is given (two tables
or two masks), so :func:`settle_and_rotate` is one code for both, compiled into each engine without a
call.

Discards are appended to ``out`` at ``at, at + step, at + 2 step, ...``: upwards into a discard array
for the plain engine (``step = 1``), downwards into the lane buffer for the four-lane engine
(``step = -1``, the next deck order written from its end).
"""
from __future__ import annotations

import numpy as np
from numba.core import types
from numba.extending import overload

from ..._jit import jit

#: :func:`card_match` results.
NO_MATCH, SUIT_MATCH, RANK_MATCH = 0, 1, 2


def card_match(a, b, cards):
    """How card ``a`` (the top) matches card ``b`` (the fourth from the top): :data:`RANK_MATCH`,
    :data:`SUIT_MATCH` or :data:`NO_MATCH` (two cards of a deck never share both).

    ``cards`` is ``(suit, rank)``, two tables indexed by card number, or ``(suit_mask, rank_mask)``,
    the masks of the card codes. Compiled code gets the form its ``cards`` asks for (see
    :func:`_card_match_jit`); this plain definition is what runs with ``NUMBA_DISABLE_JIT=1``.
    """
    first, second = cards
    if isinstance(first, np.ndarray):
        same_suit, same_rank = first[a] == first[b], second[a] == second[b]
    else:
        x = a ^ b
        same_suit, same_rank = (x & first) == 0, (x & second) == 0
    return RANK_MATCH if same_rank else SUIT_MATCH if same_suit else NO_MATCH


@overload(card_match, inline="always")
def _card_match_jit(a, b, cards):
    if isinstance(cards[0], types.Array):
        def by_tables(a, b, cards):
            suit, rank = cards
            if rank[a] == rank[b]:
                return RANK_MATCH
            if suit[a] == suit[b]:
                return SUIT_MATCH
            return NO_MATCH

        return by_tables

    def by_codes(a, b, cards):
        suit_mask, rank_mask = cards
        x = a ^ b
        if (x & rank_mask) == 0:
            return RANK_MATCH
        if (x & suit_mask) == 0:
            return SUIT_MATCH
        return NO_MATCH

    return by_codes


@jit(inline="always")
def settle_and_rotate(buf, base, top, out, at, step, cards, rotations_to_stop, rank_resets):
    """The checks at the top of the stack ``buf[base:top]`` (bottom first), then the rotation phase
    (step 7 of the rules); returns ``(base, top, at)``.

    The checks discard while one applies, checking again after a rank match too (the rules as
    written; the published loop does not, which changes nothing): a rank match discards the top four
    cards, a suit match the two under the top; they are appended to ``out`` from ``at`` on by
    ``step``, bottom to top. A rotation puts the bottom card on top and runs the checks again; the
    phase ends after ``rotations_to_stop`` rotations in a row without a suit match (nor a rank
    match, with ``rank_resets``), so ``rotations_to_stop = 0`` runs the checks alone (what the plain
    engine does after each card dealt). The stack moves up in ``buf`` by one slot per rotation
    (room: 3 per suit match plus 3).

    One loop for both (no inner function: an array passed on in the loop costs reference-count calls).
    """
    quiet = 0
    while True:
        while top - base >= 4:
            a = buf[top - 1]
            b = buf[top - 4]
            match = card_match(a, b, cards)
            if match == RANK_MATCH:
                out[at] = b
                out[at + step] = buf[top - 3]
                out[at + 2 * step] = buf[top - 2]
                out[at + 3 * step] = a
                at += 4 * step
                top -= 4
                if rank_resets:
                    quiet = 0
            elif match == SUIT_MATCH:
                out[at] = buf[top - 3]
                out[at + step] = buf[top - 2]
                at += 2 * step
                buf[top - 3] = a
                top -= 2
                quiet = 0
            else:
                break
        if quiet >= rotations_to_stop:
            return base, top, at
        if top > base:
            buf[top] = buf[base]
            base += 1
            top += 1
        quiet += 1
