"""Size limits of the exact methods, and the one-line refusal for decks beyond them.

The limits are set from the measurements in ``benchmarks/bench_exact.py`` (one core): enumeration
visits about ``e * (S*R - 1)!`` prefixes; the DP's state count grows steeply with the deck and its
memory with the largest layer; the phase method's tables grow as ``2**(S*R)`` and its work as
``3**(S*R)``, divided by the symmetry of each window; the zeta method's memory is estimated from its
exact orbit counts (:func:`zeta_estimate`). A deck above a limit is refused before any work starts.
"""
from __future__ import annotations

import functools

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

#: the zeta method (exact.one_handed.zeta, zeta_kernel, orbits, residues): tables of the window-set
#: orbits of two set sizes, polynomials of n // 2 + 1 half-degrees, one pass per 31-bit prime. Its
#: limit is memory, estimated exactly from the orbit counts (Burnside, exact.one_handed.orbits), not
#: a card count. Sets are int64 masks (62 cards at most); the method is offered up to 33 cards, the
#: issue's frontier (11x3): past it no deck with at least 3 suits and 3 ranks fits (3x11: 27 GiB a
#: pass), and estimating a long narrow deck's orbits by Burnside takes seconds per deck.
MAX_ZETA_CARDS = 33
#: estimated peak of one pass's tables above which the zeta method is refused (a pass runs at about
#: 1.1x this): 6 GiB by default, the per-process budget of a shared 24 GB machine (3x8, 8x3, 9x3, 3x9
#: fit; 4x6 and 6x4, about 10 GiB, do not); the environment variable SOLITAIRE_ZETA_MAX_GIB raises it
#: on a larger machine
MAX_ZETA_TABLE_BYTES = 6 * 2**30


def zeta_table_limit() -> int:
    """Bytes of tables a zeta pass may take: ``SOLITAIRE_ZETA_MAX_GIB`` if set, else the default."""
    import os

    text = os.environ.get("SOLITAIRE_ZETA_MAX_GIB")
    if not text:
        return MAX_ZETA_TABLE_BYTES
    try:
        gib = float(text)
    except ValueError:
        gib = float("nan")
    if not gib > 0:
        raise UsageError(f"SOLITAIRE_ZETA_MAX_GIB must be a positive number of GiB, got {text!r}")
    return int(gib * 2**30)
#: measured seconds per unit of zeta_estimate()["work"] (one core, shared machine): 4x5 is 60 s a pass
ZETA_SECONDS_PER_WORK = 60.0 / 7.28e9

LIMITS = {"enumerate": MAX_ENUMERATE_CARDS, "dp": MAX_DP_CARDS, "phase": MAX_PHASE_CARDS, "zeta": MAX_ZETA_CARDS}


def dp_limit(deck: Deck) -> int:
    """The DP's card limit for this deck's shape."""
    return MAX_DP_CARDS if min(deck.suits, deck.ranks) <= 2 else MAX_DP_CARDS_WIDE


def phase_table_bytes(deck: Deck) -> int:
    """Bytes of the tables the phase method allocates for ``deck`` (the plain game on it)."""
    from exact.one_handed.phase_kernel import PhasePlan

    return PhasePlan(deck.suits, deck.ranks).table_bytes()


def zeta_estimate(deck: Deck) -> dict:
    """What the zeta method needs for ``deck`` (a copy of :func:`_zeta_estimate`'s cached answer)."""
    return dict(_zeta_estimate(deck.suits, deck.ranks))


