"""Slow, obviously correct references for the tests: brute force over every deck order.

Every brute-force reference of the test suite lives here, so that a fast engine is always compared
with the plainest possible count."""
import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

from sim.rules import one_handed, prisoners


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


def brute_force_prisoners(deck, variant) -> list:
    """Every order played with the reference rules (tiny decks only)."""
    counts = [0] * (deck.size + 1)
    for order in itertools.permutations(deck.cards()):
        counts[prisoners.play(order, deck, variant).score] += 1
    return counts


def brute_phase(deck, variant, row, cards):
    """Deal every order of ``cards`` onto ``row`` by the rules and classify, by the definitions of
    exact.one_handed.phase, how the phase of the top three cards ends (the plainest possible count)."""
    two_is_suit = not variant.rules.reverse
    base = len(row) - 3  # w_k sits at index base + k - 1 (negative: a sentinel below the row)
    tup = lambda c: (deck.suit(c), deck.rank(c))
    counts = {}
    for order in itertools.permutations(cards):
        r = list(row)
        outcome = None
        for pos, a in enumerate(order):
            r.append(a)
            while len(r) >= 4 and outcome is None:
                b = len(r) - 4
                same_suit = deck.suit(r[-1]) == deck.suit(r[b])
                same_rank = deck.rank(r[-1]) == deck.rank(r[b])
                two, four = (same_suit, same_rank) if two_is_suit else (same_rank, same_suit)
                if not (two or four):
                    break
                assert b >= base, "a card below the window was compared before a window card went"
                k = b - base + 1  # the window card matched (1, 2, 3) or above it (> 3)
                if two and k == 1:
                    outcome = ("S1", tup(a))
                elif two and k == 2:
                    outcome = ("S2", tup(a))
                elif four and k <= 3:
                    outcome = (f"R{k}",)
                elif two:
                    del r[-3:-1]
                else:
                    del r[-4:]
            if outcome is not None:
                if pos != len(order) - 1:
                    outcome = "early"  # the phase ended before the last card: not counted
                break
        if outcome is None:
            outcome = ("end", len(r) - base - 3)
        if outcome != "early":
            counts[outcome] = counts.get(outcome, 0) + 1
    return counts


def brute_force_from(dealt, deck, variant) -> BruteForceExact:
    """One-Handed from a position: every order of the cards not in ``dealt`` played after it with the
    reference rules (at most 8 cards left)."""
    rest = [c for c in deck.cards() if c not in set(dealt)]
    assert len(rest) <= 8, "brute force is for at most 8 cards left"
    counts = [0] * (deck.size + 1)
    wins = 0
    for tail in itertools.permutations(rest):
        outcome = one_handed.play(list(dealt) + list(tail), deck, variant)
        counts[outcome.score] += 1
        wins += outcome.won
    return BruteForceExact(math.factorial(len(rest)), tuple(counts), wins)
