"""Prisoner's Patience, the reference rules (docs/rules.md, "Prisoner's Patience"), written to be obviously correct.

The game
--------
Cards are dealt one at a time, each as a new pile at the right end of a row. A pile may be moved onto
the pile immediately to its left (distance 1) or onto the pile three places to its left (distance 3)
when the rank of its top card differs by exactly one from the rank of the target pile's top card. With
``wrap=on`` (the default) the lowest and highest ranks (ace and king) also count as adjacent; with
``R = 1`` no two cards are adjacent and with ``R = 2`` wrapping adds nothing. The aim is to end with a
single pile; the **score** is the number of piles left when the deck is used up, so score 1 is a win.

A pile is a list of cards from bottom to top (``pile[-1]`` is the top). A pile moves either

* as a unit, keeping its order (``moves=physical``: what a player's hand does), or
* card by card, top card first (``moves=published``: what the published simulator does), which
  **reverses** it: the moved pile's bottom card becomes the new top.

Policy (both ``moves`` values)
------------------------------
The simulator plays the published fixed policy; only the way a pile moves differs between the two
``moves`` values. After each dealt card it repeats *passes* until a pass makes no move. A pass:

1. drops the empty piles (the piles that were moved away during the previous pass), keeping the
   others in their order;
2. stops (ends the settling) if one pile remains;
3. scans ``i`` from the rightmost pile (index ``n - 1``, 0-based, ``n`` fixed when the pass starts)
   down to the second (index 1). Pile ``i`` moves onto pile ``i - 1`` if playable, else onto pile
   ``i - 3`` if ``i >= 3`` and that is playable, else stays.

Points the published description leaves open, pinned down here:

* Indices during a pass are those at the start of the pass: a moved pile leaves an empty slot and is
  dropped only when the next pass starts. This is the same as deleting the pile at once, because the
  scan only goes left: after pile ``i`` moves, the pass looks only at piles ``< i``, whose indices
  deleting pile ``i`` would not change, and none of them is empty (a pile is emptied only by its own
  step, and only piles at or above the scan point have had their step). So no step ever sees an
  empty pile, and "drops empty piles" has a single meaning.
* Moves made during a pass change what later steps of the same pass see: after pile ``i`` moves onto
  ``i - 1``, the step for ``i - 1`` compares the new top of pile ``i - 1``.
* A pass that makes a move is followed by another pass, even if one pile is left (that pass then
  stops at step 2).

Best play (see :mod:`exact.prisoners.solver`) uses the same legal moves, :func:`legal_moves` and
:func:`apply_move`, chosen freely.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..deck import Deck
from ..variant import Variant

DEFAULT = Variant.make("prisoners")

#: Where a pile may go: onto the pile 1 or 3 places to its left, tried in this order by the policy.
DISTANCES = (1, 3)


@dataclass(frozen=True)
class Outcome:
    score: int  #: piles left at the end
    won: bool  #: one pile left


def adjacent_ranks(rank_a: int, rank_b: int, ranks: int, wrap: bool) -> bool:
    """Whether two ranks differ by exactly one (and, with ``wrap``, whether they are 0 and R-1).

    >>> adjacent_ranks(0, 12, 13, True), adjacent_ranks(0, 12, 13, False), adjacent_ranks(0, 0, 1, True)
    (True, False, False)
    """
    gap = abs(rank_a - rank_b)
    return gap == 1 or (wrap and ranks >= 3 and gap == ranks - 1)


def playable(card_a: int, card_b: int, deck: Deck, wrap: bool) -> bool:
    """Whether top cards ``card_a`` and ``card_b`` have adjacent ranks."""
    return adjacent_ranks(deck.rank(card_a), deck.rank(card_b), deck.ranks, wrap)


def policy_target(source: int, can_land: Callable[[int, int], bool]) -> int | None:
    """The published policy's choice for pile ``source`` (the rule, written once): onto the pile
    just left of it if ``can_land(source, source - 1)``, else onto the pile three to its left if
    that exists and ``can_land(source, source - 3)``, else None (no move). Every engine that plays
    the policy calls this; ``can_land`` says whether the top ranks are adjacent in its representation.

    >>> policy_target(3, lambda s, t: t == 0), policy_target(2, lambda s, t: t == 0)
    (0, None)
    """
    for distance in DISTANCES:
        target = source - distance
        if target >= 0 and can_land(source, target):
            return target
    return None


def move_pile(piles: list[list[int]], source: int, target: int, reverse: bool) -> None:
    """Put pile ``source`` on pile ``target`` (in place), leaving pile ``source`` empty.

    ``reverse``: card by card, top card first, so the order of the moved cards is reversed.
    """
    moved = piles[source]
    if reverse:
        while moved:
            piles[target].append(moved.pop())
    else:
        piles[target].extend(moved)
        moved.clear()


def settle(piles: list[list[int]], deck: Deck, variant: Variant = DEFAULT) -> int:
    """Apply the published policy to ``piles`` (in place) until a pass makes no move.

    Returns the number of moves made. See the module docstring for the exact meaning of a pass.
    """
    wrap = variant.rules.wrap
    reverse = variant.rules.reverse_piles
    moves = 0

    def can_land(source, target):
        return playable(piles[source][-1], piles[target][-1], deck, wrap)

    while True:
        piles[:] = [pile for pile in piles if pile]
        if len(piles) == 1:
            return moves
        moved = False
        for i in range(len(piles) - 1, 0, -1):
            target = policy_target(i, can_land)
            if target is None:
                continue
            move_pile(piles, i, target, reverse)
            moved = True
            moves += 1
        if not moved:
            return moves


def play(order, deck: Deck, variant: Variant = DEFAULT) -> Outcome:
    """Play one deck order with the published policy; return its :class:`Outcome`.

    >>> deck = Deck(1, 4)
    >>> play([0, 1, 2, 3], deck)      # 1 onto 0, then 2 onto it, then 3 onto it
    Outcome(score=1, won=True)
    >>> play([0, 2, 1, 3], Deck(1, 4), Variant.make("prisoners", wrap="off"))
    Outcome(score=1, won=True)
    """
    piles = deal_and_settle(order, deck, variant)
    return Outcome(score=len(piles), won=len(piles) == 1)


def deal_and_settle(order, deck: Deck, variant: Variant = DEFAULT) -> list[list[int]]:
    """The final row of piles (bottom to top) of the published policy on ``order``."""
    piles: list[list[int]] = []
    for card in order:
        piles.append([card])
        settle(piles, deck, variant)
    return piles


# --- the legal moves, for best play --------------------------------------------------------------

def legal_moves(piles: list[list[int]], deck: Deck, wrap: bool) -> list[tuple[int, int]]:
    """Every legal move ``(source, target)`` in a row of non-empty piles: ``target = source - 1``
    or ``source - 3``, top cards of adjacent ranks."""
    return [(i, i - d) for i in range(len(piles)) for d in DISTANCES
            if i - d >= 0 and playable(piles[i][-1], piles[i - d][-1], deck, wrap)]


def apply_move(piles: list[list[int]], source: int, target: int, reverse: bool) -> list[list[int]]:
    """A new row: ``piles`` after moving pile ``source`` onto ``target`` (the empty pile removed)."""
    new = [list(pile) for pile in piles]
    move_pile(new, source, target, reverse)
    del new[source]
    return new