@functools.lru_cache(maxsize=64)
def _zeta_estimate(suits: int, ranks: int) -> dict:
    """What the zeta method needs for ``suits x ranks`` (the plain game on it), from the exact orbit counts:
    ``passes`` (31-bit primes whose product passes n!), ``peak_bytes`` (the largest two adjacent set
    sizes' tables of one pass), ``orbits`` (window-set orbits), ``pairs`` ((orbit, card) pairs of
    the B tables), ``work`` (pairs times the cost of one truncated product) and ``seconds`` (one core,
    all passes, from the measured rate)."""
    import math

    from exact.one_handed.orbits import orbit_counts
    from exact.one_handed.phase_kernel import _canonical
    from exact.one_handed.residues import primes_for

    n = suits * ranks
    top = (-1, -1, -1)
    reps, seen, queue = [top, top], {top}, [top]
    while queue:
        w = queue.pop()
        for a in range(n):
            if a not in w:
                child, _ = _canonical((w[1], w[2], a), suits, ranks)
                if child not in seen:
                    seen.add(child)
                    reps.append(child)
                    queue.append(child)
    counts = [orbit_counts(suits, ranks, w) for w in reps]
    per_size = [sum(c[s] for c in counts if s < len(c)) for s in range(n + 1)]
    # B(a, X) is stored for the cards a outside X that do not match w1 (k of the u outside the window)
    kept = [len(c) - 1 - (0 if w[0] < 0 else suits + ranks - 2) for w, c in zip(reps, counts)]
    b_rows = [sum(c[s] * k * (len(c) - 1 - s) / (len(c) - 1) for c, k in zip(counts, kept) if s < len(c) - 1)
              for s in range(n + 1)]
    half, width = n // 2 + 1, n + 2 * ranks + 4
    vec = half * width * 4
    peak = max((per_size[s] + b_rows[s] + (b_rows[s - 1] if s else 0)) * vec for s in range(n + 1))
    pairs = sum(b_rows)
    work = pairs * half * half / 2 * width
    passes = len(primes_for(n))
    return dict(passes=passes, peak_bytes=int(peak), orbits=sum(per_size), pairs=int(pairs), work=work,
                seconds=work * ZETA_SECONDS_PER_WORK * passes, windows=len(reps) - 1,
                orders_bits=math.factorial(n).bit_length())


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


def choose_method(deck: Deck, method: str, variant=None) -> str:
    """Validate ``method`` for ``deck``; resolve ``auto``; refuse a deck beyond the method's limit.

    ``auto`` is the phase method for decks with at least 3 suits and 3 ranks up to 20 cards (the
    fastest there), the DP for the other decks it takes, and the zeta method beyond both where its
    estimated tables fit (:func:`zeta_estimate`); for ``final=once`` always the DP, since the phase and
    zeta methods refuse it (their tables count how the phase of the top three cards ends over a set of
    cards; ``final=once`` needs the row before the last card, which they do not keep). The phase and
    zeta methods play ``reverse=on`` as the plain game on the transposed deck, so their memory is
    checked for the shape they will build."""
    if method not in METHODS:
        raise UsageError(f"unknown exact method {method!r}: choose one of {', '.join(METHODS)}")
    final_once = variant is not None and variant.rules.final_once
    if method == "phase" and final_once:
        raise UsageError(PHASE_FINAL_ONCE)
    if method == "zeta" and final_once:
        raise UsageError(PHASE_FINAL_ONCE.replace("the phase method", "the zeta method (the phase recursion)"))
    built = deck
    if variant is not None and variant.rules.reverse:
        built = Deck(deck.ranks, deck.suits)
    if method == "auto":
        if min(deck.suits, deck.ranks) >= 3 and deck.size <= MAX_PHASE_CARDS and not final_once:
            method = "phase"
        elif deck.size <= dp_limit(deck) or final_once:
            method = "dp"
        else:
            method = "zeta"
    if method == "zeta":
        if deck.size > MAX_ZETA_CARDS:
            raise UsageError(f"deck {deck} has {deck.size} cards, more than the zeta method's {MAX_ZETA_CARDS}; "
                             f"use `solitaire simulate` for an estimate")
        est = zeta_estimate(built)
        if est["peak_bytes"] > zeta_table_limit():
            raise UsageError(
                f"deck {deck} is beyond every exact method here: the zeta method would need about "
                f"{est['peak_bytes'] / 2**30:.1f} GiB per pass ({est['orbits']:.3g} window-set orbits, "
                f"{est['passes']} passes), more than the limit of {zeta_table_limit() / 2**30:.0f} GiB "
                f"(SOLITAIRE_ZETA_MAX_GIB raises it on a larger machine); use `solitaire simulate` for an estimate")
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
