"""One-Handed Solitaire, the reference rules (docs/rules.md, "One-Handed Solitaire"), written to be obviously correct.

Deal the cards one at a time onto the end of a row. After each card, while the row has at least 4
cards, compare the last card ``a`` with the 4th from the end ``b``:

* same suit: remove the two cards between them, and check again;
* else same rank: remove the last four cards, and check again;
* else deal the next card.

The score is the number of cards left at the end; score 0 is a win. Variants (:mod:`sim.variant`):
``win=any`` also counts a game won if the row is ever empty after a removal; ``reverse=on`` swaps the
effects (same suit removes four, same rank removes the two between); ``first4=reversed`` holds the
first four cards in the opposite orientation, as published code that inserts at the front does;
``final=once`` makes a single check after the last card instead of checking until nothing matches
(a published simulator loops ``while the deck is not empty: deal unless the last check removed two;
check once``, so its last card gets one check; before the last card that loop is the plain game).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..deck import Deck
from ..variant import Variant

DEFAULT = Variant.make("one-handed")

#: What a check removes: nothing, the two cards between ``a`` and ``b``, or all four.
NO_REMOVAL, REMOVE_BETWEEN, REMOVE_FOUR = 0, 2, 4
#: A check compares the last card with this one, counted from the end.
CHECK_DEPTH = 4


def removal(same_suit: bool, same_rank: bool, reverse: bool) -> int:
    """The rule, written once: what comparing the last card ``a`` with the 4th from the end ``b``
    removes, given whether they share a suit and whether they share a rank.

    Plain game: same suit removes the two cards between them, else same rank removes all four;
    ``reverse=on`` swaps the effects. Every exact engine calls this function (compiled by numba in
    :mod:`exact.one_handed.settle`); the Monte Carlo kernel's branch-free form is tested against it.

    >>> removal(True, False, False), removal(False, True, False), removal(True, False, True)
    (2, 4, 4)
    """
    if reverse:
        same_suit, same_rank = same_rank, same_suit
    if same_suit:
        return REMOVE_BETWEEN
    if same_rank:
        return REMOVE_FOUR
    return NO_REMOVAL


@dataclass(frozen=True)
class Outcome:
    score: int  #: cards left in the row at the end
    won: bool  #: score 0, or (win=any) the row was emptied at some point


def dealing_order(order, variant: Variant = DEFAULT) -> list[int]:
    """The order in which cards reach the row: ``order`` itself, or with ``first4=reversed`` its
    first four cards reversed (appending c1..c4 then inserting at the front is the same game as
    dealing c4, c3, c2, c1, then the rest)."""
    order = list(order)
    if variant.rules.first4_reversed:
        order[:4] = order[:4][::-1]
    return order


def settle(row: list[int], deck: Deck, variant: Variant = DEFAULT, *, max_removals: int | None = None) -> int:
    """Apply removals to ``row`` (in place) until none applies, or ``max_removals`` have been made;
    return the number of removals."""
    reverse = variant.rules.reverse
    removals = 0
    while len(row) >= CHECK_DEPTH and (max_removals is None or removals < max_removals):
        a, b = row[-1], row[-CHECK_DEPTH]
        removed = removal(deck.suit(a) == deck.suit(b), deck.rank(a) == deck.rank(b), reverse)
        if removed == REMOVE_BETWEEN:
            del row[-3:-1]
        elif removed == REMOVE_FOUR:
            del row[-4:]
        else:
            break
        removals += 1
    return removals


def play(order, deck: Deck, variant: Variant = DEFAULT) -> Outcome:
    """Play one deck order; return its :class:`Outcome`.

    >>> deck = Deck(1, 4)               # one suit: every 4th-card check is a suit match
    >>> play([0, 1, 2, 3], deck)
    Outcome(score=2, won=False)
    >>> deck = Deck(3, 2)               # the last card, 2, matches 3 by suit, then 0 by rank
    >>> play([0, 1, 3, 5, 4, 2], deck), play([0, 1, 3, 5, 4, 2], deck, Variant.make(final="once"))
    (Outcome(score=0, won=True), Outcome(score=4, won=False))
    """
    cards = dealing_order(order, variant)
    once = variant.rules.final_once
    row: list[int] = []
    emptied = False
    for i, card in enumerate(cards):
        row.append(card)
        last = i == len(cards) - 1
        if settle(row, deck, variant, max_removals=1 if once and last else None) and not row:
            emptied = True
    score = len(row)
    return Outcome(score=score, won=score == 0 or (variant.rules.win_any and emptied))
