"""Size limits of the exact methods, and the one-line refusal for decks beyond them.

The limits are set from the measurements in ``benchmarks/bench_exact.py`` (one core): enumeration
visits about ``e * (S*R - 1)!`` prefixes; the DP's state count grows steeply with the deck and its
memory with the largest layer; the phase method's tables grow as ``2**(S*R)`` and its work as
``3**(S*R)``, divided by the symmetry of each window; the zeta method's memory is estimated from its
exact orbit counts (:func:`zeta_estimate`). A deck above a limit is refused before any work starts.
"""
from __future__ import annotations

import os

from sim.deck import Deck
from sim.errors import UsageError
from sim.games import get_game

from exact.one_handed.phase_plan import PhasePlan
from exact.one_handed.word import WORD_FINAL_ONCE
from exact.one_handed.word_run import MAX_WORD_CARDS
from exact.one_handed.zeta_plan import zeta_estimate

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

#: the zeta method (exact.one_handed.zeta, zeta_plan, zeta_kernel, orbits, zeta_passes, crt): tables of the window-set
#: orbits of two set sizes, polynomials of n // 2 + 1 half-degrees, one pass per 31-bit prime. Its
#: limit is memory, estimated exactly from the orbit counts (Burnside, exact.one_handed.orbits), not
#: a card count. Sets are int64 masks (62 cards at most); the method is offered up to 33 cards, the
#: issue's frontier (11x3): past it no deck with at least 3 suits and 3 ranks fits (3x11: 27 GiB a
#: pass), and estimating a long narrow deck's orbits by Burnside takes seconds per deck.
MAX_ZETA_CARDS = 33
#: estimated peak of one pass's tables above which the zeta method is refused (a pass's resident
#: memory is about this plus 0.4 GiB): by default 70% of this machine's physical memory, at most
#: 20 GiB (the issue's budget). On a 24 GB machine that is 15.6 GiB: 4x6 (7.0 GiB), 6x4 (6.3), 9x3
#: (2.4), 3x9 (3.2), 10x3 (6.0), 3x10 (8.1) and 11x3 (12.8) fit; 3x11 and 5x5 (17.6) do not without
#: SOLITAIRE_ZETA_MAX_GIB, which sets it (lower on a shared machine, higher on a big one).
MAX_ZETA_TABLE_BYTES = 20 * 2**30
#: the share of physical memory the default limit may take
ZETA_MEMORY_SHARE = 0.7
#: the limit where the physical memory cannot be read
FALLBACK_ZETA_TABLE_BYTES = 6 * 2**30


def physical_memory_bytes() -> int | None:
    """This machine's physical memory in bytes, or None where the system does not say."""
    try:
        pages, size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None
    return pages * size if pages > 0 and size > 0 else None


def default_zeta_table_limit() -> int:
    """The default table budget of a zeta pass: 70% of physical memory, at most 20 GiB."""
    physical = physical_memory_bytes()
    if physical is None:
        return FALLBACK_ZETA_TABLE_BYTES
    return min(MAX_ZETA_TABLE_BYTES, int(physical * ZETA_MEMORY_SHARE))


def _limit_source() -> str:
    """Where today's zeta limit comes from, for the refusal."""
    if os.environ.get("SOLITAIRE_ZETA_MAX_GIB"):
        return "set by SOLITAIRE_ZETA_MAX_GIB"
    return "70% of this machine's memory, at most 20 GiB; SOLITAIRE_ZETA_MAX_GIB sets it on a larger machine"


def zeta_table_limit() -> int:
    """Bytes of tables a zeta pass may take: ``SOLITAIRE_ZETA_MAX_GIB`` if set, else the default
    (:func:`default_zeta_table_limit`)."""
    text = os.environ.get("SOLITAIRE_ZETA_MAX_GIB")
    if not text:
        return default_zeta_table_limit()
    try:
        gib = float(text)
    except ValueError:
        gib = float("nan")
    if not gib > 0:
        raise UsageError(f"SOLITAIRE_ZETA_MAX_GIB must be a positive number of GiB, got {text!r}")
    return int(gib * 2**30)


#: ``auto`` takes the zeta method from this many cards on decks with at least 3 suits and 3 ranks (one
#: core, benchmarks/bench_exact.py in one run: 3x6 2.1 CPU s against the phase method's 10.5, 4x5 17.5
#: against 146, 5x4 16.2 against 108; at 16 cards, 4x4, the two are even, 2.9 and 2.4 s)
ZETA_FROM_CARDS = 18

LIMITS = {"enumerate": MAX_ENUMERATE_CARDS, "dp": MAX_DP_CARDS, "phase": MAX_PHASE_CARDS, "zeta": MAX_ZETA_CARDS}


