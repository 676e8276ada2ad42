"""Exact One-Handed score distribution by the *phase* decomposition of the row (a third exact method).

The row is a stack
------------------
A dealt card ``a`` is compared with the 3rd card from the top of the row (``t3``; ``t1`` is the top).
On a suit match the two cards above ``t3`` go and ``a`` sits on ``t3``; it is then compared with the
card 3 below it, which was ``t5``; and so on. When the suit no longer matches, a rank match removes
``a`` and the three cards below it, else ``a`` stays on top. So every deal pops ``2m`` cards and
pushes ``a``, or pops ``2m + 3`` cards and discards ``a``: the row only ever changes at its top.
After a remove-four the new top is a card whose own check against the card 3 below it already
failed (:mod:`exact.one_handed.dp`, reduction 1), so nothing is pending.

Phases
------
Take the top three cards ``W = (w1, w2, w3)`` of a row (``w3`` on top) with nothing above them. Until
a card of ``W`` is removed, every comparison involves ``W`` or cards dealt since (a card compared with
anything below ``w1`` must sit on ``w2`` or lower, i.e. ``w3`` is gone), so what happens depends on
``W`` and on the cards dealt, not on the row below. The *phase* of ``W`` ends when the last card
``a`` dealt first removes a card of ``W``, in one of five ways, or when the cards run out:

* ``S1(a)``: ``a`` matched ``w1`` by suit: ``w2, w3`` removed, ``a`` sits on ``w1``, still comparing;
* ``R1``: ``a`` matched ``w1`` by rank: ``w1, w2, w3, a`` removed;
* ``S2(a)``: ``a``, sitting on the one card above ``w3``, matched ``w2`` by suit: ``w3`` and that
  card removed, ``a`` sits on ``w2``, still comparing;
* ``R2``: as ``S2`` but by rank: ``w2, w3``, the card above and ``a`` removed;
* ``R3``: ``a``, two cards above ``w3``, matched ``w3`` by rank: ``w3``, those two and ``a`` removed;
* ``end(j)``: the cards ran out with ``W`` whole and ``j`` cards above it.

(``a`` matching ``w3`` by suit removes only cards above ``W``: ``a`` then sits on ``w3``, the same
position as a card just dealt onto ``W``.) ``phase(W, C)`` counts, for a *set* ``C`` of cards, the
orders of ``C`` that end the phase of ``W`` in each way exactly at the last card of ``C`` (or use up
``C`` for ``end``). It depends on ``W`` and ``C`` only: that is what makes it small.

The recursion: from ``W`` with nothing above (state ``A``), the next card ``a`` is dealt and compared
with ``w1`` (state ``B(a)``). A match ends the phase (``S1(a)`` or ``R1``). Otherwise ``a`` stays,
and the phase of ``W' = (w2, w3, a)`` runs over some first part ``C1`` of the cards. Its endings, read
for ``W``: ``end(j)`` is ``end(j + 1)``; ``S1'(a')`` is ``S2(a')``; ``R1'`` is ``R2``; ``R2'`` is
``R3``; ``S2'(a')`` (``a'`` now sits on ``w3``) is state ``B(a')`` of ``W`` again, and ``R3'`` (only
``a`` and the cards above it gone) is state ``A`` of ``W`` again, each with the cards left. The
whole game is the phase of three *sentinel* cards that match nothing, over the whole deck: its
``end(j)`` counts are the orders with score ``j``. ``win=any`` (the row empty after a removal at
any time) is a return of that top phase to state ``A``: the orders whose first return uses the set
``X`` number ``first(X) * (n - |X|)!``.

``final=once`` (a single check after the last card) is not counted: the tables say how a phase
ends, not which row the last card met nor whether its removal began a cascade, so the method
refuses it (:data:`exact.one_handed.limits.PHASE_FINAL_ONCE`); enumeration and the DP count it.

This module is the plain reference (memoised Python over frozensets, small decks only);
:mod:`exact.one_handed.phase_kernel` computes the same recursion with dense subset tables in numba
(its plan in :mod:`exact.one_handed.phase_plan`); :func:`phase_distribution` is the method's entry.
"""
from __future__ import annotations

import math
from functools import lru_cache
from itertools import combinations

from sim.deck import Deck
from sim.errors import UsageError
from sim.rules.one_handed import REMOVE_BETWEEN, REMOVE_FOUR, removal
from sim.variant import Variant

from exact.invariants import require
from exact.one_handed.limits import PHASE_FINAL_ONCE
from exact.one_handed.phase_kernel import phase_counts

SENTINEL = None  # a card that matches nothing (below the bottom of the row)


def _match(a, b, reverse: bool):
    """``"two"``, ``"four"`` or ``None``: the comparison of top card ``a`` with ``b``."""
    if b is SENTINEL:
        return None
    kind = removal(a[0] == b[0], a[1] == b[1], reverse)
    return {REMOVE_BETWEEN: "two", REMOVE_FOUR: "four"}.get(kind)


