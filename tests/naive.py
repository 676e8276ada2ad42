"""Slow, obviously correct references for the tests: brute force over every deck order.

Every brute-force reference of the test suite lives here, so that a fast engine is always compared
with the plainest possible count."""
import functools
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


def published_loop_score(order, deck, *, reverse: bool = False) -> int:
    """One-Handed played the way a published simulator loops (the reading ``final=once`` names),
    written out literally and independently of :mod:`sim.rules.one_handed`:

        while cards remain to deal:
            deal one, unless the previous check removed the two between;
            if the row has 4 cards or more, check the last card against the 4th from the end once.

    Plain: same rank removes the last four, same suit the two between; ``reverse`` swaps them.
    Returns the cards left."""
    stock = list(order)
    row = []
    deal = True
    while stock:
        if deal:
            row.append(stock.pop(0))
        deal = True
        if len(row) < 4:
            continue
        a, b = row[-1], row[-4]
        same_suit, same_rank = deck.suit(a) == deck.suit(b), deck.rank(a) == deck.rank(b)
        four, two = (same_suit, same_rank) if reverse else (same_rank, same_suit)
        if four:
            del row[-4:]
        elif two:
            del row[-3:-1]
            deal = False
    return len(row)


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


# --- Prisoner's Patience best play ------------------------------------------------------------

def brute_force_fewest_piles(order, deck, variant):
    """Fewest piles reachable when, before each deal and after the last, the player may make any
    legal moves (the game as played, deals interleaved; full piles of cards; memo on the full state)."""
    wrap, reverse = variant.rules.wrap, variant.rules.reverse_piles
    n = len(order)

    @functools.lru_cache(maxsize=None)
    def best(piles, dealt):
        rows = [list(p) for p in piles]
        options = [] if dealt == n else [best(piles + ((order[dealt],),), dealt + 1)]
        if dealt == n:
            options.append(len(piles))
        for source, target in prisoners.legal_moves(rows, deck, wrap):
            options.append(best(tuple(map(tuple, prisoners.apply_move(rows, source, target, reverse))), dealt))
        return min(options)

    return best((), 0)


def fewest_piles_of_every_row(deck, variant):
    """Every row reachable from every deal of ``deck``, with its fewest reachable piles (no cuts, no
    budget: the solver's abstract rows and children, searched exhaustively with memo)."""
    from exact.prisoners.best_play import rank_sequences
    from exact.prisoners.solver import Searcher

    searcher = Searcher(deck.ranks, wrap=variant.rules.wrap, reverse=variant.rules.reverse_piles)
    fewest: dict = {}

    def fewest_piles(row):
        if len(row) == 1:
            return 1
        if row not in fewest:
            fewest[row] = min([len(row)] + [fewest_piles(child) for _, child in searcher.children(row)])
        return fewest[row]

    for seq in rank_sequences(deck.suits, deck.ranks):
        fewest_piles(searcher.start_row(seq))
    return searcher, fewest