def dp_limit(deck: Deck) -> int:
    """The DP's card limit for this deck's shape."""
    return MAX_DP_CARDS if min(deck.suits, deck.ranks) <= 2 else MAX_DP_CARDS_WIDE


def phase_table_bytes(deck: Deck) -> int:
    """Bytes of the tables the phase method allocates for ``deck`` (the plain game on it)."""
    return PhasePlan(deck.suits, deck.ranks).table_bytes()


def zeta_fits(deck: Deck) -> bool:
    return deck.size <= MAX_ZETA_CARDS and zeta_estimate(deck)["peak_bytes"] <= zeta_table_limit()


def exact_limit(deck: Deck) -> int:
    """The most cards any exact method takes for this deck's shape (what ``auto`` can reach): the
    card limits of the DP and the phase method, or the deck itself where the zeta method's tables fit."""
    limit = max(MAX_PHASE_CARDS, MAX_DP_CARDS_WIDE) if min(deck.suits, deck.ranks) >= 3 else MAX_DP_CARDS
    if deck.size > limit and zeta_fits(deck):
        return deck.size
    return limit


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


def choose_method(deck: Deck, method: str, variant=None, mode: str = "all") -> str:
    """Validate ``method`` for ``deck``; resolve ``auto``; refuse a deck beyond the method's limit.

    ``auto``, on decks with at least 3 suits and 3 ranks, is the phase method below
    :data:`ZETA_FROM_CARDS` cards and the zeta method from there where its estimated tables fit
    (:func:`zeta_estimate`), else the phase method up to 20 cards; on narrower decks the DP, and the
    zeta method beyond it where its estimated tables fit (:func:`zeta_estimate`); for ``final=once`` always the DP, since the phase and
    zeta methods refuse it (their tables count how the phase of the top three cards ends over a set of
    cards; ``final=once`` needs the row before the last card, which they do not keep). The phase and
    zeta methods play ``reverse=on`` as the plain game on the transposed deck, so their memory is
    checked for the shape they will build; ``mode="core"`` (``--only p_win``) checks the zeta
    method's narrower core tables."""
    if method not in METHODS:
        raise UsageError(f"unknown exact method {method!r}: choose one of {', '.join(METHODS)}")
    final_once = variant is not None and variant.rules.final_once
    if method == "phase" and final_once:
        raise UsageError(PHASE_FINAL_ONCE)
    if method == "word":
        if final_once:
            raise UsageError(WORD_FINAL_ONCE)
        if deck.size > MAX_WORD_CARDS:
            raise UsageError(f"deck {deck} has {deck.size} cards, more than the word method's {MAX_WORD_CARDS}; "
                             f"use `solitaire simulate` for an estimate")
        return method
    if method == "zeta" and final_once:
        raise UsageError(PHASE_FINAL_ONCE.replace("the phase method", "the zeta method (the phase recursion)"))
    built = deck
    if variant is not None and variant.rules.reverse:
        built = Deck(deck.ranks, deck.suits)
    if method == "auto":
        wide = min(deck.suits, deck.ranks) >= 3
        if final_once:
            method = "dp"
        elif wide and deck.size < ZETA_FROM_CARDS:
            method = "phase"
        elif wide and zeta_fits(built):
            method = "zeta"
        elif wide and deck.size <= MAX_PHASE_CARDS:
            method = "phase"  # the zeta tables would not fit in the memory allowed here
        elif deck.size <= dp_limit(deck):
            method = "dp"
        else:
            method = "zeta"  # refused below with its estimate where it does not fit
    if method == "zeta":
        if deck.size > MAX_ZETA_CARDS:
            raise UsageError(f"deck {deck} has {deck.size} cards, more than the zeta method's {MAX_ZETA_CARDS}; "
                             f"use `solitaire simulate` for an estimate")
        est = zeta_estimate(built, mode)
        if est["peak_bytes"] > zeta_table_limit():
            raise UsageError(
                f"deck {deck} is beyond every exact method here: the zeta method would need about "
                f"{est['peak_bytes'] / 2**30:.1f} GiB per pass ({est['orbits']:.3g} window-set orbits, "
                f"{est['passes']} passes), more than the limit of {zeta_table_limit() / 2**30:.1f} GiB "
                f"({_limit_source()}); use `solitaire simulate` for an estimate")
        return method
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
            f"ranks, else {MAX_DP_CARDS_WIDE}; phase: {MAX_PHASE_CARDS}; zeta: as memory allows); use "
            f"`solitaire simulate` for an estimate")
    return method
