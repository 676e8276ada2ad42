"""Exact answers: score distributions counted over every deck order, as Python ints and fractions.

One folder per game: :mod:`exact.one_handed` (enumeration, DP and the phase method),
:mod:`exact.hand` (the deck-order graph and poison sets), :mod:`exact.prisoners` (both move policies'
distributions and best play). The pieces every game shares live here: the result record
(:mod:`exact.result`) and the invariant checks (:mod:`exact.invariants`). Which engine serves a game
is written in the game's record (:mod:`sim.games`); :func:`exact_distribution` and
:func:`exact_limit` read it.

This package may import :mod:`sim`; :mod:`sim` never imports it.
"""
from __future__ import annotations

from sim.deck import Deck
from sim.errors import UsageError
from sim.games import get_game, resolve
from sim.variant import Variant

__all__ = ["exact_distribution", "exact_limit", "engine", "ExactResult", "MAX_DP_CARDS",
           "MAX_ENUMERATE_CARDS"]

#: imported on first use: :mod:`exact.one_handed` brings numba, and a light module of this package
#: (a game's limits, the statuses) is read by the command line without it
_LAZY = {"ExactResult": "exact.result", "MAX_DP_CARDS": "exact.one_handed.limits",
         "MAX_ENUMERATE_CARDS": "exact.one_handed.limits"}


def __getattr__(name):
    if name in _LAZY:
        import importlib
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))


def engine(game: str):
    """The exact score-distribution function of ``game`` (from its record), or a one-line refusal
    that says what to use instead."""
    record = get_game(game)
    if record.exact is None:
        raise UsageError(record.no_exact or f"{record.title} has no exact score distribution here; "
                                            "use `solitaire simulate` for an estimate")
    return resolve(record.exact)


def exact_distribution(deck: Deck | None = None, variant: Variant | str | None = None, *,
                       method: str = "auto", progress=None) -> "ExactResult":
    """Count the deck orders of each final score, exactly, with the engine of the variant's game.

    Parameters
    ----------
    deck : Deck, default ``Deck(4, 13)`` (which is refused: too large for an exact method)
    variant : Variant or canonical string, default One-Handed as written
    method : one of the game's exact methods (``sim.games.get_game(game).exact_methods``); ``"auto"``
        picks the fastest that fits
    progress : optional callable ``progress(done, total, work)``

    Returns
    -------
    ExactResult
        counts summing to ``(S*R)!`` (checked), ``p_win`` and ``mean_score`` as fractions.

    Examples
    --------
    >>> r = exact_distribution(Deck(2, 4))
    >>> r.orders, r.p_win
    (40320, Fraction(59, 420))
    >>> exact_distribution(Deck(1, 3), "prisoners(moves=physical,wrap=off)").score_counts
    (0, 4, 2, 0)
    """
    if variant is None:
        variant = Variant.make("one-handed")
    elif isinstance(variant, str):
        variant = Variant.parse(variant)
    return engine(variant.game)(deck if deck is not None else Deck(), variant, method=method,
                                progress=progress)


def exact_limit(deck: Deck, variant: Variant) -> int:
    """The most cards the exact engine of ``variant``'s game takes for ``deck``'s shape (0: none)."""
    record = get_game(variant.game)
    return resolve(record.exact_limit)(deck, variant) if record.exact_limit else 0
