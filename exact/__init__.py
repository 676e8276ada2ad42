"""Exact answers: score distributions counted over every deck order, as Python ints and fractions.

One folder per game: :mod:`exact.one_handed` (enumeration, DP and the phase method),
:mod:`exact.hand` (the deck-order graph and poison sets), :mod:`exact.prisoners` (both move policies'
distributions and best play). The pieces every game shares live here: the result record
(:mod:`exact.result`) and the invariant checks (:mod:`exact.invariants`).

This package may import :mod:`sim`; :mod:`sim` never imports it.
"""
from __future__ import annotations

from exact.one_handed import exact_distribution
from exact.one_handed.limits import MAX_DP_CARDS, MAX_ENUMERATE_CARDS
from exact.result import ExactResult

__all__ = ["exact_distribution", "ExactResult", "MAX_DP_CARDS", "MAX_ENUMERATE_CARDS"]
