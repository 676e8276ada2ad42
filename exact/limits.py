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

#: enumeration: 13 cards is about 1.7e9 prefixes, a few minutes on one core
MAX_ENUMERATE_CARDS = 13
#: dynamic programming over reduced hand states (see exact.dp): decks with 1 or 2 suits or ranks
#: (2x12: about 1e6 states, 15 s)
MAX_DP_CARDS = 24
#: ... and decks with at least 3 suits and 3 ranks, whose state count grows far faster. The last
#: layers are played out per state (exact.finish), not built: 4x4 builds 3.9e6 states and plays out
#: the rest in about 85 s on a busy core; 3x6 (18 cards, the largest wide deck below 20 cards) builds
#: 4.4e7 states (largest layer 3.2e7) and plays out 2.3e10 orders of the last 6 cards in 909 s with a
#: peak of 7.1 GB (benchmarks/bench_exact.py, other core busy). 4x5 and 5x4 are out of reach:
#: 4x5 has 1.9e7 states with 10 cards left, growing 5-7x per card (the phase method reaches them).
MAX_DP_CARDS_WIDE = 18

#: the phase method (exact.phase, exact.phase_kernel): counts in uint64, exact while n! < 2**64.
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
    from .phase_kernel import PhasePlan

    return PhasePlan(deck.suits, deck.ranks).table_bytes()


def exact_limit(deck: Deck) -> int:
    """The most cards any exact method takes for this deck's shape (what ``auto`` can reach)."""
    if min(deck.suits, deck.ranks) >= 3:
        return max(MAX_PHASE_CARDS, MAX_DP_CARDS_WIDE)
    return MAX_DP_CARDS


METHODS = ("auto", "enumerate", "dp", "phase")


def choose_method(deck: Deck, method: str, variant=None) -> str:
    """Validate ``method`` for ``deck``; resolve ``auto``; refuse a deck beyond the method's limit.

    ``auto`` is the phase method for decks with at least 3 suits and 3 ranks (the fastest there), else
    the DP. The phase method plays ``reverse=on`` as the plain game on the transposed deck, so its
    memory is checked for the shape it will really build."""
    if method not in METHODS:
        raise UsageError(f"unknown exact method {method!r}: choose one of {', '.join(METHODS)}")
    if method == "auto":
        method = "phase" if min(deck.suits, deck.ranks) >= 3 and deck.size <= MAX_PHASE_CARDS else "dp"
    built = deck
    if variant is not None and variant.game == "one-handed" and variant["reverse"] == "on":
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

#: Largest deck whose whole Hand Solitaire deck-order graph :func:`exact.hand_graph.analyse_deck`
#: accepts (``solitaire poison --all``). The time depends on the variant more than on the card
#: count: ``benchmarks/bench_hand.py`` (one core, the other one busy) analyses every 10-card deck in
#: under 0.4 s per variant except 2x5 with ``step7=off``, 23 s (21.6 s in the poison survey; 39 s on
#: a busier machine): its rational elimination carries fractions with hundreds of digits. Peak
#: memory stays near the process baseline (+6 MiB). 12-card decks are explored in under 10 s (3x4:
#: 268,807 classes) but the exact rational elimination of 2x6 did not finish in 6 minutes.
MAX_GRAPH_CARDS = 10

#: Prisoner's Patience best play (:mod:`exact.prisoners_solver`): nodes (rows expanded) before a
#: search gives up as "undecided": about half a CPU-second per 52-card deck with the numba engine
#: (the Python reference expands ~25-30 thousand nodes per second).
DEFAULT_NODE_BUDGET = 500_000


def check_decks(decks) -> int:
    """``decks`` (random start decks to decide, as in ``--decks``) as a positive int, or a one-line
    :class:`UsageError` that names decks (not games)."""
    import numbers

    if isinstance(decks, bool) or not isinstance(decks, numbers.Integral):
        raise UsageError(f"decks must be a positive integer, got {decks!r}")
    if decks < 1:
        raise UsageError(f"decks must be at least 1, got {decks}")
    return int(decks)
