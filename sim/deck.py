"""Decks of S suits x R ranks and the one card encoding used everywhere.

A card is the integer ``card = suit * ranks + rank`` with ``0 <= suit < suits`` and
``0 <= rank < ranks``; :meth:`Deck.suit` and :meth:`Deck.rank` recover both in O(1).
A *deck order* is a sequence of all ``suits * ranks`` cards; position 0 is dealt first.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .checks import positive_int
from .errors import UsageError

STANDARD_SUITS = 4
STANDARD_RANKS = 13


@dataclass(frozen=True, order=True)
class Deck:
    """A deck of ``suits`` x ``ranks`` distinct cards (the standard deck is ``Deck(4, 13)``).

    Examples
    --------
    >>> d = Deck(4, 13)
    >>> d.size, d.card(suit=2, rank=5), d.suit(31), d.rank(31)
    (52, 31, 2, 5)
    """

    suits: int = STANDARD_SUITS
    ranks: int = STANDARD_RANKS

    def __post_init__(self):
        hint = "a deck needs at least one suit and one rank"
        object.__setattr__(self, "suits", positive_int("suits", self.suits, hint=hint))
        object.__setattr__(self, "ranks", positive_int("ranks", self.ranks, hint=hint))

    @property
    def size(self) -> int:
        """Number of cards, ``suits * ranks``."""
        return self.suits * self.ranks

    @property
    def orders(self) -> int:
        """Number of deck orders, ``size!`` (a Python int: it passes 2**63 from 21 cards on)."""
        return math.factorial(self.size)

    def card(self, suit: int, rank: int) -> int:
        return suit * self.ranks + rank

    def suit(self, card: int) -> int:
        return card // self.ranks

    def rank(self, card: int) -> int:
        return card % self.ranks

    def cards(self) -> range:
        """All cards in the sorted order (suit-major)."""
        return range(self.size)

    def suit_array(self) -> np.ndarray:
        return np.arange(self.size, dtype=np.int64) // self.ranks

    def rank_array(self) -> np.ndarray:
        return np.arange(self.size, dtype=np.int64) % self.ranks

    def check_order(self, order) -> tuple[int, ...]:
        """Validate that ``order`` is a permutation of this deck; return it as a tuple of ints."""
        order = tuple(int(c) for c in order)
        if sorted(order) != list(range(self.size)):
            raise UsageError(f"a deck order of {self} must contain each of the cards 0..{self.size - 1} exactly once")
        return order

    def __str__(self) -> str:
        return f"{self.suits}x{self.ranks}"
