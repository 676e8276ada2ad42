"""Hand Solitaire, the reference rules (docs/rules.md, "Hand Solitaire"), written to be obviously correct.

One **iteration** plays a deck order. Cards are dealt one at a time onto the top of a face-up stack.
After each card, while the stack has at least 4 cards, compare the top card ``a`` with the 4th from
the top ``b``:

* same rank: discard those four cards, and check again;
* else same suit: discard the two cards between them, and check again;
* else deal the next card.

When the deck is used up the **rotation phase** ("step 7") begins: repeatedly move the bottom card of
the stack to the top and check as above; it ends after 3 rotations in a row without any discard. An
empty stack at the end of an iteration is a **win**. Otherwise the next deck order is the list of
discards reversed (each discarded group was appended in stack order, bottom to top; the last card
appended is dealt first) followed by the leftover cards in uniformly shuffled order.

Checking again after a rank match never discards anything: the newly exposed top card was checked
against the same three cards below it when it was last on top (the cards below a card never change
while it stays in the stack, except by rotation, which only removes cards from a window when fewer
than 4 cards would remain). The published implementation does not check again; the property tests
confirm that the two readings give the same plays.

Variants (:mod:`sim.variant`, ``GAMES["hand"]``):

* ``step7=off``: no rotation phase.
* ``rank_resets=published``: as the published implementation, a rank match during the rotation phase
  does not reset the count of 3 rotations (only a suit match does); ``written`` (default): any discard
  resets it.
* ``reshuffle=off``: the leftovers are not shuffled; they follow the discards from the top of the stack
  down, so every run is deterministic.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable

from ..deck import Deck
from ..variant import Variant

DEFAULT = Variant.make("hand")
#: Rotations in a row without a discard that end the rotation phase (only the three wrap-around
#: windows were never checked, so 3 suffice).
ROTATIONS_TO_STOP = 3


@dataclass(frozen=True)
class Iteration:
    """What one iteration did to a deck order."""

    discards: tuple[int, ...]  #: discarded cards in the order they were appended (groups bottom to top)
    leftovers: tuple[int, ...]  #: the stack at the end, bottom card first

    @property
    def won(self) -> bool:
        return not self.leftovers

    @property
    def prefix(self) -> tuple[int, ...]:
        """The start of the next deck order: the discards reversed (last appended dealt first)."""
        return self.discards[::-1]


@dataclass(frozen=True)
class Run:
    """A whole game: iterations until a win or the cap."""

    iterations: int  #: iterations played (the winning one included)
    won: bool
    cards_left: int  #: cards left on the stack at the end of the final iteration played
    final_order: tuple[int, ...]  #: the deck order the final iteration played
    choices: tuple[tuple[int, ...], ...]  #: the leftover order chosen after each non-final iteration


def _settle(stack: list[int], discards: list[int], deck: Deck, *, recheck_after_rank: bool) -> tuple[bool, bool]:
    """Discard from the top of ``stack`` while a check applies.

    Returns ``(any_discard, any_suit_match)``.
    """
    any_discard = any_suit = False
    while len(stack) >= 4:
        a, b = stack[-1], stack[-4]
        if deck.rank(a) == deck.rank(b):
            discards.extend(stack[-4:])
            del stack[-4:]
            any_discard = True
            if not recheck_after_rank:
                break
        elif deck.suit(a) == deck.suit(b):
            discards.extend(stack[-3:-1])
            del stack[-3:-1]
            any_discard = any_suit = True
        else:
            break
    return any_discard, any_suit


def play_iteration(order, deck: Deck, variant: Variant = DEFAULT, *, recheck_after_rank: bool = True) -> Iteration:
    """Play one iteration of ``order`` (position 0 dealt first).

    ``recheck_after_rank=False`` plays the published code's literal loop (no check after a rank
    match); it gives the same :class:`Iteration` (see the module docstring), which the tests verify.

    >>> deck = Deck(2, 2)   # cards (suit, rank): 0=(0,0) 1=(0,1) 2=(1,0) 3=(1,1)
    >>> play_iteration([0, 1, 3, 2], deck)   # 2 on top, 0 fourth from top: same rank
    Iteration(discards=(0, 1, 3, 2), leftovers=())
    """
    stack: list[int] = []
    discards: list[int] = []
    for card in order:
        stack.append(card)
        _settle(stack, discards, deck, recheck_after_rank=recheck_after_rank)
    if variant.rules.step7:
        rank_resets = variant.rules.rank_resets
        quiet = 0
        while quiet < ROTATIONS_TO_STOP:
            if stack:
                stack.append(stack.pop(0))
            quiet += 1
            any_discard, any_suit = _settle(stack, discards, deck, recheck_after_rank=recheck_after_rank)
            if any_suit or (rank_resets and any_discard):
                quiet = 0
    return Iteration(discards=tuple(discards), leftovers=tuple(stack))


def next_order(iteration: Iteration, variant: Variant = DEFAULT, *,
               shuffle: Callable[[list], None] | None = None) -> tuple[int, ...]:
    """The deck order of the next iteration: the reversed discards, then the leftovers.

    With ``reshuffle=on`` the leftovers, listed bottom to top, are shuffled in place by ``shuffle``
    (default :func:`random.shuffle`); with ``reshuffle=off`` they follow from the top of the stack down.
    """
    if not variant.rules.reshuffle:
        return iteration.prefix + iteration.leftovers[::-1]
    leftovers = list(iteration.leftovers)
    (shuffle or random.shuffle)(leftovers)
    return iteration.prefix + tuple(leftovers)


def play_run(order, deck: Deck, variant: Variant = DEFAULT, *, cap: int = 1000,
             shuffle: Callable[[list], None] | None = None) -> Run:
    """Play iterations from ``order`` until a win or ``cap`` iterations.

    >>> deck = Deck(1, 4)     # one suit: the 4th card always matches the top card's suit
    >>> run = play_run([0, 1, 2, 3], deck, Variant.make("hand", reshuffle="off"), cap=5)
    >>> run.won, run.cards_left, run.iterations
    (False, 2, 5)
    """
    order = deck.check_order(order)
    choices = []
    for iteration_number in range(1, cap + 1):
        it = play_iteration(order, deck, variant)
        if it.won or iteration_number == cap:
            return Run(iterations=iteration_number, won=it.won, cards_left=len(it.leftovers),
                       final_order=order, choices=tuple(choices))
        following = next_order(it, variant, shuffle=shuffle)
        choices.append(following[len(it.discards):])
        order = following
    raise ValueError("cap must be at least 1")


def replay(order, choices, deck: Deck, variant: Variant = DEFAULT) -> tuple[int, ...]:
    """Replay a run from ``order`` choosing the given leftover orders; return the final deck order.

    Every choice must be an order of that iteration's leftovers: this is how a witness (a path from a
    deck order to a win) is checked.
    """
    order = deck.check_order(order)
    for chosen in choices:
        it = play_iteration(order, deck, variant)
        if it.won:
            raise ValueError("the run was already won before all choices were used")
        if sorted(chosen) != sorted(it.leftovers):
            raise ValueError("a choice is not an order of that iteration's leftovers")
        order = it.prefix + tuple(chosen)
    return order
