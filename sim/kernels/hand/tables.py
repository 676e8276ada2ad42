"""The Hand Solitaire kernels' view of a deck and variant: suit and rank tables (plain engine), card
codes and masks (four-lane engine), and the rule flags."""
from __future__ import annotations

import numpy as np

from ...deck import Deck
from ...errors import UsageError
from ...rules.hand import ROTATIONS_TO_STOP
from ...variant import Variant

#: Extra card codes: pads 0-3 (under every stack; pad 3 is the top of an empty one), sentinels 4-5.
N_SPECIAL = 6
#: Largest card-code width in bits.
MAX_CODE_BITS = 62


class Rules:
    """The kernels' view of a deck and variant: lookup tables, card codes, masks and flags."""

    def __init__(self, deck: Deck, variant: Variant):
        if variant.game != "hand":
            raise UsageError(f"variant {variant} is not a Hand Solitaire variant")
        self.n = deck.size
        self.suit = deck.suit_array().astype(np.int32)
        self.rank = deck.rank_array().astype(np.int32)
        self.step7 = variant.rules.step7
        self.rank_resets = variant.rules.rank_resets
        self.reshuffle = variant.rules.reshuffle
        # rotations in a row without a discard that end the rotation phase (0: no rotation phase)
        self.rotations_to_stop = ROTATIONS_TO_STOP if self.step7 else 0
        rank_bits = int(deck.ranks + N_SPECIAL - 1).bit_length()
        suit_bits = int(deck.suits + N_SPECIAL - 1).bit_length()
        if rank_bits + suit_bits > MAX_CODE_BITS:
            raise UsageError(f"deck {deck} is too large for the Hand Solitaire kernel's card codes")
        self.rank_bits = rank_bits
        self.ranks = deck.ranks
        self.codes = np.array([(deck.suit(c) << rank_bits) | deck.rank(c) for c in deck.cards()], dtype=np.uint64)
        self.special = np.array([((deck.suits + k) << rank_bits) | (deck.ranks + k) for k in range(N_SPECIAL)],
                                dtype=np.uint64)
        self.rank_mask = np.uint64((1 << rank_bits) - 1)
        self.suit_mask = np.uint64(((1 << suit_bits) - 1) << rank_bits)
