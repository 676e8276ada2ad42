"""Size limits of the exact methods, and the one-line refusal for decks beyond them.

The limits are set from the measurements in ``benchmarks/bench_exact.py`` (one core): enumeration
visits about ``e * (S*R - 1)!`` prefixes; the DP's state count grows steeply with the deck and its
memory with the largest layer; the phase method's tables grow as ``2**(S*R)`` and its work as
``3**(S*R)``, divided by the symmetry of each window. A deck above a limit is refused before any
work starts.
"""
from __future__ import annotations

from sim.deck import Deck
from sim.errors import UsageError
from sim.games import get_game

#: enumeration: 13 cards is about 1.7e9 prefixes, a few minutes on one core
MAX_ENUMERATE_CARDS = 13
#: dynamic programming over reduced hand states (see exact.one_handed.dp): decks with 1 or 2 suits or ranks
#: (2x12: about 1e6 states, 15 s)
MAX_DP_CARDS = 24
#: ... and decks with at least 3 suits and 3 ranks, whose state count grows far faster. The last
#: layers are played out per state (exact.one_handed.finish), not built: 4x4 builds 3.9e6 states and plays out
#: the rest in about 85 s on a busy core; 3x6 (18 cards, the largest wide deck below 20 cards) builds
#: 4.4e7 states (largest layer 3.2e7) and plays out 2.3e10 orders of the last 6 cards in 909 s with a
#: peak of 7.1 GB (benchmarks/bench_exact.py, other core busy). 4x5 and 5x4 are out of reach:
#: 4x5 has 1.9e7 states with 10 cards left, growing 5-7x per card (the phase method reaches them).
MAX_DP_CARDS_WIDE = 18

#: the phase method (exact.one_handed.phase, exact.one_handed.phase_kernel): counts in uint64, exact while n! < 2**64.
#: Measured (benchmarks/bench_exact.py, one core): 4x4 in 1.2 s, 3x6 in 13 s (0.7 GB peak), 4x5 in
#: 144 s (1.9 GB peak), 5x4 in 105 s (1.5 GB). Its tables hold 2**(cards) sets per window, so it is also
#: refused where they would need more than MAX_PHASE_TABLE_BYTES: decks with 1 or 2 suits or ranks
#: share little symmetry (2x10 and 1x20 would need 3.4-3.7 GiB and far more time; the DP does them in
#: seconds).
MAX_PHASE_CARDS = 20
MAX_PHASE_TABLE_BYTES = 3 * 2**30

LIMITS = {"enumerate": MAX_ENUMERATE_CARDS, "dp": MAX_DP_CARDS, "phase": MAX_PHASE_CARDS}


def dp_limit(deck: Deck) -> int:
    """The DP's card limit for this deck's shape."""
    return MAX_DP_CARDS if min(deck.suits, deck.ranks) <= 2 else MAX_DP_CARDS_WIDE


def phase_table_bytes(deck: Deck) -> int:
    """Bytes of the tables the phase method allocates for ``deck`` (the plain game on it)."""
    from exact.one_handed.phase_kernel import PhasePlan

    return PhasePlan(deck.suits, deck.ranks).table_bytes()


def exact_limit(deck: Deck) -> int:
    """The most cards any exact method takes for this deck's shape (what ``auto`` can reach)."""
    if min(deck.suits, deck.ranks) >= 3:
        return max(MAX_PHASE_CARDS, MAX_DP_CARDS_WIDE)
    return MAX_DP_CARDS


def variant_limit(deck: Deck, variant=None) -> int:
    """The most cards the exact engine takes for this deck's shape and variant: every variant alike,
    except ``final=once``, which the phase method cannot count (see :func:`choose_method`)."""
    if variant is not None and variant.rules.final_once:
        return max(MAX_ENUMERATE_CARDS, dp_limit(deck))
    return exact_limit(deck)


#: why the phase method refuses ``final=once``, and what to use instead
PHASE_FINAL_ONCE = (
    "the phase method cannot count final=once: it counts how the phase of the top three cards ends over "
    "sets of cards, which does not keep the row the last card meets, and final=once stops the last card's "
    "cascade after its first removal; use --method dp or --method enumerate (or auto, which picks dp)")


METHODS = get_game("one-handed").exact_methods


def choose_method(deck: Deck, method: str, variant=None) -> str:
    """Validate ``method`` for ``deck``; resolve ``auto``; refuse a deck beyond the method's limit.

    ``auto`` is the phase method for decks with at least 3 suits and 3 ranks (the fastest there), else
    the DP; for ``final=once`` always the DP, since the phase method refuses it (its tables count how
    the phase of the top three cards ends over a set of cards; ``final=once`` needs the row before the
    last card, which they do not keep). The phase method plays ``reverse=on`` as the plain game on the
    transposed deck, so its memory is checked for the shape it will really build."""
    if method not in METHODS:
        raise UsageError(f"unknown exact method {method!r}: choose one of {', '.join(METHODS)}")
    final_once = variant is not None and variant.rules.final_once
    if method == "phase" and final_once:
        raise UsageError(PHASE_FINAL_ONCE)
    if method == "auto":
        method = ("phase" if min(deck.suits, deck.ranks) >= 3 and deck.size <= MAX_PHASE_CARDS and not final_once
                  else "dp")
    built = deck
    if variant is not None and variant.rules.reverse:
        built = Deck(deck.ranks, deck.suits)
    if method == "phase" and deck.size <= MAX_PHASE_CARDS:
        need = phase_table_bytes(built)
        if need > MAX_PHASE_TABLE_BYTES:
            raise UsageError(
                f"deck {deck} would need {need / 2**30:.1f} GiB of phase tables, more than the limit of "
                f"{MAX_PHASE_TABLE_BYTES // 2**30} GiB (decks with 1 or 2 suits or ranks share little "
                f"symmetry); use --method dp, or `solitaire simulate` for an estimate")
    limit = dp_limit(deck) if method == "dp" else LIMITS[method]
    if deck.size > limit:
        raise UsageError(
            f"deck {deck} has {deck.size} cards, more than the exact {method} method's limit of {limit} cards "
            f"for this shape (enumerate: {MAX_ENUMERATE_CARDS}; dp: {MAX_DP_CARDS} with at most 2 suits or "
            f"ranks, else {MAX_DP_CARDS_WIDE}; phase: {MAX_PHASE_CARDS}); use `solitaire simulate` for an "
            f"estimate")
    return method