def _add(target: dict, source: dict, factor: int = 1, relabel=None):
    for outcome, count in source.items():
        if relabel is not None:
            outcome = relabel(outcome)
            if outcome is None:
                continue
        target[outcome] = target.get(outcome, 0) + factor * count


def _subsets(cards: frozenset):
    items = sorted(cards)
    for k in range(len(items) + 1):
        for combo in combinations(items, k):
            yield frozenset(combo)


class PhaseReference:
    """The phase recursion of the module docstring, memoised on ``(window, set)``."""

    def __init__(self, reverse: bool = False):
        self.reverse = reverse
        self.phase = lru_cache(maxsize=None)(self._phase)
        self.state_b = lru_cache(maxsize=None)(self._state_b)

    def _phase(self, window: tuple, cards: frozenset) -> dict:
        """State ``A`` of ``window`` with ``cards`` to deal: {outcome: orders}."""
        if not cards:
            return {("end", 0): 1}
        out: dict = {}
        for a in cards:
            _add(out, self.state_b(window, a, cards - {a}))
        return out

    def _state_b(self, window: tuple, a, cards: frozenset) -> dict:
        """State ``B(a)``: ``a`` sits on ``w3`` and is compared with ``w1``; ``cards`` still to deal."""
        w1, w2, w3 = window
        m = _match(a, w1, self.reverse)
        if m is not None:
            if cards:
                return {}  # the phase ended at ``a``; no order of more cards ends it at its last card
            return {("S1", a): 1} if m == "two" else {("R1",): 1}
        sub = (w2, w3, a)
        out: dict = {}
        for first in _subsets(cards):
            rest = cards - first
            for outcome, count in self.phase(sub, first).items():
                kind = outcome[0]
                if kind == "S2":
                    _add(out, self.state_b(window, outcome[1], rest), count)
                elif kind == "R3":
                    _add(out, self.phase(window, rest), count)
                elif not rest:  # the other endings end this phase too
                    mapped = {"end": lambda o: ("end", o[1] + 1), "S1": lambda o: ("S2", o[1]),
                              "R1": lambda o: ("R2",), "R2": lambda o: ("R3",)}[kind](outcome)
                    out[mapped] = out.get(mapped, 0) + count
        return out

    def first_return(self, cards: frozenset) -> int:
        """Orders of ``cards`` dealt on an empty row that empty it first exactly at the last card."""
        total = 0
        for c in cards:
            total += self.phase((SENTINEL, SENTINEL, c), cards - {c}).get(("R3",), 0)
        return total


def phase_distribution_reference(deck: Deck, variant: Variant):
    """Score counts and wins over all ``(S*R)!`` orders by the phase recursion in plain Python.

    ``first4=reversed`` is counted as ``first4=kept`` (equal distributions, :mod:`exact.one_handed.parity`).
    Returns ``(score_counts, wins)`` as Python ints.
    """
    if variant.rules.final_once:
        raise UsageError(PHASE_FINAL_ONCE)
    n = deck.size
    ref = PhaseReference(reverse=variant.rules.reverse)
    deck_cards = frozenset((s, r) for s in range(deck.suits) for r in range(deck.ranks))
    top = ref.phase((SENTINEL, SENTINEL, SENTINEL), deck_cards)
    require(all(o[0] == "end" for o in top), "the sentinel phase can only end with the cards")
    score_counts = [0] * (n + 1)
    for (_, j), count in top.items():
        score_counts[j] += count
    require(sum(score_counts) == math.factorial(n), "phase counts must add up to (S*R)!")
    if variant.rules.win_any:
        wins = sum(ref.first_return(x) * math.factorial(n - len(x)) for x in _subsets(deck_cards) if x)
    else:
        wins = score_counts[0]
    return score_counts, wins


def phase_distribution(deck, variant, *, progress=None, stats: dict | None = None, checkpoint=None):
    """Score counts and wins over all ``(S*R)!`` orders (Python ints), by the dense phase kernel
    (:func:`exact.one_handed.phase_kernel.phase_counts`).

    ``reverse=on`` is the plain game on the transposed deck; ``first4=reversed`` has the same
    distribution as ``first4=kept`` (:mod:`exact.one_handed.parity`). ``checkpoint``: see
    :func:`exact.one_handed.phase_kernel.phase_counts`."""
    if variant.rules.final_once:
        raise UsageError(PHASE_FINAL_ONCE)
    suits, ranks = (deck.suits, deck.ranks) if not variant.rules.reverse else (deck.ranks, deck.suits)
    counts, first = phase_counts(suits, ranks, progress=progress, stats=stats, checkpoint=checkpoint)
    n = deck.size
    require(sum(counts) == math.factorial(n), "phase counts must add up to (S*R)!")
    if variant.rules.win_any:
        wins = sum(f * math.factorial(n - k) for k, f in enumerate(first))
    else:
        wins = counts[0]
    return counts, wins
