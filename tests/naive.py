"""Slow, obviously correct references for the tests: brute force over every deck order."""
import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

from sim.rules import one_handed


@dataclass(frozen=True)
class BruteForceExact:
    orders: int
    score_counts: tuple
    wins: int

    @property
    def p_win(self) -> Fraction:
        return Fraction(self.wins, self.orders)


def brute_force_one_handed(deck, variant) -> BruteForceExact:
    """Play every one of the (S*R)! orders with the reference rules (only for tiny decks)."""
    assert deck.size <= 9, "brute force is for tiny decks"
    counts = [0] * (deck.size + 1)
    wins = 0
    for order in itertools.permutations(deck.cards()):
        outcome = one_handed.play(order, deck, variant)
        counts[outcome.score] += 1
        wins += outcome.won
    assert sum(counts) == math.factorial(deck.size)
    return BruteForceExact(math.factorial(deck.size), tuple(counts), wins)
